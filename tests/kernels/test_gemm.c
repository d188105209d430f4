/* test_gemm.c: the matrix-product templates (templates/gemm.h) against a double-precision
   reference, on whichever path the compiler's target selects (portable C, AVX2, AVX-512 or
   NEON).  Shapes cover partial row panels, ragged right edges, every strip width of the
   micro-kernels, more than one k block (ONNXC_KC), M = 1 (GEMV), the GEMV strip layout and the
   channels-in-lanes product (onnxc_sgemm_t: partial 48-row panels, every tile width 1..8);
   onnxc_softmax_row on finite rows and its refusal of rows with NaN or infinities;
   epilogues: bias per row / per column, residual, each activation; sigmoid and SiLU on NaN,
   infinities and values past the exponent's clamp.  Prints one line per
   failure and exits non-zero on any.  Built for the host and, under qemu, for AArch64. */
#include <stdio.h>
#include <stdlib.h>
#include "common.h"
#include "gemm.h"

static unsigned rng = 12345u;
static float frand(void) {
  rng = rng * 1103515245u + 12345u;
  return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static double act_ref(double x, int act, double al, double be) {
  double t;
  switch (act) {
  case ONNXC_ACT_RELU: return x > 0 ? x : 0;
  case ONNXC_ACT_CLIP: return x < al ? al : (x > be ? be : x);
  case ONNXC_ACT_LEAKY: return x < 0 ? al * x : x;
  case ONNXC_ACT_SIGMOID: return 1 / (1 + exp(-x));
  case ONNXC_ACT_HARDSIGMOID: t = al * x + be; return t < 0 ? 0 : (t > 1 ? 1 : t);
  case ONNXC_ACT_SILU: return x / (1 + exp(-x));
  case ONNXC_ACT_HARDSWISH: t = al * x + be; return x * (t < 0 ? 0 : (t > 1 ? 1 : t));
  case ONNXC_ACT_GELU: return 0.5 * x * (1 + erf(x * 0.70710678118654752));
  case ONNXC_ACT_TANH: return tanh(x);
  default: return x;
  }
}

static int failures;

/* max |got - want| <= 1e-5 * (1 + sum_k |a||b|): float rounding of a K-term sum */
static void check(const char *what, int M, int N, int K, int act, const float *got, long ldc, const double *want,
                  const double *mag) {
  int m, n;
  for (m = 0; m < M; m++)
    for (n = 0; n < N; n++) {
      const double g = got[(long)m * ldc + n], w = want[(long)m * N + n];
      if (!(fabs(g - w) <= 1e-5 * (1.0 + mag[(long)m * N + n]))) {
        printf("FAIL %s M=%d N=%d K=%d act=%d at (%d,%d): got %.9g, want %.9g\n", what, M, N, K, act, m, n, g, w);
        failures++;
        return;
      }
    }
}

/* want = act(A B + bias + res) in double (e's epilogue), mag = 1 + sum_k |a b| per element */
static void reference(int M, int N, int K, const float *A, const float *B, const onnxc_epi *e, double *want, double *mag) {
  int m, n, k;
  for (m = 0; m < M; m++)
    for (n = 0; n < N; n++) {
      double x = 0, a = 0;
      for (k = 0; k < K; k++) {
        x += (double)A[m * K + k] * B[k * N + n];
        a += fabs((double)A[m * K + k] * B[k * N + n]);
      }
      if (e->bias) x += e->bias[e->bias_cols ? n : m];
      if (e->res) x += e->res[m * e->ldr + n];
      want[m * N + n] = act_ref(x, e->act, e->alpha, e->beta);
      mag[m * N + n] = a + 1.0;
    }
}

static void one(int M, int N, int K, int bias_mode, int use_res, int act) {
  const long ldc = N + 3, ldr = N + 5;
  float *A = calloc((size_t)(M * K), sizeof(float)), *B = calloc((size_t)(K * N), sizeof(float));
  float *P = calloc((size_t)((M + 7) / 8 * 8 * K), sizeof(float)), *C = calloc((size_t)(M * ldc), sizeof(float));
  float *R = calloc((size_t)(M * ldr), sizeof(float)), *bias = calloc((size_t)(M > N ? M : N), sizeof(float));
  float *S = calloc((size_t)(K * N), sizeof(float));
  double *want = calloc((size_t)(M * N), sizeof(double)), *mag = calloc((size_t)(M * N), sizeof(double));
  /* a column scale (onnxc_scale_cols, onnxc_sgemm_cs): A diag(sc), rounded to float as they do */
  float *sc = calloc((size_t)K, sizeof(float)), *AS = calloc((size_t)(M * K), sizeof(float));
  double *want_s = calloc((size_t)(M * N), sizeof(double)), *mag_s = calloc((size_t)(M * N), sizeof(double));
  onnxc_epi e = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
  int i, m, n, k, s;
  for (i = 0; i < M * K; i++) A[i] = frand();
  for (i = 0; i < K * N; i++) B[i] = frand();
  for (i = 0; i < M * ldr; i++) R[i] = frand();
  for (i = 0; i < (M > N ? M : N); i++) bias[i] = frand();
  for (k = 0; k < K; k++) sc[k] = 2.0f * frand();
  for (i = 0; i < M * K; i++) AS[i] = A[i] * sc[i % K];
  e.bias = bias_mode ? bias : (const float *)0;
  e.bias_cols = bias_mode == 2;
  e.res = use_res ? R : (const float *)0;
  e.ldr = ldr;
  e.act = act;
  e.alpha = act == ONNXC_ACT_CLIP ? -0.25f : act == ONNXC_ACT_LEAKY ? 0.1f : 1.0f / 6.0f;
  e.beta = act == ONNXC_ACT_CLIP ? 0.5f : 0.5f;
  reference(M, N, K, A, B, &e, want, mag);
  reference(M, N, K, AS, B, &e, want_s, mag_s);
  /* packed A (the compiler's constant-weight form; M = 1 takes the GEMV path on plain A) */
  onnxc_pack_a(M, K, A, K, 1, P);
  for (i = 0; i < M * ldc; i++) C[i] = 1e30f;
  onnxc_sgemm(M, N, K, M == 1 ? A : P, 1, B, N, C, ldc, &e);
  check("sgemm", M, N, K, act, C, ldc, want, mag);
  if (M > 1) {
    /* the packed weights' columns scaled: whole (into scratch), and a panel at a time */
    float *PS = calloc((size_t)((M + 7) / 8 * 8 * K), sizeof(float));
    onnxc_scale_cols(M, K, P, sc, PS);
    for (i = 0; i < M * ldc; i++) C[i] = 1e30f;
    onnxc_sgemm(M, N, K, PS, 1, B, N, C, ldc, &e);
    check("scale_cols+sgemm", M, N, K, act, C, ldc, want_s, mag_s);
    for (i = 0; i < M * ldc; i++) C[i] = 1e30f;
    onnxc_sgemm_cs(M, N, K, P, sc, B, N, C, ldc, &e);
    check("sgemm_cs", M, N, K, act, C, ldc, want_s, mag_s);
    free(PS);
  }
  /* run-time A, transposed strides */
  for (i = 0; i < M * ldc; i++) C[i] = 1e30f;
  for (m = 0; m < M; m++)
    for (k = 0; k < K; k++) P[(long)k * M + m] = A[m * K + k];
  onnxc_sgemm_a(M, N, K, P, 1, M, B, N, C, ldc, &e);
  check("sgemm_a", M, N, K, act, C, ldc, want, mag);
  {
    /* channels in lanes: A^T in panels of 48 rows over all k (W_TPANELS) */
    const int Mq = (M + 47) / 48 * 48;
    float *Q = calloc((size_t)Mq * (size_t)K, sizeof(float));
    for (m = 0; m < M; m++)
      for (k = 0; k < K; k++) Q[(long)(m / 48) * 48 * K + 48L * k + m % 48] = A[m * K + k];
    for (i = 0; i < M * ldc; i++) C[i] = 1e30f;
    /* with a later node's weights to prefetch over the k steps (here S: any bytes) */
    e.pf = (const char *)S;
    e.pfn = (long)K * N * (long)sizeof(float);
    onnxc_sgemm_t(M, N, K, Q, B, N, C, ldc, &e);
    e.pf = (const char *)0;
    e.pfn = 0;
    check("sgemm_t", M, N, K, act, C, ldc, want, mag);
    free(Q);
  }
  if (M == 1 && bias_mode != 1) {
    /* the GEMV strip layout */
    for (s = 0; s * 128 < N; s++) {
      const int ws = N - 128 * s < 128 ? N - 128 * s : 128;
      for (k = 0; k < K; k++)
        for (n = 0; n < ws; n++) S[(long)128 * s * K + (long)k * ws + n] = B[k * N + 128 * s + n];
    }
    for (i = 0; i < ldc; i++) C[i] = 1e30f;
    onnxc_sgemv_p(N, K, A, 1, S, C, &e);
    check("sgemv_p", M, N, K, act, C, ldc, want, mag);
  }
  free(A), free(B), free(P), free(C), free(R), free(bias), free(S), free(want), free(mag);
  free(sc), free(AS), free(want_s), free(mag_s);
}

/* onnxc_softmax_row: a double reference on finite rows (on vector targets), and declining (0)
   wherever a NaN or an infinity is in the row, where the caller's scalar form takes over */
static int softmax_rows(void) {
  float x[100], y[100];
  int n, i, cases = 0;
  for (n = 1; n <= 100; n += 11) {
    double m = -1e30, s = 0;
    for (i = 0; i < n; i++) x[i] = 8.0f * frand(), m = x[i] > m ? x[i] : m;
    for (i = 0; i < n; i++) s += exp((double)x[i] - m);
    if (onnxc_softmax_row(x, y, n))
      for (i = 0; i < n; i++)
        if (!(fabs(y[i] - exp((double)x[i] - m) / s) <= 1e-6)) {
          printf("FAIL softmax_row n=%d at %d: got %.9g, want %.9g\n", n, i, y[i], exp((double)x[i] - m) / s);
          failures++;
          break;
        }
    x[n / 2] = NAN;
    if (onnxc_softmax_row(x, y, n)) printf("FAIL softmax_row n=%d: took a row with a NaN\n", n), failures++;
    x[n / 2] = INFINITY;
    if (onnxc_softmax_row(x, y, n)) printf("FAIL softmax_row n=%d: took a row with +inf\n", n), failures++;
    for (i = 0; i < n; i++) x[i] = -INFINITY;
    if (onnxc_softmax_row(x, y, n)) printf("FAIL softmax_row n=%d: took a row of -inf\n", n), failures++;
    cases += 4;
  }
  return cases;
}

/* Sigmoid and SiLU through the epilogue on special values: NaN stays NaN, +-inf and the
   clamp's neighbourhood give the limits (any target: onnxc_epi_row); not SiLU(-inf), which the
   graph's -inf * Sigmoid(-inf) leaves NaN and the vector forms -inf. */
static int act_specials(void) {
  static const float xs[8] = {0.0f, 1.0f, -1.0f, 90.0f, -90.0f, 200.0f, -200.0f, 0.0f};
  float y[16], r[16];
  int act, i, cases = 0;
  for (act = ONNXC_ACT_SIGMOID; act <= ONNXC_ACT_SILU; act += ONNXC_ACT_SILU - ONNXC_ACT_SIGMOID) {
    for (i = 0; i < 16; i++) y[i] = i < 8 ? xs[i] : i == 8 ? NAN : i == 9 ? -NAN : i == 10 ? INFINITY : i == 11 ? -INFINITY : 0.5f * (float)i;
    onnxc_epi_row(y, 16, 0.0f, (const float *)0, (const float *)0, act, 0.0f, 0.0f);
    for (i = 0; i < 16; i++) {
      const double x = i < 8 ? xs[i] : i == 8 || i == 9 ? NAN : i == 10 ? INFINITY : i == 11 ? -INFINITY : 0.5 * i;
      const double sg = x == INFINITY ? 1.0 : x == -INFINITY ? 0.0 : 1.0 / (1.0 + exp(-x));
      r[i] = (float)(act == ONNXC_ACT_SILU ? (x == INFINITY ? x : x == -INFINITY ? 0.0 : x * sg) : sg);
      if ((isnan(r[i]) != isnan(y[i]) && !(i == 11 && act == ONNXC_ACT_SILU)) || (!isnan(r[i]) && fabs((double)y[i] - (double)r[i]) > 1e-6 * fabs((double)r[i]) + 1e-30 &&
                                          !(i == 11 && act == ONNXC_ACT_SILU)))
        printf("FAIL act %d of %g: got %.9g, want %.9g\n", act, x, y[i], r[i]), failures++;
      cases++;
    }
  }
  return cases;
}

int main(void) {
  static const int Ms[] = {1, 3, 8, 9, 17, 24, 47, 48, 49, 64, 80, 100};
  static const int Ns[] = {1, 3, 4, 5, 8, 11, 12, 13, 16, 24, 25, 47, 48, 49, 100, 131, 300};
  static const int Ks[] = {1, 7, 128, 129, 300};
  int mi, ni, ki, act, cases = 0;
  for (mi = 0; mi < (int)(sizeof Ms / sizeof Ms[0]); mi++)
    for (ni = 0; ni < (int)(sizeof Ns / sizeof Ns[0]); ni++)
      for (ki = 0; ki < (int)(sizeof Ks / sizeof Ks[0]); ki++) {
        one(Ms[mi], Ns[ni], Ks[ki], 0, 0, ONNXC_ACT_NONE);
        one(Ms[mi], Ns[ni], Ks[ki], 1, 1, ONNXC_ACT_RELU);
        one(Ms[mi], Ns[ni], Ks[ki], 2, 0, ONNXC_ACT_CLIP);
        cases += 3;
      }
  /* every activation on shapes with full and ragged tiles */
  for (act = ONNXC_ACT_NONE; act <= ONNXC_ACT_TANH; act++) {
    one(9, 25, 130, 2, 1, act);
    one(16, 48, 64, 1, 0, act);
    one(1, 131, 40, 2, 1, act);
    cases += 3;
  }
  cases += softmax_rows();
  cases += act_specials();
  printf("%d cases, %d failures (MR %d, NR %d)\n", cases, failures, ONNXC_MR, ONNXC_NR);
  return failures != 0;
}
