/*
 * ir.c - building, querying and checking the graph.
 *
 * graph_verify() is the invariant check that runs between passes: every node input is defined
 * (a graph input, an initializer, a value of an enclosing graph, or the output of some node),
 * no value has two producers, and the nodes can be ordered topologically (Kahn's algorithm; a
 * leftover node means a cycle).  It leaves g->nodes in that topological order, keeping the
 * model's order among independent nodes so the result is deterministic.
 */
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

Graph *graph_new(Ctx *ctx, Graph *parent) {
  Graph *g = arena_alloc(&ctx->arena, sizeof *g);
  g->parent = parent;
  return g;
}

Value *graph_new_value(Ctx *ctx, Graph *g, const char *name) {
  Value *v = arena_alloc(&ctx->arena, sizeof *v);
  v->name = arena_strdup(&ctx->arena, name ? name : "");
  v->id = g->values.n;
  v->offset = -1;
  v->first = v->last = -1;
  v->decl_rank = -1;
  vec_push(&ctx->arena, &g->values, v);
  return v;
}

bool value_is_local(const Graph *g, const Value *v) {
  return v && v->id >= 0 && v->id < g->values.n && g->values.v[v->id] == v;
}

static void push_unique(Ctx *ctx, PtrVec *out, Value *v) {
  for (int i = 0; i < out->n; i++)
    if (out->v[i] == v) return;
  vec_push(&ctx->arena, out, v);
}

void subgraph_free_values(Ctx *ctx, Graph *sub, PtrVec *out) {
  for (int i = 0; i < sub->nodes.n; i++) {
    Node *n = sub->nodes.v[i];
    /* explicit inputs and, through the hidden inputs, what nested subgraphs read */
    for (int k = 0; k < n->n_inputs; k++) {
      Value *v = n->inputs[k];
      if (v && !value_is_local(sub, v)) push_unique(ctx, out, v);
    }
  }
  for (int i = 0; i < sub->outputs.n; i++) {
    Value *v = sub->outputs.v[i];
    if (!value_is_local(sub, v)) push_unique(ctx, out, v);
  }
}

Value *graph_find_value(Graph *g, const char *name) {
  for (; g; g = g->parent)
    for (int i = g->values.n - 1; i >= 0; i--) {
      Value *v = g->values.v[i];
      if (strcmp(v->name, name) == 0) return v;
    }
  return NULL;
}

Node *graph_new_node(Ctx *ctx, Graph *g, const char *op_type, const char *name, int n_in, int n_out) {
  Node *n = arena_alloc(&ctx->arena, sizeof *n);
  n->op_type = arena_strdup(&ctx->arena, op_type);
  n->name = arena_strdup(&ctx->arena, name ? name : "");
  n->domain = "";
  n->opset = ctx->opset;
  n->n_inputs = n_in;
  n->n_explicit = n_in;
  n->scratch_cap = -1;
  n->n_outputs = n_out;
  n->inputs = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(n_in + 1));
  n->outputs = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(n_out + 1));
  n->id = g->nodes.n;
  vec_push(&ctx->arena, &g->nodes, n);
  return n;
}

void *value_alloc_data(Ctx *ctx, Value *v) {
  int64_t bytes = value_bytes(v);
  v->data = arena_alloc(&ctx->arena, (size_t)(bytes > 0 ? bytes : 1));
  v->kind = VAL_CONST;
  return v->data;
}

