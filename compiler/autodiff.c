/*
 * autodiff.c - the gradient graph: `onnxc --gradients --loss KIND:OUTPUT [--freeze NAMES]`.
 *
 * Runs after shape inference (every value has a static shape) and before dead-code removal.
 * The model becomes an ordinary one whose inputs are the model's inputs followed by `label`
 * (none for --loss output) and whose outputs are `loss` (a scalar) followed by `<init>_grad`
 * for every trainable initializer, in initializer order.
 *
 *   1. Trainable: floating-point initializers not named by --freeze.  A value depends on them
 *      (fwd) when a differentiable edge leads from one to it; it reaches the loss (bwd) when a
 *      differentiable edge leads from it to OUTPUT.  Stop-gradient edges: non-float values,
 *      shape/index/axes inputs, comparisons and rounding ops, running statistics (diff_mask()).
 *      Initializers with fwd && bwd get gradients; the others are constants as before.
 *   2. The loss: onnxc.grad::Loss(OUTPUT, label) -> (loss, dOUTPUT), or for KIND output a
 *      reshape of OUTPUT to a scalar with dOUTPUT = 1.
 *   3. Nodes are visited in reverse topological order.  A node with a gradient on some output
 *      and an input that needs one applies its rule (rules[]), which adds new IR nodes (standard
 *      ops where they fit, onnxc.grad ops from ops_grad.c otherwise); each new node goes through
 *      infer_node(), so it has a shape and folds when its inputs are constants.  Contributions of
 *      several consumers are summed (Sum); broadcasting is undone with ReduceSum over the
 *      broadcast axes and a Reshape.  A node on a needed path without a rule is an error.
 *
 * Values folded to constants during inference (e.g. a transposed weight) keep their producing
 * nodes in the list, so gradients flow back through them to the initializer.  New standard
 * nodes use opset 18 forms (axes and shapes as constant inputs) whatever the model's opset.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

#define GD "onnxc.grad"
#define STD_OPSET 18
#define LL(x) ((long long)(x))

typedef struct AD {
  Ctx *ctx;
  Graph *g;
  int nv;              /* values that existed when marking ran: the forward graph */
  bool *fwd, *bwd;     /* per forward value id */
  PtrVec *contrib;     /* per forward value id: gradient contributions */
  Node *cur;           /* forward node whose rule runs (names) */
  int tmp;
} AD;

/* ---- building nodes ------------------------------------------------------------------------ */

static Attr *attr_add(AD *ad, Node *n, const char *name, int type) { return node_add_attr(ad->ctx, n, name, type); }

static void set_i(AD *ad, Node *n, const char *name, int64_t v) { attr_add(ad, n, name, ATTR_INT)->i = v; }
static void set_f(AD *ad, Node *n, const char *name, float v) { attr_add(ad, n, name, ATTR_FLOAT)->f = v; }
static void set_s(AD *ad, Node *n, const char *name, const char *s) {
  Attr *a = attr_add(ad, n, name, ATTR_STRING);
  a->s = s;
  a->slen = strlen(s);
}
static void set_ints(AD *ad, Node *n, const char *name, int cnt, const int64_t *v) {
  Attr *a = attr_add(ad, n, name, ATTR_INTS);
  a->ints = arena_alloc(&ad->ctx->arena, sizeof(int64_t) * (size_t)(cnt + 1));
  if (cnt) memcpy(a->ints, v, sizeof(int64_t) * (size_t)cnt);
  a->n_ints = cnt;
}
static void copy_attrs(AD *ad, Node *dst, const Node *src) {
  for (int i = 0; i < src->n_attrs; i++) *attr_add(ad, dst, src->attrs[i].name, src->attrs[i].type) = src->attrs[i];
}

static Node *mk(AD *ad, const char *op, const char *domain, int nin, Value *const *ins, int nout) {
  const char *base = ad->cur ? ad->cur->name : "loss";
  const char *name = arena_printf(&ad->ctx->arena, "%s_grad_%s%d", *base ? base : "node", op, ++ad->tmp);
  Node *n = graph_new_node(ad->ctx, ad->g, op, name, nin, nout);
  n->domain = domain;
  n->opset = *domain ? 1 : STD_OPSET;
  for (int k = 0; k < nin; k++) n->inputs[k] = ins[k];
  return n;
}

/* Gives the node a fresh value for output k. */
static Value *out(AD *ad, Node *n, int k) {
  Value *v = graph_new_value(ad->ctx, ad->g, arena_printf(&ad->ctx->arena, "grad_t%d", ad->g->values.n));
  n->outputs[k] = v;
  return v;
}

/* Shape inference (and folding) of a finished node. */
static void done(AD *ad, Node *n) {
  for (int k = 0; k < n->n_outputs; k++)
    if (n->outputs[k]) n->outputs[k]->producer = n;
  infer_node(ad->ctx, n);
}

/* Standard op with one output. */
static Value *op(AD *ad, const char *type, int nin, Value *const *ins) {
  Node *n = mk(ad, type, "", nin, ins, 1);
  Value *v = out(ad, n, 0);
  done(ad, n);
  return v;
}
static Value *op1(AD *ad, const char *type, Value *a) { return op(ad, type, 1, &a); }
static Value *op2(AD *ad, const char *type, Value *a, Value *b) {
  Value *ins[2] = {a, b};
  return op(ad, type, 2, ins);
}

static Value *new_const(AD *ad, int dtype, int rank, const int64_t *dims) {
  Value *v = graph_new_value(ad->ctx, ad->g, arena_printf(&ad->ctx->arena, "grad_c%d", ad->g->values.n));
  value_set_shape(v, dtype, rank, dims);
  value_alloc_data(ad->ctx, v);
  return v;
}
static Value *c_ints(AD *ad, int cnt, const int64_t *vals) {
  int64_t d = cnt;
  Value *v = new_const(ad, DT_INT64, 1, &d);
  for (int i = 0; i < cnt; i++) const_set_i(v, i, vals[i]);
  return v;
}
static Value *c_scalar(AD *ad, int dtype, double x) {
  Value *v = new_const(ad, dtype, 0, NULL);
  const_set_f(v, 0, x);
  return v;
}
static Value *c_fill(AD *ad, int dtype, int rank, const int64_t *dims, double x) {
  Value *v = new_const(ad, dtype, rank, dims);
  for (int64_t i = 0; i < value_numel(v); i++) const_set_f(v, i, x);
  return v;
}

static Value *reshape_to(AD *ad, Value *x, int rank, const int64_t *dims) {
  if (x->rank == rank && !memcmp(x->dims, dims, sizeof(int64_t) * (size_t)rank)) return x;
  Value *ins[2] = {x, c_ints(ad, rank, dims)};
  Node *n = mk(ad, "Reshape", "", 2, ins, 1);
  set_i(ad, n, "allowzero", 1);
  Value *v = out(ad, n, 0);
  done(ad, n);
  return v;
}
static Value *reshape_like(AD *ad, Value *x, const Value *like) { return reshape_to(ad, x, like->rank, like->dims); }

static Value *transpose(AD *ad, Value *x, int rank, const int64_t *perm) {
  Node *n = mk(ad, "Transpose", "", 1, &x, 1);
  set_ints(ad, n, "perm", rank, perm);
  Value *v = out(ad, n, 0);
  done(ad, n);
  return v;
}
static Value *swap_last2(AD *ad, Value *x) {
  int64_t perm[ONNXC_MAX_RANK];
  for (int d = 0; d < x->rank; d++) perm[d] = d;
  perm[x->rank - 2] = x->rank - 1;
  perm[x->rank - 1] = x->rank - 2;
  return transpose(ad, x, x->rank, perm);
}

