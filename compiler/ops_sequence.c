/*
 * ops_sequence.c - ONNX sequences as compile-time lists of tensors.
 *
 * With static shapes a sequence's length and items are known while compiling, so a sequence
 * value is just the list of its item Values (Value.seq) and has no storage.  Ops that build
 * sequences (SequenceConstruct, SequenceEmpty, SequenceInsert, SequenceErase, Identity) only
 * edit lists at compile time and leave no code; ops that read them are rewritten to read the
 * items: SequenceAt becomes an Identity of the item, SequenceLength a constant,
 * ConcatFromSequence a concatenation of the items, and SplitToSequence a split whose outputs
 * are the items.  Positions must be compile-time constants.  Sequence graph inputs have a
 * length and item shapes fixed at compile time (--seq-input), sequence graph outputs are
 * flattened into their items (ports.c); SequenceMap splices its body in once per item
 * (unroll.c).
 *
 * Optionals (ONNX 15+) are an OptInfo: a presence flag, constant or computed at run time (an
 * optional graph input, an If choosing between an empty and a full one), and the tensor or
 * sequence they hold.  Optional(x) is x with the flag true, Optional() empty; HasElement is the
 * flag; GetElement is the content -- through a checking copy (OptionalGetElement in ports.c)
 * when the flag is only known at run time.  A plain tensor or sequence counts as an optional
 * that always holds its value; an omitted input as an empty one.
 */
#include <string.h>

#include "onnxc.h"

static PtrVec *new_list(Ctx *ctx) { return arena_alloc(&ctx->arena, sizeof(PtrVec)); }

static void set_seq(Value *y, PtrVec *items, int dtype) {
  y->seq = items;
  value_set_shape(y, dtype, 0, NULL);
}

static Value *seq_in(Ctx *ctx, Node *n, int i) {
  Value *v = node_in(n, i);
  if (!v || !v->seq) fail_node(ctx, n, "input %d must be a sequence", i);
  return v;
}

/* A constant position (scalar), normalized against len (insert positions may equal len). */
static int const_pos(Ctx *ctx, Node *n, int i, int len, bool insert) {
  Value *p = node_const_in(ctx, n, i, "position");
  if (value_numel(p) != 1 || !dtype_is_int(p->dtype)) fail_node(ctx, n, "position must be an integer scalar");
  int64_t pos = const_get_i(p, 0);
  if (pos < 0) pos += len;
  if (pos < 0 || pos > len || (!insert && pos == len))
    fail_node(ctx, n, "position %lld is out of range for a sequence of %d", (long long)const_get_i(p, 0), len);
  return (int)pos;
}

static void construct_infer(Ctx *ctx, Node *n) {
  PtrVec *items = new_list(ctx);
  int dt = n->n_inputs ? n->inputs[0]->dtype : DT_FLOAT;
  for (int k = 0; k < n->n_inputs; k++) {
    Value *v = n->inputs[k];
    if (!v || v->seq) fail_node(ctx, n, "inputs must be tensors");
    if (v->dtype != dt) fail_node(ctx, n, "items have different element types");
    vec_push(&ctx->arena, items, v);
  }
  if (!n->n_inputs) fail_node(ctx, n, "needs at least one input");
  set_seq(n->outputs[0], items, dt);
}

static void empty_infer(Ctx *ctx, Node *n) {
  set_seq(n->outputs[0], new_list(ctx), (int)attr_i(n, "dtype", DT_FLOAT));
}

static void insert_infer(Ctx *ctx, Node *n) {
  Value *s = seq_in(ctx, n, 0), *t = node_in(n, 1);
  if (!t || t->seq) fail_node(ctx, n, "the inserted value must be a tensor");
  if (s->seq->n && t->dtype != s->dtype) fail_node(ctx, n, "the tensor's element type differs from the sequence's");
  int pos = node_in(n, 2) ? const_pos(ctx, n, 2, s->seq->n, true) : s->seq->n;
  PtrVec *items = new_list(ctx);
  for (int k = 0; k <= s->seq->n; k++) {
    if (k == pos) vec_push(&ctx->arena, items, t);
    if (k < s->seq->n) vec_push(&ctx->arena, items, s->seq->v[k]);
  }
  set_seq(n->outputs[0], items, t->dtype);
}

static void erase_infer(Ctx *ctx, Node *n) {
  Value *s = seq_in(ctx, n, 0);
  if (!s->seq->n) fail_node(ctx, n, "erasing from an empty sequence");
  int pos = node_in(n, 1) ? const_pos(ctx, n, 1, s->seq->n, false) : s->seq->n - 1;
  PtrVec *items = new_list(ctx);
  for (int k = 0; k < s->seq->n; k++)
    if (k != pos) vec_push(&ctx->arena, items, s->seq->v[k]);
  set_seq(n->outputs[0], items, s->dtype);
}