void graph_verify(Ctx *ctx, Graph *g) {
  int nn = g->nodes.n;
  for (int i = 0; i < g->values.n; i++) {
    Value *v = g->values.v[i];
    v->id = i;
    v->producer = NULL;
    v->n_consumers = 0;
  }
  for (int i = 0; i < nn; i++) {
    Node *n = g->nodes.v[i];
    for (int k = 0; k < n->n_outputs; k++) {
      Value *v = n->outputs[k];
      if (!v) continue;
      if (v->producer)
        fail_node(ctx, n, "output '%s' is also produced by node '%s'", v->name, v->producer->name);
      if (v->kind != VAL_INTERMEDIATE)
        fail_node(ctx, n, "output '%s' is a graph input or initializer", v->name);
      v->producer = n;
    }
  }
  /* Kahn's algorithm; indegree counts distinct producing nodes within this graph. */
  int *indeg = arena_alloc(&ctx->arena, sizeof(int) * ((size_t)nn + 1));
  int *order = arena_alloc(&ctx->arena, sizeof(int) * ((size_t)nn + 1));
  char *done = arena_alloc(&ctx->arena, (size_t)nn + 1);
  for (int i = 0; i < nn; i++) {
    Node *n = g->nodes.v[i];
    n->id = i;
  }
  for (int i = 0; i < nn; i++) {
    Node *n = g->nodes.v[i];
    for (int k = 0; k < n->n_inputs; k++) {
      Value *v = n->inputs[k];
      if (!v) continue;
      v->n_consumers++;
      bool local = v->id < g->values.n && g->values.v[v->id] == v;
      if (v->producer && local) indeg[i]++;
      else if (v->kind == VAL_INTERMEDIATE && !graph_find_value(g->parent, v->name))
        fail_node(ctx, n, "input '%s' is not produced by any node, graph input or initializer",
                  v->name);
    }
  }
  /* consumers of each value, as node indices (CSR layout) */
  int nv = g->values.n;
  int *cstart = arena_alloc(&ctx->arena, sizeof(int) * ((size_t)nv + 2));
  int total = 0;
  for (int i = 0; i < nn; i++) {
    Node *n = g->nodes.v[i];
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k] && n->inputs[k]->producer && n->inputs[k]->id < nv && g->values.v[n->inputs[k]->id] == n->inputs[k]) {
        cstart[n->inputs[k]->id + 1]++;
        total++;
      }
  }
  for (int v = 0; v < nv; v++) cstart[v + 1] += cstart[v];
  int *cons = arena_alloc(&ctx->arena, sizeof(int) * ((size_t)total + 1)), *fill = arena_alloc(&ctx->arena, sizeof(int) * ((size_t)nv + 1));
  for (int i = 0; i < nn; i++) {
    Node *n = g->nodes.v[i];
    for (int k = 0; k < n->n_inputs; k++) {
      Value *v = n->inputs[k];
      if (v && v->producer && v->id < nv && g->values.v[v->id] == v) cons[cstart[v->id] + fill[v->id]++] = i;
    }
  }
  /* Kahn's algorithm with a min-heap on model position, so independent nodes keep the
     model's order and the result is deterministic. */
  int *heap = arena_alloc(&ctx->arena, sizeof(int) * ((size_t)nn + 1));
  int hn = 0, tail = 0;
#define HEAP_PUSH(x)                                                      \
  do {                                                                    \
    int c_ = hn++;                                                        \
    heap[c_] = (x);                                                       \
    while (c_ > 0 && heap[(c_ - 1) / 2] > heap[c_]) {                     \
      int p_ = (c_ - 1) / 2, t_ = heap[p_];                               \
      heap[p_] = heap[c_];                                                \
      heap[c_] = t_;                                                      \
      c_ = p_;                                                            \
    }                                                                     \
  } while (0)
  for (int i = 0; i < nn; i++)
    if (indeg[i] == 0) HEAP_PUSH(i);
  while (hn > 0) {
    int i = heap[0];
    heap[0] = heap[--hn];
    for (int c = 0;;) {
      int l = 2 * c + 1, r = l + 1, m = c;
      if (l < hn && heap[l] < heap[m]) m = l;
      if (r < hn && heap[r] < heap[m]) m = r;
      if (m == c) break;
      int t = heap[m];
      heap[m] = heap[c];
      heap[c] = t;
      c = m;
    }
    done[i] = 1;
    order[tail++] = i;
    Node *n = g->nodes.v[i];
    for (int k = 0; k < n->n_outputs; k++) {
      Value *v = n->outputs[k];
      if (!v || v->id >= nv || g->values.v[v->id] != v) continue;
      for (int q = cstart[v->id]; q < cstart[v->id + 1]; q++)
        if (--indeg[cons[q]] == 0) HEAP_PUSH(cons[q]);
    }
  }
