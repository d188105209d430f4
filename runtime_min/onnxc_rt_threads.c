/*
 * onnxc_rt_threads.c - the thread pool behind code generated with `onnxc --threads N` (host
 * builds; POSIX threads).  A separate library, onnxc_rt_threads: firmware builds, which never
 * use --threads, neither compile nor link it.
 *
 * onnxc_parallel_for(n, fn, ctx) runs fn(ctx, 0..n-1) on the calling thread and up to n - 1
 * pool threads (started at the first call, kept for the life of the process) and returns when
 * all are done.  While one call is running, a call from another thread runs its tasks itself
 * (so two models may run concurrently, each correct, the second one serial).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>

#include "onnxc_rt.h"

#define POOL_MAX 64

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER, idle = PTHREAD_COND_INITIALIZER;
static int n_workers, busy;
static unsigned long generation;
static onnxc_task job_fn;
static void *job_ctx;
static int job_n, job_next, job_left;

/* Takes and runs tasks of the current job until none is left; called with mu held. */
static void drain(void) {
  while (job_next < job_n) {
    int i = job_next++;
    onnxc_task fn = job_fn;
    void *ctx = job_ctx;
    pthread_mutex_unlock(&mu);
    fn(ctx, i);
    pthread_mutex_lock(&mu);
    if (--job_left == 0) pthread_cond_broadcast(&idle);
  }
}

static void *worker(void *arg) {
  unsigned long seen = 0;
  (void)arg;
  pthread_mutex_lock(&mu);
  for (;;) {
    while (generation == seen) pthread_cond_wait(&wake, &mu);
    seen = generation;
    drain();
  }
  return NULL;
}

void onnxc_parallel_for(int n, onnxc_task fn, void *ctx) {
  int i;
  if (n <= 1) {
    for (i = 0; i < n; i++) fn(ctx, i);
    return;
  }
  pthread_mutex_lock(&mu);
  if (busy) { /* another thread's job is running: this one runs serially */
    pthread_mutex_unlock(&mu);
    for (i = 0; i < n; i++) fn(ctx, i);
    return;
  }
  busy = 1;
  while (n_workers < n - 1 && n_workers < POOL_MAX) {
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, (size_t)1 << 21); /* the kernels keep tiles on the stack */
    if (pthread_create(&t, &at, worker, NULL) != 0) {
      pthread_attr_destroy(&at);
      break; /* fewer threads: the tasks still all run */
    }
    pthread_attr_destroy(&at);
    n_workers++;
  }
  job_fn = fn;
  job_ctx = ctx;
  job_n = n;
  job_next = 0;
  job_left = n;
  generation++;
  pthread_cond_broadcast(&wake);
  drain();
  while (job_left > 0) pthread_cond_wait(&idle, &mu);
  busy = 0;
  pthread_mutex_unlock(&mu);
}
