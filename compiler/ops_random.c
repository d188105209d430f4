/*
 * ops_random.c - the random-number operators: RandomUniform, RandomNormal, RandomUniformLike,
 * RandomNormalLike, Bernoulli and Multinomial; and the generator emitter that training-mode
 * Dropout (ops_nn.c) shares with them.
 *
 * The numbers are numpy's legacy RandomState(int(seed)) streams, which the ONNX reference
 * implementation (onnx.reference) draws, reproduced bit for bit by templates/random.h
 * (MT19937, 53-bit uniform doubles, the polar normal with its cached second value, binomial
 * inversion for n = 1).  Each node keeps its generator state in its scratch (ONNXC_RNG_BYTES,
 * planned in the arena like any scratch: nothing on the stack), seeds it at the start of every
 * run and draws one value per output element in row-major order.  So a run's output depends
 * only on the seed, never on earlier runs: the same model and seed give the same numbers on
 * every run, on every target.
 *
 * The seed attribute is a float; the reference truncates it to an integer, which must lie in
 * [0, 2^32) (numpy refuses others; so does onnxc, at compile time).  Without a seed (or a NaN
 * one) the reference draws from fresh entropy; onnxc instead uses a fixed default so that the
 * generated code and its runs stay deterministic: the 32-bit FNV-1a hash of the node's first
 * output name.  Two unseeded nodes thus get different streams (not one copy of the same
 * noise), and a model always gets the same ones.
 *
 * Element rounding follows the reference step by step, since every step rounds: the doubles
 * are cast to the output type first, then multiplied by `scale` (RandomNormal) or
 * float32(high - low) (RandomUniform) and offset by `mean` / `low`, the attributes being float32
 * scalars (numpy: float16/bfloat16 arrays times a float32 scalar compute in float32 and round
 * back).  double -> float16 is one rounding (numpy), double -> bfloat16 goes through float
 * (ml_dtypes).  The float and double products go through a volatile temporary so that
 * -ffp-contract=fast cannot fuse them with the offset into one rounding.
 *
 * Bernoulli: numpy's binomial(1, p) for each element of the input (p in double), cast to the
 * output type (dtype, else the input's).
 *
 * Multinomial: the ONNX reference has no implementation of it, so onnxc defines it the way
 * TensorFlow and ONNX Runtime compute it, with numpy's uniform draws: per batch row, in double,
 * m = the largest finite logit, cdf[j] = the running sum of exp(x[j] - m) over the finite logits
 * (a non-finite logit adds nothing), then per sample one uniform u (numpy random_sample) and
 * t = u * total; the class is the first j with cdf[j] > t (upper_bound), or, when rounding makes
 * t reach the total, the last class of positive weight.  A row without a finite logit gives
 * class 0.  Rows are drawn in order, each row's samples in order.  cdf lives in the scratch
 * after the generator.
 */
#include <math.h>
#include <string.h>

#include "onnxc.h"

/* Bytes of an onnxc_rng (templates/random.h: ONNXC_RNG_BYTES, which checks the struct fits). */
#define RNG_BYTES 2560

enum { RK_UNIFORM = 1, RK_NORMAL = 2, RK_UNIFORM_LIKE = 3, RK_NORMAL_LIKE = 4, RK_BERNOULLI = 5, RK_MULTINOMIAL = 6 };

static const int float_out[] = {DT_FLOAT, DT_DOUBLE, DT_FLOAT16, DT_BFLOAT16, 0};

/* ---- the shared generator ------------------------------------------------------------------- */

int64_t rng_state_bytes(void) { return RNG_BYTES; }

void emit_rng_init(Emit *e, uint32_t seed) {
  emit_use_template(e, "random");
  ep(e, "onnxc_rng *rng = (onnxc_rng *)(void *)W;");
  ep(e, "onnxc_rng_seed(rng, %luU);", (unsigned long)seed);
}

