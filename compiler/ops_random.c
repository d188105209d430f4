/*
 * ops_random.c - the random-number generator of generated code, shared by the ops that draw
 * random numbers (training-mode Dropout in ops_nn.c).
 *
 * The numbers are numpy's legacy RandomState(int(seed)) streams, which the ONNX reference
 * implementation (onnx.reference) draws, reproduced bit for bit by templates/random.h
 * (MT19937, 53-bit uniform doubles, the polar normal with its cached second value, binomial
 * inversion for n = 1).  Each node keeps its generator state in its scratch (ONNXC_RNG_BYTES,
 * planned in the arena like any scratch: nothing on the stack), seeds it at the start of every
 * run and draws one value per output element in row-major order.  So a run's output depends
 * only on the seed, never on earlier runs: the same model and seed give the same numbers on
 * every run, on every target.
 */
#include "onnxc.h"

/* Bytes of an onnxc_rng (templates/random.h: ONNXC_RNG_BYTES, which checks the struct fits). */
#define RNG_BYTES 2560

int64_t rng_state_bytes(void) { return RNG_BYTES; }

void emit_rng_init(Emit *e, uint32_t seed) {
  emit_use_template(e, "random");
  ep(e, "onnxc_rng *rng = (onnxc_rng *)(void *)W;");
  ep(e, "onnxc_rng_seed(rng, %luU);", (unsigned long)seed);
}
