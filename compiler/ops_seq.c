/*
 * ops_seq.c - recurrent layers (RNN, GRU, LSTM) and the ops whose output shape depends on data
 * (NonZero, Compress, Unique, NonMaxSuppression).
 *
 * Recurrent kernels run one direction after the other.  Weights are used transposed
 * ([I][G*H], [H][G*H]) so that every gate GEMV runs i-k-j over contiguous weight rows:
 * constant W / R are transposed at compile time (the node's inputs are swapped for the
 * transposed copies), run-time ones into scratch.  Steps go in chunks of RNN_CHUNK: the chunk's
 * input projections x W^T are one small GEMM (rows = step x batch pairs), then each step adds
 * h R^T.  The GEMV/GEMM kernel keeps 32 output columns of up to 4 rows in a local accumulator
 * (no aliasing, so it vectorizes at -O2) and unrolls the reduction over 2-4 weight rows.  The
 * gate loops compute float Sigmoid/Tanh with an inline exp (no libm call, no float compares)
 * so they vectorize too.  sequence_lens shortens single batch rows (reverse starts at len-1;
 * Y rows past len are zero; an empty row gives zero final states, as onnxruntime does).
 * Activations (activation_alpha/beta consumed in order by the functions that take them, as
 * onnxruntime does), clip (applied to the gate pre-activations, not to the cell state before
 * h()), input_forget, linear_before_reset and layout are baked into the emitted code.
 *
 * Data-dependent ops: the shape rule sets `dynamic` with the compile-time upper bound, and the
 * kernel writes the actual dims through D<k> and packs its data row-major for them.  When the
 * input that decides the shape is a compile-time constant, the exact shape is computed by the
 * shape rule instead (Compress with a constant condition stays a run-time kernel with a static
 * shape) and the op folds when every input is constant.
 * Unique sorts item indices with a stable bottom-up merge sort in scratch (items are single
 * elements, or slices along `axis` compared lexicographically; NaN sorts last); the stable
 * order makes the first item of each run its first occurrence.  NonMaxSuppression follows the
 * ONNX reference: candidates above score_threshold sorted by score (ties: lower index first),
 * greedy selection against the boxes already kept for that class, IoU > threshold suppresses.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "onnxc.h"

/* ======================================================================================= */
/* Recurrent layers                                                                        */
/* ======================================================================================= */

enum { K_RNN = 0, K_GRU = 1, K_LSTM = 2 };
enum { A_RELU, A_TANH, A_SIGMOID, A_AFFINE, A_LEAKY, A_THRELU, A_SCALEDTANH, A_HARDSIG, A_ELU,
       A_SOFTSIGN, A_SOFTPLUS };

typedef struct Act { int kind; double alpha, beta; } Act;

static const struct {
  const char *name;
  int kind, uses_alpha, uses_beta;
  double alpha, beta; /* defaults */
} act_table[] = {
    {"Relu", A_RELU, 0, 0, 0, 0},
    {"Tanh", A_TANH, 0, 0, 0, 0},
    {"Sigmoid", A_SIGMOID, 0, 0, 0, 0},
    {"Affine", A_AFFINE, 1, 1, 1.0, 0.0},
    {"LeakyRelu", A_LEAKY, 1, 0, 0.01, 0},
    {"ThresholdedRelu", A_THRELU, 1, 0, 1.0, 0},
    {"ScaledTanh", A_SCALEDTANH, 1, 1, 1.0, 1.0},
    {"HardSigmoid", A_HARDSIG, 1, 1, 0.2, 0.5},
    {"Elu", A_ELU, 1, 0, 1.0, 0},
    {"Softsign", A_SOFTSIGN, 0, 0, 0, 0},
    {"Softplus", A_SOFTPLUS, 0, 0, 0, 0},
};
#define N_ACTS ((int)(sizeof act_table / sizeof act_table[0]))

/* Time steps whose input projections x W^T are computed together, as one small GEMM. */
#define RNN_CHUNK 8

typedef struct RnnInfo {
  int kind;
  int G;                  /* gates: 1 RNN, 3 GRU, 4 LSTM */
  int nact;               /* activations per direction */
  int64_t S, B, I, H, D;
  int layout;
  bool rev[2];
  Act act[2][3];
  bool has_clip;
  double clip;
  bool input_forget, lbr;
  /* constant W / R are stored transposed ([D][I][GH], [D][H][GH]) at compile time: the node's
     inputs 1 and 2 then point at those copies (the originals are kept for a re-run) */
  Value *orig_w, *orig_r;
  bool pre_w, pre_r;
  int64_t panel;          /* > 0: constant W and R in column panels of this width */
  bool strip;             /* float, constant R, one batch row, C target: R in the GEMV strip
                             layout of onnxc_sgemv_p (templates/gemm.h), each step's h R^T one
                             onnxc_sgemv_p call (eight vector accumulators per 128 columns) */
  bool gemm_x;            /* float, constant W, no sequence_lens, C target: each chunk's input
                             projections as one packed GEMM per batch row (onnxc_sgemm_a over
                             W^T [I][GH] row-major), the bias in its epilogue */
  bool host_c;            /* the C target (the gate steps of gemm.h on AVX-512 hosts) */
} RnnInfo;

/* A constant copy of w [D][GH][K] as [D][K][GH]. */
/* Column width of the GEMV chunks (emit_gemv) and of the weight panels. */
static int64_t gemv_width(int dt) { return dt == DT_DOUBLE ? 16 : 32; }

/* A constant W [D][GH][K] in the layout the GEMVs read: transposed, [D][K][GH], or with `pw`
   > 0 in panels of pw columns, [D][GH/pw][K][pw], so that a chunk of pw columns streams
   through K * pw contiguous elements rather than K rows GH apart (rows 2 KiB apart defeat the
   prefetchers: every row is a new page once GH >= 1024 bytes).  With `strip`, the last panel
   is narrower when pw does not divide GH and its rows are its own width apart (the strips of
   onnxc_sgemv_p). */
static Value *transposed_const(Ctx *ctx, const Value *w, int64_t D, int64_t GH, int64_t K, int64_t pw, int64_t pad,
                               bool strip) {
  Value *t = graph_new_value(ctx, ctx->graph, arena_printf(&ctx->arena, "%s_transposed", w->name));
  int64_t dims[3] = {D, K, GH}, flat = D * K * GH + pad;
  if (pad) value_set_shape(t, w->dtype, 1, &flat); /* zeros after: the GEMM's masked tail loads stay inside */
  else value_set_shape(t, w->dtype, 3, dims);
  value_alloc_data(ctx, t);
  size_t es = dtype_size(w->dtype);
  for (int64_t d = 0; d < D; d++)
    for (int64_t j = 0; j < GH; j++)
      for (int64_t k = 0; k < K; k++) {
        int64_t ws = strip && GH - j / pw * pw < pw ? GH - j / pw * pw : pw;
        int64_t at = pw ? d * K * GH + (j / pw) * K * pw + k * ws + j % pw : (d * K + k) * GH + j;
        memcpy((char *)t->data + (size_t)at * es, (const char *)w->data + (size_t)((d * GH + j) * K + k) * es, es);
      }
  return t;
}

static int rnn_kind(const Node *n) {
  if (!strcmp(n->op_type, "LSTM")) return K_LSTM;
  if (!strcmp(n->op_type, "GRU")) return K_GRU;
  return K_RNN;
}

static void rnn_check_dims(Ctx *ctx, const Node *n, const Value *v, const char *what, int rank,
                           const int64_t *want) {
  if (!v) return;
  bool ok = v->rank == rank;
  for (int d = 0; ok && d < rank; d++) ok = v->dims[d] == want[d];
  if (!ok) {
    char buf[128];
    int len = 0;
    for (int d = 0; d < rank; d++)
      len += snprintf(buf + len, sizeof buf - (size_t)len, "%s%lld", d ? "," : "", (long long)want[d]);
    fail_node(ctx, n, "%s has shape %s, expected [%s]", what, shape_str(&ctx->arena, v), buf);
  }
}

