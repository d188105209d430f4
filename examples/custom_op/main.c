/*
 * custom_op: trains, on the device itself, an MLP whose activations are a custom operator:
 * com.example::LearnedSwish(X, Beta) = X * sigmoid(Beta * X) with a learnable Beta per
 * feature, written in C in learned_swish.c (forward and backward).  `onnxc --train
 * --custom-op ...` turned swirl.onnx (untrained) into swirl.c/.h, which call those functions
 * for the forward pass, the gradients (Beta's included) and inference.
 *
 * The data: points in [-1, 1]^2 in four classes, the quadrant of the point after turning it by
 * 2 * radius radians (a swirl), from a fixed xorshift generator, so every run is the same.  All
 * memory is static: the state (weights + AdamW moments), one arena, one batch.  No malloc.
 */
#include <math.h>
#include <stdio.h>

#include "swirl.h"

#define BATCH 32
#define STEPS 4000
#define TEST_BATCHES 64

static unsigned char state[SWIRL_STATE_BYTES] __attribute__((aligned(SWIRL_STATE_ALIGN)));
#if SWIRL_TRAIN_ARENA_BYTES > SWIRL_ARENA_BYTES
#define ARENA_BYTES SWIRL_TRAIN_ARENA_BYTES
#else
#define ARENA_BYTES SWIRL_ARENA_BYTES
#endif
static unsigned char arena[ARENA_BYTES + 1] __attribute__((aligned(SWIRL_STATE_ALIGN)));

static uint32_t rng = 2463534242u;
static float uniform(void) { /* xorshift32 -> [-1, 1) */
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return (float)(rng >> 8) / 8388608.0f - 1.0f;
}

static int64_t label_of(float x, float y) {
  const float pi = 3.14159265f;
  float t = atan2f(y, x) + 2.0f * sqrtf(x * x + y * y);
  t = fmodf(t + 4 * pi, 2 * pi);
  return (int64_t)(t / (pi / 2)) & 3;
}

static void batch(float *pts, int64_t *labels) {
  int i;
  for (i = 0; i < BATCH; i++) {
    pts[2 * i] = uniform();
    pts[2 * i + 1] = uniform();
    labels[i] = label_of(pts[2 * i], pts[2 * i + 1]);
  }
}

/* Accuracy on TEST_BATCHES fresh batches; -1 when inference fails. */
static float accuracy(void) {
  float pts[BATCH * 2], logits[BATCH * 4];
  int64_t labels[BATCH];
  int b, i, k, right = 0;
  for (b = 0; b < TEST_BATCHES; b++) {
    batch(pts, labels);
    if (swirl_infer(state, arena, pts, logits) != ONNXC_OK) return -1;
    for (i = 0; i < BATCH; i++) {
      int best = 0;
      for (k = 1; k < 4; k++)
        if (logits[4 * i + k] > logits[4 * i + best]) best = k;
      right += best == labels[i];
    }
  }
  return (float)right / (TEST_BATCHES * BATCH);
}

int main(void) {
  float pts[BATCH * 2], loss = 0, acc;
  int64_t labels[BATCH];
  int s, st;
  if ((st = swirl_train_init(state)) != ONNXC_OK) {
    printf("init: %s\n", onnxc_status_str(st));
    return 1;
  }
  printf("state %d bytes, training arena %d bytes, inference arena %d bytes\n", (int)SWIRL_STATE_BYTES,
         (int)SWIRL_TRAIN_ARENA_BYTES, (int)SWIRL_ARENA_BYTES);
  printf("accuracy before training: %.1f%%\n", 100 * accuracy());
  for (s = 0; s < STEPS; s++) {
    batch(pts, labels);
    /* a non-zero status from learned_swish.c would come back here unchanged */
    if ((st = swirl_train_step(state, arena, pts, labels, &loss)) != ONNXC_OK) {
      printf("step %d: status %d (%s)\n", s, st, onnxc_status_str(st));
      return 1;
    }
    if (s % 1000 == 0 || s == STEPS - 1) printf("step %4d loss %.4f\n", s, loss);
  }
  acc = accuracy();
  printf("accuracy after %d steps: %.1f%%\n", STEPS, 100 * acc);
  return acc > 0.9f ? 0 : 1;
}
