/* ---- par.h: kernels of gemm.h and conv.h cut into tasks (onnxc --threads N) ----------------
   Each wrapper splits its work into T parts along a dimension the kernel computes
   independently -- columns of a product (whole vectors of 16), strips of a GEMV (128 columns),
   channels of a depthwise convolution (groups of 16), tile rows of a Winograd convolution, output
   rows or channels of an im2col convolution -- and
   runs the parts through
   onnxc_parallel_for (library onnxc_rt_threads).  Work under ONNXC_PAR_MIN multiply-adds runs
   on the calling thread: waking the pool costs more than it takes.  Each wrapper weighs its
   multiply-adds against it by how well its parts gain (the compiler, compiler/ops_nn.c
   par_pays, applies the same weights to the convolutions and emits the one-thread call where
   they stay on one thread).  Measured on MLPerf DS-CNN (two threads, per node): a 64 x 125 x 64
   product took 13.0k TSC ticks on one thread and 14.5-15.7k in two parts, a 64-channel 25 x 5
   depthwise layer 5.4k and 7.6-7.9k; so products weigh 1/4 and depthwise layers 2 (below). */
/* Specialized tasks: each job type's task body below (onnxc_X_task_k) takes the kernel's shape
   as arguments.  The generic task (onnxc_X_task) passes the job's fields; the task function the
   compiler writes per node (emit_par_task) passes constants, so the kernel is compiled for that
   shape as the one-thread call is (MLPerf ResNet-8's 16 x 16 x 32 x 32 F(2x2,3x3) layer in two
   parts: 40.9k TSC ticks generic, 29.3k specialized; one thread 55.5k).  The wrappers take that
   function as their first argument (0: the generic one). */
/* The task functions themselves (ONNXC_PAR_TASK) inline everything they call: GCC's
   interprocedural constant propagation clones a kernel for its constant arguments only within
   a growth budget, which a model with many split layers exhausts, and the task bodies then ran
   the generic kernel (MLPerf ResNet-8 on two threads, per node, the parts run one after the
   other on one thread: 416k TSC ticks in all against 381k for the one-thread build; flattened,
   377k). */
#if defined(__GNUC__)
#define ONNXC_PAR_INLINE __attribute__((always_inline)) inline
#define ONNXC_PAR_TASK __attribute__((flatten))
#else
#define ONNXC_PAR_INLINE inline
#define ONNXC_PAR_TASK
#endif

#ifndef ONNXC_PAR_MIN /* (a test sets 0: every product split) */
#define ONNXC_PAR_MIN 250000.0
#endif


/* [*a, *b): part i of T of n items, in units of q */
ONNXC_MAYBE_UNUSED static void onnxc_par_range(long n, int T, int i, long q, long *a, long *b) {
  const long nu = (n + q - 1) / q;
  *a = nu * i / T * q;
  *b = nu * (i + 1) / T * q;
  if (*a > n) *a = n;
  if (*b > n) *b = n;
}


/* A product C = epilogue(A B) cut by columns; kind 0: onnxc_sgemm (A packed, lda), 1:
   onnxc_sgemm_a (A(m,k) = A[m*lda + k*cs]), 2: onnxc_sgemv_p (B in GEMV strips, a's stride lda);
   kind 3: onnxc_sgemm's A cut by rows instead (groups of 8), where A (the weights) is the larger
   operand: cut by columns, each part would stream all of it. */
typedef struct onnxc_gemm_job {
  int kind, M, N, K, T;
  const float *A, *B;
  long lda, cs, ldb, ldc;
  float *C;
  const onnxc_epi *e;
} onnxc_gemm_job;

ONNXC_MAYBE_UNUSED static void onnxc_gemm_task(void *p, int i) {
  const onnxc_gemm_job *j = (const onnxc_gemm_job *)p;
  onnxc_epi e = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
  long n0, n1;
  if (j->kind == 3) {
    onnxc_par_range(j->M, j->T, i, 8, &n0, &n1);
    if (n1 > n0) onnxc_sgemm_mrows(j->M, (int)n0, (int)n1, j->N, j->K, j->A, j->B, j->ldb, j->C, j->ldc, j->e);
    return;
  }
  onnxc_par_range(j->N, j->T, i, j->kind == 2 ? 128 : 16, &n0, &n1);
  if (n1 <= n0) return;
  if (j->e) e = onnxc_epi_at(j->e, 0, n0);
  if (j->kind == 0)
    onnxc_sgemm(j->M, (int)(n1 - n0), j->K, j->A, j->lda, j->B + n0, j->ldb, j->C + n0, j->ldc, j->e ? &e : 0);
  else if (j->kind == 1)
    onnxc_sgemm_a(j->M, (int)(n1 - n0), j->K, j->A, j->lda, j->cs, j->B + n0, j->ldb, j->C + n0, j->ldc, j->e ? &e : 0);
  else
    onnxc_sgemv_p((int)(n1 - n0), j->K, j->A, j->lda, j->B + n0 * j->K, j->C + n0, j->e ? &e : 0);
}

