/*
 * ops_reduce.c - reductions and related ops: Reduce{Sum,Mean,Max,Min,Prod,L1,L2,LogSum,
 * LogSumExp,SumSquare}, ArgMax/ArgMin, TopK, SoftmaxCrossEntropyLoss,
 * NegativeLogLikelihoodLoss, Einsum and Det.
 *
 * Reduce: the input's dims are split into groups of neighbouring dims that are all reduced or
 * all kept (size-1 dims dropped).  The kernel walks the input once in memory order and
 * accumulates into an output-shaped accumulator (the output itself, or float scratch for
 * float16/bfloat16); when the innermost group is reduced the accumulation runs in a local.
 * An empty reduction set leaves the identity value (0, 1, -inf, +inf, ...), and an empty axes
 * list with noop_with_empty_axes reduces over single elements (the reference's behaviour).
 * ReduceLogSumExp makes a first pass for the per-output max.
 *
 * TopK: small k keeps a sorted insertion list per row; larger k runs a bottom-up stable merge
 * sort of indices.  Ties go to the lower index, NaN ranks above every number.
 *
 * Einsum: the equation is parsed at compile time into labels (letters plus one label per
 * ellipsis dim, right-aligned); every operand gets a stride per label (repeated labels add
 * their strides: diagonals).  The kernel is one loop per label, ordered so that the labels
 * with the smallest strides run innermost; it accumulates into the output (a local when the
 * innermost label is summed).
 *
 * Det: LU decomposition with partial pivoting in double, per matrix.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

/* ---- shared helpers ------------------------------------------------------------------------ */

/* Compute type of an element type (float for float16/bfloat16). */
static int comp_dt(int dt) {
  return (dt == DT_FLOAT16 || dt == DT_BFLOAT16) ? DT_FLOAT : dt;
}

/* libm name for the compute type: "expf" / "exp". */
static const char *mfn(Emit *e, int ct, const char *f) {
  return ct == DT_DOUBLE ? f : fmt(e, "%sf", f);
}

static bool is_half(int dt) { return dt == DT_FLOAT16 || dt == DT_BFLOAT16; }

static int64_t prod_dims(const int64_t *d, int from, int to) {
  int64_t p = 1;
  for (int i = from; i < to; i++) p *= d[i];
  return p;
}

static const int float_types[] = {DT_FLOAT, DT_DOUBLE, DT_FLOAT16, DT_BFLOAT16, 0};

/* ---- Reduce* ----------------------------------------------------------------------------- */

enum {
  R_SUM = RK_SUM,
  R_MEAN = RK_MEAN,
  R_MAX = RK_MAX,
  R_MIN = RK_MIN,
  R_PROD = RK_PROD,
  R_L1 = RK_L1,
  R_L2 = RK_L2,
  R_LOGSUM = RK_LOGSUM,
  R_LOGSUMEXP = RK_LOGSUMEXP,
  R_SUMSQ = RK_SUMSQ
};

typedef struct RedSpec { int kind; int input_axes_since; } RedSpec;

typedef struct RedInfo {
  bool red[ONNXC_MAX_RANK];
  int64_t count; /* elements reduced into each output */
} RedInfo;

static void red_infer(Ctx *ctx, Node *n) {
  const RedSpec *s = n->def->arg;
  require_inputs(ctx, n, 1, 2);
  Value *x = n->inputs[0];
  int dt = x->dtype;
  bool ok = dtype_is_float(dt) || dtype_is_int(dt) ||
            (dt == DT_BOOL && (s->kind == R_MAX || s->kind == R_MIN));
  if ((s->kind == R_LOGSUM || s->kind == R_LOGSUMEXP) && !dtype_is_float(dt)) ok = false;
  if (!ok) fail_node(ctx, n, "element type %s is not supported by this op", dtype_name(dt));
  RedInfo *ri = arena_alloc(&ctx->arena, sizeof *ri);
  int64_t axes[ONNXC_MAX_RANK * 2];
  int na = 0;
  bool noop = false;
  if (n->opset >= s->input_axes_since) {
    noop = attr_i(n, "noop_with_empty_axes", 0) != 0;
    Value *a = node_in(n, 1);
    if (a) {
      a = node_const_in(ctx, n, 1, "axes");
      if (a->dtype != DT_INT64 && a->dtype != DT_INT32) fail_node(ctx, n, "axes must be int64");
      if (value_numel(a) > ONNXC_MAX_RANK * 2) fail_node(ctx, n, "too many axes");
      na = (int)value_numel(a);
      for (int i = 0; i < na; i++) axes[i] = const_get_i(a, i);
    }
  } else {
    if (n->n_inputs > 1) fail_node(ctx, n, "axes as an input needs a newer opset");
    const int64_t *av;
    na = attr_ints(n, "axes", &av);
    if (na > ONNXC_MAX_RANK * 2) fail_node(ctx, n, "too many axes");
    for (int i = 0; i < na; i++) axes[i] = av[i];
  }
  if (na == 0) {
    for (int d = 0; d < x->rank; d++) ri->red[d] = !noop;
  } else {
    for (int i = 0; i < na; i++) {
      int ax = norm_axis(ctx, n, axes[i], x->rank);
      if (ax >= x->rank) fail_node(ctx, n, "axis %lld is out of range", (long long)axes[i]);
      ri->red[ax] = true;
    }
  }
  bool keep = attr_i(n, "keepdims", 1) != 0;
  int64_t dims[ONNXC_MAX_RANK];
  int r = 0;
  ri->count = 1;
  for (int d = 0; d < x->rank; d++) {
    if (ri->red[d]) {
      ri->count *= x->dims[d];
      if (keep) dims[r++] = 1;
    } else {
      dims[r++] = x->dims[d];
    }
  }
  n->priv = ri;
  value_set_shape(n->outputs[0], dt, r, dims);
}

bool reduce_as_rows(const Node *n, int *kind, int64_t *rows, int64_t *cols) {
  if (n->def->infer != red_infer || !n->priv || n->inputs[0]->dtype != DT_FLOAT) return false;
  const RedInfo *ri = n->priv;
  const Value *x = n->inputs[0];
  bool seen_red = false;
  *rows = 1;
  for (int d = 0; d < x->rank; d++) {
    if (x->dims[d] == 1) continue;
    if (ri->red[d]) seen_red = true;
    else if (seen_red) return false; /* a kept dim inside the reduced ones */
    else *rows *= x->dims[d];
  }
  *cols = ri->count;
  *kind = ((const RedSpec *)n->def->arg)->kind;
  return *rows > 0 && *cols > 0;
}

