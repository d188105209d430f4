/*
 * ops_control.c - control flow: If, Loop, Scan compiled to C control flow.
 *
 * A subgraph is an ordinary Graph (is_sub): its nodes get their own schedule and memory plan,
 * and its node functions are emitted before the owner's.  The owner's node function runs the
 * body with emit_subgraph(), the body's arena sitting at the start of the owner's scratch W.
 * Outer values the body reads were appended to the owner's inputs by the loader (hidden inputs
 * after n_explicit), so they arrive as X<k> parameters.  Body inputs and outputs have slots in
 * the body arena that stay live over the whole body; the owner copies values in and out:
 *   If:   run one branch, copy its outputs to Y.  Branches may return sequences and optionals:
 *         their outputs are flattened into ports (ports.c) and the If's outputs are the flat
 *         tensors, so a branch's sequence items or optional flag and content are copied like
 *         any output; both branches must give the same structure (an empty optional matches
 *         any content: its branch copies only the flag).
 *   Loop: carried values live in the body's input slots; after each iteration the body's
 *         carried outputs are copied back into them (memmove: an output may be its input), scan
 *         outputs are appended to Y.  The trip count M must be known at compile time when
 *         there are scan outputs; when the loop may stop early on its condition, the scan
 *         outputs are data-dependent (bound M) and report their actual dims.  A body whose
 *         form changes per iteration (carried sequences, shapes computed from the iteration
 *         number) is unrolled instead when M and the condition are constants (unroll.c): the
 *         run-time form is tried on a copy of the body first.
 *   Scan: slices of the scan inputs along their axes are copied into the body's input slots,
 *         and the body's scan outputs are copied into the stacked outputs.
 */
#include <setjmp.h>
#include <string.h>

#include "onnxc.h"

static Graph *graph_attr(Ctx *ctx, Node *n, const char *name) {
  const Attr *a = node_attr(n, name);
  if (!a || !a->g) fail_node(ctx, n, "missing graph attribute '%s'", name);
  return a->g;
}

static void infer_body(Ctx *ctx, Node *n, Graph *body) {
  (void)n;
  graph_verify(ctx, body);
  infer_and_fold(ctx, body);
}

/* Schedules and plans a body once; returns its arena size. */
static int64_t prepare_body(Ctx *ctx, Graph *body) {
  if (!body->sched.n && body->nodes.n) {
    eliminate_dead(ctx, body);
    schedule_graph(ctx, body);
    plan_memory(ctx, body);
  }
  return (body->arena_bytes + 15) / 16 * 16;
}

static void emit_copy(Emit *e, const char *dst, const char *src, int64_t bytes) {
  if (bytes > 0) ep(e, "memmove(%s, %s, %lld);", dst, src, (long long)bytes);
}

/* ---- If ---------------------------------------------------------------------------------- */

typedef struct IfInfo {
  Graph *taken;           /* constant condition: the one branch compiled */
  Port *ports;            /* the node's ONNX outputs over its flat outputs */
  int n_ports;
} IfInfo;

static bool same_type(const Value *a, const Value *b) { return a->dtype == b->dtype && same_shape(a, b); }

