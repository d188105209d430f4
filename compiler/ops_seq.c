/*
 * ops_seq.c - recurrent layers (RNN, GRU, LSTM) and the ops whose output shape depends on data
 * (NonZero, Compress, Unique, NonMaxSuppression).
 *
 * Recurrent kernels run one direction after the other.  For each, W and R are transposed into
 * scratch once ([I][G*H] and [H][G*H], converted to the compute type), so every gate GEMV of
 * every time step runs i-k-j over contiguous weight rows: acc[j] += x[k] * Wt[k][j].  The
 * time loop is outside the batch loop so that sequence_lens can shorten single batch rows
 * (reverse direction starts at len-1; Y rows past len are zero).  Activations (with
 * activation_alpha/beta consumed in order by the functions that take them, as onnxruntime
 * does), clip (applied to the gate pre-activations, not to the cell state before h()),
 * input_forget, linear_before_reset and layout are baked into the emitted code.
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
} RnnInfo;

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

static int64_t rnn_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  const RnnInfo *ri = n->priv;
  int64_t GH = ri->G * ri->H;
  int64_t cnt = ri->I * GH + ri->H * GH + GH;     /* wt, rt, ax */
  if (ri->kind == K_GRU) cnt += GH + ri->H;        /* ah, rh */
  cnt += ri->B * ri->H * (ri->kind == K_LSTM ? 2 : 1);  /* hs, cs */
  int dt = n->inputs[0]->dtype;
  return cnt * (dt == DT_DOUBLE ? 8 : 4);
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

/* Emits "v = f(clip(v));" for a gate pre-activation held in variable v. */
static void emit_gate(Emit *e, const RnnInfo *ri, const Act *a, const char *v, int ct) {
  if (ri->has_clip) {
    const char *c = c_lit(e, ct, ri->clip);
    ep(e, "%s = %s < -%s ? -%s : (%s > %s ? %s : %s);", v, v, c, c, v, c, c, v);
  }
  ep(e, "%s = %s;", v, act_expr(e, a, v, ct));
}

/* acc[j] += v[k] * wt[k * GH + off + j] for k < K, j < J. */
static void emit_gemv(Emit *e, const char *it, const char *ctn, const char *acc, const char *vexpr,
                      int64_t K, const char *wt, int64_t GH, int64_t off, int64_t J) {
  ep(e, "for (%s k = 0; k < %lld; k++) {", it, (long long)K);
  ep(e, "const %s v = %s;", ctn, vexpr);
  if (off) ep(e, "const %s *w = %s + k * %lld + %lld;", ctn, wt, (long long)GH, (long long)off);
  else ep(e, "const %s *w = %s + k * %lld;", ctn, wt, (long long)GH);
  ep(e, "for (%s j = 0; j < %lld; j++) %s[j] += v * w[j];", it, (long long)J, acc);
  ep(e, "}");
}

