/*
 * optimize.c - graph rewrites for speed on the top graph, after dead-code removal and before
 * scheduling (float32 only; every rewrite keeps the computed function up to rounding).
 *
 * Fusion into a producing Conv, Gemm or MatMul P whose output y feeds exactly one live node:
 *   - BatchNormalization (inference, constant parameters) after a Conv or Gemm with constant
 *     weights: folded into new weight and bias constants;
 *   - Add of a constant that is per output channel (Conv) or per column (Gemm): folded into the
 *     bias constant; per column after MatMul: becomes MatMul's fused addend (a bias);
 *   - Add of a tensor of y's shape (a residual): becomes the fused addend (n->fuse_add);
 *   - an activation: Relu, Clip (constant bounds), LeakyRelu, Sigmoid, HardSigmoid, HardSwish,
 *     Tanh, and the two-consumer patterns x*Sigmoid(x) (SiLU), x*HardSigmoid(x) (hard swish)
 *     and 0.5*x*(1+Erf(x/sqrt 2)) (GELU as PyTorch exports it): n->fuse_act.
 * The kernels apply act(y + addend) in their epilogue.  The absorbed nodes leave the graph and
 * P writes the last absorbed node's output.
 *
 * Weight layouts (compile time; the original weight stays reachable as n->orig_w for shapes):
 *   - Conv with a constant weight that takes the GEMM forms (not depthwise): per group, k blocks
 *     of 128 (k = c*KH*KW + tap), each holding panels of 8 filters, P[g][k/128][m/8][k%128][m%8],
 *     zero rows up to a multiple of 8 -- the layout of onnxc_pack_a in templates/gemm.h, which
 *     the micro-kernel streams contiguously;
 *   - 1x1 Conv (one group) of a small plane (<= 64 pixels) whose channel count fills vectors
 *     better than its pixel count: W^T in panels of 48 channels over all k (W_TPANELS, for
 *     onnxc_sgemm_t, which keeps channels in the vector lanes); for other 2-D convolutions of
 *     one group, >= 16 input channels and <= 256 output pixels that Winograd does not take
 *     (onnxc_conv_t, convt_ok), W^T (k = c*KH*KW + tap) in panels of 1-3 vectors of 16
 *     channels, the vectors split evenly (64 channels: 32 + 32), each panel 16 x its vectors
 *     wide and only the last one's rows past M zero;
 *   - Conv 3x3, stride 1, padding 1, >= 16 channels in and out per group: Winograd filters
 *     U = G g G^T in the same packed layout, F(4x4,3x3) (36 matrices of Mg x Cg per group,
 *     W_WINO43) on planes of >= 16 4x4 tiles where it needs at most 3/4 of F(2x2,3x3)'s
 *     products and its transform scratch fits the headroom, else F(2x2,3x3) (16, W_WINO23);
 *   - Gemm/MatMul with a constant 2-D B: B as [K][N] row-major (transB undone), Gemm's alpha
 *     multiplied in;
 *   - one-row products (Gemm/MatMul whose A has one row, 1x1 Conv of 1x1 planes, group 1):
 *     B (the Conv's W^T) in the GEMV strip layout of onnxc_sgemv_p (columns in strips of 128,
 *     each strip row after row), so the batch-1 classifier reads its weights as a few
 *     sequential streams (W_GEMV).
 * (Not for the CUDA targets: cuBLAS reads the ONNX layouts.)
 *
 * Squeeze-and-excitation blocks (C targets, after packing), y = dw(x), s = SE(GAP(y)),
 * z = Conv1x1(y * s):
 *   - the channel scale Mul(y, s) whose only reader is a packed 1x1 Conv with no more output
 *     channels than pixels: the Conv reads y and scales its weights' columns by s at run time
 *     (n->fuse_scale; onnxc_scale_cols), so the scaled tensor is never written;
 *   - GlobalAveragePool(y) of a depthwise Conv (onnxc_dw2d), or of a DwBlock or ConvDw without
 *     projection:
 *     the producer's second output, the plane means its kernels add up as they write y
 *     (onnxc_epi.sum), so y is not read back for them.
 *
 * fuse_elementwise (CUDA targets, after optimize_graph): a tree of elementwise nodes (the
 * expression-template rows: Add, Mul, Relu, Exp, ...) whose inner values have one consuming
 * node, inside the tree, and the root's shape becomes one FusedElementwise node: one kernel
 * reading the tree's outside inputs once.
 */
#include <math.h>
#include <string.h>

#include "onnxc.h"

#ifndef DWBLOCK_MIN_BYTES
#define DWBLOCK_MIN_BYTES (1024 * 1024) /* smaller expanded tensors stay in cache unfused */
#endif
#define PACK_KC 128 /* k block of the packed layout (templates/gemm.h ONNXC_KC) */
#ifndef WINO_MIN_PIXELS
#define WINO_MIN_PIXELS 16 /* smaller planes: few tiles per GEMM, transforms dominate */
#endif

static bool is_op(const Node *n, const char *op) { return n && !n->dead && !*n->domain && !strcmp(n->op_type, op); }

static bool is_f32(const Value *v) { return v && v->dtype == DT_FLOAT; }

/* The only live consumer of v (NULL if none, several, or v is a graph output). */
static Node *sole_consumer(Graph *g, Value *v) {
  if (!v || v->is_output || v->n_consumers != 1) return NULL;
  for (int i = 0; i < g->nodes.n; i++) {
    Node *n = g->nodes.v[i];
    if (n->dead) continue;
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k] == v) return n;
  }
  return NULL;
}

/* The live consumers of v, up to max; returns the count (which may exceed max). */
static int consumers(Graph *g, Value *v, Node **out, int max) {
  int c = 0;
  for (int i = 0; i < g->nodes.n; i++) {
    Node *n = g->nodes.v[i];
    if (n->dead) continue;
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k] == v) {
        if (c < max) out[c] = n;
        c++;
        break;
      }
  }
  return c;
}

/* Scalar constant value of v (a one-element float constant) or NAN. */
static double scalar_const(const Value *v) {
  if (!v || !v->data || value_numel(v) != 1 || !dtype_is_float(v->dtype)) return NAN;
  return const_get_f(v, 0);
}

/* The other input of a two-input node. */
static Value *other_in(const Node *n, const Value *v) {
  if (n->n_inputs != 2) return NULL;
  return n->inputs[0] == v ? n->inputs[1] : n->inputs[1] == v ? n->inputs[0] : NULL;
}

/* P now produces what `last` produced; the absorbed nodes go away. */
static void absorb(Node *p, Node *last, PtrVec *gone, Ctx *ctx, Node **drop, int ndrop) {
  p->outputs[0] = last->outputs[0];
  p->outputs[0]->producer = p;
  for (int i = 0; i < ndrop; i++) {
    drop[i]->dead = true;
    vec_push(&ctx->arena, gone, drop[i]);
  }
}

static Value *new_const(Ctx *ctx, Graph *g, const char *name, int rank, const int64_t *dims) {
  Value *v = graph_new_value(ctx, g, name);
  value_set_shape(v, DT_FLOAT, rank, dims);
  v->typed = true;
  value_alloc_data(ctx, v);
  return v;
}

/* ---- BatchNormalization and constant adds folded into weights and biases ------------------ */

