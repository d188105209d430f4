/*
 * ops_tensor.c - tensor construction and data-movement operators.
 *
 * Constant, Shape, Size, ConstantOfShape, Range, Reshape, Flatten, Squeeze, Unsqueeze, Concat,
 * Split, Slice, Gather, GatherElements, GatherND, Expand, Tile, Transpose, Pad, DepthToSpace,
 * SpaceToDepth, CenterCropPad, Trilu, EyeLike, OneHot, Scatter, ScatterElements, ScatterND,
 * CumSum, CumProd, ReverseSequence, BitCast, TensorScatter.
 *
 * Constant, Shape and Size set their output data in the shape rule (shapes are static), so
 * they never reach the emitter.  Most pure data-movement ops (Concat, Split, Slice, Expand,
 * Tile, Transpose, Pad, DepthToSpace, SpaceToDepth, CenterCropPad) are described by a copy
 * plan built in the shape rule (n->priv): an optional fill of output 0 and a list of segments,
 * each a loop nest over `dims` copying element  X<src>[ibase + sum c_d * is_d]  to
 * Y<dst>[obase + sum c_d * os_d].  A dimension may instead map its coordinate through a table
 * (Pad's reflect/edge/wrap modes).  Tile splits every output axis into (repeat, extent) with a
 * zero input stride on the repeat part; DepthToSpace/SpaceToDepth are 6-D transposes.  Before
 * use, size-1 dims are dropped and neighbours with consistent strides merged, so a contiguous
 * innermost run becomes one memcpy.  One interpreter folds a plan at compile time and one
 * emitter turns it into C, so constant shape chains and run-time kernels agree.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

#define MAXR ONNXC_MAX_RANK
#define PMAX (2 * ONNXC_MAX_RANK)

/* ---- small helpers -------------------------------------------------------------------- */

static Value *need_in(Ctx *ctx, Node *n, int i) {
  Value *v = node_in(n, i);
  if (!v) fail_node(ctx, n, "missing input %d", i);
  return v;
}

/* A tensor whose elements the C backend can store (no exotic types).  Strings get here only in
   rows flagged OPF_STRINGS (ops_string.c's gate stops them before the others). */
static void need_storable(Ctx *ctx, Node *n, const Value *v) {
  if (!dtype_size(v->dtype) || !c_type(v->dtype))
    fail_node(ctx, n, "element type %s is not supported", dtype_name(v->dtype));
}

static void need_index_type(Ctx *ctx, Node *n, int i) {
  Value *v = need_in(ctx, n, i);
  if (v->dtype != DT_INT32 && v->dtype != DT_INT64)
    fail_node(ctx, n, "input %d must be int32 or int64, not %s", i, dtype_name(v->dtype));
}

/* Finds a graph input (not bound to a constant) that v is computed from, or NULL. */
static Value *upstream_input(Value *v, bool *seen, int nseen) {
  if (v->id >= 0 && v->id < nseen) {
    if (seen[v->id]) return NULL;
    seen[v->id] = true;
  }
  if (v->kind == VAL_INPUT && !v->data) return v;
  if (!v->producer || v->data) return NULL;
  for (int k = 0; k < v->producer->n_inputs; k++) {
    Value *u = v->producer->inputs[k];
    Value *r = u ? upstream_input(u, seen, nseen) : NULL;
    if (r) return r;
  }
  return NULL;
}

/* node_const_in, but when the input is computed at run time from a graph input, the message
   names that graph input, so that binding it (--const-input) makes the whole chain fold. */
static Value *const_in(Ctx *ctx, Node *n, int i, const char *what) {
  Value *v = node_in(n, i);
  if (v && !v->data && v->kind != VAL_INPUT && ctx->graph) {
    int nv = ctx->graph->values.n;
    bool *seen = arena_alloc(&ctx->arena, (size_t)nv + 1);
    Value *src = upstream_input(v, seen, nv);
    if (src && !value_is_local(ctx->graph, src)) /* a Loop's iteration number, a Scan slice, ... */
      fail_node(ctx, n, "input '%s' (%s) must be known at compile time; it is computed at run time from '%s', an "
                "input of the subgraph", v->name, what, src->name);
    if (src)
      fail_node(ctx, n,
                "input '%s' (%s) must be known at compile time; it is computed at run time from graph "
                "input '%s' (bind it with --const-input %s=FILE.pb)",
                v->name, what, src->name, src->name);
  }
  return node_const_in(ctx, n, i, what);
}

/* Integers of a compile-time constant input (scalar or 1-D), in the arena. */
static int64_t *const_ints(Ctx *ctx, Node *n, int i, const char *what, int *count) {
  Value *v = const_in(ctx, n, i, what);
  if (!dtype_is_int(v->dtype)) fail_node(ctx, n, "%s must be an integer tensor", what);
  if (v->rank > 1) fail_node(ctx, n, "%s must be a 1-D tensor", what);
  int64_t c = value_numel(v);
  if (c > 1 << 20) fail_node(ctx, n, "%s has too many elements", what);
  int64_t *out = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(c + 1));
  for (int64_t k = 0; k < c; k++) out[k] = const_get_i(v, k);
  *count = (int)c;
  return out;
}

static int64_t const_scalar_i(Ctx *ctx, Node *n, int i, const char *what) {
  Value *v = const_in(ctx, n, i, what);
  if (value_numel(v) != 1) fail_node(ctx, n, "%s must hold one element", what);
  if (v->dtype == DT_STRING) fail_node(ctx, n, "%s must be numeric", what);
  return const_get_i(v, 0);
}

static void row_major(int r, const int64_t *dims, int64_t *st) {
  int64_t s = 1;
  for (int d = r - 1; d >= 0; d--) { st[d] = s; s *= dims[d]; }
}

static int64_t prod(const int64_t *dims, int from, int to) {
  int64_t p = 1;
  for (int d = from; d < to; d++) p *= dims[d];
  return p;
}

static void set_out(Ctx *ctx, Node *n, int k, int dtype, int rank, const int64_t *dims) {
  if (rank > MAXR) fail_node(ctx, n, "output rank %d exceeds %d", rank, MAXR);
  for (int d = 0; d < rank; d++)
    if (dims[d] < 0) fail_node(ctx, n, "negative output dimension");
  if (node_out(n, k)) value_set_shape(n->outputs[k], dtype, rank, dims);
}

static int64_t node_maxn(const Node *n) {
  int64_t m = 1;
  for (int k = 0; k < n->n_inputs; k++)
    if (n->inputs[k] && value_numel(n->inputs[k]) > m) m = value_numel(n->inputs[k]);
  for (int k = 0; k < n->n_outputs; k++)
    if (n->outputs[k] && value_numel(n->outputs[k]) > m) m = value_numel(n->outputs[k]);
  return m;
}

/* Loop index type for the node's kernel. */
static const char *ity(const Node *n) { return node_maxn(n) < 2147483647LL ? "int" : "long long"; }

static const char *ll(Emit *e, int64_t v) { return c_lit_i(e, DT_INT64, v); }

/* Compute type of dt as a Value dtype (float for float16/bfloat16). */
static int ctype_dt(int dt) { return dt == DT_FLOAT16 || dt == DT_BFLOAT16 ? DT_FLOAT : dt; }

/* ---- copy plans ----------------------------------------------------------------------- */

enum { FILL_NONE = 0, FILL_ZERO, FILL_LIT, FILL_INPUT };

typedef struct Seg {
  int src, dst;             /* input index, output index */
  int r;
  int64_t dims[PMAX], os[PMAX], is[PMAX];
  int64_t *tbl[PMAX];       /* NULL, or input offsets per coordinate (already times the stride) */
  int64_t obase, ibase;
  bool box;                 /* Pad's constant mode: the box starting at output coordinates olo */
  int64_t olo[PMAX];
} Seg;

typedef struct Plan {
  int fill;                 /* of output 0, before the segments */
  double fill_f; int64_t fill_i; int fill_in;
  int n;
  Seg *segs;
} Plan;

static Plan *plan_new(Ctx *ctx, Node *n, int nseg) {
  Plan *p = arena_alloc(&ctx->arena, sizeof *p);
  p->segs = arena_alloc(&ctx->arena, sizeof(Seg) * (size_t)(nseg > 0 ? nseg : 1));
  n->priv = p;
  return p;
}

/* A segment over dims with contiguous output strides. */
static Seg *seg_add(Plan *p, int src, int dst, int r, const int64_t *dims) {
  Seg *s = &p->segs[p->n++];
  memset(s, 0, sizeof *s);
  s->src = src;
  s->dst = dst;
  s->r = r;
  for (int d = 0; d < r; d++) s->dims[d] = dims[d];
  row_major(r, dims, s->os);
  return s;
}

static int64_t seg_numel(const Seg *s) { return prod(s->dims, 0, s->r); }

/* Drops size-1 dims and merges neighbours whose strides are consistent. */
static void seg_simplify(Seg *s) {
  Seg t = *s;
  int m = 0;
  if (seg_numel(s) == 0) return;
  for (int d = 0; d < s->r; d++) {
    if (s->dims[d] == 1) {
      if (s->tbl[d]) t.ibase += s->tbl[d][0];
      continue;
    }
    if (m > 0 && !s->tbl[d] && !t.tbl[m - 1] && t.os[m - 1] == s->os[d] * s->dims[d] &&
        t.is[m - 1] == s->is[d] * s->dims[d]) {
      t.dims[m - 1] *= s->dims[d];
      t.os[m - 1] = s->os[d];
      t.is[m - 1] = s->is[d];
      continue;
    }
    t.dims[m] = s->dims[d];
    t.os[m] = s->os[d];
    t.is[m] = s->is[d];
    t.tbl[m] = s->tbl[d];
    m++;
  }
  t.r = m;
  *s = t;
}

static void plan_finish(Plan *p) {
  for (int i = 0; i < p->n; i++) seg_simplify(&p->segs[i]);
}

static void fold_fill(Value *y, const Plan *p, Node *n) {
  int64_t cnt = value_numel(y);
  size_t es = dtype_size(y->dtype);
  if (p->fill == FILL_ZERO) { memset(y->data, 0, (size_t)cnt * es); return; }
  for (int64_t i = 0; i < cnt; i++) {
    if (p->fill == FILL_INPUT) memcpy((char *)y->data + i * (int64_t)es, n->inputs[p->fill_in]->data, es);
    else if (dtype_is_float(y->dtype)) const_set_f(y, i, p->fill_f);
    else const_set_i(y, i, p->fill_i);
  }
}

