/*
 * ops_extra.c - long-tail operators: the training optimizers of ai.onnx.preview.training
 * (Adagrad, Adam, Momentum), SwiGLU, the ai.onnx.ml Binarizer, ArrayFeatureExtractor and
 * TreeEnsemble, and TfIdfVectorizer over integer tokens.
 *
 * Optimizers: inputs are R (learning rate), T (iteration count), then n tensors of each kind
 * (X..., G..., H... / V...); every group is updated by one flat loop.  Scalar factors are
 * computed in double at run time, as the reference does (its 0-d float64 intermediates).
 *
 * TreeEnsemble: the trees become constant tables (feature, split, mode, true/false successor)
 * indexed by interior node; successors >= 0 are interior nodes, negative ones are leaves
 * (-(leaf+1)).  The kernel walks each tree with a loop.  The shape rule checks that every
 * reachable index is in range and that the node graph has no cycle (3-colour DFS), so the
 * walk always ends.  BRANCH_MEMBER sets come from `membership_values` (NaN-delimited, in the
 * order the member nodes appear in nodes_modes) as a table of (start, count) ranges.
 *
 * TfIdfVectorizer: the n-gram pool is built at compile time into a trie exactly as the
 * reference builds it (ids in pool order, grams outside [min,max] length only consume ids);
 * it is flattened breadth first so each node's children are contiguous and sorted by key, and
 * the kernel walks it with a binary search per token.  Counts accumulate in the float output
 * row; IDF/TFIDF weighting is applied afterwards.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

/* ---- small helpers ------------------------------------------------------------------------ */

static const char *itype(int64_t n) { return n < 2147483647LL ? "int" : "long long"; }

/* static const integer / float tables inside the node function, a few values a line */


/* A numeric list attribute given as floats, ints or a tensor; -1 when absent.  *out is an
   arena array of doubles. */
static int64_t attr_list_f(Ctx *ctx, const Node *n, const char *name, double **out) {
  const Attr *a = node_attr(n, name);
  *out = NULL;
  if (!a) return -1;
  int64_t cnt;
  double *d;
  if (a->type == ATTR_FLOATS || a->type == ATTR_FLOAT) {
    cnt = a->type == ATTR_FLOAT ? 1 : a->n_floats;
    d = arena_alloc(&ctx->arena, sizeof(double) * (size_t)(cnt + 1));
    for (int64_t i = 0; i < cnt; i++) d[i] = a->type == ATTR_FLOAT ? a->f : a->floats[i];
  } else if (a->type == ATTR_INTS || a->type == ATTR_INT) {
    cnt = a->type == ATTR_INT ? 1 : a->n_ints;
    d = arena_alloc(&ctx->arena, sizeof(double) * (size_t)(cnt + 1));
    for (int64_t i = 0; i < cnt; i++) d[i] = (double)(a->type == ATTR_INT ? a->i : a->ints[i]);
  } else if (a->type == ATTR_TENSOR && a->t && a->t->data && (dtype_is_float(a->t->dtype) || dtype_is_int(a->t->dtype) || a->t->dtype == DT_BOOL)) {
    cnt = value_numel(a->t);
    d = arena_alloc(&ctx->arena, sizeof(double) * (size_t)(cnt + 1));
    for (int64_t i = 0; i < cnt; i++) d[i] = const_get_f(a->t, i);
  } else {
    fail_node(ctx, n, "attribute '%s' must be a numeric list or tensor", name);
  }
  *out = d;
  return cnt;
}

/* An integer list attribute (ints or an integer tensor); -1 when absent. */
static int64_t attr_list_i(Ctx *ctx, const Node *n, const char *name, int64_t **out) {
  const Attr *a = node_attr(n, name);
  *out = NULL;
  if (!a) return -1;
  int64_t cnt;
  int64_t *d;
  if (a->type == ATTR_INTS) {
    cnt = a->n_ints;
    d = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(cnt + 1));
    if (cnt) memcpy(d, a->ints, sizeof(int64_t) * (size_t)cnt);
  } else if (a->type == ATTR_INT) {
    cnt = 1;
    d = arena_alloc(&ctx->arena, sizeof(int64_t) * 2);
    d[0] = a->i;
  } else if (a->type == ATTR_TENSOR && a->t && a->t->data && (dtype_is_int(a->t->dtype) || a->t->dtype == DT_BOOL)) {
    cnt = value_numel(a->t);
    d = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(cnt + 1));
    for (int64_t i = 0; i < cnt; i++) d[i] = const_get_i(a->t, i);
  } else {
    fail_node(ctx, n, "attribute '%s' must be an integer list or tensor", name);
  }
  *out = d;
  return cnt;
}

static int64_t attr_list_i_req(Ctx *ctx, const Node *n, const char *name, int64_t **out) {
  int64_t c = attr_list_i(ctx, n, name, out);
  if (c < 0) fail_node(ctx, n, "missing attribute '%s'", name);
  return c;
}

static int64_t attr_list_f_req(Ctx *ctx, const Node *n, const char *name, double **out) {
  int64_t c = attr_list_f(ctx, n, name, out);
  if (c < 0) fail_node(ctx, n, "missing attribute '%s'", name);
  return c;
}

/* ---- Adagrad / Adam / Momentum ------------------------------------------------------------ */
/* Inputs: R, T, then n tensors of each kind: X, G, H (Adagrad), X, G, V (Momentum) or
   X, G, V, H (Adam); outputs: n of each kind but G (X_new..., H_new... / V_new..., H_new...).
   Unused optional outputs are NULL at run time. */

static int opt_kinds(const Node *n) { return !strcmp(n->op_type, "Adam") ? 4 : 3; }