static void rnn_infer(Ctx *ctx, Node *n) {
  int kind = rnn_kind(n);
  RnnInfo *prev = n->priv;
  if (prev && prev->pre_w) n->inputs[1] = prev->orig_w;
  if (prev && prev->pre_r) n->inputs[2] = prev->orig_r;
  require_inputs(ctx, n, 3, kind == K_LSTM ? 8 : 6);
  Value *X = n->inputs[0], *Wt = n->inputs[1], *Rt = n->inputs[2];
  Value *Bv = node_in(n, 3), *SL = node_in(n, 4), *H0 = node_in(n, 5);
  Value *C0 = kind == K_LSTM ? node_in(n, 6) : NULL, *P = kind == K_LSTM ? node_in(n, 7) : NULL;
  int dt = X->dtype;
  if (!dtype_is_float(dt)) fail_node(ctx, n, "element type %s is not supported", dtype_name(dt));
  for (int k = 0; k < n->n_inputs; k++) {
    Value *v = n->inputs[k];
    if (!v || k == 4) continue;
    if (v->dtype != dt) fail_node(ctx, n, "input %d has element type %s, expected %s", k, dtype_name(v->dtype), dtype_name(dt));
  }
  if (SL && SL->dtype != DT_INT32) fail_node(ctx, n, "sequence_lens must be int32");
  if (X->rank != 3 || Wt->rank != 3 || Rt->rank != 3) fail_node(ctx, n, "X, W and R must have rank 3");
  RnnInfo *ri = arena_alloc(&ctx->arena, sizeof *ri);
  ri->kind = kind;
  ri->G = kind == K_LSTM ? 4 : kind == K_GRU ? 3 : 1;
  ri->nact = kind == K_LSTM ? 3 : kind == K_GRU ? 2 : 1;
  const char *dir = attr_s(n, "direction", "forward");
  if (!strcmp(dir, "forward")) { ri->D = 1; ri->rev[0] = false; }
  else if (!strcmp(dir, "reverse")) { ri->D = 1; ri->rev[0] = true; }
  else if (!strcmp(dir, "bidirectional")) { ri->D = 2; ri->rev[0] = false; ri->rev[1] = true; }
  else fail_node(ctx, n, "unknown direction '%s'", dir);
  ri->layout = (int)attr_i(n, "layout", 0);
  if (ri->layout != 0 && ri->layout != 1) fail_node(ctx, n, "layout must be 0 or 1");
  if (ri->layout == 0) { ri->S = X->dims[0]; ri->B = X->dims[1]; }
  else { ri->S = X->dims[1]; ri->B = X->dims[0]; }
  ri->I = X->dims[2];
  ri->H = Rt->dims[2];
  if (node_attr(n, "hidden_size") && attr_i(n, "hidden_size", 0) != ri->H)
    fail_node(ctx, n, "hidden_size %lld does not match R's shape %s", (long long)attr_i(n, "hidden_size", 0),
              shape_str(&ctx->arena, Rt));
  if (ri->H <= 0) fail_node(ctx, n, "hidden size must be positive");
  int64_t D = ri->D, GH = ri->G * ri->H, B = ri->B, H = ri->H;
  int64_t wd[3] = {D, GH, ri->I}, rd[3] = {D, GH, H}, bd[2] = {D, 2 * GH}, sd[1] = {B};
  int64_t hd[3] = {D, B, H}, hd1[3] = {B, D, H}, pd[2] = {D, 3 * H};
  rnn_check_dims(ctx, n, Wt, "W", 3, wd);
  rnn_check_dims(ctx, n, Rt, "R", 3, rd);
  rnn_check_dims(ctx, n, Bv, "B", 2, bd);
  rnn_check_dims(ctx, n, SL, "sequence_lens", 1, sd);
  rnn_check_dims(ctx, n, H0, "initial_h", 3, ri->layout ? hd1 : hd);
  rnn_check_dims(ctx, n, C0, "initial_c", 3, ri->layout ? hd1 : hd);
  rnn_check_dims(ctx, n, P, "P", 2, pd);
  /* activations */
  static const char *defaults[3][3] = {{"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
  const Attr *aa = node_attr(n, "activations");
  const float *alphas = NULL, *betas = NULL;
  int na = attr_floats(n, "activation_alpha", &alphas), nb = attr_floats(n, "activation_beta", &betas);
  int ai = 0, bi = 0;
  int nstr = aa ? aa->n_strings : 0;
  if (aa && nstr < ri->nact) fail_node(ctx, n, "expected %d activations per direction, got %d", ri->nact, nstr);
  for (int d = 0; d < D; d++)
    for (int a = 0; a < ri->nact; a++) {
      const char *name = defaults[kind][a];
      if (aa) name = aa->strings[nstr >= ri->nact * D ? d * ri->nact + a : a];
      int t = 0;
      while (t < N_ACTS && strcasecmp(act_table[t].name, name) != 0) t++;
      if (t == N_ACTS) fail_node(ctx, n, "activation '%s' is not supported", name);
      Act *ac = &ri->act[d][a];
      ac->kind = act_table[t].kind;
      ac->alpha = act_table[t].alpha;
      ac->beta = act_table[t].beta;
      if (act_table[t].uses_alpha && ai < na) ac->alpha = alphas[ai++];
      if (act_table[t].uses_beta && bi < nb) ac->beta = betas[bi++];
    }
  if (node_attr(n, "clip")) {
    ri->has_clip = true;
    ri->clip = attr_f(n, "clip", 0);
    if (!(ri->clip > 0)) fail_node(ctx, n, "clip must be positive");
  }
  ri->input_forget = kind == K_LSTM && attr_i(n, "input_forget", 0) != 0;
  ri->lbr = kind == K_GRU && attr_i(n, "linear_before_reset", 0) != 0;
  /* panels when every GEMV column range (all gates, 2H, H) starts and ends on a panel */
  ri->panel = H % gemv_width(dt) == 0 && ctx->target == TARGET_C ? gemv_width(dt) : 0; /* CUDA: plain W^T for cuBLAS */
  ri->gemm_x = dt == DT_FLOAT && Wt->data && !SL && ctx->target == TARGET_C;
  ri->host_c = ctx->target == TARGET_C;
  if (Wt->data) {
    ri->orig_w = Wt;
    ri->pre_w = true;
    n->inputs[1] = transposed_const(ctx, Wt, D, GH, ri->I, ri->gemm_x ? 0 : ri->panel, ri->gemm_x ? 128 : 0, false);
  }
  if (Rt->data) {
    ri->orig_r = Rt;
    ri->pre_r = true;
    /* one batch row: the strips, when every GEMV column range starts on one (GRU without
       linear_before_reset multiplies columns [0, 2H) and [2H, 3H) separately) */
    ri->strip = dt == DT_FLOAT && ri->B == 1 && ctx->target == TARGET_C && (kind != K_GRU || ri->lbr || 2 * H % 128 == 0);
    n->inputs[2] = transposed_const(ctx, Rt, D, GH, H, ri->strip ? 128 : ri->panel, 0, ri->strip);
  }
  n->priv = ri;
  /* outputs */
  int64_t yd[4];
  if (ri->layout == 0) { yd[0] = ri->S; yd[1] = D; yd[2] = B; yd[3] = H; }
  else { yd[0] = B; yd[1] = ri->S; yd[2] = D; yd[3] = H; }
  if (node_out(n, 0)) value_set_shape(n->outputs[0], dt, 4, yd);
  for (int k = 1; k < n->n_outputs && k < 3; k++)
    if (node_out(n, k)) value_set_shape(n->outputs[k], dt, 3, ri->layout ? hd1 : hd);
  if (n->n_outputs > (kind == K_LSTM ? 3 : 2)) fail_node(ctx, n, "too many outputs");
}

bool rnn_cuda_form(const Node *n, RnnCuda *rc) {
  const RnnInfo *ri = n->priv;
  if (!ri || (ri->kind != K_LSTM && ri->kind != K_GRU) || n->inputs[0]->dtype != DT_FLOAT || ri->layout != 0) return false;
  if (node_in(n, 4) || (ri->kind == K_LSTM && node_in(n, 7)) || ri->has_clip || ri->input_forget) return false;
  if ((ri->pre_w || ri->pre_r) && ri->panel) return false;
  static const int def[2][3] = {{A_SIGMOID, A_TANH, 0}, {A_SIGMOID, A_TANH, A_TANH}};
  for (int d = 0; d < ri->D; d++)
    for (int a = 0; a < ri->nact; a++)
      if (ri->act[d][a].kind != def[ri->kind == K_LSTM][a]) return false;
  if (ri->S * ri->B * ri->I == 0) return false;
  rc->lstm = ri->kind == K_LSTM;
  rc->lbr = ri->lbr;
  rc->S = ri->S, rc->B = ri->B, rc->I = ri->I, rc->H = ri->H, rc->D = ri->D, rc->G = ri->G;
  rc->rev[0] = ri->rev[0], rc->rev[1] = ri->rev[1];
  rc->pre_w = ri->pre_w, rc->pre_r = ri->pre_r;
  return true;
}

static int64_t rnn_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  const RnnInfo *ri = n->priv;
  int64_t GH = ri->G * ri->H;
  int64_t TB = ri->S < RNN_CHUNK ? (ri->S > 0 ? ri->S : 1) : RNN_CHUNK;
  int64_t cnt = (ri->pre_w ? 0 : ri->I * GH) + (ri->pre_r ? 0 : ri->H * GH) + TB * ri->B * GH + ri->B * GH;
  if (ri->gemm_x && node_in(n, 3)) cnt += GH; /* the summed biases of the GEMM epilogue */
  if (ri->kind == K_GRU) cnt += ri->B * GH + (ri->lbr ? 0 : ri->B * ri->H); /* see rnn_emit */
  cnt += ri->B * ri->H * (ri->kind == K_LSTM ? 2 : 1);  /* hs, cs */
  int dt = n->inputs[0]->dtype;
  /* a pipeline's producer: its step counter in the last 64 bytes (a cache line of its own
     where the scratch starts on one; emit_c.c passes PC to both nodes) */
  return cnt * (dt == DT_DOUBLE ? 8 : 4) + 16 + (n->pipe == 1 ? 128 : 0);
}

/* Whether recurrent node n may run as one side of a two-thread pipeline (plan_memory.c; role
   1: the producer, 2: the consumer): C target, one direction, forward, layout 0, no
   sequence_lens, more than one chunk of steps, and enough recurrent multiply-adds to pay for
   the pipeline (--par-min). */
static void rnn_emit(Emit *e, Node *n);
bool rnn_pipe_ok(const Ctx *ctx, const Node *n, int role) {
  if (!n->def || n->def->emit_c != rnn_emit || !n->priv) return false;
  const RnnInfo *ri = n->priv;
  if (!ri->host_c || ri->D != 1 || ri->rev[0] || ri->layout != 0 || node_in(n, 4) || ri->S <= RNN_CHUNK) return false;
  if (role == 1 && !node_out(n, 0)) return false;
  return par_pays(ctx, (double)ri->S * (double)ri->B * (double)ri->G * (double)ri->H * (double)ri->H);
}

/* C expression of activation a applied to variable x. */
static const char *act_expr(Emit *e, const Act *a, const char *x, int ct) {
  const char *s = ct == DT_DOUBLE ? "" : "f";
  const char *al = c_lit(e, ct, a->alpha), *be = c_lit(e, ct, a->beta);
  switch (a->kind) {
  case A_RELU: return fmt(e, "(%s > 0 ? %s : 0)", x, x);
  case A_TANH: return fmt(e, "tanh%s(%s)", s, x);
  case A_SIGMOID: return fmt(e, "(1 / (1 + exp%s(-%s)))", s, x);
  case A_AFFINE: return fmt(e, "(%s * %s + %s)", al, x, be);
  case A_LEAKY: return fmt(e, "(%s < 0 ? %s * %s : %s)", x, al, x, x);
  case A_THRELU: return fmt(e, "(%s > %s ? %s : 0)", x, al, x);
  case A_SCALEDTANH: return fmt(e, "(%s * tanh%s(%s * %s))", al, s, be, x);
  case A_HARDSIG: return fmt(e, "fmax%s(0, fmin%s(1, %s * %s + %s))", s, s, al, x, be);
  case A_ELU: return fmt(e, "(%s < 0 ? %s * (exp%s(%s) - 1) : %s)", x, al, s, x, x);
  case A_SOFTSIGN: return fmt(e, "(%s / (1 + fabs%s(%s)))", x, s, x);
  case A_SOFTPLUS: return fmt(e, "(%s > 0 ? %s + log1p%s(exp%s(-%s)) : log1p%s(exp%s(%s)))", x, x, s, s, x, s, s, x);
  default: unreachable("activation");
  }
}

/* Emits "v = act(v);".  Float Sigmoid and Tanh, the activations real models use, are computed
   without libm calls and without float compares (which keep GCC from if-converting under the
   default -ftrapping-math; selects are integer masks) so that the gate loops vectorize:
   exp(y) = 2^n * p(r), y clamped to +-87 in the integer domain, n = round(y / ln 2),
   r = y - n ln 2 (two-part ln 2), p the degree-6 Taylor polynomial (|r| <= 0.35: relative
   error about 1e-7); sigmoid(x) = 1 / (1 + exp(-x)), tanh(x) = 1 - 2 / (1 + exp(2x))
   (absolute error about 1e-7); NaN stays NaN. */
static void emit_act(Emit *e, const Act *a, const char *v, int ct) {
  if (ct != DT_FLOAT || (a->kind != A_SIGMOID && a->kind != A_TANH)) {
    ep(e, "%s = %s;", v, act_expr(e, a, v, ct));
    return;
  }
  bool sig = a->kind == A_SIGMOID;
  ep(e, "{");
  ep(e, "union { float f; int32_t i; } q_ui, q_us, q_uo;");
  if (sig) ep(e, "q_ui.f = -%s;", v);
  else ep(e, "q_ui.f = 2.0f * %s;", v);
  ep(e, "const int32_t q_ab = q_ui.i & 0x7fffffff, q_isn = q_ab > 0x7f800000;");
  ep(e, "q_ui.i = q_ab > 0x42ae0000 ? (q_ui.i & INT32_MIN) | 0x42ae0000 : q_ui.i;");
  ep(e, "const float q_y = q_ui.f;");
  ep(e, "const int32_t q_n = (int32_t)(q_y * 1.44269504f + 126.5f) - 126;");
  ep(e, "const float q_fn = (float)q_n;");
  ep(e, "const float q_r = (q_y - q_fn * 0.693145752f) - q_fn * 1.42860677e-6f;");
  ep(e, "const float q_p = 1.0f + q_r * (1.0f + q_r * (0.5f + q_r * (0.166666667f + q_r * (0.0416666667f + q_r * (0.00833333333f + q_r * 0.00138888889f)))));");
  ep(e, "q_us.i = (q_n + 127) * 8388608;");
  if (sig) ep(e, "q_uo.f = 1.0f / (1.0f + q_p * q_us.f);");
  else ep(e, "q_uo.f = 1.0f - 2.0f / (1.0f + q_p * q_us.f);");
  ep(e, "q_uo.i |= -q_isn & 0x7fc00000;");
  ep(e, "%s = q_uo.f;", v);
  ep(e, "}");
}

/* Emits "v = f(clip(v));" for a gate pre-activation held in variable v. */
static void emit_gate(Emit *e, const RnnInfo *ri, const Act *a, const char *v, int ct) {
  if (ri->has_clip) {
    const char *c = c_lit(e, ct, ri->clip);
    ep(e, "%s = %s < -%s ? -%s : (%s > %s ? %s : %s);", v, v, c, c, v, c, c, v);
  }
  emit_act(e, a, v, ct);
}

/* What the emitted per-step row loops need to know. */
typedef struct StepCtx {
  const RnnInfo *ri;
  int d, dt;
  const char *it, *T, *C;
  bool hasSL;
} StepCtx;

/* Emits the definition of t<r> (the time index row r reads at step `sv`) and x<r> (its input
   row).  With sequence_lens, a finished row reads row 0 (its result is not used). */
static void emit_x_row(Emit *e, const StepCtx *sc, const char *r, const char *br, const char *sv) {
  const RnnInfo *ri = sc->ri;
  const char *it = sc->it, *len = fmt(e, "%lld", (long long)ri->S);
  if (sc->hasSL) {
    ep(e, "const %s len%s = X4[%s] < %lld ? (%s)X4[%s] : %lld;", it, r, br, (long long)ri->S, it, br, (long long)ri->S);
    len = fmt(e, "len%s", r);
  }
  const char *tv = ri->rev[sc->d] ? fmt(e, "%s - 1 - %s", len, sv) : sv;
  if (sc->hasSL) ep(e, "const %s t%s = %s < %s ? %s : 0;", it, r, sv, len, tv);
  else ep(e, "const %s t%s = %s;", it, r, tv);
  if (ri->layout == 0)
    ep(e, "const %s *x%s = X0 + (t%s * %lld + %s) * %lld;", sc->T, r, r, (long long)ri->B, br, (long long)ri->I);
  else
    ep(e, "const %s *x%s = X0 + (%s * %lld + t%s) * %lld;", sc->T, r, br, (long long)ri->S, r, (long long)ri->I);
}

/* Opens the loop over batch rows b of step s: finished rows (sequence_lens) are skipped; t is
   the time index the step reads and writes (when asked for). */
static void emit_rows_open(Emit *e, const StepCtx *sc, bool need_t) {
  const RnnInfo *ri = sc->ri;
  const char *it = sc->it;
  ep(e, "for (%s b = 0; b < %lld; b++) {", it, (long long)ri->B);
  const char *len = fmt(e, "%lld", (long long)ri->S);
  if (sc->hasSL) {
    ep(e, "%s len = (%s)X4[b];", it, it);
    ep(e, "if (len > %lld) len = %lld;", (long long)ri->S, (long long)ri->S);
    ep(e, "if (s >= len) continue;");
    len = "len";
  }
  if (!need_t) return;
  if (ri->rev[sc->d]) ep(e, "const %s t = %s - 1 - s;", it, len);
  else ep(e, "const %s t = s;", it);
}

/* One GEMV term: sum_k v[k] * mat[k * GH + off + j], v the row of batch entry b of `base`
   ([B][K], compute type) or, when base is NULL, the input row x. */
/* One term: rows of `base` (K apart; NULL: the input rows x) times mat, [K][GH] row-major, or
   with panel > 0 in column panels [GH/panel][K][panel]. */
typedef struct GemvTerm { const char *base; int64_t K; const char *mat; int mdt; int64_t panel; } GemvTerm;

/* Where a GEMV's rows come from and go. */
typedef struct GemvSpec {
  const char *dst;      /* output rows, GH apart */
  int64_t b1, b2;       /* bias offsets in X3 added to every row, or -1 */
  const char *src;      /* or: initial values, row (s - s0) * B + b of src */
  bool chunk;           /* rows q are the (step, batch) pairs of the chunk at s0 (q = i * B + b)
                           rather than the batch rows of step s */
} GemvSpec;

/* A block of nr rows (b0 ..) and w columns (j0 ..). */
static void emit_gemv_block(Emit *e, const StepCtx *sc, const GemvSpec *gs, const GemvTerm *t, int nt,
                            int64_t GH, int64_t off, int64_t w, int nr) {
  const RnnInfo *ri = sc->ri;
  int dt = sc->dt;
  const char *C = sc->C, *it = sc->it;
  long long B = (long long)ri->B;
  for (int r = 0; r < nr; r++) {
    const char *rs = fmt(e, "%d", r), *br = fmt(e, "br%d", r);
    if (gs->chunk) {
      ep(e, "const %s q%d = b0 + %d, br%d = q%d %% %lld, sr%d = s0 + q%d / %lld;", it, r, r, r, r, B, r, r, B);
    } else {
      ep(e, "const %s br%d = b0 + %d;", it, r, r);
    }
    for (int i = 0; i < nt; i++) {
      if (t[i].base) ep(e, "const %s *%s%d = %s + br%d * %lld;", C, t[i].base, r, t[i].base, r, (long long)t[i].K);
      else emit_x_row(e, sc, rs, br, gs->chunk ? fmt(e, "sr%d", r) : "s");
    }
  }
  const char *init = c_lit(e, dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT, 0);
  if (gs->b1 >= 0) init = c_load(e, dt, fmt(e, "X3[%lld + j0 + jj]", (long long)gs->b1));
  if (gs->b2 >= 0) init = fmt(e, "%s + %s", init, c_load(e, dt, fmt(e, "X3[%lld + j0 + jj]", (long long)gs->b2)));
  /* An accumulator block of at most 128 bytes would live in the x86-64 red zone, where GCC 12
     at -O2 with AVX-512 stores to it with aligned moves it never aligned (a miscompile that
     crashes test_lstm_reverse with -O2 -march=native): small blocks get padded past it. */
  int64_t wdecl = w, es = dt == DT_DOUBLE ? 8 : 4;
  while (nr * wdecl * es <= 128) wdecl += 8;
  ep(e, "%s acc[%d][%lld];", C, nr, (long long)wdecl);
  ep(e, "for (int jj = 0; jj < %lld; jj++) {", (long long)w);
  for (int r = 0; r < nr; r++) {
    if (gs->src)
      ep(e, "acc[%d][jj] = %s[((s - s0) * %lld + br%d) * %lld + j0 + jj];", r, gs->src, B, r, (long long)GH);
    else
      ep(e, "acc[%d][jj] = %s;", r, init);
  }
  ep(e, "}");
  /* ku weight rows per pass (fewer with more rows, to stay within the registers) */
  int ku = nr >= 3 ? 2 : 4;
  for (int i = 0; i < nt; i++) {
    const char *vb = t[i].base ? t[i].base : "x";
    int64_t K = t[i].K, Kf = K / ku * ku;
    for (int pass = 0; pass < 2; pass++) {
      int u = pass ? 1 : ku;
      if (pass ? K == Kf : Kf == 0) continue;
      if (pass) ep(e, "for (%s k = %lld; k < %lld; k++) {", it, (long long)Kf, (long long)K);
      else ep(e, "for (%s k = 0; k < %lld; k += %d) {", it, (long long)Kf, ku);
      for (int r = 0; r < nr; r++)
        for (int q = 0; q < u; q++) {
          const char *el = fmt(e, "%s%d[k + %d]", vb, r, q);
          ep(e, "const %s v%d_%d = %s;", C, r, q, t[i].base ? el : c_load(e, dt, el));
        }
      int64_t rs = t[i].panel ? t[i].panel : GH; /* weight row stride */
      if (t[i].panel)
        ep(e, "const %s *w0 = %s + (%lld + j0) * %lld + k * %lld;", c_type(t[i].mdt), t[i].mat, (long long)off, (long long)K,
           (long long)rs);
      else
        ep(e, "const %s *w0 = %s + k * %lld + %lld + j0;", c_type(t[i].mdt), t[i].mat, (long long)GH, (long long)off);
      ep(e, "for (int jj = 0; jj < %lld; jj++) {", (long long)w);
      for (int q = 0; q < u; q++)
        ep(e, "const %s a%d = %s;", C, q, c_load(e, t[i].mdt, fmt(e, "w0[%lld + jj]", (long long)(q * rs))));
      for (int r = 0; r < nr; r++) {
        Buf sum = {0};
        for (int q = 0; q < u; q++) buf_printf(&sum, "%sv%d_%d * a%d", q ? " + " : "", r, q, q);
        ep(e, "acc[%d][jj] += %s;", r, sum.p);
        buf_free(&sum);
      }
      ep(e, "}");
      ep(e, "}");
    }
  }
  ep(e, "for (int jj = 0; jj < %lld; jj++) {", (long long)w);
  for (int r = 0; r < nr; r++)
    ep(e, "%s[%s%d * %lld + j0 + jj] = acc[%d][jj];", gs->dst, gs->chunk ? "q" : "br", r, (long long)GH, r);
  ep(e, "}");
}

/* dst rows = bias or src rows + the terms, for j < J.  Output columns go in blocks of 32 held in
   a local accumulator (it cannot alias, so the loops vectorize) for up to 4 rows at once, so
   that each weight load feeds every row while the weight rows stream by contiguously. */
static void emit_gemv(Emit *e, const StepCtx *sc, const GemvSpec *gs, const GemvTerm *t, int nt, int64_t GH,
                      int64_t off, int64_t J) {
  int64_t CH = gemv_width(sc->dt), B = sc->ri->B;
  if (J < CH) CH = J;
  int64_t full = J / CH * CH;
  int RB = gs->chunk || B >= 4 ? 4 : (int)B;
  int64_t bfull = B / RB * RB;
  for (int cb = 0; cb < 2; cb++) {
    int64_t wd = cb ? J - full : CH;
    if (cb ? J == full : full == 0) continue;
    if (cb) {
      ep(e, "{");
      ep(e, "const %s j0 = %lld;", sc->it, (long long)full);
    } else {
      ep(e, "for (%s j0 = 0; j0 < %lld; j0 += %lld) {", sc->it, (long long)full, (long long)CH);
    }
    if (gs->chunk) {
      /* te * B rows (te: steps in this chunk) */
      ep(e, "%s b0 = 0;", sc->it);
      ep(e, "for (; b0 + %d <= te * %lld; b0 += %d) {", RB, (long long)B, RB);
      emit_gemv_block(e, sc, gs, t, nt, GH, off, wd, RB);
      ep(e, "}");
      /* the last rows, fewer than RB: a bound GCC sees (with te * B a multiple of RB, it flagged
         an int overflow in this loop that never runs: -Waggressive-loop-optimizations) */
      ep(e, "for (int rr = 1; rr < %d && b0 < te * %lld; rr++, b0++) {", RB, (long long)B);
      emit_gemv_block(e, sc, gs, t, nt, GH, off, wd, 1);
      ep(e, "}");
    } else {
      for (int rb = 0; rb < 2; rb++) {
        if (rb ? B == bfull : bfull == 0) continue;
        if (rb) {
          ep(e, "{");
          ep(e, "const %s b0 = %lld;", sc->it, (long long)bfull);
        } else {
          ep(e, "for (%s b0 = 0; b0 < %lld; b0 += %d) {", sc->it, (long long)bfull, RB);
        }
        emit_gemv_block(e, sc, gs, t, nt, GH, off, wd, rb ? (int)(B - bfull) : RB);
        ep(e, "}");
      }
    }
    ep(e, "}");
  }
}

/* dst[off .. off + J) = v R^T over those columns (+ X3[bias ..] when bias >= 0, + res[0 .. J)
   when res is not NULL), R in the strips of onnxc_sgemv_p (off starts a strip: a multiple of
   128). */
static void emit_strip_gemv(Emit *e, const char *v, const char *rm, const char *dst, int64_t K, int64_t off, int64_t J,
                            long long bias, const char *res) {
  ep(e, "{");
  if (bias >= 0 || res)
    ep(e, "const onnxc_epi re = {%s, %d, %s, 0, 0, 0.0f, 0.0f, 0, 0, 0};", bias >= 0 ? fmt(e, "X3 + %lld", bias) : "(const float *)0",
       bias >= 0, res ? res : "(const float *)0");
  ep(e, "onnxc_sgemv_p(%lld, %lld, %s, 1, %s + %lld, %s + %lld, %s);", (long long)J, (long long)K, v, rm,
     (long long)(off * K), dst, (long long)off, bias >= 0 || res ? "&re" : "(const onnxc_epi *)0");
  ep(e, "}");
}

/* Whether direction d of a float LSTM takes onnxc_lstm_cell16 / onnxc_lstm_cell8 (gemm.h) on
   AVX-512 / AVX2 targets: the default activations (sigmoid, tanh, tanh), no clip, no coupled
   input/forget gate. */
static bool lstm_cell16(const RnnInfo *ri, int dt, int d) {
  if (ri->kind != K_LSTM || dt != DT_FLOAT || !ri->host_c || ri->has_clip || ri->input_forget) return false;
  return ri->act[d][0].kind == A_SIGMOID && ri->act[d][1].kind == A_TANH && ri->act[d][2].kind == A_TANH;
}
/* The same for a float GRU's last gate loop (onnxc_gru_cell16): sigmoid and tanh, no clip. */
static bool gru_cell16(const RnnInfo *ri, int dt, int d) {
  if (ri->kind != K_GRU || dt != DT_FLOAT || !ri->host_c || ri->has_clip) return false;
  return ri->act[d][0].kind == A_SIGMOID && ri->act[d][1].kind == A_TANH;
}

static void rnn_emit(Emit *e, Node *n) {
  const RnnInfo *ri = n->priv;
  int dt = n->inputs[0]->dtype;
  int ct = dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT;
  const char *T = c_type(dt), *C = c_ctype(dt);
  int64_t S = ri->S, B = ri->B, I = ri->I, H = ri->H, D = ri->D, G = ri->G, GH = G * H;
  bool hasB = node_in(n, 3), hasSL = node_in(n, 4), hasH0 = node_in(n, 5);
  bool hasC0 = ri->kind == K_LSTM && node_in(n, 6), hasP = ri->kind == K_LSTM && node_in(n, 7);
  bool hasY = node_out(n, 0) != NULL;
  int64_t big = S * B * (I > H ? I : H) * D;
  if (D * GH * (I > H ? I : H) > big) big = D * GH * (I > H ? I : H);
  if (B * GH > big) big = B * GH;
  const char *it = big < 2000000000LL ? "int" : "long long";
  const char *zero = c_lit(e, ct, 0), *one = c_lit(e, ct, 1);
  if (ri->gemm_x || ri->strip || lstm_cell16(ri, dt, 0) || (D > 1 && lstm_cell16(ri, dt, 1)) || gru_cell16(ri, dt, 0) ||
      (D > 1 && gru_cell16(ri, dt, 1)))
    emit_use_template(e, "gemm");

  /* scratch: wt [I][GH], rt [H][GH] (run-time weights only), gx [TB][B][GH], ax [B][GH],
     GRU: ah [B][GH], rh [B][H] (not with linear_before_reset); hs [B][H], LSTM: cs [B][H] */
  int TB = S < RNN_CHUNK ? (int)(S > 0 ? S : 1) : RNN_CHUNK;
  int64_t es = ct == DT_DOUBLE ? 8 : 4, off = 0;
  const char *bufs[9] = {"wt", "rt", "gx", "ax", "ah", "rh", "hs", "cs", "bx"};
  int64_t lens[9] = {ri->pre_w ? 0 : I * GH, ri->pre_r ? 0 : H * GH, TB * B * GH, B * GH,
                     ri->kind == K_GRU ? B * GH : 0, ri->kind == K_GRU && !ri->lbr ? B * H : 0, B * H,
                     ri->kind == K_LSTM ? B * H : 0, ri->gemm_x && hasB ? GH : 0};
  for (int k = 0; k < 9; k++) {
    if (!lens[k]) continue;
    ep(e, "%s *restrict %s = (%s *)(void *)(W + %lld);", C, bufs[k], C, (long long)off);
    off += lens[k] * es;
  }
  if (hasSL && hasY) {
    /* rows past a batch entry's length stay zero */
    ep(e, "if (Y0) {");
    ep(e, "for (%s i = 0; i < %lld; i++) Y0[i] = 0;", it, (long long)(S * D * B * H));
    ep(e, "}");
  }
  for (int d = 0; d < D; d++) {
    const Act *acts = ri->act[d];
    StepCtx sc = {ri, d, dt, it, T, C, hasSL};
    ep(e, "/* direction %d (%s) */", d, ri->rev[d] ? "reverse" : "forward");
    /* run-time weights: transposed into scratch, in tiles so that reads and writes both stay
       within a few cache lines */
    for (int m = 0; m < 2; m++) {
      if (m == 0 ? ri->pre_w : ri->pre_r) continue;
      int64_t K = m == 0 ? I : H;
      ep(e, "for (%s j0 = 0; j0 < %lld; j0 += 16) {", it, (long long)GH);
      ep(e, "for (%s k0 = 0; k0 < %lld; k0 += 16) {", it, (long long)K);
      ep(e, "const %s je = j0 + 16 < %lld ? j0 + 16 : %lld, ke = k0 + 16 < %lld ? k0 + 16 : %lld;", it, (long long)GH,
         (long long)GH, (long long)K, (long long)K);
      ep(e, "for (%s j = j0; j < je; j++) {", it);
      ep(e, "for (%s k = k0; k < ke; k++) %s[k * %lld + j] = %s;", it, m ? "rt" : "wt", (long long)GH,
         c_load(e, dt, fmt(e, "X%d[%lld + j * %lld + k]", m + 1, (long long)(d * GH * K), (long long)K)));
      ep(e, "}");
      ep(e, "}");
      ep(e, "}");
    }
    /* initial state: layout 0 [D][B][H], layout 1 [B][D][H] */
    const char *hoff = ri->layout ? fmt(e, "(b * %lld + %d) * %lld", (long long)D, d, (long long)H)
                                  : fmt(e, "(%lld + b) * %lld", (long long)(d * B), (long long)H);
    ep(e, "for (%s b = 0; b < %lld; b++) {", it, (long long)B);
    ep(e, "for (%s j = 0; j < %lld; j++) {", it, (long long)H);
    ep(e, "hs[b * %lld + j] = %s;", (long long)H, hasH0 ? c_load(e, dt, fmt(e, "X5[%s + j]", hoff)) : zero);
    if (ri->kind == K_LSTM)
      ep(e, "cs[b * %lld + j] = %s;", (long long)H, hasC0 ? c_load(e, dt, fmt(e, "X6[%s + j]", hoff)) : zero);
    ep(e, "}");
    ep(e, "}");
    /* chunks of RNN_CHUNK steps: their input projections gx = x W^T + Wb (+ Rb except GRU)
       first, then per step ax = gx + h R^T (+ Rb); GRU: ax = gx, ah = h R^T + Rb */
    long long boff = (long long)(d * 2 * GH);
    const char *wm = ri->pre_w ? fmt(e, "(X1 + %lld)", (long long)(d * I * GH)) : "wt";
    const char *rm = ri->pre_r ? fmt(e, "(X2 + %lld)", (long long)(d * H * GH)) : "rt";
    GemvTerm tx = {NULL, I, wm, ri->pre_w ? dt : ct, ri->pre_w ? ri->panel : 0};
    GemvTerm th = {"hs", H, rm, ri->pre_r ? dt : ct, ri->pre_r ? ri->panel : 0};
    if (ri->gemm_x && hasB) {
      /* the GEMM's epilogue bias: Wb (+ Rb except GRU, which adds Rb to h R^T) */
      if (ri->kind != K_GRU)
        ep(e, "for (%s j = 0; j < %lld; j++) bx[j] = X3[%lld + j] + X3[%lld + j];", it, (long long)GH, boff, boff + GH);
      else
        ep(e, "for (%s j = 0; j < %lld; j++) bx[j] = X3[%lld + j];", it, (long long)GH, boff);
    }
    ep(e, "for (%s s0 = 0; s0 < %lld; s0 += %d) {", it, (long long)S, TB);
    ep(e, "const %s te = %lld - s0 < %d ? %lld - s0 : %d;", it, (long long)S, TB, (long long)S, TB);
    /* a pipeline's consumer: the producer's rows of this chunk first */
    if (n->pipe == 2) ep(e, "onnxc_pipe_wait(PC, (long)(s0 + te));");
    if (ri->gemm_x) {
      /* per batch row b: gx rows (i * B + b) = X rows of steps s0 + i (reversed: S - 1 - s0 - i) times W^T */
      long long rs = ri->layout == 0 ? (long long)(B * I) : (long long)I;
      const char *row = ri->rev[d] ? fmt(e, "(%lld - s0)", (long long)(S - 1)) : "s0";
      const char *a0 = ri->layout == 0 ? fmt(e, "X0 + (%s * %lld + b) * %lld", row, (long long)B, (long long)I)
                                       : fmt(e, "X0 + (b * %lld + %s) * %lld", (long long)S, row, (long long)I);
      if (hasB) ep(e, "const onnxc_epi xe = {bx, 1, (const float *)0, 0, 0, 0.0f, 0.0f, 0, 0, 0};");
      ep(e, "for (%s b = 0; b < %lld; b++) {", it, (long long)B);
      ep(e, "onnxc_sgemm_a(te, %lld, %lld, %s, %lld, 1, %s, %lld, gx + b * %lld, %lld, %s);", (long long)GH, (long long)I, a0,
         ri->rev[d] ? -rs : rs, wm, (long long)GH, (long long)GH, (long long)(B * GH), hasB ? "&xe" : "(const onnxc_epi *)0");
      ep(e, "}");
    } else {
      GemvSpec gx = {"gx", hasB ? boff : -1, hasB && ri->kind != K_GRU ? boff + GH : -1, NULL, true};
      emit_gemv(e, &sc, &gx, &tx, 1, GH, 0, GH);
    }
    ep(e, "for (%s s = s0; s < s0 + te; s++) {", it);
    const char *parow = fmt(e, "ax + b * %lld", (long long)GH);
    if (ri->kind != K_GRU && ri->strip) {
      /* ax = this step's gx row + h R^T */
      emit_strip_gemv(e, "hs", rm, "ax", H, 0, GH, -1, fmt(e, "gx + (s - s0) * %lld", (long long)GH));
    } else if (ri->kind != K_GRU) {
      GemvSpec ga = {"ax", -1, -1, "gx", false};
      emit_gemv(e, &sc, &ga, &th, 1, GH, 0, GH);
    } else {
      /* this step's gx rows go to ax: the gate loops then read at offsets the compiler can
         tell apart from the state it writes, and vectorize */
      ep(e, "for (%s q = 0; q < %lld; q++) ax[q] = gx[(s - s0) * %lld + q];", it, (long long)(B * GH), (long long)(B * GH));
      if (ri->strip) {
        emit_strip_gemv(e, "hs", rm, "ah", H, 0, ri->lbr ? GH : 2 * H, hasB ? boff + GH : -1, NULL);
      } else {
        GemvSpec gh = {"ah", hasB ? boff + GH : -1, -1, NULL, false};
        emit_gemv(e, &sc, &gh, &th, 1, GH, 0, ri->lbr ? GH : 2 * H);
      }
    }
    if (ri->kind == K_GRU && !ri->lbr) {
      /* h~ = g(x Wh + (r . h) Rh + Wbh + Rbh): r first, then the (r . h) Rh GEMV */
      emit_rows_open(e, &sc, false);
      ep(e, "const %s *pa = %s, *pg = ah + b * %lld, *h = hs + b * %lld;", C, parow, (long long)GH, (long long)H);
      ep(e, "%s *pr = rh + b * %lld;", C, (long long)H);
      ep(e, "for (%s j = 0; j < %lld; j++) {", it, (long long)H);
      ep(e, "%s r = pa[%lld + j] + pg[%lld + j];", C, (long long)H, (long long)H);
      emit_gate(e, ri, &acts[0], "r", ct);
      ep(e, "pr[j] = r * h[j];");
      ep(e, "}");
      ep(e, "}");
      if (ri->strip) {
        emit_strip_gemv(e, "rh", rm, "ah", H, 2 * H, H, hasB ? boff + GH + 2 * H : -1, NULL);
      } else {
        GemvTerm tr = {"rh", H, rm, ri->pre_r ? dt : ct, ri->pre_r ? ri->panel : 0};
        GemvSpec g2 = {fmt(e, "(ah + %lld)", (long long)(2 * H)), hasB ? boff + GH + 2 * H : -1, -1, NULL, false};
        emit_gemv(e, &sc, &g2, &tr, 1, GH, 2 * H, H);
      }
    }
    /* gates, state update, Y */
    emit_rows_open(e, &sc, hasY);
    ep(e, "const %s *pa = %s;", C, parow);
    if (ri->kind == K_GRU) ep(e, "const %s *pg = ah + b * %lld;", C, (long long)GH);
    ep(e, "%s *h = hs + b * %lld;", C, (long long)H);
    if (ri->kind == K_LSTM) ep(e, "%s *c = cs + b * %lld;", C, (long long)H);
    if (ri->kind == K_RNN) {
      ep(e, "for (%s j = 0; j < %lld; j++) {", it, (long long)H);
      ep(e, "%s g = pa[j];", C);
      emit_gate(e, ri, &acts[0], "g", ct);
      ep(e, "h[j] = g;");
      ep(e, "}");
    } else if (ri->kind == K_GRU) {
      bool cell16 = gru_cell16(ri, dt, d);
      if (cell16) {
        ep(e, "#if defined(ONNXC_AVX512)");
        ep(e, "onnxc_gru_cell16(pa, pg, h, %lld, %d);", (long long)H, ri->lbr ? 1 : 0);
        ep(e, "#elif defined(ONNXC_AVX2)");
        ep(e, "onnxc_gru_cell8(pa, pg, h, %lld, %d);", (long long)H, ri->lbr ? 1 : 0);
        ep(e, "#else");
      }
      ep(e, "for (%s j = 0; j < %lld; j++) {", it, (long long)H);
      ep(e, "%s z = pa[j] + pg[j];", C);
      emit_gate(e, ri, &acts[0], "z", ct);
      if (ri->lbr) {
        /* h~ = g(x Wh + Wbh + r . (h Rh + Rbh)) */
        ep(e, "%s r = pa[%lld + j] + pg[%lld + j];", C, (long long)H, (long long)H);
        emit_gate(e, ri, &acts[0], "r", ct);
        ep(e, "%s hh = pa[%lld + j] + r * pg[%lld + j];", C, (long long)(2 * H), (long long)(2 * H));
      } else {
        ep(e, "%s hh = pa[%lld + j] + pg[%lld + j];", C, (long long)(2 * H), (long long)(2 * H));
      }
      emit_gate(e, ri, &acts[1], "hh", ct);
      ep(e, "h[j] = (%s - z) * hh + z * h[j];", one);
      ep(e, "}");
      if (cell16) ep(e, "#endif");
    } else {
      /* LSTM gates: i, o, f, c; peepholes P: i, o, f */
      long long poff = (long long)(d * 3 * H);
      bool cell16 = lstm_cell16(ri, dt, d);
      if (cell16) {
        ep(e, "#if defined(ONNXC_AVX512)");
        ep(e, "onnxc_lstm_cell16(pa, %s, c, h, %lld);", hasP ? fmt(e, "X7 + %lld", poff) : "(const float *)0", (long long)H);
        ep(e, "#elif defined(ONNXC_AVX2)");
        ep(e, "onnxc_lstm_cell8(pa, %s, c, h, %lld);", hasP ? fmt(e, "X7 + %lld", poff) : "(const float *)0", (long long)H);
        ep(e, "#else");
      }
      ep(e, "for (%s j = 0; j < %lld; j++) {", it, (long long)H);
      if (hasP) ep(e, "%s gi = pa[j] + %s * c[j];", C, c_load(e, dt, fmt(e, "X7[%lld + j]", poff)));
      else ep(e, "%s gi = pa[j];", C);
      emit_gate(e, ri, &acts[0], "gi", ct);
      if (ri->input_forget) {
        ep(e, "%s gf = %s - gi;", C, one);
      } else {
        if (hasP) ep(e, "%s gf = pa[%lld + j] + %s * c[j];", C, (long long)(2 * H), c_load(e, dt, fmt(e, "X7[%lld + j]", poff + 2 * H)));
        else ep(e, "%s gf = pa[%lld + j];", C, (long long)(2 * H));
        emit_gate(e, ri, &acts[0], "gf", ct);
      }
      ep(e, "%s gc = pa[%lld + j];", C, (long long)(3 * H));
      emit_gate(e, ri, &acts[1], "gc", ct);
      ep(e, "const %s cn = gf * c[j] + gi * gc;", C);
      ep(e, "c[j] = cn;");
      if (hasP) ep(e, "%s go = pa[%lld + j] + %s * cn;", C, (long long)H, c_load(e, dt, fmt(e, "X7[%lld + j]", poff + H)));
      else ep(e, "%s go = pa[%lld + j];", C, (long long)H);
      emit_gate(e, ri, &acts[0], "go", ct);
      ep(e, "%s hc = cn;", C);
      emit_act(e, &acts[2], "hc", ct);
      ep(e, "h[j] = go * hc;");
      ep(e, "}");
      if (cell16) ep(e, "#endif");
    }
    /* Y: layout 0 [S][D][B][H], layout 1 [B][S][D][H] */
    if (hasY) {
      ep(e, "if (Y0) {");
      if (ri->layout == 0)
        ep(e, "%s *y = Y0 + ((t * %lld + %d) * %lld + b) * %lld;", T, (long long)D, d, (long long)B, (long long)H);
      else
        ep(e, "%s *y = Y0 + ((b * %lld + t) * %lld + %d) * %lld;", T, (long long)S, (long long)D, d, (long long)H);
      ep(e, "for (%s j = 0; j < %lld; j++) y[j] = %s;", it, (long long)H, c_store(e, dt, "h[j]"));
      ep(e, "}");
    }
    ep(e, "}");
    /* a pipeline's producer: step s's rows are out */
    if (n->pipe == 1) ep(e, "onnxc_pipe_post(PC, (long)(s + 1));");
    ep(e, "}");
    ep(e, "}");
    /* final states */
    for (int k = 1; k <= (ri->kind == K_LSTM ? 2 : 1); k++) {
      if (!node_out(n, k)) continue;
      ep(e, "if (Y%d) {", k);
      ep(e, "for (%s b = 0; b < %lld; b++) {", it, (long long)B);
      const char *val = c_store(e, dt, fmt(e, "%s[b * %lld + j]", k == 1 ? "hs" : "cs", (long long)H));
      /* an empty sequence gives zero states, as onnxruntime does */
      if (hasSL) val = fmt(e, "X4[b] > 0 ? %s : 0", val);
      ep(e, "for (%s j = 0; j < %lld; j++) Y%d[%s + j] = %s;", it, (long long)H, k, hoff, val);
      ep(e, "}");
      ep(e, "}");
    }
  }
}

/* ======================================================================================= */
/* Data-dependent shapes                                                                   */
/* ======================================================================================= */

static const char *index_type(int64_t n) { return n < 2000000000LL ? "int" : "long long"; }

static bool const_nonzero(const Value *v, int64_t i) {
  if (dtype_is_float(v->dtype)) return const_get_f(v, i) != 0;
  return const_get_i(v, i) != 0;
}

/* C condition "element expr is not zero" for storage type dt. */
static const char *nz_expr(Emit *e, int dt, const char *x) {
  if (dt == DT_FLOAT16 || dt == DT_BFLOAT16) return fmt(e, "((%s & 0x7fff) != 0)", x);
  return fmt(e, "(%s != 0)", x);
}

/* Numeric and bool element types; with `bytes_only`, also the one-byte small types (whose
   elements are only moved). */
static void require_plain_type(Ctx *ctx, const Node *n, const Value *v, bool bytes_only) {
  if (v->dtype == DT_STRING || dtype_is_packed(v->dtype) || !dtype_size(v->dtype) || !c_type(v->dtype) ||
      (!bytes_only && dtype_is_small(v->dtype)))
    fail_node(ctx, n, "element type %s is not supported", dtype_name(v->dtype));
}

/* ---- NonZero --------------------------------------------------------------------------- */

static void nonzero_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  Value *x = n->inputs[0], *y = n->outputs[0];
  require_plain_type(ctx, n, x, false);
  int64_t cnt = value_numel(x);
  if (x->data) {
    cnt = 0;
    for (int64_t i = 0; i < value_numel(x); i++) cnt += const_nonzero(x, i);
  }
  /* a scalar gives [0, count], as the ONNX reference does */
  int64_t dims[2] = {x->rank, cnt};
  if (!y) return;
  value_set_shape(y, DT_INT64, 2, dims);
  y->dynamic = !x->data;
}

