/*
 * ops_image.c - Resize, Upsample, GridSample, AffineGrid, RoiAlign, Col2Im, DeformConv.
 *
 * Resize/Upsample: scales/sizes (and roi) are compile-time constants, so the sampling of every
 * axis is planned in the compiler.  For each resized axis and output index the source taps
 * (element offsets, edge-clamped) and their weights are computed exactly as the ONNX reference
 * does (coordinate transform, nearest rounding, linear/cubic kernels, antialias footprints,
 * exclude_outside renormalization) and written into the kernel as static tables.  The kernel
 * then walks the output once: nearest mode is a pure gather; linear/cubic sum the tensor
 * product of the per-axis taps (the separable result, computed without temporaries).
 * tf_crop_and_resize positions outside the input get extrapolation_value.
 *
 * GridSample: per output location the per-dimension taps (index after the padding rule, weight)
 * are computed once and shared by all channels.  AffineGrid multiplies theta by a base grid
 * baked in as tables.  RoiAlign follows the reference's bilinear pre-computation, with channel
 * accumulators in scratch.  Col2Im scatters-adds blocks back; DeformConv builds one im2col row
 * of bilinearly sampled, masked inputs per output pixel and multiplies it by the weights.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

static const int float_types[] = {DT_FLOAT, DT_DOUBLE, DT_FLOAT16, DT_BFLOAT16, 0};

static int ctype_of(int dt) { return dt == DT_FLOAT || dt == DT_FLOAT16 || dt == DT_BFLOAT16 ? DT_FLOAT : DT_DOUBLE; }
static const char *mf(Emit *e, int ct, const char *name) { return ct == DT_DOUBLE ? name : fmt(e, "%sf", name); }
static const char *itype(int64_t n) { return n < 2147483647LL ? "int" : "int64_t"; }

/* static const integer / float tables inside the node function, 12 values a line */


/* Store of a compute-typed expression into dt; integers round half to even and saturate. */
static const char *store_sat(Emit *e, int dt, const char *x) {
  if (dtype_is_float(dt)) return c_store(e, dt, x);
  static const struct { int dt; const char *lo, *hi; } lim[] = {
      {DT_INT8, "-128.0", "127.0"}, {DT_UINT8, "0.0", "255.0"}, {DT_INT16, "-32768.0", "32767.0"},
      {DT_UINT16, "0.0", "65535.0"}, {DT_INT32, "-2147483648.0", "2147483647.0"},
      {DT_UINT32, "0.0", "4294967295.0"}, {DT_INT64, "-9223372036854775808.0", "9223372036854774784.0"},
      {DT_UINT64, "0.0", "18446744073709549568.0"}};
  for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++)
    if (lim[i].dt == dt)
      return fmt(e, "(%s)fmin(fmax(rint(%s), %s), %s)", c_type(dt), x, lim[i].lo, lim[i].hi);
  return fmt(e, "(%s)(%s)", c_type(dt), x);
}

/* extrapolation_value (a float attribute) in an integer dt as ONNX Runtime and the ONNX reference
   store it: truncated toward zero and then wrapped to the type's width (uint8: -1.5 -> 255), as
   a C literal. */
static const char *int_extrapolation(Emit *e, int dt, double v) {
  const double t = trunc(v);
  const int bits = dtype_bits(dt);
  const bool sgn = dt == DT_INT8 || dt == DT_INT16 || dt == DT_INT32 || dt == DT_INT64;
  /* (out of int64's range, or NaN: 0, where the C++ cast of the reference is undefined) */
  uint64_t u = t >= -9223372036854775808.0 && t < 9223372036854775808.0 ? (uint64_t)(int64_t)t : 0;
  if (bits < 64) u &= (UINT64_C(1) << bits) - 1;
  if (sgn && bits < 64 && (u >> (bits - 1)) & 1) return fmt(e, "(%s)(%lld)", c_type(dt), (long long)u - (1LL << bits));
  if (sgn && u == UINT64_C(1) << 63) return "(int64_t)(-9223372036854775807LL - 1)";
  if (sgn) return fmt(e, "(%s)(%lldLL)", c_type(dt), (long long)(int64_t)u);
  return fmt(e, "(%s)%lluULL", c_type(dt), (unsigned long long)u);
}

/* ==== Resize / Upsample ==================================================================== */

enum { RS_UP7 = 0, RS_UP9 = 1, RS_10 = 2, RS_11 = 3, RS_13 = 4 };
static const int rs_kind[5] = {RS_UP7, RS_UP9, RS_10, RS_11, RS_13};
enum { M_NEAREST, M_LINEAR, M_CUBIC };
enum { CT_HALF, CT_ASYM, CT_ALIGN, CT_PYTORCH, CT_TFNN, CT_CROP, CT_HALF_SYM };
enum { NM_RPF, NM_RPC, NM_FLOOR, NM_CEIL, NM_SIMPLE };

typedef struct RsAxis {
  bool active, any_ex;
  int taps;
  int64_t *idx;  /* out * taps element offsets */
  double *w;     /* out * taps weights (not for nearest) */
  int64_t *ex;   /* out flags: extrapolated */
} RsAxis;

typedef struct RsPlan {
  int r, mode;
  int64_t in[ONNXC_MAX_RANK], out[ONNXC_MAX_RANK];
  RsAxis ax[ONNXC_MAX_RANK];
  double ev;
} RsPlan;

static int pick(Ctx *ctx, const Node *n, const char *attr, const char *dflt, const char *const *names, int count) {
  const char *s = attr_s(n, attr, dflt);
  for (int i = 0; i < count; i++)
    if (names[i] && strcmp(s, names[i]) == 0) return i;
  fail_node(ctx, n, "%s '%s' is not supported", attr, s);
}

