/*
 * ops_quant.c - quantization operators: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear,
 * QLinearMatMul, MatMulInteger, QLinearConv, ConvInteger.
 *
 * Results are exact integers, computed the way the ONNX reference does:
 *   - QuantizeLinear divides in the promoted type of x and y_scale (or the `precision`
 *     attribute), rounds the quotient to that type (float16/bfloat16 quotients are rounded
 *     to half precision first), rounds half to even (rint), adds the zero point and saturates.
 *     NaN saturates to the lowest value, as the reference does on x86.
 *   - QLinear* multiply the int32 accumulator by (a_scale * b_scale / y_scale), a product
 *     formed in the scales' type, in double precision; then rint, zero point, saturation.
 * Scale/zero-point granularity (QuantizeLinear / DequantizeLinear) is per tensor, per axis, or
 * blocked (block_size, opset 21+): x is viewed as [outer, D, inner] around `axis`, and the
 * scale index is 0, d, or (o * ceil(D / block) + d / block) * inner + i respectively.
 * Quantized convolutions use their own direct loops: for every output position the kernel
 * range that stays inside the input is computed once (no per-element bounds checks); padded
 * positions contribute zero after the zero point is subtracted, as in the reference.
 * Small quantized types (QuantizeLinear / DequantizeLinear only): int4/uint4/int2/uint2 work
 * like the 8-bit integers with their own ranges, read and written packed (the output bytes are
 * zeroed, then each element's bits OR-ed in).  float8 outputs convert the quotient x / scale
 * (rounded to the division type) like Cast, with `saturate`; the zero point is ignored, as in
 * the reference.  float4e2m1 outputs add the zero point's value to the quotient, then convert
 * (always saturating).  Dequantizing float8 / float4e2m1 ignores the zero point too.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

/* ---- small helpers ------------------------------------------------------------------------ */

static bool q_int_type(int dt) {
  return dt == DT_UINT8 || dt == DT_INT8 || dt == DT_UINT16 || dt == DT_INT16 || dt == DT_UINT4 ||
         dt == DT_INT4 || dt == DT_UINT2 || dt == DT_INT2;
}

/* float8 (not e8m0) and float4e2m1 quantized types */
static bool q_float_type(int dt) { return dtype_is_small_float(dt) && dt != DT_FLOAT8E8M0; }

/* Element xi of input k (possibly packed) as the compute type of its dtype. */
static const char *q_in(Emit *e, Node *n, int k, const char *idx) {
  int dt = n->inputs[k]->dtype;
  const char *arr = fmt(e, "X%d", k);
  if (dtype_is_small(dt)) return c_load(e, dt, c_packed_get(e, dt, arr, idx));
  return c_load(e, dt, fmt(e, "%s[%s]", arr, idx));
}

static void q_range(int dt, double *lo, double *hi) {
  switch (dt) {
  case DT_UINT8: *lo = 0; *hi = 255; break;
  case DT_INT8: *lo = -128; *hi = 127; break;
  case DT_UINT16: *lo = 0; *hi = 65535; break;
  case DT_INT16: *lo = -32768; *hi = 32767; break;
  case DT_INT32: *lo = -2147483648.0; *hi = 2147483647.0; break;
  case DT_UINT4: *lo = 0; *hi = 15; break;
  case DT_INT4: *lo = -8; *hi = 7; break;
  case DT_UINT2: *lo = 0; *hi = 3; break;
  case DT_INT2: *lo = -2; *hi = 1; break;
  default: unreachable("q_range");
  }
}

static _Noreturn void q_unsupported_type(Ctx *ctx, const Node *n, int dt) {
  fail_node(ctx, n, "quantized element type %s is not supported (only int8, uint8, int16, uint16, int4, "
            "uint4, int2, uint2, float8e4m3fn, float8e4m3fnuz, float8e5m2, float8e5m2fnuz, float4e2m1%s)",
            dtype_name(dt), strcmp(n->op_type, "DequantizeLinear") == 0 ? ", int32" : "");
}

/* Rounds a compute-typed expression to dtype's precision (float16 / bfloat16 emulation). */
static const char *round_to(Emit *e, int dt, const char *x) {
  if (dt == DT_FLOAT16) return fmt(e, "onnxc_h2f(onnxc_f2h(%s))", x);
  if (dt == DT_BFLOAT16) return fmt(e, "onnxc_bf2f(onnxc_f2bf(%s))", x);
  if (dt == DT_DOUBLE) return x;
  return fmt(e, "(float)(%s)", x);
}

static double fround(int dt, double x) {
  if (dt == DT_FLOAT16) return half_to_float(float_to_half((float)x));
  if (dt == DT_BFLOAT16) return bf16_to_float(float_to_bf16((float)x));
  if (dt == DT_DOUBLE) return x;
  return (float)x;
}

/* numpy-style promotion of two float types for the reference's arithmetic */
static int promote_float(int a, int b) {
  if (a == b) return a;
  if (a == DT_DOUBLE || b == DT_DOUBLE) return DT_DOUBLE;
  if (!dtype_is_float(a)) return b;
  if (!dtype_is_float(b)) return a;
  return DT_FLOAT;
}

static int64_t prod(const int64_t *d, int from, int to) {
  int64_t p = 1;
  for (int i = from; i < to; i++) p *= d[i];
  return p;
}

/* ---- Quantize/DequantizeLinear geometry --------------------------------------------------- */

enum { QG_TENSOR = 0, QG_AXIS = 1, QG_BLOCK = 2 };

typedef struct QGeom {
  int mode;
  int64_t outer, D, inner, nb, bs;   /* x viewed as [outer, D, inner]; nb blocks of bs */
  int ct;                            /* quantize: division type; dequantize: output type */
} QGeom;