static Value *reduce_sum(AD *ad, Value *x, int na, const int64_t *axes, bool keep) {
  Value *ins[2] = {x, c_ints(ad, na, axes)};
  Node *n = mk(ad, "ReduceSum", "", 2, ins, 1);
  set_i(ad, n, "keepdims", keep);
  Value *v = out(ad, n, 0);
  done(ad, n);
  return v;
}

static Value *expand_to(AD *ad, Value *x, const Value *like) {
  if (same_shape(x, like)) return x;
  return op2(ad, "Expand", x, c_ints(ad, like->rank, like->dims));
}

/* Sums a gradient of the broadcast result down to the shape of `target`. */
static Value *unbroadcast(AD *ad, Value *g, const Value *target) {
  if (same_shape(g, target)) return g;
  int r = g->rank, tr = target->rank, na = 0;
  int64_t axes[ONNXC_MAX_RANK];
  for (int d = 0; d < r; d++) {
    int td = d - (r - tr);
    if (td < 0 || (target->dims[td] == 1 && g->dims[d] != 1)) axes[na++] = d;
  }
  Value *s = na ? reduce_sum(ad, g, na, axes, true) : g;
  return reshape_like(ad, s, target);
}

static Value *slice(AD *ad, Value *x, int na, const int64_t *starts, const int64_t *ends, const int64_t *axes) {
  Value *ins[4] = {x, c_ints(ad, na, starts), c_ints(ad, na, ends), c_ints(ad, na, axes)};
  return op(ad, "Slice", 4, ins);
}

static Value *ewg(AD *ad, const Node *fw, const char *opname, Value *dy, Value *x, Value *y, Value *lo, Value *hi) {
  Value *ins[5] = {dy, x, y, lo, hi};
  Node *n = mk(ad, "ElementwiseGrad", GD, 5, ins, 1);
  copy_attrs(ad, n, fw);
  set_s(ad, n, "op", opname);
  Value *v = out(ad, n, 0);
  done(ad, n);
  return v;
}

/* ---- gradient rules -------------------------------------------------------------------------- */

/* dy[k]: gradient of output k (NULL: none); want[k]: input k needs one; set dx[k]. */
typedef void (*RuleFn)(AD *ad, Node *n, Value **dy, const bool *want, Value **dx);

static Value *in(const Node *n, int k) { return node_in(n, k); }

static bool is_rnn(const Node *n) {
  return !*n->domain && (!strcmp(n->op_type, "LSTM") || !strcmp(n->op_type, "GRU") || !strcmp(n->op_type, "RNN"));
}

/* Input k of n as the model gave it.  The recurrent ops' shape rule replaces constant W and R
   by transposed copies named "<W>_transposed" ([D][K][G*H], or flat and padded for the float
   input-projection GEMM); gradients belong to the original
   ([D][G*H][K]), found by that name and shape. */
static Value *orig_in(const AD *ad, const Node *n, int k) {
  Value *v = node_in(n, k);
  if (!v || (k != 1 && k != 2) || !is_rnn(n) || !v->data || v->producer || (v->rank != 3 && v->rank != 1)) return v;
  size_t len = strlen(v->name), sl = strlen("_transposed");
  if (len <= sl || strcmp(v->name + len - sl, "_transposed")) return v;
  for (int i = 0; i < ad->g->values.n; i++) {
    Value *u = ad->g->values.v[i];
    if (u == v || !u->data || u->rank != 3 || strlen(u->name) != len - sl || strncmp(u->name, v->name, len - sl)) continue;
    /* [D][K][GH] of [D][GH][K], or (the GEMM input projection) flat and padded */
    if (v->rank == 3 ? u->dims[0] == v->dims[0] && u->dims[1] == v->dims[2] && u->dims[2] == v->dims[1]
                     : value_numel(u) < value_numel(v))
      return u;
  }
  return v;
}

static void r_identity(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  (void)ad;
  if (want[0]) dx[0] = dy[0];
  (void)n;
}

static void r_reshape(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  if (want[0]) dx[0] = reshape_like(ad, dy[0], in(n, 0));
}

static void r_add(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  bool sub = !strcmp(n->op_type, "Sub");
  for (int k = 0; k < 2; k++)
    if (want[k]) {
      Value *g = unbroadcast(ad, dy[0], in(n, k));
      dx[k] = sub && k == 1 ? op1(ad, "Neg", g) : g;
    }
}

static void r_sum(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  Value *g = dy[0];
  if (!strcmp(n->op_type, "Mean")) g = op2(ad, "Mul", g, c_scalar(ad, g->dtype, 1.0 / n->n_inputs));
  for (int k = 0; k < n->n_inputs; k++)
    if (want[k]) dx[k] = unbroadcast(ad, g, in(n, k));
}

static void r_mul(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  for (int k = 0; k < 2; k++)
    if (want[k]) dx[k] = unbroadcast(ad, op2(ad, "Mul", dy[0], in(n, 1 - k)), in(n, k));
}

static void r_div(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  Value *a = in(n, 0), *b = in(n, 1), *y = n->outputs[0];
  if (want[0]) dx[0] = unbroadcast(ad, op2(ad, "Div", dy[0], b), a);
  if (want[1]) /* d/db a/b = -y/b */
    dx[1] = op1(ad, "Neg", unbroadcast(ad, op2(ad, "Div", op2(ad, "Mul", dy[0], y), b), b));
}

static void r_pow(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  Value *a = in(n, 0), *b = in(n, 1), *y = n->outputs[0];
  Value *bf = b;
  if (b->dtype != a->dtype) {
    Node *c = mk(ad, "Cast", "", 1, &b, 1);
    set_i(ad, c, "to", a->dtype);
    bf = out(ad, c, 0);
    done(ad, c);
  }
  if (want[0]) {
    Value *t;
    if (bf->data && value_numel(bf) == 1 && const_get_f(bf, 0) == 2.0)
      t = op2(ad, "Mul", a, c_scalar(ad, a->dtype, 2.0));
    else
      t = op2(ad, "Mul", op2(ad, "Pow", a, op2(ad, "Sub", bf, c_scalar(ad, a->dtype, 1.0))), bf);
    dx[0] = unbroadcast(ad, op2(ad, "Mul", dy[0], t), a);
  }
  if (want[1]) dx[1] = unbroadcast(ad, op2(ad, "Mul", op2(ad, "Mul", dy[0], y), op1(ad, "Log", a)), b);
}

static void r_neg(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  (void)n;
  if (want[0]) dx[0] = op1(ad, "Neg", dy[0]);
}

/* Unary elementwise ops through onnxc.grad::ElementwiseGrad: which of X / Y the rule reads. */
static void r_unary(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  if (!want[0]) return;
  static const char *const use_y[] = {"Relu", "Sigmoid", "Tanh", "Exp", "Sqrt", "Reciprocal", NULL};
  bool y = false;
  for (int i = 0; use_y[i]; i++) y |= !strcmp(n->op_type, use_y[i]);
  Value *lo = NULL, *hi = NULL;
  if (!strcmp(n->op_type, "Clip") && n->opset >= 11) {
    lo = in(n, 1);
    hi = in(n, 2);
  }
  dx[0] = ewg(ad, n, n->op_type, dy[0], y ? NULL : in(n, 0), y ? n->outputs[0] : NULL, lo, hi);
}

static void r_cast(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  if (!want[0]) return;
  Value *g = dy[0];
  if (g->dtype == in(n, 0)->dtype) { dx[0] = g; return; }
  Node *c = mk(ad, "Cast", "", 1, &g, 1);
  set_i(ad, c, "to", in(n, 0)->dtype);
  dx[0] = out(ad, c, 0);
  done(ad, c);
}

