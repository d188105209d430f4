/*
 * recompute.c - `--recompute`: trade a little backward compute for training memory.
 *
 * Runs at the end of autodiff (autodiff.c), on a graph whose nodes [0, n_fwd) are the forward
 * pass and the rest its gradient.  Every forward value that a gradient node reads is kept
 * alive from the forward pass into the backward one; the planner must hold all of them at the
 * turn.  Some are cheap to compute again from values the backward pass keeps anyway: an
 * activation of a kept value, a training-mode BatchNormalization or a LayerNormalization of a
 * kept value (ConvGrad, BatchNormGrad and LayerNormGrad keep their input X), a view or a
 * residual Add of such values.  For those, this pass clones the producing node (and, through
 * chains of at most MAX_DEPTH cheap nodes, its cheap producers) and points the gradient
 * nodes at the clone's output: the original then dies in the forward pass, and the clone is
 * computed when the backward pass needs it (the schedulers place a node next to its
 * consumers; plan_best_order keeps the order with the smallest arena).
 *
 *   available(v): a constant or graph input; a forward value some gradient node reads (kept
 *                 anyway) unless it is being recomputed; or its recomputed clone.
 *   A kept value y of a cheap node is recomputed when each input of its node is available,
 *   or is the output of a cheap node whose inputs are (recursively, MAX_DEPTH deep).
 *
 * Forward nodes are visited in topological order, so a value is decided before the values
 * computed from it and its clone can serve them.  The clones go through infer_node(); they
 * have the forward nodes' attributes (a training-mode BatchNormalization's running-statistic
 * outputs get fresh values nobody reads).
 */
#include <string.h>

#include "onnxc.h"

#define MAX_DEPTH 3

typedef struct RC {
  Ctx *ctx;
  Graph *g;
  int n_fwd;
  int nv;               /* values when the pass started */
  bool *kept;           /* per value id: read by a gradient node */
  Value **clone;        /* per value id: its recomputed copy */
  int n_cloned;
  int n_all;            /* nodes before the clones: ids at or above it are clones */
} RC;

/* Ops worth recomputing: elementwise, views, and the normalizations whose input the gradient
   keeps (their statistics are two passes over a kept tensor). */
static bool cheap(const Node *n) {
  static const char *const ops[] = {
      "Relu", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "Clip", "Gelu", "Elu", "Softplus",
      "Softsign", "Erf", "Neg", "Identity", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "Add", "Sub", "Mul", "Div",
      "BatchNormalization", "LayerNormalization", NULL};
  if (*n->domain || n->dead || !n->outputs[0] || n->outputs[0]->data) return false;
  for (int i = 0; ops[i]; i++)
    if (!strcmp(n->op_type, ops[i])) return true;
  return false;
}

static bool free_value(const RC *rc, const Value *v) {
  return !v || v->data || v->kind == VAL_INPUT || !value_is_local(rc->g, v) || v->id >= rc->nv;
}

/* The backward side's copy of v: v itself when free or kept, else a clone built from available
   values (NULL when none within `depth`). */
static Value *avail(RC *rc, Value *v, int depth);

static Value *clone_of(RC *rc, Value *y, int depth) {
  Node *n = y->producer;
  if (!n || n->id >= rc->n_fwd || !cheap(n) || depth < 0) return NULL;
  /* only output 0 is recomputed (BatchNormalization / LayerNormalization statistics are not) */
  if (n->outputs[0] != y) return NULL;
  Value **ins = arena_alloc(&rc->ctx->arena, sizeof(Value *) * (size_t)(n->n_inputs + 1));
  for (int k = 0; k < n->n_inputs; k++) {
    if (!n->inputs[k]) continue;
    ins[k] = avail(rc, n->inputs[k], depth - 1);
    if (!ins[k]) return NULL;
  }
  Node *c = graph_new_node(rc->ctx, rc->g, n->op_type, arena_printf(&rc->ctx->arena, "%s_recompute", n->name),
                           n->n_inputs, n->n_outputs);
  c->domain = n->domain;
  c->opset = n->opset;
  c->n_explicit = n->n_explicit;
  c->attrs = n->attrs;
  c->n_attrs = n->n_attrs;
  for (int k = 0; k < n->n_inputs; k++) c->inputs[k] = ins[k];
  for (int k = 0; k < n->n_outputs; k++) {
    if (!n->outputs[k]) continue;
    Value *o = graph_new_value(rc->ctx, rc->g, arena_printf(&rc->ctx->arena, "%s_recompute", n->outputs[k]->name));
    o->producer = c;
    c->outputs[k] = o;
  }
  infer_node(rc->ctx, c);
  rc->clone[y->id] = c->outputs[0];
  rc->n_cloned++;
  return c->outputs[0];
}

static Value *avail(RC *rc, Value *v, int depth) {
  if (free_value(rc, v)) return v;
  if (rc->clone[v->id]) return rc->clone[v->id];
  if (rc->kept[v->id]) return v;
  return clone_of(rc, v, depth);
}

/* Appends clone c after the clones it reads (once). */
static void place(RC *rc, PtrVec *order, bool *placed, Node *c) {
  if (placed[c->id]) return;
  placed[c->id] = true;
  for (int k = 0; k < c->n_inputs; k++) {
    Value *v = c->inputs[k];
    if (v && v->producer && v->producer->id >= rc->n_all) place(rc, order, placed, v->producer);
  }
  vec_push(&rc->ctx->arena, order, c);
}

void recompute_forward(Ctx *ctx, Graph *g, int n_fwd) {
  RC R = {ctx, g, n_fwd, g->values.n, NULL, NULL, 0, g->nodes.n}, *rc = &R;
  rc->kept = arena_alloc(&ctx->arena, (size_t)rc->nv + 1);
  rc->clone = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(rc->nv + 1));
  int n_all = g->nodes.n;
  for (int i = 0; i < n_all; i++) ((Node *)g->nodes.v[i])->id = i;
  for (int i = n_fwd; i < n_all; i++) {
    Node *n = g->nodes.v[i];
    for (int k = 0; k < n->n_inputs; k++)
      if (!free_value(rc, n->inputs[k])) rc->kept[n->inputs[k]->id] = true;
  }
  for (int i = 0; i < n_fwd; i++) {
    Node *n = g->nodes.v[i];
    Value *y = n->outputs[0];
    if (!cheap(n) || free_value(rc, y) || !rc->kept[y->id] || y->is_output) continue;
    /* y is decided now: while its clone is built it does not count as available */
    rc->kept[y->id] = false;
    if (!clone_of(rc, y, MAX_DEPTH)) rc->kept[y->id] = true;
  }
  /* the gradient nodes read the clones; each clone goes into the node list (kept in
     topological order) just before the first gradient node that needs it */
  PtrVec order = {0};
  for (int i = 0; i < n_fwd; i++) vec_push(&ctx->arena, &order, g->nodes.v[i]);
  bool *placed = arena_alloc(&ctx->arena, (size_t)g->nodes.n + 1);
  for (int i = n_fwd; i < n_all; i++) {
    Node *n = g->nodes.v[i];
    for (int k = 0; k < n->n_inputs; k++) {
      Value *v = n->inputs[k];
      if (free_value(rc, v) || !rc->clone[v->id]) continue;
      n->inputs[k] = rc->clone[v->id];
      place(rc, &order, placed, n->inputs[k]->producer);
    }
    vec_push(&ctx->arena, &order, n);
  }
  g->nodes = order;
  if (ctx->verbose > 1) fprintf(stderr, "onnxc: --recompute: %d forward values recomputed in the backward pass\n", rc->n_cloned);
}