/* Interpolation coefficients for one output position (ONNX reference kernels). */
static int rs_coeffs(int mode, int nm, bool aa, double A, double ratio, double scale, double *c, int cap) {
  if (mode == M_NEAREST) {
    if (ratio == 1.0) { c[0] = 0; c[1] = 1; return 2; }
    switch (nm) {
    case NM_RPF: c[0] = ratio <= 0.5; c[1] = ratio > 0.5; break;
    case NM_RPC: c[0] = ratio < 0.5; c[1] = ratio >= 0.5; break;
    case NM_FLOOR: c[0] = 1; c[1] = 0; break;
    default: c[0] = 0; c[1] = 1; break;
    }
    return 2;
  }
  if (mode == M_LINEAR) {
    if (!aa) { c[0] = 1 - ratio; c[1] = ratio; return 2; }
    double s = scale < 1 ? scale : 1;
    int64_t start = (int64_t)floor(-1 / s) + 1, fp = 2 - 2 * start;
    if (fp > cap) return -1;
    double sum = 0;
    for (int64_t i = 0; i < fp; i++) {
      double a = ((double)(start + i) - ratio) * s;
      double v = 1 - fabs(a);
      c[i] = v < 0 ? 0 : (v > 1 ? 1 : v);
      sum += c[i];
    }
    for (int64_t i = 0; i < fp; i++) c[i] /= sum;
    return (int)fp;
  }
  if (!aa) {
    double r1 = ratio + 1, q = 1 - ratio, q1 = q + 1;
    c[0] = ((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A;
    c[1] = ((A + 2) * ratio - (A + 3)) * ratio * ratio + 1;
    c[2] = ((A + 2) * q - (A + 3)) * q * q + 1;
    c[3] = ((A * q1 - 5 * A) * q1 + 8 * A) * q1 - 4 * A;
    return 4;
  }
  double s = scale < 1 ? scale : 1;
  int64_t is = (int64_t)floor(-2 / s) + 1, ie = 2 - is;
  if (ie - is > cap) return -1;
  double sum = 0;
  for (int64_t i = is; i < ie; i++) {
    double x = fabs(s * ((double)i - ratio)), x2 = x * x, x3 = x * x2, v;
    if (x <= 1) v = (A + 2) * x3 - (A + 3) * x2 + 1;
    else if (x < 2) v = A * x3 - 5 * A * x2 + 8 * A * x - 4 * A;
    else v = 0;
    c[i - is] = v;
    sum += v;
  }
  for (int64_t i = 0; i < ie - is; i++) c[i] /= sum;
  return (int)(ie - is);
}

static void rs_axis(Ctx *ctx, Node *n, RsAxis *ax, int mode, int ctm, int nm, bool aa, double A, bool excl,
                    int64_t in_w, int64_t out_w, double scale, double roi0, double roi1, bool roi_f32,
                    int64_t stride) {
  enum { CAP = 4096 };
  double *c = arena_alloc(&ctx->arena, sizeof(double) * CAP);
  double ow = scale * (double)in_w;
  int taps = -1;
  for (int64_t y = 0; y < out_w; y++) {
    double yy = (double)y, xo = 0;
    bool ex = false;
    switch (ctm) {
    case CT_ALIGN: xo = ow == 1 ? 0 : yy * (double)(in_w - 1) / (ow - 1); break;
    case CT_ASYM: xo = yy / scale; break;
    case CT_CROP: {
      /* a float32 roi is combined in float32 by the reference (roi1 - roi0, roi0 * (w - 1)) */
      double span = roi1 - roi0, base = roi0 * (double)(in_w - 1);
      if (roi_f32) {
        span = (float)((float)roi1 - (float)roi0);
        base = (float)((float)roi0 * (float)(in_w - 1));
      }
      xo = ow == 1 ? span * (double)(in_w - 1) / 2 : yy * span * (double)(in_w - 1) / (ow - 1);
      xo += base;
      ex = xo < 0 || xo > (double)(in_w - 1);
      break;
    }
    case CT_PYTORCH: xo = ow == 1 ? -0.5 : (yy + 0.5) / scale - 0.5; break;
    case CT_TFNN: xo = (yy + 0.5) / scale; break;
    case CT_HALF_SYM: {
      double adj = (double)out_w / ow, center = (double)in_w / 2, off = center * (1 - adj);
      xo = off + (yy + 0.5) / scale - 0.5;
      break;
    }
    default: xo = (yy + 0.5) / scale - 0.5; break;
    }
    if (!isfinite(xo)) fail_node(ctx, n, "non-finite sampling coordinate");
    double xi = floor(xo), ratio = xo == xi ? 1.0 : xo - xi;
    int axis_nm = nm;
    if (nm == NM_SIMPLE) axis_nm = scale < 1 ? NM_CEIL : NM_FLOOR;
    int k = rs_coeffs(mode, axis_nm, aa, A, ratio, scale, c, CAP);
    if (k < 0) fail_node(ctx, n, "antialias footprint too large for scale %g", scale);
    if (taps < 0) {
      taps = k;
      ax->taps = mode == M_NEAREST ? 1 : k;
      ax->idx = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(out_w * ax->taps));
      ax->w = arena_alloc(&ctx->arena, sizeof(double) * (size_t)(out_w * ax->taps));
      ax->ex = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)out_w);
    }
    CHECK(k == taps);
    /* k taps (k even): xo lies in (tap k/2 - 1, tap k/2] at `ratio` past tap k/2 - 1, so the
       taps follow from floor(xo) and ratio alone.  (The reference looks them up around
       xo + padding width instead; that sum rounds away an excess of an ulp or so over a whole
       number, and the taps then sit one to the left of the coefficients computed from the
       tiny ratio: a cubic output a whole pixel off, e.g. at x_original = 2 + 4e-16 from
       half_pixel_symmetric.  ONNX Runtime takes the taps from floor(xo) too.) */
    int64_t start;
    if (k % 2 == 0) {
      start = (int64_t)xi - (xo == xi ? 1 : 0) + 1 - k / 2;
    } else {
      const int64_t pad = (k + 1) / 2;
      const double xp = xo + (double)pad, pp = floor(xp);
      start = (int64_t)pp - (k - 1) / 2 + (xp - pp <= 0.5 ? 0 : 1) - pad;
    }
    int64_t idx[CAP];
    for (int t = 0; t < k; t++) idx[t] = start + t;
    if (excl) {
      double sum = 0;
      for (int t = 0; t < k; t++) {
        if (idx[t] < 0 || idx[t] >= in_w) c[t] = 0;
        sum += c[t];
      }
      if (sum == 0) sum = 1;
      for (int t = 0; t < k; t++) c[t] /= sum;
    }
    for (int t = 0; t < k; t++) idx[t] = idx[t] < 0 ? 0 : (idx[t] >= in_w ? in_w - 1 : idx[t]);
    if (mode == M_NEAREST) {
      ax->idx[y] = (c[1] > c[0] ? idx[1] : idx[0]) * stride;
    } else {
      for (int t = 0; t < k; t++) {
        ax->idx[y * k + t] = idx[t] * stride;
        ax->w[y * k + t] = c[t];
      }
    }
    ax->ex[y] = ex;
    if (ex) ax->any_ex = true;
  }
}

