/*
 * ops_attention.c - Softmax, LogSoftmax, Hardmax, Attention, FlexAttention, RotaryEmbedding,
 * CausalConvWithState, LinearAttention.
 *
 * Softmax family: the tensor is viewed as [outer, len, inner] (opset < 13: coerced to 2-D at
 * `axis`, so inner = 1 and len = prod(dims[axis:]); opset 13+: one axis).  Rows are reduced in
 * three passes (max, sum of exp(x - max), normalize); when inner > 1 the passes run over whole
 * [len, inner] slabs with the inner dimension innermost, keeping accesses contiguous.
 * float16 Softmax/LogSoftmax compute in float and round once, at the store (as ONNX Runtime
 * does): rounding every step like numpy's float16 reference makes LogSoftmax -inf wherever the
 * float16 probability underflows (below about -17).  bfloat16 rounds after every step like the
 * ONNX reference, which the bf16 Attention node tests' data follows.
 *
 * Attention (opset 23+): one fused kernel per (batch, query head, query row): the scores
 * against every key (past keys first when a cache is given) are computed into a scratch row,
 * softcapped, the additive bias (attn_mask, causal frontier, sliding window, non-pad lengths)
 * is composed on the fly, a max-subtracted softmax is taken and the row of probabilities
 * multiplies V.  3-D inputs are read in place through strides (no transposes); GQA maps query
 * head h to key/value head h / (q_heads / kv_heads).  A row whose bias is entirely -inf is a
 * zero row (the spec's fully-masked-row rule).
 *
 * float16/bfloat16 attention rounds where the reference rounds (scaled Q/K products, scores,
 * softmax steps, probabilities) so results match it bit for bit in most cases.
 * FlexAttention (ai.onnx.preview) reuses that kernel; with score_mod/prob_mod subgraphs it is
 * expanded into standard ops around the spliced subgraphs (unroll.c).
 *
 * RotaryEmbedding (opset 23): rotates the first rotary_embedding_dim channels of each head by
 * the cos/sin caches (indexed by position_ids when given), halves or interleaved pairs.
 *
 * CausalConvWithState and LinearAttention (opset 27): a depthwise causal conv over [past_state,
 * input] with optional SiLU; and the linear/gated/delta/gated_delta recurrence, run step by step
 * over time on a float32 state kept in scratch (GQA reads kv head h / group).
 */
#include <math.h>
#include <string.h>

#include "onnxc.h"

static const int float_types[] = {DT_FLOAT, DT_DOUBLE, DT_FLOAT16, DT_BFLOAT16, 0};

/* Compute type of a float storage type: float or double. */
static int ctype_of(int dt) { return dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT; }
/* libm function name for the compute type ("expf" / "exp"). */
static const char *mf(Emit *e, int ct, const char *name) {
  return ct == DT_DOUBLE ? name : fmt(e, "%sf", name);
}
/* expr rounded to storage type dt and back (identity for float/double). */
static const char *rnd(Emit *e, int dt, const char *expr) {
  if (dt != DT_FLOAT16 && dt != DT_BFLOAT16) return expr;
  return c_load(e, dt, c_store(e, dt, expr));
}
static double c_is_half_round(int dt, double x) {
  return dt == DT_FLOAT16 ? half_to_float(float_to_half((float)x)) : bf16_to_float(float_to_bf16((float)x));
}
/* Index type for loops over n elements. */
static const char *itype(int64_t n) { return n < 2147483647LL ? "int" : "int64_t"; }

/* ---- Softmax, LogSoftmax, Hardmax --------------------------------------------------------- */

enum { SM_SOFTMAX = 0, SM_LOGSOFTMAX = 1, SM_HARDMAX = 2 };
static const int sm_kind[3] = {SM_SOFTMAX, SM_LOGSOFTMAX, SM_HARDMAX};

static void sm_geom(Ctx *ctx, Node *n, int64_t *outer, int64_t *len, int64_t *inner) {
  Value *x = n->inputs[0];
  int r = x->rank;
  bool legacy = n->opset < 13;
  int64_t axis = attr_i(n, "axis", legacy ? 1 : -1);
  int a;
  if (r == 0) {
    if (axis != 0 && axis != -1) fail_node(ctx, n, "axis %lld is out of range for a scalar", (long long)axis);
    *outer = *len = *inner = 1;
    return;
  }
  if (legacy) {
    /* coerce to 2-D: axis may equal rank (then the second dimension is 1) */
    if (axis < -r || axis > r) fail_node(ctx, n, "axis %lld is out of range for rank %d", (long long)axis, r);
    a = (int)(axis < 0 ? axis + r : axis);
    *outer = 1;
    *len = 1;
    for (int d = 0; d < a; d++) *outer *= x->dims[d];
    for (int d = a; d < r; d++) *len *= x->dims[d];
    *inner = 1;
    return;
  }
  a = norm_axis(ctx, n, axis, r);
  *outer = *inner = 1;
  for (int d = 0; d < a; d++) *outer *= x->dims[d];
  *len = x->dims[a];
  for (int d = a + 1; d < r; d++) *inner *= x->dims[d];
}

static void sm_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  require_dtype(ctx, n, 0, float_types);
  int64_t o, l, i;
  sm_geom(ctx, n, &o, &l, &i);
  infer_same_as_input0(ctx, n);
}

static int64_t sm_scratch(Ctx *ctx, Node *n) {
  int64_t o, l, i;
  sm_geom(ctx, n, &o, &l, &i);
  return i > 1 ? i * 16 + 16 : 0;
}

