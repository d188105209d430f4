/*
 * plan_memory.c - liveness, aliasing and arena offsets for one schedule.
 *
 * Every value that is neither a constant, a graph input nor a graph output lives in the arena
 * (in a subgraph, its inputs and outputs do too, live over the whole body).  Three kinds of
 * aliasing lower the live-bytes bound itself before any offset is chosen:
 *   views     Reshape/Flatten/Squeeze/Unsqueeze/Identity (OPF_VIEW) share their input's bytes;
 *             Split along the outermost non-trivial axis gives views at offsets of its input;
 *   in place  an elementwise op (OPF_INPLACE) writes over an input of the same byte size whose
 *             storage nobody reads after this node (decided in schedule order);
 *   concat    when Concat joins along its outermost non-trivial axis, its producers write
 *             straight into the slices of its output (all inputs or none).
 * An aliased value belongs to its root's buffer; the root's live range is the union of its
 * members'.  Nodes whose outputs are all views of their inputs, or whose inputs all already sit
 * in their output, are elided (no code).
 *
 * Offsets: greedy by size (Pisarchyk & Lee 2020) -- buffers sorted largest first, each placed at
 * the best-fitting (or first-fitting) gap among placed buffers whose live ranges intersect its
 * own; both variants run and the smaller wins.  When the result is above the live-bytes lower
 * bound of this schedule, a deterministic hill-climb perturbs the placement order (swaps) and
 * keeps improvements (the idea of TVM's USMP).  plan_check() proves the result: no two buffers
 * live at the same step share a byte.
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

static bool local_arena_value(const Graph *g, const Value *v) {
  if (!v || v->data || !value_is_local(g, v)) return false;
  if (g->is_sub) return true;
  return v->kind == VAL_INTERMEDIATE && !v->is_output;
}

static bool in_arena(const Graph *g, const Value *v) { return local_arena_value(g, v) && !v->alias_of; }

static Value *root_of(Value *v) {
  while (v->alias_of) v = v->alias_of;
  return v;
}

static int64_t alias_base(Value *v) {
  int64_t off = 0;
  while (v->alias_of) { off += v->alias_offset; v = v->alias_of; }
  return off;
}

/* ---- aliasing ------------------------------------------------------------------------------ */

static void set_alias(Value *v, Value *target, int64_t offset, int kind) {
  v->alias_of = target;
  v->alias_offset = offset;
  v->alias_kind = kind;
}

/* Product of dims before axis: 1 means each slice along axis is one contiguous block. */
static int64_t outer_count(const Value *v, int axis) {
  int64_t o = 1;
  for (int d = 0; d < axis && d < v->rank; d++) o *= v->dims[d];
  return o;
}

/* For a Slice that cuts one axis with step 1 and keeps every other axis whole, the byte
   offset of its output inside its input when that output is one contiguous block (every dim
   before the axis is 1); -1 otherwise. */
static int64_t slice_view_offset(const Node *n, const Value *in, const Value *out) {
  if (in->rank != out->rank || in->dtype != out->dtype) return -1;
  int axis = -1;
  for (int d = 0; d < in->rank; d++)
    if (in->dims[d] != out->dims[d]) {
      if (axis >= 0) return -1;
      axis = d;
    }
  if (axis < 0) return 0; /* nothing cut */
  if (outer_count(in, axis) != 1) return -1;
  int64_t start = 0, step = 1;
  int found = 0;
  if (n->opset < 10) {
    const int64_t *st, *ax;
    int ns = attr_ints(n, "starts", &st), na = attr_ints(n, "axes", &ax);
    for (int i = 0; i < ns; i++) {
      int64_t a = na ? ax[i] : i;
      if (a < 0) a += in->rank;
      if (a == axis) { start = st[i]; found = 1; }
    }
  } else {
    const Value *vs = node_in(n, 1), *va = node_in(n, 3), *vst = node_in(n, 4);
    if (!vs || !vs->data || (va && !va->data) || (vst && !vst->data)) return -1;
    for (int64_t i = 0; i < value_numel(vs); i++) {
      int64_t a = va ? const_get_i(va, i) : i;
      if (a < 0) a += in->rank;
      if (a == axis) {
        start = const_get_i(vs, i);
        step = vst ? const_get_i(vst, i) : 1;
        found = 1;
      }
    }
  }
  if (!found || step != 1) return -1;
  if (start < 0) start += in->dims[axis];
  if (start < 0) start = 0;
  if (start + out->dims[axis] > in->dims[axis]) return -1;
  int64_t inner = (int64_t)dtype_size(in->dtype);
  for (int d = axis + 1; d < in->rank; d++) inner *= in->dims[d];
  return start * inner;
}