static void rs_infer(Ctx *ctx, Node *n) {
  int kind = *(const int *)n->def->arg;
  Value *x = node_in(n, 0);
  if (!x) fail_node(ctx, n, "missing input X");
  if (!dtype_is_float(x->dtype) && !dtype_is_int(x->dtype))
    fail_node(ctx, n, "element type %s is not supported", dtype_name(x->dtype));
  int r = x->rank;
  if (r < 1) fail_node(ctx, n, "input must have rank >= 1");
  static const char *const modes[] = {"nearest", "linear", "cubic", "bilinear"};
  int mode = pick(ctx, n, "mode", "nearest", modes, kind >= RS_11 ? 3 : 4);
  if (mode == 3) mode = M_LINEAR;
  static const char *const ctms[] = {"half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel",
                                     "tf_half_pixel_for_nn", "tf_crop_and_resize", "half_pixel_symmetric"};
  int ctm = CT_ASYM, nm = NM_SIMPLE;
  if (kind >= RS_11) {
    ctm = pick(ctx, n, "coordinate_transformation_mode", "half_pixel", ctms, 7);
    if (ctm == CT_TFNN && kind >= RS_13) fail_node(ctx, n, "tf_half_pixel_for_nn was removed in opset 13");
    static const char *const nms[] = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
    nm = pick(ctx, n, "nearest_mode", "round_prefer_floor", nms, 4);
  }
  double A = attr_f(n, "cubic_coeff_a", -0.75f);
  bool excl = attr_i(n, "exclude_outside", 0) != 0;
  bool aa = attr_i(n, "antialias", 0) != 0;
  if (aa && mode == M_NEAREST) fail_node(ctx, n, "antialias is not supported with mode nearest");
  double ev = attr_f(n, "extrapolation_value", 0.0f);
  /* axes */
  int axes[ONNXC_MAX_RANK], na = r;
  for (int i = 0; i < r; i++) axes[i] = i;
  const int64_t *av;
  int nav = attr_ints(n, "axes", &av);
  if (nav > 0) {
    if (nav > r) fail_node(ctx, n, "too many axes");
    na = nav;
    for (int i = 0; i < nav; i++) {
      axes[i] = norm_axis(ctx, n, av[i], r);
      for (int j = 0; j < i; j++)
        if (axes[j] == axes[i]) fail_node(ctx, n, "axes has duplicates");
    }
  }
  double scale[ONNXC_MAX_RANK];
  int64_t out[ONNXC_MAX_RANK];
  double roi0[ONNXC_MAX_RANK], roi1[ONNXC_MAX_RANK];
  bool roi_f32 = false;
  for (int i = 0; i < r; i++) { scale[i] = 1; out[i] = x->dims[i]; roi0[i] = 0; roi1[i] = 1; }
  Value *sc = NULL, *sz = NULL;
  const float *sattr = NULL;
  int nsattr = 0;
  if (kind == RS_UP7) {
    nsattr = attr_floats(n, "scales", &sattr);
    if (nsattr != r) fail_node(ctx, n, "scales attribute must have %d values", r);
  } else if (kind == RS_UP9 || kind == RS_10) {
    sc = node_const_in(ctx, n, 1, "scales");
  } else {
    Value *s2 = node_in(n, 2), *s3 = node_in(n, 3);
    if (s3 && value_numel(s3) > 0 && !(s3->rank == 1 && s3->dims[0] == 0)) {
      sz = node_const_in(ctx, n, 3, "sizes");
      if (s2 && value_numel(s2) > 0) fail_node(ctx, n, "only one of scales and sizes may be given");
    } else if (s2) {
      sc = node_const_in(ctx, n, 2, "scales");
    }
    if (!sc && !sz) fail_node(ctx, n, "one of scales and sizes must be given");
  }
  if (sc || sattr) {
    int cnt = sc ? (int)value_numel(sc) : nsattr;
    if (cnt != na) fail_node(ctx, n, "scales has %d values, expected %d", cnt, na);
    for (int i = 0; i < na; i++) {
      double s = sc ? (double)(float)const_get_f(sc, i) : (double)sattr[i];
      if (!(s > 0) || !isfinite(s)) fail_node(ctx, n, "scales must be positive");
      scale[axes[i]] = s;
      double o = s * (double)x->dims[axes[i]];
      if (o > 1e15) fail_node(ctx, n, "output too large");
      out[axes[i]] = (int64_t)o;
    }
  } else {
    if (sz->dtype != DT_INT64) fail_node(ctx, n, "sizes must be int64");
    if (value_numel(sz) != na) fail_node(ctx, n, "sizes has %lld values, expected %d", (long long)value_numel(sz), na);
    static const char *const kars[] = {"stretch", "not_larger", "not_smaller"};
    int kar = pick(ctx, n, "keep_aspect_ratio_policy", "stretch", kars, 3);
    for (int i = 0; i < na; i++) {
      int64_t s = const_get_i(sz, i);
      if (s < 0) fail_node(ctx, n, "sizes must be nonnegative");
      if (x->dims[axes[i]] == 0) fail_node(ctx, n, "cannot resize an empty dimension");
      out[axes[i]] = s;
      scale[axes[i]] = (double)s / (double)x->dims[axes[i]];
    }
    if (kar != 0) {
      double s = scale[axes[0]];
      for (int i = 1; i < na; i++) {
        double v = scale[axes[i]];
        if (kar == 1 ? v < s : v > s) s = v;
      }
      for (int i = 0; i < na; i++) {
        scale[axes[i]] = s;
        out[axes[i]] = (int64_t)(s * (double)x->dims[axes[i]] + 0.5);
      }
    }
  }
  if (ctm == CT_CROP) {
    Value *roi = node_in(n, 1);
    if (!roi || value_numel(roi) == 0) fail_node(ctx, n, "tf_crop_and_resize needs the roi input");
    roi = node_const_in(ctx, n, 1, "roi");
    roi_f32 = roi->dtype == DT_FLOAT;
    if (value_numel(roi) != 2 * na) fail_node(ctx, n, "roi must have %d values", 2 * na);
    for (int i = 0; i < na; i++) {
      roi0[axes[i]] = const_get_f(roi, i);
      roi1[axes[i]] = const_get_f(roi, na + i);
    }
  }
  value_set_shape(n->outputs[0], x->dtype, r, out);
  /* plan */
  RsPlan *p = arena_alloc(&ctx->arena, sizeof *p);
  p->r = r;
  p->mode = mode;
  p->ev = ev;
  int64_t stride = 1;
  for (int d = r - 1; d >= 0; d--) {
    p->in[d] = x->dims[d];
    p->out[d] = out[d];
    bool ident = fabs(scale[d] - 1) <= 1e-9 && out[d] == x->dims[d] &&
                 (ctm != CT_CROP || (roi0[d] == 0 && fabs(roi1[d] - 1) <= 1e-9));
    if (!ident && out[d] > 0) {
      if (x->dims[d] == 0) fail_node(ctx, n, "cannot resize an empty dimension");
      p->ax[d].active = true;
      rs_axis(ctx, n, &p->ax[d], mode, ctm, nm, aa, A, excl, x->dims[d], out[d], scale[d], roi0[d], roi1[d], roi_f32,
              stride);
    }
    stride *= x->dims[d];
  }
  n->priv = p;
}

static void rs_emit(Emit *e, Node *n) {
  RsPlan *p = n->priv;
  Value *x = n->inputs[0], *y = n->outputs[0];
  int dt = x->dtype, ct = ctype_of(dt);
  const char *CT = c_type(ct);
  if (value_numel(y) == 0) return;
  int r = p->r;
  const char *it = itype(value_numel(x) > value_numel(y) ? value_numel(x) : value_numel(y));
  bool any_ex = false;
  for (int d = 0; d < r; d++) {
    RsAxis *a = &p->ax[d];
    if (!a->active) continue;
    emit_itab(e, fmt(e, "ix%d", d), a->idx, p->out[d] * a->taps);
    if (p->mode != M_NEAREST) emit_ftab(e, ct, fmt(e, "wx%d", d), a->w, p->out[d] * a->taps);
    if (a->any_ex) {
      emit_itab(e, fmt(e, "ex%d", d), a->ex, p->out[d]);
      any_ex = true;
    }
  }
  int64_t st[ONNXC_MAX_RANK], s = 1;
  for (int d = r - 1; d >= 0; d--) { st[d] = s; s *= p->in[d]; }
  /* serial: the output in order (o counts); CUDA (e->par): one thread per output element,
     its coordinates d0.. from the grid-stride index */
  const char *oi = e->par ? "o" : "o++";
  if (e->par) {
    const char *vars[ONNXC_MAX_RANK], *oe = "d0";
    for (int d = 0; d < r; d++) {
      vars[d] = fmt(e, "d%d", d);
      if (d) oe = fmt(e, "(%s) * %lld + d%d", oe, (long long)p->out[d], d);
    }
    emit_par_nest(e, it, r, vars, p->out);
    ep(e, "const %s o = %s;", it, oe);
  } else {
    ep(e, "%s o = 0;", it);
  }
  for (int d = 0; d < r; d++) {
    RsAxis *a = &p->ax[d];
    const char *prev = d == 0 ? "0" : fmt(e, "b%d", d - 1);
    if (!e->par) {
      ep(e, "%s d%d;", it, d);
      ep(e, "for (d%d = 0; d%d < %lld; d%d++) {", d, d, (long long)p->out[d], d);
    }
    if (!a->active) ep(e, "const %s b%d = %s + d%d * %lld;", it, d, prev, d, (long long)st[d]);
    else if (p->mode == M_NEAREST) ep(e, "const %s b%d = %s + ix%d[d%d];", it, d, prev, d, d);
    else ep(e, "const %s b%d = %s;", it, d, prev);
  }
  const char *last = fmt(e, "b%d", r - 1);
  bool any_active = false;
  for (int d = 0; d < r; d++)
    if (p->ax[d].active) any_active = true;
  if (any_ex) {
    Buf cond = {0};
    for (int d = 0; d < r; d++)
      if (p->ax[d].active && p->ax[d].any_ex) buf_printf(&cond, "%sex%d[d%d]", cond.len ? " || " : "", d, d);
    ep(e, "if (%s) { Y0[%s] = %s; continue; }", cond.p, oi,
       dtype_is_int(dt) ? int_extrapolation(e, dt, p->ev) : store_sat(e, dt, c_lit(e, ct, p->ev)));
    buf_free(&cond);
  }
  if (p->mode == M_NEAREST || !any_active) {
    ep(e, "Y0[%s] = X0[%s];", oi, last);
  } else {
    /* the reference resizes one axis after the other (first axis first), so the first active
       axis is the innermost sum: each level keeps its own partial sum */
    int act[ONNXC_MAX_RANK], na = 0;
    for (int d = 0; d < r; d++)
      if (p->ax[d].active) act[na++] = d;
    const char *pos = last;
    for (int i = na - 1; i >= 0; i--) {
      int d = act[i];
      RsAxis *a = &p->ax[d];
      ep(e, "%s s%d = 0;", CT, d);
      ep(e, "%s t%d;", it, d);
      ep(e, "for (t%d = 0; t%d < %d; t%d++) {", d, d, a->taps, d);
      ep(e, "const %s p%d = %s + ix%d[d%d * %d + t%d];", it, d, pos, d, d, a->taps, d);
      pos = fmt(e, "p%d", d);
    }
    for (int i = 0; i < na; i++) {
      int d = act[i];
      RsAxis *a = &p->ax[d];
      const char *w = fmt(e, "wx%d[d%d * %d + t%d]", d, d, a->taps, d);
      if (i == 0) ep(e, "s%d += %s * %s;", d, w, c_load(e, dt, fmt(e, "X0[%s]", pos)));
      else ep(e, "s%d += %s * s%d;", d, w, act[i - 1]);
      ep(e, "}");
    }
    const char *acc = fmt(e, "s%d", act[na - 1]);
    ep(e, "Y0[%s] = %s;", oi, store_sat(e, dt, acc));
  }
  if (e->par) emit_par_end(e, r);
  else
    for (int d = 0; d < r; d++) ep(e, "}");
}

