/*
 * cuda_time.c - times one model built with onnxc --target cuda (bench/cuda_speed.py builds it
 * with the model, compiled with --name model).
 *
 *   cuda_time INPUT.bin OUTPUT.bin ITERS TF32   (one float input, one float output)
 *
 * Inputs and outputs are device buffers bound directly (net_cuda_run).  The first run
 * launches kernel by kernel, the second captures the CUDA graph; then ITERS timed runs, each
 * run + stream sync (latency of one inference), wall clock.  Prints "median_ms min_ms" and
 * writes the output of the last run.  Exit 77 without a CUDA device.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "onnxc_rt_cuda.h"

extern const onnxc_cuda_model model_cuda_model;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  const onnxc_cuda_model *m = &model_cuda_model;
  if (argc < 5 || m->n_inputs != 1 || m->n_outputs != 1) {
    fprintf(stderr, "usage: cuda_time INPUT.bin OUTPUT.bin ITERS TF32 (a model with one input and one output)\n");
    return 2;
  }
  int iters = atoi(argv[3]);
  size_t in_bytes = onnxc_tensor_bytes(&m->inputs[0]), out_bytes = onnxc_tensor_bytes(&m->outputs[0]);
  void *hin = malloc(in_bytes), *hout = malloc(out_bytes);
  FILE *f = fopen(argv[1], "rb");
  if (!f || fread(hin, 1, in_bytes, f) != in_bytes) {
    fprintf(stderr, "cannot read %zu bytes from %s\n", in_bytes, argv[1]);
    return 2;
  }
  fclose(f);
  onnxc_cuda_options opt;
  memset(&opt, 0, sizeof opt);
  opt.tf32 = atoi(argv[4]);
  void *ctx = NULL;
  int st = m->create(&ctx, &opt);
  if (st == ONNXC_ERR_NO_DEVICE) {
    printf("SKIP: no CUDA device\n");
    return 77;
  }
  if (st) {
    fprintf(stderr, "create: %s: %s\n", onnxc_status_str(st), ctx ? m->error(ctx) : "");
    return 3;
  }
  void *din, *dout;
  if (cudaMalloc(&din, in_bytes) != cudaSuccess || cudaMalloc(&dout, out_bytes) != cudaSuccess ||
      cudaMemcpy(din, hin, in_bytes, cudaMemcpyHostToDevice) != cudaSuccess) {
    fprintf(stderr, "cudaMalloc/cudaMemcpy failed\n");
    return 3;
  }
  const void *in[1] = {din};
  void *out[1] = {dout};
  double *t = calloc((size_t)iters + 1, sizeof *t);
  for (int i = -3; i < iters; i++) { /* eager, capture, one replay, then the timed ones */
    double t0 = now_ms();
    st = m->run(ctx, in, out);
    if (!st) st = m->sync(ctx);
    if (st) {
      fprintf(stderr, "run: %s: %s\n", onnxc_status_str(st), m->error(ctx));
      return 4;
    }
    if (i >= 0) t[i] = now_ms() - t0;
  }
  qsort(t, (size_t)iters, sizeof *t, cmp);
  if (cudaMemcpy(hout, dout, out_bytes, cudaMemcpyDeviceToHost) != cudaSuccess) return 3;
  f = fopen(argv[2], "wb");
  if (!f || fwrite(hout, 1, out_bytes, f) != out_bytes) return 2;
  fclose(f);
  printf("%.4f %.4f\n", t[iters / 2], t[0]);
  m->destroy(ctx);
  return 0;
}
