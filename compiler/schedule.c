/*
 * schedule.c - execution order.
 *
 * The order is a topological order of the live nodes.  Today it is the verified model order
 * (Kahn's algorithm, stable in model order), which is what exporters produce and keeps
 * producers next to consumers on chain-like graphs.  The memory-planning issue adds
 * alternative orders and picks the one with the smallest arena.
 */
#include "onnxc.h"

void schedule_graph(Ctx *ctx, Graph *g) {
  g->sched.n = 0;
  for (int i = 0; i < g->nodes.n; i++) {
    Node *n = g->nodes.v[i];
    if (n->dead) continue;
    n->step = g->sched.n;
    vec_push(&ctx->arena, &g->sched, n);
  }
}