static bool bn_foldable(const Node *bn, int64_t C) {
  if (bn->n_inputs != 5) return false;
  for (int k = 1; k < bn->n_outputs; k++)
    if (bn->outputs[k]) return false;
  if (bn->opset >= 14 && attr_i(bn, "training_mode", 0)) return false;
  if (bn->opset < 9 && attr_i(bn, "spatial", 1) == 0) return false;
  for (int k = 1; k < 5; k++)
    if (!bn->inputs[k] || !bn->inputs[k]->data || !dtype_is_float(bn->inputs[k]->dtype) || value_numel(bn->inputs[k]) != C)
      return false;
  return true;
}

/* Channel c of P's output is scaled by s[c] and shifted by t[c]: new weight and bias. */
static void scale_shift(Ctx *ctx, Graph *g, Node *p, const double *s, const double *t, int64_t C) {
  Value *w = p->inputs[1];
  Value *nw = new_const(ctx, g, "fused_w", w->rank, w->dims);
  int64_t nel = value_numel(w);
  bool conv = !strcmp(p->op_type, "Conv");
  bool tb = !conv && attr_i(p, "transB", 0);
  int64_t inner = conv || tb ? nel / C : 1;        /* elements per channel, channel-major */
  for (int64_t i = 0; i < nel; i++) {
    int64_t c = conv || tb ? i / inner : i % C;
    ((float *)nw->data)[i] = (float)(const_get_f(w, i) * s[c]);
  }
  Value *b = conv ? node_in(p, 2) : node_in(p, 2);
  double beta = conv ? 1.0 : attr_f(p, "beta", 1.0f);
  int64_t nb = C;
  Value *nbv = new_const(ctx, g, "fused_b", 1, &nb);
  for (int64_t c = 0; c < C; c++) {
    double bv = b ? beta * const_get_f(b, value_numel(b) == 1 ? 0 : c) : 0.0;
    ((float *)nbv->data)[c] = (float)(bv * s[c] + t[c]);
  }
  p->inputs[1] = nw;
  if (p->n_inputs < 3) {
    Value **in = arena_alloc(&ctx->arena, sizeof(Value *) * 4);
    for (int k = 0; k < p->n_inputs; k++) in[k] = p->inputs[k];
    p->inputs = in;
    p->n_inputs = p->n_explicit = 3;
  }
  p->inputs[2] = nbv;
  if (!conv)
    for (int i = 0; i < p->n_attrs; i++)
      if (!strcmp(p->attrs[i].name, "beta")) p->attrs[i].f = 1.0f;
}

/* Channels of P's output (Conv: dim 1; Gemm: columns) when its weight and bias are constants
   that can take a per-channel scale; 0 otherwise. */
static int64_t foldable_channels(const Node *p) {
  Value *w = p->inputs[1], *b = node_in(p, 2), *y = p->outputs[0];
  if (!w->data || (b && !b->data) || p->fuse_add || p->fuse_act) return 0;
  if (!strcmp(p->op_type, "Conv")) return y->dims[1];
  if (!strcmp(p->op_type, "Gemm")) {
    if (attr_f(p, "alpha", 1.0f) != 1.0f) return 0;
    if (b && !(value_numel(b) == 1 || (value_numel(b) == y->dims[1] && b->dims[b->rank - 1] == y->dims[1]))) return 0;
    return y->dims[1];
  }
  return 0;
}

static bool fold_bn(Ctx *ctx, Graph *g, Node *p, Node *bn, PtrVec *gone) {
  int64_t C = foldable_channels(p);
  if (!C || !is_op(bn, "BatchNormalization") || bn->inputs[0] != p->outputs[0] || !bn_foldable(bn, C)) return false;
  double eps = attr_f(bn, "epsilon", 1e-5f);
  double *s = arena_alloc(&ctx->arena, sizeof(double) * (size_t)C), *t = arena_alloc(&ctx->arena, sizeof(double) * (size_t)C);
  for (int64_t c = 0; c < C; c++) {
    double a = const_get_f(bn->inputs[1], c) / sqrt(const_get_f(bn->inputs[4], c) + eps);
    s[c] = a;
    t[c] = const_get_f(bn->inputs[2], c) - const_get_f(bn->inputs[3], c) * a;
  }
  scale_shift(ctx, g, p, s, t, C);
  absorb(p, bn, gone, ctx, &bn, 1);
  return true;
}

/* Add of a constant that is one value per channel of P's output. */
static bool fold_bias_add(Ctx *ctx, Graph *g, Node *p, Node *add, PtrVec *gone) {
  if (!is_op(add, "Add")) return false;
  Value *y = p->outputs[0], *c = other_in(add, y);
  if (!c || !c->data || !dtype_is_float(c->dtype) || !same_shape(add->outputs[0], y)) return false;
  int64_t C = foldable_channels(p);
  if (!C) return false;
  bool conv = !strcmp(p->op_type, "Conv");
  /* conv: c broadcasts as [C,1,...] against [N,C,H,W]; gemm: as [C] against [M,C] */
  int64_t cnt = value_numel(c);
  if (cnt != C) return false;
  int ch_axis = conv ? 1 : y->rank - 1;
  int axis_in_c = ch_axis - (y->rank - c->rank);
  if (axis_in_c < 0 || c->dims[axis_in_c] != C) return false;
  double *s = arena_alloc(&ctx->arena, sizeof(double) * (size_t)C), *t = arena_alloc(&ctx->arena, sizeof(double) * (size_t)C);
  for (int64_t i = 0; i < C; i++) {
    s[i] = 1.0;
    t[i] = const_get_f(c, i);
  }
  scale_shift(ctx, g, p, s, t, C);
  absorb(p, add, gone, ctx, &add, 1);
  return true;
}

/* ---- addends and activations ---------------------------------------------------------------- */

static void append_input(Ctx *ctx, Node *p, int at, Value *v) {
  int n = at + 1 > p->n_inputs ? at + 1 : p->n_inputs;
  Value **in = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(n + 1));
  for (int k = 0; k < p->n_inputs; k++) in[k] = p->inputs[k];
  in[at] = v;
  p->inputs = in;
  p->n_inputs = n;
}

/* Add(y, r): r of y's shape (any producer), or for MatMul a constant bias per column. */
static bool fuse_add(Ctx *ctx, Node *p, Node *add, PtrVec *gone) {
  if (!is_op(add, "Add") || p->fuse_add || p->fuse_act) return false;
  Value *y = p->outputs[0], *r = other_in(add, y);
  if (!r || r == y || !is_f32(r) || !same_shape(add->outputs[0], y)) return false;
  bool mm = !strcmp(p->op_type, "MatMul");
  bool full = same_shape(r, y);
  bool col = mm && r->data && y->rank >= 1 && value_numel(r) == y->dims[y->rank - 1] && r->dims[r->rank - 1] == y->dims[y->rank - 1];
  if (!full && !col) return false;
  int at = !strcmp(p->op_type, "MatMul") ? 2 : 3;
  append_input(ctx, p, at, r);
  p->fuse_add = at;
  absorb(p, add, gone, ctx, &add, 1);
  return true;
}

static bool set_act(Node *p, int act, float al, float be) {
  p->fuse_act = act;
  p->fuse_alpha = al;
  p->fuse_beta = be;
  return true;
}

