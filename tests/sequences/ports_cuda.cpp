/* The CUDA targets' flat form of sequence and optional ports (tests/sequences/check_ports.py,
   built for the CPU emulation, tests/cuda/emu): model a's flat inputs and outputs by name and
   order, values through run_host, OptionalHasElement of a flag given as 0 and 1; model b's
   OptionalGetElement of an empty optional reports ONNXC_ERR_EMPTY through the status word
   (run_host, and sync after run), and a present one gives its value. */
#include <stdio.h>
#include <string.h>

#include "a.h"
#include "b.h"

static int fails;
#define CHECK(c)                                              \
  do {                                                        \
    if (!(c)) {                                               \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); \
      fails++;                                                \
    }                                                         \
  } while (0)

int main(void) {
  static const char *const a_in[] = {"x[0]", "x[1]", "o.has_value", "o.value", "s.has_value", "s[0]"};
  static const char *const a_out[] = {"y[0]", "y[1]", "h", "oo.has_value", "oo.value", "os.has_value", "os.value[0]"};
  const onnxc_cuda_model *m = &a_cuda_model;
  CHECK(m->n_inputs == 6 && m->n_outputs == 7);
  for (int i = 0; i < m->n_inputs && i < 6; i++) CHECK(!strcmp(m->inputs[i].name, a_in[i]));
  for (int i = 0; i < m->n_outputs && i < 7; i++) CHECK(!strcmp(m->outputs[i].name, a_out[i]));
  a_cuda *a = 0;
  CHECK(a_cuda_create(&a, 0) == ONNXC_OK);
  for (int present = 0; present < 2; present++) {
    float x0[2] = {1, 2}, x1[3] = {3, 4, 5}, ov[3] = {6, 7, 8}, s0[2] = {9, 10};
    unsigned char oh = (unsigned char)present, sh = 1;
    float y0[2] = {0}, y1[3] = {0}, oov[3] = {0}, osv[2] = {0};
    unsigned char h = 7, ooh = 7, osh = 7;
    CHECK(a_cuda_run_host(a, x0, x1, &oh, ov, &sh, s0, y0, y1, &h, &ooh, oov, &osh, osv) == ONNXC_OK);
    CHECK(y0[1] == 2 && y1[2] == 5 && h == present && ooh == present && osh == 1 && osv[1] == 10);
    if (present) CHECK(oov[0] == 6 && oov[2] == 8);
  }
  a_cuda_destroy(a);
  b_cuda *b = 0;
  CHECK(b_cuda_create(&b, 0) == ONNXC_OK);
  float v[3] = {0}, ov[3] = {1, 2, 3};
  unsigned char no = 0, yes = 1;
  CHECK(b_cuda_run_host(b, &no, ov, v) == ONNXC_ERR_EMPTY);
  CHECK(b_cuda_run_host(b, &yes, ov, v) == ONNXC_OK && v[0] == 1 && v[2] == 3);
  CHECK(b_cuda_run_host(b, &no, ov, v) == ONNXC_ERR_EMPTY); /* a replayed graph reports it too */
  CHECK(b_cuda_run_host(b, &yes, ov, v) == ONNXC_OK);
  CHECK(b_cuda_sync(b) == ONNXC_OK);
  b_cuda_destroy(b);
  printf("%s\n", fails ? "FAIL" : "ok");
  return fails != 0;
}
