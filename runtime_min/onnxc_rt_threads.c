/*
 * onnxc_rt_threads.c - the thread pool behind code generated with `onnxc --threads N` (host
 * builds; POSIX threads).  A separate library, onnxc_rt_threads: firmware builds, which never
 * use --threads, neither compile nor link it.
 *
 * onnxc_parallel_for(n, fn, ctx) runs fn(ctx, 0..n-1) on the calling thread and up to n - 1
 * pool threads (started at the first call, kept for the life of the process) and returns when
 * all are done.  While one call is running, a call from another thread runs its tasks itself
 * (so two models may run concurrently, each correct, the second one serial).
 *
 * Affinity: with P threads (the caller is thread 0), task i belongs to thread i % P, which
 * takes it first; a thread that has run its own tasks takes the others that nobody has taken
 * yet.  The kernels of one model cut their work the same way from layer to layer (output rows,
 * tiles, columns), so a task mostly reads what the same thread wrote in the layer before, from
 * its own core's cache; taken in arrival order, half of every layer's input came from the other
 * core (two 16 KiB tasks, one thread each: 3200 TSC ticks per job against 1170 serial).
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <sched.h>

#include "onnxc_rt.h"

#define POOL_MAX 64
#define TASK_MAX 256 /* claim words: a call with more tasks runs them in rounds of TASK_MAX */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER, idle = PTHREAD_COND_INITIALIZER;
static int n_workers, busy, sleepers, caller_sleeps, job_n, job_p, job_left;
static unsigned long generation, start_gen[POOL_MAX + 1];
static onnxc_task job_fn;
static void *job_ctx;
/* claim[i] = 2 g: task i of job g is open; 2 g + 1: a thread has taken it.  The caller opens
   the tasks of job g before it publishes g, and only after every task of job g - 1 has ended,
   so a thread still looking at an older job never takes a task of this one. */
static unsigned long claim[TASK_MAX];

/* Waking a sleeping thread costs tens of microseconds (more in a VM): as long as the kernels
   of one run follow each other, the pool threads and the caller wait by spinning on the
   variables above and only then sleep on a condition variable.  ONNXC_SPIN iterations of a
   pause instruction: about 0.5-2 ms. */
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

static unsigned long load_ul(const unsigned long *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }
static int load_i(const int *p) { return __atomic_load_n(p, __ATOMIC_SEQ_CST); }

