/*
 * The onnxc demo: a digit classifier compiled from digits.onnx to C, run with a static arena
 * (no malloc) on 100 held-out images of scikit-learn's digits data.
 */
#include <stdio.h>

#include "digits.h"
#include "samples.h"

static _Alignas(16) unsigned char arena[DIGITS_ARENA_BYTES + 16];

static void show(const float *img) {
  for (int r = 0; r < 8; r++) {
    printf("    ");
    for (int c = 0; c < 8; c++) {
      float v = img[r * 8 + c];
      printf("%s", v > 0.6f ? "##" : v > 0.25f ? "++" : "  ");
    }
    printf("\n");
  }
}

int main(void) {
  int correct = 0;
  printf("digits.onnx compiled by onnxc: arena %d bytes, %d inputs, %d outputs\n",
         DIGITS_ARENA_BYTES, (int)digits_model.n_inputs, (int)digits_model.n_outputs);
  for (int i = 0; i < N_SAMPLES; i++) {
    float logits[10];
    int st = digits_run(arena, sample_images[i], logits);
    if (st != ONNXC_OK) {
      fprintf(stderr, "digits_run failed: %s\n", onnxc_status_str(st));
      return 1;
    }
    int best = 0;
    for (int k = 1; k < 10; k++)
      if (logits[k] > logits[best]) best = k;
    correct += best == sample_labels[i];
    if (i < 3) {
      show(sample_images[i]);
      printf("  image %d: predicted %d, true label %d\n\n", i, best, sample_labels[i]);
    } else if (i < 12) {
      printf("  image %d: predicted %d, true label %d%s\n", i, best, sample_labels[i],
             best == sample_labels[i] ? "" : "   <- wrong");
    }
  }
  printf("accuracy on %d held-out images: %d/%d = %.1f%%\n", N_SAMPLES, correct, N_SAMPLES,
         100.0 * correct / N_SAMPLES);
  return 0;
}