static void plan_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  const Plan *p = n->priv;
  if (p->fill) fold_fill(n->outputs[0], p, n);
  for (int i = 0; i < p->n; i++) {
    const Seg *s = &p->segs[i];
    Value *y = n->outputs[s->dst];
    if (!y) continue;
    int64_t total = seg_numel(s), c[PMAX] = {0};
    size_t es = dtype_size(y->dtype);
    const char *src = n->inputs[s->src]->data;
    char *dst = y->data;
    for (int64_t k = 0; k < total; k++) {
      int64_t oo = s->obase, io = s->ibase;
      for (int d = 0; d < s->r; d++) {
        oo += c[d] * s->os[d];
        io += s->tbl[d] ? s->tbl[d][c[d]] : c[d] * s->is[d];
      }
      memcpy(dst + oo * (int64_t)es, src + io * (int64_t)es, es);
      for (int d = s->r - 1; d >= 0; d--) {
        if (++c[d] < s->dims[d]) break;
        c[d] = 0;
      }
    }
  }
}

/* A C table of int64 values, a few per line. */
static void emit_table(Emit *e, const char *ty, const char *name, const int64_t *t, int64_t cnt) {
  ep(e, "static const %s %s[%lld] = {", ty, name, (long long)cnt);
  char line[512];
  size_t len = 0;
  for (int64_t i = 0; i < cnt; i++) {
    len += (size_t)snprintf(line + len, sizeof line - len, "%s%s,", len ? " " : "", ll(e, t[i]));
    if (len > 90 || i == cnt - 1) {
      ep(e, "%s", line);
      len = 0;
    }
  }
  ep(e, "};");
}

/* "base + d0 * s0 + tbl1[d1] + ..." for one side of a segment. */
static const char *seg_expr(Emit *e, const Seg *s, int nl, bool out, int tid) {
  char b[1024];
  size_t len = 0;
  int64_t base = out ? s->obase : s->ibase;
  b[0] = 0;
  if (base) len += (size_t)snprintf(b, sizeof b, "%s", ll(e, base));
  for (int d = 0; d < nl; d++) {
    int64_t st = out ? s->os[d] : s->is[d];
    const char *sep = len ? " + " : "";
    if (!out && s->tbl[d]) len += (size_t)snprintf(b + len, sizeof b - len, "%st%d_%d[d%d]", sep, tid, d, d);
    else if (st == 1) len += (size_t)snprintf(b + len, sizeof b - len, "%sd%d", sep, d);
    else if (st != 0) len += (size_t)snprintf(b + len, sizeof b - len, "%sd%d * %s", sep, d, ll(e, st));
  }
  return fmt(e, "%s", len ? b : "0");
}

/* The fill value of output 0 (a storage-typed expression). */
static const char *fill_value(Emit *e, const Plan *p, int dt) {
  if (p->fill == FILL_ZERO) return c_store(e, dt, dtype_is_float(dt) ? c_lit(e, ctype_dt(dt), 0) : "0");
  if (p->fill == FILL_INPUT) return fmt(e, "X%d[0]", p->fill_in);
  if (dtype_is_float(dt)) return c_store(e, dt, c_lit(e, ctype_dt(dt), p->fill_f));
  return c_store(e, dt, c_lit_i(e, dt, p->fill_i));
}

/* CUDA: a fill plus one box segment (Pad's constant mode) as one grid-stride loop over output 0:
   each element is its input element when it lies in the box, else the fill value. */
static void emit_box_par(Emit *e, Node *n, const Plan *p) {
  const Seg *s = &p->segs[0];
  Value *y = n->outputs[0];
  int r = s->r, dt = y->dtype;
  int64_t cnt = value_numel(y);
  if (!cnt) return;
  const char *it = ity(n);
  emit_par_for(e, fmt(e, "%s ", it), "o", cnt);
  ep(e, "%s rem = o, xi = %lld;", it, (long long)s->ibase);
  ep(e, "int in = 1;");
  for (int d = r - 1; d >= 0; d--) {
    ep(e, "{");
    ep(e, "const %s u = rem %% %lld - %lld;", it, (long long)y->dims[d], (long long)s->olo[d]);
    ep(e, "rem /= %lld;", (long long)y->dims[d]);
    ep(e, "if (u < 0 || u >= %lld) in = 0;", (long long)s->dims[d]);
    ep(e, "xi += u * %lld;", (long long)s->is[d]);
    ep(e, "}");
  }
  ep(e, "(void)rem;");
  ep(e, "Y0[o] = in ? X%d[xi] : %s;", s->src, fill_value(e, p, dt));
  ep(e, "}");
}

static void emit_fill(Emit *e, Node *n, const Plan *p) {
  Value *y = n->outputs[0];
  int64_t cnt = value_numel(y);
  int dt = y->dtype;
  if (!cnt) return;
  bool zero = p->fill == FILL_ZERO ||
              (p->fill == FILL_LIT && (dtype_is_float(dt) ? (p->fill_f == 0 && !signbit(p->fill_f)) : p->fill_i == 0));
  if (zero) { ep(e, "memset(Y0, 0, %lld * sizeof(%s));", (long long)cnt, c_type(dt)); return; }
  const char *v = fill_value(e, p, dt);
  ep(e, "{");
  ep(e, "const %s fv = %s;", c_type(dt), v);
  ep(e, "%s i;", ity(n));
  ep(e, "for (i = 0; i < %lld; i++) Y0[i] = fv;", (long long)cnt);
  ep(e, "}");
}

/* CUDA parallel mode: one thread per element of the segment (the segments of one node write
   disjoint parts of the outputs and read only inputs, so they run side by side). */
static void emit_seg_par(Emit *e, Node *n, const Seg *s, int tid) {
  int r = s->r;
  const char *it = ity(n);
  ep(e, "if (Y%d) {", s->dst);
  for (int d = 0; d < r; d++)
    if (s->tbl[d]) emit_table(e, it, fmt(e, "t%d_%d", tid, d), s->tbl[d], s->dims[d]);
  const char *vars[ONNXC_MAX_RANK + 1];
  for (int d = 0; d < r; d++) vars[d] = fmt(e, "d%d", d);
  if (r == 0) {
    vars[0] = "d0";
    int64_t one = 1;
    emit_par_nest(e, it, 1, vars, &one);
    ep(e, "(void)d0;");
  } else {
    emit_par_nest(e, it, r, vars, s->dims);
  }
  ep(e, "Y%d[%s] = X%d[%s];", s->dst, seg_expr(e, s, r, true, tid), s->src, seg_expr(e, s, r, false, tid));
  emit_par_end(e, r ? r : 1);
  ep(e, "}");
}

static void emit_seg(Emit *e, Node *n, const Seg *s, int tid) {
  if (seg_numel(s) == 0) return;
  if (e->par) {
    emit_seg_par(e, n, s, tid);
    return;
  }
  Value *y = n->outputs[s->dst];
  const char *T = c_type(y->dtype);
  int r = s->r;
  bool blk = r > 0 && !s->tbl[r - 1] && s->os[r - 1] == 1 && s->is[r - 1] == 1;
  int nl = blk ? r - 1 : r;
  bool guard = n->n_outputs > 1;
  if (guard) ep(e, "if (Y%d) {", s->dst);
  else ep(e, "{");
  for (int d = 0; d < nl; d++)
    if (s->tbl[d]) emit_table(e, ity(n), fmt(e, "t%d_%d", tid, d), s->tbl[d], s->dims[d]);
  if (nl > 0) {
    char decl[256];
    size_t len = 0;
    for (int d = 0; d < nl; d++) len += (size_t)snprintf(decl + len, sizeof decl - len, "%sd%d", d ? ", " : "", d);
    ep(e, "%s %s;", ity(n), decl);
  }
  for (int d = 0; d < nl; d++) ep(e, "for (d%d = 0; d%d < %lld; d%d++) {", d, d, (long long)s->dims[d], d);
  const char *oe = seg_expr(e, s, nl, true, tid), *ie = seg_expr(e, s, nl, false, tid);
  if (blk)
    ep(e, "memcpy(Y%d + %s, X%d + %s, %lld * sizeof(%s));", s->dst, oe, s->src, ie, (long long)s->dims[r - 1], T);
  else
    ep(e, "Y%d[%s] = X%d[%s];", s->dst, oe, s->src, ie);
  for (int d = 0; d < nl; d++) ep(e, "}");
  ep(e, "}");
}

static void plan_emit(Emit *e, Node *n) {
  const Plan *p = n->priv;
  bool par = e->par;
  if (par && p->fill && p->n == 1 && p->segs[0].box && p->segs[0].dst == 0 && p->segs[0].r == n->outputs[0]->rank) {
    emit_box_par(e, n, p);
    return;
  }
  e->par = par && !p->fill; /* a fill, then segments over it: one thread (CUDA) */
  e->par_indep = true;
  if (p->fill) emit_fill(e, n, p);
  for (int i = 0; i < p->n; i++)
    if (n->outputs[p->segs[i].dst]) emit_seg(e, n, &p->segs[i], i);
  e->par = par;
}

/* ---- plain copies (Reshape, Flatten, Squeeze, Unsqueeze, BitCast) ----------------------- */

static void copy_emit(Emit *e, Node *n) {
  int64_t bytes = value_bytes(n->outputs[0]);
  if (bytes && n->outputs[0]->dtype == DT_STRING) /* pointers: their size is the target's */
    ep(e, "memcpy(Y0, X0, %lld * sizeof(onnxc_string));", (long long)value_numel(n->outputs[0]));
  else if (bytes)
    ep(e, "memcpy(Y0, X0, %lld);", (long long)bytes);
}

static void copy_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  memcpy(n->outputs[0]->data, n->inputs[0]->data, (size_t)value_bytes(n->outputs[0]));
}

/* ---- Constant, Shape, Size: data set by the shape rule ---------------------------------- */

static void set_const(Ctx *ctx, Value *y, const void *src) {
  value_alloc_data(ctx, y);
  if (value_bytes(y)) memcpy(y->data, src, (size_t)value_bytes(y));
}

static void constant_infer(Ctx *ctx, Node *n) {
  Value *y = node_out(n, 0);
  const Attr *a;
  if (!y) fail_node(ctx, n, "missing output");
  if ((a = node_attr(n, "value")) && a->type == ATTR_TENSOR && a->t) {
    Value *t = a->t;
    if (!dtype_size(t->dtype)) fail_node(ctx, n, "element type %s is not supported", dtype_name(t->dtype));
    value_set_shape(y, t->dtype, t->rank, t->dims);
    if (t->data) { y->data = t->data; y->kind = VAL_CONST; }
    else value_alloc_data(ctx, y);
  } else if ((a = node_attr(n, "value_float"))) {
    value_set_shape(y, DT_FLOAT, 0, NULL);
    set_const(ctx, y, &a->f);
  } else if ((a = node_attr(n, "value_floats"))) {
    int64_t d = a->n_floats;
    value_set_shape(y, DT_FLOAT, 1, &d);
    set_const(ctx, y, a->floats);
  } else if ((a = node_attr(n, "value_int"))) {
    value_set_shape(y, DT_INT64, 0, NULL);
    set_const(ctx, y, &a->i);
  } else if ((a = node_attr(n, "value_ints"))) {
    int64_t d = a->n_ints;
    value_set_shape(y, DT_INT64, 1, &d);
    set_const(ctx, y, a->ints);
  } else if ((a = node_attr(n, "value_string")) || (a = node_attr(n, "value_strings"))) {
    /* Value.data of a string tensor: its char * elements */
    bool one = a->type == ATTR_STRING;
    int64_t d = one ? 1 : a->n_strings;
    if (one && a->s && strlen(a->s) != a->slen) fail_node(ctx, n, "value_string holds a NUL byte, which a C string cannot");
    value_set_shape(y, DT_STRING, one ? 0 : 1, &d);
    value_alloc_data(ctx, y);
    for (int64_t i = 0; i < d; i++) ((const char **)y->data)[i] = one ? (a->s ? a->s : "") : a->strings[i];
    y->kind = VAL_CONST;
  } else {
    fail_node(ctx, n, "no supported value attribute (value, value_float(s), value_int(s))");
  }
}

