/*
 * schedule.c - execution orders.
 *
 * Any topological order of the live nodes is correct; they differ in how many bytes are live
 * at once.  The planner tries several and keeps the one whose arena is smallest:
 *   model   the model's own order (stable Kahn order from graph_verify);
 *   dfs     reverse DFS post-order from the outputs (ONNX Runtime's default): producers stay
 *           next to their consumers;
 *   kahn    breadth-first by depth (a priority/Kahn order: many small ops early);
 *   greedy  list scheduling that at each step runs the ready node that grows the live bytes
 *           least (frees the most), ties broken by model position;
 *   beam    a bounded search over partial schedules (SERENITY-like dynamic programming with a
 *           state cap): keeps the `BEAM` partial orders with the lowest peak live bytes.
 * Live bytes here count each value from its producer to its last consumer, views as free; the
 * real comparison is the planned arena (pipeline.c plans each order).
 */
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

#define BEAM 24

static const char *const order_names[] = {"model", "dfs", "kahn", "greedy", "beam"};

int schedule_order_count(void) { return (int)(sizeof order_names / sizeof order_names[0]); }
const char *schedule_order_name(int i) { return order_names[i]; }

typedef struct Sched {
  int nn;            /* live nodes */
  Node **nodes;      /* live nodes in model order; index = position */
  int *npred;        /* number of producer edges (local, live) */
  int **succ; int *nsucc;
  int64_t *out_bytes;       /* bytes a node allocates */
  int nv;
  int *cons_left0;          /* per value: live consumers */
} Sched;

static int64_t val_cost(const Value *v, const Node *producer) {
  if (producer && (producer->def->flags & OPF_VIEW)) return 0;
  return v->data ? 0 : value_bytes(v);
}

static void build(Ctx *ctx, Graph *g, Sched *S) {
  Arena *a = &ctx->arena;
  S->nn = 0;
  S->nodes = arena_alloc(a, sizeof(Node *) * (size_t)(g->nodes.n + 1));
  for (int i = 0; i < g->nodes.n; i++) {
    Node *n = g->nodes.v[i];
    if (n->dead) continue;
    n->step = S->nn;  /* temporary: index among live nodes */
    S->nodes[S->nn++] = n;
  }
  S->npred = arena_alloc(a, sizeof(int) * (size_t)(S->nn + 1));
  S->nsucc = arena_alloc(a, sizeof(int) * (size_t)(S->nn + 1));
  S->succ = arena_alloc(a, sizeof(int *) * (size_t)(S->nn + 1));
  S->out_bytes = arena_alloc(a, sizeof(int64_t) * (size_t)(S->nn + 1));
  S->nv = g->values.n;
  S->cons_left0 = arena_alloc(a, sizeof(int) * (size_t)(S->nv + 1));
  for (int i = 0; i < S->nn; i++) {
    Node *n = S->nodes[i];
    for (int k = 0; k < n->n_outputs; k++)
      if (n->outputs[k] && value_is_local(g, n->outputs[k])) S->out_bytes[i] += val_cost(n->outputs[k], n);
    for (int k = 0; k < n->n_inputs; k++) {
      Value *v = n->inputs[k];
      if (!v || !value_is_local(g, v)) continue;
      S->cons_left0[v->id]++;
      if (v->producer && !v->producer->dead && value_is_local(g, v)) {
        S->npred[i]++;
        S->nsucc[v->producer->step]++;
      }
    }
  }
  for (int i = 0; i < S->nn; i++) {
    S->succ[i] = arena_alloc(a, sizeof(int) * (size_t)(S->nsucc[i] + 1));
    S->nsucc[i] = 0;
  }
  for (int i = 0; i < S->nn; i++) {
    Node *n = S->nodes[i];
    for (int k = 0; k < n->n_inputs; k++) {
      Value *v = n->inputs[k];
      if (v && v->producer && !v->producer->dead && value_is_local(g, v)) {
        int p = v->producer->step;
        S->succ[p][S->nsucc[p]++] = i;
      }
    }
  }
}

/* Bytes freed by running node i given remaining consumer counts. */
static int64_t freed_by(Graph *g, Sched *S, int i, const int *cons_left) {
  Node *n = S->nodes[i];
  int64_t f = 0;
  for (int k = 0; k < n->n_inputs; k++) {
    Value *v = n->inputs[k];
    if (!v || !value_is_local(g, v) || v->kind != VAL_INTERMEDIATE || v->is_output) continue;
    bool first_occ = true;
    for (int j = 0; j < k; j++)
      if (n->inputs[j] == v) first_occ = false;
    if (!first_occ) continue;
    int uses = 0;
    for (int j = 0; j < n->n_inputs; j++)
      if (n->inputs[j] == v) uses++;
    if (cons_left[v->id] == uses) f += val_cost(v, v->producer);
  }
  return f;
}