static void plan_views(Ctx *ctx, Graph *g) {
  PtrVec *sched = &g->sched;
  for (int s = 0; s < sched->n; s++) {
    Node *n = sched->v[s];
    Value *in = node_in(n, 0), *out = node_out(n, 0);
    if (!in || !out || !value_is_local(g, out) || out->is_output) continue;
    bool in_ok = !in->data && value_is_local(g, in) &&
                 ((in->kind == VAL_INPUT && !g->is_sub) || local_arena_value(g, in) || (in->is_output && !g->is_sub));
    if (!in_ok) continue;
    if (n->def->flags & OPF_VIEW) {
      if (value_bytes(in) != value_bytes(out) || n->n_outputs != 1) continue;
      set_alias(out, in, 0, ALIAS_VIEW);
      n->elided = true;
    } else if (!strcmp(n->op_type, "Slice") && !*n->domain && dtype_size(in->dtype) && !dtype_is_packed(in->dtype)) {
      int64_t off = slice_view_offset(n, in, out);
      if (off < 0 || !local_arena_value(g, out)) continue;
      set_alias(out, in, off, ALIAS_VIEW);
      n->elided = true;
    } else if (!strcmp(n->op_type, "Split") && !*n->domain) {
      int axis = (int)attr_i(n, "axis", 0);
      if (axis < 0) axis += in->rank;
      if (axis < 0 || axis >= in->rank || outer_count(in, axis) != 1) continue;
      bool ok = true;
      for (int k = 0; k < n->n_outputs; k++) {
        Value *o = n->outputs[k];
        if (o && (o->is_output || !value_is_local(g, o) || !local_arena_value(g, o))) ok = false;
      }
      if (!ok) continue;
      int64_t off = 0;
      for (int k = 0; k < n->n_outputs; k++) {
        Value *o = n->outputs[k];
        if (o) set_alias(o, in, off, ALIAS_VIEW);
        off += o ? value_bytes(o) : 0;
      }
      if (off != value_bytes(in)) { /* outputs do not tile the input: undo */
        for (int k = 0; k < n->n_outputs; k++)
          if (n->outputs[k]) set_alias(n->outputs[k], NULL, 0, ALIAS_NONE);
        continue;
      }
      n->elided = true;
    }
  }
  (void)ctx;
}

/* Concat whose producers can write into its output's slices. */
static void plan_concat(Ctx *ctx, Graph *g) {
  PtrVec *sched = &g->sched;
  for (int s = 0; s < sched->n; s++) {
    Node *n = sched->v[s];
    if (strcmp(n->op_type, "Concat") || *n->domain) continue;
    Value *out = node_out(n, 0);
    if (!in_arena(g, out) || n->n_inputs < 2) continue;
    int axis = (int)attr_i(n, "axis", 0);
    if (axis < 0) axis += out->rank;
    if (axis < 0 || axis >= out->rank || outer_count(out, axis) != 1) continue;
    bool ok = true;
    for (int k = 0; k < n->n_inputs && ok; k++) {
      Value *v = n->inputs[k];
      if (!v || !in_arena(g, v) || v->kind != VAL_INTERMEDIATE || !v->producer || v->producer->step >= s ||
          v->producer->elided)
        ok = false;
      for (int j = 0; j < k && ok; j++)
        if (n->inputs[j] == v) ok = false;
      /* values that are themselves targets of aliases stay where they are */
      for (int i = 0; i < g->values.n && ok; i++)
        if (((Value *)g->values.v[i])->alias_of == v) ok = false;
    }
    if (!ok) continue;
    int64_t off = 0;
    for (int k = 0; k < n->n_inputs; k++) {
      set_alias(n->inputs[k], out, off, ALIAS_CONCAT);
      off += value_bytes(n->inputs[k]);
    }
    n->elided = true;
  }
  (void)ctx;
}