static void sm_emit(Emit *e, Node *n) {
  int kind = *(const int *)n->def->arg;
  Value *x = n->inputs[0];
  int dt = x->dtype, ct = ctype_of(dt);
  const char *CT = c_type(ct), *T = c_type(dt);
  int64_t outer, len, inner;
  sm_geom(e->ctx, n, &outer, &len, &inner);
  if (value_numel(x) == 0) return;
  const char *it = itype(value_numel(x));
  const char *ex = mf(e, ct, "exp"), *lg = mf(e, ct, "log");
  bool direct = dt == DT_FLOAT || dt == DT_DOUBLE; /* Y can hold intermediates */
  const char *one = c_store(e, dt, c_lit(e, ct, 1)), *zero = c_store(e, dt, c_lit(e, ct, 0));
  ep(e, "%s o, a;", it);
  if (kind != SM_HARDMAX && dt == DT_BFLOAT16) {
    /* bfloat16: round after every step like the ONNX reference (x - max, exp, the sum, the
       quotient; LogSoftmax = log(Softmax)): the node tests' expected outputs (the bf16 Attention
       cases) are computed so.  ONNX Runtime has no bfloat16 Softmax on the CPU to compare with. */
    const char *x_a = c_load(e, dt, fmt(e, "x[a * %lld]", (long long)inner));
    const char *ev = rnd(e, dt, fmt(e, "%s(%s)", ex, rnd(e, dt, fmt(e, "%s - m", x_a))));
    ep(e, "%s t;", it);
    ep(e, "for (o = 0; o < %lld; o++) {", (long long)outer);
    ep(e, "for (t = 0; t < %lld; t++) {", (long long)inner);
    ep(e, "const %s *x = X0 + o * %lld + t;", T, (long long)(len * inner));
    ep(e, "%s *y = Y0 + o * %lld + t;", T, (long long)(len * inner));
    ep(e, "%s m = %s, s = 0;", CT, c_load(e, dt, "x[0]"));
    ep(e, "for (a = 1; a < %lld; a++) if (%s > m) m = %s;", (long long)len, x_a, x_a);
    ep(e, "for (a = 0; a < %lld; a++) s = %s;", (long long)len, rnd(e, dt, fmt(e, "s + %s", ev)));
    const char *pv = rnd(e, dt, fmt(e, "%s / s", ev));
    ep(e, "for (a = 0; a < %lld; a++) y[a * %lld] = %s;", (long long)len, (long long)inner,
       c_store(e, dt, kind == SM_SOFTMAX ? pv : fmt(e, "%s(%s)", lg, pv)));
    ep(e, "}");
    ep(e, "}");
    return;
  }
  if (inner == 1) {
    emit_par_for(e, "", "o", outer);
    ep(e, "const %s *x = X0 + o * %lld;", T, (long long)len);
    ep(e, "%s *y = Y0 + o * %lld;", T, (long long)len);
    ep(e, "%s m = %s;", CT, c_load(e, dt, "x[0]"));
    if (kind == SM_HARDMAX) {
      ep(e, "%s k = 0;", it);
      ep(e, "for (a = 1; a < %lld; a++) {", (long long)len);
      ep(e, "%s v = %s;", CT, c_load(e, dt, "x[a]"));
      ep(e, "if (v > m) { m = v; k = a; }");
      ep(e, "}");
      ep(e, "for (a = 0; a < %lld; a++) y[a] = a == k ? %s : %s;", (long long)len, one, zero);
      ep(e, "}");
      return;
    }
    ep(e, "%s s = 0;", CT);
    if (kind == SM_SOFTMAX && dt == DT_FLOAT && !e->cuda && len >= 16) {
      /* the vector row (templates/gemm.h); the scalar form below, maximum first, where it
         declines (NaN, inf) */
      emit_use_template(e, "gemm");
      ep(e, "if (onnxc_softmax_row(x, y, %lld)) continue;", (long long)len);
    }
    ep(e, "for (a = 1; a < %lld; a++) {", (long long)len);
    ep(e, "%s v = %s;", CT, c_load(e, dt, "x[a]"));
    ep(e, "if (v > m) m = v;");
    ep(e, "}");
    if (kind == SM_SOFTMAX && direct) {
      ep(e, "for (a = 0; a < %lld; a++) {", (long long)len);
      ep(e, "%s t = %s(x[a] - m);", CT, ex);
      ep(e, "y[a] = t;");
      ep(e, "s += t;");
      ep(e, "}");
      ep(e, "s = 1 / s;");
      ep(e, "for (a = 0; a < %lld; a++) y[a] *= s;", (long long)len);
    } else {
      ep(e, "for (a = 0; a < %lld; a++) s += %s(%s - m);", (long long)len, ex, c_load(e, dt, "x[a]"));
      if (kind == SM_SOFTMAX) {
        ep(e, "s = 1 / s;");
        ep(e, "for (a = 0; a < %lld; a++) y[a] = %s;", (long long)len,
           c_store(e, dt, fmt(e, "%s(%s - m) * s", ex, c_load(e, dt, "x[a]"))));
      } else {
        ep(e, "s = %s(s);", lg);
        ep(e, "for (a = 0; a < %lld; a++) y[a] = %s;", (long long)len,
           c_store(e, dt, fmt(e, "(%s - m) - s", c_load(e, dt, "x[a]"))));
      }
    }
    ep(e, "}");
    return;
  }
  /* inner > 1: per-slab vectors of maxima and sums in scratch */
  long long L = (long long)len, I = (long long)inner;
  ep(e, "%s t;", it);
  ep(e, "%s *m = (%s *)W;", CT, CT);
  ep(e, "%s *s = m + %lld;", CT, I);
  ep(e, "for (o = 0; o < %lld; o++) {", (long long)outer);
  ep(e, "const %s *x = X0 + o * %lld;", T, L * I);
  ep(e, "%s *y = Y0 + o * %lld;", T, L * I);
  ep(e, "for (t = 0; t < %lld; t++) { m[t] = %s; s[t] = 0; }", I, c_load(e, dt, "x[t]"));
  ep(e, "for (a = 1; a < %lld; a++) {", L);
  ep(e, "for (t = 0; t < %lld; t++) {", I);
  ep(e, "%s v = %s;", CT, c_load(e, dt, fmt(e, "x[a * %lld + t]", I)));
  if (kind == SM_HARDMAX) ep(e, "if (v > m[t]) { m[t] = v; s[t] = (%s)a; }", CT);
  else ep(e, "if (v > m[t]) m[t] = v;");
  ep(e, "}");
  ep(e, "}");
  if (kind == SM_HARDMAX) {
    ep(e, "for (a = 0; a < %lld; a++)", L);
    ep(e, "  for (t = 0; t < %lld; t++) y[a * %lld + t] = s[t] == (%s)a ? %s : %s;", I, I, CT, one, zero);
    ep(e, "}");
    return;
  }
  ep(e, "for (a = 0; a < %lld; a++) {", L);
  ep(e, "for (t = 0; t < %lld; t++) {", I);
  ep(e, "%s v = %s(%s - m[t]);", CT, ex, c_load(e, dt, fmt(e, "x[a * %lld + t]", I)));
  if (kind == SM_SOFTMAX && direct) ep(e, "y[a * %lld + t] = v;", I);
  ep(e, "s[t] += v;");
  ep(e, "}");
  ep(e, "}");
  if (kind == SM_SOFTMAX) ep(e, "for (t = 0; t < %lld; t++) s[t] = 1 / s[t];", I);
  else ep(e, "for (t = 0; t < %lld; t++) s[t] = %s(s[t]);", I, lg);
  ep(e, "for (a = 0; a < %lld; a++) {", L);
  ep(e, "for (t = 0; t < %lld; t++) {", I);
  if (kind == SM_SOFTMAX && direct) ep(e, "y[a * %lld + t] *= s[t];", I);
  else if (kind == SM_SOFTMAX)
    ep(e, "y[a * %lld + t] = %s;", I, c_store(e, dt, fmt(e, "%s(%s - m[t]) * s[t]", ex, c_load(e, dt, fmt(e, "x[a * %lld + t]", I)))));
  else
    ep(e, "y[a * %lld + t] = %s;", I, c_store(e, dt, fmt(e, "(%s - m[t]) - s[t]", c_load(e, dt, fmt(e, "x[a * %lld + t]", I)))));
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ---- Attention ---------------------------------------------------------------------------- */

typedef struct AttnGeom {
  int64_t B, Hq, Hkv, S, L, P, T, D, Dv;
  bool rank3;
  /* element strides of batch, head, row for Q, K, V, Y (the last dim is contiguous) */
  int64_t qs[3], ks[3], vs[3], ys[3];
  /* mask: strides over (b, h, i, j) (0 = broadcast) and its kv length */
  int64_t ms[4], mkv;
} AttnGeom;

static void attn_geom(Ctx *ctx, Node *n, AttnGeom *g) {
  Value *q = n->inputs[0], *k = n->inputs[1], *v = n->inputs[2];
  Value *mask = node_in(n, 3), *pk = node_in(n, 4), *pv = node_in(n, 5);
  memset(g, 0, sizeof *g);
  if (q->rank != k->rank || q->rank != v->rank || (q->rank != 3 && q->rank != 4))
    fail_node(ctx, n, "Q, K and V must all be 3-D or all 4-D");
  g->B = q->dims[0];
  if (k->dims[0] != g->B || v->dims[0] != g->B) fail_node(ctx, n, "Q, K and V batch sizes differ");
  if (q->rank == 3) {
    g->rank3 = true;
    const Attr *qa = node_attr(n, "q_num_heads"), *ka = node_attr(n, "kv_num_heads");
    if (!qa || !ka) fail_node(ctx, n, "3-D inputs need the q_num_heads and kv_num_heads attributes");
    g->Hq = qa->i;
    g->Hkv = ka->i;
    if (g->Hq <= 0 || g->Hkv <= 0) fail_node(ctx, n, "num heads must be positive");
    if (q->dims[2] % g->Hq || k->dims[2] % g->Hkv || v->dims[2] % g->Hkv)
      fail_node(ctx, n, "hidden sizes are not divisible by the number of heads");
    g->S = q->dims[1];
    g->L = k->dims[1];
    if (v->dims[1] != g->L) fail_node(ctx, n, "K and V sequence lengths differ");
    g->D = q->dims[2] / g->Hq;
    if (k->dims[2] / g->Hkv != g->D) fail_node(ctx, n, "Q and K head sizes differ");
    g->Dv = v->dims[2] / g->Hkv;
    g->qs[0] = g->S * q->dims[2]; g->qs[1] = g->D; g->qs[2] = q->dims[2];
    g->ks[0] = g->L * k->dims[2]; g->ks[1] = g->D; g->ks[2] = k->dims[2];
    g->vs[0] = g->L * v->dims[2]; g->vs[1] = g->Dv; g->vs[2] = v->dims[2];
    g->ys[0] = g->S * g->Hq * g->Dv; g->ys[1] = g->Dv; g->ys[2] = g->Hq * g->Dv;
  } else {
    g->Hq = q->dims[1];
    g->Hkv = k->dims[1];
    if (v->dims[1] != g->Hkv) fail_node(ctx, n, "K and V head counts differ");
    g->S = q->dims[2];
    g->L = k->dims[2];
    if (v->dims[2] != g->L) fail_node(ctx, n, "K and V sequence lengths differ");
    g->D = q->dims[3];
    if (k->dims[3] != g->D) fail_node(ctx, n, "Q and K head sizes differ");
    g->Dv = v->dims[3];
    g->qs[0] = g->Hq * g->S * g->D; g->qs[1] = g->S * g->D; g->qs[2] = g->D;
    g->ks[0] = g->Hkv * g->L * g->D; g->ks[1] = g->L * g->D; g->ks[2] = g->D;
    g->vs[0] = g->Hkv * g->L * g->Dv; g->vs[1] = g->L * g->Dv; g->vs[2] = g->Dv;
    g->ys[0] = g->Hq * g->S * g->Dv; g->ys[1] = g->S * g->Dv; g->ys[2] = g->Dv;
  }
  if (g->Hq % g->Hkv) fail_node(ctx, n, "q heads (%lld) are not a multiple of kv heads (%lld)", (long long)g->Hq, (long long)g->Hkv);
  if ((pk == NULL) != (pv == NULL)) fail_node(ctx, n, "past_key and past_value must be given together");
  if (pk) {
    if (node_in(n, 6)) fail_node(ctx, n, "nonpad_kv_seqlen cannot be combined with past_key/past_value");
    if (pk->rank != 4 || pv->rank != 4 || pk->dims[0] != g->B || pk->dims[1] != g->Hkv || pk->dims[3] != g->D ||
        pv->dims[0] != g->B || pv->dims[1] != g->Hkv || pv->dims[3] != g->Dv || pv->dims[2] != pk->dims[2])
      fail_node(ctx, n, "past_key/past_value shapes %s %s do not match K/V", shape_str(&ctx->arena, pk),
                shape_str(&ctx->arena, pv));
    if (pk->dtype != k->dtype || pv->dtype != v->dtype) fail_node(ctx, n, "past element types differ from K/V");
    g->P = pk->dims[2];
  }
  g->T = g->P + g->L;
  if (mask) {
    int r = mask->rank;
    if (r < 1 || r > 4) fail_node(ctx, n, "attn_mask must have rank 1 to 4");
    int64_t full[4] = {g->B, g->Hq, g->S, g->T};
    int64_t md[4] = {1, 1, 1, 1};
    for (int d = 0; d < r; d++) md[4 - r + d] = mask->dims[d];
    g->mkv = md[3];
    if (md[3] > g->T || md[3] < 1) fail_node(ctx, n, "attn_mask kv length %lld exceeds the total kv length %lld", (long long)md[3], (long long)g->T);
    int64_t st = 1;
    for (int d = 3; d >= 0; d--) {
      if (d < 3 && md[d] != 1 && md[d] != full[d])
        fail_node(ctx, n, "attn_mask %s does not broadcast to [%lld,%lld,%lld,%lld]", shape_str(&ctx->arena, mask),
                  (long long)g->B, (long long)g->Hq, (long long)g->S, (long long)g->T);
      g->ms[d] = (md[d] == 1 && d < 3) ? 0 : st;
      st *= md[d];
    }
    if (md[3] == 1) g->ms[3] = 0;
  }
}

static void attn_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 3, 7);
  require_dtype(ctx, n, 0, float_types);
  require_dtype(ctx, n, 1, float_types);
  require_dtype(ctx, n, 2, float_types);
  Value *q = n->inputs[0], *k = n->inputs[1], *v = n->inputs[2];
  if (k->dtype != q->dtype) fail_node(ctx, n, "Q and K element types differ");
  Value *mask = node_in(n, 3);
  if (mask && mask->dtype != DT_BOOL && !dtype_is_float(mask->dtype))
    fail_node(ctx, n, "attn_mask must be bool or a float type, not %s", dtype_name(mask->dtype));
  Value *np = node_in(n, 6);
  AttnGeom g;
  attn_geom(ctx, n, &g);
  if (np && (np->dtype != DT_INT64 || value_numel(np) != g.B))
    fail_node(ctx, n, "nonpad_kv_seqlen must be int64 of shape [batch]");
  int64_t mode = attr_i(n, "qk_matmul_output_mode", 0);
  if (mode < 0 || mode > 3) fail_node(ctx, n, "qk_matmul_output_mode %lld is not supported", (long long)mode);
  int64_t sp = attr_i(n, "softmax_precision", 0);
  if (sp != 0 && sp != DT_FLOAT && sp != DT_FLOAT16 && sp != DT_DOUBLE && sp != DT_BFLOAT16)
    fail_node(ctx, n, "softmax_precision %lld is not supported", (long long)sp);
  if (attr_i(n, "left_window_size", -1) < -1 || attr_i(n, "right_window_size", -1) < -1)
    fail_node(ctx, n, "window sizes must be -1 or nonnegative");
  if (node_out(n, 0)) {
    if (g.rank3) {
      int64_t d[3] = {g.B, g.S, g.Hq * g.Dv};
      value_set_shape(n->outputs[0], q->dtype, 3, d);
    } else {
      int64_t d[4] = {g.B, g.Hq, g.S, g.Dv};
      value_set_shape(n->outputs[0], q->dtype, 4, d);
    }
  }
  int64_t pk[4] = {g.B, g.Hkv, g.T, g.D}, pv[4] = {g.B, g.Hkv, g.T, g.Dv}, qk[4] = {g.B, g.Hq, g.S, g.T};
  if (node_out(n, 1)) value_set_shape(n->outputs[1], k->dtype, 4, pk);
  if (node_out(n, 2)) value_set_shape(n->outputs[2], v->dtype, 4, pv);
  if (node_out(n, 3)) value_set_shape(n->outputs[3], q->dtype, 4, qk);
}

