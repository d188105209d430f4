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
  vec_push(&ctx->arena, &g->values, v);
  return v;
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
  int *indeg = calloc((size_t)nn + 1, sizeof(int));
  int *order = calloc((size_t)nn + 1, sizeof(int));
  char *done = calloc((size_t)nn + 1, 1);
  if (!indeg || !order || !done) abort();
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
      if (v->producer) indeg[i]++;
      else if (v->kind == VAL_INTERMEDIATE && !graph_find_value(g->parent, v->name))
        fail_node(ctx, n, "input '%s' is not produced by any node, graph input or initializer",
                  v->name);
    }
  }
  int head = 0, tail = 0;
  /* Stable: repeatedly take the first ready node in model order. Simple O(n^2) worst case is
     avoided with a scan pointer since readiness only grows. */
  for (int emitted = 0; emitted < nn;) {
    int found = -1;
    for (int i = 0; i < nn; i++)
      if (!done[i] && indeg[i] == 0) { found = i; break; }
    if (found < 0) {
      for (int i = 0; i < nn; i++)
        if (!done[i]) {
          free(indeg); free(order); free(done);
          fail_node(ctx, g->nodes.v[i], "the graph has a cycle through this node");
        }
    }
    /* take a run of ready nodes in order */
    for (int i = found; i < nn; i++) {
      if (done[i] || indeg[i] != 0) continue;
      done[i] = 1;
      order[tail++] = i;
      emitted++;
      Node *n = g->nodes.v[i];
      for (int k = 0; k < n->n_outputs; k++) {
        Value *v = n->outputs[k];
        if (!v) continue;
        for (int j = 0; j < nn; j++) {
          if (done[j]) continue;
          Node *m = g->nodes.v[j];
          for (int q = 0; q < m->n_inputs; q++)
            if (m->inputs[q] == v) indeg[j]--;
        }
      }
    }
    (void)head;
  }
  Node **sorted = arena_alloc(&ctx->arena, sizeof(Node *) * (size_t)(nn + 1));
  for (int i = 0; i < nn; i++) sorted[i] = g->nodes.v[order[i]];
  for (int i = 0; i < nn; i++) {
    g->nodes.v[i] = sorted[i];
    sorted[i]->id = i;
  }
  free(indeg);
  free(order);
  free(done);
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

Value *node_const_in(Ctx *ctx, const Node *n, int i, const char *what) {
  Value *v = node_in(n, i);
  if (!v) fail_node(ctx, n, "missing input %d (%s)", i, what);
  if (!v->data)
    fail_node(ctx, n,
              "input '%s' (%s) must be known at compile time; it is computed at run time "
              "(bind it with --const-input %s=FILE.pb)",
              v->name, what, v->name);
  return v;
}
