/* ---- gemm.h: float32 matrix product with a fused epilogue (Conv, Gemm, MatMul) ----------------
   onnxc_sgemm computes C[m][n] = act(sum_k A(m,k) * B[k][n] + bias + R[m][n]) for m < M, n < N
   with A packed in k blocks of panels of 8 rows (see onnxc_pack_a: the compiler stores constant
   weights that way, onnxc_pack_a packs run-time ones) and B row-major (B[k*ldb + n]); C and R are row-major (ldc, ldr).
   Loops: k in blocks of ONNXC_KC (the B strip of one block stays in L1), then strips of NR
   columns, then row blocks of MR: a register-blocked micro-kernel keeps an MR x NR tile of sums
   in registers over the k block and adds it to C after the first block.  The epilogue (bias,
   residual, activation) runs on each tile while it is in L1, after the last k block.
   Micro-kernels: AVX-512 8 x 48 (24 zmm sums, masked loads/stores at the right edge), AVX2+FMA
   4 x 24, AArch64 NEON 8 x 12 (24 q-register sums, A by lane from the 8-row panel; a ragged
   right edge is padded on the stack), portable C 4 x 16 (local arrays that compilers
   vectorize; any C99 target).  The intrinsics paths are chosen by the compiler's target
   macros; every path computes the same sums in the same order per element up to FMA
   contraction. */
#if defined(__AVX512F__) && !defined(__CUDACC__)
#include <immintrin.h>
#define ONNXC_AVX512 1
#define ONNXC_MR 8
#define ONNXC_NR 48
#define ONNXC_VL 16
#elif defined(__AVX2__) && defined(__FMA__) && !defined(__CUDACC__)
#include <immintrin.h>
#define ONNXC_AVX2 1
#define ONNXC_MR 4
#define ONNXC_NR 24
#define ONNXC_VL 8
#elif defined(__ARM_NEON) && defined(__aarch64__) && !defined(__CUDACC__)
#include <arm_neon.h>
#define ONNXC_NEON 1
#define ONNXC_MR 8
#define ONNXC_NR 12
#define ONNXC_VL 4
#else
#define ONNXC_MR 4
#define ONNXC_NR 16
#define ONNXC_VL 16
#endif
#define ONNXC_KC 128
#if defined(ONNXC_AVX512) || defined(ONNXC_AVX2)
/* The address of element off of p where it may lie beyond p's array (a prefetch ahead, a wholly
   masked load), computed as an integer: as a pointer it would be undefined out of bounds, and
   GCC -O3 warns where it sees the array (a node's weights, inlined into its node function) */
#define ONNXC_FAR(p, off) ((const void *)((uintptr_t)(p) + (uintptr_t)((long)sizeof(*(p)) * (long)(off))))
#define ONNXC_PF(p, off, hint) _mm_prefetch((const char *)ONNXC_FAR(p, off), hint)
#endif
#if defined(__GNUC__)
/* p as if changed here: loads through it are not hoisted out of loops (the compiler would keep
   table vectors, biases or bounds in registers across a micro-kernel's loop and spill sums instead) */
#define ONNXC_OPAQUE(p) __asm__("" : "+r"(p))
/* the same, kept where it stands (volatile: not moved out of its loop nor merged with another) */
#define ONNXC_OPAQUE_HERE(p) __asm__ __volatile__("" : "+r"(p))
#define ONNXC_UNROLL _Pragma("GCC unroll 16")
#else
#define ONNXC_OPAQUE(p) (void)0
#define ONNXC_OPAQUE_HERE(p) (void)0
#define ONNXC_UNROLL
#endif

/* Activations of fused epilogues (the compiler uses the same numbers). */
enum {
  ONNXC_ACT_NONE = 0, ONNXC_ACT_RELU = 1, ONNXC_ACT_CLIP = 2, ONNXC_ACT_LEAKY = 3,
  ONNXC_ACT_SIGMOID = 4, ONNXC_ACT_HARDSIGMOID = 5, ONNXC_ACT_SILU = 6, ONNXC_ACT_HARDSWISH = 7,
  ONNXC_ACT_GELU = 8, ONNXC_ACT_TANH = 9
};
/* HardSwish or HardSigmoid: clamp(alpha x + beta, 0, 1), times x for HardSwish */
#define ONNXC_ACT_IS_HARD(a) ((a) == ONNXC_ACT_HARDSWISH || (a) == ONNXC_ACT_HARDSIGMOID)

typedef struct onnxc_epi {
  const float *bias; /* NULL, or one value per row (bias_cols 0) or per column (bias_cols 1) */
  int bias_cols;
  const float *res;  /* NULL, or a tensor added before the activation, row stride ldr */
  long ldr;
  int act;           /* ONNXC_ACT_*; CLIP: [alpha, beta]; LEAKY: alpha; HARD*: alpha x + beta */
  float alpha, beta;
  /* NULL, or bytes of a later node's weights (pfn of them) that the product's tiles prefetch
     into L2 while they compute, a slice each (onnxc_pf_slice): a layer's weights are read once
     per inference, and the first tiles would otherwise wait for them */
  const char *pf;
  long pfn;
  /* NULL, or row m's outputs (after the epilogue) are added up into sum[m]: the depthwise
     kernels (onnxc_dw2d, onnxc_dwb16) with a GlobalAveragePool fused, one row per channel */
  float *sum;
} onnxc_epi;

/* The epilogue of the sub-block at rows m0.., columns n0.. of the whole product. */
ONNXC_MAYBE_UNUSED static onnxc_epi onnxc_epi_at(const onnxc_epi *e, long m0, long n0) {
  onnxc_epi r = *e;
  if (r.bias) r.bias += r.bias_cols ? n0 : m0;
  if (r.res) r.res += m0 * r.ldr + n0;
  if (r.sum) r.sum += m0;
  return r;
}

/* Prefetches slice i of n of e->pf's first min(pfn, ONNXC_PF_BURST) bytes (nothing without a
   prefetch instruction): a burst per tile, for kernels that do not spread the prefetches over
   their k steps (onnxc_sgemm_t does, over all of pfn: onnxc_pf_lines). */
#define ONNXC_PF_BURST (256L * 1024)
ONNXC_MAYBE_UNUSED static inline void onnxc_pf_slice(const onnxc_epi *e, long i, long n) {
#if defined(ONNXC_AVX512) || defined(ONNXC_AVX2)
  if (e && e->pf) {
    const long lines = ((e->pfn < ONNXC_PF_BURST ? e->pfn : ONNXC_PF_BURST) + 63) / 64, a = lines * i / n,
               b = lines * (i + 1) / n;
    long l;
    for (l = a; l < b; l++) _mm_prefetch(e->pf + 64 * l, _MM_HINT_T1);
  }
#else
  (void)e;
  (void)i;
  (void)n;
#endif
}
/* Byte offsets [*qo, *qn) of slice i of n of all of e->pf[0..pfn), whole lines (empty without
   e->pf): the share of one tile of onnxc_sgemm_t, which its k steps prefetch two lines at a time
   (onnxc_ukt) */
ONNXC_MAYBE_UNUSED static inline void onnxc_pf_lines(const onnxc_epi *e, long i, long n, long *qo, long *qn) {
  const long lines = e && e->pf ? (e->pfn + 63) / 64 : 0;
  *qo = 64 * (lines * i / n);
  *qn = 64 * (lines * (i + 1) / n);
}
#if defined(ONNXC_AVX512) || defined(ONNXC_AVX2)
/* A k step's share of the lines [qo, qn) of qb (onnxc_pf_lines): two of them; and what the k
   steps left over, at the end of the tile */
#define ONNXC_PF_STEP(qb, qo, qn)                                          \
  if (qo < qn) {                                                          \
    _mm_prefetch(qb + qo, _MM_HINT_T1);                                   \
    if (qo + 64 < qn) _mm_prefetch(qb + qo + 64, _MM_HINT_T1);            \
    qo += 128;                                                            \
  }
#define ONNXC_PF_REST(qb, qo, qn) \
  for (; qo < qn; qo += 64) _mm_prefetch(qb + qo, _MM_HINT_T1);
#endif

/* Scalar activation (the reference for the vector forms). */
ONNXC_MAYBE_UNUSED static inline float onnxc_act1(float x, int act, float al, float be) {
  float t;
  switch (act) {
  case ONNXC_ACT_RELU: return x > 0.0f ? x : 0.0f;
  case ONNXC_ACT_CLIP: return x < al ? al : (x > be ? be : x);
  case ONNXC_ACT_LEAKY: return x < 0.0f ? al * x : x;
  case ONNXC_ACT_SIGMOID: return 1.0f / (1.0f + expf(-x));
  case ONNXC_ACT_HARDSIGMOID: t = al * x + be; return t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
  case ONNXC_ACT_SILU: return x / (1.0f + expf(-x));
  case ONNXC_ACT_HARDSWISH: t = al * x + be; return x * (t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t));
  case ONNXC_ACT_GELU: return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
  case ONNXC_ACT_TANH: return tanhf(x);
  default: return x;
  }
}

#if defined(ONNXC_AVX512)
/* exp(x) for float lanes: 2^n * p(r), r = x - n ln2 in [-ln2/2, ln2/2], degree-6 polynomial
   (relative error ~2 ulp); saturates to 0 / inf outside [-87.3, 88.7]. */
ONNXC_MAYBE_UNUSED static inline __m512 onnxc_exp16(__m512 x) {
  const __m512 hi = _mm512_set1_ps(88.7f), lo = _mm512_set1_ps(-87.3f);
  __m512 n, r, p;
  x = _mm512_max_ps(_mm512_min_ps(x, hi), lo);
  n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), x);
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f), r);
  p = _mm512_set1_ps(1.9875691500e-4f);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.3981999507e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(8.3334519073e-3f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(4.1665795894e-2f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.6666665459e-1f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.0000001201e-1f));
  p = _mm512_fmadd_ps(p, _mm512_mul_ps(r, r), _mm512_add_ps(r, _mm512_set1_ps(1.0f)));
  return _mm512_scalef_ps(p, n);
}

/* onnxc_sigden16's constants (below) and 2^(j/32), j = 0..31 (from [8]) */
ONNXC_MAYBE_UNUSED static const float onnxc_sigk[40] = {
    393216.0f, -1.44269504088896341f, 87.3f, -87.3f, 0.2402269f, 0.69315735f, 1.0f, 0.0f,
    1.0f, 1.0218971486541166f, 1.0442737824274138f, 1.0671404006768237f, 1.0905077326652577f, 1.1143867425958924f,
    1.1387886347566916f, 1.1637248587775775f, 1.1892071150027210f, 1.2152473599804690f, 1.2418578120734840f,
    1.2690509571917332f, 1.2968395546510096f, 1.3252366431597413f, 1.3542555469368927f, 1.3839098819638320f,
    1.4142135623730951f, 1.4451808069770467f, 1.4768261459394993f, 1.5091644275934228f, 1.5422108254079407f,
    1.5759808451078865f, 1.6104903319492543f, 1.6457554781539649f, 1.6817928305074290f, 1.7186192981224779f,
    1.7562521603732995f, 1.7947090750031072f, 1.8340080864093424f, 1.8741676341103000f, 1.9152065613971474f,
    1.9571441241754002f};

/* 1 + e^-x for float lanes: the denominator of the sigmoid and SiLU epilogues of
   EfficientNet-style networks, which run on every activation, so they take a division by it
   (the divider is its own unit; a reciprocal estimate plus a Newton step measured 15% slower in
   a SiLU loop).  x is clamped to [-87.3, 87.3] (one vrangeps with AVX512DQ: the smaller
   magnitude, x's sign), so t = -x log2 e is within [-126, 126]; u = t + 1.5 2^18 (one FMA from
   x) rounds t to a multiple of 1/32 (n = u - 1.5 2^18) and leaves 32 n mod 32 in its low
   mantissa bits, which pick 2^(j/32) from a 32-entry table (one two-register permute);
   f = t - n (one FMA from x again, |f| <= 1/64), 2^f by a degree-2 polynomial (relative error
   5e-8); then scaled by 2^floor(n).  Relative error of SiLU and the sigmoid < 5e-7 for
   |x| < 20, < 1.4e-6 up to the clamp (log2 e rounded, times t); a quiet NaN comes back
   clamped (onnxc_signum16 puts it back for the sigmoid).  Eleven vector
   operations with the division: each one counts where the SiLU shares the FP pipes with a
   kernel's FMAs (8 x 16 FMAs per 8 SiLUs: 27.2 -> 26.4 core cycles per vector against 17.3
   without the SiLU, with t computed first and clamped). */
/* (the body, on constants in registers: k = onnxc_sigk's, lo and hi its table) */
ONNXC_MAYBE_UNUSED static inline __m512 onnxc_sigden16_k(__m512 x, const __m512 *k, __m512 lo, __m512 hi) {
#if defined(__AVX512DQ__)
  const __m512 xc = _mm512_range_ps(x, k[2], 0x02); /* a quiet NaN: the bound */
#else
  /* min/max return their second operand when one is NaN */
  const __m512 xc = _mm512_max_ps(k[3], _mm512_min_ps(k[2], x));
#endif
  const __m512 u = _mm512_fmadd_ps(xc, k[1], k[0]), n = _mm512_sub_ps(u, k[0]), f = _mm512_fmsub_ps(xc, k[1], n);
  const __m512 T = _mm512_permutex2var_ps(lo, _mm512_castps_si512(u), hi);
  const __m512 q = _mm512_fmadd_ps(k[4], f, k[5]);
  return _mm512_add_ps(k[6], _mm512_scalef_ps(_mm512_fmadd_ps(_mm512_mul_ps(T, f), q, T), n));
}
ONNXC_MAYBE_UNUSED static inline __m512 onnxc_sigden16(__m512 x) {
  const float *tab = onnxc_sigk + 8;
  const __m512 k[7] = {_mm512_set1_ps(onnxc_sigk[0]), _mm512_set1_ps(onnxc_sigk[1]), _mm512_set1_ps(onnxc_sigk[2]),
                       _mm512_set1_ps(onnxc_sigk[3]), _mm512_set1_ps(onnxc_sigk[4]), _mm512_set1_ps(onnxc_sigk[5]),
                       _mm512_set1_ps(onnxc_sigk[6])};
  ONNXC_OPAQUE(tab);
  return onnxc_sigden16_k(x, k, _mm512_loadu_ps(tab), _mm512_loadu_ps(tab + 16));
}

/* The numerator over onnxc_sigden16: x for SiLU; 1 for the sigmoid, NaN where x is NaN (the
   clamp there turns a quiet NaN into the bound: min returns x, max then x, when x is NaN). */
ONNXC_MAYBE_UNUSED static inline __m512 onnxc_signum16(__m512 x, int silu) {
  const __m512 one = _mm512_set1_ps(1.0f);
  return silu ? x : _mm512_max_ps(one, _mm512_min_ps(one, x));
}
/* sigmoid(x) (NaN stays NaN), and tanh(x) as 2 sigmoid(2x) - 1 (absolute error about 3e-7; the
   LSTM/GRU gate steps) */
ONNXC_MAYBE_UNUSED static inline __m512 onnxc_sigm16(__m512 x) { return _mm512_div_ps(onnxc_signum16(x, 0), onnxc_sigden16(x)); }
ONNXC_MAYBE_UNUSED static inline __m512 onnxc_tanh16(__m512 x) {
  const __m512 t = _mm512_add_ps(x, x);
  return _mm512_sub_ps(_mm512_div_ps(_mm512_add_ps(onnxc_signum16(t, 0), onnxc_signum16(t, 0)), onnxc_sigden16(t)),
                       _mm512_set1_ps(1.0f));
}

/* erfc(x) for x >= 0 (Numerical Recipes erfcc, relative error < 1.2e-7). */
ONNXC_MAYBE_UNUSED static inline __m512 onnxc_erfc16(__m512 z) {
  const __m512 one = _mm512_set1_ps(1.0f);
  /* t = 1 / (1 + z/2): reciprocal estimate and one Newton step (a division costs more) */
  const __m512 d = _mm512_fmadd_ps(_mm512_set1_ps(0.5f), z, one);
  __m512 t = _mm512_rcp14_ps(d), p;
  t = _mm512_mul_ps(t, _mm512_fnmadd_ps(d, t, _mm512_set1_ps(2.0f)));
  p = _mm512_set1_ps(0.17087277f);
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-0.82215223f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.48851587f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-1.13520398f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0.27886807f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-0.18628806f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0.09678418f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(0.37409196f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(1.00002368f));
  p = _mm512_fmadd_ps(p, t, _mm512_set1_ps(-1.26551223f));
  p = _mm512_sub_ps(p, _mm512_mul_ps(z, z));
  return _mm512_mul_ps(t, onnxc_exp16(p));
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
ONNXC_MAYBE_UNUSED static __m512 onnxc_act16(__m512 x, int act, float al, float be) {
  const __m512 zero = _mm512_setzero_ps(), one = _mm512_set1_ps(1.0f);
  __m512 t;
  switch (act) {
  case ONNXC_ACT_RELU: return _mm512_max_ps(x, zero);
  case ONNXC_ACT_CLIP: return _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(al)), _mm512_set1_ps(be));
  case ONNXC_ACT_LEAKY: return _mm512_mask_mul_ps(x, _mm512_cmp_ps_mask(x, zero, _CMP_LT_OQ), x, _mm512_set1_ps(al));
  case ONNXC_ACT_SIGMOID: return onnxc_sigm16(x);
  case ONNXC_ACT_SILU: return _mm512_div_ps(x, onnxc_sigden16(x));
  case ONNXC_ACT_HARDSIGMOID:
  case ONNXC_ACT_HARDSWISH:
    t = _mm512_fmadd_ps(_mm512_set1_ps(al), x, _mm512_set1_ps(be));
    t = _mm512_min_ps(_mm512_max_ps(t, zero), one);
    return act == ONNXC_ACT_HARDSWISH ? _mm512_mul_ps(x, t) : t;
  case ONNXC_ACT_GELU: {
    /* 0.5 x (1 + erf(z)), z = x / sqrt(2): 1 + erf(z) = erfc(-z) = 2 - erfc(z) for z >= 0 */
    __m512 z = _mm512_mul_ps(x, _mm512_set1_ps(0.70710678118654752f));
    __m512 e = onnxc_erfc16(_mm512_abs_ps(z));
    __mmask16 pos = _mm512_cmp_ps_mask(z, zero, _CMP_GE_OQ);
    e = _mm512_mask_sub_ps(e, pos, _mm512_set1_ps(2.0f), e);
    return _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), x), e);
  }
  case ONNXC_ACT_TANH: { /* 1 - 2 / (exp(2x) + 1) */
    __m512 e = onnxc_exp16(_mm512_add_ps(x, x));
    return _mm512_sub_ps(one, _mm512_div_ps(_mm512_set1_ps(2.0f), _mm512_add_ps(e, one)));
  }
  default: return x;
  }
}
#endif