static void r_dropout(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  if (!want[0]) return;
  bool train = false;
  double ratio = attr_f(n, "ratio", 0.5f);
  if (n->opset >= 12) {
    Value *r = in(n, 1), *t = in(n, 2);
    if (r && r->data) ratio = const_get_f(r, 0);
    else if (r) fail_node(ad->ctx, n, "gradient of Dropout needs a constant ratio");
    if (t && !t->data) fail_node(ad->ctx, n, "gradient of Dropout needs a constant training_mode");
    train = t && const_get_i(t, 0) != 0 && ratio > 0;
  }
  if (!train) { dx[0] = dy[0]; return; }
  Value *mask = node_out(n, 1);
  if (!mask) fail_node(ad->ctx, n, "gradient of training-mode Dropout needs its mask output");
  Node *c = mk(ad, "Cast", "", 1, &mask, 1);
  set_i(ad, c, "to", dy[0]->dtype);
  Value *m = out(ad, c, 0);
  done(ad, c);
  dx[0] = op2(ad, "Mul", op2(ad, "Mul", dy[0], m), c_scalar(ad, dy[0]->dtype, 1.0 / (1.0 - ratio)));
}

static void r_where(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  Value *zero = c_scalar(ad, dy[0]->dtype, 0);
  for (int k = 1; k < 3; k++)
    if (want[k]) {
      Value *ins[3] = {in(n, 0), k == 1 ? dy[0] : zero, k == 1 ? zero : dy[0]};
      dx[k] = unbroadcast(ad, op(ad, "Where", 3, ins), in(n, k));
    }
}

static void r_expand(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  if (want[0]) dx[0] = unbroadcast(ad, dy[0], in(n, 0));
}

static void r_transpose(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  if (!want[0]) return;
  int r = in(n, 0)->rank;
  const int64_t *p;
  int np = attr_ints(n, "perm", &p);
  int64_t inv[ONNXC_MAX_RANK];
  for (int d = 0; d < r; d++) {
    int64_t pd = np ? p[d] : r - 1 - d;
    if (pd < 0) pd += r;
    inv[pd] = d;
  }
  dx[0] = transpose(ad, dy[0], r, inv);
}

static void r_concat(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  Value *y = n->outputs[0];
  int axis = norm_axis(ad->ctx, n, attr_i(n, "axis", 0), y->rank);
  int64_t off = 0;
  for (int k = 0; k < n->n_inputs; k++) {
    Value *x = in(n, k);
    if (!x) continue;
    int64_t len = x->dims[axis], st = off, en = off + len, ax = axis;
    if (want[k]) dx[k] = slice(ad, dy[0], 1, &st, &en, &ax);
    off += len;
  }
}

static void r_split(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  if (!want[0]) return;
  Value *x = in(n, 0);
  int axis = norm_axis(ad->ctx, n, attr_i(n, "axis", 0), x->rank);
  Value **parts = arena_alloc(&ad->ctx->arena, sizeof(Value *) * (size_t)(n->n_outputs + 1));
  for (int k = 0; k < n->n_outputs; k++) {
    Value *o = n->outputs[k];
    CHECK(o);
    parts[k] = dy[k] ? dy[k] : c_fill(ad, x->dtype, o->rank, o->dims, 0);
  }
  Node *c = mk(ad, "Concat", "", n->n_outputs, parts, 1);
  set_i(ad, c, "axis", axis);
  dx[0] = out(ad, c, 0);
  done(ad, c);
}

/* Slice: starts and steps per axis, normalized as the forward shape rule does. */
static void r_slice(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  if (!want[0]) return;
  Ctx *ctx = ad->ctx;
  Value *x = in(n, 0);
  int r = x->rank, ns;
  int64_t st[ONNXC_MAX_RANK * 2], ax[ONNXC_MAX_RANK * 2], sp[ONNXC_MAX_RANK * 2];
  if (n->opset < 10) {
    const int64_t *a, *b;
    ns = attr_ints(n, "starts", &a);
    int na = attr_ints(n, "axes", &b);
    for (int i = 0; i < ns && i < 2 * ONNXC_MAX_RANK; i++) { st[i] = a[i]; ax[i] = na ? b[i] : i; sp[i] = 1; }
  } else {
    Value *vs = node_const_in(ctx, n, 1, "starts"), *va = in(n, 3), *vp = in(n, 4);
    if ((va && !va->data) || (vp && !vp->data)) fail_node(ctx, n, "gradient of Slice needs constant axes and steps");
    ns = (int)value_numel(vs);
    for (int i = 0; i < ns && i < 2 * ONNXC_MAX_RANK; i++) {
      st[i] = const_get_i(vs, i);
      ax[i] = va ? const_get_i(va, i) : i;
      sp[i] = vp ? const_get_i(vp, i) : 1;
    }
  }
  if (ns > 2 * ONNXC_MAX_RANK) fail_node(ctx, n, "too many slice axes");
  int64_t start[ONNXC_MAX_RANK], step[ONNXC_MAX_RANK];
  for (int d = 0; d < r; d++) { start[d] = 0; step[d] = 1; }
  for (int i = 0; i < ns; i++) {
    int a = norm_axis(ctx, n, ax[i], r);
    int64_t dn = x->dims[a], s = st[i], k = sp[i];
    if (s < 0) s += dn;
    if (k > 0) s = s < 0 ? 0 : s > dn ? dn : s;
    else s = s < 0 ? -1 : s > dn - 1 ? dn - 1 : s;
    start[a] = dy[0]->dims[a] ? s : 0;
    step[a] = k;
  }
  Node *g = mk(ad, "SliceGrad", GD, 1, &dy[0], 1);
  set_ints(ad, g, "shape", r, x->dims);
  set_ints(ad, g, "starts", r, start);
  set_ints(ad, g, "steps", r, step);
  dx[0] = out(ad, g, 0);
  done(ad, g);
}

static void r_gather(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  if (!want[0]) return;
  Value *x = in(n, 0);
  Value *ins[2] = {dy[0], in(n, 1)};
  Node *g = mk(ad, "GatherGrad", GD, 2, ins, 1);
  set_i(ad, g, "axis", norm_axis(ad->ctx, n, attr_i(n, "axis", 0), x->rank));
  set_ints(ad, g, "shape", x->rank, x->dims);
  dx[0] = out(ad, g, 0);
  done(ad, g);
}

static void r_pad(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  if (!want[0]) return;
  Ctx *ctx = ad->ctx;
  Value *x = in(n, 0);
  int r = x->rank;
  const char *mode = attr_s(n, "mode", "constant");
  if (strcmp(mode, "constant")) fail_node(ctx, n, "no gradient rule for Pad mode '%s' (only constant)", mode);
  int64_t pads[2 * ONNXC_MAX_RANK] = {0}, raw[2 * ONNXC_MAX_RANK], axes[ONNXC_MAX_RANK];
  int np, na = r;
  if (n->opset < 11) {
    const int64_t *p;
    np = attr_ints(n, n->opset < 2 ? "paddings" : "pads", &p);
    if (np > 2 * r) fail_node(ctx, n, "too many pads");
    for (int i = 0; i < np; i++) raw[i] = p[i];
  } else {
    Value *vp = node_const_in(ctx, n, 1, "pads");
    np = (int)value_numel(vp);
    if (np > 2 * r) fail_node(ctx, n, "too many pads");
    for (int i = 0; i < np; i++) raw[i] = const_get_i(vp, i);
    Value *va = in(n, 3);
    if (va) {
      va = node_const_in(ctx, n, 3, "axes");
      na = (int)value_numel(va);
      for (int i = 0; i < na; i++) axes[i] = norm_axis(ctx, n, const_get_i(va, i), r);
    }
  }
  if (na == r && !in(n, 3))
    for (int i = 0; i < r; i++) axes[i] = i;
  if (np != 2 * na) fail_node(ctx, n, "pads has %d values for %d axes", np, na);
  for (int i = 0; i < na; i++) {
    pads[axes[i]] = raw[i];
    pads[axes[i] + r] = raw[i + na];
  }
  int64_t st[ONNXC_MAX_RANK], en[ONNXC_MAX_RANK], ax[ONNXC_MAX_RANK];
  for (int d = 0; d < r; d++) {
    if (pads[d] < 0 || pads[d + r] < 0) fail_node(ctx, n, "no gradient rule for Pad with negative pads");
    st[d] = pads[d];
    en[d] = pads[d] + x->dims[d];
    ax[d] = d;
  }
  dx[0] = slice(ad, dy[0], r, st, en, ax);
}