/* The accumulation statement for one element v into a. */
static const char *red_stmt(Emit *e, int kind, int dt, const char *a, const char *v, const char *m) {
  int ct = comp_dt(dt);
  bool fl = dtype_is_float(dt);
  switch (kind) {
  case R_SUM: case R_MEAN: case R_LOGSUM: return fmt(e, "%s += %s;", a, v);
  case R_SUMSQ: case R_L2: return fmt(e, "%s += %s * %s;", a, v, v);
  case R_L1:
    if (fl) return fmt(e, "%s += %s(%s);", a, mfn(e, ct, "fabs"), v);
    if (dtype_is_signed(dt)) return fmt(e, "%s += (%s < 0 ? -%s : %s);", a, v, v, v);
    return fmt(e, "%s += %s;", a, v);
  case R_PROD: return fmt(e, "%s *= %s;", a, v);
  case R_MAX:
    if (fl) return fmt(e, "if (%s > %s || %s != %s) %s = %s;", v, a, v, v, a, v);
    return fmt(e, "if (%s > %s) %s = %s;", v, a, a, v);
  case R_MIN:
    if (fl) return fmt(e, "if (%s < %s || %s != %s) %s = %s;", v, a, v, v, a, v);
    return fmt(e, "if (%s < %s) %s = %s;", v, a, a, v);
  case R_LOGSUMEXP: return fmt(e, "%s += %s(%s - %s);", a, mfn(e, ct, "exp"), v, m);
  default: unreachable("reduce kind");
  }
}

typedef struct RedGroups {
  int m;
  int64_t len[ONNXC_MAX_RANK];
  bool red[ONNXC_MAX_RANK];
  int64_t ostride[ONNXC_MAX_RANK];
} RedGroups;

static void red_groups(const Value *x, const RedInfo *ri, RedGroups *g) {
  g->m = 0;
  for (int d = 0; d < x->rank; d++) {
    if (x->dims[d] == 1) continue;
    if (g->m > 0 && g->red[g->m - 1] == ri->red[d]) {
      g->len[g->m - 1] *= x->dims[d];
      continue;
    }
    g->len[g->m] = x->dims[d];
    g->red[g->m] = ri->red[d];
    g->m++;
  }
  if (g->m == 0) { g->m = 1; g->len[0] = 1; g->red[0] = false; }
  int64_t s = 1;
  for (int k = g->m - 1; k >= 0; k--) {
    g->ostride[k] = g->red[k] ? 0 : s;
    if (!g->red[k]) s *= g->len[k];
  }
}

/* One pass over the input in memory order; stmt kind `kind` accumulates into array `acc`;
   `marr` (or NULL) is the per-output max array for LogSumExp. */
static void red_pass(Emit *e, const RedGroups *g, int kind, int dt, const char *acc, const char *marr) {
  const char *CT = c_ctype(dt);
  ep(e, "{");
  ep(e, "long long i = 0;");
  Buf ob = {0};
  for (int k = 0; k < g->m - 1; k++) {
    ep(e, "for (long long g%d = 0; g%d < %lld; g%d++) {", k, k, (long long)g->len[k], k);
    if (g->red[k]) continue;
    if (ob.len) buf_puts(&ob, " + ");
    if (g->ostride[k] == 1) buf_printf(&ob, "g%d", k);
    else buf_printf(&ob, "g%d * %lld", k, (long long)g->ostride[k]);
  }
  const char *oexpr = ob.len ? fmt(e, "%s", ob.p) : "0";
  buf_free(&ob);
  int last = g->m - 1;
  long long L = (long long)g->len[last];
  const char *v = c_load(e, dt, "X0[i + t]");
  if (g->red[last]) {
    /* float sums accumulate in double: long rows stay accurate */
    bool wide = comp_dt(dt) == DT_FLOAT && kind != R_MAX && kind != R_MIN && kind != R_PROD;
    ep(e, "const long long ob = %s;", oexpr);
    ep(e, "%s a = %s[ob];", wide ? "double" : CT, acc);
    if (marr) ep(e, "const %s mo = %s[ob];", CT, marr);
    long long t0 = 0;
    if (wide && !marr && L >= 16) {
      /* eight partial sums (one chain of L dependent double adds waits on the add latency: a
         ReduceMean over 7 x 7 planes of 1024 channels took 75k TSC ticks, 1.5 per element);
         compilers make them one vector of doubles */
      t0 = L / 8 * 8;
      ep(e, "double p[8] = {0, 0, 0, 0, 0, 0, 0, 0};");
      ep(e, "for (long long t = 0; t < %lld; t += 8) {", t0);
      ep(e, "for (int u = 0; u < 8; u++) {");
      ep(e, "const %s v = %s;", CT, c_load(e, dt, "X0[i + t + u]"));
      ep(e, "%s", red_stmt(e, kind, dt, "p[u]", "v", "mo"));
      ep(e, "}");
      ep(e, "}");
      ep(e, "a += ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));");
    }
    if (t0 < L) {
      ep(e, "for (long long t = %lld; t < %lld; t++) {", t0, L);
      ep(e, "const %s v = %s;", CT, v);
      ep(e, "%s", red_stmt(e, kind, dt, "a", "v", "mo"));
      ep(e, "}");
    }
    ep(e, "%s[ob] = %sa;", acc, wide ? "(float)" : "");
  } else {
    ep(e, "%s *ap = %s + (%s);", CT, acc, oexpr);
    if (marr) ep(e, "const %s *mp = %s + (%s);", CT, marr, oexpr);
    ep(e, "for (long long t = 0; t < %lld; t++) {", L);
    ep(e, "const %s v = %s;", CT, v);
    ep(e, "%s", red_stmt(e, kind, dt, "ap[t]", "v", "mp[t]"));
    ep(e, "}");
  }
  ep(e, "i += %lld;", L);
  for (int k = 0; k < g->m - 1; k++) ep(e, "}");
  ep(e, "}");
}

static int64_t red_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  const RedSpec *s = n->def->arg;
  int dt = n->inputs[0]->dtype;
  int64_t no = value_numel(n->outputs[0]);
  int64_t cs = (int64_t)dtype_size(comp_dt(dt));
  int64_t b = 0;
  if (is_half(dt)) b += (no * cs + 15) / 16 * 16;
  if (s->kind == R_LOGSUMEXP) b += no * cs;
  return b;
}

/* The result of output o from its accumulator `a` (NULL: the accumulator itself). */
static const char *red_post(Emit *e, const Node *n, const char *a) {
  const RedSpec *s = n->def->arg;
  const RedInfo *ri = n->priv;
  int dt = n->inputs[0]->dtype, ct = comp_dt(dt);
  switch (s->kind) {
  case R_MEAN:
    if (!dtype_is_float(dt) && ri->count == 0) return "0";
    return fmt(e, "%s / %s", a, c_lit_i(e, ct, ri->count));
  case R_L2: return dtype_is_float(dt) ? fmt(e, "%s(%s)", mfn(e, ct, "sqrt"), a) : fmt(e, "sqrt((double)%s)", a);
  case R_LOGSUM: return fmt(e, "%s(%s)", mfn(e, ct, "log"), a);
  case R_LOGSUMEXP: return fmt(e, "%s(%s) + M[o]", mfn(e, ct, "log"), a);
  default: return NULL;
  }
}

/* CUDA parallel form: one thread per output, looping over its reduced elements (merged groups
   of input dims; float sums accumulate in double). */
