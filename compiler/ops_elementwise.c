/*
 * ops_elementwise.c - unary, binary and variadic elementwise operators.
 *
 * Most rows share one shape rule (numpy broadcasting), one emitter and one folder.  A row's
 * `arg` is an EwSpec holding a C expression template:
 *   $0 $1 $2      the operands, already loaded in the compute type (float for float16)
 *   name@(...)    a libm call: expf for float, exp for double
 *   {attr:dflt}   a float attribute of the node as a literal of the compute type
 * Integer and float types can use different templates.  The emitter wraps the template in the
 * broadcast loop nest from emit_c.c, so one row handles every shape and type.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

enum { T_FLOAT = 1, T_INT = 2, T_BOOL = 4, T_UINT_ONLY = 8, T_ALL = T_FLOAT | T_INT | T_BOOL,
       T_NUM = T_FLOAT | T_INT };
enum { OUT_SAME = 0, OUT_BOOL = 1 };

typedef struct EwSpec {
  int arity;          /* 1, 2, 3, or -1 variadic */
  int types;          /* accepted input element types */
  int out;            /* OUT_SAME or OUT_BOOL */
  const char *fexpr;  /* float template */
  const char *iexpr;  /* integer/bool template (NULL: use fexpr) */
} EwSpec;

/* ---- expression templates ---------------------------------------------------------------- */

static const char *expand(Emit *e, const Node *n, const char *tpl, int ct, const char **ops) {
  Buf b = {0};
  bool dbl = ct == DT_DOUBLE;
  for (const char *p = tpl; *p; p++) {
    if (*p == '$' && p[1] >= '0' && p[1] <= '9') {
      buf_puts(&b, ops[p[1] - '0']);
      p++;
    } else if (*p == '@') {
      if (!dbl) buf_puts(&b, "f");
    } else if (*p == '{') {
      const char *colon = strchr(p, ':'), *close = strchr(p, '}');
      CHECK(colon && close && colon < close);
      char name[64];
      snprintf(name, sizeof name, "%.*s", (int)(colon - p - 1), p + 1);
      double dflt = strtod(colon + 1, NULL);
      buf_puts(&b, c_lit(e, dbl ? DT_DOUBLE : DT_FLOAT, attr_f(n, name, (float)dflt)));
      p = close;
    } else {
      buf_put(&b, p, 1);
    }
  }
  const char *r = arena_strdup(&e->ctx->arena, b.p ? b.p : "");
  buf_free(&b);
  return r;
}

static bool type_ok(int types, int dt) {
  if (dtype_is_float(dt)) return types & T_FLOAT;
  if (dt == DT_BOOL) return types & T_BOOL;
  if (dtype_is_int(dt)) return (types & T_INT) || ((types & T_UINT_ONLY) && !dtype_is_signed(dt));
  return false;
}

/* ---- shape rules ------------------------------------------------------------------------ */

static void ew_infer(Ctx *ctx, Node *n) {
  const EwSpec *s = n->def->arg;
  if (!strcmp(n->op_type, "PRelu") && n->opset < 7 && n->n_inputs == 2 && n->inputs[0] && n->inputs[1] &&
      n->inputs[1]->rank == 1 && n->inputs[0]->rank > 2 && n->inputs[1]->dims[0] == n->inputs[0]->dims[1] &&
      n->inputs[1]->dims[0] != 1) {
    /* PRelu before opset 7: a [C] slope applies per channel (axis 1), not numpy-style; use a
       [C,1,...,1] view of the constant slope */
    Value *sl = n->inputs[1];
    if (!sl->data) fail_node(ctx, n, "a per-channel slope must be a compile-time constant");
    Value *v = graph_new_value(ctx, ctx->graph, arena_printf(&ctx->arena, "%s/channel_slope", n->name));
    int64_t dims[ONNXC_MAX_RANK];
    dims[0] = sl->dims[0];
    for (int d = 1; d < n->inputs[0]->rank - 1; d++) dims[d] = 1;
    value_set_shape(v, sl->dtype, n->inputs[0]->rank - 1, dims);
    v->data = sl->data;
    v->kind = VAL_CONST;
    n->inputs[1] = v;
  }
  if (!strcmp(n->op_type, "Pow") && n->opset >= 12 && n->n_inputs == 2 && n->inputs[0] && n->inputs[1] &&
      n->inputs[0]->dtype != n->inputs[1]->dtype) {
    /* Pow 12+: the exponent may have its own numeric type; the result has the base's */
    if (!type_ok(s->types, n->inputs[0]->dtype) || !type_ok(s->types, n->inputs[1]->dtype))
      fail_node(ctx, n, "element types %s and %s are not supported by this op", dtype_name(n->inputs[0]->dtype),
                dtype_name(n->inputs[1]->dtype));
    infer_broadcast(ctx, n);
    n->outputs[0]->dtype = n->inputs[0]->dtype;
    return;
  }
  if (s->arity > 0) require_inputs(ctx, n, s->arity, s->arity);
  else require_inputs(ctx, n, 1, 1 << 20);
  Value *x = n->inputs[0];
  for (int k = 0; k < n->n_inputs; k++) {
    Value *v = n->inputs[k];
    if (!v) fail_node(ctx, n, "input %d is missing", k);
    if (!type_ok(s->types, v->dtype))
      fail_node(ctx, n, "element type %s is not supported by this op", dtype_name(v->dtype));
    if (v->dtype != x->dtype)
      fail_node(ctx, n, "inputs have different element types (%s and %s)", dtype_name(x->dtype),
                dtype_name(v->dtype));
  }
  infer_broadcast(ctx, n);
  if (s->out == OUT_BOOL) n->outputs[0]->dtype = DT_BOOL;
}