/* The seed of a node: its `seed` attribute truncated as int() does, or the default above. */
static uint32_t node_seed(Ctx *ctx, const Node *n) {
  const Attr *a = node_attr(n, "seed");
  if (a && a->type == ATTR_INT) {
    if (a->i < 0 || a->i > 0xffffffffLL) fail_node(ctx, n, "seed %lld is outside [0, 2^32)", (long long)a->i);
    return (uint32_t)a->i;
  }
  if (a && a->type == ATTR_FLOAT && !isnan(a->f)) {
    double s = trunc((double)a->f);
    if (!(s >= 0 && s <= 4294967295.0)) fail_node(ctx, n, "seed %g is outside [0, 2^32)", (double)a->f);
    return (uint32_t)s;
  }
  if (a && a->type != ATTR_FLOAT) fail_node(ctx, n, "attribute 'seed' must be a float");
  uint32_t h = 2166136261u;
  const char *name = n->outputs[0] ? n->outputs[0]->name : "";
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * 16777619u;
  return h;
}

static bool in_list(int dt, const int *list) {
  for (; *list; list++)
    if (*list == dt) return true;
  return false;
}

/* The output type: the dtype attribute, or (dflt >= 0) dflt when it is absent. */
static int out_dtype(Ctx *ctx, const Node *n, int dflt, const int *allowed, const char *allowed_txt) {
  const Attr *a = node_attr(n, "dtype");
  int dt = a ? (int)a->i : dflt;
  if (a && a->type != ATTR_INT) fail_node(ctx, n, "attribute 'dtype' must be an int");
  if (!in_list(dt, allowed)) {
    if (!a && dflt > 0)
      fail_node(ctx, n, "the input's element type %s is not a valid output type (%s): give the dtype attribute",
                dtype_name(dt), allowed_txt);
    fail_node(ctx, n, "dtype %d (%s) is not one of %s", dt, dt > 0 ? dtype_name(dt) : "undefined", allowed_txt);
  }
  return dt;
}

/* ---- shape rules ---------------------------------------------------------------------------- */

static void random_infer(Ctx *ctx, Node *n) {
  int kind = (int)(intptr_t)n->def->arg;
  if (kind == RK_UNIFORM || kind == RK_NORMAL) {
    require_inputs(ctx, n, 0, 0);
    const Attr *a = node_attr(n, "shape");
    if (!a) fail_node(ctx, n, "attribute 'shape' is required");
    if (a->type != ATTR_INTS) fail_node(ctx, n, "attribute 'shape' must be a list of ints");
    if (a->n_ints == 0) fail_node(ctx, n, "attribute 'shape' must not be empty");
    if (a->n_ints > ONNXC_MAX_RANK) fail_node(ctx, n, "shape has rank %d; onnxc supports up to %d", a->n_ints, ONNXC_MAX_RANK);
    int64_t cnt = 1;
    for (int i = 0; i < a->n_ints; i++)
      if (a->ints[i] < 0) fail_node(ctx, n, "shape[%d] is %lld; dims must be >= 0", i, (long long)a->ints[i]);
      else if (!mul_ok(cnt, a->ints[i], &cnt)) fail_node(ctx, n, "element count overflows");
    int dt = out_dtype(ctx, n, DT_FLOAT, float_out, "float, double, float16, bfloat16");
    value_set_shape(n->outputs[0], dt, a->n_ints, a->ints);
  } else {
    require_inputs(ctx, n, 1, 1);
    Value *x = n->inputs[0];
    int dt;
    if (kind == RK_BERNOULLI) {
      static const int in_t[] = {DT_FLOAT, DT_DOUBLE, DT_FLOAT16, DT_BFLOAT16, 0};
      static const int out_t[] = {DT_FLOAT, DT_DOUBLE, DT_FLOAT16, DT_BFLOAT16, DT_INT8, DT_INT16, DT_INT32, DT_INT64,
                                  DT_UINT8, DT_UINT16, DT_UINT32, DT_UINT64, DT_BOOL, 0};
      require_dtype(ctx, n, 0, in_t);
      const Attr *a = node_attr(n, "dtype");
      if (a && a->type == ATTR_INT && a->i == 0) dt = x->dtype; /* 0 (undefined): the input's, as in the reference */
      else dt = out_dtype(ctx, n, x->dtype, out_t, "float, double, float16, bfloat16, int8-64, uint8-64, bool");
      value_set_shape(n->outputs[0], dt, x->rank, x->dims);
    } else if (kind == RK_MULTINOMIAL) {
      static const int out_t[] = {DT_INT32, DT_INT64, 0};
      require_dtype(ctx, n, 0, float_out);
      if (x->rank != 2) fail_node(ctx, n, "input must be 2-D [batch_size, class_size], not %s", shape_str(&ctx->arena, x));
      if (x->dims[1] < 1) fail_node(ctx, n, "class_size must be at least 1");
      int64_t s = attr_i(n, "sample_size", 1);
      if (s < 1) fail_node(ctx, n, "sample_size %lld must be at least 1", (long long)s);
      dt = out_dtype(ctx, n, DT_INT32, out_t, "int32, int64");
      int64_t dims[2] = {x->dims[0], s};
      value_set_shape(n->outputs[0], dt, 2, dims);
    } else {
      dt = out_dtype(ctx, n, x->dtype, float_out, "float, double, float16, bfloat16");
      value_set_shape(n->outputs[0], dt, x->rank, x->dims);
    }
  }
  (void)node_seed(ctx, n); /* a seed out of range is an error now, not at emission */
}