static void red_emit_par(Emit *e, Node *n, const char *init) {
  const RedSpec *s = n->def->arg;
  Value *x = n->inputs[0], *y = n->outputs[0];
  int dt = x->dtype, kind = s->kind;
  RedGroups g;
  red_groups(x, n->priv, &g);
  int64_t is[ONNXC_MAX_RANK], st = 1;
  for (int k = g.m - 1; k >= 0; k--) {
    is[k] = st;
    st *= g.len[k];
  }
  bool wide = comp_dt(dt) == DT_FLOAT && kind != R_MAX && kind != R_MIN && kind != R_PROD;
  emit_par_for(e, "long long ", "o", value_numel(y));
  bool kept = false; /* any dim not reduced (else r would go unused: nvcc warns) */
  for (int k = 0; k < g.m; k++) kept |= !g.red[k];
  ep(e, kept ? "long long r = o, base = 0;" : "const long long base = 0;");
  for (int k = g.m - 1; k >= 0; k--)
    if (!g.red[k]) {
      ep(e, "base += r %% %lld * %lld;", (long long)g.len[k], (long long)is[k]);
      ep(e, "r /= %lld;", (long long)g.len[k]);
    }
  ep(e, "%s a = %s;", wide ? "double" : c_ctype(dt), init);
  int nr = 0;
  const char *idx = "base";
  for (int k = 0; k < g.m; k++)
    if (g.red[k]) {
      ep(e, "for (long long u%d = 0; u%d < %lld; u%d++) {", k, k, (long long)g.len[k], k);
      idx = fmt(e, "%s + u%d * %lld", idx, k, (long long)is[k]);
      nr++;
    }
  ep(e, "const %s v = %s;", c_ctype(dt), c_load(e, dt, fmt(e, "X0[%s]", idx)));
  ep(e, "%s", red_stmt(e, kind, dt, "a", "v", NULL));
  for (int k = 0; k < nr; k++) ep(e, "}");
  const char *post = red_post(e, n, wide ? "(float)a" : "a");
  ep(e, "Y0[o] = %s;", c_store(e, dt, post ? post : "a"));
  ep(e, "}");
}

static void red_emit(Emit *e, Node *n) {
  const RedSpec *s = n->def->arg;
  const RedInfo *ri = n->priv;
  Value *x = n->inputs[0], *y = n->outputs[0];
  int dt = x->dtype, ct = comp_dt(dt), kind = s->kind;
  int64_t no = value_numel(y), ni = value_numel(x);
  if (no == 0) return;
  const char *CT = c_ctype(dt);
  bool sep = is_half(dt);
  int64_t cs = (int64_t)dtype_size(ct);
  const char *init;
  switch (kind) {
  case R_PROD: init = c_lit_i(e, ct, 1); break;
  case R_MAX: init = dt == DT_BOOL ? "0" : c_lowest(e, ct); break;
  case R_MIN: init = dt == DT_BOOL ? "1" : c_highest(e, ct); break;
  default: init = c_lit_i(e, ct, 0); break;
  }
  if (e->par && kind != R_LOGSUMEXP && !sep && ni > 0) {
    red_emit_par(e, n, init);
    return;
  }
  ep(e, "%s *A = %s;", CT, sep ? fmt(e, "(%s *)W", CT) : "Y0");
  if (kind == R_LOGSUMEXP)
    ep(e, "%s *M = (%s *)(W + %lld);", CT, CT, (long long)(sep ? (no * cs + 15) / 16 * 16 : 0));
  ep(e, "for (long long o = 0; o < %lld; o++) A[o] = %s;", (long long)no, init);
  RedGroups g;
  red_groups(x, ri, &g);
  if (kind == R_LOGSUMEXP) {
    ep(e, "for (long long o = 0; o < %lld; o++) M[o] = %s;", (long long)no, c_lowest(e, ct));
    if (ni > 0) red_pass(e, &g, R_MAX, dt, "M", NULL);
    ep(e, "for (long long o = 0; o < %lld; o++) if (!isfinite(M[o])) M[o] = 0;", (long long)no);
  }
  if (ni > 0) red_pass(e, &g, kind, dt, "A", kind == R_LOGSUMEXP ? "M" : NULL);
  const char *post = red_post(e, n, "A[o]");
  if (!post && sep) post = "A[o]";
  if (post) ep(e, "for (long long o = 0; o < %lld; o++) Y0[o] = %s;", (long long)no, c_store(e, dt, post));
}

/* Compile-time reduction (shape computations: ReduceProd of a Shape, ...). */
static void red_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  const RedSpec *s = n->def->arg;
  const RedInfo *ri = n->priv;
  Value *x = n->inputs[0], *y = n->outputs[0];
  int64_t no = value_numel(y), ni = value_numel(x);
  bool fl = dtype_is_float(x->dtype);
  int kind = s->kind;
  double *af = fl ? calloc((size_t)(no ? no : 1), sizeof(double)) : NULL;
  double *mf = fl ? calloc((size_t)(no ? no : 1), sizeof(double)) : NULL;
  int64_t *ai = fl ? NULL : calloc((size_t)(no ? no : 1), sizeof(int64_t));
  if ((fl && (!af || !mf)) || (!fl && !ai)) unreachable("out of memory");
  for (int64_t o = 0; o < no; o++) {
    if (fl) {
      af[o] = kind == R_PROD ? 1 : kind == R_MAX ? -INFINITY : kind == R_MIN ? INFINITY : 0;
      mf[o] = -INFINITY;
    } else {
      ai[o] = kind == R_PROD ? 1 : kind == R_MAX ? INT64_MIN : kind == R_MIN ? INT64_MAX : 0;
      if (x->dtype == DT_BOOL && kind == R_MIN) ai[o] = 1;
      if (x->dtype == DT_BOOL && kind == R_MAX) ai[o] = 0;
    }
  }
  /* output index of each input element: strides of the kept dims */
  int64_t ost[ONNXC_MAX_RANK], s2 = 1;
  for (int d = x->rank - 1; d >= 0; d--) {
    ost[d] = ri->red[d] ? 0 : s2;
    if (!ri->red[d]) s2 *= x->dims[d];
  }
  for (int pass = (kind == R_LOGSUMEXP ? 0 : 1); pass < 2; pass++) {
    if (pass == 1 && kind == R_LOGSUMEXP)
      for (int64_t o = 0; o < no; o++) if (!isfinite(mf[o])) mf[o] = 0;
    for (int64_t i = 0; i < ni; i++) {
      int64_t rem = i, o = 0;
      for (int d = x->rank - 1; d >= 0; d--) {
        o += (rem % x->dims[d]) * ost[d];
        rem /= x->dims[d];
      }
      if (fl) {
        double v = const_get_f(x, i), *a = &af[o];
        if (pass == 0) { if (v > mf[o]) mf[o] = v; continue; }
        switch (kind) {
        case R_SUM: case R_MEAN: case R_LOGSUM: *a += v; break;
        case R_SUMSQ: case R_L2: *a += v * v; break;
        case R_L1: *a += fabs(v); break;
        case R_PROD: *a *= v; break;
        case R_MAX: if (v > *a || v != v) *a = v; break;
        case R_MIN: if (v < *a || v != v) *a = v; break;
        case R_LOGSUMEXP: *a += exp(v - mf[o]); break;
        default: break;
        }
      } else {
        int64_t v = const_get_i(x, i), *a = &ai[o];
        switch (kind) {
        case R_SUM: case R_MEAN: case R_SUMSQ: case R_L2: case R_L1:
          if (kind == R_SUMSQ || kind == R_L2) v = (int64_t)((uint64_t)v * (uint64_t)v);
          if (kind == R_L1 && v < 0) v = -v;
          *a = (int64_t)((uint64_t)*a + (uint64_t)v);
          break;
        case R_PROD: *a = (int64_t)((uint64_t)*a * (uint64_t)v); break;
        case R_MAX: if (v > *a) *a = v; break;
        case R_MIN: if (v < *a) *a = v; break;
        default: break;
        }
      }
    }
  }
  for (int64_t o = 0; o < no; o++) {
    if (fl) {
      double a = af[o];
      if (kind == R_MEAN) a /= (double)ri->count;
      else if (kind == R_L2) a = sqrt(a);
      else if (kind == R_LOGSUM) a = log(a);
      else if (kind == R_LOGSUMEXP) a = log(a) + mf[o];
      const_set_f(y, o, a);
    } else {
      int64_t a = ai[o];
      if (kind == R_MEAN) a = ri->count ? a / ri->count : 0;
      else if (kind == R_L2) a = (int64_t)sqrt((double)a);
      const_set_i(y, o, a);
    }
  }
  free(af);
  free(mf);
  free(ai);
}

