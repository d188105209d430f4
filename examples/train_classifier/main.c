/*
 * train_classifier: trains a small MLP on the device itself, with the code `onnxc --train`
 * generated from classifier.onnx (untrained weights).  The data are points in [-1, 1]^2 with
 * three classes (inside a disc; outside it, above or below the diagonal), drawn from a fixed
 * xorshift generator, so every run is the same.  All memory is static: the state (weights +
 * AdamW moments), the training arena, one batch.  No malloc, no files.
 */
#include <stdio.h>
#include <string.h>

#include "classifier.h"

#define BATCH 32
#define STEPS 3000
#define TEST_BATCHES 32

static unsigned char state[CLASSIFIER_STATE_BYTES] __attribute__((aligned(CLASSIFIER_STATE_ALIGN)));
/* one arena for both: the training step needs more than inference */
#if CLASSIFIER_TRAIN_ARENA_BYTES > CLASSIFIER_ARENA_BYTES
#define ARENA_BYTES CLASSIFIER_TRAIN_ARENA_BYTES
#else
#define ARENA_BYTES CLASSIFIER_ARENA_BYTES
#endif
static unsigned char arena[ARENA_BYTES + 1] __attribute__((aligned(CLASSIFIER_STATE_ALIGN)));
static unsigned char saved[CLASSIFIER_STATE_BLOB_BYTES];

static uint32_t rng = 2463534242u;
static float uniform(void) { /* xorshift32 -> [-1, 1) */
  rng ^= rng << 13;
  rng ^= rng >> 17;
  rng ^= rng << 5;
  return (float)(rng >> 8) / 8388608.0f - 1.0f;
}

static int64_t label_of(float x, float y) {
  if (x * x + y * y < 0.4f) return 0;
  return x > y ? 1 : 2;
}

static void batch(float *pts, int64_t *labels) {
  int i;
  for (i = 0; i < BATCH; i++) {
    pts[2 * i] = uniform();
    pts[2 * i + 1] = uniform();
    labels[i] = label_of(pts[2 * i], pts[2 * i + 1]);
  }
}

static float accuracy(void) {
  float pts[BATCH * 2], logits[BATCH * 3];
  int64_t labels[BATCH];
  int b, i, right = 0;
  for (b = 0; b < TEST_BATCHES; b++) {
    batch(pts, labels);
    if (classifier_infer(state, arena, pts, logits) != ONNXC_OK) return -1;
    for (i = 0; i < BATCH; i++) {
      const float *l = logits + 3 * i;
      int best = l[1] > l[0] ? 1 : 0;
      if (l[2] > l[best]) best = 2;
      right += best == labels[i];
    }
  }
  return (float)right / (TEST_BATCHES * BATCH);
}

int main(void) {
  float pts[BATCH * 2], loss = 0;
  int64_t labels[BATCH];
  int s, st;
  float acc;
  if ((st = classifier_train_init(state)) != ONNXC_OK) {
    printf("init: %s\n", onnxc_status_str(st));
    return 1;
  }
  printf("state %d bytes, training arena %d bytes, inference arena %d bytes\n", (int)CLASSIFIER_STATE_BYTES,
         (int)CLASSIFIER_TRAIN_ARENA_BYTES, (int)CLASSIFIER_ARENA_BYTES);
  printf("accuracy before training: %.1f%%\n", 100 * accuracy());
  for (s = 0; s < STEPS; s++) {
    batch(pts, labels);
    if ((st = classifier_train_step(state, arena, pts, labels, &loss)) != ONNXC_OK) {
      printf("step %d: %s\n", s, onnxc_status_str(st));
      return 1;
    }
    if (s % 500 == 0 || s == STEPS - 1) printf("step %4d loss %.4f\n", s, loss);
  }
  /* a checkpoint round trip: save, wipe, load */
  if (classifier_state_save(state, saved, sizeof saved) != CLASSIFIER_STATE_BLOB_BYTES) return 1;
  memset(state, 0, sizeof state);
  if (classifier_state_load(state, saved, sizeof saved) != ONNXC_OK) return 1;
  acc = accuracy();
  printf("accuracy after %d steps: %.1f%%\n", STEPS, 100 * acc);
  return acc > 0.95f ? 0 : 1;
}