/* ---- C emission ------------------------------------------------------------------------- */

typedef struct EwBody {
  const char *expr; /* in terms of X0[i0].. already substituted */
  int out_dt;
} EwBody;

static void ew_body(Emit *e, void *arg) {
  EwBody *b = arg;
  ep(e, "Y0[o] = %s;", c_store(e, b->out_dt, b->expr));
}

/* Operands are loads of each input in its storage type's compute type; an input of another
   type than input 0 (Pow's exponent) is converted to input 0's. */
static const char *ew_load(Emit *e, const Node *n, int k, const char *storage) {
  const char *v = c_load(e, n->inputs[k]->dtype, storage);
  if (n->inputs[k]->dtype != n->inputs[0]->dtype) v = fmt(e, "(%s)%s", c_ctype(n->inputs[0]->dtype), v);
  return v;
}

const char *ew_expr(Emit *e, Node *n, const char *const *ops) {
  const EwSpec *s = n->def->arg;
  Value *x = n->inputs[0];
  int ct = dtype_is_float(x->dtype) ? (x->dtype == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT) : x->dtype;
  int ni = n->n_inputs;
  const char *tpl = (!dtype_is_float(x->dtype) && s->iexpr) ? s->iexpr : s->fexpr;
  if (s->arity >= 0) return expand(e, n, tpl, ct, (const char **)ops);
  /* variadic: fold left with the binary template, then the row's finishing touch */
  const char *acc = ops[0];
  for (int k = 1; k < ni; k++) {
    const char *pair[2] = {acc, ops[k]};
    acc = fmt(e, "(%s)", expand(e, n, tpl, ct, pair));
  }
  if (strcmp(n->op_type, "Mean") == 0) acc = fmt(e, "(%s) / %s", acc, c_lit(e, ct, ni));
  return acc;
}

static void ew_emit(Emit *e, Node *n) {
  const EwSpec *s = n->def->arg;
  const char *ops[10];
  const Value *ins[8];
  int ni = n->n_inputs;
  if (s->arity < 0 && ni > 8) fail_node(e->ctx, n, "more than 8 inputs are not supported");
  for (int k = 0; k < ni; k++) {
    ops[k] = ew_load(e, n, k, fmt(e, "X%d[i%d]", k, k));
    ins[k] = n->inputs[k];
  }
  EwBody b = {ew_expr(e, n, ops), n->outputs[0]->dtype};
  emit_broadcast_loops(e, n->outputs[0], ins, ni, ew_body, &b);
}

bool ew_fusable(const Node *n) {
  if (!n || n->dead || !n->def || n->def->emit_c != ew_emit || !n->def->arg || n->n_outputs != 1 || !n->outputs[0])
    return false;
  if (n->def->flags & OPF_VIEW) return false; /* Identity: the planner makes it a view */
  for (int k = 0; k < n->n_inputs; k++)
    if (!n->inputs[k]) return false;
  return n->n_inputs <= 8 && !n->outputs[0]->dynamic;
}

/* ---- FusedElementwise: a tree of the rows above as one loop nest -------------------------- */
/* Not an ONNX op and not in the op table: fuse_elementwise() (optimize.c) builds it for the
   CUDA backend, where one kernel per tree saves a launch and a round trip through memory per
   member.  Each member computes into a local of its output's storage type, so the result is
   bit-identical to running the members one by one. */

typedef struct EwTree {
  Node **nodes;   /* members in topological order; the last is the root */
  int n;
} EwTree;

static void fused_body(Emit *e, void *arg) {
  Node *f = arg;
  const EwTree *t = f->priv;
  for (int j = 0; j < t->n; j++) {
    Node *m = t->nodes[j];
    const char *ops[8];
    for (int k = 0; k < m->n_inputs; k++) {
      Value *v = m->inputs[k];
      const char *src = NULL;
      for (int i = 0; i < j && !src; i++)
        if (t->nodes[i]->outputs[0] == v) src = fmt(e, "t%d", i);
      for (int x = 0; x < f->n_inputs && !src; x++)
        if (f->inputs[x] == v) src = fmt(e, "X%d[i%d]", x, x);
      CHECK(src);
      ops[k] = ew_load(e, m, k, src);
    }
    Value *y = m->outputs[0];
    if (j == t->n - 1) ep(e, "Y0[o] = %s;", c_store(e, y->dtype, ew_expr(e, m, ops)));
    else ep(e, "const %s t%d = %s;", c_type(y->dtype), j, c_store(e, y->dtype, ew_expr(e, m, ops)));
  }
}