/* ---- ArgMax / ArgMin ------------------------------------------------------------------------- */

static void arg_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  Value *x = n->inputs[0];
  if (!dtype_is_float(x->dtype) && !dtype_is_int(x->dtype))
    fail_node(ctx, n, "element type %s is not supported", dtype_name(x->dtype));
  if (x->rank == 0) fail_node(ctx, n, "input must have rank >= 1");
  int ax = norm_axis(ctx, n, attr_i(n, "axis", 0), x->rank);
  if (x->dims[ax] == 0) fail_node(ctx, n, "cannot take %s over an empty axis", n->op_type);
  bool keep = attr_i(n, "keepdims", 1) != 0;
  int64_t dims[ONNXC_MAX_RANK];
  int r = 0;
  for (int d = 0; d < x->rank; d++) {
    if (d == ax) { if (keep) dims[r++] = 1; }
    else dims[r++] = x->dims[d];
  }
  value_set_shape(n->outputs[0], DT_INT64, r, dims);
}

static void arg_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0];
  int dt = x->dtype;
  int ax = norm_axis(e->ctx, n, attr_i(n, "axis", 0), x->rank);
  bool mx = strcmp(n->op_type, "ArgMax") == 0, last = attr_i(n, "select_last_index", 0) != 0;
  int64_t O = prod_dims(x->dims, 0, ax), A = x->dims[ax], I = prod_dims(x->dims, ax + 1, x->rank);
  if (O * I == 0) return;
  const char *CT = c_ctype(dt);
  const char *op = mx ? (last ? ">=" : ">") : (last ? "<=" : "<");
  const char *cond;
  if (dtype_is_float(dt))
    cond = last ? fmt(e, "v %s b || v != v", op) : fmt(e, "v %s b || (v != v && b == b)", op);
  else
    cond = fmt(e, "v %s b", op);
  if (e->par) { /* CUDA: one thread per output element (o, j) */
    emit_par_for(e, "long long ", "t", O * I);
    ep(e, "const long long o = t / %lld, j = t %% %lld;", (long long)I, (long long)I);
    ep(e, "const %s *x = X0 + o * %lld + j;", c_type(dt), (long long)(A * I));
    ep(e, "%s b = %s;", CT, c_load(e, dt, "x[0]"));
    ep(e, "long long bi = 0;");
    ep(e, "for (long long k = 1; k < %lld; k++) {", (long long)A);
    ep(e, "const %s v = %s;", CT, c_load(e, dt, fmt(e, "x[k * %lld]", (long long)I)));
    ep(e, "if (%s) { b = v; bi = k; }", cond);
    ep(e, "}");
    ep(e, "Y0[t] = bi;");
    ep(e, "}");
    return;
  }
  ep(e, "for (long long o = 0; o < %lld; o++) {", (long long)O);
  if (I == 1) {
    ep(e, "const %s *x = X0 + o * %lld;", c_type(dt), (long long)A);
    ep(e, "%s b = %s;", CT, c_load(e, dt, "x[0]"));
    ep(e, "long long bi = 0;");
    ep(e, "for (long long k = 1; k < %lld; k++) {", (long long)A);
    ep(e, "const %s v = %s;", CT, c_load(e, dt, "x[k]"));
    ep(e, "if (%s) { b = v; bi = k; }", cond);
    ep(e, "}");
    ep(e, "Y0[o] = bi;");
  } else {
    ep(e, "const %s *x = X0 + o * %lld;", c_type(dt), (long long)(A * I));
    ep(e, "int64_t *y = Y0 + o * %lld;", (long long)I);
    ep(e, "for (long long j = 0; j < %lld; j++) y[j] = 0;", (long long)I);
    ep(e, "for (long long k = 1; k < %lld; k++) {", (long long)A);
    ep(e, "for (long long j = 0; j < %lld; j++) {", (long long)I);
    ep(e, "const %s v = %s;", CT, c_load(e, dt, fmt(e, "x[k * %lld + j]", (long long)I)));
    ep(e, "const %s b = %s;", CT, c_load(e, dt, fmt(e, "x[y[j] * %lld + j]", (long long)I)));
    ep(e, "if (%s) y[j] = k;", cond);
    ep(e, "}");
    ep(e, "}");
  }
  ep(e, "}");
}

/* ---- TopK ---------------------------------------------------------------------------------- */

#define TOPK_INSERT_MAX 16

static int64_t topk_k(Ctx *ctx, Node *n) {
  if (n->opset < 10) {
    if (!node_attr(n, "k")) fail_node(ctx, n, "missing attribute 'k'");
    return attr_i(n, "k", 0);
  }
  Value *k = node_const_in(ctx, n, 1, "k");
  if (value_numel(k) != 1 || !dtype_is_int(k->dtype)) fail_node(ctx, n, "k must hold one integer");
  return const_get_i(k, 0);
}

static void topk_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, n->opset < 10 ? 1 : 2, n->opset < 10 ? 1 : 2);
  Value *x = n->inputs[0];
  if (!dtype_is_float(x->dtype) && !dtype_is_int(x->dtype))
    fail_node(ctx, n, "element type %s is not supported", dtype_name(x->dtype));
  if (x->rank == 0) fail_node(ctx, n, "input must have rank >= 1");
  int ax = norm_axis(ctx, n, attr_i(n, "axis", -1), x->rank);
  int64_t k = topk_k(ctx, n);
  if (k < 0 || k > x->dims[ax])
    fail_node(ctx, n, "k = %lld is out of range for axis length %lld", (long long)k, (long long)x->dims[ax]);
  int64_t dims[ONNXC_MAX_RANK];
  memcpy(dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
  dims[ax] = k;
  if (node_out(n, 0)) value_set_shape(n->outputs[0], x->dtype, x->rank, dims);
  if (node_out(n, 1)) value_set_shape(n->outputs[1], DT_INT64, x->rank, dims);
}

static int64_t topk_scratch(Ctx *ctx, Node *n) {
  Value *x = n->inputs[0];
  int ax = norm_axis(ctx, n, attr_i(n, "axis", -1), x->rank);
  int64_t A = x->dims[ax], k = topk_k(ctx, n);
  if (k <= TOPK_INSERT_MAX) return 0;
  return 16 * A + A * (int64_t)dtype_size(comp_dt(x->dtype));
}

/* "p ranks before q" for a p taken from a later index than q (ties keep the lower index);
   NaN ranks above every number. */