static void opt_infer(Ctx *ctx, Node *n) {
  int k = opt_kinds(n);
  if (n->n_inputs < 2 + k || (n->n_inputs - 2) % k)
    fail_node(ctx, n, "expects R, T and %d inputs per optimized tensor, got %d inputs", k, n->n_inputs);
  int g = (n->n_inputs - 2) / k;
  int nout = (k - 1) * g;
  if (n->n_outputs > nout) fail_node(ctx, n, "expects at most %d outputs, got %d", nout, n->n_outputs);
  for (int i = 0; i < n->n_inputs; i++)
    if (!n->inputs[i]) fail_node(ctx, n, "input %d is missing", i);
  Value *r = n->inputs[0], *t = n->inputs[1];
  if (r->dtype != DT_FLOAT && r->dtype != DT_DOUBLE) fail_node(ctx, n, "R must be float or double");
  if (value_numel(r) != 1) fail_node(ctx, n, "R must be a scalar");
  if (t->dtype != DT_INT64 || value_numel(t) != 1) fail_node(ctx, n, "T must be an int64 scalar");
  if (!strcmp(n->op_type, "Momentum")) {
    const char *m = attr_s(n, "mode", NULL);
    if (!m || (strcmp(m, "standard") && strcmp(m, "nesterov")))
      fail_node(ctx, n, "mode must be 'standard' or 'nesterov'");
    if (!node_attr(n, "alpha") || !node_attr(n, "beta") || !node_attr(n, "norm_coefficient"))
      fail_node(ctx, n, "attributes alpha, beta and norm_coefficient are required");
  }
  for (int j = 0; j < g; j++) {
    Value *x = n->inputs[2 + j];
    if (x->dtype != DT_FLOAT && x->dtype != DT_DOUBLE)
      fail_node(ctx, n, "element type %s is not supported (float or double)", dtype_name(x->dtype));
    for (int q = 1; q < k; q++) {
      Value *o = n->inputs[2 + q * g + j];
      if (o->dtype != x->dtype || !same_shape(o, x))
        fail_node(ctx, n, "input '%s' must have the type and shape of '%s'", o->name, x->name);
    }
    for (int q = 0; q < k - 1; q++) {
      Value *y = node_out(n, q * g + j);
      if (y) value_set_shape(y, x->dtype, x->rank, x->dims);
    }
  }
}

static void opt_emit(Emit *e, Node *n) {
  int k = opt_kinds(n);
  int g = (n->n_inputs - 2) / k;
  const char *op = n->op_type;
  ep(e, "const double r = (double)X0[0];");
  ep(e, "const int64_t t = X1[0];");
  if (!strcmp(op, "Adagrad")) {
    ep(e, "const double rr = r / (1.0 + (double)t * %s);", c_lit(e, DT_DOUBLE, attr_f(n, "decay_factor", 0.0f)));
  } else if (!strcmp(op, "Adam")) {
    double a = attr_f(n, "alpha", 0.9f), b = attr_f(n, "beta", 0.999f);
    ep(e, "const double rr = t > 0 ? r * sqrt(1.0 - pow(%s, (double)t)) / (1.0 - pow(%s, (double)t)) : r;",
       c_lit(e, DT_DOUBLE, b), c_lit(e, DT_DOUBLE, a));
  } else {
    ep(e, "const double ba = t > 0 ? %s : 1.0;", c_lit(e, DT_DOUBLE, attr_f(n, "beta", 0.0f)));
  }
  for (int j = 0; j < g; j++) {
    Value *x = n->inputs[2 + j];
    int dt = x->dtype;
    const char *ct = c_type(dt), *sq = dt == DT_DOUBLE ? "sqrt" : "sqrtf";
    int64_t cnt = value_numel(x);
    if (cnt == 0) continue;
    int ix = 2 + j, ig = 2 + g + j, i3 = 2 + 2 * g + j, i4 = 2 + 3 * g + j;
    int o1 = j, o2 = g + j, o3 = 2 * g + j;
    bool y1 = node_out(n, o1), y2 = node_out(n, o2), y3 = k == 4 && node_out(n, o3);
    if (!y1 && !y2 && !y3) continue;
    const char *nc = c_lit(e, dt, attr_f(n, "norm_coefficient", 0.0f));
    ep(e, "{");
    ep(e, "%s i;", itype(cnt));
    ep(e, "for (i = 0; i < %lld; i++) {", (long long)cnt);
    ep(e, "const %s x = X%d[i];", ct, ix);
    ep(e, "const %s gr = %s * x + X%d[i];", ct, nc, ig);
    if (!strcmp(op, "Adagrad")) {
      ep(e, "const %s h = X%d[i] + gr * gr;", ct, i3);
      if (y2) ep(e, "if (Y%d) Y%d[i] = h;", o2, o2);
      if (y1)
        ep(e, "if (Y%d) Y%d[i] = (%s)((double)x - rr * (double)gr / (double)(%s(h) + %s));", o1, o1, ct, sq,
           c_lit(e, dt, attr_f(n, "epsilon", 1e-6f)));
    } else if (!strcmp(op, "Adam")) {
      double a = attr_f(n, "alpha", 0.9f), b = attr_f(n, "beta", 0.999f);
      ep(e, "const %s v = %s * X%d[i] + %s * gr;", ct, c_lit(e, dt, a), i3, c_lit(e, dt, 1.0 - a));
      ep(e, "const %s h = %s * X%d[i] + %s * (gr * gr);", ct, c_lit(e, dt, b), i4, c_lit(e, dt, 1.0 - b));
      if (y2) ep(e, "if (Y%d) Y%d[i] = v;", o2, o2);
      if (y3) ep(e, "if (Y%d) Y%d[i] = h;", o3, o3);
      if (y1)
        ep(e, "if (Y%d) Y%d[i] = (%s)(%s * ((double)x - rr * (double)(v / (%s(h) + %s))));", o1, o1, ct,
           c_lit(e, DT_DOUBLE, 1.0 - (double)attr_f(n, "norm_coefficient_post", 0.0f)), sq,
           c_lit(e, dt, attr_f(n, "epsilon", 1e-6f)));
    } else {
      double a = attr_f(n, "alpha", 0.0f);
      ep(e, "const %s v = %s * X%d[i] + (%s)ba * gr;", ct, c_lit(e, dt, a), i3, ct);
      if (y2) ep(e, "if (Y%d) Y%d[i] = v;", o2, o2);
      if (y1) {
        if (!strcmp(attr_s(n, "mode", "standard"), "nesterov"))
          ep(e, "if (Y%d) Y%d[i] = x - (%s)r * (gr + %s * v);", o1, o1, ct, c_lit(e, dt, a));
        else
          ep(e, "if (Y%d) Y%d[i] = x - (%s)r * v;", o1, o1, ct);
      }
    }
    ep(e, "}");
    ep(e, "}");
  }
  ep(e, "(void)r;");
  ep(e, "(void)t;");
  ep(e, "(void)%s;", !strcmp(op, "Momentum") ? "ba" : "rr");
}

/* ---- SwiGLU -------------------------------------------------------------------------------- */

static void swiglu_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 2);
  Value *a = n->inputs[0], *b = n->inputs[1];
  if (!dtype_is_float(a->dtype)) fail_node(ctx, n, "element type %s is not supported", dtype_name(a->dtype));
  if (a->dtype != b->dtype) fail_node(ctx, n, "A and B must have the same element type");
  if (!same_shape(a, b)) fail_node(ctx, n, "A and B must have identical shapes (no broadcasting)");
  infer_same_as_input0(ctx, n);
}