static QGeom *q_geom(Ctx *ctx, Node *n, Value *x, Value *scale, Value *zp) {
  QGeom *g = arena_alloc(&ctx->arena, sizeof *g);
  int64_t N = value_numel(x);
  g->outer = 1, g->D = 1, g->inner = N, g->nb = 1, g->bs = 1;
  if (zp && (zp->rank != scale->rank || memcmp(zp->dims, scale->dims, sizeof(int64_t) * (size_t)zp->rank) != 0)) {
    if (!(value_numel(zp) == 1 && value_numel(scale) == 1))
      fail_node(ctx, n, "zero point shape %s differs from scale shape %s", shape_str(&ctx->arena, zp),
                shape_str(&ctx->arena, scale));
  }
  int64_t bs = attr_i(n, "block_size", 0);
  if (value_numel(scale) == 1) {
    g->mode = QG_TENSOR;
    return g;
  }
  int axis = norm_axis(ctx, n, attr_i(n, "axis", 1), x->rank);
  g->outer = prod(x->dims, 0, axis);
  g->D = x->dims[axis];
  g->inner = prod(x->dims, axis + 1, x->rank);
  if (bs <= 0) {
    if (scale->rank != 1 || scale->dims[0] != g->D)
      fail_node(ctx, n, "scale shape %s fits neither per-tensor nor per-axis (axis %d of %s) quantization",
                shape_str(&ctx->arena, scale), axis, shape_str(&ctx->arena, x));
    g->mode = QG_AXIS;
    return g;
  }
  g->mode = QG_BLOCK;
  g->bs = bs;
  g->nb = (g->D + bs - 1) / bs;
  bool ok = scale->rank == x->rank;
  for (int d = 0; ok && d < x->rank; d++)
    ok = scale->dims[d] == (d == axis ? g->nb : x->dims[d]);
  if (!ok)
    fail_node(ctx, n, "blocked quantization: scale shape %s does not match x %s with block_size %lld on axis %d",
              shape_str(&ctx->arena, scale), shape_str(&ctx->arena, x), (long long)bs, axis);
  return g;
}

/* scale/zero-point index of flat element e */
static int64_t q_index(const QGeom *g, int64_t e) {
  if (g->mode == QG_TENSOR) return 0;
  int64_t i = e % g->inner, d = (e / g->inner) % g->D, o = e / (g->inner * g->D);
  if (g->mode == QG_AXIS) return d;
  return (o * g->nb + d / g->bs) * g->inner + i;
}

/* Emits the [outer, D, inner] loop nest; body() uses xi (flat index) and si (scale index). */
typedef void (*QBody)(Emit *e, Node *n, const QGeom *g);

static void q_loops(Emit *e, Node *n, const QGeom *g, QBody body) {
  if (g->inner * g->D * g->outer == 0) return;
  ep(e, "long long o, d, i;");
  ep(e, "for (o = 0; o < %lld; o++) {", (long long)g->outer);
  ep(e, "for (d = 0; d < %lld; d++) {", (long long)g->D);
  ep(e, "const long long base = (o * %lld + d) * %lld;", (long long)g->D, (long long)g->inner);
  if (g->mode == QG_TENSOR) ep(e, "const long long sb = 0;");
  else if (g->mode == QG_AXIS) ep(e, "const long long sb = d;");
  else ep(e, "const long long sb = (o * %lld + d / %lld) * %lld;", (long long)g->nb, (long long)g->bs, (long long)g->inner);
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)g->inner);
  ep(e, "const long long xi = base + i;");
  ep(e, "const long long si = sb%s;", g->mode == QG_BLOCK ? " + i" : "");
  ep(e, "(void)si;");
  body(e, n, g);
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ---- QuantizeLinear ----------------------------------------------------------------------- */

static void quant_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 3);
  Value *x = n->inputs[0], *s = n->inputs[1], *zp = node_in(n, 2);
  if (!dtype_is_float(x->dtype) && x->dtype != DT_INT32)
    fail_node(ctx, n, "input element type %s is not supported", dtype_name(x->dtype));
  if (!dtype_is_float(s->dtype)) fail_node(ctx, n, "y_scale must be a float tensor");
  int out = zp ? zp->dtype : (int)attr_i(n, "output_dtype", 0);
  if (zp && attr_i(n, "output_dtype", 0) && attr_i(n, "output_dtype", 0) != zp->dtype)
    fail_node(ctx, n, "output_dtype differs from the zero point's type");
  if (!out) out = DT_UINT8;
  if (!q_int_type(out) && !q_float_type(out)) q_unsupported_type(ctx, n, out);
  QGeom *g = q_geom(ctx, n, x, s, zp);
  int prec = (int)attr_i(n, "precision", 0);
  if (prec && !dtype_is_float(prec)) fail_node(ctx, n, "precision must be a float type");
  g->ct = prec ? prec : promote_float(x->dtype, s->dtype);
  n->priv = g;
  value_set_shape(n->outputs[0], out, x->rank, x->dims);
}

static void quant_body(Emit *e, Node *n, const QGeom *g) {
  int ct = g->ct, out = n->outputs[0]->dtype;
  const char *t = ct == DT_DOUBLE ? "double" : "float";
  const char *xv = fmt(e, "(%s)%s", t, c_load(e, n->inputs[0]->dtype, "X0[xi]"));
  const char *sv = fmt(e, "(%s)%s", t, c_load(e, n->inputs[1]->dtype, "X1[si]"));
  const char *q = round_to(e, ct, fmt(e, "%s / %s", xv, sv));
  if (q_float_type(out)) {
    if (out == DT_FLOAT4E2M1 && node_in(n, 2))
      q = round_to(e, ct, fmt(e, "%s + (%s)%s", q, t, q_in(e, n, 2, "si")));
    const char *code;
    switch (out) {
    case DT_FLOAT8E4M3FN: code = "onnxc_f_e4m3fn"; break;
    case DT_FLOAT8E4M3FNUZ: code = "onnxc_f_e4m3fnuz"; break;
    case DT_FLOAT8E5M2: code = "onnxc_f_e5m2"; break;
    case DT_FLOAT8E5M2FNUZ: code = "onnxc_f_e5m2fnuz"; break;
    default: code = NULL; break;
    }
    if (code) ep(e, "Y0[xi] = %s((float)%s, %d);", code, q, attr_i(n, "saturate", 1) != 0);
    else ep(e, "%s", c_packed_or(e, out, "Y0", "xi", fmt(e, "onnxc_f_e2m1((float)%s)", q)));
    return;
  }
  double lo, hi;
  q_range(out, &lo, &hi);
  ep(e, "double v = (double)rint%s(%s) + %s;", ct == DT_DOUBLE ? "" : "f", q,
     node_in(n, 2) ? fmt(e, "(double)%s", q_in(e, n, 2, "si")) : "0.0");
  if (dtype_is_packed(out))
    ep(e, "%s", c_packed_or(e, out, "Y0", "xi", fmt(e, "(int)(v >= %.1f ? (v <= %.1f ? v : %.1f) : %.1f)", lo, hi, hi, lo)));
  else
    ep(e, "Y0[xi] = (%s)(v >= %.1f ? (v <= %.1f ? v : %.1f) : %.1f);", c_type(out), lo, hi, hi, lo);
}

