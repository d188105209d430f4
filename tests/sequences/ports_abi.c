/*
 * ports_abi.c - the run-time contract of sequence and optional inputs/outputs (check_ports.py
 * builds it with two generated models):
 *   a: x seq(float) [2],[3] -> y = Identity(x); o optional(float[3]) -> h = HasElement(o),
 *      oo = Identity(o); s optional(seq(float)) [2] -> os = Identity(s)
 *   b: o optional(float[3]) -> v = GetElement(o)
 * Prints one line per failed check and exits 1 when one fails.
 */
#include <stdio.h>
#include <string.h>

#include "a.h"
#include "b.h"

static int failed;
#define CHECK(c) do { if (!(c)) { printf("FAIL line %d: %s\n", __LINE__, #c); failed = 1; } } while (0)

static float x0[2] = {1, 2}, x1[3] = {3, 4, 5}, ov[3] = {6, 7, 8}, sv[2] = {9, 10};
static int64_t d0[1] = {2}, d1[1] = {3}, sd[1] = {2};
static void *xdata[2] = {x0, x1}, *sdata[1] = {sv};
static int64_t *xdims[2] = {d0, d1}, *sdims[1] = {sd};

/* output buffers, refilled before each run */
static float y0[2], y1[3], oo_buf[3], os0[2];
static int64_t yd0[1], yd1[1], osd0[1];
static void *ydata[2] = {y0, y1}, *osdata[1] = {os0};
static int64_t *ydims[2] = {yd0, yd1}, *osdims[1] = {osd0};
static uint8_t h;

static void fill(void) {
  memset(y0, 0xA5, sizeof y0);
  memset(y1, 0xA5, sizeof y1);
  memset(oo_buf, 0xA5, sizeof oo_buf);
  memset(os0, 0xA5, sizeof os0);
  yd0[0] = yd1[0] = osd0[0] = -1;
  h = 0xA5;
}

int main(void) {
  static unsigned char arena_a[A_ARENA_BYTES + 16] __attribute__((aligned(16)));
  static unsigned char arena_b[B_ARENA_BYTES + 16] __attribute__((aligned(16)));
  onnxc_sequence x = {2, xdata, xdims}, s = {1, sdata, sdims};
  onnxc_optional o = {1, ov}, so = {1, &s};
  onnxc_sequence y = {-1, ydata, ydims}, os = {-1, osdata, osdims};
  onnxc_optional oo = {-1, oo_buf}, oso = {-1, &os};

  /* everything present */
  fill();
  CHECK(a_run(arena_a, &x, &o, &so, &y, &h, &oo, &oso) == ONNXC_OK);
  CHECK(y.count == 2 && yd0[0] == 2 && yd1[0] == 3);
  CHECK(!memcmp(y0, x0, sizeof y0) && !memcmp(y1, x1, sizeof y1));
  CHECK(h == 1);
  CHECK(oo.has_value == 1 && !memcmp(oo_buf, ov, sizeof ov));
  CHECK(oso.has_value == 1 && os.count == 1 && osd0[0] == 2 && !memcmp(os0, sv, sizeof sv));

  /* optionals without a value: their pointers may be NULL, outputs are left alone */
  {
    onnxc_optional none = {0, NULL};
    unsigned char ref[sizeof oo_buf];
    fill();
    memcpy(ref, oo_buf, sizeof ref);
    CHECK(a_run(arena_a, &x, &none, &none, &y, &h, &oo, &oso) == ONNXC_OK);
    CHECK(h == 0 && oo.has_value == 0 && oso.has_value == 0 && os.count == 0);
    CHECK(!memcmp(ref, oo_buf, sizeof ref));
  }

  /* a sequence that is not the compiled one */
  fill();
  x.count = 3;
  CHECK(a_run(arena_a, &x, &o, &so, &y, &h, &oo, &oso) == ONNXC_ERR_SHAPE);
  x.count = 2;
  d1[0] = 4;
  CHECK(a_run(arena_a, &x, &o, &so, &y, &h, &oo, &oso) == ONNXC_ERR_SHAPE);
  d1[0] = 3;
  sd[0] = 1;
  CHECK(a_run(arena_a, &x, &o, &so, &y, &h, &oo, &oso) == ONNXC_ERR_SHAPE);
  sd[0] = 2;
  x.dims = NULL; /* dims are optional for inputs */
  CHECK(a_run(arena_a, &x, &o, &so, &y, &h, &oo, &oso) == ONNXC_OK);
  x.dims = xdims;

  /* missing buffers */
  xdata[1] = NULL;
  CHECK(a_run(arena_a, &x, &o, &so, &y, &h, &oo, &oso) == ONNXC_ERR_NULL);
  xdata[1] = x1;
  o.value = NULL;
  CHECK(a_run(arena_a, &x, &o, &so, &y, &h, &oo, &oso) == ONNXC_ERR_NULL);
  o.value = ov;
  ydata[0] = NULL;
  CHECK(a_run(arena_a, &x, &o, &so, &y, &h, &oo, &oso) == ONNXC_ERR_NULL);
  ydata[0] = y0;
  CHECK(a_run(arena_a, &x, &o, &so, NULL, &h, &oo, &oso) == ONNXC_ERR_NULL);

  /* the descriptor and the generic entry with dims */
  {
    const onnxc_model *m = &a_model;
    CHECK(m->n_inputs == 3 && m->n_outputs == 4);
    CHECK(m->inputs[0].kind == ONNXC_KIND_SEQUENCE && m->inputs[0].n_items == 2 && m->inputs[0].items[1].rank == 1 &&
          m->inputs[0].items[1].dims[0] == 3 && m->inputs[0].dtype == ONNXC_FLOAT);
    CHECK(m->inputs[1].kind == ONNXC_KIND_OPTIONAL && m->inputs[1].rank == 1 && m->inputs[1].dims[0] == 3);
    CHECK(m->inputs[2].kind == (ONNXC_KIND_OPTIONAL | ONNXC_KIND_SEQUENCE) && m->inputs[2].n_items == 1);
    CHECK(m->outputs[1].kind == ONNXC_KIND_TENSOR && m->outputs[1].dtype == ONNXC_BOOL);
    CHECK(onnxc_find_output(m, "oo") == 2);
    const void *ins[3] = {&x, &o, &so};
    void *outs[4] = {&y, &h, &oo, &oso};
    int64_t dh[1] = {-1}, doo[1] = {-1};
    int64_t *dims_out[4] = {NULL, dh, doo, NULL};
    fill();
    CHECK(m->run_dims(arena_a, ins, outs, dims_out) == ONNXC_OK);
    CHECK(doo[0] == 3 && y.count == 2 && oo.has_value == 1 && h == 1);
  }

  /* GetElement of an optional input: a value, or ONNXC_ERR_EMPTY */
  {
    float v[3];
    onnxc_optional none = {0, NULL};
    CHECK(b_run(arena_b, &o, v) == ONNXC_OK && !memcmp(v, ov, sizeof v));
    CHECK(b_run(arena_b, &none, v) == ONNXC_ERR_EMPTY);
    CHECK(!strcmp(onnxc_status_str(ONNXC_ERR_EMPTY), "the optional holds no value"));
  }
  if (!failed) printf("ok\n");
  return failed;
}