static void swiglu_emit(Emit *e, Node *n) {
  int dt = n->inputs[0]->dtype;
  int ct = dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT;
  int64_t cnt = value_numel(n->outputs[0]);
  if (cnt == 0) return;
  bool half = dt == DT_FLOAT16 || dt == DT_BFLOAT16;
  const char *ex = ct == DT_DOUBLE ? "exp" : "expf";
  ep(e, "%s i;", itype(cnt));
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)cnt);
  ep(e, "const %s a = %s;", c_type(ct), c_load(e, dt, "X0[i]"));
  /* the reference rounds the sigmoid, then a * sigmoid, to the element type */
  const char *sig = fmt(e, "1 / (1 + %s(%s * a))", ex, c_lit(e, ct, -(double)attr_f(n, "alpha", 1.0f)));
  if (half) {
    ep(e, "const float s = %s;", c_load(e, dt, c_store(e, dt, sig)));
    ep(e, "const float sw = %s;", c_load(e, dt, c_store(e, dt, "a * s")));
  } else {
    ep(e, "const %s sw = a * (%s);", c_type(ct), sig);
  }
  ep(e, "Y0[i] = %s;", c_store(e, dt, fmt(e, "sw * %s", c_load(e, dt, "X1[i]"))));
  ep(e, "}");
}

/* ---- Binarizer ------------------------------------------------------------------------------ */

static void binarizer_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  int dt = n->inputs[0]->dtype;
  if (dt != DT_FLOAT && dt != DT_DOUBLE && dt != DT_INT64 && dt != DT_INT32)
    fail_node(ctx, n, "element type %s is not supported", dtype_name(dt));
  infer_same_as_input0(ctx, n);
}

static void binarizer_emit(Emit *e, Node *n) {
  int dt = n->inputs[0]->dtype;
  int64_t cnt = value_numel(n->outputs[0]);
  if (cnt == 0) return;
  double thr = attr_f(n, "threshold", 0.0f);
  const char *cmp = dtype_is_float(dt) ? fmt(e, "X0[i] > %s", c_lit(e, dt, thr))
                                       : fmt(e, "(double)X0[i] > %s", c_lit(e, DT_DOUBLE, thr));
  ep(e, "%s i;", itype(cnt));
  ep(e, "for (i = 0; i < %lld; i++) Y0[i] = (%s)((%s) ? 1 : 0);", (long long)cnt, c_type(dt), cmp);
}

/* ---- ArrayFeatureExtractor -------------------------------------------------------------- */

static void afe_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 2);
  Value *x = n->inputs[0], *ix = n->inputs[1];
  if (x->dtype == DT_STRING) fail_node(ctx, n, "string tensors are not supported");
  if (x->dtype != DT_FLOAT && x->dtype != DT_DOUBLE && x->dtype != DT_INT64 && x->dtype != DT_INT32)
    fail_node(ctx, n, "element type %s is not supported", dtype_name(x->dtype));
  if (ix->dtype != DT_INT64) fail_node(ctx, n, "indices must be int64");
  if (x->rank < 1) fail_node(ctx, n, "X must have rank >= 1");
  int64_t k = value_numel(ix), d = x->dims[x->rank - 1];
  if (ix->data)
    for (int64_t i = 0; i < k; i++) {
      int64_t j = const_get_i(ix, i);
      if (j < -d || j >= d) fail_node(ctx, n, "index %lld is out of range for a last axis of %lld", (long long)j, (long long)d);
    }
  int64_t dims[ONNXC_MAX_RANK];
  int r;
  if (x->rank == 1) {
    r = 2;
    dims[0] = 1;
    dims[1] = k;
  } else {
    r = x->rank;
    memcpy(dims, x->dims, sizeof(int64_t) * (size_t)r);
    dims[r - 1] = k;
  }
  value_set_shape(n->outputs[0], x->dtype, r, dims);
}

static void afe_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0], *ix = n->inputs[1];
  int64_t k = value_numel(ix), d = x->dims[x->rank - 1];
  int64_t outer = d ? value_numel(x) / d : value_numel(n->outputs[0]) / (k ? k : 1);
  if (value_numel(n->outputs[0]) == 0) return;
  const char *it = itype(value_numel(x) > value_numel(n->outputs[0]) ? value_numel(x) : value_numel(n->outputs[0]));
  ep(e, "%s o, q;", it);
  ep(e, "for (q = 0; q < %lld; q++) {", (long long)k);
  ep(e, "int64_t j = X1[q];");
  ep(e, "if (j < 0) j += %s;", c_lit_i(e, DT_INT64, d));
  ep(e, "for (o = 0; o < %lld; o++) Y0[o * %lld + q] = (j >= 0 && j < %s) ? X0[o * %lld + (%s)j] : 0;", (long long)outer,
     (long long)k, c_lit_i(e, DT_INT64, d), (long long)d, it);
  ep(e, "}");
}

/* ---- TreeEnsemble ------------------------------------------------------------------------- */

enum { TM_LEQ, TM_LT, TM_GTE, TM_GT, TM_EQ, TM_NEQ, TM_MEMBER };
enum { AGG_AVERAGE, AGG_SUM, AGG_MIN, AGG_MAX };
enum { PT_NONE, PT_SOFTMAX, PT_LOGISTIC, PT_SOFTMAX_ZERO, PT_PROBIT };

typedef struct TreeSpec {
  int64_t nn, nl, nr, nt, nmem;  /* interior nodes, leaves, trees, targets, member values */
  int64_t *feat, *mode, *tnext, *fnext, *miss, *mstart, *mcount, *roots, *ltarget;
  double *split, *lweight, *mvals;
  int agg, post;
  unsigned modes_used;           /* bit per mode among reachable nodes */
  bool any_miss;
} TreeSpec;

static int tree_ct(int dt) { return dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT; }