static void nonzero_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  Value *x = n->inputs[0], *y = n->outputs[0];
  int64_t cnt = y->dims[1], p = 0;
  for (int64_t i = 0; i < value_numel(x); i++) {
    if (!const_nonzero(x, i)) continue;
    int64_t rest = i;
    for (int d = x->rank - 1; d >= 0; d--) {
      const_set_i(y, d * cnt + p, rest % x->dims[d]);
      rest /= x->dims[d];
    }
    p++;
  }
}

static void nonzero_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0], *y = n->outputs[0];
  int64_t N = value_numel(x);
  int R = x->rank;
  const char *it = index_type(N);
  ep(e, "long long cnt = 0;");
  ep(e, "for (%s i = 0; i < %lld; i++) cnt += %s;", it, (long long)N, nz_expr(e, x->dtype, "X0[i]"));
  ep(e, "(void)cnt;");
  if (y->dynamic) {
    ep(e, "D0[0] = %d;", R);
    ep(e, "D0[1] = cnt;");
  }
  if (R == 0 || N == 0) return;
  ep(e, "if (Y0) {");
  ep(e, "static const long long dm[%d] = {", R);
  for (int d = 0; d < R; d++) ep(e, "  %lld,", (long long)x->dims[d]);
  ep(e, "};");
  ep(e, "long long c[%d] = {0};", R);
  ep(e, "long long p = 0;");
  ep(e, "for (%s i = 0; i < %lld; i++) {", it, (long long)N);
  ep(e, "if %s {", nz_expr(e, x->dtype, "X0[i]"));
  ep(e, "for (int d = 0; d < %d; d++) Y0[d * cnt + p] = c[d];", R);
  ep(e, "p++;");
  ep(e, "}");
  ep(e, "for (int d = %d; d >= 0; d--) {", R - 1);
  ep(e, "if (++c[d] < dm[d]) break;");
  ep(e, "c[d] = 0;");
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ---- Compress -------------------------------------------------------------------------- */