static int attn_smtype(const Node *n) {
  int64_t sp = attr_i(n, "softmax_precision", 0);
  if (n->inputs[0]->dtype == DT_DOUBLE || sp == DT_DOUBLE) return DT_DOUBLE;
  return DT_FLOAT;
}

static int64_t attn_scratch(Ctx *ctx, Node *n) {
  AttnGeom g;
  attn_geom(ctx, n, &g);
  int64_t b = (g.T + g.Dv) * 8 + 32;
  if (g.P > 0 || node_in(n, 4)) {
    b += g.B * g.Hkv * g.T * g.D * (int64_t)dtype_size(n->inputs[1]->dtype) + 16;
    b += g.B * g.Hkv * g.T * g.Dv * (int64_t)dtype_size(n->inputs[2]->dtype) + 16;
  }
  return b;
}

/* Copies past (if any) and new K or V rows into the present tensor [B, Hkv, T, dh]. */
static void attn_present(Emit *e, const AttnGeom *g, const char *dst, const char *past, const char *cur,
                         const int64_t *cs, int64_t dh, const char *T) {
  ep(e, "for (b = 0; b < %lld; b++)", (long long)g->B);
  ep(e, "  for (h = 0; h < %lld; h++)", (long long)g->Hkv);
  ep(e, "    for (j = 0; j < %lld; j++)", (long long)g->T);
  if (past)
    ep(e, "      memcpy(%s + ((b * %lld + h) * %lld + j) * %lld, j < %lld ? %s + ((b * %lld + h) * %lld + j) * %lld : %s + b * %lld + h * %lld + (j - %lld) * %lld, %lld * sizeof(%s));",
       dst, (long long)g->Hkv, (long long)g->T, (long long)dh, (long long)g->P, past, (long long)g->Hkv,
       (long long)(g->P ? g->P : 1), (long long)dh, cur, (long long)cs[0], (long long)cs[1], (long long)g->P,
       (long long)cs[2], (long long)dh, T);
  else
    ep(e, "      memcpy(%s + ((b * %lld + h) * %lld + j) * %lld, %s + b * %lld + h * %lld + j * %lld, %lld * sizeof(%s));",
       dst, (long long)g->Hkv, (long long)g->T, (long long)dh, cur, (long long)cs[0], (long long)cs[1],
       (long long)cs[2], (long long)dh, T);
}