/* ==== GridSample =========================================================================== */

enum { GS_ZEROS, GS_BORDER, GS_REFLECT };

/* Reflects variable v (compute type) into [lo, hi] like the reference's _gs_reflect. */
static void emit_reflect(Emit *e, int ct, const char *v, double lo, double hi) {
  const char *L = c_lit(e, ct, lo), *H = c_lit(e, ct, hi), *CT = c_type(ct);
  if (hi - lo <= 0) {
    ep(e, "if (%s < %s || %s > %s) %s = %s;", v, L, v, H, v, L);
    return;
  }
  ep(e, "if (%s < %s || %s > %s) {", v, L, v, H);
  ep(e, "const %s rng = %s;", CT, c_lit(e, ct, hi - lo));
  ep(e, "const %s dx = %s < %s ? %s - %s : %s - %s;", CT, v, L, L, v, v, H);
  ep(e, "const %s q = %s(dx / rng), rr = dx - q * rng;", CT, mf(e, ct, "floor"));
  ep(e, "const int even = %s(q, 2) == 0;", mf(e, ct, "fmod"));
  ep(e, "if (%s < %s) %s = even ? %s + rr : %s - rr;", v, L, v, L, H);
  ep(e, "else %s = even ? %s - rr : %s + rr;", v, H, L);
  ep(e, "}");
}

static void gs_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 2);
  require_dtype(ctx, n, 0, float_types);
  require_dtype(ctx, n, 1, float_types);
  Value *x = n->inputs[0], *g = n->inputs[1];
  int k = x->rank - 2;
  if (k < 1 || k > 3) fail_node(ctx, n, "only 1-D to 3-D spatial inputs are supported");
  if (n->opset < 20 && k != 2) fail_node(ctx, n, "GridSample-16 takes 4-D inputs");
  if (g->rank != x->rank || g->dims[0] != x->dims[0] || g->dims[g->rank - 1] != k)
    fail_node(ctx, n, "grid shape %s does not match input %s", shape_str(&ctx->arena, g), shape_str(&ctx->arena, x));
  static const char *const modes[] = {"linear", "nearest", "cubic", "bilinear", "bicubic"};
  int m = pick(ctx, n, "mode", n->opset < 20 ? "bilinear" : "linear", modes, 5);
  if (m == 2 && k != 2) fail_node(ctx, n, "cubic mode needs 4-D inputs");
  static const char *const pads[] = {"zeros", "border", "reflection"};
  pick(ctx, n, "padding_mode", "zeros", pads, 3);
  int64_t d[ONNXC_MAX_RANK];
  d[0] = x->dims[0];
  d[1] = x->dims[1];
  for (int i = 0; i < k; i++) d[2 + i] = g->dims[1 + i];
  value_set_shape(n->outputs[0], x->dtype, x->rank, d);
}

static void gs_emit(Emit *e, Node *n) {
  Ctx *ctx = e->ctx;
  Value *x = n->inputs[0], *g = n->inputs[1], *y = n->outputs[0];
  int k = x->rank - 2;
  static const char *const modes[] = {"linear", "nearest", "cubic", "bilinear", "bicubic"};
  int m = pick(ctx, n, "mode", n->opset < 20 ? "bilinear" : "linear", modes, 5);
  if (m == 3) m = 0;
  if (m == 4) m = 2;
  static const char *const pads[] = {"zeros", "border", "reflection"};
  int pm = pick(ctx, n, "padding_mode", "zeros", pads, 3);
  bool align = attr_i(n, "align_corners", 0) != 0;
  int dt = x->dtype, ct = ctype_of(dt == DT_DOUBLE || g->dtype == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT);
  const char *CT = c_type(ct);
  if (value_numel(y) == 0) return;
  int taps = m == 1 ? 1 : (m == 0 ? 2 : 4);
  int64_t N = x->dims[0], C = x->dims[1], P = 1, S = 1, st[3];
  for (int i = 0; i < k; i++) P *= g->dims[1 + i];
  for (int i = k - 1; i >= 0; i--) { st[i] = S; S *= x->dims[2 + i]; }
  ep(e, "int64_t n, p, c;");
  ep(e, "for (n = 0; n < %lld; n++) {", (long long)N);
  ep(e, "for (p = 0; p < %lld; p++) {", (long long)P);
  ep(e, "const %s *gp = X1 + (n * %lld + p) * %d;", c_type(g->dtype), (long long)P, k);
  ep(e, "int64_t off[%d][%d];", k, taps);
  ep(e, "%s wt[%d][%d];", CT, k, taps);
  for (int i = 0; i < k; i++) {
    int64_t D = x->dims[2 + i];
    double lo = align ? 0 : -0.5, hi = align ? (double)D - 1 : (double)D - 0.5;
    const char *gv = c_load(e, g->dtype, fmt(e, "gp[%d]", k - 1 - i));
    ep(e, "{");
    if (align) ep(e, "%s v = (%s + 1) / 2 * %s;", CT, gv, c_lit(e, ct, (double)(D - 1)));
    else ep(e, "%s v = ((%s + 1) * %s - 1) / 2;", CT, gv, c_lit(e, ct, (double)D));
    ep(e, "int64_t i0;");
    ep(e, "int t;");
    if (m == 1) ep(e, "v = %s(v);", mf(e, ct, "rint"));
    if (pm == GS_BORDER) ep(e, "if (v < %s || v > %s) v = v < 0 ? 0 : (v > %s ? %s : v);", c_lit(e, ct, lo), c_lit(e, ct, hi),
                            c_lit(e, ct, (double)(D - 1)), c_lit(e, ct, (double)(D - 1)));
    if (pm == GS_REFLECT) emit_reflect(e, ct, "v", lo, hi);
    /* keep the integer conversion defined: far-away coordinates behave the same */
    ep(e, "if (!(v > %s)) v = %s;", c_lit(e, ct, -(double)D - 8), c_lit(e, ct, -(double)D - 8));
    ep(e, "if (v > %s) v = %s;", c_lit(e, ct, 2.0 * (double)D + 8), c_lit(e, ct, 2.0 * (double)D + 8));
    if (m == 1) {
      ep(e, "i0 = (int64_t)v;");
      ep(e, "wt[%d][0] = 1;", i);
    } else {
      ep(e, "i0 = (int64_t)%s(v);", mf(e, ct, "floor"));
      ep(e, "{");
      ep(e, "const %s r = v - (%s)i0;", CT, CT);
      if (m == 0) {
        ep(e, "wt[%d][0] = 1 - r;", i);
        ep(e, "wt[%d][1] = r;", i);
        ep(e, "(void)t;");
      } else {
        ep(e, "const %s A = %s, r1 = r + 1, q = 1 - r, q1 = 2 - r;", CT, c_lit(e, ct, -0.75));
        ep(e, "wt[%d][0] = ((A * r1 - 5 * A) * r1 + 8 * A) * r1 - 4 * A;", i);
        ep(e, "wt[%d][1] = ((A + 2) * r - (A + 3)) * r * r + 1;", i);
        ep(e, "wt[%d][2] = ((A + 2) * q - (A + 3)) * q * q + 1;", i);
        ep(e, "wt[%d][3] = ((A * q1 - 5 * A) * q1 + 8 * A) * q1 - 4 * A;", i);
        ep(e, "i0 -= 1;");
      }
      ep(e, "}");
    }
    ep(e, "for (t = 0; t < %d; t++) {", taps);
    ep(e, "int64_t j = i0 + t;");
    if (pm == GS_ZEROS) {
      ep(e, "off[%d][t] = (j >= 0 && j < %lld) ? j * %lld : -((int64_t)1 << 40);", i, (long long)D, (long long)st[i]);
    } else if (pm == GS_BORDER) {
      ep(e, "j = j < 0 ? 0 : (j > %lld ? %lld : j);", (long long)(D - 1), (long long)(D - 1));
      ep(e, "off[%d][t] = j * %lld;", i, (long long)st[i]);
    } else {
      ep(e, "%s fj = (%s)j;", CT, CT);
      emit_reflect(e, ct, "fj", lo, hi);
      ep(e, "j = (int64_t)fj;");
      ep(e, "j = j < 0 ? 0 : (j > %lld ? %lld : j);", (long long)(D - 1), (long long)(D - 1));
      ep(e, "off[%d][t] = j * %lld;", i, (long long)st[i]);
    }
    ep(e, "}");
    ep(e, "}");
  }
  ep(e, "for (c = 0; c < %lld; c++) {", (long long)C);
  ep(e, "const %s *xc = X0 + (n * %lld + c) * %lld;", c_type(dt), (long long)C, (long long)S);
  ep(e, "%s acc = 0;", CT);
  for (int i = 0; i < k; i++) {
    ep(e, "int t%d;", i);
    ep(e, "for (t%d = 0; t%d < %d; t%d++) {", i, i, taps, i);
    ep(e, "const int64_t o%d = %soff[%d][t%d];", i, i ? fmt(e, "o%d + ", i - 1) : "", i, i);
    ep(e, "const %s w%d = %swt[%d][t%d];", CT, i, i ? fmt(e, "w%d * ", i - 1) : "", i, i);
  }
  ep(e, "if (o%d >= 0) acc += w%d * %s;", k - 1, k - 1, c_load(e, dt, fmt(e, "xc[o%d]", k - 1)));
  for (int i = 0; i < k; i++) ep(e, "}");
  ep(e, "Y0[(n * %lld + c) * %lld + p] = %s;", (long long)C, (long long)P, c_store(e, dt, "acc"));
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ==== AffineGrid =========================================================================== */

static void ag_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 2);
  require_dtype(ctx, n, 0, float_types);
  Value *th = n->inputs[0];
  Value *sz = node_const_in(ctx, n, 1, "size");
  int64_t cnt = value_numel(sz);
  if (sz->dtype != DT_INT64 || (cnt != 4 && cnt != 5)) fail_node(ctx, n, "size must be int64 with 4 or 5 values");
  int k = (int)cnt - 2;
  if (th->rank != 3 || th->dims[1] != k || th->dims[2] != k + 1)
    fail_node(ctx, n, "theta shape %s must be [N, %d, %d]", shape_str(&ctx->arena, th), k, k + 1);
  if (const_get_i(sz, 0) != th->dims[0]) fail_node(ctx, n, "size batch differs from theta batch");
  int64_t d[5];
  d[0] = th->dims[0];
  for (int i = 0; i < k; i++) {
    d[1 + i] = const_get_i(sz, 2 + i);
    if (d[1 + i] < 0) fail_node(ctx, n, "size must be nonnegative");
  }
  d[1 + k] = k;
  value_set_shape(n->outputs[0], th->dtype, k + 2, d);
}

