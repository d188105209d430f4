/*
 * unroll.c - subgraphs spliced into their owner's graph: Loop unrolling and SequenceMap.
 *
 * A Loop runs as a C loop when its body has one static form for every iteration
 * (ops_control.c).  Some bodies do not: a carried sequence grows by an item per iteration, the
 * body picks item i of an outer sequence (SequenceAt with the iteration number), or a shape
 * input is computed from the iteration number (a Slice start).  When the trip count and the
 * condition are known at compile time, such a Loop is unrolled: for i = 0, 1, ... a fresh copy
 * of the body is spliced into the graph right after the Loop node, its inputs bound to the
 * constant i, the condition and the values the previous copy carried out, and inferred at once
 * (so the iteration number folds into every shape that needs it, and the condition the copy
 * computes is known before the next one is made).  The copies stop at M iterations or when the
 * condition turns false; it must stay a compile-time constant.  Then Identity nodes hand the
 * last carried values to the Loop's outputs, and scan outputs are stacked by
 * SequenceConstruct + ConcatFromSequence(new_axis); the Loop node is left with no inputs or
 * outputs (dead).  SequenceMap is the same splice, once per item of its input sequences.
 *
 * Copies are made from the body as loaded (never inferred: inference rewrites nodes in place),
 * with fresh Values ("name@i") and nested subgraphs copied too; values of enclosing graphs are
 * shared.  graph_clone() gives such a copy as a subgraph of its own (the Loop's try at a
 * run-time loop infers a copy, so that the loaded body stays fresh for unrolling).
 */
#include <math.h>
#include <string.h>

#include "onnxc.h"

#define UNROLL_MAX_ITERS 4096
#define UNROLL_MAX_NODES 200000

/* Values of a graph being copied (src) -> their copies; outer maps for enclosing graphs. */
typedef struct CloneMap {
  const struct CloneMap *outer;
  Graph *src;
  Value **to;
} CloneMap;

static Value *map_value(const CloneMap *m, Value *v) {
  if (!v) return NULL;
  for (; m; m = m->outer)
    if (value_is_local(m->src, v) && m->to[v->id]) return m->to[v->id];
  return v;
}

static Value *clone_value(Ctx *ctx, Graph *g, const Value *v, const char *name) {
  Value *c = graph_new_value(ctx, g, name);
  c->kind = v->kind;
  c->typed = v->typed;
  c->dtype = v->dtype;
  c->rank = v->rank;
  memcpy(c->dims, v->dims, sizeof c->dims);
  c->data = v->data; /* constants are never written */
  c->is_output = v->is_output;
  return c;
}

static Graph *clone_graph(Ctx *ctx, Graph *sub, Graph *parent, const CloneMap *outer);

/* A copy of node n appended to g's nodes, its values mapped through m. */
static Node *clone_node(Ctx *ctx, Graph *g, Node *n, const CloneMap *m) {
  Node *c = graph_new_node(ctx, g, n->op_type, n->name, n->n_inputs, n->n_outputs);
  c->domain = n->domain;
  c->opset = n->opset;
  c->n_explicit = n->n_explicit;
  for (int k = 0; k < n->n_inputs; k++) c->inputs[k] = map_value(m, n->inputs[k]);
  for (int k = 0; k < n->n_outputs; k++) {
    c->outputs[k] = map_value(m, n->outputs[k]);
    if (c->outputs[k]) c->outputs[k]->producer = c;
  }
  c->n_attrs = n->n_attrs;
  c->attrs = arena_alloc(&ctx->arena, sizeof(Attr) * (size_t)(n->n_attrs + 1));
  for (int k = 0; k < n->n_attrs; k++) {
    c->attrs[k] = n->attrs[k];
    if (n->attrs[k].g) c->attrs[k].g = clone_graph(ctx, n->attrs[k].g, g, m);
  }
  return c;
}

static void map_list(const CloneMap *m, const PtrVec *from, PtrVec *to, Ctx *ctx) {
  for (int i = 0; i < from->n; i++) vec_push(&ctx->arena, to, map_value(m, from->v[i]));
}

