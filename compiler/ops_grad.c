/*
 * ops_grad.c - internal operators of the gradient graph (domain "onnxc.grad"), built by
 * autodiff.c.  Standard ONNX ops carry most gradient rules; these cover what ONNX has no op for:
 *
 *   Loss(X, label) -> (loss, dX)          attr kind: mse | cross_entropy | bce_logits; the mean
 *                                          loss (a scalar) and its gradient, as torch computes them
 *   ElementwiseGrad(dY, X, Y, lo, hi)     attr op: the forward op (Relu, Sigmoid, Gelu, ...) and its
 *                                          attributes; dX elementwise from whichever of X/Y it reads
 *   SoftmaxGrad(dY, Y)                    attrs axis, legacy (opset < 13 coerces to 2-D), log
 *   ConvGrad(dY, X, W) -> (dX, dW, dB)    the forward Conv's attributes + x_shape, w_shape
 *   PoolGrad(dY, X) -> dX                 attr mode max|avg + the forward pool's attributes, x_shape
 *   BatchNormGrad(dY, X, scale, mean, var) -> (dX, dScale, dBias)
 *                                          attr training: batch statistics (recomputed) or the
 *                                          running ones
 *   LayerNormGrad(dY, X, scale) -> (dX, dScale, dBias)   attrs axis, epsilon
 *   SliceGrad(dY) -> dX                   attrs shape, starts, steps (normalized, one per axis)
 *   GatherGrad(dY, indices) -> dX         attrs axis, shape (scatter-add of rows)
 *   LSTMGrad(X, W, R, B, -, H0, C0, P, dY, dY_h, dY_c) -> (dX, dW, dR, dB, dH0, dC0, dP)
 *   GRUGrad, RNNGrad(X, W, R, B, -, H0, dY, dY_h) -> (dX, dW, dR, dB, dH0)
 *                                          back-propagation through time (see their section)
 *
 * Kernels: float and double.  Statistics and long sums accumulate in double over float partial
 * sums (16 lanes per row: emit_lane_sums, so they vectorize), so gradients agree with torch to
 * ~1e-6.  ConvGrad in float runs two products on the template GEMM per image and group (see its
 * section); in double, or without scratch, it walks, per (filter, input channel, kernel tap),
 * whole rows of output positions whose valid range [lo, hi) is computed per tap, so the inner
 * loops have no bounds checks:
 *   dX[c, o*S + k*D - P] += W[m, c, k] * dY[m, o]        dW[m, c, k] += dY[m, o] * X[c, o*S + k*D - P]
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "onnxc.h"

#define GMAXR 6
#define LL(x) ((long long)(x))

static const char *IT = "int";

static void set_it(const Node *n) {
  int64_t mx = 0;
  for (int k = 0; k < n->n_inputs; k++)
    if (n->inputs[k] && value_numel(n->inputs[k]) > mx) mx = value_numel(n->inputs[k]);
  for (int k = 0; k < n->n_outputs; k++)
    if (n->outputs[k] && value_numel(n->outputs[k]) > mx) mx = value_numel(n->outputs[k]);
  IT = mx < 2000000000LL ? "int" : "int64_t";
}

static int64_t prodd(const int64_t *d, int n) {
  int64_t p = 1;
  for (int i = 0; i < n; i++) p *= d[i];
  return p;
}

static const char *fs(int dt) { return dt == DT_DOUBLE ? "" : "f"; }

static void need_float(Ctx *ctx, const Node *n, const Value *v) {
  if (!v) fail_node(ctx, n, "internal: missing input");
  if (v->dtype != DT_FLOAT && v->dtype != DT_DOUBLE)
    fail_node(ctx, n, "gradients of %s tensors are not supported (float and double only)", dtype_name(v->dtype));
}

static void loopv(Emit *e, const char *var, int64_t cnt) {
  ep(e, "for (%s %s = 0; %s < %lld; %s++) {", IT, var, var, LL(cnt), var);
}

/* An ints attribute that must be present with `cnt` values (cnt < 0: any count); returns count. */
static int need_ints(Ctx *ctx, const Node *n, const char *name, const int64_t **out) {
  int c = attr_ints(n, name, out);
  if (!node_attr(n, name)) fail_node(ctx, n, "internal: missing attribute '%s'", name);
  return c;
}

static void set_out_like(Value *o, int dt, int rank, const int64_t *dims) {
  if (o) value_set_shape(o, dt, rank, dims);
}

/* ---- Loss ------------------------------------------------------------------------------------ */

enum { L_MSE, L_CE, L_BCE };

static int loss_kind(Ctx *ctx, const Node *n) {
  const char *k = attr_s(n, "kind", "");
  if (!strcmp(k, "mse")) return L_MSE;
  if (!strcmp(k, "cross_entropy")) return L_CE;
  if (!strcmp(k, "bce_logits")) return L_BCE;
  fail_node(ctx, n, "unknown loss kind '%s'", k);
}

static void loss_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 2);
  Value *x = n->inputs[0], *t = n->inputs[1];
  need_float(ctx, n, x);
  int kind = loss_kind(ctx, n);
  if (kind == L_CE) {
    if (t->dtype != DT_INT64 && t->dtype != DT_INT32) fail_node(ctx, n, "cross_entropy labels must be int64");
    if (x->rank < 2) fail_node(ctx, n, "cross_entropy needs logits of rank >= 2 ([N, C, ...])");
    bool ok = t->rank == x->rank - 1 && t->dims[0] == x->dims[0];
    for (int d = 2; d < x->rank && ok; d++) ok = t->dims[d - 1] == x->dims[d];
    if (!ok) fail_node(ctx, n, "labels %s do not match logits %s", shape_str(&ctx->arena, t), shape_str(&ctx->arena, x));
  } else {
    if (t->dtype != x->dtype || !same_shape(t, x))
      fail_node(ctx, n, "the label must have the output's type and shape %s", shape_str(&ctx->arena, x));
  }
  set_out_like(n->outputs[0], x->dtype, 0, NULL);
  set_out_like(node_out(n, 1), x->dtype, x->rank, x->dims);
}

static void loss_emit(Emit *e, Node *n) {
  set_it(n);
  Value *x = n->inputs[0];
  int dt = x->dtype;
  const char *T = c_type(dt), *f = fs(dt);
  int64_t cnt = value_numel(x);
  int kind = loss_kind(e->ctx, n);
  ep(e, "double acc = 0;");
  if (kind == L_MSE || kind == L_BCE) {
    const char *sc = c_lit(e, dt, (kind == L_MSE ? 2.0 : 1.0) / (double)cnt);
    loopv(e, "i", cnt);
    ep(e, "const %s v = X0[i], t = X1[i];", T);
    if (kind == L_MSE) {
      ep(e, "const %s d = v - t;", T);
      ep(e, "acc += (double)d * d;");
      ep(e, "if (Y1) Y1[i] = %s * d;", sc);
    } else {
      /* max(v, 0) - v t + log(1 + exp(-|v|)); d/dv = sigmoid(v) - t */
      ep(e, "const %s av = v < 0 ? -v : v;", T);
      ep(e, "acc += (double)(v > 0 ? v : 0) - (double)v * t + log1p(exp(-(double)av));");
      ep(e, "const %s sg = v >= 0 ? 1 / (1 + exp%s(-v)) : exp%s(v) / (1 + exp%s(v));", T, f, f, f);
      ep(e, "if (Y1) Y1[i] = %s * (sg - t);", sc);
    }
    ep(e, "}");
    ep(e, "Y0[0] = (%s)(acc / %lld.0);", T, LL(cnt));
    return;
  }
  /* cross entropy over axis 1 of [N, C, S...]; label -100 (torch's ignore_index) and labels
     out of range contribute nothing and are not counted in the mean */
  int64_t N = x->dims[0], C = x->dims[1], S = prodd(x->dims + 2, x->rank - 2);
  ep(e, "%s cnt = 0;", IT);
  loopv(e, "nb", N);
  loopv(e, "s", S);
  ep(e, "const int64_t l = (int64_t)X1[nb * %lld + s];", LL(S));
  ep(e, "const %s *xp = X0 + nb * %lld + s;", T, LL(C * S));
  ep(e, "%s *gp = Y1 ? Y1 + nb * %lld + s : 0;", T, LL(C * S));
  ep(e, "if (l < 0 || l >= %lld) {", LL(C));
  ep(e, "if (gp) for (%s c = 0; c < %lld; c++) gp[c * %lld] = 0;", IT, LL(C), LL(S));
  ep(e, "continue;");
  ep(e, "}");
  ep(e, "cnt++;");
  ep(e, "%s mx = xp[0];", T);
  ep(e, "for (%s c = 1; c < %lld; c++) if (xp[c * %lld] > mx) mx = xp[c * %lld];", IT, LL(C), LL(S), LL(S));
  ep(e, "double se = 0;");
  ep(e, "for (%s c = 0; c < %lld; c++) se += exp((double)xp[c * %lld] - mx);", IT, LL(C), LL(S));
  ep(e, "acc += (double)mx + log(se) - xp[l * %lld];", LL(S));
  ep(e, "if (gp) for (%s c = 0; c < %lld; c++) gp[c * %lld] = (%s)(exp((double)xp[c * %lld] - mx) / se - (c == l));",
     IT, LL(C), LL(S), T, LL(S));
  ep(e, "}");
  ep(e, "}");
  ep(e, "Y0[0] = (%s)(cnt ? acc / cnt : 0);", T);
  ep(e, "if (Y1 && cnt > 1) {");
  ep(e, "const %s inv = (%s)(1.0 / cnt);", T, T);
  loopv(e, "i", cnt);
  ep(e, "Y1[i] *= inv;");
  ep(e, "}");
  ep(e, "}");
}

/* ---- ElementwiseGrad ------------------------------------------------------------------------ */

static void ewg_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 5);
  Value *g = n->inputs[0];
  need_float(ctx, n, g);
  for (int k = 1; k < 3; k++) {
    Value *v = node_in(n, k);
    if (v && (v->dtype != g->dtype || !same_shape(v, g)))
      fail_node(ctx, n, "internal: input %d does not match the gradient's shape", k);
  }
  value_set_shape(n->outputs[0], g->dtype, g->rank, g->dims);
}