static void attn_emit(Emit *e, Node *n) {
  Ctx *ctx = e->ctx;
  AttnGeom g;
  attn_geom(ctx, n, &g);
  Value *q = n->inputs[0], *k = n->inputs[1], *v = n->inputs[2];
  Value *mask = node_in(n, 3), *np = node_in(n, 6);
  bool past = node_in(n, 4) != NULL;
  int qt = q->dtype, kt = k->dtype, vt = v->dtype;
  int ct = ctype_of(qt), st = attn_smtype(n);
  const char *CT = c_type(ct), *ST = c_type(st);
  bool causal = attr_i(n, "is_causal", 0) != 0;
  int64_t left = n->opset >= 25 ? attr_i(n, "left_window_size", -1) : -1;
  int64_t right = n->opset >= 25 ? attr_i(n, "right_window_size", -1) : -1;
  bool window = left >= 0 || right >= 0;
  int64_t mode = attr_i(n, "qk_matmul_output_mode", 0);
  const Attr *sca = node_attr(n, "softcap");
  double softcap = sca ? sca->f : 0;
  const Attr *sa = node_attr(n, "scale");
  double scale = sa ? sa->f : 1.0 / sqrt((double)g.D);
  /* the reference scales Q and K by sqrt(scale) rounded to the input type */
  double sq = sqrt(scale);
  if (qt != DT_DOUBLE) sq = (float)sq;
  double eff = sq * sq;
  if (g.B == 0 || g.Hq == 0 || g.S == 0) return;
  /* float16/bfloat16: round where the reference rounds (products, softcap, softmax steps) */
  bool lp = qt == DT_FLOAT16 || qt == DT_BFLOAT16;
  int64_t spa = attr_i(n, "softmax_precision", 0);
  int rt = spa ? (int)spa : qt;
  /* FlexAttention takes the softmax (and P @ V) in float32 */
  bool flex = strcmp(n->op_type, "FlexAttention") == 0;
  if (flex) rt = qt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT;
  if (lp) sq = c_is_half_round(qt, sq);
  int64_t big = g.B * g.Hq * g.S * (g.T + g.Dv + g.D) + g.B * g.Hkv * g.T * (g.D + g.Dv);
  const char *it = itype(big);
  const char *ex = mf(e, st, "exp");
  ep(e, "%s b, h, i, j, d;", it);
  ep(e, "%s *S = (%s *)W;", ST, ST);
  ep(e, "%s *acc = (%s *)(W + %lld);", CT, CT, (long long)((g.T * 8 + 15) / 16 * 16));
  int64_t off = (g.T * 8 + 15) / 16 * 16 + (g.Dv * 8 + 15) / 16 * 16;
  const char *Kp = "X1", *Vp = "X2";
  int64_t ks[3] = {g.ks[0], g.ks[1], g.ks[2]}, vs[3] = {g.vs[0], g.vs[1], g.vs[2]};
  if (past) {
    int64_t kb = g.B * g.Hkv * g.T * g.D * (int64_t)dtype_size(kt);
    ep(e, "%s *PK = Y1 ? Y1 : (%s *)(W + %lld);", c_type(kt), c_type(kt), (long long)off);
    off += (kb + 15) / 16 * 16;
    ep(e, "%s *PV = Y2 ? Y2 : (%s *)(W + %lld);", c_type(vt), c_type(vt), (long long)off);
    attn_present(e, &g, "PK", "X4", "X1", g.ks, g.D, c_type(kt));
    attn_present(e, &g, "PV", "X5", "X2", g.vs, g.Dv, c_type(vt));
    Kp = "PK";
    Vp = "PV";
    ks[0] = g.Hkv * g.T * g.D; ks[1] = g.T * g.D; ks[2] = g.D;
    vs[0] = g.Hkv * g.T * g.Dv; vs[1] = g.T * g.Dv; vs[2] = g.Dv;
  } else {
    if (node_out(n, 1)) {
      ep(e, "if (Y1) {");
      attn_present(e, &g, "Y1", NULL, "X1", g.ks, g.D, c_type(kt));
      ep(e, "}");
    }
    if (node_out(n, 2)) {
      ep(e, "if (Y2) {");
      attn_present(e, &g, "Y2", NULL, "X2", g.vs, g.Dv, c_type(vt));
      ep(e, "}");
    }
  }
  bool qk_out = node_out(n, 3) != NULL;
  long long rep = (long long)(g.Hq / g.Hkv);
  ep(e, "for (b = 0; b < %lld; b++) {", (long long)g.B);
  if (np) {
    ep(e, "const int64_t nkv = X6[b];");
    if (causal || window) ep(e, "const int64_t off = nkv - %lld;", (long long)g.S);
  } else if (causal || window) {
    ep(e, "const int64_t off = %lld;", (long long)g.P);
  }
  ep(e, "for (h = 0; h < %lld; h++) {", (long long)g.Hq);
  ep(e, "const %s kh = h / %lld;", it, rep);
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)g.S);
  ep(e, "const %s *q = X0 + b * %lld + h * %lld + i * %lld;", c_type(qt), (long long)g.qs[0], (long long)g.qs[1], (long long)g.qs[2]);
  ep(e, "%s *y = Y0 + b * %lld + h * %lld + i * %lld;", c_type(qt), (long long)g.ys[0], (long long)g.ys[1], (long long)g.ys[2]);
  if (qk_out) ep(e, "%s *qo = Y3 ? Y3 + ((b * %lld + h) * %lld + i) * %lld : 0;", c_type(qt), (long long)g.Hq, (long long)g.S, (long long)g.T);
  ep(e, "%s m = -INFINITY, sum = 0;", ST);
  ep(e, "int live = 0;");
  ep(e, "for (j = 0; j < %lld; j++) {", (long long)g.T);
  ep(e, "const %s *k = %s + b * %lld + kh * %lld + j * %lld;", c_type(kt), Kp, (long long)ks[0], (long long)ks[1], (long long)ks[2]);
  ep(e, "%s dot = 0, s, bias = 0;", CT);
  if (lp) {
    /* emulate the reference: Q and K scaled by sqrt(scale) in the input precision */
    ep(e, "for (d = 0; d < %lld; d++) dot += %s * %s;", (long long)g.D,
       rnd(e, qt, fmt(e, "%s * %s", c_load(e, qt, "q[d]"), c_lit(e, ct, sq))),
       rnd(e, qt, fmt(e, "%s * %s", c_load(e, kt, "k[d]"), c_lit(e, ct, sq))));
    ep(e, "s = %s;", rnd(e, qt, "dot"));
  } else {
    ep(e, "for (d = 0; d < %lld; d++) dot += %s * %s;", (long long)g.D, c_load(e, qt, "q[d]"), c_load(e, kt, "k[d]"));
    ep(e, "s = dot * %s;", c_lit(e, ct, eff));
  }
  if (qk_out && mode == 0) ep(e, "if (qo) qo[j] = %s;", c_store(e, qt, "s"));
  if (softcap > 0) {
    const char *cap = c_lit(e, ct, softcap);
    ep(e, "s = %s;", rnd(e, qt, fmt(e, "%s * %s", rnd(e, qt, fmt(e, "%s(%s)", mf(e, ct, "tanh"), rnd(e, qt, fmt(e, "s / %s", cap)))), cap)));
  }
  if (qk_out && mode == 1) ep(e, "if (qo) qo[j] = %s;", c_store(e, qt, "s"));
  if (mask) {
    const char *mi = fmt(e, "X3[b * %lld + h * %lld + i * %lld + j * %lld]", (long long)g.ms[0], (long long)g.ms[1],
                         (long long)g.ms[2], (long long)g.ms[3]);
    const char *val = mask->dtype == DT_BOOL ? fmt(e, "(%s ? 0 : -INFINITY)", mi) : c_load(e, mask->dtype, mi);
    if (g.mkv < g.T) ep(e, "bias = j < %lld ? %s : -INFINITY;", (long long)g.mkv, val);
    else ep(e, "bias = %s;", val);
  }
  if (causal) ep(e, "if (j > i + off) bias -= INFINITY;");
  if (window) {
    if (left >= 0) ep(e, "if (i + off - j > %lld) bias -= INFINITY;", (long long)left);
    if (right >= 0) ep(e, "if (j - (i + off) > %lld) bias -= INFINITY;", (long long)right);
  }
  if (np) ep(e, "if (j >= nkv) bias -= INFINITY;");
  ep(e, "if (bias != -INFINITY) live = 1;");
  ep(e, "s = %s;", rnd(e, qt, "s + bias"));
  if (qk_out && mode == 2) ep(e, "if (qo) qo[j] = %s;", c_store(e, qt, "s"));
  ep(e, "S[j] = %s;", rt != qt ? rnd(e, rt, "s") : "s");
  ep(e, "if (S[j] > m) m = S[j];");
  ep(e, "}");
  ep(e, "if (m == -INFINITY) m = 0;");
  ep(e, "for (j = 0; j < %lld; j++) {", (long long)g.T);
  ep(e, "S[j] = %s;", rnd(e, rt, fmt(e, "%s(%s)", ex, rnd(e, rt, "S[j] - m"))));
  ep(e, "sum = %s;", rt == DT_BFLOAT16 ? rnd(e, rt, "sum + S[j]") : "sum + S[j]");
  ep(e, "}");
  if (rt == DT_FLOAT16) ep(e, "sum = %s;", rnd(e, rt, "sum"));
  ep(e, "if (sum == 0) sum = 1;");
  ep(e, "for (d = 0; d < %lld; d++) acc[d] = 0;", (long long)g.Dv);
  ep(e, "for (j = 0; j < %lld; j++) {", (long long)g.T);
  ep(e, "const %s *vr = %s + b * %lld + kh * %lld + j * %lld;", c_type(vt), Vp, (long long)vs[0], (long long)vs[1], (long long)vs[2]);
  ep(e, "%s p = live ? (%s)%s : 0;", CT, CT, rnd(e, rt, "S[j] / sum"));
  if ((qt == DT_FLOAT16 || qt == DT_BFLOAT16) && !flex) ep(e, "p = %s;", rnd(e, qt, "p"));
  if (qk_out && mode == 3) ep(e, "if (qo) qo[j] = %s;", c_store(e, qt, "p"));
  ep(e, "for (d = 0; d < %lld; d++) acc[d] += p * %s;", (long long)g.Dv, c_load(e, vt, "vr[d]"));
  ep(e, "}");
  ep(e, "for (d = 0; d < %lld; d++) y[d] = %s;", (long long)g.Dv, c_store(e, qt, "acc[d]"));
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* FlexAttention (ai.onnx.preview 1): plain 4-D attention with GQA on the attention kernel; with
   score_mod/prob_mod subgraphs, expanded into standard ops around them (unroll.c). */