static const char *topk_better(Emit *e, bool largest, bool fl, const char *p, const char *q) {
  if (largest)
    return fl ? fmt(e, "(%s > %s || (%s != %s && %s == %s))", p, q, p, p, q, q) : fmt(e, "(%s > %s)", p, q);
  return fl ? fmt(e, "(%s < %s || (%s != %s && %s == %s))", p, q, q, q, p, p) : fmt(e, "(%s < %s)", p, q);
}

static void topk_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0];
  int dt = x->dtype;
  int ax = norm_axis(e->ctx, n, attr_i(n, "axis", -1), x->rank);
  int64_t O = prod_dims(x->dims, 0, ax), A = x->dims[ax], I = prod_dims(x->dims, ax + 1, x->rank);
  int64_t K = topk_k(e->ctx, n);
  bool largest = n->opset < 11 || attr_i(n, "largest", 1) != 0;
  if (O * I * K == 0) return;
  const char *CT = c_ctype(dt);
  bool fl = dtype_is_float(dt);
#define BETTER(p, q) topk_better(e, largest, fl, p, q)
  /* CUDA (e->par), k <= TOPK_INSERT_MAX: one thread per (o, j) slice; larger k: serial (the
     merge sort's buffers are the node's one scratch) */
  bool par = e->par && K <= TOPK_INSERT_MAX;
  if (par) {
    emit_par_for(e, "long long ", "s_", O * I);
    ep(e, "const long long o = s_ / %lld, j = s_ %% %lld;", (long long)I, (long long)I);
  } else {
    ep(e, "for (long long o = 0; o < %lld; o++) {", (long long)O);
    ep(e, "for (long long j = 0; j < %lld; j++) {", (long long)I);
  }
  ep(e, "const %s *x = X0 + o * %lld + j;", c_type(dt), (long long)(A * I));
  ep(e, "const long long yo = o * %lld + j;", (long long)(K * I));
  const char *xt = c_load(e, dt, fmt(e, "x[t * %lld]", (long long)I));
  if (K <= TOPK_INSERT_MAX) {
    ep(e, "%s tv[%lld] = {0};", CT, (long long)K);
    ep(e, "long long ti[%lld] = {0};", (long long)K);
    ep(e, "long long cnt = 0;");
    ep(e, "for (long long t = 0; t < %lld; t++) {", (long long)A);
    ep(e, "const %s v = %s;", CT, xt);
    ep(e, "long long p;");
    ep(e, "if (cnt == %lld && !%s) continue;", (long long)K, BETTER("v", fmt(e, "tv[%lld]", (long long)(K - 1))));
    ep(e, "p = cnt < %lld ? cnt++ : %lld;", (long long)K, (long long)(K - 1));
    ep(e, "while (p > 0 && %s) {", BETTER("v", "tv[p - 1]"));
    ep(e, "tv[p] = tv[p - 1];");
    ep(e, "ti[p] = ti[p - 1];");
    ep(e, "p--;");
    ep(e, "}");
    ep(e, "tv[p] = v;");
    ep(e, "ti[p] = t;");
    ep(e, "}");
    ep(e, "for (long long q = 0; q < %lld; q++) {", (long long)K);
    ep(e, "if (Y0) Y0[yo + q * %lld] = %s;", (long long)I, c_store(e, dt, "tv[q]"));
    ep(e, "if (Y1) Y1[yo + q * %lld] = ti[q];", (long long)I);
    ep(e, "}");
  } else {
    ep(e, "int64_t *ia = (int64_t *)W, *ib = ia + %lld;", (long long)A);
    ep(e, "%s *vb = (%s *)(W + %lld);", CT, CT, (long long)(16 * A));
    ep(e, "for (long long t = 0; t < %lld; t++) {", (long long)A);
    ep(e, "vb[t] = %s;", xt);
    ep(e, "ia[t] = t;");
    ep(e, "}");
    ep(e, "for (long long w = 1; w < %lld; w *= 2) {", (long long)A);
    ep(e, "int64_t *tmp;");
    ep(e, "for (long long lo = 0; lo < %lld; lo += 2 * w) {", (long long)A);
    ep(e, "const long long mid = lo + w < %lld ? lo + w : %lld;", (long long)A, (long long)A);
    ep(e, "const long long hi = lo + 2 * w < %lld ? lo + 2 * w : %lld;", (long long)A, (long long)A);
    ep(e, "long long p = lo, q = mid, r = lo;");
    ep(e, "while (p < mid && q < hi) {");
    ep(e, "if (%s) ib[r++] = ia[q++];", BETTER("vb[ia[q]]", "vb[ia[p]]"));
    ep(e, "else ib[r++] = ia[p++];");
    ep(e, "}");
    ep(e, "while (p < mid) ib[r++] = ia[p++];");
    ep(e, "while (q < hi) ib[r++] = ia[q++];");
    ep(e, "}");
    ep(e, "tmp = ia;");
    ep(e, "ia = ib;");
    ep(e, "ib = tmp;");
    ep(e, "}");
    ep(e, "for (long long q = 0; q < %lld; q++) {", (long long)K);
    ep(e, "if (Y0) Y0[yo + q * %lld] = %s;", (long long)I, c_store(e, dt, "vb[ia[q]]"));
    ep(e, "if (Y1) Y1[yo + q * %lld] = ia[q];", (long long)I);
    ep(e, "}");
  }
#undef BETTER
  ep(e, "}");
  if (!par) ep(e, "}");
}

/* ---- NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss ------------------------------------- */

static void loss_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 3);
  bool sce = strcmp(n->op_type, "SoftmaxCrossEntropyLoss") == 0;
  require_dtype(ctx, n, 0, float_types);
  static const int tt[] = {DT_INT32, DT_INT64, 0};
  require_dtype(ctx, n, 1, tt);
  Value *x = n->inputs[0], *t = n->inputs[1], *w = node_in(n, 2);
  if (x->rank < 2) fail_node(ctx, n, "input must have rank >= 2");
  if (t->rank != x->rank - 1 || t->dims[0] != x->dims[0])
    fail_node(ctx, n, "target shape %s does not match input %s", shape_str(&ctx->arena, t), shape_str(&ctx->arena, x));
  for (int d = 2; d < x->rank; d++)
    if (t->dims[d - 1] != x->dims[d])
      fail_node(ctx, n, "target shape %s does not match input %s", shape_str(&ctx->arena, t), shape_str(&ctx->arena, x));
  if (w && (w->rank != 1 || w->dims[0] != x->dims[1] || w->dtype != x->dtype))
    fail_node(ctx, n, "weight must be a vector of C elements of the input's type");
  const char *red = attr_s(n, "reduction", "mean");
  if (strcmp(red, "none") && strcmp(red, "sum") && strcmp(red, "mean"))
    fail_node(ctx, n, "unknown reduction '%s'", red);
  if (!strcmp(red, "none")) value_set_shape(n->outputs[0], x->dtype, t->rank, t->dims);
  else value_set_shape(n->outputs[0], x->dtype, 0, NULL);
  if (n->n_outputs > 1 && n->outputs[1]) {
    if (!sce) fail_node(ctx, n, "too many outputs");
    value_set_shape(n->outputs[1], x->dtype, x->rank, x->dims);
  }
}