/* How many tasks: T, fewer when n items in units of q make fewer parts, 1 under the
   threshold.  The wrappers call the kernel directly for 1: their arguments stay constants the
   compiler specializes the kernel on (through a job struct they would not). */
ONNXC_MAYBE_UNUSED static int onnxc_par_tasks(int T, long n, long q, double macs) {
  const long parts = (n + q - 1) / q;
  if (macs < ONNXC_PAR_MIN) return 1;
  return T < parts ? T : (int)parts;
}

ONNXC_MAYBE_UNUSED static void onnxc_sgemm_par(int T, int M, int N, int K, const float *A, long lda, const float *B,
                                               long ldb, float *C, long ldc, const onnxc_epi *e) {
  onnxc_gemm_job j;
  const int rows = M >= 2 * N && M >= 16 * T && !(e && e->sum);
  if (onnxc_par_tasks(T, rows ? M : N, rows ? 8 : 16, 0.25 * M * N * K) <= 1) {
    onnxc_sgemm(M, N, K, A, lda, B, ldb, C, ldc, e);
    return;
  }
  j.kind = rows ? 3 : 0, j.M = M, j.N = N, j.K = K, j.A = A, j.B = B, j.lda = lda, j.cs = 0, j.ldb = ldb, j.ldc = ldc;
  j.C = C, j.e = e;
  j.T = onnxc_par_tasks(T, rows ? M : N, rows ? 8 : 16, 0.25 * M * N * K);
  onnxc_parallel_for(j.T, onnxc_gemm_task, &j);
}

ONNXC_MAYBE_UNUSED static void onnxc_sgemm_a_par(int T, int M, int N, int K, const float *A, long rs, long cs,
                                                 const float *B, long ldb, float *C, long ldc, const onnxc_epi *e) {
  onnxc_gemm_job j;
  if (onnxc_par_tasks(T, N, 16, 0.25 * M * N * K) <= 1) {
    onnxc_sgemm_a(M, N, K, A, rs, cs, B, ldb, C, ldc, e);
    return;
  }
  j.kind = 1, j.M = M, j.N = N, j.K = K, j.A = A, j.B = B, j.lda = rs, j.cs = cs, j.ldb = ldb, j.ldc = ldc;
  j.C = C, j.e = e;
  j.T = onnxc_par_tasks(T, N, 16, 0.25 * M * N * K);
  onnxc_parallel_for(j.T, onnxc_gemm_task, &j);
}

/* onnxc_sgemm_t (output channels in the lanes: 7x7 planes) cut by its panels of 48 output
   channels, each part streaming only its rows of W^T (MobileNetV2's 1280 x 49 x 320 layer: one
   part 693k TSC ticks, two parts of the pixel-lane kernel cut by rows 440k) */
typedef struct onnxc_gt_job {
  int M, N, K, T;
  const float *Q, *B;
  long ldb, ldc;
  float *C;
  const onnxc_epi *e;
} onnxc_gt_job;

ONNXC_MAYBE_UNUSED static void onnxc_gt_task(void *p, int i) {
  const onnxc_gt_job *j = (const onnxc_gt_job *)p;
  const int np = (j->M + 47) / 48, p0 = 48 * (np * i / j->T), p1 = 48 * (np * (i + 1) / j->T) < j->M ? 48 * (np * (i + 1) / j->T) : j->M;
  onnxc_epi e = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
  if (p1 <= p0) return;
  if (j->e) e = onnxc_epi_at(j->e, p0, 0);
  if (e.pf) { /* part i's share of the later node's weights */
    long qo, qn;
    onnxc_pf_lines(&e, i, j->T, &qo, &qn);
    e.pf += qo;
    e.pfn = (qn < e.pfn ? qn : e.pfn) - qo;
  }
  onnxc_sgemm_t(p1 - p0, j->N, j->K, j->Q + (long)p0 * j->K, j->B, j->ldb, j->C + (long)p0 * j->ldc, j->ldc, j->e ? &e : 0);
}

ONNXC_MAYBE_UNUSED static void onnxc_sgemm_t_par(int T, int M, int N, int K, const float *Q, const float *B, long ldb,
                                                 float *C, long ldc, const onnxc_epi *e) {
  onnxc_gt_job j;
  const int t = onnxc_par_tasks(T, (M + 47) / 48, 1, 0.25 * M * N * K);
  if (t <= 1) {
    onnxc_sgemm_t(M, N, K, Q, B, ldb, C, ldc, e);
    return;
  }
  j.M = M, j.N = N, j.K = K, j.T = t, j.Q = Q, j.B = B, j.ldb = ldb, j.ldc = ldc, j.C = C, j.e = e;
  onnxc_parallel_for(t, onnxc_gt_task, &j);
}

