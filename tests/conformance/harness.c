/*
 * harness.c - a generic driver for one compiled model, used by the conformance runner.
 *
 *   harness DIR NAME=FILE...   binds input NAME to the raw little-endian bytes in FILE,
 *                              runs the model through its onnxc_model descriptor with a
 *                              heap arena, and writes DIR/out_K.bin and DIR/out_K.dims
 *                              (the actual dims, one per line) for every output K.
 *   harness DIR @ARGS          the same with the NAME=FILE arguments one per line in ARGS
 *                              (for emulators that pass only a short command line).
 * Sequence inputs (descriptor kind): FILE holds the items' bytes one after another, their
 * sizes from the descriptor's items; optional inputs: NAME=- for one without a value, else
 * FILE holds its tensor or sequence.  A sequence output K is written as DIR/out_K.count and
 * DIR/out_K_J.{bin,dims} per item J; an optional output as DIR/out_K.has (0 or 1) and, when
 * it holds a value, its tensor or sequence as above.
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

/* Binds the next tensor described by t from the file's bytes p[*at..len): numbers in place,
   strings (NUL-ended elements) as a new array of pointers.  Returns 0, or 3 with a message. */
static int take(const onnxc_tensor_info *t, char *p, size_t len, size_t *at, void **dst, const char *name) {
  if (t->dtype == ONNXC_STRING) {
    int64_t n = onnxc_tensor_numel(t);
    onnxc_string *sv = calloc((size_t)n + 1, sizeof *sv);
    for (int64_t j = 0; j < n; j++) {
      size_t l = *at < len ? strlen(p + *at) : 0;
      if (*at + l >= len) { fprintf(stderr, "input %s: fewer strings than the model expects\n", name); return 3; }
      sv[j] = p + *at;
      *at += l + 1;
    }
    *dst = sv;
    return 0;
  }
  size_t want = onnxc_tensor_bytes(t);
  if (*at + want > len) {
    fprintf(stderr, "input %s: %zu bytes given, model expects at least %zu\n", name, len, *at + want);
    return 3;
  }
  *dst = p + *at;
  *at += want;
  return 0;
}

/* A sequence described by t (its items) from p; count = the compiled one, dims = the items'. */
static int take_seq(const onnxc_tensor_info *t, char *p, size_t len, size_t *at, onnxc_sequence *sq, const char *name) {
  void **data = calloc((size_t)t->n_items + 1, sizeof(void *));
  int64_t **dims = calloc((size_t)t->n_items + 1, sizeof(int64_t *));
  for (int32_t k = 0; k < t->n_items; k++) {
    int st = take(&t->items[k], p, len, at, &data[k], name);
    if (st) return st;
    dims[k] = (int64_t *)t->items[k].dims;
  }
  sq->count = t->n_items;
  sq->data = data;
  sq->dims = dims;
  return 0;
}

/* Output buffers for a tensor (or a sequence's items) described by t, filled with garbage. */
static void *alloc_tensor(const onnxc_tensor_info *t) {
  size_t bytes = onnxc_tensor_bytes(t);
  void *b = malloc(bytes + 16);
  memset(b, 0xA5, bytes + 16);
  return b;
}

static onnxc_sequence *alloc_seq(const onnxc_tensor_info *t) {
  onnxc_sequence *sq = calloc(1, sizeof *sq);
  void **data = calloc((size_t)t->n_items + 1, sizeof(void *));
  int64_t **dims = calloc((size_t)t->n_items + 1, sizeof(int64_t *));
  for (int32_t k = 0; k < t->n_items; k++) {
    data[k] = alloc_tensor(&t->items[k]);
    dims[k] = calloc((size_t)t->items[k].rank + 1, sizeof(int64_t));
  }
  sq->count = -1;
  sq->data = data;
  sq->dims = dims;
  return sq;
}

