/* ---- par.h: kernels of gemm.h and conv.h cut into tasks (onnxc --threads N) ----------------
   Each wrapper splits its work into T parts along a dimension the kernel computes
   independently -- columns of a product (whole vectors of 16), strips of a GEMV (128 columns),
   channels of a depthwise convolution (groups of 16) -- and runs the parts through
   onnxc_parallel_for (library onnxc_rt_threads).  Work under ONNXC_PAR_MIN multiply-adds runs
   on the calling thread: waking the pool costs more than it takes. */
#ifndef ONNXC_PAR_MIN /* (a test sets 0: every product split) */
#define ONNXC_PAR_MIN 250000.0
#endif

/* The epilogue of the sub-block at rows m0.., columns n0.. of the whole product. */
ONNXC_MAYBE_UNUSED static onnxc_epi onnxc_epi_at(const onnxc_epi *e, long m0, long n0) {
  onnxc_epi r = *e;
  if (r.bias) r.bias += r.bias_cols ? n0 : m0;
  if (r.res) r.res += m0 * r.ldr + n0;
  if (r.sum) r.sum += m0;
  return r;
}

/* [*a, *b): part i of T of n items, in units of q */
ONNXC_MAYBE_UNUSED static void onnxc_par_range(long n, int T, int i, long q, long *a, long *b) {
  const long nu = (n + q - 1) / q;
  *a = nu * i / T * q;
  *b = nu * (i + 1) / T * q;
  if (*a > n) *a = n;
  if (*b > n) *b = n;
}

/* A product C = epilogue(A B) cut by columns; kind 0: onnxc_sgemm (A packed, lda), 1:
   onnxc_sgemm_a (A(m,k) = A[m*lda + k*cs]), 2: onnxc_sgemv_p (B in GEMV strips, a's stride lda). */
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
  if (onnxc_par_tasks(T, N, 16, (double)M * N * K) <= 1) {
    onnxc_sgemm(M, N, K, A, lda, B, ldb, C, ldc, e);
    return;
  }
  j.kind = 0, j.M = M, j.N = N, j.K = K, j.A = A, j.B = B, j.lda = lda, j.cs = 0, j.ldb = ldb, j.ldc = ldc;
  j.C = C, j.e = e;
  j.T = onnxc_par_tasks(T, N, 16, (double)M * N * K);
  onnxc_parallel_for(j.T, onnxc_gemm_task, &j);
}

ONNXC_MAYBE_UNUSED static void onnxc_sgemm_a_par(int T, int M, int N, int K, const float *A, long rs, long cs,
                                                 const float *B, long ldb, float *C, long ldc, const onnxc_epi *e) {
  onnxc_gemm_job j;
  if (onnxc_par_tasks(T, N, 16, (double)M * N * K) <= 1) {
    onnxc_sgemm_a(M, N, K, A, rs, cs, B, ldb, C, ldc, e);
    return;
  }
  j.kind = 1, j.M = M, j.N = N, j.K = K, j.A = A, j.B = B, j.lda = rs, j.cs = cs, j.ldb = ldb, j.ldc = ldc;
  j.C = C, j.e = e;
  j.T = onnxc_par_tasks(T, N, 16, (double)M * N * K);
  onnxc_parallel_for(j.T, onnxc_gemm_task, &j);
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
  /* depthwise: memory bound, cheaper per multiply-add (a quarter of the threshold) */
  const int t = onnxc_par_tasks(T, CO, mult % 16 == 0 ? mult : 16L * mult, 4.0 * CO * OH * OW * KH * KW);
  if (t <= 1) {
    onnxc_dw2d(CO, mult, x, IH, IW, w, KH, KW, SH, SW, PH, PW, DH, DW, y, OH, OW, e);
    return;
  }
  j.CO = CO, j.mult = mult, j.IH = IH, j.IW = IW, j.KH = KH, j.KW = KW, j.SH = SH, j.SW = SW, j.PH = PH, j.PW = PW;
  j.DH = DH, j.DW = DW, j.OH = OH, j.OW = OW, j.T = t, j.x = x, j.w = w, j.y = y, j.e = e;
  onnxc_parallel_for(t, onnxc_dw_task, &j);
}
#endif