static void ag_emit(Emit *e, Node *n) {
  Value *th = n->inputs[0], *y = n->outputs[0];
  int k = y->rank - 2, dt = th->dtype, ct = ctype_of(dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT);
  const char *CT = c_type(ct);
  bool align = attr_i(n, "align_corners", 0) != 0;
  if (value_numel(y) == 0) return;
  /* base coordinates per spatial dim (dims are [D,] H, W; the x coordinate runs along W) */
  for (int i = 0; i < k; i++) {
    int64_t s = y->dims[1 + i];
    double *v = arena_alloc(&e->ctx->arena, sizeof(double) * (size_t)(s > 0 ? s : 1));
    for (int64_t j = 0; j < s; j++) {
      if (align) v[j] = s == 1 ? -1.0 : -1.0 + (double)j * (2.0 / (double)(s - 1));
      else v[j] = -1.0 + 1.0 / (double)s + (double)j * (2.0 / (double)s);
    }
    emit_ftab(e, DT_DOUBLE, fmt(e, "base%d", i), v, s);
  }
  int64_t N = y->dims[0], P = 1;
  for (int i = 0; i < k; i++) P *= y->dims[1 + i];
  ep(e, "int64_t n, p;");
  ep(e, "for (n = 0; n < %lld; n++) {", (long long)N);
  ep(e, "const %s *th = X0 + n * %d;", c_type(dt), k * (k + 1));
  ep(e, "%s t[%d];", CT, k * (k + 1));
  ep(e, "int q;");
  ep(e, "for (q = 0; q < %d; q++) t[q] = %s;", k * (k + 1), c_load(e, dt, "th[q]"));
  ep(e, "for (p = 0; p < %lld; p++) {", (long long)P);
  /* homogeneous coordinate (x, y[, z], 1): component c uses spatial dim k-1-c */
  int64_t div = 1;
  for (int i = k - 1; i >= 0; i--) {
    ep(e, "const double c%d = base%d[(p / %lld) %% %lld];", k - 1 - i, i, (long long)div, (long long)y->dims[1 + i]);
    div *= y->dims[1 + i];
  }
  for (int r = 0; r < k; r++) {
    Buf b = {0};
    for (int c = 0; c < k; c++) buf_printf(&b, "(double)t[%d] * c%d + ", r * (k + 1) + c, c);
    buf_printf(&b, "(double)t[%d]", r * (k + 1) + k);
    ep(e, "Y0[(n * %lld + p) * %d + %d] = %s;", (long long)P, k, r, c_store(e, dt, fmt(e, "(%s)(%s)", CT, b.p)));
    buf_free(&b);
  }
  ep(e, "}");
  ep(e, "}");
}

/* ==== RoiAlign ============================================================================= */

static void ra_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 3, 3);
  require_dtype(ctx, n, 0, float_types);
  Value *x = n->inputs[0], *rois = n->inputs[1], *bi = n->inputs[2];
  if (x->rank != 4) fail_node(ctx, n, "X must be 4-D");
  if (rois->dtype != x->dtype) fail_node(ctx, n, "rois element type differs from X");
  if (rois->rank != 2 || rois->dims[1] != 4) fail_node(ctx, n, "rois must be [num_rois, 4]");
  if (bi->rank != 1 || bi->dims[0] != rois->dims[0] || (bi->dtype != DT_INT64 && bi->dtype != DT_INT32))
    fail_node(ctx, n, "batch_indices must be integer [num_rois]");
  static const char *const modes[] = {"avg", "max"};
  pick(ctx, n, "mode", "avg", modes, 2);
  static const char *const ctms[] = {"half_pixel", "output_half_pixel"};
  if (n->opset >= 16) pick(ctx, n, "coordinate_transformation_mode", "half_pixel", ctms, 2);
  int64_t oh = attr_i(n, "output_height", 1), ow = attr_i(n, "output_width", 1);
  if (oh <= 0 || ow <= 0) fail_node(ctx, n, "output_height/output_width must be positive");
  int64_t d[4] = {rois->dims[0], x->dims[1], oh, ow};
  value_set_shape(n->outputs[0], x->dtype, 4, d);
}

static int64_t ra_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  return n->inputs[0]->dims[1] * 8 + 16;
}