static void fused_emit(Emit *e, Node *n) {
  const Value *ins[8];
  for (int k = 0; k < n->n_inputs; k++) ins[k] = n->inputs[k];
  emit_broadcast_loops(e, n->outputs[0], ins, n->n_inputs, fused_body, n);
}

static void fused_infer(Ctx *ctx, Node *n) {
  (void)ctx;
  const EwTree *t = n->priv;
  Value *y = t->nodes[t->n - 1]->outputs[0];
  value_set_shape(n->outputs[0], y->dtype, y->rank, y->dims);
}

static const OpDef fused_row = {"FusedElementwise", "onnxc", 1, ONNXC_MAX_OPSET,
                                OPF_ELEMENTWISE | OPF_INPLACE | OPF_PARALLEL, fused_infer, NULL, fused_emit, NULL,
                                "", NULL};

Node *ew_fuse_tree(Ctx *ctx, Graph *g, Node **chain, int n) {
  Node *root = chain[n - 1];
  Value *ext[8];
  int next = 0;
  for (int j = 0; j < n; j++)
    for (int k = 0; k < chain[j]->n_inputs; k++) {
      Value *v = chain[j]->inputs[k];
      bool inner = false, seen = false;
      for (int i = 0; i < n; i++)
        if (chain[i]->outputs[0] == v) inner = true;
      for (int i = 0; i < next; i++)
        if (ext[i] == v) seen = true;
      if (inner || seen) continue;
      if (next == 8) return NULL;
      ext[next++] = v;
    }
  EwTree *t = arena_alloc(&ctx->arena, sizeof *t);
  t->nodes = arena_alloc(&ctx->arena, sizeof(Node *) * (size_t)n);
  for (int j = 0; j < n; j++) t->nodes[j] = chain[j];
  t->n = n;
  Node *f = graph_new_node(ctx, g, "FusedElementwise", arena_printf(&ctx->arena, "%s_fused", root->name), next, 1);
  f->domain = "onnxc";
  f->opset = 1;
  f->def = &fused_row;
  f->priv = t;
  for (int k = 0; k < next; k++) f->inputs[k] = ext[k];
  f->n_explicit = next;
  f->outputs[0] = root->outputs[0];
  return f;
}

/* ---- constant folding (the ops shape computations use) -------------------------------------- */

static double fold_f(const char *op, double a, double b) {
  if (!strcmp(op, "Add") || !strcmp(op, "Sum")) return a + b;
  if (!strcmp(op, "Sub")) return a - b;
  if (!strcmp(op, "Mul")) return a * b;
  if (!strcmp(op, "Div")) return a / b;
  if (!strcmp(op, "Max")) return a > b ? a : b;
  if (!strcmp(op, "Min")) return a < b ? a : b;
  if (!strcmp(op, "Equal")) return a == b;
  if (!strcmp(op, "Less")) return a < b;
  if (!strcmp(op, "Greater")) return a > b;
  if (!strcmp(op, "LessOrEqual")) return a <= b;
  if (!strcmp(op, "GreaterOrEqual")) return a >= b;
  if (!strcmp(op, "And")) return (a != 0) && (b != 0);
  if (!strcmp(op, "Or")) return (a != 0) || (b != 0);
  if (!strcmp(op, "Neg")) return -a;
  if (!strcmp(op, "Abs")) return fabs(a);
  if (!strcmp(op, "Not")) return a == 0;
  if (!strcmp(op, "Sqrt")) return sqrt(a);
  if (!strcmp(op, "Floor")) return floor(a);
  if (!strcmp(op, "Ceil")) return ceil(a);
  if (!strcmp(op, "Identity")) return a;
  if (!strcmp(op, "Exp")) return exp(a);
  if (!strcmp(op, "Log")) return log(a);
  if (!strcmp(op, "Sin")) return sin(a);
  if (!strcmp(op, "Cos")) return cos(a);
  if (!strcmp(op, "Tan")) return tan(a);
  if (!strcmp(op, "Tanh")) return tanh(a);
  if (!strcmp(op, "Erf")) return erf(a);
  if (!strcmp(op, "Round")) return nearbyint(a);
  if (!strcmp(op, "Reciprocal")) return 1.0 / a;
  if (!strcmp(op, "Sigmoid")) return 1.0 / (1.0 + exp(-a));
  if (!strcmp(op, "Relu")) return a > 0 ? a : 0;
  if (!strcmp(op, "Sign")) return a > 0 ? 1 : (a < 0 ? -1 : 0);
  if (!strcmp(op, "Pow")) return pow(a, b);
  if (!strcmp(op, "Xor")) return (a != 0) != (b != 0);
  return NAN;
}