static int64_t random_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  if (value_numel(n->outputs[0]) == 0) return 0;
  if ((int)(intptr_t)n->def->arg == RK_MULTINOMIAL) return RNG_BYTES + 8 * n->inputs[0]->dims[1];
  return RNG_BYTES;
}

/* ---- emitters ------------------------------------------------------------------------------- */

static const char *itype(int64_t n) { return n < 2147483647LL ? "int" : "long long"; }

/* RandomUniform(Like), RandomNormal(Like): y = cast(draw) * a + b in the output type's
   arithmetic, a and b float32 (see the header). */
static void continuous_emit(Emit *e, Node *n, bool normal) {
  Value *y = n->outputs[0];
  int dt = y->dtype;
  int64_t cnt = value_numel(y);
  if (cnt == 0) return;
  float a, b;
  if (normal) {
    a = attr_f(n, "scale", 1.0f);
    b = attr_f(n, "mean", 0.0f);
  } else {
    float hi = attr_f(n, "high", 1.0f), lo = attr_f(n, "low", 0.0f);
    a = hi - lo; /* float32 arithmetic, as numpy subtracts the two float32 scalars */
    b = lo;
  }
  const char *al = c_lit(e, DT_FLOAT, a), *bl = c_lit(e, DT_FLOAT, b);
  const char *ct = dt == DT_DOUBLE ? "double" : "float";
  emit_rng_init(e, node_seed(e->ctx, n));
  ep(e, "%s i;", itype(cnt));
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)cnt);
  ep(e, "const double g = %s;", normal ? "onnxc_rng_gauss(rng)" : "onnxc_rng_double(rng)");
  /* v: the draw rounded to the output type, in its compute type */
  const char *v;
  switch (dt) {
  case DT_DOUBLE: v = "g"; break;
  case DT_FLOAT: v = "(float)g"; break;
  case DT_FLOAT16: v = "onnxc_h2f(onnxc_d2h(g))"; break;
  default: v = "onnxc_bf2f(onnxc_f2bf((float)g))"; break;
  }
  if (a != 1.0f) { /* x * 1 is x exactly: no product to round */
    if (dt == DT_DOUBLE || dt == DT_FLOAT) {
      ep(e, "volatile %s t = %s * %s;", ct, v, dt == DT_DOUBLE ? fmt(e, "(double)%s", al) : al);
      v = "t";
    } else {
      v = c_load(e, dt, c_store(e, dt, fmt(e, "%s * %s", v, al)));
    }
  }
  ep(e, "Y0[i] = %s;", c_store(e, dt, fmt(e, "%s + %s", v, dt == DT_DOUBLE ? fmt(e, "(double)%s", bl) : bl)));
  ep(e, "}");
}

static void bernoulli_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0], *y = n->outputs[0];
  int64_t cnt = value_numel(y);
  if (cnt == 0) return;
  emit_rng_init(e, node_seed(e->ctx, n));
  ep(e, "%s i;", itype(cnt));
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)cnt);
  ep(e, "const int b = onnxc_rng_bernoulli(rng, (double)%s);", c_load(e, x->dtype, "X0[i]"));
  ep(e, "Y0[i] = %s;", c_store(e, y->dtype, dtype_is_float(y->dtype) ? "(float)b" : "b"));
  ep(e, "}");
}