static void ra_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0], *y = n->outputs[0];
  int dt = x->dtype, ct = ctype_of(dt);
  const char *CT = c_type(ct), *T = c_type(dt);
  if (value_numel(y) == 0) return;
  static const char *const modes[] = {"avg", "max"};
  bool mx = pick(e->ctx, n, "mode", "avg", modes, 2) == 1;
  bool half = n->opset >= 16 && strcmp(attr_s(n, "coordinate_transformation_mode", "half_pixel"), "half_pixel") == 0;
  long long R = (long long)y->dims[0], C = (long long)x->dims[1], H = (long long)x->dims[2], W = (long long)x->dims[3];
  long long PH = (long long)y->dims[2], PW = (long long)y->dims[3];
  int64_t sr = attr_i(n, "sampling_ratio", 0);
  const char *ss = c_lit(e, ct, attr_f(n, "spatial_scale", 1.0f));
  ep(e, "%s *acc = (%s *)W;", CT, CT);
  ep(e, "int64_t r, c, ph, pw, iy, ix;");
  ep(e, "for (r = 0; r < %lld; r++) {", R);
  ep(e, "const %s *roi = X1 + r * 4;", T);
  ep(e, "int64_t b = (int64_t)X2[r];");
  ep(e, "const %s sw = %s * %s - %s, sh = %s * %s - %s;", CT, c_load(e, dt, "roi[0]"), ss, half ? "0.5f" : "0",
     c_load(e, dt, "roi[1]"), ss, half ? "0.5f" : "0");
  ep(e, "const %s ew = %s * %s - %s, eh = %s * %s - %s;", CT, c_load(e, dt, "roi[2]"), ss, half ? "0.5f" : "0",
     c_load(e, dt, "roi[3]"), ss, half ? "0.5f" : "0");
  ep(e, "%s rw = ew - sw, rh = eh - sh, bw, bh;", CT);
  ep(e, "int64_t gh, gw, cnt;");
  if (!half) {
    ep(e, "if (rw < 1) rw = 1;");
    ep(e, "if (rh < 1) rh = 1;");
  }
  ep(e, "bh = rh / %lld;", PH);
  ep(e, "bw = rw / %lld;", PW);
  if (sr > 0) {
    ep(e, "gh = %lld;", (long long)sr);
    ep(e, "gw = %lld;", (long long)sr);
  } else {
    ep(e, "gh = (int64_t)%s(rh / %lld);", mf(e, ct, "ceil"), PH);
    ep(e, "gw = (int64_t)%s(rw / %lld);", mf(e, ct, "ceil"), PW);
    ep(e, "if (gh < 0) gh = 0;");
    ep(e, "if (gw < 0) gw = 0;");
  }
  ep(e, "cnt = gh * gw > 1 ? gh * gw : 1;");
  if (mx) ep(e, "(void)cnt;");
  ep(e, "if (b < 0 || b >= %lld) b = 0;", (long long)x->dims[0]);
  ep(e, "for (ph = 0; ph < %lld; ph++) {", PH);
  ep(e, "for (pw = 0; pw < %lld; pw++) {", PW);
  ep(e, "for (c = 0; c < %lld; c++) acc[c] = %s;", C, mx ? "-INFINITY" : "0");
  ep(e, "for (iy = 0; iy < gh; iy++) {");
  ep(e, "const %s yy = sh + (%s)ph * bh + ((%s)iy + 0.5f) * bh / (%s)gh;", CT, CT, CT, CT);
  ep(e, "for (ix = 0; ix < gw; ix++) {");
  ep(e, "const %s xx = sw + (%s)pw * bw + ((%s)ix + 0.5f) * bw / (%s)gw;", CT, CT, CT, CT);
  ep(e, "int64_t p1 = 0, p2 = 0, p3 = 0, p4 = 0;");
  ep(e, "%s w1 = 0, w2 = 0, w3 = 0, w4 = 0;", CT);
  ep(e, "if (!(yy < -1 || yy > %lld || xx < -1 || xx > %lld)) {", H, W);
  ep(e, "%s yv = yy < 0 ? 0 : yy, xv = xx < 0 ? 0 : xx, ly, lx;", CT);
  ep(e, "int64_t yl = (int64_t)yv, xl = (int64_t)xv, yh, xh;");
  ep(e, "if (yl >= %lld) { yh = yl = %lld; yv = (%s)yl; } else yh = yl + 1;", H - 1, H - 1, CT);
  ep(e, "if (xl >= %lld) { xh = xl = %lld; xv = (%s)xl; } else xh = xl + 1;", W - 1, W - 1, CT);
  ep(e, "ly = yv - (%s)yl;", CT);
  ep(e, "lx = xv - (%s)xl;", CT);
  ep(e, "w1 = (1 - ly) * (1 - lx); w2 = (1 - ly) * lx; w3 = ly * (1 - lx); w4 = ly * lx;");
  ep(e, "p1 = yl * %lld + xl; p2 = yl * %lld + xh; p3 = yh * %lld + xl; p4 = yh * %lld + xh;", W, W, W, W);
  ep(e, "}");
  ep(e, "for (c = 0; c < %lld; c++) {", C);
  ep(e, "const %s *xc = X0 + (b * %lld + c) * %lld;", T, C, H * W);
  if (mx) {
    ep(e, "%s v = w1 * %s, v2 = w2 * %s, v3 = w3 * %s, v4 = w4 * %s;", CT, c_load(e, dt, "xc[p1]"), c_load(e, dt, "xc[p2]"),
       c_load(e, dt, "xc[p3]"), c_load(e, dt, "xc[p4]"));
    ep(e, "if (v2 > v) v = v2;");
    ep(e, "if (v3 > v) v = v3;");
    ep(e, "if (v4 > v) v = v4;");
    ep(e, "if (v > acc[c]) acc[c] = v;");
  } else {
    ep(e, "acc[c] += w1 * %s + w2 * %s + w3 * %s + w4 * %s;", c_load(e, dt, "xc[p1]"), c_load(e, dt, "xc[p2]"),
       c_load(e, dt, "xc[p3]"), c_load(e, dt, "xc[p4]"));
  }
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
  ep(e, "for (c = 0; c < %lld; c++)", C);
  if (mx) ep(e, "  Y0[((r * %lld + c) * %lld + ph) * %lld + pw] = %s;", C, PH, PW, c_store(e, dt, "(gh * gw > 0 ? acc[c] : 0)"));
  else ep(e, "  Y0[((r * %lld + c) * %lld + ph) * %lld + pw] = %s;", C, PH, PW, c_store(e, dt, fmt(e, "acc[c] / (%s)cnt", CT)));
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ==== Col2Im =============================================================================== */

typedef struct C2Geom { int nd; int64_t img[ONNXC_MAX_RANK], blk[ONNXC_MAX_RANK], dil[ONNXC_MAX_RANK], padb[ONNXC_MAX_RANK], str[ONNXC_MAX_RANK], cols[ONNXC_MAX_RANK]; int64_t N, C, K, L; } C2Geom;

static void c2_geom(Ctx *ctx, Node *n, C2Geom *g) {
  Value *x = n->inputs[0];
  Value *im = node_const_in(ctx, n, 1, "image_shape"), *bs = node_const_in(ctx, n, 2, "block_shape");
  memset(g, 0, sizeof *g);
  g->nd = (int)value_numel(im);
  if (g->nd < 1 || g->nd > 6 || value_numel(bs) != g->nd) fail_node(ctx, n, "image_shape and block_shape must have the same length (1-6)");
  if (x->rank != 3) fail_node(ctx, n, "input must be 3-D [N, C*prod(block), L]");
  const int64_t *dl, *pd, *sd;
  int ndl = attr_ints(n, "dilations", &dl), npd = attr_ints(n, "pads", &pd), nsd = attr_ints(n, "strides", &sd);
  if ((ndl && ndl != g->nd) || (npd && npd != 2 * g->nd) || (nsd && nsd != g->nd)) fail_node(ctx, n, "attribute lengths do not match image rank");
  g->K = 1;
  g->L = 1;
  for (int i = 0; i < g->nd; i++) {
    g->img[i] = const_get_i(im, i);
    g->blk[i] = const_get_i(bs, i);
    g->dil[i] = ndl ? dl[i] : 1;
    g->padb[i] = npd ? pd[i] : 0;
    g->str[i] = nsd ? sd[i] : 1;
    int64_t pe = npd ? pd[g->nd + i] : 0;
    if (g->img[i] <= 0 || g->blk[i] <= 0 || g->dil[i] <= 0 || g->str[i] <= 0) fail_node(ctx, n, "invalid image/block/dilation/stride value");
    g->cols[i] = (g->img[i] + g->padb[i] + pe - (g->dil[i] * (g->blk[i] - 1) + 1)) / g->str[i] + 1;
    if (g->cols[i] < 1) fail_node(ctx, n, "no sliding blocks fit");
    g->K *= g->blk[i];
    g->L *= g->cols[i];
  }
  if (x->dims[1] % g->K) fail_node(ctx, n, "input dim 1 (%lld) is not divisible by the block size %lld", (long long)x->dims[1], (long long)g->K);
  if (x->dims[2] != g->L) fail_node(ctx, n, "input dim 2 (%lld) must equal the number of blocks %lld", (long long)x->dims[2], (long long)g->L);
  g->N = x->dims[0];
  g->C = x->dims[1] / g->K;
}

