/*
 * nvrtc_check.c - compiles the kernel source of models generated with --target cuda-nvrtc
 * through the runtime's own NVRTC path (onnxc_cuda_nvrtc_compile), with no GPU needed.
 *
 *   nvrtc_check ARCH [JOBS]    ARCH: compute capability, e.g. 90
 *
 * Linked with the generated files (each built with --name m<K>) and a table `models` of
 * their descriptors, ending in NULL (tests/cuda/check_cuda.py writes it).  Prints one line
 * per model (PASS/FAIL with the first line of the NVRTC log) and "N passed, N failed"; the
 * exit status is 1 when one fails.  JOBS threads compile side by side (NVRTC is thread-safe
 * for distinct programs).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc_rt_cuda.h"

extern const onnxc_cuda_model *const models[];

static int arch, next, n_models;
static char **logs;
static int *status;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&lock);
    int i = next++;
    pthread_mutex_unlock(&lock);
    if (i >= n_models) return NULL;
    void *code = NULL;
    size_t size = 0;
    logs[i] = calloc(1, 4096);
    status[i] = onnxc_cuda_nvrtc_compile(models[i]->kernels, arch, &code, &size, logs[i], 4096);
    if (!status[i] && size == 0) status[i] = -1;
    onnxc_cuda_free_code(code);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: nvrtc_check ARCH [JOBS]\n");
    return 2;
  }
  arch = atoi(argv[1]);
  int jobs = argc > 2 ? atoi(argv[2]) : 1;
  if (jobs < 1) jobs = 1;
  while (models[n_models]) n_models++;
  logs = calloc((size_t)n_models + 1, sizeof *logs);
  status = calloc((size_t)n_models + 1, sizeof *status);
  pthread_t th[64];
  if (jobs > 64) jobs = 64;
  for (int j = 0; j < jobs; j++) pthread_create(&th[j], NULL, worker, NULL);
  for (int j = 0; j < jobs; j++) pthread_join(th[j], NULL);
  int passed = 0, failed = 0;
  for (int i = 0; i < n_models; i++) {
    if (!status[i]) {
      printf("PASS %s\n", models[i]->name);
      passed++;
      continue;
    }
    /* the first error line of the log */
    const char *err = strstr(logs[i], "error");
    const char *line = err ? err : logs[i];
    const char *end = strchr(line, '\n');
    printf("FAIL %s: %.*s\n", models[i]->name, end ? (int)(end - line) : (int)strlen(line), line);
    if (getenv("NVRTC_CHECK_LOG")) printf("%s\n", logs[i]);
    failed++;
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