static Graph *clone_graph(Ctx *ctx, Graph *sub, Graph *parent, const CloneMap *outer) {
  Graph *g = graph_new(ctx, parent);
  g->is_sub = sub->is_sub;
  CloneMap m = {outer, sub, arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(sub->values.n + 1))};
  for (int i = 0; i < sub->values.n; i++) {
    Value *v = sub->values.v[i];
    m.to[i] = clone_value(ctx, g, v, v->name);
  }
  map_list(&m, &sub->inputs, &g->inputs, ctx);
  map_list(&m, &sub->outputs, &g->outputs, ctx);
  map_list(&m, &sub->inits, &g->inits, ctx);
  for (int i = 0; i < sub->nodes.n; i++) clone_node(ctx, g, sub->nodes.v[i], &m);
  return g;
}

Graph *graph_clone(Ctx *ctx, Graph *sub, Graph *parent) { return clone_graph(ctx, sub, parent, NULL); }

/* ---- splicing --------------------------------------------------------------------------- */

static int node_index(Graph *g, Node *n) {
  for (int i = g->nodes.n - 1; i >= 0; i--)
    if (g->nodes.v[i] == n) return i;
  unreachable("node not in its graph");
}

/* Moves g's nodes [from, end) to just after index `at` (at < from). */
static void move_tail(Graph *g, int from, int at) {
  int cnt = g->nodes.n - from;
  for (int r = 0; r < cnt; r++) {
    void *x = g->nodes.v[from + r];
    for (int i = from + r; i > at + 1 + r; i--) g->nodes.v[i] = g->nodes.v[i - 1];
    g->nodes.v[at + 1 + r] = x;
  }
}

/* Infers g's nodes from index `from` through `last` (those spliced in; nested unrolls insert
   theirs in between, already inferred). */
static void infer_range(Ctx *ctx, Graph *g, int from, Node *last) {
  for (int j = from; j < g->nodes.n; j++) {
    Node *x = g->nodes.v[j];
    if (!x->inferred) infer_visit(ctx, x);
    if (x == last) return;
  }
  unreachable("spliced nodes lost");
}

typedef struct Splice {
  Graph *g;
  int at;          /* index of the last node placed so far */
  int64_t nodes;   /* nodes spliced in so far */
  Node *owner;
} Splice;

/* Splices a copy of `body` (verified) after sp->at with its inputs bound to ins; returns the
   images of its outputs.  The copy is inferred. */
static Value **splice_body(Ctx *ctx, Splice *sp, Graph *body, Value *const *ins, int iter) {
  Graph *g = sp->g;
  CloneMap m = {NULL, body, arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(body->values.n + 1))};
  for (int i = 0; i < body->inputs.n; i++) m.to[((Value *)body->inputs.v[i])->id] = ins[i];
  for (int i = 0; i < body->values.n; i++)
    if (!m.to[i]) {
      Value *v = body->values.v[i];
      m.to[i] = clone_value(ctx, g, v, arena_printf(&ctx->arena, "%s@%d", v->name, iter));
      m.to[i]->is_output = false;
    }
  int from = g->nodes.n;
  for (int i = 0; i < body->nodes.n; i++) clone_node(ctx, g, body->nodes.v[i], &m);
  int cnt = g->nodes.n - from;
  sp->nodes += cnt;
  if (sp->nodes > UNROLL_MAX_NODES)
    fail_node(ctx, sp->owner, "unrolled, this node would become more than %d nodes", UNROLL_MAX_NODES);
  Value **outs = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(body->outputs.n + 1));
  for (int i = 0; i < body->outputs.n; i++) outs[i] = map_value(&m, body->outputs.v[i]);
  if (!cnt) return outs;
  Node *last = g->nodes.v[g->nodes.n - 1];
  move_tail(g, from, sp->at);
  infer_range(ctx, g, sp->at + 1, last);
  sp->at = node_index(g, last);
  return outs;
}

/* A new node of sp->g after sp->at, inferred at once. */
static Node *splice_node(Ctx *ctx, Splice *sp, const char *op, const char *name, int n_in, Value *out) {
  Graph *g = sp->g;
  Node *x = graph_new_node(ctx, g, op, name, n_in, 1);
  x->opset = sp->owner->opset > 0 ? sp->owner->opset : ctx->opset;
  x->outputs[0] = out;
  out->producer = x;
  move_tail(g, g->nodes.n - 1, sp->at);
  sp->at++;
  return x;
}