#undef HEAP_PUSH
  if (tail < nn) {
    for (int i = 0; i < nn; i++)
      if (!done[i]) {
        Node *bad = g->nodes.v[i];
        fail_node(ctx, bad, "the graph has a cycle through this node");
      }
  }
  Node **sorted = arena_alloc(&ctx->arena, sizeof(Node *) * (size_t)(nn + 1));
  for (int i = 0; i < nn; i++) sorted[i] = g->nodes.v[order[i]];
  for (int i = 0; i < nn; i++) {
    g->nodes.v[i] = sorted[i];
    sorted[i]->id = i;
  }
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    if (!v->producer && v->kind == VAL_INTERMEDIATE && !graph_find_value(g->parent, v->name))
      fail(ctx, "graph output '%s' is not produced by any node", v->name);
  }
}

void graph_dump(Ctx *ctx, Graph *g, FILE *f, const char *title) {
  fprintf(f, "== IR after %s ==\n", title);
  for (int i = 0; i < g->inputs.n; i++) {
    Value *v = g->inputs.v[i];
    fprintf(f, "input %s : %s%s\n", v->name, dtype_name(v->dtype), shape_str(&ctx->arena, v));
  }
  for (int i = 0; i < g->nodes.n; i++) {
    Node *n = g->nodes.v[i];
    if (n->dead) continue;
    fprintf(f, "%4d %s '%s' (", i, n->op_type, n->name);
    for (int k = 0; k < n->n_inputs; k++)
      fprintf(f, "%s%s", k ? ", " : "", n->inputs[k] ? n->inputs[k]->name : "-");
    fprintf(f, ") -> ");
    for (int k = 0; k < n->n_outputs; k++) {
      Value *v = n->outputs[k];
      if (!v) { fprintf(f, "%s-", k ? ", " : ""); continue; }
      fprintf(f, "%s%s : %s%s%s", k ? ", " : "", v->name, dtype_name(v->dtype),
              v->typed ? shape_str(&ctx->arena, v) : "?", v->data ? " const" : "");
    }
    fprintf(f, "\n");
  }
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    fprintf(f, "output %s\n", v->name);
  }
}

const Attr *node_attr(const Node *n, const char *name) {
  for (int i = 0; i < n->n_attrs; i++)
    if (strcmp(n->attrs[i].name, name) == 0) return &n->attrs[i];
  return NULL;
}

Attr *node_add_attr(Ctx *ctx, Node *n, const char *name, int type) {
  Attr *a = arena_alloc(&ctx->arena, sizeof(Attr) * (size_t)(n->n_attrs + 1));
  if (n->n_attrs) memcpy(a, n->attrs, sizeof(Attr) * (size_t)n->n_attrs);
  n->attrs = a;
  Attr *x = &a[n->n_attrs++];
  x->name = name;
  x->type = type;
  return x;
}

void node_set_attr_i(Ctx *ctx, Node *n, const char *name, int64_t v) {
  for (int i = 0; i < n->n_attrs; i++)
    if (!strcmp(n->attrs[i].name, name)) {
      memset(&n->attrs[i], 0, sizeof n->attrs[i]);
      n->attrs[i].name = name;
      n->attrs[i].type = ATTR_INT;
      n->attrs[i].i = v;
      return;
    }
  node_add_attr(ctx, n, name, ATTR_INT)->i = v;
}