typedef struct EwgBody { const char *pre, *expr; } EwgBody;

static void ewg_body(Emit *e, void *arg) {
  EwgBody *b = arg;
  if (b->pre) ep(e, "%s", b->pre);
  ep(e, "Y0[o] = %s;", b->expr);
}

static void ewg_emit(Emit *e, Node *n) {
  Value *gv = n->inputs[0];
  int dt = gv->dtype;
  const char *T = c_type(dt), *f = fs(dt);
  const char *op = attr_s(n, "op", "");
  /* the loop nest indexes only the inputs present (unused index variables would warn) */
  const Value *ins[3] = {gv, NULL, NULL};
  int ni = 1;
  const char *g = "X0[i0]", *x = "0", *y = "0";
  if (node_in(n, 1)) { x = fmt(e, "X1[i%d]", ni); ins[ni++] = n->inputs[1]; }
  if (node_in(n, 2)) { y = fmt(e, "X2[i%d]", ni); ins[ni++] = n->inputs[2]; }
  const char *ex = NULL, *pre = NULL;
  double alpha = attr_f(n, "alpha", 0.01f);
#define L(v) c_lit(e, dt, (v))
  if (!strcmp(op, "Relu")) ex = fmt(e, "%s > 0 ? %s : 0", y, g);
  else if (!strcmp(op, "LeakyRelu")) ex = fmt(e, "%s > 0 ? %s : %s * %s", x, g, L(alpha), g);
  else if (!strcmp(op, "Sigmoid")) ex = fmt(e, "%s * %s * (1 - %s)", g, y, y);
  else if (!strcmp(op, "Tanh")) ex = fmt(e, "%s * (1 - %s * %s)", g, y, y);
  else if (!strcmp(op, "Exp")) ex = fmt(e, "%s * %s", g, y);
  else if (!strcmp(op, "Log")) ex = fmt(e, "%s / %s", g, x);
  else if (!strcmp(op, "Sqrt")) ex = fmt(e, "%s / (2 * %s)", g, y);
  else if (!strcmp(op, "Reciprocal")) ex = fmt(e, "-%s * %s * %s", g, y, y);
  else if (!strcmp(op, "Erf")) ex = fmt(e, "%s * %s * exp%s(-%s * %s)", g, L(2.0 / sqrt(M_PI)), f, x, x);
  else if (!strcmp(op, "Abs")) ex = fmt(e, "%s > 0 ? %s : (%s < 0 ? -%s : 0)", x, g, x, g);
  else if (!strcmp(op, "Softplus")) ex = fmt(e, "%s / (1 + exp%s(-%s))", g, f, x);
  else if (!strcmp(op, "Softsign")) ex = fmt(e, "%s / ((1 + fabs%s(%s)) * (1 + fabs%s(%s)))", g, f, x, f, x);
  else if (!strcmp(op, "Elu")) ex = fmt(e, "%s > 0 ? %s : %s * %s * exp%s(%s)", x, g, g, L(attr_f(n, "alpha", 1.0f)), f, x);
  else if (!strcmp(op, "HardSwish"))
    ex = fmt(e, "%s < -3 ? 0 : (%s <= 3 ? %s * (%s / 3 + %s) : %s)", x, x, g, x, L(0.5), g);
  else if (!strcmp(op, "HardSigmoid")) {
    double a = attr_f(n, "alpha", 0.2f), b = attr_f(n, "beta", 0.5f);
    ex = fmt(e, "(%s * %s + %s > 0 && %s * %s + %s < 1) ? %s * %s : 0", L(a), x, L(b), L(a), x, L(b), L(a), g);
  } else if (!strcmp(op, "Clip")) {
    const char *lo = node_in(n, 3) ? "X3[0]" : c_lit(e, dt, attr_f(n, "min", -INFINITY));
    const char *hi = node_in(n, 4) ? "X4[0]" : c_lit(e, dt, attr_f(n, "max", INFINITY));
    ex = fmt(e, "(%s >= %s && %s <= %s) ? %s : 0", x, lo, x, hi, g);
  } else if (!strcmp(op, "Gelu")) {
    if (!strcmp(attr_s(n, "approximate", "none"), "tanh")) {
      /* y = x/2 (1 + th), th = tanh(c (x + a x^3)): y' = (1 + th)/2 + x/2 (1 - th^2) c (1 + 3 a x^2) */
      const char *c = L(sqrt(2.0 / M_PI)), *a = L(0.044715);
      pre = fmt(e, "const %s th = tanh%s(%s * (%s + %s * %s * %s * %s));", T, f, c, x, a, x, x, x);
      ex = fmt(e, "%s * (%s * (1 + th) + %s * %s * (1 - th * th) * %s * (1 + 3 * %s * %s * %s))", g, L(0.5), L(0.5), x, c,
               a, x, x);
    } else {
      ex = fmt(e, "%s * (%s * (1 + erf%s(%s * %s)) + %s * %s * exp%s(%s * %s * %s))", g, L(0.5), f, x, L(1.0 / sqrt(2.0)),
               x, L(1.0 / sqrt(2.0 * M_PI)), f, L(-0.5), x, x);
    }
  } else {
    fail_node(e->ctx, n, "internal: no elementwise gradient for %s", op);
  }
#undef L
  EwgBody b = {pre, ex};
  emit_broadcast_loops(e, n->outputs[0], ins, ni, ewg_body, &b);
}

/* ---- SoftmaxGrad ------------------------------------------------------------------------------ */

static void smg_geom(Ctx *ctx, const Node *n, const Value *y, int64_t *outer, int64_t *len, int64_t *inner) {
  int r = y->rank;
  int64_t axis = attr_i(n, "axis", -1);
  *outer = *len = *inner = 1;
  if (r == 0) return;
  if (axis < -r || axis > r) fail_node(ctx, n, "axis out of range");
  int a = (int)(axis < 0 ? axis + r : axis);
  for (int d = 0; d < a; d++) *outer *= y->dims[d];
  if (attr_i(n, "legacy", 0)) {
    for (int d = a; d < r; d++) *len *= y->dims[d];
  } else {
    if (a >= r) fail_node(ctx, n, "axis out of range");
    *len = y->dims[a];
    for (int d = a + 1; d < r; d++) *inner *= y->dims[d];
  }
}

static void smg_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 2);
  need_float(ctx, n, n->inputs[0]);
  if (!same_shape(n->inputs[0], n->inputs[1])) fail_node(ctx, n, "internal: shapes differ");
  int64_t o, l, i;
  smg_geom(ctx, n, n->inputs[1], &o, &l, &i);
  infer_same_as_input0(ctx, n);
}

static void smg_emit(Emit *e, Node *n) {
  set_it(n);
  Value *y = n->inputs[1];
  int dt = y->dtype;
  int64_t outer, len, inner;
  smg_geom(e->ctx, n, y, &outer, &len, &inner);
  bool lg = attr_i(n, "log", 0) != 0;
  loopv(e, "ou", outer);
  loopv(e, "in", inner);
  ep(e, "const %s base = ou * %lld + in;", IT, LL(len * inner));
  ep(e, "double s = 0;");
  loopv(e, "a", len);
  if (lg) ep(e, "s += X0[base + a * %lld];", LL(inner));
  else ep(e, "s += (double)X0[base + a * %lld] * X1[base + a * %lld];", LL(inner), LL(inner));
  ep(e, "}");
  loopv(e, "a", len);
  ep(e, "const %s p = base + a * %lld;", IT, LL(inner));
  if (lg) ep(e, "Y0[p] = (%s)(X0[p] - exp((double)X1[p]) * s);", c_type(dt));
  else ep(e, "Y0[p] = (%s)(X1[p] * (X0[p] - s));", c_type(dt));
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ---- window geometry (ConvGrad, PoolGrad): same rules as the forward ops --------------------- */

typedef struct GGeo {
  int r;
  int64_t in[GMAXR], k[GMAXR], out[GMAXR], s[GMAXR], d[GMAXR], pb[GMAXR], pe[GMAXR];
} GGeo;

static void ggeo_ints(Ctx *ctx, const Node *n, const char *name, int cnt, int64_t dflt, int64_t *out) {
  const int64_t *a;
  int na = attr_ints(n, name, &a);
  if (na && na != cnt) fail_node(ctx, n, "attribute '%s' has %d values, expected %d", name, na, cnt);
  for (int i = 0; i < cnt; i++) out[i] = na ? a[i] : dflt;
}

/* x_shape rank r+2 and the kernel extent k[] set by the caller. */
static void ggeo(Ctx *ctx, const Node *n, const int64_t *xs, int xr, GGeo *g, bool ceil_ok) {
  int r = g->r = xr - 2;
  if (r < 1 || r > GMAXR) fail_node(ctx, n, "%d spatial dimensions are not supported", r);
  for (int i = 0; i < r; i++) g->in[i] = xs[i + 2];
  ggeo_ints(ctx, n, "strides", r, 1, g->s);
  ggeo_ints(ctx, n, "dilations", r, 1, g->d);
  int64_t pads[2 * GMAXR];
  ggeo_ints(ctx, n, "pads", 2 * r, 0, pads);
  const char *ap = attr_s(n, "auto_pad", "NOTSET");
  int cm = ceil_ok ? (int)attr_i(n, "ceil_mode", 0) : 0;
  for (int i = 0; i < r; i++) {
    int64_t in = g->in[i], s = g->s[i], ek = (g->k[i] - 1) * g->d[i] + 1, out;
    if (s < 1 || g->d[i] < 1 || g->k[i] < 1) fail_node(ctx, n, "invalid window attributes");
    if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
      out = (in + s - 1) / s;
      int64_t tot = (out - 1) * s + ek - in;
      if (tot < 0) tot = 0;
      g->pb[i] = !strcmp(ap, "SAME_UPPER") ? tot / 2 : tot - tot / 2;
      g->pe[i] = tot - g->pb[i];
    } else {
      bool valid = !strcmp(ap, "VALID");
      g->pb[i] = valid ? 0 : pads[i];
      g->pe[i] = valid ? 0 : pads[i + r];
      int64_t num = in + g->pb[i] + g->pe[i] - ek;
      if (num < 0) fail_node(ctx, n, "the window is larger than the padded input");
      out = cm ? (num + s - 1) / s + 1 : num / s + 1;
      if (cm && (out - 1) * s >= in + g->pb[i]) out--;
    }
    g->out[i] = out;
  }
}