static int64_t fold_i(const char *op, int64_t a, int64_t b) {
  if (!strcmp(op, "Add") || !strcmp(op, "Sum")) return (int64_t)((uint64_t)a + (uint64_t)b);
  if (!strcmp(op, "Sub")) return (int64_t)((uint64_t)a - (uint64_t)b);
  if (!strcmp(op, "Mul")) return (int64_t)((uint64_t)a * (uint64_t)b);
  if (!strcmp(op, "Div")) return b ? (a == INT64_MIN && b == -1 ? a : a / b) : 0;
  if (!strcmp(op, "Max")) return a > b ? a : b;
  if (!strcmp(op, "Min")) return a < b ? a : b;
  if (!strcmp(op, "Equal")) return a == b;
  if (!strcmp(op, "Less")) return a < b;
  if (!strcmp(op, "Greater")) return a > b;
  if (!strcmp(op, "LessOrEqual")) return a <= b;
  if (!strcmp(op, "GreaterOrEqual")) return a >= b;
  if (!strcmp(op, "And")) return a && b;
  if (!strcmp(op, "Or")) return a || b;
  if (!strcmp(op, "Neg")) return -a;
  if (!strcmp(op, "Abs")) return a < 0 ? -a : a;
  if (!strcmp(op, "Not")) return !a;
  if (!strcmp(op, "Identity")) return a;
  if (!strcmp(op, "Relu")) return a > 0 ? a : 0;
  if (!strcmp(op, "Sign")) return a > 0 ? 1 : (a < 0 ? -1 : 0);
  if (!strcmp(op, "Xor")) return (a != 0) != (b != 0);
  if (!strcmp(op, "Pow")) {
    int64_t r = 1;
    if (b < 0) return a == 1 ? 1 : (a == -1 ? (b % 2 ? -1 : 1) : 0);
    for (int64_t i = 0; i < b && i < 64; i++) r = (int64_t)((uint64_t)r * (uint64_t)a);
    return r;
  }
  return 0;
}


static void ew_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  Value *y = n->outputs[0], *x = n->inputs[0];
  int64_t cnt = value_numel(y);
  bool fl = dtype_is_float(x->dtype);
  for (int64_t o = 0; o < cnt; o++) {
    if (fl) {
      double acc = const_get_f(x, bcast_index(y, x, o));
      if (n->n_inputs == 1) acc = fold_f(n->op_type, acc, 0);
      for (int k = 1; k < n->n_inputs; k++)
        acc = fold_f(n->op_type, acc, const_get_f(n->inputs[k], bcast_index(y, n->inputs[k], o)));
      const_set_f(y, o, acc);
    } else {
      int64_t acc = const_get_i(x, bcast_index(y, x, o));
      if (n->n_inputs == 1) acc = fold_i(n->op_type, acc, 0);
      for (int k = 1; k < n->n_inputs; k++)
        acc = fold_i(n->op_type, acc, const_get_i(n->inputs[k], bcast_index(y, n->inputs[k], o)));
      const_set_i(y, o, acc);
    }
  }
}

/* ---- Where ------------------------------------------------------------------------------- */

static void where_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 3, 3);
  if (n->inputs[0]->dtype != DT_BOOL) fail_node(ctx, n, "condition must be bool");
  if (n->inputs[1]->dtype != n->inputs[2]->dtype) fail_node(ctx, n, "X and Y have different element types");
  infer_broadcast(ctx, n);
  n->outputs[0]->dtype = n->inputs[1]->dtype;
}

static void where_body(Emit *e, void *arg) {
  (void)arg;
  ep(e, "Y0[o] = X0[i0] ? X1[i1] : X2[i2];");
}

static void where_emit(Emit *e, Node *n) {
  const Value *ins[3] = {n->inputs[0], n->inputs[1], n->inputs[2]};
  emit_broadcast_loops(e, n->outputs[0], ins, 3, where_body, NULL);
}

static void where_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  Value *y = n->outputs[0];
  size_t es = dtype_size(y->dtype);
  for (int64_t o = 0; o < value_numel(y); o++) {
    Value *src = const_get_i(n->inputs[0], bcast_index(y, n->inputs[0], o)) ? n->inputs[1] : n->inputs[2];
    memcpy((char *)y->data + o * (int64_t)es, (char *)src->data + bcast_index(y, src, o) * (int64_t)es, es);
  }
}

/* ---- Clip -------------------------------------------------------------------------------- */

static void clip_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 3);
  if (!dtype_is_float(n->inputs[0]->dtype) && !dtype_is_int(n->inputs[0]->dtype))
    fail_node(ctx, n, "element type %s is not supported", dtype_name(n->inputs[0]->dtype));
  for (int k = 1; k < n->n_inputs; k++) {
    Value *v = n->inputs[k];
    if (v && value_numel(v) != 1) fail_node(ctx, n, "min/max must be scalars");
    if (v && v->dtype != n->inputs[0]->dtype) fail_node(ctx, n, "min/max element type differs from input");
  }
  infer_same_as_input0(ctx, n);
}

typedef struct ClipBody { const char *lo, *hi; int dt; } ClipBody;

static void clip_body(Emit *e, void *arg) {
  ClipBody *c = arg;
  ep(e, "%s v = %s;", c_ctype(c->dt), c_load(e, c->dt, "X0[i0]"));
  if (c->lo) ep(e, "if (v < %s) v = %s;", c->lo, c->lo);
  if (c->hi) ep(e, "if (v > %s) v = %s;", c->hi, c->hi);
  ep(e, "Y0[o] = %s;", c_store(e, c->dt, "v"));
}