/* ReduceSum / ReduceMean: reshape to the kept-dims shape, scale, expand back. */
static void r_reduce(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  if (!want[0]) return;
  Ctx *ctx = ad->ctx;
  Value *x = in(n, 0);
  bool mean = !strcmp(n->op_type, "ReduceMean");
  int since = mean ? 18 : 13, na = 0;
  int64_t axes[ONNXC_MAX_RANK * 2];
  bool noop = false;
  if (n->opset >= since) {
    noop = attr_i(n, "noop_with_empty_axes", 0) != 0;
    Value *a = in(n, 1);
    if (a) {
      a = node_const_in(ctx, n, 1, "axes");
      na = (int)value_numel(a);
      if (na > 2 * ONNXC_MAX_RANK) fail_node(ctx, n, "too many axes");
      for (int i = 0; i < na; i++) axes[i] = const_get_i(a, i);
    }
  } else {
    const int64_t *av;
    na = attr_ints(n, "axes", &av);
    if (na > 2 * ONNXC_MAX_RANK) fail_node(ctx, n, "too many axes");
    for (int i = 0; i < na; i++) axes[i] = av[i];
  }
  if (na == 0 && noop) { dx[0] = dy[0]; return; }
  bool red[ONNXC_MAX_RANK] = {false};
  for (int d = 0; d < x->rank; d++) red[d] = na == 0;
  for (int i = 0; i < na; i++) red[norm_axis(ctx, n, axes[i], x->rank)] = true;
  int64_t kd[ONNXC_MAX_RANK] = {0}, cnt = 1;
  for (int d = 0; d < x->rank; d++) {
    kd[d] = red[d] ? 1 : x->dims[d];
    if (red[d]) cnt *= x->dims[d];
  }
  Value *g = reshape_to(ad, dy[0], x->rank, kd);
  if (mean && cnt != 1) g = op2(ad, "Mul", g, c_scalar(ad, g->dtype, 1.0 / (double)cnt));
  dx[0] = expand_to(ad, g, x);
}

static void r_gap(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  if (!want[0]) return;
  Value *x = in(n, 0);
  int64_t S = 1;
  for (int d = 2; d < x->rank; d++) S *= x->dims[d];
  Value *g = S == 1 ? dy[0] : op2(ad, "Mul", dy[0], c_scalar(ad, dy[0]->dtype, 1.0 / (double)S));
  dx[0] = expand_to(ad, g, x);
}

static void r_softmax(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  if (!want[0]) return;
  bool legacy = n->opset < 13;
  Value *ins[2] = {dy[0], n->outputs[0]};
  Node *g = mk(ad, "SoftmaxGrad", GD, 2, ins, 1);
  set_i(ad, g, "axis", attr_i(n, "axis", legacy ? 1 : -1));
  set_i(ad, g, "legacy", legacy);
  set_i(ad, g, "log", !strcmp(n->op_type, "LogSoftmax"));
  dx[0] = out(ad, g, 0);
  done(ad, g);
}

/* Gemm: Y = alpha A' B' + beta C with A' = op(A), B' = op(B). */
static void r_gemm(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  Value *a = in(n, 0), *b = in(n, 1), *c = in(n, 2), *g = dy[0];
  int64_t ta = attr_i(n, "transA", 0) != 0, tb = attr_i(n, "transB", 0) != 0;
  float alpha = attr_f(n, "alpha", 1.0f), beta = attr_f(n, "beta", 1.0f);
  if (want[0]) { /* dA' = alpha g B'^T */
    Value *ins[2] = {ta ? b : g, ta ? g : b};
    Node *m = mk(ad, "Gemm", "", 2, ins, 1);
    if (ta) { set_i(ad, m, "transA", tb); set_i(ad, m, "transB", 1); }
    else set_i(ad, m, "transB", !tb);
    set_f(ad, m, "alpha", alpha);
    dx[0] = out(ad, m, 0);
    done(ad, m);
  }
  if (want[1]) { /* dB' = alpha A'^T g */
    Value *ins[2] = {tb ? g : a, tb ? a : g};
    Node *m = mk(ad, "Gemm", "", 2, ins, 1);
    if (tb) { set_i(ad, m, "transA", 1); set_i(ad, m, "transB", ta); }
    else set_i(ad, m, "transA", !ta);
    set_f(ad, m, "alpha", alpha);
    dx[1] = out(ad, m, 0);
    done(ad, m);
  }
  if (c && want[2]) {
    Value *gc = beta == 1.0f ? g : op2(ad, "Mul", g, c_scalar(ad, g->dtype, beta));
    dx[2] = unbroadcast(ad, gc, c);
  }
}

/* MatMul with numpy semantics: 1-D operands are promoted, batch dims broadcast. */
static void r_matmul(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  Value *a = in(n, 0), *b = in(n, 1), *g = dy[0];
  int64_t K = a->dims[a->rank - 1], M = a->rank == 1 ? 1 : a->dims[a->rank - 2];
  int64_t N = b->rank == 1 ? 1 : b->dims[b->rank - 1];
  /* g with the M and N dims restored: [batch..., M, N] */
  int64_t gd[ONNXC_MAX_RANK];
  int gr = 0, nb = g->rank - (a->rank > 1) - (b->rank > 1);
  for (int d = 0; d < nb; d++) gd[gr++] = g->dims[d];
  gd[gr++] = M;
  gd[gr++] = N;
  Value *g2 = reshape_to(ad, g, gr, gd);
  if (want[0]) {
    Value *b2 = b;
    if (b->rank == 1) { int64_t bd[2] = {K, 1}; b2 = reshape_to(ad, b, 2, bd); }
    Value *da = op2(ad, "MatMul", g2, swap_last2(ad, b2)); /* [batch..., M, K] */
    if (a->rank == 1) {
      int64_t ad2[2] = {1, K};
      Value tmp = {0};
      value_set_shape(&tmp, a->dtype, 2, ad2);
      da = unbroadcast(ad, da, &tmp);
    } else {
      da = unbroadcast(ad, da, a);
    }
    dx[0] = reshape_like(ad, da, a);
  }
  if (want[1]) {
    if (a->rank >= 2 && b->rank <= 2) {
      /* rows of A against rows of g: one GEMM over the flattened batch */
      int64_t rows = value_numel(a) / (K ? K : 1), ad2[2] = {rows, K}, gd2[2] = {rows, N};
      Value *ins[2] = {reshape_to(ad, a, 2, ad2), reshape_to(ad, g2, 2, gd2)};
      Node *m = mk(ad, "Gemm", "", 2, ins, 1);
      set_i(ad, m, "transA", 1);
      Value *db = out(ad, m, 0);
      done(ad, m);
      dx[1] = reshape_like(ad, db, b);
    } else {
      Value *a2 = a;
      if (a->rank == 1) { int64_t ad2[2] = {1, K}; a2 = reshape_to(ad, a, 2, ad2); }
      Value *db = op2(ad, "MatMul", swap_last2(ad, a2), g2); /* [batch..., K, N] */
      if (b->rank == 1) {
        int64_t bd2[2] = {K, 1};
        Value tmp = {0};
        value_set_shape(&tmp, b->dtype, 2, bd2);
        db = unbroadcast(ad, db, &tmp);
      } else {
        db = unbroadcast(ad, db, b);
      }
      dx[1] = reshape_like(ad, db, b);
    }
  }
}

