/*
 * ops_misc.c - assorted elementwise ops (Mod, BitShift, IsInf, Shrink, Swish, Gelu), window
 * functions (HannWindow, HammingWindow, BlackmanWindow), MelWeightMatrix, DFT and STFT.
 *
 * Elementwise rows use emit_broadcast_loops with their own loop bodies:
 *   Mod with fmod=0 follows Python/numpy semantics (result takes the divisor's sign; for floats
 *   m = fmod(a, b), then m += b when the signs differ, and a zero result is copysign(0, b));
 *   integer division by zero gives 0.  BitShift by a negative amount or by >= the bit width
 *   gives 0 (RIGHT of a negative signed value: -1); signed shifts are done on the unsigned bits
 *   and converted back without implementation-defined conversions.
 * Windows and MelWeightMatrix have shapes given by inputs, which must be constants; their
 * values are then folded at compile time (emitters exist for the windows regardless).
 * DFT/STFT are direct O(L * n) transforms in double precision against a twiddle table
 * (cos/sin of 2*pi*j/L for j < L) built in scratch at run time; the table index of k*t mod L
 * is advanced incrementally, so there is no division in the inner loop.  Inverse with
 * onesided=1 is the inverse real FFT (Hermitian input, real output with last dim 1), as in the
 * ONNX reference.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- shared bits -------------------------------------------------------------------------- */

static int ctype_of(int dt) { return dt == DT_DOUBLE ? DT_DOUBLE : (dtype_is_float(dt) ? DT_FLOAT : dt); }

/* libm name for the compute type: "expf" for float, "exp" for double */
static const char *lm(Emit *e, int ct, const char *f) { return ct == DT_DOUBLE ? f : fmt(e, "%sf", f); }


static int bit_width(int dt) { return (int)dtype_size(dt) * 8; }

static const char *unsigned_of(int dt) {
  switch (dtype_size(dt)) {
  case 1: return "uint8_t";
  case 2: return "uint16_t";
  case 4: return "uint32_t";
  default: return "uint64_t";
  }
}

/* ---- Mod ---------------------------------------------------------------------------------- */

static void mod_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 2);
  Value *a = n->inputs[0], *b = n->inputs[1];
  if (a->dtype != b->dtype) fail_node(ctx, n, "inputs have different element types");
  if (!dtype_is_float(a->dtype) && !dtype_is_int(a->dtype))
    fail_node(ctx, n, "element type %s is not supported", dtype_name(a->dtype));
  int64_t f = attr_i(n, "fmod", 0);
  if (f != 0 && f != 1) fail_node(ctx, n, "fmod must be 0 or 1");
  infer_broadcast(ctx, n);
}

static void mod_body(Emit *e, void *arg) {
  Node *n = arg;
  int dt = n->inputs[0]->dtype, ct = ctype_of(dt);
  bool fm = attr_i(n, "fmod", 0) != 0;
  const char *t = c_ctype(dt);
  ep(e, "const %s a = %s, b = %s;", t, c_load(e, dt, "X0[i0]"), c_load(e, dt, "X1[i1]"));
  if (dtype_is_float(dt)) {
    if (fm) {
      ep(e, "Y0[o] = %s;", c_store(e, dt, fmt(e, "%s(a, b)", lm(e, ct, "fmod"))));
    } else {
      ep(e, "%s m = %s(a, b);", t, lm(e, ct, "fmod"));
      ep(e, "if (m != 0) {");
      ep(e, "if ((b < 0) != (m < 0)) m += b;");
      ep(e, "} else {");
      ep(e, "m = %s((%s)0, b);", lm(e, ct, "copysign"), t);
      ep(e, "}");
      ep(e, "Y0[o] = %s;", c_store(e, dt, "m"));
    }
    return;
  }
  if (!dtype_is_signed(dt)) {
    ep(e, "Y0[o] = (%s)(b ? a %% b : 0);", c_type(dt));
    return;
  }
  ep(e, "%s m = (b == 0 || b == -1) ? 0 : (%s)(a %% b);", t, t);
  if (!fm) ep(e, "if (m != 0 && ((m < 0) != (b < 0))) m = (%s)(m + b);", t);
  ep(e, "Y0[o] = m;");
}

static void mod_emit(Emit *e, Node *n) {
  const Value *ins[2] = {n->inputs[0], n->inputs[1]};
  emit_broadcast_loops(e, n->outputs[0], ins, 2, mod_body, n);
}