static void c2_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 3, 3);
  Value *x = n->inputs[0];
  if (!dtype_is_float(x->dtype) && !dtype_is_int(x->dtype)) fail_node(ctx, n, "element type %s is not supported", dtype_name(x->dtype));
  C2Geom g;
  c2_geom(ctx, n, &g);
  if (g.nd + 2 > ONNXC_MAX_RANK) fail_node(ctx, n, "image rank too large");
  int64_t d[ONNXC_MAX_RANK];
  d[0] = g.N;
  d[1] = g.C;
  for (int i = 0; i < g.nd; i++) d[2 + i] = g.img[i];
  value_set_shape(n->outputs[0], x->dtype, g.nd + 2, d);
}

static void c2_emit(Emit *e, Node *n) {
  C2Geom g;
  c2_geom(e->ctx, n, &g);
  Value *x = n->inputs[0], *y = n->outputs[0];
  int dt = x->dtype, ct = dtype_is_float(dt) ? ctype_of(dt) : dt;
  int64_t IMG = value_numel(y) / (g.N * g.C > 0 ? g.N * g.C : 1);
  if (value_numel(y) == 0) return;
  int64_t ist[ONNXC_MAX_RANK], lst[ONNXC_MAX_RANK], kst[ONNXC_MAX_RANK], s = 1, l = 1, kk = 1;
  for (int i = g.nd - 1; i >= 0; i--) {
    ist[i] = s; s *= g.img[i];
    lst[i] = l; l *= g.cols[i];
    kst[i] = kk; kk *= g.blk[i];
  }
  ep(e, "int64_t nc, k;");
  ep(e, "for (nc = 0; nc < %lld; nc++) {", (long long)(g.N * g.C));
  ep(e, "%s *y = Y0 + nc * %lld;", c_type(dt), (long long)IMG);
  ep(e, "const %s *x = X0 + nc * %lld;", c_type(dt), (long long)(g.K * g.L));
  ep(e, "int64_t q;");
  ep(e, "for (q = 0; q < %lld; q++) y[q] = %s;", (long long)IMG, c_store(e, dt, "0"));
  ep(e, "for (k = 0; k < %lld; k++) {", (long long)g.K);
  ep(e, "const %s *xk = x + k * %lld;", c_type(dt), (long long)g.L);
  for (int i = 0; i < g.nd; i++)
    ep(e, "const int64_t ko%d = ((k / %lld) %% %lld) * %lld - %lld;", i, (long long)kst[i], (long long)g.blk[i],
       (long long)g.dil[i], (long long)g.padb[i]);
  for (int i = 0; i < g.nd; i++) {
    ep(e, "int64_t l%d;", i);
    ep(e, "for (l%d = 0; l%d < %lld; l%d++) {", i, i, (long long)g.cols[i], i);
    ep(e, "const int64_t i%d = l%d * %lld + ko%d;", i, i, (long long)g.str[i], i);
    ep(e, "if (i%d < 0 || i%d >= %lld) continue;", i, i, (long long)g.img[i]);
  }
  Buf yi = {0}, xi = {0};
  buf_puts(&yi, "");
  buf_puts(&xi, "");
  for (int i = 0; i < g.nd; i++) {
    buf_printf(&yi, "%si%d * %lld", i ? " + " : "", i, (long long)ist[i]);
    buf_printf(&xi, "%sl%d * %lld", i ? " + " : "", i, (long long)lst[i]);
  }
  ep(e, "y[%s] = %s;", yi.p, c_store(e, dt, fmt(e, "(%s)%s + (%s)%s", c_type(ct), c_load(e, dt, fmt(e, "y[%s]", yi.p)),
                                                  c_type(ct), c_load(e, dt, fmt(e, "xk[%s]", xi.p)))));
  buf_free(&yi);
  buf_free(&xi);
  for (int i = 0; i < g.nd; i++) ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ==== DeformConv =========================================================================== */

typedef struct DcGeom { int64_t N, IC, H, Wd, OC, ICg, OCg, KH, KW, OH, OW, G, OG, ICog, sh, sw, dh, dw, ph, pw; } DcGeom;

static void dc_geom(Ctx *ctx, Node *n, DcGeom *g) {
  Value *x = n->inputs[0], *w = n->inputs[1], *off = n->inputs[2], *b = node_in(n, 3), *m = node_in(n, 4);
  if (x->rank != 4 || w->rank != 4 || off->rank != 4) fail_node(ctx, n, "only 2-D deformable convolution is supported");
  g->N = x->dims[0]; g->IC = x->dims[1]; g->H = x->dims[2]; g->Wd = x->dims[3];
  g->OC = w->dims[0]; g->ICg = w->dims[1]; g->KH = w->dims[2]; g->KW = w->dims[3];
  const int64_t *ks, *dl, *pd, *st;
  int nks = attr_ints(n, "kernel_shape", &ks), ndl = attr_ints(n, "dilations", &dl), npd = attr_ints(n, "pads", &pd),
      nst = attr_ints(n, "strides", &st);
  if (nks && (nks != 2 || ks[0] != g->KH || ks[1] != g->KW)) fail_node(ctx, n, "kernel_shape does not match W");
  if ((ndl && ndl != 2) || (npd && npd != 4) || (nst && nst != 2)) fail_node(ctx, n, "attribute lengths must match 2 spatial dims");
  g->dh = ndl ? dl[0] : 1; g->dw = ndl ? dl[1] : 1;
  g->sh = nst ? st[0] : 1; g->sw = nst ? st[1] : 1;
  g->ph = npd ? pd[0] : 0; g->pw = npd ? pd[1] : 0;
  int64_t pe_h = npd ? pd[2] : 0, pe_w = npd ? pd[3] : 0;
  g->G = attr_i(n, "group", 1);
  g->OG = attr_i(n, "offset_group", 1);
  if (g->G <= 0 || g->OG <= 0 || g->IC != g->ICg * g->G || g->OC % g->G || g->IC % g->OG)
    fail_node(ctx, n, "group/offset_group do not match the channel counts");
  if (g->dh <= 0 || g->dw <= 0 || g->sh <= 0 || g->sw <= 0) fail_node(ctx, n, "invalid strides/dilations");
  g->OCg = g->OC / g->G;
  g->ICog = g->IC / g->OG;
  g->OH = (g->H + g->ph + pe_h - ((g->KH - 1) * g->dh + 1)) / g->sh + 1;
  g->OW = (g->Wd + g->pw + pe_w - ((g->KW - 1) * g->dw + 1)) / g->sw + 1;
  if (off->dims[0] != g->N || off->dims[1] != g->OG * g->KH * g->KW * 2 || off->dims[2] != g->OH || off->dims[3] != g->OW)
    fail_node(ctx, n, "offset shape %s does not match [%lld, %lld, %lld, %lld]", shape_str(&ctx->arena, off), (long long)g->N,
              (long long)(g->OG * g->KH * g->KW * 2), (long long)g->OH, (long long)g->OW);
  if (b && (value_numel(b) != g->OC)) fail_node(ctx, n, "B must have %lld values", (long long)g->OC);
  if (m && (m->rank != 4 || m->dims[0] != g->N || m->dims[1] != g->OG * g->KH * g->KW || m->dims[2] != g->OH || m->dims[3] != g->OW))
    fail_node(ctx, n, "mask shape %s does not match", shape_str(&ctx->arena, m));
}

static void dc_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 3, 5);
  require_dtype(ctx, n, 0, float_types);
  for (int i = 1; i < n->n_inputs; i++)
    if (n->inputs[i] && n->inputs[i]->dtype != n->inputs[0]->dtype) fail_node(ctx, n, "inputs have different element types");
  DcGeom g;
  dc_geom(ctx, n, &g);
  int64_t d[4] = {g.N, g.OC, g.OH, g.OW};
  value_set_shape(n->outputs[0], n->inputs[0]->dtype, 4, d);
}