#if defined(ONNXC_AVX2) || defined(ONNXC_AVX512)
/* r[0..8) := its 8 x 8 transpose (lane j of r[i] <-> lane i of r[j]) */
ONNXC_MAYBE_UNUSED static inline void onnxc_tr8(__m256 *r) {
  __m256 q[8];
  int i;
  for (i = 0; i < 8; i += 2) {
    q[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    q[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(q[i], q[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(q[i], q[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(q[i + 1], q[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(q[i + 1], q[i + 3], 0xEE);
  }
  for (i = 0; i < 4; i++) {
    q[i] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x20);
    q[i + 4] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x31);
  }
  for (i = 0; i < 8; i++) r[i] = q[i];
}
#endif

#if defined(ONNXC_AVX2)
/* lanes 0..n-1 of 8 (all for n >= 8, none for n <= 0): maskload / maskstore */
ONNXC_MAYBE_UNUSED static inline __m256i onnxc_mask8(int n) {
  const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), idx);
}
/* Stores lanes 0..n-1 of v (0 < n <= 8) at p with plain 128-bit, 64-bit and 32-bit stores
   (vmaskmovps stores are microcoded on AMD cores: a 48 x 49 x 128 product whose tiles end in
   7-column rows ran at 17.9 flops per TSC tick against 30.3 with 48 columns). */
ONNXC_MAYBE_UNUSED static inline void onnxc_storen8(float *p, __m256 v, int n) {
  __m128 x = _mm256_castps256_ps128(v);
  if (n >= 8) {
    _mm256_storeu_ps(p, v);
    return;
  }
  if (n >= 4) {
    _mm_storeu_ps(p, x);
    x = _mm256_extractf128_ps(v, 1);
    p += 4;
    n -= 4;
  }
  if (n >= 2) {
    _mm_storel_pi((__m64 *)(void *)p, x);
    x = _mm_movehl_ps(x, x);
    p += 2;
    n -= 2;
  }
  if (n >= 1) _mm_store_ss(p, x);
}
/* onnxc_sigden8's constants (below) and 2^(j/8), j = 0..7 (from [8]) */
ONNXC_MAYBE_UNUSED static const float onnxc_sigk8[16] = {
    1572864.0f, -1.44269504088896341f, 1.0f, 87.3f, -87.3f, 0.05551062f, 0.24025783f, 0.69314717f,
    1.0f, 1.0905077326652577f, 1.1892071150027210f, 1.2968395546510096f, 1.4142135623730951f, 1.5422108254079407f,
    1.6817928305074290f, 1.8340080864093424f};
/* 1 + e^-x on 8 lanes, onnxc_sigden16's way with an 8-entry table: x clamped to [-87.3, 87.3],
   t = -x log2 e; u = t + 1.5 2^20 (one FMA from x) rounds t to a multiple of 1/8 (n = u - 1.5
   2^20) and leaves 8 n in its low mantissa bits: their low three pick 2^(j/8) from the table
   (vpermps reads only those), and shifted left by 20 and masked they are floor(n) in the
   exponent field, added to the table entry's bits (an integer add: AVX2 has no vscalefps).
   f = t - n (|f| <= 1/16), 2^f = 1 + f q(f) with q of degree 2 (relative error 3e-8).  Ten
   vector operations against the degree-6 form's fourteen: a SiLU loop 5.7 -> 4.3 TSC ticks per
   vector (Zen 4).  Relative error of SiLU < 1.1e-6 up to the clamp.  A NaN comes back clamped
   (max/min return their second operand), as onnxc_sigden16's; onnxc_act8 puts it back for the
   sigmoid. */
/* (the body, on constants in registers: k = onnxc_sigk8's first 8, tv its table) */
ONNXC_MAYBE_UNUSED static inline __m256 onnxc_sigden8_k(__m256 x, const __m256 *k, __m256 tv) {
  const __m256 xc = _mm256_min_ps(k[3], _mm256_max_ps(k[4], x));
  const __m256 u = _mm256_fmadd_ps(xc, k[1], k[0]), n = _mm256_sub_ps(u, k[0]), f = _mm256_fmsub_ps(xc, k[1], n);
  const __m256i ui = _mm256_castps_si256(u);
  const __m256i e = _mm256_and_si256(_mm256_slli_epi32(ui, 20), _mm256_set1_epi32((int)0xFF800000u));
  const __m256 T = _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(_mm256_permutevar8x32_ps(tv, ui)), e));
  const __m256 q = _mm256_fmadd_ps(_mm256_fmadd_ps(k[5], f, k[6]), f, k[7]);
  return _mm256_fmadd_ps(T, _mm256_fmadd_ps(f, q, k[2]), k[2]);
}
ONNXC_MAYBE_UNUSED static inline __m256 onnxc_sigden8(__m256 x) {
  const float *tab = onnxc_sigk8 + 8;
  const __m256 k[8] = {_mm256_set1_ps(onnxc_sigk8[0]), _mm256_set1_ps(onnxc_sigk8[1]), _mm256_set1_ps(onnxc_sigk8[2]),
                       _mm256_set1_ps(onnxc_sigk8[3]), _mm256_set1_ps(onnxc_sigk8[4]), _mm256_set1_ps(onnxc_sigk8[5]),
                       _mm256_set1_ps(onnxc_sigk8[6]), _mm256_set1_ps(onnxc_sigk8[7])};
  ONNXC_OPAQUE(tab);
  return onnxc_sigden8_k(x, k, _mm256_loadu_ps(tab));
}
/* exp(x) on 8 lanes: onnxc_exp16's reduction and polynomial, 2^n put into the exponent bits
   (x clamped to [-87.3, 88.3], so that n stays within the normal exponents). */
ONNXC_MAYBE_UNUSED static inline __m256 onnxc_exp8(__m256 x) {
  __m256 n, r, p;
  x = _mm256_max_ps(_mm256_min_ps(x, _mm256_set1_ps(88.3f)), _mm256_set1_ps(-87.3f));
  n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  p = _mm256_set1_ps(1.9875691500e-4f);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.3981999507e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(8.3334519073e-3f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(4.1665795894e-2f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.6666665459e-1f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(5.0000001201e-1f));
  p = _mm256_fmadd_ps(p, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.0f)));
  return _mm256_mul_ps(p, _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23)));
}
/* GELU (erf form, onnxc_act16's: erfc by the Numerical Recipes rational approximation, its
   reciprocal by an estimate and one Newton step) and tanh (1 - 2 / (e^2x + 1)) on 8 lanes;
   out of line: onnxc_act8 is inlined into every kernel's epilogue */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
ONNXC_MAYBE_UNUSED static __m256 onnxc_act8_ge(__m256 x, int act) {
  const __m256 one = _mm256_set1_ps(1.0f), two = _mm256_set1_ps(2.0f);
  if (act == ONNXC_ACT_GELU) {
    const __m256 z = _mm256_mul_ps(x, _mm256_set1_ps(0.70710678118654752f));
    const __m256 az = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), z), d = _mm256_fmadd_ps(_mm256_set1_ps(0.5f), az, one);
    __m256 t = _mm256_rcp_ps(d), p, e;
    t = _mm256_mul_ps(t, _mm256_fnmadd_ps(d, t, two));
    p = _mm256_set1_ps(0.17087277f);
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-0.82215223f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.48851587f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-1.13520398f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.27886807f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-0.18628806f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.09678418f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(0.37409196f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(1.00002368f));
    p = _mm256_fmadd_ps(p, t, _mm256_set1_ps(-1.26551223f));
    p = _mm256_sub_ps(p, _mm256_mul_ps(az, az));
    e = _mm256_mul_ps(t, onnxc_exp8(p)); /* erfc(|z|); 1 + erf(z) = 2 - erfc(z) for z >= 0 */
    e = _mm256_blendv_ps(e, _mm256_sub_ps(two, e), _mm256_cmp_ps(z, _mm256_setzero_ps(), _CMP_GE_OQ));
    return _mm256_mul_ps(_mm256_mul_ps(_mm256_set1_ps(0.5f), x), e);
  }
  if (act == ONNXC_ACT_TANH) return _mm256_sub_ps(one, _mm256_div_ps(two, _mm256_add_ps(onnxc_exp8(_mm256_add_ps(x, x)), one)));
  return x;
}
/* Whether onnxc_act8 has a vector form of act (all of onnxc_act1's). */
#define ONNXC_ACT8_OK(a) ((a) <= ONNXC_ACT_TANH)
/* The activations of the fused epilogues on 8 lanes (onnxc_act1's; Relu as onnxc_act1's
   maxNum: NaN gives 0). */
ONNXC_MAYBE_UNUSED static inline __m256 onnxc_act8(__m256 x, int act, float al, float be) {
  const __m256 zero = _mm256_setzero_ps(), one = _mm256_set1_ps(1.0f);
  __m256 t;
  switch (act) {
  case ONNXC_ACT_RELU: return _mm256_max_ps(x, zero);
  case ONNXC_ACT_CLIP: return _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(al)), _mm256_set1_ps(be));
  case ONNXC_ACT_LEAKY: return _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(al)), _mm256_cmp_ps(x, zero, _CMP_LT_OQ));
  case ONNXC_ACT_SIGMOID: return _mm256_div_ps(_mm256_max_ps(one, _mm256_min_ps(one, x)), onnxc_sigden8(x));
  case ONNXC_ACT_SILU: return _mm256_div_ps(x, onnxc_sigden8(x));
  case ONNXC_ACT_HARDSIGMOID:
  case ONNXC_ACT_HARDSWISH:
    t = _mm256_fmadd_ps(_mm256_set1_ps(al), x, _mm256_set1_ps(be));
    t = _mm256_min_ps(_mm256_max_ps(t, zero), one);
    return act == ONNXC_ACT_HARDSWISH ? _mm256_mul_ps(x, t) : t;
  case ONNXC_ACT_GELU:
  case ONNXC_ACT_TANH: return onnxc_act8_ge(x, act);
  default: return x;
  }
}
#endif

#if defined(ONNXC_AVX512)
/* HardSwish (hs != 0) or HardSigmoid with the constants al = alpha, be = beta already in vectors:
   onnxc_act16's operations, for loops that hoist the constants */
ONNXC_MAYBE_UNUSED static inline __m512 onnxc_hard16(__m512 x, __m512 al, __m512 be, int hs) {
  const __m512 h = _mm512_min_ps(_mm512_max_ps(_mm512_fmadd_ps(al, x, be), _mm512_setzero_ps()), _mm512_set1_ps(1.0f));
  return hs ? _mm512_mul_ps(x, h) : h;
}
/* The activation a kernel applies per vector on its own, after a per-row bias that starts its
   sums (no residual, no per-column bias): SiLU, HardSwish or HardSigmoid (their operations in
   onnxc_fast16, without onnxc_epi16's tests per vector: MobileNetV3's 240 x 14 x 14 5x5
   depthwise with HardSwish alone, 80.0k -> 71.1k ticks); 0 for the others. */
ONNXC_MAYBE_UNUSED static inline int onnxc_epi_fast(const onnxc_epi *e) {
  return !e->res && !e->bias_cols && (e->act == ONNXC_ACT_SILU || ONNXC_ACT_IS_HARD(e->act)) ? e->act : 0;
}
ONNXC_MAYBE_UNUSED static inline __m512 onnxc_fast16(__m512 x, int act, __m512 al, __m512 be) {
  return act == ONNXC_ACT_SILU ? _mm512_div_ps(x, onnxc_sigden16(x)) : onnxc_hard16(x, al, be, act == ONNXC_ACT_HARDSWISH);
}
#endif

#if defined(ONNXC_NEON)
/* Relu (maxNum: NaN gives 0 as in onnxc_act1), Clip (NaN stays NaN) or nothing on 4 lanes. */
ONNXC_MAYBE_UNUSED static inline float32x4_t onnxc_relu_clip4(float32x4_t x, int act, float al, float be) {
  if (act == ONNXC_ACT_RELU) return vmaxnmq_f32(x, vdupq_n_f32(0.0f));
  if (act == ONNXC_ACT_CLIP) return vminq_f32(vmaxq_f32(x, vdupq_n_f32(al)), vdupq_n_f32(be));
  return x;
}
#endif

/* c[0..n) = act(c + bias (bv: one value, or bp[0..n)) + r[0..n)) */
ONNXC_MAYBE_UNUSED static void onnxc_epi_row(float *c, int n, float bv, const float *bp, const float *r,
                                             int act, float al, float be) {
  int j = 0;
#if defined(ONNXC_AVX512)
  for (; j < n; j += 16) {
    const __mmask16 k = n - j >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - j)) - 1u);
    __m512 x = _mm512_add_ps(_mm512_maskz_loadu_ps(k, c + j), bp ? _mm512_maskz_loadu_ps(k, bp + j) : _mm512_set1_ps(bv));
    if (r) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(k, r + j));
    if (act == ONNXC_ACT_RELU) x = _mm512_max_ps(x, _mm512_setzero_ps());
    else if (act == ONNXC_ACT_CLIP) x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(al)), _mm512_set1_ps(be));
    else if (act) x = onnxc_act16(x, act, al, be);
    _mm512_mask_storeu_ps(c + j, k, x);
  }
#elif defined(ONNXC_AVX2)
  if (ONNXC_ACT8_OK(act)) {
    for (; j + 8 <= n; j += 8) {
      __m256 x = _mm256_add_ps(_mm256_loadu_ps(c + j), bp ? _mm256_loadu_ps(bp + j) : _mm256_set1_ps(bv));
      if (r) x = _mm256_add_ps(x, _mm256_loadu_ps(r + j));
      _mm256_storeu_ps(c + j, onnxc_act8(x, act, al, be));
    }
    if (j < n) { /* the last part vector (masked loads) */
      const __m256i k = onnxc_mask8(n - j);
      __m256 x = _mm256_add_ps(_mm256_maskload_ps(c + j, k), bp ? _mm256_maskload_ps(bp + j, k) : _mm256_set1_ps(bv));
      if (r) x = _mm256_add_ps(x, _mm256_maskload_ps(r + j, k));
      onnxc_storen8(c + j, onnxc_act8(x, act, al, be), n - j);
      j = n;
    }
  }
#elif defined(ONNXC_NEON)
  if (act <= ONNXC_ACT_CLIP)
    for (; j + 4 <= n; j += 4) {
      float32x4_t x = vaddq_f32(vld1q_f32(c + j), bp ? vld1q_f32(bp + j) : vdupq_n_f32(bv));
      if (r) x = vaddq_f32(x, vld1q_f32(r + j));
      vst1q_f32(c + j, onnxc_relu_clip4(x, act, al, be));
    }
#endif
  for (; j < n; j++) {
    float x = c[j] + (bp ? bp[j] : bv);
    if (r) x += r[j];
    c[j] = onnxc_act1(x, act, al, be);
  }
}

/* The epilogue on the tile C[0..mr)[0..nr) (row stride ldc), which is rows m0.., columns n0..
   of the whole product. */
ONNXC_MAYBE_UNUSED static void onnxc_epi_tile(const onnxc_epi *e, float *C, long ldc, int m0, int mr, int n0, int nr) {
  int i;
  for (i = 0; i < mr; i++) {
    const float bv = e->bias && !e->bias_cols ? e->bias[m0 + i] : 0.0f;
    const float *bp = e->bias && e->bias_cols ? e->bias + n0 : (const float *)0;
    const float *r = e->res ? e->res + (long)(m0 + i) * e->ldr + n0 : (const float *)0;
    if (!bv && !bp && !r && !e->act) continue;
    onnxc_epi_row(C + (long)i * ldc, nr, bv, bp, r, e->act, e->alpha, e->beta);
  }
}

#if defined(ONNXC_AVX512)
#define ONNXC_MASK16(n) ((n) >= 16 ? (__mmask16)0xffff : (n) <= 0 ? (__mmask16)0 : (__mmask16)((1u << (n)) - 1u))

/* One row step of the micro-kernels: c0 (c1, c2) += b0 (b1, b2) * (*p broadcast), the sums,
   row vectors and broadcasts of which fill the 32 registers.  GCC broadcasts each row's value
   into one register just before its FMAs.  clang hoisted all eight of a k step's broadcasts
   into registers, which left too few for the 24 sums: 4 of them went to the stack and back in
   every k step (its 1x1 convolutions 1.5x as slow as GCC's).  Under clang the steps are
   therefore written out (both assembler dialects), each with its own broadcast register. */
#if defined(__clang__)
#define ONNXC_FMA_R1(c0, b0, p)                                                                   \
  __asm__("{vfmadd231ps %[m]%{1to16%}, %[v0], %[a0]|vfmadd231ps %[a0], %[v0], %[m]%{1to16%}}"   \
          : [a0] "+v"(c0)                                                                     \
          : [v0] "v"(b0), [m] "m"(*(p)))
#define ONNXC_FMA_R2(c0, c1, b0, b1, p)                                                           \
  {                                                                                               \
    __m512 t_;                                                                                    \
    __asm__("{vbroadcastss %[m], %[t]|vbroadcastss %[t], %[m]}\n\t"                               \
            "{vfmadd231ps %[v0], %[t], %[a0]|vfmadd231ps %[a0], %[t], %[v0]}\n\t"                 \
            "{vfmadd231ps %[v1], %[t], %[a1]|vfmadd231ps %[a1], %[t], %[v1]}"                     \
            : [a0] "+v"(c0), [a1] "+v"(c1), [t] "=&v"(t_)                                         \
            : [v0] "v"(b0), [v1] "v"(b1), [m] "m"(*(p)));                                         \
  }
#define ONNXC_FMA_R3(c0, c1, c2, b0, b1, b2, p)                                                   \
  {                                                                                               \
    __m512 t_;                                                                                    \
    __asm__("{vbroadcastss %[m], %[t]|vbroadcastss %[t], %[m]}\n\t"                               \
            "{vfmadd231ps %[v0], %[t], %[a0]|vfmadd231ps %[a0], %[t], %[v0]}\n\t"                 \
            "{vfmadd231ps %[v1], %[t], %[a1]|vfmadd231ps %[a1], %[t], %[v1]}\n\t"                 \
            "{vfmadd231ps %[v2], %[t], %[a2]|vfmadd231ps %[a2], %[t], %[v2]}"                     \
            : [a0] "+v"(c0), [a1] "+v"(c1), [a2] "+v"(c2), [t] "=&v"(t_)                          \
            : [v0] "v"(b0), [v1] "v"(b1), [v2] "v"(b2), [m] "m"(*(p)));                           \
  }
#else
#define ONNXC_FMA_R1(c0, b0, p) ((c0) = _mm512_fmadd_ps(_mm512_set1_ps(*(p)), (b0), (c0)))
#define ONNXC_FMA_R2(c0, c1, b0, b1, p)          \
  {                                              \
    const __m512 t_ = _mm512_set1_ps(*(p));      \
    (c0) = _mm512_fmadd_ps(t_, (b0), (c0));      \
    (c1) = _mm512_fmadd_ps(t_, (b1), (c1));      \
  }
#define ONNXC_FMA_R3(c0, c1, c2, b0, b1, b2, p)  \
  {                                              \
    const __m512 t_ = _mm512_set1_ps(*(p));      \
    (c0) = _mm512_fmadd_ps(t_, (b0), (c0));      \
    (c1) = _mm512_fmadd_ps(t_, (b1), (c1));      \
    (c2) = _mm512_fmadd_ps(t_, (b2), (c2));      \
  }
#endif
/* the row step for n = 1, 2 or 3 vectors (n a constant) */
#define ONNXC_FMA_RN(n, c0, c1, c2, b0, b1, b2, p)          \
  {                                                         \
    if ((n) >= 3) ONNXC_FMA_R3(c0, c1, c2, b0, b1, b2, p)   \
    else if ((n) == 2) ONNXC_FMA_R2(c0, c1, b0, b1, p)      \
    else ONNXC_FMA_R1(c0, b0, p);                           \
  }