static void r_conv(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  Value *x = in(n, 0), *w = in(n, 1);
  bool wx = want[0], ww = want[1], wb = in(n, 2) && want[2];
  if (!wx && !ww && !wb) return;
  Value *ins[3] = {dy[0], ww ? x : NULL, wx ? w : NULL};
  Node *g = mk(ad, "ConvGrad", GD, 3, ins, 3);
  copy_attrs(ad, g, n);
  set_ints(ad, g, "x_shape", x->rank, x->dims);
  set_ints(ad, g, "w_shape", w->rank, w->dims);
  Value *o0 = wx ? out(ad, g, 0) : NULL, *o1 = ww ? out(ad, g, 1) : NULL, *o2 = wb ? out(ad, g, 2) : NULL;
  done(ad, g);
  dx[0] = o0;
  dx[1] = o1;
  if (wb) dx[2] = reshape_like(ad, o2, in(n, 2));
}

/* ConvTranspose is the adjoint of a Conv with its weights, strides, dilations, groups and begin
   pads: dX = Conv(dY, W) (the end pads make its output X's size), dW = the weight gradient of
   that Conv with dY as its input and X as its output gradient (ConvGrad), dB = dY summed over
   all axes but the channels. */
static void r_convt(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  Value *x = in(n, 0), *w = in(n, 1), *g = dy[0];
  bool wx = want[0], ww = want[1], wb = in(n, 2) && want[2];
  if (!wx && !ww && !wb) return;
  int64_t pb[ONNXC_MAX_RANK], pads[2 * ONNXC_MAX_RANK], s[ONNXC_MAX_RANK], d[ONNXC_MAX_RANK], axes[ONNXC_MAX_RANK];
  int r = convt_begin_pads(ad->ctx, n, pb);
  const int64_t *a;
  int na = attr_ints(n, "strides", &a);
  for (int i = 0; i < r; i++) s[i] = na == r ? a[i] : 1;
  na = attr_ints(n, "dilations", &a);
  for (int i = 0; i < r; i++) d[i] = na == r ? a[i] : 1;
  for (int i = 0; i < r; i++) {
    int64_t ek = (w->dims[i + 2] - 1) * d[i] + 1, pe = s[i] * (x->dims[i + 2] - 1) + ek - g->dims[i + 2] - pb[i];
    /* pe < 0: output_padding adds outputs past the last tap, which the Conv's rounding down
       skips when fewer than a stride */
    if (pb[i] < 0 || pe <= -s[i])
      fail_node(ad->ctx, n, "no gradient rule for ConvTranspose whose output reaches beyond the taps of its input "
                            "(negative implied pads)");
    pads[i] = pb[i];
    pads[i + r] = pe < 0 ? 0 : pe;
  }
  int64_t group = attr_i(n, "group", 1);
  if (wx) {
    Value *ins[2] = {g, w};
    Node *c = mk(ad, "Conv", "", 2, ins, 1);
    set_ints(ad, c, "strides", r, s);
    set_ints(ad, c, "dilations", r, d);
    set_ints(ad, c, "pads", 2 * r, pads);
    set_i(ad, c, "group", group);
    dx[0] = out(ad, c, 0);
    done(ad, c);
  }
  if (ww) {
    Value *ins[3] = {x, g, NULL};
    Node *c = mk(ad, "ConvGrad", GD, 3, ins, 3);
    set_ints(ad, c, "strides", r, s);
    set_ints(ad, c, "dilations", r, d);
    set_ints(ad, c, "pads", 2 * r, pads);
    set_i(ad, c, "group", group);
    set_ints(ad, c, "x_shape", g->rank, g->dims);
    set_ints(ad, c, "w_shape", w->rank, w->dims);
    dx[1] = out(ad, c, 1);
    done(ad, c);
  }
  if (wb) {
    axes[0] = 0;
    for (int i = 0; i < r; i++) axes[i + 1] = i + 2;
    dx[2] = reshape_like(ad, reduce_sum(ad, g, r + 1, axes, false), in(n, 2));
  }
}

static void r_pool(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  if (!want[0]) return;
  Value *x = in(n, 0);
  bool mx = !strcmp(n->op_type, "MaxPool");
  Value *ins[2] = {dy[0], mx ? x : NULL};
  Node *g = mk(ad, "PoolGrad", GD, 2, ins, 1);
  copy_attrs(ad, g, n);
  set_s(ad, g, "mode", mx ? "max" : "avg");
  set_ints(ad, g, "x_shape", x->rank, x->dims);
  dx[0] = out(ad, g, 0);
  done(ad, g);
}

static void r_batchnorm(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  for (int k = 1; k < n->n_outputs; k++)
    if (dy[k]) fail_node(ad->ctx, n, "no gradient rule for the running statistics outputs of BatchNormalization");
  if (n->opset < 9 && attr_i(n, "spatial", 1) == 0) fail_node(ad->ctx, n, "no gradient rule for BatchNormalization with spatial=0");
  bool train = bn_training_mode(n);
  Value *ins[5] = {dy[0], in(n, 0), in(n, 1), train ? NULL : in(n, 3), train ? NULL : in(n, 4)};
  Node *g = mk(ad, "BatchNormGrad", GD, 5, ins, 3);
  set_f(ad, g, "epsilon", attr_f(n, "epsilon", 1e-5f));
  set_i(ad, g, "training", train);
  Value *o[3] = {NULL, NULL, NULL};
  for (int k = 0; k < 3; k++)
    if (want[k]) o[k] = out(ad, g, k);
  done(ad, g);
  for (int k = 0; k < 3; k++)
    if (want[k]) dx[k] = reshape_like(ad, o[k], in(n, k));
}

static void r_layernorm(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  for (int k = 1; k < n->n_outputs; k++)
    if (dy[k]) fail_node(ad->ctx, n, "no gradient rule for the Mean/InvStdDev outputs of LayerNormalization");
  Value *ins[3] = {dy[0], in(n, 0), in(n, 1)};
  Node *g = mk(ad, "LayerNormGrad", GD, 3, ins, 3);
  set_i(ad, g, "axis", attr_i(n, "axis", -1));
  set_f(ad, g, "epsilon", attr_f(n, "epsilon", 1e-5f));
  Value *bias = in(n, 2);
  if (bias) set_ints(ad, g, "bias_shape", bias->rank, bias->dims);
  Value *o[3] = {NULL, NULL, NULL};
  for (int k = 0; k < 3; k++)
    if (want[k] && in(n, k)) o[k] = out(ad, g, k);
  done(ad, g);
  for (int k = 0; k < 3; k++) dx[k] = o[k];
}

/* LSTM, GRU, RNN: <op>Grad(forward inputs..., dY, dY_h[, dY_c]) -> gradients of X, W, R, B,
   initial_h[, initial_c, P] (ops_grad.c). */
static void r_recurrent(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  bool lstm = !strcmp(n->op_type, "LSTM");
  int nfw = lstm ? 8 : 6, nout = lstm ? 7 : 5, ndy = lstm ? 3 : 2;
  Value *ins[11];
  for (int k = 0; k < nfw; k++) ins[k] = k < n->n_explicit ? orig_in(ad, n, k) : NULL;
  for (int k = 0; k < ndy; k++) ins[nfw + k] = k < n->n_outputs ? dy[k] : NULL;
  Node *g = mk(ad, arena_printf(&ad->ctx->arena, "%sGrad", n->op_type), GD, nfw + ndy, ins, nout);
  copy_attrs(ad, g, n);
  static const int src[7] = {0, 1, 2, 3, 5, 6, 7};
  for (int k = 0; k < nout; k++)
    if (src[k] < n->n_inputs && want[src[k]]) out(ad, g, k);
  done(ad, g);
  for (int k = 0; k < nout; k++)
    if (g->outputs[k]) dx[src[k]] = g->outputs[k];
}