static void tree_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  Value *x = n->inputs[0];
  if (x->dtype != DT_FLOAT && x->dtype != DT_DOUBLE && x->dtype != DT_FLOAT16)
    fail_node(ctx, n, "element type %s is not supported", dtype_name(x->dtype));
  if (x->rank != 2) fail_node(ctx, n, "X must have shape [N, F]");
  TreeSpec *s = arena_alloc(&ctx->arena, sizeof *s);
  int64_t *tl, *fl, *tid, *fid;
  double *hr;
  s->nn = attr_list_i_req(ctx, n, "nodes_featureids", &s->feat);
  if (attr_list_f_req(ctx, n, "nodes_splits", &s->split) != s->nn || attr_list_i_req(ctx, n, "nodes_modes", &s->mode) != s->nn ||
      attr_list_i_req(ctx, n, "nodes_truenodeids", &tid) != s->nn || attr_list_i_req(ctx, n, "nodes_falsenodeids", &fid) != s->nn ||
      attr_list_i_req(ctx, n, "nodes_trueleafs", &tl) != s->nn || attr_list_i_req(ctx, n, "nodes_falseleafs", &fl) != s->nn)
    fail_node(ctx, n, "the nodes_* attributes must all have the same length");
  int64_t c = attr_list_f(ctx, n, "nodes_hitrates", &hr);
  if (c >= 0 && c != s->nn) fail_node(ctx, n, "nodes_hitrates has the wrong length");
  c = attr_list_i(ctx, n, "nodes_missing_value_tracks_true", &s->miss);
  if (c >= 0 && c != s->nn) fail_node(ctx, n, "nodes_missing_value_tracks_true has the wrong length");
  if (c < 0) s->miss = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(s->nn + 1));
  s->nl = attr_list_f_req(ctx, n, "leaf_weights", &s->lweight);
  if (attr_list_i_req(ctx, n, "leaf_targetids", &s->ltarget) != s->nl)
    fail_node(ctx, n, "leaf_weights and leaf_targetids must have the same length");
  s->nr = attr_list_i_req(ctx, n, "tree_roots", &s->roots);
  s->agg = (int)attr_i(n, "aggregate_function", AGG_SUM);
  s->post = (int)attr_i(n, "post_transform", PT_NONE);
  if (s->agg < AGG_AVERAGE || s->agg > AGG_MAX) fail_node(ctx, n, "aggregate_function %d is not one of 0..3", s->agg);
  if (s->post < PT_NONE || s->post > PT_PROBIT) fail_node(ctx, n, "post_transform %d is not one of 0..4", s->post);
  int64_t maxt = -1;
  for (int64_t i = 0; i < s->nl; i++) {
    if (s->ltarget[i] < 0) fail_node(ctx, n, "leaf_targetids[%lld] is negative", (long long)i);
    if (s->ltarget[i] > maxt) maxt = s->ltarget[i];
  }
  s->nt = node_attr(n, "n_targets") ? attr_i(n, "n_targets", 0) : maxt + 1;
  if (s->nt <= 0 || maxt >= s->nt) fail_node(ctx, n, "n_targets must be positive and above every leaf_targetids");
  /* set membership: sets delimited by NaN, in nodes_modes order */
  s->mstart = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(s->nn + 1));
  s->mcount = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(s->nn + 1));
  double *mv;
  int64_t nmv = attr_list_f(ctx, n, "membership_values", &mv);
  s->mvals = arena_alloc(&ctx->arena, sizeof(double) * (size_t)(nmv > 0 ? nmv : 1));
  int64_t pos = 0;
  for (int64_t i = 0; i < s->nn; i++) {
    if (s->mode[i] < TM_LEQ || s->mode[i] > TM_MEMBER) fail_node(ctx, n, "nodes_modes[%lld] = %lld is not a known mode", (long long)i, (long long)s->mode[i]);
    if (s->mode[i] != TM_MEMBER) continue;
    if (pos >= nmv) fail_node(ctx, n, "membership_values has no set for member node %lld", (long long)i);
    s->mstart[i] = s->nmem;
    while (pos < nmv && !isnan(mv[pos])) s->mvals[s->nmem++] = mv[pos++];
    s->mcount[i] = s->nmem - s->mstart[i];
    pos++; /* the NaN */
  }
  /* successors: >= 0 interior node, < 0 leaf -(leaf + 1) */
  s->tnext = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(s->nn + 1));
  s->fnext = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(s->nn + 1));
  for (int64_t i = 0; i < s->nn; i++) {
    /* a negative id stays an out-of-range interior index (s->nn), reported if reachable */
    s->tnext[i] = tid[i] < 0 ? s->nn : tl[i] ? -(tid[i] + 1) : tid[i];
    s->fnext[i] = fid[i] < 0 ? s->nn : fl[i] ? -(fid[i] + 1) : fid[i];
  }
  int64_t *rootenc = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(s->nr + 1));
  unsigned char *color = arena_alloc(&ctx->arena, (size_t)s->nn + 1);
  int64_t *stk = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(s->nn + 1));
  unsigned char *stst = arena_alloc(&ctx->arena, (size_t)s->nn + 1);
  for (int64_t t = 0; t < s->nr; t++) {
    int64_t r = s->roots[t];
    if (r < 0 || r >= s->nn) fail_node(ctx, n, "tree_roots[%lld] = %lld is out of range", (long long)t, (long long)r);
    if (tl[r] && fl[r] && tid[r] == fid[r]) { /* a tree that is one leaf */
      if (r >= s->nl) fail_node(ctx, n, "leaf %lld of a one-leaf tree is out of range", (long long)r);
      rootenc[t] = -(r + 1);
      continue;
    }
    rootenc[t] = r;
    /* iterative DFS; colour 1: on the stack, 2: done.  stst: next branch to visit */
    int64_t sp = 0;
    if (color[r] == 0) { stk[sp] = r; stst[sp++] = 0; color[r] = 1; }
    while (sp > 0) {
      int64_t k = stk[sp - 1];
      int st = stst[sp - 1];
      if (st == 0) {
        if (s->feat[k] < 0 || s->feat[k] >= x->dims[1])
          fail_node(ctx, n, "nodes_featureids[%lld] = %lld is out of range for %lld features", (long long)k,
                    (long long)s->feat[k], (long long)x->dims[1]);
        s->modes_used |= 1u << s->mode[k];
        if (s->miss[k]) s->any_miss = true;
      }
      if (st == 2) {
        color[k] = 2;
        sp--;
        continue;
      }
      stst[sp - 1]++;
      int64_t nx = st == 0 ? s->tnext[k] : s->fnext[k];
      if (nx < 0) {
        if (-nx - 1 >= s->nl) fail_node(ctx, n, "leaf index %lld of node %lld is out of range", (long long)(-nx - 1), (long long)k);
      } else if (nx >= s->nn) {
        fail_node(ctx, n, "a successor of node %lld is out of range", (long long)k);
      } else if (color[nx] == 1) {
        fail_node(ctx, n, "the tree nodes form a cycle through node %lld", (long long)nx);
      } else if (color[nx] == 0) {
        color[nx] = 1;
        stk[sp] = nx;
        stst[sp++] = 0;
      }
    }
  }
  s->roots = rootenc;
  n->priv = s;
  int64_t dims[2] = {x->dims[0], s->nt};
  value_set_shape(n->outputs[0], x->dtype, 2, dims);
}