static void mod_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  Value *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
  bool fm = attr_i(n, "fmod", 0) != 0;
  int dt = a->dtype;
  for (int64_t o = 0; o < value_numel(y); o++) {
    int64_t ia = bcast_index(y, a, o), ib = bcast_index(y, b, o);
    if (dtype_is_float(dt)) {
      double x = const_get_f(a, ia), d = const_get_f(b, ib), m;
      if (dt == DT_DOUBLE) m = fmod(x, d);
      else m = fmodf((float)x, (float)d);
      if (!fm) {
        if (m != 0) {
          if ((d < 0) != (m < 0)) m = dt == DT_DOUBLE ? m + d : (double)((float)m + (float)d);
        } else {
          m = copysign(0.0, d);
        }
      }
      const_set_f(y, o, m);
    } else if (!dtype_is_signed(dt)) {
      uint64_t x = (uint64_t)const_get_i(a, ia), d = (uint64_t)const_get_i(b, ib);
      const_set_i(y, o, (int64_t)(d ? x % d : 0));
    } else {
      int64_t x = const_get_i(a, ia), d = const_get_i(b, ib);
      int64_t m = (d == 0 || d == -1) ? 0 : x % d;
      if (!fm && m != 0 && ((m < 0) != (d < 0))) m += d;
      const_set_i(y, o, m);
    }
  }
}

/* ---- BitShift ----------------------------------------------------------------------------- */

static void bitshift_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 2);
  Value *a = n->inputs[0], *b = n->inputs[1];
  if (a->dtype != b->dtype) fail_node(ctx, n, "inputs have different element types");
  if (!dtype_is_int(a->dtype)) fail_node(ctx, n, "element type %s is not supported", dtype_name(a->dtype));
  const char *d = attr_s(n, "direction", "");
  if (strcmp(d, "LEFT") != 0 && strcmp(d, "RIGHT") != 0) fail_node(ctx, n, "direction must be LEFT or RIGHT");
  infer_broadcast(ctx, n);
}

static void bitshift_body(Emit *e, void *arg) {
  Node *n = arg;
  int dt = n->inputs[0]->dtype, w = bit_width(dt);
  bool left = strcmp(attr_s(n, "direction", ""), "LEFT") == 0;
  const char *t = c_type(dt), *ut = unsigned_of(dt), *wide = w == 64 ? "uint64_t" : "uint32_t";
  ep(e, "const %s a = X0[i0], b = X1[i1];", t);
  if (!dtype_is_signed(dt)) {
    if (left) ep(e, "Y0[o] = b >= %d ? 0 : (%s)((%s)a << b);", w, t, wide);
    else ep(e, "Y0[o] = b >= %d ? 0 : (%s)(a >> b);", w, t);
    return;
  }
  if (left) {
    /* shift the bits as unsigned, then map back to the signed range without overflow */
    ep(e, "const %s u = (b < 0 || b >= %d) ? 0 : (%s)((%s)(%s)a << b);", ut, w, ut, wide, ut);
    ep(e, "Y0[o] = u <= (%s)%s ? (%s)u : (%s)(-(%s)(%s - u) - 1);", ut, c_highest(e, dt), t, t, t,
       c_highest(e, dtype_size(dt) == 8 ? DT_UINT64 : (dtype_size(dt) == 4 ? DT_UINT32 : (dtype_size(dt) == 2 ? DT_UINT16 : DT_UINT8))));
  } else {
    ep(e, "Y0[o] = (b < 0 || b >= %d) ? (%s)(a < 0 ? -1 : 0) : (%s)(a < 0 ? ~(~a >> b) : a >> b);", w, t, t);
  }
}

static void bitshift_emit(Emit *e, Node *n) {
  const Value *ins[2] = {n->inputs[0], n->inputs[1]};
  emit_broadcast_loops(e, n->outputs[0], ins, 2, bitshift_body, n);
}

/* ---- IsInf, Shrink, Swish, Gelu ----------------------------------------------------------- */

static void float_unary_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  if (!dtype_is_float(n->inputs[0]->dtype))
    fail_node(ctx, n, "element type %s is not supported", dtype_name(n->inputs[0]->dtype));
  infer_same_as_input0(ctx, n);
}

static void isinf_infer(Ctx *ctx, Node *n) {
  float_unary_infer(ctx, n);
  n->outputs[0]->dtype = DT_BOOL;
}

static void isinf_body(Emit *e, void *arg) {
  Node *n = arg;
  int dt = n->inputs[0]->dtype;
  bool pos = attr_i(n, "detect_positive", 1) != 0, neg = attr_i(n, "detect_negative", 1) != 0;
  const char *v = c_load(e, dt, "X0[i0]");
  const char *inf = dt == DT_DOUBLE ? "(double)INFINITY" : "INFINITY";
  if (pos && neg) ep(e, "Y0[o] = (uint8_t)(isinf(%s) != 0);", v);
  else if (pos) ep(e, "Y0[o] = (uint8_t)(%s == %s);", v, inf);
  else if (neg) ep(e, "Y0[o] = (uint8_t)(%s == -%s);", v, inf);
  else {
    ep(e, "(void)i0;");
    ep(e, "Y0[o] = 0;");
  }
}