static void quant_emit(Emit *e, Node *n) {
  Value *y = n->outputs[0];
  if (dtype_is_packed(y->dtype) && value_bytes(y)) ep(e, "memset(Y0, 0, %lld);", (long long)value_bytes(y));
  q_loops(e, n, n->priv, quant_body);
}

static void quant_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  const QGeom *g = n->priv;
  Value *x = n->inputs[0], *s = n->inputs[1], *zp = node_in(n, 2), *y = n->outputs[0];
  double lo = 0, hi = 0;
  if (!q_float_type(y->dtype)) q_range(y->dtype, &lo, &hi);
  for (int64_t k = 0; k < value_numel(x); k++) {
    int64_t si = q_index(g, k);
    double q;
    if (g->ct == DT_DOUBLE) q = const_get_f(x, k) / const_get_f(s, si);
    else q = fround(g->ct, (float)const_get_f(x, k) / (float)const_get_f(s, si));
    if (q_float_type(y->dtype)) {
      if (y->dtype == DT_FLOAT4E2M1 && zp) q = g->ct == DT_DOUBLE ? q + const_get_f(zp, si) : fround(g->ct, (float)q + (float)const_get_f(zp, si));
      small_set(y->dtype, y->data, k, small_from_float(y->dtype, (float)q, attr_i(n, "saturate", 1) != 0, SMALL_ROUND_UP));
      continue;
    }
    q = g->ct == DT_DOUBLE ? rint(q) : rintf((float)q);
    double v = q + (zp ? (double)const_get_i(zp, si) : 0.0);
    const_set_i(y, k, (int64_t)(v >= lo ? (v <= hi ? v : hi) : lo));
  }
}

/* ---- DequantizeLinear --------------------------------------------------------------------- */

static void dequant_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 3);
  Value *x = n->inputs[0], *s = n->inputs[1], *zp = node_in(n, 2);
  if (!q_int_type(x->dtype) && !q_float_type(x->dtype) && x->dtype != DT_INT32) q_unsupported_type(ctx, n, x->dtype);
  if (zp && zp->dtype != x->dtype) fail_node(ctx, n, "zero point type differs from x");
  if (!dtype_is_float(s->dtype)) fail_node(ctx, n, "x_scale must be a float tensor");
  int out = (int)attr_i(n, "output_dtype", 0);
  if (!out) out = s->dtype;
  if (!dtype_is_float(out)) fail_node(ctx, n, "output_dtype must be a float type");
  QGeom *g = q_geom(ctx, n, x, s, zp);
  g->ct = out;
  n->priv = g;
  value_set_shape(n->outputs[0], out, x->rank, x->dims);
}

static void dequant_body(Emit *e, Node *n, const QGeom *g) {
  int out = g->ct;
  const char *t = c_ctype(out);
  const char *dx;
  if (q_float_type(n->inputs[0]->dtype)) /* float: the value itself, zero point ignored */
    dx = fmt(e, "(float)%s", q_in(e, n, 0, "xi"));
  else if (node_in(n, 2))
    dx = fmt(e, "(long long)%s - (long long)%s", q_in(e, n, 0, "xi"), q_in(e, n, 2, "si"));
  else
    dx = fmt(e, "(long long)%s", q_in(e, n, 0, "xi"));
  ep(e, "Y0[xi] = %s;", c_store(e, out, fmt(e, "(%s)(%s) * (%s)%s", t, dx, t, c_load(e, n->inputs[1]->dtype, "X1[si]"))));
}

static void dequant_emit(Emit *e, Node *n) { q_loops(e, n, n->priv, dequant_body); }

static void dequant_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  const QGeom *g = n->priv;
  Value *x = n->inputs[0], *s = n->inputs[1], *zp = node_in(n, 2), *y = n->outputs[0];
  for (int64_t k = 0; k < value_numel(x); k++) {
    int64_t si = q_index(g, k);
    double dx = q_float_type(x->dtype) ? const_get_f(x, k) : (double)(const_get_i(x, k) - (zp ? const_get_i(zp, si) : 0));
    if (g->ct == DT_DOUBLE) const_set_f(y, k, dx * const_get_f(s, si));
    else const_set_f(y, k, (float)dx * (float)const_get_f(s, si));
  }
}

/* ---- DynamicQuantizeLinear ---------------------------------------------------------------- */

static void dynq_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  Value *x = n->inputs[0];
  if (!dtype_is_float(x->dtype)) fail_node(ctx, n, "input must be a float tensor");
  value_set_shape(n->outputs[0], DT_UINT8, x->rank, x->dims);
  if (node_out(n, 1)) value_set_shape(n->outputs[1], x->dtype, 0, NULL);
  if (node_out(n, 2)) value_set_shape(n->outputs[2], DT_UINT8, 0, NULL);
}