/* The node's flat outputs for its ONNX outputs from the branches' ports (b NULL: one branch). */
static void if_outputs(Ctx *ctx, Node *n, IfInfo *ii, Graph *a, Graph *b) {
  Graph *g = infer_graph(ctx);
  int no = n->n_outputs;
  if (a->n_out_ports != no || (b && b->n_out_ports != no))
    fail_node(ctx, n, "branches give %d and %d outputs for %d node outputs", a->n_out_ports, b ? b->n_out_ports : a->n_out_ports, no);
  PtrVec flat = {0};
  ii->ports = arena_alloc(&ctx->arena, sizeof(Port) * (size_t)(no + 1));
  ii->n_ports = no;
  for (int k = 0; k < no; k++) {
    Port *pa = &a->out_ports[k], *pb = b ? &b->out_ports[k] : pa;
    Value *y = n->outputs[k];
    if (pa->kind != pb->kind || pa->dtype != pb->dtype)
      fail_node(ctx, n, "output %d: the branches give different kinds or element types (a %s and a %s)", k,
                pa->kind & PORT_OPTIONAL ? "optional" : pa->kind ? "sequence" : "tensor",
                pb->kind & PORT_OPTIONAL ? "optional" : pb->kind ? "sequence" : "tensor");
    /* the branch whose port holds the most (an empty optional holds only its flag) */
    Port *full = b && pb->n > pa->n ? pb : pa;
    Graph *fg = full == pa ? a : b;
    if (pa->n > 1 && pb->n > 1 && pa->n != pb->n)
      fail_node(ctx, n, "output %d: the branches give sequences of %d and %d items; onnxc needs one static structure", k,
                pa->n - (pa->kind & PORT_OPTIONAL ? 1 : 0), pb->n - (pb->kind & PORT_OPTIONAL ? 1 : 0));
    if (pa->kind == PORT_SEQUENCE && pa->n != pb->n)
      fail_node(ctx, n, "output %d: the branches give sequences of %d and %d items; onnxc needs one static structure", k, pa->n, pb->n);
    for (int j = 0; j < full->n; j++) {
      Value *x = fg->outputs.v[full->first + j];
      Port *other = full == pa ? pb : pa;
      Graph *og = full == pa ? b : a; /* NULL: one branch */
      if (og && j < other->n && !same_type(x, og->outputs.v[other->first + j]))
        fail_node(ctx, n, "output %d: the branches give %s%s and %s%s; onnxc needs one static type and shape", k,
                  dtype_name(x->dtype), shape_str(&ctx->arena, x), dtype_name(((Value *)og->outputs.v[other->first + j])->dtype),
                  shape_str(&ctx->arena, og->outputs.v[other->first + j]));
    }
    Port *np = &ii->ports[k];
    *np = *full;
    np->name = y ? y->name : full->name;
    np->first = flat.n;
    if (pa->kind == PORT_TENSOR) {
      Value *x = fg->outputs.v[full->first];
      if (y) value_set_shape(y, x->dtype, x->rank, x->dims);
      vec_push(&ctx->arena, &flat, y);
      continue;
    }
    /* a sequence or an optional: fresh flat values, y (when used) structured over them */
    Value **fv = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(full->n + 1));
    for (int j = 0; j < full->n; j++) {
      Value *x = fg->outputs.v[full->first + j];
      if (!y) { fv[j] = NULL; vec_push(&ctx->arena, &flat, NULL); continue; }
      bool opt = pa->kind & PORT_OPTIONAL;
      const char *nm = opt && j == 0 ? arena_printf(&ctx->arena, "%s.has_value", y->name)
                       : opt && !(pa->kind & PORT_SEQUENCE) ? arena_printf(&ctx->arena, "%s.value", y->name)
                       : arena_printf(&ctx->arena, "%s[%d]", y->name, j - (opt ? 1 : 0));
      fv[j] = graph_new_value(ctx, g, nm);
      value_set_shape(fv[j], x->dtype, x->rank, x->dims);
      fv[j]->producer = n;
      vec_push(&ctx->arena, &flat, fv[j]);
    }
    np->n = full->n;
    if (!y) continue;
    PtrVec *items = NULL;
    int from = pa->kind & PORT_OPTIONAL ? 1 : 0;
    if (pa->kind & PORT_SEQUENCE) {
      items = arena_alloc(&ctx->arena, sizeof *items);
      for (int j = from; j < full->n; j++) vec_push(&ctx->arena, items, fv[j]);
    }
    y->producer = NULL;
    if (!(pa->kind & PORT_OPTIONAL)) {
      y->seq = items;
      value_set_shape(y, pa->dtype, 0, NULL);
      continue;
    }
    OptInfo *oi = arena_alloc(&ctx->arena, sizeof *oi);
    oi->present = fv[0];
    oi->of_seq = (pa->kind & PORT_SEQUENCE) != 0;
    if (full->n > 1 && items) {
      oi->content = graph_new_value(ctx, g, arena_printf(&ctx->arena, "%s.value", y->name));
      oi->content->seq = items;
      value_set_shape(oi->content, pa->dtype, 0, NULL);
    } else if (full->n > 1) {
      oi->content = fv[1];
    } else if (oi->of_seq) {
      /* empty in both branches: an empty sequence stands for its (never written) content */
      oi->content = NULL;
    }
    y->opt = oi;
    value_set_shape(y, pa->dtype, 0, NULL);
  }
  n->outputs = (Value **)flat.v;
  n->n_outputs = flat.n;
  if (!flat.n) n->outputs = arena_alloc(&ctx->arena, sizeof(Value *));
}