static void loss_emit(Emit *e, Node *n) {
  bool sce = strcmp(n->op_type, "SoftmaxCrossEntropyLoss") == 0;
  Value *x = n->inputs[0];
  int dt = x->dtype, ct = comp_dt(dt);
  const char *CT = c_ctype(dt);
  int64_t N = x->dims[0], C = x->dims[1], D = prod_dims(x->dims, 2, x->rank);
  const char *red = attr_s(n, "reduction", "mean");
  bool none = !strcmp(red, "none"), mean = !strcmp(red, "mean");
  bool has_w = node_in(n, 2) != NULL, has_ii = node_attr(n, "ignore_index") != NULL;
  bool lp = sce && n->n_outputs > 1 && n->outputs[1];
  if (!none) ep(e, "double acc = 0, wsum = 0;");
  if (N * D > 0 && C > 0) {
    ep(e, "for (long long b = 0; b < %lld; b++) {", (long long)N);
    ep(e, "for (long long d = 0; d < %lld; d++) {", (long long)D);
    ep(e, "const %s *x = X0 + b * %lld + d;", c_type(dt), (long long)(C * D));
    ep(e, "long long t = (long long)X1[b * %lld + d];", (long long)D);
    ep(e, "%s w, l;", CT);
    if (sce) {
      /* log-softmax over the class axis (stride D) */
      ep(e, "%s m = %s, s = 0, lse;", CT, c_load(e, dt, "x[0]"));
      ep(e, "for (long long c = 1; c < %lld; c++) {", (long long)C);
      ep(e, "const %s v = %s;", CT, c_load(e, dt, fmt(e, "x[c * %lld]", (long long)D)));
      ep(e, "if (v > m) m = v;");
      ep(e, "}");
      ep(e, "for (long long c = 0; c < %lld; c++) s += %s(%s - m);", (long long)C, mfn(e, ct, "exp"),
         c_load(e, dt, fmt(e, "x[c * %lld]", (long long)D)));
      ep(e, "lse = m + %s(s);", mfn(e, ct, "log"));
      if (lp) {
        ep(e, "if (Y1) {");
        ep(e, "for (long long c = 0; c < %lld; c++) Y1[b * %lld + c * %lld + d] = %s;", (long long)C,
           (long long)(C * D), (long long)D,
           c_store(e, dt, fmt(e, "%s - lse", c_load(e, dt, fmt(e, "x[c * %lld]", (long long)D)))));
        ep(e, "}");
      }
    }
    if (has_ii) ep(e, "if (t == %s) {", c_lit_i(e, DT_INT64, attr_i(n, "ignore_index", 0)));
    if (has_ii) ep(e, "w = 0;");
    if (has_ii) ep(e, "l = 0;");
    if (has_ii) ep(e, "} else {");
    ep(e, "if (t < 0) t = 0;");
    ep(e, "if (t > %lld) t = %lld;", (long long)(C - 1), (long long)(C - 1));
    ep(e, "w = %s;", has_w ? c_load(e, dt, "X2[t]") : c_lit_i(e, ct, 1));
    if (sce)
      ep(e, "l = -(%s - lse) * w;", c_load(e, dt, fmt(e, "x[t * %lld]", (long long)D)));
    else
      ep(e, "l = -%s * w;", c_load(e, dt, fmt(e, "x[t * %lld]", (long long)D)));
    if (has_ii) ep(e, "}");
    if (none) {
      ep(e, "Y0[b * %lld + d] = %s;", (long long)D, c_store(e, dt, "l"));
    } else {
      ep(e, "acc += l;");
      ep(e, "wsum += w;");
    }
    ep(e, "}");
    ep(e, "}");
  }
  if (!none) {
    if (mean) ep(e, "Y0[0] = %s;", c_store(e, dt, fmt(e, "(%s)(acc / wsum)", CT)));
    else ep(e, "Y0[0] = %s;", c_store(e, dt, fmt(e, "(%s)acc", CT)));
    if (!mean) ep(e, "(void)wsum;");
  }
}

/* ---- Einsum -------------------------------------------------------------------------------- */

#define EIN_MAXL 64
#define EIN_MAXIN 8

typedef struct EinInfo {
  int nl;                              /* labels (loop count) */
  int64_t size[EIN_MAXL];              /* by loop position (outer first) */
  int64_t stride[EIN_MAXIN + 1][EIN_MAXL]; /* [0] output, [k+1] input k; by loop position */
  bool summed[EIN_MAXL];
} EinInfo;

/* Label id of a letter: A-Z 0..25, a-z 26..51; ellipsis dims 52... */
static int ein_letter(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + c - 'a';
  return -1;
}

/* Parses one term into label ids; ellipsis expands to ell_rank ids (right-aligned to nell). */
static int ein_term(Ctx *ctx, Node *n, const char *s, size_t len, int rank, int nell, int *ids, int *ell_out) {
  int nlet = 0;
  bool ell = false;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '.') {
      if (ell || i + 2 >= len || s[i + 1] != '.' || s[i + 2] != '.')
        fail_node(ctx, n, "bad ellipsis in equation");
      ell = true;
      i += 2;
    } else if (ein_letter(s[i]) >= 0) {
      nlet++;
    } else {
      fail_node(ctx, n, "bad character '%c' in equation", s[i]);
    }
  }
  int er = ell ? rank - nlet : 0;
  if (rank >= 0 && (er < 0 || (!ell && nlet != rank)))
    fail_node(ctx, n, "equation term '%.*s' does not match an input of rank %d", (int)len, s, rank);
  if (ell_out) *ell_out = ell ? er : -1;
  int k = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '.') {
      int cnt = rank >= 0 ? er : nell;
      for (int j = 0; j < cnt; j++) ids[k++] = 52 + (nell - cnt) + j;
      i += 2;
    } else {
      ids[k++] = ein_letter(s[i]);
    }
  }
  return k;
}