static void dynq_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0];
  int64_t N = value_numel(x);
  const char *xv = fmt(e, "(float)%s", c_load(e, x->dtype, "X0[i]"));
  ep(e, "float mn = 0.0f, mx = 0.0f, sc, zp;");
  ep(e, "long long i;");
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)N);
  ep(e, "const float v = %s;", xv);
  ep(e, "if (v < mn) mn = v;");
  ep(e, "if (v > mx) mx = v;");
  ep(e, "}");
  ep(e, "sc = (mx == mn ? 1.0f : mx - mn) / 255.0f;");
  ep(e, "zp = 0.0f - mn / sc;");
  ep(e, "zp = rintf(zp < 0.0f ? 0.0f : (zp > 255.0f ? 255.0f : zp));");
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)N);
  ep(e, "const float v = rintf(%s / sc) + zp;", xv);
  ep(e, "Y0[i] = (uint8_t)(v >= 0.0f ? (v <= 255.0f ? v : 255.0f) : 0.0f);");
  ep(e, "}");
  ep(e, "if (Y1) Y1[0] = %s;", c_store(e, x->dtype, "sc"));
  ep(e, "if (Y2) Y2[0] = (uint8_t)zp;");
}

/* ---- matmul geometry (QLinearMatMul, MatMulInteger) --------------------------------------- */

typedef struct MMGeom {
  int64_t M, K, N, batch;
  int nb;                              /* batch rank */
  int64_t bd[ONNXC_MAX_RANK];          /* output batch dims */
  int64_t as[ONNXC_MAX_RANK], bs[ONNXC_MAX_RANK]; /* element strides of a/b per batch dim (0: broadcast) */
  int ai, bi;                          /* input index of a and b */
  /* zero points and scales: 0 absent/scalar-like, otherwise how they are indexed */
  int azp_mode, bzp_mode, bsc_mode;    /* 0 scalar, 1 per row/column, 2 per batch row/column */
} MMGeom;

static MMGeom *mm_geom(Ctx *ctx, Node *n, Value *a, Value *b, int *orank, int64_t *odims) {
  MMGeom *g = arena_alloc(&ctx->arena, sizeof *g);
  if (a->rank < 1 || b->rank < 1) fail_node(ctx, n, "matmul inputs must have rank >= 1");
  int64_t ad[ONNXC_MAX_RANK + 1], bdm[ONNXC_MAX_RANK + 1];
  int ar = a->rank, br = b->rank;
  memcpy(ad, a->dims, sizeof(int64_t) * (size_t)ar);
  memcpy(bdm, b->dims, sizeof(int64_t) * (size_t)br);
  bool a1 = ar == 1, b1 = br == 1;
  if (a1) { ad[1] = ad[0]; ad[0] = 1; ar = 2; }
  if (b1) { bdm[1] = 1; br = 2; }
  g->M = ad[ar - 2];
  g->K = ad[ar - 1];
  g->N = bdm[br - 1];
  if (bdm[br - 2] != g->K)
    fail_node(ctx, n, "matmul inner dimensions differ: %s x %s", shape_str(&ctx->arena, a), shape_str(&ctx->arena, b));
  int rb;
  if (ar - 2 > ONNXC_MAX_RANK - 2 || br - 2 > ONNXC_MAX_RANK - 2 ||
      !broadcast_shapes(ar - 2, ad, br - 2, bdm, &rb, g->bd))
    fail_node(ctx, n, "matmul batch dimensions do not broadcast: %s x %s", shape_str(&ctx->arena, a),
              shape_str(&ctx->arena, b));
  g->nb = rb;
  g->batch = prod(g->bd, 0, rb);
  int64_t sa = g->M * g->K, sb = g->K * g->N;
  for (int d = rb - 1; d >= 0; d--) {
    int da = d - (rb - (ar - 2)), db = d - (rb - (br - 2));
    int64_t la = da >= 0 ? ad[da] : 1, lb = db >= 0 ? bdm[db] : 1;
    g->as[d] = la == 1 ? 0 : sa;
    g->bs[d] = lb == 1 ? 0 : sb;
    sa *= la;
    sb *= lb;
  }
  int r = 0;
  for (int d = 0; d < rb; d++) odims[r++] = g->bd[d];
  if (!a1) odims[r++] = g->M;
  if (!b1) odims[r++] = g->N;
  *orank = r;
  return g;
}

/* zero point / scale granularity along rows of a (numel M) or columns of b (numel N) */
static int mm_param_mode(Ctx *ctx, Node *n, Value *v, int64_t len, int64_t per_batch, const char *what) {
  if (!v || value_numel(v) == 1) return 0;
  if (value_numel(v) == len) return 1;
  if (value_numel(v) == per_batch) return 2;
  fail_node(ctx, n, "%s shape %s is not supported (scalar or one value per %s expected)", what,
            shape_str(&ctx->arena, v), strstr(what, "b_") ? "column" : "row");
}

/* Emits the batch loop header; inside, ao/bo are element offsets of the current a/b matrices. */
static void mm_batch_open(Emit *e, const MMGeom *g) {
  ep(e, "long long bi, m, k, j;");
  ep(e, "for (bi = 0; bi < %lld; bi++) {", (long long)g->batch);
  ep(e, "long long t = bi, ao = 0, bo = 0;");
  for (int d = g->nb - 1; d >= 0; d--) {
    if (g->bd[d] == 1) continue;
    ep(e, "{ const long long c = t %% %lld; t /= %lld; ao += c * %lld; bo += c * %lld; }", (long long)g->bd[d],
       (long long)g->bd[d], (long long)g->as[d], (long long)g->bs[d]);
  }
  ep(e, "(void)t;");
}