static void if_infer(Ctx *ctx, Node *n) {
  Value *c = node_in(n, 0);
  if (!c || c->dtype != DT_BOOL || value_numel(c) != 1) fail_node(ctx, n, "cond must be a one-element bool tensor");
  Graph *t = graph_attr(ctx, n, "then_branch"), *f = graph_attr(ctx, n, "else_branch");
  IfInfo *ii = arena_alloc(&ctx->arena, sizeof *ii);
  n->priv = ii;
  if (c->data) {
    /* constant condition: only the taken branch is compiled (the other may not even be
       valid for these shapes) */
    Graph *g = const_get_i(c, 0) ? t : f;
    infer_body(ctx, n, g);
    flatten_outputs(ctx, g);
    ii->taken = g;
    if_outputs(ctx, n, ii, g, NULL);
  } else {
    infer_body(ctx, n, t);
    infer_body(ctx, n, f);
    flatten_outputs(ctx, t);
    flatten_outputs(ctx, f);
    if_outputs(ctx, n, ii, t, f);
  }
  node_refresh_hidden(ctx, n);
}

/* A constant condition whose branch folded completely: the If is its branch's constants. */
static void if_fold(Ctx *ctx, Node *n) {
  IfInfo *ii = n->priv;
  Graph *g = ii ? ii->taken : NULL;
  if (!g) { ctx->fold_declined = true; return; }
  for (int k = 0; k < n->n_outputs; k++)
    if (n->outputs[k] && !((Value *)g->outputs.v[k])->data) { ctx->fold_declined = true; return; }
  for (int k = 0; k < n->n_outputs; k++)
    if (n->outputs[k]) memcpy(n->outputs[k]->data, ((Value *)g->outputs.v[k])->data, (size_t)value_bytes(n->outputs[k]));
}

static int64_t if_scratch(Ctx *ctx, Node *n) {
  IfInfo *ii = n->priv;
  if (ii->taken) return prepare_body(ctx, ii->taken);
  int64_t a = prepare_body(ctx, graph_attr(ctx, n, "then_branch"));
  int64_t b = prepare_body(ctx, graph_attr(ctx, n, "else_branch"));
  return a > b ? a : b;
}

static void if_branch(Emit *e, Node *n, Graph *g) {
  IfInfo *ii = n->priv;
  emit_subgraph(e, n, g, "W");
  for (int k = 0; k < ii->n_ports; k++) {
    Port *np = &ii->ports[k], *bp = &g->out_ports[k];
    for (int j = 0; j < np->n && j < bp->n; j++) { /* an empty optional: its flag only */
      Value *v = n->outputs[np->first + j];
      if (!v) continue;
      ep(e, "if (Y%d) {", np->first + j);
      emit_copy(e, fmt(e, "Y%d", np->first + j), subgraph_ptr(e, n, g, "W", g->outputs.v[bp->first + j], true), value_bytes(v));
      ep(e, "}");
    }
  }
}

static void if_emit(Emit *e, Node *n) {
  Graph *t = graph_attr(e->ctx, n, "then_branch"), *f = graph_attr(e->ctx, n, "else_branch");
  IfInfo *ii = n->priv;
  if (ii->taken) {
    if_branch(e, n, ii->taken);
    return;
  }
  ep(e, "if (X0[0]) {");
  if_branch(e, n, t);
  ep(e, "} else {");
  if_branch(e, n, f);
  ep(e, "}");
}

/* ---- Loop -------------------------------------------------------------------------------- */

typedef struct LoopInfo {
  int64_t trip;     /* compile-time trip count, -1 when unbounded */
  int n_carried, n_scan;
} LoopInfo;