static void flex_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 3, 3);
  for (int i = 0; i < 3; i++)
    if (n->inputs[i]->rank != 4) fail_node(ctx, n, "Q, K and V must be 4-D");
  if (node_attr(n, "score_mod") || node_attr(n, "prob_mod")) {
    flex_attention_expand(ctx, n);
    return;
  }
  attn_infer(ctx, n);
}

/* ---- RotaryEmbedding ---------------------------------------------------------------------- */

typedef struct RopeGeom { int64_t B, S, H, hd, rd, xs[3], pos_b; bool has_pos; int64_t maxpos; } RopeGeom;

static void rope_geom(Ctx *ctx, Node *n, RopeGeom *g) {
  Value *x = n->inputs[0], *c = n->inputs[1], *s = n->inputs[2], *p = node_in(n, 3);
  memset(g, 0, sizeof *g);
  if (x->rank == 4) {
    g->B = x->dims[0]; g->H = x->dims[1]; g->S = x->dims[2]; g->hd = x->dims[3];
    g->xs[0] = g->H * g->S * g->hd; g->xs[1] = g->S * g->hd; g->xs[2] = g->hd;
  } else if (x->rank == 3) {
    int64_t nh = attr_i(n, "num_heads", 0);
    if (nh <= 0) fail_node(ctx, n, "3-D input needs the num_heads attribute");
    if (x->dims[2] % nh) fail_node(ctx, n, "hidden size %lld is not divisible by num_heads %lld", (long long)x->dims[2], (long long)nh);
    g->B = x->dims[0]; g->S = x->dims[1]; g->H = nh; g->hd = x->dims[2] / nh;
    g->xs[0] = g->S * x->dims[2]; g->xs[1] = g->hd; g->xs[2] = x->dims[2];
  } else {
    fail_node(ctx, n, "input must be 3-D or 4-D");
  }
  g->rd = attr_i(n, "rotary_embedding_dim", 0);
  if (g->rd == 0) g->rd = g->hd;
  if (g->rd < 0 || g->rd > g->hd || g->rd % 2) fail_node(ctx, n, "rotary_embedding_dim %lld is invalid for head size %lld", (long long)g->rd, (long long)g->hd);
  int64_t half = g->rd / 2;
  if (!same_shape(c, s)) fail_node(ctx, n, "cos_cache and sin_cache shapes differ");
  if (c->rank < 1 || c->dims[c->rank - 1] != half) fail_node(ctx, n, "cache last dimension must be rotary_embedding_dim/2 = %lld", (long long)half);
  if (p) {
    g->has_pos = true;
    if (p->dtype != DT_INT64) fail_node(ctx, n, "position_ids must be int64");
    if (c->rank != 2) fail_node(ctx, n, "with position_ids the caches must be 2-D");
    g->maxpos = c->dims[0];
    if (p->rank != 2 || (p->dims[0] != g->B && p->dims[0] != 1) || p->dims[1] != g->S)
      fail_node(ctx, n, "position_ids shape %s is not [batch, sequence]", shape_str(&ctx->arena, p));
    g->pos_b = p->dims[0] == 1 ? 0 : g->S;
  } else {
    if (c->rank != 3 || c->dims[0] != g->B || c->dims[1] != g->S)
      fail_node(ctx, n, "without position_ids the caches must be [batch, sequence, rotary_dim/2]");
  }
}