static void shape_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0), *y = node_out(n, 0);
  int r = x->rank;
  int64_t start = attr_i(n, "start", 0), end = node_attr(n, "end") ? attr_i(n, "end", r) : r;
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = start < 0 ? 0 : start > r ? r : start;
  end = end < 0 ? 0 : end > r ? r : end;
  int64_t cnt = end > start ? end - start : 0;
  if (!y) return;
  value_set_shape(y, DT_INT64, 1, &cnt);
  set_const(ctx, y, x->dims + start);
}

static void size_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0), *y = node_out(n, 0);
  int64_t cnt = value_numel(x);
  if (!y) return;
  value_set_shape(y, DT_INT64, 0, NULL);
  set_const(ctx, y, &cnt);
}

/* ---- ConstantOfShape, Range, EyeLike ------------------------------------------------------ */

static void cos_infer(Ctx *ctx, Node *n) {
  int cnt;
  int64_t *dims = const_ints(ctx, n, 0, "shape", &cnt);
  int dt = DT_FLOAT;
  const Attr *a = node_attr(n, "value");
  if (a && a->t) {
    if (value_numel(a->t) != 1) fail_node(ctx, n, "value must hold one element");
    dt = a->t->dtype;
    need_storable(ctx, n, a->t);
  }
  set_out(ctx, n, 0, dt, cnt, dims);
}

static void cos_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  Value *y = n->outputs[0];
  const Attr *a = node_attr(n, "value");
  size_t es = dtype_size(y->dtype);
  for (int64_t i = 0; i < value_numel(y); i++)
    if (a && a->t && a->t->data) memcpy((char *)y->data + i * (int64_t)es, a->t->data, es);
}

static void cos_emit(Emit *e, Node *n) {
  Value *y = n->outputs[0];
  const Attr *a = node_attr(n, "value");
  Plan p = {0};
  p.fill = FILL_ZERO;
  if (a && a->t && a->t->data) {
    if (dtype_is_float(y->dtype)) { p.fill = FILL_LIT; p.fill_f = const_get_f(a->t, 0); }
    else { p.fill = FILL_LIT; p.fill_i = const_get_i(a->t, 0); }
  }
  emit_fill(e, n, &p);
}

static void range_infer(Ctx *ctx, Node *n) {
  Value *s = const_in(ctx, n, 0, "start"), *l = const_in(ctx, n, 1, "limit"),
        *d = const_in(ctx, n, 2, "delta");
  need_storable(ctx, n, s);
  if (l->dtype != s->dtype || d->dtype != s->dtype) fail_node(ctx, n, "inputs have different element types");
  if (value_numel(s) != 1 || value_numel(l) != 1 || value_numel(d) != 1) fail_node(ctx, n, "inputs must be scalars");
  int64_t cnt;
  if (dtype_is_float(s->dtype)) {
    double a = const_get_f(s, 0), b = const_get_f(l, 0), c = const_get_f(d, 0);
    if (c == 0 || isnan(a) || isnan(b) || isnan(c)) fail_node(ctx, n, "delta must be non-zero");
    double k = ceil((b - a) / c);
    if (!(k < 1e12)) fail_node(ctx, n, "output too large");
    cnt = k > 0 ? (int64_t)k : 0;
  } else {
    int64_t a = const_get_i(s, 0), b = const_get_i(l, 0), c = const_get_i(d, 0);
    if (c == 0) fail_node(ctx, n, "delta must be non-zero");
    uint64_t span = c > 0 ? (b > a ? (uint64_t)b - (uint64_t)a : 0) : (a > b ? (uint64_t)a - (uint64_t)b : 0);
    uint64_t step = c > 0 ? (uint64_t)c : (uint64_t)0 - (uint64_t)c;
    uint64_t q = span ? (span - 1) / step + 1 : 0;
    if (q > ((uint64_t)1 << 40)) fail_node(ctx, n, "output too large");
    cnt = (int64_t)q;
  }
  set_out(ctx, n, 0, s->dtype, 1, &cnt);
}

static void range_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  Value *y = n->outputs[0], *s = n->inputs[0], *d = n->inputs[2];
  for (int64_t i = 0; i < value_numel(y); i++) {
    if (dtype_is_float(y->dtype)) const_set_f(y, i, const_get_f(s, 0) + (double)i * const_get_f(d, 0));
    else const_set_i(y, i, (int64_t)((uint64_t)const_get_i(s, 0) + (uint64_t)i * (uint64_t)const_get_i(d, 0)));
  }
}

static void range_emit(Emit *e, Node *n) {
  Value *y = n->outputs[0];
  int dt = y->dtype;
  ep(e, "%s i;", ity(n));
  if (dtype_is_float(dt))
    ep(e, "for (i = 0; i < %lld; i++) Y0[i] = %s;", (long long)value_numel(y),
       c_store(e, dt, fmt(e, "(%s)((double)%s + (double)i * (double)%s)", c_ctype(dt), c_load(e, dt, "X0[0]"), c_load(e, dt, "X2[0]"))));
  else
    ep(e, "for (i = 0; i < %lld; i++) Y0[i] = (%s)((long long)X0[0] + (long long)i * (long long)X2[0]);",
       (long long)value_numel(y), c_type(dt));
}

static void eyelike_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  int dt = node_attr(n, "dtype") ? (int)attr_i(n, "dtype", DT_FLOAT) : x->dtype;
  int64_t dims[2];
  if (x->rank == 2) { dims[0] = x->dims[0]; dims[1] = x->dims[1]; }
  else if (x->rank == 1) dims[0] = dims[1] = x->dims[0];
  else fail_node(ctx, n, "input must be 2-D");
  if (dt == DT_STRING || !c_type(dt) || !dtype_size(dt)) fail_node(ctx, n, "element type %s is not supported", dtype_name(dt));
  set_out(ctx, n, 0, dt, 2, dims);
}

static void eyelike_emit(Emit *e, Node *n) {
  Value *y = n->outputs[0];
  int64_t R = y->dims[0], C = y->dims[1], k = attr_i(n, "k", 0);
  int64_t lo = k < 0 ? -k : 0, hi = C - k < R ? C - k : R;
  if (R * C > 0) ep(e, "memset(Y0, 0, %lld * sizeof(%s));", (long long)(R * C), c_type(y->dtype));
  if (lo >= hi) return;
  ep(e, "{");
  ep(e, "%s i;", ity(n));
  ep(e, "for (i = %lld; i < %lld; i++) Y0[i * %lld + i + %s] = %s;", (long long)lo, (long long)hi,
     (long long)C, ll(e, k), c_store(e, y->dtype, c_lit(e, ctype_dt(y->dtype), 1)));
  ep(e, "}");
}

/* ---- Reshape, Flatten, Squeeze, Unsqueeze, BitCast -------------------------------------- */

static void reshape_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  need_storable(ctx, n, x);
  int cnt;
  const int64_t *shp;
  if (n->opset < 5) {
    cnt = attr_ints(n, "shape", &shp);
    if (!node_attr(n, "shape")) fail_node(ctx, n, "missing attribute 'shape'");
  } else {
    shp = const_ints(ctx, n, 1, "shape", &cnt);
  }
  if (cnt > MAXR) fail_node(ctx, n, "target rank %d exceeds %d", cnt, MAXR);
  bool allowzero = attr_i(n, "allowzero", 0) != 0;
  int64_t dims[MAXR], known = 1;
  int neg = -1;
  for (int i = 0; i < cnt; i++) {
    int64_t s = shp[i];
    if (s == 0 && !allowzero) {
      if (i >= x->rank) fail_node(ctx, n, "shape[%d] = 0 copies a dimension the input does not have", i);
      s = x->dims[i];
    }
    if (s == -1) {
      if (neg >= 0) fail_node(ctx, n, "shape has more than one -1");
      neg = i;
      dims[i] = 1;
      continue;
    }
    if (s < 0) fail_node(ctx, n, "invalid shape value %lld", (long long)s);
    dims[i] = s;
    if (!mul_ok(known, s, &known)) fail_node(ctx, n, "shape overflows");
  }
  int64_t numel = value_numel(x);
  if (neg >= 0) {
    if (known == 0) fail_node(ctx, n, "cannot infer the -1 dimension next to a zero dimension");
    if (numel % known) fail_node(ctx, n, "cannot reshape %s to the requested shape", shape_str(&ctx->arena, x));
    dims[neg] = numel / known;
  } else if (known != numel) {
    fail_node(ctx, n, "cannot reshape %s (%lld elements) to %lld elements", shape_str(&ctx->arena, x),
              (long long)numel, (long long)known);
  }
  set_out(ctx, n, 0, x->dtype, cnt, dims);
}

static void flatten_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  need_storable(ctx, n, x);
  int64_t axis = attr_i(n, "axis", 1);
  if (axis < 0) axis += x->rank;
  if (axis < 0 || axis > x->rank) fail_node(ctx, n, "axis out of range");
  int64_t dims[2] = {prod(x->dims, 0, (int)axis), prod(x->dims, (int)axis, x->rank)};
  set_out(ctx, n, 0, x->dtype, 2, dims);
}

static void squeeze_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  need_storable(ctx, n, x);
  const int64_t *axes = NULL;
  int cnt = 0;
  bool has = false;
  if (n->opset < 13) {
    cnt = attr_ints(n, "axes", &axes);
    has = cnt > 0; /* an empty list squeezes every size-1 axis, like no list */
  } else if (node_in(n, 1)) {
    axes = const_ints(ctx, n, 1, "axes", &cnt);
    has = true;
  }
  bool drop[MAXR] = {false};
  if (!has) {
    for (int d = 0; d < x->rank; d++) drop[d] = x->dims[d] == 1;
  } else {
    for (int i = 0; i < cnt; i++) {
      int a = norm_axis(ctx, n, axes[i], x->rank);
      if (x->dims[a] != 1) fail_node(ctx, n, "cannot squeeze axis %d of size %lld", a, (long long)x->dims[a]);
      drop[a] = true;
    }
  }
  int64_t dims[MAXR];
  int r = 0;
  for (int d = 0; d < x->rank; d++)
    if (!drop[d]) dims[r++] = x->dims[d];
  set_out(ctx, n, 0, x->dtype, r, dims);
}

