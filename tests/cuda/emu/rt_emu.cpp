/*
 * rt_emu.cpp - the onnxc_rt_cuda API on the CPU, for code built with cuda_emu.h (tests only).
 *
 * Device memory is host memory (filled with garbage at create, so a kernel that reads what
 * nothing wrote shows up), copies are memcpy, a launch calls the kernel's trampoline for
 * every (block, thread) in order, and onnxc_cuda_sgemm is a plain column-major reference
 * GEMM with cuBLAS's argument conventions.  Runs go straight through the schedule (no graphs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_emu.h"
#include "onnxc_rt_cuda.h"

thread_local onnxc_emu_dim3 threadIdx, blockIdx, blockDim, gridDim;
unsigned long long onnxc_emu_slot[1024];

/* ---- fibers for the cooperative ("_warp") kernels: each thread of a block runs on its own
   stack until it reaches a barrier or ends; when every live thread has, they go on ---------- */
#include <ucontext.h>

#define FIBER_STACK (256 * 1024)

static ucontext_t sched_ctx;
static ucontext_t fib_ctx[1024];
static unsigned char *fib_stack[1024];
static int fib_done[1024];
static unsigned fib_cur;
static int in_fiber;
static void (*fib_fn)(void **);
static void **fib_args;

void onnxc_emu_barrier(void) {
  if (!in_fiber) {
    fprintf(stderr, "rt_emu: a barrier or shuffle in a kernel not named *_warp\n");
    abort();
  }
  swapcontext(&fib_ctx[fib_cur], &sched_ctx);
}

static void fiber_main(void) {
  fib_fn(fib_args);
  fib_done[fib_cur] = 1;
} /* returns to sched_ctx (uc_link) */

static void run_block_fibers(void (*fn)(void **), void **args, unsigned b, unsigned block) {
  fib_fn = fn;
  fib_args = args;
  for (unsigned t = 0; t < block; t++) {
    if (!fib_stack[t]) fib_stack[t] = (unsigned char *)malloc(FIBER_STACK);
    getcontext(&fib_ctx[t]);
    fib_ctx[t].uc_stack.ss_sp = fib_stack[t];
    fib_ctx[t].uc_stack.ss_size = FIBER_STACK;
    fib_ctx[t].uc_link = &sched_ctx;
    makecontext(&fib_ctx[t], fiber_main, 0);
    fib_done[t] = 0;
  }
  in_fiber = 1;
  for (unsigned live = block; live > 0;) {
    live = 0;
    for (unsigned t = 0; t < block; t++) {
      if (fib_done[t]) continue;
      fib_cur = t;
      blockIdx = {b, 0, 0};
      threadIdx = {t, 0, 0};
      swapcontext(&sched_ctx, &fib_ctx[t]);
      live += !fib_done[t];
    }
  }
  in_fiber = 0;
}

static int is_coop(const onnxc_cuda_rt *rt, int k) {
  if (!rt->knames) return 0;
  size_t l = strlen(rt->knames[k]);
  return l >= 5 && !strcmp(rt->knames[k] + l - 5, "_warp");
}