/* --threads: recurrent node pairs that run as a pipeline on two threads (ops_seq.c).  A
   producer A and the next node B that runs in the schedule (views between them are elided)
   pair when B's input sequence is A's output Y (the same bytes, through a Squeeze); both
   nodes then count as live over both steps (span_lo .. span_hi), so that nothing of one
   shares bytes with the other.  Measured on the two stacked LSTMs of bench/models/lstm.onnx
   (H = 128, 50 steps, two threads): 339 -> 221-237 us, ORT with two threads 309 us. */
static void mark_pipes(Ctx *ctx, Graph *g) {
  PtrVec *sched = &g->sched;
  for (int s = 0; s < sched->n; s++) {
    Node *n = sched->v[s];
    n->pipe = 0;
    n->pipe_peer = NULL;
    n->span_lo = n->span_hi = s;
  }
  if (!ctx->rnn_pipes || ctx->target != TARGET_C || g->is_sub) return;
  for (int s = 0; s < sched->n; s++) {
    Node *a = sched->v[s];
    if (a->elided || !rnn_pipe_ok(ctx, a, 1)) continue;
    int t = s + 1;
    while (t < sched->n && ((Node *)sched->v[t])->elided) t++;
    if (t >= sched->n) continue;
    Node *b = sched->v[t];
    Value *y = node_out(a, 0), *x = b->inputs[0];
    if (!rnn_pipe_ok(ctx, b, 2) || !x || root_of(x) != root_of(y) || alias_base(x) != alias_base(y) ||
        value_bytes(x) != value_bytes(y))
      continue;
    /* b reads nothing else of a's (its final states, say, as b's initial state: those come at
       a's end, while b starts at once) */
    bool other = false;
    for (int k = 1; k < b->n_inputs; k++)
      for (int j = 0; j < a->n_outputs; j++)
        if (b->inputs[k] && a->outputs[j] && root_of(b->inputs[k]) == root_of(a->outputs[j])) other = true;
    if (other) continue;
    a->pipe = 1;
    b->pipe = 2;
    a->pipe_peer = b;
    b->pipe_peer = a;
    a->span_hi = b->span_hi = t;
    b->span_lo = s;
    s = t;
  }
}

/* Live range of every root, including the uses of all values aliased to it. */
static void live_ranges(Graph *g) {
  PtrVec *sched = &g->sched;
  for (int i = 0; i < g->values.n; i++) {
    Value *v = g->values.v[i];
    v->first = v->last = -1;
    v->offset = -1;
    /* body inputs live over the whole body, so the owner can copy outputs into them */
    if (g->is_sub && v->kind == VAL_INPUT) { v->first = 0; v->last = sched->n; }
  }
  if (g->is_sub)
    for (int i = 0; i < g->outputs.n; i++) {
      Value *r = root_of(g->outputs.v[i]);
      if (value_is_local(g, r)) {
        if (r->first < 0) r->first = 0;
        r->last = sched->n;
      }
    }
  for (int s = 0; s < sched->n; s++) {
    Node *n = sched->v[s];
    const int lo = n->span_lo, hi = n->span_hi; /* s, s except in a pipeline (mark_pipes) */
    for (int k = 0; k < n->n_outputs; k++) {
      Value *v = n->outputs[k];
      if (!v) continue;
      Value *r = root_of(v);
      if (r->first < 0 || r->first > lo) r->first = lo;
      if (r->last < hi) r->last = hi;
    }
    for (int k = 0; k < n->n_inputs; k++) {
      Value *v = n->inputs[k];
      if (!v || !value_is_local(g, v)) continue;
      Value *r = root_of(v);
      if (r->last < hi) r->last = hi;
      if (r->first < 0) r->first = lo;
    }
  }
}

/* In-place elementwise ops (and nodes with an inplace_in), decided in schedule order on the
   current live ranges. */