static void unsqueeze_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  need_storable(ctx, n, x);
  const int64_t *axes;
  int cnt;
  if (n->opset < 13) {
    cnt = attr_ints(n, "axes", &axes);
    if (!node_attr(n, "axes")) fail_node(ctx, n, "missing attribute 'axes'");
  } else {
    axes = const_ints(ctx, n, 1, "axes", &cnt);
  }
  int r = x->rank + cnt;
  if (r > MAXR) fail_node(ctx, n, "output rank %d exceeds %d", r, MAXR);
  bool ins[MAXR] = {false};
  for (int i = 0; i < cnt; i++) {
    int a = norm_axis(ctx, n, axes[i], r);
    if (ins[a]) fail_node(ctx, n, "repeated axis %d", a);
    ins[a] = true;
  }
  int64_t dims[MAXR];
  for (int d = 0, k = 0; d < r; d++) dims[d] = ins[d] ? 1 : x->dims[k++];
  set_out(ctx, n, 0, x->dtype, r, dims);
}

static void bitcast_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  need_storable(ctx, n, x);
  int to = (int)attr_i(n, "to", 0);
  if (to == DT_STRING || !c_type(to) || !dtype_size(to)) fail_node(ctx, n, "cannot bit-cast to %s", dtype_name(to));
  if (dtype_size(to) != dtype_size(x->dtype))
    fail_node(ctx, n, "BitCast between types of different widths (%s, %s) is not supported", dtype_name(x->dtype), dtype_name(to));
  set_out(ctx, n, 0, to, x->rank, x->dims);
}

/* ---- Concat, Split ------------------------------------------------------------------------- */

static void concat_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  need_storable(ctx, n, x);
  if (x->rank < 1) fail_node(ctx, n, "inputs must have rank >= 1");
  if (!node_attr(n, "axis") && n->opset >= 4) fail_node(ctx, n, "missing attribute 'axis'");
  int axis = norm_axis(ctx, n, attr_i(n, "axis", 1), x->rank);
  int64_t dims[MAXR];
  memcpy(dims, x->dims, sizeof dims);
  dims[axis] = 0;
  for (int k = 0; k < n->n_inputs; k++) {
    Value *v = need_in(ctx, n, k);
    if (v->dtype != x->dtype) fail_node(ctx, n, "inputs have different element types");
    if (v->rank != x->rank) fail_node(ctx, n, "inputs have different ranks");
    for (int d = 0; d < x->rank; d++)
      if (d != axis && v->dims[d] != x->dims[d])
        fail_node(ctx, n, "input shapes %s and %s differ off the axis", shape_str(&ctx->arena, x), shape_str(&ctx->arena, v));
    dims[axis] += v->dims[axis];
  }
  set_out(ctx, n, 0, x->dtype, x->rank, dims);
  Plan *p = plan_new(ctx, n, n->n_inputs);
  int64_t ost[MAXR], off = 0;
  row_major(x->rank, dims, ost);
  for (int k = 0; k < n->n_inputs; k++) {
    Value *v = n->inputs[k];
    Seg *s = seg_add(p, k, 0, v->rank, v->dims);
    row_major(v->rank, v->dims, s->is);
    for (int d = 0; d < v->rank; d++) s->os[d] = ost[d];
    s->obase = off * ost[axis];
    off += v->dims[axis];
  }
  plan_finish(p);
}

static void split_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  need_storable(ctx, n, x);
  if (x->rank < 1) fail_node(ctx, n, "input must have rank >= 1");
  int axis = norm_axis(ctx, n, attr_i(n, "axis", 0), x->rank);
  int nout = n->n_outputs, cnt = 0;
  int64_t len = x->dims[axis];
  const int64_t *sp = NULL;
  if ((n->opset >= 13 || n->opset == 1) && node_in(n, 1)) {
    sp = const_ints(ctx, n, 1, "split", &cnt);
  } else if (n->opset < 13 && node_attr(n, "split")) {
    cnt = attr_ints(n, "split", &sp);
  }
  int64_t *sizes = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(nout + 1));
  if (sp) {
    if (cnt != nout) fail_node(ctx, n, "split has %d entries for %d outputs", cnt, nout);
    int64_t sum = 0;
    for (int k = 0; k < cnt; k++) {
      if (sp[k] < 0) fail_node(ctx, n, "negative split size");
      sizes[k] = sp[k];
      sum += sp[k];
    }
    if (sum != len) fail_node(ctx, n, "split sizes sum to %lld, axis has %lld", (long long)sum, (long long)len);
  } else {
    if (n->opset >= 18 && node_attr(n, "num_outputs") && attr_i(n, "num_outputs", 0) != nout)
      fail_node(ctx, n, "num_outputs differs from the number of outputs");
    if (nout < 1) fail_node(ctx, n, "no outputs");
    int64_t each = (len + nout - 1) / nout, rest = len - each * (nout - 1);
    if (rest < 0) fail_node(ctx, n, "cannot split %lld into %d parts", (long long)len, nout);
    for (int k = 0; k < nout; k++) sizes[k] = k == nout - 1 ? rest : each;
  }
  Plan *p = plan_new(ctx, n, nout);
  int64_t ist[MAXR], off = 0;
  row_major(x->rank, x->dims, ist);
  for (int k = 0; k < nout; k++) {
    int64_t dims[MAXR];
    memcpy(dims, x->dims, sizeof dims);
    dims[axis] = sizes[k];
    set_out(ctx, n, k, x->dtype, x->rank, dims);
    if (node_out(n, k)) {
      Seg *s = seg_add(p, 0, k, x->rank, dims);
      for (int d = 0; d < x->rank; d++) s->is[d] = ist[d];
      s->ibase = off * ist[axis];
    }
    off += sizes[k];
  }
  plan_finish(p);
}

/* ---- Slice ------------------------------------------------------------------------------------ */

static void slice_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  need_storable(ctx, n, x);
  const int64_t *st, *en, *ax = NULL, *sp = NULL;
  int ns, ne, na = 0, nst = 0;
  if (n->opset < 10) {
    ns = attr_ints(n, "starts", &st);
    ne = attr_ints(n, "ends", &en);
    na = attr_ints(n, "axes", &ax);
  } else {
    st = const_ints(ctx, n, 1, "starts", &ns);
    en = const_ints(ctx, n, 2, "ends", &ne);
    if (node_in(n, 3)) ax = const_ints(ctx, n, 3, "axes", &na);
    if (node_in(n, 4)) sp = const_ints(ctx, n, 4, "steps", &nst);
  }
  if (ns != ne || (ax && na != ns) || (sp && nst != ns)) fail_node(ctx, n, "starts/ends/axes/steps lengths differ");
  int r = x->rank;
  int64_t start[MAXR], step[MAXR], dims[MAXR];
  bool seen[MAXR] = {false};
  for (int d = 0; d < r; d++) { start[d] = 0; step[d] = 1; dims[d] = x->dims[d]; }
  for (int i = 0; i < ns; i++) {
    int a = ax ? norm_axis(ctx, n, ax[i], r) : i;
    if (a >= r) fail_node(ctx, n, "more starts than input dimensions");
    if (seen[a]) fail_node(ctx, n, "repeated axis %d", a);
    seen[a] = true;
    int64_t dn = x->dims[a], s = st[i], e = en[i], k = sp ? sp[i] : 1;
    if (k == 0) fail_node(ctx, n, "step must be non-zero");
    if (s < 0) s += dn;
    if (e < 0) e += dn;
    int64_t cnt;
    if (k > 0) {
      s = s < 0 ? 0 : s > dn ? dn : s;
      e = e < 0 ? 0 : e > dn ? dn : e;
      cnt = e > s ? (e - s - 1) / k + 1 : 0;
    } else {
      /* the spec clamps a negative-step start to [0, dn-1] (not to -1 as Python does: a start
         before the first element still takes the first element) */
      s = s < 0 ? 0 : s > dn - 1 ? dn - 1 : s;
      e = e < -1 ? -1 : e > dn - 1 ? dn - 1 : e;
      int64_t ak = k < -INT64_MAX ? INT64_MAX : -k;
      cnt = dn > 0 && s > e ? (s - e - 1) / ak + 1 : 0;
    }
    start[a] = cnt ? s : 0;
    step[a] = cnt > 1 ? k : 1;
    dims[a] = cnt;
  }
  set_out(ctx, n, 0, x->dtype, r, dims);
  Plan *p = plan_new(ctx, n, 1);
  int64_t ist[MAXR];
  row_major(r, x->dims, ist);
  Seg *s = seg_add(p, 0, 0, r, dims);
  for (int d = 0; d < r; d++) {
    s->is[d] = ist[d] * step[d];
    s->ibase += start[d] * ist[d];
  }
  plan_finish(p);
}

/* ---- Expand, Tile, Transpose, DepthToSpace, SpaceToDepth ------------------------------------ */

static void expand_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  need_storable(ctx, n, x);
  int cnt, r;
  int64_t *shp = const_ints(ctx, n, 1, "shape", &cnt), dims[MAXR];
  if (cnt > MAXR) fail_node(ctx, n, "target rank exceeds %d", MAXR);
  if (!broadcast_shapes(x->rank, x->dims, cnt, shp, &r, dims))
    fail_node(ctx, n, "input %s does not broadcast to the requested shape", shape_str(&ctx->arena, x));
  set_out(ctx, n, 0, x->dtype, r, dims);
  Plan *p = plan_new(ctx, n, 1);
  int64_t ist[MAXR];
  row_major(x->rank, x->dims, ist);
  Seg *s = seg_add(p, 0, 0, r, dims);
  for (int d = 0; d < r; d++) {
    int vd = d - (r - x->rank);
    s->is[d] = vd < 0 || x->dims[vd] == 1 ? 0 : ist[vd];
  }
  plan_finish(p);
}

static void tile_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  need_storable(ctx, n, x);
  int cnt, r = x->rank;
  int64_t *rep = const_ints(ctx, n, 1, "repeats", &cnt), dims[MAXR];
  if (cnt != r) fail_node(ctx, n, "repeats has %d entries for rank %d", cnt, r);
  for (int d = 0; d < r; d++) {
    if (rep[d] < 0) fail_node(ctx, n, "negative repeat");
    if (!mul_ok(x->dims[d], rep[d], &dims[d])) fail_node(ctx, n, "output too large");
  }
  set_out(ctx, n, 0, x->dtype, r, dims);
  Plan *p = plan_new(ctx, n, 1);
  int64_t ist[MAXR], sd[PMAX] = {0};
  row_major(r, x->dims, ist);
  for (int d = 0; d < r; d++) { sd[2 * d] = rep[d]; sd[2 * d + 1] = x->dims[d]; }
  Seg *s = seg_add(p, 0, 0, 2 * r, sd);
  for (int d = 0; d < r; d++) s->is[2 * d + 1] = ist[d];
  plan_finish(p);
}

