/*
 * harness.c - a generic driver for one compiled model, used by the conformance runner.
 *
 *   harness DIR NAME=FILE...   binds input NAME to the raw little-endian bytes in FILE,
 *                              runs the model through its onnxc_model descriptor with a
 *                              heap arena, and writes DIR/out_K.bin and DIR/out_K.dims
 *                              (the actual dims, one per line) for every output K.
 *   harness DIR @ARGS          the same with the NAME=FILE arguments one per line in ARGS
 *                              (for emulators that pass only a short command line).
 * String tensors, in FILE and out_K.bin: the elements' bytes one after another, each ended by
 * a NUL byte.
 * The model is linked in as the symbol model_model (compile with --name model).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc_rt.h"
#include "read_all.h"

extern const onnxc_model model_model;

int main(int argc, char **argv) {
  const onnxc_model *m = &model_model;
  if (argc < 2) { fprintf(stderr, "usage: harness DIR NAME=FILE...\n"); return 2; }
  if (argc == 3 && argv[2][0] == '@') {
    /* the arguments from a file, one per line */
    size_t len;
    char *text = read_all(argv[2] + 1, &len), **av = calloc(len + 3, sizeof(char *));
    int ac = 2;
    if (!text) { fprintf(stderr, "cannot read %s\n", argv[2] + 1); return 2; }
    text[len] = 0;
    av[0] = argv[0];
    av[1] = argv[1];
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) av[ac++] = line;
    argc = ac;
    argv = av;
  }
  const void **in = calloc((size_t)m->n_inputs + 1, sizeof(void *));
  void **out = calloc((size_t)m->n_outputs + 1, sizeof(void *));
  int64_t **dims = calloc((size_t)m->n_outputs + 1, sizeof(int64_t *));
  for (int i = 2; i < argc; i++) {
    char *eq = strchr(argv[i], '=');
    if (!eq) { fprintf(stderr, "bad argument %s\n", argv[i]); return 2; }
    *eq = 0;
    int k = onnxc_find_input(m, argv[i]);
    if (k < 0) { fprintf(stderr, "no input named %s\n", argv[i]); return 2; }
    size_t len;
    void *p = read_all(eq + 1, &len);
    if (!p) { fprintf(stderr, "cannot read %s\n", eq + 1); return 2; }
    if (m->inputs[k].dtype == ONNXC_STRING) {
      /* NUL-ended strings -> an array of pointers into the file's bytes */
      int64_t n = onnxc_tensor_numel(&m->inputs[k]), got = 0;
      onnxc_string *sv = calloc((size_t)n + 1, sizeof *sv);
      char *c = p;
      for (size_t at = 0; at < len; got++) {
        size_t l = strlen(c + at);
        if (at + l >= len) { fprintf(stderr, "input %s: the last string has no NUL\n", argv[i]); return 3; }
        if (got < n) sv[got] = c + at;
        at += l + 1;
      }
      if (got != n) {
        fprintf(stderr, "input %s: %lld strings given, model expects %lld\n", argv[i], (long long)got, (long long)n);
        return 3;
      }
      in[k] = sv;
      continue;
    }
    size_t want = onnxc_tensor_bytes(&m->inputs[k]);
    if (len != want) {
      fprintf(stderr, "input %s: %zu bytes given, model expects %zu\n", argv[i], len, want);
      return 3;
    }
    in[k] = p;
  }
  for (int k = 0; k < m->n_inputs; k++)
    if (!in[k]) { fprintf(stderr, "input %s not given\n", m->inputs[k].name); return 2; }
  for (int k = 0; k < m->n_outputs; k++) {
    size_t bytes = onnxc_tensor_bytes(&m->outputs[k]);
    out[k] = malloc(bytes + 16);
    memset(out[k], 0xA5, bytes + 16);
    dims[k] = calloc((size_t)m->outputs[k].rank + 1, sizeof(int64_t));
  }
  void *arena = NULL;
  if (m->arena_bytes) {
    size_t align = m->arena_align ? m->arena_align : 16;
    arena = aligned_alloc(align, (m->arena_bytes + align - 1) / align * align);
    /* garbage, so a kernel that reads before it writes shows up */
    memset(arena, 0x7F, m->arena_bytes);
  }
  int st = m->run_dims ? m->run_dims(arena, in, out, dims) : m->run(arena, in, out);
  if (st != 0) { fprintf(stderr, "run failed: status %d (%s)\n", st, onnxc_status_str(st)); return 4; }
  for (int k = 0; k < m->n_outputs; k++) {
    char path[4096];
    int64_t n = 1;
    snprintf(path, sizeof path, "%s/out_%d.dims", argv[1], k);
    FILE *f = fopen(path, "w");
    for (int d = 0; d < m->outputs[k].rank; d++) {
      int64_t v = m->run_dims ? dims[k][d] : m->outputs[k].dims[d];
      fprintf(f, "%lld\n", (long long)v);
      n *= v;
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/out_%d.bin", argv[1], k);
    f = fopen(path, "wb");
    if (m->outputs[k].dtype == ONNXC_STRING) {
      const onnxc_string *sv = out[k];
      for (int64_t j = 0; j < n; j++) fwrite(sv[j], 1, strlen(sv[j]) + 1, f);
      fclose(f);
      continue;
    }
    fwrite(out[k], 1, ((size_t)n * onnxc_dtype_bits(m->outputs[k].dtype) + 7) / 8, f);
    fclose(f);
  }
  return 0;
}