/* The owner's outputs become values made by new nodes; the owner keeps nothing. */
static void fresh_output(Value *y) {
  y->seq = NULL;
  y->opt = NULL;
  y->data = NULL;
  y->kind = VAL_INTERMEDIATE;
  y->dynamic = false;
}

static void detach(Node *n) {
  n->n_inputs = n->n_explicit = 0;
  n->n_outputs = 0;
  n->priv = NULL;
}

static Value *const_scalar(Ctx *ctx, Graph *g, const char *name, int dtype, int rank, int64_t x) {
  Value *v = graph_new_value(ctx, g, name);
  int64_t one = 1;
  value_set_shape(v, dtype, rank, &one);
  value_alloc_data(ctx, v);
  const_set_i(v, 0, x);
  return v;
}

/* ---- Loop ----------------------------------------------------------------------------- */

void loop_unroll(Ctx *ctx, Node *n, Graph *body, const char *why) {
  Graph *g = infer_graph(ctx);
  int nc = n->n_explicit - 2;
  if (nc < 0) fail_node(ctx, n, "expects M, cond and the loop-carried values as inputs");
  const char *pre = arena_printf(&ctx->arena, "%s; onnxc unrolls such a Loop, so its", why);
  int64_t trip = UNROLL_MAX_ITERS + 1;
  if (node_in(n, 0)) {
    Value *m = node_const_in_why(ctx, n, 0, "trip count M", pre);
    if (value_numel(m) != 1 || !dtype_is_int(m->dtype)) fail_node(ctx, n, "M must be one integer");
    trip = const_get_i(m, 0) < 0 ? 0 : const_get_i(m, 0);
  }
  bool c = true;
  if (node_in(n, 1)) {
    Value *cv = node_const_in_why(ctx, n, 1, "loop condition", pre);
    if (value_numel(cv) != 1 || cv->dtype != DT_BOOL) fail_node(ctx, n, "cond must be a one-element bool tensor");
    c = const_get_i(cv, 0) != 0;
  }
  graph_verify(ctx, body);
  if (body->inputs.n != nc + 2) fail_node(ctx, n, "the body takes %d inputs; expected %d", body->inputs.n, nc + 2);
  if (body->outputs.n < nc + 1) fail_node(ctx, n, "the body gives %d outputs; expected at least %d", body->outputs.n, nc + 1);
  int ns = body->outputs.n - 1 - nc;
  Value **ins = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(nc + 3));
  for (int i = 0; i < nc; i++) {
    ins[2 + i] = node_in(n, 2 + i);
    if (!ins[2 + i]) fail_node(ctx, n, "loop-carried input %d is missing", i);
  }
  PtrVec *scans = arena_alloc(&ctx->arena, sizeof(PtrVec) * (size_t)(ns + 1));
  Splice sp = {g, node_index(g, n), 0, n};
  int it_rank = ((Value *)body->inputs.v[0])->rank == 1 ? 1 : 0;
  int c_rank = ((Value *)body->inputs.v[1])->rank == 1 ? 1 : 0;
  if (node_in(n, 0) && c && trip > UNROLL_MAX_ITERS)
    fail_node(ctx, n, "%s; onnxc unrolls such a Loop, and this one runs more than %d iterations", why, UNROLL_MAX_ITERS);
  int64_t i = 0;
  for (; i < trip && c; i++) {
    if (i == UNROLL_MAX_ITERS)
      fail_node(ctx, n, "%s; onnxc unrolls such a Loop, and this one runs more than %d iterations", why, UNROLL_MAX_ITERS);
    ins[0] = const_scalar(ctx, g, arena_printf(&ctx->arena, "%s/iter@%lld", n->name, (long long)i), DT_INT64, it_rank, i);
    ins[1] = const_scalar(ctx, g, arena_printf(&ctx->arena, "%s/cond@%lld", n->name, (long long)i), DT_BOOL, c_rank, 1);
    Value **outs = splice_body(ctx, &sp, body, ins, (int)i);
    Value *co = outs[0];
    if (value_is_structured(co) || co->dtype != DT_BOOL || value_numel(co) != 1)
      fail_node(ctx, n, "the body's condition output must be a one-element bool");
    if (!co->data)
      fail_node(ctx, n, "%s; onnxc unrolls such a Loop, so the condition its body computes ('%s') must be known at "
                "compile time, and it is computed at run time", why, ((Value *)body->outputs.v[0])->name);
    c = const_get_i(co, 0) != 0;
    for (int k = 0; k < nc; k++) ins[2 + k] = outs[1 + k];
    for (int k = 0; k < ns; k++) {
      if (value_is_structured(outs[1 + nc + k])) fail_node(ctx, n, "scan output %d is not a tensor", k);
      vec_push(&ctx->arena, &scans[k], outs[1 + nc + k]);
    }
  }
  for (int k = 0; k < nc; k++) {
    Value *y = node_out(n, k);
    if (!y) continue;
    fresh_output(y);
    Node *id = splice_node(ctx, &sp, "Identity", arena_printf(&ctx->arena, "%s/out%d", n->name, k), 1, y);
    id->inputs[0] = ins[2 + k];
    infer_visit(ctx, id);
  }
  for (int k = 0; k < ns; k++) {
    Value *y = node_out(n, nc + k);
    if (!y) continue;
    if (!scans[k].n) fail_node(ctx, n, "scan output %d of a Loop that runs no iteration (its shape is unknown)", k);
    fresh_output(y);
    Value *s = graph_new_value(ctx, g, arena_printf(&ctx->arena, "%s/scan%d", n->name, k));
    Node *sc = splice_node(ctx, &sp, "SequenceConstruct", arena_printf(&ctx->arena, "%s/scan%d", n->name, k), scans[k].n, s);
    for (int q = 0; q < scans[k].n; q++) sc->inputs[q] = scans[k].v[q];
    infer_visit(ctx, sc);
    Node *cat = splice_node(ctx, &sp, "ConcatFromSequence", arena_printf(&ctx->arena, "%s/stack%d", n->name, k), 1, y);
    cat->inputs[0] = s;
    node_set_attr_i(ctx, cat, "axis", 0);
    node_set_attr_i(ctx, cat, "new_axis", 1);
    infer_visit(ctx, cat);
  }
  detach(n);
}