/* The Loop as a C loop over its (inferred) body. */
static void loop_infer_runtime(Ctx *ctx, Node *n, Graph *body) {
  int nc = n->n_explicit - 2;
  if (nc < 0) fail_node(ctx, n, "expects M, cond and the loop-carried values as inputs");
  if (body->inputs.n != nc + 2) fail_node(ctx, n, "the body takes %d inputs; expected %d", body->inputs.n, nc + 2);
  if (body->outputs.n < nc + 1) fail_node(ctx, n, "the body gives %d outputs; expected at least %d", body->outputs.n, nc + 1);
  LoopInfo *li = arena_alloc(&ctx->arena, sizeof *li);
  li->n_carried = nc;
  li->n_scan = body->outputs.n - 1 - nc;
  li->trip = -1;
  Value *m = node_in(n, 0), *cond = node_in(n, 1);
  if (m) {
    if (!m->data) node_const_in(ctx, n, 0, "trip count M");
    li->trip = const_get_i(m, 0);
    if (li->trip < 0) li->trip = 0;
  }
  if (cond && (cond->dtype != DT_BOOL || value_numel(cond) != 1)) fail_node(ctx, n, "cond must be a one-element bool tensor");
  /* body inputs: iteration number, condition, carried values */
  Value *it = body->inputs.v[0], *bc = body->inputs.v[1];
  int64_t one = 1;
  if (it->rank == 1) value_set_shape(it, DT_INT64, 1, &one);
  else value_set_shape(it, DT_INT64, 0, NULL);
  if (bc->rank == 1) value_set_shape(bc, DT_BOOL, 1, &one);
  else value_set_shape(bc, DT_BOOL, 0, NULL);
  for (int i = 0; i < nc; i++) {
    Value *v0 = node_in(n, 2 + i);
    if (!v0) fail_node(ctx, n, "loop-carried input %d is missing", i);
    value_set_shape(body->inputs.v[2 + i], v0->dtype, v0->rank, v0->dims);
  }
  infer_body(ctx, n, body);
  for (int i = 0; i < body->outputs.n; i++)
    if (value_is_structured(body->outputs.v[i])) fail_node(ctx, n, "body output %d is a sequence or an optional", i);
  node_refresh_hidden(ctx, n);
  Value *co = body->outputs.v[0];
  if (co->dtype != DT_BOOL || value_numel(co) != 1) fail_node(ctx, n, "the body's condition output must be a one-element bool");
  for (int i = 0; i < nc; i++) {
    Value *o = body->outputs.v[1 + i], *v0 = node_in(n, 2 + i);
    if (o->dtype != v0->dtype || !same_shape(o, v0))
      fail_node(ctx, n, "loop-carried value %d changes from %s%s to %s%s; onnxc needs static shapes", i,
                dtype_name(v0->dtype), shape_str(&ctx->arena, v0), dtype_name(o->dtype), shape_str(&ctx->arena, o));
    if (node_out(n, i)) value_set_shape(n->outputs[i], o->dtype, o->rank, o->dims);
  }
  /* may the loop stop before M iterations?  Not when the condition starts true and the body
     passes it through unchanged (directly or through Identity) or sets it to constant true. */
  Value *cv = co;
  while (cv->producer && !strcmp(cv->producer->op_type, "Identity") && cv->producer->inputs[0]) cv = cv->producer->inputs[0];
  bool start_true = !cond || (cond->data && const_get_i(cond, 0));
  bool cond_const_true = start_true && ((cv->data && const_get_i(cv, 0)) || cv == bc);
  for (int k = 0; k < li->n_scan; k++) {
    Value *o = body->outputs.v[1 + nc + k], *y = node_out(n, nc + k);
    if (!y) continue;
    if (li->trip < 0) fail_node(ctx, n, "scan outputs need a compile-time trip count M");
    if (o->rank + 1 > ONNXC_MAX_RANK) fail_node(ctx, n, "scan output rank too large");
    int64_t dims[ONNXC_MAX_RANK];
    dims[0] = li->trip;
    for (int d = 0; d < o->rank; d++) dims[d + 1] = o->dims[d];
    value_set_shape(y, o->dtype, o->rank + 1, dims);
    if (!cond_const_true) y->dynamic = true;
  }
  n->priv = li;
}

/* A run-time loop when the body allows one; otherwise (or when it carries or reads sequences
   and optionals, whose structure is resolved at compile time) the Loop is unrolled. */
static void loop_infer(Ctx *ctx, Node *n) {
  Attr *a = (Attr *)node_attr(n, "body");
  if (!a || !a->g) fail_node(ctx, n, "missing graph attribute 'body'");
  Graph *body = a->g;
  for (int k = 2; k < n->n_inputs; k++)
    if (value_is_structured(n->inputs[k])) {
      loop_unroll(ctx, n, body, k < n->n_explicit ? "it carries a sequence or an optional" : "its body reads a sequence or an optional");
      return;
    }
  Value *m = node_in(n, 0);
  if (m && !m->data) { /* (which asks for M) */
    loop_infer_runtime(ctx, n, body);
    return;
  }
  /* try the run-time form on a copy of the body (inference rewrites what it visits) */
  Graph *probe = graph_clone(ctx, body, body->parent);
  Graph *cur = ctx->cur_graph;
  jmp_buf saved;
  memcpy(saved, ctx->fail_jmp, sizeof saved);
  if (!setjmp(ctx->fail_jmp)) {
    a->g = probe;
    loop_infer_runtime(ctx, n, probe);
    memcpy(ctx->fail_jmp, saved, sizeof saved);
    return;
  }
  memcpy(ctx->fail_jmp, saved, sizeof saved);
  ctx->cur_graph = cur;
  a->g = body;
  /* why, without the "onnxc: error: FILE: " of the message */
  size_t skip = strlen("onnxc: error: ") + strlen(ctx->file) + 2;
  const char *why = arena_printf(&ctx->arena, "its body has no single static form for every iteration (%s)",
                                 strlen(ctx->err) > skip ? ctx->err + skip : ctx->err);
  loop_unroll(ctx, n, body, why);
}