static void shrink_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  int dt = n->inputs[0]->dtype;
  if (!dtype_is_float(dt) && !dtype_is_int(dt)) fail_node(ctx, n, "element type %s is not supported", dtype_name(dt));
  infer_same_as_input0(ctx, n);
}

static void shrink_body(Emit *e, void *arg) {
  Node *n = arg;
  int dt = n->inputs[0]->dtype;
  double lambd = attr_f(n, "lambd", 0.5f), bias = attr_f(n, "bias", 0.0f);
  if (dtype_is_float(dt)) {
    int ct = ctype_of(dt);
    ep(e, "const %s v = %s;", c_ctype(dt), c_load(e, dt, "X0[i0]"));
    ep(e, "Y0[o] = %s;", c_store(e, dt, fmt(e, "v < %s ? v + %s : (v > %s ? v - %s : 0)", c_lit(e, ct, -lambd),
                                            c_lit(e, ct, bias), c_lit(e, ct, lambd), c_lit(e, ct, bias))));
  } else {
    ep(e, "const double v = (double)X0[i0];");
    ep(e, "const double r = v < %s ? v + %s : (v > %s ? v - %s : 0.0);", c_lit(e, DT_DOUBLE, -lambd),
       c_lit(e, DT_DOUBLE, bias), c_lit(e, DT_DOUBLE, lambd), c_lit(e, DT_DOUBLE, bias));
    ep(e, "Y0[o] = (%s)onnxc_f2i_%s(r);", c_type(dt), dtype_is_signed(dt) ? "s" : "u");
  }
}

static void swish_body(Emit *e, void *arg) {
  Node *n = arg;
  int dt = n->inputs[0]->dtype, ct = ctype_of(dt);
  ep(e, "const %s v = %s;", c_ctype(dt), c_load(e, dt, "X0[i0]"));
  ep(e, "Y0[o] = %s;", c_store(e, dt, fmt(e, "v * (1 / (1 + %s(%s * v)))", lm(e, ct, "exp"),
                                          c_lit(e, ct, -(double)attr_f(n, "alpha", 1.0f)))));
}

static void gelu_infer(Ctx *ctx, Node *n) {
  const char *ap = attr_s(n, "approximate", "none");
  if (strcmp(ap, "none") != 0 && strcmp(ap, "tanh") != 0) fail_node(ctx, n, "approximate must be 'none' or 'tanh'");
  float_unary_infer(ctx, n);
}

static void gelu_body(Emit *e, void *arg) {
  Node *n = arg;
  int dt = n->inputs[0]->dtype, ct = ctype_of(dt);
  ep(e, "const %s v = %s;", c_ctype(dt), c_load(e, dt, "X0[i0]"));
  if (strcmp(attr_s(n, "approximate", "none"), "tanh") == 0)
    ep(e, "Y0[o] = %s;", c_store(e, dt, fmt(e, "%s * v * (1 + %s(%s * (v + %s * v * v * v)))", c_lit(e, ct, 0.5),
                                            lm(e, ct, "tanh"), c_lit(e, ct, sqrt(2.0 / M_PI)), c_lit(e, ct, 0.044715))));
  else
    ep(e, "Y0[o] = %s;", c_store(e, dt, fmt(e, "%s * v * (1 + %s(v * %s))", c_lit(e, ct, 0.5), lm(e, ct, "erf"),
                                            c_lit(e, ct, 1.0 / sqrt(2.0)))));
}

static void unary_emit(Emit *e, Node *n) {
  const Value *ins[1] = {n->inputs[0]};
  BodyFn body = NULL;
  if (!strcmp(n->op_type, "IsInf")) body = isinf_body;
  else if (!strcmp(n->op_type, "Shrink")) body = shrink_body;
  else if (!strcmp(n->op_type, "Swish")) body = swish_body;
  else if (!strcmp(n->op_type, "Gelu")) body = gelu_body;
  else unreachable("unary_emit");
  emit_broadcast_loops(e, n->outputs[0], ins, 1, body, n);
}

/* ---- window functions --------------------------------------------------------------------- */

enum { WIN_HANN, WIN_HAMMING, WIN_BLACKMAN };

static int win_kind(const Node *n) {
  if (!strcmp(n->op_type, "HannWindow")) return WIN_HANN;
  if (!strcmp(n->op_type, "HammingWindow")) return WIN_HAMMING;
  return WIN_BLACKMAN;
}

static void window_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  Value *sz = node_const_in(ctx, n, 0, "window size");
  if (!dtype_is_int(sz->dtype) || value_numel(sz) != 1) fail_node(ctx, n, "size must be an integer scalar");
  int64_t size = const_get_i(sz, 0);
  if (size < 0) fail_node(ctx, n, "size must not be negative");
  int dt = (int)attr_i(n, "output_datatype", DT_FLOAT);
  if (!dtype_is_float(dt) && !dtype_is_int(dt)) fail_node(ctx, n, "output_datatype %s is not supported", dtype_name(dt));
  value_set_shape(n->outputs[0], dt, 1, &size);
}