/* The epilogue on one vector of row m, columns n..n+15 (mask k).  Relu and Clip, the common
   cases, are one clamp without a switch. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
ONNXC_MAYBE_UNUSED static inline __m512 onnxc_epi16(const onnxc_epi *e, __m512 x, __mmask16 k, int m, int n) {
  if (e->bias) x = _mm512_add_ps(x, e->bias_cols ? _mm512_maskz_loadu_ps(k, e->bias + n) : _mm512_set1_ps(e->bias[m]));
  if (e->res) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(k, e->res + (long)m * e->ldr + n));
  if (e->act == ONNXC_ACT_RELU) return _mm512_max_ps(x, _mm512_setzero_ps());
  if (e->act == ONNXC_ACT_CLIP) return _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(e->alpha)), _mm512_set1_ps(e->beta));
  if (e->act == ONNXC_ACT_HARDSWISH || e->act == ONNXC_ACT_HARDSIGMOID) {
    __m512 t = _mm512_fmadd_ps(_mm512_set1_ps(e->alpha), x, _mm512_set1_ps(e->beta));
    t = _mm512_min_ps(_mm512_max_ps(t, _mm512_setzero_ps()), _mm512_set1_ps(1.0f));
    return e->act == ONNXC_ACT_HARDSWISH ? _mm512_mul_ps(x, t) : t;
  }
  if (e->act == ONNXC_ACT_SILU || e->act == ONNXC_ACT_SIGMOID) {
    /* inline (a call from a micro-kernel's epilogue spills every accumulator) */
    return _mm512_div_ps(onnxc_signum16(x, e->act == ONNXC_ACT_SILU), onnxc_sigden16(x));
  }
  return e->act ? onnxc_act16(x, e->act, e->alpha, e->beta) : x;
}

/* The sum of x[0..n) in vector lanes (GlobalAveragePool of float planes): two running vectors,
   a masked tail, one horizontal sum at the end. */
ONNXC_MAYBE_UNUSED static inline float onnxc_sum16(const float *x, long n) {
  __m512 a = _mm512_setzero_ps(), b = a;
  long i = 0;
  for (; i + 32 <= n; i += 32) {
    a = _mm512_add_ps(a, _mm512_loadu_ps(x + i));
    b = _mm512_add_ps(b, _mm512_loadu_ps(x + i + 16));
  }
  for (; i < n; i += 16) a = _mm512_add_ps(a, _mm512_maskz_loadu_ps(ONNXC_MASK16((int)(n - i)), x + i)); /* n - i < 32 */
  return _mm512_reduce_add_ps(_mm512_add_ps(a, b));
}

/* Whether epilogue e is one of the common forms that a kernel can apply per vector without the
   switch of onnxc_epi16: a per-row bias or none, no residual, then no activation (*clamp = 0) or
   Relu / Clip (*clamp = 1: max with *lo, then min with *hi, as onnxc_epi16 does). */
ONNXC_MAYBE_UNUSED static inline int onnxc_epi_simple(const onnxc_epi *e, int *clamp, __m512 *lo, __m512 *hi) {
  if (e->res || (e->bias && e->bias_cols) || e->act > ONNXC_ACT_CLIP) return 0;
  *clamp = e->act != ONNXC_ACT_NONE;
  *lo = _mm512_set1_ps(e->act == ONNXC_ACT_CLIP ? e->alpha : 0.0f);
  *hi = _mm512_set1_ps(e->act == ONNXC_ACT_CLIP ? e->beta : INFINITY);
  return 1;
}

/* Micro-kernels for 1, 2 or 3 vectors of 16 columns: c<r><v> is the sum of row r, vector v;
   sk<v> masks the columns of vector v that exist.  B rows come from a row-major matrix
   (onnxc_uk<NV>) or, for convolutions, straight from the input (onnxc_ukx<NV>, see conv.h).
   The tile is added to C when acc, and the epilogue e (if any) applied before the store. */