static void plan_inplace(Ctx *ctx, Graph *g) {
  PtrVec *sched = &g->sched;
  for (int s = 0; s < sched->n; s++) {
    Node *n = sched->v[s];
    Value *out = node_out(n, 0);
    int only = n->inplace_in;
    if (!(n->def->flags & OPF_INPLACE) && !only) continue;
    if (n->elided || !in_arena(g, out) || n->n_outputs != 1) continue;
    for (int k = 0; k < n->n_inputs; k++) {
      Value *in = n->inputs[k];
      if (only && k != only) continue;
      if (!in || !local_arena_value(g, in) || in->kind != VAL_INTERMEDIATE) continue;
      if (value_bytes(in) != value_bytes(out) || !same_shape(in, out) || in->dtype != out->dtype) continue;
      Value *r = root_of(in);
      if (!in_arena(g, r) || r->last != s) continue;
      /* the input must occupy its root exactly (not a slice of a bigger buffer) */
      if (alias_base(in) != 0 || value_bytes(r) != value_bytes(in)) continue;
      bool twice = false;
      for (int j = 0; j < n->n_inputs; j++)
        if (j != k && n->inputs[j] && root_of(n->inputs[j]) == r) twice = true;
      if (twice) continue;
      set_alias(out, in, 0, ALIAS_INPLACE);
      /* stretch the root over the new member's uses */
      live_ranges(g);
      break;
    }
  }
  (void)ctx;
}

/* ---- offsets ------------------------------------------------------------------------------- */

/* Scratch of n's kernel: the CUDA backend's own forms (cuBLAS, ...) size theirs; every other
   node runs its C function, which needs the op row's. */
static int64_t node_scratch(Ctx *ctx, Node *n) {
  int64_t b = ctx->target != TARGET_C ? cuda_scratch(ctx, n) : -1;
  if (b >= 0) return b;
  return n->def->scratch ? n->def->scratch(ctx, n) : 0;
}

static int cmp_size_desc(const void *a, const void *b) {
  const Buffer *x = *(Buffer *const *)a, *y = *(Buffer *const *)b;
  if (x->size != y->size) return x->size > y->size ? -1 : 1;
  if (x->first != y->first) return x->first < y->first ? -1 : 1;
  return x->last < y->last ? -1 : x->last > y->last;
}

static int cmp_area_desc(const void *a, const void *b) {
  const Buffer *x = *(Buffer *const *)a, *y = *(Buffer *const *)b;
  int64_t ax = x->size * (x->last - x->first + 1), ay = y->size * (y->last - y->first + 1);
  if (ax != ay) return ax > ay ? -1 : 1;
  return cmp_size_desc(a, b);
}

static int cmp_life_desc(const void *a, const void *b) {
  const Buffer *x = *(Buffer *const *)a, *y = *(Buffer *const *)b;
  int lx = x->last - x->first, ly = y->last - y->first;
  if (lx != ly) return lx > ly ? -1 : 1;
  return cmp_size_desc(a, b);
}

static int cmp_first(const void *a, const void *b) {
  const Buffer *x = *(Buffer *const *)a, *y = *(Buffer *const *)b;
  if (x->first != y->first) return x->first < y->first ? -1 : 1;
  return cmp_size_desc(a, b);
}

/* Tensors first, scratch after, each by size: the tensors' placement does not depend on the
   scratch sizes, so scratch capped to the gaps of that placement fits without growing it. */
static int cmp_values_first(const void *a, const void *b) {
  const Buffer *x = *(Buffer *const *)a, *y = *(Buffer *const *)b;
  if (!x->value != !y->value) return x->value ? -1 : 1;
  return cmp_size_desc(a, b);
}