/* One-node activations. */
static bool fuse_act1(Ctx *ctx, Node *p, Node *a, PtrVec *gone) {
  if (!a || a->dead || *a->domain || a->inputs[0] != p->outputs[0] || !is_f32(a->outputs[0])) return false;
  const char *op = a->op_type;
  bool ok = false;
  if (!strcmp(op, "Relu")) ok = set_act(p, FUSE_RELU, 0, 0);
  else if (!strcmp(op, "LeakyRelu")) ok = set_act(p, FUSE_LEAKY, attr_f(a, "alpha", 0.01f), 0);
  else if (!strcmp(op, "Sigmoid")) ok = set_act(p, FUSE_SIGMOID, 0, 0);
  else if (!strcmp(op, "Tanh")) ok = set_act(p, FUSE_TANH, 0, 0);
  else if (!strcmp(op, "HardSigmoid")) ok = set_act(p, FUSE_HARDSIGMOID, attr_f(a, "alpha", 0.2f), attr_f(a, "beta", 0.5f));
  else if (!strcmp(op, "HardSwish")) ok = set_act(p, FUSE_HARDSWISH, 1.0f / 6, 0.5f);
  else if (!strcmp(op, "Clip")) {
    double lo = -INFINITY, hi = INFINITY;
    if (a->opset < 11) {
      lo = attr_f(a, "min", -INFINITY);
      hi = attr_f(a, "max", INFINITY);
    } else {
      if (node_in(a, 1)) lo = scalar_const(a->inputs[1]);
      if (node_in(a, 2)) hi = scalar_const(a->inputs[2]);
    }
    if (isnan(lo) || isnan(hi)) return false;
    ok = set_act(p, lo == 0 && hi == INFINITY ? FUSE_RELU : FUSE_CLIP, (float)lo, (float)hi);
  }
  if (ok) absorb(p, a, gone, ctx, &a, 1);
  return ok;
}

/* y -> {Sigmoid|HardSigmoid -> s, Mul(y, s)}: x * gate(x). */
static bool fuse_gated(Ctx *ctx, Graph *g, Node *p, PtrVec *gone) {
  Value *y = p->outputs[0];
  Node *c[3];
  if (y->is_output || consumers(g, y, c, 3) != 2) return false;
  Node *gate = is_op(c[0], "Mul") ? c[1] : c[0], *mul = gate == c[0] ? c[1] : c[0];
  if (!is_op(mul, "Mul") || gate->n_inputs < 1 || gate->inputs[0] != y) return false;
  Value *s = gate->outputs[0];
  if (s->is_output || s->n_consumers != 1 || other_in(mul, y) != s || !same_shape(mul->outputs[0], y)) return false;
  if (is_op(gate, "Sigmoid")) set_act(p, FUSE_SILU, 0, 0);
  else if (is_op(gate, "HardSigmoid")) set_act(p, FUSE_HARDSWISH, attr_f(gate, "alpha", 0.2f), attr_f(gate, "beta", 0.5f));
  else return false;
  Node *drop[2] = {gate, mul};
  absorb(p, mul, gone, ctx, drop, 2);
  return true;
}

/* y -> Div(y, sqrt 2) -> Erf -> Add(., 1) -> Mul(y, .) -> Mul(., 0.5), the Muls in either
   order, constants on either side. */
static bool fuse_gelu(Ctx *ctx, Graph *g, Node *p, PtrVec *gone) {
  Value *y = p->outputs[0];
  Node *c[3];
  if (y->is_output || consumers(g, y, c, 3) != 2) return false;
  Node *div = is_op(c[0], "Div") ? c[0] : c[1], *mul1 = div == c[0] ? c[1] : c[0];
  if (!is_op(div, "Div") || !is_op(mul1, "Mul") || div->inputs[0] != y) return false;
  if (fabs(scalar_const(div->inputs[1]) - 1.4142135623730951) > 1e-5) return false;
  Node *erf = sole_consumer(g, div->outputs[0]);
  if (!is_op(erf, "Erf")) return false;
  Node *add = sole_consumer(g, erf->outputs[0]);
  if (!is_op(add, "Add") || scalar_const(other_in(add, erf->outputs[0])) != 1.0) return false;
  Node *half = NULL, *last;
  Value *a1 = add->outputs[0];
  if (other_in(mul1, y) == a1) { /* (y * (1 + erf)) * 0.5 */
    half = sole_consumer(g, mul1->outputs[0]);
    if (!is_op(half, "Mul") || scalar_const(other_in(half, mul1->outputs[0])) != 0.5) return false;
    if (sole_consumer(g, a1) != mul1) return false;
    last = half;
  } else { /* (y * 0.5) * (1 + erf) */
    if (scalar_const(other_in(mul1, y)) != 0.5) return false;
    Node *m2 = sole_consumer(g, a1);
    if (!is_op(m2, "Mul") || other_in(m2, a1) != mul1->outputs[0] || mul1->outputs[0]->n_consumers != 1) return false;
    half = m2;
    last = m2;
  }
  if (!same_shape(last->outputs[0], y)) return false;
  set_act(p, FUSE_GELU, 0, 0);
  Node *drop[5] = {div, erf, add, mul1, half};
  absorb(p, last, gone, ctx, drop, 5);
  return true;
}

/* ---- weight layouts ------------------------------------------------------------------------- */

/* Offset of A(m, k) in the packed layout of an M x K matrix (onnxc_pack_a in templates/gemm.h). */
static int64_t pack_at(int64_t m, int64_t k, int64_t M, int64_t K) {
  int64_t Mp = (M + 7) / 8 * 8, b = k / PACK_KC, kc = K - b * PACK_KC < PACK_KC ? K - b * PACK_KC : PACK_KC;
  return b * PACK_KC * Mp + (m / 8) * 8 * kc + (k % PACK_KC) * 8 + m % 8;
}

/* An estimate of the arena's tensor peak, before planning: the most bytes one node reads and
   writes (its non-constant inputs and its outputs are live together) */
static int64_t live_floor(const Graph *g) {
  int64_t best = 0;
  for (int i = 0; i < g->nodes.n; i++) {
    const Node *n = g->nodes.v[i];
    int64_t b = 0;
    if (n->dead) continue;
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k] && !n->inputs[k]->data) b += value_bytes(n->inputs[k]);
    for (int k = 0; k < n->n_outputs; k++)
      if (n->outputs[k]) b += value_bytes(n->outputs[k]);
    if (b > best) best = b;
  }
  return best;
}

/* 3x3, stride 1, dilation 1, padding 1 on every side, >= 16 channels in and out: Winograd
   F(2x2,3x3) or F(4x4,3x3) (at 16 channels it beats the implicit GEMM too: ResNet-8 16 x 32 x 32 48 -> 33 us) */