#define ONNXC_ROWS8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define ONNXC_D1(r) __m512 c##r##0 = _mm512_setzero_ps();
#define ONNXC_D2(r) __m512 c##r##0 = _mm512_setzero_ps(), c##r##1 = c##r##0;
#define ONNXC_D3(r) __m512 c##r##0 = _mm512_setzero_ps(), c##r##1 = c##r##0, c##r##2 = c##r##0;
#define ONNXC_K1 const __mmask16 sk0 = ONNXC_MASK16(nr);
#define ONNXC_K2 ONNXC_K1 const __mmask16 sk1 = ONNXC_MASK16(nr - 16);
#define ONNXC_K3 ONNXC_K2 const __mmask16 sk2 = ONNXC_MASK16(nr - 32);
#define ONNXC_B1(p, mk0) const __m512 b0 = _mm512_maskz_loadu_ps(mk0, p);
#define ONNXC_B2(p, mk0, mk1) ONNXC_B1(p, mk0) const __m512 b1 = _mm512_maskz_loadu_ps(mk1, (p) + 16);
#define ONNXC_B3(p, mk0, mk1, mk2) ONNXC_B2(p, mk0, mk1) const __m512 b2 = _mm512_maskz_loadu_ps(mk2, (p) + 32);
#define ONNXC_F1(r) ONNXC_FMA_R1(c##r##0, b0, A + r);
#define ONNXC_F2(r) ONNXC_FMA_R2(c##r##0, c##r##1, b0, b1, A + r)
#define ONNXC_F3(r) ONNXC_FMA_R3(c##r##0, c##r##1, c##r##2, b0, b1, b2, A + r)
#define ONNXC_SV(r, v)                                                                          \
  {                                                                                             \
    float *cp_ = C + (long)r * ldc + 16 * v;                                                    \
    __m512 t_ = c##r##v;                                                                        \
    if (acc) t_ = _mm512_add_ps(t_, _mm512_maskz_loadu_ps(sk##v, cp_));                         \
    if (e) t_ = onnxc_epi16(&ev_, t_, sk##v, m0 + r, n0 + 16 * v);                              \
    _mm512_mask_storeu_ps(cp_, sk##v, t_);                                                      \
  }
/* a local copy of the epilogue: stores to C cannot change it, so it is read once */
#define ONNXC_EV                                      \
  onnxc_epi ev_ = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};  \
  if (e) ev_ = *e;
/* the common epilogues without a switch per vector (the tile's sums are final and the bias, if
   any, started them): plain stores, a residual added, a clamp (Relu: [0, inf), Clip: [alpha,
   beta]) or SiLU */
#define ONNXC_SVP(r, v) _mm512_mask_storeu_ps(C + (long)r * ldc + 16 * v, sk##v, c##r##v);
#define ONNXC_SVC(r, v) _mm512_mask_storeu_ps(C + (long)r * ldc + 16 * v, sk##v, _mm512_min_ps(_mm512_max_ps(c##r##v, lo_), hi_));
#define ONNXC_SVS(r, v) _mm512_mask_storeu_ps(C + (long)r * ldc + 16 * v, sk##v, _mm512_div_ps(c##r##v, onnxc_sigden16(c##r##v)));
#define ONNXC_SVR(r, v)                                                                                    \
  _mm512_mask_storeu_ps(C + (long)r * ldc + 16 * v, sk##v,                                                  \
                        _mm512_add_ps(c##r##v, _mm512_maskz_loadu_ps(sk##v, ev_.res + (long)(m0 + r) * ev_.ldr + n0 + 16 * v)));
/* HardSwish (hs_ = 1) or HardSigmoid: onnxc_epi16's operations, with its constants hoisted */
#define ONNXC_SVH(r, v) _mm512_mask_storeu_ps(C + (long)r * ldc + 16 * v, sk##v, onnxc_hard16(c##r##v, al_, be_, hs_));
#define ONNXC_SH1(r) if (r < mr) { ONNXC_SVH(r, 0) }
#define ONNXC_SH2(r) if (r < mr) { ONNXC_SVH(r, 0) ONNXC_SVH(r, 1) }
#define ONNXC_SH3(r) if (r < mr) { ONNXC_SVH(r, 0) ONNXC_SVH(r, 1) ONNXC_SVH(r, 2) }
#define ONNXC_SR1(r) if (r < mr) { ONNXC_SVR(r, 0) }
#define ONNXC_SR2(r) if (r < mr) { ONNXC_SVR(r, 0) ONNXC_SVR(r, 1) }
#define ONNXC_SR3(r) if (r < mr) { ONNXC_SVR(r, 0) ONNXC_SVR(r, 1) ONNXC_SVR(r, 2) }
#define ONNXC_SS1(r) if (r < mr) { ONNXC_SVS(r, 0) }
#define ONNXC_SS2(r) if (r < mr) { ONNXC_SVS(r, 0) ONNXC_SVS(r, 1) }
#define ONNXC_SS3(r) if (r < mr) { ONNXC_SVS(r, 0) ONNXC_SVS(r, 1) ONNXC_SVS(r, 2) }
#define ONNXC_SP1(r) if (r < mr) { ONNXC_SVP(r, 0) }
#define ONNXC_SP2(r) if (r < mr) { ONNXC_SVP(r, 0) ONNXC_SVP(r, 1) }
#define ONNXC_SP3(r) if (r < mr) { ONNXC_SVP(r, 0) ONNXC_SVP(r, 1) ONNXC_SVP(r, 2) }
#define ONNXC_SC1(r) if (r < mr) { ONNXC_SVC(r, 0) }
#define ONNXC_SC2(r) if (r < mr) { ONNXC_SVC(r, 0) ONNXC_SVC(r, 1) }
#define ONNXC_SC3(r) if (r < mr) { ONNXC_SVC(r, 0) ONNXC_SVC(r, 1) ONNXC_SVC(r, 2) }
#define ONNXC_S1(r) if (r < mr) { ONNXC_SV(r, 0) }
#define ONNXC_S2(r) if (r < mr) { ONNXC_SV(r, 0) ONNXC_SV(r, 1) }
#define ONNXC_S3(r) if (r < mr) { ONNXC_SV(r, 0) ONNXC_SV(r, 1) ONNXC_SV(r, 2) }
#define ONNXC_BPLAIN1 ONNXC_B1(B, sk0)
/* A masked load only where a vector can be partial: on Intel cores a masked load is one more
   uop on the FMA ports (8x48 tile: 27 instead of 24 per k; measured in L1, 152 vs 172
   GFLOP/s); uk3 always has nr > 32, uk2 nr > 16 (onnxc_ukb), so their leading vectors are
   whole, and whole strips load no mask at all */
#define ONNXC_BPLAIN2 const __m512 b0 = _mm512_loadu_ps(B); const __m512 b1 = _mm512_maskz_loadu_ps(sk1, B + 16);
#define ONNXC_BPLAIN3                                                                                    \
  const __m512 b0 = _mm512_loadu_ps(B), b1 = _mm512_loadu_ps(B + 16), b2 = _mm512_maskz_loadu_ps(sk2, B + 32);
#define ONNXC_BFULL1 const __m512 b0 = _mm512_loadu_ps(B);
#define ONNXC_BFULL2 ONNXC_BFULL1 const __m512 b1 = _mm512_loadu_ps(B + 16);
#define ONNXC_BFULL3 ONNXC_BFULL2 const __m512 b2 = _mm512_loadu_ps(B + 32);
#define ONNXC_PB1(r) if (r < mr) c##r##0 = _mm512_set1_ps(e->bias[m0 + r]);
#define ONNXC_PB2(r) if (r < mr) { c##r##0 = _mm512_set1_ps(e->bias[m0 + r]); c##r##1 = c##r##0; }
#define ONNXC_PB3(r) if (r < mr) { c##r##0 = _mm512_set1_ps(e->bias[m0 + r]); c##r##1 = c##r##0; c##r##2 = c##r##0; }
/* One k step of a micro-kernel: the B row, eight FMA rows, prefetches, advance. */
#define ONNXC_UK_STEP(NV, BL)                                                                               \
  {                                                                                                         \
    ONNXC_B##BL##NV                                                                                         \
    ONNXC_ROWS8(ONNXC_F##NV)                                                                                \
    if (pf) {                                                                                               \
      _mm_prefetch((const char *)pf, _MM_HINT_T0);                                                          \
      ONNXC_PF(pf, 16, _MM_HINT_T0);                                                                        \
      ONNXC_PF(pf, 32, _MM_HINT_T0);                                                                        \
      pf += ldb;                                                                                            \
    }                                                                                                       \
    ONNXC_PF(A, 256, _MM_HINT_T0);                                                                          \
    A += 8;                                                                                                 \
    B += ldb;                                                                                               \
  }
/* kc steps from the panel at A; then (nfull > 1: the whole reduction of a packed A in one
   call, no round trip of C between k blocks) nfull - 1 more blocks of kc steps astep apart,
   and a last block of kcl steps from the panel at Al. */
#define ONNXC_UK_DEF(NAME, NV)                                                                              \
  ONNXC_MAYBE_UNUSED static void NAME(int kc, const float *A, const float *B, long ldb, float *C, long ldc,   \
                                      int mr, int nr, int acc, const onnxc_epi *e, int m0, int n0,          \
                                      const float *pf, int nfull, long astep, int kcl, const float *Al) {   \
    ONNXC_K##NV                                                                                             \
    ONNXC_ROWS8(ONNXC_D##NV)                                                                                \
    const float *A0 = A;                                                                                    \
    /* a per-row bias starts the sums (one add less per output vector: it counts where K is small) */      \
    const int pb_ = e && !acc && e->bias && !e->bias_cols;                                                  \
    int k, b;                                                                                               \
    if (pb_) { ONNXC_ROWS8(ONNXC_PB##NV) }                                                                  \
    if (nr >= 16 * NV) {                                                                                    \
      for (b = 0; b < nfull; b++) {                                                                         \
        A = A0 + b * astep;                                                                                 \
        for (k = 0; k < kc; k++) ONNXC_UK_STEP(NV, FULL)                                                    \
      }                                                                                                     \
      A = Al;                                                                                               \
      for (k = 0; k < kcl; k++) ONNXC_UK_STEP(NV, FULL)                                                     \
    } else {                                                                                                \
      for (b = 0; b < nfull; b++) {                                                                         \
        A = A0 + b * astep;                                                                                 \
        for (k = 0; k < kc; k++) ONNXC_UK_STEP(NV, PLAIN)                                                   \
      }                                                                                                     \
      A = Al;                                                                                               \
      for (k = 0; k < kcl; k++) ONNXC_UK_STEP(NV, PLAIN)                                                    \
    }                                                                                                       \
    ONNXC_EV                                                                                                \
    if (pb_) ev_.bias = (const float *)0;                                                                   \
    if (!acc && !ev_.bias && ev_.res && ev_.act == ONNXC_ACT_NONE) {                                      \
      ONNXC_ROWS8(ONNXC_SR##NV)                                                                             \
    } else if (acc || ev_.bias || ev_.res ||                                                               \
               (ev_.act > ONNXC_ACT_CLIP && ev_.act != ONNXC_ACT_SILU && !ONNXC_ACT_IS_HARD(ev_.act))) {   \
      ONNXC_ROWS8(ONNXC_S##NV)                                                                              \
    } else if (ev_.act == ONNXC_ACT_SILU) {                                                                \
      ONNXC_ROWS8(ONNXC_SS##NV)                                                                             \
    } else if (ONNXC_ACT_IS_HARD(ev_.act)) {                                                               \
      const __m512 al_ = _mm512_set1_ps(ev_.alpha), be_ = _mm512_set1_ps(ev_.beta);                         \
      const int hs_ = ev_.act == ONNXC_ACT_HARDSWISH;                                                       \
      ONNXC_ROWS8(ONNXC_SH##NV)                                                                             \
    } else if (ev_.act == ONNXC_ACT_NONE) {                                                                \
      ONNXC_ROWS8(ONNXC_SP##NV)                                                                             \
    } else {                                                                                                \
      const __m512 lo_ = _mm512_set1_ps(ev_.act == ONNXC_ACT_RELU ? 0.0f : ev_.alpha);                      \
      const __m512 hi_ = ev_.act == ONNXC_ACT_RELU ? _mm512_set1_ps(INFINITY) : _mm512_set1_ps(ev_.beta);   \
      ONNXC_ROWS8(ONNXC_SC##NV)                                                                             \
    }                                                                                                       \
  }
ONNXC_UK_DEF(onnxc_uk1, 1)
ONNXC_UK_DEF(onnxc_uk2, 2)
ONNXC_UK_DEF(onnxc_uk3, 3)

/* C[0..mr)[0..nr) (+)= A-panel (8 rows) x B-strip (nr <= 48 columns) over kc steps; then the
   epilogue e (if not NULL) for the tile at rows m0.., columns n0.. of the whole product.  pf (if
   not NULL): the next B strip, prefetched row by row (B rows of an NCHW input are far apart:
   more streams than the hardware prefetchers follow). */
ONNXC_MAYBE_UNUSED static void onnxc_ukb(int kc, const float *A, const float *B, long ldb, float *C, long ldc, int mr,
                                         int nr, int acc, const onnxc_epi *e, int m0, int n0, const float *pf, int nfull,
                                         long astep, int kcl, const float *Al) {
  if (nr > 32) onnxc_uk3(kc, A, B, ldb, C, ldc, mr, nr, acc, e, m0, n0, pf, nfull, astep, kcl, Al);
  else if (nr > 16) onnxc_uk2(kc, A, B, ldb, C, ldc, mr, nr, acc, e, m0, n0, pf, nfull, astep, kcl, Al);
  else onnxc_uk1(kc, A, B, ldb, C, ldc, mr, nr, acc, e, m0, n0, pf, nfull, astep, kcl, Al);
}
ONNXC_MAYBE_UNUSED static void onnxc_uk(int kc, const float *A, const float *B, long ldb, float *C, long ldc, int mr,
                                        int nr, int acc, const onnxc_epi *e, int m0, int n0, const float *pf) {
  onnxc_ukb(kc, A, B, ldb, C, ldc, mr, nr, acc, e, m0, n0, pf, 1, 0, 0, A);
}

/* C = epilogue(A B) with A packed (onnxc_pack_a layout) over more than one k block: each tile
   takes the whole reduction in registers (B strips of K > ONNXC_KC rows come from L2, at a
   fraction of its bandwidth) instead of storing C after each block and adding to it after the
   next, which costs most where the last block is short (K = 144: 128 + 16). */
#define ONNXC_HAVE_SGEMM_KK 1
ONNXC_MAYBE_UNUSED static void onnxc_sgemm_kk(int M, int N, int K, const float *A, const float *B, long ldb, float *C,
                                              long ldc, const onnxc_epi *e) {
  const int nv = (N + ONNXC_VL - 1) / ONNXC_VL, ns = (nv + ONNXC_NR / ONNXC_VL - 1) / (ONNXC_NR / ONNXC_VL);
  const int Mp = (M + 7) / 8 * 8, nfull = K / ONNXC_KC, kcl = K - nfull * ONNXC_KC;
  const long astep = (long)ONNXC_KC * Mp;
  int s, m0;
  for (s = 0; s < ns; s++) {
    const int n0 = nv * s / ns * ONNXC_VL, n1 = nv * (s + 1) / ns * ONNXC_VL, nr = (n1 < N ? n1 : N) - n0;
    for (m0 = 0; m0 < M; m0 += 8) {
      const int mr = M - m0 < 8 ? M - m0 : 8;
      const float *a = A + (long)(m0 / 8) * 8 * ONNXC_KC, *al = A + nfull * astep + (long)(m0 / 8) * 8 * kcl;
      const float *pf = m0 == 0 && s + 1 < ns ? B + n1 : (const float *)0;
      onnxc_pf_slice(e, (long)s * (Mp / 8) + m0 / 8, (long)ns * (Mp / 8));
      onnxc_ukb(ONNXC_KC, a, B + n0, ldb, C + (long)m0 * ldc + n0, ldc, mr, nr, 0, e, m0, n0, pf, nfull, astep, kcl, al);
    }
  }
}

#if defined(__AVX512VL__) && defined(__AVX512DQ__) /* 256-bit masked forms, 8-float broadcasts */

/* The last t <= 8 columns of a product whose other columns are whole 16-column vectors (N = 196
   on 14x14 planes: 12 vectors and 4 columns; N = 49 on 7x7: 3 and 1): in a 16-column vector
   those few would leave most lanes empty (13 vectors for 12.25 of work).  Here rows go in the
   lanes of 256-bit vectors instead (for each k, the 8 rows of a packed panel are contiguous): P
   panels (8 P rows) x t columns of accumulators over the whole K, one B value broadcast per
   column and k.  P grows as t shrinks (ONNXC_CT_PANELS) so that there are always a dozen or more
   independent sums: with 3 panels, one column was 3 FMA chains waiting on their latency (the 49th
   column of a 960 x 49 x 160 product took a sixth of its time).  The epilogue runs in the same
   form, two columns per 512-bit vector (the row bias is one load, a residual is gathered), then
   each 8 x 8 block is transposed into rows (masked stores; the scalar stores it replaces cost
   more than the FMAs where K is small). */
#define ONNXC_CT_PMAX 12
#define ONNXC_CT_DEF(NAME, T, P)                                                                           \
  ONNXC_MAYBE_UNUSED static void NAME(int M, int K, const float *A, const float *B, long ldb, float *tb,      \
                                      int m0) {                                                            \
    const int Mp = (M + 7) / 8 * 8, np = (M - m0 + 7) / 8;                                                 \
    int k0, k, p, j;                                                                                       \
    __m256 q[P][T];                                                                                        \
    ONNXC_UNROLL for (p = 0; p < P; p++) ONNXC_UNROLL for (j = 0; j < T; j++) q[p][j] = _mm256_setzero_ps(); \
    for (k0 = 0; k0 < K; k0 += ONNXC_KC) {                                                                 \
      const int kc = K - k0 < ONNXC_KC ? K - k0 : ONNXC_KC;                                                \
      const float *p0 = A + (long)k0 * Mp + (long)(m0 / 8) * 8 * kc;                                       \
      const float *b = B + (long)k0 * ldb;                                                                 \
      long off[P]; /* panels past the last compute panel 0 again (discarded) */                            \
      ONNXC_UNROLL for (p = 0; p < P; p++) off[p] = p < np ? 8L * kc * p : 0;                              \
      for (k = 0; k < kc; k++, b += ldb) {                                                                 \
        __m256 a[P];                                                                                       \
        ONNXC_UNROLL for (p = 0; p < P; p++) a[p] = _mm256_loadu_ps(p0 + off[p] + 8 * k);                  \
        ONNXC_UNROLL for (j = 0; j < T; j++) {                                                             \
          const __m256 b_ = _mm256_broadcast_ss(b + j);                                                    \
          ONNXC_UNROLL for (p = 0; p < P; p++) q[p][j] = _mm256_fmadd_ps(a[p], b_, q[p][j]);               \
        }                                                                                                  \
      }                                                                                                    \
    }                                                                                                      \
    ONNXC_UNROLL for (p = 0; p < P; p++) ONNXC_UNROLL for (j = 0; j < T; j++)                              \
      _mm256_storeu_ps(tb + (p * 8 + j) * 8, q[p][j]);                                                     \
  }
/* panels per call for t columns: 12 to 24 sums in registers, at most 32 vectors in all */
#define ONNXC_CT_PANELS(t) ((t) == 1 ? 12 : (t) == 2 ? 8 : (t) == 3 ? 6 : (t) == 4 ? 5 : (t) <= 6 ? 4 : 3)
ONNXC_CT_DEF(onnxc_ct1, 1, ONNXC_CT_PANELS(1))
ONNXC_CT_DEF(onnxc_ct2, 2, ONNXC_CT_PANELS(2))
ONNXC_CT_DEF(onnxc_ct3, 3, ONNXC_CT_PANELS(3))
ONNXC_CT_DEF(onnxc_ct4, 4, ONNXC_CT_PANELS(4))
ONNXC_CT_DEF(onnxc_ct5, 5, ONNXC_CT_PANELS(5))
ONNXC_CT_DEF(onnxc_ct6, 6, ONNXC_CT_PANELS(6))
ONNXC_CT_DEF(onnxc_ct7, 7, ONNXC_CT_PANELS(7))
ONNXC_CT_DEF(onnxc_ct8, 8, ONNXC_CT_PANELS(8))
#define ONNXC_HAVE_SGEMM_CT 1
ONNXC_MAYBE_UNUSED static void onnxc_sgemm_ct(int M, int K, int n0, int t, const float *A, const float *B, long ldb,
                                              float *C, long ldc, const onnxc_epi *e) {
  typedef void (*ct_fn)(int, int, const float *, const float *, long, float *, int);
  static const ct_fn tab[8] = {onnxc_ct1, onnxc_ct2, onnxc_ct3, onnxc_ct4, onnxc_ct5, onnxc_ct6, onnxc_ct7, onnxc_ct8};
  /* tb[(p * 8 + j) * 8 + i]: row m0 + 8 p + i, column n0 + j (columns past t stay zero) */
  float tb[ONNXC_CT_PMAX * 8 * 8] = {0};
  const int P = ONNXC_CT_PANELS(t);
  const __mmask8 cols = (__mmask8)((1u << t) - 1u);
  /* residual gather offsets: row i of column j (lanes 0-7) and of column j + 1 (lanes 8-15) */
  const __m512i ix = _mm512_add_epi32(_mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7),
                                                         _mm512_set1_epi32(e ? (int)e->ldr : 0)),
                                      _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1));
  int m0, p, j, i;
  for (m0 = 0; m0 < M; m0 += 8 * P) {
    tab[t - 1](M, K, A, B + n0, ldb, tb, m0);
    for (p = 0; p < P && m0 + 8 * p < M; p++) {
      const int mr = M - m0 - 8 * p < 8 ? M - m0 - 8 * p : 8, r0 = m0 + 8 * p;
      const __mmask16 rows = (__mmask16)(((1u << mr) - 1u) | (((1u << mr) - 1u) << 8));
      if (e)
        for (j = 0; j < t; j += 2) {
          /* lanes 0-7: column j, lanes 8-15: column j + 1 (rows r0..r0+7 in both) */
          __m512 x = _mm512_loadu_ps(tb + (p * 8 + j) * 8);
          if (e->bias && !e->bias_cols)
            x = _mm512_add_ps(x, _mm512_broadcast_f32x8(_mm256_maskz_loadu_ps((__mmask8)((1u << mr) - 1u), e->bias + r0)));
          else if (e->bias)
            x = _mm512_add_ps(x, _mm512_insertf32x8(_mm512_set1_ps(e->bias[n0 + j]), _mm256_set1_ps(e->bias[n0 + (j + 1 < t ? j + 1 : j)]), 1));
          if (e->res) {
            const __mmask16 g = j + 1 < t ? rows : (__mmask16)(rows & 0xff);
            x = _mm512_add_ps(x, _mm512_mask_i32gather_ps(_mm512_setzero_ps(), g, ix, e->res + (long)r0 * e->ldr + n0 + j, 4));
          }
          if (e->act == ONNXC_ACT_RELU) x = _mm512_max_ps(x, _mm512_setzero_ps());
          else if (e->act == ONNXC_ACT_SILU || ONNXC_ACT_IS_HARD(e->act))
            x = onnxc_fast16(x, e->act, _mm512_set1_ps(e->alpha), _mm512_set1_ps(e->beta));
          else if (e->act) x = onnxc_act16(x, e->act, e->alpha, e->beta);
          _mm512_storeu_ps(tb + (p * 8 + j) * 8, x);
        }
      {
        /* columns (rows in lanes) -> rows of t columns */
        __m256 r[8];
        for (j = 0; j < 8; j++) r[j] = _mm256_loadu_ps(tb + (p * 8 + j) * 8);
        onnxc_tr8(r);
        for (i = 0; i < mr; i++) _mm256_mask_storeu_ps(C + (long)(r0 + i) * ldc + n0, cols, r[i]);
      }
    }
  }
}
#endif
#elif defined(ONNXC_AVX2)
#define ONNXC_UK_ROW(r)                                    \
  a = _mm256_broadcast_ss(A + r);                          \
  c##r##0 = _mm256_fmadd_ps(a, b0, c##r##0);               \
  c##r##1 = _mm256_fmadd_ps(a, b1, c##r##1);               \
  c##r##2 = _mm256_fmadd_ps(a, b2, c##r##2);
#define ONNXC_UK_ROW2(r)                                   \
  a = _mm256_broadcast_ss(A + r);                          \
  c##r##0 = _mm256_fmadd_ps(a, b0, c##r##0);               \
  c##r##1 = _mm256_fmadd_ps(a, b1, c##r##1);
#define ONNXC_UK_ROW1(r)                                   \
  a = _mm256_broadcast_ss(A + r);                          \
  c##r##0 = _mm256_fmadd_ps(a, b0, c##r##0);
#define ONNXC_UK_ZERO(r) c##r##0 = c##r##1 = c##r##2 = _mm256_setzero_ps();
#define ONNXC_UK_STORE(r)                                                                       \
  if (r < mr) {                                                                                 \
    float *cr = C + (long)r * ldc;                                                              \
    const float *rr = fused && e->res ? e->res + (long)(m0 + r) * e->ldr + n0 : (const float *)0; \
    const __m256 bv = fused && e->bias ? _mm256_set1_ps(e->bias[m0 + r]) : _mm256_setzero_ps(); \
    ONNXC_ST8(cr, rr, 0, k0, 8, c##r##0)                                                        \
    ONNXC_ST8(cr + 8, rr, 8, k1, 16, c##r##1)                                                   \
    ONNXC_ST8(cr + 16, rr, 16, k2, 24, c##r##2)                                                 \
  }
/* vector v of a tile row at p (columns up to end = 8 (v + 1)): the sums (plus C's with acc),
   then with a fused epilogue the row's bias, the residual (rr + o, when rr) and the
   activation; whole vectors with plain loads and stores (an AMD core's vmaskmovps store is
   microcoded: with them, a 96 x 784 x 16 product ran at 9 flops per TSC tick), the last part
   vector masked (mask k) */
#define ONNXC_ST8(p, rr, o, k, end, x)                                                          \
  if (nr > (end) - 8) {                                                                         \
    const int w_ = nr >= (end) ? 8 : nr - ((end) - 8);                                          \
    __m256 t_ = !acc ? x : _mm256_add_ps(x, w_ == 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, k)); \
    if (fused) t_ = _mm256_add_ps(t_, bv);                                                       \
    if (rr) t_ = _mm256_add_ps(t_, w_ == 8 ? _mm256_loadu_ps(rr + (o)) : _mm256_maskload_ps(rr + (o), k)); \
    if (clamp) t_ = _mm256_min_ps(_mm256_max_ps(t_, lo), hi);                                     \
    if (xa == ONNXC_ACT_SILU) t_ = _mm256_div_ps(t_, onnxc_sigden8(t_));                           \
    if (xa == ONNXC_ACT_HARDSWISH)                                                               \
      t_ = _mm256_mul_ps(t_, _mm256_min_ps(_mm256_max_ps(_mm256_fmadd_ps(lo, t_, hi), _mm256_setzero_ps()), _mm256_set1_ps(1.0f))); \
    onnxc_storen8(p, t_, w_);                                                                   \
  }
#define ONNXC_ROWS4(X) X(0) X(1) X(2) X(3)
/* The row vectors of a k step held in registers: GCC otherwise folds them into the FMAs as
   memory operands (12 loads and 4 broadcasts per k step for 12 FMAs: load-bound on a Zen 4
   core, whose ports take two 256-bit loads per cycle) */
#if defined(__GNUC__)
#define ONNXC_INREG3(x, y, z) __asm__("" : "+x"(x), "+x"(y), "+x"(z))
#define ONNXC_INREG2(x, y) __asm__("" : "+x"(x), "+x"(y))
#define ONNXC_INREG1(x) __asm__("" : "+x"(x))
#else
#define ONNXC_INREG3(x, y, z) (void)0
#define ONNXC_INREG2(x, y) (void)0
#define ONNXC_INREG1(x) (void)0
#endif
#if defined(__GNUC__) && !defined(__clang__)
/* n > 0 k steps of the whole-vector tiles (NB = 3: 24 columns, 2: 16) written out, the loop
   itself inside the asm: the 12 sums, the NB row vectors and the broadcast take all 16
   registers.  As intrinsics, inlined into a node whose epilogue constants the compiler kept in
   a register across the loop, one sum went to the stack and back in every k step
   (EfficientNet-B0's expansions 10-15% slower than with the row vectors folded into the FMAs);
   with one k step per asm statement, GCC still moved four sums between registers in every step
   of a Clip node's loop (a 576 x 196 x 96 product 9% slower on a Zen core). */
/* (ymm12-14 the row vectors, ymm15 the broadcast: as operands, with the twelve sums counted
   twice as in-out operands, they would pass GCC's limit of 30) */
#define ONNXC_UK_LD(v, R) "{vmovups " #v "*32(%[pb]), %%ymm" #R "|vmovups ymm" #R ", [%[pb]+" #v "*32]}\n\t"
#define ONNXC_UK_LDX(v, R) "{vmovups " #v "*32(%[pb],%[o],4), %%ymm" #R "|vmovups ymm" #R ", [%[pb]+%[o]*4+" #v "*32]}\n\t"
#define ONNXC_UK_F(r, v, R) "{vfmadd231ps %%ymm" #R ", %%ymm15, %[c" #r #v "]|vfmadd231ps %[c" #r #v "], ymm15, ymm" #R "}\n\t"
#define ONNXC_UK_BC(r) "{vbroadcastss " #r "*4(%[pa]), %%ymm15|vbroadcastss ymm15, DWORD PTR [%[pa]+" #r "*4]}\n\t"
#define ONNXC_UK_BCX(r) "{vbroadcastss " #r "*4(%[pa],%[i],8), %%ymm15|vbroadcastss ymm15, DWORD PTR [%[pa]+%[i]*8+" #r "*4]}\n\t"
#define ONNXC_UK_R3(BC, r) BC(r) ONNXC_UK_F(r, 0, 12) ONNXC_UK_F(r, 1, 13) ONNXC_UK_F(r, 2, 14)
#define ONNXC_UK_R2(BC, r) BC(r) ONNXC_UK_F(r, 0, 12) ONNXC_UK_F(r, 1, 13)
#define ONNXC_UK_FMA3(BC) ONNXC_UK_R3(BC, 0) ONNXC_UK_R3(BC, 1) ONNXC_UK_R3(BC, 2) ONNXC_UK_R3(BC, 3)
#define ONNXC_UK_FMA2(BC) ONNXC_UK_R2(BC, 0) ONNXC_UK_R2(BC, 1) ONNXC_UK_R2(BC, 2) ONNXC_UK_R2(BC, 3)
#define ONNXC_UK_SUMS                                                                                          \
  [c00] "+x"(c00), [c01] "+x"(c01), [c02] "+x"(c02), [c10] "+x"(c10), [c11] "+x"(c11), [c12] "+x"(c12),        \
  [c20] "+x"(c20), [c21] "+x"(c21), [c22] "+x"(c22), [c30] "+x"(c30), [c31] "+x"(c31), [c32] "+x"(c32)
#define ONNXC_UK_CLOB "memory", "cc", "xmm12", "xmm13", "xmm14", "xmm15"
/* row vectors at B0 + k ldb */
#define ONNXC_UK_LOOP(LOADS, FMAS, N)                                                                          \
  do {                                                                                                         \
    const float *pb_ = B0, *pe_ = A + 8L * (N);                                                                \
    __asm__("1:\n\t" LOADS FMAS "{add $32, %[pa]|add %[pa], 32}\n\t{add %[lb], %[pb]|add %[pb], %[lb]}\n\t"     \
            "{cmp %[pe], %[pa]|cmp %[pa], %[pe]}\n\tjne 1b\n\t"                                                \
            : ONNXC_UK_SUMS, [pa] "+r"(A), [pb] "+r"(pb_)                                                      \
            : [lb] "r"(ldb * 4), [pe] "r"(pe_)                                                                 \
            : ONNXC_UK_CLOB);                                                                                  \
  } while (0)
/* row vectors at B0 + xo[k]: i runs from -4 N to 0 bytes of xo (32 i / 4 of A) */
#define ONNXC_UK_LOOPX(LOADS, FMAS, N)                                                                         \
  do {                                                                                                         \
    long i_ = -4L * (N), o_;                                                                                   \
    __asm__("1:\n\t{movslq (%[px],%[i]), %[o]|movsxd %[o], DWORD PTR [%[px]+%[i]]}\n\t" LOADS FMAS             \
            "{add $4, %[i]|add %[i], 4}\n\tjnz 1b\n\t"                                                         \
            : ONNXC_UK_SUMS, [i] "+r"(i_), [o] "=&r"(o_)                                                        \
            : [pa] "r"(A + 8L * (N)), [px] "r"(xo + (N)), [pb] "r"(B0)                                         \
            : ONNXC_UK_CLOB);                                                                                  \
    A += 8L * (N);                                                                                             \
  } while (0)
#define ONNXC_UK_WHOLE3(N)                                                                                 \
  if (xo)                                                                                                  \
    ONNXC_UK_LOOPX(ONNXC_UK_LDX(0, 12) ONNXC_UK_LDX(1, 13) ONNXC_UK_LDX(2, 14), ONNXC_UK_FMA3(ONNXC_UK_BCX), N); \
  else                                                                                                     \
    ONNXC_UK_LOOP(ONNXC_UK_LD(0, 12) ONNXC_UK_LD(1, 13) ONNXC_UK_LD(2, 14), ONNXC_UK_FMA3(ONNXC_UK_BC), N);
#define ONNXC_UK_WHOLE2(N)                                                                                 \
  if (xo)                                                                                                  \
    ONNXC_UK_LOOPX(ONNXC_UK_LDX(0, 12) ONNXC_UK_LDX(1, 13), ONNXC_UK_FMA2(ONNXC_UK_BCX), N);                     \
  else                                                                                                     \
    ONNXC_UK_LOOP(ONNXC_UK_LD(0, 12) ONNXC_UK_LD(1, 13), ONNXC_UK_FMA2(ONNXC_UK_BC), N);
#else
#define ONNXC_UK_WHOLE3(N)                                               \
  for (k = 0; k < (N); k++) {                                            \
    const float *B = xo ? B0 + xo[k] : B0 + (long)k * ldb;               \
    b0 = _mm256_loadu_ps(B);                                             \
    b1 = _mm256_loadu_ps(B + 8);                                         \
    b2 = _mm256_loadu_ps(B + 16);                                        \
    ONNXC_INREG3(b0, b1, b2);                                            \
    ONNXC_ROWS4(ONNXC_UK_ROW)                                            \
    A += 8;                                                              \
  }
#define ONNXC_UK_WHOLE2(N)                                               \
  for (k = 0; k < (N); k++) {                                            \
    const float *B = xo ? B0 + xo[k] : B0 + (long)k * ldb;               \
    b0 = _mm256_loadu_ps(B);                                             \
    b1 = _mm256_loadu_ps(B + 8);                                         \
    ONNXC_INREG2(b0, b1);                                                \
    ONNXC_ROWS4(ONNXC_UK_ROW2)                                           \
    A += 8;                                                              \
  }
#endif

/* onnxc_uk with the k steps' row vectors at B0 + k ldb, or with a table xo at B0 + xo[k]
   (onnxc_conv_sc's taps: onnxc_uk_x) */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void onnxc_uk_b(int kc, const float *A, const float *B0, long ldb, const int *xo, float *C, long ldc,
                              int mr, int nr, int acc, const onnxc_epi *e, int m0, int n0) {
  /* the common epilogues (a per-row bias, a residual, then Relu, Clip or nothing: one clamp) on the sums in
     registers; the others (SiLU, HardSwish, ...) through onnxc_epi_tile, whose switch inlined
     per vector here doubled the code of the generated files */
  const int plain = e && !e->bias_cols;
  /* with xo (the stems: EfficientNet's SiLU, MobileNetV3's HardSwish) those two as well (through
     onnxc_epi_tile they took 9 TSC ticks per vector, as long as the FMAs of a 3x3 stem) */
  const int xa = xo && plain && (e->act == ONNXC_ACT_SILU || e->act == ONNXC_ACT_HARDSWISH) ? e->act : 0;
  const int fused = plain && (e->act <= ONNXC_ACT_CLIP || xa), clamp = fused && !xa && e->act != ONNXC_ACT_NONE;
  __m256 c00, c01, c02, c10, c11, c12, c20, c21, c22, c30, c31, c32, a, b0, b1, b2;
  int k;
  ONNXC_ROWS4(ONNXC_UK_ZERO)
  /* whole vectors (most tiles: onnxc_gemm_blk balances strips of 16 and 24 columns): plain
     loads, and with 16 columns the third vector's FMAs left out.  With a part vector at the
     right, rows k < kf take whole-vector loads anyway (the lanes past nr read the next row's
     columns, inside B's block, and are never stored), only the last rows masked: on a Zen
     core a vmaskmovps load costs as much as the row's FMAs (14 x 14 planes, 196 columns, ran
     8% slower than 200).  With xo the rows are taps of a band buffer, all masked. */
  {
    const int whole = nr == 24 || nr == 16;
    const int kf = whole ? kc : xo || ldb <= 0 ? 0 : kc - 1 - (int)((8 * ((nr + 7) / 8) - nr + ldb - 1) / ldb);
    k = kf > 0 ? kf : 0;
    if (kf > 0) {
      if (nr > 16) {
        ONNXC_UK_WHOLE3(kf)
      } else if (nr > 8) {
        ONNXC_UK_WHOLE2(kf)
      } else {
        for (k = 0; k < kf; k++) {
          const float *B = B0 + (long)k * ldb;
          b0 = _mm256_loadu_ps(B);
          ONNXC_INREG1(b0);
          ONNXC_ROWS4(ONNXC_UK_ROW1)
          A += 8;
        }
      }
    }
  }
  if (k < kc) {
    if (nr > 16) { /* the third vector masked */
      const __m256i k2 = onnxc_mask8(nr - 16);
      for (; k < kc; k++) {
        const float *B = xo ? B0 + xo[k] : B0 + (long)k * ldb;
        b0 = _mm256_loadu_ps(B);
        b1 = _mm256_loadu_ps(B + 8);
        b2 = _mm256_maskload_ps(B + 16, k2);
        ONNXC_INREG3(b0, b1, b2);
        ONNXC_ROWS4(ONNXC_UK_ROW)
        A += 8;
      }
    } else if (nr > 8) { /* two vectors, the second masked (the third's FMAs left out: 9..15
                            columns, e.g. the Winograd products of 14-tile blocks) */
      const __m256i k1 = onnxc_mask8(nr - 8);
      for (; k < kc; k++) {
        const float *B = xo ? B0 + xo[k] : B0 + (long)k * ldb;
        b0 = _mm256_loadu_ps(B);
        b1 = _mm256_maskload_ps(B + 8, k1);
        ONNXC_INREG2(b0, b1);
        ONNXC_ROWS4(ONNXC_UK_ROW2)
        A += 8;
      }
    } else {
      const __m256i k0 = onnxc_mask8(nr);
      for (; k < kc; k++) {
        const float *B = xo ? B0 + xo[k] : B0 + (long)k * ldb;
        b0 = _mm256_maskload_ps(B, k0);
        ONNXC_ROWS4(ONNXC_UK_ROW1)
        A += 8;
      }
    }
  }
  { /* the masks and bounds of the stores made here: live across the k loop, they took
       registers from the sums (spilled in the loop) */
    const __m256i k0 = onnxc_mask8(nr), k1 = onnxc_mask8(nr - 8), k2 = onnxc_mask8(nr - 16);
    const __m256 lo = _mm256_set1_ps((clamp && e->act == ONNXC_ACT_CLIP) || xa == ONNXC_ACT_HARDSWISH ? e->alpha : 0.0f);
    const __m256 hi = _mm256_set1_ps((clamp && e->act == ONNXC_ACT_CLIP) || xa == ONNXC_ACT_HARDSWISH ? e->beta : INFINITY);
    ONNXC_ROWS4(ONNXC_UK_STORE)
  }
  if (e && !fused) onnxc_epi_tile(e, C, ldc, m0, mr, n0, nr);
}
ONNXC_MAYBE_UNUSED static void onnxc_uk(int kc, const float *A, const float *B, long ldb, float *C, long ldc, int mr,
                                        int nr, int acc, const onnxc_epi *e, int m0, int n0, const float *pf) {
  (void)pf;
  onnxc_uk_b(kc, A, B, ldb, (const int *)0, C, ldc, mr, nr, acc, e, m0, n0);
}
ONNXC_MAYBE_UNUSED static void onnxc_uk_x(int kc, const float *A, const float *B, const int *xo, float *C, long ldc, int mr,
                                          int nr, int acc, const onnxc_epi *e, int m0, int n0) {
  onnxc_uk_b(kc, A, B, 0, xo, C, ldc, mr, nr, acc, e, m0, n0);
}
#elif defined(ONNXC_NEON)
/* The 8 x (4 NV) micro-kernels: c<r><v> sums row r, columns 4v..4v+3; per k step the 8 A values
   of the panel are two vectors (rows 0-3, 4-7) and each row's value is a lane of one of them
   (fmla by element: no broadcasts).  Every column loaded exists (4 NV <= nr; onnxc_uk pads a
   ragged edge).  The epilogue runs on the stored tile (in L1) through onnxc_epi_tile, whose
   rows take vector Relu/Clip (fused into the 48 stores of the three kernels, it doubled the
   compile time of every generated file that uses them). */
#define ONNXC_ROWS8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define ONNXC_D1(r) float32x4_t c##r##0 = vdupq_n_f32(0.0f);
#define ONNXC_D2(r) float32x4_t c##r##0 = vdupq_n_f32(0.0f), c##r##1 = c##r##0;
#define ONNXC_D3(r) float32x4_t c##r##0 = vdupq_n_f32(0.0f), c##r##1 = c##r##0, c##r##2 = c##r##0;
#define ONNXC_B1 const float32x4_t b0 = vld1q_f32(B);
#define ONNXC_B2 ONNXC_B1 const float32x4_t b1 = vld1q_f32(B + 4);
#define ONNXC_B3 ONNXC_B2 const float32x4_t b2 = vld1q_f32(B + 8);
#define ONNXC_AV(r) ((r) < 4 ? a0 : a1)
#define ONNXC_F1(r) c##r##0 = vfmaq_laneq_f32(c##r##0, b0, ONNXC_AV(r), (r) & 3);
#define ONNXC_F2(r) ONNXC_F1(r) c##r##1 = vfmaq_laneq_f32(c##r##1, b1, ONNXC_AV(r), (r) & 3);
#define ONNXC_F3(r) ONNXC_F2(r) c##r##2 = vfmaq_laneq_f32(c##r##2, b2, ONNXC_AV(r), (r) & 3);
#define ONNXC_SV(r, v)                                                                          \
  {                                                                                             \
    float *cp_ = C + (long)r * ldc + 4 * v;                                                     \
    vst1q_f32(cp_, acc ? vaddq_f32(c##r##v, vld1q_f32(cp_)) : c##r##v);                        \
  }
#define ONNXC_S1(r) if (r < mr) { ONNXC_SV(r, 0) }
#define ONNXC_S2(r) if (r < mr) { ONNXC_SV(r, 0) ONNXC_SV(r, 1) }
#define ONNXC_S3(r) if (r < mr) { ONNXC_SV(r, 0) ONNXC_SV(r, 1) ONNXC_SV(r, 2) }
#define ONNXC_UK_DEF(NAME, NV)                                                                              \
  ONNXC_MAYBE_UNUSED static void NAME(int kc, const float *A, const float *B, long ldb, float *C, long ldc,   \
                                      int mr, int acc, const onnxc_epi *e, int m0, int n0) {                \
    int k;                                                                                                  \
    ONNXC_ROWS8(ONNXC_D##NV)                                                                                \
    for (k = 0; k < kc; k++) {                                                                              \
      const float32x4_t a0 = vld1q_f32(A), a1 = vld1q_f32(A + 4);                                           \
      ONNXC_B##NV                                                                                           \
      ONNXC_ROWS8(ONNXC_F##NV)                                                                              \
      A += 8;                                                                                               \
      B += ldb;                                                                                             \
    }                                                                                                       \
    ONNXC_ROWS8(ONNXC_S##NV)                                                                                \
    if (e) onnxc_epi_tile(e, C, ldc, m0, mr, n0, 4 * NV);                                                   \
  }
ONNXC_UK_DEF(onnxc_uk1, 1)
ONNXC_UK_DEF(onnxc_uk2, 2)
ONNXC_UK_DEF(onnxc_uk3, 3)

/* C[0..mr)[0..nr) (+)= A-panel x B (ldb) for nr <= 12 columns when B has w = nr rounded up to
   4 readable columns (zero past nr): whole vectors straight into C, else the tile summed on
   the stack and its nr columns added to C. */
ONNXC_MAYBE_UNUSED static void onnxc_uk_w(int kc, const float *A, const float *B, long ldb, float *C, long ldc,
                                          int mr, int nr, int acc, const onnxc_epi *e, int m0, int n0) {
  float ct[8 * ONNXC_NR];
  const int w = (nr + 3) / 4 * 4;
  int i, j;
  if (w == nr) {
    if (nr == 12) onnxc_uk3(kc, A, B, ldb, C, ldc, mr, acc, e, m0, n0);
    else if (nr == 8) onnxc_uk2(kc, A, B, ldb, C, ldc, mr, acc, e, m0, n0);
    else onnxc_uk1(kc, A, B, ldb, C, ldc, mr, acc, e, m0, n0);
    return;
  }
  if (w == 12) onnxc_uk3(kc, A, B, ldb, ct, w, mr, 0, (const onnxc_epi *)0, 0, 0);
  else if (w == 8) onnxc_uk2(kc, A, B, ldb, ct, w, mr, 0, (const onnxc_epi *)0, 0, 0);
  else onnxc_uk1(kc, A, B, ldb, ct, w, mr, 0, (const onnxc_epi *)0, 0, 0);
  for (i = 0; i < mr; i++)
    for (j = 0; j < nr; j++) C[(long)i * ldc + j] = acc ? C[(long)i * ldc + j] + ct[i * w + j] : ct[i * w + j];
  if (e) onnxc_epi_tile(e, C, ldc, m0, mr, n0, nr);
}

/* C[0..mr)[0..nr) (+)= A-panel (8 rows, all read: rows past M are zero) x B-strip (nr <= 12
   columns), then the epilogue.  A strip that is not whole vectors (only the last one of a
   product whose N is not a multiple of 4) is copied zero-padded to the stack first. */
ONNXC_MAYBE_UNUSED static void onnxc_uk(int kc, const float *A, const float *B, long ldb, float *C, long ldc, int mr,
                                        int nr, int acc, const onnxc_epi *e, int m0, int n0, const float *pf) {
  float bb[ONNXC_KC * ONNXC_NR];
  const int w = (nr + 3) / 4 * 4;
  int k, j;
  (void)pf;
  if (w == nr) {
    onnxc_uk_w(kc, A, B, ldb, C, ldc, mr, nr, acc, e, m0, n0);
    return;
  }
  for (k = 0; k < kc; k++)
    for (j = 0; j < w; j++) bb[k * w + j] = j < nr ? B[(long)k * ldb + j] : 0.0f;
  onnxc_uk_w(kc, A, bb, w, C, ldc, mr, nr, acc, e, m0, n0);
}
#else
ONNXC_MAYBE_UNUSED static void onnxc_uk(int kc, const float *A, const float *B, long ldb, float *C, long ldc, int mr,
                                        int nr, int acc, const onnxc_epi *e, int m0, int n0, const float *pf) {
  float s0[ONNXC_NR], s1[ONNXC_NR], s2[ONNXC_NR], s3[ONNXC_NR];
  int k, j;
  (void)pf;
  for (j = 0; j < ONNXC_NR; j++) s0[j] = s1[j] = s2[j] = s3[j] = 0.0f;
  /* the same loop twice on purpose: with the constant trip count compilers unroll and
     vectorize the full-width strip without a remainder loop */
  if (nr == ONNXC_NR) {
    for (k = 0; k < kc; k++) {
      const float a0 = A[0], a1 = A[1], a2 = A[2], a3 = A[3];
      for (j = 0; j < ONNXC_NR; j++) {
        const float b = B[j];
        s0[j] += a0 * b;
        s1[j] += a1 * b;
        s2[j] += a2 * b;
        s3[j] += a3 * b;
      }
      A += 8;
      B += ldb;
    }
  } else {
    for (k = 0; k < kc; k++) {
      const float a0 = A[0], a1 = A[1], a2 = A[2], a3 = A[3];
      for (j = 0; j < nr; j++) {
        const float b = B[j];
        s0[j] += a0 * b;
        s1[j] += a1 * b;
        s2[j] += a2 * b;
        s3[j] += a3 * b;
      }
      A += 8;
      B += ldb;
    }
  }
  for (j = 0; j < nr; j++) {
    C[j] = acc ? C[j] + s0[j] : s0[j];
    if (mr > 1) C[ldc + j] = acc ? C[ldc + j] + s1[j] : s1[j];
    if (mr > 2) C[2 * ldc + j] = acc ? C[2 * ldc + j] + s2[j] : s2[j];
    if (mr > 3) C[3 * ldc + j] = acc ? C[3 * ldc + j] + s3[j] : s3[j];
  }
  if (e) onnxc_epi_tile(e, C, ldc, m0, mr, n0, nr);
}
#endif

#if defined(ONNXC_NEON)
/* c[0..w) = sum_k a[k lda] b[k ldb + 0..w): strips of 32 columns (eight accumulators hide the
   FMA latency), then single vectors, then single columns. */
ONNXC_MAYBE_UNUSED static void onnxc_gemv4(int w, int K, const float *a, long lda, const float *b, long ldb, float *c) {
  int j = 0, k;
  for (; j + 32 <= w; j += 32) {
    float32x4_t s0 = vdupq_n_f32(0.0f), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
    const float *p = b + j;
    for (k = 0; k < K; k++, p += ldb) {
      const float32x4_t x = vdupq_n_f32(a[(long)k * lda]);
      s0 = vfmaq_f32(s0, x, vld1q_f32(p));
      s1 = vfmaq_f32(s1, x, vld1q_f32(p + 4));
      s2 = vfmaq_f32(s2, x, vld1q_f32(p + 8));
      s3 = vfmaq_f32(s3, x, vld1q_f32(p + 12));
      s4 = vfmaq_f32(s4, x, vld1q_f32(p + 16));
      s5 = vfmaq_f32(s5, x, vld1q_f32(p + 20));
      s6 = vfmaq_f32(s6, x, vld1q_f32(p + 24));
      s7 = vfmaq_f32(s7, x, vld1q_f32(p + 28));
    }
    vst1q_f32(c + j, s0);
    vst1q_f32(c + j + 4, s1);
    vst1q_f32(c + j + 8, s2);
    vst1q_f32(c + j + 12, s3);
    vst1q_f32(c + j + 16, s4);
    vst1q_f32(c + j + 20, s5);
    vst1q_f32(c + j + 24, s6);
    vst1q_f32(c + j + 28, s7);
  }
  for (; j + 4 <= w; j += 4) {
    float32x4_t s0 = vdupq_n_f32(0.0f);
    for (k = 0; k < K; k++) s0 = vfmaq_f32(s0, vdupq_n_f32(a[(long)k * lda]), vld1q_f32(b + (long)k * ldb + j));
    vst1q_f32(c + j, s0);
  }
  for (; j < w; j++) {
    float s0 = 0.0f;
    for (k = 0; k < K; k++) s0 += a[(long)k * lda] * b[(long)k * ldb + j];
    c[j] = s0;
  }
}
#endif

/* s0..s7 += x times the strip's eight vectors at b (masks m0..m7, offsets o1..o7) */
#define ONNXC_GEMV_FMA8(x, b)                                                                      \
  s0 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m0, b), s0);                                       \
  s1 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m1, (b) + o1), s1);                                \
  s2 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m2, (b) + o2), s2);                                \
  s3 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m3, (b) + o3), s3);                                \
  s4 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m4, (b) + o4), s4);                                \
  s5 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m5, (b) + o5), s5);                                \
  s6 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m6, (b) + o6), s6);                                \
  s7 = _mm512_fmadd_ps(x, _mm512_maskz_loadu_ps(m7, (b) + o7), s7);
/* Column offsets of the eight vectors of a 128-column strip of w columns: a vector with no
   columns loads from and stores to (nothing at) the strip's start, not past the end of an array. */
#define ONNXC_GEMV_OFFS(w)                                                                           \
  const int o1 = (w) > 16 ? 16 : 0, o2 = (w) > 32 ? 32 : 0, o3 = (w) > 48 ? 48 : 0, o4 = (w) > 64 ? 64 : 0; \
  const int o5 = (w) > 80 ? 80 : 0, o6 = (w) > 96 ? 96 : 0, o7 = (w) > 112 ? 112 : 0;

/* One-row product (M = 1, e.g. a batch-1 fully connected layer): c[n] = sum_k a[k] B[k][n],
   columns in strips of 128 (AVX-512) so that eight accumulators hide the FMA latency. */
ONNXC_MAYBE_UNUSED static void onnxc_gemv(int N, int K, const float *a, long lda, const float *B, long ldb, float *c) {
#if defined(ONNXC_NEON)
  onnxc_gemv4(N, K, a, lda, B, ldb, c);
#else
  int n0 = 0, k;
#if defined(ONNXC_AVX512)
  for (; n0 < N; n0 += 128) {
    const int w = N - n0;
    const __mmask16 m0 = ONNXC_MASK16(w), m1 = ONNXC_MASK16(w - 16), m2 = ONNXC_MASK16(w - 32), m3 = ONNXC_MASK16(w - 48);
    const __mmask16 m4 = ONNXC_MASK16(w - 64), m5 = ONNXC_MASK16(w - 80), m6 = ONNXC_MASK16(w - 96), m7 = ONNXC_MASK16(w - 112);
    ONNXC_GEMV_OFFS(w)
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
    const float *b = B + n0;
    for (k = 0; k < K; k++, b += ldb) {
      const __m512 x = _mm512_set1_ps(a[(long)k * lda]);
      ONNXC_GEMV_FMA8(x, b)
    }
    _mm512_mask_storeu_ps(c + n0, m0, s0);
    _mm512_mask_storeu_ps(c + n0 + o1, m1, s1);
    _mm512_mask_storeu_ps(c + n0 + o2, m2, s2);
    _mm512_mask_storeu_ps(c + n0 + o3, m3, s3);
    _mm512_mask_storeu_ps(c + n0 + o4, m4, s4);
    _mm512_mask_storeu_ps(c + n0 + o5, m5, s5);
    _mm512_mask_storeu_ps(c + n0 + o6, m6, s6);
    _mm512_mask_storeu_ps(c + n0 + o7, m7, s7);
  }
#else
  for (; n0 < N; n0 += 16) {
    float s[16];
    const int w = N - n0 < 16 ? N - n0 : 16;
    int j;
    for (j = 0; j < 16; j++) s[j] = 0.0f;
    for (k = 0; k < K; k++) {
      const float x = a[(long)k * lda], *b = B + (long)k * ldb + n0;
      for (j = 0; j < w; j++) s[j] += x * b[j];
    }
    for (j = 0; j < w; j++) c[n0 + j] = s[j];
  }
#endif
#endif
}

#if defined(ONNXC_AVX512)
/* r[0..16) := its 16 x 16 transpose (lane j of r[i] <-> lane i of r[j]) */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
ONNXC_MAYBE_UNUSED static inline void onnxc_tr16(__m512 *r) {
  __m512 t[16];
  int i;
  for (i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (i = 0; i < 16; i += 4) {
    const __m512d a = _mm512_castps_pd(t[i]), b = _mm512_castps_pd(t[i + 1]);
    const __m512d c = _mm512_castps_pd(t[i + 2]), d = _mm512_castps_pd(t[i + 3]);
    r[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, c));
    r[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, c));
    r[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(b, d));
    r[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(b, d));
  }
  for (i = 0; i < 4; i++) {
    t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0x88);
    t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0xdd);
    t[i + 8] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0x88);
    t[i + 12] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0xdd);
  }
  for (i = 0; i < 4; i++) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
    r[i + 4] = _mm512_shuffle_f32x4(t[i + 4], t[i + 12], 0x88);
    r[i + 12] = _mm512_shuffle_f32x4(t[i + 4], t[i + 12], 0xdd);
  }
}