typedef struct CompressInfo {
  bool has_axis;
  int axis;
  int64_t O, A, Q, L;  /* outer, axis length, inner, usable condition length */
} CompressInfo;

static void compress_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 2);
  Value *x = n->inputs[0], *cond = n->inputs[1], *y = n->outputs[0];
  require_plain_type(ctx, n, x, true);
  if (cond->dtype != DT_BOOL) fail_node(ctx, n, "condition must be bool");
  if (cond->rank != 1) fail_node(ctx, n, "condition must have rank 1");
  CompressInfo *ci = arena_alloc(&ctx->arena, sizeof *ci);
  ci->has_axis = node_attr(n, "axis") != NULL;
  ci->O = 1;
  ci->Q = 1;
  if (ci->has_axis) {
    if (x->rank == 0) fail_node(ctx, n, "axis given for a scalar input");
    ci->axis = norm_axis(ctx, n, attr_i(n, "axis", 0), x->rank);
    for (int d = 0; d < ci->axis; d++) ci->O *= x->dims[d];
    for (int d = ci->axis + 1; d < x->rank; d++) ci->Q *= x->dims[d];
    ci->A = x->dims[ci->axis];
  } else {
    ci->A = value_numel(x);
  }
  ci->L = cond->dims[0] < ci->A ? cond->dims[0] : ci->A;
  n->priv = ci;
  int64_t cnt = ci->L;
  if (cond->data) {
    cnt = 0;
    for (int64_t i = 0; i < ci->L; i++) cnt += const_get_i(cond, i) != 0;
  }
  int64_t dims[ONNXC_MAX_RANK];
  int r = 1;
  if (ci->has_axis) {
    r = x->rank;
    memcpy(dims, x->dims, sizeof(int64_t) * (size_t)r);
    dims[ci->axis] = cnt;
  } else {
    dims[0] = cnt;
  }
  value_set_shape(y, x->dtype, r, dims);
  y->dynamic = !cond->data;
}