static void rope_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 3, 4);
  require_dtype(ctx, n, 0, float_types);
  if (n->inputs[1]->dtype != n->inputs[0]->dtype || n->inputs[2]->dtype != n->inputs[0]->dtype)
    fail_node(ctx, n, "cache element types differ from the input");
  RopeGeom g;
  rope_geom(ctx, n, &g);
  infer_same_as_input0(ctx, n);
}

static void rope_emit(Emit *e, Node *n) {
  RopeGeom g;
  rope_geom(e->ctx, n, &g);
  int dt = n->inputs[0]->dtype, ct = ctype_of(dt);
  const char *T = c_type(dt), *CT = c_type(ct);
  bool inter = attr_i(n, "interleaved", 0) != 0;
  long long half = (long long)(g.rd / 2);
  if (value_numel(n->inputs[0]) == 0) return;
  const char *it = itype(value_numel(n->inputs[0]) + value_numel(n->inputs[1]));
  ep(e, "%s b, s, h, k;", it);
  ep(e, "for (b = 0; b < %lld; b++) {", (long long)g.B);
  ep(e, "for (s = 0; s < %lld; s++) {", (long long)g.S);
  if (g.has_pos) {
    ep(e, "int64_t p = X3[b * %lld + s];", (long long)g.pos_b);
    ep(e, "if (p < 0 || p >= %lld) p = 0;", (long long)g.maxpos);
    ep(e, "const %s *cr = X1 + p * %lld, *sr = X2 + p * %lld;", T, half, half);
  } else {
    ep(e, "const %s *cr = X1 + (b * %lld + s) * %lld, *sr = X2 + (b * %lld + s) * %lld;", T, (long long)g.S, half,
       (long long)g.S, half);
  }
  ep(e, "for (h = 0; h < %lld; h++) {", (long long)g.H);
  ep(e, "const %s *x = X0 + b * %lld + h * %lld + s * %lld;", T, (long long)g.xs[0], (long long)g.xs[1], (long long)g.xs[2]);
  ep(e, "%s *y = Y0 + b * %lld + h * %lld + s * %lld;", T, (long long)g.xs[0], (long long)g.xs[1], (long long)g.xs[2]);
  ep(e, "for (k = 0; k < %lld; k++) {", half);
  ep(e, "const %s c = %s, sn = %s;", CT, c_load(e, dt, "cr[k]"), c_load(e, dt, "sr[k]"));
  const char *i1 = inter ? "2 * k" : "k", *i2 = inter ? "2 * k + 1" : fmt(e, "k + %lld", half);
  ep(e, "const %s x1 = %s, x2 = %s;", CT, c_load(e, dt, fmt(e, "x[%s]", i1)), c_load(e, dt, fmt(e, "x[%s]", i2)));
  ep(e, "y[%s] = %s;", i1, c_store(e, dt, "c * x1 - sn * x2"));
  ep(e, "y[%s] = %s;", i2, c_store(e, dt, "sn * x1 + c * x2"));
  ep(e, "}");
  if (g.rd < g.hd) ep(e, "for (k = %lld; k < %lld; k++) y[k] = x[k];", (long long)g.rd, (long long)g.hd);
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ---- CausalConvWithState (opset 27) -------------------------------------------------------- */

static void ccs_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 4);
  require_dtype(ctx, n, 0, float_types);
  Value *x = n->inputs[0], *w = n->inputs[1], *b = node_in(n, 2), *ps = node_in(n, 3);
  if (x->rank != 3) fail_node(ctx, n, "input must be [batch, channels, length]");
  int64_t B = x->dims[0], C = x->dims[1];
  if (w->rank != 3 || w->dims[0] != C || w->dims[1] != 1 || w->dims[2] < 1)
    fail_node(ctx, n, "weight must be [channels, 1, k]");
  int64_t K = w->dims[2];
  for (int i = 1; i < n->n_inputs; i++)
    if (n->inputs[i] && n->inputs[i]->dtype != x->dtype) fail_node(ctx, n, "inputs have different element types");
  if (b && value_numel(b) != C) fail_node(ctx, n, "bias must have %lld values", (long long)C);
  if (ps && (ps->rank != 3 || ps->dims[0] != B || ps->dims[1] != C || ps->dims[2] != K - 1))
    fail_node(ctx, n, "past_state must be [%lld, %lld, %lld]", (long long)B, (long long)C, (long long)(K - 1));
  const char *act = attr_s(n, "activation", "none");
  if (strcmp(act, "none") && strcmp(act, "silu") && strcmp(act, "swish"))
    fail_node(ctx, n, "activation '%s' is not supported", act);
  if (node_out(n, 0)) value_set_shape(n->outputs[0], x->dtype, 3, x->dims);
  int64_t sd[3] = {B, C, K - 1};
  if (node_out(n, 1)) value_set_shape(n->outputs[1], x->dtype, 3, sd);
}