static bool wino_ok(const Node *p, const Value *x, const Value *w, int64_t Cg, int64_t Mg) {
  if (x->rank != 4 || w->dims[2] != 3 || w->dims[3] != 3 || Cg < 16 || Mg < 16 || x->dims[2] < 2 || x->dims[3] < 2 ||
      x->dims[2] * x->dims[3] < WINO_MIN_PIXELS)
    return false;
  /* planes of at most 16 F(2x2,3x3) tiles: the 16 GEMMs are as narrow as the plane, and with
     few channels the transforms outweigh the products (ResNet-8's 64 x 8 x 8: implicit GEMM
     0.96x the model's time; ResNet-18's 512 x 7 x 7 stays: 1.2x slower without Winograd) */
  if (((x->dims[2] + 1) / 2) * ((x->dims[3] + 1) / 2) <= 16 && Cg < 128) return false;
  const int64_t *v;
  int nv = attr_ints(p, "strides", &v);
  for (int i = 0; i < nv; i++)
    if (v[i] != 1) return false;
  nv = attr_ints(p, "dilations", &v);
  for (int i = 0; i < nv; i++)
    if (v[i] != 1) return false;
  const char *ap = attr_s(p, "auto_pad", "NOTSET");
  if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) return true;
  if (strcmp(ap, "NOTSET") && *ap) return false;
  nv = attr_ints(p, "pads", &v);
  if (nv != 4) return false;
  for (int i = 0; i < 4; i++)
    if (v[i] != 1) return false;
  return true;
}

/* onnxc_conv_t (templates/conv.h: output channels in the lanes, a zero-padded input copy, no
   masked loads) for a 2-D convolution of one group on a small output plane, where the pixel-lane
   kernels fill few vectors and mask most loads; one output row's padded input rows must fit its
   stack band (ONNXC_CONVT_STACK floats) for plans without room for the scratch. */
static bool convt_ok(const ConvShape *cs, int64_t KP) {
  int64_t OHW = cs->out[0] * cs->out[1];
  int64_t Wp = (cs->out[1] - 1) * cs->s[1] + (cs->k[1] - 1) * cs->d[1] + 1, span = (cs->k[0] - 1) * cs->d[0] + 1;
  return KP > 1 && KP <= CONVT_KPMAX && OHW <= 256 && cs->M >= 16 && cs->Cg >= 16 &&
         cs->Cg * span * Wp + CONVT_PAD <= CONVT_STACK;
}

/* p's weights w (G groups of Mg x K, row-major) packed as onnxc_sgemm's panels (W_PANELS). */
static void pack_panels(Ctx *ctx, Graph *g, Node *p, Value *w, int64_t G, int64_t Mg, int64_t K) {
  const int64_t Mp = (Mg + 7) / 8 * 8, total = G * Mp * K;
  Value *pw = new_const(ctx, g, "packed_w", 1, &total);
  float *d = pw->data;
  const float *s = w->data;
  for (int64_t gi = 0; gi < G; gi++)
    for (int64_t m = 0; m < Mg; m++)
      for (int64_t k = 0; k < K; k++) d[gi * Mp * K + pack_at(m, k, Mg, K)] = s[(gi * Mg + m) * K + k];
  p->orig_w = w;
  p->w_layout = W_PANELS;
  p->inputs[1] = pw;
}