/* Runs task i of job g if it is still open. */
static void take(unsigned long g, int i, onnxc_task fn, void *ctx) {
  unsigned long open = 2 * g;
  if (__atomic_load_n(&claim[i], __ATOMIC_RELAXED) != open ||
      !__atomic_compare_exchange_n(&claim[i], &open, 2 * g + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
    return;
  fn(ctx, i);
  if (__atomic_sub_fetch(&job_left, 1, __ATOMIC_SEQ_CST) == 0 && load_i(&caller_sleeps)) {
    pthread_mutex_lock(&mu);
    pthread_cond_broadcast(&idle);
    pthread_mutex_unlock(&mu);
  }
}

/* Thread self's share of job g: its own tasks, then any still open. */
static void run_job(unsigned long g, int self, int P, int n, onnxc_task fn, void *ctx) {
  int i;
  for (i = self; i < n; i += P) take(g, i, fn, ctx);
  for (i = 0; i < n; i++)
    if (i % P != self) take(g, i, fn, ctx);
}

static void *worker(void *arg) {
  const int self = (int)(long)arg;
  unsigned long seen = start_gen[self];
  for (;;) {
    unsigned long g;
    int k, n, P;
    onnxc_task fn;
    void *ctx;
    for (k = 0; k < ONNXC_SPIN && load_ul(&generation) == seen; k++) relax();
    if (load_ul(&generation) == seen) {
      pthread_mutex_lock(&mu);
      __atomic_add_fetch(&sleepers, 1, __ATOMIC_SEQ_CST);
      while (load_ul(&generation) == seen) pthread_cond_wait(&wake, &mu);
      __atomic_sub_fetch(&sleepers, 1, __ATOMIC_SEQ_CST);
      pthread_mutex_unlock(&mu);
    }
    g = seen = load_ul(&generation);
    /* the job's fields as published with g (a later job's, if g has ended meanwhile: then
       none of its claim words is 2 g and nothing runs) */
    fn = __atomic_load_n(&job_fn, __ATOMIC_RELAXED);
    ctx = __atomic_load_n(&job_ctx, __ATOMIC_RELAXED);
    n = __atomic_load_n(&job_n, __ATOMIC_RELAXED);
    P = __atomic_load_n(&job_p, __ATOMIC_RELAXED);
    if (self < P && n <= TASK_MAX) run_job(g, self, P, n, fn, ctx);
  }
  return NULL;
}

/* One job of n <= TASK_MAX tasks on the caller and the pool. */
static void job(int n, onnxc_task fn, void *ctx) {
  const unsigned long g = generation + 1; /* only the caller (busy) writes generation */
  const int P = n_workers + 1 < n ? n_workers + 1 : n;
  int i, k;
  for (i = 0; i < n; i++) __atomic_store_n(&claim[i], 2 * g, __ATOMIC_RELAXED);
  __atomic_store_n(&job_fn, fn, __ATOMIC_RELAXED);
  __atomic_store_n(&job_ctx, ctx, __ATOMIC_RELAXED);
  __atomic_store_n(&job_n, n, __ATOMIC_RELAXED);
  __atomic_store_n(&job_p, P, __ATOMIC_RELAXED);
  __atomic_store_n(&job_left, n, __ATOMIC_RELAXED);
  __atomic_store_n(&generation, g, __ATOMIC_SEQ_CST);
  if (load_i(&sleepers) > 0) { /* (a thread that counted itself after this load sees g) */
    pthread_mutex_lock(&mu);
    pthread_cond_broadcast(&wake);
    pthread_mutex_unlock(&mu);
  }
  run_job(g, 0, P, n, fn, ctx);
  for (k = 0; k < ONNXC_SPIN && load_i(&job_left) > 0; k++) relax();
  if (load_i(&job_left) > 0) {
    pthread_mutex_lock(&mu);
    __atomic_store_n(&caller_sleeps, 1, __ATOMIC_SEQ_CST);
    while (load_i(&job_left) > 0) pthread_cond_wait(&idle, &mu);
    __atomic_store_n(&caller_sleeps, 0, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&mu);
  }
}

typedef struct {
  onnxc_task fn;
  void *ctx;
  int base;
} round_ctx;
static void round_task(void *p, int i) {
  const round_ctx *r = (const round_ctx *)p;
  r->fn(r->ctx, r->base + i);
}

void onnxc_pipe_post(long *c, long v) { __atomic_store_n(c, v, __ATOMIC_RELEASE); }

void onnxc_pipe_wait(long *c, long v) {
  long k = 0;
  while (__atomic_load_n(c, __ATOMIC_ACQUIRE) < v) {
    if (++k < ONNXC_SPIN) relax();
    else sched_yield(); /* the producer's thread may be off its core (a shared machine) */
  }
}

void onnxc_parallel_for(int n, onnxc_task fn, void *ctx) {
  int i;
  if (n <= 1 || __atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE)) {
    /* one task, or another thread's job is running: this one runs serially */
    for (i = 0; i < n; i++) fn(ctx, i);
    return;
  }
  while (n_workers < n - 1 && n_workers < POOL_MAX) {
    pthread_t t;
    pthread_attr_t at;
    const int id = n_workers + 1;
    start_gen[id] = generation;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, (size_t)1 << 21); /* the kernels keep tiles on the stack */
    if (pthread_create(&t, &at, worker, (void *)(long)id) != 0) {
      pthread_attr_destroy(&at);
      break; /* fewer threads: the tasks still all run */
    }
    pthread_attr_destroy(&at);
    n_workers++;
  }
  if (n <= TASK_MAX) {
    job(n, fn, ctx);
  } else {
    round_ctx r;
    r.fn = fn;
    r.ctx = ctx;
    for (r.base = 0; r.base < n; r.base += TASK_MAX) job(n - r.base < TASK_MAX ? n - r.base : TASK_MAX, round_task, &r);
  }
  __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
}