static void multinomial_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0], *y = n->outputs[0];
  int64_t B = x->dims[0], C = x->dims[1], S = y->dims[1];
  if (B * S == 0) return;
  const char *it = itype(B * (C > S ? C : S));
  emit_rng_init(e, node_seed(e->ctx, n));
  ep(e, "double *cdf = (double *)(void *)(W + %d);", RNG_BYTES);
  ep(e, "%s b, j, lo, hi, last;", it);
  ep(e, "for (b = 0; b < %lld; b++) {", (long long)B);
  ep(e, "double m = -1.7976931348623157e308, total = 0.0;");
  ep(e, "last = -1;");
  ep(e, "for (j = 0; j < %lld; j++) {", (long long)C);
  ep(e, "const double v = (double)%s;", c_load(e, x->dtype, fmt(e, "X0[b * %lld + j]", (long long)C)));
  ep(e, "if (fabs(v) <= 1.7976931348623157e308 && v > m) m = v;");
  ep(e, "}");
  ep(e, "for (j = 0; j < %lld; j++) {", (long long)C);
  ep(e, "const double v = (double)%s;", c_load(e, x->dtype, fmt(e, "X0[b * %lld + j]", (long long)C)));
  ep(e, "if (fabs(v) <= 1.7976931348623157e308) {");
  ep(e, "const double w = exp(v - m);");
  ep(e, "total += w;");
  ep(e, "if (w > 0.0) last = j;");
  ep(e, "}");
  ep(e, "cdf[j] = total;");
  ep(e, "}");
  ep(e, "for (j = 0; j < %lld; j++) {", (long long)S);
  ep(e, "const double t = onnxc_rng_double(rng) * total;");
  ep(e, "if (t < total) {"); /* the first class whose running sum exceeds t */
  ep(e, "lo = 0;");
  ep(e, "hi = %lld;", (long long)(C - 1));
  ep(e, "while (lo < hi) {");
  ep(e, "const %s mid = lo + (hi - lo) / 2;", it);
  ep(e, "if (cdf[mid] <= t) lo = mid + 1;");
  ep(e, "else hi = mid;");
  ep(e, "}");
  ep(e, "} else {");
  ep(e, "lo = last < 0 ? 0 : last;");
  ep(e, "}");
  ep(e, "Y0[b * %lld + j] = (%s)lo;", (long long)S, c_type(y->dtype));
  ep(e, "}");
  ep(e, "}");
}

static void random_emit(Emit *e, Node *n) {
  switch ((int)(intptr_t)n->def->arg) {
  case RK_UNIFORM: case RK_UNIFORM_LIKE: continuous_emit(e, n, false); break;
  case RK_NORMAL: case RK_NORMAL_LIKE: continuous_emit(e, n, true); break;
  case RK_BERNOULLI: bernoulli_emit(e, n); break;
  case RK_MULTINOMIAL: multinomial_emit(e, n); break;
  default: unreachable("random op kind");
  }
}

/* ---- rows ----------------------------------------------------------------------------------- */

#define FT "float, double, float16, bfloat16"
#define R(name, since, flags, kind, types) \
  {name, "", since, ONNXC_MAX_OPSET, flags, random_infer, NULL, random_emit, random_scratch, types, (const void *)(intptr_t)(kind)}

static const OpDef random_rows[] = {
    R("RandomUniform", 1, 0, RK_UNIFORM, FT " (numpy RandomState; no seed: a default per node)"),
    R("RandomNormal", 1, 0, RK_NORMAL, FT " (numpy RandomState; no seed: a default per node)"),
    /* the Like ops read only their input's shape, which may be a string tensor's */
    R("RandomUniformLike", 1, OPF_STRINGS, RK_UNIFORM_LIKE, "any -> " FT " (numpy RandomState; no seed: a default per node)"),
    R("RandomNormalLike", 1, OPF_STRINGS, RK_NORMAL_LIKE, "any -> " FT " (numpy RandomState; no seed: a default per node)"),
    R("Bernoulli", 15, 0, RK_BERNOULLI, FT " -> " FT ", int8-64, uint8-64, bool (numpy binomial(1, p))"),
    R("Multinomial", 7, 0, RK_MULTINOMIAL, FT " -> int32, int64 (inverse CDF over numpy uniform draws)"),
};
OPS_FAMILY(random);