static void pack_conv(Ctx *ctx, Graph *g, Node *p, int64_t peak_est) {
  Value *w = p->inputs[1], *x = p->inputs[0];
  if (!w->data || w->dtype != DT_FLOAT || x->rank < 3) return;
  int64_t G = attr_i(p, "group", 1), M = w->dims[0];
  if (G < 1 || M % G) return;
  int64_t Mg = M / G, Cg = w->dims[1], KP = 1;
  for (int d = 2; d < w->rank; d++) KP *= w->dims[d];
  if (conv_one_channel_direct(Cg, Mg, x->rank, KP, value_numel(x) / (x->dims[0] * x->dims[1]))) return; /* onnxc_dw2d */
  const float *s = w->data;
  int64_t Mp = (Mg + 7) / 8 * 8;
  if (wino_ok(p, x, w, Cg, Mg)) {
    /* U = G g G^T per filter and channel, U[g][xi] packed as an Mg x Cg matrix: F(4x4,3x3)
       (36 products per 4x4 tile) where it needs at most 3/4 of F(2x2,3x3)'s products and
       still gives the GEMMs 16 tiles; else F(2x2,3x3) (16 per 2x2 tile) */
    static const double G2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
    static const double G4[6][3] = {{0.25, 0, 0},
                                    {-1.0 / 6, -1.0 / 6, -1.0 / 6},
                                    {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                    {1.0 / 24, 1.0 / 12, 1.0 / 6},
                                    {1.0 / 24, -1.0 / 12, 1.0 / 6},
                                    {0, 0, 1}};
    int64_t H = x->dims[2], W = x->dims[3], t2 = ((H + 1) / 2) * ((W + 1) / 2), t4 = ((H + 3) / 4) * ((W + 3) / 4);
    int64_t tx = (W + 3) / 4, tb = tx * ((16 + tx - 1) / tx), mb = Mg < 64 ? Mg : 64;
    int A = 4 * 36 * t4 <= 3 * 16 * t2 && t4 >= 16 ? 6 : 4;
    /* its transforms need room: blocks of >= 16 tiles for >= 64 filters (fewer is slower than
       F(2x2,3x3)) within the scratch headroom over a lower bound of the tensors' peak */
    /* (one thread's headroom: --threads changes how the work is split, not the transform --
       MLPerf ResNet-8's 32 x 32 layers with a residual took longer as F(4x4,3x3)) */
    if (A == 6 && 36 * tb * (Cg + mb) * 4 > peak_est / 100 * ctx->scratch_headroom1) A = 4;
    const double(*Gm)[3] = A == 6 ? G4 : G2;
    int64_t total = G * A * A * Mp * Cg;
    Value *pw = new_const(ctx, g, "winograd_w", 1, &total);
    float *d = pw->data;
    for (int64_t gi = 0; gi < G; gi++)
      for (int64_t m = 0; m < Mg; m++)
        for (int64_t c = 0; c < Cg; c++) {
          const float *gg = s + ((gi * Mg + m) * Cg + c) * 9;
          double t[6][3];
          for (int i = 0; i < A; i++)
            for (int j = 0; j < 3; j++) t[i][j] = Gm[i][0] * gg[j] + Gm[i][1] * gg[3 + j] + Gm[i][2] * gg[6 + j];
          for (int i = 0; i < A; i++)
            for (int j = 0; j < A; j++) {
              double u = t[i][0] * Gm[j][0] + t[i][1] * Gm[j][1] + t[i][2] * Gm[j][2];
              d[(gi * A * A + i * A + j) * Mp * Cg + pack_at(m, c, Mg, Cg)] = (float)u;
            }
        }
    p->orig_w = w;
    p->w_layout = A == 6 ? W_WINO43 : W_WINO23;
    p->inputs[1] = pw;
    /* its output may go over a fused residual: the kernel adds what it finds there, so
       the step holds one tensor less (room for the transform scratch) */
    p->inplace_in = p->fuse_add;
    return;
  }
  int64_t K = Cg * KP;
  ConvShape cs;
  conv_shape(ctx, p, &cs);
  bool convt = G == 1 && !cs.pointwise && cs.r == 2 && convt_ok(&cs, KP);
  if ((G == 1 && cs.pointwise) || convt) {
    /* few pixels (7x7 planes): output channels in the vector lanes (onnxc_sgemm_t) where the
       16-column vectors of the pixel-lane kernel would leave more lanes empty; small planes of
       other 2-D convolutions the same way (onnxc_conv_t) */
    int64_t Np = value_numel(p->outputs[0]) / (p->outputs[0]->dims[0] * M), Mq = (M + 47) / 48 * 48;
    if (convt) {
      /* onnxc_conv_t's panels: V vectors of 16 channels in np = ceil(V / 3) panels, panel i
         holding vectors [V i / np, V (i + 1) / np): 2 vectors x 8 pixels (16 sums) run as fast
         as 3 x 8, where 48 + 16 left a one-vector panel at 8 sums (ResNet-8's 64 channels) */
      int64_t V = (M + 15) / 16, np = (V + 2) / 3, total = 16 * V * K;
      Value *pw = new_const(ctx, g, "packed_wt", 1, &total);
      float *d = pw->data;
      for (int64_t i = 0; i < np; i++) {
        int64_t m0 = 16 * (V * i / np), pn = 16 * (V * (i + 1) / np) - m0;
        for (int64_t m = m0; m < m0 + pn; m++)
          for (int64_t k = 0; k < K; k++) d[m0 * K + pn * k + m - m0] = m < M ? s[m * K + k] : 0.0f;
      }
      p->orig_w = w;
      p->w_layout = W_TPANELS;
      p->inputs[1] = pw;
      return;
    }
    if (Np <= 64 && (double)M / (double)Mq > (double)Np / (double)((Np + 15) / 16 * 16)) {
      int64_t total = Mq * K;
      Value *pw = new_const(ctx, g, "packed_wt", 1, &total);
      float *d = pw->data;
      for (int64_t m = 0; m < Mq; m++)
        for (int64_t k = 0; k < K; k++) d[(m / 48) * 48 * K + 48 * k + m % 48] = m < M ? s[m * K + k] : 0.0f;
      p->orig_w = w;
      p->w_layout = W_TPANELS;
      p->inputs[1] = pw;
      return;
    }
  }
  pack_panels(ctx, g, p, w, G, Mg, K);
}

/* Mul(d, s) with s one value per channel of d (the channel scale of a squeeze-and-excitation
   block) read only by a 1x1 Conv with packed weights: the Conv reads d and scales its packed
   weights' columns by s at run time (inputs[fuse_scale]; onnxc_scale_cols), where that costs
   no more multiplies than the Mul did (output channels <= pixels: the early, large planes of
   EfficientNet), and the Mul's tensor (a round trip through memory) goes away. */
static bool fuse_channel_scale(Ctx *ctx, Graph *g, Node *p) {
  if (!is_op(p, "Conv") || p->w_layout != W_PANELS || p->fuse_scale || !p->orig_w) return false;
  Value *x = p->inputs[0];
  Node *m = x->producer;
  if (!is_op(m, "Mul") || m->n_inputs != 2 || x->is_output || x->rank < 3 || sole_consumer(g, x) != p) return false;
  if (p->fuse_add && p->inputs[p->fuse_add] == x) return false;
  ConvShape cs;
  conv_shape(ctx, p, &cs);
  if (!cs.pointwise || cs.G != 1) return false;
  int64_t HW = value_numel(x) / (cs.N * cs.C), Mp = (cs.M + 7) / 8 * 8;
  if (Mp > HW) return false;
  for (int k = 0; k < 2; k++) {
    Value *d = m->inputs[k], *sc = m->inputs[1 - k];
    if (!is_f32(d) || !is_f32(sc) || !same_shape(d, x) || sc->rank > x->rank) continue;
    /* sc broadcasts as [1 or N, C, 1, ...] (right-aligned) */
    int off = x->rank - sc->rank;
    bool ok = off <= 1;
    for (int a = 0; a < sc->rank && ok; a++) {
      int xa = a + off;
      int64_t want = xa == 1 ? cs.C : 1;
      ok = sc->dims[a] == want || (xa == 0 && sc->dims[a] == cs.N);
    }
    if (!ok || sc == d) continue;
    p->inputs[0] = d;
    int at = p->n_inputs > 4 ? p->n_inputs : 4;
    append_input(ctx, p, at, sc);
    p->fuse_scale = at;
    m->dead = true;
    return true;
  }
  return false;
}

/* GlobalAveragePool of a depthwise Conv's output (onnxc_dw2d) or of a DwBlock's or ConvDw's
   without a projection: the producer gets the pool's output as its second output, the means of its
   output planes, which its kernels add up as they write them (onnxc_epi.sum) -- the squeeze of
   squeeze-and-excitation blocks without reading the tensor back from memory. */
static bool fuse_plane_means(Ctx *ctx, Node *gp) {
  if (!is_op(gp, "GlobalAveragePool") || !is_f32(gp->inputs[0]) || gp->inputs[0]->rank != 4 || !gp->outputs[0]) return false;
  Value *y = gp->inputs[0];
  Node *p = y->producer;
  if (!p || p->dead || p->n_outputs != 1 || p->outputs[0] != y) return false;
  if (is_op(p, "Conv")) {
    ConvShape cs;
    conv_shape(ctx, p, &cs);
    if (!cs.dw_form || cs.r != 2) return false;
  } else if (p->def && !strcmp(p->op_type, "DwBlock") && !strcmp(p->domain, "onnxc")) {
    if (!dw_block_plain(p)) return false;
  } else if (p->def && !strcmp(p->op_type, "ConvDw") && !strcmp(p->domain, "onnxc")) {
    if (!conv_dw_plain(p)) return false;
  } else {
    return false;
  }
  Value **outs = arena_alloc(&ctx->arena, 2 * sizeof(Value *));
  outs[0] = y;
  outs[1] = gp->outputs[0];
  outs[1]->producer = p;
  p->outputs = outs;
  p->n_outputs = 2;
  gp->n_outputs = 0; /* eliminate_dead drops it */
  gp->dead = true;
  return true;
}

/* Gemm/MatMul with a constant 2-D B: [K][N] row-major, alpha folded in. */
static void pack_gemm_b(Ctx *ctx, Graph *g, Node *p) {
  Value *b = p->inputs[1];
  bool gemm = !strcmp(p->op_type, "Gemm");
  if (!b->data || b->dtype != DT_FLOAT || b->rank != 2 || p->inputs[0]->dtype != DT_FLOAT) return;
  bool tb = gemm && attr_i(p, "transB", 0);
  double alpha = gemm ? attr_f(p, "alpha", 1.0f) : 1.0;
  if (!tb && alpha == 1.0) return;
  int64_t K = tb ? b->dims[1] : b->dims[0], N = tb ? b->dims[0] : b->dims[1], dims[2] = {K, N};
  Value *pb = new_const(ctx, g, "packed_b", 2, dims);
  float *d = pb->data;
  for (int64_t k = 0; k < K; k++)
    for (int64_t n = 0; n < N; n++) d[k * N + n] = (float)(alpha * (tb ? const_get_f(b, n * K + k) : const_get_f(b, k * N + n)));
  p->orig_w = b;
  p->inputs[1] = pb;
}

/* d := B (K x N, B(k, n) = src[k * ks + n * ns]) in the GEMV strip layout (templates/gemm.h
   onnxc_sgemv_p): strip s of width ws = min(128, N - 128 s) at d + 128 s K, row k at + k ws. */
static void pack_gemv(float *d, const float *src, int64_t K, int64_t N, int64_t ks, int64_t ns, double alpha) {
  for (int64_t n0 = 0; n0 < N; n0 += 128) {
    int64_t ws = N - n0 < 128 ? N - n0 : 128;
    for (int64_t k = 0; k < K; k++)
      for (int64_t j = 0; j < ws; j++) d[n0 * K + k * ws + j] = (float)(alpha * src[k * ks + (n0 + j) * ns]);
  }
}

/* A one-row product with a constant B: Gemm/MatMul whose A has one row, or a group-1 1x1
   Conv of 1x1 planes (per batch element, y = W x).  Only forms whose emitter takes the fast
   path (ops_nn.c: gemm_fast, matmul_fast, conv_emit_fast). */
static void pack_one_row(Ctx *ctx, Graph *g, Node *p) {
  Value *a = p->inputs[0], *b = p->inputs[1], *y = p->outputs[0];
  if (!is_f32(a) || !is_f32(b) || !b->data || !y) return;
  int64_t K, N, ks, ns;
  double alpha = 1.0;
  if (!strcmp(p->op_type, "Conv")) {
    if (b->rank != a->rank || a->rank < 3 || attr_i(p, "group", 1) != 1 || y->rank != a->rank) return;
    for (int d = 2; d < a->rank; d++)
      if (a->dims[d] != 1 || b->dims[d] != 1 || y->dims[d] != 1) return;
    N = b->dims[0];
    K = b->dims[1];
    ks = 1;
    ns = K;
  } else if (b->rank == 2 && a->rank >= 1 && a->dims[a->rank - 1] > 0) {
    bool gemm = !strcmp(p->op_type, "Gemm"), ta = gemm && attr_i(p, "transA", 0), tb = gemm && attr_i(p, "transB", 0);
    if (gemm) {
      Value *c = node_in(p, 2);
      double beta = attr_f(p, "beta", 1.0f);
      if (a->rank != 2 || (ta ? a->dims[1] : a->dims[0]) != 1) return;
      K = tb ? b->dims[1] : b->dims[0];
      N = tb ? b->dims[0] : b->dims[1];
      if (c && beta != 0 && (beta != 1.0 || value_numel(c) != N || (c->rank == 2 && c->dims[0] != 1))) return;
      alpha = attr_f(p, "alpha", 1.0f);
    } else {
      K = b->dims[0];
      N = b->dims[1];
      if (a->rank < 2 || value_numel(a) != K) return;
    }
    ks = tb ? 1 : N;
    ns = tb ? K : 1;
  } else {
    return;
  }
  if (K < 1 || N < 1) return;
  int64_t dims[2] = {K, N};
  Value *pb = new_const(ctx, g, "gemv_w", 2, dims);
  float *src = b->data;
  pack_gemv(pb->data, src, K, N, ks, ns, alpha);
  p->orig_w = b;
  p->w_layout = W_GEMV;
  p->inputs[1] = pb;
}

/* Live consumers of every value (absorbed nodes are dead). */
static void recount(Graph *g) {
  for (int i = 0; i < g->values.n; i++) ((Value *)g->values.v[i])->n_consumers = 0;
  for (int i = 0; i < g->nodes.n; i++) {
    Node *n = g->nodes.v[i];
    if (n->dead) continue;
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k]) n->inputs[k]->n_consumers++;
  }
}