/* Emits acc[0..N) = sum_k (a[m,k] - azp) * (b[k,j] - bzp) for the current m. */
static void mm_row(Emit *e, const MMGeom *g, const char *acc, int azp_in, int bzp_in) {
  ep(e, "for (j = 0; j < %lld; j++) %s[j] = 0;", (long long)g->N, acc);
  ep(e, "for (k = 0; k < %lld; k++) {", (long long)g->K);
  const char *az = "0";
  if (azp_in >= 0) {
    if (g->azp_mode == 0) az = fmt(e, "(int32_t)X%d[0]", azp_in);
    else if (g->azp_mode == 1) az = fmt(e, "(int32_t)X%d[m]", azp_in);
    else az = fmt(e, "(int32_t)X%d[ao / %lld + m]", azp_in, (long long)g->K);
  }
  ep(e, "const int32_t av = (int32_t)X%d[ao + m * %lld + k] - %s;", g->ai, (long long)g->K, az);
  ep(e, "const %s *br = X%d + bo + k * %lld;", c_type(e->node->inputs[g->bi]->dtype), g->bi, (long long)g->N);
  ep(e, "if (av == 0) continue;");
  if (bzp_in < 0) ep(e, "for (j = 0; j < %lld; j++) %s[j] += av * (int32_t)br[j];", (long long)g->N, acc);
  else if (g->bzp_mode == 0) {
    ep(e, "const int32_t bz = (int32_t)X%d[0];", bzp_in);
    ep(e, "for (j = 0; j < %lld; j++) %s[j] += av * ((int32_t)br[j] - bz);", (long long)g->N, acc);
  } else {
    const char *bz = g->bzp_mode == 1 ? fmt(e, "X%d + 0", bzp_in) : fmt(e, "X%d + bo / %lld", bzp_in, (long long)g->K);
    ep(e, "const %s *bz = %s;", c_type(e->node->inputs[bzp_in]->dtype), bz);
    ep(e, "for (j = 0; j < %lld; j++) %s[j] += av * ((int32_t)br[j] - (int32_t)bz[j]);", (long long)g->N, acc);
  }
  ep(e, "}");
}

static bool q8(int dt) { return dt == DT_UINT8 || dt == DT_INT8; }

/* ---- MatMulInteger ------------------------------------------------------------------------ */

static void mmi_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 4);
  Value *a = n->inputs[0], *b = n->inputs[1], *az = node_in(n, 2), *bz = node_in(n, 3);
  if (!q8(a->dtype) || !q8(b->dtype)) fail_node(ctx, n, "inputs must be int8 or uint8");
  if ((az && az->dtype != a->dtype) || (bz && bz->dtype != b->dtype))
    fail_node(ctx, n, "zero point types must match their inputs");
  int r;
  int64_t od[ONNXC_MAX_RANK + 2];
  MMGeom *g = mm_geom(ctx, n, a, b, &r, od);
  if (r > ONNXC_MAX_RANK) fail_node(ctx, n, "output rank too large");
  g->ai = 0, g->bi = 1;
  g->azp_mode = mm_param_mode(ctx, n, az, g->M, value_numel(a) / (g->K ? g->K : 1), "a_zero_point");
  g->bzp_mode = mm_param_mode(ctx, n, bz, g->N, value_numel(b) / (g->K ? g->K : 1), "b_zero_point");
  n->priv = g;
  value_set_shape(n->outputs[0], DT_INT32, r, od);
}

static void mmi_emit(Emit *e, Node *n) {
  const MMGeom *g = n->priv;
  if (g->batch * g->M * g->N == 0) return;
  mm_batch_open(e, g);
  ep(e, "int32_t *yb = Y0 + bi * %lld;", (long long)(g->M * g->N));
  ep(e, "for (m = 0; m < %lld; m++) {", (long long)g->M);
  ep(e, "int32_t *acc = yb + m * %lld;", (long long)g->N);
  mm_row(e, g, "acc", node_in(n, 2) ? 2 : -1, node_in(n, 3) ? 3 : -1);
  ep(e, "}");
  ep(e, "}");
}

/* ---- QLinearMatMul ------------------------------------------------------------------------ */

static void qlmm_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 8, 8);
  Value *a = n->inputs[0], *as = n->inputs[1], *az = n->inputs[2], *b = n->inputs[3], *bs = n->inputs[4],
        *bz = n->inputs[5], *ys = n->inputs[6], *yz = n->inputs[7];
  if (!q8(a->dtype) || !q8(b->dtype)) fail_node(ctx, n, "a and b must be int8 or uint8");
  if (az->dtype != a->dtype || bz->dtype != b->dtype) fail_node(ctx, n, "zero point types must match their inputs");
  if (!q8(yz->dtype)) fail_node(ctx, n, "y_zero_point must be int8 or uint8");
  if (!dtype_is_float(as->dtype) || !dtype_is_float(bs->dtype) || !dtype_is_float(ys->dtype))
    fail_node(ctx, n, "scales must be float tensors");
  int r;
  int64_t od[ONNXC_MAX_RANK + 2];
  MMGeom *g = mm_geom(ctx, n, a, b, &r, od);
  if (r > ONNXC_MAX_RANK) fail_node(ctx, n, "output rank too large");
  g->ai = 0, g->bi = 3;
  if (value_numel(as) != 1 || value_numel(az) != 1 || value_numel(ys) != 1 || value_numel(yz) != 1)
    fail_node(ctx, n, "a_scale, a_zero_point, y_scale and y_zero_point must be scalars");
  g->azp_mode = 0;
  g->bzp_mode = mm_param_mode(ctx, n, bz, g->N, value_numel(b) / (g->K ? g->K : 1), "b_zero_point");
  g->bsc_mode = mm_param_mode(ctx, n, bs, g->N, value_numel(b) / (g->K ? g->K : 1), "b_scale");
  n->priv = g;
  value_set_shape(n->outputs[0], yz->dtype, r, od);
}

static int64_t qlmm_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  const MMGeom *g = n->priv;
  return g->N * 4;
}

/* the requantization multiplier a_scale * b_scale / y_scale as the reference forms it */
static const char *mult_expr(Emit *e, int sdt, const char *as, const char *bs, const char *ys) {
  const char *p = round_to(e, sdt, fmt(e, "%s * %s", as, bs));
  return fmt(e, "(double)%s", round_to(e, sdt, fmt(e, "%s / %s", p, ys)));
}