/* A transpose of x viewed with dims vd (rank r) by perm; output is contiguous. */
static void transpose_plan(Ctx *ctx, Node *n, int r, const int64_t *vd, const int *perm) {
  Plan *p = plan_new(ctx, n, 1);
  int64_t ist[PMAX], od[PMAX] = {0};
  row_major(r, vd, ist);
  for (int k = 0; k < r; k++) od[k] = vd[perm[k]];
  Seg *s = seg_add(p, 0, 0, r, od);
  for (int k = 0; k < r; k++) s->is[k] = ist[perm[k]];
  plan_finish(p);
}

static void transpose_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  need_storable(ctx, n, x);
  int r = x->rank, perm[MAXR];
  const int64_t *pa;
  int cnt = attr_ints(n, "perm", &pa);
  bool used[MAXR] = {false};
  if (node_attr(n, "perm")) {
    if (cnt != r) fail_node(ctx, n, "perm has %d entries for rank %d", cnt, r);
    for (int k = 0; k < r; k++) {
      int a = norm_axis(ctx, n, pa[k], r);
      if (used[a]) fail_node(ctx, n, "perm is not a permutation");
      used[a] = true;
      perm[k] = a;
    }
  } else {
    for (int k = 0; k < r; k++) perm[k] = r - 1 - k;
  }
  int64_t dims[MAXR];
  for (int k = 0; k < r; k++) dims[k] = x->dims[perm[k]];
  set_out(ctx, n, 0, x->dtype, r, dims);
  transpose_plan(ctx, n, r, x->dims, perm);
}

static void d2s_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  need_storable(ctx, n, x);
  int64_t bs = attr_i(n, "blocksize", 0);
  if (bs <= 0) fail_node(ctx, n, "blocksize must be positive");
  if (x->rank != 4) fail_node(ctx, n, "input must be 4-D");
  const char *mode = attr_s(n, "mode", "DCR");
  bool d2s = !strcmp(n->op_type, "DepthToSpace");
  bool crd = !strcmp(mode, "CRD");
  if (!crd && strcmp(mode, "DCR")) fail_node(ctx, n, "unknown mode '%s'", mode);
  int64_t b = x->dims[0], c = x->dims[1], h = x->dims[2], w = x->dims[3], vd[6], dims[4];
  if (d2s) {
    if (c % (bs * bs)) fail_node(ctx, n, "channels not divisible by blocksize^2");
    int64_t c2 = c / (bs * bs);
    int64_t dcr[6] = {b, bs, bs, c2, h, w}, crd_[6] = {b, c2, bs, bs, h, w};
    static const int pd[6] = {0, 3, 4, 1, 5, 2}, pc[6] = {0, 1, 4, 2, 5, 3};
    memcpy(vd, crd ? crd_ : dcr, sizeof vd);
    dims[0] = b; dims[1] = c2; dims[2] = h * bs; dims[3] = w * bs;
    set_out(ctx, n, 0, x->dtype, 4, dims);
    transpose_plan(ctx, n, 6, vd, crd ? pc : pd);
  } else {
    if (h % bs || w % bs) fail_node(ctx, n, "height/width not divisible by blocksize");
    int64_t v[6] = {b, c, h / bs, bs, w / bs, bs};
    static const int pd[6] = {0, 3, 5, 1, 2, 4}, pc[6] = {0, 1, 3, 5, 2, 4};
    dims[0] = b; dims[1] = c * bs * bs; dims[2] = h / bs; dims[3] = w / bs;
    set_out(ctx, n, 0, x->dtype, 4, dims);
    transpose_plan(ctx, n, 6, v, crd ? pc : pd);
  }
}

/* ---- Pad, CenterCropPad -------------------------------------------------------------------- */

enum { PAD_CONST, PAD_REFLECT, PAD_EDGE, PAD_WRAP };

static int64_t pad_map(int mode, int64_t j, int64_t len) {
  if (mode == PAD_EDGE) return j < 0 ? 0 : j >= len ? len - 1 : j;
  if (mode == PAD_WRAP) return ((j % len) + len) % len;
  if (len == 1) return 0;
  int64_t per = 2 * (len - 1);
  j = ((j % per) + per) % per;
  return j >= len ? per - j : j;
}

static void pad_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  need_storable(ctx, n, x);
  int r = x->rank, cnt;
  const int64_t *pads;
  const char *ms = attr_s(n, "mode", "constant");
  int mode = !strcmp(ms, "constant") ? PAD_CONST : !strcmp(ms, "reflect") ? PAD_REFLECT
           : !strcmp(ms, "edge") ? PAD_EDGE : !strcmp(ms, "wrap") ? PAD_WRAP : -1;
  if (mode < 0) fail_node(ctx, n, "unknown mode '%s'", ms);
  int64_t pb[MAXR] = {0}, pe[MAXR] = {0};
  Plan *p = plan_new(ctx, n, 1);
  if (n->opset < 11) {
    const char *an = n->opset < 2 ? "paddings" : "pads";
    cnt = attr_ints(n, an, &pads);
    if (cnt != 2 * r) fail_node(ctx, n, "%s has %d entries for rank %d", an, cnt, r);
    for (int d = 0; d < r; d++) { pb[d] = pads[d]; pe[d] = pads[r + d]; }
    p->fill = FILL_LIT;
    p->fill_f = attr_f(n, "value", 0);
    p->fill_i = (int64_t)p->fill_f;
  } else {
    pads = const_ints(ctx, n, 1, "pads", &cnt);
    int na = r, axes[MAXR];
    for (int d = 0; d < r; d++) axes[d] = d;
    if (node_in(n, 3)) {
      int c2;
      int64_t *ax = const_ints(ctx, n, 3, "axes", &c2);
      if (c2 > r) fail_node(ctx, n, "too many axes");
      na = c2;
      for (int i = 0; i < na; i++) axes[i] = norm_axis(ctx, n, ax[i], r);
    }
    if (cnt != 2 * na) fail_node(ctx, n, "pads has %d entries for %d axes", cnt, na);
    for (int i = 0; i < na; i++) { pb[axes[i]] = pads[i]; pe[axes[i]] = pads[na + i]; }
    p->fill = FILL_ZERO;
    Value *cv = node_in(n, 2);
    if (cv && mode == PAD_CONST) {
      if (cv->dtype != x->dtype) fail_node(ctx, n, "constant_value has a different element type");
      if (value_numel(cv) != 1) fail_node(ctx, n, "constant_value must be a scalar");
      p->fill = FILL_INPUT;
      p->fill_in = 2;
    }
  }
  int64_t dims[MAXR];
  for (int d = 0; d < r; d++) {
    dims[d] = x->dims[d] + pb[d] + pe[d];
    if (dims[d] < 0) fail_node(ctx, n, "pads remove more than the whole axis %d", d);
    if (mode != PAD_CONST && x->dims[d] == 0 && dims[d] > 0) fail_node(ctx, n, "cannot pad an empty axis in mode %s", ms);
  }
  set_out(ctx, n, 0, x->dtype, r, dims);
  int64_t ist[MAXR];
  row_major(r, x->dims, ist);
  if (mode == PAD_CONST) {
    int64_t cd[MAXR] = {0}, lo[MAXR] = {0}, ost[MAXR];
    row_major(r, dims, ost);
    for (int d = 0; d < r; d++) {
      lo[d] = pb[d] > 0 ? pb[d] : 0;
      int64_t hi = pb[d] + x->dims[d] < dims[d] ? pb[d] + x->dims[d] : dims[d];
      cd[d] = hi > lo[d] ? hi - lo[d] : 0;
    }
    Seg *s = seg_add(p, 0, 0, r, cd);
    s->box = true;
    for (int d = 0; d < r; d++) {
      s->os[d] = ost[d];
      s->is[d] = ist[d];
      s->obase += lo[d] * ost[d];
      s->ibase += (lo[d] - pb[d]) * ist[d];
      s->olo[d] = lo[d];
    }
  } else {
    p->fill = FILL_NONE;
    Seg *s = seg_add(p, 0, 0, r, dims);
    for (int d = 0; d < r; d++) {
      s->is[d] = ist[d];
      if (!pb[d] && !pe[d]) continue;
      s->tbl[d] = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(dims[d] + 1));
      /* negative pads crop first; the mode then pads the cropped axis */
      int64_t cb = pb[d] < 0 ? -pb[d] : 0, ce = pe[d] < 0 ? -pe[d] : 0, len = x->dims[d] - cb - ce;
      if (len <= 0) fail_node(ctx, n, "pads crop axis %d away entirely", d);
      for (int64_t o = 0; o < dims[d]; o++)
        s->tbl[d][o] = (pad_map(mode, o - (pb[d] > 0 ? pb[d] : 0), len) + cb) * ist[d];
    }
  }
  plan_finish(p);
}

static void ccp_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  need_storable(ctx, n, x);
  int r = x->rank, cnt, axes[MAXR];
  int64_t *shp = const_ints(ctx, n, 1, "shape", &cnt);
  const int64_t *aa;
  int na = attr_ints(n, "axes", &aa);
  if (!node_attr(n, "axes")) { na = r; for (int d = 0; d < r; d++) axes[d] = d; }
  else {
    if (na > r) fail_node(ctx, n, "too many axes");
    for (int i = 0; i < na; i++) axes[i] = norm_axis(ctx, n, aa[i], r);
  }
  if (cnt != na) fail_node(ctx, n, "shape has %d entries for %d axes", cnt, na);
  int64_t dims[MAXR], cd[MAXR], cs[MAXR] = {0}, ps[MAXR] = {0};
  memcpy(dims, x->dims, sizeof dims);
  memcpy(cd, x->dims, sizeof cd);
  for (int i = 0; i < na; i++) {
    int a = axes[i];
    int64_t dim = x->dims[a], sh = shp[i];
    if (sh < 0) fail_node(ctx, n, "negative target size");
    dims[a] = sh;
    if (sh < dim) { cs[a] = (dim - sh) / 2; cd[a] = sh; }
    else if (sh > dim) { ps[a] = (sh - dim) / 2; cd[a] = dim; }
  }
  set_out(ctx, n, 0, x->dtype, r, dims);
  Plan *p = plan_new(ctx, n, 1);
  p->fill = FILL_ZERO;
  int64_t ist[MAXR], ost[MAXR];
  row_major(r, x->dims, ist);
  row_major(r, dims, ost);
  Seg *s = seg_add(p, 0, 0, r, cd);
  for (int d = 0; d < r; d++) {
    s->os[d] = ost[d];
    s->is[d] = ist[d];
    s->obase += ps[d] * ost[d];
    s->ibase += cs[d] * ist[d];
  }
  plan_finish(p);
}

/* ---- Gather, GatherElements, GatherND ------------------------------------------------------- */

typedef struct GatherInfo { int64_t outer, len, inner, cnt; } GatherInfo;

