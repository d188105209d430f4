/*
 * infer.c - static shape and type inference, with constant folding on the way.
 *
 * Nodes are visited in topological order.  Each node's op row gives its shape rule; when every
 * input of a node is known at compile time and the row can fold, its outputs are computed now
 * and become constants.  Doing both in one walk matters: shape-computing chains exported by
 * PyTorch (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) fold to constants just before the
 * Reshape that needs them as its shape.
 */
#include <string.h>

#include "onnxc.h"

#define FOLD_MAX_BYTES ((int64_t)64 << 20)

/* A --custom-op spec wins over a built-in row of the same non-ONNX domain and name. */
static void resolve_op(Ctx *ctx, Node *n) {
  n->def = custom_resolve(ctx, n);
  if (n->def) return;
  n->def = op_lookup(n->domain, n->op_type, n->opset);
  if (n->def) return;
  if (op_known_name(n->domain, n->op_type))
    fail_node(ctx, n, "op %s%s%s is supported, but not at opset %d", *n->domain ? n->domain : "",
              *n->domain ? "::" : "", n->op_type, n->opset);
  if (!custom_domain_reserved(n->domain))
    fail_node(ctx, n, "unsupported op: domain '%s', op type '%s', opset %d; if it is your own op, describe it "
              "with --custom-op '%s::%s:outputs=...' and link its C functions (docs/CUSTOM_OPS.md)",
              n->domain, n->op_type, n->opset, n->domain, n->op_type);
  fail_node(ctx, n, "unsupported op: domain '%s', op type '%s', opset %d",
            *n->domain ? n->domain : "ai.onnx", n->op_type, n->opset);
}

/* The float8/int4/float4/int2 types flow only through ops that convert them or move their
   bytes unchanged; packed (sub-byte) ones only through conversions and byte-identical views. */
static void check_small_types(Ctx *ctx, Node *n) {
  static const char *const convert[] = {"Cast", "CastLike", "QuantizeLinear", "DequantizeLinear",
                                        "Shape", "Size", "Reshape", "Flatten", "Squeeze", "Unsqueeze",
                                        "Identity", "Constant", NULL};
  static const char *const move[] = {"Transpose", "Concat", "Gather", "Slice", "Pad", "Expand", "Tile",
                                     "Split", "Compress", "DepthToSpace", "SpaceToDepth", "Trilu", "Where",
                                     "ConstantOfShape", "EyeLike", "GatherElements", "GatherND", NULL};
  for (int k = 0; k < n->n_inputs; k++) {
    Value *v = n->inputs[k];
    if (!v || !dtype_is_small(v->dtype)) continue;
    bool ok = false;
    for (int i = 0; convert[i] && !ok; i++) ok = !strcmp(n->op_type, convert[i]);
    if (!dtype_is_packed(v->dtype))
      for (int i = 0; move[i] && !ok; i++) ok = !strcmp(n->op_type, move[i]);
    if (!ok || *n->domain)
      fail_node(ctx, n, "element type %s is not supported by this op", dtype_name(v->dtype));
  }
}

