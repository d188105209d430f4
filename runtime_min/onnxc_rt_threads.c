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
static int n_workers, busy, sleepers, caller_sleeps;
static unsigned long generation;
static onnxc_task job_fn;
static void *job_ctx;
static int job_n, job_next, job_left;

/* Waking a sleeping thread costs tens of microseconds (more in a VM): as long as the kernels
   of one run follow each other, the pool threads and the caller wait by spinning on the
   variables below (read without the lock as hints; every decision is taken under mu) and only
   then sleep on a condition variable.  ONNXC_SPIN iterations of a pause instruction: about
   0.5-2 ms. */
#ifndef ONNXC_SPIN
#define ONNXC_SPIN 20000
#endif

static void relax(void) {
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __builtin_ia32_pause();
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static unsigned long peek_ul(const unsigned long *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static int peek_i(const int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }

/* Takes and runs tasks of the current job until none is left; called with mu held. */
static void drain(void) {
  while (job_next < job_n) {
    int i = job_next++;
    onnxc_task fn = job_fn;
    void *ctx = job_ctx;
    pthread_mutex_unlock(&mu);
    fn(ctx, i);
    pthread_mutex_lock(&mu);
    __atomic_store_n(&job_left, job_left - 1, __ATOMIC_RELEASE);
    if (job_left == 0 && caller_sleeps) pthread_cond_broadcast(&idle);
  }
}

static void *worker(void *arg) {
  unsigned long seen = 0;
  int k;
  (void)arg;
  for (;;) {
    for (k = 0; k < ONNXC_SPIN && peek_ul(&generation) == seen; k++) relax();
    pthread_mutex_lock(&mu);
    while (generation == seen) {
      sleepers++;
      pthread_cond_wait(&wake, &mu);
      sleepers--;
    }
    seen = generation;
    drain();
    pthread_mutex_unlock(&mu);
  }
  return NULL;
}

void onnxc_parallel_for(int n, onnxc_task fn, void *ctx) {
  int i, k;
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
  __atomic_store_n(&generation, generation + 1, __ATOMIC_RELEASE);
  if (sleepers) pthread_cond_broadcast(&wake);
  drain();
  if (job_left > 0) {
    pthread_mutex_unlock(&mu);
    for (k = 0; k < ONNXC_SPIN && peek_i(&job_left) > 0; k++) relax();
    pthread_mutex_lock(&mu);
    caller_sleeps = 1;
    while (job_left > 0) pthread_cond_wait(&idle, &mu);
    caller_sleeps = 0;
  }
  busy = 0;
  pthread_mutex_unlock(&mu);
}