/* N - 1 of the formulas: the size for periodic windows, size - 1 for symmetric ones */
static double win_denom(const Node *n, int64_t size) {
  return attr_i(n, "periodic", 1) ? (double)size : (double)(size - 1);
}

static double win_value(int kind, double i, double den) {
  if (den == 0) return 1.0;
  switch (kind) {
  case WIN_HANN: { double s = sin(M_PI * i / den); return s * s; }
  case WIN_HAMMING: return 25.0 / 46.0 - 21.0 / 46.0 * cos(2 * M_PI * i / den);
  default: return 0.42 - 0.5 * cos(2 * M_PI * i / den) + 0.08 * cos(4 * M_PI * i / den);
  }
}

static void window_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  Value *y = n->outputs[0];
  int64_t size = y->dims[0];
  for (int64_t i = 0; i < size; i++) const_set_f(y, i, win_value(win_kind(n), (double)i, win_denom(n, size)));
}

static void window_emit(Emit *e, Node *n) {
  Value *y = n->outputs[0];
  int64_t size = y->dims[0];
  double den = win_denom(n, size);
  if (size == 0) return;
  ep(e, "long long i;");
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)size);
  if (den == 0) {
    ep(e, "const double w = 1.0;");
  } else {
    ep(e, "const double a = %s * (double)i;", c_lit(e, DT_DOUBLE, 2 * M_PI / den));
    switch (win_kind(n)) {
    case WIN_HANN: ep(e, "const double s = sin(0.5 * a), w = s * s;"); break;
    case WIN_HAMMING: ep(e, "const double w = %s - %s * cos(a);", c_lit(e, DT_DOUBLE, 25.0 / 46.0), c_lit(e, DT_DOUBLE, 21.0 / 46.0)); break;
    default: ep(e, "const double w = 0.42 - 0.5 * cos(a) + 0.08 * cos(2.0 * a);"); break;
    }
  }
  ep(e, "Y0[i] = %s;", c_store(e, y->dtype, dtype_is_float(y->dtype) && y->dtype != DT_DOUBLE ? "(float)w" : "w"));
  ep(e, "}");
}

/* ---- MelWeightMatrix ---------------------------------------------------------------------- */

static void mel_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 5, 5);
  static const char *what[5] = {"num_mel_bins", "dft_length", "sample_rate", "lower_edge_hertz", "upper_edge_hertz"};
  for (int i = 0; i < 5; i++) {
    Value *v = node_const_in(ctx, n, i, what[i]);
    if (value_numel(v) != 1) fail_node(ctx, n, "%s must be a scalar", what[i]);
    if (i < 3 && !dtype_is_int(v->dtype)) fail_node(ctx, n, "%s must be an integer", what[i]);
    if (i >= 3 && !dtype_is_float(v->dtype)) fail_node(ctx, n, "%s must be a float", what[i]);
  }
  int64_t mel = const_get_i(n->inputs[0], 0), dft = const_get_i(n->inputs[1], 0), sr = const_get_i(n->inputs[2], 0);
  if (mel <= 0 || dft <= 0 || sr <= 0) fail_node(ctx, n, "num_mel_bins, dft_length and sample_rate must be positive");
  int dt = (int)attr_i(n, "output_datatype", DT_FLOAT);
  if (!dtype_is_float(dt) && !dtype_is_int(dt)) fail_node(ctx, n, "output_datatype %s is not supported", dtype_name(dt));
  int64_t dims[2] = {dft / 2 + 1, mel};
  value_set_shape(n->outputs[0], dt, 2, dims);
}

/* the triangle filters of the reference: edge frequencies on the mel scale, mapped to bins */
static void mel_fold(Ctx *ctx, Node *n) {
  int64_t mel = const_get_i(n->inputs[0], 0), dft = const_get_i(n->inputs[1], 0), sr = const_get_i(n->inputs[2], 0);
  Value *lo = n->inputs[3], *hi = n->inputs[4], *y = n->outputs[0];
  int64_t nbins = dft / 2 + 1;
  /* the reference computes the mel edges in the inputs' precision, then in double */
  double lmel, hmel;
  if (lo->dtype == DT_DOUBLE) lmel = 2595 * log1p(const_get_f(lo, 0) / 700) / log(10.0);
  else lmel = (double)(2595.0f * log1pf((float)const_get_f(lo, 0) / 700.0f)) / log(10.0);
  if (hi->dtype == DT_DOUBLE) hmel = 2595 * log1p(const_get_f(hi, 0) / 700) / log(10.0);
  else hmel = (double)(2595.0f * log1pf((float)const_get_f(hi, 0) / 700.0f)) / log(10.0);
  double step = (hmel - lmel) / (double)(mel + 2);
  int64_t *bins = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(mel + 2));
  for (int64_t i = 0; i < mel + 2; i++) {
    double f = (double)i * step + lmel;
    f = 700 * expm1(f / 2595 * log(10.0));
    bins[i] = (int64_t)floor((double)(dft + 1) * f / (double)sr);
  }
  memset(y->data, 0, (size_t)value_bytes(y));
  for (int64_t i = 0; i < mel; i++) {
    int64_t l = bins[i], c = bins[i + 1], h = bins[i + 2];
    if (l < 0 || h > nbins || c < 0 || c >= nbins || l > c || c > h)
      fail_node(ctx, n, "mel filter edges fall outside the %lld spectrogram bins", (long long)nbins);
    if (c == l) const_set_f(y, c * mel + i, 1.0);
    else
      for (int64_t j = l; j <= c; j++) const_set_f(y, j * mel + i, (double)(j - l) / (double)(c - l));
    for (int64_t j = c; j < h; j++) const_set_f(y, j * mel + i, (double)(h - j) / (double)(h - c));
  }
}