static void compress_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  const CompressInfo *ci = n->priv;
  Value *x = n->inputs[0], *cond = n->inputs[1], *y = n->outputs[0];
  size_t es = dtype_size(x->dtype);
  char *dst = y->data;
  for (int64_t o = 0; o < ci->O; o++)
    for (int64_t a = 0; a < ci->L; a++) {
      if (!const_get_i(cond, a)) continue;
      memcpy(dst, (char *)x->data + (size_t)((o * ci->A + a) * ci->Q) * es, (size_t)ci->Q * es);
      dst += (size_t)ci->Q * es;
    }
}

static void compress_emit(Emit *e, Node *n) {
  const CompressInfo *ci = n->priv;
  Value *x = n->inputs[0], *y = n->outputs[0];
  const char *T = c_type(x->dtype);
  const char *it = index_type(value_numel(x) + 1);
  if (y->dynamic) {
    ep(e, "long long cnt = 0;");
    ep(e, "for (%s a = 0; a < %lld; a++) cnt += X1[a] != 0;", it, (long long)ci->L);
    for (int d = 0; d < y->rank; d++) {
      if (!ci->has_axis || d == ci->axis) ep(e, "D0[%d] = cnt;", d);
      else ep(e, "D0[%d] = %lld;", d, (long long)y->dims[d]);
    }
  }
  if (ci->O * ci->L * ci->Q == 0) return;
  ep(e, "if (Y0) {");
  ep(e, "%s *y = Y0;", T);
  ep(e, "for (%s o = 0; o < %lld; o++) {", it, (long long)ci->O);
  ep(e, "for (%s a = 0; a < %lld; a++) {", it, (long long)ci->L);
  ep(e, "if (!X1[a]) continue;");
  if (ci->Q == 1) {
    ep(e, "*y++ = X0[o * %lld + a];", (long long)ci->A);
  } else {
    ep(e, "memcpy(y, X0 + (o * %lld + a) * %lld, %lld);", (long long)ci->A, (long long)ci->Q,
       (long long)(ci->Q * (int64_t)dtype_size(x->dtype)));
    ep(e, "y += %lld;", (long long)ci->Q);
  }
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ---- Unique ---------------------------------------------------------------------------- */

typedef struct UniqueInfo {
  bool has_axis, sorted;
  int axis;
  int64_t O, A, Q;      /* items are A slices of O x Q elements (flat: O = Q = 1) */
  /* compile-time result (constant input) */
  bool exact;
  int64_t U;
  int64_t *first, *inv, *counts;   /* first[U] in output order, inv[A], counts[U] */
} UniqueInfo;

/* Total order on compile-time values; NaN last and equal to NaN. */
static int cmp_elem(const Value *x, int64_t a, int64_t b) {
  if (dtype_is_float(x->dtype)) {
    double va = const_get_f(x, a), vb = const_get_f(x, b);
    if (va < vb) return -1;
    if (va > vb) return 1;
    if (va == vb) return 0;
    if (isnan(va)) return isnan(vb) ? 0 : 1;
    return -1;
  }
  if (x->dtype == DT_UINT64) {
    uint64_t va = (uint64_t)const_get_i(x, a), vb = (uint64_t)const_get_i(x, b);
    return va < vb ? -1 : va > vb ? 1 : 0;
  }
  int64_t va = const_get_i(x, a), vb = const_get_i(x, b);
  return va < vb ? -1 : va > vb ? 1 : 0;
}

static int cmp_items(const Value *x, const UniqueInfo *ui, int64_t a, int64_t b) {
  for (int64_t o = 0; o < ui->O; o++)
    for (int64_t q = 0; q < ui->Q; q++) {
      int c = cmp_elem(x, (o * ui->A + a) * ui->Q + q, (o * ui->A + b) * ui->Q + q);
      if (c) return c;
    }
  return 0;
}

/* The compile-time twin of the emitted kernel. */
static void unique_const(Ctx *ctx, const Value *x, UniqueInfo *ui) {
  int64_t A = ui->A;
  size_t bytes = sizeof(int64_t) * (size_t)(A ? A : 1);
  int64_t *perm = arena_alloc(&ctx->arena, bytes), *tmp = arena_alloc(&ctx->arena, bytes);
  int64_t *gid = arena_alloc(&ctx->arena, bytes), *first = arena_alloc(&ctx->arena, bytes);
  int64_t *cnt = arena_alloc(&ctx->arena, bytes), *rank = arena_alloc(&ctx->arena, bytes);
  for (int64_t i = 0; i < A; i++) perm[i] = i;
  for (int64_t w = 1; w < A; w *= 2) {
    for (int64_t lo = 0; lo < A; lo += 2 * w) {
      int64_t mid = lo + w < A ? lo + w : A, hi = lo + 2 * w < A ? lo + 2 * w : A;
      int64_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) tmp[k++] = cmp_items(x, ui, perm[i], perm[j]) <= 0 ? perm[i++] : perm[j++];
      while (i < mid) tmp[k++] = perm[i++];
      while (j < hi) tmp[k++] = perm[j++];
    }
    int64_t *sw = perm; perm = tmp; tmp = sw;
  }
  int64_t u = 0;
  for (int64_t i = 0; i < A; i++) {
    if (i == 0 || cmp_items(x, ui, perm[i - 1], perm[i]) != 0) { first[u] = perm[i]; cnt[u] = 0; u++; }
    cnt[u - 1]++;
    gid[perm[i]] = u - 1;
  }
  int64_t *ord = tmp;
  if (ui->sorted) {
    for (int64_t g = 0; g < u; g++) { rank[g] = g; ord[g] = g; }
  } else {
    int64_t nx = 0;
    for (int64_t i = 0; i < A; i++)
      if (first[gid[i]] == i) { rank[gid[i]] = nx; ord[nx++] = gid[i]; }
  }
  ui->U = u;
  ui->first = arena_alloc(&ctx->arena, bytes);
  ui->counts = arena_alloc(&ctx->arena, bytes);
  ui->inv = arena_alloc(&ctx->arena, bytes);
  for (int64_t p = 0; p < u; p++) { ui->first[p] = first[ord[p]]; ui->counts[p] = cnt[ord[p]]; }
  for (int64_t i = 0; i < A; i++) ui->inv[i] = rank[gid[i]];
}