static void requant_store(Emit *e, int ydt, int64_t N, const char *acc, const char *mult) {
  double lo, hi;
  q_range(ydt, &lo, &hi);
  ep(e, "const double v = rint((double)%s * %s + yz);", acc, mult);
  ep(e, "yb[m * %lld + j] = (%s)(v >= %.1f ? (v <= %.1f ? v : %.1f) : %.1f);", (long long)N, c_type(ydt), lo, hi, hi, lo);
}

static void qlmm_emit(Emit *e, Node *n) {
  const MMGeom *g = n->priv;
  if (g->batch * g->M * g->N == 0) return;
  Value *as = n->inputs[1], *bs = n->inputs[4], *ys = n->inputs[6], *y = n->outputs[0];
  int sdt = promote_float(promote_float(as->dtype, bs->dtype), ys->dtype);
  const char *t = sdt == DT_DOUBLE ? "double" : "float";
  const char *A = fmt(e, "(%s)%s", t, c_load(e, as->dtype, "X1[0]"));
  const char *Y = fmt(e, "(%s)%s", t, c_load(e, ys->dtype, "X6[0]"));
  ep(e, "int32_t *acc = (int32_t *)W;");
  ep(e, "const double yz = (double)X7[0];");
  if (g->bsc_mode == 0)
    ep(e, "const double mult = %s;", mult_expr(e, sdt, A, fmt(e, "(%s)%s", t, c_load(e, bs->dtype, "X4[0]")), Y));
  mm_batch_open(e, g);
  ep(e, "%s *yb = Y0 + bi * %lld;", c_type(y->dtype), (long long)(g->M * g->N));
  ep(e, "for (m = 0; m < %lld; m++) {", (long long)g->M);
  mm_row(e, g, "acc", 2, 5);
  ep(e, "for (j = 0; j < %lld; j++) {", (long long)g->N);
  if (g->bsc_mode == 0) {
    requant_store(e, y->dtype, g->N, "acc[j]", "mult");
  } else {
    const char *bsi = g->bsc_mode == 1 ? "X4[j]" : fmt(e, "X4[bo / %lld + j]", (long long)g->K);
    ep(e, "const double mj = %s;", mult_expr(e, sdt, A, fmt(e, "(%s)%s", t, c_load(e, bs->dtype, bsi)), Y));
    requant_store(e, y->dtype, g->N, "acc[j]", "mj");
  }
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ---- quantized convolution geometry ------------------------------------------------------- */

typedef struct ConvG {
  int ns;                                      /* spatial rank */
  int64_t N, C, M, G, CG, MG;                  /* batch, in channels, out channels, groups */
  int64_t in[ONNXC_MAX_RANK], out[ONNXC_MAX_RANK], k[ONNXC_MAX_RANK];
  int64_t st[ONNXC_MAX_RANK], dil[ONNXC_MAX_RANK], pb[ONNXC_MAX_RANK];
  int wzp_per_channel, wsc_per_channel;
} ConvG;

static ConvG *conv_geom(Ctx *ctx, Node *n, Value *x, Value *w, int64_t *odims) {
  ConvG *g = arena_alloc(&ctx->arena, sizeof *g);
  if (x->rank < 3) fail_node(ctx, n, "input must have rank >= 3 (N, C, spatial...)");
  if (w->rank != x->rank) fail_node(ctx, n, "weight rank %d differs from input rank %d", w->rank, x->rank);
  int ns = x->rank - 2;
  g->ns = ns;
  g->N = x->dims[0];
  g->C = x->dims[1];
  g->M = w->dims[0];
  g->G = attr_i(n, "group", 1);
  if (g->G <= 0 || g->C % g->G || g->M % g->G || w->dims[1] * g->G != g->C)
    fail_node(ctx, n, "group %lld does not fit %lld input and %lld output channels (weight %s)", (long long)g->G,
              (long long)g->C, (long long)g->M, shape_str(&ctx->arena, w));
  g->CG = g->C / g->G;
  g->MG = g->M / g->G;
  const int64_t *ks = NULL, *st = NULL, *dl = NULL, *pads = NULL;
  int nk = attr_ints(n, "kernel_shape", &ks), nst = attr_ints(n, "strides", &st);
  int ndl = attr_ints(n, "dilations", &dl), np = attr_ints(n, "pads", &pads);
  if ((nk && nk != ns) || (nst && nst != ns) || (ndl && ndl != ns) || (np && np != 2 * ns))
    fail_node(ctx, n, "kernel_shape/strides/dilations/pads lengths do not match %d spatial dims", ns);
  const char *ap = attr_s(n, "auto_pad", "NOTSET");
  for (int d = 0; d < ns; d++) {
    g->in[d] = x->dims[2 + d];
    g->k[d] = nk ? ks[d] : w->dims[2 + d];
    if (g->k[d] != w->dims[2 + d]) fail_node(ctx, n, "kernel_shape does not match the weight shape");
    g->st[d] = nst ? st[d] : 1;
    g->dil[d] = ndl ? dl[d] : 1;
    if (g->st[d] <= 0 || g->dil[d] <= 0) fail_node(ctx, n, "strides and dilations must be positive");
    int64_t ek = (g->k[d] - 1) * g->dil[d] + 1;
    if (!strcmp(ap, "NOTSET")) {
      int64_t b = np ? pads[d] : 0, en = np ? pads[d + ns] : 0;
      if (b < 0 || en < 0) fail_node(ctx, n, "negative pads are not supported");
      g->pb[d] = b;
      g->out[d] = (g->in[d] + b + en - ek) / g->st[d] + 1;
      if (g->in[d] + b + en < ek) g->out[d] = 0;
    } else if (!strcmp(ap, "VALID")) {
      g->pb[d] = 0;
      g->out[d] = g->in[d] >= ek ? (g->in[d] - ek) / g->st[d] + 1 : 0;
    } else if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
      g->out[d] = (g->in[d] + g->st[d] - 1) / g->st[d];
      int64_t tot = (g->out[d] - 1) * g->st[d] + ek - g->in[d];
      if (tot < 0) tot = 0;
      g->pb[d] = !strcmp(ap, "SAME_UPPER") ? tot / 2 : tot - tot / 2;
    } else {
      fail_node(ctx, n, "auto_pad '%s' is not supported", ap);
    }
  }
  odims[0] = g->N;
  odims[1] = g->M;
  for (int d = 0; d < ns; d++) odims[2 + d] = g->out[d];
  return g;
}

