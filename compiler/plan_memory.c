/*
 * plan_memory.c - liveness and arena offsets.
 *
 * Every value that is neither a constant, a graph input nor a graph output lives in the arena.
 * Views (rows flagged OPF_VIEW: Reshape, Flatten, Squeeze, Unsqueeze, Identity) whose input is
 * an arena value share that value's storage; the root's live range is stretched to cover the
 * view's uses.  A node's scratch is a buffer live during that node's step only.
 *
 * Offsets use greedy-by-size: buffers sorted by size (largest first) are placed one by one at
 * the lowest offset where they overlap no already-placed buffer whose live range intersects
 * theirs (Pisarchyk & Lee 2020).  plan_check() verifies the result pairwise.
 */
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

typedef struct Buffer {
  int64_t size, offset;
  int first, last;
  Value *value;   /* NULL for scratch */
  Node *node;     /* scratch owner */
} Buffer;

static bool in_arena(const Graph *g, const Value *v) {
  if (!v || v->data || v->alias_of || !value_is_local(g, v)) return false;
  if (g->is_sub) return true; /* body inputs/outputs live in the body's arena */
  return v->kind == VAL_INTERMEDIATE && !v->is_output;
}

static Value *root_of(Value *v) {
  while (v->alias_of) v = v->alias_of;
  return v;
}

static int cmp_size_desc(const void *a, const void *b) {
  const Buffer *x = *(Buffer *const *)a, *y = *(Buffer *const *)b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  if (x->first != y->first) return x->first < y->first ? -1 : 1;
  return 0;
}