void infer_node(Ctx *ctx, Node *n) {
  bool seq_in = false;
  for (int k = 0; k < n->n_explicit && k < n->n_inputs; k++)
    if (value_is_structured(n->inputs[k])) seq_in = true;
  if (seq_in && !strcmp(n->op_type, "Identity") && !*n->domain && n->outputs[0]) {
    /* a sequence or an optional passed through: the same items, flag and content */
    Value *y = n->outputs[0], *x = n->inputs[0];
    y->seq = x->seq;
    y->opt = x->opt;
    value_set_shape(y, x->dtype, 0, NULL);
    n->def = op_lookup("", "Identity", n->opset);
    return;
  }
  if (seq_in && !op_takes_sequences(n))
    fail_node(ctx, n, "sequence and optional inputs are not supported by this op");
  resolve_op(ctx, n);
  check_small_types(ctx, n);
  for (int k = 0; k < n->n_inputs; k++) {
    Value *v = n->inputs[k];
    if (v && !v->typed)
      fail_node(ctx, n, "input '%s' has no known type or shape", v->name);
  }
  string_gate(ctx, n);
  n->def->infer(ctx, n);
  string_gate_outputs(ctx, n);
  bool all_const = true;
  int64_t out_bytes = 0;
  for (int k = 0; k < n->n_outputs; k++) {
    Value *v = n->outputs[k];
    if (!v) continue;
    if (!v->typed && k > 0)
      fail_node(ctx, n, "has %d outputs; output %d ('%s') is not one this op produces (or one onnxc does not support)",
                n->n_outputs, k, v->name);
    if (!v->typed) fail_node(ctx, n, "internal: shape rule left output '%s' untyped", v->name);
    int64_t cnt = 1, bytes;
    for (int d = 0; d < v->rank; d++)
      if (v->dims[d] < 0 || !mul_ok(cnt, v->dims[d], &cnt))
        fail_node(ctx, n, "output '%s': element count overflows", v->name);
    if (!mul_ok(cnt, (int64_t)dtype_size(v->dtype), &bytes) || bytes > ONNXC_MAX_TENSOR_BYTES)
      fail_node(ctx, n, "output '%s': element count overflows", v->name);
    out_bytes += bytes;
  }
  for (int k = 0; k < n->n_inputs; k++)
    if (n->inputs[k] && !n->inputs[k]->data) all_const = false;
  if (n->def->fold && all_const && out_bytes <= FOLD_MAX_BYTES) {
    for (int k = 0; k < n->n_outputs; k++)
      if (n->outputs[k]) value_alloc_data(ctx, n->outputs[k]);
    ctx->fold_declined = false;
    n->def->fold(ctx, n);
    if (ctx->fold_declined) /* the row could not fold this instance after all */
      for (int k = 0; k < n->n_outputs; k++)
        if (n->outputs[k]) {
          n->outputs[k]->data = NULL;
          n->outputs[k]->kind = VAL_INTERMEDIATE;
        }
  }
}

void infer_visit(Ctx *ctx, Node *n) {
  for (int k = 0; k < n->n_inputs; k++)
    if (n->inputs[k] && n->inputs[k]->dynamic && !n->inputs[k]->data)
      fail_node(ctx, n, "input '%s' has a data-dependent shape; onnxc supports those only as graph outputs",
                n->inputs[k]->name);
  n->inferred = true;
  infer_node(ctx, n);
}

void infer_and_fold(Ctx *ctx, Graph *g) {
  Graph *saved = ctx->cur_graph;
  ctx->cur_graph = g;
  /* nodes may be spliced in after the one being visited (unroll.c); they come inferred */
  for (int i = 0; i < g->nodes.n; i++) {
    Node *n = g->nodes.v[i];
    if (!n->inferred) infer_visit(ctx, n);
  }
  for (int i = 0; i < g->nodes.n; i++) ((Node *)g->nodes.v[i])->id = i;
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    if (!v->typed) fail(ctx, "graph output '%s' has no known shape", v->name);
  }
  ctx->cur_graph = saved;
}

/* Dead-code removal: a node is live when one of its outputs is a graph output or feeds a live
   node, and not all of its outputs were folded to constants. */
void eliminate_dead(Ctx *ctx, Graph *g) {
  (void)ctx;
  int nn = g->nodes.n;
  for (int i = 0; i < g->values.n; i++) ((Value *)g->values.v[i])->n_consumers = 0;
  for (int i = nn - 1; i >= 0; i--) {
    Node *n = g->nodes.v[i];
    bool live = false, all_const = true;
    for (int k = 0; k < n->n_outputs; k++) {
      Value *v = n->outputs[k];
      if (!v) continue;
      if (!v->data) all_const = false;
      if (v->is_output || v->n_consumers > 0) live = true;
    }
    n->dead = !live || all_const;
    if (n->dead) continue;
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k]) n->inputs[k]->n_consumers++;
  }
  /* Subgraph nodes (If/Loop bodies) may use outer values: count those uses too. */
}