ONNXC_MAYBE_UNUSED static void onnxc_sgemv_p_par(int T, int N, int K, const float *a, long lda, const float *P,
                                                 float *c, const onnxc_epi *e) {
  onnxc_gemm_job j;
  if (onnxc_par_tasks(T, N, 128, (double)N * K) <= 1) {
    onnxc_sgemv_p(N, K, a, lda, P, c, e);
    return;
  }
  j.kind = 2, j.M = 1, j.N = N, j.K = K, j.A = a, j.B = P, j.lda = lda, j.cs = 0, j.ldb = 0, j.ldc = N;
  j.C = c, j.e = e;
  j.T = onnxc_par_tasks(T, N, 128, (double)N * K);
  onnxc_parallel_for(j.T, onnxc_gemm_task, &j);
}

#ifdef ONNXC_HAVE_DW2D
/* A depthwise convolution cut by output channels (groups of 16, whole multiples of mult). */
typedef struct onnxc_dw_job {
  int CO, mult, IH, IW, KH, KW, SH, SW, PH, PW, DH, DW, OH, OW, T;
  const float *x, *w;
  float *y;
  const onnxc_epi *e;
} onnxc_dw_job;

ONNXC_MAYBE_UNUSED static void onnxc_dw_task(void *p, int i) {
  const onnxc_dw_job *j = (const onnxc_dw_job *)p;
  const long IHW = (long)j->IH * j->IW, OHW = (long)j->OH * j->OW, q = j->mult % 16 == 0 ? j->mult : 16L * j->mult;
  onnxc_epi e = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
  long c0, c1;
  onnxc_par_range(j->CO, j->T, i, q, &c0, &c1);
  if (c1 <= c0) return;
  if (j->e) e = onnxc_epi_at(j->e, c0, 0);
  onnxc_dw2d((int)(c1 - c0), j->mult, j->x + c0 / j->mult * IHW, j->IH, j->IW, j->w + c0 * j->KH * j->KW, j->KH, j->KW,
             j->SH, j->SW, j->PH, j->PW, j->DH, j->DW, j->y + c0 * OHW, j->OH, j->OW, j->e ? &e : 0);
}

ONNXC_MAYBE_UNUSED static void onnxc_dw2d_par(int T, int CO, int mult, const float *x, int IH, int IW, const float *w,
                                              int KH, int KW, int SH, int SW, int PH, int PW, int DH, int DW, float *y,
                                              int OH, int OW, const onnxc_epi *e) {
  onnxc_dw_job j;
  /* (twice the multiply-adds: ShuffleNetV2's 116-channel 14 x 14 layers gain in two parts, 2.0 or
     4.0 times 2.0e5; DS-CNN's 64-channel 25 x 5 ones, 7.2e4, lose) */
  const int t = onnxc_par_tasks(T, CO, mult % 16 == 0 ? mult : 16L * mult, 2.0 * CO * OH * OW * KH * KW);
  if (t <= 1) {
    onnxc_dw2d(CO, mult, x, IH, IW, w, KH, KW, SH, SW, PH, PW, DH, DW, y, OH, OW, e);
    return;
  }
  j.CO = CO, j.mult = mult, j.IH = IH, j.IW = IW, j.KH = KH, j.KW = KW, j.SH = SH, j.SW = SW, j.PH = PH, j.PW = PW;
  j.DH = DH, j.DW = DW, j.OH = OH, j.OW = OW, j.T = t, j.x = x, j.w = w, j.y = y, j.e = e;
  onnxc_parallel_for(t, onnxc_dw_task, &j);
}

/* A Winograd convolution cut by tile rows -- part i takes rows [TY i / t, TY (i + 1) / t) -- or,
   with bych (the compiler's choice: planes of few tile rows per part), by output channels (groups
   of 8): there each part streaming all of U (16 or 36 M C weights) for its few tiles would gain
   nothing (ResNet-18's 7x7 F(2x2,3x3) layers took as long on two threads as on one), so each
   reads its rows of U and transforms the whole input itself.  Blocks of at most TB tiles, each
   part in its own scratch (scratch + i * onnxc_wino_part floats; the compiler plans T of them).  Not
   with a fused channel sum (the parts would add into it concurrently). */
ONNXC_MAYBE_UNUSED static long onnxc_wino_part(int A, int M, int C, int TB, int MB) {
  const long n = (long)A * A * (ONNXC_WINO_LD((long)C * TB) + ONNXC_WINO_LD((long)(A == 6 ? MB : M) * TB));
  return (n + 15) / 16 * 16;
}

typedef struct onnxc_wino_job {
  int A, M, C, H, W, TB, MB, acc, TY, T, bych;
  const float *x, *U;
  float *y, *scratch;
  const onnxc_epi *e;
} onnxc_wino_job;