static void rnn_emit(Emit *e, Node *n) {
  const RnnInfo *ri = n->priv;
  int dt = n->inputs[0]->dtype;
  int ct = dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT;
  const char *T = c_type(dt), *C = c_ctype(dt);
  int64_t S = ri->S, B = ri->B, I = ri->I, H = ri->H, D = ri->D, G = ri->G, GH = G * H;
  bool hasB = node_in(n, 3), hasSL = node_in(n, 4), hasH0 = node_in(n, 5);
  bool hasC0 = ri->kind == K_LSTM && node_in(n, 6), hasP = ri->kind == K_LSTM && node_in(n, 7);
  int64_t big = S * B * (I > H ? I : H) * D;
  if (D * GH * (I > H ? I : H) > big) big = D * GH * (I > H ? I : H);
  const char *it = big < 2000000000LL ? "int" : "long long";
  const char *zero = c_lit(e, ct, 0), *one = c_lit(e, ct, 1);

  ep(e, "%s *wt = (%s *)(void *)W;", C, C);
  ep(e, "%s *rt = wt + %lld;", C, (long long)(I * GH));
  ep(e, "%s *ax = rt + %lld;", C, (long long)(H * GH));
  const char *last = "ax";
  int64_t last_n = GH;
  if (ri->kind == K_GRU) {
    ep(e, "%s *ah = ax + %lld;", C, (long long)GH);
    ep(e, "%s *rh = ah + %lld;", C, (long long)GH);
    last = "rh";
    last_n = H;
  }
  ep(e, "%s *hs = %s + %lld;", C, last, (long long)last_n);
  if (ri->kind == K_LSTM) ep(e, "%s *cs = hs + %lld;", C, (long long)(B * H));
  if (hasSL) {
    /* rows past a batch entry's length stay zero */
    ep(e, "if (Y0) {");
    ep(e, "for (%s i = 0; i < %lld; i++) Y0[i] = 0;", it, (long long)(S * D * B * H));
    ep(e, "}");
  }
  for (int d = 0; d < D; d++) {
    const Act *acts = ri->act[d];
    ep(e, "/* direction %d (%s) */", d, ri->rev[d] ? "reverse" : "forward");
    ep(e, "for (%s j = 0; j < %lld; j++) {", it, (long long)GH);
    ep(e, "for (%s k = 0; k < %lld; k++) wt[k * %lld + j] = %s;", it, (long long)I, (long long)GH,
       c_load(e, dt, fmt(e, "X1[%lld + j * %lld + k]", (long long)(d * GH * I), (long long)I)));
    ep(e, "for (%s k = 0; k < %lld; k++) rt[k * %lld + j] = %s;", it, (long long)H, (long long)GH,
       c_load(e, dt, fmt(e, "X2[%lld + j * %lld + k]", (long long)(d * GH * H), (long long)H)));
    ep(e, "}");
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
    ep(e, "for (%s s = 0; s < %lld; s++) {", it, (long long)S);
    ep(e, "for (%s b = 0; b < %lld; b++) {", it, (long long)B);
    const char *len = fmt(e, "%lld", (long long)S);
    if (hasSL) {
      ep(e, "%s len = (%s)X4[b];", it, it);
      ep(e, "if (len > %lld) len = %lld;", (long long)S, (long long)S);
      ep(e, "if (s >= len) continue;");
      len = "len";
    }
    if (ri->rev[d]) ep(e, "const %s t = %s - 1 - s;", it, len);
    else ep(e, "const %s t = s;", it);
    if (ri->layout == 0) ep(e, "const %s *x = X0 + (t * %lld + b) * %lld;", T, (long long)B, (long long)I);
    else ep(e, "const %s *x = X0 + (b * %lld + t) * %lld;", T, (long long)S, (long long)I);
    ep(e, "%s *h = hs + b * %lld;", C, (long long)H);
    if (ri->kind == K_LSTM) ep(e, "%s *c = cs + b * %lld;", C, (long long)H);
    /* input projection (+ bias) */
    long long boff = (long long)(d * 2 * GH);
    if (hasB && ri->kind != K_GRU)
      ep(e, "for (%s j = 0; j < %lld; j++) ax[j] = %s + %s;", it, (long long)GH,
         c_load(e, dt, fmt(e, "X3[%lld + j]", boff)), c_load(e, dt, fmt(e, "X3[%lld + j]", boff + GH)));
    else if (hasB)
      ep(e, "for (%s j = 0; j < %lld; j++) ax[j] = %s;", it, (long long)GH, c_load(e, dt, fmt(e, "X3[%lld + j]", boff)));
    else
      ep(e, "for (%s j = 0; j < %lld; j++) ax[j] = %s;", it, (long long)GH, zero);
    emit_gemv(e, it, C, "ax", c_load(e, dt, "x[k]"), I, "wt", GH, 0, GH);
    if (ri->kind != K_GRU) {
      emit_gemv(e, it, C, "ax", "h[k]", H, "rt", GH, 0, GH);
    } else {
      int64_t nc = ri->lbr ? GH : 2 * H;
      if (hasB)
        ep(e, "for (%s j = 0; j < %lld; j++) ah[j] = %s;", it, (long long)nc, c_load(e, dt, fmt(e, "X3[%lld + j]", boff + GH)));
      else
        ep(e, "for (%s j = 0; j < %lld; j++) ah[j] = %s;", it, (long long)nc, zero);
      emit_gemv(e, it, C, "ah", "h[k]", H, "rt", GH, 0, nc);
    }
    /* gates */
    if (ri->kind == K_RNN) {
      ep(e, "for (%s j = 0; j < %lld; j++) {", it, (long long)H);
      ep(e, "%s g = ax[j];", C);
      emit_gate(e, ri, &acts[0], "g", ct);
      ep(e, "h[j] = g;");
      ep(e, "}");
    } else if (ri->kind == K_GRU) {
      if (!ri->lbr) {
        /* h~ = g(x Wh + (r . h) Rh + Wbh + Rbh) */
        ep(e, "for (%s j = 0; j < %lld; j++) {", it, (long long)H);
        ep(e, "%s r = ax[%lld + j] + ah[%lld + j];", C, (long long)H, (long long)H);
        emit_gate(e, ri, &acts[0], "r", ct);
        ep(e, "rh[j] = r * h[j];");
        ep(e, "}");
        if (hasB)
          ep(e, "for (%s j = 0; j < %lld; j++) ah[%lld + j] = %s;", it, (long long)H, (long long)(2 * H),
             c_load(e, dt, fmt(e, "X3[%lld + j]", boff + GH + 2 * H)));
        else
          ep(e, "for (%s j = 0; j < %lld; j++) ah[%lld + j] = %s;", it, (long long)H, (long long)(2 * H), zero);
        emit_gemv(e, it, C, fmt(e, "(ah + %lld)", (long long)(2 * H)), "rh[k]", H, "rt", GH, 2 * H, H);
        ep(e, "for (%s j = 0; j < %lld; j++) {", it, (long long)H);
        ep(e, "%s z = ax[j] + ah[j];", C);
        emit_gate(e, ri, &acts[0], "z", ct);
        ep(e, "%s hh = ax[%lld + j] + ah[%lld + j];", C, (long long)(2 * H), (long long)(2 * H));
        emit_gate(e, ri, &acts[1], "hh", ct);
        ep(e, "h[j] = (%s - z) * hh + z * h[j];", one);
        ep(e, "}");
      } else {
        /* h~ = g(x Wh + Wbh + r . (h Rh + Rbh)) */
        ep(e, "for (%s j = 0; j < %lld; j++) {", it, (long long)H);
        ep(e, "%s z = ax[j] + ah[j];", C);
        emit_gate(e, ri, &acts[0], "z", ct);
        ep(e, "%s r = ax[%lld + j] + ah[%lld + j];", C, (long long)H, (long long)H);
        emit_gate(e, ri, &acts[0], "r", ct);
        ep(e, "%s hh = ax[%lld + j] + r * ah[%lld + j];", C, (long long)(2 * H), (long long)(2 * H));
        emit_gate(e, ri, &acts[1], "hh", ct);
        ep(e, "h[j] = (%s - z) * hh + z * h[j];", one);
        ep(e, "}");
      }
    } else {
      /* LSTM gates in ax: i, o, f, c; peepholes P: i, o, f */
      long long poff = (long long)(d * 3 * H);
      ep(e, "for (%s j = 0; j < %lld; j++) {", it, (long long)H);
      if (hasP) ep(e, "%s gi = ax[j] + %s * c[j];", C, c_load(e, dt, fmt(e, "X7[%lld + j]", poff)));
      else ep(e, "%s gi = ax[j];", C);
      emit_gate(e, ri, &acts[0], "gi", ct);
      if (ri->input_forget) {
        ep(e, "%s gf = %s - gi;", C, one);
      } else {
        if (hasP) ep(e, "%s gf = ax[%lld + j] + %s * c[j];", C, (long long)(2 * H), c_load(e, dt, fmt(e, "X7[%lld + j]", poff + 2 * H)));
        else ep(e, "%s gf = ax[%lld + j];", C, (long long)(2 * H));
        emit_gate(e, ri, &acts[0], "gf", ct);
      }
      ep(e, "%s gc = ax[%lld + j];", C, (long long)(3 * H));
      emit_gate(e, ri, &acts[1], "gc", ct);
      ep(e, "const %s cn = gf * c[j] + gi * gc;", C);
      ep(e, "c[j] = cn;");
      if (hasP) ep(e, "%s go = ax[%lld + j] + %s * cn;", C, (long long)H, c_load(e, dt, fmt(e, "X7[%lld + j]", poff + H)));
      else ep(e, "%s go = ax[%lld + j];", C, (long long)H);
      emit_gate(e, ri, &acts[0], "go", ct);
      ep(e, "h[j] = go * %s;", act_expr(e, &acts[2], "cn", ct));
      ep(e, "}");
    }
    /* Y: layout 0 [S][D][B][H], layout 1 [B][S][D][H] */
    ep(e, "if (Y0) {");
    if (ri->layout == 0)
      ep(e, "%s *y = Y0 + ((t * %lld + %d) * %lld + b) * %lld;", T, (long long)D, d, (long long)B, (long long)H);
    else
      ep(e, "%s *y = Y0 + ((b * %lld + t) * %lld + %d) * %lld;", T, (long long)S, (long long)D, d, (long long)H);
    ep(e, "for (%s j = 0; j < %lld; j++) y[j] = %s;", it, (long long)H, c_store(e, dt, "h[j]"));
    ep(e, "}");
    ep(e, "}");
    ep(e, "}");
    /* final states */
    for (int k = 1; k <= (ri->kind == K_LSTM ? 2 : 1); k++) {
      if (!node_out(n, k)) continue;
      ep(e, "if (Y%d) {", k);
      ep(e, "for (%s b = 0; b < %lld; b++) {", it, (long long)B);
      ep(e, "for (%s j = 0; j < %lld; j++) Y%d[%s + j] = %s;", it, (long long)H, k, hoff,
         c_store(e, dt, fmt(e, "%s[b * %lld + j]", k == 1 ? "hs" : "cs", (long long)H)));
      ep(e, "}");
      ep(e, "}");
    }
  }
}