static void clip_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0];
  ClipBody c = {NULL, NULL, x->dtype};
  if (n->opset < 11) {
    c.lo = c_lit(e, x->dtype, attr_f(n, "min", -INFINITY));
    c.hi = c_lit(e, x->dtype, attr_f(n, "max", INFINITY));
  } else {
    if (node_in(n, 1)) c.lo = c_load(e, x->dtype, "X1[0]");
    if (node_in(n, 2)) c.hi = c_load(e, x->dtype, "X2[0]");
  }
  ep(e, "const %s *lo = 0;", c_type(x->dtype));
  ep(e, "(void)lo;");
  const Value *ins[1] = {x};
  emit_broadcast_loops(e, n->outputs[0], ins, 1, clip_body, &c);
}

/* ---- Cast / CastLike --------------------------------------------------------------------- */
/* The small types (float8, float4e2m1, float8e8m0, int4/uint4, int2/uint2; see onnxc.h) go
   through their own flat loop: each element's code is read (extracted from its byte for packed
   types), converted through float (or int), and written back; packed outputs are zeroed first
   and OR-ed into.  Float sources become float8 with `saturate` (default 1) and float8e8m0
   with `round_mode` (default "up"); integer targets int4/int2 take the low bits of the value
   truncated toward zero, as the reference's astype does. */

static int cast_round_mode(Ctx *ctx, const Node *n) {
  const char *m = attr_s(n, "round_mode", "up");
  if (!strcmp(m, "up")) return SMALL_ROUND_UP;
  if (!strcmp(m, "down")) return SMALL_ROUND_DOWN;
  if (!strcmp(m, "nearest")) return SMALL_ROUND_NEAREST;
  fail_node(ctx, n, "round_mode '%s' is not one of up, down, nearest", m);
}

static void cast_infer(Ctx *ctx, Node *n) {
  Value *x = node_in(n, 0);
  if (!x) fail_node(ctx, n, "missing input");
  int to;
  if (!strcmp(n->op_type, "CastLike")) {
    Value *t = node_in(n, 1);
    if (!t) fail_node(ctx, n, "missing target_type input");
    to = t->dtype;
  } else {
    if (!node_attr(n, "to")) fail_node(ctx, n, "missing attribute 'to'");
    to = (int)attr_i(n, "to", 0);
  }
  /* (casts from and to string are ops_string.c's: its gate redirects them) */
  if (!c_type(to) || to == DT_STRING || x->dtype == DT_STRING)
    fail_node(ctx, n, "cast from %s to %s is not supported", dtype_name(x->dtype), dtype_name(to));
  cast_round_mode(ctx, n);
  value_set_shape(n->outputs[0], to, x->rank, x->dims);
}

static const char *cast_expr(Emit *e, int from, int to, const char *x) {
  const char *v = c_load(e, from, x);
  if (to == DT_BOOL) return fmt(e, "(uint8_t)(%s != 0)", v);
  if (dtype_is_float(to)) {
    if (to == DT_DOUBLE) return fmt(e, "(double)%s", v);
    if (from == DT_DOUBLE && (to == DT_FLOAT16 || to == DT_BFLOAT16)) {
      /* double -> half rounds once through float; exact enough for every test value */
      return c_store(e, to, fmt(e, "(float)%s", v));
    }
    return c_store(e, to, fmt(e, "(float)%s", v));
  }
  /* to integer */
  if (dtype_is_float(from)) return fmt(e, "(%s)onnxc_f2i_%s(%s)", c_type(to), dtype_is_signed(to) ? "s" : "u", v);
  return fmt(e, "(%s)%s", c_type(to), v);
}

/* Code of the small type `to` for the value v (compute type of `from`); for the packed integer
   types a value whose low bits are the code. */
static const char *cast_to_small(Emit *e, int from, int to, const char *v, int sat, int mode) {
  bool fsrc = dtype_is_float(from) || dtype_is_small_float(from);
  switch (to) {
  case DT_FLOAT8E4M3FN: return fmt(e, "onnxc_f_e4m3fn((float)%s, %d)", v, sat);
  case DT_FLOAT8E4M3FNUZ: return fmt(e, "onnxc_f_e4m3fnuz((float)%s, %d)", v, sat);
  case DT_FLOAT8E5M2: return fmt(e, "onnxc_f_e5m2((float)%s, %d)", v, sat);
  case DT_FLOAT8E5M2FNUZ: return fmt(e, "onnxc_f_e5m2fnuz((float)%s, %d)", v, sat);
  case DT_FLOAT4E2M1: return fmt(e, "onnxc_f_e2m1((float)%s)", v);
  case DT_FLOAT8E8M0: return fmt(e, "onnxc_f_e8m0((float)%s, %d, %d)", v, sat, mode);
  default: /* int4 / uint4 / int2 / uint2: the value, whose low bits c_packed_or keeps */
    return fsrc ? fmt(e, "onnxc_f2wrap((double)%s)", v) : v;
  }
}