/* ---- ConvGrad --------------------------------------------------------------------------------- */

typedef struct CG {
  GGeo g;
  int64_t N, C, M, G, Cg, Mg, KP, IHW, OHW;
} CG;

static void cg_info(Ctx *ctx, const Node *n, CG *c) {
  const int64_t *xs, *ws;
  int xr = need_ints(ctx, n, "x_shape", &xs), wr = need_ints(ctx, n, "w_shape", &ws);
  if (xr != wr || xr < 3 || xr > GMAXR + 2) fail_node(ctx, n, "internal: bad shapes");
  for (int i = 0; i < xr - 2; i++) c->g.k[i] = ws[i + 2];
  ggeo(ctx, n, xs, xr, &c->g, false);
  c->N = xs[0];
  c->C = xs[1];
  c->M = ws[0];
  c->G = attr_i(n, "group", 1);
  if (c->G < 1 || c->C % c->G || c->M % c->G) fail_node(ctx, n, "bad group");
  c->Cg = c->C / c->G;
  c->Mg = c->M / c->G;
  c->KP = prodd(c->g.k, c->g.r);
  c->IHW = prodd(c->g.in, c->g.r);
  c->OHW = prodd(c->g.out, c->g.r);
}

static void cg_infer(Ctx *ctx, Node *n) {
  Value *dy = n->inputs[0];
  need_float(ctx, n, dy);
  CG c;
  cg_info(ctx, n, &c);
  const int64_t *xs, *ws;
  int xr = need_ints(ctx, n, "x_shape", &xs);
  need_ints(ctx, n, "w_shape", &ws);
  if (dy->rank != xr || dy->dims[0] != c.N || dy->dims[1] != c.M) fail_node(ctx, n, "internal: dY shape");
  for (int i = 0; i < c.g.r; i++)
    if (dy->dims[i + 2] != c.g.out[i]) fail_node(ctx, n, "internal: dY shape");
  if (node_out(n, 0) && !node_in(n, 2)) fail_node(ctx, n, "internal: dX needs W");
  if (node_out(n, 1) && !node_in(n, 1)) fail_node(ctx, n, "internal: dW needs X");
  set_out_like(node_out(n, 0), dy->dtype, xr, xs);
  set_out_like(node_out(n, 1), dy->dtype, xr, ws);
  set_out_like(node_out(n, 2), dy->dtype, 1, &c.M);
}

/* Opens loops over the kernel taps and the outer output rows (all dims but the last) and
   defines `yr`/`xr` row offsets and the [lo, hi) range of the last output coordinate.
   tiled: only the first output dim's rows [r0, r0 + rn) (C variables), yr counted from r0.
   Returns the number of braces to close. */
static int cg_open(Emit *e, const GGeo *g, bool tiled) {
  int r = g->r, open = 0;
  for (int d = 0; d < r; d++) {
    loopv(e, fmt(e, "k%d", d), g->k[d]);
    open++;
    ep(e, "const %s off%d = k%d * %lld - %lld;", IT, d, d, LL(g->d[d]), LL(g->pb[d]));
  }
  const char *kidx = "k0";
  for (int d = 1; d < r; d++) kidx = fmt(e, "(%s) * %lld + k%d", kidx, LL(g->k[d]), d);
  ep(e, "const %s kidx = %s;", IT, kidx);
  int l = r - 1;
  ep(e, "const %s lo = off%d < 0 ? (%lld - off%d) / %lld : 0;", IT, l, LL(g->s[l] - 1), l, LL(g->s[l]));
  ep(e, "%s hi = (%lld - off%d + %lld) / %lld;", IT, LL(g->in[l]), l, LL(g->s[l] - 1), LL(g->s[l]));
  ep(e, "if (hi > %lld) hi = %lld;", LL(g->out[l]), LL(g->out[l]));
  ep(e, "if (hi <= lo) continue;");
  const char *yrow = "0", *xrow = "0";
  for (int d = 0; d < l; d++) {
    if (d == 0 && tiled) ep(e, "for (%s o0 = r0; o0 < r0 + rn; o0++) {", IT);
    else loopv(e, fmt(e, "o%d", d), g->out[d]);
    open++;
    ep(e, "const %s i%d = o%d * %lld + off%d;", IT, d, d, LL(g->s[d]), d);
    ep(e, "if (i%d < 0 || i%d >= %lld) continue;", d, d, LL(g->in[d]));
    yrow = d == 0 ? (tiled ? "(o0 - r0)" : "o0") : fmt(e, "(%s) * %lld + o%d", yrow, LL(g->out[d]), d);
    xrow = d == 0 ? "i0" : fmt(e, "(%s) * %lld + i%d", xrow, LL(g->in[d]), d);
  }
  ep(e, "const %s yr = (%s) * %lld;", IT, yrow, LL(g->out[l]));
  ep(e, "const %s xr = (%s) * %lld + off%d;", IT, xrow, LL(g->in[l]), l);
  return open;
}

/* float: per image, group and tile of output rows (rows of the first spatial dim, T output
   positions), with the GEMM of templates/gemm.h on the tile's patch matrix col [Cg*KP][T]
   (im2col, zero where a tap falls in the padding):
     dW^T += col dY_t^T   ([Cg*KP][Mg] in tmp, added transposed into dW; dY_t^T transposed
                          into dyt)
     dcol = W^T dY_t      ([Cg*KP][T] in col's place, scattered back into dX: col2im)
   The tile is the whole image unless the planner's scratch cap asks for fewer rows; with no
   row fitting, or in double, the direct loops below. */
typedef struct CGTile { int64_t R0, inner, TR; } CGTile;

static int64_t cg_tile_bytes(const CG *c, const Node *n, int64_t T) {
  int64_t CK = c->Cg * c->KP;
  return (CK * T + (node_out(n, 1) ? T * c->Mg + CK * c->Mg : 0)) * (int64_t)sizeof(float);
}

/* TR = 0: no tile fits. */
static void cg_tiles(const CG *c, const Node *n, CGTile *t) {
  t->R0 = c->g.r >= 2 ? c->g.out[0] : 1;
  t->inner = t->R0 ? c->OHW / t->R0 : 0;
  t->TR = t->R0;
  int64_t cap = n->scratch_cap;
  if (cap >= 0)
    while (t->TR > 0 && cg_tile_bytes(c, n, t->TR * t->inner) > cap) t->TR--;
  if (t->TR > 0) {
    int64_t tiles = (t->R0 + t->TR - 1) / t->TR; /* equal tiles */
    t->TR = (t->R0 + tiles - 1) / tiles;
  }
}

static int64_t cg_scratch(Ctx *ctx, Node *n) {
  CG c;
  cg_info(ctx, n, &c);
  if (n->inputs[0]->dtype != DT_FLOAT || c.OHW == 0) return 0;
  CGTile t;
  cg_tiles(&c, n, &t);
  return t.TR ? cg_tile_bytes(&c, n, t.TR * t.inner) : 0;
}

/* For every channel c of the group and tap of image nb: the row cr of the tile's patch matrix
   col and `xc`, channel c's plane of X or dX (decl: its declaration up to the base pointer);
   `body` (with %lld for the stride) runs for the valid outputs ow of each output row. */
static void cg_col_loops(Emit *e, const CG *c, const char *decl, const char *body) {
  loopv(e, "c", c->Cg);
  ep(e, "%s + (nb * %lld + gi * %lld + c) * %lld;", decl, LL(c->C), LL(c->Cg), LL(c->IHW));
  int open = cg_open(e, &c->g, true);
  ep(e, "float *cr = col + (c * %lld + kidx) * tn + yr;", LL(c->KP));
  ep(e, "for (%s ow = lo; ow < hi; ow++) %s;", IT, fmt(e, body, LL(c->g.s[c->g.r - 1])));
  for (int i = 0; i < open; i++) ep(e, "}");
  ep(e, "}");
}