static int cmp_offset(const void *a, const void *b) {
  const Buffer *x = *(Buffer *const *)a, *y = *(Buffer *const *)b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void plan_memory(Ctx *ctx, Graph *g) {
  int64_t align = (int64_t)(ctx->align ? ctx->align : 16);
  PtrVec *sched = &g->sched;
  /* views */
  for (int s = 0; s < sched->n; s++) {
    Node *n = sched->v[s];
    Value *in = node_in(n, 0), *out = node_out(n, 0);
    if (!(n->def->flags & OPF_VIEW) || !in || !out) continue;
    if (out->is_output || in->data || value_bytes(in) != value_bytes(out)) continue;
    if (!value_is_local(g, in) || !value_is_local(g, out)) continue;
    if ((in->kind == VAL_INPUT && !g->is_sub) || in_arena(g, in) || in->alias_of || (in->is_output && !g->is_sub)) {
      out->alias_of = in;
      out->alias_offset = 0;
    }
  }
  /* live ranges */
  for (int i = 0; i < g->values.n; i++) {
    Value *v = g->values.v[i];
    v->first = v->last = -1;
    v->offset = -1;
    /* body inputs live over the whole body, so the owner can copy outputs into them */
    if (g->is_sub && v->kind == VAL_INPUT) { v->first = 0; v->last = sched->n; }
  }
  if (g->is_sub)
    for (int i = 0; i < g->outputs.n; i++) {
      Value *v = g->outputs.v[i];
      Value *r = v;
      while (r->alias_of) r = r->alias_of;
      if (value_is_local(g, r)) {
        if (r->first < 0) r->first = 0;
        r->last = sched->n;
      }
    }
  for (int s = 0; s < sched->n; s++) {
    Node *n = sched->v[s];
    for (int k = 0; k < n->n_outputs; k++) {
      Value *v = n->outputs[k];
      if (!v) continue;
      Value *r = root_of(v);
      if (r->first < 0) r->first = s;
      if (r->last < s) r->last = s;
    }
    for (int k = 0; k < n->n_inputs; k++) {
      Value *v = n->inputs[k];
      if (!v || !value_is_local(g, v)) continue;
      Value *r = root_of(v);
      if (r->last < s) r->last = s;
      if (r->first < 0) r->first = s;
    }
  }
  /* buffers */
  int nb = 0;
  Buffer *bufs = calloc((size_t)(g->values.n + sched->n + 1), sizeof(Buffer));
  Buffer **order = calloc((size_t)(g->values.n + sched->n + 1), sizeof(Buffer *));
  if (!bufs || !order) abort();
  for (int i = 0; i < g->values.n; i++) {
    Value *v = g->values.v[i];
    if (!in_arena(g, v) || v->first < 0) continue;
    Buffer *b = &bufs[nb++];
    b->size = (value_bytes(v) + align - 1) / align * align;
    if (b->size == 0) b->size = align;
    b->first = v->first;
    b->last = v->last;
    b->value = v;
  }
  for (int s = 0; s < sched->n; s++) {
    Node *n = sched->v[s];
    n->scratch_bytes = n->def->scratch ? n->def->scratch(ctx, n) : 0;
    n->scratch_offset = -1;
    if (n->scratch_bytes <= 0) continue;
    Buffer *b = &bufs[nb++];
    b->size = (n->scratch_bytes + align - 1) / align * align;
    b->first = b->last = s;
    b->node = n;
  }
  for (int i = 0; i < nb; i++) order[i] = &bufs[i];
  qsort(order, (size_t)nb, sizeof *order, cmp_size_desc);
  /* greedy by size: lowest gap among placed, time-overlapping buffers */
  Buffer **placed = calloc((size_t)nb + 1, sizeof(Buffer *));
  if (!placed) abort();
  int np = 0;
  int64_t total = 0;
  for (int i = 0; i < nb; i++) {
    Buffer *b = order[i];
    int nov = 0;
    Buffer **ov = calloc((size_t)np + 1, sizeof(Buffer *));
    if (!ov) abort();
    for (int j = 0; j < np; j++)
      if (placed[j]->first <= b->last && b->first <= placed[j]->last) ov[nov++] = placed[j];
    qsort(ov, (size_t)nov, sizeof *ov, cmp_offset);
    int64_t off = 0, best = -1, best_gap = INT64_MAX;
    for (int j = 0; j < nov; j++) {
      int64_t gap = ov[j]->offset - off;
      if (gap >= b->size && gap < best_gap) { best = off; best_gap = gap; }
      if (ov[j]->offset + ov[j]->size > off) off = ov[j]->offset + ov[j]->size;
    }
    b->offset = best >= 0 ? best : off;
    free(ov);
    placed[np++] = b;
    if (b->offset + b->size > total) total = b->offset + b->size;
  }
  for (int i = 0; i < nb; i++) {
    if (bufs[i].value) bufs[i].value->offset = bufs[i].offset;
    else bufs[i].node->scratch_offset = bufs[i].offset;
  }
  g->arena_bytes = total;
  free(placed);
  free(order);
  free(bufs);
  plan_check(ctx, g);
}

/* Proves the plan: no two arena buffers that are live at the same step share a byte. */
void plan_check(Ctx *ctx, Graph *g) {
  PtrVec *sched = &g->sched;
  int n = 0;
  Buffer *b = calloc((size_t)(g->values.n + sched->n + 1), sizeof(Buffer));
  if (!b) abort();
  for (int i = 0; i < g->values.n; i++) {
    Value *v = g->values.v[i];
    if (!in_arena(g, v) || v->first < 0) continue;
    b[n++] = (Buffer){value_bytes(v), v->offset, v->first, v->last, v, NULL};
  }
  for (int s = 0; s < sched->n; s++) {
    Node *nd = sched->v[s];
    if (nd->scratch_bytes > 0) b[n++] = (Buffer){nd->scratch_bytes, nd->scratch_offset, s, s, NULL, nd};
  }
  for (int i = 0; i < n; i++) {
    CHECK(b[i].offset >= 0 && b[i].offset + b[i].size <= g->arena_bytes);
    for (int j = i + 1; j < n; j++) {
      bool time = b[i].first <= b[j].last && b[j].first <= b[i].last;
      bool space = b[i].offset < b[j].offset + b[j].size && b[j].offset < b[i].offset + b[i].size;
      if (time && space && b[i].size && b[j].size) unreachable("memory plan overlap");
    }
  }
  free(b);
}