static void ein_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, EIN_MAXIN);
  const char *eq0 = attr_s(n, "equation", NULL);
  if (!eq0) fail_node(ctx, n, "missing attribute 'equation'");
  char eq[512];
  size_t el = 0;
  for (const char *p = eq0; *p; p++)
    if (*p != ' ' && *p != '\t') {
      if (el + 1 >= sizeof eq) fail_node(ctx, n, "equation too long");
      eq[el++] = *p;
    }
  eq[el] = 0;
  int ni = n->n_inputs;
  Value *x0 = n->inputs[0];
  for (int k = 0; k < ni; k++) {
    if (!n->inputs[k]) fail_node(ctx, n, "input %d is missing", k);
    if (n->inputs[k]->dtype != x0->dtype) fail_node(ctx, n, "inputs have different element types");
  }
  if (!dtype_is_float(x0->dtype) && !dtype_is_int(x0->dtype))
    fail_node(ctx, n, "element type %s is not supported", dtype_name(x0->dtype));
  const char *arrow = strstr(eq, "->");
  size_t lhs_len = arrow ? (size_t)(arrow - eq) : el;
  /* split the left side */
  const char *term[EIN_MAXIN];
  size_t tlen[EIN_MAXIN];
  int nt = 0;
  {
    size_t st = 0;
    for (size_t i = 0; i <= lhs_len; i++) {
      if (i == lhs_len || eq[i] == ',') {
        if (nt >= EIN_MAXIN) fail_node(ctx, n, "too many terms in equation");
        term[nt] = eq + st;
        tlen[nt] = i - st;
        nt++;
        st = i + 1;
      }
    }
  }
  if (nt != ni) fail_node(ctx, n, "equation has %d terms but the node has %d inputs", nt, ni);
  int ids[EIN_MAXIN][ONNXC_MAX_RANK + 52];
  int nell = 0, ell_r[EIN_MAXIN];
  for (int k = 0; k < ni; k++) {
    int tmp[ONNXC_MAX_RANK + 60];
    if (tlen[k] > ONNXC_MAX_RANK + 8) fail_node(ctx, n, "equation term too long");
    ein_term(ctx, n, term[k], tlen[k], n->inputs[k]->rank, 0, tmp, &ell_r[k]);
    if (ell_r[k] > nell) nell = ell_r[k];
  }
  int64_t lsize[EIN_MAXL];
  int lcount[EIN_MAXL];
  for (int l = 0; l < EIN_MAXL; l++) { lsize[l] = -1; lcount[l] = 0; }
  for (int k = 0; k < ni; k++) {
    Value *v = n->inputs[k];
    int cnt = ein_term(ctx, n, term[k], tlen[k], v->rank, nell, ids[k], NULL);
    CHECK(cnt == v->rank);
    for (int d = 0; d < v->rank; d++) {
      int l = ids[k][d];
      lcount[l]++;
      if (lsize[l] < 0 || lsize[l] == 1) lsize[l] = v->dims[d];
      else if (v->dims[d] != lsize[l] && v->dims[d] != 1)
        fail_node(ctx, n, "dimension sizes for a label disagree (%lld vs %lld)", (long long)lsize[l], (long long)v->dims[d]);
    }
  }
  /* output labels */
  int oids[EIN_MAXL], no = 0;
  if (arrow) {
    const char *o = arrow + 2;
    size_t ol = strlen(o);
    if (ol > 52 + 3) fail_node(ctx, n, "output term too long");
    bool has_ell = strstr(o, "...") != NULL;
    no = ein_term(ctx, n, o, ol, -1, has_ell ? nell : 0, oids, NULL);
  } else {
    for (int j = 0; j < nell; j++) oids[no++] = 52 + j;
    for (int l = 0; l < 52; l++)
      if (lcount[l] == 1) oids[no++] = l;
  }
  if (no > ONNXC_MAX_RANK) fail_node(ctx, n, "output rank %d is too large", no);
  bool in_out[EIN_MAXL] = {false};
  for (int j = 0; j < no; j++) {
    int l = oids[j];
    if (lsize[l] < 0) fail_node(ctx, n, "output label does not appear in the inputs");
    if (in_out[l]) fail_node(ctx, n, "output label repeated");
    in_out[l] = true;
  }
  int64_t odims[ONNXC_MAX_RANK];
  for (int j = 0; j < no; j++) odims[j] = lsize[oids[j]];
  value_set_shape(n->outputs[0], x0->dtype, no, odims);
  /* per-label strides */
  int64_t st[EIN_MAXIN + 1][EIN_MAXL];
  memset(st, 0, sizeof st);
  {
    int64_t s = 1;
    for (int j = no - 1; j >= 0; j--) { st[0][oids[j]] = s; s *= odims[j]; }
  }
  for (int k = 0; k < ni; k++) {
    Value *v = n->inputs[k];
    int64_t s = 1;
    for (int d = v->rank - 1; d >= 0; d--) {
      if (v->dims[d] != 1) st[k + 1][ids[k][d]] += s;
      s *= v->dims[d];
    }
  }
  /* loop order: output labels then summed ones; stable-sort by a stride score, largest outer */
  int order[EIN_MAXL], nl = 0;
  for (int j = 0; j < no; j++) order[nl++] = oids[j];
  for (int l = 0; l < EIN_MAXL; l++)
    if (lsize[l] >= 0 && !in_out[l]) order[nl++] = l;
  double score[EIN_MAXL];
  for (int l = 0; l < EIN_MAXL; l++) {
    score[l] = 0;
    for (int k = 0; k <= ni; k++)
      if (st[k][l] > 0) score[l] += log2((double)st[k][l]);
  }
  for (int i = 1; i < nl; i++) {
    int v = order[i], j = i;
    while (j > 0 && score[order[j - 1]] < score[v]) { order[j] = order[j - 1]; j--; }
    order[j] = v;
  }
  EinInfo *ei = arena_alloc(&ctx->arena, sizeof *ei);
  ei->nl = nl;
  for (int p = 0; p < nl; p++) {
    int l = order[p];
    ei->size[p] = lsize[l];
    ei->summed[p] = !in_out[l];
    for (int k = 0; k <= ni; k++) ei->stride[k][p] = st[k][l];
  }
  n->priv = ei;
}

static int64_t ein_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  if (!is_half(n->outputs[0]->dtype)) return 0;
  return value_numel(n->outputs[0]) * 4;
}

static const char *ein_index(Emit *e, const EinInfo *ei, int k, int upto) {
  Buf b = {0};
  for (int p = 0; p < upto; p++) {
    int64_t s = ei->stride[k][p];
    if (!s) continue;
    if (b.len) buf_puts(&b, " + ");
    if (s == 1) buf_printf(&b, "l%d", p);
    else buf_printf(&b, "l%d * %lld", p, (long long)s);
  }
  const char *r = b.len ? fmt(e, "%s", b.p) : "0";
  buf_free(&b);
  return r;
}

static void ein_emit(Emit *e, Node *n) {
  const EinInfo *ei = n->priv;
  Value *y = n->outputs[0];
  int dt = y->dtype, ni = n->n_inputs;
  int64_t no = value_numel(y);
  if (no == 0) return;
  const char *CT = c_ctype(dt);
  bool sep = is_half(dt);
  if (e->par) { /* CUDA: one thread per output element, the summed labels in loop order */
    Buf prod = {0};
    for (int k = 0; k < ni; k++) {
      if (k) buf_puts(&prod, " * ");
      buf_puts(&prod, c_load(e, dt, fmt(e, "X%d[%s]", k, ein_index(e, ei, k + 1, ei->nl))));
    }
    emit_par_for(e, "long long ", "o", no);
    int ns = 0;
    for (int p = 0; p < ei->nl; p++) {
      if (ei->summed[p]) continue;
      ep(e, "const long long l%d = o / %lld %% %lld;", p, (long long)ei->stride[0][p], (long long)ei->size[p]);
    }
    ep(e, "%s s = 0;", CT);
    for (int p = 0; p < ei->nl; p++) {
      if (!ei->summed[p]) continue;
      ep(e, "for (long long l%d = 0; l%d < %lld; l%d++) {", p, p, (long long)ei->size[p], p);
      ns++;
    }
    ep(e, "s += %s;", prod.p);
    for (int i = 0; i < ns; i++) ep(e, "}");
    ep(e, "Y0[o] = %s;", c_store(e, dt, "s"));
    ep(e, "}");
    buf_free(&prod);
    return;
  }
  ep(e, "%s *A = %s;", CT, sep ? "(float *)W" : "Y0");
  ep(e, "for (long long o = 0; o < %lld; o++) A[o] = 0;", (long long)no);
  bool empty = false;
  for (int p = 0; p < ei->nl; p++)
    if (ei->size[p] == 0) empty = true;
  if (!empty) {
    int nl = ei->nl;
    bool scalar_inner = nl > 0 && ei->summed[nl - 1];
    int outer = scalar_inner ? nl - 1 : nl;
    ep(e, "{");
    for (int p = 0; p < outer; p++)
      ep(e, "for (long long l%d = 0; l%d < %lld; l%d++) {", p, p, (long long)ei->size[p], p);
    Buf prod = {0};
    for (int k = 0; k < ni; k++) {
      if (k) buf_puts(&prod, " * ");
      buf_puts(&prod, c_load(e, dt, fmt(e, "X%d[%s]", k, ein_index(e, ei, k + 1, nl))));
    }
    if (scalar_inner) {
      int p = nl - 1;
      ep(e, "%s s = 0;", CT);
      ep(e, "for (long long l%d = 0; l%d < %lld; l%d++) s += %s;", p, p, (long long)ei->size[p], p, prod.p);
      ep(e, "A[%s] += s;", ein_index(e, ei, 0, nl));
    } else {
      ep(e, "A[%s] += %s;", ein_index(e, ei, 0, nl), prod.p);
    }
    buf_free(&prod);
    for (int p = 0; p < outer; p++) ep(e, "}");
    ep(e, "}");
  }
  if (sep) ep(e, "for (long long o = 0; o < %lld; o++) Y0[o] = %s;", (long long)no, c_store(e, dt, "A[o]"));
}