static void cg_emit_gemm(Emit *e, Node *n, const CG *c) {
  int64_t CK = c->Cg * c->KP, O = c->OHW, Mg = c->Mg;
  CGTile t;
  cg_tiles(c, n, &t);
  int64_t T = t.TR * t.inner;
  emit_use_template(e, "gemm");
  ep(e, "float *col = (float *)(void *)W;");
  if (node_out(n, 1)) {
    ep(e, "float *dyt = col + %lld;", LL(CK * T));
    ep(e, "float *tmp = dyt + %lld;", LL(T * Mg));
    ep(e, "if (Y1) memset(Y1, 0, %lld);", LL(c->M * CK * 4));
  }
  if (node_out(n, 0)) ep(e, "if (Y0) memset(Y0, 0, %lld);", LL(c->N * c->C * c->IHW * 4));
  loopv(e, "nb", c->N);
  loopv(e, "gi", c->G);
  ep(e, "for (%s r0 = 0; r0 < %lld; r0 += %lld) {", IT, LL(t.R0), LL(t.TR));
  ep(e, "const %s rn = %lld - r0 < %lld ? %lld - r0 : %lld, tn = rn * %lld;", IT, LL(t.R0), LL(t.TR), LL(t.R0), LL(t.TR),
     LL(t.inner));
  ep(e, "const float *dy = X0 + (nb * %lld + gi * %lld) * %lld + r0 * %lld;", LL(c->M), LL(Mg), LL(O), LL(t.inner));
  if (node_out(n, 1)) {
    ep(e, "if (Y1) {");
    ep(e, "float *dw = Y1 + gi * %lld;", LL(Mg * CK));
    ep(e, "memset(col, 0, (size_t)tn * %lld);", LL(CK * 4));
    cg_col_loops(e, c, "const float *xc = X1", "cr[ow] = xc[xr + ow * %lld]");
    loopv(e, "m", Mg);
    ep(e, "for (%s o = 0; o < tn; o++) dyt[o * %lld + m] = dy[m * %lld + o];", IT, LL(Mg), LL(O));
    ep(e, "}");
    ep(e, "onnxc_sgemm_a(%lld, %lld, tn, col, tn, 1, dyt, %lld, tmp, %lld, (const onnxc_epi *)0);", LL(CK), LL(Mg),
       LL(Mg), LL(Mg));
    loopv(e, "m", Mg);
    ep(e, "for (%s k = 0; k < %lld; k++) dw[m * %lld + k] += tmp[k * %lld + m];", IT, LL(CK), LL(CK), LL(Mg));
    ep(e, "}");
    ep(e, "}");
  }
  if (node_out(n, 0)) {
    ep(e, "if (Y0) {");
    /* dcol = W_g^T dY_t: A(ck, m) = W[(gi Mg + m) CK + ck] */
    ep(e, "onnxc_sgemm_a(%lld, tn, %lld, X2 + gi * %lld, 1, %lld, dy, %lld, col, tn, (const onnxc_epi *)0);", LL(CK),
       LL(Mg), LL(Mg * CK), LL(CK), LL(O));
    cg_col_loops(e, c, "float *xc = Y0", "xc[xr + ow * %lld] += cr[ow]");
    ep(e, "}");
  }
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

static void cg_emit(Emit *e, Node *n) {
  set_it(n);
  CG c;
  cg_info(e->ctx, n, &c);
  int dt = n->inputs[0]->dtype;
  const char *T = c_type(dt);
  const GGeo *g = &c.g;
  int64_t S = g->s[g->r - 1];
  if (dt == DT_FLOAT && n->scratch_bytes > 0 && (node_out(n, 0) || node_out(n, 1))) {
    cg_emit_gemm(e, n, &c);
    goto bias;
  }
  if (node_out(n, 0)) {
    ep(e, "if (Y0) {");
    ep(e, "memset(Y0, 0, %lld);", LL(c.N * c.C * c.IHW * (int64_t)dtype_size(dt)));
    loopv(e, "nb", c.N);
    loopv(e, "m", c.M);
    ep(e, "const %s gi = m / %lld;", IT, LL(c.Mg));
    ep(e, "const %s *dy = X0 + (nb * %lld + m) * %lld;", T, LL(c.M), LL(c.OHW));
    loopv(e, "c", c.Cg);
    ep(e, "%s *dx = Y0 + (nb * %lld + gi * %lld + c) * %lld;", T, LL(c.C), LL(c.Cg), LL(c.IHW));
    ep(e, "const %s *wk = X2 + (m * %lld + c) * %lld;", T, LL(c.Cg), LL(c.KP));
    int open = cg_open(e, g, false);
    ep(e, "const %s wv = wk[kidx];", T);
    ep(e, "const %s *dyr = dy + yr;", T);
    ep(e, "%s *dxr = dx + xr;", T);
    ep(e, "for (%s ow = lo; ow < hi; ow++) dxr[ow * %lld] += wv * dyr[ow];", IT, LL(S));
    for (int i = 0; i < open; i++) ep(e, "}");
    ep(e, "}");
    ep(e, "}");
    ep(e, "}");
    ep(e, "}");
  }
  if (node_out(n, 1)) {
    ep(e, "if (Y1) {");
    loopv(e, "m", c.M);
    ep(e, "const %s gi = m / %lld;", IT, LL(c.Mg));
    loopv(e, "c", c.Cg);
    /* per tap: a double accumulator over batch and rows */
    ep(e, "%s *dwk = Y1 + (m * %lld + c) * %lld;", T, LL(c.Cg), LL(c.KP));
    ep(e, "for (%s t = 0; t < %lld; t++) dwk[t] = 0;", IT, LL(c.KP));
    loopv(e, "nb", c.N);
    ep(e, "const %s *dy = X0 + (nb * %lld + m) * %lld;", T, LL(c.M), LL(c.OHW));
    ep(e, "const %s *xc = X1 + (nb * %lld + gi * %lld + c) * %lld;", T, LL(c.C), LL(c.Cg), LL(c.IHW));
    int open = cg_open(e, g, false);
    ep(e, "const %s *dyr = dy + yr;", T);
    ep(e, "const %s *xrp = xc + xr;", T);
    /* four partial sums: the dot product is not one serial chain of adds */
    ep(e, "%s a0 = 0, a1 = 0, a2 = 0, a3 = 0;", T);
    ep(e, "%s ow = lo;", IT);
    ep(e, "for (; ow + 4 <= hi; ow += 4) {");
    for (int q = 0; q < 4; q++) ep(e, "a%d += dyr[ow + %d] * xrp[(ow + %d) * %lld];", q, q, q, LL(S));
    ep(e, "}");
    ep(e, "for (; ow < hi; ow++) a0 += dyr[ow] * xrp[ow * %lld];", LL(S));
    ep(e, "dwk[kidx] += (a0 + a1) + (a2 + a3);");
    for (int i = 0; i < open; i++) ep(e, "}");
    ep(e, "}");
    ep(e, "}");
    ep(e, "}");
    ep(e, "}");
  }
bias:
  if (node_out(n, 2)) {
    ep(e, "if (Y2) {");
    loopv(e, "m", c.M);
    ep(e, "double acc = 0;");
    loopv(e, "nb", c.N);
    ep(e, "const %s *dy = X0 + (nb * %lld + m) * %lld;", T, LL(c.M), LL(c.OHW));
    ep(e, "%s s = 0;", T);
    ep(e, "for (%s i = 0; i < %lld; i++) s += dy[i];", IT, LL(c.OHW));
    ep(e, "acc += s;");
    ep(e, "}");
    ep(e, "Y2[m] = (%s)acc;", T);
    ep(e, "}");
    ep(e, "}");
  }
}

/* ---- PoolGrad -------------------------------------------------------------------------------- */

static void pg_info(Ctx *ctx, const Node *n, GGeo *g, const int64_t **xs, int *xr) {
  *xr = need_ints(ctx, n, "x_shape", xs);
  const int64_t *ks;
  int nk = need_ints(ctx, n, "kernel_shape", &ks);
  if (nk != *xr - 2 || nk > GMAXR) fail_node(ctx, n, "kernel_shape does not match the input rank");
  for (int i = 0; i < nk; i++) g->k[i] = ks[i];
  ggeo(ctx, n, *xs, *xr, g, true);
}

static bool pg_max(const Node *n) { return !strcmp(attr_s(n, "mode", ""), "max"); }

static void pg_infer(Ctx *ctx, Node *n) {
  Value *dy = n->inputs[0];
  need_float(ctx, n, dy);
  GGeo g;
  const int64_t *xs;
  int xr;
  pg_info(ctx, n, &g, &xs, &xr);
  if (pg_max(n) && !node_in(n, 1)) fail_node(ctx, n, "internal: MaxPool gradient needs X");
  if (dy->rank != xr) fail_node(ctx, n, "internal: dY shape");
  for (int i = 0; i < g.r; i++)
    if (dy->dims[i + 2] != g.out[i]) fail_node(ctx, n, "internal: dY shape");
  value_set_shape(n->outputs[0], dy->dtype, xr, xs);
}

static void pg_emit(Emit *e, Node *n) {
  set_it(n);
  GGeo g;
  const int64_t *xs;
  int xr;
  pg_info(e->ctx, n, &g, &xs, &xr);
  int dt = n->inputs[0]->dtype, r = g.r;
  const char *T = c_type(dt);
  bool mx = pg_max(n);
  int cip = (int)attr_i(n, "count_include_pad", 0);
  int64_t NC = xs[0] * xs[1], IHW = prodd(g.in, r), OHW = prodd(g.out, r);
  int64_t istr[GMAXR];
  istr[r - 1] = 1;
  for (int d = r - 2; d >= 0; d--) istr[d] = istr[d + 1] * g.in[d + 1];
  ep(e, "memset(Y0, 0, %lld);", LL(NC * IHW * (int64_t)dtype_size(dt)));
  loopv(e, "nc", NC);
  if (mx) ep(e, "const %s *xp = X1 + nc * %lld;", T, LL(IHW));
  ep(e, "%s *dxp = Y0 + nc * %lld;", T, LL(IHW));
  ep(e, "const %s *gp = X0 + nc * %lld;", T, LL(OHW));
  ep(e, "%s yo = 0;", IT);
  for (int d = 0; d < r; d++) {
    loopv(e, fmt(e, "o%d", d), g.out[d]);
    ep(e, "const %s s%d = o%d * %lld - %lld;", IT, d, d, LL(g.s[d]), LL(g.pb[d]));
    ep(e, "const %s ks%d = s%d < 0 ? (%lld - s%d) / %lld : 0;", IT, d, d, LL(g.d[d] - 1), d, LL(g.d[d]));
    ep(e, "%s ke%d = (%lld - s%d) / %lld;", IT, d, LL(g.in[d] + g.d[d] - 1), d, LL(g.d[d]));
    ep(e, "if (ke%d > %lld) ke%d = %lld;", d, LL(g.k[d]), d, LL(g.k[d]));
    if (!mx && cip) {
      ep(e, "%s kc%d = (%lld - s%d) / %lld;", IT, d, LL(g.in[d] + g.pe[d] + g.d[d] - 1), d, LL(g.d[d]));
      ep(e, "if (kc%d > %lld) kc%d = %lld;", d, LL(g.k[d]), d, LL(g.k[d]));
    }
  }
  const char *xi = fmt(e, "i%d", r - 1);
  for (int d = r - 2; d >= 0; d--) xi = fmt(e, "i%d * %lld + %s", d, LL(istr[d]), xi);
  if (mx) {
    ep(e, "%s best = 0;", T);
    ep(e, "%s bi = -1;", IT);
  } else {
    const char *cnt = cip ? "kc0" : "(ke0 - ks0)";
    for (int d = 1; d < r; d++) cnt = cip ? fmt(e, "%s * kc%d", cnt, d) : fmt(e, "%s * (ke%d - ks%d)", cnt, d, d);
    ep(e, "const %s cnt = %s;", IT, cnt);
    ep(e, "if (cnt <= 0) { yo++; continue; }");
    ep(e, "const %s gv = gp[yo] / (%s)cnt;", T, T);
  }
  for (int d = 0; d < r; d++) {
    ep(e, "for (%s k%d = ks%d; k%d < ke%d; k%d++) {", IT, d, d, d, d, d);
    ep(e, "const %s i%d = s%d + k%d * %lld;", IT, d, d, d, LL(g.d[d]));
  }
  if (mx) {
    ep(e, "const %s v = xp[%s];", T, xi);
    ep(e, "if (bi < 0 || v > best) { best = v; bi = %s; }", xi);
  } else {
    ep(e, "dxp[%s] += gv;", xi);
  }
  for (int d = 0; d < r; d++) ep(e, "}");
  if (mx) ep(e, "if (bi >= 0) dxp[bi] += gp[yo];");
  ep(e, "yo++;");
  for (int d = 0; d < r; d++) ep(e, "}");
  ep(e, "}");
}

/* ---- BatchNormGrad ----------------------------------------------------------------------------- */

static void bng_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 3, 5);
  Value *dy = n->inputs[0], *x = n->inputs[1], *sc = n->inputs[2];
  need_float(ctx, n, dy);
  if (!same_shape(dy, x) || x->dtype != dy->dtype || x->rank < 2) fail_node(ctx, n, "internal: shapes");
  int64_t C = x->dims[1];
  for (int k = 2; k < 5; k++) {
    Value *v = node_in(n, k);
    if (v && (value_numel(v) != C || v->dtype != x->dtype))
      fail_node(ctx, n, "batch-norm parameters must be %s vectors of %lld", dtype_name(x->dtype), LL(C));
  }
  if (!attr_i(n, "training", 0) && (!node_in(n, 3) || !node_in(n, 4))) fail_node(ctx, n, "internal: needs mean/var");
  set_out_like(node_out(n, 0), x->dtype, x->rank, x->dims);
  set_out_like(node_out(n, 1), sc->dtype, sc->rank, sc->dims);
  set_out_like(node_out(n, 2), sc->dtype, sc->rank, sc->dims);
}