static int64_t loop_scratch(Ctx *ctx, Node *n) { return prepare_body(ctx, graph_attr(ctx, n, "body")); }

static void loop_emit(Emit *e, Node *n) {
  Graph *body = graph_attr(e->ctx, n, "body");
  LoopInfo *li = n->priv;
  int nc = li->n_carried;
  const char *it = subgraph_ptr(e, n, body, "W", body->inputs.v[0], false);
  const char *bc = subgraph_ptr(e, n, body, "W", body->inputs.v[1], false);
  const char *co = subgraph_ptr(e, n, body, "W", body->outputs.v[0], true);
  ep(e, "long long i = 0;");
  ep(e, "uint8_t c = %s;", node_in(n, 1) ? "X1[0]" : "1");
  for (int i = 0; i < nc; i++)
    emit_copy(e, subgraph_ptr(e, n, body, "W", body->inputs.v[2 + i], false), fmt(e, "X%d", 2 + i), value_bytes(n->inputs[2 + i]));
  if (li->trip >= 0) ep(e, "for (i = 0; i < %lldLL && c; i++) {", (long long)li->trip);
  else ep(e, "for (i = 0; c; i++) {");
  ep(e, "(%s)[0] = (int64_t)i;", it);
  ep(e, "(%s)[0] = c;", bc);
  emit_subgraph(e, n, body, "W");
  ep(e, "c = (%s)[0] != 0;", co);
  for (int i = 0; i < nc; i++) {
    Value *in = body->inputs.v[2 + i], *out = body->outputs.v[1 + i];
    emit_copy(e, subgraph_ptr(e, n, body, "W", in, false), subgraph_ptr(e, n, body, "W", out, true), value_bytes(in));
  }
  for (int k = 0; k < li->n_scan; k++) {
    Value *y = node_out(n, nc + k), *o = body->outputs.v[1 + nc + k];
    if (!y) continue;
    int64_t sb = value_bytes(o);
    if (sb > 0) ep(e, "if (Y%d) memcpy((unsigned char *)Y%d + i * %lldLL, %s, %lld);", nc + k, nc + k, (long long)sb,
                   subgraph_ptr(e, n, body, "W", o, true), (long long)sb);
  }
  ep(e, "}");
  for (int i = 0; i < nc; i++) {
    if (!node_out(n, i)) continue;
    ep(e, "if (Y%d) {", i);
    emit_copy(e, fmt(e, "Y%d", i), subgraph_ptr(e, n, body, "W", body->inputs.v[2 + i], true), value_bytes(n->outputs[i]));
    ep(e, "}");
  }
  for (int k = 0; k < li->n_scan; k++) {
    Value *y = node_out(n, nc + k);
    if (!y || !y->dynamic) continue;
    ep(e, "D%d[0] = i;", nc + k);
    for (int d = 1; d < y->rank; d++) ep(e, "D%d[%d] = %lld;", nc + k, d, (long long)y->dims[d]);
  }
}

/* ---- Scan (opset 9+) ------------------------------------------------------------------------ */

typedef struct ScanInfo {
  int n_state, n_in, n_out;
  int64_t len;
  int in_axis[16], in_rev[16], out_axis[16], out_rev[16];
} ScanInfo;