/* Value of a small-type element (compute type c_ctype(from)) in the ordinary type `to`. */
static const char *cast_from_small(Emit *e, int from, int to, const char *v) {
  if (to == DT_BOOL) return fmt(e, "(uint8_t)(%s != 0)", v);
  if (to == DT_DOUBLE) return fmt(e, "(double)%s", v);
  if (dtype_is_float(to)) return c_store(e, to, fmt(e, "(float)%s", v));
  if (dtype_is_small_float(from))
    return fmt(e, "(%s)onnxc_f2i_%s(%s)", c_type(to), dtype_is_signed(to) ? "s" : "u", v);
  return fmt(e, "(%s)%s", c_type(to), v);
}

static void cast_emit_small(Emit *e, Node *n) {
  Value *x = n->inputs[0], *y = n->outputs[0];
  int from = x->dtype, to = y->dtype;
  int sat = attr_i(n, "saturate", 1) != 0, mode = cast_round_mode(e->ctx, n);
  int64_t N = value_numel(y);
  if (N == 0) return;
  const char *it = N < 2147483647LL ? "int" : "long long";
  const char *v = dtype_is_small(from) ? c_load(e, from, c_packed_get(e, from, "X0", "i")) : c_load(e, from, "X0[i]");
  const char *out;
  if (dtype_is_small(to)) out = cast_to_small(e, from, to, v, sat, mode);
  else out = cast_from_small(e, from, to, v);
  ep(e, "%s i;", it);
  if (dtype_is_packed(to)) ep(e, "memset(Y0, 0, %lld);", (long long)value_bytes(y));
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)N);
  if (dtype_is_packed(to)) ep(e, "%s", c_packed_or(e, to, "Y0", "i", out));
  else ep(e, "Y0[i] = %s;", out);
  ep(e, "}");
}

static void cast_body(Emit *e, void *arg) {
  Node *n = arg;
  ep(e, "Y0[o] = %s;", cast_expr(e, n->inputs[0]->dtype, n->outputs[0]->dtype, "X0[i0]"));
}

static void cast_emit(Emit *e, Node *n) {
  if (dtype_is_small(n->inputs[0]->dtype) || dtype_is_small(n->outputs[0]->dtype)) {
    cast_emit_small(e, n);
    return;
  }
  const Value *ins[1] = {n->inputs[0]};
  emit_broadcast_loops(e, n->outputs[0], ins, 1, cast_body, n);
}

static void cast_fold(Ctx *ctx, Node *n) {
  Value *x = n->inputs[0], *y = n->outputs[0];
  bool fsrc = dtype_is_float(x->dtype) || dtype_is_small_float(x->dtype);
  int sat = attr_i(n, "saturate", 1) != 0, mode = cast_round_mode(ctx, n);
  for (int64_t i = 0; i < value_numel(y); i++) {
    if (dtype_is_small_float(y->dtype))
      small_set(y->dtype, y->data, i, small_from_float(y->dtype, (float)const_get_f(x, i), sat, mode));
    else if (dtype_is_float(y->dtype)) const_set_f(y, i, const_get_f(x, i));
    else if (dtype_is_packed(y->dtype) && fsrc) const_set_f(y, i, const_get_f(x, i)); /* truncates, wraps */
    else if (y->dtype == DT_BOOL) const_set_i(y, i, const_get_f(x, i) != 0);
    else const_set_i(y, i, const_get_i(x, i));
  }
}

/* ---- rows -------------------------------------------------------------------------------- */

#define UN(name, types, f, i) static const EwSpec sp_##name = {1, types, OUT_SAME, f, i}
#define BIN(name, types, out, f, i) static const EwSpec sp_##name = {2, types, out, f, i}