static void at_infer(Ctx *ctx, Node *n) {
  Value *s = seq_in(ctx, n, 0);
  int pos = const_pos(ctx, n, 1, s->seq->n, false);
  /* becomes Identity(item) */
  n->inputs[0] = s->seq->v[pos];
  n->n_inputs = n->n_explicit = 1;
  n->op_type = "Identity";
  n->def = op_lookup("", "Identity", n->opset);
  CHECK(n->def);
  n->def->infer(ctx, n);
}

static void length_infer(Ctx *ctx, Node *n) {
  Value *s = seq_in(ctx, n, 0), *y = n->outputs[0];
  value_set_shape(y, DT_INT64, 0, NULL);
  value_alloc_data(ctx, y);
  const_set_i(y, 0, s->seq->n);
}

/* ConcatFromSequence: the node's inputs become the items. */
typedef struct CatInfo { int axis; bool new_axis; } CatInfo;

static void concat_infer(Ctx *ctx, Node *n) {
  Value *s = seq_in(ctx, n, 0);
  int cnt = s->seq->n;
  if (!cnt) fail_node(ctx, n, "concatenating an empty sequence");
  Value *first = s->seq->v[0];
  CatInfo *ci = arena_alloc(&ctx->arena, sizeof *ci);
  ci->new_axis = attr_i(n, "new_axis", 0) != 0;
  if (!node_attr(n, "axis")) fail_node(ctx, n, "missing attribute 'axis'");
  int rank = first->rank + (ci->new_axis ? 1 : 0);
  ci->axis = norm_axis(ctx, n, attr_i(n, "axis", 0), rank);
  int64_t dims[ONNXC_MAX_RANK];
  if (rank > ONNXC_MAX_RANK) fail_node(ctx, n, "rank too large");
  int64_t total = 0;
  for (int k = 0; k < cnt; k++) {
    Value *v = s->seq->v[k];
    if (v->dtype != first->dtype || v->rank != first->rank) fail_node(ctx, n, "items differ in type or rank");
    for (int d = 0; d < v->rank; d++)
      if ((ci->new_axis || d != ci->axis) && v->dims[d] != first->dims[d])
        fail_node(ctx, n, "items differ in a dimension other than the axis");
    total += ci->new_axis ? 1 : v->dims[ci->axis];
  }
  if (ci->new_axis) {
    for (int d = 0, j = 0; d < rank; d++) dims[d] = d == ci->axis ? total : first->dims[j++];
  } else {
    for (int d = 0; d < rank; d++) dims[d] = d == ci->axis ? total : first->dims[d];
  }
  Value **ins = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(cnt + 1));
  for (int k = 0; k < cnt; k++) ins[k] = s->seq->v[k];
  n->inputs = ins;
  n->n_inputs = n->n_explicit = cnt;
  n->priv = ci;
  value_set_shape(n->outputs[0], first->dtype, rank, dims);
}

/* Bytes of one slab before the axis (outer count) and after it, for a value of `rank` whose
   axis `axis` has length `len`. */
static void slab(const Value *out, int axis, int64_t *outer, int64_t *inner) {
  *outer = 1;
  *inner = (int64_t)dtype_size(out->dtype);
  for (int d = 0; d < axis; d++) *outer *= out->dims[d];
  for (int d = axis + 1; d < out->rank; d++) *inner *= out->dims[d];
}

static void concat_emit(Emit *e, Node *n) {
  CatInfo *ci = n->priv;
  Value *y = n->outputs[0];
  int64_t outer, inner;
  slab(y, ci->axis, &outer, &inner);
  int64_t off = 0, row = y->dims[ci->axis] * inner;
  if (outer == 0 || inner == 0) return;
  ep(e, "long long o;");
  for (int k = 0; k < n->n_inputs; k++) {
    int64_t len = ci->new_axis ? 1 : n->inputs[k]->dims[ci->axis];
    int64_t chunk = len * inner;
    if (chunk)
      ep(e, "for (o = 0; o < %lldLL; o++) memcpy((unsigned char *)Y0 + o * %lldLL + %lld, (const unsigned char *)X%d + o * %lldLL, %lld);",
         (long long)outer, (long long)row, (long long)off, k, (long long)chunk, (long long)chunk);
    off += chunk;
  }
}

/* SplitToSequence: new outputs are the items. */
typedef struct SplitInfo { int axis; int n; int64_t *sizes; } SplitInfo;