static void ccs_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0];
  int dt = x->dtype, ct = ctype_of(dt);
  const char *T = c_type(dt), *CT = c_type(ct);
  long long B = (long long)x->dims[0], C = (long long)x->dims[1], L = (long long)x->dims[2];
  long long K = (long long)n->inputs[1]->dims[2];
  bool hb = node_in(n, 2) != NULL, hp = node_in(n, 3) != NULL;
  bool silu = strcmp(attr_s(n, "activation", "none"), "none") != 0;
  if (B * C == 0) return;
  ep(e, "int64_t bc, t, k;");
  ep(e, "for (bc = 0; bc < %lld; bc++) {", B * C);
  ep(e, "const int64_t c = bc %% %lld;", C);
  ep(e, "const %s *x = X0 + bc * %lld, *w = X1 + c * %lld;", T, L, K);
  if (hp) ep(e, "const %s *ps = X3 + bc * %lld;", T, K - 1);
  ep(e, "(void)c;");
  if (node_out(n, 0) && L > 0) {
    ep(e, "if (Y0) {");
    ep(e, "for (t = 0; t < %lld; t++) {", L);
    ep(e, "%s acc = %s;", CT, hb ? c_load(e, dt, "X2[c]") : "0");
    ep(e, "for (k = 0; k < %lld; k++) {", K);
    ep(e, "const int64_t j = t + k - %lld;", K - 1);
    if (hp) ep(e, "const %s v = j >= 0 ? %s : %s;", CT, c_load(e, dt, "x[j]"), c_load(e, dt, fmt(e, "ps[j + %lld]", K - 1)));
    else ep(e, "const %s v = j >= 0 ? %s : 0;", CT, c_load(e, dt, "x[j]"));
    ep(e, "acc += %s * v;", c_load(e, dt, "w[k]"));
    ep(e, "}");
    if (dt == DT_FLOAT16 || dt == DT_BFLOAT16) ep(e, "acc = %s;", c_load(e, dt, c_store(e, dt, "acc")));
    if (silu) ep(e, "acc = acc / (1 + %s(-acc));", mf(e, ct, "exp"));
    ep(e, "Y0[bc * %lld + t] = %s;", L, c_store(e, dt, "acc"));
    ep(e, "}");
    ep(e, "}");
  }
  if (node_out(n, 1) && K > 1) {
    ep(e, "if (Y1) {");
    ep(e, "for (k = 0; k < %lld; k++) {", K - 1);
    ep(e, "const int64_t j = %lld + k - %lld;", L, K - 1);
    ep(e, "Y1[bc * %lld + k] = j >= 0 ? x[j] : %s;", K - 1, hp ? fmt(e, "ps[j + %lld]", K - 1) : c_store(e, dt, "0"));
    ep(e, "}");
    ep(e, "}");
  }
  ep(e, "}");
}

/* ---- LinearAttention (opset 27) ------------------------------------------------------------ */

enum { LA_LINEAR = 0, LA_GATED = 1, LA_DELTA = 2, LA_GATED_DELTA = 3 };

typedef struct LaGeom { int64_t B, T, Hq, Hkv, dk, dv, dec_last, beta_last; int rule; } LaGeom;

static void la_geom(Ctx *ctx, Node *n, LaGeom *g) {
  Value *q = n->inputs[0], *k = n->inputs[1], *v = n->inputs[2], *ps = node_in(n, 3), *dc = node_in(n, 4), *bt = node_in(n, 5);
  static const char *const rules[] = {"linear", "gated", "delta", "gated_delta"};
  const char *r = attr_s(n, "update_rule", "gated_delta");
  g->rule = -1;
  for (int i = 0; i < 4; i++)
    if (!strcmp(r, rules[i])) g->rule = i;
  if (g->rule < 0) fail_node(ctx, n, "update_rule '%s' is not supported", r);
  bool gating = g->rule == LA_GATED || g->rule == LA_GATED_DELTA, delta = g->rule >= LA_DELTA;
  if (gating != (dc != NULL)) fail_node(ctx, n, "update_rule '%s' %s the decay input", r, gating ? "requires" : "forbids");
  if (delta != (bt != NULL)) fail_node(ctx, n, "update_rule '%s' %s the beta input", r, delta ? "requires" : "forbids");
  g->Hq = attr_i(n, "q_num_heads", 0);
  g->Hkv = attr_i(n, "kv_num_heads", 0);
  if (g->Hq <= 0 || g->Hkv <= 0 || g->Hq % g->Hkv) fail_node(ctx, n, "q_num_heads must be a positive multiple of kv_num_heads");
  if (q->rank != 3 || k->rank != 3 || v->rank != 3) fail_node(ctx, n, "query, key and value must be [batch, time, heads*dim]");
  g->B = q->dims[0];
  g->T = q->dims[1];
  if (q->dims[2] % g->Hq || k->dims[2] % g->Hkv || v->dims[2] % g->Hkv) fail_node(ctx, n, "hidden sizes are not divisible by the head counts");
  g->dk = q->dims[2] / g->Hq;
  g->dv = v->dims[2] / g->Hkv;
  if (k->dims[0] != g->B || v->dims[0] != g->B || k->dims[1] != g->T || v->dims[1] != g->T || k->dims[2] != g->Hkv * g->dk)
    fail_node(ctx, n, "query/key/value shapes do not agree");
  if (ps && (ps->rank != 4 || ps->dims[0] != g->B || ps->dims[1] != g->Hkv || ps->dims[2] != g->dk || ps->dims[3] != g->dv))
    fail_node(ctx, n, "past_state must be [%lld, %lld, %lld, %lld]", (long long)g->B, (long long)g->Hkv, (long long)g->dk, (long long)g->dv);
  g->dec_last = g->beta_last = 0;
  if (dc) {
    if (dc->rank != 3 || dc->dims[0] != g->B || dc->dims[1] != g->T || (dc->dims[2] != g->Hkv && dc->dims[2] != g->Hkv * g->dk))
      fail_node(ctx, n, "decay must be [batch, time, kv_heads or kv_heads*d_k]");
    g->dec_last = dc->dims[2];
  }
  if (bt) {
    if (bt->rank != 3 || bt->dims[0] != g->B || bt->dims[1] != g->T || (bt->dims[2] != g->Hkv && bt->dims[2] != 1))
      fail_node(ctx, n, "beta must be [batch, time, kv_heads or 1]");
    g->beta_last = bt->dims[2];
  }
}

static void la_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 3, 6);
  for (int i = 0; i < n->n_inputs; i++)
    if (n->inputs[i] && !dtype_is_float(n->inputs[i]->dtype)) fail_node(ctx, n, "input %d must be a float type", i);
  LaGeom g;
  la_geom(ctx, n, &g);
  Value *q = n->inputs[0], *ps = node_in(n, 3);
  int64_t od[3] = {g.B, g.T, g.Hq * g.dv}, sd[4] = {g.B, g.Hkv, g.dk, g.dv};
  if (node_out(n, 0)) value_set_shape(n->outputs[0], q->dtype, 3, od);
  if (node_out(n, 1)) value_set_shape(n->outputs[1], ps ? ps->dtype : q->dtype, 4, sd);
}

static int64_t la_scratch(Ctx *ctx, Node *n) {
  LaGeom g;
  la_geom(ctx, n, &g);
  return (g.B * g.Hkv * g.dk * g.dv + 2 * g.dv) * 4 + 32;
}