static int64_t tree_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  const TreeSpec *s = n->priv;
  return s->nt * (int64_t)dtype_size(tree_ct(n->inputs[0]->dtype));
}

static const char *tree_cmp(Emit *e, int m) {
  static const char *ops[] = {"<=", "<", ">=", ">", "==", "!="};
  return fmt(e, "c = v %s sp[k];", ops[m]);
}

static void tree_emit(Emit *e, Node *n) {
  const TreeSpec *s = n->priv;
  Value *x = n->inputs[0];
  int dt = x->dtype, ct = tree_ct(dt);
  const char *cts = c_type(ct);
  int64_t N = x->dims[0], F = x->dims[1];
  if (N == 0) return;
  if (s->nn > 2000000000LL || s->nl > 2000000000LL || s->nr > 2000000000LL || s->nmem > 2000000000LL)
    fail_node(e->ctx, n, "the ensemble is too large");
  unsigned used = s->modes_used;
  bool member = used & (1u << TM_MEMBER);
  int nmodes = 0, only = -1;
  for (int m = 0; m <= TM_MEMBER; m++)
    if (used & (1u << m)) { nmodes++; only = m; }
  emit_itab(e, "ft", s->feat, s->nn);
  emit_ftab(e, ct, "sp", s->split, s->nn);
  if (nmodes > 1) emit_itab(e, "md", s->mode, s->nn);
  emit_itab(e, "tn", s->tnext, s->nn);
  emit_itab(e, "fn", s->fnext, s->nn);
  if (s->any_miss) emit_itab(e, "mt", s->miss, s->nn);
  if (member) {
    emit_itab(e, "ms", s->mstart, s->nn);
    emit_itab(e, "mc", s->mcount, s->nn);
    emit_ftab(e, ct, "mv", s->mvals, s->nmem);
  }
  emit_itab(e, "rt", s->roots, s->nr);
  emit_itab(e, "lt", s->ltarget, s->nl);
  double *lw = arena_alloc(&e->ctx->arena, sizeof(double) * (size_t)(s->nl + 1));
  for (int64_t i = 0; i < s->nl; i++) lw[i] = s->agg == AGG_AVERAGE ? s->lweight[i] / (double)s->nr : s->lweight[i];
  emit_ftab(e, ct, "lw", lw, s->nl);
  const char *init = "0";
  if (s->agg == AGG_MIN || s->agg == AGG_MAX) {
    double big = dt == DT_FLOAT16 ? 65504.0 : dt == DT_FLOAT ? 3.4028234663852886e38 : 1.7976931348623157e308;
    init = c_lit(e, ct, s->agg == AGG_MIN ? big : -big);
  }
  ep(e, "%s *acc = (%s *)(void *)W;", cts, cts);
  ep(e, "%s b;", itype(N * (F > s->nt ? F : s->nt)));
  ep(e, "int t, j;");
  ep(e, "for (b = 0; b < %lld; b++) {", (long long)N);
  ep(e, "const %s *x = X0 + b * %lld;", c_type(dt), (long long)F);
  ep(e, "for (j = 0; j < %lld; j++) acc[j] = %s;", (long long)s->nt, init);
  ep(e, "for (t = 0; t < %lld; t++) {", (long long)s->nr);
  ep(e, "int k = rt[t];");
  ep(e, "while (k >= 0) {");
  ep(e, "const %s v = %s;", cts, c_load(e, dt, "x[ft[k]]"));
  ep(e, "int c;");
  if (nmodes == 1 && only != TM_MEMBER) {
    ep(e, "%s", tree_cmp(e, only));
  } else {
    ep(e, "switch (%s) {", nmodes > 1 ? "md[k]" : fmt(e, "%d", only));
    for (int m = 0; m <= TM_MEMBER; m++) {
      if (!(used & (1u << m))) continue;
      if (m == TM_MEMBER) {
        ep(e, "case %d: {", m);
        ep(e, "int q;");
        ep(e, "c = 0;");
        ep(e, "for (q = ms[k]; q < ms[k] + mc[k]; q++) if (v == mv[q]) { c = 1; break; }");
        ep(e, "break;");
        ep(e, "}");
      } else {
        ep(e, "case %d: %s break;", m, tree_cmp(e, m));
      }
    }
    ep(e, "default: c = 0; break;");
    ep(e, "}");
  }
  if (s->any_miss) ep(e, "if (!c && mt[k] && v != v) c = 1;");
  ep(e, "k = c ? tn[k] : fn[k];");
  ep(e, "}");
  ep(e, "k = -k - 1;");
  switch (s->agg) {
  case AGG_MIN: ep(e, "if (lw[k] < acc[lt[k]]) acc[lt[k]] = lw[k];"); break;
  case AGG_MAX: ep(e, "if (lw[k] > acc[lt[k]]) acc[lt[k]] = lw[k];"); break;
  default: ep(e, "acc[lt[k]] += lw[k];"); break;
  }
  ep(e, "}");
  const char *ex = ct == DT_DOUBLE ? "exp" : "expf";
  if (s->post == PT_SOFTMAX || s->post == PT_SOFTMAX_ZERO) {
    bool z = s->post == PT_SOFTMAX_ZERO;
    ep(e, "{");
    ep(e, "%s mx = acc[0], sum = 0;", cts);
    ep(e, "for (j = 1; j < %lld; j++) if (acc[j] > mx) mx = acc[j];", (long long)s->nt);
    if (z) ep(e, "for (j = 0; j < %lld; j++) if (acc[j] != 0) { acc[j] = %s(acc[j] - mx); sum += acc[j]; }", (long long)s->nt, ex);
    else ep(e, "for (j = 0; j < %lld; j++) { acc[j] = %s(acc[j] - mx); sum += acc[j]; }", (long long)s->nt, ex);
    if (z) ep(e, "if (sum > 0) for (j = 0; j < %lld; j++) acc[j] /= sum;", (long long)s->nt);
    else ep(e, "for (j = 0; j < %lld; j++) acc[j] /= sum;", (long long)s->nt);
    ep(e, "}");
  } else if (s->post == PT_LOGISTIC) {
    ep(e, "for (j = 0; j < %lld; j++) acc[j] = 1 / (1 + %s(-acc[j]));", (long long)s->nt, ex);
  } else if (s->post == PT_PROBIT) {
    /* sqrt(2) * erfinv(2p - 1): Winitzki's approximation refined by two Newton steps */
    ep(e, "for (j = 0; j < %lld; j++) {", (long long)s->nt);
    ep(e, "const double y = 2.0 * (double)acc[j] - 1.0;");
    ep(e, "double z;");
    ep(e, "if (!(y >= -1.0 && y <= 1.0)) z = (double)NAN;");
    ep(e, "else if (y == -1.0) z = -(double)INFINITY;");
    ep(e, "else if (y == 1.0) z = (double)INFINITY;");
    ep(e, "else {");
    ep(e, "const double w = log((1.0 - y) * (1.0 + y)), a = 4.3307467508251614 + 0.5 * w;");
    ep(e, "int it;");
    ep(e, "z = sqrt(sqrt(a * a - w / 0.147) - a);");
    ep(e, "if (y < 0) z = -z;");
    ep(e, "for (it = 0; it < 2; it++) z -= (erf(z) - y) / (1.1283791670955126 * exp(-z * z));");
    ep(e, "}");
    ep(e, "acc[j] = (%s)(1.4142135623730951 * z);", cts);
    ep(e, "}");
  }
  ep(e, "for (j = 0; j < %lld; j++) Y0[b * %lld + j] = %s;", (long long)s->nt, (long long)s->nt, c_store(e, dt, "acc[j]"));
  ep(e, "}");
}