static void unique_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  Value *x = n->inputs[0];
  require_plain_type(ctx, n, x, false);
  if (x->dtype == DT_BOOL) fail_node(ctx, n, "element type bool is not supported");
  if (n->n_outputs > 4) fail_node(ctx, n, "too many outputs");
  UniqueInfo *ui = arena_alloc(&ctx->arena, sizeof *ui);
  ui->sorted = attr_i(n, "sorted", 1) != 0;
  ui->has_axis = node_attr(n, "axis") != NULL;
  ui->O = ui->Q = 1;
  if (ui->has_axis) {
    if (x->rank == 0) fail_node(ctx, n, "axis given for a scalar input");
    ui->axis = norm_axis(ctx, n, attr_i(n, "axis", 0), x->rank);
    for (int d = 0; d < ui->axis; d++) ui->O *= x->dims[d];
    for (int d = ui->axis + 1; d < x->rank; d++) ui->Q *= x->dims[d];
    ui->A = x->dims[ui->axis];
  } else {
    ui->A = value_numel(x);
  }
  ui->U = ui->A;
  if (x->data) {
    ui->exact = true;
    unique_const(ctx, x, ui);
  }
  n->priv = ui;
  int64_t dims[ONNXC_MAX_RANK];
  int r = 1;
  if (ui->has_axis) {
    r = x->rank;
    memcpy(dims, x->dims, sizeof(int64_t) * (size_t)r);
    dims[ui->axis] = ui->U;
  } else {
    dims[0] = ui->U;
  }
  if (node_out(n, 0)) { value_set_shape(n->outputs[0], x->dtype, r, dims); n->outputs[0]->dynamic = !ui->exact; }
  if (node_out(n, 1)) { value_set_shape(n->outputs[1], DT_INT64, 1, &ui->U); n->outputs[1]->dynamic = !ui->exact; }
  if (node_out(n, 2)) value_set_shape(n->outputs[2], DT_INT64, 1, &ui->A);
  if (node_out(n, 3)) { value_set_shape(n->outputs[3], DT_INT64, 1, &ui->U); n->outputs[3]->dynamic = !ui->exact; }
}