/* ---- DFT / STFT --------------------------------------------------------------------------- */

typedef struct DftG {
  int64_t outer, nin, inner, cin;   /* input viewed as [outer, nin, inner, cin] */
  int64_t L, T, kout;               /* dft length, samples used, output bins */
  bool inverse, onesided;
  /* STFT */
  int64_t nframes, step, wlen, siglen;
} DftG;

static int64_t scalar_int(Ctx *ctx, Node *n, int i, const char *what) {
  Value *v = node_const_in(ctx, n, i, what);
  if (!dtype_is_int(v->dtype) || value_numel(v) != 1) fail_node(ctx, n, "%s must be an integer scalar", what);
  return const_get_i(v, 0);
}

static void dft_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, n->opset >= 20 ? 3 : 2);
  Value *x = n->inputs[0];
  if (!dtype_is_float(x->dtype)) fail_node(ctx, n, "element type %s is not supported", dtype_name(x->dtype));
  int r = x->rank;
  if (r < 2 || (x->dims[r - 1] != 1 && x->dims[r - 1] != 2))
    fail_node(ctx, n, "input must have a last dimension of 1 (real) or 2 (complex), got %s", shape_str(&ctx->arena, x));
  int64_t axis = n->opset >= 20 ? (node_in(n, 2) ? scalar_int(ctx, n, 2, "axis") : -2) : attr_i(n, "axis", 1);
  if (axis < -r || axis >= r) fail_node(ctx, n, "axis %lld is out of range", (long long)axis);
  if (axis < 0) axis += r;
  if (axis == r - 1) fail_node(ctx, n, "axis must not be the last (real/imaginary) dimension");
  DftG *g = arena_alloc(&ctx->arena, sizeof *g);
  g->inverse = attr_i(n, "inverse", 0) != 0;
  g->onesided = attr_i(n, "onesided", 0) != 0;
  g->outer = 1;
  for (int d = 0; d < axis; d++) g->outer *= x->dims[d];
  g->nin = x->dims[axis];
  g->inner = 1;
  for (int d = (int)axis + 1; d < r - 1; d++) g->inner *= x->dims[d];
  g->cin = x->dims[r - 1];
  if (node_in(n, 1)) g->L = scalar_int(ctx, n, 1, "dft_length");
  else g->L = g->inverse && g->onesided ? 2 * (g->nin - 1) : g->nin;
  if (g->L <= 0) fail_node(ctx, n, "dft_length must be positive");
  int64_t dims[ONNXC_MAX_RANK];
  memcpy(dims, x->dims, sizeof(int64_t) * (size_t)r);
  if (g->inverse && g->onesided) {
    g->T = g->nin < g->L / 2 + 1 ? g->nin : g->L / 2 + 1;
    g->kout = g->L;
    dims[r - 1] = 1;
  } else {
    g->T = g->nin < g->L ? g->nin : g->L;
    g->kout = g->onesided ? g->L / 2 + 1 : g->L;
    dims[r - 1] = 2;
  }
  dims[axis] = g->kout;
  n->priv = g;
  value_set_shape(n->outputs[0], x->dtype, r, dims);
}

/* power-of-two lengths from 8 on use an iterative radix-2 FFT instead of the direct sum */
static bool dft_use_fft(const DftG *g) { return g->L >= 8 && (g->L & (g->L - 1)) == 0; }

static int64_t dft_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  const DftG *g = n->priv;
  return (dft_use_fft(g) ? 4 * g->L : 2 * g->L + 2 * g->T) * (int64_t)sizeof(double);
}