ONNXC_MAYBE_UNUSED static ONNXC_PAR_INLINE void onnxc_wino_task_k(const onnxc_wino_job *j, int i, int A, int M, int C,
                                                                    int H, int W, int TB, int MB, int acc, int bych) {
  const int TY = (H + A - 3) / (A - 2);
  float *s = j->scratch + (long)i * onnxc_wino_part(A, M, C, TB, MB);
  if (bych) {
    const int n8 = (M + 7) / 8, m0 = 8 * (n8 * i / j->T), m1 = 8 * (n8 * (i + 1) / j->T);
    if ((m1 < M ? m1 : M) <= m0) return;
    if (A == 6) onnxc_wino43_r(M, C, H, W, j->x, j->U, j->y, j->e, s, TB, MB, acc, 0, TY, m0, m1 < M ? m1 : M);
    else onnxc_wino23_r(M, C, H, W, j->x, j->U, j->y, j->e, s, TB, acc, 0, TY, m0, m1 < M ? m1 : M);
  } else {
    const int r0 = (int)((long)TY * i / j->T), r1 = (int)((long)TY * (i + 1) / j->T);
    if (r1 <= r0) return;
    if (A == 6) onnxc_wino43_r(M, C, H, W, j->x, j->U, j->y, j->e, s, TB, MB, acc, r0, r1, 0, M);
    else onnxc_wino23_r(M, C, H, W, j->x, j->U, j->y, j->e, s, TB, acc, r0, r1, 0, M);
  }
}
ONNXC_MAYBE_UNUSED static void onnxc_wino_task(void *p, int i) {
  const onnxc_wino_job *j = (const onnxc_wino_job *)p;
  onnxc_wino_task_k(j, i, j->A, j->M, j->C, j->H, j->W, j->TB, j->MB, j->acc, j->bych);
}

ONNXC_MAYBE_UNUSED static void onnxc_wino_par(onnxc_task f, int T, int A, int M, int C, int H, int W, const float *x, const float *U,
                                              float *y, const onnxc_epi *e, float *scratch, int TB, int MB, int acc,
                                              int bych) {
  onnxc_wino_job j;
  const int TY = (H + A - 3) / (A - 2), bc = bych;
  /* (M C H W against the threshold, 9/4 or 9/16 of the direct multiply-adds: MLPerf ResNet-8's
     16 x 16 channels on 32 x 32 gain in two specialized parts, 55.5k -> 29.3k ticks alone) */
  const int t = e && e->sum ? 1 : onnxc_par_tasks(T, bc ? (M + 7) / 8 : TY, 1, (double)M * C * H * W);
  if (t <= 1) {
    if (A == 6) onnxc_wino43(M, C, H, W, x, U, y, e, scratch, TB, MB, acc);
    else onnxc_wino23(M, C, H, W, x, U, y, e, scratch, TB, acc);
    return;
  }
  j.A = A, j.M = M, j.C = C, j.H = H, j.W = W, j.TB = TB, j.MB = MB, j.acc = acc, j.TY = TY, j.T = t;
  j.bych = bc;
  j.x = x, j.U = U, j.y = y, j.scratch = scratch, j.e = e;
  onnxc_parallel_for(t, f ? f : onnxc_wino_task, &j);
}
#endif

#ifdef ONNXC_HAVE_DW2D
typedef struct onnxc_i2c_job {
  int M, K, KB, IH, IW, KH, KW, SH, SW, DH, DW, PH, PW, ROWS, OW, TR, T, bych;
  long part;
  const float *x, *wp;
  float *y, *col;
  const onnxc_epi *e;
} onnxc_i2c_job;

ONNXC_MAYBE_UNUSED static ONNXC_PAR_INLINE void onnxc_i2c_task_k(const onnxc_i2c_job *j, int i, int bych, int M, int K,
                                                                   int KB, int IH, int IW, int KH, int KW, int SH, int SW,
                                                                   int DH, int DW, int PH, int PW, int ROWS, int OW,
                                                                   long part, int TR) {
  long r0 = 0, r1 = ROWS, m0 = 0, m1 = M;
  if (bych) onnxc_par_range(M, j->T, i, 8, &m0, &m1);
  else onnxc_par_range(ROWS, j->T, i, 1, &r0, &r1);
  if (r1 <= r0 || m1 <= m0) return;
  onnxc_conv_i2c_r(M, K, KB, IH, IW, KH, KW, SH, SW, DH, DW, PH, PW, ROWS, OW, j->x, j->wp, j->y, j->e, j->col + (long)i * part,
                   TR, (int)r0, (int)r1, (int)m0, (int)m1);
}
ONNXC_MAYBE_UNUSED static void onnxc_i2c_task(void *p, int i) {
  const onnxc_i2c_job *j = (const onnxc_i2c_job *)p;
  onnxc_i2c_task_k(j, i, j->bych, j->M, j->K, j->KB, j->IH, j->IW, j->KH, j->KW, j->SH, j->SW, j->DH, j->DW, j->PH, j->PW,
                   j->ROWS, j->OW, j->part, j->TR);
}