static void unique_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  const UniqueInfo *ui = n->priv;
  Value *x = n->inputs[0];
  CHECK(ui->exact);
  if (node_out(n, 0)) {
    size_t es = dtype_size(x->dtype), blk = (size_t)ui->Q * es;
    char *dst = n->outputs[0]->data;
    for (int64_t o = 0; o < ui->O; o++)
      for (int64_t p = 0; p < ui->U; p++)
        memcpy(dst + (size_t)(o * ui->U + p) * blk, (char *)x->data + (size_t)(o * ui->A + ui->first[p]) * blk, blk);
  }
  for (int64_t p = 0; p < ui->U; p++) {
    if (node_out(n, 1)) const_set_i(n->outputs[1], p, ui->first[p]);
    if (node_out(n, 3)) const_set_i(n->outputs[3], p, ui->counts[p]);
  }
  if (node_out(n, 2))
    for (int64_t i = 0; i < ui->A; i++) const_set_i(n->outputs[2], i, ui->inv[i]);
}

static int64_t unique_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  const UniqueInfo *ui = n->priv;
  return 6 * 8 * (ui->A ? ui->A : 1);
}

/* Emits code setting `int c` to the order of items ia and ib (expressions). */
static void emit_item_cmp(Emit *e, const UniqueInfo *ui, int dt, const char *ia, const char *ib) {
  const char *C = c_ctype(dt);
  const char *cmp = dtype_is_float(dt)
                        ? "va < vb ? -1 : (va > vb ? 1 : (va == vb ? 0 : (isnan(va) ? (isnan(vb) ? 0 : 1) : -1)))"
                        : "va < vb ? -1 : (va > vb ? 1 : 0)";
  if (ui->O == 1 && ui->Q == 1) {
    ep(e, "const %s va = %s, vb = %s;", C, c_load(e, dt, fmt(e, "X0[%s]", ia)), c_load(e, dt, fmt(e, "X0[%s]", ib)));
    ep(e, "c = %s;", cmp);
    return;
  }
  const char *T = c_type(dt);
  ep(e, "c = 0;");
  ep(e, "for (long long o = 0; o < %lld && !c; o++) {", (long long)ui->O);
  ep(e, "const %s *pa = X0 + (o * %lld + %s) * %lld, *pb = X0 + (o * %lld + %s) * %lld;", T,
     (long long)ui->A, ia, (long long)ui->Q, (long long)ui->A, ib, (long long)ui->Q);
  ep(e, "for (long long q = 0; q < %lld; q++) {", (long long)ui->Q);
  ep(e, "const %s va = %s, vb = %s;", C, c_load(e, dt, "pa[q]"), c_load(e, dt, "pb[q]"));
  ep(e, "c = %s;", cmp);
  ep(e, "if (c) break;");
  ep(e, "}");
  ep(e, "}");
}

static void unique_emit(Emit *e, Node *n) {
  const UniqueInfo *ui = n->priv;
  Value *x = n->inputs[0];
  int dt = x->dtype;
  long long A = (long long)ui->A;
  ep(e, "int64_t *perm = (int64_t *)(void *)W, *tmp = perm + %lld;", A);
  ep(e, "int64_t *const gid = perm + %lld, *const first = perm + %lld;", 2 * A, 3 * A);
  ep(e, "int64_t *const cnt = perm + %lld, *const rank = perm + %lld;", 4 * A, 5 * A);
  ep(e, "long long u = 0;");
  ep(e, "(void)rank;");
  ep(e, "for (long long i = 0; i < %lld; i++) perm[i] = i;", A);
  /* stable bottom-up merge sort of the item indices */
  ep(e, "for (long long w = 1; w < %lld; w *= 2) {", A);
  ep(e, "for (long long lo = 0; lo < %lld; lo += 2 * w) {", A);
  ep(e, "const long long mid = lo + w < %lld ? lo + w : %lld, hi = lo + 2 * w < %lld ? lo + 2 * w : %lld;", A, A, A, A);
  ep(e, "long long i = lo, j = mid, k = lo;");
  ep(e, "while (i < mid && j < hi) {");
  ep(e, "const long long ia = perm[i], ib = perm[j];");
  ep(e, "int c;");
  emit_item_cmp(e, ui, dt, "ia", "ib");
  ep(e, "tmp[k++] = c <= 0 ? perm[i++] : perm[j++];");
  ep(e, "}");
  ep(e, "while (i < mid) tmp[k++] = perm[i++];");
  ep(e, "while (j < hi) tmp[k++] = perm[j++];");
  ep(e, "}");
  ep(e, "{");
  ep(e, "int64_t *sw = perm;");
  ep(e, "perm = tmp;");
  ep(e, "tmp = sw;");
  ep(e, "}");
  ep(e, "}");
  /* runs of equal items: the first of each run is its first occurrence */
  ep(e, "for (long long i = 0; i < %lld; i++) {", A);
  ep(e, "int c = 1;");
  ep(e, "if (i > 0) {");
  ep(e, "const long long ia = perm[i - 1], ib = perm[i];");
  emit_item_cmp(e, ui, dt, "ia", "ib");
  ep(e, "}");
  ep(e, "if (c != 0) {");
  ep(e, "first[u] = perm[i];");
  ep(e, "cnt[u] = 0;");
  ep(e, "u++;");
  ep(e, "}");
  ep(e, "cnt[u - 1]++;");
  ep(e, "gid[perm[i]] = u - 1;");
  ep(e, "}");
  const char *ordp = "p", *rankg = "gid[i]";
  if (!ui->sorted) {
    ep(e, "{");
    ep(e, "long long nx = 0;");
    ep(e, "for (long long i = 0; i < %lld; i++) {", A);
    ep(e, "if (first[gid[i]] == i) {");
    ep(e, "rank[gid[i]] = nx;");
    ep(e, "tmp[nx++] = gid[i];");
    ep(e, "}");
    ep(e, "}");
    ep(e, "}");
    ordp = "tmp[p]";
    rankg = "rank[gid[i]]";
  }
  Value *y = node_out(n, 0);
  if (y && y->dynamic) {
    for (int d = 0; d < y->rank; d++) {
      if (!ui->has_axis || d == ui->axis) ep(e, "D0[%d] = u;", d);
      else ep(e, "D0[%d] = %lld;", d, (long long)y->dims[d]);
    }
  }
  if (node_out(n, 1) && n->outputs[1]->dynamic) ep(e, "D1[0] = u;");
  if (node_out(n, 3) && n->outputs[3]->dynamic) ep(e, "D3[0] = u;");
  if (y && ui->O * ui->Q > 0) {
    ep(e, "if (Y0) {");
    ep(e, "for (long long o = 0; o < %lld; o++) {", (long long)ui->O);
    ep(e, "for (long long p = 0; p < u; p++) {");
    if (ui->Q == 1)
      ep(e, "Y0[o * u + p] = X0[o * %lld + first[%s]];", A, ordp);
    else
      ep(e, "memcpy(Y0 + (o * u + p) * %lld, X0 + (o * %lld + first[%s]) * %lld, %lld);", (long long)ui->Q, A,
         ordp, (long long)ui->Q, (long long)(ui->Q * (int64_t)dtype_size(dt)));
    ep(e, "}");
    ep(e, "}");
    ep(e, "}");
  }
  if (node_out(n, 1)) ep(e, "if (Y1) for (long long p = 0; p < u; p++) Y1[p] = first[%s];", ordp);
  if (node_out(n, 2)) ep(e, "if (Y2) for (long long i = 0; i < %lld; i++) Y2[i] = %s;", A, rankg);
  if (node_out(n, 3)) ep(e, "if (Y3) for (long long p = 0; p < u; p++) Y3[p] = cnt[%s];", ordp);
}