/* ---- Det ----------------------------------------------------------------------------------- */

static void det_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  require_dtype(ctx, n, 0, float_types);
  Value *x = n->inputs[0];
  if (x->rank < 2 || x->dims[x->rank - 1] != x->dims[x->rank - 2])
    fail_node(ctx, n, "input %s is not a (batch of) square matrices", shape_str(&ctx->arena, x));
  value_set_shape(n->outputs[0], x->dtype, x->rank - 2, x->dims);
}

static int64_t det_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  Value *x = n->inputs[0];
  int64_t m = x->dims[x->rank - 1];
  return m * m * 8;
}

static void det_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0];
  int dt = x->dtype;
  int64_t M = x->dims[x->rank - 1], B = prod_dims(x->dims, 0, x->rank - 2);
  if (B == 0) return;
  if (M == 0) {
    ep(e, "for (long long b = 0; b < %lld; b++) Y0[b] = %s;", (long long)B, c_store(e, dt, "1.0"));
    return;
  }
  long long m = (long long)M;
  ep(e, "double *a = (double *)W;");
  ep(e, "for (long long b = 0; b < %lld; b++) {", (long long)B);
  ep(e, "double det = 1;");
  ep(e, "for (long long i = 0; i < %lld; i++) a[i] = (double)%s;", m * m, c_load(e, dt, fmt(e, "X0[b * %lld + i]", m * m)));
  ep(e, "for (long long c = 0; c < %lld; c++) {", m);
  ep(e, "long long p = c;");
  ep(e, "for (long long r = c + 1; r < %lld; r++) if (fabs(a[r * %lld + c]) > fabs(a[p * %lld + c])) p = r;", m, m, m);
  ep(e, "if (a[p * %lld + c] == 0) { det = 0; break; }", m);
  ep(e, "if (p != c) {");
  ep(e, "for (long long k = 0; k < %lld; k++) { double t = a[p * %lld + k]; a[p * %lld + k] = a[c * %lld + k]; a[c * %lld + k] = t; }", m, m, m, m, m);
  ep(e, "det = -det;");
  ep(e, "}");
  ep(e, "det *= a[c * %lld + c];", m);
  ep(e, "for (long long r = c + 1; r < %lld; r++) {", m);
  ep(e, "const double f = a[r * %lld + c] / a[c * %lld + c];", m, m);
  ep(e, "for (long long k = c + 1; k < %lld; k++) a[r * %lld + k] -= f * a[c * %lld + k];", m, m, m);
  ep(e, "}");
  ep(e, "}");
  ep(e, "Y0[b] = %s;", c_store(e, dt, dt == DT_DOUBLE ? "det" : "(float)det"));
  ep(e, "}");
}

/* ---- rows ---------------------------------------------------------------------------------- */

#define RS(name, kind, since) static const RedSpec rs_##name = {kind, since}
RS(ReduceSum, R_SUM, 13);
RS(ReduceMean, R_MEAN, 18);
RS(ReduceMax, R_MAX, 18);
RS(ReduceMin, R_MIN, 18);
RS(ReduceProd, R_PROD, 18);
RS(ReduceL1, R_L1, 18);
RS(ReduceL2, R_L2, 18);
RS(ReduceLogSum, R_LOGSUM, 18);
RS(ReduceLogSumExp, R_LOGSUMEXP, 18);
RS(ReduceSumSquare, R_SUMSQ, 18);

#define NT "float, double, float16, bfloat16, int8-64, uint8-64"
#define FT "float, double, float16, bfloat16"
/* Two rows per reduce op: axes attribute before `split`, axes input from it. */
#define RROWS(name, split, types)                                                              \
  {#name, "", 1, split - 1, OPF_PARALLEL, red_infer, red_fold, red_emit, red_scratch, types, &rs_##name}, \
  {#name, "", split, ONNXC_MAX_OPSET, OPF_PARALLEL, red_infer, red_fold, red_emit, red_scratch, types, &rs_##name}

static const OpDef reduce_rows[] = {
    RROWS(ReduceSum, 13, NT),
    RROWS(ReduceMean, 18, NT),
    RROWS(ReduceMax, 18, NT ", bool"),
    RROWS(ReduceMin, 18, NT ", bool"),
    RROWS(ReduceProd, 18, NT),
    RROWS(ReduceL1, 18, NT),
    RROWS(ReduceL2, 18, NT),
    RROWS(ReduceLogSum, 18, FT),
    RROWS(ReduceLogSumExp, 18, FT),
    RROWS(ReduceSumSquare, 18, NT),
    {"ArgMax", "", 1, ONNXC_MAX_OPSET, OPF_PARALLEL, arg_infer, NULL, arg_emit, NULL, NT, NULL},
    {"ArgMin", "", 1, ONNXC_MAX_OPSET, OPF_PARALLEL, arg_infer, NULL, arg_emit, NULL, NT, NULL},
    {"TopK", "", 1, 9, OPF_PARALLEL, topk_infer, NULL, topk_emit, topk_scratch, NT, NULL},
    {"TopK", "", 10, ONNXC_MAX_OPSET, OPF_PARALLEL, topk_infer, NULL, topk_emit, topk_scratch, NT, NULL},
    {"NegativeLogLikelihoodLoss", "", 12, ONNXC_MAX_OPSET, 0, loss_infer, NULL, loss_emit, NULL, FT, NULL},
    {"SoftmaxCrossEntropyLoss", "", 12, ONNXC_MAX_OPSET, 0, loss_infer, NULL, loss_emit, NULL, FT, NULL},
    {"Einsum", "", 12, ONNXC_MAX_OPSET, OPF_PARALLEL, ein_infer, NULL, ein_emit, ein_scratch, NT, NULL},
    {"Det", "", 11, ONNXC_MAX_OPSET, 0, det_infer, NULL, det_emit, det_scratch, FT, NULL},
};
OPS_FAMILY(reduce);