/* ---- SequenceMap ---------------------------------------------------------------------- */

void sequence_map_infer(Ctx *ctx, Node *n) {
  Graph *g = infer_graph(ctx);
  const Attr *a = node_attr(n, "body");
  if (!a || !a->g) fail_node(ctx, n, "missing graph attribute 'body'");
  Graph *body = a->g;
  int ni = n->n_explicit;
  Value *s0 = node_in(n, 0);
  if (!s0 || !s0->seq) fail_node(ctx, n, "input 0 must be a sequence");
  int cnt = s0->seq->n;
  for (int k = 0; k < ni; k++) {
    Value *x = node_in(n, k);
    if (!x) fail_node(ctx, n, "input %d is missing", k);
    if (x->opt) fail_node(ctx, n, "input %d is an optional; SequenceMap takes sequences and tensors", k);
    if (x->seq && x->seq->n != cnt)
      fail_node(ctx, n, "input sequences have %d and %d items; they must have the same length", cnt, x->seq->n);
  }
  if (!cnt) fail_node(ctx, n, "mapping an empty sequence (onnxc needs at least one item to type the outputs)");
  graph_verify(ctx, body);
  if (body->inputs.n != ni) fail_node(ctx, n, "the body takes %d inputs for %d node inputs", body->inputs.n, ni);
  if (body->outputs.n != n->n_outputs)
    fail_node(ctx, n, "the body gives %d outputs for %d node outputs", body->outputs.n, n->n_outputs);
  int no = n->n_outputs;
  PtrVec *items = arena_alloc(&ctx->arena, sizeof(PtrVec) * (size_t)(no + 1));
  Value **ins = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(ni + 1));
  Splice sp = {g, node_index(g, n), 0, n};
  for (int i = 0; i < cnt; i++) {
    for (int k = 0; k < ni; k++) {
      Value *x = node_in(n, k);
      ins[k] = x->seq ? x->seq->v[i] : x;
    }
    Value **outs = splice_body(ctx, &sp, body, ins, i);
    for (int k = 0; k < no; k++) {
      if (value_is_structured(outs[k])) fail_node(ctx, n, "body output %d is not a tensor", k);
      vec_push(&ctx->arena, &items[k], outs[k]);
    }
  }
  for (int k = 0; k < no; k++) {
    Value *y = node_out(n, k);
    if (!y) continue;
    fresh_output(y);
    Node *sc = splice_node(ctx, &sp, "SequenceConstruct", arena_printf(&ctx->arena, "%s/out%d", n->name, k), items[k].n, y);
    for (int q = 0; q < items[k].n; q++) sc->inputs[q] = items[k].v[q];
    infer_visit(ctx, sc);
  }
  detach(n);
}