/* DIR/PATH.dims (one dim per line) and DIR/PATH.bin of a tensor of dtype. */
static void write_tensor(const char *dir, const char *path, int32_t dtype, int32_t rank, const int64_t *dims, const void *data) {
  char fn[4096];
  int64_t n = 1;
  snprintf(fn, sizeof fn, "%s/%s.dims", dir, path);
  FILE *f = fopen(fn, "w");
  for (int d = 0; d < rank; d++) {
    fprintf(f, "%lld\n", (long long)dims[d]);
    n *= dims[d];
  }
  fclose(f);
  snprintf(fn, sizeof fn, "%s/%s.bin", dir, path);
  f = fopen(fn, "wb");
  if (dtype == ONNXC_STRING) {
    const onnxc_string *sv = data;
    for (int64_t j = 0; j < n; j++) fwrite(sv[j], 1, strlen(sv[j]) + 1, f);
  } else {
    fwrite(data, 1, ((size_t)n * onnxc_dtype_bits(dtype) + 7) / 8, f);
  }
  fclose(f);
}

static void write_text(const char *dir, const char *path, long long v) {
  char fn[4096];
  snprintf(fn, sizeof fn, "%s/%s", dir, path);
  FILE *f = fopen(fn, "w");
  fprintf(f, "%lld\n", v);
  fclose(f);
}

/* out_K.count and out_K_J.{bin,dims} of a sequence output. */
static void write_seq(const char *dir, int k, const onnxc_tensor_info *t, const onnxc_sequence *sq) {
  char path[64];
  snprintf(path, sizeof path, "out_%d.count", k);
  write_text(dir, path, sq->count);
  for (int32_t j = 0; j < sq->count && j < t->n_items; j++) {
    snprintf(path, sizeof path, "out_%d_%d", k, j);
    write_tensor(dir, path, t->items[j].dtype, t->items[j].rank, sq->dims[j], sq->data[j]);
  }
}

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
    const onnxc_tensor_info *t = &m->inputs[k];
    if ((t->kind & ONNXC_KIND_OPTIONAL) && !strcmp(eq + 1, "-")) {
      /* an optional without a value */
      onnxc_optional *o = calloc(1, sizeof *o);
      in[k] = o;
      continue;
    }
    size_t len, at = 0;
    char *p = read_all(eq + 1, &len);
    if (!p) { fprintf(stderr, "cannot read %s\n", eq + 1); return 2; }
    void *bound = NULL;
    int st;
    if (t->kind & ONNXC_KIND_SEQUENCE) {
      onnxc_sequence *sq = calloc(1, sizeof *sq);
      st = take_seq(t, p, len, &at, sq, argv[i]);
      bound = sq;
    } else {
      st = take(t, p, len, &at, &bound, argv[i]);
    }
    if (st) return st;
    if (at != len) {
      fprintf(stderr, "input %s: %zu bytes given, model expects %zu\n", argv[i], len, at);
      return 3;
    }
    if (t->kind & ONNXC_KIND_OPTIONAL) {
      onnxc_optional *o = calloc(1, sizeof *o);
      o->has_value = 1;
      o->value = bound;
      bound = o;
    }
    in[k] = bound;
  }
  for (int k = 0; k < m->n_inputs; k++)
    if (!in[k]) { fprintf(stderr, "input %s not given\n", m->inputs[k].name); return 2; }
  for (int k = 0; k < m->n_outputs; k++) {
    const onnxc_tensor_info *t = &m->outputs[k];
    void *b = t->kind & ONNXC_KIND_SEQUENCE ? (void *)alloc_seq(t) : alloc_tensor(t);
    if (t->kind & ONNXC_KIND_OPTIONAL) {
      onnxc_optional *o = calloc(1, sizeof *o);
      o->has_value = -1;
      o->value = b;
      b = o;
    }
    out[k] = b;
    dims[k] = calloc((size_t)t->rank + 1, sizeof(int64_t));
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
    const onnxc_tensor_info *t = &m->outputs[k];
    char path[64];
    void *o = out[k];
    if (t->kind & ONNXC_KIND_OPTIONAL) {
      const onnxc_optional *op = o;
      snprintf(path, sizeof path, "out_%d.has", k);
      write_text(argv[1], path, op->has_value);
      if (!op->has_value) continue;
      o = op->value;
    }
    snprintf(path, sizeof path, "out_%d", k);
    if (t->kind & ONNXC_KIND_SEQUENCE) write_seq(argv[1], k, t, o);
    else write_tensor(argv[1], path, t->dtype, t->rank, m->run_dims ? dims[k] : t->dims, o);
  }
  return 0;
}