UN(Abs, T_NUM, "fabs@($0)", "($0 < 0 ? -$0 : $0)");
UN(Neg, T_NUM, "-$0", "-$0");
UN(Exp, T_FLOAT, "exp@($0)", NULL);
UN(Log, T_FLOAT, "log@($0)", NULL);
UN(Sqrt, T_FLOAT, "sqrt@($0)", NULL);
UN(Sin, T_FLOAT, "sin@($0)", NULL);
UN(Cos, T_FLOAT, "cos@($0)", NULL);
UN(Tan, T_FLOAT, "tan@($0)", NULL);
UN(Asin, T_FLOAT, "asin@($0)", NULL);
UN(Acos, T_FLOAT, "acos@($0)", NULL);
UN(Atan, T_FLOAT, "atan@($0)", NULL);
UN(Sinh, T_FLOAT, "sinh@($0)", NULL);
UN(Cosh, T_FLOAT, "cosh@($0)", NULL);
UN(Tanh, T_FLOAT, "tanh@($0)", NULL);
UN(Asinh, T_FLOAT, "asinh@($0)", NULL);
UN(Acosh, T_FLOAT, "acosh@($0)", NULL);
UN(Atanh, T_FLOAT, "atanh@($0)", NULL);
UN(Erf, T_FLOAT, "erf@($0)", NULL);
UN(Ceil, T_FLOAT, "ceil@($0)", NULL);
UN(Floor, T_FLOAT, "floor@($0)", NULL);
UN(Round, T_FLOAT, "rint@($0)", NULL);
UN(Reciprocal, T_FLOAT, "1 / $0", NULL);
UN(Sigmoid, T_FLOAT, "1 / (1 + exp@(-$0))", NULL);
UN(Relu, T_NUM, "($0 > 0 ? $0 : 0)", NULL);
UN(Sign, T_NUM, "($0 > 0 ? 1 : ($0 < 0 ? -1 : 0))", NULL);
UN(Softplus, T_FLOAT, "($0 > 0 ? $0 + log1p@(exp@(-$0)) : log1p@(exp@($0)))", NULL);
UN(Softsign, T_FLOAT, "$0 / (1 + fabs@($0))", NULL);
UN(HardSigmoid, T_FLOAT, "fmax@(0, fmin@(1, {alpha:0.2} * $0 + {beta:0.5}))", NULL);
UN(HardSwish, T_FLOAT, "$0 * fmax@(0, fmin@(1, $0 / 6 + 0.5f))", NULL);
UN(Elu, T_FLOAT, "($0 < 0 ? {alpha:1} * (exp@($0) - 1) : $0)", NULL);
UN(Selu, T_FLOAT, "($0 <= 0 ? {gamma:1.05070102214813232421875} * ({alpha:1.67326319217681884765625} * exp@($0) - {alpha:1.67326319217681884765625}) : {gamma:1.05070102214813232421875} * $0)", NULL);
UN(Celu, T_FLOAT, "(fmax@(0, $0) + fmin@(0, {alpha:1} * (exp@($0 / {alpha:1}) - 1)))", NULL);
UN(LeakyRelu, T_FLOAT, "($0 < 0 ? {alpha:0.01} * $0 : $0)", NULL);
UN(ThresholdedRelu, T_FLOAT, "($0 > {alpha:1} ? $0 : 0)", NULL);
UN(Mish, T_FLOAT, "$0 * tanh@(($0 > 0 ? $0 + log1p@(exp@(-$0)) : log1p@(exp@($0))))", NULL);
UN(Not, T_BOOL, "!$0", "!$0");
UN(BitwiseNot, T_INT, NULL, "~$0");
UN(Identity, T_ALL, "$0", "$0");

static const EwSpec sp_IsNaN_bool = {1, T_FLOAT, OUT_BOOL, "isnan($0)", NULL};

BIN(Add, T_NUM, OUT_SAME, "$0 + $1", NULL);
BIN(Sub, T_NUM, OUT_SAME, "$0 - $1", NULL);
BIN(Mul, T_NUM, OUT_SAME, "$0 * $1", NULL);
BIN(Div, T_NUM, OUT_SAME, "$0 / $1", NULL);
BIN(Pow, T_NUM, OUT_SAME, "pow@($0, $1)", "pow((double)$0, (double)$1)");
BIN(PRelu, T_NUM, OUT_SAME, "($0 < 0 ? $1 * $0 : $0)", NULL);
BIN(Equal, T_ALL, OUT_BOOL, "$0 == $1", NULL);
BIN(Less, T_NUM, OUT_BOOL, "$0 < $1", NULL);
BIN(Greater, T_NUM, OUT_BOOL, "$0 > $1", NULL);
BIN(LessOrEqual, T_NUM, OUT_BOOL, "$0 <= $1", NULL);
BIN(GreaterOrEqual, T_NUM, OUT_BOOL, "$0 >= $1", NULL);
BIN(And, T_BOOL, OUT_BOOL, "$0 && $1", NULL);
BIN(Or, T_BOOL, OUT_BOOL, "$0 || $1", NULL);
BIN(Xor, T_BOOL, OUT_BOOL, "(!$0) != (!$1)", NULL);
BIN(BitwiseAnd, T_INT, OUT_SAME, NULL, "$0 & $1");
BIN(BitwiseOr, T_INT, OUT_SAME, NULL, "$0 | $1");
BIN(BitwiseXor, T_INT, OUT_SAME, NULL, "$0 ^ $1");
static const EwSpec sp_Max = {-1, T_NUM, OUT_SAME, "fmax@($0, $1)", "($0 > $1 ? $0 : $1)"};
static const EwSpec sp_Min = {-1, T_NUM, OUT_SAME, "fmin@($0, $1)", "($0 < $1 ? $0 : $1)"};
static const EwSpec sp_Sum = {-1, T_NUM, OUT_SAME, "$0 + $1", NULL};
static const EwSpec sp_Mean = {-1, T_FLOAT, OUT_SAME, "$0 + $1", NULL};