/* ---- FlexAttention with score_mod / prob_mod ---------------------------------------------- */

static Node *flex_node(Ctx *ctx, Splice *sp, const char *op, const char *what, Value *a, Value *b) {
  Value *y = graph_new_value(ctx, sp->g, arena_printf(&ctx->arena, "%s/%s", sp->owner->name, what));
  Node *x = splice_node(ctx, sp, op, arena_printf(&ctx->arena, "%s/%s", sp->owner->name, what), b ? 2 : 1, y);
  x->opset = ctx->opset; /* standard ops of the model's default domain, not the preview domain's */
  x->inputs[0] = a;
  if (b) x->inputs[1] = b;
  return x;
}

static Value *flex_ints(Ctx *ctx, Graph *g, const char *name, int n, const int64_t *v) {
  Value *c = graph_new_value(ctx, g, name);
  int64_t d = n;
  value_set_shape(c, DT_INT64, 1, &d);
  c->typed = true;
  value_alloc_data(ctx, c);
  c->kind = VAL_CONST;
  for (int i = 0; i < n; i++) const_set_i(c, i, v[i]);
  return c;
}

/* K or V [B, Hkv, S, E] with each head repeated rep times ([B, Hkv * rep, S, E]; np.repeat). */
static Value *flex_repeat(Ctx *ctx, Splice *sp, Value *x, int64_t rep, const char *what) {
  const int64_t *d = x->dims;
  int64_t s5[5] = {d[0], d[1], 1, d[2], d[3]}, e5[5] = {d[0], d[1], rep, d[2], d[3]}, s4[4] = {d[0], d[1] * rep, d[2], d[3]};
  Node *r = flex_node(ctx, sp, "Reshape", arena_printf(&ctx->arena, "%s_5d", what), x,
                      flex_ints(ctx, sp->g, arena_printf(&ctx->arena, "%s/%s_s5", sp->owner->name, what), 5, s5));
  infer_visit(ctx, r);
  Node *ex = flex_node(ctx, sp, "Expand", arena_printf(&ctx->arena, "%s_rep", what), r->outputs[0],
                       flex_ints(ctx, sp->g, arena_printf(&ctx->arena, "%s/%s_e5", sp->owner->name, what), 5, e5));
  infer_visit(ctx, ex);
  Node *r4 = flex_node(ctx, sp, "Reshape", arena_printf(&ctx->arena, "%s_4d", what), ex->outputs[0],
                       flex_ints(ctx, sp->g, arena_printf(&ctx->arena, "%s/%s_s4", sp->owner->name, what), 4, s4));
  infer_visit(ctx, r4);
  return r4->outputs[0];
}

/* Splices mod (a one-input, one-output graph) applied to x; returns its output. */
static Value *flex_mod(Ctx *ctx, Splice *sp, const char *attr, Value *x) {
  const Attr *a = node_attr(sp->owner, attr);
  if (!a) return x;
  if (!a->g) fail_node(ctx, sp->owner, "attribute '%s' is not a graph", attr);
  graph_verify(ctx, a->g);
  if (a->g->inputs.n != 1 || a->g->outputs.n != 1)
    fail_node(ctx, sp->owner, "%s takes %d inputs and gives %d outputs; it must take and give one tensor", attr,
              a->g->inputs.n, a->g->outputs.n);
  Value *y = splice_body(ctx, sp, a->g, &x, 0)[0];
  if (value_is_structured(y) || y->dtype != x->dtype || !same_shape(x, y))
    fail_node(ctx, sp->owner, "%s must give a tensor of its input's type and shape", attr);
  return y;
}

