/*
 * infer_util.c - shape-rule helpers shared by the op families.
 */
#include <string.h>

#include "onnxc.h"

void infer_same_as_input0(Ctx *ctx, Node *n) {
  Value *x = node_in(n, 0);
  if (!x) fail_node(ctx, n, "missing input 0");
  for (int k = 0; k < n->n_outputs; k++)
    if (n->outputs[k]) value_set_shape(n->outputs[k], x->dtype, x->rank, x->dims);
}

bool broadcast_shapes(int ra, const int64_t *a, int rb, const int64_t *b, int *rout, int64_t *out) {
  int r = ra > rb ? ra : rb;
  for (int i = 0; i < r; i++) {
    int ia = i - (r - ra), ib = i - (r - rb);
    int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
    if (da == db || db == 1) out[i] = da;
    else if (da == 1) out[i] = db;
    else return false;
  }
  *rout = r;
  return true;
}

void infer_broadcast(Ctx *ctx, Node *n) {
  int r = 0;
  int64_t dims[ONNXC_MAX_RANK];
  Value *first = NULL;
  for (int k = 0; k < n->n_inputs; k++) {
    Value *v = n->inputs[k];
    if (!v) continue;
    if (!first) {
      first = v;
      r = v->rank;
      memcpy(dims, v->dims, sizeof(int64_t) * (size_t)r);
      continue;
    }
    int64_t tmp[ONNXC_MAX_RANK];
    int rt;
    if (v->rank > ONNXC_MAX_RANK || !broadcast_shapes(r, dims, v->rank, v->dims, &rt, tmp))
      fail_node(ctx, n, "inputs %s and %s do not broadcast", shape_str(&ctx->arena, first),
                shape_str(&ctx->arena, v));
    r = rt;
    memcpy(dims, tmp, sizeof(int64_t) * (size_t)r);
  }
  if (!first) fail_node(ctx, n, "no inputs");
  if (node_out(n, 0)) value_set_shape(n->outputs[0], first->dtype, r, dims);
}

int norm_axis(Ctx *ctx, const Node *n, int64_t axis, int rank) {
  if (axis < -rank || axis >= (rank > 0 ? rank : 1))
    fail_node(ctx, n, "axis %lld is out of range for rank %d", (long long)axis, rank);
  return (int)(axis < 0 ? axis + rank : axis);
}

void require_dtype(Ctx *ctx, const Node *n, int i, const int *dtypes) {
  Value *v = node_in(n, i);
  if (!v) fail_node(ctx, n, "missing input %d", i);
  for (const int *d = dtypes; *d; d++)
    if (*d == v->dtype) return;
  fail_node(ctx, n, "input '%s' has element type %s, which this op does not support", v->name,
            dtype_name(v->dtype));
}

void require_inputs(Ctx *ctx, const Node *n, int min, int max) {
  int present = 0;
  for (int k = 0; k < n->n_inputs; k++)
    if (n->inputs[k]) present = k + 1;
  if (present < min || n->n_inputs > max)
    fail_node(ctx, n, "expects %d to %d inputs, got %d", min, max, n->n_inputs);
  for (int k = 0; k < min; k++)
    if (!n->inputs[k]) fail_node(ctx, n, "required input %d is missing", k);
}

/* Flat index into v (rank <= out rank, broadcast) for output index o of out. */
int64_t bcast_index(const Value *out, const Value *v, int64_t o) {
  int64_t idx = 0, stride = 1;
  for (int d = out->rank - 1; d >= 0; d--) {
    int64_t c = o % out->dims[d];
    o /= out->dims[d];
    int vd = d - (out->rank - v->rank);
    if (vd < 0) continue;
    if (v->dims[vd] != 1) idx += c * stride;
    stride *= v->dims[vd];
  }
  return idx;
}