/* A custom op: its user-written backward (ops_custom.c), over the forward values the spec's
   backward= mode names and the output gradients that exist (the others are passed as NULL). */
static void r_custom(AD *ad, Node *n, Value **dy, const bool *want, Value **dx) {
  const CustomOp *op = custom_op_of(n);
  if (op->backward == CUSTOM_BWD_NONE)
    fail_node(ad->ctx, n, "custom op %s::%s has no backward (add backward=inputs|outputs|all to its --custom-op spec "
              "and write %s_backward, or --freeze the initializers before it)", op->domain, op->op, op->cname);
  int ni = n->n_inputs, no = op->n_outputs;
  bool rx = op->backward & CUSTOM_BWD_INPUTS, ry = op->backward & CUSTOM_BWD_OUTPUTS;
  Value **ins = arena_alloc(&ad->ctx->arena, sizeof(Value *) * (size_t)(ni + 2 * no));
  for (int k = 0; k < ni; k++) ins[k] = rx ? n->inputs[k] : NULL;
  for (int k = 0; k < no && k < n->n_outputs; k++) {
    ins[ni + k] = ry ? n->outputs[k] : NULL;
    ins[ni + no + k] = dy[k];
  }
  Node *g = mk(ad, "CustomGrad", GD, ni + 2 * no, ins, ni);
  copy_attrs(ad, g, n);
  custom_grad_link(g, n);
  for (int k = 0; k < ni; k++)
    if (want[k]) out(ad, g, k);
  done(ad, g);
  for (int k = 0; k < ni; k++)
    if (want[k]) dx[k] = g->outputs[k];
}

typedef struct Rule { const char *op; RuleFn fn; } Rule;

static const Rule rules[] = {
    {"Identity", r_identity}, {"Dropout", r_dropout}, {"Cast", r_cast}, {"CastLike", r_cast},
    {"Reshape", r_reshape}, {"Flatten", r_reshape}, {"Squeeze", r_reshape}, {"Unsqueeze", r_reshape},
    {"Add", r_add}, {"Sub", r_add}, {"Sum", r_sum}, {"Mean", r_sum}, {"Mul", r_mul}, {"Div", r_div},
    {"Pow", r_pow}, {"Neg", r_neg},
    {"Relu", r_unary}, {"LeakyRelu", r_unary}, {"Sigmoid", r_unary}, {"Tanh", r_unary}, {"Exp", r_unary},
    {"Log", r_unary}, {"Sqrt", r_unary}, {"Reciprocal", r_unary}, {"Erf", r_unary}, {"Abs", r_unary},
    {"Softplus", r_unary}, {"Softsign", r_unary}, {"Elu", r_unary}, {"HardSwish", r_unary},
    {"HardSigmoid", r_unary}, {"Clip", r_unary}, {"Gelu", r_unary},
    {"Where", r_where}, {"Expand", r_expand}, {"Transpose", r_transpose}, {"Concat", r_concat},
    {"Split", r_split}, {"Slice", r_slice}, {"Gather", r_gather}, {"Pad", r_pad},
    {"ReduceSum", r_reduce}, {"ReduceMean", r_reduce}, {"GlobalAveragePool", r_gap},
    {"Softmax", r_softmax}, {"LogSoftmax", r_softmax}, {"Gemm", r_gemm}, {"MatMul", r_matmul},
    {"Conv", r_conv}, {"ConvTranspose", r_convt}, {"MaxPool", r_pool}, {"AveragePool", r_pool},
    {"BatchNormalization", r_batchnorm}, {"LayerNormalization", r_layernorm}, {"LSTM", r_recurrent},
    {"GRU", r_recurrent}, {"RNN", r_recurrent},
};

static RuleFn find_rule(const Node *n) {
  if (custom_op_of(n)) return r_custom;
  if (*n->domain) return NULL;
  for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
    if (!strcmp(rules[i].op, n->op_type)) return rules[i].fn;
  return NULL;
}

/* ---- which edges carry gradients ---------------------------------------------------------- */

typedef struct Mask { const char *op; unsigned mask; } Mask;

/* Inputs (bit k = input k) through which a gradient flows; ops not listed: every input. */
static const Mask masks[] = {
    {"Reshape", 1}, {"Flatten", 1}, {"Squeeze", 1}, {"Unsqueeze", 1}, {"Expand", 1}, {"Tile", 1},
    {"Slice", 1}, {"Gather", 1}, {"GatherElements", 1}, {"GatherND", 1}, {"Pad", 1}, {"Split", 1},
    {"Transpose", 1}, {"ReduceSum", 1}, {"ReduceMean", 1}, {"ReduceMax", 1}, {"ReduceMin", 1},
    {"ReduceProd", 1}, {"ReduceL1", 1}, {"ReduceL2", 1}, {"ReduceLogSum", 1}, {"ReduceLogSumExp", 1},
    {"ReduceSumSquare", 1}, {"Where", 6}, {"Clip", 1}, {"BatchNormalization", 7}, {"Dropout", 1},
    {"Resize", 1}, {"Upsample", 1}, {"TopK", 1}, {"CumSum", 1}, {"ScatterND", 5}, {"ScatterElements", 5},
    {"Cast", 1}, {"CastLike", 1}, {"Identity", 1}, {"LSTM", 0xffu & ~(1u << 4)}, {"GRU", 0xffu & ~(1u << 4)},
    {"RNN", 0xffu & ~(1u << 4)},
    /* no gradient at all */
    {"Shape", 0}, {"Size", 0}, {"ConstantOfShape", 0}, {"Range", 0}, {"NonZero", 0}, {"ArgMax", 0},
    {"ArgMin", 0}, {"Floor", 0}, {"Ceil", 0}, {"Round", 0}, {"Sign", 0}, {"EyeLike", 0}, {"OneHot", 0},
    {"RandomNormalLike", 0}, {"RandomUniformLike", 0}, {"Bernoulli", 0}, {"Multinomial", 0},
    {"IsNaN", 0}, {"IsInf", 0}, {"Equal", 0}, {"Less", 0}, {"Greater", 0}, {"LessOrEqual", 0},
    {"GreaterOrEqual", 0}, {"Not", 0}, {"And", 0}, {"Or", 0}, {"Xor", 0}, {"Hardmax", 0},
};

static bool diff_edge(const Node *n, int k) {
  Value *v = n->inputs[k];
  if (!v || !dtype_is_float(v->dtype)) return false;
  if (k >= 32) return true;
  const CustomOp *c = custom_op_of(n);
  if (c) return !((c->nograd >> k) & 1u);
  if (!*n->domain)
    for (size_t i = 0; i < sizeof masks / sizeof masks[0]; i++)
      if (!strcmp(masks[i].op, n->op_type)) return (masks[i].mask >> k) & 1u;
  return true;
}

static bool need(const AD *ad, const Value *v) {
  return v && v->id < ad->nv && ad->fwd[v->id] && ad->bwd[v->id];
}

static void add_contrib(AD *ad, Node *n, Value *x, Value *g) {
  if (g->dtype != x->dtype || !same_shape(g, x))
    fail_node(ad->ctx, n, "internal: gradient of '%s' is %s%s, expected %s%s", x->name, dtype_name(g->dtype),
              shape_str(&ad->ctx->arena, g), dtype_name(x->dtype), shape_str(&ad->ctx->arena, x));
  vec_push(&ad->ctx->arena, &ad->contrib[x->id], g);
}

