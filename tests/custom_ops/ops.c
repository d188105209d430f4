/*
 * ops.c - the C side of the custom-op fixtures (tests/custom_ops/ops.txt gives their specs).
 *
 *   test.custom::PGate(X, A) -> Y          Y = scale * X * tanh(A * X), A one value per
 *                                          column (X's last axis); attribute scale (float)
 *   test.custom::RowNorm(X) -> (Y, S)      per row of X [N, C]: Y = (X - mean) * rstd,
 *                                          S[n] = (mean, rstd), rstd = 1 / sqrt(var + eps);
 *                                          attribute eps (float); the centred row goes
 *                                          through the workspace
 *   test.custom::Fail(X) -> Y              returns the status in attribute code (int)
 *
 * Each function also checks what the ABI promises (counts, dtypes, dims, workspace size and
 * alignment, NULL data where onnxc says so) and returns ONNXC_ERR_CUSTOM + k when something is
 * off, so a broken call shows up as a failed run rather than as wrong numbers.  The torch
 * reference (export_custom.py) computes the same functions with plain torch ops, so the
 * gradients it checks come from torch autograd, not from the formulas below.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "onnxc_custom.h"

#define BAD(k) return ONNXC_ERR_CUSTOM + (k)

static int same_dims(const onnxc_tensor_view *a, const onnxc_tensor_view *b) {
  int32_t d;
  if (a->rank != b->rank) return 0;
  for (d = 0; d < a->rank; d++)
    if (a->dims[d] != b->dims[d]) return 0;
  return 1;
}

static float attr_float(const onnxc_attr *attrs, int n_attrs, const char *name, float dflt) {
  const onnxc_attr *a = onnxc_find_attr(attrs, n_attrs, name);
  return a && a->type == ONNXC_ATTR_FLOAT ? a->f : dflt;
}

/* ---- PGate ------------------------------------------------------------------------------ */

static int pgate_check(const onnxc_tensor_view *in, int n_in, const onnxc_attr *attrs, int n_attrs,
                       const void *ws, size_t ws_bytes) {
  if (n_in != 2 || in[0].dtype != ONNXC_FLOAT || in[1].dtype != ONNXC_FLOAT) return 1;
  if (in[0].rank < 1 || in[1].rank != 1 || in[1].dims[0] != in[0].dims[in[0].rank - 1]) return 2;
  if (!onnxc_find_attr(attrs, n_attrs, "scale")) return 3;
  if (ws || ws_bytes) return 4; /* workspace=0 in the spec */
  return 0;
}

int test_custom_PGate_forward(const onnxc_tensor_view *inputs, int n_inputs, onnxc_tensor_view *outputs,
                              int n_outputs, const onnxc_attr *attrs, int n_attrs, void *workspace,
                              size_t workspace_bytes) {
  const float *x = (const float *)inputs[0].data, *a = (const float *)inputs[1].data;
  float *y = (float *)outputs[0].data;
  float scale = attr_float(attrs, n_attrs, "scale", 1.0f);
  int64_t i, n = onnxc_view_numel(&inputs[0]), c = inputs[1].dims[0];
  int bad = pgate_check(inputs, n_inputs, attrs, n_attrs, workspace, workspace_bytes);
  if (bad) BAD(bad);
  if (n_outputs != 1 || !same_dims(&inputs[0], &outputs[0]) || !x || !a || !y) BAD(5);
  for (i = 0; i < n; i++) y[i] = scale * x[i] * tanhf(a[i % c] * x[i]);
  return ONNXC_OK;
}

/* backward=inputs: x and a are given, y is not.
   dx = scale * dy * (t + a x (1 - t^2)), da[c] = sum over rows of scale * dy * x^2 (1 - t^2) */
int test_custom_PGate_backward(const onnxc_tensor_view *inputs, int n_inputs, const onnxc_tensor_view *outputs,
                               int n_outputs, const onnxc_tensor_view *grad_outputs, onnxc_tensor_view *grad_inputs,
                               const onnxc_attr *attrs, int n_attrs, void *workspace, size_t workspace_bytes) {
  const float *x = (const float *)inputs[0].data, *a = (const float *)inputs[1].data;
  const float *dy = (const float *)grad_outputs[0].data;
  float *dx = (float *)grad_inputs[0].data, *da = (float *)grad_inputs[1].data;
  float scale = attr_float(attrs, n_attrs, "scale", 1.0f);
  int64_t i, n = onnxc_view_numel(&inputs[0]), c = inputs[1].dims[0];
  int bad = pgate_check(inputs, n_inputs, attrs, n_attrs, workspace, workspace_bytes);
  if (bad) BAD(bad);
  if (n_outputs != 1 || outputs[0].data || !x || !a || !dy) BAD(6);
  if (!same_dims(&grad_outputs[0], &inputs[0]) || !same_dims(&grad_inputs[0], &inputs[0]) ||
      !same_dims(&grad_inputs[1], &inputs[1]))
    BAD(7);
  if (da)
    for (i = 0; i < c; i++) da[i] = 0;
  for (i = 0; i < n; i++) {
    float t = tanhf(a[i % c] * x[i]), s = 1 - t * t;
    if (dx) dx[i] = scale * dy[i] * (t + a[i % c] * x[i] * s);
    if (da) da[i % c] += scale * dy[i] * x[i] * x[i] * s;
  }
  return ONNXC_OK;
}

/* ---- RowNorm ---------------------------------------------------------------------------- */

#define ROWNORM_WS 256 /* workspace=256 in ops.txt: one row of up to 64 floats */