/* twiddle table tc/ts (cos/sin 2*pi*j/L) and the gathered signal xr/xi, all in W */
static void dft_prologue(Emit *e, const DftG *g) {
  ep(e, "double *tc = (double *)W, *ts = tc + %lld, *xr = ts + %lld, *xi = xr + %lld;", (long long)g->L,
     (long long)g->L, (long long)(dft_use_fft(g) ? g->L : g->T));
  ep(e, "long long j, t;");
  ep(e, "for (j = 0; j < %lld; j++) {", (long long)g->L);
  ep(e, "const double a = %s * (double)j;", c_lit(e, DT_DOUBLE, 2 * M_PI / (double)g->L));
  ep(e, "tc[j] = cos(a);");
  ep(e, "ts[j] = sin(a);");
  ep(e, "}");
}

/* In-place radix-2 FFT of xr/xi[0..L) (bins T.. already zero); sign -1 forward, +1 inverse. */
static void fft_emit(Emit *e, const DftG *g, bool inverse) {
  long long L = (long long)g->L;
  ep(e, "{");
  ep(e, "long long u, q = 0, len;");
  ep(e, "for (u = 1; u < %lld; u++) {", L);
  ep(e, "long long bit = %lld;", L >> 1);
  ep(e, "for (; q & bit; bit >>= 1) q ^= bit;");
  ep(e, "q ^= bit;");
  ep(e, "if (u < q) {");
  ep(e, "const double r = xr[u], m = xi[u];");
  ep(e, "xr[u] = xr[q]; xi[u] = xi[q]; xr[q] = r; xi[q] = m;");
  ep(e, "}");
  ep(e, "}");
  ep(e, "for (len = 2; len <= %lld; len <<= 1) {", L);
  ep(e, "const long long half = len >> 1, step = %lld / len;", L);
  ep(e, "for (u = 0; u < %lld; u += len) {", L);
  ep(e, "for (j = 0; j < half; j++) {");
  ep(e, "const double wr = tc[j * step], wi = %sts[j * step];", inverse ? "" : "-");
  ep(e, "const long long p = u + j, s = p + half;");
  ep(e, "const double tr = xr[s] * wr - xi[s] * wi, ti = xr[s] * wi + xi[s] * wr;");
  ep(e, "xr[s] = xr[p] - tr; xi[s] = xi[p] - ti;");
  ep(e, "xr[p] += tr; xi[p] += ti;");
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* FFT path of dft_core: zero-fill, (Hermitian extension for the inverse real FFT), FFT, store. */
static void dft_core_fft(Emit *e, const DftG *g, int odt, const char *ybase, int64_t ystride) {
  long long L = (long long)g->L;
  const char *scale = g->inverse ? fmt(e, " * %s", c_lit(e, DT_DOUBLE, 1.0 / (double)g->L)) : "";
  ep(e, "for (t = %lld; t < %lld; t++) { xr[t] = 0.0; xi[t] = 0.0; }", (long long)g->T, L);
  if (g->inverse && g->onesided) {
    ep(e, "xi[0] = 0.0;");
    if (g->T == L / 2 + 1) ep(e, "xi[%lld] = 0.0;", L / 2);
    ep(e, "for (t = %lld; t < %lld; t++) { xr[t] = xr[%lld - t]; xi[t] = -xi[%lld - t]; }", L / 2 + 1, L, L, L);
    fft_emit(e, g, true);
    ep(e, "for (t = 0; t < %lld; t++) Y0[%s + t * %lld] = %s;", L, ybase, (long long)ystride,
       c_store(e, odt, fmt(e, "(%s)(xr[t]%s)", c_ctype(odt), scale)));
    return;
  }
  fft_emit(e, g, g->inverse);
  ep(e, "for (t = 0; t < %lld; t++) {", (long long)g->kout);
  ep(e, "Y0[%s + t * %lld] = %s;", ybase, (long long)ystride, c_store(e, odt, fmt(e, "(%s)(xr[t]%s)", c_ctype(odt), scale)));
  ep(e, "Y0[%s + t * %lld + 1] = %s;", ybase, (long long)ystride, c_store(e, odt, fmt(e, "(%s)(xi[t]%s)", c_ctype(odt), scale)));
  ep(e, "}");
}

/* Transforms xr/xi[0..T) into bins 0..kout of Y0 at ybase + k * ystride (+1 for imag). */
static void dft_core(Emit *e, const DftG *g, int odt, bool cplx, const char *ybase, int64_t ystride) {
  const char *sign_re = g->inverse ? "-" : "+", *sign_im = g->inverse ? "+" : "-";
  const char *scale = g->inverse ? fmt(e, " * %s", c_lit(e, DT_DOUBLE, 1.0 / (double)g->L)) : "";
  if (dft_use_fft(g)) {
    (void)cplx;
    dft_core_fft(e, g, odt, ybase, ystride);
    return;
  }
  if (g->inverse && g->onesided) {
    /* inverse real FFT: Hermitian extension of bins 0..T, imaginary parts of DC/Nyquist dropped */
    ep(e, "for (t = 0; t < %lld; t++) {", (long long)g->L);
    ep(e, "double acc = %s;", g->T > 0 ? "xr[0]" : "0.0");
    ep(e, "long long idx = 0;");
    ep(e, "for (j = 1; j < %lld; j++) {", (long long)g->T);
    ep(e, "idx += t;");
    ep(e, "if (idx >= %lld) idx -= %lld;", (long long)g->L, (long long)g->L);
    if (g->L % 2 == 0 && g->T == g->L / 2 + 1) {
      ep(e, "if (j == %lld) acc += xr[j] * tc[idx];", (long long)(g->L / 2));
      ep(e, "else acc += 2.0 * (xr[j] * tc[idx] - xi[j] * ts[idx]);");
    } else {
      ep(e, "acc += 2.0 * (xr[j] * tc[idx] - xi[j] * ts[idx]);");
    }
    ep(e, "}");
    ep(e, "Y0[%s + t * %lld] = %s;", ybase, (long long)ystride, c_store(e, odt, fmt(e, "(%s)(acc%s)", c_ctype(odt), scale)));
    ep(e, "}");
    return;
  }
  ep(e, "for (long long kk = 0; kk < %lld; kk++) {", (long long)g->kout);
  ep(e, "double re = 0.0, im = 0.0;");
  ep(e, "long long idx = 0;");
  ep(e, "for (t = 0; t < %lld; t++) {", (long long)g->T);
  if (cplx) {
    ep(e, "re += xr[t] * tc[idx] %s xi[t] * ts[idx];", sign_re);
    ep(e, "im += xi[t] * tc[idx] %s xr[t] * ts[idx];", sign_im);
  } else {
    ep(e, "re += xr[t] * tc[idx];");
    ep(e, "im %s= xr[t] * ts[idx];", sign_im);
  }
  ep(e, "idx += kk;");
  ep(e, "if (idx >= %lld) idx -= %lld;", (long long)g->L, (long long)g->L);
  ep(e, "}");
  ep(e, "Y0[%s + kk * %lld] = %s;", ybase, (long long)ystride, c_store(e, odt, fmt(e, "(%s)(re%s)", c_ctype(odt), scale)));
  ep(e, "Y0[%s + kk * %lld + 1] = %s;", ybase, (long long)ystride, c_store(e, odt, fmt(e, "(%s)(im%s)", c_ctype(odt), scale)));
  ep(e, "}");
}

static void dft_emit(Emit *e, Node *n) {
  const DftG *g = n->priv;
  Value *x = n->inputs[0], *y = n->outputs[0];
  int64_t cout = y->dims[y->rank - 1];
  if (value_numel(y) == 0) return;
  dft_prologue(e, g);
  ep(e, "long long o, i;");
  ep(e, "(void)xi;");
  ep(e, "for (o = 0; o < %lld; o++) {", (long long)g->outer);
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)g->inner);
  ep(e, "for (t = 0; t < %lld; t++) {", (long long)g->T);
  ep(e, "const long long xo = ((o * %lld + t) * %lld + i) * %lld;", (long long)g->nin, (long long)g->inner, (long long)g->cin);
  ep(e, "xr[t] = (double)%s;", c_load(e, x->dtype, "X0[xo]"));
  ep(e, "xi[t] = %s;", g->cin == 2 ? fmt(e, "(double)%s", c_load(e, x->dtype, "X0[xo + 1]")) : "0.0");
  ep(e, "}");
  dft_core(e, g, y->dtype, g->cin == 2 || (g->inverse && g->onesided),
           fmt(e, "o * %lld + i * %lld", (long long)(g->kout * g->inner * cout), (long long)cout), g->inner * cout);
  ep(e, "}");
  ep(e, "}");
}