extern "C" {

int onnxc_cuda_available(void) { return 1; }

int onnxc_cuda_host_alloc(void **p, size_t bytes) {
  *p = calloc(1, bytes);
  return *p ? ONNXC_OK : ONNXC_ERR_NO_MEMORY;
}

void onnxc_cuda_host_free(void *p) { free(p); }

const char *onnxc_cuda_error(const onnxc_cuda_rt *rt) { return rt ? rt->err : ""; }

int onnxc_cuda_rt_init(onnxc_cuda_rt *rt, const onnxc_cuda_options *opt, const onnxc_cuda_kernels *k,
                       const void **handles, size_t dev_bytes) {
  (void)opt;
  rt->kernels = handles;
  rt->dev = (unsigned char *)malloc(dev_bytes + 16);
  if (!rt->dev) return ONNXC_ERR_NO_MEMORY;
  memset(rt->dev, 0x7F, dev_bytes + 16);
  rt->dev_bytes = dev_bytes;
  if (!k->fns) {
    snprintf(rt->err, sizeof rt->err, "the emulation runs nvcc-form (--target cuda) code only");
    return ONNXC_ERR_NVRTC;
  }
  for (int i = 0; i < k->n; i++) handles[i] = k->fns[i];
  rt->knames = k->names;
  return ONNXC_OK;
}

void onnxc_cuda_rt_free(onnxc_cuda_rt *rt) {
  free(rt->dev);
  rt->dev = NULL;
}

int onnxc_cuda_copy(onnxc_cuda_rt *rt, void *dst, const void *src, size_t bytes, int kind) {
  (void)rt;
  (void)kind;
  if (bytes) memmove(dst, src, bytes);
  return ONNXC_OK;
}

int onnxc_cuda_zero(onnxc_cuda_rt *rt, void *dst, size_t bytes) {
  (void)rt;
  memset(dst, 0, bytes);
  return ONNXC_OK;
}

int onnxc_cuda_sync(onnxc_cuda_rt *rt) { return rt->status; }

int onnxc_cuda_launch(onnxc_cuda_rt *rt, int k, unsigned grid, unsigned block, void **args) {
  void (*fn)(void **) = (void (*)(void **))rt->kernels[k];
  gridDim = {grid, 1, 1};
  blockDim = {block, 1, 1};
  if (is_coop(rt, k)) {
    if (block > 1024) {
      snprintf(rt->err, sizeof rt->err, "block of %u threads", block);
      return rt->status = ONNXC_ERR_ARG;
    }
    for (unsigned b = 0; b < grid; b++) run_block_fibers(fn, args, b, block);
    return ONNXC_OK;
  }
  for (unsigned b = 0; b < grid; b++)
    for (unsigned t = 0; t < block; t++) {
      blockIdx = {b, 0, 0};
      threadIdx = {t, 0, 0};
      fn(args);
    }
  return ONNXC_OK;
}

/* cuBLAS's column-major convention: X(i, j) = X[i + j * ld]; op(A) is m x k, op(B) k x n. */
int onnxc_cuda_sgemm(onnxc_cuda_rt *rt, int trans_a, int trans_b, int m, int n, int k, float alpha,
                     const float *a, int lda, long long stride_a, const float *b, int ldb, long long stride_b,
                     float beta, float *c, int ldc, long long stride_c, int batch) {
  if (m <= 0 || n <= 0 || k < 0 || batch < 1 || lda < (trans_a ? k : m) || ldb < (trans_b ? n : k) || ldc < m ||
      lda < 1 || ldb < 1) {
    snprintf(rt->err, sizeof rt->err, "sgemm: bad arguments m=%d n=%d k=%d lda=%d ldb=%d ldc=%d", m, n, k, lda, ldb, ldc);
    return rt->status = ONNXC_ERR_CUBLAS;
  }
  for (int q = 0; q < batch; q++) {
    const float *A = a + q * stride_a, *B = b + q * stride_b;
    float *C = c + q * stride_c;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++) {
        double s = 0;
        for (int p = 0; p < k; p++)
          s += (double)(trans_a ? A[p + (long long)i * lda] : A[i + (long long)p * lda]) *
               (trans_b ? B[j + (long long)p * ldb] : B[p + (long long)j * ldb]);
        float v = alpha * (float)s;
        C[i + (long long)j * ldc] = beta == 0 ? v : v + beta * C[i + (long long)j * ldc];
      }
  }
  return ONNXC_OK;
}

int onnxc_cuda_run(onnxc_cuda_rt *rt, int (*schedule)(void *self, const void *const *in, void *const *out),
                   void *self, const void *const *in, int n_in, void *const *out, int n_out) {
  (void)n_in;
  (void)n_out;
  rt->runs++;
  return schedule(self, in, out);
}

int onnxc_cuda_nvrtc_compile(const onnxc_cuda_kernels *k, int arch, void **code, size_t *size, char *log,
                             size_t log_len) {
  (void)k;
  (void)arch;
  *code = NULL;
  *size = 0;
  snprintf(log, log_len, "no NVRTC in the emulation");
  return ONNXC_ERR_NVRTC;
}

void onnxc_cuda_free_code(void *code) { free(code); }

}

/* string tensors at the boundary: the runtime's own code, over the copies above */
#include "../../../runtime_min/onnxc_rt_cuda_str.c"