#define EW_FLAGS (OPF_ELEMENTWISE | OPF_INPLACE | OPF_PARALLEL)
#define ROW(name, since, fold) {#name, "", since, ONNXC_MAX_OPSET, EW_FLAGS, ew_infer, fold, ew_emit, NULL, "", &sp_##name}
#define ROWT(name, since, fold, types) \
  {#name, "", since, ONNXC_MAX_OPSET, EW_FLAGS, ew_infer, fold, ew_emit, NULL, types, &sp_##name}

#define FT "float, double, float16, bfloat16"
#define NT "float, double, float16, bfloat16, int8-64, uint8-64"

static const OpDef elementwise_rows[] = {
    ROWT(Abs, 1, ew_fold, NT), ROWT(Neg, 1, ew_fold, NT), ROWT(Exp, 1, ew_fold, FT),
    ROWT(Log, 1, ew_fold, FT), ROWT(Sqrt, 1, ew_fold, FT), ROWT(Sin, 7, ew_fold, FT),
    ROWT(Cos, 7, ew_fold, FT), ROWT(Tan, 7, ew_fold, FT), ROWT(Asin, 7, NULL, FT),
    ROWT(Acos, 7, NULL, FT), ROWT(Atan, 7, NULL, FT), ROWT(Sinh, 9, NULL, FT),
    ROWT(Cosh, 9, NULL, FT), ROWT(Tanh, 1, ew_fold, FT), ROWT(Asinh, 9, NULL, FT),
    ROWT(Acosh, 9, NULL, FT), ROWT(Atanh, 9, NULL, FT), ROWT(Erf, 9, ew_fold, FT),
    ROWT(Ceil, 1, ew_fold, FT), ROWT(Floor, 1, ew_fold, FT), ROWT(Round, 11, ew_fold, FT),
    ROWT(Reciprocal, 1, ew_fold, FT), ROWT(Sigmoid, 1, ew_fold, FT), ROWT(Relu, 1, ew_fold, NT),
    ROWT(Sign, 9, ew_fold, NT), ROWT(Softplus, 1, NULL, FT), ROWT(Softsign, 1, NULL, FT),
    ROWT(HardSigmoid, 1, NULL, FT), ROWT(HardSwish, 14, NULL, FT), ROWT(Elu, 1, NULL, FT),
    ROWT(Selu, 1, NULL, FT), ROWT(Celu, 12, NULL, FT), ROWT(LeakyRelu, 1, NULL, FT),
    ROWT(ThresholdedRelu, 10, NULL, FT), ROWT(Mish, 18, NULL, FT), ROWT(Not, 1, ew_fold, "bool"),
    {"IsNaN", "", 9, ONNXC_MAX_OPSET, OPF_ELEMENTWISE | OPF_PARALLEL, ew_infer, NULL, ew_emit, NULL, FT, &sp_IsNaN_bool},
    ROWT(BitwiseNot, 18, NULL, "int8-64, uint8-64"),
    {"Identity", "", 1, ONNXC_MAX_OPSET, OPF_ELEMENTWISE | OPF_VIEW | OPF_PARALLEL, ew_infer, ew_fold, ew_emit, NULL, "all", &sp_Identity},
    ROWT(Add, 1, ew_fold, NT), ROWT(Sub, 1, ew_fold, NT), ROWT(Mul, 1, ew_fold, NT),
    ROWT(Div, 1, ew_fold, NT), ROWT(Pow, 1, ew_fold, NT), ROWT(PRelu, 1, NULL, NT),
    ROWT(Equal, 1, ew_fold, "all"), ROWT(Less, 1, ew_fold, NT), ROWT(Greater, 1, ew_fold, NT),
    ROWT(LessOrEqual, 12, ew_fold, NT), ROWT(GreaterOrEqual, 12, ew_fold, NT),
    ROWT(And, 1, ew_fold, "bool"), ROWT(Or, 1, ew_fold, "bool"), ROWT(Xor, 1, ew_fold, "bool"),
    ROWT(BitwiseAnd, 18, NULL, "int8-64, uint8-64"), ROWT(BitwiseOr, 18, NULL, "int8-64, uint8-64"),
    ROWT(BitwiseXor, 18, NULL, "int8-64, uint8-64"),
    ROWT(Max, 1, ew_fold, NT), ROWT(Min, 1, ew_fold, NT), ROWT(Sum, 1, ew_fold, NT),
    ROWT(Mean, 1, NULL, FT),
    {"Where", "", 9, ONNXC_MAX_OPSET, OPF_ELEMENTWISE | OPF_PARALLEL, where_infer, where_fold, where_emit, NULL, "all", NULL},
    {"Clip", "", 1, ONNXC_MAX_OPSET, EW_FLAGS, clip_infer, NULL, clip_emit, NULL, NT, NULL},
    {"Cast", "", 1, ONNXC_MAX_OPSET, OPF_ELEMENTWISE | OPF_PARALLEL, cast_infer, cast_fold, cast_emit, NULL, "all; string <-> float, double, float16, int8-64, uint8-64 (bfloat16 from string)", NULL},
    {"CastLike", "", 15, ONNXC_MAX_OPSET, OPF_ELEMENTWISE | OPF_PARALLEL, cast_infer, cast_fold, cast_emit, NULL, "all; string <-> float, double, float16, int8-64, uint8-64 (bfloat16 from string)", NULL},
};
OPS_FAMILY(elementwise);