static void scan_infer(Ctx *ctx, Node *n) {
  Graph *body = graph_attr(ctx, n, "body");
  ScanInfo *si = arena_alloc(&ctx->arena, sizeof *si);
  si->n_in = (int)attr_i(n, "num_scan_inputs", -1);
  if (si->n_in < 1 || si->n_in > 16 || si->n_in > n->n_explicit)
    fail_node(ctx, n, "num_scan_inputs must be between 1 and the number of inputs (at most 16)");
  si->n_state = n->n_explicit - si->n_in;
  si->n_out = n->n_outputs - si->n_state;
  if (si->n_out < 0 || si->n_out > 16) fail_node(ctx, n, "bad number of outputs");
  if (body->inputs.n != si->n_state + si->n_in || body->outputs.n != si->n_state + si->n_out)
    fail_node(ctx, n, "the body's inputs/outputs do not match the node's");
  const int64_t *ax, *dir;
  int nax = attr_ints(n, "scan_input_axes", &ax), ndir = attr_ints(n, "scan_input_directions", &dir);
  si->len = -1;
  for (int j = 0; j < si->n_in; j++) {
    Value *x = node_in(n, si->n_state + j);
    if (!x) fail_node(ctx, n, "scan input %d is missing", j);
    int axis = norm_axis(ctx, n, j < nax ? ax[j] : 0, x->rank);
    si->in_axis[j] = axis;
    si->in_rev[j] = j < ndir ? (int)dir[j] : 0;
    if (si->len >= 0 && x->dims[axis] != si->len) fail_node(ctx, n, "scan inputs have different lengths");
    si->len = x->dims[axis];
    int64_t dims[ONNXC_MAX_RANK];
    int r = 0;
    for (int d = 0; d < x->rank; d++)
      if (d != axis) dims[r++] = x->dims[d];
    value_set_shape(body->inputs.v[si->n_state + j], x->dtype, r, dims);
  }
  for (int i = 0; i < si->n_state; i++) {
    Value *s0 = node_in(n, i);
    if (!s0) fail_node(ctx, n, "state input %d is missing", i);
    value_set_shape(body->inputs.v[i], s0->dtype, s0->rank, s0->dims);
  }
  infer_body(ctx, n, body);
  node_refresh_hidden(ctx, n);
  for (int i = 0; i < si->n_state; i++) {
    Value *o = body->outputs.v[i], *s0 = node_in(n, i);
    if (o->dtype != s0->dtype || !same_shape(o, s0)) fail_node(ctx, n, "state %d changes type or shape in the body", i);
    if (node_out(n, i)) value_set_shape(n->outputs[i], o->dtype, o->rank, o->dims);
  }
  int noax = attr_ints(n, "scan_output_axes", &ax), nodir = attr_ints(n, "scan_output_directions", &dir);
  for (int k = 0; k < si->n_out; k++) {
    Value *o = body->outputs.v[si->n_state + k];
    int axis = norm_axis(ctx, n, k < noax ? ax[k] : 0, o->rank + 1);
    si->out_axis[k] = axis;
    si->out_rev[k] = k < nodir ? (int)dir[k] : 0;
    int64_t dims[ONNXC_MAX_RANK];
    if (o->rank + 1 > ONNXC_MAX_RANK) fail_node(ctx, n, "scan output rank too large");
    for (int d = 0, s = 0; d < o->rank + 1; d++) dims[d] = d == axis ? si->len : o->dims[s++];
    if (node_out(n, si->n_state + k)) value_set_shape(n->outputs[si->n_state + k], o->dtype, o->rank + 1, dims);
  }
  n->priv = si;
}

static int64_t scan_scratch(Ctx *ctx, Node *n) { return prepare_body(ctx, graph_attr(ctx, n, "body")); }

/* Copies slice t along axis between a stacked tensor (dims of `full`) and a slice buffer. */
static void emit_slice_copy(Emit *e, const Value *full, int axis, const char *stacked, const char *slice,
                            const char *t, bool to_slice) {
  int64_t outer = 1, inner = (int64_t)dtype_size(full->dtype);
  for (int d = 0; d < axis; d++) outer *= full->dims[d];
  for (int d = axis + 1; d < full->rank; d++) inner *= full->dims[d];
  int64_t len = full->dims[axis];
  if (inner == 0 || outer == 0) return;
  ep(e, "{");
  ep(e, "long long o;");
  ep(e, "for (o = 0; o < %lldLL; o++) {", (long long)outer);
  const char *sp = fmt(e, "(unsigned char *)%s + (o * %lldLL + (%s)) * %lldLL", stacked, (long long)len, t, (long long)inner);
  const char *lp = fmt(e, "(unsigned char *)%s + o * %lldLL", slice, (long long)inner);
  if (to_slice) ep(e, "memcpy(%s, %s, %lld);", lp, sp, (long long)inner);
  else ep(e, "memcpy(%s, %s, %lld);", sp, lp, (long long)inner);
  ep(e, "}");
  ep(e, "}");
}