/* Restores a topological order after fused addends made a node read a value produced later
   in the list (stable: the earliest ready node first). */
static void topo_sort(Ctx *ctx, Graph *g) {
  int nn = g->nodes.n;
  int *indeg = arena_alloc(&ctx->arena, sizeof(int) * (size_t)(nn + 1));
  Node **out = arena_alloc(&ctx->arena, sizeof(Node *) * (size_t)(nn + 1));
  char *done = arena_alloc(&ctx->arena, (size_t)nn + 1);
  for (int i = 0; i < nn; i++) ((Node *)g->nodes.v[i])->id = i;
  for (int i = 0; i < nn; i++) {
    Node *n = g->nodes.v[i];
    for (int k = 0; k < n->n_inputs; k++) {
      Value *v = n->inputs[k];
      if (v && v->producer && v->producer->id < nn && g->nodes.v[v->producer->id] == v->producer) indeg[i]++;
    }
  }
  for (int c = 0; c < nn; c++) {
    int pick = -1;
    for (int i = 0; i < nn && pick < 0; i++)
      if (!done[i] && indeg[i] == 0) pick = i;
    CHECK(pick >= 0);
    done[pick] = 1;
    out[c] = g->nodes.v[pick];
    for (int i = 0; i < nn; i++) {
      Node *n = g->nodes.v[i];
      if (done[i]) continue;
      for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] && n->inputs[k]->producer == out[c]) indeg[i]--;
    }
  }
  for (int i = 0; i < nn; i++) {
    g->nodes.v[i] = out[i];
    out[i]->id = i;
  }
}

/* A Pad whose pads are all zero (PyTorch exports one before AveragePool with
   count_include_pad) becomes an Identity, which the memory planner makes a view. */
static bool pad_to_identity(Ctx *ctx, Node *n) {
  if (!is_op(n, "Pad") || !n->inputs[0] || !n->outputs[0]) return false;
  const Value *pads = n->n_inputs > 1 ? n->inputs[1] : NULL;
  if (pads) {
    if (!pads->data || pads->dtype != DT_INT64) return false;
    for (int64_t i = 0; i < value_numel(pads); i++)
      if (const_get_i(pads, i) != 0) return false;
  } else {
    const Attr *a = node_attr(n, "pads");
    if (!a) return false;
    for (int i = 0; i < a->n_ints; i++)
      if (a->ints[i] != 0) return false;
  }
  n->op_type = "Identity";
  for (int k = 1; k < n->n_inputs; k++)
    if (n->inputs[k]) n->inputs[k]->n_consumers--;
  n->n_inputs = 1;
  n->n_attrs = 0;
  n->def = NULL;
  infer_node(ctx, n);
  return true;
}

static void fuse_dw_blocks(Ctx *ctx, Graph *g);
static void fuse_conv_pools(Ctx *ctx, Graph *g);

/* An AveragePool whose window is the whole unpadded plane (DS-CNN's classifier pool) is a
   GlobalAveragePool, whose kernel sums in vector lanes instead of one scalar chain. */
static void avgpool_to_global(Ctx *ctx, Node *n) {
  if (!is_op(n, "AveragePool") || !is_f32(n->inputs[0]) || n->inputs[0]->rank < 3) return;
  const Value *x = n->inputs[0];
  const int64_t *v;
  int nk = attr_ints(n, "kernel_shape", &v);
  if (nk != x->rank - 2) return;
  for (int i = 0; i < nk; i++)
    if (v[i] != x->dims[i + 2]) return;
  const char *ap = attr_s(n, "auto_pad", "NOTSET");
  if (strcmp(ap, "NOTSET") && strcmp(ap, "VALID") && *ap) return;
  int np = attr_ints(n, "pads", &v);
  for (int i = 0; i < np; i++)
    if (v[i] != 0) return;
  int nd = attr_ints(n, "dilations", &v);
  for (int i = 0; i < nd; i++)
    if (v[i] != 1) return;
  n->op_type = "GlobalAveragePool";
  n->n_attrs = 0;
  n->def = NULL;
  infer_node(ctx, n);
}