static void gather_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0), *ind = need_in(ctx, n, 1);
  need_storable(ctx, n, x);
  need_index_type(ctx, n, 1);
  if (x->rank < 1) fail_node(ctx, n, "data must have rank >= 1");
  int axis = norm_axis(ctx, n, attr_i(n, "axis", 0), x->rank);
  int r = x->rank - 1 + ind->rank;
  if (r > MAXR) fail_node(ctx, n, "output rank %d exceeds %d", r, MAXR);
  int64_t dims[MAXR];
  int k = 0;
  for (int d = 0; d < axis; d++) dims[k++] = x->dims[d];
  for (int d = 0; d < ind->rank; d++) dims[k++] = ind->dims[d];
  for (int d = axis + 1; d < x->rank; d++) dims[k++] = x->dims[d];
  set_out(ctx, n, 0, x->dtype, r, dims);
  GatherInfo *g = arena_alloc(&ctx->arena, sizeof *g);
  g->outer = prod(x->dims, 0, axis);
  g->len = x->dims[axis];
  g->inner = prod(x->dims, axis + 1, x->rank);
  g->cnt = value_numel(ind);
  n->priv = g;
}

static void gather_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  const GatherInfo *g = n->priv;
  Value *x = n->inputs[0], *ind = n->inputs[1], *y = n->outputs[0];
  size_t es = dtype_size(y->dtype), blk = (size_t)g->inner * es;
  for (int64_t o = 0; o < g->outer; o++)
    for (int64_t j = 0; j < g->cnt; j++) {
      int64_t idx = const_get_i(ind, j);
      char *dst = (char *)y->data + (size_t)((o * g->cnt + j) * g->inner) * es;
      if (idx < 0) idx += g->len;
      if (idx < 0 || idx >= g->len) memset(dst, 0, blk);
      else memcpy(dst, (char *)x->data + (size_t)((o * g->len + idx) * g->inner) * es, blk);
    }
}

/* `long long c = <expr>; if (c < 0) c += len;` and the out-of-range test. */
static void emit_index(Emit *e, const char *var, const char *expr, int64_t len) {
  ep(e, "long long %s = (long long)%s;", var, expr);
  ep(e, "if (%s < 0) %s += %lld;", var, var, (long long)len);
}

static void gather_emit(Emit *e, Node *n) {
  const GatherInfo *g = n->priv;
  Value *y = n->outputs[0];
  const char *T = c_type(y->dtype), *it = ity(n);
  if (!value_numel(y)) return;
  const char *vars[2] = {"o", "j"};
  const int64_t cnt[2] = {g->outer, g->cnt};
  emit_par_nest(e, it, 2, vars, cnt);
  emit_index(e, "c", "X1[j]", g->len);
  const char *dst = fmt(e, "(o * %lld + j) * %lld", (long long)g->cnt, (long long)g->inner);
  const char *src = fmt(e, "(o * %lld + c) * %lld", (long long)g->len, (long long)g->inner);
  if (g->inner == 1) {
    ep(e, "Y0[o * %lld + j] = (c >= 0 && c < %lld) ? X0[o * %lld + c] : (%s)0;", (long long)g->cnt,
       (long long)g->len, (long long)g->len, T);
  } else {
    ep(e, "if (c < 0 || c >= %lld) memset(Y0 + %s, 0, %lld * sizeof(%s));", (long long)g->len, dst, (long long)g->inner, T);
    ep(e, "else memcpy(Y0 + %s, X0 + %s, %lld * sizeof(%s));", dst, src, (long long)g->inner, T);
  }
  emit_par_end(e, 2);
}

static void gather_el_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0), *ind = need_in(ctx, n, 1);
  need_storable(ctx, n, x);
  need_index_type(ctx, n, 1);
  if (ind->rank != x->rank || x->rank < 1) fail_node(ctx, n, "data and indices must have the same rank >= 1");
  int axis = norm_axis(ctx, n, attr_i(n, "axis", 0), x->rank);
  for (int d = 0; d < x->rank; d++)
    if (d != axis && ind->dims[d] > x->dims[d]) fail_node(ctx, n, "indices dimension %d exceeds data", d);
  set_out(ctx, n, 0, x->dtype, ind->rank, ind->dims);
}

/* Loop nest over the index tensor (dims of input 1) with the flat index u and a data offset
   expression that skips `axis`; used by GatherElements and Scatter(Elements). */
static const char *emit_elem_loops(Emit *e, Node *n, const Value *ind, const Value *data, int axis) {
  int r = ind->rank;
  int64_t dst[MAXR];
  row_major(data->rank, data->dims, dst);
  char decl[256], off[512];
  size_t dl = 0, ol = 0;
  off[0] = 0;
  for (int d = 0; d < r; d++) {
    dl += (size_t)snprintf(decl + dl, sizeof decl - dl, ", c%d", d);
    if (d != axis) ol += (size_t)snprintf(off + ol, sizeof off - ol, "%sc%d * %lld", ol ? " + " : "", d, (long long)dst[d]);
  }
  ep(e, "%s u = 0%s;", ity(n), decl);
  for (int d = 0; d < r; d++) ep(e, "for (c%d = 0; c%d < %lld; c%d++) {", d, d, (long long)ind->dims[d], d);
  return fmt(e, "%s", ol ? off : "0");
}

static void gather_el_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0], *ind = n->inputs[1], *y = n->outputs[0];
  int axis = norm_axis(e->ctx, n, attr_i(n, "axis", 0), x->rank);
  int64_t st[MAXR], len = x->dims[axis];
  if (!value_numel(y)) return;
  row_major(x->rank, x->dims, st);
  const char *off = emit_elem_loops(e, n, ind, x, axis);
  emit_index(e, "c", "X1[u]", len);
  ep(e, "Y0[u] = (c >= 0 && c < %lld) ? X0[%s + c * %lld] : (%s)0;", (long long)len, off, (long long)st[axis], c_type(y->dtype));
  ep(e, "u++;");
  for (int d = 0; d < ind->rank; d++) ep(e, "}");
}

static void gathernd_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0), *ind = need_in(ctx, n, 1);
  need_storable(ctx, n, x);
  need_index_type(ctx, n, 1);
  int b = (int)attr_i(n, "batch_dims", 0), q = ind->rank, r = x->rank;
  if (q < 1 || r < 1) fail_node(ctx, n, "data and indices must have rank >= 1");
  if (b < 0 || b >= q || b >= r) fail_node(ctx, n, "invalid batch_dims %d", b);
  int64_t k = ind->dims[q - 1];
  if (k < 1 || k > r - b) fail_node(ctx, n, "indices last dimension %lld is out of range", (long long)k);
  for (int d = 0; d < b; d++)
    if (ind->dims[d] != x->dims[d]) fail_node(ctx, n, "batch dimensions differ");
  int64_t dims[MAXR];
  int orank = 0;
  for (int d = 0; d < q - 1; d++) dims[orank++] = ind->dims[d];
  for (int d = b + (int)k; d < r; d++) {
    if (orank >= MAXR) fail_node(ctx, n, "output rank exceeds %d", MAXR);
    dims[orank++] = x->dims[d];
  }
  set_out(ctx, n, 0, x->dtype, orank, dims);
}

static void gathernd_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0], *ind = n->inputs[1], *y = n->outputs[0];
  int b = (int)attr_i(n, "batch_dims", 0), q = ind->rank, r = x->rank;
  int k = (int)ind->dims[q - 1];
  int64_t st[MAXR];
  row_major(r, x->dims, st);
  int64_t B = prod(ind->dims, 0, b), M = prod(ind->dims, b, q - 1), S = prod(x->dims, b + k, r);
  int64_t bst = b ? st[b - 1] : 0;
  const char *T = c_type(y->dtype);
  if (!value_numel(y)) return;
  ep(e, "%s bb, m;", ity(n));
  ep(e, "for (bb = 0; bb < %lld; bb++) {", (long long)B);
  ep(e, "for (m = 0; m < %lld; m++) {", (long long)M);
  ep(e, "const %s *ix = X1 + (bb * %lld + m) * %d;", c_type(ind->dtype), (long long)M, k);
  ep(e, "%s *dst = Y0 + (bb * %lld + m) * %lld;", T, (long long)M, (long long)S);
  ep(e, "long long off = bb * %s, c;", ll(e, bst));
  for (int i = 0; i < k; i++) {
    int64_t len = x->dims[b + i];
    ep(e, "c = (long long)ix[%d];", i);
    ep(e, "if (c < 0) c += %lld;", (long long)len);
    ep(e, "if (c < 0 || c >= %lld) { memset(dst, 0, %lld * sizeof(%s)); continue; }", (long long)len, (long long)S, T);
    ep(e, "off += c * %s;", ll(e, st[b + i]));
  }
  if (S == 1) ep(e, "dst[0] = X0[off];");
  else ep(e, "memcpy(dst, X0 + off, %lld * sizeof(%s));", (long long)S, T);
  ep(e, "}");
  ep(e, "}");
}

/* ---- ScatterND, ScatterElements, Scatter, TensorScatter -------------------------------------- */

enum { RED_NONE, RED_ADD, RED_MUL, RED_MAX, RED_MIN };

static int reduction_of(Ctx *ctx, Node *n) {
  const char *s = attr_s(n, "reduction", "none");
  if (!strcmp(s, "none")) return RED_NONE;
  if (!strcmp(s, "add") && n->opset >= 16) return RED_ADD;
  if (!strcmp(s, "mul") && n->opset >= 16) return RED_MUL;
  if (!strcmp(s, "max") && n->opset >= 18) return RED_MAX;
  if (!strcmp(s, "min") && n->opset >= 18) return RED_MIN;
  fail_node(ctx, n, "unsupported reduction '%s' at opset %d", s, n->opset);
}

/* Statement applying update `u` (storage expression) to Y0[o]. */
static void emit_reduce(Emit *e, int red, int dt, const char *o, const char *u) {
  if (red == RED_NONE) { ep(e, "Y0[%s] = %s;", o, u); return; }
  const char *a = c_load(e, dt, fmt(e, "Y0[%s]", o)), *b = c_load(e, dt, u), *v;
  switch (red) {
  case RED_ADD: v = fmt(e, "%s + %s", a, b); break;
  case RED_MUL: v = fmt(e, "%s * %s", a, b); break;
  case RED_MAX: v = fmt(e, "%s > %s ? %s : %s", b, a, b, a); break;
  default: v = fmt(e, "%s < %s ? %s : %s", b, a, b, a); break;
  }
  ep(e, "Y0[%s] = %s;", o, c_store(e, dt, v));
}