static void bng_emit(Emit *e, Node *n) {
  set_it(n);
  Value *x = n->inputs[1];
  int dt = x->dtype;
  const char *T = c_type(dt);
  int64_t N = x->dims[0], C = x->dims[1], S = prodd(x->dims + 2, x->rank - 2), NS = N * S;
  double eps = attr_f(n, "epsilon", 1e-5f);
  bool train = attr_i(n, "training", 0) != 0;
  loopv(e, "c", C);
  /* per image row: sums in 16 lanes of T (they vectorize), rows added in double */
  if (train) {
    ep(e, "double sum = 0, sq = 0;");
    loopv(e, "nb", N);
    ep(e, "const %s *xp = X1 + (nb * %lld + c) * %lld;", T, LL(C), LL(S));
    emit_lane_sums(e, T, IT, S, 1, (const char *const[]){"sum"}, (const char *const[]){"xp[q]"});
    ep(e, "}");
    ep(e, "const double mean = sum / %lld.0;", LL(NS));
    ep(e, "const %s mt = (%s)mean;", T, T);
    loopv(e, "nb", N);
    ep(e, "const %s *xp = X1 + (nb * %lld + c) * %lld;", T, LL(C), LL(S));
    emit_lane_sums(e, T, IT, S, 1, (const char *const[]){"sq"}, (const char *const[]){"(xp[q] - mt) * (xp[q] - mt)"});
    ep(e, "}");
    ep(e, "const double inv = 1 / sqrt(sq / %lld.0 + %.17g);", LL(NS), eps);
  } else {
    ep(e, "const double mean = X3[c];");
    ep(e, "const double inv = 1 / sqrt((double)X4[c] + %.17g);", eps);
  }
  /* sum g (x - mean) first, times inv after */
  ep(e, "const %s mt2 = (%s)mean;", T, T);
  ep(e, "double sg = 0, sgx = 0;");
  loopv(e, "nb", N);
  ep(e, "const %s *xp = X1 + (nb * %lld + c) * %lld;", T, LL(C), LL(S));
  ep(e, "const %s *gp = X0 + (nb * %lld + c) * %lld;", T, LL(C), LL(S));
  emit_lane_sums(e, T, IT, S, 2, (const char *const[]){"sg", "sgx"}, (const char *const[]){"gp[q]", "gp[q] * (xp[q] - mt2)"});
  ep(e, "}");
  ep(e, "sgx *= inv;");
  ep(e, "if (Y1) Y1[c] = (%s)sgx;", T);
  ep(e, "if (Y2) Y2[c] = (%s)sg;", T);
  ep(e, "if (Y0) {");
  ep(e, "const double a = X2[c] * inv;");
  if (train) {
    ep(e, "const double mg = sg / %lld.0, mgx = sgx / %lld.0;", LL(NS), LL(NS));
  }
  loopv(e, "nb", N);
  if (train) ep(e, "const %s *xp = X1 + (nb * %lld + c) * %lld;", T, LL(C), LL(S));
  ep(e, "const %s *gp = X0 + (nb * %lld + c) * %lld;", T, LL(C), LL(S));
  ep(e, "%s *dp = Y0 + (nb * %lld + c) * %lld;", T, LL(C), LL(S));
  if (train) {
    /* in T: dp = a g - a mg - (x - mean) a inv mgx */
    ep(e, "const %s ta = (%s)a, tb = (%s)(a * mg), tc = (%s)(a * inv * mgx);", T, T, T, T);
    ep(e, "for (%s i = 0; i < %lld; i++) dp[i] = ta * gp[i] - tb - (xp[i] - mt2) * tc;", IT, LL(S));
  } else {
    ep(e, "const %s ta = (%s)a;", T, T);
    ep(e, "for (%s i = 0; i < %lld; i++) dp[i] = ta * gp[i];", IT, LL(S));
  }
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ---- LayerNormGrad ------------------------------------------------------------------------------ */

static void lng_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 3, 3);
  Value *dy = n->inputs[0], *x = n->inputs[1], *sc = n->inputs[2];
  need_float(ctx, n, dy);
  if (!same_shape(dy, x) || x->dtype != dy->dtype || sc->dtype != x->dtype) fail_node(ctx, n, "internal: shapes");
  int axis = norm_axis(ctx, n, attr_i(n, "axis", -1), x->rank);
  int64_t cols = prodd(x->dims + axis, x->rank - axis);
  if (value_numel(sc) != cols && value_numel(sc) != 1) fail_node(ctx, n, "scale does not match the normalized dims");
  set_out_like(node_out(n, 0), x->dtype, x->rank, x->dims);
  set_out_like(node_out(n, 1), sc->dtype, sc->rank, sc->dims);
  int64_t bd[ONNXC_MAX_RANK];
  int br = x->rank - axis;
  memcpy(bd, x->dims + axis, sizeof(int64_t) * (size_t)br);
  if (node_out(n, 2)) {
    /* dBias: shaped like the bias, which autodiff gives as attr bias_shape */
    const int64_t *bs;
    int nb = attr_ints(n, "bias_shape", &bs);
    if (node_attr(n, "bias_shape")) set_out_like(n->outputs[2], x->dtype, nb, bs);
    else set_out_like(n->outputs[2], x->dtype, br, bd);
  }
}

static void lng_emit(Emit *e, Node *n) {
  set_it(n);
  Value *x = n->inputs[1], *sc = n->inputs[2];
  int dt = x->dtype;
  const char *T = c_type(dt);
  int axis = norm_axis(e->ctx, n, attr_i(n, "axis", -1), x->rank);
  int64_t rows = prodd(x->dims, axis), cols = prodd(x->dims + axis, x->rank - axis);
  bool one = value_numel(sc) == 1 && cols != 1;
  const char *si = one ? "0" : "j";
  int64_t nb = node_out(n, 2) ? value_numel(n->outputs[2]) : 0;
  const char *bi = nb == 1 && cols != 1 ? "0" : "j";
  double eps = attr_f(n, "epsilon", 1e-5f);
  ep(e, "if (Y1) for (%s j = 0; j < %lld; j++) Y1[j] = 0;", IT, LL(value_numel(sc)));
  if (node_out(n, 2)) ep(e, "if (Y2) for (%s j = 0; j < %lld; j++) Y2[j] = 0;", IT, LL(nb));
  loopv(e, "rw", rows);
  ep(e, "const %s *xp = X1 + rw * %lld;", T, LL(cols));
  ep(e, "const %s *gp = X0 + rw * %lld;", T, LL(cols));
  ep(e, "double sum = 0, sq = 0;");
  ep(e, "for (%s j = 0; j < %lld; j++) sum += xp[j];", IT, LL(cols));
  ep(e, "const double mean = sum / %lld.0;", LL(cols));
  ep(e, "for (%s j = 0; j < %lld; j++) { const double t = xp[j] - mean; sq += t * t; }", IT, LL(cols));
  ep(e, "const double inv = 1 / sqrt(sq / %lld.0 + %.17g);", LL(cols), eps);
  ep(e, "double mg = 0, mgx = 0;");
  loopv(e, "j", cols);
  ep(e, "const double xh = (xp[j] - mean) * inv;");
  ep(e, "const double gs = (double)gp[j] * X2[%s];", si);
  ep(e, "mg += gs;");
  ep(e, "mgx += gs * xh;");
  ep(e, "if (Y1) Y1[%s] += (%s)(gp[j] * xh);", si, T);
  if (node_out(n, 2)) ep(e, "if (Y2) Y2[%s] += gp[j];", bi);
  ep(e, "}");
  ep(e, "mg /= %lld.0;", LL(cols));
  ep(e, "mgx /= %lld.0;", LL(cols));
  ep(e, "if (Y0) {");
  ep(e, "%s *dp = Y0 + rw * %lld;", T, LL(cols));
  ep(e, "for (%s j = 0; j < %lld; j++) dp[j] = (%s)(inv * ((double)gp[j] * X2[%s] - mg - (xp[j] - mean) * inv * mgx));",
     IT, LL(cols), T, si);
  ep(e, "}");
  ep(e, "}");
}

/* ---- SliceGrad, GatherGrad ------------------------------------------------------------------------ */