static void stft_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 4);
  Value *x = n->inputs[0], *win = node_in(n, 2);
  if (!dtype_is_float(x->dtype)) fail_node(ctx, n, "element type %s is not supported", dtype_name(x->dtype));
  if (x->rank != 3 || (x->dims[2] != 1 && x->dims[2] != 2))
    fail_node(ctx, n, "signal must be [batch, length, 1 or 2], got %s", shape_str(&ctx->arena, x));
  DftG *g = arena_alloc(&ctx->arena, sizeof *g);
  g->step = scalar_int(ctx, n, 1, "frame_step");
  if (g->step <= 0) fail_node(ctx, n, "frame_step must be positive");
  if (win && (win->rank != 1 || win->dtype != x->dtype)) fail_node(ctx, n, "window must be 1-D of the signal's type");
  int64_t fl = node_in(n, 3) ? scalar_int(ctx, n, 3, "frame_length") : (win ? win->dims[0] : x->dims[1]);
  if (fl <= 0) fail_node(ctx, n, "frame_length must be positive");
  g->onesided = attr_i(n, "onesided", 1) != 0;
  g->siglen = x->dims[1];
  g->cin = x->dims[2];
  g->L = fl;
  g->wlen = win ? win->dims[0] : fl;
  g->T = g->wlen < fl ? g->wlen : fl;
  g->nframes = g->siglen >= fl ? 1 + (g->siglen - fl) / g->step : 0;
  if (g->nframes <= 0) fail_node(ctx, n, "signal is shorter than one frame");
  g->kout = g->onesided ? fl / 2 + 1 : fl;
  g->outer = x->dims[0];
  n->priv = g;
  int64_t dims[4] = {x->dims[0], g->nframes, g->kout, 2};
  value_set_shape(n->outputs[0], x->dtype, 4, dims);
}