/* ---- TfIdfVectorizer ---------------------------------------------------------------------- */

typedef struct TrieNode {
  int64_t key, id;
  int first, next;      /* first child, next sibling (-1: none) */
} TrieNode;

typedef struct TfIdf {
  int64_t nodes;        /* flattened trie: key, output index (-1: none), first child, count */
  int64_t *key, *out, *first, *count;
  int64_t O;            /* output row size */
  int mode;             /* 1 TF, 2 IDF, 3 TFIDF */
  int64_t min_g, max_g, max_skip;
  double *w;            /* weight of each output column (IDF, TFIDF) or NULL */
} TfIdf;

static int trie_emplace(TrieNode *t, int *nt, int m, int64_t key) {
  int last = -1;
  for (int c = t[m].first; c >= 0; c = t[c].next) {
    if (t[c].key == key) return c;
    last = c;
  }
  int k = (*nt)++;
  t[k].key = key;
  t[k].id = 0;
  t[k].first = -1;
  t[k].next = -1;
  if (last < 0) t[m].first = k;
  else t[last].next = k;
  return k;
}

static TrieNode *sort_base;
static int cmp_child(const void *a, const void *b) {
  int64_t x = sort_base[*(const int *)a].key, y = sort_base[*(const int *)b].key;
  return x < y ? -1 : x > y;
}

static void tfidf_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  Value *x = n->inputs[0];
  if (x->dtype == DT_STRING || node_attr(n, "pool_strings")) fail_node(ctx, n, "string tensors are not supported");
  if (x->dtype != DT_INT32 && x->dtype != DT_INT64) fail_node(ctx, n, "element type %s is not supported", dtype_name(x->dtype));
  if (x->rank > 2) fail_node(ctx, n, "input must have shape [C] or [B, C]");
  if (x->rank == 2 && x->dims[0] < 1) fail_node(ctx, n, "input must have B > 0");
  if (x->rank == 0) fail_node(ctx, n, "input must have shape [C] or [B, C]");
  TfIdf *s = arena_alloc(&ctx->arena, sizeof *s);
  const char *mode = attr_s(n, "mode", NULL);
  if (!mode) fail_node(ctx, n, "missing attribute 'mode'");
  if (!strcmp(mode, "TF")) s->mode = 1;
  else if (!strcmp(mode, "IDF")) s->mode = 2;
  else if (!strcmp(mode, "TFIDF")) s->mode = 3;
  else fail_node(ctx, n, "mode '%s' is not TF, IDF or TFIDF", mode);
  if (!node_attr(n, "min_gram_length") || !node_attr(n, "max_gram_length") || !node_attr(n, "max_skip_count"))
    fail_node(ctx, n, "attributes min_gram_length, max_gram_length and max_skip_count are required");
  s->min_g = attr_i(n, "min_gram_length", 1);
  s->max_g = attr_i(n, "max_gram_length", 1);
  s->max_skip = attr_i(n, "max_skip_count", 0);
  if (s->min_g < 1 || s->max_g < s->min_g || s->max_skip < 0 || s->max_g > 1000000 || s->max_skip > 1000000)
    fail_node(ctx, n, "invalid gram lengths or skip count");
  int64_t *counts, *idx, *pool;
  int64_t nc = attr_list_i_req(ctx, n, "ngram_counts", &counts);
  int64_t ni = attr_list_i_req(ctx, n, "ngram_indexes", &idx);
  int64_t np = attr_list_i(ctx, n, "pool_int64s", &pool);
  if (np < 0) fail_node(ctx, n, "missing attribute 'pool_int64s'");
  if (ni == 0) fail_node(ctx, n, "ngram_indexes is empty");
  int64_t mx = -1;
  for (int64_t i = 0; i < ni; i++) {
    if (idx[i] < 0) fail_node(ctx, n, "ngram_indexes has a negative entry");
    if (idx[i] > mx) mx = idx[i];
  }
  s->O = mx + 1;
  double *w;
  int64_t nw = attr_list_f(ctx, n, "weights", &w);
  if (nw > 0 && s->mode != 1) {
    /* weights[i] belongs to the i-th n-gram, whose output column is ngram_indexes[i] */
    if (nw < ni) fail_node(ctx, n, "weights has %lld entries, fewer than ngram_indexes (%lld)", (long long)nw, (long long)ni);
    s->w = arena_alloc(&ctx->arena, sizeof(double) * (size_t)s->O);
    for (int64_t i = 0; i < ni; i++) s->w[idx[i]] = w[i];
  }
  /* the trie, built like the reference */
  if (np > 100000000) fail_node(ctx, n, "pool too large");
  TrieNode *t = arena_alloc(&ctx->arena, sizeof(TrieNode) * (size_t)(np + 1));
  int nt = 1;
  t[0].first = t[0].next = -1;
  int64_t id = 1, size = 1;
  for (int64_t i = 0; i < nc; i++, size++) {
    int64_t st = counts[i], en = i + 1 < nc ? counts[i + 1] : np;
    if (st < 0 || st > np || en > np) fail_node(ctx, n, "ngram_counts is out of range of the pool");
    int64_t items = en - st;
    if (items <= 0) continue;
    int64_t ngrams = items / size;
    if (size < s->min_g || size > s->max_g) {
      id += ngrams;
      continue;
    }
    int64_t p = st;
    for (int64_t g = 0; g < ngrams; g++) {
      int m = 0;
      for (int64_t len = 1; p < np; len++, p++) {
        int c = trie_emplace(t, &nt, m, pool[p]);
        if (len == size) {
          t[c].id = id++;
          p++;
          break;
        }
        m = c;
      }
    }
  }
  /* flatten breadth first; children sorted by key */
  s->nodes = nt;
  s->key = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)nt);
  s->out = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)nt);
  s->first = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)nt);
  s->count = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)nt);
  int *order = arena_alloc(&ctx->arena, sizeof(int) * (size_t)nt); /* flat position -> trie node */
  int placed = 1;
  order[0] = 0;
  for (int q = 0; q < placed; q++) {
    int m = order[q];
    s->first[q] = placed;
    int cnt = 0;
    for (int c = t[m].first; c >= 0; c = t[c].next) order[placed + cnt++] = c;
    sort_base = t;
    qsort(order + placed, (size_t)cnt, sizeof(int), cmp_child);
    s->count[q] = cnt;
    placed += cnt;
  }
  for (int q = 0; q < nt; q++) {
    TrieNode *tn = &t[order[q]];
    s->key[q] = tn->key;
    if (q == 0 || tn->id == 0) s->out[q] = -1;
    else if (tn->id - 1 >= ni) fail_node(ctx, n, "n-gram %lld has no entry in ngram_indexes", (long long)tn->id);
    else s->out[q] = idx[tn->id - 1];
  }
  n->priv = s;
  int64_t dims[2] = {x->rank == 2 ? x->dims[0] : s->O, s->O};
  value_set_shape(n->outputs[0], DT_FLOAT, x->rank == 2 ? 2 : 1, dims);
}