static int cmp_offset(const void *a, const void *b) {
  const Buffer *x = *(Buffer *const *)a, *y = *(Buffer *const *)b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Places buffers in the given order; returns the arena size. */
static int64_t place(Buffer **order, int nb, bool best_fit, Buffer **scratch) {
  int64_t total = 0;
  for (int i = 0; i < nb; i++) {
    Buffer *b = order[i];
    int nov = 0;
    for (int j = 0; j < i; j++)
      if (order[j]->first <= b->last && b->first <= order[j]->last) scratch[nov++] = order[j];
    qsort(scratch, (size_t)nov, sizeof *scratch, cmp_offset);
    int64_t off = 0, best = -1, best_gap = INT64_MAX;
    for (int j = 0; j < nov; j++) {
      int64_t gap = scratch[j]->offset - off;
      if (gap >= b->size) {
        if (!best_fit) { best = off; break; }
        if (gap < best_gap) { best = off; best_gap = gap; }
      }
      if (scratch[j]->offset + scratch[j]->size > off) off = scratch[j]->offset + scratch[j]->size;
    }
    b->offset = best >= 0 ? best : off;
    if (b->offset + b->size > total) total = b->offset + b->size;
  }
  return total;
}

static int64_t live_bound(Buffer *bufs, int nb, int steps) {
  int64_t best = 0;
  for (int s = 0; s <= steps; s++) {
    int64_t live = 0;
    for (int i = 0; i < nb; i++)
      if (bufs[i].first <= s && s <= bufs[i].last) live += bufs[i].size;
    if (live > best) best = live;
  }
  return best;
}

void plan_memory(Ctx *ctx, Graph *g) {
  int64_t align = (int64_t)(ctx->align ? ctx->align : 16);
  PtrVec *sched = &g->sched;
  for (int i = 0; i < g->values.n; i++) {
    Value *v = g->values.v[i];
    if (value_is_local(g, v)) set_alias(v, NULL, 0, ALIAS_NONE);
  }
  for (int s = 0; s < sched->n; s++) ((Node *)sched->v[s])->elided = false;
  if (!ctx->no_alias) {
    plan_views(ctx, g);
    plan_concat(ctx, g);
  }
  mark_pipes(ctx, g);
  live_ranges(g);
  if (!ctx->no_alias) plan_inplace(ctx, g);

  int nb = 0;
  Buffer *bufs = calloc((size_t)(g->values.n + sched->n + 1), sizeof(Buffer));
  Buffer **order = calloc((size_t)(g->values.n + sched->n + 1), sizeof(Buffer *));
  Buffer **best_order = calloc((size_t)(g->values.n + sched->n + 1), sizeof(Buffer *));
  Buffer **tmp = calloc((size_t)(g->values.n + sched->n + 1), sizeof(Buffer *));
  if (!bufs || !order || !best_order || !tmp) abort();
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
    n->scratch_bytes = n->elided ? 0 : node_scratch(ctx, n);
    n->scratch_offset = -1;
    if (n->scratch_bytes <= 0) continue;
    Buffer *b = &bufs[nb++];
    b->size = (n->scratch_bytes + align - 1) / align * align;
    b->first = n->span_lo;
    b->last = n->span_hi;
    b->node = n;
  }
  g->live_bound = live_bound(bufs, nb, sched->n);
  /* placement orders: by size (the classic), by size x lifetime, by lifetime, by start;
     each with best-fit and first-fit; then hill-climb on the best */
  int (*const keys[])(const void *, const void *) = {cmp_size_desc, cmp_area_desc, cmp_life_desc, cmp_first,
                                                     cmp_values_first};
  int64_t best = -1;
  bool best_bf = true;
  for (int k = 0; k < 5; k++) {
    for (int i = 0; i < nb; i++) order[i] = &bufs[i];
    qsort(order, (size_t)nb, sizeof *order, keys[k]);
    for (int bf = 1; bf >= 0; bf--) {
      int64_t r = place(order, nb, bf, tmp);
      if (best < 0 || r < best) {
        best = r;
        best_bf = bf;
        memcpy(best_order, order, sizeof(Buffer *) * (size_t)nb);
      }
    }
  }
  if (best > g->live_bound && nb > 1) {
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    int iters = nb < 64 ? 2000 : (nb < 512 ? 300 : 50);
    for (int it = 0; it < iters && best > g->live_bound; it++) {
      memcpy(order, best_order, sizeof(Buffer *) * (size_t)nb);
      rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
      int i = (int)(rng % (uint64_t)nb), j = (int)((rng >> 32) % (uint64_t)nb);
      Buffer *t = order[i]; order[i] = order[j]; order[j] = t;
      int64_t r1 = place(order, nb, true, tmp), r2 = place(order, nb, false, tmp);
      int64_t r = r1 < r2 ? r1 : r2;
      if (r < best) {
        best = r;
        best_bf = r1 <= r2;
        memcpy(best_order, order, sizeof(Buffer *) * (size_t)nb);
      }
    }
  }
  int64_t total = place(best_order, nb, best_bf, tmp);
  CHECK(total == best);
  for (int i = 0; i < nb; i++) {
    if (bufs[i].value) bufs[i].value->offset = bufs[i].offset;
    else bufs[i].node->scratch_offset = bufs[i].offset;
  }
  g->arena_bytes = total;
  free(tmp);
  free(best_order);
  free(order);
  free(bufs);
  plan_check(ctx, g);
}

/* Proves the plan: no two arena buffers that are live at the same step share a byte, every
   buffer lies inside the arena, and every alias lies inside its root. */