void optimize_graph(Ctx *ctx, Graph *g) {
  PtrVec gone = {0};
  bool padless = false;
  for (int i = 0; i < g->nodes.n; i++) avgpool_to_global(ctx, g->nodes.v[i]);
  for (int i = 0; i < g->nodes.n; i++) padless |= pad_to_identity(ctx, g->nodes.v[i]);
  if (padless) eliminate_dead(ctx, g); /* e.g. the node computing its constant_value */
  for (int i = 0; i < g->nodes.n; i++) {
    Node *p = g->nodes.v[i];
    if (p->dead || *p->domain || p->n_outputs != 1 || !is_f32(p->outputs[0])) continue;
    bool conv = !strcmp(p->op_type, "Conv"), gemm = !strcmp(p->op_type, "Gemm"), mm = !strcmp(p->op_type, "MatMul");
    if (!conv && !gemm && !mm) continue;
    if (!is_f32(p->inputs[0]) || !is_f32(p->inputs[1])) continue;
    for (bool changed = true; changed;) {
      changed = false;
      Node *c = sole_consumer(g, p->outputs[0]);
      if (c && (conv || gemm) && (fold_bn(ctx, g, p, c, &gone) || fold_bias_add(ctx, g, p, c, &gone))) changed = true;
      else if (c && fuse_add(ctx, p, c, &gone)) changed = true;
      else if (!p->fuse_act && c && fuse_act1(ctx, p, c, &gone)) changed = true;
      else if (!p->fuse_act && (fuse_gated(ctx, g, p, &gone) || fuse_gelu(ctx, g, p, &gone))) changed = true;
      if (changed) recount(g);
      if (p->fuse_act) break;
    }
  }
  if (gone.n) {
    int w = 0;
    for (int i = 0; i < g->nodes.n; i++) {
      Node *n = g->nodes.v[i];
      bool drop = false;
      for (int k = 0; k < gone.n && !drop; k++) drop = gone.v[k] == n;
      if (!drop) g->nodes.v[w++] = n;
    }
    g->nodes.n = w;
    topo_sort(ctx, g);
    eliminate_dead(ctx, g);
  }
  /* the CUDA backend hands Conv/Gemm/MatMul to cuBLAS, which reads the ONNX layouts */
  int64_t peak_est = live_floor(g); /* before packing: pack_conv reads it */
  for (int i = 0; i < g->nodes.n && ctx->target == TARGET_C; i++) {
    Node *p = g->nodes.v[i];
    if (p->dead || *p->domain || p->orig_w) continue;
    if (!strcmp(p->op_type, "Conv") || !strcmp(p->op_type, "Gemm") || !strcmp(p->op_type, "MatMul")) pack_one_row(ctx, g, p);
    if (p->orig_w) continue;
    if (!strcmp(p->op_type, "Conv")) pack_conv(ctx, g, p, peak_est);
    else if (!strcmp(p->op_type, "Gemm") || !strcmp(p->op_type, "MatMul")) pack_gemm_b(ctx, g, p);
  }
  if (ctx->target == TARGET_C) {
    bool scaled = false;
    recount(g);
    for (int i = 0; i < g->nodes.n; i++) scaled |= fuse_channel_scale(ctx, g, g->nodes.v[i]);
    if (scaled) eliminate_dead(ctx, g);
    fuse_dw_blocks(ctx, g);
    fuse_conv_pools(ctx, g);
    bool pooled = false;
    for (int i = 0; i < g->nodes.n; i++) pooled |= fuse_plane_means(ctx, g->nodes.v[i]);
    if (pooled) eliminate_dead(ctx, g);
  }
}

/* After fused nodes took the place of others (marked dead): the node list without them, in
   topological order. */
static void drop_dead_nodes(Ctx *ctx, Graph *g) {
  int w = 0;
  for (int i = 0; i < g->nodes.n; i++) {
    Node *n = g->nodes.v[i];
    if (!n->dead) g->nodes.v[w++] = n;
  }
  g->nodes.n = w;
  recount(g);
  topo_sort(ctx, g);
  eliminate_dead(ctx, g);
}

/* ---- inverted-residual blocks (ops_fused.c) --------------------------------------------------- */

/* A depthwise Conv with a stride and a kernel larger than 3x3 (MobileNetV3's and EfficientNet's
   5x5 stride 2): unfused it runs in channel lanes (onnxc_dwc16), transposing its whole input
   plane, four input pixels per output; in a DwBlock the expansion writes those lanes itself.
   Fused at any size: MobileNetV3-Small's 96 x 28 x 28 and 288 x 14 x 14 blocks 150k -> 132k
   and 175k -> 164k TSC ticks, bench/ab.py 0.990; EfficientNet-B0 1.000.  (The 5x5 stride-1
   ones fused too measured 1.010 and 0.987, noise; the 3x3 stride-2 ones take the stride-2 row
   kernel unfused, and MobileNetV3's 72 x 56 x 56 block fused was 304k -> 326k.)  One thread only: a small plane's
   block takes one shared window and no tasks (ops_fused.c lanes_tasks), where the two unfused
   Convs each run in tasks. */
static bool dw_strided_big(const Node *dw) {
  const Value *w = dw->n_inputs > 1 ? dw->inputs[1] : NULL;
  const int64_t *s;
  int ns = attr_ints(dw, "strides", &s);
  if (!w || w->rank != 4 || w->dims[2] * w->dims[3] <= 9 || ns != 2) return false;
  return s[0] > 1 || s[1] > 1;
}

/* An expansion of at most 128 inputs packed for onnxc_sgemm_t (W_TPANELS: few pixels, output
   channels in lanes), whose tiles' transposes and the depthwise Conv's input transposes a
   DwBlock saves: MobileNetV3-Small's 96 -> 576 on 7x7 (expansion + depthwise 210.6k -> 191.8k
   TSC ticks), MLPerf VWW's MobileNetV1 on 6x6 and 3x3 (bench/ab.py 0.940).  Not with longer K:
   MobileNetV2's 160 -> 960 and EfficientNet-B0's 192 -> 1152 on 7x7 fused measured 1.058 and
   1.083 (their sgemm_t tiles run at 86% of peak; the block's expansion with one channel group
   per pass is load-bound); ShuffleNetV2's 232-channel branches 1.002. */
static bool lanes_small(const Node *ex) {
  return ex->w_layout == W_TPANELS && ex->orig_w && ex->orig_w->rank == 4 && ex->orig_w->dims[1] <= 128;
}

/* Whether the expansion ex and the depthwise dw run on one thread each: no --threads, or both
   under the threshold at which the kernels split (templates/par.h: products weigh a quarter,
   depthwise layers twice).  Where they stay whole, the small blocks above fuse as on one
   thread: MLPerf VWW with --threads 2 had its 6x6 and 3x3 blocks unfused and unsplit, 423k ->
   439k TSC ticks against the one-thread build (sum of per-node minima). */
static bool one_thread(const Ctx *ctx, const Node *ex, const Node *dw) {
  const Value *y = ex->outputs[0], *z = dw->outputs[0], *w = ex->orig_w ? ex->orig_w : ex->inputs[1];
  const Value *k = dw->inputs[1];
  if (ctx->threads <= 1) return true;
  if (!y || !z || !w || !k || y->rank != 4 || z->rank != 4 || w->rank != 4 || k->rank != 4) return false;
  const double exw = 0.25 * (double)w->dims[0] * (double)w->dims[1] * (double)(y->dims[2] * y->dims[3]) * (double)y->dims[0];
  const double dww = 2.0 * (double)z->dims[1] * (double)(k->dims[2] * k->dims[3]) * (double)(z->dims[2] * z->dims[3]) * (double)z->dims[0];
  return !par_pays(ctx, exw) && !par_pays(ctx, dww);
}