/* The im2col convolution cut by output rows, or (bych: the weights outnumber the pixels; each
   part streaming all of them would gain little) by output channels in groups of 8, each part
   unfolding into its own tile, col + i part (the compiler plans T parts; TR fits each). */
ONNXC_MAYBE_UNUSED static void onnxc_conv_i2c_par(onnxc_task f, int T, int bych, int M, int K, int KB, int IH, int IW, int KH, int KW, int SH,
                                                  int SW, int DH, int DW, int PH, int PW, int ROWS, int OW, const float *x,
                                                  const float *wp, float *y, const onnxc_epi *e, float *col, long part, int TR) {
  onnxc_i2c_job j;
  /* (a quarter of the multiply-adds against the threshold: the unfolding is repeated per part,
     and DS-CNN's 64x40x125 first layer took 5 us on one thread, 10 us in two parts) */
  const int t = onnxc_par_tasks(T, bych ? (M + 7) / 8 : ROWS, 1, 0.25 * M * K * ROWS * OW);
  if (t <= 1) {
    onnxc_conv_i2c_r(M, K, KB, IH, IW, KH, KW, SH, SW, DH, DW, PH, PW, ROWS, OW, x, wp, y, e, col, TR, 0, ROWS, 0, M);
    return;
  }
  j.M = M, j.K = K, j.KB = KB, j.IH = IH, j.IW = IW, j.KH = KH, j.KW = KW, j.SH = SH, j.SW = SW, j.DH = DH, j.DW = DW;
  j.PH = PH, j.PW = PW, j.ROWS = ROWS, j.OW = OW, j.TR = TR, j.T = t, j.bych = bych, j.part = part;
  j.x = x, j.wp = wp, j.y = y, j.col = col, j.e = e;
  onnxc_parallel_for(t, f ? f : onnxc_i2c_task, &j);
}

/* 2-D max pooling cut by channels (planes are independent; memory-bound, so the threshold is
   taken on four times its comparisons, as for the depthwise convolutions) */
typedef struct onnxc_mp_job {
  int C, IH, IW, KH, KW, SH, SW, PH, PW, OH, OW, T;
  const float *x;
  float *y;
} onnxc_mp_job;

ONNXC_MAYBE_UNUSED static void onnxc_mp_task(void *p, int i) {
  const onnxc_mp_job *j = (const onnxc_mp_job *)p;
  long c0, c1;
  onnxc_par_range(j->C, j->T, i, 1, &c0, &c1);
  if (c1 > c0)
    onnxc_maxpool2d((int)(c1 - c0), j->x + c0 * j->IH * j->IW, j->IH, j->IW, j->KH, j->KW, j->SH, j->SW, j->PH, j->PW,
                    j->y + c0 * j->OH * j->OW, j->OH, j->OW);
}

ONNXC_MAYBE_UNUSED static void onnxc_maxpool2d_par(int T, int C, const float *x, int IH, int IW, int KH, int KW, int SH,
                                                   int SW, int PH, int PW, float *y, int OH, int OW) {
  onnxc_mp_job j;
  const int t = onnxc_par_tasks(T, C, 1, 4.0 * C * OH * OW * KH * KW);
  if (t <= 1) {
    onnxc_maxpool2d(C, x, IH, IW, KH, KW, SH, SW, PH, PW, y, OH, OW);
    return;
  }
  j.C = C, j.IH = IH, j.IW = IW, j.KH = KH, j.KW = KW, j.SH = SH, j.SW = SW, j.PH = PH, j.PW = PW, j.OH = OH, j.OW = OW;
  j.T = t, j.x = x, j.y = y;
  onnxc_parallel_for(t, onnxc_mp_task, &j);
}

/* onnxc_conv_t cut by output rows: part i takes rows [OH i / t, OH (i + 1) / t), its padded
   input rows in xp + i xpn (xpn floats), or with no scratch (xp NULL) in bands on its stack */
typedef struct onnxc_ct_job {
  int M, C, IH, IW, KH, KW, SH, SW, DH, DW, PH, PW, OH, OW, T;
  long xpn;
  const float *x, *Q;
  float *y, *xp;
  const onnxc_epi *e;
} onnxc_ct_job;