static void scatternd_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0), *ind = need_in(ctx, n, 1), *up = need_in(ctx, n, 2);
  need_storable(ctx, n, x);
  need_index_type(ctx, n, 1);
  reduction_of(ctx, n);
  int q = ind->rank, r = x->rank;
  if (q < 1) fail_node(ctx, n, "indices must have rank >= 1");
  int64_t k = ind->dims[q - 1];
  if (k < 1 || k > r) fail_node(ctx, n, "indices last dimension out of range");
  if (up->dtype != x->dtype) fail_node(ctx, n, "updates have a different element type");
  bool ok = up->rank == q - 1 + r - (int)k;
  for (int d = 0; ok && d < q - 1; d++) ok = up->dims[d] == ind->dims[d];
  for (int d = (int)k; ok && d < r; d++) ok = up->dims[q - 1 + d - k] == x->dims[d];
  if (!ok) fail_node(ctx, n, "updates shape %s does not match", shape_str(&ctx->arena, up));
  set_out(ctx, n, 0, x->dtype, r, x->dims);
}

static void scatternd_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0], *ind = n->inputs[1], *y = n->outputs[0];
  int red = reduction_of(e->ctx, n), q = ind->rank, r = x->rank, k = (int)ind->dims[q - 1];
  int64_t st[MAXR], U = prod(ind->dims, 0, q - 1), S = prod(x->dims, k, r);
  row_major(r, x->dims, st);
  if (value_bytes(y)) ep(e, "memcpy(Y0, X0, %lld);", (long long)value_bytes(y));
  if (!U || !S || !value_numel(y)) return;
  ep(e, "%s u, t;", ity(n));
  ep(e, "for (u = 0; u < %lld; u++) {", (long long)U);
  ep(e, "const %s *ix = X1 + u * %d;", c_type(ind->dtype), k);
  ep(e, "long long off = 0, c;");
  for (int i = 0; i < k; i++) {
    ep(e, "c = (long long)ix[%d];", i);
    ep(e, "if (c < 0) c += %lld;", (long long)x->dims[i]);
    ep(e, "if (c < 0 || c >= %lld) continue;", (long long)x->dims[i]);
    ep(e, "off += c * %s;", ll(e, st[i]));
  }
  ep(e, "for (t = 0; t < %lld; t++) {", (long long)S);
  emit_reduce(e, red, y->dtype, "off + t", fmt(e, "X2[u * %lld + t]", (long long)S));
  ep(e, "}");
  ep(e, "}");
}

static void scatter_el_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0), *ind = need_in(ctx, n, 1), *up = need_in(ctx, n, 2);
  need_storable(ctx, n, x);
  need_index_type(ctx, n, 1);
  reduction_of(ctx, n);
  if (ind->rank != x->rank || x->rank < 1) fail_node(ctx, n, "data and indices must have the same rank >= 1");
  if (!same_shape(ind, up) || up->dtype != x->dtype) fail_node(ctx, n, "updates must match indices in shape and data in type");
  int axis = norm_axis(ctx, n, attr_i(n, "axis", 0), x->rank);
  for (int d = 0; d < x->rank; d++)
    if (d != axis && ind->dims[d] > x->dims[d]) fail_node(ctx, n, "indices dimension %d exceeds data", d);
  set_out(ctx, n, 0, x->dtype, x->rank, x->dims);
}

static void scatter_el_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0], *ind = n->inputs[1], *y = n->outputs[0];
  int axis = norm_axis(e->ctx, n, attr_i(n, "axis", 0), x->rank), red = reduction_of(e->ctx, n);
  int64_t st[MAXR], len = x->dims[axis];
  row_major(x->rank, x->dims, st);
  if (value_bytes(y)) ep(e, "memcpy(Y0, X0, %lld);", (long long)value_bytes(y));
  if (!value_numel(ind)) return;
  ep(e, "{");
  const char *off = emit_elem_loops(e, n, ind, x, axis);
  emit_index(e, "c", "X1[u]", len);
  ep(e, "if (c >= 0 && c < %lld) {", (long long)len);
  emit_reduce(e, red, y->dtype, fmt(e, "%s + c * %lld", off, (long long)st[axis]), "X2[u]");
  ep(e, "}");
  ep(e, "u++;");
  for (int d = 0; d < ind->rank; d++) ep(e, "}");
  ep(e, "}");
}

static void tscatter_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0), *up = need_in(ctx, n, 1), *wi = node_in(n, 2);
  need_storable(ctx, n, x);
  const char *mode = attr_s(n, "mode", "linear");
  if (strcmp(mode, "linear") && strcmp(mode, "circular")) fail_node(ctx, n, "unknown mode '%s'", mode);
  if (x->rank < 2) fail_node(ctx, n, "past_cache must have rank >= 2");
  int axis = norm_axis(ctx, n, attr_i(n, "axis", -2), x->rank);
  if (axis == 0) fail_node(ctx, n, "axis must not be the batch axis");
  if (up->rank != x->rank || up->dtype != x->dtype) fail_node(ctx, n, "update must match past_cache in rank and type");
  for (int d = 0; d < x->rank; d++)
    if (d == axis ? up->dims[d] > x->dims[d] : up->dims[d] != x->dims[d]) fail_node(ctx, n, "update shape does not fit");
  if (wi) {
    need_index_type(ctx, n, 2);
    if (value_numel(wi) != x->dims[0]) fail_node(ctx, n, "write_indices must have one entry per batch");
  }
  set_out(ctx, n, 0, x->dtype, x->rank, x->dims);
}

static void tscatter_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0], *up = n->inputs[1], *y = n->outputs[0];
  int axis = norm_axis(e->ctx, n, attr_i(n, "axis", -2), x->rank);
  bool circ = !strcmp(attr_s(n, "mode", "linear"), "circular");
  int64_t B = x->dims[0], P = prod(x->dims, 1, axis), L = x->dims[axis], S = up->dims[axis];
  int64_t I = prod(x->dims, axis + 1, x->rank);
  const char *T = c_type(y->dtype);
  if (value_bytes(y)) ep(e, "memcpy(Y0, X0, %lld);", (long long)value_bytes(y));
  if (!value_numel(up)) return;
  ep(e, "%s b, p, s;", ity(n));
  ep(e, "for (b = 0; b < %lld; b++) {", (long long)B);
  ep(e, "const long long w = %s;", node_in(n, 2) ? "(long long)X2[b]" : "0");
  ep(e, "for (p = 0; p < %lld; p++) {", (long long)P);
  ep(e, "for (s = 0; s < %lld; s++) {", (long long)S);
  ep(e, "long long c = w + s;");
  if (circ) ep(e, "c = ((c %% %lld) + %lld) %% %lld;", (long long)L, (long long)L, (long long)L);
  else ep(e, "if (c < 0 || c >= %lld) continue;", (long long)L);
  ep(e, "memcpy(Y0 + ((b * %lld + p) * %lld + c) * %lld, X1 + ((b * %lld + p) * %lld + s) * %lld, %lld * sizeof(%s));",
     (long long)P, (long long)L, (long long)I, (long long)P, (long long)S, (long long)I, (long long)I, T);
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ---- Trilu, OneHot ------------------------------------------------------------------------- */

static void trilu_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0), *k = node_in(n, 1);
  need_storable(ctx, n, x);
  if (x->rank < 2) fail_node(ctx, n, "input must have rank >= 2");
  if (k && (value_numel(k) != 1 || k->dtype != DT_INT64)) fail_node(ctx, n, "k must be an int64 scalar");
  set_out(ctx, n, 0, x->dtype, x->rank, x->dims);
}

static void trilu_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0], *kv = node_in(n, 1);
  int r = x->rank;
  int64_t R = x->dims[r - 2], C = x->dims[r - 1], B = prod(x->dims, 0, r - 2);
  bool upper = attr_i(n, "upper", 1) != 0;
  if (!value_numel(x)) return;
  const char *k = kv ? (kv->data ? ll(e, const_get_i(kv, 0)) : "X1[0]") : "0";
  ep(e, "const long long k = %s;", k);
  ep(e, "%s b, i, j;", ity(n));
  ep(e, "for (b = 0; b < %lld; b++) {", (long long)B);
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)R);
  ep(e, "const %s o = (b * %lld + i) * %lld;", ity(n), (long long)R, (long long)C);
  ep(e, "for (j = 0; j < %lld; j++) Y0[o + j] = ((long long)j - i %s k) ? X0[o + j] : (%s)0;", (long long)C,
     upper ? ">=" : "<=", c_type(x->dtype));
  ep(e, "}");
  ep(e, "}");
}

static void onehot_infer(Ctx *ctx, Node *n) {
  Value *ind = need_in(ctx, n, 0), *val = need_in(ctx, n, 2);
  need_storable(ctx, n, val);
  if (!dtype_is_int(ind->dtype) && !dtype_is_float(ind->dtype)) fail_node(ctx, n, "indices must be numeric");
  Value *dv = const_in(ctx, n, 1, "depth");
  if (value_numel(dv) != 1 || dv->dtype == DT_STRING) fail_node(ctx, n, "depth must be a numeric scalar");
  int64_t depth = const_get_i(dv, 0);
  if (depth < 0) fail_node(ctx, n, "depth must be non-negative");
  if (value_numel(val) != 2) fail_node(ctx, n, "values must hold two elements");
  int r = ind->rank + 1;
  if (r > MAXR) fail_node(ctx, n, "output rank exceeds %d", MAXR);
  int axis = norm_axis(ctx, n, attr_i(n, "axis", -1), r);
  int64_t dims[MAXR];
  for (int d = 0, k = 0; d < r; d++) dims[d] = d == axis ? depth : ind->dims[k++];
  set_out(ctx, n, 0, val->dtype, r, dims);
}

static void onehot_emit(Emit *e, Node *n) {
  Value *ind = n->inputs[0], *y = n->outputs[0];
  int axis = norm_axis(e->ctx, n, attr_i(n, "axis", -1), ind->rank + 1);
  int64_t depth = y->dims[axis], outer = prod(ind->dims, 0, axis), inner = prod(ind->dims, axis, ind->rank);
  if (!value_numel(y)) return;
  ep(e, "%s i, o, j;", ity(n));
  ep(e, "for (i = 0; i < %lld; i++) Y0[i] = X2[0];", (long long)value_numel(y));
  ep(e, "for (o = 0; o < %lld; o++) {", (long long)outer);
  ep(e, "for (j = 0; j < %lld; j++) {", (long long)inner);
  const char *v = fmt(e, "X0[o * %lld + j]", (long long)inner);
  if (dtype_is_float(ind->dtype)) v = fmt(e, "onnxc_f2i_s((double)%s)", c_load(e, ind->dtype, v));
  emit_index(e, "c", v, depth);
  ep(e, "if (c >= 0 && c < %lld) Y0[(o * %lld + c) * %lld + j] = X2[1];", (long long)depth, (long long)depth, (long long)inner);
  ep(e, "}");
  ep(e, "}");
}

/* ---- CumSum, CumProd, ReverseSequence ------------------------------------------------------ */

static void cum_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0);
  if (!dtype_is_int(x->dtype) && !dtype_is_float(x->dtype)) fail_node(ctx, n, "element type %s is not supported", dtype_name(x->dtype));
  if (x->rank < 1) fail_node(ctx, n, "input must have rank >= 1");
  norm_axis(ctx, n, const_scalar_i(ctx, n, 1, "axis"), x->rank);
  set_out(ctx, n, 0, x->dtype, x->rank, x->dims);
}