/* r[0..8) (16 rows in the lanes, one vector per column) := the rows with their 8 columns:
   r[i] lanes 0..7 row i, lanes 8..15 row i + 8 (24 shuffles where the 16 x 16 transpose of the
   8 vectors and 8 zeros takes 64). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
ONNXC_MAYBE_UNUSED static inline void onnxc_tr16x8(__m512 *r) {
  const __m512i i0 = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 8, 9, 10, 11, 24, 25, 26, 27);
  const __m512i i1 = _mm512_setr_epi32(4, 5, 6, 7, 20, 21, 22, 23, 12, 13, 14, 15, 28, 29, 30, 31);
  __m512 t[8];
  __m512d u[8];
  int i;
  for (i = 0; i < 8; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (i = 0; i < 8; i += 4) { /* u[i + q], lane L: row 4 L + q, columns i..i+3 */
    u[i] = _mm512_unpacklo_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2]));
    u[i + 1] = _mm512_unpackhi_pd(_mm512_castps_pd(t[i]), _mm512_castps_pd(t[i + 2]));
    u[i + 2] = _mm512_unpacklo_pd(_mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3]));
    u[i + 3] = _mm512_unpackhi_pd(_mm512_castps_pd(t[i + 1]), _mm512_castps_pd(t[i + 3]));
  }
  for (i = 0; i < 4; i++) {
    r[i] = _mm512_permutex2var_ps(_mm512_castpd_ps(u[i]), i0, _mm512_castpd_ps(u[i + 4]));
    r[i + 4] = _mm512_permutex2var_ps(_mm512_castpd_ps(u[i]), i1, _mm512_castpd_ps(u[i + 4]));
  }
}
#endif