static void split_infer(Ctx *ctx, Node *n) {
  Value *x = node_in(n, 0);
  if (!x || x->seq) fail_node(ctx, n, "input must be a tensor");
  SplitInfo *si = arena_alloc(&ctx->arena, sizeof *si);
  si->axis = norm_axis(ctx, n, attr_i(n, "axis", 0), x->rank);
  int64_t len = x->dims[si->axis];
  bool keep = attr_i(n, "keepdims", 1) != 0;
  Value *sp = node_in(n, 1);
  if (sp) {
    sp = node_const_in(ctx, n, 1, "split");
    if (value_numel(sp) == 1 && sp->rank == 0) {
      int64_t c = const_get_i(sp, 0);
      if (c <= 0) fail_node(ctx, n, "split size must be positive");
      si->n = (int)((len + c - 1) / c);
      si->sizes = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(si->n + 1));
      for (int k = 0; k < si->n; k++) si->sizes[k] = k == si->n - 1 ? len - c * k : c;
    } else {
      si->n = (int)value_numel(sp);
      si->sizes = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(si->n + 1));
      int64_t sum = 0;
      for (int k = 0; k < si->n; k++) {
        si->sizes[k] = const_get_i(sp, k);
        if (si->sizes[k] < 0) fail_node(ctx, n, "negative split size");
        sum += si->sizes[k];
      }
      if (sum != len) fail_node(ctx, n, "split sizes add up to %lld, the axis has %lld", (long long)sum, (long long)len);
    }
    keep = true;
  } else {
    si->n = (int)len;
    si->sizes = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(si->n + 1));
    for (int k = 0; k < si->n; k++) si->sizes[k] = 1;
  }
  if (si->n > 4096) fail_node(ctx, n, "too many items (%d)", si->n);
  Value *seqv = n->outputs[0];
  PtrVec *items = new_list(ctx);
  Value **outs = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(si->n + 1));
  for (int k = 0; k < si->n; k++) {
    Value *v = graph_new_value(ctx, infer_graph(ctx), arena_printf(&ctx->arena, "%s[%d]", seqv->name, k));
    int64_t dims[ONNXC_MAX_RANK];
    int r = 0;
    for (int d = 0; d < x->rank; d++) {
      if (d == si->axis) {
        if (keep) dims[r++] = si->sizes[k];
      } else {
        dims[r++] = x->dims[d];
      }
    }
    value_set_shape(v, x->dtype, r, dims);
    v->producer = n;
    outs[k] = v;
    vec_push(&ctx->arena, items, v);
  }
  n->outputs = outs;
  n->n_outputs = si->n;
  n->priv = si;
  set_seq(seqv, items, x->dtype);
  seqv->producer = NULL;
}

static void split_emit(Emit *e, Node *n) {
  SplitInfo *si = n->priv;
  Value *x = n->inputs[0];
  int64_t outer, inner;
  slab(x, si->axis, &outer, &inner);
  int64_t row = x->dims[si->axis] * inner, off = 0;
  if (outer == 0 || inner == 0) return;
  ep(e, "long long o;");
  for (int k = 0; k < si->n; k++) {
    int64_t chunk = si->sizes[k] * inner;
    if (chunk)
      ep(e, "if (Y%d) for (o = 0; o < %lldLL; o++) memcpy((unsigned char *)Y%d + o * %lldLL, (const unsigned char *)X0 + o * %lldLL + %lld, %lld);",
         k, (long long)outer, k, (long long)chunk, (long long)row, (long long)off, (long long)chunk);
    off += chunk;
  }
}

static void nocode_emit(Emit *e, Node *n) { (void)e; (void)n; }

/* A constant bool scalar. */
static Value *const_flag(Ctx *ctx, const char *name, bool x) {
  Value *v = graph_new_value(ctx, infer_graph(ctx), name);
  value_set_shape(v, DT_BOOL, 0, NULL);
  value_alloc_data(ctx, v);
  const_set_i(v, 0, x);
  return v;
}

static void optional_infer(Ctx *ctx, Node *n) {
  Value *x = node_in(n, 0), *y = n->outputs[0];
  OptInfo *oi = arena_alloc(&ctx->arena, sizeof *oi);
  if (x) {
    if (x->opt) fail_node(ctx, n, "optionals of optionals are not supported");
    oi->content = x;
    oi->of_seq = x->seq != NULL;
    oi->present = const_flag(ctx, arena_printf(&ctx->arena, "%s.has_value", y->name), true);
    y->opt = oi;
    value_set_shape(y, x->dtype, 0, NULL);
    return;
  }
  const Attr *a = node_attr(n, "type");
  if (!a || !a->tp_kind) fail_node(ctx, n, "an empty Optional needs its 'type' attribute");
  if (a->tp_kind == TP_OTHER) fail_node(ctx, n, "optionals of maps, optionals or sparse tensors are not supported");
  oi->of_seq = a->tp_kind == TP_SEQUENCE;
  oi->present = const_flag(ctx, arena_printf(&ctx->arena, "%s.has_value", y->name), false);
  y->opt = oi;
  value_set_shape(y, a->tp_dtype, 0, NULL);
}