static void tfidf_emit(Emit *e, Node *n) {
  const TfIdf *s = n->priv;
  Value *x = n->inputs[0];
  int64_t B = x->rank == 2 ? x->dims[0] : 1, C = x->dims[x->rank - 1], O = s->O;
  if (s->nodes > 2000000000LL) fail_node(e->ctx, n, "pool too large");
  emit_itab(e, "ky", s->key, s->nodes);
  emit_itab(e, "ou", s->out, s->nodes);
  emit_itab(e, "fc", s->first, s->nodes);
  emit_itab(e, "nc", s->count, s->nodes);
  if (s->w && s->mode != 1) emit_ftab(e, DT_FLOAT, "wt", s->w, O);
  const char *it = itype(B * (C > O ? C : O) + C * (s->max_skip + 1) * s->max_g);
  ep(e, "%s b, j;", it);
  ep(e, "for (b = 0; b < %lld; b++) {", (long long)B);
  ep(e, "float *y = Y0 + b * %lld;", (long long)O);
  ep(e, "for (j = 0; j < %lld; j++) y[j] = 0;", (long long)O);
  if (C > 0) {
    ep(e, "{");
    ep(e, "const %s *x = X0 + b * %lld;", c_type(x->dtype), (long long)C);
    ep(e, "%s sd, st, start = %lld;", it, (long long)s->min_g);
    /* skips of C or more fit no n-gram of two or more tokens */
    ep(e, "for (sd = 1; sd <= %lld; sd++) {", (long long)(s->max_skip + 1 < C ? s->max_skip + 1 : C));
    ep(e, "for (st = 0; st < %lld; st++) {", (long long)C);
    ep(e, "%s item = st, size = 1;", it);
    ep(e, "int nd = 0;");
    ep(e, "if (st + sd * (start - 1) >= %lld) break;", (long long)C);
    ep(e, "while (nc[nd] > 0 && size <= %lld && item < %lld) {", (long long)s->max_g, (long long)C);
    ep(e, "const int64_t v = (int64_t)x[item];");
    ep(e, "int lo = fc[nd], hi = fc[nd] + nc[nd] - 1, hit = -1;");
    ep(e, "while (lo <= hi) {");
    ep(e, "const int mid = (lo + hi) >> 1;");
    ep(e, "if (ky[mid] < v) lo = mid + 1;");
    ep(e, "else if (ky[mid] > v) hi = mid - 1;");
    ep(e, "else { hit = mid; break; }");
    ep(e, "}");
    ep(e, "if (hit < 0) break;");
    ep(e, "if (size >= start && ou[hit] >= 0) y[ou[hit]] += 1;");
    ep(e, "nd = hit;");
    ep(e, "size++;");
    ep(e, "item += sd;");
    ep(e, "}");
    ep(e, "}");
    ep(e, "if (start == 1) {");
    ep(e, "start++;");
    ep(e, "if (start > %lld) break;", (long long)s->max_g);
    ep(e, "}");
    ep(e, "}");
    ep(e, "}");
  }
  if (s->mode == 2) {
    if (s->w) ep(e, "for (j = 0; j < %lld; j++) y[j] = y[j] > 0 ? wt[j] : 0;", (long long)O);
    else ep(e, "for (j = 0; j < %lld; j++) y[j] = y[j] > 0 ? 1.0f : 0.0f;", (long long)O);
  } else if (s->mode == 3 && s->w) {
    ep(e, "for (j = 0; j < %lld; j++) y[j] *= wt[j];", (long long)O);
  }
  ep(e, "}");
}

/* ---- ImageDecoder (opset 20): templates/image.h ------------------------------------------- */

/* The output [H, W, C] is static: H and W from --image-size, else from the shape the model
   declares for the output; an image of another size is ONNXC_ERR_SHAPE at run time. */
static int image_channels(Ctx *ctx, const Node *n) {
  const char *f = attr_s(n, "pixel_format", "RGB");
  if (!strcmp(f, "RGB") || !strcmp(f, "BGR")) return 3;
  if (!strcmp(f, "Grayscale")) return 1;
  fail_node(ctx, n, "pixel_format '%s' is not one of RGB, BGR, Grayscale", f);
}