/* A pointwise Conv of few pixels packed for onnxc_sgemm_t (W_TPANELS, output channels in lanes)
   packed again as onnxc_sgemm's panels (W_PANELS), the layout a DwBlock's expansion reads. */
static void repack_panels(Ctx *ctx, Graph *g, Node *p) {
  Value *w = p->orig_w;
  if (!w || p->w_layout != W_TPANELS || w->rank != 4 || w->dims[2] * w->dims[3] != 1 || attr_i(p, "group", 1) != 1) return;
  pack_panels(ctx, g, p, w, 1, w->dims[0], w->dims[1]);
}

/* A 1x1 expansion whose output only a depthwise Conv reads, and the 1x1 projection reading only
   the depthwise output if there is one, become one DwBlock (computed in bands of rows that stay
   in cache) when the expanded tensor is big enough for its round trip through memory to cost:
   the early, large planes of MobileNetV2/V3 and EfficientNet.  (Fusing the smaller ones too,
   in the channel-lanes form, measured no faster: EfficientNet-B0 and MobileNetV2 within 2%,
   MLPerf DS-CNN's 25x5 planes 22% slower.)  A stem Conv in place of the expansion, with the
   projection where one reads the depthwise output alone, becomes a ConvDw (ops_nn.c;
   MobileNetV1/V2: bench/ab.py MobileNetV2 0.965; EfficientNet-B0, whose squeeze-and-excitation
   reads the depthwise output too: arena 3136 -> 2437 KiB). */
static void fuse_dw_blocks(Ctx *ctx, Graph *g) {
  int nn = g->nodes.n;
  bool any = false;
  recount(g);
  for (int i = 0; i < nn; i++) {
    Node *dw = g->nodes.v[i];
    if (!is_op(dw, "Conv") || !is_f32(dw->outputs[0]) || !dw->inputs[0]) continue;
    Value *t = dw->inputs[0];
    Node *ex = t->producer;
    if (!is_op(ex, "Conv") || t->is_output || t->n_consumers != 1) continue;
    /* small: where the depthwise transposes its input plane (dw_strided_big), or where the
       expansion runs in channel lanes (few pixels, W_TPANELS) with a short K and both sides
       transpose (lanes_small) */
    if (value_bytes(t) < DWBLOCK_MIN_BYTES && !(one_thread(ctx, ex, dw) && (dw_strided_big(dw) || lanes_small(ex)))) continue;
    Node *pj = sole_consumer(g, dw->outputs[0]);
    if (!is_op(pj, "Conv")) pj = NULL;
    Value *ew = ex->inputs[1];
    const int el = ex->w_layout;
    repack_panels(ctx, g, ex);
    Node *f = dw_block_fuse(ctx, g, ex, dw, pj);
    if (!f) f = conv_dw_fuse(ctx, g, ex, dw, pj); /* a stem in place of the expansion */
    if (!f) {
      ex->inputs[1] = ew; /* unfused: the layout it had */
      ex->w_layout = el;
      continue;
    }
    g->nodes.v[i] = f; /* the block takes the depthwise Conv's place; f was appended too */
    g->nodes.n--;
    any = true;
  }
  if (any) drop_dead_nodes(ctx, g);
}

/* A Conv whose output only a MaxPool reads (the stems of ResNet-18, SqueezeNet, ShuffleNetV2)
   becomes one ConvPool node (ops_nn.c): the convolution in bands of rows that the pooling reads
   while they are in cache, instead of its whole output through memory. */
static void fuse_conv_pools(Ctx *ctx, Graph *g) {
  int nn = g->nodes.n;
  bool any = false;
  recount(g);
  for (int i = 0; i < nn; i++) {
    Node *pool = g->nodes.v[i];
    if (!is_op(pool, "MaxPool") || !pool->inputs[0]) continue;
    Value *t = pool->inputs[0];
    Node *conv = t->producer;
    if (!is_op(conv, "Conv") || t->is_output || t->n_consumers != 1) continue;
    Node *f = conv_pool_fuse(ctx, g, conv, pool);
    if (!f) continue;
    g->nodes.v[i] = f; /* the fused node takes the pool's place; f was appended too */
    g->nodes.n--;
    any = true;
  }
  if (any) drop_dead_nodes(ctx, g);
}

/* ---- elementwise trees (CUDA) ----------------------------------------------------------------- */

/* The single node consuming v (all its uses), or NULL. */
static Node *only_consumer_node(Graph *g, Value *v) {
  if (!v || v->is_output) return NULL;
  Node *c = NULL;
  for (int i = 0; i < g->nodes.n; i++) {
    Node *n = g->nodes.v[i];
    if (n->dead) continue;
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k] == v) {
        if (c && c != n) return NULL;
        c = n;
      }
  }
  return c;
}

void fuse_elementwise(Ctx *ctx, Graph *g) {
  int nn = g->nodes.n;
  /* into[i]: the node that node i's output feeds when i joins that node's tree, or -1 */
  int *into = arena_alloc(&ctx->arena, sizeof(int) * (size_t)(nn + 1));
  for (int i = 0; i < nn; i++) {
    ((Node *)g->nodes.v[i])->id = i;
    into[i] = -1;
  }
  for (int i = 0; i < nn; i++) {
    Node *n = g->nodes.v[i];
    if (!ew_fusable(n)) continue;
    Node *c = only_consumer_node(g, n->outputs[0]);
    if (c && ew_fusable(c) && same_shape(n->outputs[0], c->outputs[0])) into[i] = c->id;
  }
  Node **mem = arena_alloc(&ctx->arena, sizeof(Node *) * (size_t)(nn + 1));
  bool any = false;
  for (int i = 0; i < nn; i++) {
    if (into[i] >= 0 || !ew_fusable(g->nodes.v[i])) continue;
    /* the tree rooted at i: the nodes whose into-chain ends at i, in list (topological) order */
    int nm = 0;
    for (int j = 0; j <= i; j++) {
      int r = j;
      while (into[r] >= 0) r = into[r];
      if (r == i) mem[nm++] = g->nodes.v[j];
    }
    if (nm < 2) continue;
    Node *f = ew_fuse_tree(ctx, g, mem, nm); /* appended to g->nodes */
    if (!f) continue;                        /* more than 8 outside inputs */
    for (int j = 0; j < nm; j++) mem[j]->dead = true;
    f->outputs[0]->producer = f;
    any = true;
  }
  if (!any) return;
  /* each fused node takes its root's place in the list */
  int w = 0;
  for (int i = 0; i < nn; i++) {
    Node *n = g->nodes.v[i];
    if (!n->dead) {
      g->nodes.v[w++] = n;
      continue;
    }
    for (int k = nn; k < g->nodes.n; k++)
      if (((Node *)g->nodes.v[k])->outputs[0] == n->outputs[0]) g->nodes.v[w++] = g->nodes.v[k];
  }
  g->nodes.n = w;
  recount(g);
  topo_sort(ctx, g);
  eliminate_dead(ctx, g);
}