/* ---- few columns: output rows (channels) in the vector lanes ----------------------------------
   C = epilogue(A B) for products with few columns (1x1 convolutions of small planes, N = 49 on
   7x7): with columns in the lanes a 49-column product fills 64 lanes (77%), with rows in the
   lanes nothing is lost.  A^T is packed at compile time in panels of 48 rows, each over the
   whole k range: Q[(m/48)*48*K + 48*k + m%48], rows past M zero.  The AVX-512 micro-kernel keeps
   48 rows x NR <= 8 columns in 24 registers over all K (three row vectors loaded, one B value
   broadcast per column and k; a panel streams from L2 at 9 bytes per cycle, no k blocks, so each
   tile is transposed and stored once; a per-row bias starts the sums), applies a plain
   activation while the rows are still in the lanes (nr vectors per 16 rows, where after the
   transpose it takes 16 vectors of nr lanes), then writes the tile back to row-major C through
   16 x 8 transposes (a residual or per-column bias there, per row); columns go in balanced
   tiles (49 = 7 x 7).  192 -> 1152 on 7 x 7 with SiLU, alone: 221 -> 213 us.  Other targets:
   two columns at a time over local arrays. */
#if defined(ONNXC_AVX512)
#define ONNXC_J8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define ONNXC_TD(j) __m512 a##j##0 = bz0_, a##j##1 = bz1_, a##j##2 = bz2_;
#define ONNXC_TF(j)                                                                            \
  if (j < nr_) ONNXC_FMA_RN(rv_, a##j##0, a##j##1, a##j##2, q0, q1, q2, B + j)
/* r[0..n) := the activation of e (no bias, no residual) on whole vectors; a call, so that the
   24 micro-kernels of onnxc_ukt do not each carry up to 3 x 8 inlined copies (EfficientNet-B0's
   object: 87 KiB more code, no faster) */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
ONNXC_MAYBE_UNUSED static void onnxc_act_vecs(__m512 *r, int n, const onnxc_epi *e) {
  int i;
  if (e->act == ONNXC_ACT_RELU || e->act == ONNXC_ACT_CLIP) {
    /* a clamp without onnxc_epi16's tests per vector (5% of ResNet-8's 16 -> 32 stride-2
       layer); Relu as min(max(x, 0), inf) is onnxc_epi16's max(x, 0), NaN included */
    const __m512 lo = _mm512_set1_ps(e->act == ONNXC_ACT_CLIP ? e->alpha : 0.0f);
    const __m512 hi = _mm512_set1_ps(e->act == ONNXC_ACT_CLIP ? e->beta : INFINITY);
    for (i = 0; i < n; i++) r[i] = _mm512_min_ps(_mm512_max_ps(r[i], lo), hi);
    return;
  }
  if (onnxc_epi_fast(e)) { /* onnxc_epi16's operations without its tests per vector (MobileNetV3's
                               576 x 49 x 96 expansion with HardSwish alone: 98.4k -> 88.9k ticks) */
    const __m512 al = _mm512_set1_ps(e->alpha), be = _mm512_set1_ps(e->beta);
    for (i = 0; i < n; i++) r[i] = onnxc_fast16(r[i], e->act, al, be);
    return;
  }
  for (i = 0; i < n; i++) r[i] = onnxc_epi16(e, r[i], (__mmask16)0xffff, 0, 0);
}
/* row vector v of the tile: the activation in the lanes (pre_: nr vectors, where after the
   transpose it would take 16 of nr lanes each), the 16 x 8 transpose, then per row the rest of
   the epilogue (post_: a residual or a per-column bias, and the activation after it) */
#define ONNXC_TS(v)                                                                            \
  if (v < rv_ && 16 * v < mr) {                                                                \
    r[0] = a0##v, r[1] = a1##v, r[2] = a2##v, r[3] = a3##v;                                    \
    r[4] = a4##v, r[5] = a5##v, r[6] = a6##v, r[7] = a7##v;                                    \
    if (pre_) onnxc_act_vecs(r, nr_, &ev_);                                                    \
    onnxc_tr16x8(r);                                                                           \
    for (i = 0; i < 16 && 16 * v + i < mr; i++) {                                              \
      float *cp_ = C + (long)(16 * v + i) * ldc;                                               \
      __m512 t_ = i < 8 ? r[i] : _mm512_shuffle_f32x4(r[i - 8], r[i - 8], 0xee);               \
      if (acc) t_ = _mm512_add_ps(t_, _mm512_maskz_loadu_ps(km, cp_));                         \
      if (post_) t_ = onnxc_epi16(&ev_, t_, km, m0 + 16 * v + i, n0);                          \
      _mm512_mask_storeu_ps(cp_, km, t_);                                                      \
    }                                                                                          \
  }
/* A tile's start and end shared by onnxc_ukt and onnxc_uktc (conv.h): the column mask, a per-row
   bias loaded into the sums' start (first k block only), and after the k steps the epilogue of
   ONNXC_TS on the three row vectors */
#define ONNXC_UKT_START                                                                                   \
  const __mmask16 km = ONNXC_MASK16(nr_);                                                                 \
  const int pb_ = e && !acc && e->bias && !e->bias_cols;                                                  \
  const __m512 bz0_ = pb_ ? _mm512_maskz_loadu_ps(ONNXC_MASK16(mr), e->bias + m0) : _mm512_setzero_ps();  \
  const __m512 bz1_ = pb_ && rv_ > 1 ? _mm512_maskz_loadu_ps(ONNXC_MASK16(mr - 16), e->bias + m0 + 16)    \
                                     : _mm512_setzero_ps();                                               \
  const __m512 bz2_ = pb_ && rv_ > 2 ? _mm512_maskz_loadu_ps(ONNXC_MASK16(mr - 32), e->bias + m0 + 32)    \
                                     : _mm512_setzero_ps();
#define ONNXC_UKT_END                                                                                     \
  {                                                                                                       \
    ONNXC_EV                                                                                              \
    if (pb_) ev_.bias = (const float *)0;                                                                 \
    const int pre_ = !acc && !ev_.res && !ev_.bias && ev_.act != ONNXC_ACT_NONE;                          \
    const int post_ = !pre_ && (ev_.res || ev_.bias || ev_.act != ONNXC_ACT_NONE);                        \
    ONNXC_TS(0) ONNXC_TS(1) ONNXC_TS(2)                                                                   \
  }
#define ONNXC_UKT_DEF(NAME, NR, RV)                                                                        \
  ONNXC_MAYBE_UNUSED static void NAME(int kc, const float *Q, const float *B, long ldb, float *C, long ldc, \
                                      int mr, int acc, const onnxc_epi *e, int m0, int n0, const char *pf, \
                                      long pfs, long qo, long qn) {                                        \
    const int nr_ = NR, rv_ = RV;                                                                          \
    const char *qb_ = e ? e->pf : (const char *)0;                                                         \
    ONNXC_UKT_START                                                                                        \
    __m512 r[8];                                                                                           \
    int k, i;                                                                                              \
    ONNXC_J8(ONNXC_TD)                                                                                     \
    for (k = 0; k < kc; k++) {                                                                             \
      _mm_prefetch(pf, _MM_HINT_T1);                                                                       \
      pf += pfs;                                                                                           \
      ONNXC_PF_STEP(qb_, qo, qn)                                                                           \
      const __m512 q0 = _mm512_loadu_ps(Q);                                                              \
      const __m512 q1 = rv_ > 1 ? _mm512_loadu_ps(Q + 16) : q0, q2 = rv_ > 2 ? _mm512_loadu_ps(Q + 32) : q0; \
      ONNXC_J8(ONNXC_TF)                                                                                   \
      Q += 48;                                                                                             \
      B += ldb;                                                                                            \
    }                                                                                                      \
    ONNXC_PF_REST(qb_, qo, qn)                                                                             \
    ONNXC_UKT_END                                                                                          \
  }
ONNXC_UKT_DEF(onnxc_ukt1, 1, 3)
ONNXC_UKT_DEF(onnxc_ukt2, 2, 3)
ONNXC_UKT_DEF(onnxc_ukt3, 3, 3)
ONNXC_UKT_DEF(onnxc_ukt4, 4, 3)
ONNXC_UKT_DEF(onnxc_ukt5, 5, 3)
ONNXC_UKT_DEF(onnxc_ukt6, 6, 3)
ONNXC_UKT_DEF(onnxc_ukt7, 7, 3)
ONNXC_UKT_DEF(onnxc_ukt8, 8, 3)
/* a last panel of at most 16 or 32 rows: one or two row vectors */
ONNXC_UKT_DEF(onnxc_ukt1_r1, 1, 1)
ONNXC_UKT_DEF(onnxc_ukt2_r1, 2, 1)
ONNXC_UKT_DEF(onnxc_ukt3_r1, 3, 1)
ONNXC_UKT_DEF(onnxc_ukt4_r1, 4, 1)
ONNXC_UKT_DEF(onnxc_ukt5_r1, 5, 1)
ONNXC_UKT_DEF(onnxc_ukt6_r1, 6, 1)
ONNXC_UKT_DEF(onnxc_ukt7_r1, 7, 1)
ONNXC_UKT_DEF(onnxc_ukt8_r1, 8, 1)
ONNXC_UKT_DEF(onnxc_ukt1_r2, 1, 2)
ONNXC_UKT_DEF(onnxc_ukt2_r2, 2, 2)
ONNXC_UKT_DEF(onnxc_ukt3_r2, 3, 2)
ONNXC_UKT_DEF(onnxc_ukt4_r2, 4, 2)
ONNXC_UKT_DEF(onnxc_ukt5_r2, 5, 2)
ONNXC_UKT_DEF(onnxc_ukt6_r2, 6, 2)
ONNXC_UKT_DEF(onnxc_ukt7_r2, 7, 2)
ONNXC_UKT_DEF(onnxc_ukt8_r2, 8, 2)
#endif

/* C (+)= the tile of 48 rows (mr of them stored) x nr <= 8 columns; then the epilogue e.  The
   AVX-512 kernel also prefetches into L2 one line at pf + k pfs per k (pfs may be 0). */
#if defined(ONNXC_AVX2)
/* k steps per block of onnxc_ukt's AVX2 form: the block's 48 x 64 panel rows (12 KiB) stay in L1
   across the column and row passes, which without blocks each streamed the whole panel from L2
   (1280 x 49 x 320 alone: 32.0 -> 38.0 flops per tick; 32 and 96: 37.4 and 38.0) */
#define ONNXC_UKT_KB 64
/* The sums of up to 8 columns of up to 48 rows (tt[column][48], rows in the lanes) to C's rows
   (row stride ldc, added to C's values when acc), then the epilogue (rows m0.., columns n0.. of
   the whole product): a per-row bias and an activation of onnxc_act8 on tt's vectors before the
   8 x 8 transposes (one call of onnxc_epi_tile per row cost as much as the sums on 7-column
   tiles), the others on C afterwards.  onnxc_ukt and onnxc_conv_t (conv.h). */
ONNXC_MAYBE_UNUSED static void onnxc_tt_store(float *tt, float *C, long ldc, int mr, int nr, int acc,
                                              const onnxc_epi *e, int m0, int n0) {
  /* (with acc, C's values come in after the transposes: the epilogue then runs on C) */
  const int fused = e && !acc && !e->res && !e->bias_cols && ONNXC_ACT8_OK(e->act);
  const __m256i cols = onnxc_mask8(nr);
  int j, l, i;
  for (l = 48 * nr; l < 8 * 48; l += 8) _mm256_storeu_ps(tt + l, _mm256_setzero_ps()); /* (transposed into lanes never stored) */
  if (fused)
    for (l = 0; l < mr; l += 8) {
      const __m256 bv = e->bias ? _mm256_maskload_ps(e->bias + m0 + l, onnxc_mask8(mr - l)) : _mm256_setzero_ps();
      for (j = 0; j < nr; j++)
        _mm256_storeu_ps(tt + 48 * j + l, onnxc_act8(_mm256_add_ps(_mm256_loadu_ps(tt + 48 * j + l), bv), e->act, e->alpha, e->beta));
    }
  for (l = 0; l < mr; l += 8) {
    __m256 r[8];
    for (i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(tt + 48 * i + l);
    onnxc_tr8(r);
    for (i = 0; i < 8 && l + i < mr; i++) {
      float *cp = C + (long)(l + i) * ldc;
      onnxc_storen8(cp, acc ? _mm256_add_ps(r[i], _mm256_maskload_ps(cp, cols)) : r[i], nr);
    }
  }
  if (e && !fused) onnxc_epi_tile(e, C, ldc, m0, mr, n0, nr);
}
#endif

ONNXC_MAYBE_UNUSED static void onnxc_ukt(int kc, const float *Q, const float *B, long ldb, float *C, long ldc, int mr,
                                         int nr, int acc, const onnxc_epi *e, int m0, int n0, const char *pf, long pfs,
                                         long qo, long qn) {
#if defined(ONNXC_AVX512)
  typedef void (*ukt_fn)(int, const float *, const float *, long, float *, long, int, int, const onnxc_epi *, int, int,
                         const char *, long, long, long);
  static const ukt_fn tab[3][8] = {
      {onnxc_ukt1_r1, onnxc_ukt2_r1, onnxc_ukt3_r1, onnxc_ukt4_r1, onnxc_ukt5_r1, onnxc_ukt6_r1, onnxc_ukt7_r1, onnxc_ukt8_r1},
      {onnxc_ukt1_r2, onnxc_ukt2_r2, onnxc_ukt3_r2, onnxc_ukt4_r2, onnxc_ukt5_r2, onnxc_ukt6_r2, onnxc_ukt7_r2, onnxc_ukt8_r2},
      {onnxc_ukt1, onnxc_ukt2, onnxc_ukt3, onnxc_ukt4, onnxc_ukt5, onnxc_ukt6, onnxc_ukt7, onnxc_ukt8}};
  /* row vectors: a last panel of <= 16 or <= 32 rows computes only those */
  tab[mr <= 16 ? 0 : mr <= 32 ? 1 : 2][nr < 1 ? 0 : nr > 8 ? 7 : nr - 1](kc, Q, B, ldb, C, ldc, mr, acc, e, m0, n0, pf,
                                                                          pfs, qo, qn);
#elif defined(ONNXC_AVX2)
  /* four columns and 24 of the panel's 48 rows at a time: 12 sums (a k step: three row vectors
     of the panel, four broadcasts, 12 FMAs), in k blocks of ONNXC_UKT_KB; the sums of up to 8
     columns go to a tile [column][48] on the stack (and come back from it for the next k block),
     then to C through onnxc_tt_store.  The first pass of each k block prefetches this tile's
     share of the next panel into L2, as the AVX-512 form does (EfficientNet-B0's 1152 -> 192 on
     7 x 7: 684k -> 645k TSC ticks) */
  float tt[8 * 48];
  const char *qb = e ? e->pf : (const char *)0;
  int j, k, h, k0;
  if (mr > 48) mr = 48;
  if (nr > 8) nr = 8; /* (onnxc_sgemm_t's tiles have at most 8 columns) */
  if (nr == 1) {
    /* one column (49 = 6 x 8 + 1): the panel's 48 rows at once, 6 sums (the four-column pass
       would compute it twice over four columns) */
    const float *q = Q;
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0;
    for (k = 0; k < kc; k++, q += 48) {
      const __m256 x = _mm256_broadcast_ss(B + (long)k * ldb);
      s0 = _mm256_fmadd_ps(_mm256_loadu_ps(q), x, s0), s1 = _mm256_fmadd_ps(_mm256_loadu_ps(q + 8), x, s1);
      s2 = _mm256_fmadd_ps(_mm256_loadu_ps(q + 16), x, s2), s3 = _mm256_fmadd_ps(_mm256_loadu_ps(q + 24), x, s3);
      s4 = _mm256_fmadd_ps(_mm256_loadu_ps(q + 32), x, s4), s5 = _mm256_fmadd_ps(_mm256_loadu_ps(q + 40), x, s5);
    }
    _mm256_storeu_ps(tt, s0), _mm256_storeu_ps(tt + 8, s1), _mm256_storeu_ps(tt + 16, s2);
    _mm256_storeu_ps(tt + 24, s3), _mm256_storeu_ps(tt + 32, s4), _mm256_storeu_ps(tt + 40, s5);
  } else
  for (k0 = 0; k0 < kc; k0 += ONNXC_UKT_KB)
  for (j = 0; j < nr; j += 4) {
    /* columns j..j+3; past nr, the last one again (computed, not stored) */
    const long d1 = j + 1 < nr ? 1 : 0, d2 = j + 2 < nr ? 2 : d1, d3 = j + 3 < nr ? 3 : d2;
    const int kn = kc - k0 < ONNXC_UKT_KB ? kc - k0 : ONNXC_UKT_KB;
    for (h = 0; h < mr; h += 24) {
      const float *q = Q + 48L * k0 + h, *b = B + (long)k0 * ldb + j;
      float *t = tt + 48 * j + h;
      const long ps = j == 0 && h == 0 ? pfs : 0; /* the first pass of a k block prefetches */
      const long qe = j == 0 && h == 0 ? qn : 0;  /* (both streams) */
      const char *pk = pf + (long)k0 * pfs;
      __m256 c00 = _mm256_setzero_ps(), c01 = c00, c02 = c00, c03 = c00, c10 = c00, c11 = c00, c12 = c00, c13 = c00;
      __m256 c20 = c00, c21 = c00, c22 = c00, c23 = c00;
      if (k0) {
        c00 = _mm256_loadu_ps(t), c10 = _mm256_loadu_ps(t + 8), c20 = _mm256_loadu_ps(t + 16);
        if (d1) c01 = _mm256_loadu_ps(t + 48), c11 = _mm256_loadu_ps(t + 56), c21 = _mm256_loadu_ps(t + 64);
        if (d2 == 2) c02 = _mm256_loadu_ps(t + 96), c12 = _mm256_loadu_ps(t + 104), c22 = _mm256_loadu_ps(t + 112);
        if (d3 == 3) c03 = _mm256_loadu_ps(t + 144), c13 = _mm256_loadu_ps(t + 152), c23 = _mm256_loadu_ps(t + 160);
      }
#define ONNXC_UKT_K3                                                                                    \
  _mm_prefetch(pk, _MM_HINT_T1);                                                                      \
  pk += ps;                                                                                           \
  ONNXC_PF_STEP(qb, qo, qe)                                                                           \
  __m256 w0 = _mm256_loadu_ps(q), w1 = _mm256_loadu_ps(q + 8), w2 = _mm256_loadu_ps(q + 16), x;       \
  ONNXC_INREG3(w0, w1, w2);                                                                           \
  x = _mm256_broadcast_ss(b);                                                                         \
  c00 = _mm256_fmadd_ps(w0, x, c00), c10 = _mm256_fmadd_ps(w1, x, c10), c20 = _mm256_fmadd_ps(w2, x, c20); \
  x = _mm256_broadcast_ss(b + d1);                                                                    \
  c01 = _mm256_fmadd_ps(w0, x, c01), c11 = _mm256_fmadd_ps(w1, x, c11), c21 = _mm256_fmadd_ps(w2, x, c21); \
  x = _mm256_broadcast_ss(b + d2);                                                                    \
  c02 = _mm256_fmadd_ps(w0, x, c02), c12 = _mm256_fmadd_ps(w1, x, c12), c22 = _mm256_fmadd_ps(w2, x, c22);
      if (d3 == 3)
        for (k = 0; k < kn; k++, q += 48, b += ldb) {
          ONNXC_UKT_K3
          x = _mm256_broadcast_ss(b + d3);
          c03 = _mm256_fmadd_ps(w0, x, c03), c13 = _mm256_fmadd_ps(w1, x, c13), c23 = _mm256_fmadd_ps(w2, x, c23);
        }
      else /* at most three columns left (7 = 4 + 3: the 7-column tiles of 7 x 7 planes) */
        for (k = 0; k < kn; k++, q += 48, b += ldb) {
          ONNXC_UKT_K3
        }
#undef ONNXC_UKT_K3
      {
        _mm256_storeu_ps(t, c00), _mm256_storeu_ps(t + 8, c10), _mm256_storeu_ps(t + 16, c20);
        if (d1) _mm256_storeu_ps(t + 48, c01), _mm256_storeu_ps(t + 56, c11), _mm256_storeu_ps(t + 64, c21);
        if (d2 == 2) _mm256_storeu_ps(t + 96, c02), _mm256_storeu_ps(t + 104, c12), _mm256_storeu_ps(t + 112, c22);
        if (d3 == 3) _mm256_storeu_ps(t + 144, c03), _mm256_storeu_ps(t + 152, c13), _mm256_storeu_ps(t + 160, c23);
      }
    }
  }
  ONNXC_PF_REST(qb, qo, qn)
  onnxc_tt_store(tt, C, ldc, mr, nr, acc, e, m0, n0);
#else
  float s0[48], s1[48];
  int j, k, l;
  (void)pf;
  (void)pfs;
  (void)qo;
  (void)qn;
  if (mr > 48) mr = 48;
  for (j = 0; j < nr; j += 2) {
    const int two = j + 1 < nr;
    const float *q = Q, *b = B + j;
    for (l = 0; l < 48; l++) s0[l] = s1[l] = 0.0f;
    for (k = 0; k < kc; k++, q += 48, b += ldb) {
      const float x0 = b[0], x1 = two ? b[1] : 0.0f;
      for (l = 0; l < 48; l++) {
        s0[l] += q[l] * x0;
        s1[l] += q[l] * x1;
      }
    }
    for (l = 0; l < mr; l++) {
      float *cp = C + (long)l * ldc + j;
      cp[0] = acc ? cp[0] + s0[l] : s0[l];
      if (two) cp[1] = acc ? cp[1] + s1[l] : s1[l];
    }
  }
  if (e) onnxc_epi_tile(e, C, ldc, m0, mr, n0, nr);
#endif
}

/* C = epilogue(A B), A^T packed in panels of 48 rows (above), B row-major (ldb), C row-major
   (ldc); e may be NULL.  The weights arrive from memory (each layer's are read once per
   inference): the first tile of a panel would stream them at more bytes per cycle than one
   core's memory bandwidth, so each tile of panel p prefetches its share of panel p + 1 into L2
   while it computes (a 320x960x49 product with cold caches: 313 -> 289 us). */
ONNXC_MAYBE_UNUSED static void onnxc_sgemm_t(int M, int N, int K, const float *Q, const float *B, long ldb, float *C,
                                             long ldc, const onnxc_epi *e) {
  const int nt = (N + 7) / 8;
  const long pfs = 48L * 4 / nt; /* bytes of the next panel per tile and k (the tiles cover at most it) */
  int p, t;
  for (p = 0; p < M; p += 48)
    for (t = 0; t < nt; t++) {
      const int j0 = (int)((long)N * t / nt), j1 = (int)((long)N * (t + 1) / nt);
      const char *pf = (const char *)(Q + (long)(p + 48 < M ? p + 48 : p) * K) + (p + 48 < M ? (long)t * pfs * K : 0);
      long qo, qn;
      onnxc_pf_lines(e, (long)(p / 48) * nt + t, (long)((M + 47) / 48) * nt, &qo, &qn);
      onnxc_ukt(K, Q + (long)p * K, B + j0, ldb, C + (long)p * ldc + j0, ldc, M - p < 48 ? M - p : 48, j1 - j0, 0, e,
                p, j0, pf, p + 48 < M ? pfs : 0, qo, qn);
    }
}

/* y[0..n) = softmax(x[0..n)) for a float row: max and exp-sum in vector lanes (onnxc_exp16,
   relative error ~2 ulp; the sum in 16 partial sums).  Returns 0, with y partly written, when
   the row needs the caller's scalar form: a NaN or an infinity makes some x - max unordered (or
   not a vector target). */
ONNXC_MAYBE_UNUSED static int onnxc_softmax_row(const float *x, float *y, int n) {
#if defined(ONNXC_AVX512)
  __m512 mv = _mm512_set1_ps(-INFINITY), sv = _mm512_setzero_ps(), m, s;
  __mmask16 bad = 0;
  int j;
  for (j = 0; j < n; j += 16) {
    const __mmask16 k = ONNXC_MASK16(n - j);
    mv = _mm512_mask_max_ps(mv, k, mv, _mm512_maskz_loadu_ps(k, x + j));
  }
  m = _mm512_set1_ps(_mm512_reduce_max_ps(mv));
  for (j = 0; j < n; j += 16) {
    const __mmask16 k = ONNXC_MASK16(n - j);
    const __m512 d = _mm512_sub_ps(_mm512_maskz_loadu_ps(k, x + j), m), t = onnxc_exp16(d);
    bad |= _mm512_mask_cmp_ps_mask(k, d, d, _CMP_UNORD_Q);
    sv = _mm512_mask_add_ps(sv, k, sv, t);
    _mm512_mask_storeu_ps(y + j, k, t);
  }
  if (bad) return 0;
  s = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(sv));
  for (j = 0; j < n; j += 16) {
    const __mmask16 k = ONNXC_MASK16(n - j);
    _mm512_mask_storeu_ps(y + j, k, _mm512_mul_ps(_mm512_maskz_loadu_ps(k, y + j), s));
  }
  return 1;
#elif defined(ONNXC_AVX2)
  /* (the partial last vector: masked loads; -inf into the max, nothing into the sum) */
  const __m256 ninf = _mm256_set1_ps(-INFINITY);
  __m256 mv = ninf, sv = _mm256_setzero_ps(), m, s, h;
  int j, bad = 0;
  float t8[8], sc;
  for (j = 0; j < n; j += 8) {
    const __m256i k = onnxc_mask8(n - j);
    mv = _mm256_max_ps(mv, _mm256_blendv_ps(ninf, _mm256_maskload_ps(x + j, k), _mm256_castsi256_ps(k)));
  }
  h = _mm256_max_ps(mv, _mm256_permute2f128_ps(mv, mv, 1));
  h = _mm256_max_ps(h, _mm256_permute_ps(h, 0x4e));
  m = _mm256_max_ps(h, _mm256_permute_ps(h, 0xb1));
  for (j = 0; j < n; j += 8) {
    const __m256i k = onnxc_mask8(n - j);
    const __m256 d = _mm256_sub_ps(_mm256_maskload_ps(x + j, k), m), t = _mm256_and_ps(onnxc_exp8(d), _mm256_castsi256_ps(k));
    bad |= _mm256_movemask_ps(_mm256_and_ps(_mm256_cmp_ps(d, d, _CMP_UNORD_Q), _mm256_castsi256_ps(k)));
    sv = _mm256_add_ps(sv, t);
    onnxc_storen8(y + j, t, n - j);
  }
  if (bad) return 0;
  _mm256_storeu_ps(t8, sv);
  sc = 1.0f / (((t8[0] + t8[1]) + (t8[2] + t8[3])) + ((t8[4] + t8[5]) + (t8[6] + t8[7])));
  s = _mm256_set1_ps(sc);
  for (j = 0; j + 8 <= n; j += 8) _mm256_storeu_ps(y + j, _mm256_mul_ps(_mm256_loadu_ps(y + j), s));
  for (; j < n; j++) y[j] *= sc;
  return 1;
#else
  (void)x;
  (void)y;
  (void)n;
  return 0;
#endif
}

/* The GEMV strip layout of a constant K x N matrix B (batch-1 fully connected layers and 1x1
   convolutions of 1x1 planes; optimize.c packs it): columns in strips of 128, strip s (width
   ws = min(128, N - 128 s)) stored row after row from P + 128 s K, B[k][128 s + j] at
   P[128 s K + k ws + j].  Each strip is one sequential stream, where the rows of a plain
   row-major B are K separate ones.  c = epilogue(a B) (a: K values, stride lda). */
ONNXC_MAYBE_UNUSED static void onnxc_sgemv_p(int N, int K, const float *a, long lda, const float *P, float *c,
                                             const onnxc_epi *e) {
  int n0, k;
  for (n0 = 0; n0 < N; n0 += 128) {
    const int ws = N - n0 < 128 ? N - n0 : 128;
    const float *b = P + (long)n0 * K;
#if defined(ONNXC_AVX512)
    const __mmask16 m0 = ONNXC_MASK16(ws), m1 = ONNXC_MASK16(ws - 16), m2 = ONNXC_MASK16(ws - 32), m3 = ONNXC_MASK16(ws - 48);
    const __mmask16 m4 = ONNXC_MASK16(ws - 64), m5 = ONNXC_MASK16(ws - 80), m6 = ONNXC_MASK16(ws - 96), m7 = ONNXC_MASK16(ws - 112);
    ONNXC_GEMV_OFFS(ws)
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
    if (ws == 128) {
      for (k = 0; k < K; k++, b += 128) {
        const __m512 x = _mm512_set1_ps(a[(long)k * lda]);
        ONNXC_PF(b, 1024, _MM_HINT_T0);
        ONNXC_PF(b, 1024 + 64, _MM_HINT_T0);
        s0 = _mm512_fmadd_ps(x, _mm512_loadu_ps(b), s0);
        s1 = _mm512_fmadd_ps(x, _mm512_loadu_ps(b + 16), s1);
        s2 = _mm512_fmadd_ps(x, _mm512_loadu_ps(b + 32), s2);
        s3 = _mm512_fmadd_ps(x, _mm512_loadu_ps(b + 48), s3);
        s4 = _mm512_fmadd_ps(x, _mm512_loadu_ps(b + 64), s4);
        s5 = _mm512_fmadd_ps(x, _mm512_loadu_ps(b + 80), s5);
        s6 = _mm512_fmadd_ps(x, _mm512_loadu_ps(b + 96), s6);
        s7 = _mm512_fmadd_ps(x, _mm512_loadu_ps(b + 112), s7);
      }
    } else {
      for (k = 0; k < K; k++, b += ws) {
        const __m512 x = _mm512_set1_ps(a[(long)k * lda]);
        ONNXC_GEMV_FMA8(x, b)
      }
    }
    _mm512_mask_storeu_ps(c + n0, m0, s0);
    _mm512_mask_storeu_ps(c + n0 + o1, m1, s1);
    _mm512_mask_storeu_ps(c + n0 + o2, m2, s2);
    _mm512_mask_storeu_ps(c + n0 + o3, m3, s3);
    _mm512_mask_storeu_ps(c + n0 + o4, m4, s4);
    _mm512_mask_storeu_ps(c + n0 + o5, m5, s5);
    _mm512_mask_storeu_ps(c + n0 + o6, m6, s6);
    _mm512_mask_storeu_ps(c + n0 + o7, m7, s7);
#elif defined(ONNXC_AVX2)
    int h;
    if (ws == 128) {
      /* whole 128-column rows per k (16 sums; the broadcast takes a 17th register, so one sum
         goes through memory): in two 64-column passes each k row was read half at a time, and
         a product streaming from L3 ran at 30 bytes per TSC tick against AVX-512's 38 (a
         1000 x 1280 classifier: 169k -> 139k ticks) */
      __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
      __m256 s8 = s0, s9 = s0, s10 = s0, s11 = s0, s12 = s0, s13 = s0, s14 = s0, s15 = s0;
      for (k = 0; k < K; k++, b += 128) {
        const __m256 x = _mm256_broadcast_ss(a + (long)k * lda);
        s0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b), s0);
        s1 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 8), s1);
        s2 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 16), s2);
        s3 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 24), s3);
        s4 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 32), s4);
        s5 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 40), s5);
        s6 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 48), s6);
        s7 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 56), s7);
        s8 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 64), s8);
        s9 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 72), s9);
        s10 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 80), s10);
        s11 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 88), s11);
        s12 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 96), s12);
        s13 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 104), s13);
        s14 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 112), s14);
        s15 = _mm256_fmadd_ps(x, _mm256_loadu_ps(b + 120), s15);
      }
      _mm256_storeu_ps(c + n0, s0), _mm256_storeu_ps(c + n0 + 8, s1), _mm256_storeu_ps(c + n0 + 16, s2);
      _mm256_storeu_ps(c + n0 + 24, s3), _mm256_storeu_ps(c + n0 + 32, s4), _mm256_storeu_ps(c + n0 + 40, s5);
      _mm256_storeu_ps(c + n0 + 48, s6), _mm256_storeu_ps(c + n0 + 56, s7), _mm256_storeu_ps(c + n0 + 64, s8);
      _mm256_storeu_ps(c + n0 + 72, s9), _mm256_storeu_ps(c + n0 + 80, s10), _mm256_storeu_ps(c + n0 + 88, s11);
      _mm256_storeu_ps(c + n0 + 96, s12), _mm256_storeu_ps(c + n0 + 104, s13), _mm256_storeu_ps(c + n0 + 112, s14);
      _mm256_storeu_ps(c + n0 + 120, s15);
      continue;
    }
    for (h = 0; h < ws; h += 64) { /* halves of 64 columns: 8 sums of 8 (16 registers) */
      const int w = ws - h < 64 ? ws - h : 64;
      const float *bh = b + h;
      __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
      if (w == 64)
        for (k = 0; k < K; k++, bh += ws) {
          const __m256 x = _mm256_broadcast_ss(a + (long)k * lda);
s0 = _mm256_fmadd_ps(x, _mm256_loadu_ps(bh), s0);
          s1 = _mm256_fmadd_ps(x, _mm256_loadu_ps(bh + 8), s1);
          s2 = _mm256_fmadd_ps(x, _mm256_loadu_ps(bh + 16), s2);
          s3 = _mm256_fmadd_ps(x, _mm256_loadu_ps(bh + 24), s3);
          s4 = _mm256_fmadd_ps(x, _mm256_loadu_ps(bh + 32), s4);
          s5 = _mm256_fmadd_ps(x, _mm256_loadu_ps(bh + 40), s5);
          s6 = _mm256_fmadd_ps(x, _mm256_loadu_ps(bh + 48), s6);
          s7 = _mm256_fmadd_ps(x, _mm256_loadu_ps(bh + 56), s7);
        }
      else { /* a narrow strip's last columns: vectors past them load nothing (masks) */
        const __m256i m0 = onnxc_mask8(w), m1 = onnxc_mask8(w - 8), m2 = onnxc_mask8(w - 16), m3 = onnxc_mask8(w - 24);
        const __m256i m4 = onnxc_mask8(w - 32), m5 = onnxc_mask8(w - 40), m6 = onnxc_mask8(w - 48), m7 = onnxc_mask8(w - 56);
        for (k = 0; k < K; k++, bh += ws) {
          const __m256 x = _mm256_broadcast_ss(a + (long)k * lda);
          s0 = _mm256_fmadd_ps(x, _mm256_maskload_ps(bh, m0), s0);
          s1 = _mm256_fmadd_ps(x, _mm256_maskload_ps((const float *)ONNXC_FAR(bh, 8), m1), s1);
          s2 = _mm256_fmadd_ps(x, _mm256_maskload_ps((const float *)ONNXC_FAR(bh, 16), m2), s2);
          s3 = _mm256_fmadd_ps(x, _mm256_maskload_ps((const float *)ONNXC_FAR(bh, 24), m3), s3);
          s4 = _mm256_fmadd_ps(x, _mm256_maskload_ps((const float *)ONNXC_FAR(bh, 32), m4), s4);
          s5 = _mm256_fmadd_ps(x, _mm256_maskload_ps((const float *)ONNXC_FAR(bh, 40), m5), s5);
          s6 = _mm256_fmadd_ps(x, _mm256_maskload_ps((const float *)ONNXC_FAR(bh, 48), m6), s6);
          s7 = _mm256_fmadd_ps(x, _mm256_maskload_ps((const float *)ONNXC_FAR(bh, 56), m7), s7);
        }
      }
      {
        float t[64];
        int j;
        _mm256_storeu_ps(t, s0), _mm256_storeu_ps(t + 8, s1), _mm256_storeu_ps(t + 16, s2), _mm256_storeu_ps(t + 24, s3);
        _mm256_storeu_ps(t + 32, s4), _mm256_storeu_ps(t + 40, s5), _mm256_storeu_ps(t + 48, s6), _mm256_storeu_ps(t + 56, s7);
        for (j = 0; j < w; j++) c[n0 + h + j] = t[j];
      }
    }