static void cum_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0];
  int dt = x->dtype, axis = norm_axis(e->ctx, n, const_scalar_i(e->ctx, n, 1, "axis"), x->rank);
  bool prodop = !strcmp(n->op_type, "CumProd"), excl = attr_i(n, "exclusive", 0), rev = attr_i(n, "reverse", 0);
  int64_t O = prod(x->dims, 0, axis), N = x->dims[axis], I = prod(x->dims, axis + 1, x->rank);
  const char *T = c_type(dt), *it = ity(n);
  if (!value_numel(x)) return;
  ep(e, "%s o, i, j;", it);
  ep(e, "for (o = 0; o < %lld; o++) {", (long long)O);
  if (rev) ep(e, "for (i = %lld; i >= 0; i--) {", (long long)(N - 1));
  else ep(e, "for (i = 0; i < %lld; i++) {", (long long)N);
  ep(e, "const %s *x = X0 + (o * %lld + i) * %lld;", T, (long long)N, (long long)I);
  ep(e, "%s *y = Y0 + (o * %lld + i) * %lld;", T, (long long)N, (long long)I);
  ep(e, "if (i == %lld) {", rev ? (long long)(N - 1) : 0LL);
  if (excl) ep(e, "for (j = 0; j < %lld; j++) y[j] = %s;", (long long)I, c_store(e, dt, c_lit(e, ctype_dt(dt), prodop ? 1 : 0)));
  else ep(e, "for (j = 0; j < %lld; j++) y[j] = x[j];", (long long)I);
  ep(e, "} else {");
  ep(e, "const %s *yp = y %s %lld;", T, rev ? "+" : "-", (long long)I);
  const char *xs = excl ? fmt(e, "x[j %s %lld]", rev ? "+" : "-", (long long)I) : "x[j]";
  ep(e, "for (j = 0; j < %lld; j++) y[j] = %s;", (long long)I,
     c_store(e, dt, fmt(e, "%s %s %s", c_load(e, dt, "yp[j]"), prodop ? "*" : "+", c_load(e, dt, xs))));
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

static void revseq_infer(Ctx *ctx, Node *n) {
  Value *x = need_in(ctx, n, 0), *sl = need_in(ctx, n, 1);
  need_storable(ctx, n, x);
  int64_t ba = attr_i(n, "batch_axis", 1), ta = attr_i(n, "time_axis", 0);
  if (x->rank < 2) fail_node(ctx, n, "input must have rank >= 2");
  if (!((ba == 0 && ta == 1) || (ba == 1 && ta == 0))) fail_node(ctx, n, "batch_axis/time_axis must be 0 and 1");
  if (!dtype_is_int(sl->dtype) || value_numel(sl) != x->dims[ba]) fail_node(ctx, n, "sequence_lens must hold one integer per batch");
  set_out(ctx, n, 0, x->dtype, x->rank, x->dims);
}

static void revseq_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0];
  int ba = (int)attr_i(n, "batch_axis", 1), ta = 1 - ba;
  int64_t I = prod(x->dims, 2, x->rank), B = x->dims[ba], T = x->dims[ta];
  int64_t sb = ba == 0 ? x->dims[1] * I : I, stt = ta == 0 ? x->dims[1] * I : I;
  if (!value_numel(x)) return;
  ep(e, "%s b, t;", ity(n));
  ep(e, "for (b = 0; b < %lld; b++) {", (long long)B);
  ep(e, "long long len = (long long)X1[b];");
  ep(e, "if (len < 0) len = 0;");
  ep(e, "if (len > %lld) len = %lld;", (long long)T, (long long)T);
  ep(e, "for (t = 0; t < %lld; t++) {", (long long)T);
  ep(e, "const long long s = t < len ? len - 1 - t : t;");
  if (I == 1) ep(e, "Y0[b * %lld + t * %lld] = X0[b * %lld + s * %lld];", (long long)sb, (long long)stt, (long long)sb, (long long)stt);
  else
    ep(e, "memcpy(Y0 + b * %lld + t * %lld, X0 + b * %lld + s * %lld, %lld * sizeof(%s));", (long long)sb,
       (long long)stt, (long long)sb, (long long)stt, (long long)I, c_type(x->dtype));
  ep(e, "}");
  ep(e, "}");
}

/* ---- rows ------------------------------------------------------------------------------------ */

#define M ONNXC_MAX_OPSET
#define ALL "all but string"
#define ALLS "all"  /* the rows that move whole string elements (OPF_STRINGS) */

static const OpDef tensor_rows[] = {
    {"Constant", "", 1, M, OPF_STRINGS, constant_infer, NULL, NULL, NULL, ALLS, NULL},
    {"Shape", "", 1, 14, OPF_STRINGS, shape_infer, NULL, NULL, NULL, "any", NULL},
    {"Shape", "", 15, M, OPF_STRINGS, shape_infer, NULL, NULL, NULL, "any", NULL},
    {"Size", "", 1, M, OPF_STRINGS, size_infer, NULL, NULL, NULL, "any", NULL},
    {"ConstantOfShape", "", 9, M, 0, cos_infer, cos_fold, cos_emit, NULL, ALL, NULL},
    {"Range", "", 11, M, 0, range_infer, range_fold, range_emit, NULL, "float, double, float16, bfloat16, int16-64", NULL},
    {"EyeLike", "", 9, M, 0, eyelike_infer, NULL, eyelike_emit, NULL, ALL, NULL},
    {"Reshape", "", 1, 4, OPF_VIEW | OPF_STRINGS, reshape_infer, copy_fold, copy_emit, NULL, ALLS, NULL},
    {"Reshape", "", 5, M, OPF_VIEW | OPF_STRINGS, reshape_infer, copy_fold, copy_emit, NULL, ALLS, NULL},
    {"Flatten", "", 1, M, OPF_VIEW | OPF_STRINGS, flatten_infer, copy_fold, copy_emit, NULL, ALLS, NULL},
    {"Squeeze", "", 1, 12, OPF_VIEW | OPF_STRINGS, squeeze_infer, copy_fold, copy_emit, NULL, ALLS, NULL},
    {"Squeeze", "", 13, M, OPF_VIEW | OPF_STRINGS, squeeze_infer, copy_fold, copy_emit, NULL, ALLS, NULL},
    {"Unsqueeze", "", 1, 12, OPF_VIEW | OPF_STRINGS, unsqueeze_infer, copy_fold, copy_emit, NULL, ALLS, NULL},
    {"Unsqueeze", "", 13, M, OPF_VIEW | OPF_STRINGS, unsqueeze_infer, copy_fold, copy_emit, NULL, ALLS, NULL},
    {"BitCast", "", 26, M, 0, bitcast_infer, copy_fold, copy_emit, NULL, ALL, NULL},
    {"Concat", "", 1, M, OPF_PARALLEL, concat_infer, plan_fold, plan_emit, NULL, ALL, NULL},
    {"Split", "", 1, 12, 0, split_infer, plan_fold, plan_emit, NULL, ALL, NULL},
    {"Split", "", 13, M, OPF_PARALLEL, split_infer, plan_fold, plan_emit, NULL, ALL, NULL},
    {"Slice", "", 1, 9, 0, slice_infer, plan_fold, plan_emit, NULL, ALL, NULL},
    {"Slice", "", 10, M, OPF_PARALLEL, slice_infer, plan_fold, plan_emit, NULL, ALL, NULL},
    {"Expand", "", 8, M, OPF_PARALLEL, expand_infer, plan_fold, plan_emit, NULL, ALL, NULL},
    {"Tile", "", 6, M, OPF_PARALLEL, tile_infer, plan_fold, plan_emit, NULL, ALL, NULL},
    {"Transpose", "", 1, M, OPF_PARALLEL, transpose_infer, plan_fold, plan_emit, NULL, ALL, NULL},
    {"DepthToSpace", "", 1, M, OPF_PARALLEL, d2s_infer, plan_fold, plan_emit, NULL, ALL, NULL},
    {"SpaceToDepth", "", 1, M, OPF_PARALLEL, d2s_infer, plan_fold, plan_emit, NULL, ALL, NULL},
    {"Pad", "", 1, 1, OPF_PARALLEL, pad_infer, plan_fold, plan_emit, NULL, ALL, NULL},
    {"Pad", "", 2, 10, OPF_PARALLEL, pad_infer, plan_fold, plan_emit, NULL, ALL, NULL},
    {"Pad", "", 11, M, OPF_PARALLEL, pad_infer, plan_fold, plan_emit, NULL, ALL, NULL},
    {"CenterCropPad", "", 18, M, OPF_PARALLEL, ccp_infer, plan_fold, plan_emit, NULL, ALL, NULL},
    {"Gather", "", 1, M, OPF_PARALLEL, gather_infer, gather_fold, gather_emit, NULL, ALL, NULL},
    {"GatherElements", "", 11, M, 0, gather_el_infer, NULL, gather_el_emit, NULL, ALL, NULL},
    {"GatherND", "", 11, M, 0, gathernd_infer, NULL, gathernd_emit, NULL, ALL, NULL},
    {"ScatterND", "", 11, 15, 0, scatternd_infer, NULL, scatternd_emit, NULL, ALL, NULL},
    {"ScatterND", "", 16, 17, 0, scatternd_infer, NULL, scatternd_emit, NULL, ALL, NULL},
    {"ScatterND", "", 18, M, 0, scatternd_infer, NULL, scatternd_emit, NULL, ALL, NULL},
    {"Scatter", "", 9, 10, 0, scatter_el_infer, NULL, scatter_el_emit, NULL, ALL, NULL},
    {"ScatterElements", "", 11, 15, 0, scatter_el_infer, NULL, scatter_el_emit, NULL, ALL, NULL},
    {"ScatterElements", "", 16, 17, 0, scatter_el_infer, NULL, scatter_el_emit, NULL, ALL, NULL},
    {"ScatterElements", "", 18, M, 0, scatter_el_infer, NULL, scatter_el_emit, NULL, ALL, NULL},
    {"TensorScatter", "", 24, M, 0, tscatter_infer, NULL, tscatter_emit, NULL, ALL, NULL},
    {"Trilu", "", 14, M, 0, trilu_infer, NULL, trilu_emit, NULL, ALL, NULL},
    {"OneHot", "", 9, M, 0, onehot_infer, NULL, onehot_emit, NULL, ALL, NULL},
    {"CumSum", "", 11, M, 0, cum_infer, NULL, cum_emit, NULL, "float, double, float16, bfloat16, int8-64, uint8-64", NULL},
    {"CumProd", "", 26, M, 0, cum_infer, NULL, cum_emit, NULL, "float, double, float16, bfloat16, int8-64, uint8-64", NULL},
    {"ReverseSequence", "", 10, M, 0, revseq_infer, NULL, revseq_emit, NULL, ALL, NULL},
};
OPS_FAMILY(tensor);