/* The summed gradient of forward value v (NULL when nothing flowed into it). */
static Value *grad_of(AD *ad, Value *v) {
  PtrVec *c = &ad->contrib[v->id];
  while (c->n > 1) {
    int take = c->n < 8 ? c->n : 8;
    Node *s = mk(ad, "Sum", "", take, (Value **)c->v, 1);
    Value *r = out(ad, s, 0);
    done(ad, s);
    PtrVec rest = {0};
    vec_push(&ad->ctx->arena, &rest, r);
    for (int i = take; i < c->n; i++) vec_push(&ad->ctx->arena, &rest, c->v[i]);
    *c = rest;
  }
  return c->n ? c->v[0] : NULL;
}

/* ad over g's current values, nothing marked */
static void ad_init(AD *ad, Ctx *ctx, Graph *g) {
  ad->ctx = ctx;
  ad->g = g;
  ad->nv = g->values.n;
  ad->fwd = arena_alloc(&ctx->arena, (size_t)ad->nv + 1);
  ad->bwd = arena_alloc(&ctx->arena, (size_t)ad->nv + 1);
  ad->contrib = arena_alloc(&ctx->arena, sizeof(PtrVec) * (size_t)(ad->nv + 1));
}

/* Which values need gradients: fwd (set for the sources by the caller) spreads forward
   through nodes [0, n_fwd), bwd back from y; a value needs one where both hold. */
static void mark(AD *ad, int n_fwd, Value *y) {
  Graph *g = ad->g;
  for (int i = 0; i < n_fwd; i++) {
    Node *n = g->nodes.v[i];
    bool any = false;
    for (int k = 0; k < n->n_inputs && !any; k++)
      if (diff_edge(n, k) && value_is_local(g, orig_in(ad, n, k)) && ad->fwd[orig_in(ad, n, k)->id]) any = true;
    if (!any) continue;
    for (int k = 0; k < n->n_outputs; k++)
      if (n->outputs[k] && dtype_is_float(n->outputs[k]->dtype)) ad->fwd[n->outputs[k]->id] = true;
  }
  ad->bwd[y->id] = true;
  for (int i = n_fwd - 1; i >= 0; i--) {
    Node *n = g->nodes.v[i];
    bool any = false;
    for (int k = 0; k < n->n_outputs; k++)
      if (n->outputs[k] && ad->bwd[n->outputs[k]->id]) any = true;
    if (!any) continue;
    for (int k = 0; k < n->n_inputs; k++)
      if (diff_edge(n, k) && value_is_local(g, orig_in(ad, n, k))) ad->bwd[orig_in(ad, n, k)->id] = true;
  }
}

/* Gradient contributions of nodes n_fwd-1 .. 0 (the seed already in ad->contrib); `why` ends
   the error for a needed node without a rule. */
static void reverse_walk(AD *ad, int n_fwd, const char *why) {
  Ctx *ctx = ad->ctx;
  Graph *g = ad->g;
  for (int i = n_fwd - 1; i >= 0; i--) {
    Node *n = g->nodes.v[i];
    bool any_out = false, any_in = false;
    Value **dy = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(n->n_outputs + 1));
    for (int k = 0; k < n->n_outputs; k++) {
      Value *o = n->outputs[k];
      dy[k] = need(ad, o) ? grad_of(ad, o) : NULL;
      if (dy[k]) any_out = true;
    }
    if (!any_out) continue;
    bool *want = arena_alloc(&ctx->arena, (size_t)n->n_inputs + 1);
    for (int k = 0; k < n->n_inputs; k++) {
      want[k] = diff_edge(n, k) && need(ad, orig_in(ad, n, k));
      if (want[k]) any_in = true;
    }
    if (!any_in) continue;
    RuleFn fn = find_rule(n);
    if (!fn)
      fail_node(ctx, n, "no gradient rule for op %s%s%s (%s)", *n->domain ? n->domain : "", *n->domain ? "::" : "",
                n->op_type, why);
    /* a missing gradient of output 0 reads as zeros (Split, the recurrent ops and custom ops take
       each one as given) */
    if (!dy[0] && n->n_outputs && n->outputs[0] && strcmp(n->op_type, "Split") && !is_rnn(n) && !custom_op_of(n)) {
      Value *o = n->outputs[0];
      dy[0] = c_fill(ad, o->dtype, o->rank, o->dims, 0);
    }
    Value **dx = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(n->n_inputs + 1));
    ad->cur = n;
    fn(ad, n, dy, want, dx);
    ad->cur = NULL;
    for (int k = 0; k < n->n_inputs; k++)
      if (want[k] && dx[k]) add_contrib(ad, n, orig_in(ad, n, k), dx[k]);
  }
}

/* ---- the pass ----------------------------------------------------------------------------- */

/* Frees `name` for a new graph value: other values of that name are renamed. */
static void reserve_name(AD *ad, const char *name) {
  Graph *g = ad->g;
  for (int i = 0; i < g->values.n; i++) {
    Value *v = g->values.v[i];
    if (strcmp(v->name, name)) continue;
    if (v->kind == VAL_INPUT) fail(ad->ctx, "--gradients: the model already has an input named '%s'", name);
    v->name = arena_printf(&ad->ctx->arena, "%s_fwd", v->name);
  }
}

static bool is_frozen(const CompileOptions *opt, const char *name) {
  size_t len = strlen(name);
  for (int i = 0; i < opt->n_freeze; i++)
    for (const char *p = opt->freeze[i]; *p;) {
      const char *comma = strchr(p, ',');
      size_t l = comma ? (size_t)(comma - p) : strlen(p);
      if (l == len && !strncmp(p, name, len)) return true;
      p += l + (comma ? 1 : 0);
    }
  return false;
}

static void check_freeze(Ctx *ctx, const CompileOptions *opt, Graph *g) {
  for (int i = 0; i < opt->n_freeze; i++)
    for (const char *p = opt->freeze[i]; *p;) {
      const char *comma = strchr(p, ',');
      size_t l = comma ? (size_t)(comma - p) : strlen(p);
      bool found = false;
      for (int k = 0; k < g->inits.n && !found; k++) {
        const char *nm = ((Value *)g->inits.v[k])->name;
        found = strlen(nm) == l && !strncmp(nm, p, l);
      }
      if (l && !found) fail(ctx, "--freeze: the model has no initializer named '%.*s'", (int)l, p);
      p += l + (comma ? 1 : 0);
    }
}