static void consume(Graph *g, Sched *S, int i, int *cons_left) {
  Node *n = S->nodes[i];
  for (int k = 0; k < n->n_inputs; k++) {
    Value *v = n->inputs[k];
    if (v && value_is_local(g, v)) cons_left[v->id]--;
  }
}

static void order_dfs(Graph *g, Sched *S, int *out) {
  int cnt = 0;
  char *state = calloc((size_t)S->nn + 1, 1);
  int *stack = calloc((size_t)S->nn * 2 + 2, sizeof(int));
  if (!state || !stack) abort();
  /* roots: producers of outputs, then every node (unreachable ones in model order) */
  int nroots = 0;
  int *roots = calloc((size_t)S->nn + (size_t)g->outputs.n + 1, sizeof(int));
  if (!roots) abort();
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    if (v->producer && !v->producer->dead && value_is_local(g, v)) roots[nroots++] = v->producer->step;
  }
  for (int i = 0; i < S->nn; i++) roots[nroots++] = i;
  for (int r = 0; r < nroots; r++) {
    if (state[roots[r]]) continue;
    int sp = 0;
    stack[sp++] = roots[r];
    while (sp) {
      int i = stack[sp - 1];
      if (state[i] == 2) { sp--; continue; }
      if (state[i] == 0) {
        state[i] = 1;
        Node *n = S->nodes[i];
        /* push producers in reverse so the first input is visited first */
        for (int k = n->n_inputs - 1; k >= 0; k--) {
          Value *v = n->inputs[k];
          if (v && v->producer && !v->producer->dead && value_is_local(g, v) && !state[v->producer->step])
            stack[sp++] = v->producer->step;
        }
      } else {
        state[i] = 2;
        out[cnt++] = i;
        sp--;
      }
    }
  }
  free(roots);
  free(stack);
  free(state);
  CHECK(cnt == S->nn);
}

static void order_kahn(Sched *S, int *out) {
  int *depth = calloc((size_t)S->nn + 1, sizeof(int)), *pred = calloc((size_t)S->nn + 1, sizeof(int));
  if (!depth || !pred) abort();
  /* depth = longest path from a source; nodes sorted by (depth, model position) */
  memcpy(pred, S->npred, sizeof(int) * (size_t)S->nn);
  int head = 0, tail = 0;
  int *q = calloc((size_t)S->nn + 1, sizeof(int));
  if (!q) abort();
  for (int i = 0; i < S->nn; i++)
    if (!pred[i]) q[tail++] = i;
  while (head < tail) {
    int i = q[head++];
    for (int k = 0; k < S->nsucc[i]; k++) {
      int j = S->succ[i][k];
      if (depth[i] + 1 > depth[j]) depth[j] = depth[i] + 1;
      if (--pred[j] == 0) q[tail++] = j;
    }
  }
  int cnt = 0, maxd = 0;
  for (int i = 0; i < S->nn; i++)
    if (depth[i] > maxd) maxd = depth[i];
  for (int d = 0; d <= maxd; d++)
    for (int i = 0; i < S->nn; i++)
      if (depth[i] == d) out[cnt++] = i;
  free(q);
  free(pred);
  free(depth);
}

static void order_greedy(Graph *g, Sched *S, int *out) {
  int *pred = calloc((size_t)S->nn + 1, sizeof(int)), *cons = calloc((size_t)S->nv + 1, sizeof(int));
  char *done = calloc((size_t)S->nn + 1, 1);
  if (!pred || !cons || !done) abort();
  memcpy(pred, S->npred, sizeof(int) * (size_t)S->nn);
  memcpy(cons, S->cons_left0, sizeof(int) * (size_t)S->nv);
  for (int step = 0; step < S->nn; step++) {
    int best = -1;
    int64_t best_delta = 0;
    for (int i = 0; i < S->nn; i++) {
      if (done[i] || pred[i]) continue;
      int64_t delta = S->out_bytes[i] - freed_by(g, S, i, cons);
      if (best < 0 || delta < best_delta) { best = i; best_delta = delta; }
    }
    CHECK(best >= 0);
    done[best] = 1;
    out[step] = best;
    consume(g, S, best, cons);
    for (int k = 0; k < S->nsucc[best]; k++) pred[S->succ[best][k]]--;
  }
  free(done);
  free(cons);
  free(pred);
}

typedef struct BeamState {
  int *order;        /* len entries */
  int *pred;         /* remaining predecessors per node */
  int *cons;         /* remaining consumers per value */
  int64_t live, peak;
} BeamState;

static void beam_free(BeamState *b) {
  free(b->order);
  free(b->pred);
  free(b->cons);
}

static int cmp_beam(const void *a, const void *b) {
  const BeamState *x = a, *y = b;
  if (x->peak != y->peak) return x->peak < y->peak ? -1 : 1;
  if (x->live != y->live) return x->live < y->live ? -1 : 1;
  return 0;
}