static void slg_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  Value *dy = n->inputs[0];
  const int64_t *shp, *st, *sp;
  int r = need_ints(ctx, n, "shape", &shp);
  if (need_ints(ctx, n, "starts", &st) != r || need_ints(ctx, n, "steps", &sp) != r || dy->rank != r)
    fail_node(ctx, n, "internal: slice gradient ranks");
  for (int d = 0; d < r; d++) {
    if (dy->dims[d] == 0) continue;
    int64_t last = st[d] + (dy->dims[d] - 1) * sp[d];
    if (st[d] < 0 || st[d] >= shp[d] || last < 0 || last >= shp[d]) fail_node(ctx, n, "internal: slice range");
  }
  value_set_shape(n->outputs[0], dy->dtype, r, shp);
}

static void slg_emit(Emit *e, Node *n) {
  set_it(n);
  Value *dy = n->inputs[0];
  const int64_t *shp, *st, *sp;
  int r = attr_ints(n, "shape", &shp);
  attr_ints(n, "starts", &st);
  attr_ints(n, "steps", &sp);
  ep(e, "memset(Y0, 0, %lld);", LL(value_bytes(n->outputs[0])));
  if (value_numel(dy) == 0) return;
  int64_t xstr[ONNXC_MAX_RANK];
  int64_t s = 1;
  for (int d = r - 1; d >= 0; d--) { xstr[d] = s; s *= shp[d]; }
  int64_t base = 0;
  for (int d = 0; d < r; d++) base += st[d] * xstr[d];
  ep(e, "%s o = 0;", IT);
  const char *idx = fmt(e, "%lld", LL(base));
  for (int d = 0; d < r; d++) {
    loopv(e, fmt(e, "i%d", d), dy->dims[d]);
    idx = fmt(e, "%s + i%d * %lld", idx, d, LL(sp[d] * xstr[d]));
  }
  ep(e, "Y0[%s] = X0[o++];", idx);
  for (int d = 0; d < r; d++) ep(e, "}");
}

static void gag_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 2);
  Value *dy = n->inputs[0], *ind = n->inputs[1];
  need_float(ctx, n, dy);
  if (ind->dtype != DT_INT64 && ind->dtype != DT_INT32) fail_node(ctx, n, "indices must be int32/int64");
  const int64_t *shp;
  int r = need_ints(ctx, n, "shape", &shp);
  int axis = norm_axis(ctx, n, attr_i(n, "axis", 0), r);
  if (dy->rank != r - 1 + ind->rank) fail_node(ctx, n, "internal: gather gradient ranks");
  (void)axis;
  value_set_shape(n->outputs[0], dy->dtype, r, shp);
}

static void gag_emit(Emit *e, Node *n) {
  set_it(n);
  Value *ind = n->inputs[1];
  const int64_t *shp;
  int r = attr_ints(n, "shape", &shp);
  int axis = norm_axis(e->ctx, n, attr_i(n, "axis", 0), r);
  int64_t outer = prodd(shp, axis), A = shp[axis], inner = prodd(shp + axis + 1, r - axis - 1), ni = value_numel(ind);
  ep(e, "memset(Y0, 0, %lld);", LL(value_bytes(n->outputs[0])));
  if (ni == 0 || outer * inner == 0) return;
  loopv(e, "ou", outer);
  loopv(e, "j", ni);
  ep(e, "int64_t ix = (int64_t)X1[j];");
  ep(e, "if (ix < 0) ix += %lld;", LL(A));
  ep(e, "if (ix < 0 || ix >= %lld) continue;", LL(A));
  ep(e, "%s *dp = Y0 + (ou * %lld + (%s)ix) * %lld;", c_type(n->outputs[0]->dtype), LL(A), IT, LL(inner));
  ep(e, "const %s *gp = X0 + (ou * %lld + j) * %lld;", c_type(n->outputs[0]->dtype), LL(ni), LL(inner));
  ep(e, "for (%s i = 0; i < %lld; i++) dp[i] += gp[i];", IT, LL(inner));
  ep(e, "}");
  ep(e, "}");
}

/* ---- LSTMGrad, GRUGrad, RNNGrad ------------------------------------------------------------------ */
/* Back-propagation through time of the recurrent layers.  Inputs: the forward op's X, W [D][G*H][I],
   R [D][G*H][H] (original layouts), B, sequence_lens (absent), initial_h, for LSTM also
   initial_c and P; then dY [S][D][B][H], dY_h [D][B][H] and for LSTM dY_c.  Outputs: dX, dW, dR,
   dB, dinitial_h and for LSTM dinitial_c, dP:
     LSTMGrad(X, W, R, B, -, H0, C0, P, dY, dY_h, dY_c) -> (dX, dW, dR, dB, dH0, dC0, dP)
     GRUGrad(X, W, R, B, -, H0, dY, dY_h) -> (dX, dW, dR, dB, dH0)      RNNGrad: the same
   Per direction the forward pass is recomputed, storing every step's state (and LSTM cell) and
   gates after activation, then walked backwards.  With dh = dh_next + dY_t the gradient of the
   step's output and hp the previous state, the gradients of the gate pre-activations are dax
   (of the x W^T + Wb terms) and dar (of the h R^T + Rb terms; they differ only in GRU's h gate):
     RNN   h = f(a):  da = dh f'(a)                                  (f: Tanh or Relu)
     GRU   h = (1 - z) n + z hp, z, r sigmoids, n = tanh(x Wn + Wbn + r (hp Rn + Rbn))
           (linear_before_reset) or tanh(x Wn + Wbn + (r hp) Rn + Rbn):
           dax_z = dh (hp - n) z (1 - z);  dax_n = dh (1 - z)(1 - n^2);  dh_prev = dh z + ...
           lbr: dar_n = dax_n r, dr = dax_n (hp Rn + Rbn) (stored with the gates)
           else: dar_n = dax_n, g = dar_n Rn, dr = g hp, dh_prev += g r;  dax_r = dr r (1 - r)
     LSTM  da_o = dh tanh(c) o (1 - o);  dc = dc_next + dh o (1 - tanh(c)^2) + da_o Po
           da_i = dc c~ i (1 - i);  da_f = dc c_prev f (1 - f);  da_c = dc i (1 - c~^2)
           dc_next = dc f + da_i Pi + da_f Pf
   then dW += dax x_t^T, dR += dar hin^T (hin = hp; r hp for GRU's h gate without lbr),
   dWb += dax, dRb += dar, dX_t += dax W, dh_prev += dar R (GRU without lbr: the z and r rows).
   Default activations (RNN: Tanh or Relu), no clip, no input_forget, layout 0, no
   sequence_lens (checked). */

enum { RG_RNN, RG_GRU, RG_LSTM };

typedef struct RG {
  int kind;
  int64_t S, B, I, H, D, G;
  bool rev[2], lbr;
  bool relu[2];       /* RNN: Relu instead of Tanh, per direction */
  int dy;             /* input index of dY (dY_h, dY_c follow) */
  int n_out;
} RG;

static void rg_info(Ctx *ctx, const Node *n, RG *l) {
  l->kind = !strcmp(n->op_type, "LSTMGrad") ? RG_LSTM : !strcmp(n->op_type, "GRUGrad") ? RG_GRU : RG_RNN;
  static const char *const fw[3] = {"RNN", "GRU", "LSTM"};
  const char *op = fw[l->kind];
  l->G = l->kind == RG_LSTM ? 4 : l->kind == RG_GRU ? 3 : 1;
  l->dy = l->kind == RG_LSTM ? 8 : 6;
  l->n_out = l->kind == RG_LSTM ? 7 : 5;
  require_inputs(ctx, n, 3, l->dy + (l->kind == RG_LSTM ? 3 : 2));
  Value *x = n->inputs[0], *r = n->inputs[2];
  need_float(ctx, n, x);
  if (x->rank != 3 || r->rank != 3) fail_node(ctx, n, "internal: %s ranks", op);
  const char *dir = attr_s(n, "direction", "forward");
  l->D = !strcmp(dir, "bidirectional") ? 2 : 1;
  l->rev[0] = !strcmp(dir, "reverse");
  l->rev[1] = true;
  l->S = x->dims[0];
  l->B = x->dims[1];
  l->I = x->dims[2];
  l->H = r->dims[2];
  l->lbr = l->kind == RG_GRU && attr_i(n, "linear_before_reset", 0) != 0;
  if (attr_i(n, "layout", 0)) fail_node(ctx, n, "no gradient rule for %s with layout=1", op);
  if (node_attr(n, "clip")) fail_node(ctx, n, "no gradient rule for %s with clip", op);
  if (attr_i(n, "input_forget", 0)) fail_node(ctx, n, "no gradient rule for LSTM with input_forget");
  if (node_in(n, 4)) fail_node(ctx, n, "no gradient rule for %s with sequence_lens", op);
  static const char *const dflt[3][3] = {{"Tanh"}, {"Sigmoid", "Tanh"}, {"Sigmoid", "Tanh", "Tanh"}};
  int nact = l->kind == RG_LSTM ? 3 : l->kind == RG_GRU ? 2 : 1;
  const Attr *aa = node_attr(n, "activations");
  for (int i = 0; aa && i < aa->n_strings; i++) {
    const char *s = aa->strings[i];
    if (l->kind == RG_RNN && !strcasecmp(s, "Relu") && i < 2) l->relu[i] = true;
    else if (strcasecmp(s, dflt[l->kind][i % nact]))
      fail_node(ctx, n, "no gradient rule for %s with activation '%s' (default activations%s only)", op, s,
                l->kind == RG_RNN ? " and Relu" : "");
  }
  if (aa && aa->n_strings == 1) l->relu[1] = l->relu[0];
  for (int k = 1; k < n->n_inputs; k++) {
    Value *v = node_in(n, k);
    if (v && k != 4 && v->dtype != x->dtype) fail_node(ctx, n, "internal: %s input types", op);
  }
  int64_t GH = l->G * l->H;
  Value *w = n->inputs[1];
  if (w->rank != 3 || w->dims[0] != l->D || w->dims[1] != GH || w->dims[2] != l->I || r->dims[0] != l->D || r->dims[1] != GH)
    fail_node(ctx, n, "internal: %s weight shapes", op);
}

/* Output k of the gradient op is the gradient of forward input rg_src[k]. */
static const int rg_src[7] = {0, 1, 2, 3, 5, 6, 7};