static void stft_emit(Emit *e, Node *n) {
  const DftG *g = n->priv;
  Value *x = n->inputs[0], *y = n->outputs[0];
  if (value_numel(y) == 0) return;
  dft_prologue(e, g);
  ep(e, "long long b, f;");
  ep(e, "(void)xi;");
  ep(e, "for (b = 0; b < %lld; b++) {", (long long)g->outer);
  ep(e, "for (f = 0; f < %lld; f++) {", (long long)g->nframes);
  ep(e, "for (t = 0; t < %lld; t++) {", (long long)g->T);
  ep(e, "const long long p = f * %lld + t;", (long long)g->step);
  ep(e, "const long long xo = (b * %lld + p) * %lld;", (long long)g->siglen, (long long)g->cin);
  ep(e, "const double w = %s;", node_in(n, 2) ? fmt(e, "(double)%s", c_load(e, x->dtype, "X2[t]")) : "1.0");
  ep(e, "if (p >= %lld) { xr[t] = 0.0; xi[t] = 0.0; continue; }", (long long)g->siglen);
  ep(e, "xr[t] = (double)%s * w;", c_load(e, x->dtype, "X0[xo]"));
  ep(e, "xi[t] = %s;", g->cin == 2 ? fmt(e, "(double)%s * w", c_load(e, x->dtype, "X0[xo + 1]")) : "0.0");
  ep(e, "}");
  dft_core(e, g, y->dtype, g->cin == 2, fmt(e, "(b * %lld + f) * %lld", (long long)g->nframes, (long long)(g->kout * 2)), 2);
  ep(e, "}");
  ep(e, "}");
}

/* ---- rows --------------------------------------------------------------------------------- */

#define FT "float, double, float16, bfloat16"
#define NT "float, double, float16, bfloat16, int8-64, uint8-64"

static const OpDef misc_rows[] = {
    {"Mod", "", 10, ONNXC_MAX_OPSET, OPF_ELEMENTWISE | OPF_INPLACE | OPF_PARALLEL, mod_infer, mod_fold, mod_emit, NULL, NT, NULL},
    {"BitShift", "", 11, ONNXC_MAX_OPSET, OPF_ELEMENTWISE | OPF_INPLACE | OPF_PARALLEL, bitshift_infer, NULL, bitshift_emit, NULL,
     "int8-64, uint8-64", NULL},
    {"IsInf", "", 10, ONNXC_MAX_OPSET, OPF_ELEMENTWISE | OPF_PARALLEL, isinf_infer, NULL, unary_emit, NULL, FT, NULL},
    {"Shrink", "", 9, ONNXC_MAX_OPSET, OPF_ELEMENTWISE | OPF_INPLACE | OPF_PARALLEL, shrink_infer, NULL, unary_emit, NULL, NT, NULL},
    {"Swish", "", 24, ONNXC_MAX_OPSET, OPF_ELEMENTWISE | OPF_INPLACE | OPF_PARALLEL, float_unary_infer, NULL, unary_emit, NULL, FT, NULL},
    {"Gelu", "", 20, ONNXC_MAX_OPSET, OPF_ELEMENTWISE | OPF_INPLACE | OPF_PARALLEL, gelu_infer, NULL, unary_emit, NULL, FT, NULL},
    {"HannWindow", "", 17, ONNXC_MAX_OPSET, 0, window_infer, window_fold, window_emit, NULL, "numeric output", NULL},
    {"HammingWindow", "", 17, ONNXC_MAX_OPSET, 0, window_infer, window_fold, window_emit, NULL, "numeric output", NULL},
    {"BlackmanWindow", "", 17, ONNXC_MAX_OPSET, 0, window_infer, window_fold, window_emit, NULL, "numeric output", NULL},
    {"MelWeightMatrix", "", 17, ONNXC_MAX_OPSET, 0, mel_infer, mel_fold, NULL, NULL, "numeric output (constant inputs)", NULL},
    {"DFT", "", 17, 19, 0, dft_infer, NULL, dft_emit, dft_scratch, FT, NULL},
    {"DFT", "", 20, ONNXC_MAX_OPSET, 0, dft_infer, NULL, dft_emit, dft_scratch, FT, NULL},
    {"STFT", "", 17, ONNXC_MAX_OPSET, 0, stft_infer, NULL, stft_emit, dft_scratch, FT, NULL},
};
OPS_FAMILY(misc);