static void order_beam(Graph *g, Sched *S, int *out) {
  int nn = S->nn;
  BeamState *cur = calloc(BEAM, sizeof(BeamState)), *next = calloc((size_t)BEAM * 8 + 1, sizeof(BeamState));
  if (!cur || !next) abort();
  int ncur = 1;
  cur[0].order = calloc((size_t)nn + 1, sizeof(int));
  cur[0].pred = malloc(sizeof(int) * ((size_t)nn + 1));
  cur[0].cons = malloc(sizeof(int) * ((size_t)S->nv + 1));
  if (!cur[0].order || !cur[0].pred || !cur[0].cons) abort();
  memcpy(cur[0].pred, S->npred, sizeof(int) * (size_t)nn);
  memcpy(cur[0].cons, S->cons_left0, sizeof(int) * (size_t)S->nv);
  for (int step = 0; step < nn; step++) {
    int nnext = 0;
    for (int b = 0; b < ncur; b++) {
      BeamState *st = &cur[b];
      /* candidates: the few ready nodes with the smallest growth of live bytes */
      int cand[8];
      int64_t cd[8];
      int nc = 0;
      for (int i = 0; i < nn; i++) {
        if (st->pred[i] != 0) continue;
        int64_t d = S->out_bytes[i] - freed_by(g, S, i, st->cons);
        if (nc < 8) { cand[nc] = i; cd[nc++] = d; }
        else {
          int w = 0;
          for (int k = 1; k < 8; k++)
            if (cd[k] > cd[w]) w = k;
          if (d < cd[w]) { cand[w] = i; cd[w] = d; }
        }
      }
      for (int c = 0; c < nc && nnext < BEAM * 8; c++) {
        int i = cand[c];
        BeamState *ns = &next[nnext++];
        ns->order = malloc(sizeof(int) * ((size_t)nn + 1));
        ns->pred = malloc(sizeof(int) * ((size_t)nn + 1));
        ns->cons = malloc(sizeof(int) * ((size_t)S->nv + 1));
        if (!ns->order || !ns->pred || !ns->cons) abort();
        memcpy(ns->order, st->order, sizeof(int) * (size_t)step);
        memcpy(ns->pred, st->pred, sizeof(int) * (size_t)nn);
        memcpy(ns->cons, st->cons, sizeof(int) * (size_t)S->nv);
        ns->order[step] = i;
        int64_t during = st->live + S->out_bytes[i];
        int64_t freed = freed_by(g, S, i, ns->cons);
        consume(g, S, i, ns->cons);
        ns->pred[i] = -1;
        for (int k = 0; k < S->nsucc[i]; k++) ns->pred[S->succ[i][k]]--;
        ns->live = during - freed;
        ns->peak = st->peak > during ? st->peak : during;
      }
    }
    for (int b = 0; b < ncur; b++) beam_free(&cur[b]);
    qsort(next, (size_t)nnext, sizeof *next, cmp_beam);
    ncur = nnext < BEAM ? nnext : BEAM;
    for (int b = 0; b < nnext; b++) {
      if (b < ncur) cur[b] = next[b];
      else beam_free(&next[b]);
    }
    CHECK(ncur > 0);
  }
  memcpy(out, cur[0].order, sizeof(int) * (size_t)nn);
  for (int b = 0; b < ncur; b++) beam_free(&cur[b]);
  free(cur);
  free(next);
}

bool schedule_graph_order(Ctx *ctx, Graph *g, const char *order) {
  Sched S;
  build(ctx, g, &S);
  int *out = calloc((size_t)S.nn + 1, sizeof(int));
  if (!out) abort();
  if (!order || !strcmp(order, "model")) {
    for (int i = 0; i < S.nn; i++) out[i] = i;
  } else if (!strcmp(order, "dfs")) {
    order_dfs(g, &S, out);
  } else if (!strcmp(order, "kahn")) {
    order_kahn(&S, out);
  } else if (!strcmp(order, "greedy")) {
    order_greedy(g, &S, out);
  } else if (!strcmp(order, "beam")) {
    if (S.nn > 3000) { free(out); return false; } /* too big to search: skip */
    order_beam(g, &S, out);
  } else {
    free(out);
    fail(ctx, "unknown order '%s' (model, dfs, kahn, greedy, beam)", order);
  }
  g->sched.n = 0;
  for (int i = 0; i < S.nn; i++) {
    Node *n = S.nodes[out[i]];
    n->step = i;
    vec_push(&ctx->arena, &g->sched, n);
  }
  free(out);
  /* every order is checked: producers run before their consumers */
  for (int i = 0; i < S.nn; i++) {
    Node *n = g->sched.v[i];
    for (int k = 0; k < n->n_inputs; k++) {
      Value *v = n->inputs[k];
      if (v && v->producer && !v->producer->dead && value_is_local(g, v)) CHECK(v->producer->step < i);
    }
  }
  return true;
}

void schedule_graph(Ctx *ctx, Graph *g) { schedule_graph_order(ctx, g, "model"); }