ONNXC_MAYBE_UNUSED static ONNXC_PAR_INLINE void onnxc_ct_task_k(const onnxc_ct_job *j, int i, int M, int C, int IH, int IW,
                                                                  int KH, int KW, int SH, int SW, int DH, int DW, int PH,
                                                                  int PW, int OH, int OW, long xpn) {
  const int r0 = (int)((long)OH * i / j->T), r1 = (int)((long)OH * (i + 1) / j->T);
  if (r1 <= r0) return;
  onnxc_conv_t_r(M, C, IH, IW, KH, KW, SH, SW, DH, DW, PH, PW, OH, OW, j->x, j->Q, j->y, j->e,
                 j->xp ? j->xp + (long)i * xpn : (float *)0, xpn, r0, r1);
}
ONNXC_MAYBE_UNUSED static void onnxc_ct_task(void *p, int i) {
  const onnxc_ct_job *j = (const onnxc_ct_job *)p;
  onnxc_ct_task_k(j, i, j->M, j->C, j->IH, j->IW, j->KH, j->KW, j->SH, j->SW, j->DH, j->DW, j->PH, j->PW, j->OH, j->OW, j->xpn);
}

ONNXC_MAYBE_UNUSED static void onnxc_conv_t_par(onnxc_task f, int T, int M, int C, int IH, int IW, int KH, int KW, int SH, int SW, int DH,
                                                int DW, int PH, int PW, int OH, int OW, const float *x, const float *Q,
                                                float *y, const onnxc_epi *e, float *xp, long xpn) {
  onnxc_ct_job j;
  const int t = onnxc_par_tasks(T, OH, 1, (double)M * C * KH * KW * OH * OW);
  if (t <= 1) {
    onnxc_conv_t(M, C, IH, IW, KH, KW, SH, SW, DH, DW, PH, PW, OH, OW, x, Q, y, e, xp, xpn);
    return;
  }
  j.M = M, j.C = C, j.IH = IH, j.IW = IW, j.KH = KH, j.KW = KW, j.SH = SH, j.SW = SW, j.DH = DH, j.DW = DW, j.PH = PH;
  j.PW = PW, j.OH = OH, j.OW = OW, j.T = t, j.xpn = xpn, j.x = x, j.Q = Q, j.y = y, j.xp = xp, j.e = e;
  onnxc_parallel_for(t, f ? f : onnxc_ct_task, &j);
}
#endif

#ifdef ONNXC_HAVE_DW2D
/* onnxc_conv_same cut by its strips of output pixels (whole rows where the strips are: part i
   takes strips [ns i / t, ns (i + 1) / t)); other targets than AVX-512 run it on one thread */
typedef struct onnxc_same_job {
  int M, C, H, W, KH, KW, DH, DW, PH, PW, T;
  const float *x, *wp;
  float *y;
  const onnxc_epi *e;
} onnxc_same_job;

ONNXC_MAYBE_UNUSED static ONNXC_PAR_INLINE void onnxc_same_task_k(const onnxc_same_job *j, int i, int M, int C, int H, int W,
                                                                    int KH, int KW, int DH, int DW, int PH, int PW) {
#if defined(ONNXC_AVX512)
  onnxc_conv_same_r(M, C, H, W, KH, KW, DH, DW, PH, PW, j->x, j->wp, j->y, j->e, i, j->T);
#else
  if (i == 0) onnxc_conv_same(M, C, H, W, KH, KW, DH, DW, PH, PW, j->x, j->wp, j->y, j->e);
#endif
}
ONNXC_MAYBE_UNUSED static void onnxc_same_task(void *p, int i) {
  const onnxc_same_job *j = (const onnxc_same_job *)p;
  onnxc_same_task_k(j, i, j->M, j->C, j->H, j->W, j->KH, j->KW, j->DH, j->DW, j->PH, j->PW);
}

ONNXC_MAYBE_UNUSED static void onnxc_conv_same_par(onnxc_task f, int T, int M, int C, int H, int W, int KH, int KW, int DH,
                                                   int DW, int PH, int PW, const float *x, const float *wp, float *y,
                                                   const onnxc_epi *e) {
  onnxc_same_job j;
#if defined(ONNXC_AVX512)
  const int t = e && e->sum ? 1 : onnxc_par_tasks(T, ((H * W + 15) / 16 + 2) / 3, 1, (double)M * C * KH * KW * H * W);
#else
  const int t = 1;
  (void)T;
#endif
  if (t <= 1) {
    onnxc_conv_same(M, C, H, W, KH, KW, DH, DW, PH, PW, x, wp, y, e);
    return;
  }
  j.M = M, j.C = C, j.H = H, j.W = W, j.KH = KH, j.KW = KW, j.DH = DH, j.DW = DW, j.PH = PH, j.PW = PW, j.T = t;
  j.x = x, j.wp = wp, j.y = y, j.e = e;
  onnxc_parallel_for(t, f ? f : onnxc_same_task, &j);
}
#endif