static void scan_emit(Emit *e, Node *n) {
  Graph *body = graph_attr(e->ctx, n, "body");
  ScanInfo *si = n->priv;
  for (int i = 0; i < si->n_state; i++)
    emit_copy(e, subgraph_ptr(e, n, body, "W", body->inputs.v[i], false), fmt(e, "X%d", i), value_bytes(n->inputs[i]));
  ep(e, "long long t;");
  ep(e, "for (t = 0; t < %lldLL; t++) {", (long long)si->len);
  for (int j = 0; j < si->n_in; j++) {
    const char *t = si->in_rev[j] ? fmt(e, "%lldLL - 1 - t", (long long)si->len) : "t";
    emit_slice_copy(e, n->inputs[si->n_state + j], si->in_axis[j], fmt(e, "X%d", si->n_state + j),
                    subgraph_ptr(e, n, body, "W", body->inputs.v[si->n_state + j], false), t, true);
  }
  emit_subgraph(e, n, body, "W");
  for (int i = 0; i < si->n_state; i++)
    emit_copy(e, subgraph_ptr(e, n, body, "W", body->inputs.v[i], false),
              subgraph_ptr(e, n, body, "W", body->outputs.v[i], true), value_bytes(body->inputs.v[i]));
  for (int k = 0; k < si->n_out; k++) {
    Value *y = node_out(n, si->n_state + k);
    if (!y) continue;
    const char *t = si->out_rev[k] ? fmt(e, "%lldLL - 1 - t", (long long)si->len) : "t";
    ep(e, "if (Y%d) {", si->n_state + k);
    emit_slice_copy(e, y, si->out_axis[k], fmt(e, "Y%d", si->n_state + k),
                    subgraph_ptr(e, n, body, "W", body->outputs.v[si->n_state + k], true), t, false);
    ep(e, "}");
  }
  ep(e, "}");
  for (int i = 0; i < si->n_state; i++) {
    if (!node_out(n, i)) continue;
    ep(e, "if (Y%d) {", i);
    emit_copy(e, fmt(e, "Y%d", i), subgraph_ptr(e, n, body, "W", body->inputs.v[i], true), value_bytes(n->outputs[i]));
    ep(e, "}");
  }
}

/* ---- Scan (opset 8): a batch axis 0 in front of everything, time on axis 1 ---------------- */

typedef struct Scan8Info {
  int n_state, n_in, n_out;
  int64_t batch, len;
  int in_rev[16];
} Scan8Info;

static void scan8_infer(Ctx *ctx, Node *n) {
  Graph *body = graph_attr(ctx, n, "body");
  Scan8Info *si = arena_alloc(&ctx->arena, sizeof *si);
  if (node_in(n, 0)) fail_node(ctx, n, "sequence_lens is not supported (every sequence must have the full length)");
  si->n_in = (int)attr_i(n, "num_scan_inputs", -1);
  if (si->n_in < 1 || si->n_in > 16 || si->n_in > n->n_explicit - 1)
    fail_node(ctx, n, "num_scan_inputs must be between 1 and the number of inputs (at most 16)");
  si->n_state = n->n_explicit - 1 - si->n_in;
  si->n_out = n->n_outputs - si->n_state;
  if (si->n_out < 0 || si->n_out > 16) fail_node(ctx, n, "bad number of outputs");
  if (body->inputs.n != si->n_state + si->n_in || body->outputs.n != si->n_state + si->n_out)
    fail_node(ctx, n, "the body's inputs/outputs do not match the node's");
  const int64_t *dir;
  int ndir = attr_ints(n, "directions", &dir);
  si->batch = si->len = -1;
  for (int j = 0; j < si->n_in; j++) {
    Value *x = node_in(n, 1 + si->n_state + j);
    if (!x || x->rank < 2) fail_node(ctx, n, "scan input %d must have batch and time axes", j);
    if ((si->batch >= 0 && x->dims[0] != si->batch) || (si->len >= 0 && x->dims[1] != si->len))
      fail_node(ctx, n, "scan inputs have different batch sizes or lengths");
    si->batch = x->dims[0];
    si->len = x->dims[1];
    si->in_rev[j] = j < ndir ? (int)dir[j] : 0;
    value_set_shape(body->inputs.v[si->n_state + j], x->dtype, x->rank - 2, x->dims + 2);
  }
  for (int i = 0; i < si->n_state; i++) {
    Value *s0 = node_in(n, 1 + i);
    if (!s0 || s0->rank < 1 || s0->dims[0] != si->batch) fail_node(ctx, n, "state %d must have the batch axis first", i);
    value_set_shape(body->inputs.v[i], s0->dtype, s0->rank - 1, s0->dims + 1);
  }
  infer_body(ctx, n, body);
  node_refresh_hidden(ctx, n);
  for (int i = 0; i < si->n_state; i++) {
    Value *o = body->outputs.v[i], *s0 = node_in(n, 1 + i);
    if (o->dtype != s0->dtype || value_numel(o) * si->batch != value_numel(s0))
      fail_node(ctx, n, "state %d changes type or shape in the body", i);
    if (node_out(n, i)) value_set_shape(n->outputs[i], s0->dtype, s0->rank, s0->dims);
  }
  for (int k = 0; k < si->n_out; k++) {
    Value *o = body->outputs.v[si->n_state + k];
    if (o->rank + 2 > ONNXC_MAX_RANK) fail_node(ctx, n, "scan output rank too large");
    int64_t dims[ONNXC_MAX_RANK];
    dims[0] = si->batch;
    dims[1] = si->len;
    for (int d = 0; d < o->rank; d++) dims[d + 2] = o->dims[d];
    if (node_out(n, si->n_state + k)) value_set_shape(n->outputs[si->n_state + k], o->dtype, o->rank + 2, dims);
  }
  n->priv = si;
}