/* FlexAttention (ai.onnx.preview) with score_mod and/or prob_mod, as the ONNX reference computes
   it, expanded into standard ops around the spliced subgraphs: Q and K pre-scaled by
   sqrt(scale), K and V heads repeated for grouped queries, scores = Q K^T, score_mod,
   Softmax over the keys, prob_mod, probs V.  float and double (the softmax in the input type). */
void flex_attention_expand(Ctx *ctx, Node *n) {
  Graph *g = infer_graph(ctx);
  Value *Q = n->inputs[0], *K = n->inputs[1], *V = n->inputs[2], *y = node_out(n, 0);
  int qt = Q->dtype;
  if (qt != DT_FLOAT && qt != DT_DOUBLE)
    fail_node(ctx, n, "score_mod/prob_mod are supported for float and double, not %s", dtype_name(qt));
  if (K->dtype != qt || V->dtype != qt) fail_node(ctx, n, "Q, K and V must have the same element type");
  int64_t Hq = Q->dims[1], E = Q->dims[3], Hkv = K->dims[1];
  if (K->dims[0] != Q->dims[0] || V->dims[0] != Q->dims[0] || K->dims[3] != E || V->dims[1] != Hkv ||
      V->dims[2] != K->dims[2])
    fail_node(ctx, n, "Q, K and V shapes do not match (batch, heads, key length, head size)");
  if (Hkv <= 0 || Hq % Hkv) fail_node(ctx, n, "query heads %lld are not a multiple of key/value heads %lld", (long long)Hq, (long long)Hkv);
  const Attr *sp_attr = node_attr(n, "softmax_precision");
  if (sp_attr && sp_attr->i != qt) fail_node(ctx, n, "softmax_precision other than the input type is not supported");
  if (!y) fail_node(ctx, n, "missing output");
  const Attr *sa = node_attr(n, "scale");
  double scale = sa ? sa->f : 1.0 / sqrt((double)E);
  Splice sp = {g, node_index(g, n), 0, n};
  /* sqrt(scale) in float, then in the input type (as the reference rounds it) */
  Value *c = graph_new_value(ctx, g, arena_printf(&ctx->arena, "%s/sqrt_scale", n->name));
  value_set_shape(c, qt, 0, NULL);
  c->typed = true;
  value_alloc_data(ctx, c);
  c->kind = VAL_CONST;
  const_set_f(c, 0, (double)sqrtf((float)scale));
  Node *qs = flex_node(ctx, &sp, "Mul", "q_scaled", Q, c);
  infer_visit(ctx, qs);
  Node *ks = flex_node(ctx, &sp, "Mul", "k_scaled", K, c);
  infer_visit(ctx, ks);
  Value *kk = ks->outputs[0], *vv = V;
  if (Hq != Hkv) {
    kk = flex_repeat(ctx, &sp, kk, Hq / Hkv, "k");
    vv = flex_repeat(ctx, &sp, V, Hq / Hkv, "v");
  }
  Node *kt = flex_node(ctx, &sp, "Transpose", "k_t", kk, NULL);
  static int64_t perm[4] = {0, 1, 3, 2};
  kt->attrs = arena_alloc(&ctx->arena, sizeof(Attr));
  kt->attrs[0] = (Attr){.name = "perm", .type = ATTR_INTS, .ints = perm, .n_ints = 4};
  kt->n_attrs = 1;
  infer_visit(ctx, kt);
  Node *mm = flex_node(ctx, &sp, "MatMul", "scores", qs->outputs[0], kt->outputs[0]);
  infer_visit(ctx, mm);
  Value *s = flex_mod(ctx, &sp, "score_mod", mm->outputs[0]);
  Node *sm = flex_node(ctx, &sp, "Softmax", "probs", s, NULL);
  sm->attrs = arena_alloc(&ctx->arena, sizeof(Attr));
  sm->attrs[0] = (Attr){.name = "axis", .type = ATTR_INT, .i = -1};
  sm->n_attrs = 1;
  infer_visit(ctx, sm);
  Value *p = flex_mod(ctx, &sp, "prob_mod", sm->outputs[0]);
  fresh_output(y);
  Node *out = splice_node(ctx, &sp, "MatMul", arena_printf(&ctx->arena, "%s/out", n->name), 2, y);
  out->opset = ctx->opset;
  out->inputs[0] = p;
  out->inputs[1] = vv;
  infer_visit(ctx, out);
  detach(n);
}