#if defined(ONNXC_AVX512) && defined(ONNXC_HAVE_DW2D)
/* A DwBlock in the lanes form (onnxc_dwbl_rows) cut by output rows: part i takes rows
   [OH i / t, OH (i + 1) / t) in bands of R, its windows at s + i * part (floats).  With plane
   means (ed->sum), part i adds its channel sums up in the last C floats of its part, and they
   are added into ed->sum in part order after the parts end. */
typedef struct onnxc_dwbl_job {
  int C, Cin, IH, IW, KH, KW, SH, SW, PH, PW, DH, DW, Wp, OH, OW, Cout, R, T;
  long s1f, part;
  const float *x, *A, *w, *P;
  const onnxc_epi *ee, *ed, *ej;
  float *y, *s;
} onnxc_dwbl_job;

ONNXC_MAYBE_UNUSED static ONNXC_PAR_INLINE void onnxc_dwbl_task_k(const onnxc_dwbl_job *j, int i, int C, int Cin, int IH,
                                                                    int IW, int KH, int KW, int SH, int SW, int PH, int PW,
                                                                    int DH, int DW, int Wp, int OH, int OW, int Cout,
                                                                    long s1f, long part, int R) {
  const int r0 = (int)((long)OH * i / j->T), r1 = (int)((long)OH * (i + 1) / j->T);
  onnxc_epi ed = *j->ed;
  if (ed.sum) {
    int c;
    ed.sum = j->s + (long)(i + 1) * part - C;
    for (c = 0; c < C; c++) ed.sum[c] = 0.0f;
  }
  if (r1 <= r0) return;
  onnxc_dwbl_rows(C, Cin, j->x, IH, IW, j->A, j->ee, j->w, KH, KW, SH, SW, PH, PW, DH, DW, Wp, OH, OW, &ed, Cout, j->P, j->ej,
                  j->y, j->s + (long)i * part, s1f, R, r0, r1);
}
ONNXC_MAYBE_UNUSED static void onnxc_dwbl_task(void *p, int i) {
  const onnxc_dwbl_job *j = (const onnxc_dwbl_job *)p;
  onnxc_dwbl_task_k(j, i, j->C, j->Cin, j->IH, j->IW, j->KH, j->KW, j->SH, j->SW, j->PH, j->PW, j->DH, j->DW, j->Wp, j->OH,
                    j->OW, j->Cout, j->s1f, j->part, j->R);
}

ONNXC_MAYBE_UNUSED static void onnxc_dwbl_par(onnxc_task f, int T, int C, int Cin, const float *x, int IH, int IW, const float *A,
                                              const onnxc_epi *ee, const float *w, int KH, int KW, int SH, int SW, int PH,
                                              int PW, int DH, int DW, int Wp, int OH, int OW, const onnxc_epi *ed, int Cout,
                                              const float *P, const onnxc_epi *ej, float *y, float *s, long s1f,
                                              long part, int R) {
  onnxc_dwbl_job j;
  const int t = onnxc_par_tasks(T, OH, 1, (double)C * (Cin + Cout + KH * KW) * OH * OW);
  if (t <= 1) {
    onnxc_dwbl_rows(C, Cin, x, IH, IW, A, ee, w, KH, KW, SH, SW, PH, PW, DH, DW, Wp, OH, OW, ed, Cout, P, ej, y, s, s1f, R, 0,
                    OH);
    return;
  }
  j.C = C, j.Cin = Cin, j.IH = IH, j.IW = IW, j.KH = KH, j.KW = KW, j.SH = SH, j.SW = SW, j.PH = PH, j.PW = PW, j.DH = DH;
  j.DW = DW, j.Wp = Wp, j.OH = OH, j.OW = OW, j.Cout = Cout, j.R = R, j.T = t, j.s1f = s1f, j.part = part, j.x = x;
  j.A = A, j.w = w, j.P = P, j.ee = ee, j.ed = ed, j.ej = ej, j.y = y, j.s = s;
  onnxc_parallel_for(t, f ? f : onnxc_dwbl_task, &j);
  if (ed->sum) {
    int c, i;
    for (c = 0; c < C; c++) {
      float a = 0.0f;
      for (i = 0; i < t; i++) a += s[(long)(i + 1) * part - C + c];
      ed->sum[c] += a;
    }
  }
}

#endif

#if (defined(ONNXC_AVX512) || defined(ONNXC_AVX2)) && defined(ONNXC_HAVE_DW2D)
/* onnxc_conv_sc cut by output rows: part i takes rows [OH i / t, OH (i + 1) / t) in bands of R
   rows, its band buffer bf floats into buf */
typedef struct onnxc_sc_job {
  int M, C, IH, IW, KH, KW, S, PH, PW, OH, OW, R, T;
  long bf;
  const float *x, *wp;
  float *y, *buf;
  const onnxc_epi *e;
} onnxc_sc_job;