void plan_check(Ctx *ctx, Graph *g) {
  (void)ctx;
  PtrVec *sched = &g->sched;
  int n = 0;
  Buffer *b = calloc((size_t)(g->values.n + sched->n + 1), sizeof(Buffer));
  if (!b) abort();
  for (int i = 0; i < g->values.n; i++) {
    Value *v = g->values.v[i];
    if (v->alias_of) {
      Value *r = root_of(v);
      CHECK(alias_base(v) >= 0 && alias_base(v) + value_bytes(v) <= value_bytes(r));
    }
    if (!in_arena(g, v) || v->first < 0) continue;
    b[n++] = (Buffer){value_bytes(v), v->offset, v->first, v->last, v, NULL};
  }
  for (int s = 0; s < sched->n; s++) {
    Node *nd = sched->v[s];
    if (nd->scratch_bytes > 0) b[n++] = (Buffer){nd->scratch_bytes, nd->scratch_offset, nd->span_lo, nd->span_hi, NULL, nd};
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

/* Bytes live at step s (roots only; scratch included). */
int64_t plan_live_at(Graph *g, int s) {
  int64_t live = 0;
  for (int i = 0; i < g->values.n; i++) {
    Value *v = g->values.v[i];
    if (in_arena(g, v) && v->first <= s && s <= v->last) live += value_bytes(v);
  }
  Node *n = s < g->sched.n ? g->sched.v[s] : NULL;
  if (n && n->scratch_bytes > 0) live += n->scratch_bytes;
  return live;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

/* Largest free interval of the arena at step s, ignoring scratch buffers. */
int64_t plan_largest_gap(Graph *g, int s) {
  int n = 0;
  int64_t *iv = calloc((size_t)g->values.n * 2 + 2, sizeof(int64_t));
  if (!iv) abort();
  for (int i = 0; i < g->values.n; i++) {
    Value *v = g->values.v[i];
    if (!in_arena(g, v) || v->first > s || v->last < s || v->offset < 0) continue;
    iv[2 * n] = v->offset;
    iv[2 * n + 1] = v->offset + value_bytes(v);
    n++;
  }
  qsort(iv, (size_t)n, 2 * sizeof(int64_t), cmp_i64);
  int64_t best = 0, end = 0;
  for (int i = 0; i < n; i++) {
    if (iv[2 * i] - end > best) best = iv[2 * i] - end;
    if (iv[2 * i + 1] > end) end = iv[2 * i + 1];
  }
  if (g->arena_bytes - end > best) best = g->arena_bytes - end;
  free(iv);
  return best;
}

/* ---- reports ------------------------------------------------------------------------------- */

static void json_str(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fprintf(f, "\\%c", *s);
    else if ((unsigned char)*s < 32) fprintf(f, "\\u%04x", (unsigned char)*s);
    else fputc(*s, f);
  }
  fputc('"', f);
}

void plan_report_json(Ctx *ctx, Graph *g, FILE *f, int64_t weights_bytes, int64_t node_bound) {
  fprintf(f, "{\n  \"model\": ");
  json_str(f, ctx->file);
  fprintf(f, ",\n  \"order\": \"%s\",\n  \"align\": %zu,\n", ctx->order_name ? ctx->order_name : "model", ctx->align);
  fprintf(f, "  \"totals\": {\"arena\": %lld, \"bound\": %lld, \"per_node_bound\": %lld, \"weights\": %lld, \"steps\": %d",
          (long long)g->arena_bytes, (long long)g->live_bound, (long long)node_bound, (long long)weights_bytes, g->sched.n);
  if (g->has_heap) /* the string heap: the arena's last bytes (ops_string.c) */
    fprintf(f, ", \"string_heap\": %lld, \"string_heap_offset\": %lld", (long long)g->heap_bytes, (long long)g->heap_offset);
  fprintf(f, "},\n");
  fprintf(f, "  \"tensors\": [");
  bool first = true;
  for (int i = 0; i < g->values.n; i++) {
    Value *v = g->values.v[i];
    if (!local_arena_value(g, v) || root_of(v)->first < 0) continue;
    Value *r = root_of(v);
    fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
    json_str(f, v->name);
    fprintf(f, ", \"bytes\": %lld, \"offset\": %lld, \"first\": %d, \"last\": %d, \"alias_of\": ", (long long)value_bytes(v),
            (long long)(r->offset + alias_base(v)), v->alias_of ? v->producer ? v->producer->step : r->first : v->first,
            r->last);
    if (v->alias_of) {
      json_str(f, r->name);
      static const char *kinds[] = {"none", "view", "inplace", "concat"};
      fprintf(f, ", \"alias_kind\": \"%s\"", kinds[v->alias_kind]);
    } else {
      fprintf(f, "null");
    }
    fprintf(f, "}");
    first = false;
  }
  for (int s = 0; s < g->sched.n; s++) {
    Node *n = g->sched.v[s];
    if (n->scratch_bytes <= 0) continue;
    fprintf(f, "%s\n    {\"name\": ", first ? "" : ",");
    json_str(f, arena_printf(&ctx->arena, "%s:scratch", n->name));
    fprintf(f, ", \"bytes\": %lld, \"offset\": %lld, \"first\": %d, \"last\": %d, \"alias_of\": null}",
            (long long)n->scratch_bytes, (long long)n->scratch_offset, s, s);
    first = false;
  }
  fprintf(f, "\n  ]\n}\n");
}

/* The plan as a picture: time across, addresses up, one rectangle per buffer. */
void plan_report_svg(Ctx *ctx, Graph *g, FILE *f) {
  const double W = 1200, H = 700, ml = 80, mb = 40, mt = 30, mr = 20;
  int steps = g->sched.n > 0 ? g->sched.n : 1;
  double total = g->arena_bytes > 0 ? (double)g->arena_bytes : 1;
  double sx = (W - ml - mr) / steps, sy = (H - mt - mb) / total;
  fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" font-size=\"10\">\n", W, H);
  fprintf(f, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
  fprintf(f, "<text x=\"%.0f\" y=\"18\" font-size=\"13\">", ml);
  for (const char *p = ctx->file; *p; p++) fputs(*p == '<' ? "&lt;" : *p == '&' ? "&amp;" : (char[2]){*p, 0}, f);
  fprintf(f, ": arena %lld bytes, live-bytes bound %lld, %d steps</text>\n", (long long)g->arena_bytes,
          (long long)g->live_bound, g->sched.n);
  fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", ml, H - mb, W - mr, H - mb);
  fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\" stroke=\"black\"/>\n", ml, mt, ml, H - mb);
  fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">step (schedule order)</text>\n", (W - ml) / 2, H - 10);
  fprintf(f, "<text x=\"4\" y=\"%.0f\">%lld</text><text x=\"4\" y=\"%.0f\">0</text>\n", mt + 10, (long long)g->arena_bytes, H - mb);
  int k = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int i = 0; i < (pass ? g->sched.n : g->values.n); i++) {
      int64_t size, off;
      int first, last;
      const char *name;
      if (!pass) {
        Value *v = g->values.v[i];
        if (!in_arena(g, v) || v->first < 0) continue;
        size = value_bytes(v); off = v->offset; first = v->first; last = v->last; name = v->name;
      } else {
        Node *n = g->sched.v[i];
        if (n->scratch_bytes <= 0) continue;
        size = n->scratch_bytes; off = n->scratch_offset; first = last = i; name = "scratch";
      }
      double x = ml + first * sx, w = (last - first + 1) * sx, h = size * sy, y = H - mb - (off + size) * sy;
      unsigned hue = (unsigned)(k++ * 47) % 360;
      fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"hsl(%u,60%%,70%%)\" stroke=\"#333\" stroke-width=\"0.5\"><title>",
              x, y, w, h > 0.5 ? h : 0.5, hue);
      for (const char *p = name; *p; p++) fputs(*p == '<' ? "&lt;" : *p == '&' ? "&amp;" : (char[2]){*p, 0}, f);
      fprintf(f, ": %lld bytes at %lld, steps %d-%d</title></rect>\n", (long long)size, (long long)off, first, last);
      if (h > 11 && w > 40) {
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" clip-path=\"none\">", x + 2, y + h / 2 + 3);
        int c = 0;
        for (const char *p = name; *p && c < (int)(w / 6); p++, c++)
          fputs(*p == '<' ? "&lt;" : *p == '&' ? "&amp;" : (char[2]){*p, 0}, f);
        fprintf(f, "</text>\n");
      }
    }
  fprintf(f, "</svg>\n");
}