/* ---- NonMaxSuppression ----------------------------------------------------------------- */

static void nms_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 5);
  Value *boxes = n->inputs[0], *scores = n->inputs[1], *mo = node_in(n, 2);
  Value *iou = node_in(n, 3), *st = node_in(n, 4);
  if (!dtype_is_float(boxes->dtype)) fail_node(ctx, n, "boxes must be a float tensor");
  if (scores->dtype != boxes->dtype) fail_node(ctx, n, "scores and boxes have different element types");
  if (boxes->rank != 3 || boxes->dims[2] != 4) fail_node(ctx, n, "boxes must have shape [batches, boxes, 4]");
  if (scores->rank != 3 || scores->dims[0] != boxes->dims[0] || scores->dims[2] != boxes->dims[1])
    fail_node(ctx, n, "scores %s do not match boxes %s", shape_str(&ctx->arena, scores), shape_str(&ctx->arena, boxes));
  if (mo && (mo->dtype != DT_INT64 || value_numel(mo) != 1)) fail_node(ctx, n, "max_output_boxes_per_class must be one int64");
  if (iou && (iou->dtype != DT_FLOAT || value_numel(iou) != 1)) fail_node(ctx, n, "iou_threshold must be one float");
  if (st && (st->dtype != DT_FLOAT || value_numel(st) != 1)) fail_node(ctx, n, "score_threshold must be one float");
  int64_t cpb = attr_i(n, "center_point_box", 0);
  if (cpb != 0 && cpb != 1) fail_node(ctx, n, "center_point_box must be 0 or 1");
  int64_t N = boxes->dims[1], per = 0;
  if (mo) {
    per = N;
    if (mo->data) {
      int64_t m = const_get_i(mo, 0);
      per = m < 0 ? 0 : (m < N ? m : N);
    }
  }
  int64_t dims[2] = {boxes->dims[0] * scores->dims[1] * per, 3};
  value_set_shape(n->outputs[0], DT_INT64, 2, dims);
  n->outputs[0]->dynamic = dims[0] > 0;
}

static int64_t nms_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  return 3 * 8 * (n->inputs[0]->dims[1] + 1);
}

static void nms_emit(Emit *e, Node *n) {
  Value *boxes = n->inputs[0], *scores = n->inputs[1], *y = n->outputs[0];
  int dt = boxes->dtype, ct = dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT;
  const char *T = c_type(dt), *C = c_ctype(dt);
  long long Bn = (long long)boxes->dims[0], N = (long long)boxes->dims[1], Cn = (long long)scores->dims[1];
  bool cpb = attr_i(n, "center_point_box", 0) != 0;
  if (!y->dynamic) return; /* nothing can be selected */
  ep(e, "int64_t *const cand = (int64_t *)(void *)W, *const tmp = cand + %lld, *const sel = tmp + %lld;", N, N);
  ep(e, "long long nout = 0;");
  ep(e, "long long maxo = X2[0] < 0 ? 0 : (long long)X2[0];");
  ep(e, "const %s iou = %s;", C, node_in(n, 3) ? c_load(e, DT_FLOAT, "X3[0]") : c_lit(e, ct, 0));
  if (node_in(n, 4)) ep(e, "const %s sthr = X4[0];", C);
  ep(e, "for (long long bi = 0; bi < %lld; bi++) {", Bn);
  ep(e, "const %s *const bx = X0 + bi * %lld;", T, 4 * N);
  ep(e, "for (long long ci = 0; ci < %lld; ci++) {", Cn);
  ep(e, "const %s *const sc = X1 + (bi * %lld + ci) * %lld;", T, Cn, N);
  ep(e, "int64_t *pa = cand, *pb = tmp;");
  ep(e, "long long nc = 0, ns = 0;");
  if (node_in(n, 4)) ep(e, "for (long long i = 0; i < %lld; i++) if (%s > sthr) cand[nc++] = i;", N, c_load(e, dt, "sc[i]"));
  else ep(e, "for (long long i = 0; i < %lld; i++) cand[nc++] = i;", N);
  /* stable merge sort by descending score */
  ep(e, "for (long long w = 1; w < nc; w *= 2) {");
  ep(e, "for (long long lo = 0; lo < nc; lo += 2 * w) {");
  ep(e, "const long long mid = lo + w < nc ? lo + w : nc, hi = lo + 2 * w < nc ? lo + 2 * w : nc;");
  ep(e, "long long i = lo, j = mid, k = lo;");
  ep(e, "while (i < mid && j < hi) pb[k++] = %s < %s ? pa[j++] : pa[i++];", c_load(e, dt, "sc[pa[i]]"), c_load(e, dt, "sc[pa[j]]"));
  ep(e, "while (i < mid) pb[k++] = pa[i++];");
  ep(e, "while (j < hi) pb[k++] = pa[j++];");
  ep(e, "}");
  ep(e, "{");
  ep(e, "int64_t *sw = pa;");
  ep(e, "pa = pb;");
  ep(e, "pb = sw;");
  ep(e, "}");
  ep(e, "}");
  ep(e, "for (long long p = 0; p < nc && ns < maxo; p++) {");
  ep(e, "const long long cur = pa[p];");
  ep(e, "int keep = 1;");
  ep(e, "for (long long q = 0; q < ns && keep; q++) {");
  ep(e, "const %s *const b1 = bx + cur * 4, *const b2 = bx + sel[q] * 4;", T);
  const char *b10 = c_load(e, dt, "b1[0]"), *b11 = c_load(e, dt, "b1[1]"), *b12 = c_load(e, dt, "b1[2]"), *b13 = c_load(e, dt, "b1[3]");
  const char *b20 = c_load(e, dt, "b2[0]"), *b21 = c_load(e, dt, "b2[1]"), *b22 = c_load(e, dt, "b2[2]"), *b23 = c_load(e, dt, "b2[3]");
  ep(e, "%s x1min, x1max, x2min, x2max, y1min, y1max, y2min, y2max;", C);
  if (!cpb) {
    /* [y1, x1, y2, x2], corners in either order */
    ep(e, "x1min = %s < %s ? %s : %s;", b11, b13, b11, b13);
    ep(e, "x1max = %s < %s ? %s : %s;", b11, b13, b13, b11);
    ep(e, "x2min = %s < %s ? %s : %s;", b21, b23, b21, b23);
    ep(e, "x2max = %s < %s ? %s : %s;", b21, b23, b23, b21);
    ep(e, "y1min = %s < %s ? %s : %s;", b10, b12, b10, b12);
    ep(e, "y1max = %s < %s ? %s : %s;", b10, b12, b12, b10);
    ep(e, "y2min = %s < %s ? %s : %s;", b20, b22, b20, b22);
    ep(e, "y2max = %s < %s ? %s : %s;", b20, b22, b22, b20);
  } else {
    /* [x_center, y_center, width, height] */
    const char *two = c_lit(e, ct, 2);
    ep(e, "x1min = %s - %s / %s;", b10, b12, two);
    ep(e, "x1max = %s + %s / %s;", b10, b12, two);
    ep(e, "x2min = %s - %s / %s;", b20, b22, two);
    ep(e, "x2max = %s + %s / %s;", b20, b22, two);
    ep(e, "y1min = %s - %s / %s;", b11, b13, two);
    ep(e, "y1max = %s + %s / %s;", b11, b13, two);
    ep(e, "y2min = %s - %s / %s;", b21, b23, two);
    ep(e, "y2max = %s + %s / %s;", b21, b23, two);
  }
  ep(e, "{");
  ep(e, "const %s ixmin = x1min >= x2min ? x1min : x2min, ixmax = x1max <= x2max ? x1max : x2max;", C);
  ep(e, "const %s iymin = y1min >= y2min ? y1min : y2min, iymax = y1max <= y2max ? y1max : y2max;", C);
  ep(e, "if (ixmax > ixmin && iymax > iymin) {");
  ep(e, "const %s inter = (ixmax - ixmin) * (iymax - iymin);", C);
  ep(e, "const %s a1 = (x1max - x1min) * (y1max - y1min), a2 = (x2max - x2min) * (y2max - y2min);", C);
  ep(e, "const %s un = a1 + a2 - inter;", C);
  ep(e, "if (inter > 0 && a1 > 0 && a2 > 0 && un > 0 && inter / un > iou) keep = 0;");
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
  ep(e, "if (keep) {");
  ep(e, "sel[ns++] = cur;");
  ep(e, "if (Y0) {");
  ep(e, "Y0[nout * 3] = bi;");
  ep(e, "Y0[nout * 3 + 1] = ci;");
  ep(e, "Y0[nout * 3 + 2] = cur;");
  ep(e, "}");
  ep(e, "nout++;");
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
  ep(e, "D0[0] = nout;");
  ep(e, "D0[1] = 3;");
}

/* ---- rows ------------------------------------------------------------------------------ */

#define FT "float, double, float16, bfloat16"
#define AT "all but string"

static const OpDef seq_rows[] = {
    {"RNN", "", 1, ONNXC_MAX_OPSET, 0, rnn_infer, NULL, rnn_emit, rnn_scratch, FT, NULL},
    {"GRU", "", 1, ONNXC_MAX_OPSET, 0, rnn_infer, NULL, rnn_emit, rnn_scratch, FT, NULL},
    {"LSTM", "", 1, ONNXC_MAX_OPSET, 0, rnn_infer, NULL, rnn_emit, rnn_scratch, FT, NULL},
    {"NonZero", "", 9, ONNXC_MAX_OPSET, 0, nonzero_infer, nonzero_fold, nonzero_emit, NULL, AT, NULL},
    {"Compress", "", 9, ONNXC_MAX_OPSET, 0, compress_infer, compress_fold, compress_emit, NULL, AT, NULL},
    {"Unique", "", 11, ONNXC_MAX_OPSET, 0, unique_infer, unique_fold, unique_emit, unique_scratch, "all but string, bool", NULL},
    {"NonMaxSuppression", "", 10, ONNXC_MAX_OPSET, 0, nms_infer, NULL, nms_emit, nms_scratch, "float", NULL},
};
OPS_FAMILY(seq);