static void rg_infer(Ctx *ctx, Node *n) {
  RG l;
  rg_info(ctx, n, &l);
  if (n->n_outputs > l.n_out) fail_node(ctx, n, "internal: too many outputs");
  for (int k = 0; k < n->n_outputs; k++) {
    Value *o = node_out(n, k);
    if (!o) continue;
    Value *v = node_in(n, rg_src[k]);
    if (!v) fail_node(ctx, n, "internal: gradient of a missing input");
    value_set_shape(o, v->dtype, v->rank, v->dims);
  }
}

/* Scratch, in elements: the stored gates, states (and LSTM cells), then the per-step vectors. */
typedef struct RGScratch { int64_t ng, gs, hs, cs, dh, dc, dax, dar, dhp, rhp, drh, total; } RGScratch;

static void rg_scratch_layout(const RG *l, RGScratch *s) {
  int64_t H = l->H, B = l->B, S = l->S, GH = l->G * H, off = 0;
  s->ng = l->kind == RG_LSTM ? 4 * H : l->kind == RG_GRU ? 3 * H + (l->lbr ? H : 0) : 0;
#define TAKE(field, cnt) do { s->field = off; off += (cnt); } while (0)
  TAKE(gs, S * B * s->ng);
  TAKE(hs, (S + 1) * B * H);
  TAKE(cs, l->kind == RG_LSTM ? (S + 1) * B * H : 0);
  TAKE(dh, B * H);
  TAKE(dc, l->kind == RG_LSTM ? B * H : 0);
  TAKE(dax, GH);
  TAKE(dar, l->kind == RG_GRU ? GH : 0);
  TAKE(dhp, H);
  TAKE(rhp, l->kind == RG_GRU && !l->lbr ? H : 0);
  TAKE(drh, l->kind == RG_GRU && !l->lbr ? H : 0);
#undef TAKE
  s->total = off;
}

static int64_t rg_scratch(Ctx *ctx, Node *n) {
  RG l;
  rg_info(ctx, n, &l);
  RGScratch s;
  rg_scratch_layout(&l, &s);
  return s.total * (int64_t)dtype_size(n->inputs[0]->dtype);
}

/* acc = bias + w[row] . x + r[row] . hp  (the rows' dot products of one gate unit) */
static void rg_dots(Emit *e, const RG *l, const char *acc, const char *row, bool with_r) {
  ep(e, "for (%s i = 0; i < %lld; i++) %s += w[(%s) * %lld + i] * x[i];", IT, LL(l->I), acc, row, LL(l->I));
  if (with_r) ep(e, "for (%s j = 0; j < %lld; j++) %s += r[(%s) * %lld + j] * hp[j];", IT, LL(l->H), acc, row, LL(l->H));
}

static void rg_forward_step(Emit *e, Node *n, const RG *l, int d, const char *T, const char *f) {
  int64_t H = l->H, G = l->G * H;
  bool hasB = node_in(n, 3), hasP = l->kind == RG_LSTM && node_in(n, 7);
  const char *bx = hasB ? "bw[k]" : "0", *bxr = hasB ? fmt(e, "bw[k] + bw[%lld + k]", LL(G)) : "0";
  if (l->kind == RG_RNN) {
    loopv(e, "k", H);
    ep(e, "%s acc = %s;", T, bxr);
    rg_dots(e, l, "acc", "k", true);
    ep(e, "hn[k] = %s;", l->relu[d] ? "acc > 0 ? acc : 0" : fmt(e, "tanh%s(acc)", f));
    ep(e, "}");
    return;
  }
  if (l->kind == RG_GRU) {
    loopv(e, "k", 2 * H);
    ep(e, "%s acc = %s;", T, bxr);
    rg_dots(e, l, "acc", "k", true);
    ep(e, "g[k] = 1 / (1 + exp%s(-acc));", f);
    ep(e, "}");
    loopv(e, "j", H);
    ep(e, "const %s k = %lld + j;", IT, LL(2 * H));
    ep(e, "%s xn = %s, m = %s;", T, bx, hasB ? fmt(e, "bw[%lld + k]", LL(G)) : "0");
    ep(e, "for (%s i = 0; i < %lld; i++) xn += w[k * %lld + i] * x[i];", IT, LL(l->I), LL(l->I));
    if (l->lbr) {
      ep(e, "for (%s q = 0; q < %lld; q++) m += r[k * %lld + q] * hp[q];", IT, LL(H), LL(H));
      ep(e, "g[%lld + j] = m;", LL(3 * H));
    } else {
      ep(e, "for (%s q = 0; q < %lld; q++) m += r[k * %lld + q] * g[%lld + q] * hp[q];", IT, LL(H), LL(H), LL(H));
    }
    ep(e, "g[k] = tanh%s(xn + %s);", f, l->lbr ? fmt(e, "g[%lld + j] * m", LL(H)) : "m");
    ep(e, "hn[j] = (1 - g[j]) * g[k] + g[j] * hp[j];");
    ep(e, "}");
    return;
  }
  loopv(e, "k", G);
  ep(e, "%s acc = %s;", T, bxr);
  rg_dots(e, l, "acc", "k", true);
  ep(e, "g[k] = acc;");
  ep(e, "}");
  loopv(e, "j", H);
  ep(e, "const %s gi = 1 / (1 + exp%s(-(g[j]%s)));", T, f, hasP ? " + p[j] * cp[j]" : "");
  ep(e, "const %s gf = 1 / (1 + exp%s(-(g[%lld + j]%s)));", T, f, LL(2 * H), hasP ? fmt(e, " + p[%lld + j] * cp[j]", LL(2 * H)) : "");
  ep(e, "const %s gc = tanh%s(g[%lld + j]);", T, f, LL(3 * H));
  ep(e, "const %s c = gf * cp[j] + gi * gc;", T);
  ep(e, "const %s go = 1 / (1 + exp%s(-(g[%lld + j]%s)));", T, f, LL(H), hasP ? fmt(e, " + p[%lld + j] * c", LL(H)) : "");
  ep(e, "g[j] = gi;");
  ep(e, "g[%lld + j] = go;", LL(H));
  ep(e, "g[%lld + j] = gf;", LL(2 * H));
  ep(e, "g[%lld + j] = gc;", LL(3 * H));
  ep(e, "cn[j] = c;");
  ep(e, "hn[j] = go * tanh%s(c);", f);
  ep(e, "}");
}

/* dax / dar of one step and batch row (dhb: the step output's gradient, dY_t included) */
static void rg_gates_back(Emit *e, Node *n, const RG *l, int d, const char *T, const char *f) {
  int64_t H = l->H;
  bool hasP = l->kind == RG_LSTM && node_in(n, 7);
  loopv(e, "j", H);
  if (node_in(n, l->dy)) ep(e, "dhb[j] += X%d[((t * %lld + %d) * %lld + b) * %lld + j];", l->dy, LL(l->D), d, LL(l->B), LL(H));
  if (l->kind == RG_RNN) {
    ep(e, "dax[j] = %s;", l->relu[d] ? "hn[j] > 0 ? dhb[j] : 0" : "dhb[j] * (1 - hn[j] * hn[j])");
  } else if (l->kind == RG_GRU) {
    ep(e, "const %s z = g[j], rr = g[%lld + j], nn = g[%lld + j];", T, LL(H), LL(2 * H));
    ep(e, "const %s dn = dhb[j] * (1 - z) * (1 - nn * nn);", T);
    ep(e, "dax[j] = dhb[j] * (hp[j] - nn) * z * (1 - z);");
    ep(e, "dax[%lld + j] = dn;", LL(2 * H));
    ep(e, "dhp[j] = dhb[j] * z;");
    if (l->lbr) {
      ep(e, "dar[%lld + j] = dn * rr;", LL(2 * H));
      ep(e, "dax[%lld + j] = dn * g[%lld + j] * rr * (1 - rr);", LL(H), LL(3 * H));
    } else {
      ep(e, "dar[%lld + j] = dn;", LL(2 * H));
      ep(e, "rhp[j] = rr * hp[j];");
    }
  } else {
    ep(e, "const %s gi = g[j], go = g[%lld + j], gf = g[%lld + j], gc = g[%lld + j];", T, LL(H), LL(2 * H), LL(3 * H));
    ep(e, "const %s tc = tanh%s(cn[j]);", T, f);
    ep(e, "const %s dao = dhb[j] * tc * go * (1 - go);", T);
    ep(e, "const %s dcj = dcb[j] + dhb[j] * go * (1 - tc * tc)%s;", T, hasP ? fmt(e, " + dao * p[%lld + j]", LL(H)) : "");
    ep(e, "const %s dai = dcj * gc * gi * (1 - gi);", T);
    ep(e, "const %s daf = dcj * cp[j] * gf * (1 - gf);", T);
    ep(e, "dax[j] = dai;");
    ep(e, "dax[%lld + j] = dao;", LL(H));
    ep(e, "dax[%lld + j] = daf;", LL(2 * H));
    ep(e, "dax[%lld + j] = dcj * gi * (1 - gc * gc);", LL(3 * H));
    ep(e, "dcb[j] = dcj * gf%s;", hasP ? fmt(e, " + dai * p[j] + daf * p[%lld + j]", LL(2 * H)) : "");
    if (hasP && node_out(n, 6)) {
      ep(e, "if (Y6) {");
      ep(e, "Y6[%lld + j] += dai * cp[j];", LL(d * 3 * H));
      ep(e, "Y6[%lld + j] += dao * cn[j];", LL(d * 3 * H + H));
      ep(e, "Y6[%lld + j] += daf * cp[j];", LL(d * 3 * H + 2 * H));
      ep(e, "}");
    }
  }
  ep(e, "}");
  if (l->kind == RG_GRU) {
    if (!l->lbr) {
      /* the reset gate through (r hp) Rn: g = dar_n Rn */
      ep(e, "for (%s q = 0; q < %lld; q++) drh[q] = 0;", IT, LL(H));
      loopv(e, "j", H);
      ep(e, "const %s *rk = r + (%lld + j) * %lld;", T, LL(2 * H), LL(H));
      ep(e, "for (%s q = 0; q < %lld; q++) drh[q] += dar[%lld + j] * rk[q];", IT, LL(H), LL(2 * H));
      ep(e, "}");
      loopv(e, "q", H);
      ep(e, "const %s rr = g[%lld + q];", T, LL(H));
      ep(e, "dax[%lld + q] = drh[q] * hp[q] * rr * (1 - rr);", LL(H));
      ep(e, "dhp[q] += drh[q] * rr;");
      ep(e, "}");
    }
    ep(e, "for (%s k = 0; k < %lld; k++) dar[k] = dax[k];", IT, LL(2 * H));
  }
}