void autodiff(Ctx *ctx, Graph *g, const CompileOptions *opt) {
  if (!opt->loss) fail(ctx, "--gradients needs --loss KIND:OUTPUT (mse, cross_entropy, bce_logits, output)");
  AD A = {0}, *ad = &A;
  check_freeze(ctx, opt, g);
  /* --loss KIND[:OUTPUT] */
  const char *colon = strchr(opt->loss, ':');
  const char *kind = colon ? arena_printf(&ctx->arena, "%.*s", (int)(colon - opt->loss), opt->loss) : opt->loss;
  if (strcmp(kind, "mse") && strcmp(kind, "cross_entropy") && strcmp(kind, "bce_logits") && strcmp(kind, "output"))
    fail(ctx, "--loss: unknown kind '%s' (mse, cross_entropy, bce_logits, output)", kind);
  Value *y = NULL;
  if (colon) {
    y = graph_find_value(g, colon + 1);
    if (!y || !value_is_local(g, y)) fail(ctx, "--loss: the model has no value named '%s'", colon + 1);
  } else {
    if (g->outputs.n != 1) fail(ctx, "--loss %s: the model has %d outputs; name one (--loss %s:OUTPUT)", kind, g->outputs.n, kind);
    y = g->outputs.v[0];
  }
  if (!y->typed || !dtype_is_float(y->dtype))
    fail(ctx, "--loss: '%s' must be a floating-point tensor", y->name);
  if (y->dynamic) fail(ctx, "--loss: '%s' has a data-dependent shape", y->name);

  /* 1. marking */
  ad_init(ad, ctx, g);
  for (int i = 0; i < g->inits.n; i++) {
    Value *v = g->inits.v[i];
    if (dtype_is_float(v->dtype) && !is_frozen(opt, v->name)) ad->fwd[v->id] = true;
  }
  int n_fwd = g->nodes.n;
  mark(ad, n_fwd, y);
  int n_train = 0;
  for (int i = 0; i < g->inits.n; i++)
    if (need(ad, g->inits.v[i])) n_train++;
  if (!n_train) fail(ctx, "--gradients: no trainable initializer reaches '%s' through differentiable ops", y->name);

  /* 2. the loss and its seed */
  reserve_name(ad, "loss");
  Value *loss, *seed;
  if (!strcmp(kind, "output")) {
    if (value_numel(y) != 1) fail(ctx, "--loss output:%s: the loss must have one element, not %s", y->name, shape_str(&ctx->arena, y));
    Value *ins[2] = {y, c_ints(ad, 0, NULL)};
    Node *r = mk(ad, "Reshape", "", 2, ins, 1);
    loss = out(ad, r, 0);
    done(ad, r);
    seed = c_fill(ad, y->dtype, y->rank, y->dims, 1.0);
  } else {
    reserve_name(ad, "label");
    Value *label = graph_new_value(ctx, g, "label");
    label->kind = VAL_INPUT;
    if (!strcmp(kind, "cross_entropy")) {
      if (y->rank < 2) fail(ctx, "--loss cross_entropy: '%s' must be logits [N, C, ...], not %s", y->name, shape_str(&ctx->arena, y));
      int64_t ld[ONNXC_MAX_RANK];
      ld[0] = y->dims[0];
      for (int d = 2; d < y->rank; d++) ld[d - 1] = y->dims[d];
      value_set_shape(label, DT_INT64, y->rank - 1, ld);
    } else {
      value_set_shape(label, y->dtype, y->rank, y->dims);
    }
    vec_push(&ctx->arena, &g->inputs, label);
    Value *ins[2] = {y, label};
    Node *l = mk(ad, "Loss", GD, 2, ins, 2);
    set_s(ad, l, "kind", kind);
    loss = out(ad, l, 0);
    seed = out(ad, l, 1);
    done(ad, l);
  }
  loss->name = "loss";
  vec_push(&ctx->arena, &ad->contrib[y->id], seed);

  /* 3. reverse walk */
  reverse_walk(ad, n_fwd, "it lies between a trainable initializer and the loss; --freeze the initializers "
               "before it to stop gradients here");

  /* 4. outputs: loss, then one gradient per trainable initializer */
  for (int i = 0; i < g->outputs.n; i++) ((Value *)g->outputs.v[i])->is_output = false;
  g->outputs.n = 0;
  g->out_ports = NULL; /* plain tensors from here */
  g->n_out_ports = 0;
  vec_push(&ctx->arena, &g->outputs, loss);
  loss->is_output = true;
  for (int i = 0; i < g->inits.n; i++) {
    Value *w = g->inits.v[i];
    if (!need(ad, w)) continue;
    Value *gv = grad_of(ad, w);
    if (!gv) gv = c_fill(ad, w->dtype, w->rank, w->dims, 0);
    const char *name = arena_printf(&ctx->arena, "%s_grad", w->name);
    reserve_name(ad, name);
    if (gv->is_output || gv->id < ad->nv || gv == loss || (gv->data && !gv->producer)) {
      Node *c = mk(ad, "Identity", "", 1, &gv, 1);
      gv = out(ad, c, 0);
      done(ad, c);
    }
    gv->name = name;
    gv->is_output = true;
    vec_push(&ctx->arena, &g->outputs, gv);
  }
  if (opt->recompute) recompute_forward(ctx, g, n_fwd);
}

/* ---- the Gradient op (ai.onnx.preview.training) -------------------------------------------- */

/* Gradient(xs..., zs...; xs, zs, y) -> dy/dx for each x of xs, expanded where the node stands:
   the reverse walk runs from y (seed 1: y has one element) over the nodes before this one (the
   loader gave it y as a hidden input, so y's producers come first), the gradient nodes are
   spliced in right after it, inferred, and Identity nodes take over its outputs; the node itself
   is left without outputs (dead).  A value of xs that y does not depend on gets zeros. */
void gradient_op_expand(Ctx *ctx, Node *n) {
  Graph *g = ctx->cur_graph;
  const Attr *axs = node_attr(n, "xs"), *azs = node_attr(n, "zs");
  int nx = axs ? axs->n_strings : 0, nz = azs ? azs->n_strings : 0;
  if (!nx) fail_node(ctx, n, "attribute xs (the names of the values to differentiate by) is missing");
  if (n->n_explicit != nx + nz)
    fail_node(ctx, n, "has %d inputs; xs and zs name %d values", n->n_explicit, nx + nz);
  if (n->n_outputs != nx) fail_node(ctx, n, "has %d outputs; xs names %d values", n->n_outputs, nx);
  Value *y = n->n_inputs > n->n_explicit ? n->inputs[n->n_explicit] : NULL;
  if (!y) fail_node(ctx, n, "attribute y must name a value of the graph");
  if (!dtype_is_float(y->dtype) || value_numel(y) != 1)
    fail_node(ctx, n, "y ('%s') must be a floating-point tensor of one element, not %s %s", y->name,
              dtype_name(y->dtype), shape_str(&ctx->arena, y));
  for (int k = 0; k < nx + nz; k++) {
    const char *want = k < nx ? axs->strings[k] : azs->strings[k - nx];
    if (!n->inputs[k] || strcmp(n->inputs[k]->name, want))
      fail_node(ctx, n, "input %d must be the value '%s' (%s[%d])", k, want, k < nx ? "xs" : "zs", k < nx ? k : k - nx);
    if (k < nx && !dtype_is_float(n->inputs[k]->dtype))
      fail_node(ctx, n, "xs[%d] ('%s') is not a floating-point tensor", k, want);
  }
  int pos = 0;
  while (pos < g->nodes.n && g->nodes.v[pos] != n) pos++;
  if (pos == g->nodes.n) unreachable("Gradient node not in its graph");
  AD A = {0}, *ad = &A;
  ad_init(ad, ctx, g);
  for (int k = 0; k < nx; k++) ad->fwd[n->inputs[k]->id] = true;
  mark(ad, pos, y);
  int first = g->nodes.n;
  vec_push(&ctx->arena, &ad->contrib[y->id], c_fill(ad, y->dtype, y->rank, y->dims, 1.0));
  reverse_walk(ad, pos, "it lies between a value of xs and y of a Gradient node");
  for (int k = 0; k < nx; k++) {
    Value *x = n->inputs[k], *gv = need(ad, x) ? grad_of(ad, x) : NULL;
    if (!gv) gv = c_fill(ad, x->dtype, x->rank, x->dims, 0);
    ad->cur = n;
    Node *c = mk(ad, "Identity", "", 1, &gv, 1);
    ad->cur = NULL;
    c->outputs[0] = n->outputs[k];
    n->outputs[k] = NULL;
    done(ad, c);
  }
  /* nodes [first, end) move to pos + 1 .. */
  int cnt = g->nodes.n - first;
  void **tmp = arena_alloc(&ctx->arena, sizeof(void *) * (size_t)(cnt + 1));
  memcpy(tmp, g->nodes.v + first, sizeof(void *) * (size_t)cnt);
  memmove(g->nodes.v + pos + 1 + cnt, g->nodes.v + pos + 1, sizeof(void *) * (size_t)(first - pos - 1));
  memcpy(g->nodes.v + pos + 1, tmp, sizeof(void *) * (size_t)cnt);
  for (int i = pos + 1; i <= pos + cnt; i++) ((Node *)g->nodes.v[i])->inferred = true;
}