/* Emits the direct convolution: pre() runs once per (batch, output channel m), store() once
   per output element with the int32 sum in `acc` and its flat index in `op`. */
typedef void (*ConvStore)(Emit *e, Node *n, const ConvG *g);

static void conv_emit_loops(Emit *e, Node *n, const ConvG *g, int w_in, int xzp_in, int wzp_in, ConvStore pre,
                            ConvStore store) {
  int ns = g->ns;
  int64_t osz = prod(g->out, 0, ns), isz = prod(g->in, 0, ns), ksz = prod(g->k, 0, ns);
  const char *xt = c_type(n->inputs[0]->dtype), *wt = c_type(n->inputs[w_in]->dtype);
  if (g->N * g->M * osz == 0) return;
  ep(e, "long long b, m, c;");
  for (int d = 0; d < ns; d++) ep(e, "long long o%d, k%d;", d, d);
  ep(e, "for (b = 0; b < %lld; b++) {", (long long)g->N);
  ep(e, "for (m = 0; m < %lld; m++) {", (long long)g->M);
  ep(e, "const long long grp = m / %lld;", (long long)g->MG);
  ep(e, "const %s *xg = X0 + (b * %lld + grp * %lld) * %lld;", xt, (long long)g->C, (long long)g->CG, (long long)isz);
  ep(e, "const %s *wm = X%d + m * %lld;", wt, w_in, (long long)(g->CG * ksz));
  if (xzp_in >= 0) ep(e, "const int32_t xz = (int32_t)X%d[0];", xzp_in);
  else ep(e, "const int32_t xz = 0;");
  if (wzp_in >= 0) ep(e, "const int32_t wz = (int32_t)X%d[%s];", wzp_in, g->wzp_per_channel ? "m" : "0");
  else ep(e, "const int32_t wz = 0;");
  ep(e, "long long op = (b * %lld + m) * %lld;", (long long)g->M, (long long)osz);
  if (pre) pre(e, n, g);
  /* output position loops; kernel range per dim where the input index stays inside */
  for (int d = 0; d < ns; d++) {
    ep(e, "for (o%d = 0; o%d < %lld; o%d++) {", d, d, (long long)g->out[d], d);
    ep(e, "const long long s%d = o%d * %lld - %lld;", d, d, (long long)g->st[d], (long long)g->pb[d]);
    /* k in [lo, hi): s + k * dil in [0, in) */
    if (g->dil[d] == 1) {
      ep(e, "const long long lo%d = s%d < 0 ? -s%d : 0;", d, d, d);
      ep(e, "const long long hi%d = %lld - s%d < %lld ? %lld - s%d : %lld;", d, (long long)g->in[d], d, (long long)g->k[d],
         (long long)g->in[d], d, (long long)g->k[d]);
    } else {
      long long dl = (long long)g->dil[d];
      ep(e, "const long long lo%d = s%d < 0 ? (-s%d + %lld) / %lld : 0;", d, d, d, dl - 1, dl);
      ep(e, "const long long hx%d = %lld - s%d > 0 ? (%lld - s%d + %lld) / %lld : 0;", d, (long long)g->in[d], d,
         (long long)g->in[d], d, dl - 1, dl);
      ep(e, "const long long hi%d = hx%d < %lld ? hx%d : %lld;", d, d, (long long)g->k[d], d, (long long)g->k[d]);
    }
  }
  ep(e, "int32_t acc = 0;");
  ep(e, "for (c = 0; c < %lld; c++) {", (long long)g->CG);
  ep(e, "const %s *xc = xg + c * %lld;", xt, (long long)isz);
  ep(e, "const %s *wc = wm + c * %lld;", wt, (long long)ksz);
  for (int d = 0; d < ns; d++) {
    ep(e, "for (k%d = lo%d; k%d < hi%d; k%d++) {", d, d, d, d, d);
  }
  /* flat input and weight index */
  Buf xi = {0}, wi = {0};
  for (int d = 0; d < ns; d++) {
    int64_t xs = prod(g->in, d + 1, ns), wsd = prod(g->k, d + 1, ns);
    buf_printf(&xi, "%s(s%d + k%d * %lld) * %lld", d ? " + " : "", d, d, (long long)g->dil[d], (long long)xs);
    buf_printf(&wi, "%sk%d * %lld", d ? " + " : "", d, (long long)wsd);
  }
  ep(e, "acc += ((int32_t)xc[%s] - xz) * ((int32_t)wc[%s] - wz);", xi.p ? xi.p : "0", wi.p ? wi.p : "0");
  buf_free(&xi);
  buf_free(&wi);
  for (int d = 0; d < ns; d++) ep(e, "}");
  ep(e, "}");
  store(e, n, g);
  ep(e, "op++;");
  for (int d = 0; d < ns; d++) ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ---- ConvInteger -------------------------------------------------------------------------- */

static void convint_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 4);
  Value *x = n->inputs[0], *w = n->inputs[1], *xz = node_in(n, 2), *wz = node_in(n, 3);
  if (!q8(x->dtype) || !q8(w->dtype)) fail_node(ctx, n, "x and w must be int8 or uint8");
  if ((xz && xz->dtype != x->dtype) || (wz && wz->dtype != w->dtype))
    fail_node(ctx, n, "zero point types must match their inputs");
  int64_t od[ONNXC_MAX_RANK];
  ConvG *g = conv_geom(ctx, n, x, w, od);
  if (xz && value_numel(xz) != 1) fail_node(ctx, n, "x_zero_point must be a scalar");
  if (wz && value_numel(wz) != 1) {
    if (value_numel(wz) != g->M) fail_node(ctx, n, "w_zero_point must be a scalar or have one value per output channel");
    g->wzp_per_channel = 1;
  }
  n->priv = g;
  value_set_shape(n->outputs[0], DT_INT32, x->rank, od);
}