#elif defined(ONNXC_NEON)
    (void)k;
    onnxc_gemv4(ws, K, a, lda, b, ws, c + n0);
#else
    {
      float s[128];
      int j;
      for (j = 0; j < ws; j++) s[j] = 0.0f;
      for (k = 0; k < K; k++, b += ws) {
        const float x = a[(long)k * lda];
        for (j = 0; j < ws; j++) s[j] += x * b[j];
      }
      for (j = 0; j < ws; j++) c[n0 + j] = s[j];
    }
#endif
  }
  if (e) onnxc_epi_tile(e, c, N, 0, 1, 0, N);
}

#if defined(ONNXC_AVX512)
/* One float LSTM step of one batch row with the default activations (no clip, no coupled
   input/forget gate): pa = the gate pre-activations i, o, f, c (H each, x W^T + h R^T + biases),
   P = NULL or the peepholes i, o, f; c (cell state) and h are updated in place.  Sigmoid(x) =
   1 / onnxc_sigden16(x) and tanh(x) = 2 sigmoid(2x) - 1 (NaN stays NaN through onnxc_signum16),
   16 hidden units per vector: ops_seq.c's scalar loop (a degree-6 exponential per gate, written
   to auto-vectorize) took about as long as a 128 x 512 GEMV step from L2. */
