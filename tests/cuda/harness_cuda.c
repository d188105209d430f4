/*
 * harness_cuda.c - the conformance harness for models built with --target cuda (on a GPU, or
 * on the CPU through tests/cuda/emu).
 *
 *   harness_cuda DIR NAME=FILE...   like tests/conformance/harness.c: binds input NAME to the
 *                                   raw bytes in FILE, runs the model through its
 *                                   onnxc_cuda_model descriptor (model_cuda_model: compile
 *                                   with --name model) and writes DIR/out_K.bin and
 *                                   DIR/out_K.dims for every output K.
 * The model runs three times with run_host: launched kernel by kernel, then captured into a
 * CUDA graph and launched, then replayed; the graph's two results must be byte-identical and
 * equal to the first run's up to float rounding (1e-5 of the largest value).  Exits 77
 * (skipped) when there is no CUDA device.  ONNXC_CUDA_NO_GRAPHS=1 in the environment creates
 * the model without graphs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc_rt_cuda.h"
#include "../conformance/read_all.h"

extern const onnxc_cuda_model model_cuda_model;

int main(int argc, char **argv) {
  const onnxc_cuda_model *m = &model_cuda_model;
  if (argc < 2) {
    fprintf(stderr, "usage: harness_cuda DIR NAME=FILE...\n");
    return 2;
  }
  const void **in = calloc((size_t)m->n_inputs + 1, sizeof(void *));
  void **out[3];
  size_t *bytes = calloc((size_t)m->n_outputs + 1, sizeof(size_t));
  for (int i = 2; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq) {
      fprintf(stderr, "bad argument %s\n", argv[i]);
      return 2;
    }
    *eq = 0;
    int k = -1;
    for (int j = 0; j < m->n_inputs; j++)
      if (!strcmp(m->inputs[j].name, argv[i])) k = j;
    if (k < 0) {
      fprintf(stderr, "no input named %s\n", argv[i]);
      return 2;
    }
    size_t len;
    void *p = read_all(eq + 1, &len);
    if (!p) {
      fprintf(stderr, "cannot read %s\n", eq + 1);
      return 2;
    }
    if (len != onnxc_tensor_bytes(&m->inputs[k])) {
      fprintf(stderr, "input %s: %zu bytes given, model expects %zu\n", argv[i], len, onnxc_tensor_bytes(&m->inputs[k]));
      return 3;
    }
    in[k] = p;
  }
  for (int k = 0; k < m->n_inputs; k++)
    if (!in[k]) {
      fprintf(stderr, "input %s not given\n", m->inputs[k].name);
      return 2;
    }
  for (int r = 0; r < 3; r++) {
    out[r] = calloc((size_t)m->n_outputs + 1, sizeof(void *));
    for (int k = 0; k < m->n_outputs; k++) {
      bytes[k] = onnxc_tensor_bytes(&m->outputs[k]);
      out[r][k] = malloc(bytes[k] + 16);
      memset(out[r][k], 0xA5, bytes[k] + 16);
    }
  }
  onnxc_cuda_options opt;
  memset(&opt, 0, sizeof opt);
  opt.no_graphs = getenv("ONNXC_CUDA_NO_GRAPHS") && atoi(getenv("ONNXC_CUDA_NO_GRAPHS"));
  void *ctx = NULL;
  int st = m->create(&ctx, &opt);
  if (st == ONNXC_ERR_NO_DEVICE) {
    printf("SKIP: no CUDA device (%s)\n", ctx ? m->error(ctx) : "create failed");
    m->destroy(ctx);
    return 77;
  }
  if (st) {
    fprintf(stderr, "create failed: %s: %s\n", onnxc_status_str(st), ctx ? m->error(ctx) : "");
    return 4;
  }
  for (int r = 0; r < 3; r++) {
    st = m->run_host(ctx, in, out[r]);
    if (st) {
      fprintf(stderr, "run %d failed: %s: %s\n", r + 1, onnxc_status_str(st), m->error(ctx));
      return 4;
    }
  }
  for (int k = 0; k < m->n_outputs; k++) {
    char path[4096];
    int64_t dims[16], n = 1;
    st = m->output_dims(ctx, k, dims);
    if (st) {
      fprintf(stderr, "output_dims failed: %s: %s\n", onnxc_status_str(st), m->error(ctx));
      return 4;
    }
    for (int d = 0; d < m->outputs[k].rank; d++) n *= dims[d];
    size_t nb = ((size_t)n * onnxc_dtype_bits(m->outputs[k].dtype) + 7) / 8;
    /* the graph's two runs are the same work: bit-identical; the eager first run may differ
       from them only in float rounding (cuBLAS may pick another algorithm while capturing) */
    if (memcmp(out[1][k], out[2][k], nb)) {
      fprintf(stderr, "output %d: the replayed graph's result differs from the captured one's\n", k);
      return 5;
    }
    if (memcmp(out[0][k], out[1][k], nb)) {
      int bad = m->outputs[k].dtype != ONNXC_FLOAT;
      const float *a = (const float *)out[0][k], *b = (const float *)out[1][k];
      float big = 0;
      for (int64_t i = 0; !bad && i < n; i++) big = fabsf(a[i]) > big ? fabsf(a[i]) : big;
      for (int64_t i = 0; !bad && i < n; i++) bad = !(fabsf(a[i] - b[i]) <= 1e-5f * big);
      if (bad) {
        fprintf(stderr, "output %d: the graph's result differs from the first (eager) run's\n", k);
        return 5;
      }
    }
    snprintf(path, sizeof path, "%s/out_%d.dims", argv[1], k);
    FILE *f = fopen(path, "w");
    for (int d = 0; d < m->outputs[k].rank; d++) fprintf(f, "%lld\n", (long long)dims[d]);
    fclose(f);
    snprintf(path, sizeof path, "%s/out_%d.bin", argv[1], k);
    f = fopen(path, "wb");
    fwrite(out[2][k], 1, nb, f);
    fclose(f);
  }
  m->destroy(ctx);
  return 0;
}