int64_t attr_i(const Node *n, const char *name, int64_t dflt) {
  const Attr *a = node_attr(n, name);
  if (!a) return dflt;
  if (a->type == ATTR_FLOAT) return (int64_t)a->f;
  return a->i;
}

float attr_f(const Node *n, const char *name, float dflt) {
  const Attr *a = node_attr(n, name);
  if (!a) return dflt;
  if (a->type == ATTR_INT) return (float)a->i;
  return a->f;
}

const char *attr_s(const Node *n, const char *name, const char *dflt) {
  const Attr *a = node_attr(n, name);
  return a && a->s ? a->s : dflt;
}

int attr_ints(const Node *n, const char *name, const int64_t **out) {
  const Attr *a = node_attr(n, name);
  *out = a ? a->ints : NULL;
  return a ? a->n_ints : 0;
}

int attr_floats(const Node *n, const char *name, const float **out) {
  const Attr *a = node_attr(n, name);
  *out = a ? a->floats : NULL;
  return a ? a->n_floats : 0;
}

Value *node_in(const Node *n, int i) { return i < n->n_inputs ? n->inputs[i] : NULL; }
Value *node_out(const Node *n, int i) { return i < n->n_outputs ? n->outputs[i] : NULL; }

/* The top-level graph input a run-time value is computed from, if any (bounded search). */
static Value *upstream_graph_input(Ctx *ctx, Value *v, int *budget) {
  if (!v || v->data || --*budget < 0) return NULL;
  if (v->kind == VAL_INPUT) return value_is_local(ctx->graph, v) ? v : NULL;
  if (!v->producer) return NULL;
  for (int k = 0; k < v->producer->n_inputs; k++) {
    Value *r = upstream_graph_input(ctx, v->producer->inputs[k], budget);
    if (r) return r;
  }
  return NULL;
}

Value *node_const_in_why(Ctx *ctx, const Node *n, int i, const char *what, const char *why) {
  Value *v = node_in(n, i);
  if (!v) fail_node(ctx, n, "missing input %d (%s)", i, what);
  int budget = 10000;
  Value *src = v->data || v->kind == VAL_INPUT ? NULL : upstream_graph_input(ctx, v, &budget);
  const char *pre = why ? why : "", *sep = why ? " " : "";
  if (v->kind == VAL_INPUT && !v->data && !value_is_local(ctx->graph, v))
    fail_node(ctx, n, "%s%sinput '%s' (%s) must be known at compile time; it is an input of the subgraph", pre, sep,
              v->name, what);
  if (src)
    fail_node(ctx, n,
              "%s%sinput '%s' (%s) must be known at compile time; it is computed at run time from graph "
              "input '%s' (bind it with --const-input %s=FILE.pb)",
              pre, sep, v->name, what, src->name, src->name);
  if (!v->data)
    fail_node(ctx, n,
              "%s%sinput '%s' (%s) must be known at compile time; it is computed at run time "
              "(bind it with --const-input %s=FILE.pb)",
              pre, sep, v->name, what, v->name);
  return v;
}

Value *node_const_in(Ctx *ctx, const Node *n, int i, const char *what) {
  return node_const_in_why(ctx, n, i, what, NULL);
}

void node_refresh_hidden(Ctx *ctx, Node *n) {
  PtrVec fv = {0}, keep = {0};
  for (int k = 0; k < n->n_attrs; k++)
    if (n->attrs[k].g) subgraph_free_values(ctx, n->attrs[k].g, &fv);
  for (int k = 0; k < fv.n; k++)
    if (!value_is_structured(fv.v[k])) vec_push(&ctx->arena, &keep, fv.v[k]);
  Value **ins = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(n->n_explicit + keep.n + 1));
  for (int k = 0; k < n->n_explicit; k++) ins[k] = n->inputs[k];
  for (int k = 0; k < keep.n; k++) ins[n->n_explicit + k] = keep.v[k];
  n->inputs = ins;
  n->n_inputs = n->n_explicit + keep.n;
}