static void convint_store(Emit *e, Node *n, const ConvG *g) {
  (void)n, (void)g;
  ep(e, "Y0[op] = acc;");
}

static void convint_emit(Emit *e, Node *n) {
  conv_emit_loops(e, n, n->priv, 1, node_in(n, 2) ? 2 : -1, node_in(n, 3) ? 3 : -1, NULL, convint_store);
}

/* ---- QLinearConv -------------------------------------------------------------------------- */

static void qlconv_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 8, 9);
  Value *x = n->inputs[0], *xs = n->inputs[1], *xz = n->inputs[2], *w = n->inputs[3], *ws = n->inputs[4],
        *wz = n->inputs[5], *ys = n->inputs[6], *yz = n->inputs[7], *bias = node_in(n, 8);
  if (!q8(x->dtype) || !q8(w->dtype) || !q8(yz->dtype)) fail_node(ctx, n, "x, w and y must be int8 or uint8");
  if (xz->dtype != x->dtype || wz->dtype != w->dtype) fail_node(ctx, n, "zero point types must match their inputs");
  if (!dtype_is_float(xs->dtype) || !dtype_is_float(ws->dtype) || !dtype_is_float(ys->dtype))
    fail_node(ctx, n, "scales must be float tensors");
  int64_t od[ONNXC_MAX_RANK];
  ConvG *g = conv_geom(ctx, n, x, w, od);
  if (value_numel(xs) != 1 || value_numel(xz) != 1 || value_numel(ys) != 1 || value_numel(yz) != 1)
    fail_node(ctx, n, "x_scale, x_zero_point, y_scale and y_zero_point must be scalars");
  if (value_numel(wz) != 1) {
    if (value_numel(wz) != g->M) fail_node(ctx, n, "w_zero_point must be a scalar or have one value per output channel");
    g->wzp_per_channel = 1;
  }
  if (value_numel(ws) != 1) {
    if (value_numel(ws) != g->M) fail_node(ctx, n, "w_scale must be a scalar or have one value per output channel");
    g->wsc_per_channel = 1;
  }
  if (bias && (bias->dtype != DT_INT32 || value_numel(bias) != g->M))
    fail_node(ctx, n, "bias must be int32 with one value per output channel");
  n->priv = g;
  value_set_shape(n->outputs[0], yz->dtype, x->rank, od);
}

static void qlconv_pre(Emit *e, Node *n, const ConvG *g) {
  Value *xs = n->inputs[1], *ws = n->inputs[4], *ys = n->inputs[6];
  int sdt = promote_float(promote_float(xs->dtype, ws->dtype), ys->dtype);
  const char *t = sdt == DT_DOUBLE ? "double" : "float";
  ep(e, "const double mult = %s;",
     mult_expr(e, sdt, fmt(e, "(%s)%s", t, c_load(e, xs->dtype, "X1[0]")),
               fmt(e, "(%s)%s", t, c_load(e, ws->dtype, g->wsc_per_channel ? "X4[m]" : "X4[0]")),
               fmt(e, "(%s)%s", t, c_load(e, ys->dtype, "X6[0]"))));
  ep(e, "const double yz = (double)X7[0];");
}

static void qlconv_store(Emit *e, Node *n, const ConvG *g) {
  double lo, hi;
  (void)g;
  q_range(n->outputs[0]->dtype, &lo, &hi);
  ep(e, "const double v = rint((double)(acc%s) * mult + yz);", node_in(n, 8) ? " + X8[m]" : "");
  ep(e, "Y0[op] = (%s)(v >= %.1f ? (v <= %.1f ? v : %.1f) : %.1f);", c_type(n->outputs[0]->dtype), lo, hi, hi, lo);
}

static void qlconv_emit(Emit *e, Node *n) { conv_emit_loops(e, n, n->priv, 3, 2, 5, qlconv_pre, qlconv_store); }

/* ---- rows --------------------------------------------------------------------------------- */

static const OpDef quant_rows[] = {
    {"QuantizeLinear", "", 10, ONNXC_MAX_OPSET, 0, quant_infer, quant_fold, quant_emit, NULL,
     "float, float16, bfloat16, double, int32 -> int8, uint8, int16, uint16, int4, uint4, int2, uint2, "
     "float8 (4 kinds), float4e2m1", NULL},
    {"DequantizeLinear", "", 10, ONNXC_MAX_OPSET, 0, dequant_infer, dequant_fold, dequant_emit, NULL,
     "int8, uint8, int16, uint16, int32, int4, uint4, int2, uint2, float8 (4 kinds), float4e2m1 -> "
     "float, float16, bfloat16, double", NULL},
    {"DynamicQuantizeLinear", "", 11, ONNXC_MAX_OPSET, 0, dynq_infer, NULL, dynq_emit, NULL, "float -> uint8", NULL},
    {"MatMulInteger", "", 10, ONNXC_MAX_OPSET, 0, mmi_infer, NULL, mmi_emit, NULL, "int8, uint8 -> int32", NULL},
    {"QLinearMatMul", "", 10, ONNXC_MAX_OPSET, 0, qlmm_infer, NULL, qlmm_emit, qlmm_scratch,
     "int8, uint8 (float, float16, bfloat16 scales)", NULL},
    {"ConvInteger", "", 10, ONNXC_MAX_OPSET, 0, convint_infer, NULL, convint_emit, NULL, "int8, uint8 -> int32", NULL},
    {"QLinearConv", "", 10, ONNXC_MAX_OPSET, 0, qlconv_infer, NULL, qlconv_emit, NULL, "int8, uint8", NULL},
};
OPS_FAMILY(quant);
