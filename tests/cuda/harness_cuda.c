/*
 * harness_cuda.c - the conformance harness for models built with --target cuda (on a GPU, or
 * on the CPU through tests/cuda/emu).
 *
 *   harness_cuda DIR NAME=FILE...   like tests/conformance/harness.c: binds input NAME to the
 *                                   raw bytes in FILE, runs the model through its
 *                                   onnxc_cuda_model descriptor (model_cuda_model: compile
 *                                   with --name model) and writes DIR/out_K.bin and
 *                                   DIR/out_K.dims for every output K, and the outputs'
 *                                   names, one per line, to DIR/outputs.txt.
 * Sequences and optionals are flat tensors on the CUDA targets: NAME=FILE of a sequence input
 * fills its items NAME[0], NAME[1], ... in turn from FILE's bytes; of an optional input it sets
 * NAME.has_value to 1 and fills NAME.value (or the items); NAME=- sets NAME.has_value to 0 and
 * the content to zeros.
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

static int input_index(const onnxc_cuda_model *m, const char *name) {
  for (int j = 0; j < m->n_inputs; j++)
    if (!strcmp(m->inputs[j].name, name)) return j;
  return -1;
}

/* Binds the flat inputs of sequence or optional port NAME (see above); 0 on success. */
static int bind_port(const onnxc_cuda_model *m, const char *name, const char *file, const void **in) {
  char buf[1024];
  int items[1024], n = 0, has;
  snprintf(buf, sizeof buf, "%s.has_value", name);
  has = input_index(m, buf);
  snprintf(buf, sizeof buf, "%s.value", name);
  if (has >= 0 && input_index(m, buf) >= 0) items[n++] = input_index(m, buf);
  for (;;) {
    snprintf(buf, sizeof buf, "%s[%d]", name, n);
    int k = input_index(m, buf);
    if (k < 0 || n == 1024) break;
    items[n++] = k;
  }
  size_t len = 0, at = 0;
  unsigned char *p = NULL;
  if (has < 0 && n == 0) { /* an empty sequence has no flat inputs */
    if (strcmp(file, "-") && (p = read_all(file, &len)) && len == 0) {
      free(p);
      return 0;
    }
    fprintf(stderr, "no input named %s\n", name);
    return 2;
  }
  if (!strcmp(file, "-")) {
    if (has < 0) {
      fprintf(stderr, "input %s is not an optional\n", name);
      return 2;
    }
  } else if (!(p = read_all(file, &len))) {
    fprintf(stderr, "cannot read %s\n", file);
    return 2;
  }
  if (has >= 0) {
    unsigned char *flag = calloc(1, 1);
    flag[0] = p != NULL;
    in[has] = flag;
  }
  for (int i = 0; i < n; i++) {
    size_t b = onnxc_tensor_bytes(&m->inputs[items[i]]);
    unsigned char *q = calloc(b + 1, 1);
    if (p) {
      if (at + b > len) {
        fprintf(stderr, "input %s: %zu bytes given, fewer than its items take\n", name, len);
        return 3;
      }
      memcpy(q, p + at, b);
    }
    at += b;
    in[items[i]] = q;
  }
  if (p && at != len) {
    fprintf(stderr, "input %s: %zu bytes given, its items take %zu\n", name, len, at);
    return 3;
  }
  free(p);
  return 0;
}

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
    int k = input_index(m, argv[i]);
    if (k < 0) {
      int st = bind_port(m, argv[i], eq + 1, in);
      if (st) return st;
      continue;
    }
    size_t len;
    void *p = read_all(eq + 1, &len);
    if (!p) {
      fprintf(stderr, "cannot read %s\n", eq + 1);
      return 2;
    }
    if (m->inputs[k].dtype == ONNXC_STRING) { /* NUL-ended elements -> host pointers */
      int64_t n = onnxc_tensor_numel(&m->inputs[k]);
      onnxc_string *sv = calloc((size_t)n + 1, sizeof *sv);
      size_t at = 0;
      for (int64_t j = 0; j < n; j++) {
        size_t l = at < len ? strlen((char *)p + at) : 0;
        if (at + l >= len) {
          fprintf(stderr, "input %s: fewer strings than the model expects\n", argv[i]);
          return 3;
        }
        sv[j] = (char *)p + at;
        at += l + 1;
      }
      in[k] = sv;
      continue;
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
      fprintf(stderr, "run failed: status %d (%s, run %d): %s\n", st, onnxc_status_str(st), r + 1, m->error(ctx));
      return 4;
    }
  }
  {
    char path[4096];
    snprintf(path, sizeof path, "%s/outputs.txt", argv[1]);
    FILE *f = fopen(path, "w");
    for (int k = 0; k < m->n_outputs; k++) fprintf(f, "%s\n", m->outputs[k].name);
    fclose(f);
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
    const onnxc_string *sv[3] = {(const onnxc_string *)out[0][k], (const onnxc_string *)out[1][k],
                                 (const onnxc_string *)out[2][k]};
    if (m->outputs[k].dtype == ONNXC_STRING) { /* host strings (of the context: compare texts) */
      for (int64_t j = 0; j < n; j++)
        if (strcmp(sv[0][j], sv[2][j]) || strcmp(sv[1][j], sv[2][j])) {
          fprintf(stderr, "output %d: string %lld differs between the runs\n", k, (long long)j);
          return 5;
        }
    } else if (memcmp(out[1][k], out[2][k], nb)) {
      /* the graph's two runs are the same work: bit-identical; the eager first run may differ
         from them only in float rounding (cuBLAS may pick another algorithm while capturing) */
      fprintf(stderr, "output %d: the replayed graph's result differs from the captured one's\n", k);
      return 5;
    }
    if (m->outputs[k].dtype != ONNXC_STRING && memcmp(out[0][k], out[1][k], nb)) {
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
    if (m->outputs[k].dtype == ONNXC_STRING)
      for (int64_t j = 0; j < n; j++) fwrite(sv[2][j], 1, strlen(sv[2][j]) + 1, f);
    else
      fwrite(out[2][k], 1, nb, f);
    fclose(f);
  }
  m->destroy(ctx);
  return 0;
}
