/*
 * learned_swish.c - the custom op com.example::LearnedSwish(X, Beta) -> Y of swirl.onnx,
 * as onnxc's custom-op ABI wants it (onnxc_custom.h, docs/CUSTOM_OPS.md):
 *
 *   Y = X * sigmoid(Beta * X)        Beta: one value per feature (X's last axis)
 *
 * Spec (custom_ops.txt; the Makefile passes the same with --custom-op):
 *   com.example::LearnedSwish:outputs=in0:backward=inputs
 * outputs=in0: Y has X's type and shape; backward=inputs: the backward reads X and Beta (not Y).
 */
#include <math.h>

#include "onnxc_custom.h"
#include "swirl.h" /* onnxc declares the functions the model calls: the compiler checks them here */

static float sigmoid(float z) {
  if (z >= 0) return 1.0f / (1.0f + expf(-z));
  return expf(z) / (1.0f + expf(z));
}

/* The shapes onnxc promises from the spec, checked once more: X [..., C] float, Beta [C]. */
static int check(const onnxc_tensor_view *in, int n_in) {
  if (n_in != 2 || in[0].dtype != ONNXC_FLOAT || in[1].dtype != ONNXC_FLOAT) return ONNXC_ERR_CUSTOM;
  if (in[0].rank < 1 || in[1].rank != 1 || in[1].dims[0] != in[0].dims[in[0].rank - 1]) return ONNXC_ERR_CUSTOM;
  return ONNXC_OK;
}

int com_example_LearnedSwish_forward(const onnxc_tensor_view *inputs, int n_inputs, onnxc_tensor_view *outputs,
                                     int n_outputs, const onnxc_attr *attrs, int n_attrs, void *workspace,
                                     size_t workspace_bytes) {
  const float *x = (const float *)inputs[0].data, *beta = (const float *)inputs[1].data;
  float *y = (float *)outputs[0].data;
  int64_t i, n = onnxc_view_numel(&inputs[0]), c = inputs[1].dims[0];
  int st = check(inputs, n_inputs);
  (void)n_outputs, (void)attrs, (void)n_attrs, (void)workspace, (void)workspace_bytes;
  if (st != ONNXC_OK) return st;
  if (!y) return ONNXC_OK; /* nobody reads Y */
  for (i = 0; i < n; i++) y[i] = x[i] * sigmoid(beta[i % c] * x[i]);
  return ONNXC_OK;
}

/* With s = sigmoid(b x):  dY/dX = s + b x s (1 - s),  dY/dBeta = x^2 s (1 - s), summed over rows.
   grad_inputs[k].data is NULL when input k needs no gradient (e.g. the first layer's input). */
int com_example_LearnedSwish_backward(const onnxc_tensor_view *inputs, int n_inputs,
                                      const onnxc_tensor_view *outputs, int n_outputs,
                                      const onnxc_tensor_view *grad_outputs, onnxc_tensor_view *grad_inputs,
                                      const onnxc_attr *attrs, int n_attrs, void *workspace, size_t workspace_bytes) {
  const float *x = (const float *)inputs[0].data, *beta = (const float *)inputs[1].data;
  const float *dy = (const float *)grad_outputs[0].data;
  float *dx = (float *)grad_inputs[0].data, *dbeta = (float *)grad_inputs[1].data;
  int64_t i, n = onnxc_view_numel(&inputs[0]), c = inputs[1].dims[0];
  int st = check(inputs, n_inputs);
  (void)outputs, (void)n_outputs, (void)attrs, (void)n_attrs, (void)workspace, (void)workspace_bytes;
  if (st != ONNXC_OK) return st;
  if (dbeta)
    for (i = 0; i < c; i++) dbeta[i] = 0;
  for (i = 0; i < n; i++) {
    float b = beta[i % c], s = sigmoid(b * x[i]), ds = s * (1 - s), g = dy ? dy[i] : 0;
    if (dx) dx[i] = g * (s + b * x[i] * ds);
    if (dbeta) dbeta[i % c] += g * x[i] * x[i] * ds;
  }
  return ONNXC_OK;
}