static int rownorm_check(const onnxc_tensor_view *in, int n_in, const onnxc_tensor_view *out, int n_out,
                         const void *ws, size_t ws_bytes) {
  if (n_in != 1 || n_out != 2 || in[0].dtype != ONNXC_FLOAT || in[0].rank != 2) return 11;
  if (in[0].dims[1] * 4 > ROWNORM_WS) return 12;
  if (!same_dims(&in[0], &out[0]) || out[1].rank != 2 || out[1].dims[0] != in[0].dims[0] || out[1].dims[1] != 2)
    return 13;
  if (!ws || ws_bytes != ROWNORM_WS || (uintptr_t)ws % 16 != 0) return 14;
  return 0;
}

int test_custom_RowNorm_forward(const onnxc_tensor_view *inputs, int n_inputs, onnxc_tensor_view *outputs,
                                int n_outputs, const onnxc_attr *attrs, int n_attrs, void *workspace,
                                size_t workspace_bytes) {
  const float *x = (const float *)inputs[0].data;
  float *y = (float *)outputs[0].data, *st = (float *)outputs[1].data, *row = (float *)workspace;
  float eps = attr_float(attrs, n_attrs, "eps", 1e-5f);
  int64_t r, i, rows, cols;
  int bad = rownorm_check(inputs, n_inputs, outputs, n_outputs, workspace, workspace_bytes);
  if (bad) BAD(bad);
  rows = inputs[0].dims[0];
  cols = inputs[0].dims[1];
  for (r = 0; r < rows; r++) {
    double mean = 0, var = 0;
    float rstd;
    for (i = 0; i < cols; i++) mean += x[r * cols + i];
    mean /= (double)cols;
    for (i = 0; i < cols; i++) {
      row[i] = (float)(x[r * cols + i] - mean);
      var += (double)row[i] * row[i];
    }
    rstd = (float)(1.0 / sqrt(var / (double)cols + eps));
    if (y)
      for (i = 0; i < cols; i++) y[r * cols + i] = row[i] * rstd;
    if (st) {
      st[2 * r] = (float)mean;
      st[2 * r + 1] = rstd;
    }
  }
  return ONNXC_OK;
}

/* backward=all: y and the stats are given.  With g = dy, dm = dS[.,0], dr = dS[.,1]:
   dx = rstd (g - mean(g) - y mean(g y)) + dm / C - dr rstd^2 y / C */
int test_custom_RowNorm_backward(const onnxc_tensor_view *inputs, int n_inputs, const onnxc_tensor_view *outputs,
                                 int n_outputs, const onnxc_tensor_view *grad_outputs, onnxc_tensor_view *grad_inputs,
                                 const onnxc_attr *attrs, int n_attrs, void *workspace, size_t workspace_bytes) {
  const float *y = (const float *)outputs[0].data, *st = (const float *)outputs[1].data;
  const float *gy = (const float *)grad_outputs[0].data, *gs = (const float *)grad_outputs[1].data;
  float *dx = (float *)grad_inputs[0].data;
  int64_t r, i, rows, cols;
  int bad = rownorm_check(inputs, n_inputs, outputs, n_outputs, workspace, workspace_bytes);
  (void)attrs;
  (void)n_attrs;
  if (bad) BAD(bad);
  if (!inputs[0].data || !y || !st || !dx || !same_dims(&grad_inputs[0], &inputs[0])) BAD(15);
  if (!gy && !gs) BAD(16); /* onnxc calls the backward only when some gradient flows */
  rows = inputs[0].dims[0];
  cols = inputs[0].dims[1];
  for (r = 0; r < rows; r++) {
    const float *yr = y + r * cols;
    float rstd = st[2 * r + 1];
    double mg = 0, mgy = 0;
    for (i = 0; i < cols && gy; i++) {
      mg += gy[r * cols + i];
      mgy += (double)gy[r * cols + i] * yr[i];
    }
    mg /= (double)cols;
    mgy /= (double)cols;
    for (i = 0; i < cols; i++) {
      double d = gy ? rstd * (gy[r * cols + i] - mg - yr[i] * mgy) : 0;
      if (gs) d += gs[2 * r] / (double)cols - gs[2 * r + 1] * rstd * rstd * yr[i] / (double)cols;
      dx[r * cols + i] = (float)d;
    }
  }
  return ONNXC_OK;
}

/* ---- Fail ------------------------------------------------------------------------------- */

int test_custom_Fail_forward(const onnxc_tensor_view *inputs, int n_inputs, onnxc_tensor_view *outputs,
                             int n_outputs, const onnxc_attr *attrs, int n_attrs, void *workspace,
                             size_t workspace_bytes) {
  const onnxc_attr *code = onnxc_find_attr(attrs, n_attrs, "code");
  (void)workspace;
  (void)workspace_bytes;
  if (n_inputs != 1 || n_outputs != 1 || !code || code->type != ONNXC_ATTR_INT) BAD(21);
  if (outputs[0].data) memcpy(outputs[0].data, inputs[0].data, (size_t)onnxc_view_numel(&inputs[0]) * 4);
  return (int)code->i;
}

int test_custom_Fail_backward(const onnxc_tensor_view *inputs, int n_inputs, const onnxc_tensor_view *outputs,
                              int n_outputs, const onnxc_tensor_view *grad_outputs, onnxc_tensor_view *grad_inputs,
                              const onnxc_attr *attrs, int n_attrs, void *workspace, size_t workspace_bytes) {
  const onnxc_attr *code = onnxc_find_attr(attrs, n_attrs, "backward_code");
  (void)inputs, (void)n_inputs, (void)outputs, (void)n_outputs, (void)workspace, (void)workspace_bytes;
  if (grad_inputs[0].data)
    memcpy(grad_inputs[0].data, grad_outputs[0].data, (size_t)onnxc_view_numel(&grad_inputs[0]) * 4);
  return code ? (int)code->i : 0;
}
