/*
 * cuda.h - the CUDA backend's internal header (codegen/cuda).
 *
 *   emit_cuda.c   the model file: device code (templates, node functions, kernels), weights,
 *                 the schedule as host code (kernel launches, cuBLAS calls), create/run/destroy
 *                 and the descriptor; net.cu for nvcc or net.c + kernel source for NVRTC
 *   ops_cuda.c    parallel kernels for the ops that have one (cuBLAS GEMMs for Conv, Gemm and
 *                 MatMul; pooling, softmax, LayerNorm, reductions, data movement, ...);
 *                 every other op runs its C emitter's function in a one-thread kernel
 */
#ifndef ONNXC_CUDA_H
#define ONNXC_CUDA_H

#include "onnxc.h"

/* One kernel argument: its C type, its parameter name in the kernel, and (at a launch) the
   host expression passed for it. */
typedef struct CuArg {
  const char *type, *name, *expr;
} CuArg;

typedef struct Cu {
  Ctx *ctx;
  Graph *g;
  bool nvrtc;
  Emit dev;                 /* device code */
  Emit host;                /* statements of the schedule function */
  PtrVec knames;            /* kernel names, in kernel index order */
  PtrVec ktramps;           /* their trampolines for the CPU emulation (tests) */
  const char **in_names, **out_names;
  int64_t *wconst_off;      /* per value id: offset of a constant in the device weights, or -1 */
  int64_t dims_off;         /* device offset of the dims slots of data-dependent values */
  int n_dims_slots;
  bool uses_status;         /* a node function returns a status: the device status word */
  bool uses_arena, uses_weights; /* the schedule reads A / Wd */
  bool uses_sheap;          /* string ops: the run's string heap state at SHEAP_OFF */
  PtrVec done;              /* nodes an earlier node's kernel already computed (fused attention) */
} Cu;

/* ---- emit_cuda.c ---------------------------------------------------------------------- */

/* Host expression of v's device storage (arena, weights, bound inputs and outputs). */
const char *cu_ptr(Cu *cu, Value *v, bool as_const);
/* Host expression of byte `off` of the arena (an unsigned char pointer). */
const char *cu_arena(Cu *cu, int64_t off);
/* Opens `__global__ void <prefix>_k<i>_<tag>(args)` in the device code; returns i. */
int cu_kernel_open(Cu *cu, const Node *n, const char *tag, const CuArg *a, int na);
void cu_kernel_close(Cu *cu);
/* Host: launches kernel k with `threads` threads in blocks of `block` (grid-stride kernels
   take any count), passing a[i].expr for each argument. */
void cu_launch(Cu *cu, int k, int64_t threads, int block, const CuArg *a, int na);
/* Device: `for (IT i = <thread>; i < n; i += <stride>) {` with IT int or long long. */
void cu_grid_loop(Emit *e, const char *var, int64_t n);

/* The file name of a path; s in upper case (header guards, macro prefixes). */
const char *cu_base_name(const char *path);
const char *cu_upper(Arena *a, const char *s);
/* Writes `static const char *const P_parts[]`, the NVRTC source src in string pieces of whole
   lines (each under C99's 4095-character literal limit); returns the number of pieces. */
int cu_source_parts(Ctx *ctx, Buf *cb, const Buf *src, const char *P);
/* 64-bit FNV-1a of the kernel source (the NVRTC cache key). */
uint64_t cu_fnv1a(const char *p, size_t n);

/* ---- ops_cuda.c ----------------------------------------------------------------------- */

/* Emits n with a parallel CUDA form when it has one; false: the caller runs its C function. */
bool cu_emit_op(Cu *cu, Node *n);
/* Scratch bytes of n's CUDA form, or -1 when n runs its C function (the op row's scratch). */
/* (cuda_scratch in onnxc.h: the planner's view of the same forms) */

#endif