static void la_emit(Emit *e, Node *n) {
  LaGeom g;
  la_geom(e->ctx, n, &g);
  Value *q = n->inputs[0], *k = n->inputs[1], *v = n->inputs[2], *ps = node_in(n, 3), *dc = node_in(n, 4), *bt = node_in(n, 5);
  long long B = (long long)g.B, T = (long long)g.T, Hq = (long long)g.Hq, Hkv = (long long)g.Hkv, dk = (long long)g.dk,
            dv = (long long)g.dv, G = (long long)(g.Hq / g.Hkv);
  long long SS = dk * dv;
  const Attr *sa = node_attr(n, "scale");
  double scale = sa && sa->f != 0 ? sa->f : 1.0 / sqrt((double)g.dk);
  ep(e, "float *S = (float *)W;");
  ep(e, "float *vt = S + %lld;", B * Hkv * SS);
  ep(e, "float *rt = vt + %lld;", dv);
  ep(e, "int64_t b, t, h, d, m, i;");
  if (ps) ep(e, "for (i = 0; i < %lld; i++) S[i] = (float)%s;", B * Hkv * SS, c_load(e, ps->dtype, "X3[i]"));
  else ep(e, "for (i = 0; i < %lld; i++) S[i] = 0;", B * Hkv * SS);
  ep(e, "(void)rt;");
  ep(e, "for (t = 0; t < %lld; t++) {", T);
  ep(e, "for (b = 0; b < %lld; b++) {", B);
  ep(e, "for (h = 0; h < %lld; h++) {", Hkv);
  ep(e, "float *s = S + (b * %lld + h) * %lld;", Hkv, SS);
  ep(e, "const int64_t row = b * %lld + t;", T);
  ep(e, "const %s *kt = X1 + row * %lld + h * %lld;", c_type(k->dtype), Hkv * dk, dk);
  ep(e, "const %s *vr = X2 + row * %lld + h * %lld;", c_type(v->dtype), Hkv * dv, dv);
  if (dc) {
    if (g.dec_last == g.Hkv) {
      ep(e, "const float gd = expf((float)%s);", c_load(e, dc->dtype, fmt(e, "X4[row * %lld + h]", Hkv)));
      ep(e, "for (i = 0; i < %lld; i++) s[i] *= gd;", SS);
    } else {
      ep(e, "for (d = 0; d < %lld; d++) {", dk);
      ep(e, "const float gd = expf((float)%s);", c_load(e, dc->dtype, fmt(e, "X4[row * %lld + h * %lld + d]", Hkv * dk, dk)));
      ep(e, "for (m = 0; m < %lld; m++) s[d * %lld + m] *= gd;", dv, dv);
      ep(e, "}");
    }
  }
  ep(e, "for (m = 0; m < %lld; m++) vt[m] = (float)%s;", dv, c_load(e, v->dtype, "vr[m]"));
  if (bt) {
    ep(e, "{");
    ep(e, "const float be = (float)%s;", c_load(e, bt->dtype, fmt(e, "X5[row * %lld + %s]", (long long)g.beta_last, g.beta_last == 1 ? "0" : "h")));
    ep(e, "for (m = 0; m < %lld; m++) rt[m] = 0;", dv);
    ep(e, "for (d = 0; d < %lld; d++) {", dk);
    ep(e, "const float kd = (float)%s;", c_load(e, k->dtype, "kt[d]"));
    ep(e, "for (m = 0; m < %lld; m++) rt[m] += s[d * %lld + m] * kd;", dv, dv);
    ep(e, "}");
    ep(e, "for (m = 0; m < %lld; m++) vt[m] = be * (vt[m] - rt[m]);", dv);
    ep(e, "}");
  }
  ep(e, "for (d = 0; d < %lld; d++) {", dk);
  ep(e, "const float kd = (float)%s;", c_load(e, k->dtype, "kt[d]"));
  ep(e, "for (m = 0; m < %lld; m++) s[d * %lld + m] += kd * vt[m];", dv, dv);
  ep(e, "}");
  ep(e, "if (Y0) {");
  ep(e, "int64_t gq;");
  ep(e, "for (gq = 0; gq < %lld; gq++) {", G);
  ep(e, "const int64_t hq = h * %lld + gq;", G);
  ep(e, "const %s *qt = X0 + row * %lld + hq * %lld;", c_type(q->dtype), Hq * dk, dk);
  ep(e, "%s *y = Y0 + row * %lld + hq * %lld;", c_type(q->dtype), Hq * dv, dv);
  ep(e, "for (m = 0; m < %lld; m++) rt[m] = 0;", dv);
  ep(e, "for (d = 0; d < %lld; d++) {", dk);
  ep(e, "const float qd = (float)%s;", c_load(e, q->dtype, "qt[d]"));
  ep(e, "for (m = 0; m < %lld; m++) rt[m] += qd * s[d * %lld + m];", dv, dv);
  ep(e, "}");
  ep(e, "for (m = 0; m < %lld; m++) y[m] = %s;", dv, c_store(e, q->dtype, fmt(e, "%s * rt[m]", c_lit(e, DT_FLOAT, scale))));
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
  if (node_out(n, 1)) {
    int sdt = n->outputs[1]->dtype;
    ep(e, "if (Y1) for (i = 0; i < %lld; i++) Y1[i] = %s;", B * Hkv * SS, c_store(e, sdt, "S[i]"));
  }
}

/* ---- rows --------------------------------------------------------------------------------- */

#define FT "float, double, float16, bfloat16"

static const OpDef attention_rows[] = {
    {"Softmax", "", 1, 12, OPF_PARALLEL, sm_infer, NULL, sm_emit, sm_scratch, FT, &sm_kind[SM_SOFTMAX]},
    {"Softmax", "", 13, ONNXC_MAX_OPSET, OPF_PARALLEL, sm_infer, NULL, sm_emit, sm_scratch, FT, &sm_kind[SM_SOFTMAX]},
    {"LogSoftmax", "", 1, 12, OPF_PARALLEL, sm_infer, NULL, sm_emit, sm_scratch, FT, &sm_kind[SM_LOGSOFTMAX]},
    {"LogSoftmax", "", 13, ONNXC_MAX_OPSET, OPF_PARALLEL, sm_infer, NULL, sm_emit, sm_scratch, FT, &sm_kind[SM_LOGSOFTMAX]},
    {"Hardmax", "", 1, 12, OPF_PARALLEL, sm_infer, NULL, sm_emit, sm_scratch, FT, &sm_kind[SM_HARDMAX]},
    {"Hardmax", "", 13, ONNXC_MAX_OPSET, OPF_PARALLEL, sm_infer, NULL, sm_emit, sm_scratch, FT, &sm_kind[SM_HARDMAX]},
    {"Attention", "", 23, ONNXC_MAX_OPSET, 0, attn_infer, NULL, attn_emit, attn_scratch, FT, NULL},
    {"FlexAttention", "ai.onnx.preview", 1, ONNXC_MAX_OPSET, 0, flex_infer, NULL, attn_emit, attn_scratch, FT, NULL},
    {"RotaryEmbedding", "", 23, ONNXC_MAX_OPSET, 0, rope_infer, NULL, rope_emit, NULL, FT, NULL},
    {"CausalConvWithState", "", 27, ONNXC_MAX_OPSET, 0, ccs_infer, NULL, ccs_emit, NULL, FT, NULL},
    {"LinearAttention", "", 27, ONNXC_MAX_OPSET, 0, la_infer, NULL, la_emit, la_scratch, FT, NULL},
};
OPS_FAMILY(attention);