static void scan8_emit(Emit *e, Node *n) {
  Graph *body = graph_attr(e->ctx, n, "body");
  Scan8Info *si = n->priv;
  ep(e, "long long b, t;");
  ep(e, "for (b = 0; b < %lldLL; b++) {", (long long)si->batch);
  for (int i = 0; i < si->n_state; i++) {
    int64_t sb = value_bytes(body->inputs.v[i]);
    ep(e, "memcpy(%s, (const unsigned char *)X%d + b * %lldLL, %lld);", subgraph_ptr(e, n, body, "W", body->inputs.v[i], false),
       1 + i, (long long)sb, (long long)sb);
  }
  ep(e, "for (t = 0; t < %lldLL; t++) {", (long long)si->len);
  for (int j = 0; j < si->n_in; j++) {
    Value *bi = body->inputs.v[si->n_state + j];
    int64_t sb = value_bytes(bi);
    ep(e, "memcpy(%s, (const unsigned char *)X%d + (b * %lldLL + (%s)) * %lldLL, %lld);",
       subgraph_ptr(e, n, body, "W", bi, false), 1 + si->n_state + j, (long long)si->len,
       si->in_rev[j] ? fmt(e, "%lldLL - 1 - t", (long long)si->len) : "t", (long long)sb, (long long)sb);
  }
  emit_subgraph(e, n, body, "W");
  for (int i = 0; i < si->n_state; i++)
    emit_copy(e, subgraph_ptr(e, n, body, "W", body->inputs.v[i], false),
              subgraph_ptr(e, n, body, "W", body->outputs.v[i], true), value_bytes(body->inputs.v[i]));
  for (int k = 0; k < si->n_out; k++) {
    Value *o = body->outputs.v[si->n_state + k];
    if (!node_out(n, si->n_state + k)) continue;
    int64_t sb = value_bytes(o);
    ep(e, "if (Y%d) memcpy((unsigned char *)Y%d + (b * %lldLL + t) * %lldLL, %s, %lld);", si->n_state + k,
       si->n_state + k, (long long)si->len, (long long)sb, subgraph_ptr(e, n, body, "W", o, true), (long long)sb);
  }
  ep(e, "}");
  for (int i = 0; i < si->n_state; i++) {
    if (!node_out(n, i)) continue;
    int64_t sb = value_bytes(body->inputs.v[i]);
    ep(e, "if (Y%d) memcpy((unsigned char *)Y%d + b * %lldLL, %s, %lld);", i, i, (long long)sb,
       subgraph_ptr(e, n, body, "W", body->inputs.v[i], true), (long long)sb);
  }
  ep(e, "}");
}

static const OpDef control_rows[] = {
    {"Scan", "", 8, 8, 0, scan8_infer, NULL, scan8_emit, scan_scratch, "tensors of any type", NULL},
    {"If", "", 1, ONNXC_MAX_OPSET, 0, if_infer, if_fold, if_emit, if_scratch, "tensors of any type", NULL},
    {"Loop", "", 1, ONNXC_MAX_OPSET, 0, loop_infer, NULL, loop_emit, loop_scratch, "tensors of any type", NULL},
    {"Scan", "", 9, ONNXC_MAX_OPSET, 0, scan_infer, NULL, scan_emit, scan_scratch, "tensors of any type", NULL},
};
OPS_FAMILY(control);