static void image_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  Value *x = n->inputs[0], *y = n->outputs[0];
  if (x->dtype != DT_UINT8 || x->rank != 1) fail_node(ctx, n, "the encoded image must be a 1-D uint8 tensor");
  int64_t C = image_channels(ctx, n), H = ctx->image_h, W = ctx->image_w;
  if (!H && y->decl_rank == 3 && y->decl_dims[0] > 0 && y->decl_dims[1] > 0 && y->decl_dims[2] == C)
    H = y->decl_dims[0], W = y->decl_dims[1];
  if (!H)
    fail_node(ctx, n, "the decoded image's size must be known at compile time: declare the output's shape "
              "[H, W, %lld] in the model or pass --image-size HxW", (long long)C);
  int64_t dims[3] = {H, W, C};
  value_set_shape(y, DT_UINT8, 3, dims);
}

/* PNG: the compressed data (<= the input) and the filtered rows (<= 4 bytes a pixel, 1 a row);
   JPEG: up to 3 component planes of at most (W + 32) x (H + 32) (templates/image.h refuses larger
   ones) and 2 chroma rows; WebP and JPEG 2000: the formulas of templates/image_webp.h and
   image_jp2.h (macroblock rows and their context; ARGB, Huffman tables and the transforms;
   coefficient planes, the code-block data and the tile's code-block state); Grayscale: the RGB
   image before the conversion */
static int64_t image_decode_scratch(const Node *n) {
  const Value *y = n->outputs[0];
  int64_t H = y->dims[0], W = y->dims[1], N = value_numel(n->inputs[0]), MW = (W + 15) / 16, MH = (H + 15) / 16;
  int64_t need[] = {N + H * (1 + 4 * W),                                                   /* PNG */
                    3 * (W + 32) * (H + 32) + 2 * W,                                       /* JPEG */
                    385 * MW * MH + 13 * MW + 4096,                                        /* WebP lossy */
                    4 * W * H + 40 * ((W + 3) / 4) * ((H + 3) / 4) + 16 * N + 49152,       /* WebP lossless */
                    20 * W * H + 4 * (W + H) + 2 * N + 131072};                            /* JPEG 2000 */
  int64_t m = 0;
  for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) m = need[i] > m ? need[i] : m;
  return m;
}

static int64_t image_scratch(Ctx *ctx, Node *n) {
  const Value *y = n->outputs[0];
  return image_decode_scratch(n) + (image_channels(ctx, n) == 1 ? 3 * y->dims[0] * y->dims[1] : 0);
}

static void image_emit(Emit *e, Node *n) {
  const Value *y = n->outputs[0];
  int64_t H = y->dims[0], W = y->dims[1], N = value_numel(n->inputs[0]), HW = H * W;
  int64_t s_rgb = image_decode_scratch(n);
  const char *f = attr_s(n, "pixel_format", "RGB");
  bool gray = !strcmp(f, "Grayscale");
  emit_use_template(e, "image_webp"); /* before image.h, which calls them */
  emit_use_template(e, "image_jp2"); /* CUDA: the kernels then build with -Ofast-compile=min (emit_cuda.c) */
  emit_use_template(e, "image");
  ep(e, "unsigned char *rgb = %s;", gray ? fmt(e, "W + %lld", (long long)s_rgb) : "Y0");
  ep(e, "const int st = onnxc_img_decode(X0, %lldL, rgb, %lldL, %lldL, W);", (long long)N, (long long)H, (long long)W);
  ep(e, "long i;");
  ep(e, "if (st) return st;");
  if (gray) { /* ITU-R 601-2 luma in 16-bit fixed point, as PIL's convert("L") rounds it */
    ep(e, "for (i = 0; i < %lldL; i++)", (long long)HW);
    ep(e, "  Y0[i] = (uint8_t)((rgb[3 * i] * 19595L + rgb[3 * i + 1] * 38470L + rgb[3 * i + 2] * 7471L + 0x8000L) >> 16);");
  } else if (!strcmp(f, "BGR")) {
    ep(e, "for (i = 0; i < %lldL; i++) {", (long long)HW);
    ep(e, "const unsigned char t = Y0[3 * i];");
    ep(e, "Y0[3 * i] = Y0[3 * i + 2];");
    ep(e, "Y0[3 * i + 2] = t;");
    ep(e, "}");
  } else {
    ep(e, "(void)i;");
  }
  ep(e, "return 0;");
}

/* ---- Gradient: expanded into gradient nodes by its shape rule (autodiff.c) ------------------- */

static void gradient_infer(Ctx *ctx, Node *n) { gradient_op_expand(ctx, n); }

static void gradient_emit(Emit *e, Node *n) {
  (void)e;
  (void)n;
  unreachable("Gradient nodes are expanded by their shape rule");
}

/* ---- rows ----------------------------------------------------------------------------------- */

#define TRAIN "ai.onnx.preview.training"
#define ML "ai.onnx.ml"

static const OpDef extra_rows[] = {
    {"Adagrad", TRAIN, 1, ONNXC_MAX_OPSET, 0, opt_infer, NULL, opt_emit, NULL, "float, double", NULL},
    {"Adam", TRAIN, 1, ONNXC_MAX_OPSET, 0, opt_infer, NULL, opt_emit, NULL, "float, double", NULL},
    {"Momentum", TRAIN, 1, ONNXC_MAX_OPSET, 0, opt_infer, NULL, opt_emit, NULL, "float, double", NULL},
    {"ImageDecoder", "", 20, ONNXC_MAX_OPSET, OPF_STATUS, image_infer, NULL, image_emit, image_scratch, "uint8", NULL},
    {"Gradient", TRAIN, 1, ONNXC_MAX_OPSET, 0, gradient_infer, NULL, gradient_emit, NULL, "float, double", NULL},
    {"SwiGLU", "", 28, ONNXC_MAX_OPSET, OPF_ELEMENTWISE, swiglu_infer, NULL, swiglu_emit, NULL,
     "float, double, float16, bfloat16", NULL},
    {"Binarizer", ML, 1, ONNXC_MAX_OPSET, OPF_ELEMENTWISE, binarizer_infer, NULL, binarizer_emit, NULL,
     "float, double, int32, int64", NULL},
    {"ArrayFeatureExtractor", ML, 1, ONNXC_MAX_OPSET, 0, afe_infer, NULL, afe_emit, NULL,
     "float, double, int32, int64", NULL},
    {"TreeEnsemble", ML, 5, ONNXC_MAX_OPSET, 0, tree_infer, NULL, tree_emit, tree_scratch, "float, double, float16", NULL},
    {"TfIdfVectorizer", "", 9, ONNXC_MAX_OPSET, 0, tfidf_infer, NULL, tfidf_emit, NULL, "int32, int64 -> float", NULL},
};
OPS_FAMILY(extra);