/* Step s, batch row b: the input x, the previous and new states hp, hn, the stored gates g and
   (LSTM) cells cp, cn; `wc` "const " when the stored values are only read. */
static void rg_step_ptrs(Emit *e, const RG *l, const RGScratch *sc, const char *T, const char *wc) {
  int64_t B = l->B, H = l->H;
  ep(e, "const %s *x = X0 + (t * %lld + b) * %lld;", T, LL(B), LL(l->I));
  ep(e, "const %s *hp = hs + (s * %lld + b) * %lld;", T, LL(B), LL(H));
  ep(e, "%s%s *hn = hs + ((s + 1) * %lld + b) * %lld;", wc, T, LL(B), LL(H));
  if (sc->ng) ep(e, "%s%s *g = gs + (s * %lld + b) * %lld;", wc, T, LL(B), LL(sc->ng));
  if (l->kind == RG_LSTM) {
    ep(e, "const %s *cp = cs + (s * %lld + b) * %lld;", T, LL(B), LL(H));
    ep(e, "%s%s *cn = cs + ((s + 1) * %lld + b) * %lld;", wc, T, LL(B), LL(H));
  }
}

static void rg_emit(Emit *e, Node *n) {
  set_it(n);
  RG l;
  rg_info(e->ctx, n, &l);
  RGScratch sc;
  rg_scratch_layout(&l, &sc);
  int dt = n->inputs[0]->dtype;
  const char *T = c_type(dt), *f = fs(dt);
  int64_t S = l.S, B = l.B, I = l.I, H = l.H, D = l.D, G = l.G * H;
  bool lstm = l.kind == RG_LSTM, gru = l.kind == RG_GRU;
  bool hasB = node_in(n, 3), hasH0 = node_in(n, 5), hasC0 = lstm && node_in(n, 6), hasP = lstm && node_in(n, 7);
  bool hasDH = node_in(n, l.dy + 1), hasDC = lstm && node_in(n, l.dy + 2);
  ep(e, "%s *const s0 = (%s *)(void *)W;", T, T);
#define SC(name) ep(e, "%s *const " #name " = s0 + %lld;", T, LL(sc.name))
  if (sc.ng) SC(gs);
  SC(hs);
  if (lstm) { SC(cs); }
  SC(dh);
  if (lstm) { SC(dc); }
  SC(dax);
  if (gru) { SC(dar); } else ep(e, "%s *const dar = dax;", T);
  SC(dhp);
  if (gru && !l.lbr) { SC(rhp); SC(drh); }
#undef SC
  ep(e, "(void)dar;");
  for (int k = 0; k < l.n_out && k < n->n_outputs; k++)
    if (node_out(n, k)) ep(e, "if (Y%d) memset(Y%d, 0, %lld);", k, k, LL(value_bytes(n->outputs[k])));
  for (int d = 0; d < D; d++) {
    bool rev = l.rev[d];
    const char *tt = rev ? fmt(e, "%lld - s", LL(S - 1)) : "s";
    ep(e, "{");
    ep(e, "/* direction %d (%s) */", d, rev ? "reverse" : "forward");
    ep(e, "const %s *w = X1 + %lld, *r = X2 + %lld;", T, LL(d * G * I), LL(d * G * H));
    ep(e, "(void)w;");
    if (hasB) ep(e, "const %s *bw = X3 + %lld;", T, LL(d * 2 * G));
    if (hasP) ep(e, "const %s *p = X7 + %lld;", T, LL(d * 3 * H));
    loopv(e, "q", B * H);
    ep(e, "hs[q] = %s;", hasH0 ? fmt(e, "X5[%lld + q]", LL(d * B * H)) : "0");
    if (lstm) ep(e, "cs[q] = %s;", hasC0 ? fmt(e, "X6[%lld + q]", LL(d * B * H)) : "0");
    ep(e, "}");
    /* forward, storing states and gates in processing order s */
    loopv(e, "s", S);
    ep(e, "const %s t = %s;", IT, tt);
    loopv(e, "b", B);
    rg_step_ptrs(e, &l, &sc, T, "");
    rg_forward_step(e, n, &l, d, T, f);
    ep(e, "}");
    ep(e, "}");
    /* backward through time */
    loopv(e, "q", B * H);
    ep(e, "dh[q] = %s;", hasDH ? fmt(e, "X%d[%lld + q]", l.dy + 1, LL(d * B * H)) : "0");
    if (lstm) ep(e, "dc[q] = %s;", hasDC ? fmt(e, "X%d[%lld + q]", l.dy + 2, LL(d * B * H)) : "0");
    ep(e, "}");
    ep(e, "for (%s s = %lld; s >= 0; s--) {", IT, LL(S - 1));
    ep(e, "const %s t = %s;", IT, tt);
    loopv(e, "b", B);
    rg_step_ptrs(e, &l, &sc, T, "const ");
    if (lstm) ep(e, "%s *dcb = dc + b * %lld;", T, LL(H));
    ep(e, "%s *dhb = dh + b * %lld;", T, LL(H));
    ep(e, "(void)x;");
    ep(e, "(void)hp;");
    ep(e, "(void)hn;");
    rg_gates_back(e, n, &l, d, T, f);
    if (node_out(n, 1)) {
      ep(e, "if (Y1) for (%s k = 0; k < %lld; k++) {", IT, LL(G));
      ep(e, "%s *dw = Y1 + %lld + k * %lld;", T, LL(d * G * I), LL(I));
      ep(e, "for (%s i = 0; i < %lld; i++) dw[i] += dax[k] * x[i];", IT, LL(I));
      ep(e, "}");
    }
    if (node_out(n, 2)) {
      ep(e, "if (Y2) for (%s k = 0; k < %lld; k++) {", IT, LL(G));
      ep(e, "%s *dr = Y2 + %lld + k * %lld;", T, LL(d * G * H), LL(H));
      ep(e, "const %s *hin = %s;", T, gru && !l.lbr ? fmt(e, "k < %lld ? hp : rhp", LL(2 * H)) : "hp");
      ep(e, "for (%s j = 0; j < %lld; j++) dr[j] += dar[k] * hin[j];", IT, LL(H));
      ep(e, "}");
    }
    if (node_out(n, 3)) {
      ep(e, "if (Y3) for (%s k = 0; k < %lld; k++) {", IT, LL(G));
      ep(e, "Y3[%lld + k] += dax[k];", LL(d * 2 * G));
      ep(e, "Y3[%lld + k] += dar[k];", LL(d * 2 * G + G));
      ep(e, "}");
    }
    if (node_out(n, 0)) {
      ep(e, "if (Y0) {");
      ep(e, "%s *dx = Y0 + (t * %lld + b) * %lld;", T, LL(B), LL(I));
      ep(e, "for (%s k = 0; k < %lld; k++) {", IT, LL(G));
      ep(e, "const %s *wk = w + k * %lld;", T, LL(I));
      ep(e, "for (%s i = 0; i < %lld; i++) dx[i] += dax[k] * wk[i];", IT, LL(I));
      ep(e, "}");
      ep(e, "}");
    }
    /* dh_prev = dar R (+ GRU's direct terms, already in dhp) */
    if (!gru) ep(e, "for (%s j = 0; j < %lld; j++) dhp[j] = 0;", IT, LL(H));
    ep(e, "for (%s k = 0; k < %lld; k++) {", IT, LL(gru && !l.lbr ? 2 * H : G));
    ep(e, "const %s *rk = r + k * %lld;", T, LL(H));
    ep(e, "for (%s j = 0; j < %lld; j++) dhp[j] += dar[k] * rk[j];", IT, LL(H));
    ep(e, "}");
    ep(e, "for (%s j = 0; j < %lld; j++) dhb[j] = dhp[j];", IT, LL(H));
    ep(e, "}");
    ep(e, "}");
    if (node_out(n, 4)) ep(e, "if (Y4) for (%s q = 0; q < %lld; q++) Y4[%lld + q] = dh[q];", IT, LL(B * H), LL(d * B * H));
    if (lstm && node_out(n, 5)) ep(e, "if (Y5) for (%s q = 0; q < %lld; q++) Y5[%lld + q] = dc[q];", IT, LL(B * H), LL(d * B * H));
    ep(e, "}");
  }
}

/* ---- rows --------------------------------------------------------------------------------------- */

#define GD "onnxc.grad"
#define GROW(name, infer, emit) {name, GD, 1, ONNXC_MAX_OPSET, 0, infer, NULL, emit, NULL, "float, double", NULL}

static const OpDef grad_rows[] = {
    GROW("Loss", loss_infer, loss_emit),
    {"ElementwiseGrad", GD, 1, ONNXC_MAX_OPSET, OPF_PARALLEL, ewg_infer, NULL, ewg_emit, NULL, "float, double", NULL},
    GROW("SoftmaxGrad", smg_infer, smg_emit),
    {"ConvGrad", GD, 1, ONNXC_MAX_OPSET, 0, cg_infer, NULL, cg_emit, cg_scratch, "float, double", NULL},
    GROW("PoolGrad", pg_infer, pg_emit),
    GROW("BatchNormGrad", bng_infer, bng_emit),
    GROW("LayerNormGrad", lng_infer, lng_emit),
    GROW("SliceGrad", slg_infer, slg_emit),
    GROW("GatherGrad", gag_infer, gag_emit),
    {"LSTMGrad", GD, 1, ONNXC_MAX_OPSET, 0, rg_infer, NULL, rg_emit, rg_scratch, "float, double", NULL},
    {"GRUGrad", GD, 1, ONNXC_MAX_OPSET, 0, rg_infer, NULL, rg_emit, rg_scratch, "float, double", NULL},
    {"RNNGrad", GD, 1, ONNXC_MAX_OPSET, 0, rg_infer, NULL, rg_emit, rg_scratch, "float, double", NULL},
};
OPS_FAMILY(grad);