static int64_t dc_scratch(Ctx *ctx, Node *n) {
  DcGeom g;
  dc_geom(ctx, n, &g);
  return g.IC * g.KH * g.KW * 8 + 16;
}

static void dc_emit(Emit *e, Node *n) {
  DcGeom g;
  dc_geom(e->ctx, n, &g);
  int dt = n->inputs[0]->dtype, ct = ctype_of(dt);
  const char *CT = c_type(ct), *T = c_type(dt);
  bool hb = node_in(n, 3) != NULL, hm = node_in(n, 4) != NULL;
  if (value_numel(n->outputs[0]) == 0) return;
  long long KK = (long long)(g.KH * g.KW), OHW = (long long)(g.OH * g.OW), HW = (long long)(g.H * g.Wd);
  ep(e, "%s *col = (%s *)W;", CT, CT);
  ep(e, "int64_t b, i, j, ic, oc, a, k, t;");
  ep(e, "for (b = 0; b < %lld; b++) {", (long long)g.N);
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)g.OH);
  ep(e, "for (j = 0; j < %lld; j++) {", (long long)g.OW);
  ep(e, "for (ic = 0; ic < %lld; ic++) {", (long long)g.IC);
  ep(e, "const int64_t og = ic / %lld;", (long long)g.ICog);
  ep(e, "const %s *xc = X0 + (b * %lld + ic) * %lld;", T, (long long)g.IC, HW);
  ep(e, "for (a = 0; a < %lld; a++) {", (long long)g.KH);
  ep(e, "for (k = 0; k < %lld; k++) {", (long long)g.KW);
  ep(e, "const int64_t kc = (og * %lld + a * %lld + k);", KK, (long long)g.KW);
  ep(e, "const %s *op = X2 + (b * %lld + kc * 2) * %lld + i * %lld + j;", T, KK * 2 * (long long)g.OG, OHW, (long long)g.OW);
  ep(e, "const %s y = (%s)(i * %lld - %lld + a * %lld) + %s;", CT, CT, (long long)g.sh, (long long)g.ph, (long long)g.dh, c_load(e, dt, "op[0]"));
  ep(e, "const %s x = (%s)(j * %lld - %lld + k * %lld) + %s;", CT, CT, (long long)g.sw, (long long)g.pw, (long long)g.dw, c_load(e, dt, fmt(e, "op[%lld]", OHW)));
  ep(e, "%s v = 0;", CT);
  ep(e, "if (y > -1 && y < %lld && x > -1 && x < %lld) {", (long long)g.H, (long long)g.Wd);
  ep(e, "const int64_t y0 = (int64_t)%s(y), x0 = (int64_t)%s(x);", mf(e, ct, "floor"), mf(e, ct, "floor"));
  ep(e, "const %s ly = y - (%s)y0, lx = x - (%s)x0;", CT, CT, CT);
  ep(e, "const %s p00 = (y0 >= 0 && x0 >= 0) ? %s : 0;", CT, c_load(e, dt, fmt(e, "xc[y0 * %lld + x0]", (long long)g.Wd)));
  ep(e, "const %s p01 = (y0 >= 0 && x0 + 1 < %lld) ? %s : 0;", CT, (long long)g.Wd, c_load(e, dt, fmt(e, "xc[y0 * %lld + x0 + 1]", (long long)g.Wd)));
  ep(e, "const %s p10 = (y0 + 1 < %lld && x0 >= 0) ? %s : 0;", CT, (long long)g.H, c_load(e, dt, fmt(e, "xc[(y0 + 1) * %lld + x0]", (long long)g.Wd)));
  ep(e, "const %s p11 = (y0 + 1 < %lld && x0 + 1 < %lld) ? %s : 0;", CT, (long long)g.H, (long long)g.Wd, c_load(e, dt, fmt(e, "xc[(y0 + 1) * %lld + x0 + 1]", (long long)g.Wd)));
  ep(e, "v = (1 - ly) * ((1 - lx) * p00 + lx * p01) + ly * ((1 - lx) * p10 + lx * p11);");
  ep(e, "}");
  if (hm) ep(e, "v *= %s;", c_load(e, dt, fmt(e, "X4[(b * %lld + kc) * %lld + i * %lld + j]", KK * (long long)g.OG, OHW, (long long)g.OW)));
  ep(e, "col[ic * %lld + a * %lld + k] = v;", KK, (long long)g.KW);
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
  ep(e, "for (oc = 0; oc < %lld; oc++) {", (long long)g.OC);
  ep(e, "const %s *w = X1 + oc * %lld;", T, (long long)g.ICg * KK);
  ep(e, "const %s *cg = col + (oc / %lld) * %lld;", CT, (long long)g.OCg, (long long)g.ICg * KK);
  ep(e, "%s acc = %s;", CT, hb ? c_load(e, dt, "X3[oc]") : "0");
  ep(e, "for (t = 0; t < %lld; t++) acc += %s * cg[t];", (long long)g.ICg * KK, c_load(e, dt, "w[t]"));
  ep(e, "Y0[((b * %lld + oc) * %lld) + i * %lld + j] = %s;", (long long)g.OC, OHW, (long long)g.OW, c_store(e, dt, "acc"));
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ==== rows ================================================================================= */

#define FT "float, double, float16, bfloat16"
#define NT "float, double, float16, bfloat16, int8-64, uint8-64"

static const OpDef image_rows[] = {
    {"Upsample", "", 7, 8, OPF_PARALLEL, rs_infer, NULL, rs_emit, NULL, NT, &rs_kind[RS_UP7]},
    {"Upsample", "", 9, 10, OPF_PARALLEL, rs_infer, NULL, rs_emit, NULL, NT, &rs_kind[RS_UP9]},
    {"Resize", "", 10, 10, OPF_PARALLEL, rs_infer, NULL, rs_emit, NULL, NT, &rs_kind[RS_10]},
    {"Resize", "", 11, 12, OPF_PARALLEL, rs_infer, NULL, rs_emit, NULL, NT, &rs_kind[RS_11]},
    {"Resize", "", 13, ONNXC_MAX_OPSET, OPF_PARALLEL, rs_infer, NULL, rs_emit, NULL, NT, &rs_kind[RS_13]},
    {"GridSample", "", 16, 19, 0, gs_infer, NULL, gs_emit, NULL, FT, NULL},
    {"GridSample", "", 20, ONNXC_MAX_OPSET, 0, gs_infer, NULL, gs_emit, NULL, FT, NULL},
    {"AffineGrid", "", 20, ONNXC_MAX_OPSET, 0, ag_infer, NULL, ag_emit, NULL, FT, NULL},
    {"RoiAlign", "", 10, 15, 0, ra_infer, NULL, ra_emit, ra_scratch, FT, NULL},
    {"RoiAlign", "", 16, ONNXC_MAX_OPSET, 0, ra_infer, NULL, ra_emit, ra_scratch, FT, NULL},
    {"Col2Im", "", 18, ONNXC_MAX_OPSET, 0, c2_infer, NULL, c2_emit, NULL, NT, NULL},
    {"DeformConv", "", 19, ONNXC_MAX_OPSET, 0, dc_infer, NULL, dc_emit, dc_scratch, FT, NULL},
};
OPS_FAMILY(image);