ONNXC_MAYBE_UNUSED static void onnxc_lstm_cell16(const float *pa, const float *P, float *c, float *h, int H) {
  int j;
  for (j = 0; j < H; j += 16) {
    const __mmask16 k = ONNXC_MASK16(H - j);
    const __m512 cv = _mm512_maskz_loadu_ps(k, c + j);
    __m512 gi = _mm512_maskz_loadu_ps(k, pa + j), go = _mm512_maskz_loadu_ps(k, pa + H + j);
    __m512 gf = _mm512_maskz_loadu_ps(k, pa + 2 * H + j), cn;
    if (P) {
      gi = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, P + j), cv, gi);
      gf = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, P + 2 * H + j), cv, gf);
    }
    cn = _mm512_fmadd_ps(onnxc_sigm16(gf), cv,
                         _mm512_mul_ps(onnxc_sigm16(gi), onnxc_tanh16(_mm512_maskz_loadu_ps(k, pa + 3 * H + j))));
    _mm512_mask_storeu_ps(c + j, k, cn);
    if (P) go = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(k, P + H + j), cn, go);
    _mm512_mask_storeu_ps(h + j, k, _mm512_mul_ps(onnxc_sigm16(go), onnxc_tanh16(cn)));
  }
}
/* The same for the last gate loop of a float GRU step (default activations, no clip): pa = x W^T
   + Wb (z, r, h), pg = h R^T + Rb; with linear_before_reset (lbr) h~ = tanh(pa_h + r pg_h) with
   r = sigmoid(pa_r + pg_r), else h~ = tanh(pa_h + pg_h) (pg_h from r . h, ops_seq.c);
   h = (1 - z) h~ + z h. */
ONNXC_MAYBE_UNUSED static void onnxc_gru_cell16(const float *pa, const float *pg, float *h, int H, int lbr) {
  const __m512 one = _mm512_set1_ps(1.0f);
  int j;
  for (j = 0; j < H; j += 16) {
    const __mmask16 k = ONNXC_MASK16(H - j);
    const __m512 z = onnxc_sigm16(_mm512_add_ps(_mm512_maskz_loadu_ps(k, pa + j), _mm512_maskz_loadu_ps(k, pg + j)));
    const __m512 ph = _mm512_maskz_loadu_ps(k, pg + 2 * H + j), xh = _mm512_maskz_loadu_ps(k, pa + 2 * H + j);
    __m512 hh;
    if (lbr) {
      const __m512 r = onnxc_sigm16(_mm512_add_ps(_mm512_maskz_loadu_ps(k, pa + H + j), _mm512_maskz_loadu_ps(k, pg + H + j)));
      hh = onnxc_tanh16(_mm512_fmadd_ps(r, ph, xh));
    } else {
      hh = onnxc_tanh16(_mm512_add_ps(xh, ph));
    }
    _mm512_mask_storeu_ps(h + j, k, _mm512_add_ps(_mm512_mul_ps(_mm512_sub_ps(one, z), hh),
                                                  _mm512_mul_ps(z, _mm512_maskz_loadu_ps(k, h + j))));
  }
}
#endif

#if defined(ONNXC_AVX2)
/* onnxc_lstm_cell16 and onnxc_gru_cell16 on 8 lanes (AVX2): sigmoid(x) = 1 / onnxc_sigden8(x),
   tanh(x) = 2 sigmoid(2x) - 1, NaN kept (the numerator's clamp as onnxc_act8's).  The partial
   last vector: masked loads, stores of its lanes (onnxc_storen8). */
ONNXC_MAYBE_UNUSED static inline __m256 onnxc_sigm8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  return _mm256_div_ps(_mm256_max_ps(one, _mm256_min_ps(one, x)), onnxc_sigden8(x));
}
ONNXC_MAYBE_UNUSED static inline __m256 onnxc_tanh8(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f), t = _mm256_add_ps(x, x), n = _mm256_max_ps(one, _mm256_min_ps(one, t));
  return _mm256_sub_ps(_mm256_div_ps(_mm256_add_ps(n, n), onnxc_sigden8(t)), one);
}
ONNXC_MAYBE_UNUSED static void onnxc_lstm_cell8(const float *pa, const float *P, float *c, float *h, int H) {
  int j;
  for (j = 0; j < H; j += 8) {
    const __m256i k = onnxc_mask8(H - j);
    const __m256 cv = _mm256_maskload_ps(c + j, k);
    __m256 gi = _mm256_maskload_ps(pa + j, k), go = _mm256_maskload_ps(pa + H + j, k);
    __m256 gf = _mm256_maskload_ps(pa + 2 * H + j, k), cn;
    if (P) {
      gi = _mm256_fmadd_ps(_mm256_maskload_ps(P + j, k), cv, gi);
      gf = _mm256_fmadd_ps(_mm256_maskload_ps(P + 2 * H + j, k), cv, gf);
    }
    cn = _mm256_fmadd_ps(onnxc_sigm8(gf), cv, _mm256_mul_ps(onnxc_sigm8(gi), onnxc_tanh8(_mm256_maskload_ps(pa + 3 * H + j, k))));
    onnxc_storen8(c + j, cn, H - j);
    if (P) go = _mm256_fmadd_ps(_mm256_maskload_ps(P + H + j, k), cn, go);
    onnxc_storen8(h + j, _mm256_mul_ps(onnxc_sigm8(go), onnxc_tanh8(cn)), H - j);
  }
}
ONNXC_MAYBE_UNUSED static void onnxc_gru_cell8(const float *pa, const float *pg, float *h, int H, int lbr) {
  const __m256 one = _mm256_set1_ps(1.0f);
  int j;
  for (j = 0; j < H; j += 8) {
    const __m256i k = onnxc_mask8(H - j);
    const __m256 z = onnxc_sigm8(_mm256_add_ps(_mm256_maskload_ps(pa + j, k), _mm256_maskload_ps(pg + j, k)));
    const __m256 ph = _mm256_maskload_ps(pg + 2 * H + j, k), xh = _mm256_maskload_ps(pa + 2 * H + j, k);
    __m256 hh;
    if (lbr) {
      const __m256 r = onnxc_sigm8(_mm256_add_ps(_mm256_maskload_ps(pa + H + j, k), _mm256_maskload_ps(pg + H + j, k)));
      hh = onnxc_tanh8(_mm256_fmadd_ps(r, ph, xh));
    } else {
      hh = onnxc_tanh8(_mm256_add_ps(xh, ph));
    }
    onnxc_storen8(h + j, _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(one, z), hh), _mm256_mul_ps(z, _mm256_maskload_ps(h + j, k))),
                  H - j);
  }
}
#endif

/* A packed for onnxc_sgemm: k blocks of ONNXC_KC, each holding panels of 8 rows: with
   b = k / KC, kc = the block's length (KC, or what is left of K), Mp = M rounded up to 8,
   A(m,k) = P[b*KC*Mp + (m/8)*8*kc + 8*(k % KC) + m%8]; rows past M are zero.  Each block is one
   contiguous stream.  The compiler stores constant weights this way; this packs a run-time
   operand A(m,k) = src[m*rs + k*cs]. */
ONNXC_MAYBE_UNUSED static void onnxc_pack_a(int M, int K, const float *src, long rs, long cs, float *dst) {
  const int Mp = (M + 7) / 8 * 8;
  int k0, m, k, r;
  for (k0 = 0; k0 < K; k0 += ONNXC_KC) {
    const int kc = K - k0 < ONNXC_KC ? K - k0 : ONNXC_KC;
    float *blk = dst + (long)k0 * Mp;
    for (m = 0; m < M; m += 8)
      for (k = 0; k < kc; k++)
        for (r = 0; r < 8; r++)
          blk[(long)(m / 8) * 8 * kc + 8 * k + r] = m + r < M ? src[(long)(m + r) * rs + (long)(k0 + k) * cs] : 0.0f;
  }
}

/* One k block: C (+)= A B over kc steps (acc: add to C), then the epilogue when e is not NULL.
   A: the block's part of the packed panels (panel p at A + p * astride), B: kc rows. */
/* d[i] = s[2 i] for i < n (the im2col rows of stride-2 convolutions); reads s[0 .. 2n-2] only. */
ONNXC_MAYBE_UNUSED static void onnxc_gather_s2(float *d, const float *s, int n) {
  int i = 0;
#if defined(ONNXC_AVX512)
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  for (; i < n; i += 16) {
    const int m = 2 * (n - i) - 1; /* source elements still needed */
    const __m512 a = _mm512_maskz_loadu_ps(ONNXC_MASK16(m), s + 2 * i);
    const __m512 b = _mm512_maskz_loadu_ps(ONNXC_MASK16(m - 16), s + 2 * i + 16);
    _mm512_mask_storeu_ps(d + i, ONNXC_MASK16(n - i), _mm512_permutex2var_ps(a, even, b));
  }
#else
  for (; i < n; i++) d[i] = s[2 * i];
#endif
}

ONNXC_MAYBE_UNUSED static void onnxc_gemm_blk(int M, int N, int kc, const float *A, long astride, const float *B,
                                              long ldb, float *C, long ldc, int acc, const onnxc_epi *e) {
  /* strips of whole vectors, balanced (20 vectors: 3+3+3+3+3+3+2, not 3+...+3+2 or +1) */
  const int nv = (N + ONNXC_VL - 1) / ONNXC_VL, ns = (nv + ONNXC_NR / ONNXC_VL - 1) / (ONNXC_NR / ONNXC_VL);
  int s, m0;
  for (s = 0; s < ns; s++) {
    const int n0 = nv * s / ns * ONNXC_VL, n1 = nv * (s + 1) / ns * ONNXC_VL, nr = (n1 < N ? n1 : N) - n0;
    for (m0 = 0; m0 < M; m0 += ONNXC_MR) {
      const int mr = M - m0 < ONNXC_MR ? M - m0 : ONNXC_MR;
      /* software prefetch (the hardware prefetchers do not follow this many streams): the
         next strip of B with the first row panel, the next C tile with every panel */
      const float *pf = m0 == 0 && s + 1 < ns ? B + n1 : (const float *)0;
#if defined(ONNXC_AVX512)
      if (s + 1 < ns) {
        int r;
        for (r = 0; r < mr; r++) {
          const float *cp = C + (long)(m0 + r) * ldc + n1;
          _mm_prefetch((const char *)cp, _MM_HINT_T0);
          ONNXC_PF(cp, 16, _MM_HINT_T0);
          ONNXC_PF(cp, 32, _MM_HINT_T0);
        }
      }
#endif
      onnxc_pf_slice(e, (long)s * ((M + ONNXC_MR - 1) / ONNXC_MR) + m0 / ONNXC_MR, (long)ns * ((M + ONNXC_MR - 1) / ONNXC_MR));
      onnxc_uk(kc, A + (long)(m0 / 8) * astride + m0 % 8, B + n0, ldb, C + (long)m0 * ldc + n0, ldc, mr, nr, acc, e,
               m0, n0, pf);
    }
  }
}

/* C = epilogue(A B): A packed (onnxc_pack_a layout; for M = 1 a plain vector, stride lda),
   B row-major (ldb), C row-major (ldc); e may be NULL. */
ONNXC_MAYBE_UNUSED static void onnxc_sgemm(int M, int N, int K, const float *A, long lda, const float *B, long ldb,
                                           float *C, long ldc, const onnxc_epi *e) {
  int k0;
  if (M == 1) {
    onnxc_gemv(N, K, A, lda, B, ldb, C);
    if (e) onnxc_epi_tile(e, C, ldc, 0, 1, 0, N);
    return;
  }
#if defined(ONNXC_HAVE_SGEMM_CT)
  if (N % 16 && N % 16 <= 8 && M >= 16) {
    /* the last few columns with rows in the lanes; the rest in whole vectors (below) */
    const int t = N % 16;
    onnxc_sgemm_ct(M, K, N - t, t, A, B, ldb, C, ldc, e);
    N -= t;
    if (!N) return;
  }
#endif
#if defined(ONNXC_HAVE_SGEMM_KK)
  /* few row panels (the projections of inverted-residual blocks); with many (the Winograd
     products of ResNet-18: M = 256, 512) an L1-resident B strip per k block measured faster */
  if (K > ONNXC_KC && M <= 192) {
    onnxc_sgemm_kk(M, N, K, A, B, ldb, C, ldc, e);
    return;
  }
#endif
  for (k0 = 0; k0 < K; k0 += ONNXC_KC) {
    const int kc = K - k0 < ONNXC_KC ? K - k0 : ONNXC_KC;
    onnxc_gemm_blk(M, N, kc, A + (long)k0 * ((M + 7) / 8 * 8), 8L * kc, B + (long)k0 * ldb, ldb, C, ldc, k0 > 0,
                   k0 + kc >= K ? e : 0);
  }
}

/* Rows [m0, m1) (m0 a multiple of 8) of C = epilogue(A B), A packed for M rows (onnxc_pack_a
   layout), through the k-blocked strips of onnxc_gemm_blk. */
ONNXC_MAYBE_UNUSED static void onnxc_sgemm_mrows(int M, int m0, int m1, int N, int K, const float *A, const float *B,
                                                 long ldb, float *C, long ldc, const onnxc_epi *e) {
  const long Mp = (M + 7) / 8 * 8;
  onnxc_epi es = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
  int k0;
  if (e) es = onnxc_epi_at(e, m0, 0);
  for (k0 = 0; k0 < K; k0 += ONNXC_KC) {
    const int kc = K - k0 < ONNXC_KC ? K - k0 : ONNXC_KC;
    onnxc_gemm_blk(m1 - m0, N, kc, A + (long)k0 * Mp + (long)m0 * kc, 8L * kc, B + (long)k0 * ldb, ldb, C + (long)m0 * ldc,
                   ldc, k0 > 0, k0 + kc >= K && e ? &es : (const onnxc_epi *)0);
  }
}

/* C (+)= A B for one 8-row panel of A packed on the stack (ap[8 k + r], rows m0 .. m0+mr, k
   block k0 .. k0+kc), over every strip of B; the epilogue e when this is the last k block. */
ONNXC_MAYBE_UNUSED static void onnxc_gemm_panel(const float *ap, int m0, int mr, int k0, int kc, int N, const float *B,
                                                long ldb, float *C, long ldc, const onnxc_epi *e) {
  const int nv = (N + ONNXC_VL - 1) / ONNXC_VL, ns = (nv + ONNXC_NR / ONNXC_VL - 1) / (ONNXC_NR / ONNXC_VL);
  int s, mm;
  for (s = 0; s < ns; s++) {
    const int n0 = nv * s / ns * ONNXC_VL, n1 = nv * (s + 1) / ns * ONNXC_VL, nr = (n1 < N ? n1 : N) - n0;
    for (mm = 0; mm < mr; mm += ONNXC_MR)
      onnxc_uk(kc, ap + mm, B + (long)k0 * ldb + n0, ldb, C + (long)(m0 + mm) * ldc + n0, ldc,
               mr - mm < ONNXC_MR ? mr - mm : ONNXC_MR, nr, k0 > 0, e, m0 + mm, n0, (const float *)0);
  }
}

/* C = epilogue(A B) for a run-time A(m,k) = A[m*rs + k*cs] (no scratch: each 8-row panel's k
   block is packed into a 4 KiB stack buffer, then multiplied by every strip of B). */
ONNXC_MAYBE_UNUSED static void onnxc_sgemm_a(int M, int N, int K, const float *A, long rs, long cs, const float *B,
                                             long ldb, float *C, long ldc, const onnxc_epi *e) {
  float ap[8 * ONNXC_KC];
  int m0, k0, k, r;
  if (M == 1) {
    onnxc_gemv(N, K, A, cs, B, ldb, C);
    if (e) onnxc_epi_tile(e, C, ldc, 0, 1, 0, N);
    return;
  }
  for (m0 = 0; m0 < M; m0 += 8) {
    const int mr = M - m0 < 8 ? M - m0 : 8;
    for (k0 = 0; k0 < K; k0 += ONNXC_KC) {
      const int kc = K - k0 < ONNXC_KC ? K - k0 : ONNXC_KC;
      for (k = 0; k < kc; k++)
        for (r = 0; r < 8; r++) ap[8 * k + r] = r < mr ? A[(long)(m0 + r) * rs + (long)(k0 + k) * cs] : 0.0f;
      onnxc_gemm_panel(ap, m0, mr, k0, kc, N, B, ldb, C, ldc, k0 + kc >= K ? e : (const onnxc_epi *)0);
    }
  }
}

/* d = P diag(s): A packed (onnxc_pack_a layout, M x K) with column k scaled by s[k] -- the
   channel scale of a squeeze-and-excitation block folded into the next 1x1 convolution's
   weights (M K multiplies instead of the scaled tensor's K N). */
ONNXC_MAYBE_UNUSED static void onnxc_scale_cols(int M, int K, const float *P, const float *s, float *d) {
  const int Mp = (M + 7) / 8 * 8;
  int k0, p, k, r;
  for (k0 = 0; k0 < K; k0 += ONNXC_KC) {
    const int kc = K - k0 < ONNXC_KC ? K - k0 : ONNXC_KC;
    const long b = (long)k0 * Mp;
    for (p = 0; p < Mp / 8; p++)
      for (k = 0; k < kc; k++) {
        const float sk = s[k0 + k];
        const long o = b + (long)p * 8 * kc + 8L * k;
        for (r = 0; r < 8; r++) d[o + r] = P[o + r] * sk;
      }
  }
}

/* C = epilogue(A diag(s) B), A packed: onnxc_scale_cols one panel's k block at a time on the
   stack, where the plan has no room for the whole scaled copy (B is then read once per panel). */
ONNXC_MAYBE_UNUSED static void onnxc_sgemm_cs(int M, int N, int K, const float *P, const float *s, const float *B, long ldb,
                                              float *C, long ldc, const onnxc_epi *e) {
  float ap[8 * ONNXC_KC];
  const int Mp = (M + 7) / 8 * 8;
  int m0, k0, k, r;
  for (m0 = 0; m0 < M; m0 += 8) {
    const int mr = M - m0 < 8 ? M - m0 : 8;
    for (k0 = 0; k0 < K; k0 += ONNXC_KC) {
      const int kc = K - k0 < ONNXC_KC ? K - k0 : ONNXC_KC;
      const float *pp = P + (long)k0 * Mp + (long)(m0 / 8) * 8 * kc;
      for (k = 0; k < kc; k++)
        for (r = 0; r < 8; r++) ap[8 * k + r] = pp[8 * k + r] * s[k0 + k];
      onnxc_gemm_panel(ap, m0, mr, k0, kc, N, B, ldb, C, ldc, k0 + kc >= K ? e : (const onnxc_epi *)0);
    }
  }
}