ONNXC_MAYBE_UNUSED static ONNXC_PAR_INLINE void onnxc_sc_task_k(const onnxc_sc_job *j, int i, int M, int C, int IH, int IW,
                                                                  int KH, int KW, int S, int PH, int PW, int OH, int OW, int R,
                                                                  long bf) {
  const int r0 = (int)((long)OH * i / j->T), r1 = (int)((long)OH * (i + 1) / j->T);
  if (r1 <= r0) return;
  onnxc_conv_sc_r(M, C, IH, IW, KH, KW, S, PH, PW, OH, OW, j->x, j->wp, j->y, j->e, j->buf + (long)i * bf, R, r0, r1);
}
ONNXC_MAYBE_UNUSED static void onnxc_sc_task(void *p, int i) {
  const onnxc_sc_job *j = (const onnxc_sc_job *)p;
  onnxc_sc_task_k(j, i, j->M, j->C, j->IH, j->IW, j->KH, j->KW, j->S, j->PH, j->PW, j->OH, j->OW, j->R, j->bf);
}

ONNXC_MAYBE_UNUSED static void onnxc_conv_sc_par(onnxc_task f, int T, int M, int C, int IH, int IW, int KH, int KW, int S, int PH,
                                                 int PW, int OH, int OW, const float *x, const float *wp, float *y,
                                                 const onnxc_epi *e, float *buf, int R, long bf) {
  onnxc_sc_job j;
  const int t = onnxc_par_tasks(T, OH, 1, (double)M * C * KH * KW * OH * OW);
  if (t <= 1) {
    onnxc_conv_sc(M, C, IH, IW, KH, KW, S, PH, PW, OH, OW, x, wp, y, e, buf, R);
    return;
  }
  j.M = M, j.C = C, j.IH = IH, j.IW = IW, j.KH = KH, j.KW = KW, j.S = S, j.PH = PH, j.PW = PW, j.OH = OH, j.OW = OW;
  j.R = R, j.T = t, j.bf = bf, j.x = x, j.wp = wp, j.y = y, j.buf = buf, j.e = e;
  onnxc_parallel_for(t, f ? f : onnxc_sc_task, &j);
}
#endif

#if defined(ONNXC_HAVE_DW2D)
/* onnxc_conv_mp cut by pooled rows: part i takes rows [POH i / T, POH (i + 1) / T), its
   convolution scratch at buf + i part floats and its band of CR rows conv_f floats further. */
typedef struct onnxc_cmp_job {
  int sc, M, C, IH, IW, KH, KW, SH, SW, PH, PW, OH, OW, R, KB, TR, PKH, PKW, PSH, PSW, PPH, PPW, POH, POW, CR, T;
  long conv_f, part;
  const float *x, *wp;
  const onnxc_epi *e;
  float *buf, *y;
} onnxc_cmp_job;

ONNXC_MAYBE_UNUSED static void onnxc_cmp_task(void *p, int i) {
  const onnxc_cmp_job *j = (const onnxc_cmp_job *)p;
  long p0, p1;
  float *s = j->buf + (long)i * j->part;
  onnxc_par_range(j->POH, j->T, i, 1, &p0, &p1);
  if (p1 > p0)
    onnxc_conv_mp(j->sc, j->M, j->C, j->IH, j->IW, j->KH, j->KW, j->SH, j->SW, j->PH, j->PW, j->OH, j->OW, j->x, j->wp, j->e, s,
                  j->R, j->KB, j->TR, j->PKH, j->PKW, j->PSH, j->PSW, j->PPH, j->PPW, j->POH, j->POW, j->y, s + j->conv_f, j->CR,
                  (int)p0, (int)p1);
}

ONNXC_MAYBE_UNUSED static void onnxc_conv_mp_par(int T, int sc, int M, int C, int IH, int IW, int KH, int KW, int SH, int SW,
                                                 int PH, int PW, int OH, int OW, const float *x, const float *wp,
                                                 const onnxc_epi *e, float *buf, int R, int KB, int TR, int PKH, int PKW,
                                                 int PSH, int PSW, int PPH, int PPW, int POH, int POW, float *y, int CR,
                                                 long conv_f, long part) {
  onnxc_cmp_job j;
  j.sc = sc, j.M = M, j.C = C, j.IH = IH, j.IW = IW, j.KH = KH, j.KW = KW, j.SH = SH, j.SW = SW, j.PH = PH, j.PW = PW;
  j.OH = OH, j.OW = OW, j.R = R, j.KB = KB, j.TR = TR, j.PKH = PKH, j.PKW = PKW, j.PSH = PSH, j.PSW = PSW, j.PPH = PPH;
  j.PPW = PPW, j.POH = POH, j.POW = POW, j.CR = CR, j.T = T, j.conv_f = conv_f, j.part = part, j.x = x, j.wp = wp, j.e = e;
  j.buf = buf, j.y = y;
  onnxc_parallel_for(T, onnxc_cmp_task, &j);
}
#endif