static void has_element_infer(Ctx *ctx, Node *n) {
  Value *x = node_in(n, 0), *y = n->outputs[0];
  if (x && x->opt && !x->opt->present->data) {
    /* known at run time: the flag itself */
    n->inputs[0] = x->opt->present;
    n->n_inputs = n->n_explicit = 1;
    n->op_type = "Identity";
    n->def = op_lookup("", "Identity", n->opset);
    CHECK(n->def);
    n->def->infer(ctx, n);
    return;
  }
  value_set_shape(y, DT_BOOL, 0, NULL);
  value_alloc_data(ctx, y);
  const_set_i(y, 0, x && (!x->opt || const_get_i(x->opt->present, 0)));
}

/* y becomes what x is: its items, or (through an Identity of n) the tensor. */
static void become(Ctx *ctx, Node *n, Value *x) {
  Value *y = n->outputs[0];
  n->inputs[0] = x;
  n->n_inputs = n->n_explicit = 1;
  n->op_type = "Identity";
  n->def = op_lookup("", "Identity", n->opset);
  CHECK(n->def);
  if (x->seq) {
    y->seq = x->seq;
    value_set_shape(y, x->dtype, 0, NULL);
    return;
  }
  n->def->infer(ctx, n);
}

static void get_element_infer(Ctx *ctx, Node *n) {
  Value *x = node_in(n, 0), *y = n->outputs[0];
  if (!x) fail_node(ctx, n, "the optional is empty");
  if (!x->opt) {
    become(ctx, n, x);
    return;
  }
  OptInfo *oi = x->opt;
  if ((oi->present->data && !const_get_i(oi->present, 0)) || !oi->content)
    fail_node(ctx, n, "the optional is always empty here");
  if (oi->present->data) {
    become(ctx, n, oi->content);
    return;
  }
  /* present or not at run time: a copy that checks the flag */
  opt_copy(ctx, n, x, true, y);
}

bool op_takes_sequences(const Node *n) {
  static const char *const ops[] = {"SequenceInsert", "SequenceErase", "SequenceAt", "SequenceLength",
                                    "ConcatFromSequence", "SequenceMap", "Optional", "OptionalHasElement",
                                    "OptionalGetElement", "Loop", NULL};
  if (*n->domain) return false;
  for (int i = 0; ops[i]; i++)
    if (!strcmp(n->op_type, ops[i])) return true;
  return false;
}

#define ANY "tensors of any type (compile-time lists)"
static const OpDef sequence_rows[] = {
    {"SequenceConstruct", "", 11, ONNXC_MAX_OPSET, 0, construct_infer, NULL, nocode_emit, NULL, ANY, NULL},
    {"SequenceEmpty", "", 11, ONNXC_MAX_OPSET, 0, empty_infer, NULL, nocode_emit, NULL, ANY, NULL},
    {"SequenceInsert", "", 11, ONNXC_MAX_OPSET, 0, insert_infer, NULL, nocode_emit, NULL, ANY, NULL},
    {"SequenceErase", "", 11, ONNXC_MAX_OPSET, 0, erase_infer, NULL, nocode_emit, NULL, ANY, NULL},
    {"SequenceAt", "", 11, ONNXC_MAX_OPSET, 0, at_infer, NULL, NULL, NULL, ANY, NULL},
    {"SequenceLength", "", 11, ONNXC_MAX_OPSET, 0, length_infer, NULL, nocode_emit, NULL, ANY, NULL},
    {"ConcatFromSequence", "", 11, ONNXC_MAX_OPSET, 0, concat_infer, NULL, concat_emit, NULL, ANY, NULL},
    {"SplitToSequence", "", 11, ONNXC_MAX_OPSET, 0, split_infer, NULL, split_emit, NULL, ANY, NULL},
    {"Optional", "", 15, ONNXC_MAX_OPSET, 0, optional_infer, NULL, nocode_emit, NULL, "tensors, sequences", NULL},
    {"OptionalHasElement", "", 15, ONNXC_MAX_OPSET, 0, has_element_infer, NULL, nocode_emit, NULL, "optionals, tensors, sequences", NULL},
    {"OptionalGetElement", "", 15, ONNXC_MAX_OPSET, 0, get_element_infer, NULL, NULL, NULL, "optionals, tensors, sequences", NULL},
    {"SequenceMap", "", 17, ONNXC_MAX_OPSET, 0, sequence_map_infer, NULL, nocode_emit, NULL, ANY, NULL},
};
OPS_FAMILY(sequence);
