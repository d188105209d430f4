/* ---- conv.h: convolution and pooling kernels that need no scratch (after gemm.h) -------------
   onnxc_conv_same: a stride-1 2-D convolution whose output has its input's size ("same"
   padding; 1-D as H = 1).  Output pixel j = oh*W + ow reads input j + (kh*DH - PH)*W +
   (kw*DW - PW) at tap (kh, kw): a constant shift per tap, so the B operand of the product
   W[M][C*KH*KW] x im2col is read straight from the input, one shifted row per (c, tap), with
   the lanes that fall in the padding masked off (implicit GEMM: no im2col buffer).  The
   weights are packed like onnxc_pack_a.  AVX-512 runs the 8 x 48 micro-kernel on it; the
   portable form accumulates output rows per filter tap.
   onnxc_dw2d: depthwise 2-D convolution (one input channel per output channel), any stride,
   padding and dilation.  AVX-512 forms, by shape: 3x3 stride 1 (rows of 16-column vectors,
   column masks only at the row ends; narrow planes as one flattened row with per-vector tap
   masks), 3x3 stride 2 (even/odd lanes of two loads), other kernels with stride 1 or 2 (rows,
   two output rows per weight broadcast), small "same" planes (flattened, mask table), else a
   ring of zero-padded input rows on the stack.  Software prefetches bring the rows ahead: the
   hardware prefetchers of the test machine do not follow these many-stream NCHW patterns.
   AArch64 NEON: 3x3 with stride 1 or 2 across (rows of 4-column vectors, stride 2 by vld2q;
   scalar columns at the edges); other shapes take the portable loops.
   onnxc_wino23 / onnxc_wino43: Winograd F(2x2,3x3) / F(4x4,3x3) for 3x3 stride-1 pad-1
   convolutions (see below); onnxc_wino_direct: the same without transform scratch.
   onnxc_conv_sc (AVX-512, AVX2): direct convolution of few input channels (stems), the input rows
   split by column phase into a band buffer so that every tap is a vector load.
   onnxc_dwb16 (AVX-512): one band of a DwBlock (1x1 expansion + depthwise) with the expanded
   tensor in channel lanes, never transposed (below); onnxc_dwb8 the same on AVX2.
   onnxc_maxpool2d: 2-D max pooling, rows of 16 outputs. */
#define ONNXC_KPMAX 49
#define ONNXC_HAVE_DW2D 1 /* par.h: onnxc_dw2d_par, onnxc_wino_par, onnxc_conv_sc_par, onnxc_conv_t_par */

/* Lanes i < n of output pixels j0 + i (rows of W) whose input pixel at offset (dh, dw) lies in
   the H x W input. */
ONNXC_MAYBE_UNUSED static unsigned onnxc_tapmask(int j0, int n, int W, int H, int dh, int dw) {
  unsigned m = 0;
  int oh = j0 / W, ow = j0 % W, i = 0;
  while (i < n) {
    const int run = W - ow < n - i ? W - ow : n - i;
    if (oh + dh >= 0 && oh + dh < H) {
      int lo = -dw - ow, hi = W - dw - ow;
      if (lo < 0) lo = 0;
      if (hi > run) hi = run;
      if (hi > lo) m |= (((1u << (hi - lo)) - 1u) << lo) << i;
    }
    i += run;
    ow = 0;
    oh++;
  }
  return m;
}

#if defined(ONNXC_AVX512)
#define ONNXC_BX1 const float *bp_ = X + sh[t]; const __mmask16 *mt_ = mk + 3 * t; ONNXC_B1(bp_, mt_[0])
#define ONNXC_BX2 const float *bp_ = X + sh[t]; const __mmask16 *mt_ = mk + 3 * t; ONNXC_B2(bp_, mt_[0], mt_[1])
#define ONNXC_BX3 const float *bp_ = X + sh[t]; const __mmask16 *mt_ = mk + 3 * t; ONNXC_B3(bp_, mt_[0], mt_[1], mt_[2])
/* k steps run over (c, tap) from channel base X and tap t: B row = X + sh[t], masks mk[3t..] */
#define ONNXC_UKX_DEF(NAME, NV)                                                                             \
  ONNXC_MAYBE_UNUSED static void NAME(int kc, const float *A, const float *X, long HW, int t, int KP,       \
                                      const int *sh, const __mmask16 *mk, float *C, long ldc, int mr,       \
                                      int nr, int acc, const onnxc_epi *e, int m0, int n0, const float *pf) { \
    ONNXC_K##NV                                                                                             \
    ONNXC_ROWS8(ONNXC_D##NV)                                                                                \
    int k;                                                                                                  \
    for (k = 0; k < kc; k++) {                                                                              \
      ONNXC_BX##NV                                                                                          \
      ONNXC_ROWS8(ONNXC_F##NV)                                                                              \
      if (pf) {                                                                                             \
        ONNXC_PF(pf, sh[t], _MM_HINT_T0);                                                                   \
        ONNXC_PF(pf, sh[t] + 16, _MM_HINT_T0);                                                              \
        ONNXC_PF(pf, sh[t] + 32, _MM_HINT_T0);                                                              \
      }                                                                                                     \
      A += 8;                                                                                               \
      if (++t == KP) {                                                                                      \
        t = 0;                                                                                              \
        X += HW;                                                                                            \
        if (pf) pf += HW;                                                                                   \
      }                                                                                                     \
    }                                                                                                       \
    ONNXC_EV                                                                                                \
    ONNXC_ROWS8(ONNXC_S##NV)                                                                                \
  }
ONNXC_UKX_DEF(onnxc_ukx1, 1)
ONNXC_UKX_DEF(onnxc_ukx2, 2)
ONNXC_UKX_DEF(onnxc_ukx3, 3)
#endif

#if defined(ONNXC_AVX512)
/* part of parts of the strips of 48 output pixels (templates/par.h onnxc_conv_same_par) */
ONNXC_MAYBE_UNUSED static void onnxc_conv_same_r(int M, int C, int H, int W, int KH, int KW, int DH, int DW, int PH,
                                                 int PW, const float *x, const float *wp, float *y, const onnxc_epi *e,
                                                 int part, int parts) {
  const int N = H * W, KP = KH * KW, K = C * KP, Mp = (M + 7) / 8 * 8;
  int sh[ONNXC_KPMAX];
  __mmask16 mk[3 * ONNXC_KPMAX];
  const int nv = (N + 15) / 16, ns = (nv + 2) / 3, s1 = (int)((long)ns * (part + 1) / parts);
  int s, t, k0, m0, v;
  for (s = (int)((long)ns * part / parts); s < s1; s++) {
    const int n0 = nv * s / ns * 16, n1 = nv * (s + 1) / ns * 16, nr = (n1 < N ? n1 : N) - n0;
    for (t = 0; t < KP; t++) {
      const int dh = t / KW * DH - PH, dw = t % KW * DW - PW;
      sh[t] = dh * W + dw;
      for (v = 0; v < 3; v++)
        mk[3 * t + v] = nr > 16 * v ? (__mmask16)onnxc_tapmask(n0 + 16 * v, nr - 16 * v < 16 ? nr - 16 * v : 16, W, H, dh, dw) : 0;
    }
    for (k0 = 0; k0 < K; k0 += ONNXC_KC) {
      const int kc = K - k0 < ONNXC_KC ? K - k0 : ONNXC_KC, last = k0 + kc >= K;
      const float *ab = wp + (long)k0 * Mp, *xb = x + (long)(k0 / KP) * N + n0;
      for (m0 = 0; m0 < M; m0 += 8) {
        const int mr = M - m0 < 8 ? M - m0 : 8;
        const float *ap = ab + (long)(m0 / 8) * 8 * kc;
        float *cp = y + (long)m0 * N + n0;
        const onnxc_epi *ee = last ? e : (const onnxc_epi *)0;
        const float *pf = m0 == 0 && s + 1 < ns ? xb + (n1 - n0) : (const float *)0;
        if (nr > 32) onnxc_ukx3(kc, ap, xb, N, k0 % KP, KP, sh, mk, cp, N, mr, nr, k0 > 0, ee, m0, n0, pf);
        else if (nr > 16) onnxc_ukx2(kc, ap, xb, N, k0 % KP, KP, sh, mk, cp, N, mr, nr, k0 > 0, ee, m0, n0, pf);
        else onnxc_ukx1(kc, ap, xb, N, k0 % KP, KP, sh, mk, cp, N, mr, nr, k0 > 0, ee, m0, n0, pf);
      }
    }
  }
}
#endif

ONNXC_MAYBE_UNUSED static void onnxc_conv_same(int M, int C, int H, int W, int KH, int KW, int DH, int DW, int PH,
                                               int PW, const float *x, const float *wp, float *y, const onnxc_epi *e) {
  const int N = H * W, KP = KH * KW, K = C * KP, Mp = (M + 7) / 8 * 8;
#if defined(ONNXC_AVX512)
  (void)N, (void)KP, (void)K, (void)Mp;
  onnxc_conv_same_r(M, C, H, W, KH, KW, DH, DW, PH, PW, x, wp, y, e, 0, 1);
#elif defined(ONNXC_NEON) || defined(ONNXC_AVX2)
  /* strips of ONNXC_NR output pixels (NEON 12, AVX2 24): per k block the strip's B rows (one per
     (c, tap): the input shifted by the tap, zero in the padding) are gathered into a panel on the
     stack, then every panel of filters runs the micro-kernel on it (AVX2: the portable loops
     took ResNet-8's 3 -> 16 stem 112k TSC ticks) */
  float bb[ONNXC_KC * ONNXC_NR];
  /* tap t, column j: input pixel or -1; run: per vector of ONNXC_VL columns, all valid and
     contiguous (one copy of a constant size, which the compilers inline as a vector move: the
     offsets by division and a memcpy call per row cost more than the products, ResNet-8's stem
     81k TSC ticks) */
  int off[ONNXC_KPMAX * ONNXC_NR], run[ONNXC_KPMAX * (ONNXC_NR / ONNXC_VL)];
  int n0, t, j, k0, m0;
  for (n0 = 0; n0 < N; n0 += ONNXC_NR) {
    const int nr = N - n0 < ONNXC_NR ? N - n0 : ONNXC_NR, w = (nr + ONNXC_VL - 1) / ONNXC_VL * ONNXC_VL;
    for (t = 0; t < KP; t++) {
      const int dh = t / KW * DH - PH, dw = t % KW * DW - PW;
      int oh0 = n0 / W, ow0 = n0 % W;
      for (j = 0; j < w; j += ONNXC_VL) {
        /* the vector's columns in one row, all inside the input: one copy from off[j] */
        int *o = off + t * ONNXC_NR + j, i, oh = oh0, ow = ow0;
        const int r = j + ONNXC_VL <= nr && ow0 + ONNXC_VL <= W && oh0 + dh >= 0 && oh0 + dh < H && ow0 + dw >= 0 &&
                      ow0 + ONNXC_VL - 1 + dw < W;
        run[t * (ONNXC_NR / ONNXC_VL) + j / ONNXC_VL] = r;
        if (r) o[0] = n0 + j + dh * W + dw;
        else
          for (i = 0; i < ONNXC_VL; i++) {
            o[i] = j + i < nr && oh + dh >= 0 && oh + dh < H && ow + dw >= 0 && ow + dw < W ? n0 + j + i + dh * W + dw : -1;
            if (++ow == W) {
              ow = 0;
              oh++;
            }
          }
        ow0 += ONNXC_VL; /* the next vector's first column */
        while (ow0 >= W) {
          ow0 -= W;
          oh0++;
        }
      }
    }
    for (k0 = 0; k0 < K; k0 += ONNXC_KC) {
      const int kc = K - k0 < ONNXC_KC ? K - k0 : ONNXC_KC;
      int k;
      for (k = 0; k < kc; k++) {
        const int c = (k0 + k) / KP, tk = (k0 + k) % KP;
        const float *xc = x + (long)c * N;
        const int *o = off + tk * ONNXC_NR, *rv = run + tk * (ONNXC_NR / ONNXC_VL);
        float *b = bb + k * w;
        for (j = 0; j < w; j += ONNXC_VL)
          if (rv[j / ONNXC_VL])
            memcpy(b + j, xc + o[j], sizeof(float) * ONNXC_VL);
          else {
            int i;
            for (i = j; i < j + ONNXC_VL; i++) b[i] = o[i] >= 0 ? xc[o[i]] : 0.0f;
          }
      }
#if defined(ONNXC_NEON)
      for (m0 = 0; m0 < M; m0 += 8)
        onnxc_uk_w(kc, wp + (long)k0 * Mp + (long)(m0 / 8) * 8 * kc, bb, w, y + (long)m0 * N + n0, N,
                   M - m0 < 8 ? M - m0 : 8, nr, k0 > 0, k0 + kc >= K ? e : (const onnxc_epi *)0, m0, n0);
#else
      for (m0 = 0; m0 < M; m0 += ONNXC_MR) /* (4 rows of the packed panels of 8) */
        onnxc_uk(kc, wp + (long)k0 * Mp + (long)(m0 / 8) * 8 * kc + m0 % 8, bb, w, y + (long)m0 * N + n0, N,
                 M - m0 < ONNXC_MR ? M - m0 : ONNXC_MR, nr, k0 > 0, k0 + kc >= K ? e : (const onnxc_epi *)0, m0, n0,
                 (const float *)0);
#endif
    }
  }
#else
  int m, c, t, oh, ow;
  for (m = 0; m < M; m++) {
    float *ym = y + (long)m * N;
    for (ow = 0; ow < N; ow++) ym[ow] = 0.0f;
    for (c = 0; c < C; c++) {
      const float *xc = x + (long)c * N;
      for (t = 0; t < KP; t++) {
        const int k = c * KP + t, b = k / ONNXC_KC * ONNXC_KC, bl = K - b < ONNXC_KC ? K - b : ONNXC_KC;
        const float wv = wp[(long)b * Mp + (long)(m / 8) * 8 * bl + (k - b) * 8 + m % 8];
        const int dh = t / KW * DH - PH, dw = t % KW * DW - PW;
        const int lo = dw < 0 ? -dw : 0, hi = dw > 0 ? W - dw : W;
        for (oh = 0; oh < H; oh++) {
          const float *xr;
          float *yr = ym + (long)oh * W;
          if (oh + dh < 0 || oh + dh >= H) continue;
          xr = xc + (long)(oh + dh) * W + dw;
          for (ow = lo; ow < hi; ow++) yr[ow] += wv * xr[ow];
        }
      }
    }
    if (e) onnxc_epi_tile(e, ym, N, m, 1, 0, N);
  }
#endif
}

/* Depthwise: y[oc] = conv(x[oc / mult], w[oc]) for oc < CO output planes; e per output plane
   (its row m = oc, columns = the plane's pixels). */
#if defined(ONNXC_AVX2)
#define ONNXC_DW8_BUF 16384 /* floats of onnxc_dw2d's padded plane on the stack (64 KiB) */
#endif
#if defined(ONNXC_AVX512)
#define ONNXC_DWBUF 6144 /* floats of the row ring on the stack (24 KiB) */
#endif

#if defined(ONNXC_AVX512)
/* Writes the n <= 16 pixels p0.. held in st (st[i] = pixel p0 + i, lane c = channel c0 + c) to
   the nc output planes y + c * OHW, through the epilogue: without a residual or per-column bias,
   the bias and activation before the transpose (one vector per pixel: fewer than one per
   channel where the plane's last pixels are few, 49 = 3 x 16 + 1), and e->sum gets the pixels'
   sum in the lanes (a GlobalAveragePool for one add per pixel); else after it. */
ONNXC_MAYBE_UNUSED static void onnxc_dwc_flush(__m512 *st, long p0, int n, int nc, float *y, long OHW,
                                               const onnxc_epi *e, int c0) {
  const __mmask16 k = ONNXC_MASK16(n);
  int c, clamp = 0;
  __m512 lo = _mm512_setzero_ps(), hi = lo; /* set by onnxc_epi_simple where clamp is */
  if (e && !e->res && !e->bias_cols) {
    const __m512 bv = e->bias ? _mm512_maskz_loadu_ps(ONNXC_MASK16(nc), e->bias + c0) : _mm512_setzero_ps();
    const int simple = onnxc_epi_simple(e, &clamp, &lo, &hi), fast = onnxc_epi_fast(e);
    const __m512 al = _mm512_set1_ps(e->alpha), be = _mm512_set1_ps(e->beta);
    int i;
    if (e->act == ONNXC_ACT_SILU && n == 16) {
      /* unrolled: 16 independent SiLU chains that the compiler interleaves (in the loop below
         each waited on the last: 1152 x 7 x 7 5x5 with SiLU, alone, 56.0 -> 54.4 us) */
      __m512 t[16];
      ONNXC_UNROLL for (i = 0; i < 16; i++) t[i] = _mm512_add_ps(st[i], bv);
      ONNXC_UNROLL for (i = 0; i < 16; i++) st[i] = _mm512_div_ps(t[i], onnxc_sigden16(t[i]));
    } else
      for (i = 0; i < n; i++) {
        __m512 t = e->bias ? _mm512_add_ps(st[i], bv) : st[i];
        if (clamp) t = _mm512_min_ps(_mm512_max_ps(t, lo), hi);
        else if (fast) t = onnxc_fast16(t, fast, al, be);
        else if (!simple) t = onnxc_act16(t, e->act, e->alpha, e->beta);
        st[i] = t;
      }
    if (e->sum) {
      const __mmask16 kc = ONNXC_MASK16(nc);
      __m512 a = st[0], b = n > 1 ? st[1] : _mm512_setzero_ps();
      for (i = 2; i + 1 < n; i += 2) {
        a = _mm512_add_ps(a, st[i]);
        b = _mm512_add_ps(b, st[i + 1]);
      }
      if (i < n) a = _mm512_add_ps(a, st[i]);
      _mm512_mask_storeu_ps(e->sum + c0, kc, _mm512_add_ps(_mm512_maskz_loadu_ps(kc, e->sum + c0), _mm512_add_ps(a, b)));
    }
    onnxc_tr16(st);
    for (c = 0; c < nc; c++) _mm512_mask_storeu_ps(y + (long)c * OHW + p0, k, st[c]);
    return;
  }
  onnxc_tr16(st);
  if (e) {
    const onnxc_epi ev = *e; /* a local copy: the stores below cannot change it */
    for (c = 0; c < nc; c++) {
      const __m512 v = onnxc_epi16(&ev, st[c], k, c0 + c, (int)p0);
      _mm512_mask_storeu_ps(y + (long)c * OHW + p0, k, v);
      if (ev.sum) ev.sum[c0 + c] += _mm512_mask_reduce_add_ps(k, v);
    }
  } else {
    for (c = 0; c < nc; c++) _mm512_mask_storeu_ps(y + (long)c * OHW + p0, k, st[c]);
  }
}

/* The N results a_[] of pixels op.. into the staging tile, flushed per 16 pixels. */
#define ONNXC_DWC_STAGE(N)                                                                           \
  for (j_ = 0; j_ < N && op < OHW; j_++, op++) { /* (op < OHW holds: for GCC -Werror) */             \
    st[op & 15] = a_[j_];                                                                            \
    if ((op & 15) == 15 || op == OHW - 1)                                                            \
      onnxc_dwc_flush(st, op & ~15L, (int)(op & 15) + 1, nc, y + (long)c0 * ldy, ldy, e, c0);        \
  }
/* N consecutive output pixels op.. (flat, across rows: pixel q reads xt + o_[j]): a_j = sum
   over taps of the tap's 16 channel weights times the pixel's input vector; then into the
   staging tile, flushed per 16 pixels. */
#define ONNXC_DWC_PIECE(N)                                                                           \
  {                                                                                                  \
    __m512 a_[N];                                                                                    \
    long o_[N];                                                                                      \
    int j_, kh_, kw_;                                                                                \
    for (j_ = 0; j_ < N; j_++) {                                                                     \
      o_[j_] = (op + j_) / OW * SH * Wp + (op + j_) % OW * SW;                                       \
      a_[j_] = _mm512_setzero_ps();                                                                  \
    }                                                                                                \
    for (kh_ = 0; kh_ < KH; kh_++)                                                                   \
      for (kw_ = 0; kw_ < KW; kw_++) {                                                               \
        const __m512 wv_ = wt[kh_ * KW + kw_], *p_ = xt + (long)kh_ * DH * Wp + kw_ * DW;            \
        for (j_ = 0; j_ < N; j_++) a_[j_] = _mm512_fmadd_ps(wv_, p_[o_[j_]], a_[j_]);                \
      }                                                                                              \
    ONNXC_DWC_STAGE(N)                                                                               \
  }
/* The same for N outputs ow.. of output row oh of a square KW_ x KW_ kernel with the stride S_
   (both directions) as constants (dilation 1): the loads of a kernel row are p_[j S_ + kw], which
   the compiler shares between the outputs that read the same input column (stride 1: N + KW_ - 1
   loads instead of N KW_).  The taps are summed in the same (kh, kw) order. */
#define ONNXC_DWC_ROW(N, S_, KW_)                                                                    \
  {                                                                                                  \
    __m512 a_[N];                                                                                    \
    const __m512 *wb_ = wt; /* opaque: GCC kept a 5x5 kernel's 25 weight vectors across the loops   \
                               and spilled them with the inputs around every FMA (672 x 14 x 14,    \
                               5x5, alone: 124 -> 110 us) */                                        \
    int j_, kh_, kw_;                                                                                \
    ONNXC_OPAQUE(wb_);                                                                               \
    for (j_ = 0; j_ < N; j_++) a_[j_] = _mm512_setzero_ps();                                         \
    ONNXC_UNROLL for (kh_ = 0; kh_ < KW_; kh_++) {                                                   \
      const __m512 *p_ = xt + (long)(oh * S_ + kh_) * Wp + ow * S_, *w_ = wb_ + kh_ * KW_;           \
      ONNXC_UNROLL for (kw_ = 0; kw_ < KW_; kw_++)                                                   \
        ONNXC_UNROLL for (j_ = 0; j_ < N; j_++) a_[j_] = _mm512_fmadd_ps(w_[kw_], p_[j_ * S_ + kw_], a_[j_]); \
    }                                                                                                \
    ONNXC_DWC_STAGE(N)                                                                               \
    ow += N;                                                                                         \
  }
/* Rows of 7 (the last stage of the ImageNet models) as one piece each. */
#define ONNXC_DWC_ROWS7(S_, KW_)                                                                     \
  for (oh = 0; oh < OH; oh++) {                                                                      \
    ow = 0;                                                                                          \
    ONNXC_DWC_ROW(7, S_, KW_)                                                                        \
  }
/* One output row (OW >= 8) in ceil(OW / 8) pieces of balanced widths 4..8 (14 = 7 + 7): each
   piece keeps at least 4 independent sums in flight, where pieces of 8, 4, 2 left the last ones
   waiting on the FMA latency (672 x 14 x 14, 5x5, alone: 110 -> 97 us). */
#define ONNXC_DWC_ROWS(S_, KW_)                                                                      \
  for (oh = 0; oh < OH; oh++) {                                                                      \
    const int np_ = (OW + 7) / 8, wd_ = OW / np_, ex_ = OW % np_;                                    \
    int pc_;                                                                                         \
    ow = 0;                                                                                          \
    for (pc_ = 0; pc_ < np_; pc_++)                                                                  \
      switch (wd_ + (pc_ < ex_)) {                                                                   \
      case 8: ONNXC_DWC_ROW(8, S_, KW_) break;                                                       \
      case 7: ONNXC_DWC_ROW(7, S_, KW_) break;                                                       \
      case 6: ONNXC_DWC_ROW(6, S_, KW_) break;                                                       \
      case 5: ONNXC_DWC_ROW(5, S_, KW_) break;                                                       \
      default: ONNXC_DWC_ROW(4, S_, KW_) break;                                                      \
      }                                                                                              \
  }
#define ONNXC_DWC_PIX 1024 /* padded input pixels of the transposed plane buffer (64 KiB) */

/* One group of nc <= 16 depthwise channels c0.. from its input in channel lanes: xt is the
   zero-padded input ([rows][Wp] vectors, lane c = channel c0 + c; output pixel (oh, ow) reads
   xt[(oh SH + kh DH) Wp + ow SW + kw DW] at tap (kh, kw)), w the ONNX weights of all channels;
   the OH x OW outputs go to the planes y + (c0 + c) ldy through e (per channel c0 + c). */
ONNXC_MAYBE_UNUSED static void onnxc_dwc16_grp(const __m512 *xt, int Wp, const float *w, int c0, int nc, int KH,
                                               int KW, int SH, int SW, int DH, int DW, float *y, long ldy, int OH,
                                               int OW, const onnxc_epi *e) {
  const long OHW = (long)OH * OW;
  const int KP = KH * KW, sq = DH == 1 && DW == 1 && KH == KW && SH == SW;
  __m512 wt[ONNXC_KPMAX + 15], st[16];
  long op = 0;
  int c, t, oh, ow;
  /* a flush of fewer than 16 pixels transposes the stale rest (never stored); set once */
  for (c = 0; c < 16; c++) st[c] = _mm512_setzero_ps();
  for (t = 0; t < KP; t += 16) { /* taps t..t+15 of the group's weights, transposed */
    const __mmask16 k = ONNXC_MASK16(KP - t);
    for (c = 0; c < 16; c++)
      wt[t + c] = c < nc ? _mm512_maskz_loadu_ps(k, w + (long)(c0 + c) * KP + t) : _mm512_setzero_ps();
    onnxc_tr16(wt + t);
  }
  /* rows of 8 or more outputs: pieces within a row (narrower rows: pieces across rows) */
  if (sq && OW >= 8 && SW == 1 && KW == 3) ONNXC_DWC_ROWS(1, 3)
  else if (sq && OW >= 8 && SW == 1 && KW == 5) ONNXC_DWC_ROWS(1, 5)
  else if (sq && OW >= 8 && SW == 2 && KW == 3) ONNXC_DWC_ROWS(2, 3)
  else if (sq && OW >= 8 && SW == 2 && KW == 5) ONNXC_DWC_ROWS(2, 5)
  else if (sq && OW == 7 && SW == 1 && KW == 3) ONNXC_DWC_ROWS7(1, 3)
  else if (sq && OW == 7 && SW == 1 && KW == 5) ONNXC_DWC_ROWS7(1, 5)
  else if (sq && OW == 7 && SW == 2 && KW == 5) ONNXC_DWC_ROWS7(2, 5)
  else
    while (op < OHW) {
      const long left = OHW - op;
      if (left >= 8) ONNXC_DWC_PIECE(8)
      else if (left >= 4) ONNXC_DWC_PIECE(4)
      else if (left >= 2) ONNXC_DWC_PIECE(2)
      else ONNXC_DWC_PIECE(1)
    }
}

/* Depthwise (one input plane per mult output planes) with 16 channels in the vector lanes: per group
   of 16 channels the input planes are transposed into a zero-padded [Hp][Wp][16] buffer, so
   every tap of every output pixel is one unmasked load and one FMA for 16 channels (no masks, no
   even/odd shuffles for strides); results go back to planes through a 16 x 16 transpose.  For
   planes with Hp * Wp <= ONNXC_DWC_PIX and KH * KW <= ONNXC_KPMAX. */
ONNXC_MAYBE_UNUSED static void onnxc_dwc16(int CO, int mult, const float *x, int IH, int IW, const float *w, int KH,
                                           int KW, int SH, int SW, int PH, int PW, int DH, int DW, float *y, int OH,
                                           int OW, const onnxc_epi *e) {
  const int Hr = (OH - 1) * SH + (KH - 1) * DH + 1, Wr = (OW - 1) * SW + (KW - 1) * DW + 1;
  const int Hp = Hr > PH + IH ? Hr : PH + IH, Wp = Wr > PW + IW ? Wr : PW + IW;
  const long IHW = (long)IH * IW;
  __m512 xt[ONNXC_DWC_PIX], st[16];
  int c0, i;
  /* the padding; the inside is rewritten per group (Hp Wp <= ONNXC_DWC_PIX is the caller's
     condition; the bound tells the compiler too) */
  for (i = 0; i < Hp * Wp && i < ONNXC_DWC_PIX; i++) xt[i] = _mm512_setzero_ps();
  for (c0 = 0; c0 < CO; c0 += 16) {
    const int nc = CO - c0 < 16 ? CO - c0 : 16;
    long p0;
    int c, h = 0, ww = 0;
    for (p0 = 0; p0 < IHW; p0 += 16) { /* the group's input planes, 16 pixels at a time */
      const int n = IHW - p0 < 16 ? (int)(IHW - p0) : 16;
      const __mmask16 k = ONNXC_MASK16(n);
      for (c = 0; c < 16; c++)
        st[c] = c < nc ? _mm512_maskz_loadu_ps(k, x + (long)((c0 + c) / mult) * IHW + p0) : _mm512_setzero_ps();
      onnxc_tr16(st);
      for (i = 0; i < n; i++) {
        xt[(h + PH) * Wp + ww + PW] = st[i];
        if (++ww == IW) {
          ww = 0;
          h++;
        }
      }
    }
    onnxc_dwc16_grp(xt, Wp, w, c0, nc, KH, KW, SH, SW, DH, DW, y, (long)OH * OW, OH, OW, e);
  }
}
#endif

/* ---- DwBlock bands with the expanded tensor in channel lanes ---------------------------------
   onnxc_dwb16: one band of a DwBlock (compiler/ops_fused.c) whose expansion writes its output
   straight into the zero-padded channel-lanes window that the depthwise taps read (the layout of
   onnxc_dwc16), so that neither side transposes the expanded tensor and every depthwise tap is
   one aligned load.  Per group g of 16 channels c0 = 16 g..: the group's window s1 + g * rows *
   Wp * 16 (rows input rows top.., Wp padded columns, pixel (j, PW + iw) at (j Wp + PW + iw) * 16,
   lane l = channel c0 + l) keeps its first j0 rows from the previous band (moved up by shift
   rows), gets rows j0.. from the expansion (act(bias + sum_k A[c0 + l][k] x[k][ih][iw]), A in the
   packed panels of onnxc_sgemm, rows outside the image zero), and the depthwise
   convolution (ONNX weights w) of the window writes on x OW outputs to the planes y + c * ldy
   through ed.  With shared, one band covers the plane (j0 = 0) and the groups take turns in one
   window at s1 (small planes: it stays in L1).  s1 is aligned here to 64 bytes (the caller's
   scratch has 64 bytes to spare). */
#define ONNXC_DWB_ALIGN(p) ((float *)(void *)((char *)(p) + ((64 - (uintptr_t)(p) % 64) % 64)))
#define ONNXC_DWB_KMAX 512 /* input channels of the lanes form (its weight table on the stack) */
/* ONNXC_PWL / ONNXC_PWL8: STMT on the NG groups' vectors dst[o_] of the N pixels from (r0_, c0_) */
#define ONNXC_PWL_EACH(N, NG, STMT)                                                                  \
  {                                                                                                  \
    int r_ = r0_, c_ = c0_;                                                                          \
    ONNXC_UNROLL for (i = 0; i < N; i++) {                                                           \
      ONNXC_UNROLL for (g = 0; g < NG; g++) {                                                        \
        const long o_ = g * dgs + (long)r_ * Wp + c_;                                                \
        STMT;                                                                                        \
      }                                                                                              \
      if (++c_ == IW) {                                                                              \
        c_ = 0;                                                                                      \
        r_++;                                                                                        \
      }                                                                                              \
    }                                                                                                \
  }
#if defined(ONNXC_AVX512)
/* The activation of ea on N pixels of NG groups already stored at dst (from pixel (row, col);
   see onnxc_pwl16_gNG): for the activations other than Relu and Clip (SiLU, HardSwish, ...), in
   a pass of its own over the vectors just stored, so that the pixel blocks do not carry the
   whole general epilogue inline per vector (its switch compiled to a jump table with spills,
   and per block size and group count it was 130 KiB of code in MobileNetV2). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
ONNXC_MAYBE_UNUSED static void onnxc_pwl16_act(const onnxc_epi *ea, __m512 *dst, long dgs, int NG, int row, int col,
                                               int N, int IW, int Wp) {
  const onnxc_epi el = *ea;
  const __m512 al = _mm512_set1_ps(el.alpha), be = _mm512_set1_ps(el.beta);
  const int fast = onnxc_epi_fast(&el);
  int i, g;
  for (i = 0; i < N; i++) {
    for (g = 0; g < NG; g++) {
      __m512 *d = dst + g * dgs + (long)row * Wp + col;
      *d = fast ? onnxc_fast16(*d, fast, al, be) : onnxc_epi16(&el, *d, (__mmask16)0xffff, 0, 0);
    }
    if (++col == IW) {
      col = 0;
      row++;
    }
  }
}
/* N pixels p.. of NG channel groups (onnxc_pwl16_gNG): N NG accumulators over all k (each
   broadcast input value feeds NG FMAs), then the stores: clamped (Relu, Clip), plain (no
   activation), or plain and then the activation: with S (SiLU, the blocks of 8 pixels) in
   place right here, else by onnxc_pwl16_act.  EfficientNet-B0's 16 -> 96 expansion on 112 x 112
   with its 3x3 stride-2 depthwise: 1.93M -> 1.83M TSC ticks (24 -> 144 on 56 x 56, 5x5 stride
   2: 1.04M -> 1.00M).  Computed on the sums in registers instead, it spilled sums in the k
   steps of the 3x3 stride-1 block (1.38M -> 1.44M). */
#define ONNXC_PWL(N, NG, S)                                                                          \
  {                                                                                                  \
    __m512 a_[NG][N];                                                                                \
    const float *xp_ = x + p;                                                                        \
    const int r0_ = row, c0_ = col;                                                                  \
    ONNXC_UNROLL for (g = 0; g < NG; g++) ONNXC_UNROLL for (i = 0; i < N; i++) a_[g][i] = bv[g];     \
    for (k = 0; k < K; k++, xp_ += ldx) {                                                            \
      __m512 wv_[NG];                                                                                \
      ONNXC_UNROLL for (g = 0; g < NG; g++) wv_[g] = _mm512_loadu_ps(wg + g * wgs + 16L * k);        \
      ONNXC_UNROLL for (i = 0; i < N; i++)                                                           \
        ONNXC_FMA_RN(NG, a_[0][i], a_[NG > 1][i], a_[NG > 2 ? 2 : 0][i], wv_[0], wv_[NG > 1],        \
                     wv_[NG > 2 ? 2 : 0], xp_ + i)                                                   \
    }                                                                                                \
    if (clamp_) ONNXC_PWL_ST(N, NG, _mm512_min_ps(_mm512_max_ps(a_[g][i], lo_), hi_))                \
    else ONNXC_PWL_ST(N, NG, a_[g][i])                                                               \
    if (S) {                                                                                         \
      /* SiLU on the vectors just stored, here: its constants loaded after the k steps (kept in      \
         registers across them, they made GCC spill sums there) */                                   \
      const float *sk_ = onnxc_sigk;                                                                 \
      ONNXC_OPAQUE_HERE(sk_);                                                                        \
      {                                                                                              \
        const __m512 k_[7] = {_mm512_set1_ps(sk_[0]), _mm512_set1_ps(sk_[1]), _mm512_set1_ps(sk_[2]), \
                              _mm512_set1_ps(sk_[3]), _mm512_set1_ps(sk_[4]), _mm512_set1_ps(sk_[5]), \
                              _mm512_set1_ps(sk_[6])};                                               \
        const __m512 tl_ = _mm512_loadu_ps(sk_ + 8), th_ = _mm512_loadu_ps(sk_ + 24);                \
        ONNXC_PWL_EACH(N, NG, dst[o_] = _mm512_div_ps(dst[o_], onnxc_sigden16_k(dst[o_], k_, tl_, th_))) \
      }                                                                                              \
    } else if (!simple_) onnxc_pwl16_act(ea, dst, dgs, NG, r0_, c0_, N, IW, Wp);                     \
    p += N;                                                                                          \
  }
/* the stores of ONNXC_PWL: F of a_[g][i] (a switch on the activation per vector, as
   onnxc_epi16's tests, compiled to a jump table with spills: a third of the time of a block of
   8 pixels and 3 groups at 16 inputs) */
#define ONNXC_PWL_ST(N, NG, F)                                                                       \
  {                                                                                                  \
    ONNXC_UNROLL for (i = 0; i < N; i++) {                                                           \
      ONNXC_UNROLL for (g = 0; g < NG; g++) dst[g * dgs + (long)row * Wp + col] = F;                 \
      if (++col == IW) {                                                                             \
        col = 0;                                                                                     \
        row++;                                                                                       \
      }                                                                                              \
    }                                                                                                \
  }
/* A 1x1 convolution in channel lanes over n consecutive input pixels (rows of IW), for NG groups
   of 16 output channels at once: pixel p = r IW + c of group g goes to dst[g dgs + r Wp + c] =
   act(bv[g] + sum_k wg[g wgs + 16 k ..] x[k ldx + p]) (the activation of ea, which has no bias
   and no residual).  Blocks of 8 pixels; the last 9..15 as two blocks of 4 to 8 (a block of few
   pixels waits on its FMA chains' latency: 49 = 5 x 8 + 4 + 5).  One group per pass took one
   broadcast load per FMA and, with the weight load, ran load-bound: MobileNetV2's three
   large-plane expansions (16 -> 96 on 112 x 112, 24 -> 144 on 56 x 56) at 34 flops per TSC tick;
   three groups share each broadcast. */
#define ONNXC_PWL_DEF(NAME, NG)                                                                                  \
  ONNXC_MAYBE_UNUSED static void NAME(int K, const float *x, long ldx, int n, int IW, int Wp, const float *wg,     \
                                      long wgs, const __m512 *bv, const onnxc_epi *ea, __m512 *dst, long dgs) {    \
    __m512 lo_ = _mm512_setzero_ps(), hi_ = lo_;                                                                 \
    int clamp_ = 0, p = 0, k, i, g, row = 0, col = 0;                                                            \
    const int simple_ = onnxc_epi_simple(ea, &clamp_, &lo_, &hi_), silu_ = !simple_ && ea->act == ONNXC_ACT_SILU; \
    while (n - p >= 16) ONNXC_PWL(8, NG, silu_)                                                                  \
    while (n > p) {                                                                                              \
      const int r = n - p, b = r >= 8 ? r / 2 : r; /* r = 8..15: two blocks */                                   \
      switch (b) {                                                                                               \
      case 7: ONNXC_PWL(7, NG, 0) break;                                                                            \
      case 6: ONNXC_PWL(6, NG, 0) break;                                                                            \
      case 5: ONNXC_PWL(5, NG, 0) break;                                                                            \
      case 4: ONNXC_PWL(4, NG, 0) break;                                                                            \
      case 3: ONNXC_PWL(3, NG, 0) break;                                                                            \
      case 2: ONNXC_PWL(2, NG, 0) break;                                                                            \
      case 1: ONNXC_PWL(1, NG, 0) break;                                                                            \
      default: ONNXC_PWL(8, NG, 0) break;                                                                           \
      }                                                                                                          \
    }                                                                                                            \
  }
ONNXC_PWL_DEF(onnxc_pwl16_g1, 1)
ONNXC_PWL_DEF(onnxc_pwl16_g2, 2)
ONNXC_PWL_DEF(onnxc_pwl16_g3, 3)

ONNXC_MAYBE_UNUSED static void onnxc_dwb16(int C, int Cin, const float *x, int IH, int IW, int top, int rows, int j0,
                                           int shift, const float *A, const onnxc_epi *ee, const float *w, int KH,
                                           int KW, int SH, int SW, int PW, int DH, int DW, int Wp, float *s1, float *y,
                                           long ldy, int on, int OW, const onnxc_epi *ed, int shared) {
  const long IHW = (long)IH * IW, gs = shared ? 0 : (long)rows * Wp * 16;
  const int G = (C + 15) / 16, Mp = (C + 7) / 8 * 8;
  /* groups per expansion pass: up to 3 whose weights fit the table (separate windows only) */
  const int fit = ONNXC_DWB_KMAX / (Cin > 0 ? Cin : 1), ngm = shared || fit < 1 ? 1 : fit < 3 ? fit : 3;
  float wg[16 * ONNXC_DWB_KMAX];
  __m512 bv[3];
  onnxc_epi ea = *ee;
  int g, j = 0, i, jz = 0, q;
  s1 = ONNXC_DWB_ALIGN(s1);
  ea.bias = (const float *)0;
  ea.res = (const float *)0;
  for (g = 0; g < G; g += q) {
    const int NG = G - g < ngm ? G - g : ngm;
    for (q = 0; q < NG; q++) {
      float *sg = s1 + (g + q) * gs, *wq = wg + 16L * Cin * q;
      const int c0 = 16 * (g + q), nc = C - c0 < 16 ? C - c0 : 16;
      int k, kb;
      bv[q] = ee->bias ? _mm512_maskz_loadu_ps(ONNXC_MASK16(nc), ee->bias + c0) : _mm512_setzero_ps();
      /* the group's weights [k][16] from its two panels of 8 rows (the second one absent past
         Mp): two 8-float loads per k (the per-float copy was 25k of MobileNetV3-Small's 3.3M
         TSC ticks and 80k of EfficientNet-B0's 23M, rebuilt per band) */
      for (kb = 0; kb < Cin && kb < ONNXC_DWB_KMAX; kb += ONNXC_KC) {
        const int kc = Cin - kb < ONNXC_KC ? Cin - kb : ONNXC_KC, two = c0 + 8 < Mp;
        const float *pk = A + (long)kb * Mp + (long)c0 * kc;
        for (k = 0; k < kc && kb + k < ONNXC_DWB_KMAX; k++) {
          const __m256 lo = _mm256_loadu_ps(pk + 8 * k), hi = two ? _mm256_loadu_ps(pk + 8 * (kc + k)) : _mm256_setzero_ps();
          _mm512_storeu_ps(wq + 16L * (kb + k), _mm512_castpd_ps(_mm512_insertf64x4(
                                                    _mm512_castps_pd(_mm512_castps256_ps512(lo)), _mm256_castps_pd(hi), 1)));
        }
      }
      if (j0 > 0) memmove(sg, sg + (long)shift * Wp * 16, sizeof(float) * (size_t)j0 * (size_t)Wp * 16);
      for (j = j0; j < rows && top + j < 0; j++) memset(sg + (long)j * Wp * 16, 0, sizeof(float) * 16 * (size_t)Wp);
      jz = IH - top < rows ? IH - top : rows;
      if (jz < j) jz = j;
      for (i = jz; i < rows; i++) memset(sg + (long)i * Wp * 16, 0, sizeof(float) * 16 * (size_t)Wp);
      for (i = j; i < jz; i++) { /* the padding columns of the rows computed below */
        memset(sg + (long)i * Wp * 16, 0, sizeof(float) * 16 * (size_t)PW);
        memset(sg + ((long)i * Wp + PW + IW) * 16, 0, sizeof(float) * 16 * (size_t)(Wp - PW - IW));
      }
    }
    if (jz > j) { /* input rows top + j .. top + jz - 1 of the NG groups */
      const float *xr = x + (long)(top + j) * IW;
      __m512 *r = (__m512 *)(void *)(s1 + g * gs + ((long)j * Wp + PW) * 16);
      const int n = (jz - j) * IW;
      if (NG == 3) onnxc_pwl16_g3(Cin, xr, IHW, n, IW, Wp, wg, 16L * Cin, bv, &ea, r, gs / 16);
      else if (NG == 2) onnxc_pwl16_g2(Cin, xr, IHW, n, IW, Wp, wg, 16L * Cin, bv, &ea, r, gs / 16);
      else onnxc_pwl16_g1(Cin, xr, IHW, n, IW, Wp, wg, 16L * Cin, bv, &ea, r, gs / 16);
    }
    for (q = 0; q < NG; q++) {
      const int c0 = 16 * (g + q), nc = C - c0 < 16 ? C - c0 : 16;
      onnxc_dwc16_grp((const __m512 *)(const void *)(s1 + (g + q) * gs), Wp, w, c0, nc, KH, KW, SH, SW, DH, DW, y, ldy,
                      on, OW, ed);
    }
  }
}
#endif

#if defined(ONNXC_AVX2)
/* ---- the AVX2 forms of the channel-lanes depthwise and DwBlock kernels -------------------------
   onnxc_dwc8_grp / onnxc_pwl8_gNG / onnxc_dwb8: onnxc_dwc16_grp, onnxc_pwl16_gNG and onnxc_dwb16
   with 8 channels per group (one __m256 per pixel), 8 x 8 transposes.  The planar DwBlock form
   they replace on AVX2 copied every expanded plane into a zero-padded buffer (stride 2: split
   into even and odd columns) for the depthwise kernel: EfficientNet-B0's 16 -> 96 block on
   112 x 112 -> 56 x 56 spent 1.19M TSC ticks in the depthwise part, 4.5 flops per tick. */

/* Writes the n <= 8 pixels p0.. held in st (st[i] = pixel p0 + i, lane c = channel c0 + c) to
   the nc output planes y + c ldy through e: without a residual or per-column bias, the bias,
   the activation (onnxc_act8) and e->sum's pixel sums before the transpose (one vector per
   pixel); else after it, per plane. */
ONNXC_MAYBE_UNUSED static void onnxc_dwc8_flush(__m256 *st, long p0, int n, int nc, float *y, long ldy,
                                               const onnxc_epi *e, int c0) {
  int c, i;
  if (e && !e->res && !e->bias_cols) {
    const __m256 bv = e->bias ? _mm256_maskload_ps(e->bias + c0, onnxc_mask8(nc)) : _mm256_setzero_ps();
    if (e->act == ONNXC_ACT_SILU && n == 8) {
      /* unrolled: 8 independent SiLU chains (in the loop below each waited on the last) */
      ONNXC_UNROLL for (i = 0; i < 8; i++) {
        const __m256 t = _mm256_add_ps(st[i], bv);
        st[i] = _mm256_div_ps(t, onnxc_sigden8(t));
      }
    } else
      for (i = 0; i < n; i++) st[i] = onnxc_act8(_mm256_add_ps(st[i], bv), e->act, e->alpha, e->beta);
    if (e->sum) {
      __m256 a = st[0];
      for (i = 1; i < n; i++) a = _mm256_add_ps(a, st[i]);
      onnxc_storen8(e->sum + c0, _mm256_add_ps(_mm256_maskload_ps(e->sum + c0, onnxc_mask8(nc)), a), nc);
    }
    onnxc_tr8(st);
    for (c = 0; c < nc; c++) onnxc_storen8(y + (long)c * ldy + p0, st[c], n);
    return;
  }
  onnxc_tr8(st);
  for (c = 0; c < nc; c++) {
    float *yc = y + (long)c * ldy + p0;
    onnxc_storen8(yc, st[c], n);
    if (e) {
      onnxc_epi_tile(e, yc, ldy, c0 + c, 1, (int)p0, n);
      if (e->sum)
        for (i = 0; i < n; i++) e->sum[c0 + c] += yc[i];
    }
  }
}

/* The N results a_[] of pixels op.. into the staging tile, flushed per 8 pixels. */
#define ONNXC_DWC8_STAGE(N)                                                                          \
  for (j_ = 0; j_ < N && op < OHW; j_++, op++) { /* (op < OHW holds: for GCC -Werror) */             \
    st[op & 7] = a_[j_];                                                                             \
    if ((op & 7) == 7 || op == OHW - 1)                                                              \
      onnxc_dwc8_flush(st, op & ~7L, (int)(op & 7) + 1, nc, y + (long)c0 * ldy, ldy, e, c0);         \
  }
/* N consecutive output pixels op.. (flat, across rows), any kernel: as ONNXC_DWC_PIECE */
#define ONNXC_DWC8_PIECE(N)                                                                          \
  {                                                                                                  \
    __m256 a_[N];                                                                                    \
    long o_[N];                                                                                      \
    int j_, kh_, kw_;                                                                                \
    for (j_ = 0; j_ < N; j_++) {                                                                     \
      o_[j_] = (op + j_) / OW * SH * Wp + (op + j_) % OW * SW;                                       \
      a_[j_] = _mm256_setzero_ps();                                                                  \
    }                                                                                                \
    for (kh_ = 0; kh_ < KH; kh_++)                                                                   \
      for (kw_ = 0; kw_ < KW; kw_++) {                                                               \
        const __m256 wv_ = wt[kh_ * KW + kw_], *p_ = xt + (long)kh_ * DH * Wp + kw_ * DW;            \
        for (j_ = 0; j_ < N; j_++) a_[j_] = _mm256_fmadd_ps(wv_, p_[o_[j_]], a_[j_]);                \
      }                                                                                              \
    ONNXC_DWC8_STAGE(N)                                                                              \
  }
/* N outputs ow.. of output row oh, square KW_ x KW_ kernel, stride S_ both ways (dilation 1):
   as ONNXC_DWC_ROW (taps in (kh, kw) order) */
#define ONNXC_DWC8_ROW(N, S_, KW_)                                                                   \
  {                                                                                                  \
    __m256 a_[N];                                                                                    \
    const __m256 *wb_ = wt;                                                                          \
    int j_, kh_, kw_;                                                                                \
    ONNXC_OPAQUE(wb_);                                                                               \
    for (j_ = 0; j_ < N; j_++) a_[j_] = _mm256_setzero_ps();                                         \
    ONNXC_UNROLL for (kh_ = 0; kh_ < KW_; kh_++) {                                                   \
      const __m256 *p_ = xt + (long)(oh * S_ + kh_) * Wp + ow * S_, *w_ = wb_ + kh_ * KW_;           \
      ONNXC_UNROLL for (kw_ = 0; kw_ < KW_; kw_++) {                                                 \
        __m256 wk_ = w_[kw_];                                                                        \
        ONNXC_INREG1(wk_);                                                                           \
        ONNXC_UNROLL for (j_ = 0; j_ < N; j_++) a_[j_] = _mm256_fmadd_ps(wk_, p_[j_ * S_ + kw_], a_[j_]); \
      }                                                                                              \
    }                                                                                                \
    ONNXC_DWC8_STAGE(N)                                                                              \
    ow += N;                                                                                         \
  }
#define ONNXC_DWC8_ROWS7(S_, KW_)                                                                    \
  for (oh = 0; oh < OH; oh++) {                                                                      \
    ow = 0;                                                                                          \
    ONNXC_DWC8_ROW(7, S_, KW_)                                                                       \
  }
/* one output row (OW >= 8) in pieces of balanced widths 4..8 */
#define ONNXC_DWC8_ROWS(S_, KW_)                                                                     \
  for (oh = 0; oh < OH; oh++) {                                                                      \
    const int np_ = (OW + 7) / 8, wd_ = OW / np_, ex_ = OW % np_;                                    \
    int pc_;                                                                                         \
    ow = 0;                                                                                          \
    for (pc_ = 0; pc_ < np_; pc_++)                                                                  \
      switch (wd_ + (pc_ < ex_)) {                                                                   \
      case 8: ONNXC_DWC8_ROW(8, S_, KW_) break;                                                      \
      case 7: ONNXC_DWC8_ROW(7, S_, KW_) break;                                                      \
      case 6: ONNXC_DWC8_ROW(6, S_, KW_) break;                                                      \
      case 5: ONNXC_DWC8_ROW(5, S_, KW_) break;                                                      \
      default: ONNXC_DWC8_ROW(4, S_, KW_) break;                                                     \
      }                                                                                              \
  }

/* One group of nc <= 8 depthwise channels c0.. from its input in channel lanes (xt: [rows][Wp]
   vectors, zero-padded; output pixel (oh, ow) reads xt[(oh SH + kh DH) Wp + ow SW + kw DW] at
   tap (kh, kw)); w the ONNX weights of all channels; outputs to the planes y + (c0 + c) ldy
   through e. */
ONNXC_MAYBE_UNUSED static void onnxc_dwc8_grp(const __m256 *xt, int Wp, const float *w, int c0, int nc, int KH, int KW,
                                              int SH, int SW, int DH, int DW, float *y, long ldy, int OH, int OW,
                                              const onnxc_epi *e) {
  const long OHW = (long)OH * OW;
  const int KP = KH * KW, sq = DH == 1 && DW == 1 && KH == KW && SH == SW;
  __m256 wt[ONNXC_KPMAX + 7], st[8];
  long op = 0;
  int c, t, oh, ow;
  for (c = 0; c < 8; c++) st[c] = _mm256_setzero_ps(); /* (a flush of fewer pixels transposes the rest) */
  for (t = 0; t < KP; t += 8) { /* taps t..t+7 of the group's weights, transposed */
    const __m256i k = onnxc_mask8(KP - t);
    for (c = 0; c < 8; c++) wt[t + c] = c < nc ? _mm256_maskload_ps(w + (long)(c0 + c) * KP + t, k) : _mm256_setzero_ps();
    onnxc_tr8(wt + t);
  }
  if (sq && OW >= 8 && SW == 1 && KW == 3) ONNXC_DWC8_ROWS(1, 3)
  else if (sq && OW >= 8 && SW == 1 && KW == 5) ONNXC_DWC8_ROWS(1, 5)
  else if (sq && OW >= 8 && SW == 2 && KW == 3) ONNXC_DWC8_ROWS(2, 3)
  else if (sq && OW >= 8 && SW == 2 && KW == 5) ONNXC_DWC8_ROWS(2, 5)
  else if (sq && OW == 7 && SW == 1 && KW == 3) ONNXC_DWC8_ROWS7(1, 3)
  else if (sq && OW == 7 && SW == 1 && KW == 5) ONNXC_DWC8_ROWS7(1, 5)
  else if (sq && OW == 7 && SW == 2 && KW == 5) ONNXC_DWC8_ROWS7(2, 5)
  else
    while (op < OHW) {
      const long left = OHW - op;
      if (left >= 8) ONNXC_DWC8_PIECE(8)
      else if (left >= 4) ONNXC_DWC8_PIECE(4)
      else if (left >= 2) ONNXC_DWC8_PIECE(2)
      else ONNXC_DWC8_PIECE(1)
    }
}

/* The activation of ea (not Relu or Clip) on N pixels of NG groups already stored at dst from
   pixel (row, col): out of the pixel blocks' code, as onnxc_pwl16_act */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
ONNXC_MAYBE_UNUSED static void onnxc_pwl8_act(const onnxc_epi *ea, __m256 *dst, long dgs, int NG, int row, int col, int N,
                                              int IW, int Wp) {
  const onnxc_epi el = *ea;
  int i, g;
  if (el.act == ONNXC_ACT_SILU && NG == 2 && col + N <= IW) { /* (the common case: unrolled, one row) */
    __m256 *d0 = dst + (long)row * Wp + col, *d1 = d0 + dgs;
    for (i = 0; i < N; i++) {
      const __m256 a = d0[i], b = d1[i];
      d0[i] = _mm256_div_ps(a, onnxc_sigden8(a));
      d1[i] = _mm256_div_ps(b, onnxc_sigden8(b));
    }
    return;
  }
  for (i = 0; i < N; i++) {
    for (g = 0; g < NG; g++) {
      __m256 *d = dst + g * dgs + (long)row * Wp + col;
      *d = onnxc_act8(*d, el.act, el.alpha, el.beta);
    }
    if (++col == IW) {
      col = 0;
      row++;
    }
  }
}
/* N pixels p.. of NG channel groups: N NG sums over all k (each broadcast input value feeds NG
   FMAs; the NG weight vectors of a k step held in registers), then the stores: clamped (Relu,
   Clip), plain, or plain and then onnxc_pwl8_act */
#define ONNXC_PWL8(N, NG, S)                                                                         \
  {                                                                                                  \
    __m256 a_[NG][N];                                                                                \
    const float *xp_ = x + p, *lh_ = lohi_;                                                          \
    const __m256 *bv_ = bv;                                                                          \
    const int r0_ = row, c0_ = col;                                                                  \
    ONNXC_OPAQUE(bv_); /* (the biases and bounds loaded per block: kept in registers across the    \
                          blocks, they took registers from the sums, one of which then went to the  \
                          stack and back in every k step) */                                        \
    ONNXC_OPAQUE(lh_);                                                                               \
    ONNXC_UNROLL for (g = 0; g < NG; g++) ONNXC_UNROLL for (i = 0; i < N; i++) a_[g][i] = bv_[g];   \
    for (k = 0; k < K; k++, xp_ += ldx) {                                                            \
      __m256 wv_[NG];                                                                                \
      ONNXC_UNROLL for (g = 0; g < NG; g++) {                                                        \
        wv_[g] = _mm256_loadu_ps(wg + g * wgs + 8L * k);                                             \
        ONNXC_INREG1(wv_[g]);                                                                        \
      }                                                                                              \
      ONNXC_UNROLL for (i = 0; i < N; i++) {                                                         \
        const __m256 xb_ = _mm256_broadcast_ss(xp_ + i);                                             \
        ONNXC_UNROLL for (g = 0; g < NG; g++) a_[g][i] = _mm256_fmadd_ps(wv_[g], xb_, a_[g][i]);     \
      }                                                                                              \
    }                                                                                                \
    ONNXC_UNROLL for (i = 0; i < N; i++) {                                                           \
      ONNXC_UNROLL for (g = 0; g < NG; g++) dst[g * dgs + (long)row * Wp + col] =                    \
          clamp_ ? _mm256_min_ps(_mm256_max_ps(a_[g][i], _mm256_broadcast_ss(lh_)), _mm256_broadcast_ss(lh_ + 1)) : a_[g][i]; \
      if (++col == IW) {                                                                             \
        col = 0;                                                                                     \
        row++;                                                                                       \
      }                                                                                              \
    }                                                                                                \
    if (S) {                                                                                         \
      /* SiLU on the vectors just stored, as ONNXC_PWL does */                                       \
      const float *sk_ = onnxc_sigk8;                                                                \
      ONNXC_OPAQUE_HERE(sk_);                                                                        \
      {                                                                                              \
        const __m256 k_[8] = {_mm256_set1_ps(sk_[0]), _mm256_set1_ps(sk_[1]), _mm256_set1_ps(sk_[2]), \
                              _mm256_set1_ps(sk_[3]), _mm256_set1_ps(sk_[4]), _mm256_set1_ps(sk_[5]), \
                              _mm256_set1_ps(sk_[6]), _mm256_set1_ps(sk_[7])};                       \
        const __m256 tv_ = _mm256_loadu_ps(sk_ + 8);                                                 \
        ONNXC_PWL_EACH(N, NG, dst[o_] = _mm256_div_ps(dst[o_], onnxc_sigden8_k(dst[o_], k_, tv_)))    \
      }                                                                                              \
    } else if (!simple_) onnxc_pwl8_act(ea, dst, dgs, NG, r0_, c0_, N, IW, Wp);                      \
    p += N;                                                                                          \
  }
/* A 1x1 convolution in channel lanes over n consecutive input pixels (rows of IW), NG groups of 8
   output channels: pixel p = r IW + c of group g to dst[g dgs + r Wp + c] = act(bv[g] + sum_k
   wg[g wgs + 8 k ..] x[k ldx + p]) (ea: no bias, no residual).  Blocks of 6 pixels (12 sums
   for two groups); 6..11 pixels left as two blocks. */
#define ONNXC_PWL8_DEF(NAME, NG)                                                                                 \
  ONNXC_MAYBE_UNUSED static void NAME(int K, const float *x, long ldx, int n, int IW, int Wp, const float *wg,     \
                                      long wgs, const __m256 *bv, const onnxc_epi *ea, __m256 *dst, long dgs) {    \
    const int simple_ = ea->act <= ONNXC_ACT_CLIP, clamp_ = ea->act == ONNXC_ACT_RELU || ea->act == ONNXC_ACT_CLIP; \
    const int silu_ = ea->act == ONNXC_ACT_SILU;                                                                 \
    const float lohi_[2] = {ea->act == ONNXC_ACT_CLIP ? ea->alpha : 0.0f, ea->act == ONNXC_ACT_CLIP ? ea->beta : INFINITY}; \
    int p = 0, k, i, g, row = 0, col = 0;                                                                        \
    while (n - p >= 10) ONNXC_PWL8(5, NG, silu_)                                                                 \
    while (n > p) {                                                                                              \
      const int r = n - p, b = r >= 5 ? r / 2 : r; /* r = 5..9: two blocks */                                    \
      switch (b) {                                                                                               \
      case 4: ONNXC_PWL8(4, NG, 0) break;                                                                           \
      case 3: ONNXC_PWL8(3, NG, 0) break;                                                                           \
      case 2: ONNXC_PWL8(2, NG, 0) break;                                                                           \
      case 1: ONNXC_PWL8(1, NG, 0) break;                                                                           \
      default: ONNXC_PWL8(5, NG, 0) break;                                                                          \
      }                                                                                                          \
    }                                                                                                            \
  }
ONNXC_PWL8_DEF(onnxc_pwl8_g1, 1)
ONNXC_PWL8_DEF(onnxc_pwl8_g2, 2)

/* onnxc_dwb16's band (same arguments and scratch) with groups of 8 channels: the expansion two
   groups per pass (where their weights fit the table), each group's window [rows][Wp] of 8-float
   pixels at s1 + G rows Wp 8 (G: the group, or with shared its place in the pass: two windows
   within the 16-lane window's scratch). */
ONNXC_MAYBE_UNUSED static void onnxc_dwb8(int C, int Cin, const float *x, int IH, int IW, int top, int rows, int j0,
                                          int shift, const float *A, const onnxc_epi *ee, const float *w, int KH,
                                          int KW, int SH, int SW, int PW, int DH, int DW, int Wp, float *s1, float *y,
                                          long ldy, int on, int OW, const onnxc_epi *ed, int shared) {
  const long IHW = (long)IH * IW, gs = (long)rows * Wp * 8;
  const int G = (C + 7) / 8, Mp = (C + 7) / 8 * 8;
  const int fit = 2 * ONNXC_DWB_KMAX / (Cin > 0 ? Cin : 1), ngm = fit < 2 ? 1 : 2; /* groups per pass */
  float wg[16 * ONNXC_DWB_KMAX];
  __m256 bv[2];
  onnxc_epi ea = *ee;
  int g, j = 0, i, jz = 0, q;
  s1 = ONNXC_DWB_ALIGN(s1);
  ea.bias = (const float *)0;
  ea.res = (const float *)0;
  for (g = 0; g < G; g += q) {
    const int NG = G - g < ngm ? G - g : ngm;
    const long w0 = shared ? 0 : g; /* the pass's first window */
    for (q = 0; q < NG; q++) {
      float *sg = s1 + (w0 + q) * gs, *wq = wg + 8L * Cin * q;
      const int c0 = 8 * (g + q), nc = C - c0 < 8 ? C - c0 : 8;
      int k;
      bv[q] = ee->bias ? _mm256_maskload_ps(ee->bias + c0, onnxc_mask8(nc)) : _mm256_setzero_ps();
      for (k = 0; k < Cin && k < ONNXC_DWB_KMAX; k++) { /* the group's weights [k][8]: its panel's rows */
        const int kb = k / ONNXC_KC * ONNXC_KC, kc = Cin - kb < ONNXC_KC ? Cin - kb : ONNXC_KC;
        const float *pk = A + (long)kb * Mp + (long)c0 * kc + (k - kb) * 8;
        for (i = 0; i < 8; i++) wq[8 * k + i] = pk[i];
      }
      if (j0 > 0) memmove(sg, sg + (long)shift * Wp * 8, sizeof(float) * (size_t)j0 * (size_t)Wp * 8);
      for (j = j0; j < rows && top + j < 0; j++) memset(sg + (long)j * Wp * 8, 0, sizeof(float) * 8 * (size_t)Wp);
      jz = IH - top < rows ? IH - top : rows;
      if (jz < j) jz = j;
      for (i = jz; i < rows; i++) memset(sg + (long)i * Wp * 8, 0, sizeof(float) * 8 * (size_t)Wp);
      for (i = j; i < jz; i++) { /* the padding columns of the rows computed below */
        memset(sg + (long)i * Wp * 8, 0, sizeof(float) * 8 * (size_t)PW);
        memset(sg + ((long)i * Wp + PW + IW) * 8, 0, sizeof(float) * 8 * (size_t)(Wp - PW - IW));
      }
    }
    if (jz > j) { /* input rows top + j .. top + jz - 1 of the NG groups */
      const float *xr = x + (long)(top + j) * IW;
      __m256 *r = (__m256 *)(void *)(s1 + w0 * gs + ((long)j * Wp + PW) * 8);
      const int n = (jz - j) * IW;
      if (NG == 2) onnxc_pwl8_g2(Cin, xr, IHW, n, IW, Wp, wg, 8L * Cin, bv, &ea, r, gs / 8);
      else onnxc_pwl8_g1(Cin, xr, IHW, n, IW, Wp, wg, 8L * Cin, bv, &ea, r, gs / 8);
    }
    for (q = 0; q < NG; q++) {
      const int c0 = 8 * (g + q), nc = C - c0 < 8 ? C - c0 : 8;
      onnxc_dwc8_grp((const __m256 *)(const void *)(s1 + (w0 + q) * gs), Wp, w, c0, nc, KH, KW, SH, SW, DH, DW, y, ldy,
                     on, OW, ed);
    }
  }
}
#endif

#if defined(ONNXC_AVX512)
/* A DwBlock in the lanes form over output rows [ob, oe) in bands of R (no shared window, no
   plane means): per band onnxc_dwb16 into s2 and the projection P (Cout x C, packed) of s2 into
   the band's rows of y through ej (ej.res: the residual's whole planes, ldr = OH OW), or with
   no projection (Cout 0) the depthwise output straight into y.  s1 holds s1f floats, s2
   follows.  The band loop compiler/ops_fused.c emits, as one function for the tasks of
   onnxc_dwbl_par (templates/par.h). */
ONNXC_MAYBE_UNUSED static void onnxc_dwbl_rows(int C, int Cin, const float *x, int IH, int IW, const float *A,
                                               const onnxc_epi *ee, const float *w, int KH, int KW, int SH, int SW,
                                               int PH, int PW, int DH, int DW, int Wp, int OH, int OW,
                                               const onnxc_epi *ed, int Cout, const float *P, const onnxc_epi *ej,
                                               float *y, float *s1, long s1f, int R, int ob, int oe) {
  float *s2 = s1 + s1f;
  const long OHW = (long)OH * OW;
  int o0, prev_top = 0, prev_rows = 0;
  for (o0 = ob; o0 < oe; o0 += R) {
    const int on = oe - o0 < R ? oe - o0 : R, top = o0 * SH - PH, rows = (on - 1) * SH + (KH - 1) * DH + 1;
    const int j0 = rows == prev_rows && top - prev_top < rows ? rows - (top - prev_top) : 0;
    onnxc_dwb16(C, Cin, x, IH, IW, top, rows, j0, top - prev_top, A, ee, w, KH, KW, SH, SW, PW, DH, DW, Wp, s1,
                Cout ? s2 : y + (long)o0 * OW, Cout ? (long)on * OW : OHW, on, OW, ed, 0);
    if (Cout) {
      onnxc_epi eb = *ej;
      if (eb.res) eb.res += (long)o0 * OW;
      onnxc_sgemm(Cout, on * OW, C, P, 8, s2, (long)on * OW, y + (long)o0 * OW, OHW, &eb);
    }
    prev_top = top;
    prev_rows = rows;
  }
}
#endif

#if defined(ONNXC_NEON)
/* Depthwise 3x3, dilation 1, stride SW = 1 or 2 across (any SH) on one plane: per output row
   and vector of 4 outputs, the taps of the input rows inside the plane as FMAs (stride 2: even
   and odd columns from vld2q).  Columns whose loads would leave the input row (the padding at
   the edges, and a few more at the right: a stride-2 load pair reads 10 columns) are summed as
   scalars.  Taps are summed in (kh, kw) order as in the portable path. */
ONNXC_MAYBE_UNUSED static void onnxc_dw3x3_neon(const float *xc, int IH, int IW, const float *wc, int SH, int SW,
                                                int PH, int PW, float *yc, int OH, int OW) {
  /* vectors start at columns ow in [vlo, vhi]: first input column ow SW - PW >= 0, last one
     read (ow + 3) + 2 - PW (stride 1) or 2 ow - PW + 9 (stride 2) < IW */
  const int vlo = (PW + SW - 1) / SW, vhi = SW == 1 ? IW - 6 + PW : (IW - 10 + PW) >= 0 ? (IW - 10 + PW) / 2 : -1;
  float32x4_t wv[9];
  int oh, ow, kh, kw, t;
  for (t = 0; t < 9; t++) wv[t] = vdupq_n_f32(wc[t]);
  for (oh = 0; oh < OH; oh++) {
    const int ih0 = oh * SH - PH, kh0 = ih0 < 0 ? -ih0 : 0, kh1 = IH - ih0 < 3 ? IH - ih0 : 3;
    float *yr = yc + (long)oh * OW;
    ow = 0;
    for (;;) {
      /* scalar columns up to the next vector start (or the end) */
      const int stop = ow < vlo ? (vlo < OW ? vlo : OW) : (ow <= vhi && ow + 4 <= OW ? ow : OW);
      for (; ow < stop; ow++) {
        float s = 0.0f;
        for (kh = kh0; kh < kh1; kh++)
          for (kw = 0; kw < 3; kw++) {
            const int iw = ow * SW - PW + kw;
            if (iw >= 0 && iw < IW) s += wc[kh * 3 + kw] * xc[(long)(ih0 + kh) * IW + iw];
          }
        yr[ow] = s;
      }
      if (ow >= OW) break;
      for (; ow <= vhi && ow + 4 <= OW; ow += 4) {
        float32x4_t s = vdupq_n_f32(0.0f);
        for (kh = kh0; kh < kh1; kh++) {
          const float *p = xc + (long)(ih0 + kh) * IW + ow * SW - PW;
          if (SW == 1) {
            s = vfmaq_f32(s, wv[kh * 3], vld1q_f32(p));
            s = vfmaq_f32(s, wv[kh * 3 + 1], vld1q_f32(p + 1));
            s = vfmaq_f32(s, wv[kh * 3 + 2], vld1q_f32(p + 2));
          } else {
            const float32x4x2_t a = vld2q_f32(p), b = vld2q_f32(p + 2);
            s = vfmaq_f32(s, wv[kh * 3], a.val[0]);
            s = vfmaq_f32(s, wv[kh * 3 + 1], a.val[1]);
            s = vfmaq_f32(s, wv[kh * 3 + 2], b.val[0]);
          }
        }
        vst1q_f32(yr + ow, s);
      }
    }
  }
}
#endif

#if defined(ONNXC_AVX512)
/* Output vectors a (row oh) and b (row oh + 1) at column ow0 of a depthwise row-pair kernel,
   through the epilogue: the short forms (simple: bias, Relu/Clip; fast: bias, onnxc_fast16) or
   onnxc_epi16.  (SiLU here, not in a pass over the finished rows: 240 x 28 x 28 3x3 stride 2
   in EfficientNet-B0, 52 -> 36 us; 32 x 112 x 112 stride 1 the same.) */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
ONNXC_MAYBE_UNUSED static inline void onnxc_dw_pair_out(const onnxc_epi *ev, const onnxc_epi *e, int simple, int clamp,
                                                        int fast, __m512 bv, __m512 lo, __m512 hi, __m512 a, __m512 b,
                                                        __mmask16 k, int oc, float *yc, int oh, int OW, int ow0) {
  if (simple || fast) {
    if (ev->bias) {
      a = _mm512_add_ps(a, bv);
      b = _mm512_add_ps(b, bv);
    }
    if (simple && clamp) {
      a = _mm512_min_ps(_mm512_max_ps(a, lo), hi);
      b = _mm512_min_ps(_mm512_max_ps(b, lo), hi);
    }
    if (fast) {
      const __m512 al = _mm512_set1_ps(ev->alpha), be = _mm512_set1_ps(ev->beta);
      a = onnxc_fast16(a, fast, al, be);
      b = onnxc_fast16(b, fast, al, be);
    }
  } else if (e) {
    a = onnxc_epi16(ev, a, k, oc, (int)((long)oh * OW + ow0));
    b = onnxc_epi16(ev, b, k, oc, (int)((long)(oh + 1) * OW + ow0));
  }
  _mm512_mask_storeu_ps(yc + (long)oh * OW + ow0, k, a);
  _mm512_mask_storeu_ps(yc + (long)(oh + 1) * OW + ow0, k, b);
}
#endif

#if defined(ONNXC_AVX512)
/* Depthwise 3x3 "same" (stride 1, padding 1) on a narrow plane (W < 16, H W <= ONNXC_DWN_MAX):
   the plane as one row of vectors, copied between W + 1 zeros before and after (the rows above
   the first and below the last), so that every load is unmasked.  Per vector of pixels, the
   three rows' loads feed all nine taps as sums per kernel column, and the left and right
   columns' sums, shifted by one lane, are added where the pixel is not in the first or last
   column of its row (one masked add each): three loads and two lane shifts per vector where
   nine unaligned loads (most across two cache lines) had been, 14 x 14 planes 1.3x as fast.
   The copy of channel c + 1 goes into the other of two buffers before channel c is computed:
   unaligned loads over vectors just stored would wait for the stores to complete.  Against masked loads per tap (still used past ONNXC_DWN_MAX),
   alone: 480 x 14 x 14 with SiLU 52 -> 41 us; MLPerf DS-CNN (64 x 25 x 5) whole model 2.5%. */
#define ONNXC_DWN_MAX 2048
#define ONNXC_DWN_BUF (ONNXC_DWN_MAX + 64)
/* lanes of the 32-float concatenation hi:lo from lane n of lo on (valignd) */
#define ONNXC_ALIGNR(hi, lo, n) \
  _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(hi), _mm512_castps_si512(lo), n))
/* the column sums of onnxc_dw3n at the 16 pixels from p: rows above, at and below */
#define ONNXC_DW3N_SUMS(p, L, C, R)                                                                 \
  {                                                                                                 \
    const __m512 u_ = _mm512_loadu_ps((p) - W), m_ = _mm512_loadu_ps(p), d_ = _mm512_loadu_ps((p) + W); \
    C = _mm512_fmadd_ps(w21, d_, _mm512_fmadd_ps(w11, m_, _mm512_fmadd_ps(w01, u_, bv)));           \
    L = _mm512_fmadd_ps(w20, d_, _mm512_fmadd_ps(w10, m_, _mm512_mul_ps(w00, u_)));                 \
    R = _mm512_fmadd_ps(w22, d_, _mm512_fmadd_ps(w12, m_, _mm512_mul_ps(w02, u_)));                 \
  }
ONNXC_MAYBE_UNUSED static void onnxc_dw3n(int CO, int mult, const float *x, int H, int W, const float *w, float *y,
                                          const onnxc_epi *e) {
  const long HW = (long)H * W;
  const int nv = (int)((HW + 15) / 16); /* W + 1 <= 16 zeros before each plane at buf + 16 */
  float buf[2 * ONNXC_DWN_BUF];
  __mmask16 mL[ONNXC_DWN_MAX / 16], mR[ONNXC_DWN_MAX / 16];
  onnxc_epi ev = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
  int v, i, col = 0, oc, clamp = 0, simple, fast;
  __m512 lo = _mm512_setzero_ps(), hi = lo;
  if (e) ev = *e;
  /* the common epilogues without the per-vector checks of onnxc_epi16: a per-channel bias (it
     starts the sums) and Relu / Clip, or an activation of onnxc_fast16 */
  simple = e && onnxc_epi_simple(&ev, &clamp, &lo, &hi);
  fast = e ? onnxc_epi_fast(&ev) : 0;
  for (v = 0; v < nv; v++) { /* lanes not in the first (mL) / last (mR) column */
    unsigned l = 0, r = 0;
    for (i = 0; i < 16; i++) {
      if (col != 0) l |= 1u << i;
      if (col != W - 1) r |= 1u << i;
      if (++col == W) col = 0;
    }
    mL[v] = (__mmask16)l;
    mR[v] = (__mmask16)r;
  }
  for (i = 0; i < 16 * nv + 48; i++) buf[i] = buf[ONNXC_DWN_BUF + i] = 0.0f; /* the part in use */
  for (v = 0; v < nv; v++) /* channel 0 into buffer 0 (the vectors past the plane stay 0) */
    _mm512_storeu_ps(buf + 16 + 16L * v, _mm512_maskz_loadu_ps(ONNXC_MASK16((int)(HW - 16L * v)), x + 16L * v));
  for (oc = 0; oc < CO; oc++) {
    const float *wc = w + (long)oc * 9, *pl = buf + (oc & 1) * ONNXC_DWN_BUF + 16;
    float *yc = y + (long)oc * HW;
    const __m512 w00 = _mm512_set1_ps(wc[0]), w01 = _mm512_set1_ps(wc[1]), w02 = _mm512_set1_ps(wc[2]);
    const __m512 w10 = _mm512_set1_ps(wc[3]), w11 = _mm512_set1_ps(wc[4]), w12 = _mm512_set1_ps(wc[5]);
    const __m512 w20 = _mm512_set1_ps(wc[6]), w21 = _mm512_set1_ps(wc[7]), w22 = _mm512_set1_ps(wc[8]);
    const __m512 bv = (simple || fast) && ev.bias ? _mm512_set1_ps(ev.bias[oc]) : _mm512_setzero_ps();
    const __m512 al = _mm512_set1_ps(ev.alpha), be = _mm512_set1_ps(ev.beta);
    __m512 gs = _mm512_setzero_ps(); /* the plane's sum for ev.sum */
    if (oc + 1 < CO) { /* the next channel's plane into the other buffer */
      const float *xn = x + (long)((oc + 1) / mult) * HW;
      float *pn = buf + ((oc + 1) & 1) * ONNXC_DWN_BUF + 16;
      for (v = 0; v < nv; v++) _mm512_storeu_ps(pn + 16L * v, _mm512_maskz_loadu_ps(ONNXC_MASK16((int)(HW - 16L * v)), xn + 16L * v));
    }
    {
      /* sums of the kernel's left, centre and right columns at each pixel q, from the rows
         above, at and below q (three loads per vector): out(p) = C(p) + L(p - 1) + R(p + 1),
         the shifts by one lane across vectors (valignd), the output one vector behind */
      __m512 Lp = _mm512_setzero_ps(), L0, C0, R0;
      ONNXC_DW3N_SUMS(pl, L0, C0, R0)
      for (v = 0; v < nv; v++) {
        const __mmask16 k = ONNXC_MASK16((int)(HW - 16L * v));
        __m512 L1, C1, R1, a;
        ONNXC_DW3N_SUMS(pl + 16L * (v + 1), L1, C1, R1)
        a = _mm512_mask_add_ps(C0, mL[v], C0, ONNXC_ALIGNR(L0, Lp, 15)); /* L(p - 1) */
        a = _mm512_mask_add_ps(a, mR[v], a, ONNXC_ALIGNR(R1, R0, 1));    /* R(p + 1) */
        if (clamp) a = _mm512_min_ps(_mm512_max_ps(a, lo), hi);
        else if (fast) a = onnxc_fast16(a, fast, al, be);
        else if (e && !simple) a = onnxc_epi16(&ev, a, k, oc, 16 * v);
        _mm512_mask_storeu_ps(yc + 16L * v, k, a);
        if (ev.sum) gs = _mm512_mask_add_ps(gs, k, gs, a);
        Lp = L0;
        L0 = L1;
        C0 = C1;
        R0 = R1;
      }
    }
    if (ev.sum) ev.sum[oc] += _mm512_reduce_add_ps(gs);
  }
}
#endif

#if defined(ONNXC_AVX2)
/* onnxc_dw3n on 8 lanes (AVX2): depthwise 3x3 "same" on a narrow plane (W < 16, H W <=
   ONNXC_DWN8_MAX) as one flattened row: three loads per vector give the column sums L, C, R of
   the kernel's three columns, out(p) = C(p) + L(p - 1) + R(p + 1), the shifts by one lane
   across vectors by a 128-bit lane swap and a byte align, the sums of a row's first / last
   column masked off by lane masks.  Against the zero-padded plane copy with rows of 8-lane
   vectors (5 of 8 lanes used on MLPerf DS-CNN's 64 x 25 x 5 planes): 18.8k -> 8.0k TSC ticks
   per layer (AVX-512's onnxc_dw3n: 6.4k). */
#define ONNXC_DWN8_MAX 1024
#define ONNXC_DWN8_BUF (ONNXC_DWN8_MAX + 48)
/* lanes 7.. of lo then hi's (hi:lo shifted right by 7 lanes) and lanes 1.. of lo then hi's */
#define ONNXC_SHR7(hi, lo) \
  _mm256_castsi256_ps(_mm256_alignr_epi8(_mm256_castps_si256(hi), _mm256_castps_si256(_mm256_permute2f128_ps(lo, hi, 0x21)), 12))
#define ONNXC_SHR1(hi, lo) \
  _mm256_castsi256_ps(_mm256_alignr_epi8(_mm256_castps_si256(_mm256_permute2f128_ps(lo, hi, 0x21)), _mm256_castps_si256(lo), 4))
#define ONNXC_DW3N8_SUMS(p, L, C, R)                                                                \
  {                                                                                                 \
    const __m256 u_ = _mm256_loadu_ps((p) - W), m_ = _mm256_loadu_ps(p), d_ = _mm256_loadu_ps((p) + W); \
    C = _mm256_fmadd_ps(w21, d_, _mm256_fmadd_ps(w11, m_, _mm256_fmadd_ps(w01, u_, bv)));           \
    L = _mm256_fmadd_ps(w20, d_, _mm256_fmadd_ps(w10, m_, _mm256_mul_ps(w00, u_)));                 \
    R = _mm256_fmadd_ps(w22, d_, _mm256_fmadd_ps(w12, m_, _mm256_mul_ps(w02, u_)));                 \
  }
/* Returns whether the epilogue ran here (with the plane sums). */
ONNXC_MAYBE_UNUSED static int onnxc_dw3n8(int CO, int mult, const float *x, int H, int W, const float *w, float *y,
                                          const onnxc_epi *e) {
  const long HW = (long)H * W;
  const int nv = (int)((HW + 7) / 8); /* W + 1 <= 16 zeros before each plane at buf + 16 */
  float buf[2 * ONNXC_DWN8_BUF];
  __m256 mL[ONNXC_DWN8_MAX / 8], mR[ONNXC_DWN8_MAX / 8];
  onnxc_epi ev = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
  const int fast = e && !e->res && !e->bias_cols && ONNXC_ACT8_OK(e->act); /* the epilogue per vector here */
  int v, i, col = 0, oc;
  if (e) ev = *e;
  for (v = 0; v < nv; v++) { /* lanes not in the first (mL) / last (mR) column */
    int l[8], r[8];
    for (i = 0; i < 8; i++) {
      l[i] = col != 0 ? -1 : 0;
      r[i] = col != W - 1 ? -1 : 0;
      if (++col == W) col = 0;
    }
    mL[v] = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(const void *)l));
    mR[v] = _mm256_castsi256_ps(_mm256_loadu_si256((const __m256i *)(const void *)r));
  }
  for (i = 0; i < 8 * nv + 40; i++) buf[i] = buf[ONNXC_DWN8_BUF + i] = 0.0f; /* the part in use */
  for (v = 0; v + 1 < nv; v++) _mm256_storeu_ps(buf + 16 + 8L * v, _mm256_loadu_ps(x + 8L * v));
  _mm256_storeu_ps(buf + 16 + 8L * v, _mm256_maskload_ps(x + 8L * v, onnxc_mask8((int)(HW - 8L * v))));
  for (oc = 0; oc < CO; oc++) {
    const float *wc = w + (long)oc * 9, *pl = buf + (oc & 1) * ONNXC_DWN8_BUF + 16;
    float *yc = y + (long)oc * HW;
    const __m256 w00 = _mm256_set1_ps(wc[0]), w01 = _mm256_set1_ps(wc[1]), w02 = _mm256_set1_ps(wc[2]);
    const __m256 w10 = _mm256_set1_ps(wc[3]), w11 = _mm256_set1_ps(wc[4]), w12 = _mm256_set1_ps(wc[5]);
    const __m256 w20 = _mm256_set1_ps(wc[6]), w21 = _mm256_set1_ps(wc[7]), w22 = _mm256_set1_ps(wc[8]);
    const __m256 bv = fast && ev.bias ? _mm256_set1_ps(ev.bias[oc]) : _mm256_setzero_ps();
    __m256 gs = _mm256_setzero_ps(), Lp = _mm256_setzero_ps(), L0, C0, R0; /* gs: the plane's sum for ev.sum */
    if (oc + 1 < CO) { /* the next channel's plane into the other buffer (loads right after the
                          stores of a copy waited for them) */
      const float *xn = x + (long)((oc + 1) / mult) * HW;
      float *pn = buf + ((oc + 1) & 1) * ONNXC_DWN8_BUF + 16;
      for (v = 0; v + 1 < nv; v++) _mm256_storeu_ps(pn + 8L * v, _mm256_loadu_ps(xn + 8L * v));
      _mm256_storeu_ps(pn + 8L * v, _mm256_maskload_ps(xn + 8L * v, onnxc_mask8((int)(HW - 8L * v))));
    }
    ONNXC_DW3N8_SUMS(pl, L0, C0, R0)
    for (v = 0; v < nv; v++) { /* the output one vector behind the column sums */
      const int n = HW - 8L * v < 8 ? (int)(HW - 8L * v) : 8;
      __m256 L1, C1, R1, a;
      ONNXC_DW3N8_SUMS(pl + 8L * (v + 1), L1, C1, R1)
      a = _mm256_add_ps(C0, _mm256_and_ps(mL[v], ONNXC_SHR7(L0, Lp))); /* L(p - 1) */
      a = _mm256_add_ps(a, _mm256_and_ps(mR[v], ONNXC_SHR1(R1, R0)));  /* R(p + 1) */
      if (fast) {
        a = onnxc_act8(a, ev.act, ev.alpha, ev.beta);
        if (ev.sum) gs = _mm256_add_ps(gs, _mm256_and_ps(_mm256_castsi256_ps(onnxc_mask8(n)), a));
      }
      onnxc_storen8(yc + 8L * v, a, n);
      Lp = L0;
      L0 = L1;
      C0 = C1;
      R0 = R1;
    }
    if (e && !fast) onnxc_epi_tile(&ev, yc, HW, oc, 1, 0, (int)HW);
    if (fast && ev.sum) {
      float t[8];
      _mm256_storeu_ps(t, gs);
      ev.sum[oc] += ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
    }
  }
  return fast;
}

/* Depthwise 3x3, stride 1, PW = 1 across rows of a multiple of 8 columns (OW = IW), PH 0 or 1
   (the bands of a DwBlock: 0), on 8 lanes: per output row and vector, one load from each of the
   three input rows gives the kernel columns' sums L, C, R (onnxc_dw3n8's), out = C + L shifted
   in from the left + R from the right, the row's first and last vectors taking zeros from
   outside.  No plane copy, no masks, no line-crossing loads of the taps: the padded-plane form
   took EfficientNet-B0's 32 x 112 x 112 layer (with SiLU) 1.05M TSC ticks.  Returns whether the
   epilogue ran here. */
ONNXC_MAYBE_UNUSED static int onnxc_dw3r8(int CO, int mult, const float *x, int IH, int W, const float *w, int PH, float *y,
                                          int OH, const onnxc_epi *e) {
  const long IHW = (long)IH * W, OHW = (long)OH * W;
  const int nv = W / 8;
  onnxc_epi ev = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
  const int fast = e && !e->res && !e->bias_cols && ONNXC_ACT8_OK(e->act); /* the epilogue per vector here */
  const int silu = fast && e->act == ONNXC_ACT_SILU;
  const __m256 z = _mm256_setzero_ps();
  int oc, oh, v;
  if (e) ev = *e;
  for (oc = 0; oc < CO; oc++) {
    const float *wc = w + (long)oc * 9, *xc = x + (long)(oc / mult) * IHW;
    float *yc = y + (long)oc * OHW;
    const __m256 w00 = _mm256_set1_ps(wc[0]), w01 = _mm256_set1_ps(wc[1]), w02 = _mm256_set1_ps(wc[2]);
    const __m256 w10 = _mm256_set1_ps(wc[3]), w11 = _mm256_set1_ps(wc[4]), w12 = _mm256_set1_ps(wc[5]);
    const __m256 w20 = _mm256_set1_ps(wc[6]), w21 = _mm256_set1_ps(wc[7]), w22 = _mm256_set1_ps(wc[8]);
    const __m256 bv = fast && ev.bias ? _mm256_set1_ps(ev.bias[oc]) : z;
    __m256 gs = z; /* the plane's sum for ev.sum */
    for (oh = 0; oh < OH; oh++) {
      const int r = oh - PH; /* input rows r, r + 1, r + 2 (zero outside) */
      const float *ru = r >= 0 && r < IH ? xc + (long)r * W : (const float *)0;
      const float *rm = r + 1 >= 0 && r + 1 < IH ? xc + (long)(r + 1) * W : (const float *)0;
      const float *rd = r + 2 >= 0 && r + 2 < IH ? xc + (long)(r + 2) * W : (const float *)0;
      float *yr = yc + (long)oh * W;
      __m256 Lp = z, L0, C0, R0;
#define ONNXC_DW3R8_SUMS(o, L, C, R)                                                                 \
  {                                                                                                 \
    const __m256 u_ = ru ? _mm256_loadu_ps(ru + (o)) : z, m_ = rm ? _mm256_loadu_ps(rm + (o)) : z;    \
    const __m256 d_ = rd ? _mm256_loadu_ps(rd + (o)) : z;                                           \
    C = _mm256_fmadd_ps(w21, d_, _mm256_fmadd_ps(w11, m_, _mm256_fmadd_ps(w01, u_, bv)));           \
    L = _mm256_fmadd_ps(w20, d_, _mm256_fmadd_ps(w10, m_, _mm256_mul_ps(w00, u_)));                 \
    R = _mm256_fmadd_ps(w22, d_, _mm256_fmadd_ps(w12, m_, _mm256_mul_ps(w02, u_)));                 \
  }
      ONNXC_DW3R8_SUMS(0, L0, C0, R0)
      for (v = 0; v < nv; v++) {
        __m256 L1 = z, C1 = z, R1 = z, a;
        if (v + 1 < nv) ONNXC_DW3R8_SUMS(8 * v + 8, L1, C1, R1)
        a = _mm256_add_ps(_mm256_add_ps(C0, ONNXC_SHR7(L0, Lp)), ONNXC_SHR1(R1, R0));
        if (fast && !silu) {
          a = onnxc_act8(a, ev.act, ev.alpha, ev.beta);
          if (ev.sum) gs = _mm256_add_ps(gs, a);
        }
        _mm256_storeu_ps(yr + 8 * v, a);
        Lp = L0;
        L0 = L1;
        C0 = C1;
        R0 = R1;
      }
#undef ONNXC_DW3R8_SUMS
      if (silu) /* over the row just stored, two vectors per step: independent SiLU chains (in
                   the loop above each waited on its sums: 32 x 112 x 112, 0.79M -> 0.62M) */
        for (v = 0; v < nv; v += 2) {
          const __m256 t0 = _mm256_loadu_ps(yr + 8 * v), t1 = v + 1 < nv ? _mm256_loadu_ps(yr + 8 * v + 8) : z;
          const __m256 s0 = _mm256_div_ps(t0, onnxc_sigden8(t0)), s1 = _mm256_div_ps(t1, onnxc_sigden8(t1));
          _mm256_storeu_ps(yr + 8 * v, s0);
          if (v + 1 < nv) _mm256_storeu_ps(yr + 8 * v + 8, s1);
          if (ev.sum) gs = _mm256_add_ps(gs, _mm256_add_ps(s0, s1));
        }
    }
    if (e && !fast) onnxc_epi_tile(&ev, yc, OHW, oc, 1, 0, (int)OHW);
    if (fast && ev.sum) {
      float t[8];
      _mm256_storeu_ps(t, gs);
      ev.sum[oc] += ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
    }
  }
  return fast;
}

/* onnxc_dw2d's AVX2 form: input plane xc into its zero-padded copy b (Hp rows of Wp floats:
   padded row r is input row r - PH; for SW = 2 each row split into even and odd padded
   columns, Wq floats each); first: b is new (its rows outside the input get zeroed too). */
ONNXC_MAYBE_UNUSED static void onnxc_dw8_fill(float *b, const float *xc, int Hp, int Wp, int Wq, int PH, int PW, int IH,
                                              int IW, int SW, int first) {
  int r, i;
  for (r = 0; r < Hp; r++) {
    float *row = b + (long)r * Wp;
    const int ih = r - PH;
    const float *src = xc + (long)ih * IW;
    /* the padding is zeroed by the first fill of a buffer only: the fills of later planes
       write the same columns of the same rows (the zeroing was half of a 3x3 stride-2 layer's
       time on a 192 x 28 x 28 plane once its taps took four rows per pass).  (Vector stores
       past the row's end zero the next row's start, which is written after it, or stays zero;
       b has 8 floats to spare.) */
    if (first)
      for (i = 0; i < Wp; i += 8) _mm256_storeu_ps(row + i, _mm256_setzero_ps());
    if (ih < 0 || ih >= IH) continue;
    if (SW == 1) {
      for (i = 0; i + 8 <= IW; i += 8) _mm256_storeu_ps(row + PW + i, _mm256_loadu_ps(src + i));
      for (; i < IW; i++) row[PW + i] = src[i];
      continue;
    }
    /* padded column q = PW + i goes to phase q & 1, index q >> 1: 16 columns are 8 of each phase
       (even lanes, odd lanes) */
    for (i = 0; i + 16 <= IW; i += 16) {
      const int q = PW + i;
      const __m256 a = _mm256_loadu_ps(src + i), c = _mm256_loadu_ps(src + i + 8);
      const __m256 ev = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, c, 0x88)), 0xD8));
      const __m256 od = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, c, 0xDD)), 0xD8));
      _mm256_storeu_ps(row + (q & 1) * Wq + (q >> 1), ev);
      _mm256_storeu_ps(row + ((q + 1) & 1) * Wq + ((q + 1) >> 1), od);
    }
    for (; i < IW; i++) row[((PW + i) & 1) * Wq + ((PW + i) >> 1)] = src[i];
  }
}
#endif

/* onnxc_dw2d's forms; returns whether the form added up e->sum itself. */
#if defined(ONNXC_AVX512)
/* The taps of two output rows of a 3x3 stride-1 depthwise plane at columns ow0.. (onnxc_dw2d_k):
   input rows q0..q3, loads by LD_(mask, pointer); the sums a (row oh) and a2 (row oh + 1) as
   a + b and a2 + b2. */
#define ONNXC_DWLU(k, p) _mm512_loadu_ps(p)
#define ONNXC_DW3P(LD_)                                                                            \
  {                                                                                                \
    const __m512 l1 = LD_(kl, q1 + ow0 - 1), c1 = LD_(kc, q1 + ow0), r1 = LD_(kr, q1 + ow0 + 1);   \
    const __m512 l2 = LD_(kl, q2 + ow0 - 1), c2 = LD_(kc, q2 + ow0), r2 = LD_(kr, q2 + ow0 + 1);   \
    const __m512 l0 = LD_(kl & v0, q0 + ow0 - 1), c0 = LD_(kc & v0, q0 + ow0);                     \
    const __m512 r0 = LD_(kr & v0, q0 + ow0 + 1), l3 = LD_(kl & v3, q3 + ow0 - 1);                 \
    const __m512 c3 = LD_(kc & v3, q3 + ow0), r3 = LD_(kr & v3, q3 + ow0 + 1);                     \
    a = _mm512_mul_ps(w11, c1), b = _mm512_mul_ps(w10, l1);                                        \
    a2 = _mm512_mul_ps(w11, c2), b2 = _mm512_mul_ps(w10, l2);                                      \
    a = _mm512_fmadd_ps(w12, r1, a);                                                               \
    a2 = _mm512_fmadd_ps(w12, r2, a2);                                                             \
    b = _mm512_fmadd_ps(w00, l0, b);                                                               \
    b2 = _mm512_fmadd_ps(w00, l1, b2);                                                             \
    a = _mm512_fmadd_ps(w01, c0, a);                                                               \
    a2 = _mm512_fmadd_ps(w01, c1, a2);                                                             \
    b = _mm512_fmadd_ps(w02, r0, b);                                                               \
    b2 = _mm512_fmadd_ps(w02, r1, b2);                                                             \
    a = _mm512_fmadd_ps(w20, l2, a);                                                               \
    a2 = _mm512_fmadd_ps(w20, l3, a2);                                                             \
    b = _mm512_fmadd_ps(w21, c2, b);                                                               \
    b2 = _mm512_fmadd_ps(w21, c3, b2);                                                             \
    a = _mm512_fmadd_ps(w22, r2, a);                                                               \
    a2 = _mm512_fmadd_ps(w22, r3, a2);                                                             \
  }
#endif

#if defined(ONNXC_AVX2)
/* The fused epilogue of onnxc_dw2d_k's AVX2 form on n (4 or 8) sums: the bias, then the
   activation.  SiLU as n independent chains, unrolled: in the store loop each waited on the
   last (EfficientNet-B0's 32 x 112 x 112 layer 1.05M TSC ticks). */
ONNXC_MAYBE_UNUSED static inline void onnxc_dw8_act(__m256 *a, int n, const onnxc_epi *ev, __m256 bv) {
  int q;
  if (ev->act == ONNXC_ACT_SILU) {
    ONNXC_UNROLL for (q = 0; q < 8; q++) if (q < n) {
      const __m256 t = _mm256_add_ps(a[q], bv);
      a[q] = _mm256_div_ps(t, onnxc_sigden8(t));
    }
  } else
    for (q = 0; q < n; q++) a[q] = onnxc_act8(_mm256_add_ps(a[q], bv), ev->act, ev->alpha, ev->beta);
}
#endif

ONNXC_MAYBE_UNUSED static int onnxc_dw2d_k(int CO, int mult, const float *x, int IH, int IW, const float *w, int KH,
                                           int KW, int SH, int SW, int PH, int PW, int DH, int DW, float *y, int OH,
                                           int OW, const onnxc_epi *e) {
  const long IHW = (long)IH * IW, OHW = (long)OH * OW;
  int oc;
#if defined(ONNXC_AVX512)
  /* 3x3 stride 2 with rows of at least 12 outputs: the row kernel below (also for PH = 0, rows
     given explicitly: the bands of a DwBlock); on a Zen 4 core 192 x 28 x 28: 34 us against
     45 us with channels in lanes, equal at 56 x 56 and up, slower below 12 columns */
  const int rows3s2 = KH == 3 && KW == 3 && SH == 2 && SW == 2 && DH == 1 && DW == 1 && PH <= 1 && PW == 1 && OW >= 12;
  /* 3x3 "same" stride 1 on narrow planes: the plane-as-one-row kernel below (no transposes;
     measured faster on a Zen 4 core, e.g. 64 x 25 x 5: 3.6 us against 5.6 us) */
  const int narrow3 = SH == 1 && SW == 1 && KH == 3 && KW == 3 && DH == 1 && DW == 1 && PH == 1 && PW == 1 && OH == IH &&
                      OW == IW && OW < 16 && OHW <= 16 * 1024;
  if (KH * KW <= ONNXC_KPMAX && (KH * KW > 9 || SH > 1 || SW > 1 || OW < 16 || mult > 1) && !rows3s2 && !narrow3) {
    /* channels in lanes where its transposes pay: small planes with big kernels or strides */
    const int Hr = (OH - 1) * SH + (KH - 1) * DH + 1, Wr = (OW - 1) * SW + (KW - 1) * DW + 1;
    const long Hp = Hr > PH + IH ? Hr : PH + IH, Wp = Wr > PW + IW ? Wr : PW + IW;
    if (Hp * Wp <= ONNXC_DWC_PIX) {
      onnxc_dwc16(CO, mult, x, IH, IW, w, KH, KW, SH, SW, PH, PW, DH, DW, y, OH, OW, e);
      return 1; /* the sums taken in the lanes */
    }
  }
  /* Input rows go once each into a ring of zero-padded rows on the stack, split into SW
     phases (phase ph holds padded columns SW*i + ph), so that tap (kh, kw) of 16 outputs is
     one unmasked load at column ow + kw*DW/SW of phase kw*DW % SW. */
  /* rows are copied two output rows ahead of their use: loads from rows just stored would wait
     for the stores (no store forwarding for partly overlapping vectors) */
  const int span = (KH - 1) * DH + 1 + 2 * SH, LW = ((OW - 1) * SW + (KW - 1) * DW + SW) / SW + 16;
  if (narrow3 && OHW <= ONNXC_DWN_MAX) {
    onnxc_dw3n(CO, mult, x, OH, OW, w, y, e);
    return 1; /* with the sums */
  }
  if (SH == 1 && SW == 1 && KH == 3 && KW == 3 && DH == 1 && DW == 1 && PH == 1 && PW == 1 && OH == IH && OW == IW &&
      OW < 16 && OHW <= 16 * 1024) {
    /* 3x3 "same", narrow planes: the plane as one row of vectors; tap masks from five per vector
       (not the first row / last row / first column / last column / inside the plane) */
    const int nv = (int)((OHW + 15) / 16);
    __mmask16 mt[5 * 1024];
    __mmask16 *mT = mt, *mB = mt + nv, *mL = mt + 2 * nv, *mR = mt + 3 * nv, *mI = mt + 4 * nv;
    onnxc_epi ev = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
    int v, i, ow = 0;
    if (e) ev = *e;
    for (v = 0; v < nv; v++) {
      unsigned t = 0, b = 0, l = 0, r = 0, in = 0;
      for (i = 0; i < 16; i++) {
        const long j = 16L * v + i;
        if (j < OHW) {
          in |= 1u << i;
          if (j >= OW) t |= 1u << i;
          if (j < OHW - OW) b |= 1u << i;
          if (ow != 0) l |= 1u << i;
          if (ow != OW - 1) r |= 1u << i;
        }
        if (++ow == OW) ow = 0;
      }
      mT[v] = (__mmask16)t;
      mB[v] = (__mmask16)b;
      mL[v] = (__mmask16)l;
      mR[v] = (__mmask16)r;
      mI[v] = (__mmask16)in;
    }
    for (oc = 0; oc < CO; oc++) {
      const float *xc = x + (long)(oc / mult) * IHW, *wc = w + (long)oc * 9;
      float *yc = y + (long)oc * OHW;
      const __m512 w00 = _mm512_set1_ps(wc[0]), w01 = _mm512_set1_ps(wc[1]), w02 = _mm512_set1_ps(wc[2]);
      const __m512 w10 = _mm512_set1_ps(wc[3]), w11 = _mm512_set1_ps(wc[4]), w12 = _mm512_set1_ps(wc[5]);
      const __m512 w20 = _mm512_set1_ps(wc[6]), w21 = _mm512_set1_ps(wc[7]), w22 = _mm512_set1_ps(wc[8]);
      for (v = 0; v < nv; v++) {
        const float *p = xc + 16L * v;
        const __mmask16 T = mT[v], B = mB[v], L = mL[v], R = mR[v], I = mI[v];
        ONNXC_PF(p, 4 * OW + 16, _MM_HINT_T0);
        __m512 a = _mm512_mul_ps(w11, _mm512_maskz_loadu_ps(I, p));
        __m512 a2 = _mm512_mul_ps(w00, _mm512_maskz_loadu_ps(T & L, p - OW - 1));
        a2 = _mm512_fmadd_ps(w01, _mm512_maskz_loadu_ps(T, p - OW), a2);
        a = _mm512_fmadd_ps(w02, _mm512_maskz_loadu_ps(T & R, p - OW + 1), a);
        a2 = _mm512_fmadd_ps(w10, _mm512_maskz_loadu_ps(I & L, p - 1), a2);
        a = _mm512_fmadd_ps(w12, _mm512_maskz_loadu_ps(I & R, p + 1), a);
        a2 = _mm512_fmadd_ps(w20, _mm512_maskz_loadu_ps(B & L, p + OW - 1), a2);
        a = _mm512_fmadd_ps(w21, _mm512_maskz_loadu_ps(B, p + OW), a);
        a2 = _mm512_fmadd_ps(w22, _mm512_maskz_loadu_ps(B & R, p + OW + 1), a2);
        a = _mm512_add_ps(a, a2);
        if (e) a = onnxc_epi16(&ev, a, I, oc, 16 * v);
        _mm512_mask_storeu_ps(yc + 16L * v, I, a);
      }
    }
    return 0;
  }
  if (SH == 1 && SW == 1 && KH == 3 && KW == 3 && DH == 1 && DW == 1 && (PH == 1 ? OH == IH : PH == 0 && IH == OH + 2) &&
      PW == 1 && OW == IW && OW >= 2) {
    /* 3x3 "same", stride 1 (or "same" across only: PH = 0, two more input rows than output
       rows): rows of 16-column vectors; only the first and last vector of a row need column
       masks, rows outside the input are skipped */
    onnxc_epi ev = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
    int simple = 0, clamp = 0, fast = 0;
    __m512 lo = _mm512_setzero_ps(), hi = lo;
    if (e) {
      ev = *e;
      simple = onnxc_epi_simple(&ev, &clamp, &lo, &hi);
      fast = onnxc_epi_fast(&ev); /* EfficientNet's SiLU, MobileNetV3's HardSwish */
    }
    for (oc = 0; oc < CO; oc++) {
      const float *xc = x + (long)(oc / mult) * IHW, *wc = w + (long)oc * 9;
      float *yc = y + (long)oc * OHW;
      const __m512 w00 = _mm512_set1_ps(wc[0]), w01 = _mm512_set1_ps(wc[1]), w02 = _mm512_set1_ps(wc[2]);
      const __m512 w10 = _mm512_set1_ps(wc[3]), w11 = _mm512_set1_ps(wc[4]), w12 = _mm512_set1_ps(wc[5]);
      const __m512 w20 = _mm512_set1_ps(wc[6]), w21 = _mm512_set1_ps(wc[7]), w22 = _mm512_set1_ps(wc[8]);
      const __m512 bv = (simple || fast) && ev.bias ? _mm512_set1_ps(ev.bias[oc]) : _mm512_setzero_ps();
      int oh, ow0;
      for (oh = 0; oh + 1 < OH; oh += 2) {
        /* two output rows from four input rows: each input vector is loaded once for both (12
           loads per two output vectors instead of 18; the loads, most of them across a cache
           line, bound this kernel); rows outside the input load nothing */
        const int i0 = oh - PH;
        const __mmask16 v0 = i0 >= 0 ? (__mmask16)0xffff : (__mmask16)0, v3 = i0 + 3 < IH ? (__mmask16)0xffff : (__mmask16)0;
        const float *q1 = xc + (long)(i0 + 1) * IW, *q2 = q1 + IW, *q0 = v0 ? q1 - IW : q1, *q3 = v3 ? q2 + IW : q2;
        for (ow0 = 0; ow0 < OW; ow0 += 16) {
          const __mmask16 kc = ONNXC_MASK16(OW - ow0), kl = ow0 == 0 ? (__mmask16)(kc & 0xfffe) : kc;
          const __mmask16 kr = ONNXC_MASK16(OW - 1 - ow0);
          __m512 a, b, a2, b2;
          /* whole vectors inside rows that all exist: plain loads (a masked load is one more uop
             on an Intel core's FMA ports; alone, TSC ticks per output vector: 8 x 112 x 112
             10.1 -> 8.7, 24 x 56 x 56 12.5 -> 11.9) */
          if (ow0 > 0 && OW - ow0 >= 17 && v0 && v3) ONNXC_DW3P(ONNXC_DWLU)
          else ONNXC_DW3P(_mm512_maskz_loadu_ps)
          if (oh + 4 < OH) { /* the input rows two rows ahead */
            ONNXC_PF(q3, IW + ow0, _MM_HINT_T0);
            ONNXC_PF(q3, 2 * IW + ow0, _MM_HINT_T0);
          }
          a = _mm512_add_ps(a, b);
          a2 = _mm512_add_ps(a2, b2);
          onnxc_dw_pair_out(&ev, e, simple, clamp, fast, bv, lo, hi, a, a2, kc, oc, yc, oh, OW, ow0);
        }
      }
      if (oh < OH) { /* an odd last row */
        const float *r1 = xc + (long)(oh + 1 - PH) * IW, *r0 = r1 - IW, *r2 = r1 + IW;
        const int top = oh - PH >= 0, bot = oh + 2 - PH < IH;
        for (ow0 = 0; ow0 < OW; ow0 += 16) {
          const __mmask16 kc = ONNXC_MASK16(OW - ow0), kl = ow0 == 0 ? (__mmask16)(kc & 0xfffe) : kc;
          const __mmask16 kr = ONNXC_MASK16(OW - 1 - ow0);
          __m512 a = _mm512_mul_ps(w11, _mm512_maskz_loadu_ps(kc, r1 + ow0));
          __m512 b = _mm512_mul_ps(w10, _mm512_maskz_loadu_ps(kl, r1 + ow0 - 1));
          a = _mm512_fmadd_ps(w12, _mm512_maskz_loadu_ps(kr, r1 + ow0 + 1), a);
          if (top) {
            b = _mm512_fmadd_ps(w00, _mm512_maskz_loadu_ps(kl, r0 + ow0 - 1), b);
            a = _mm512_fmadd_ps(w01, _mm512_maskz_loadu_ps(kc, r0 + ow0), a);
            b = _mm512_fmadd_ps(w02, _mm512_maskz_loadu_ps(kr, r0 + ow0 + 1), b);
          }
          if (bot) {
            a = _mm512_fmadd_ps(w20, _mm512_maskz_loadu_ps(kl, r2 + ow0 - 1), a);
            b = _mm512_fmadd_ps(w21, _mm512_maskz_loadu_ps(kc, r2 + ow0), b);
            a = _mm512_fmadd_ps(w22, _mm512_maskz_loadu_ps(kr, r2 + ow0 + 1), a);
          }
          if (oh + 3 < OH) { /* the input row two rows ahead */
            ONNXC_PF(r2, 2 * IW + ow0, _MM_HINT_T0);
          }
          a = _mm512_add_ps(a, b);
          if (e) a = onnxc_epi16(&ev, a, kc, oc, (int)((long)oh * OW + ow0));
          _mm512_mask_storeu_ps(yc + (long)oh * OW + ow0, kc, a);
        }
      }
    }
    return 0;
  }
  if (SH == 2 && SW == 2 && KH == 3 && KW == 3 && DH == 1 && DW == 1 && PH <= 1 && PW == 1 && OW >= 2) {
    /* 3x3, stride 2: input columns 2ow-1, 2ow, 2ow+1 of 16 outputs are the odd lanes of the 32
       columns from 2ow0-2 and the even and odd lanes of the 32 from 2ow0 */
    onnxc_epi ev = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
    const __m512i ev_i = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i od_i = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    int simple = 0, clamp = 0, fast = 0;
    __m512 lo = _mm512_setzero_ps(), hi = lo;
    if (e) {
      ev = *e;
      simple = onnxc_epi_simple(&ev, &clamp, &lo, &hi);
      fast = onnxc_epi_fast(&ev); /* EfficientNet's SiLU, MobileNetV3's HardSwish */
    }
    for (oc = 0; oc < CO; oc++) {
      const float *xc = x + (long)(oc / mult) * IHW, *wc = w + (long)oc * 9;
      float *yc = y + (long)oc * OHW;
      const __m512 bv = (simple || fast) && ev.bias ? _mm512_set1_ps(ev.bias[oc]) : _mm512_setzero_ps();
      int oh = 0, ow0, kh;
      for (; oh + 1 < OH && 2 * oh + 4 - PH < IH; oh += 2) {
        /* two output rows from five input rows (the middle one serves both: its even/odd
           split is done once); the top row may be the padding (PH = 1, oh = 0) */
        __m512 po[5];
        const int i0 = 2 * oh - PH;
        po[0] = po[1] = po[2] = po[3] = po[4] = _mm512_setzero_ps();
        for (ow0 = 0; ow0 < OW; ow0 += 16) {
          const int c0 = 2 * ow0;
          const __mmask16 ka = ONNXC_MASK16(IW - c0), kb = ONNXC_MASK16(IW - c0 - 16), km = ONNXC_MASK16(OW - ow0);
          __m512 s0 = _mm512_setzero_ps(), t0 = s0, s1 = s0, t1 = s0;
          for (kh = 0; kh < 5; kh++) {
            const int ih = i0 + kh;
            const float *r;
            __m512 a, b, od, evn, sh;
            if (ih < 0) continue;
            r = xc + (long)ih * IW + c0;
            a = _mm512_maskz_loadu_ps(ka, r);
            b = _mm512_maskz_loadu_ps(kb, r + 16);
            od = _mm512_permutex2var_ps(a, od_i, b);
            evn = _mm512_permutex2var_ps(a, ev_i, b);
            sh = _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(od), _mm512_castps_si512(po[kh]), 15));
            po[kh] = od;
            if (kh < 3) {
              s0 = _mm512_fmadd_ps(_mm512_set1_ps(wc[3 * kh]), sh, s0);
              t0 = _mm512_fmadd_ps(_mm512_set1_ps(wc[3 * kh + 1]), evn, t0);
              s0 = _mm512_fmadd_ps(_mm512_set1_ps(wc[3 * kh + 2]), od, s0);
            }
            if (kh >= 2) {
              s1 = _mm512_fmadd_ps(_mm512_set1_ps(wc[3 * kh - 6]), sh, s1);
              t1 = _mm512_fmadd_ps(_mm512_set1_ps(wc[3 * kh - 5]), evn, t1);
              s1 = _mm512_fmadd_ps(_mm512_set1_ps(wc[3 * kh - 4]), od, s1);
            }
          }
          if (2 * oh + 8 - PH < IH) { /* the rows of the next pass */
            const float *pr = xc + (long)(i0 + 5) * IW + c0;
            int j;
            for (j = 0; j < 4; j++) {
              ONNXC_PF(pr, j * IW, _MM_HINT_T0);
              ONNXC_PF(pr, j * IW + 16, _MM_HINT_T0);
            }
          }
          s0 = _mm512_add_ps(s0, t0);
          s1 = _mm512_add_ps(s1, t1);
          onnxc_dw_pair_out(&ev, e, simple, clamp, fast, bv, lo, hi, s0, s1, km, oc, yc, oh, OW, ow0);
        }
      }
      for (; oh < OH; oh++) {
        /* per kernel row, the odd lanes (columns 2ow+1) of the previous 16 outputs: column
           2ow-1 of lane 0 is lane 15 of those (the left padding, 0, at ow0 = 0) */
        __m512 po[3];
        po[0] = po[1] = po[2] = _mm512_setzero_ps();
        for (ow0 = 0; ow0 < OW; ow0 += 16) {
          const int c0 = 2 * ow0; /* input column of lane 0, tap kw = 1 */
          const __mmask16 ka = ONNXC_MASK16(IW - c0), kb = ONNXC_MASK16(IW - c0 - 16), km = ONNXC_MASK16(OW - ow0);
          __m512 acc = _mm512_setzero_ps(), acc2 = acc;
          for (kh = 0; kh < 3; kh++) {
            const long ih = 2L * oh + kh - PH; /* long: no int overflow for the compiler to assume */
            const float *r;
            __m512 a, b, od;
            if (ih < 0 || ih >= IH) continue;
            r = xc + (long)ih * IW + c0;
            a = _mm512_maskz_loadu_ps(ka, r);
            b = _mm512_maskz_loadu_ps(kb, r + 16);
            od = _mm512_permutex2var_ps(a, od_i, b);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(wc[3 * kh]),
                                  _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(od), _mm512_castps_si512(po[kh]), 15)), acc);
            acc2 = _mm512_fmadd_ps(_mm512_set1_ps(wc[3 * kh + 1]), _mm512_permutex2var_ps(a, ev_i, b), acc2);
            acc = _mm512_fmadd_ps(_mm512_set1_ps(wc[3 * kh + 2]), od, acc);
            po[kh] = od;
          }
          if (2L * oh + 4 < IH) { /* the rows of the output row after next */
            const float *pr = xc + (2L * oh + 3) * IW + c0;
            _mm_prefetch((const char *)pr, _MM_HINT_T0);
            ONNXC_PF(pr, 16, _MM_HINT_T0);
            ONNXC_PF(pr, IW, _MM_HINT_T0);
            ONNXC_PF(pr, IW + 16, _MM_HINT_T0);
          }
          acc = _mm512_add_ps(acc, acc2);
          /* (long: GCC -O2 proved an int overflow of oh * OW at an iteration this loop never
             reaches and failed -Werror=aggressive-loop-optimizations; the same in the kernels here) */
          if (e) acc = onnxc_epi16(&ev, acc, km, oc, (int)((long)oh * OW + ow0));
          _mm512_mask_storeu_ps(yc + (long)oh * OW + ow0, km, acc);
        }
      }
    }
    return 0;
  }
  if (SH == 1 && SW == 1 && OH == IH && OW == IW && OW < 16 && KH * KW <= ONNXC_KPMAX && OHW <= 256) {
    /* "same" stride 1 on a small plane: the plane as one row of at most 16 vectors; tap t reads
       input j + sh[t], lane masks per (vector, tap) from a table */
    const int KP = KH * KW, nv = (int)((OHW + 15) / 16);
    __mmask16 tab[16 * ONNXC_KPMAX];
    int sh[ONNXC_KPMAX], v, t;
    onnxc_epi ev = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
    if (e) ev = *e;
    for (t = 0; t < KP; t++) {
      const int dh = t / KW * DH - PH, dw = t % KW * DW - PW;
      sh[t] = dh * IW + dw;
      for (v = 0; v < nv; v++) {
        const int n = (int)(OHW - 16L * v < 16 ? OHW - 16L * v : 16);
        tab[v * KP + t] = (__mmask16)onnxc_tapmask(16 * v, n, OW, OH, dh, dw);
      }
    }
    for (oc = 0; oc < CO; oc++) {
      const float *xc = x + (long)(oc / mult) * IHW, *wc = w + (long)oc * KP;
      float *yc = y + (long)oc * OHW;
      for (v = 0; v < nv; v += 2) {
        const int two = v + 1 < nv;
        const __mmask16 *tb = tab + v * KP;
        const float *xv = xc + 16L * v;
        __m512 a0 = _mm512_setzero_ps(), a1 = a0;
        for (t = 0; t < KP; t++) {
          const __m512 wv = _mm512_set1_ps(wc[t]);
          a0 = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(tb[t], xv + sh[t]), a0);
          if (two) a1 = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(tb[KP + t], xv + 16 + sh[t]), a1);
        }
        {
          const __mmask16 k0 = ONNXC_MASK16((int)(OHW - 16L * v)), k1 = ONNXC_MASK16((int)(OHW - 16L * v - 16));
          if (e) a0 = onnxc_epi16(&ev, a0, k0, oc, 16 * v);
          _mm512_mask_storeu_ps(yc + 16L * v, k0, a0);
          if (two) {
            if (e) a1 = onnxc_epi16(&ev, a1, k1, oc, 16 * v + 16);
            _mm512_mask_storeu_ps(yc + 16L * v + 16, k1, a1);
          }
        }
      }
    }
    return 0;
  }
  if (SW == 1 && KW <= 16 && KH * KW <= 64) {
    /* column stride 1 (any row stride), any kernel: rows of 16-column vectors, per vector one
       column mask per kw (all ones inside the row), input rows outside the plane skipped */
    onnxc_epi ev = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
    if (e) ev = *e;
    for (oc = 0; oc < CO; oc++) {
      const float *xc = x + (long)(oc / mult) * IHW, *wc = w + (long)oc * KH * KW;
      float *yc = y + (long)oc * OHW;
      int oh, ow0, kh, kw;
      for (oh = 0; oh < OH; oh += 2) /* two output rows share each weight broadcast */
        for (ow0 = 0; ow0 < OW; ow0 += 16) {
          const int nout = OW - ow0 < 16 ? OW - ow0 : 16, two = oh + 1 < OH;
          __mmask16 mkw[16];
          __m512 a0 = _mm512_setzero_ps(), a1 = a0, b0 = a0, b1 = a0;
          for (kw = 0; kw < KW; kw++) {
            const int c0 = ow0 + kw * DW - PW; /* input column of lane 0 */
            const int lo = c0 < 0 ? -c0 : 0, hi = IW - c0 < nout ? IW - c0 : nout;
            mkw[kw] = hi > lo ? (__mmask16)(ONNXC_MASK16(hi) & ~ONNXC_MASK16(lo)) : 0;
          }
          for (kh = 0; kh < KH; kh++) {
            const int ih = oh * SH + kh * DH - PH, ih1 = ih + SH;
            const __mmask16 va = ih >= 0 && ih < IH ? (__mmask16)0xffff : 0;
            const __mmask16 vb = two && ih1 >= 0 && ih1 < IH ? (__mmask16)0xffff : 0;
            const float *ra = xc + (long)(va ? ih : 0) * IW + ow0 - PW, *rb = xc + (long)(vb ? ih1 : 0) * IW + ow0 - PW;
            const float *wr = wc + kh * KW;
            if (!va && !vb) continue;
            if (ih + 3 < IH) ONNXC_PF(xc, (long)(ih + 3) * IW + ow0, _MM_HINT_T0);
            for (kw = 0; kw + 1 < KW; kw += 2) {
              const __m512 w0 = _mm512_set1_ps(wr[kw]), w1 = _mm512_set1_ps(wr[kw + 1]);
              a0 = _mm512_fmadd_ps(w0, _mm512_maskz_loadu_ps(mkw[kw] & va, ra + kw * DW), a0);
              b0 = _mm512_fmadd_ps(w0, _mm512_maskz_loadu_ps(mkw[kw] & vb, rb + kw * DW), b0);
              a1 = _mm512_fmadd_ps(w1, _mm512_maskz_loadu_ps(mkw[kw + 1] & va, ra + (kw + 1) * DW), a1);
              b1 = _mm512_fmadd_ps(w1, _mm512_maskz_loadu_ps(mkw[kw + 1] & vb, rb + (kw + 1) * DW), b1);
            }
            if (kw < KW) {
              const __m512 w0 = _mm512_set1_ps(wr[kw]);
              a0 = _mm512_fmadd_ps(w0, _mm512_maskz_loadu_ps(mkw[kw] & va, ra + kw * DW), a0);
              b0 = _mm512_fmadd_ps(w0, _mm512_maskz_loadu_ps(mkw[kw] & vb, rb + kw * DW), b0);
            }
          }
          {
            const __mmask16 km = ONNXC_MASK16(nout);
            __m512 r = _mm512_add_ps(a0, a1);
            if (e) r = onnxc_epi16(&ev, r, km, oc, (int)((long)oh * OW + ow0));
            _mm512_mask_storeu_ps(yc + (long)oh * OW + ow0, km, r);
            if (two) {
              r = _mm512_add_ps(b0, b1);
              if (e) r = onnxc_epi16(&ev, r, km, oc, (int)((long)(oh + 1) * OW + ow0));
              _mm512_mask_storeu_ps(yc + (long)(oh + 1) * OW + ow0, km, r);
            }
          }
        }
    }
    return 0;
  }
  if (SW == 2 && KW <= 16 && KH * KW <= 64) {
    /* column stride 2 (any row stride), any kernel: 16 outputs of a row read 32 input columns
       per tap (two loads, the even lanes kept); two output rows share each weight broadcast */
    const __m512i ev_i = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    onnxc_epi ev = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
    if (e) ev = *e;
    for (oc = 0; oc < CO; oc++) {
      const float *xc = x + (long)(oc / mult) * IHW, *wc = w + (long)oc * KH * KW;
      float *yc = y + (long)oc * OHW;
      int oh, ow0, kh, kw;
      for (oh = 0; oh < OH; oh += 2)
        for (ow0 = 0; ow0 < OW; ow0 += 16) {
          const int nout = OW - ow0 < 16 ? OW - ow0 : 16, two = oh + 1 < OH, span = 2 * nout - 1;
          __mmask16 ma[16], mb[16];
          __m512 a0 = _mm512_setzero_ps(), b0 = a0;
          for (kw = 0; kw < KW; kw++) {
            const int c0 = 2 * ow0 + kw * DW - PW; /* input column of lane 0 */
            const int lo = c0 < 0 ? -c0 : 0, hi = IW - c0 < span ? IW - c0 : span;
            const unsigned long long bits = hi > lo ? (((1ULL << (hi - lo)) - 1ULL) << lo) : 0ULL;
            ma[kw] = (__mmask16)(bits & 0xffff);
            mb[kw] = (__mmask16)((bits >> 16) & 0xffff);
          }
          for (kh = 0; kh < KH; kh++) {
            const int ih = oh * SH + kh * DH - PH, ih1 = ih + SH;
            const __mmask16 va = ih >= 0 && ih < IH ? (__mmask16)0xffff : 0;
            const __mmask16 vb = two && ih1 >= 0 && ih1 < IH ? (__mmask16)0xffff : 0;
            const float *ra = xc + (long)(va ? ih : 0) * IW + 2 * ow0 - PW, *rb = xc + (long)(vb ? ih1 : 0) * IW + 2 * ow0 - PW;
            const float *wr = wc + kh * KW;
            if (!va && !vb) continue;
            if (ih + 4 < IH) ONNXC_PF(xc, (long)(ih + 4) * IW + 2 * ow0, _MM_HINT_T0);
            for (kw = 0; kw < KW; kw++) {
              const __m512 wv = _mm512_set1_ps(wr[kw]);
              const float *pa = ra + kw * DW, *pb = rb + kw * DW;
              a0 = _mm512_fmadd_ps(wv, _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(ma[kw] & va, pa), ev_i,
                                                              _mm512_maskz_loadu_ps(mb[kw] & va, pa + 16)), a0);
              b0 = _mm512_fmadd_ps(wv, _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(ma[kw] & vb, pb), ev_i,
                                                              _mm512_maskz_loadu_ps(mb[kw] & vb, pb + 16)), b0);
            }
          }
          {
            const __mmask16 km = ONNXC_MASK16(nout);
            if (e) a0 = onnxc_epi16(&ev, a0, km, oc, (int)((long)oh * OW + ow0));
            _mm512_mask_storeu_ps(yc + (long)oh * OW + ow0, km, a0);
            if (two) {
              if (e) b0 = onnxc_epi16(&ev, b0, km, oc, (int)((long)(oh + 1) * OW + ow0));
              _mm512_mask_storeu_ps(yc + (long)(oh + 1) * OW + ow0, km, b0);
            }
          }
        }
    }
    return 0;
  }
  if (SW <= 2 && KW <= 64 && KH * KW <= 256 && (long)span * SW * LW <= ONNXC_DWBUF) {
    float buf[ONNXC_DWBUF];
    onnxc_epi ev = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
    const __m512i ev_i = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i od_i = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const int slot = SW * LW; /* floats per ring slot */
    const float *tp[256];
    float tw[256];
    int tco[64], i, nk, kh, kw;
    if (e) ev = *e;
    for (kw = 0; kw < KW; kw++) tco[kw] = kw * DW % SW * LW + kw * DW / SW;
    for (i = 0; i < span * slot; i++) buf[i] = 0.0f;
    for (oc = 0; oc < CO; oc++) {
      const float *xc = x + (long)(oc / mult) * IHW, *wc = w + (long)oc * KH * KW;
      float *yc = y + (long)oc * OHW;
      int oh, loaded = -1 - PH; /* input rows up to `loaded` are in the ring */
      for (oh = 0; oh < OH; oh++) {
        const int ih0 = oh * SH - PH, ih1 = ih0 + (KH - 1) * DH + 2 * SH;
        int ih, ow0;
        for (ih = loaded + 1 > ih0 ? loaded + 1 : ih0; ih <= ih1; ih++) {
          float *row = buf + (long)(ih % span + span) % span * slot;
          const float *src = xc + (long)ih * IW;
          int c;
          if (ih < 0 || ih >= IH) continue;
          for (c = 0; c < IW; c += 16) ONNXC_PF(src, (long)SH * IW + c, _MM_HINT_T0);
          if (SW == 1) {
            for (c = 0; c < IW; c += 16) {
              const __mmask16 k = ONNXC_MASK16(IW - c);
              _mm512_mask_storeu_ps(row + PW + c, k, _mm512_maskz_loadu_ps(k, src + c));
            }
          } else {
            for (c = 0; c < IW; c += 32) {
              const int n = IW - c, ne = (n + 1) / 2 < 16 ? (n + 1) / 2 : 16, no = n / 2 < 16 ? n / 2 : 16;
              const __m512 a = _mm512_maskz_loadu_ps(ONNXC_MASK16(n), src + c), b = _mm512_maskz_loadu_ps(ONNXC_MASK16(n - 16), src + c + 16);
              const __m512 ve = _mm512_permutex2var_ps(a, ev_i, b), vo = _mm512_permutex2var_ps(a, od_i, b);
              const int q = PW + c; /* padded column of element c */
              if (q % 2 == 0) {
                _mm512_mask_storeu_ps(row + q / 2, ONNXC_MASK16(ne), ve);
                _mm512_mask_storeu_ps(row + LW + q / 2, ONNXC_MASK16(no), vo);
              } else {
                _mm512_mask_storeu_ps(row + LW + q / 2, ONNXC_MASK16(ne), ve);
                _mm512_mask_storeu_ps(row + (q + 1) / 2, ONNXC_MASK16(no), vo);
              }
            }
          }
        }
        if (ih1 > loaded) loaded = ih1;
        nk = 0;
        for (kh = 0; kh < KH; kh++) { /* the taps of this output row: ring row + column, weight */
          const int ihk = ih0 + kh * DH;
          const float *row = buf + (long)((ihk % span + span) % span) * slot;
          if (ihk < 0 || ihk >= IH) continue;
          for (kw = 0; kw < KW; kw++) {
            tp[nk] = row + tco[kw];
            tw[nk++] = wc[kh * KW + kw];
          }
        }
        for (ow0 = 0; ow0 < OW; ow0 += 16) {
          __m512 a0 = _mm512_setzero_ps(), a1 = a0;
          int t = 0;
          for (; t + 1 < nk; t += 2) {
            a0 = _mm512_fmadd_ps(_mm512_set1_ps(tw[t]), _mm512_loadu_ps(tp[t] + ow0), a0);
            a1 = _mm512_fmadd_ps(_mm512_set1_ps(tw[t + 1]), _mm512_loadu_ps(tp[t + 1] + ow0), a1);
          }
          if (t < nk) a0 = _mm512_fmadd_ps(_mm512_set1_ps(tw[t]), _mm512_loadu_ps(tp[t] + ow0), a0);
          {
            const __mmask16 km = ONNXC_MASK16(OW - ow0);
            __m512 r = _mm512_add_ps(a0, a1);
            if (e) r = onnxc_epi16(&ev, r, km, oc, (int)((long)oh * OW + ow0));
            _mm512_mask_storeu_ps(yc + (long)oh * OW + ow0, km, r);
          }
        }
      }
    }
    return 0;
  }
#endif
#if defined(ONNXC_AVX2)
  if (SH == 1 && SW == 1 && KH == 3 && KW == 3 && DH == 1 && DW == 1 && PH == 1 && PW == 1 && OH == IH && OW == IW &&
      OW < 16 && OHW <= ONNXC_DWN8_MAX)
    return onnxc_dw3n8(CO, mult, x, OH, OW, w, y, e);
  if (SH == 1 && SW == 1 && KH == 3 && KW == 3 && DH == 1 && DW == 1 && PW == 1 && OW == IW && IW % 8 == 0 && PH >= 0 &&
      PH <= 1 && OH == IH + 2 * PH - 2)
    return onnxc_dw3r8(CO, mult, x, IH, IW, w, PH, y, OH, e);
  {
    /* Column stride 1 or 2, any kernel up to 7x7: each input plane goes once into a zero-padded
       copy on the stack (for SW = 2 each row split into its even and odd columns), so that tap
       (kh, kw) of 8 outputs is one unmasked load at row oh SH + kh DH, column ow + kw DW / SW of
       phase kw DW % SW; R rows by V vectors share each weight broadcast. */
    const int V = OW > 16 ? 4 : OW > 8 ? 2 : 1, R = 8 / V; /* vectors per row, rows per pass */
    const int Hp = (OH - 1) * SH + (KH - 1) * DH + 1, Wv = (OW + 8 * V - 1) / (8 * V) * 8 * V; /* padded rows; columns per phase */
    const int Wt = Wv + ((KW - 1) * DW) / SW + 1, Wi = (PW + IW + SW - 1) / SW; /* taps read / input columns */
    /* floats per padded row: whole 32-byte vectors (the buffer is aligned), so that the taps at
       kw = 0 (and at kw = 1 of stride 2) load aligned vectors: a Zen core's 256-bit load that is
       not 16-byte aligned costs half again an aligned one */
    const int Wq = ((Wt > Wi ? Wt : Wi) + 7) / 8 * 8, Wp = SW * Wq;
    /* 3x3: four output rows per pass, the nine weights in registers; each input vector loaded
       once for the up to three output rows that read it */
    const int k33 = KH == 3 && KW == 3 && DH == 1 && DW == 1;
    if ((SW == 1 || SW == 2) && KH <= 7 && KW <= 7 && (long)Hp * Wp <= ONNXC_DW8_BUF) {
      float buf_[2 * (ONNXC_DW8_BUF + 8) + 8]; /* two planes: one filled while the other is read */
      float *const buf = buf_ + ((32 - ((uintptr_t)buf_ & 31)) & 31) / 4;
      onnxc_epi ev = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
      const int fast = e && !e->res && !e->bias_cols && ONNXC_ACT8_OK(e->act); /* the epilogue per vector here */
      __m256 wv[49];
      int to[49], i, qr[8], qc[8]; /* tap (kh, kw): its offset in buf from an output's row and column */
      if (e) ev = *e;
      for (i = 0; i < 8; i++) { /* sum i's row and column in a pass (divisions per pass: 8 idiv, 3x the pass's FMAs) */
        qr[i] = i / V;
        qc[i] = 8 * (i % V);
      }
      for (i = 0; i < KH * KW; i++) to[i] = i / KW * DH * Wp + i % KW * DW % SW * Wq + i % KW * DW / SW;
      onnxc_dw8_fill(buf, x, Hp, Wp, Wq, PH, PW, IH, IW, SW, 1);
      for (oc = 0; oc < CO; oc++) {
        const float *wc = w + (long)oc * KH * KW, *bc = buf + (oc & 1) * (ONNXC_DW8_BUF + 8);
        float *yc = y + (long)oc * OHW;
        const __m256 bv = fast && ev.bias ? _mm256_set1_ps(ev.bias[oc]) : _mm256_setzero_ps();
        __m256 gs = _mm256_setzero_ps(); /* the plane's sum for ev.sum (with the epilogue here) */
        int oh, ow0;
        for (i = 0; i < KH * KW; i++) wv[i] = _mm256_set1_ps(wc[i]);
        if (oc + 1 < CO) /* the next channel's plane into the other buffer (loads right after the
                            stores of a copy waited for them: no store forwarding for partly
                            overlapping vectors) */
          onnxc_dw8_fill(buf + ((oc + 1) & 1) * (ONNXC_DW8_BUF + 8), x + (long)((oc + 1) / mult) * IHW, Hp, Wp, Wq, PH, PW, IH,
                         IW, SW, oc + 1 < 2);
        oh = 0;
        if (k33) {
          /* rows oh..oh+3 (oh + 3 < OH), one vector of 8 columns at a time: input rows
             oh SH + j, j < 3 SH + 3, each loaded at its three taps' columns (c0, c1, c2) and
             added into the output rows r with 0 <= j - r SH <= 2 (36 FMAs from 18 loads, or 27
             at stride 2; the form below loads once per FMA) */
          const __m256 w00 = wv[0], w01 = wv[1], w02 = wv[2], w10 = wv[3], w11 = wv[4], w12 = wv[5];
          const __m256 w20 = wv[6], w21 = wv[7], w22 = wv[8];
          const long c0 = to[0], c1 = to[1], c2 = to[2];
          for (; oh + 4 <= OH; oh += 4)
            for (ow0 = 0; ow0 < OW; ow0 += 8) {
              const float *p = bc + (long)oh * SH * Wp + ow0;
              __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, v;
#define ONNXC_DW3F(r, j, kh, S)                                                  \
  if ((j) - (r) * (S) == (kh)) {                                                 \
    a##r = _mm256_fmadd_ps(w##kh##0, v0, a##r);                                  \
    a##r = _mm256_fmadd_ps(w##kh##1, v1, a##r);                                  \
    a##r = _mm256_fmadd_ps(w##kh##2, v, a##r);                                   \
  }
#define ONNXC_DW3J(j, S)                                                         \
  {                                                                              \
    const float *q_ = p + (long)(j) * Wp;                                        \
    const __m256 v0 = _mm256_loadu_ps(q_ + c0), v1 = _mm256_loadu_ps(q_ + c1);   \
    v = _mm256_loadu_ps(q_ + c2);                                                \
    ONNXC_DW3F(0, j, 0, S) ONNXC_DW3F(0, j, 1, S) ONNXC_DW3F(0, j, 2, S)         \
    ONNXC_DW3F(1, j, 0, S) ONNXC_DW3F(1, j, 1, S) ONNXC_DW3F(1, j, 2, S)         \
    ONNXC_DW3F(2, j, 0, S) ONNXC_DW3F(2, j, 1, S) ONNXC_DW3F(2, j, 2, S)         \
    ONNXC_DW3F(3, j, 0, S) ONNXC_DW3F(3, j, 1, S) ONNXC_DW3F(3, j, 2, S)         \
  }
              if (SH == 1) {
                ONNXC_DW3J(0, 1) ONNXC_DW3J(1, 1) ONNXC_DW3J(2, 1) ONNXC_DW3J(3, 1) ONNXC_DW3J(4, 1) ONNXC_DW3J(5, 1)
              } else {
                ONNXC_DW3J(0, 2) ONNXC_DW3J(1, 2) ONNXC_DW3J(2, 2) ONNXC_DW3J(3, 2) ONNXC_DW3J(4, 2)
                ONNXC_DW3J(5, 2) ONNXC_DW3J(6, 2) ONNXC_DW3J(7, 2) ONNXC_DW3J(8, 2)
              }
#undef ONNXC_DW3J
#undef ONNXC_DW3F
              {
                __m256 r4[4];
                int n = OW - ow0, q;
                r4[0] = a0, r4[1] = a1, r4[2] = a2, r4[3] = a3;
                if (n > 8) n = 8;
                if (fast) onnxc_dw8_act(r4, 4, &ev, bv);
                for (q = 0; q < 4; q++) {
                  const __m256 xq = r4[q];
                  if (fast && ev.sum) gs = _mm256_add_ps(gs, _mm256_and_ps(_mm256_castsi256_ps(onnxc_mask8(n)), xq));
                  onnxc_storen8(yc + (long)(oh + q) * OW + ow0, xq, n);
                }
              }
            }
        }
        for (; oh < OH; oh += R)
          for (ow0 = 0; ow0 < OW; ow0 += 8 * V) {
            /* R rows by V vectors of 8 columns (R V = 8 independent sums), one weight and one tap
               offset per 8 FMAs (two sums per tap waited on the FMA latency and loaded an offset
               and a weight per two FMAs); rows past OH read the last row again (not stored) */
            const float *pq[8];
            __m256 a[8];
            int t, q;
            for (q = 0; q < 8; q++) {
              const int rr = oh + qr[q] < OH ? oh + qr[q] : OH - 1;
              pq[q] = bc + (long)rr * SH * Wp + ow0 + qc[q];
              a[q] = _mm256_setzero_ps();
            }
            for (t = 0; t < KH * KW; t++) {
              const __m256 wt = wv[t];
              const int o = to[t];
              a[0] = _mm256_fmadd_ps(wt, _mm256_loadu_ps(pq[0] + o), a[0]);
              a[1] = _mm256_fmadd_ps(wt, _mm256_loadu_ps(pq[1] + o), a[1]);
              a[2] = _mm256_fmadd_ps(wt, _mm256_loadu_ps(pq[2] + o), a[2]);
              a[3] = _mm256_fmadd_ps(wt, _mm256_loadu_ps(pq[3] + o), a[3]);
              a[4] = _mm256_fmadd_ps(wt, _mm256_loadu_ps(pq[4] + o), a[4]);
              a[5] = _mm256_fmadd_ps(wt, _mm256_loadu_ps(pq[5] + o), a[5]);
              a[6] = _mm256_fmadd_ps(wt, _mm256_loadu_ps(pq[6] + o), a[6]);
              a[7] = _mm256_fmadd_ps(wt, _mm256_loadu_ps(pq[7] + o), a[7]);
            }
            if (fast) onnxc_dw8_act(a, 8, &ev, bv);
            for (q = 0; q < 8; q++) { /* sum q: row oh + q / V, columns ow0 + 8 (q % V).. */
              const int n = OW - ow0 - qc[q];
              const __m256 xq = a[q];
              if (n <= 0 || oh + qr[q] >= OH) continue;
              if (fast && ev.sum) /* lanes past the row's end hold sums of the padding's neighbours */
                gs = _mm256_add_ps(gs, _mm256_and_ps(_mm256_castsi256_ps(onnxc_mask8(n)), xq));
              onnxc_storen8(yc + (long)(oh + qr[q]) * OW + ow0 + qc[q], xq, n);
            }
          }
        if (e && !fast) onnxc_epi_tile(&ev, yc, OHW, oc, 1, 0, (int)OHW);
        if (fast && ev.sum) {
          float t[8];
          _mm256_storeu_ps(t, gs);
          ev.sum[oc] += ((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7]));
        }
      }
      return fast; /* (with the sums, where the epilogue ran here) */
    }
  }
#endif
#if defined(ONNXC_NEON)
  if (KH == 3 && KW == 3 && DH == 1 && DW == 1 && (SW == 1 || SW == 2)) {
    for (oc = 0; oc < CO; oc++) {
      onnxc_dw3x3_neon(x + (long)(oc / mult) * IHW, IH, IW, w + (long)oc * 9, SH, SW, PH, PW, y + (long)oc * OHW, OH, OW);
      if (e) onnxc_epi_tile(e, y + (long)oc * OHW, OHW, oc, 1, 0, (int)OHW);
    }
    return 0;
  }
#endif
  for (oc = 0; oc < CO; oc++) {
    const float *xc = x + (long)(oc / mult) * IHW, *wc = w + (long)oc * KH * KW;
    float *yc = y + (long)oc * OHW;
    int oh, ow, kh, kw;
    for (ow = 0; ow < OHW; ow++) yc[ow] = 0.0f;
    for (kh = 0; kh < KH; kh++)
      for (kw = 0; kw < KW; kw++) {
        const float wv = wc[kh * KW + kw];
        const int off = kw * DW - PW;
        int lo = off >= 0 ? 0 : (SW - 1 - off) / SW, hi = (IW + SW - 1 - off) / SW;
        if (lo > OW) lo = OW;
        if (hi > OW) hi = OW;
        for (oh = 0; oh < OH; oh++) {
          const int ih = oh * SH + kh * DH - PH;
          const float *xr;
          float *yr = yc + (long)oh * OW;
          if (ih < 0 || ih >= IH) continue;
          xr = xc + (long)ih * IW + off;
          if (SW == 1)
            for (ow = lo; ow < hi; ow++) yr[ow] += wv * xr[ow];
          else
            for (ow = lo; ow < hi; ow++) yr[ow] += wv * xr[ow * SW];
        }
      }
    if (e) onnxc_epi_tile(e, yc, OHW, oc, 1, 0, (int)OHW);
  }
  return 0;
}

/* The sum of x[0..n). */
ONNXC_MAYBE_UNUSED static float onnxc_sum_f(const float *x, long n) {
#if defined(ONNXC_AVX512)
  return onnxc_sum16(x, n);
#elif defined(ONNXC_AVX2)
  __m256 a = _mm256_setzero_ps(), b = a;
  float t[8], r = 0.0f;
  long i = 0;
  for (; i + 16 <= n; i += 16) {
    a = _mm256_add_ps(a, _mm256_loadu_ps(x + i));
    b = _mm256_add_ps(b, _mm256_loadu_ps(x + i + 8));
  }
  _mm256_storeu_ps(t, _mm256_add_ps(a, b));
  { /* the last n - i < 16 (bounded: with "i < n", GCC -O2 inlined into a node of a 149 x 352
       plane warned of an iteration invoking undefined behavior, an error under -Werror) */
    const int rem = (int)(n - i);
    int k;
    for (k = 0; k < rem && k < 16; k++) r += x[i + k];
  }
  return r + (((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7])));
#else
  float a = 0.0f, b = 0.0f;
  long i = 0;
  for (; i + 1 < n; i += 2) {
    a += x[i];
    b += x[i + 1];
  }
  if (i < n) a += x[i];
  return a + b;
#endif
}

/* Depthwise convolution (see the top of this file); with e->sum, each output plane's sum (after
   the epilogue) is added to e->sum[oc]: by the form as it goes where it can, else from the
   planes afterwards. */
ONNXC_MAYBE_UNUSED static void onnxc_dw2d(int CO, int mult, const float *x, int IH, int IW, const float *w, int KH,
                                          int KW, int SH, int SW, int PH, int PW, int DH, int DW, float *y, int OH,
                                          int OW, const onnxc_epi *e) {
  const long OHW = (long)OH * OW;
  int oc;
  if (onnxc_dw2d_k(CO, mult, x, IH, IW, w, KH, KW, SH, SW, PH, PW, DH, DW, y, OH, OW, e) || !e || !e->sum) return;
  for (oc = 0; oc < CO; oc++) e->sum[oc] += onnxc_sum_f(y + (long)oc * OHW, OHW);
}

/* ---- im2col of 2-D convolutions --------------------------------------------------------------
   Rows kb .. kb+kc-1 of the unfolded input of one group for output rows r0 .. r0+rn-1:
   col[kk][(rr - r0) * OW + ow] = x[c][rr SH + kh DH - PH][ow SW + kw DW - PW] (0 outside the
   input), k = kb + kk = (c KH + kh) KW + kw.  AVX-512, SW 1 or 2: each run of 16 outputs is
   one or two masked loads (lanes outside the input load as 0) and an even-lane permute. */
#if defined(ONNXC_AVX512) || defined(ONNXC_AVX2)
/* Direct convolution for few input channels (the stems: C * KH * KW <= ONNXC_SCMAX taps, stride
   1 or 2, no dilation, one group).  Per band of R output rows, the input rows the band reads are
   copied into buf split by column phase (stride 2: even and odd columns), with zero padding
   around them, so that every tap of a run of 16 outputs is one unaligned vector load: output
   column ow at tap kw reads input column S ow + kw - PW = S (ow + q) + p, i.e. phase p at ow + q.
   Then per output row, 8 output channels by 48 columns of accumulators: each tap loads 3 input
   vectors and broadcasts 8 weights (24 FMAs).  AVX2: onnxc_uk's 4 x 24 tiles with the taps'
   row vectors at xb + xo[t] (onnxc_uk_x).  The weights are packed like onnxc_pack_a.  buf:
   ((R - 1) S + KH) * C * S * Wp floats, Wp = onnxc_conv_sc_wp(OW, KW, S, PW). */
#define ONNXC_SCMAX 256
ONNXC_MAYBE_UNUSED static int onnxc_conv_sc_wp(int OW, int KW, int S, int PW) {
  const int L = (PW + S - 1) / S, qmax = KW - 1 - PW >= 0 ? (KW - 1 - PW) / S : 0; /* as conv_info (ops_nn.c) */
  return (OW + 15) / 16 * 16 + L + qmax + 1;
}
#endif
#if defined(ONNXC_AVX512)

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void onnxc_conv_sc_strip(int ns, int K, const float *xb, const int *xo, const float *wb, int Mp,
                                       int mb, float *y, long OHW, int mr, int nr, const onnxc_epi *e, int m0,
                                       int j0, long xs, int ys, int dv) {
  /* a per-row bias (and no residual) starts the sums; then Relu / Clip / none is one clamp or a
     plain store per vector, without the tests of the general epilogue (K = 27 steps of 24 FMAs
     per strip: the tests cost as much as a sixth of the strip) */
  const int pb = e && e->bias && !e->bias_cols && !e->res;
  __m512 c00 = _mm512_setzero_ps(), c01, c02, c10, c11, c12, c20, c21, c22, c30, c31, c32;
  __m512 c40, c41, c42, c50, c51, c52, c60, c61, c62, c70, c71, c72;
  int t, b;
#define ONNXC_SCB(r)                                                          \
  c##r##0 = pb && r < mr ? _mm512_set1_ps(e->bias[m0 + r]) : _mm512_setzero_ps(); \
  c##r##1 = c##r##0;                                                          \
  c##r##2 = c##r##0;
  ONNXC_ROWS8(ONNXC_SCB)
#undef ONNXC_SCB
  for (b = 0; b < K; b += ONNXC_KC) { /* the weights of tap t: 8 floats, consecutive within a k block */
    const int kc = K - b < ONNXC_KC ? K - b : ONNXC_KC;
    const float *w = wb + (long)b * Mp + (long)mb * 8 * kc;
    for (t = b; t < b + kc; t++, w += 8) {
      const float *xp = xb + xo[t];
      const __m512 x0 = _mm512_loadu_ps(xp);
      const __m512 x1 = ns > 1 ? _mm512_loadu_ps(xp + xs) : x0;
      const __m512 x2 = ns > 2 ? _mm512_loadu_ps(xp + 2 * xs) : x0;
#if defined(__clang__)
#define ONNXC_SCF(r) ONNXC_FMA_RN(ns, c##r##0, c##r##1, c##r##2, x0, x1, x2, w + r)
#else /* GCC: the per-row conditions it has always compiled here */
#define ONNXC_SCF(r)                                         \
  {                                                          \
    const __m512 a = _mm512_set1_ps(w[r]);                   \
    c##r##0 = _mm512_fmadd_ps(a, x0, c##r##0);               \
    if (ns > 1) c##r##1 = _mm512_fmadd_ps(a, x1, c##r##1);   \
    if (ns > 2) c##r##2 = _mm512_fmadd_ps(a, x2, c##r##2);   \
  }
#endif
      ONNXC_ROWS8(ONNXC_SCF)
#undef ONNXC_SCF
    }
  }
  {
    __m512 lo_ = _mm512_setzero_ps(), hi_ = lo_;
    int clamp_ = 0;
    const __mmask16 k0_ = ONNXC_MASK16(nr), k1_ = ONNXC_MASK16(nr - dv), k2_ = ONNXC_MASK16(nr - 2 * dv);
    if (!e || ((pb || !e->bias) && onnxc_epi_simple(e, &clamp_, &lo_, &hi_))) {
#define ONNXC_SCP1(r, v) \
  if (ns > v && r < mr) _mm512_mask_storeu_ps(y + (long)r * OHW + ys * v, k##v##_, c##r##v);
#define ONNXC_SCC1(r, v) \
  if (ns > v && r < mr) _mm512_mask_storeu_ps(y + (long)r * OHW + ys * v, k##v##_, _mm512_min_ps(_mm512_max_ps(c##r##v, lo_), hi_));
#define ONNXC_SCP(r) ONNXC_SCP1(r, 0) ONNXC_SCP1(r, 1) ONNXC_SCP1(r, 2)
#define ONNXC_SCC(r) ONNXC_SCC1(r, 0) ONNXC_SCC1(r, 1) ONNXC_SCC1(r, 2)
      if (clamp_) {
        ONNXC_ROWS8(ONNXC_SCC)
      } else {
        ONNXC_ROWS8(ONNXC_SCP)
      }
#undef ONNXC_SCC
#undef ONNXC_SCP
#undef ONNXC_SCC1
#undef ONNXC_SCP1
      return;
    }
    if (pb && !e->res && (e->act == ONNXC_ACT_HARDSWISH || e->act == ONNXC_ACT_SILU)) {
      /* the stems of MobileNetV3 (HardSwish) and EfficientNet (SiLU), without tests per vector */
      const __m512 al_ = _mm512_set1_ps(e->alpha), be_ = _mm512_set1_ps(e->beta), one_ = _mm512_set1_ps(1.0f);
      const __m512 z_ = _mm512_setzero_ps();
#define ONNXC_SCH1(r, v)                                                                                         \
  if (ns > v && r < mr)                                                                                          \
    _mm512_mask_storeu_ps(y + (long)r * OHW + ys * v, k##v##_,                                                   \
                          _mm512_mul_ps(c##r##v, _mm512_min_ps(_mm512_max_ps(_mm512_fmadd_ps(al_, c##r##v, be_), z_), one_)));
#define ONNXC_SCL1(r, v) \
  if (ns > v && r < mr) _mm512_mask_storeu_ps(y + (long)r * OHW + ys * v, k##v##_, _mm512_div_ps(c##r##v, onnxc_sigden16(c##r##v)));
#define ONNXC_SCH(r) ONNXC_SCH1(r, 0) ONNXC_SCH1(r, 1) ONNXC_SCH1(r, 2)
#define ONNXC_SCL(r) ONNXC_SCL1(r, 0) ONNXC_SCL1(r, 1) ONNXC_SCL1(r, 2)
      if (e->act == ONNXC_ACT_HARDSWISH) {
        ONNXC_ROWS8(ONNXC_SCH)
      } else {
        ONNXC_ROWS8(ONNXC_SCL)
      }
#undef ONNXC_SCH
#undef ONNXC_SCL
#undef ONNXC_SCH1
#undef ONNXC_SCL1
      return;
    }
  }
  {
    ONNXC_EV
    if (pb) ev_.bias = (const float *)0;
    /* the other epilogues: Relu, Clip, HardSwish, HardSigmoid, SiLU and Sigmoid inline (a call per
       vector spills the accumulators: EfficientNet's stem 298 -> 295 us alone, MobileNetV3's
       HardSwish stem 127 -> 119 us), other activations by call */
#define ONNXC_SCS1(r, v)                                                                            \
  if (ns > v && r < mr) {                                                                           \
    const __mmask16 k_ = ONNXC_MASK16(nr - dv * v);                                                 \
    __m512 t_ = c##r##v;                                                                            \
    if (ev_.bias) t_ = _mm512_add_ps(t_, _mm512_set1_ps(ev_.bias[m0 + r]));                         \
    if (ev_.res) t_ = _mm512_add_ps(t_, _mm512_maskz_loadu_ps(k_, ev_.res + (long)(m0 + r) * ev_.ldr + j0 + ys * v)); \
    if (ev_.act == ONNXC_ACT_RELU) t_ = _mm512_max_ps(t_, _mm512_setzero_ps());                     \
    else if (ev_.act == ONNXC_ACT_CLIP)                                                             \
      t_ = _mm512_min_ps(_mm512_max_ps(t_, _mm512_set1_ps(ev_.alpha)), _mm512_set1_ps(ev_.beta));   \
    else if (ev_.act == ONNXC_ACT_HARDSWISH || ev_.act == ONNXC_ACT_HARDSIGMOID) {                  \
      __m512 h_ = _mm512_fmadd_ps(_mm512_set1_ps(ev_.alpha), t_, _mm512_set1_ps(ev_.beta));         \
      h_ = _mm512_min_ps(_mm512_max_ps(h_, _mm512_setzero_ps()), _mm512_set1_ps(1.0f));             \
      t_ = ev_.act == ONNXC_ACT_HARDSWISH ? _mm512_mul_ps(t_, h_) : h_;                             \
    } else if (ev_.act == ONNXC_ACT_SILU || ev_.act == ONNXC_ACT_SIGMOID)                           \
      t_ = _mm512_div_ps(onnxc_signum16(t_, ev_.act == ONNXC_ACT_SILU), onnxc_sigden16(t_));        \
    else if (ev_.act) t_ = onnxc_act16(t_, ev_.act, ev_.alpha, ev_.beta);                           \
    _mm512_mask_storeu_ps(y + (long)r * OHW + ys * v, k_, t_);                                      \
  }
#define ONNXC_SCS(r) ONNXC_SCS1(r, 0) ONNXC_SCS1(r, 1) ONNXC_SCS1(r, 2)
    ONNXC_ROWS8(ONNXC_SCS)
#undef ONNXC_SCS
#undef ONNXC_SCS1
  }
}

#endif /* ONNXC_AVX512 (onnxc_conv_sc resumes below) */

/* onnxc_conv_t: direct 2-D convolution (one group) with the output channels in the vector lanes,
   for small planes, where pixel-lane kernels fill few vectors and mask most input loads (on
   Intel cores a masked load is one more uop on the FMA ports).  The input is copied into
   scratch zero-padded, xp [C][Hp][Wp], so that no load is ever masked: per panel of rv = 1-3
   vectors of 16 output channels (the weights W^T, k = c KH KW + tap, 16 rv floats per k; the
   V = ceil(M / 16) vectors split evenly into ceil(V / 3) panels, as the compiler packed them)
   and per tile of <= 8 output pixels of one output row, each k step is rv weight vectors times
   8 broadcast input values xp[c][(oh SH + kh DH) Wp + (ow0 + j) SW + kw DW]: up to 24 sums in
   registers, then the 16 x 8 transposes and the epilogue of onnxc_sgemm_t (ONNXC_TS).  xp: xpn floats of scratch (all C
   planes of (OH - 1) SH + (KH - 1) DH + 1 rows of Wp, plus ONNXC_CONVT_PAD: one band), or NULL:
   bands of output rows through a stack buffer. */
/* ONNXC_CONVT_PAD, ONNXC_CONVT_STACK and ONNXC_KPMAX: the compiler's CONVT_* (compiler/onnxc.h) */
#define ONNXC_CONVT_PAD 16     /* floats of xp beyond the padded rows (none are read; slack) */
#define ONNXC_CONVT_STACK 4096 /* floats of the band buffer on the stack when there is no scratch */
#if defined(ONNXC_AVX512)
#define ONNXC_TFC(j)                                                                           \
  if (j < nr_) ONNXC_FMA_RN(rv_, a##j##0, a##j##1, a##j##2, q0, q1, q2, b + j * S)
#define ONNXC_UKTC_DEF(NAME, NR, RV)                                                                        \
  ONNXC_MAYBE_UNUSED static void NAME(int Cn, int KP, const int *off, long HWp, int S, const float *Q,     \
                                      const float *B, float *C, long ldc, int mr, int acc,                 \
                                      const onnxc_epi *e, int m0, int n0) {                                \
    const int nr_ = NR, rv_ = RV;                                                                          \
    ONNXC_UKT_START                                                                                        \
    __m512 r[8];                                                                                           \
    int c, t, i;                                                                                           \
    ONNXC_J8(ONNXC_TD)                                                                                     \
    for (c = 0; c < Cn; c++, B += HWp)                                                                     \
      for (t = 0; t < KP; t++) {                                                                           \
        const float *b = B + off[t];                                                                       \
        const __m512 q0 = _mm512_loadu_ps(Q);                                                              \
        const __m512 q1 = rv_ > 1 ? _mm512_loadu_ps(Q + 16) : q0, q2 = rv_ > 2 ? _mm512_loadu_ps(Q + 32) : q0; \
        ONNXC_J8(ONNXC_TFC)                                                                                \
        Q += 16 * rv_;                                                                                     \
      }                                                                                                    \
    ONNXC_UKT_END                                                                                          \
  }
ONNXC_UKTC_DEF(onnxc_uktc1, 1, 3)
ONNXC_UKTC_DEF(onnxc_uktc2, 2, 3)
ONNXC_UKTC_DEF(onnxc_uktc3, 3, 3)
ONNXC_UKTC_DEF(onnxc_uktc4, 4, 3)
ONNXC_UKTC_DEF(onnxc_uktc5, 5, 3)
ONNXC_UKTC_DEF(onnxc_uktc6, 6, 3)
ONNXC_UKTC_DEF(onnxc_uktc7, 7, 3)
ONNXC_UKTC_DEF(onnxc_uktc8, 8, 3)
ONNXC_UKTC_DEF(onnxc_uktc1_r1, 1, 1)
ONNXC_UKTC_DEF(onnxc_uktc2_r1, 2, 1)
ONNXC_UKTC_DEF(onnxc_uktc3_r1, 3, 1)
ONNXC_UKTC_DEF(onnxc_uktc4_r1, 4, 1)
ONNXC_UKTC_DEF(onnxc_uktc5_r1, 5, 1)
ONNXC_UKTC_DEF(onnxc_uktc6_r1, 6, 1)
ONNXC_UKTC_DEF(onnxc_uktc7_r1, 7, 1)
ONNXC_UKTC_DEF(onnxc_uktc8_r1, 8, 1)
ONNXC_UKTC_DEF(onnxc_uktc1_r2, 1, 2)
ONNXC_UKTC_DEF(onnxc_uktc2_r2, 2, 2)
ONNXC_UKTC_DEF(onnxc_uktc3_r2, 3, 2)
ONNXC_UKTC_DEF(onnxc_uktc4_r2, 4, 2)
ONNXC_UKTC_DEF(onnxc_uktc5_r2, 5, 2)
ONNXC_UKTC_DEF(onnxc_uktc6_r2, 6, 2)
ONNXC_UKTC_DEF(onnxc_uktc7_r2, 7, 2)
ONNXC_UKTC_DEF(onnxc_uktc8_r2, 8, 2)
#endif

/* output rows [ohb, ohe) (onnxc_conv_t: all; onnxc_conv_t_par: a share each, an xp each) */
ONNXC_MAYBE_UNUSED static void onnxc_conv_t_r(int M, int C, int IH, int IW, int KH, int KW, int SH, int SW, int DH, int DW,
                                              int PH, int PW, int OH, int OW, const float *x, const float *Q, float *y,
                                              const onnxc_epi *e, float *xp, long xpn, int ohb, int ohe) {
  const int Wp = (OW - 1) * SW + (KW - 1) * DW + 1, KP = KH * KW, span = (KH - 1) * DH + 1;
  const long K = (long)C * KP, OHW = (long)OH * OW;
  const int nt = (OW + 7) / 8, V = (M + 15) / 16, np = (V + 2) / 3; /* tiles of <= 8 pixels per row */
  float sb[ONNXC_CONVT_STACK];
  int off[ONNXC_KPMAX];
  int R, nb, bi, c, h, w, t, pi, oh, ti;
  if (!xp) { /* no scratch (a memory-lean plan): bands of output rows on the stack */
    xp = sb;
    xpn = ONNXC_CONVT_STACK;
  }
  /* output rows per band: their padded input rows, C planes of them, fit in xp */
  R = (int)(((xpn - ONNXC_CONVT_PAD) / ((long)C * Wp) - span) / SH + 1);
  if (R > ohe - ohb) R = ohe - ohb;
  if (R < 1) R = 1; /* the compiler takes this form only where one row fits the stack buffer */
  nb = (ohe - ohb + R - 1) / R;
  for (bi = 0; bi < nb; bi++) {
    const int oh0 = ohb + (ohe - ohb) * bi / nb, oh1 = ohb + (ohe - ohb) * (bi + 1) / nb, h0 = oh0 * SH;
    const int Hb = (oh1 - 1 - oh0) * SH + span;
    const long HWb = (long)Hb * Wp;
    /* the band's zero-padded input rows h0 .. h0 + Hb (padded coordinates) */
    for (c = 0; c < C; c++)
      for (h = 0; h < Hb; h++) {
        float *d = xp + (long)c * HWb + (long)h * Wp;
        const int ih = h0 + h - PH;
        const int n = ih < 0 || ih >= IH ? 0 : (PW + IW < Wp ? PW + IW : Wp) - PW; /* input columns read */
        const float *src = x + ((long)c * IH + (n > 0 ? ih : 0)) * IW;
#if defined(ONNXC_AVX512)
        /* left pad, the row, right pad: masked vector stores, each float written once (the
           scalar loops and the memset GCC made of the zero loop took 10% of ResNet-8's 64 x 8
           x 8 layer; zeroing whole rows before the copy, 20% of its 16 x 32 x 32 stride 2) */
        const int lo = n > 0 ? PW : Wp, hi = n > 0 ? PW + n : Wp;
        for (w = 0; w < lo; w += 16) _mm512_mask_storeu_ps(d + w, ONNXC_MASK16(lo - w), _mm512_setzero_ps());
        for (w = 0; w < n; w += 16)
          _mm512_mask_storeu_ps(d + PW + w, ONNXC_MASK16(n - w), _mm512_maskz_loadu_ps(ONNXC_MASK16(n - w), src + w));
        for (w = hi; w < Wp; w += 16) _mm512_mask_storeu_ps(d + w, ONNXC_MASK16(Wp - w), _mm512_setzero_ps());
#else
        for (w = 0; w < Wp; w++) d[w] = w >= PW && w - PW < n ? src[w - PW] : 0.0f;
#endif
      }
    for (t = 0; t < KP; t++) off[t] = t / KW * DH * Wp + t % KW * DW;
    for (pi = 0; pi < np; pi++) {
      const int p = 16 * (V * pi / np), rv = V * (pi + 1) / np - V * pi / np, pn = 16 * rv;
      const int mr = M - p < pn ? M - p : pn;
#if defined(ONNXC_AVX512)
      /* all channels in one pass (blocks of channels whose weights stay in L1, the partial sums
         added up in C, measured slower: ResNet-8 1.017x the time) */
      const int CB = C;
      int c0;
      for (c0 = 0; c0 < C; c0 += CB) {
        const int cn = C - c0 < CB ? C - c0 : CB, last = c0 + cn >= C;
        const float *q = Q + (long)p * K + (long)pn * KP * c0;
        for (oh = oh0; oh < oh1; oh++)
          for (ti = 0; ti < nt; ti++) {
            const int j0 = OW * ti / nt, nr = OW * (ti + 1) / nt - j0, n0 = oh * OW + j0;
            const float *b = xp + (long)c0 * HWb + (long)(oh - oh0) * SH * Wp + (long)j0 * SW;
            typedef void (*uktc_fn)(int, int, const int *, long, int, const float *, const float *, float *, long, int,
                                    int, const onnxc_epi *, int, int);
            static const uktc_fn tab[3][8] = {
                {onnxc_uktc1_r1, onnxc_uktc2_r1, onnxc_uktc3_r1, onnxc_uktc4_r1, onnxc_uktc5_r1, onnxc_uktc6_r1,
                 onnxc_uktc7_r1, onnxc_uktc8_r1},
                {onnxc_uktc1_r2, onnxc_uktc2_r2, onnxc_uktc3_r2, onnxc_uktc4_r2, onnxc_uktc5_r2, onnxc_uktc6_r2,
                 onnxc_uktc7_r2, onnxc_uktc8_r2},
                {onnxc_uktc1, onnxc_uktc2, onnxc_uktc3, onnxc_uktc4, onnxc_uktc5, onnxc_uktc6, onnxc_uktc7, onnxc_uktc8}};
            tab[rv - 1][nr - 1](cn, KP, off, HWb, SW, q, b, y + (long)p * OHW + n0, OHW, mr,
                                                         c0 > 0, last ? e : (const onnxc_epi *)0, p, n0);
          }
      }
#else
      const float *q = Q + (long)p * K;
      for (oh = oh0; oh < oh1; oh++)
        for (ti = 0; ti < nt; ti++) {
          const int j0 = OW * ti / nt, nr = OW * (ti + 1) / nt - j0, n0 = oh * OW + j0;
          const float *b = xp + (long)(oh - oh0) * SH * Wp + (long)j0 * SW;
          float *cp = y + (long)p * OHW + n0;
#if defined(ONNXC_AVX2)
          /* four pixels and 16 of the panel's rows at a time: 8 sums (a tap: two row vectors of
             the panel, four broadcast input values); then onnxc_ukt's tile store */
          float tt[8 * 48];
          int j, hh;
          for (j = 0; j < nr; j += 4) {
            const long d1 = j + 1 < nr ? SW : 0, d2 = j + 2 < nr ? 2L * SW : d1, d3 = j + 3 < nr ? 3L * SW : d2;
            for (hh = 0; hh < mr; hh += 16) {
              const float *qq = q + hh, *bc = b + (long)j * SW;
              __m256 c00 = _mm256_setzero_ps(), c01 = c00, c02 = c00, c03 = c00, c10 = c00, c11 = c00, c12 = c00, c13 = c00;
              for (c = 0; c < C; c++, bc += HWb)
                for (t = 0; t < KP; t++, qq += pn) {
                  const float *bt = bc + off[t];
                  __m256 w0 = _mm256_loadu_ps(qq), w1 = _mm256_loadu_ps(qq + 8), xv;
                  ONNXC_INREG2(w0, w1); /* (folded into the FMAs: 12 loads per 8 FMAs) */
                  xv = _mm256_broadcast_ss(bt);
                  c00 = _mm256_fmadd_ps(w0, xv, c00), c10 = _mm256_fmadd_ps(w1, xv, c10);
                  xv = _mm256_broadcast_ss(bt + d1);
                  c01 = _mm256_fmadd_ps(w0, xv, c01), c11 = _mm256_fmadd_ps(w1, xv, c11);
                  xv = _mm256_broadcast_ss(bt + d2);
                  c02 = _mm256_fmadd_ps(w0, xv, c02), c12 = _mm256_fmadd_ps(w1, xv, c12);
                  xv = _mm256_broadcast_ss(bt + d3);
                  c03 = _mm256_fmadd_ps(w0, xv, c03), c13 = _mm256_fmadd_ps(w1, xv, c13);
                }
              {
                float *tp = tt + 48 * j + hh;
                _mm256_storeu_ps(tp, c00), _mm256_storeu_ps(tp + 8, c10);
                if (d1) _mm256_storeu_ps(tp + 48, c01), _mm256_storeu_ps(tp + 56, c11);
                if (j + 2 < nr) _mm256_storeu_ps(tp + 96, c02), _mm256_storeu_ps(tp + 104, c12);
                if (j + 3 < nr) _mm256_storeu_ps(tp + 144, c03), _mm256_storeu_ps(tp + 152, c13);
              }
            }
          }
          onnxc_tt_store(tt, cp, OHW, mr, nr, 0, e, p, n0);
#else
          /* two pixels at a time over local sums of the panel's 48 rows */
          float s0[48], s1[48];
          int j, l;
          for (j = 0; j < nr; j += 2) {
            const int two = j + 1 < nr;
            const float *qq = q, *bc = b + (long)j * SW;
            for (l = 0; l < pn; l++) s0[l] = s1[l] = 0.0f;
            for (c = 0; c < C; c++, bc += HWb)
              for (t = 0; t < KP; t++, qq += pn) {
                const float x0 = bc[off[t]], x1 = two ? bc[off[t] + SW] : 0.0f;
                for (l = 0; l < pn; l++) {
                  s0[l] += qq[l] * x0;
                  s1[l] += qq[l] * x1;
                }
              }
            for (l = 0; l < mr; l++) {
              cp[(long)l * OHW + j] = s0[l];
              if (two) cp[(long)l * OHW + j + 1] = s1[l];
            }
          }
          if (e) onnxc_epi_tile(e, cp, OHW, p, mr, n0, nr);
#endif
        }
#endif
    }
  }
}

ONNXC_MAYBE_UNUSED static void onnxc_conv_t(int M, int C, int IH, int IW, int KH, int KW, int SH, int SW, int DH, int DW, int PH, int PW,
                                            int OH, int OW, const float *x, const float *Q, float *y,
                                            const onnxc_epi *e, float *xp, long xpn) {
  onnxc_conv_t_r(M, C, IH, IW, KH, KW, SH, SW, DH, DW, PH, PW, OH, OW, x, Q, y, e, xp, xpn, 0, OH);
}

#if defined(ONNXC_AVX512) || defined(ONNXC_AVX2)
/* output rows [ohb, ohe) (onnxc_conv_sc: all; onnxc_conv_sc_par: a share each, a band buffer
   each; onnxc_conv_mp: a band at a time) into y, whose channel planes are OHW floats apart and
   whose first row is output row yr0 */
ONNXC_MAYBE_UNUSED static void onnxc_conv_sc_rb(int M, int C, int IH, int IW, int KH, int KW, int S, int PH, int PW,
                                                int OH, int OW, const float *x, const float *wp, float *y, long OHW,
                                                int yr0, const onnxc_epi *e, float *buf, int R, int ohb, int ohe) {
  const int K = C * KH * KW, Mp = (M + 7) / 8 * 8, Wp = onnxc_conv_sc_wp(OW, KW, S, PW), L = (PW + S - 1) / S;
  const long rs = (long)C * S * Wp; /* floats per buffered input row */
  int xo[ONNXC_SCMAX];
  int t, oh0, oh, m0, ow0;
  (void)OH;
  for (t = 0; t < K; t++) {
    const int c = t / (KH * KW), kh = t / KW % KH, kw = t % KW, d = kw - PW;
    const int q = d >= 0 ? d / S : -((-d + S - 1) / S), p = d - q * S;
    xo[t] = (int)(kh * rs + ((long)c * S + p) * Wp + L + q);
  }
  for (oh0 = ohb; oh0 < ohe; oh0 += R) {
    const int rn = ohe - oh0 < R ? ohe - oh0 : R, nin = (rn - 1) * S + KH, ih0 = oh0 * S - PH;
    int i, c, p, j;
    /* the band's input rows, by phase, zero outside the input: phase p at j holds input column
       S (j - L) + p, so columns 0.. land at j = L.. */
    for (i = 0; i < nin; i++) {
      const int ih = ih0 + i;
      for (c = 0; c < C; c++) {
        const float *xr = x + ((long)c * IH + ih) * IW;
        float *br = buf + i * rs + (long)c * S * Wp;
        if (ih < 0 || ih >= IH) {
          for (j = 0; j < S * Wp; j++) br[j] = 0.0f;
          continue;
        }
        for (p = 0; p < S; p++) {
          const int np = IW > p ? (IW - 1 - p) / S + 1 : 0, hi = L + np < Wp ? L + np : Wp;
          float *bp = br + p * Wp;
          for (j = 0; j < L; j++) bp[j] = 0.0f;
          for (j = hi; j < Wp; j++) bp[j] = 0.0f;
        }
        if (S == 1) {
          const int n = IW < Wp - L ? IW : Wp - L;
#if defined(ONNXC_AVX512)
          for (j = 0; j + 16 <= n; j += 16) _mm512_storeu_ps(br + L + j, _mm512_loadu_ps(xr + j));
          if (j < n) _mm512_mask_storeu_ps(br + L + j, ONNXC_MASK16(n - j), _mm512_maskz_loadu_ps(ONNXC_MASK16(n - j), xr + j));
#else
          memcpy(br + L, xr, sizeof(float) * (size_t)n);
#endif
        } else {
#if defined(ONNXC_AVX2)
          /* 16 input columns -> 8 even, 8 odd (two in-lane shuffles, then the 64-bit lanes in
             order 0, 2, 1, 3); the last columns one at a time */
          const int n0 = (IW + 1) / 2 < Wp - L ? (IW + 1) / 2 : Wp - L, n1 = IW / 2 < Wp - L ? IW / 2 : Wp - L;
          for (j = 0; 2 * j + 16 <= IW && j + 8 <= n1; j += 8) {
            const __m256 a = _mm256_loadu_ps(xr + 2 * j), b = _mm256_loadu_ps(xr + 2 * j + 8);
            _mm256_storeu_ps(br + L + j, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xd8)));
            _mm256_storeu_ps(br + Wp + L + j, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xdd)), 0xd8)));
          }
          for (; j < n0; j++) { /* (long: GCC -O2 warned of 2 j overflowing, inlined into a node) */
            br[L + j] = xr[2L * j];
            if (j < n1) br[Wp + L + j] = xr[2L * j + 1];
          }
#else
          /* 32 input columns -> 16 even, 16 odd */
          const __m512i ev = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
          const __m512i od = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
          const int n0 = (IW + 1) / 2 < Wp - L ? (IW + 1) / 2 : Wp - L, n1 = IW / 2 < Wp - L ? IW / 2 : Wp - L;
          for (j = 0; j + 16 <= n1 && 2 * j + 32 <= IW; j += 16) { /* whole vectors: no masks */
            const __m512 a = _mm512_loadu_ps(xr + 2 * j), b = _mm512_loadu_ps(xr + 2 * j + 16);
            _mm512_storeu_ps(br + L + j, _mm512_permutex2var_ps(a, ev, b));
            _mm512_storeu_ps(br + Wp + L + j, _mm512_permutex2var_ps(a, od, b));
          }
          for (; j < n0; j += 16) {
            const int left = IW - 2 * j;
            const __m512 a = _mm512_maskz_loadu_ps(ONNXC_MASK16(left), xr + 2 * j);
            const __m512 b = _mm512_maskz_loadu_ps(ONNXC_MASK16(left - 16), xr + 2 * j + 16);
            _mm512_mask_storeu_ps(br + L + j, ONNXC_MASK16(n0 - j), _mm512_permutex2var_ps(a, ev, b));
            if (j < n1) _mm512_mask_storeu_ps(br + Wp + L + j, ONNXC_MASK16(n1 - j), _mm512_permutex2var_ps(a, od, b));
          }
#endif
        }
      }
    }
#if defined(ONNXC_AVX2)
    /* per output row, 4 output channels (half an 8-row weight panel) by up to 24 columns, the
       taps in k blocks as the panel's (rows past M: the panel's zeros, not stored) */
    for (oh = oh0; oh < oh0 + rn; oh++) {
      const float *xb = buf + (long)(oh - oh0) * S * rs;
      for (m0 = 0; m0 < M; m0 += 4) {
        const int mr = M - m0 < 4 ? M - m0 : 4;
        float *yr = y + (long)m0 * OHW + (long)(oh - yr0) * OW;
        for (ow0 = 0; ow0 < OW; ow0 += 24) {
          const int nr = OW - ow0 < 24 ? OW - ow0 : 24;
          int b;
          for (b = 0; b < K; b += ONNXC_KC) {
            const int kc = K - b < ONNXC_KC ? K - b : ONNXC_KC;
            onnxc_uk_x(kc, wp + (long)b * Mp + (long)(m0 / 8) * 8 * kc + m0 % 8, xb + ow0, xo + b, yr + ow0, OHW, mr, nr, b > 0,
                       b + kc >= K ? e : (const onnxc_epi *)0, m0, oh * OW + ow0);
          }
        }
      }
    }
#else
    if (OW <= 16) {
      /* one vector per output row: strips of up to 3 rows (8 x 16 sums per row are too few to
         hide the FMA latency of two FMA units; ResNet-8's 16 -> 32 3x3 s2 at 16 x 16) */
      for (oh = oh0; oh < oh0 + rn; oh += 3) {
        const float *xb = buf + (long)(oh - oh0) * S * rs;
        const int nrow = oh0 + rn - oh < 3 ? oh0 + rn - oh : 3;
        for (m0 = 0; m0 < M; m0 += 8) {
          const int mr = M - m0 < 8 ? M - m0 : 8;
          float *yr = y + (long)m0 * OHW + (long)(oh - yr0) * OW;
          if (nrow == 3) onnxc_conv_sc_strip(3, K, xb, xo, wp, Mp, m0 / 8, yr, OHW, mr, OW, e, m0, oh * OW, S * rs, OW, 0);
          else if (nrow == 2) onnxc_conv_sc_strip(2, K, xb, xo, wp, Mp, m0 / 8, yr, OHW, mr, OW, e, m0, oh * OW, S * rs, OW, 0);
          else onnxc_conv_sc_strip(1, K, xb, xo, wp, Mp, m0 / 8, yr, OHW, mr, OW, e, m0, oh * OW, S * rs, OW, 0);
        }
      }
      continue;
    }
    for (oh = oh0; oh < oh0 + rn; oh++) {
      const float *xb = buf + (long)(oh - oh0) * S * rs;
      { /* the next band's new input rows, S per output row of this one, into L1 ahead of its copy */
        const int ihn = ih0 + R * S + (oh - oh0) * S + KH - S;
        for (c = 0; c < C; c++)
          for (p = 0; p < S; p++)
            if (ihn + p >= 0 && ihn + p < IH && oh0 + R < ohe) {
              const char *pr = (const char *)(x + ((long)c * IH + ihn + p) * IW);
              for (j = 0; j < IW * 4; j += 64) _mm_prefetch(pr + j, _MM_HINT_T0);
            }
      }
      for (m0 = 0; m0 < M; m0 += 8) {
        const int mr = M - m0 < 8 ? M - m0 : 8;
        float *yr = y + (long)m0 * OHW + (long)(oh - yr0) * OW;
        /* the row's vectors in strips of 3 or fewer, as even as they go (7: 3 + 2 + 2) */
        const int nv = (OW + 15) / 16, nst = (nv + 2) / 3;
        int st;
        for (st = 0, ow0 = 0; st < nst; st++) {
          const int ns = nv / nst + (st < nv % nst), nr = OW - ow0 < 16 * ns ? OW - ow0 : 16 * ns;
          if (ns == 3) onnxc_conv_sc_strip(3, K, xb + ow0, xo, wp, Mp, m0 / 8, yr + ow0, OHW, mr, nr, e, m0, oh * OW + ow0, 16, 16, 16);
          else if (ns == 2) onnxc_conv_sc_strip(2, K, xb + ow0, xo, wp, Mp, m0 / 8, yr + ow0, OHW, mr, nr, e, m0, oh * OW + ow0, 16, 16, 16);
          else onnxc_conv_sc_strip(1, K, xb + ow0, xo, wp, Mp, m0 / 8, yr + ow0, OHW, mr, nr, e, m0, oh * OW + ow0, 16, 16, 16);
          ow0 += nr;
        }
      }
    }
#endif
  }
}

ONNXC_MAYBE_UNUSED static void onnxc_conv_sc_r(int M, int C, int IH, int IW, int KH, int KW, int S, int PH, int PW,
                                               int OH, int OW, const float *x, const float *wp, float *y,
                                               const onnxc_epi *e, float *buf, int R, int ohb, int ohe) {
  onnxc_conv_sc_rb(M, C, IH, IW, KH, KW, S, PH, PW, OH, OW, x, wp, y, (long)OH * OW, 0, e, buf, R, ohb, ohe);
}

ONNXC_MAYBE_UNUSED static void onnxc_conv_sc(int M, int C, int IH, int IW, int KH, int KW, int S, int PH, int PW,
                                             int OH, int OW, const float *x, const float *wp, float *y,
                                             const onnxc_epi *e, float *buf, int R) {
  onnxc_conv_sc_rb(M, C, IH, IW, KH, KW, S, PH, PW, OH, OW, x, wp, y, (long)OH * OW, 0, e, buf, R, 0, OH);
}
#endif

ONNXC_MAYBE_UNUSED static void onnxc_im2col2d(const float *x, int IH, int IW, int KH, int KW, int SH, int SW, int DH,
                                              int DW, int PH, int PW, int OW, int r0, int rn, int kb, int kc,
                                              float *col) {
  const int jn = rn * OW;
  int kk;
  for (kk = 0; kk < kc; kk++) {
    const int k = kb + kk, c = k / (KH * KW), kh = k / KW % KH, kw = k % KW, off = kw * DW - PW;
    const float *xc = x + (long)c * IH * IW;
    float *cr = col + (long)kk * jn;
    int rr, ow;
#if defined(ONNXC_AVX512)
    if (SW <= 2) {
      const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
      for (rr = r0; rr < r0 + rn; rr++, cr += OW) {
        const int ih = rr * SH + kh * DH - PH;
        const float *xr = xc + (long)ih * IW;
        if (ih < 0 || ih >= IH) {
          for (ow = 0; ow < OW; ow += 16) _mm512_mask_storeu_ps(cr + ow, ONNXC_MASK16(OW - ow), _mm512_setzero_ps());
          continue;
        }
        for (ow = 0; ow < OW; ow += 16) {
          const int s0 = ow * SW + off; /* input column of the run's first output */
          const int lo = s0 < 0 ? -s0 : 0, hi = IW - s0; /* its valid elements: [lo, hi) */
          const unsigned long long bits = (hi >= 64 ? ~0ULL : hi > 0 ? (1ULL << hi) - 1ULL : 0ULL) & ~((1ULL << (lo < 64 ? lo : 63)) - 1ULL);
          const __mmask16 km = ONNXC_MASK16(OW - ow);
          const __m512 a = _mm512_maskz_loadu_ps((__mmask16)(bits & 0xffff), xr + s0);
          if (SW == 1) {
            _mm512_mask_storeu_ps(cr + ow, km, a);
          } else {
            const __m512 b = _mm512_maskz_loadu_ps((__mmask16)((bits >> 16) & 0xffff), xr + s0 + 16);
            _mm512_mask_storeu_ps(cr + ow, km, _mm512_permutex2var_ps(a, even, b));
          }
        }
      }
      continue;
    }
#endif
    {
      /* outputs [lo, hi) read inside the row */
      int lo = off >= 0 ? 0 : (SW - 1 - off) / SW, hi = (IW + SW - 1 - off) / SW;
      if (lo > OW) lo = OW;
      if (hi > OW) hi = OW;
      if (hi < lo) hi = lo;
      for (rr = r0; rr < r0 + rn; rr++, cr += OW) {
        const int ih = rr * SH + kh * DH - PH;
        const float *xr = xc + (long)ih * IW + off;
        if (ih < 0 || ih >= IH) {
          for (ow = 0; ow < OW; ow++) cr[ow] = 0.0f;
          continue;
        }
        for (ow = 0; ow < lo; ow++) cr[ow] = 0.0f;
        if (SW == 1)
          for (; ow < hi; ow++) cr[ow] = xr[ow];
        else
          for (; ow < hi; ow++) cr[ow] = xr[(long)ow * SW];
        for (; ow < OW; ow++) cr[ow] = 0.0f;
      }
    }
  }
}

/* Output rows [r_lo, r_hi) (tiles of at most TR rows) and channels [m_lo, m_hi) (m_lo a multiple
   of 8) of a 1-D or 2-D convolution through im2col: blocks of KB (dividing ONNXC_KC) rows of k
   unfolded into col (KB TR OW floats), each multiplied into the output by onnxc_gemm_blk (the
   first block writes, later ones add, the last runs the epilogue) -- the loop the compiler
   emits for one thread (ops_nn.c conv_emit_fast), in parts for onnxc_conv_i2c_par (par.h).  wp: the weights packed for onnxc_sgemm. */
ONNXC_MAYBE_UNUSED static void onnxc_conv_i2c_rb(int M, int K, int KB, int IH, int IW, int KH, int KW, int SH, int SW, int DH,
                                                 int DW, int PH, int PW, int OW, const float *x, const float *wp, float *y,
                                                 long OHW, int yr0, const onnxc_epi *e, float *col, int TR, int r_lo, int r_hi,
                                                 int m_lo, int m_hi) {
  const long Mp = (M + 7) / 8 * 8;
  int r0, kb;
  for (r0 = r_lo; r0 < r_hi; r0 += TR) {
    const int rn = r_hi - r0 < TR ? r_hi - r0 : TR, jn = rn * OW;
    onnxc_epi es = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
    if (e) es = onnxc_epi_at(e, m_lo, (long)r0 * OW);
    for (kb = 0; kb < K; kb += KB) {
      const int kc = K - kb < KB ? K - kb : KB, b0 = kb / ONNXC_KC * ONNXC_KC, bl = K - b0 < ONNXC_KC ? K - b0 : ONNXC_KC;
      onnxc_im2col2d(x, IH, IW, KH, KW, SH, SW, DH, DW, PH, PW, OW, r0, rn, kb, kc, col);
      onnxc_gemm_blk(m_hi - m_lo, jn, kc, wp + (long)b0 * Mp + (long)(kb - b0) * 8 + (long)m_lo * bl, 8L * bl, col, jn,
                     y + (long)m_lo * OHW + (long)(r0 - yr0) * OW, OHW, kb > 0, kb + kc >= K && e ? &es : (const onnxc_epi *)0);
    }
  }
}

/* the same into whole planes of ROWS rows */
ONNXC_MAYBE_UNUSED static void onnxc_conv_i2c_r(int M, int K, int KB, int IH, int IW, int KH, int KW, int SH, int SW, int DH,
                                                int DW, int PH, int PW, int ROWS, int OW, const float *x, const float *wp,
                                                float *y, const onnxc_epi *e, float *col, int TR, int r_lo, int r_hi, int m_lo,
                                                int m_hi) {
  onnxc_conv_i2c_rb(M, K, KB, IH, IW, KH, KW, SH, SW, DH, DW, PH, PW, OW, x, wp, y, (long)ROWS * OW, 0, e, col, TR, r_lo, r_hi,
                    m_lo, m_hi);
}

/* ---- Winograd F(2x2, 3x3) ---------------------------------------------------------------------
   3x3, stride 1, padding 1 convolutions: Y = A^T [ U (.) V ] A per 2x2 output tile, with
   U = G g G^T (16 values per filter and channel, transformed and packed like onnxc_pack_a by the
   compiler: U[xi] is an M x C matrix, xi = 0..15) and V = B^T d B of the tile's 4x4 input patch.
   A block of TB tiles (whole tile rows) is transformed into V[xi][c][t] (scratch), multiplied by
   U[xi] in 16 GEMMs into O[xi][m][t] (scratch), and transformed back into Y with the epilogue:
   2.25x fewer multiplies than direct convolution.  acc != 0: y holds an addend on entry (a
   residual the output was planned over), added before the epilogue.
     B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1]   A^T = [1 1 1 0; 0 1 -1 -1] */
#define ONNXC_WINO_LD(n) ((n) % 512 == 0 ? (n) + 16 : (n))
#define ONNXC_WBT(d0, d1, d2, d3, t0, t1, t2, t3) t0 = (d0) - (d2); t1 = (d1) + (d2); t2 = (d2) - (d1); t3 = (d1) - (d3);
/* Tiles per step of the transforms' tile loops: one vector of them (AVX2: 8; AVX-512: 16; the
   portable loops take one tile at a time in steps of 16) */
#if defined(ONNXC_AVX2)
#define ONNXC_WTS 8
#else
#define ONNXC_WTS 16
#endif

#if defined(ONNXC_AVX2)
/* Columns col..col+7 of an input row of W floats, zero outside [0, W): a plain load inside,
   else a masked one (the row's neighbours are not read). */
ONNXC_MAYBE_UNUSED static inline __m256 onnxc_wrow8(const float *row, int col, int W) {
  if (col >= 0 && col + 8 <= W) return _mm256_loadu_ps(row + col);
  return _mm256_maskload_ps((const float *)ONNXC_FAR(row, col), _mm256_andnot_si256(onnxc_mask8(-col), onnxc_mask8(W - col)));
}
/* n (> 0) floats at p, zero in the lanes past them */
ONNXC_MAYBE_UNUSED static inline __m256 onnxc_ldn8(const float *p, int n) {
  return n >= 8 ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, onnxc_mask8(n));
}
/* The epilogue on 8 lanes of row m, columns n.. of which cnt (> 0) exist, for activations with a
   vector form (ONNXC_ACT8_OK): onnxc_epi_row's operations (bias, then residual, then act). */
ONNXC_MAYBE_UNUSED static inline __m256 onnxc_epi8(const onnxc_epi *e, __m256 x, int m, int n, int cnt) {
  if (e->bias) x = _mm256_add_ps(x, e->bias_cols ? onnxc_ldn8(e->bias + n, cnt) : _mm256_set1_ps(e->bias[m]));
  if (e->res) x = _mm256_add_ps(x, onnxc_ldn8(e->res + (long)m * e->ldr + n, cnt));
  return onnxc_act8(x, e->act, e->alpha, e->beta);
}
/* 8 tiles of a row of V or O: nt from p (np = 0), or, where the halves hold two tile rows
   (np = TX <= 4 tiles each), np from p and np from p + np (the next row's) */
ONNXC_MAYBE_UNUSED static inline void onnxc_wst8(float *p, __m256 v, int nt, int np) {
  if (!np || np == 4) {
    onnxc_storen8(p, v, np ? 8 : nt);
  } else {
    onnxc_storen8(p, v, np);
    onnxc_storen8(p + np, _mm256_castps128_ps256(_mm256_extractf128_ps(v, 1)), np);
  }
}
ONNXC_MAYBE_UNUSED static inline __m256 onnxc_wld8(const float *p, int nt, int np) {
  if (np == 4 || (!np && nt == 8)) return _mm256_loadu_ps(p);
  if (!np) return _mm256_maskload_ps(p, onnxc_mask8(nt));
  {
    const __m128i k = _mm256_castsi256_si128(onnxc_mask8(np));
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_maskload_ps(p, k)), _mm_maskload_ps(p + np, k), 1);
  }
}
/* The epilogue of the Winograd output transforms, set up once per call: the common forms (a
   per-row bias or none, then Relu, Clip or nothing: no residual) with their constants in vectors
   (clamp: max with lo, then min with hi, as onnxc_act8), the other vector forms through
   onnxc_epi8 (ev), the rest by the caller on the stored rows (onnxc_epi_tile) */
typedef struct onnxc_wepi8 {
  const onnxc_epi *e, *ev; /* e: the epilogue; ev: e where onnxc_epi8 runs it */
  __m256 lo, hi, bv;       /* bv: row m's bias (onnxc_wepi8_row) */
  int fast, clamp, hb;
} onnxc_wepi8;
ONNXC_MAYBE_UNUSED static inline onnxc_wepi8 onnxc_wepi8_init(const onnxc_epi *e) {
  onnxc_wepi8 w;
  w.e = e;
  w.fast = e && !e->res && !e->bias_cols && e->act <= ONNXC_ACT_CLIP;
  w.ev = e && !w.fast && ONNXC_ACT8_OK(e->act) ? e : (const onnxc_epi *)0;
  w.clamp = w.fast && e->act != ONNXC_ACT_NONE;
  w.hb = w.fast && e->bias;
  w.lo = _mm256_set1_ps(w.clamp && e->act == ONNXC_ACT_CLIP ? e->alpha : 0.0f);
  w.hi = _mm256_set1_ps(w.clamp && e->act == ONNXC_ACT_CLIP ? e->beta : INFINITY);
  w.bv = _mm256_setzero_ps();
  return w;
}
#define ONNXC_WEPI8_ROW(w, m) ((w).bv = (w).hb ? _mm256_set1_ps((w).e->bias[m]) : (w).bv)
/* cnt (> 0) outputs at yp (row m, column n of the epilogue), plus the addend there (acc), then
   the epilogue */
ONNXC_MAYBE_UNUSED static inline void onnxc_wout8(float *yp, __m256 r, int acc, const onnxc_wepi8 *w, int m, int n, int cnt) {
  if (acc) r = _mm256_add_ps(r, onnxc_ldn8(yp, cnt));
  if (w->hb) r = _mm256_add_ps(r, w->bv);
  if (w->clamp) r = _mm256_min_ps(_mm256_max_ps(r, w->lo), w->hi);
  else if (w->ev) r = onnxc_epi8(w->ev, r, m, n, cnt);
  onnxc_storen8(yp, r, cnt);
}
/* what onnxc_wout8 left to do on the stored row (cnt outputs at yp, row m, column n) */
#define ONNXC_WEPI8_REST(w, yp, W, m, n, cnt) \
  if ((w).e && !(w).fast && !(w).ev) onnxc_epi_tile((w).e, yp, W, m, 1, n, cnt)
/* even / odd lanes of a, b (16 consecutive floats) in order */
#define ONNXC_EVEN8(a, b) _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xd8))
#define ONNXC_ODD8(a, b) _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0xdd)), 0xd8))
#endif

/* tile rows [r0, r1) and output channels [m_lo, m_hi) (m_lo a multiple of 8) of the plane
   (onnxc_wino23 takes them all; onnxc_wino_par a share of one or the other each) */
ONNXC_MAYBE_UNUSED static void onnxc_wino23_r(int M, int C, int H, int W, const float *x, const float *U, float *y,
                                              const onnxc_epi *e, float *scratch, int TB, int acc, int r0, int r1,
                                              int m_lo, int m_hi) {
  const int TX = (W + 1) / 2, T = TX * r1, Mp = (M + 7) / 8 * 8;
  /* V[xi] and O[xi] one cache line more than their size apart where that is a multiple of
     2 KiB (they would crowd two L1 sets); ONNXC_WINO_LD */
  const long vs = ONNXC_WINO_LD((long)C * TB), os = ONNXC_WINO_LD((long)M * TB);
  float *V = scratch, *O = scratch + 16 * vs;
  int t0, xi;
#if defined(ONNXC_AVX2)
  onnxc_wepi8 we = onnxc_wepi8_init(e);
#endif
  for (t0 = r0 * TX; t0 < T; t0 += TB) {
    const int tb = T - t0 < TB ? T - t0 : TB, ty0 = t0 / TX, ty1 = (t0 + tb) / TX; /* tile rows [ty0, ty1) */
    int c, m, ty;
    /* input transform */
    for (c = 0; c < C; c++) {
      const float *xc = x + (long)c * H * W;
      for (ty = ty0; ty < ty1; ty++) {
        int tx0;
        for (tx0 = 0; tx0 < TX; tx0 += ONNXC_WTS) {
          const int nt = TX - tx0 < ONNXC_WTS ? TX - tx0 : ONNXC_WTS, ti = (ty - ty0) * TX + tx0;
#if defined(ONNXC_AVX512)
          const __m512i ev_i = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
          const __m512i od_i = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
          const __mmask16 km = ONNXC_MASK16(nt);
          __m512 d[4][4], t[4][4];
          int r, j;
          for (r = 4; r < 6; r++) /* the next tile row's two new input rows */
            if (2 * ty + r - 1 < H) {
              const float *pr = xc + (long)(2 * ty + r - 1) * W + 2 * tx0;
              _mm_prefetch((const char *)pr, _MM_HINT_T0);
              ONNXC_PF(pr, 16, _MM_HINT_T0);
            }
          for (r = 0; r < 4; r++) {
            const int ih = 2 * ty + r - 1, c0 = 2 * tx0 - 1; /* patch row r, first column */
            if (ih < 0 || ih >= H) {
              d[r][0] = d[r][1] = d[r][2] = d[r][3] = _mm512_setzero_ps();
            } else {
              /* columns c0 .. c0 + 47 (the valid ones) */
              const float *row = xc + (long)ih * W;
              const int lo = -c0 > 0 ? -c0 : 0, hi = W - c0;
              const unsigned long long bits = (hi >= 64 ? ~0ULL : ((1ULL << (hi > 0 ? hi : 0)) - 1ULL)) & ~((1ULL << lo) - 1ULL);
              const __m512 a = _mm512_maskz_loadu_ps((__mmask16)(bits & 0xffff), row + c0);
              const __m512 b = _mm512_maskz_loadu_ps((__mmask16)((bits >> 16) & 0xffff), row + c0 + 16);
              const __m512 cc = _mm512_maskz_loadu_ps((__mmask16)((bits >> 32) & 0xffff), row + c0 + 32);
              const __m512 a2 = _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(b), _mm512_castps_si512(a), 2));
              const __m512 b2 = _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(cc), _mm512_castps_si512(b), 2));
              d[r][0] = _mm512_permutex2var_ps(a, ev_i, b);
              d[r][1] = _mm512_permutex2var_ps(a, od_i, b);
              d[r][2] = _mm512_permutex2var_ps(a2, ev_i, b2);
              d[r][3] = _mm512_permutex2var_ps(a2, od_i, b2);
            }
          }
          for (j = 0; j < 4; j++) {
            t[0][j] = _mm512_sub_ps(d[0][j], d[2][j]);
            t[1][j] = _mm512_add_ps(d[1][j], d[2][j]);
            t[2][j] = _mm512_sub_ps(d[2][j], d[1][j]);
            t[3][j] = _mm512_sub_ps(d[1][j], d[3][j]);
          }
          for (r = 0; r < 4; r++) {
            float *vp = V + (4 * r) * vs + (long)c * TB + ti;
            const long xs = vs; /* next xi */
            _mm512_mask_storeu_ps(vp, km, _mm512_sub_ps(t[r][0], t[r][2]));
            _mm512_mask_storeu_ps(vp + xs, km, _mm512_add_ps(t[r][1], t[r][2]));
            _mm512_mask_storeu_ps(vp + 2 * xs, km, _mm512_sub_ps(t[r][2], t[r][1]));
            _mm512_mask_storeu_ps(vp + 3 * xs, km, _mm512_sub_ps(t[r][1], t[r][3]));
          }
#elif defined(ONNXC_AVX2)
          /* 8 tiles: patch columns j of tile q are input columns c0 + 2 q + j, the even and odd
             lanes of the 16 columns from c0 (j = 0, 1) and of those from c0 + 2 (j = 2, 3) */
          const int c0 = 2 * tx0 - 1;
          __m256 d[4][4], t[4][4];
          int r, j;
          for (r = 0; r < 4; r++) {
            const int ih = 2 * ty + r - 1; /* patch row r */
            if (ih < 0 || ih >= H) {
              d[r][0] = d[r][1] = d[r][2] = d[r][3] = _mm256_setzero_ps();
            } else {
              const float *row = xc + (long)ih * W;
              const __m256 a = onnxc_wrow8(row, c0, W), b = onnxc_wrow8(row, c0 + 8, W);
              const __m256 a2 = onnxc_wrow8(row, c0 + 2, W), b2 = onnxc_wrow8(row, c0 + 10, W);
              d[r][0] = ONNXC_EVEN8(a, b);
              d[r][1] = ONNXC_ODD8(a, b);
              d[r][2] = ONNXC_EVEN8(a2, b2);
              d[r][3] = ONNXC_ODD8(a2, b2);
            }
          }
          for (j = 0; j < 4; j++) {
            t[0][j] = _mm256_sub_ps(d[0][j], d[2][j]);
            t[1][j] = _mm256_add_ps(d[1][j], d[2][j]);
            t[2][j] = _mm256_sub_ps(d[2][j], d[1][j]);
            t[3][j] = _mm256_sub_ps(d[1][j], d[3][j]);
          }
          for (r = 0; r < 4; r++) {
            float *vp = V + (4 * r) * vs + (long)c * TB + ti;
            const long xs = vs; /* next xi */
            onnxc_storen8(vp, _mm256_sub_ps(t[r][0], t[r][2]), nt);
            onnxc_storen8(vp + xs, _mm256_add_ps(t[r][1], t[r][2]), nt);
            onnxc_storen8(vp + 2 * xs, _mm256_sub_ps(t[r][2], t[r][1]), nt);
            onnxc_storen8(vp + 3 * xs, _mm256_sub_ps(t[r][1], t[r][3]), nt);
          }
#else
          int q, r, j;
          for (q = 0; q < nt; q++) {
            float d[4][4], t[4][4];
            const int tx = tx0 + q;
            for (r = 0; r < 4; r++)
              for (j = 0; j < 4; j++) {
                const int ih = 2 * ty + r - 1, iw = 2 * tx + j - 1;
                d[r][j] = ih >= 0 && ih < H && iw >= 0 && iw < W ? xc[(long)ih * W + iw] : 0.0f;
              }
            for (j = 0; j < 4; j++) { ONNXC_WBT(d[0][j], d[1][j], d[2][j], d[3][j], t[0][j], t[1][j], t[2][j], t[3][j]) }
            for (r = 0; r < 4; r++) {
              float v0, v1, v2, v3;
              ONNXC_WBT(t[r][0], t[r][1], t[r][2], t[r][3], v0, v1, v2, v3)
              V[(4 * r + 0) * vs + (long)c * TB + ti + q] = v0;
              V[(4 * r + 1) * vs + (long)c * TB + ti + q] = v1;
              V[(4 * r + 2) * vs + (long)c * TB + ti + q] = v2;
              V[(4 * r + 3) * vs + (long)c * TB + ti + q] = v3;
            }
          }
#endif
        }
      }
    }
    for (xi = 0; xi < 16; xi++)
      if (m_lo == 0 && m_hi == M)
        onnxc_sgemm(M, tb, C, U + (long)xi * Mp * C, 8, V + xi * vs, TB, O + xi * os, TB, (const onnxc_epi *)0);
      else /* rows [m_lo, m_hi) of U[xi] */
        onnxc_sgemm_mrows(M, m_lo, m_hi, tb, C, U + (long)xi * Mp * C, V + xi * vs, TB, O + xi * os, TB, (const onnxc_epi *)0);
    /* output transform and epilogue */
    for (m = m_lo; m < m_hi; m++) {
      float *ym = y + (long)m * H * W;
#if defined(ONNXC_AVX2)
      ONNXC_WEPI8_ROW(we, m);
#endif
      for (ty = ty0; ty < ty1; ty++) {
        int tx0;
        for (tx0 = 0; tx0 < TX; tx0 += ONNXC_WTS) {
          const int nt = TX - tx0 < ONNXC_WTS ? TX - tx0 : ONNXC_WTS, ti = (ty - ty0) * TX + tx0;
          const float *op = O + (long)m * TB + ti;
          const long xs = os;
#if defined(ONNXC_AVX512)
          const __mmask16 km = ONNXC_MASK16(nt);
          const __m512i lo_i = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
          const __m512i hi_i = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
          __m512 s[2][4];
          int j, a;
          for (j = 0; j < 4; j++) {
            const __m512 m0 = _mm512_maskz_loadu_ps(km, op + j * xs), m1 = _mm512_maskz_loadu_ps(km, op + (4 + j) * xs);
            const __m512 m2 = _mm512_maskz_loadu_ps(km, op + (8 + j) * xs), m3 = _mm512_maskz_loadu_ps(km, op + (12 + j) * xs);
            s[0][j] = _mm512_add_ps(_mm512_add_ps(m0, m1), m2);
            s[1][j] = _mm512_sub_ps(_mm512_sub_ps(m1, m2), m3);
          }
          for (a = 0; a < 2; a++) {
            const int oh = 2 * ty + a, ow0 = 2 * tx0, n = W - ow0 < 32 ? W - ow0 : 32;
            const __m512 y0 = _mm512_add_ps(_mm512_add_ps(s[a][0], s[a][1]), s[a][2]);
            const __m512 y1 = _mm512_sub_ps(_mm512_sub_ps(s[a][1], s[a][2]), s[a][3]);
            __m512 r0 = _mm512_permutex2var_ps(y0, lo_i, y1), r1 = _mm512_permutex2var_ps(y0, hi_i, y1);
            const __mmask16 k0 = ONNXC_MASK16(n), k1 = ONNXC_MASK16(n - 16);
            if (oh >= H) continue;
            if (acc) {
              r0 = _mm512_add_ps(r0, _mm512_maskz_loadu_ps(k0, ym + (long)oh * W + ow0));
              r1 = _mm512_add_ps(r1, _mm512_maskz_loadu_ps(k1, ym + (long)oh * W + ow0 + 16));
            }
            if (e) {
              r0 = onnxc_epi16(e, r0, k0, m, oh * W + ow0);
              r1 = onnxc_epi16(e, r1, k1, m, oh * W + ow0 + 16);
            }
            _mm512_mask_storeu_ps(ym + (long)oh * W + ow0, k0, r0);
            _mm512_mask_storeu_ps(ym + (long)oh * W + ow0 + 16, k1, r1);
          }
#elif defined(ONNXC_AVX2)
          /* 8 tiles (the epilogue: onnxc_wepi8) */
          const __m256i km = onnxc_mask8(nt);
          __m256 s[2][4];
          int j, a;
          for (j = 0; j < 4; j++) {
            __m256 m0, m1, m2, m3;
            if (nt == 8) {
              m0 = _mm256_loadu_ps(op + j * xs), m1 = _mm256_loadu_ps(op + (4 + j) * xs);
              m2 = _mm256_loadu_ps(op + (8 + j) * xs), m3 = _mm256_loadu_ps(op + (12 + j) * xs);
            } else {
              m0 = _mm256_maskload_ps(op + j * xs, km), m1 = _mm256_maskload_ps(op + (4 + j) * xs, km);
              m2 = _mm256_maskload_ps(op + (8 + j) * xs, km), m3 = _mm256_maskload_ps(op + (12 + j) * xs, km);
            }
            s[0][j] = _mm256_add_ps(_mm256_add_ps(m0, m1), m2);
            s[1][j] = _mm256_sub_ps(_mm256_sub_ps(m1, m2), m3);
          }
          for (a = 0; a < 2; a++) {
            const int oh = 2 * ty + a, ow0 = 2 * tx0, n = W - ow0 < 16 ? W - ow0 : 16;
            const __m256 y0 = _mm256_add_ps(_mm256_add_ps(s[a][0], s[a][1]), s[a][2]);
            const __m256 y1 = _mm256_sub_ps(_mm256_sub_ps(s[a][1], s[a][2]), s[a][3]);
            const __m256 lo = _mm256_unpacklo_ps(y0, y1), hi = _mm256_unpackhi_ps(y0, y1); /* tiles 0 1 4 5, 2 3 6 7 */
            float *yp;
            if (oh >= H) continue;
            yp = ym + (long)oh * W + ow0;
            onnxc_wout8(yp, _mm256_permute2f128_ps(lo, hi, 0x20), acc, &we, m, oh * W + ow0, n < 8 ? n : 8);
            if (n > 8) onnxc_wout8(yp + 8, _mm256_permute2f128_ps(lo, hi, 0x31), acc, &we, m, oh * W + ow0 + 8, n - 8);
            ONNXC_WEPI8_REST(we, yp, W, m, oh * W + ow0, n);
          }
#else
          int q, j, a;
          for (q = 0; q < nt; q++) {
            float s[2][4];
            const int tx = tx0 + q;
            for (j = 0; j < 4; j++) {
              const float m0 = op[j * xs + q], m1 = op[(4 + j) * xs + q], m2 = op[(8 + j) * xs + q], m3 = op[(12 + j) * xs + q];
              s[0][j] = m0 + m1 + m2;
              s[1][j] = m1 - m2 - m3;
            }
            for (a = 0; a < 2; a++) {
              const int oh = 2 * ty + a, ow = 2 * tx;
              if (oh >= H) continue;
              ym[(long)oh * W + ow] = (acc ? ym[(long)oh * W + ow] : 0.0f) + (s[a][0] + s[a][1] + s[a][2]);
              if (ow + 1 < W) ym[(long)oh * W + ow + 1] = (acc ? ym[(long)oh * W + ow + 1] : 0.0f) + (s[a][1] - s[a][2] - s[a][3]);
            }
          }
          if (e)
            for (a = 0; a < 2; a++) {
              const int oh = 2 * ty + a, ow0 = 2 * tx0, n = W - ow0 < 2 * nt ? W - ow0 : 2 * nt;
              if (oh < H) onnxc_epi_tile(e, ym + (long)oh * W + ow0, W, m, 1, oh * W + ow0, n);
            }
#endif
        }
      }
    }
  }
}

ONNXC_MAYBE_UNUSED static void onnxc_wino23(int M, int C, int H, int W, const float *x, const float *U, float *y,
                                            const onnxc_epi *e, float *scratch, int TB, int acc) {
  onnxc_wino23_r(M, C, H, W, x, U, y, e, scratch, TB, acc, 0, (H + 1) / 2, 0, M);
}

/* ---- Winograd F(4x4, 3x3) ---------------------------------------------------------------------
   As onnxc_wino23 with 4x4 output tiles of 6x6 input patches (interpolation points 0, +-1, +-2
   and infinity): U = G g G^T is 36 values per filter and channel (U[xi], xi = 0..35, each an
   M x C matrix packed like onnxc_pack_a), V = B^T d B, Y = A^T [U (.) V] A: 36 GEMMs per block
   of tiles, 4x fewer multiplies than direct convolution (F(2x2) 2.25x).  The compiler takes it
   for planes with enough tiles to fill the GEMMs' 16-column vectors.
     B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1]
     A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1]
   AVX-512: the six input rows of a tile row are loaded 80 columns at a time (16 tiles), the
   column transform B^T runs on whole rows, then stride-4 lane gathers (two-source permutes and
   a blend) give per patch column a vector over the 16 tiles for the row transform; the output
   transform interleaves its four column vectors back into 64 consecutive outputs. */
#define ONNXC_WBT6(OP_ADD, OP_SUB, OP_FMA, OP_FNMA, C4, C5, d0, d1, d2, d3, d4, d5, t0, t1, t2, t3, t4, t5) \
  {                                                                                                           \
    const ONNXC_WT a_ = OP_FNMA(C4, d2, d4), b_ = OP_FNMA(C4, d1, d3), c_ = OP_SUB(d4, d2);                   \
    const ONNXC_WT e_ = OP_ADD(OP_SUB(d3, d1), OP_SUB(d3, d1));                                               \
    t0 = OP_FMA(C4, d0, OP_FNMA(C5, d2, d4));                                                                 \
    t1 = OP_ADD(a_, b_);                                                                                      \
    t2 = OP_SUB(a_, b_);                                                                                      \
    t3 = OP_ADD(c_, e_);                                                                                      \
    t4 = OP_SUB(c_, e_);                                                                                      \
    t5 = OP_FMA(C4, d1, OP_FNMA(C5, d3, d5));                                                                 \
  }
#define ONNXC_WAT6(OP_ADD, OP_SUB, OP_FMA, C2, C4, C8, m0, m1, m2, m3, m4, m5, o0, o1, o2, o3) \
  {                                                                                        \
    const ONNXC_WT p_ = OP_ADD(m1, m2), q_ = OP_SUB(m1, m2), r_ = OP_ADD(m3, m4);           \
    const ONNXC_WT s_ = OP_SUB(m3, m4);                                                    \
    o0 = OP_ADD(OP_ADD(m0, p_), r_);                                                       \
    o1 = OP_FMA(C2, s_, q_);                                                               \
    o2 = OP_FMA(C4, r_, p_);                                                               \
    o3 = OP_ADD(OP_FMA(C8, s_, q_), m5);                                                   \
  }
#define ONNXC_SADD(a, b) ((a) + (b))
#define ONNXC_SSUB(a, b) ((a) - (b))
#define ONNXC_SFMA(c, a, b) ((c) * (a) + (b))
#define ONNXC_SFNMA(c, a, b) ((b) - (c) * (a))

/* lanes [lo - 16 v, hi - 16 v) of vector v of a row span */
#define ONNXC_SPANMASK(lo, hi, v) \
  ((hi) - 16 * (v) <= 0 || (lo) - 16 * (v) >= 16 ? (__mmask16)0 : (__mmask16)(ONNXC_MASK16((hi) - 16 * (v)) & ~ONNXC_MASK16((lo) - 16 * (v))))

#if defined(ONNXC_AVX2)
#define ONNXC_WT __m256
/* The AVX2 transforms of onnxc_wino43_r on 8 tiles from tile tx0 of tile row ty (nt of them), or
   pr: tiles 0..3 of rows ty and ty + 1 in the vectors' halves (TX <= 4: 14 x 14 planes filled
   half the vectors); pr a constant where they are called, the two forms inlined apart (one form
   with pr a variable took the 64x64 56x56 input transform from 0.262M to 0.472M ticks).  Input:
   plane xc into vp[xi vs + tile]; output: op[xi xs + tile] into plane ym (row m). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
ONNXC_MAYBE_UNUSED static inline void onnxc_w43in8(const float *xc, int H, int W, int ty, int tx0, int pr, int TX, float *vp,
                                                  long vs, int nt) {
  if (!pr) {
    /* 8 tiles, input columns c0 .. c0 + 33 in five vectors (128-bit half h of vector v:
       the patch columns 0..3 of tile 2 v + h), the column transform B^T on them, then per
       patch row the lanes regrouped by tile: halves paired across vectors (tiles q and
       q + 4 in one vector) and a 4 x 4 transpose within the halves gives patch columns
       0..3 of tiles 0..7; the same on the pairs one tile on, columns 4 and 5. */
    const __m256 c4 = _mm256_set1_ps(4.0f), c5 = _mm256_set1_ps(5.0f);
    const int c0 = 4 * tx0 - 1;
    __m256 tr[6][5];
    int r, v, j;
    for (v = 0; v < 5; v++) {
      __m256 rw[6];
      for (r = 0; r < 6; r++) {
        const int ih = 4 * ty + r - 1;
        rw[r] = ih < 0 || ih >= H ? _mm256_setzero_ps() : onnxc_wrow8(xc + (long)ih * W, c0 + 8 * v, W);
      }
      ONNXC_WBT6(_mm256_add_ps, _mm256_sub_ps, _mm256_fmadd_ps, _mm256_fnmadd_ps, c4, c5, rw[0], rw[1], rw[2], rw[3],
                 rw[4], rw[5], tr[0][v], tr[1][v], tr[2][v], tr[3][v], tr[4][v], tr[5][v])
    }
    for (r = 0; r < 6; r++) {
      const __m256 *s = tr[r];
      const __m256 p0 = _mm256_permute2f128_ps(s[0], s[2], 0x20), p1 = _mm256_permute2f128_ps(s[0], s[2], 0x31); /* tiles 0|4, 1|5 */
      const __m256 p2 = _mm256_permute2f128_ps(s[1], s[3], 0x20), p3 = _mm256_permute2f128_ps(s[1], s[3], 0x31); /* 2|6, 3|7 */
      const __m256 p4 = _mm256_permute2f128_ps(s[2], s[4], 0x20);                                                  /* 4|8 */
      const __m256 l0 = _mm256_unpacklo_ps(p0, p1), l1 = _mm256_unpacklo_ps(p2, p3);
      const __m256 h0 = _mm256_unpackhi_ps(p0, p1), h1 = _mm256_unpackhi_ps(p2, p3);
      const __m256 l2 = _mm256_unpacklo_ps(p1, p2), l3 = _mm256_unpacklo_ps(p3, p4);
      __m256 d[6], o[6];
      d[0] = _mm256_shuffle_ps(l0, l1, 0x44);
      d[1] = _mm256_shuffle_ps(l0, l1, 0xee);
      d[2] = _mm256_shuffle_ps(h0, h1, 0x44);
      d[3] = _mm256_shuffle_ps(h0, h1, 0xee);
      d[4] = _mm256_shuffle_ps(l2, l3, 0x44);
      d[5] = _mm256_shuffle_ps(l2, l3, 0xee);
      ONNXC_WBT6(_mm256_add_ps, _mm256_sub_ps, _mm256_fmadd_ps, _mm256_fnmadd_ps, c4, c5, d[0], d[1], d[2], d[3],
                 d[4], d[5], o[0], o[1], o[2], o[3], o[4], o[5])
      for (j = 0; j < 6; j++) onnxc_storen8(vp + (6 * r + j) * vs, o[j], nt);
    }
    return;
  }
  /* pr: the same on tiles 0..3 of rows ty, ty + 1: vectors 0..2 of row ty, 3..5 of row ty + 1,
     paired 0 with 3, 1 with 4, 2 with 5 (ib = 3); the stores in two halves where TX < 4 */
  const __m256 c4 = _mm256_set1_ps(4.0f), c5 = _mm256_set1_ps(5.0f);
  const int c0 = 4 * tx0 - 1, nv = pr ? 6 : 5, ib = pr ? 3 : 2, np = pr ? TX : 0;
  __m256 tr[6][6];
  int r, v, j;
  for (v = 0; v < nv; v++) {
    const int h = pr && v >= 3; /* of row ty + 1 */
    __m256 rw[6];
    for (r = 0; r < 6; r++) {
      const int ih = 4 * (ty + h) + r - 1;
      rw[r] = ih < 0 || ih >= H ? _mm256_setzero_ps() : onnxc_wrow8(xc + (long)ih * W, c0 + 8 * (v - 3 * h), W);
    }
    ONNXC_WBT6(_mm256_add_ps, _mm256_sub_ps, _mm256_fmadd_ps, _mm256_fnmadd_ps, c4, c5, rw[0], rw[1], rw[2], rw[3],
               rw[4], rw[5], tr[0][v], tr[1][v], tr[2][v], tr[3][v], tr[4][v], tr[5][v])
  }
  for (r = 0; r < 6; r++) {
    const __m256 *s = tr[r];
    const __m256 p0 = _mm256_permute2f128_ps(s[0], s[ib], 0x20), p1 = _mm256_permute2f128_ps(s[0], s[ib], 0x31); /* tiles 0|4, 1|5 */
    const __m256 p2 = _mm256_permute2f128_ps(s[1], s[ib + 1], 0x20), p3 = _mm256_permute2f128_ps(s[1], s[ib + 1], 0x31); /* 2|6, 3|7 */
    const __m256 p4 = _mm256_permute2f128_ps(s[2], s[ib + 2], 0x20); /* 4|8 */
    const __m256 l0 = _mm256_unpacklo_ps(p0, p1), l1 = _mm256_unpacklo_ps(p2, p3);
    const __m256 h0 = _mm256_unpackhi_ps(p0, p1), h1 = _mm256_unpackhi_ps(p2, p3);
    const __m256 l2 = _mm256_unpacklo_ps(p1, p2), l3 = _mm256_unpacklo_ps(p3, p4);
    __m256 d[6], o[6];
    d[0] = _mm256_shuffle_ps(l0, l1, 0x44);
    d[1] = _mm256_shuffle_ps(l0, l1, 0xee);
    d[2] = _mm256_shuffle_ps(h0, h1, 0x44);
    d[3] = _mm256_shuffle_ps(h0, h1, 0xee);
    d[4] = _mm256_shuffle_ps(l2, l3, 0x44);
    d[5] = _mm256_shuffle_ps(l2, l3, 0xee);
    ONNXC_WBT6(_mm256_add_ps, _mm256_sub_ps, _mm256_fmadd_ps, _mm256_fnmadd_ps, c4, c5, d[0], d[1], d[2], d[3],
               d[4], d[5], o[0], o[1], o[2], o[3], o[4], o[5])
    for (j = 0; j < 6; j++) onnxc_wst8(vp + (6 * r + j) * vs, o[j], nt, np);
  }
}
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
ONNXC_MAYBE_UNUSED static inline void onnxc_w43out8(const float *op, long xs, float *ym, int H, int W, int ty, int tx0, int pr,
                                                   int TX, int nt, int acc, const onnxc_wepi8 *we, int m) {
  if (!pr) {
    /* 8 tiles (the epilogue: onnxc_wepi8) */
    const __m256 c2 = _mm256_set1_ps(2.0f), c4 = _mm256_set1_ps(4.0f), c8 = _mm256_set1_ps(8.0f);
    const __m256i km = onnxc_mask8(nt);
    __m256 s[4][6];
    int j, a, b;
    for (j = 0; j < 6; j++) {
      __m256 mv[6];
      int i;
      if (nt == 8)
        for (i = 0; i < 6; i++) mv[i] = _mm256_loadu_ps(op + (6 * i + j) * xs);
      else
        for (i = 0; i < 6; i++) mv[i] = _mm256_maskload_ps(op + (6 * i + j) * xs, km);
      ONNXC_WAT6(_mm256_add_ps, _mm256_sub_ps, _mm256_fmadd_ps, c2, c4, c8, mv[0], mv[1], mv[2], mv[3], mv[4], mv[5],
                 s[0][j], s[1][j], s[2][j], s[3][j])
    }
    for (a = 0; a < 4; a++) {
      const int oh = 4 * ty + a, ow0 = 4 * tx0, n = W - ow0 < 32 ? W - ow0 : 32;
      __m256 o[4], r[4];
      float *yp;
      if (oh >= H) continue;
      ONNXC_WAT6(_mm256_add_ps, _mm256_sub_ps, _mm256_fmadd_ps, c2, c4, c8, s[a][0], s[a][1], s[a][2], s[a][3],
                 s[a][4], s[a][5], o[0], o[1], o[2], o[3])
      { /* output 4 q + b = o[b][q]: a 4 x 4 transpose within the halves (tiles q | q + 4),
           then the halves paired */
        const __m256 l0 = _mm256_unpacklo_ps(o[0], o[1]), h0 = _mm256_unpackhi_ps(o[0], o[1]);
        const __m256 l1 = _mm256_unpacklo_ps(o[2], o[3]), h1 = _mm256_unpackhi_ps(o[2], o[3]);
        const __m256 u0 = _mm256_shuffle_ps(l0, l1, 0x44), u1 = _mm256_shuffle_ps(l0, l1, 0xee); /* tiles 0|4, 1|5 */
        const __m256 u2 = _mm256_shuffle_ps(h0, h1, 0x44), u3 = _mm256_shuffle_ps(h0, h1, 0xee); /* 2|6, 3|7 */
        r[0] = _mm256_permute2f128_ps(u0, u1, 0x20);
        r[1] = _mm256_permute2f128_ps(u2, u3, 0x20);
        r[2] = _mm256_permute2f128_ps(u0, u1, 0x31);
        r[3] = _mm256_permute2f128_ps(u2, u3, 0x31);
      }
      yp = ym + (long)oh * W + ow0;
      for (b = 0; b < 4 && n > 8 * b; b++)
        onnxc_wout8(yp + 8 * b, r[b], acc, we, m, oh * W + ow0 + 8 * b, n - 8 * b < 8 ? n - 8 * b : 8);
      ONNXC_WEPI8_REST(*we, yp, W, m, oh * W + ow0, n);
    }
    return;
  }
  /* 8 tiles (the epilogue: onnxc_wepi8); pr: tiles 0..3 of rows ty, ty + 1 */
  const __m256 c2 = _mm256_set1_ps(2.0f), c4 = _mm256_set1_ps(4.0f), c8 = _mm256_set1_ps(8.0f);
  const int np = pr ? TX : 0;
  __m256 s[4][6];
  int j, a, b, h;
  for (j = 0; j < 6; j++) {
    __m256 mv[6];
    int i;
    if (!np && nt == 8) /* (the test once per group) */
      for (i = 0; i < 6; i++) mv[i] = _mm256_loadu_ps(op + (6 * i + j) * xs);
    else
      for (i = 0; i < 6; i++) mv[i] = onnxc_wld8(op + (6 * i + j) * xs, nt, np);
    ONNXC_WAT6(_mm256_add_ps, _mm256_sub_ps, _mm256_fmadd_ps, c2, c4, c8, mv[0], mv[1], mv[2], mv[3], mv[4], mv[5],
               s[0][j], s[1][j], s[2][j], s[3][j])
  }
  for (a = 0; a < 4; a++) {
    __m256 o[4], r[4];
    if (4 * ty + a >= H) continue;
    ONNXC_WAT6(_mm256_add_ps, _mm256_sub_ps, _mm256_fmadd_ps, c2, c4, c8, s[a][0], s[a][1], s[a][2], s[a][3],
               s[a][4], s[a][5], o[0], o[1], o[2], o[3])
    { /* output 4 q + b = o[b][q]: a 4 x 4 transpose within the halves (tiles q | q + 4),
         then the halves paired */
      const __m256 l0 = _mm256_unpacklo_ps(o[0], o[1]), h0 = _mm256_unpackhi_ps(o[0], o[1]);
      const __m256 l1 = _mm256_unpacklo_ps(o[2], o[3]), h1 = _mm256_unpackhi_ps(o[2], o[3]);
      const __m256 u0 = _mm256_shuffle_ps(l0, l1, 0x44), u1 = _mm256_shuffle_ps(l0, l1, 0xee); /* tiles 0|4, 1|5 */
      const __m256 u2 = _mm256_shuffle_ps(h0, h1, 0x44), u3 = _mm256_shuffle_ps(h0, h1, 0xee); /* 2|6, 3|7 */
      r[0] = _mm256_permute2f128_ps(u0, u1, 0x20);
      r[1] = _mm256_permute2f128_ps(u2, u3, 0x20);
      r[2] = _mm256_permute2f128_ps(u0, u1, 0x31);
      r[3] = _mm256_permute2f128_ps(u2, u3, 0x31);
    }
    for (h = 0; h < 2; h++) { /* tiles 4 h .. 4 h + 3: 16 outputs from row oh, column ow */
      const int oh = 4 * ty + a + (pr ? 4 * h : 0), ow = pr ? 0 : 4 * tx0 + 16 * h, n = W - ow < 16 ? W - ow : 16;
      float *yp;
      if (oh >= H || n <= 0) continue;
      yp = ym + (long)oh * W + ow;
      for (b = 0; b < 2 && n > 8 * b; b++)
        onnxc_wout8(yp + 8 * b, r[2 * h + b], acc, we, m, oh * W + ow + 8 * b, n - 8 * b < 8 ? n - 8 * b : 8);
      ONNXC_WEPI8_REST(*we, yp, W, m, oh * W + ow, n);
    }
  }
}
#undef ONNXC_WT
#endif

/* tile rows [r0, r1) and output channels [m_lo, m_hi) (m_lo a multiple of 8) of the plane
   (onnxc_wino43 takes them all; onnxc_wino43_par a share of one or the other each) */
ONNXC_MAYBE_UNUSED static void onnxc_wino43_r(int M, int C, int H, int W, const float *x, const float *U, float *y,
                                              const onnxc_epi *e, float *scratch, int TB, int MB, int acc, int r0, int r1,
                                              int m_lo, int m_hi) {
  const int TX = (W + 3) / 4, T = TX * r1, Mp = (M + 7) / 8 * 8;
  /* the blocks, scratch and padding of onnxc_wino23; O holds MB channels */
  const long vs = ONNXC_WINO_LD((long)C * TB), os = ONNXC_WINO_LD((long)MB * TB);
  float *V = scratch, *O = scratch + 36 * vs;
  int t0, xi;
#if defined(ONNXC_AVX2)
  onnxc_wepi8 we = onnxc_wepi8_init(e);
#endif
  for (t0 = r0 * TX; t0 < T; t0 += TB) {
    const int tb = T - t0 < TB ? T - t0 : TB, ty0 = t0 / TX, ty1 = (t0 + tb) / TX; /* tile rows [ty0, ty1) */
    int c, m, m0, ty;
    /* input transform */
    for (c = 0; c < C; c++) {
      const float *xc = x + (long)c * H * W;
      for (ty = ty0; ty < ty1; ty++) {
        int tx0;
#if defined(ONNXC_AVX2)
        const int pr = TX <= 4 && ty + 1 < ty1; /* tile rows ty and ty + 1 in the halves of the vectors */
#endif
        for (tx0 = 0; tx0 < TX; tx0 += ONNXC_WTS) {
          const int nt = TX - tx0 < ONNXC_WTS ? TX - tx0 : ONNXC_WTS, ti = (ty - ty0) * TX + tx0;
#if defined(ONNXC_AVX512)
#define ONNXC_WT __m512
          const __m512i ix[4] = {
              _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28),
              _mm512_setr_epi32(1, 5, 9, 13, 17, 21, 25, 29, 1, 5, 9, 13, 17, 21, 25, 29),
              _mm512_setr_epi32(2, 6, 10, 14, 18, 22, 26, 30, 2, 6, 10, 14, 18, 22, 26, 30),
              _mm512_setr_epi32(3, 7, 11, 15, 19, 23, 27, 31, 3, 7, 11, 15, 19, 23, 27, 31)};
          const __m512 c4 = _mm512_set1_ps(4.0f), c5 = _mm512_set1_ps(5.0f);
          const __mmask16 km = ONNXC_MASK16(nt);
          const int c0 = 4 * tx0 - 1, lo = -c0 > 0 ? -c0 : 0, hi = W - c0 < 80 ? W - c0 : 80; /* valid columns */
          __m512 rw[6][5], tr[6][5];
          int r, v, j;
          for (r = 0; r < 6; r++) {
            const int ih = 4 * ty + r - 1;
            if (ih < 0 || ih >= H) {
              for (v = 0; v < 5; v++) rw[r][v] = _mm512_setzero_ps();
            } else {
              const float *row = xc + (long)ih * W + c0;
              for (v = 0; v < 5; v++) rw[r][v] = _mm512_maskz_loadu_ps(ONNXC_SPANMASK(lo, hi, v), row + 16 * v);
            }
          }
          for (v = 0; v < 5; v++)
            ONNXC_WBT6(_mm512_add_ps, _mm512_sub_ps, _mm512_fmadd_ps, _mm512_fnmadd_ps, c4, c5, rw[0][v], rw[1][v],
                       rw[2][v], rw[3][v], rw[4][v], rw[5][v], tr[0][v], tr[1][v], tr[2][v], tr[3][v], tr[4][v], tr[5][v])
          for (r = 0; r < 6; r++) {
            __m512 d[6], o[6], sh[4];
            for (v = 0; v < 4; v++) /* columns 4 .. 67 */
              sh[v] = _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(tr[r][v + 1]), _mm512_castps_si512(tr[r][v]), 4));
            for (j = 0; j < 6; j++) {
              const __m512 *s = j < 4 ? tr[r] : sh;
              const __m512i id = ix[j & 3];
              d[j] = _mm512_mask_blend_ps((__mmask16)0xff00, _mm512_permutex2var_ps(s[0], id, s[1]),
                                          _mm512_permutex2var_ps(s[2], id, s[3]));
            }
            ONNXC_WBT6(_mm512_add_ps, _mm512_sub_ps, _mm512_fmadd_ps, _mm512_fnmadd_ps, c4, c5, d[0], d[1], d[2], d[3],
                       d[4], d[5], o[0], o[1], o[2], o[3], o[4], o[5])
            for (j = 0; j < 6; j++) _mm512_mask_storeu_ps(V + (6 * r + j) * vs + (long)c * TB + ti, km, o[j]);
          }
#undef ONNXC_WT
#elif defined(ONNXC_AVX2)
          if (pr) onnxc_w43in8(xc, H, W, ty, tx0, 1, TX, V + (long)c * TB + ti, vs, nt);
          else onnxc_w43in8(xc, H, W, ty, tx0, 0, TX, V + (long)c * TB + ti, vs, nt);
#undef ONNXC_WT
#else
#define ONNXC_WT float
          int q, r, j;
          for (q = 0; q < nt; q++) {
            float d[6][6], t[6][6], o[6];
            const int tx = tx0 + q;
            for (r = 0; r < 6; r++)
              for (j = 0; j < 6; j++) {
                const int ih = 4 * ty + r - 1, iw = 4 * tx + j - 1;
                d[r][j] = ih >= 0 && ih < H && iw >= 0 && iw < W ? xc[(long)ih * W + iw] : 0.0f;
              }
            for (j = 0; j < 6; j++)
              ONNXC_WBT6(ONNXC_SADD, ONNXC_SSUB, ONNXC_SFMA, ONNXC_SFNMA, 4.0f, 5.0f, d[0][j], d[1][j], d[2][j], d[3][j],
                         d[4][j], d[5][j], t[0][j], t[1][j], t[2][j], t[3][j], t[4][j], t[5][j])
            for (r = 0; r < 6; r++) {
              ONNXC_WBT6(ONNXC_SADD, ONNXC_SSUB, ONNXC_SFMA, ONNXC_SFNMA, 4.0f, 5.0f, t[r][0], t[r][1], t[r][2], t[r][3],
                         t[r][4], t[r][5], o[0], o[1], o[2], o[3], o[4], o[5])
              for (j = 0; j < 6; j++) V[(6 * r + j) * vs + (long)c * TB + ti + q] = o[j];
            }
          }
#undef ONNXC_WT
#endif
        }
#if defined(ONNXC_AVX2)
        ty += pr;
#endif
      }
    }
    /* MB output channels at a time (a multiple of 8, or M): the products of their rows of
       U[xi], then their output transform */
    for (m0 = m_lo; m0 < m_hi; m0 += MB) {
      const int mb = m_hi - m0 < MB ? m_hi - m0 : MB;
      for (xi = 0; xi < 36; xi++) {
        int k0;
        for (k0 = 0; k0 < C; k0 += ONNXC_KC) {
          const int kc = C - k0 < ONNXC_KC ? C - k0 : ONNXC_KC;
          onnxc_gemm_blk(mb, tb, kc, U + (long)xi * Mp * C + (long)k0 * Mp + (long)m0 * kc, 8L * kc, V + xi * vs + (long)k0 * TB,
                         TB, O + xi * os, TB, k0 > 0, (const onnxc_epi *)0);
        }
      }
      /* output transform and epilogue */
      for (m = m0; m < m0 + mb; m++) {
        float *ym = y + (long)m * H * W;
#if defined(ONNXC_AVX2)
        ONNXC_WEPI8_ROW(we, m);
#endif
        for (ty = ty0; ty < ty1; ty++) {
          int tx0;
#if defined(ONNXC_AVX2)
          const int pr = TX <= 4 && ty + 1 < ty1; /* tile rows ty and ty + 1 in the halves of the vectors */
#endif
          for (tx0 = 0; tx0 < TX; tx0 += ONNXC_WTS) {
            const int nt = TX - tx0 < ONNXC_WTS ? TX - tx0 : ONNXC_WTS, ti = (ty - ty0) * TX + tx0;
            const float *op = O + (long)(m - m0) * TB + ti;
            const long xs = os;
#if defined(ONNXC_AVX512)
#define ONNXC_WT __m512
            const __m512 c2 = _mm512_set1_ps(2.0f), c4 = _mm512_set1_ps(4.0f), c8 = _mm512_set1_ps(8.0f);
            const __mmask16 km = ONNXC_MASK16(nt);
            __m512 s[4][6];
            int j, a, b;
            for (j = 0; j < 6; j++) {
              __m512 mv[6];
              int i;
              for (i = 0; i < 6; i++) mv[i] = _mm512_maskz_loadu_ps(km, op + (6 * i + j) * xs);
              ONNXC_WAT6(_mm512_add_ps, _mm512_sub_ps, _mm512_fmadd_ps, c2, c4, c8, mv[0], mv[1], mv[2], mv[3], mv[4], mv[5],
                         s[0][j], s[1][j], s[2][j], s[3][j])
            }
            for (a = 0; a < 4; a++) {
              const int oh = 4 * ty + a, ow0 = 4 * tx0, n = W - ow0 < 64 ? W - ow0 : 64;
              __m512 o[4], u[4], p, q, r[4];
              if (oh >= H) continue;
              ONNXC_WAT6(_mm512_add_ps, _mm512_sub_ps, _mm512_fmadd_ps, c2, c4, c8, s[a][0], s[a][1], s[a][2], s[a][3],
                         s[a][4], s[a][5], o[0], o[1], o[2], o[3])
              /* interleave: output 4 q + b = o[b][q] */
              {
                const __m512 l0 = _mm512_unpacklo_ps(o[0], o[1]), h0 = _mm512_unpackhi_ps(o[0], o[1]);
                const __m512 l1 = _mm512_unpacklo_ps(o[2], o[3]), h1 = _mm512_unpackhi_ps(o[2], o[3]);
                u[0] = _mm512_shuffle_ps(l0, l1, 0x44); /* tiles 4L */
                u[1] = _mm512_shuffle_ps(l0, l1, 0xee); /* 4L + 1 */
                u[2] = _mm512_shuffle_ps(h0, h1, 0x44);
                u[3] = _mm512_shuffle_ps(h0, h1, 0xee);
              }
              p = _mm512_shuffle_f32x4(u[0], u[1], 0x88); /* u0.L0 u0.L2 u1.L0 u1.L2 */
              q = _mm512_shuffle_f32x4(u[2], u[3], 0x88);
              r[0] = _mm512_shuffle_f32x4(p, q, 0x88);
              r[2] = _mm512_shuffle_f32x4(p, q, 0xdd);
              p = _mm512_shuffle_f32x4(u[0], u[1], 0xdd);
              q = _mm512_shuffle_f32x4(u[2], u[3], 0xdd);
              r[1] = _mm512_shuffle_f32x4(p, q, 0x88);
              r[3] = _mm512_shuffle_f32x4(p, q, 0xdd);
              for (b = 0; b < 4; b++) {
                const __mmask16 kb = ONNXC_MASK16(n - 16 * b);
                float *yp = ym + (long)oh * W + ow0 + 16 * b;
                if (!kb) break;
                if (acc) r[b] = _mm512_add_ps(r[b], _mm512_maskz_loadu_ps(kb, yp));
                if (e) r[b] = onnxc_epi16(e, r[b], kb, m, oh * W + ow0 + 16 * b);
                _mm512_mask_storeu_ps(yp, kb, r[b]);
              }
            }
#undef ONNXC_WT
#elif defined(ONNXC_AVX2)
            if (pr) onnxc_w43out8(op, xs, ym, H, W, ty, tx0, 1, TX, nt, acc, &we, m);
            else onnxc_w43out8(op, xs, ym, H, W, ty, tx0, 0, TX, nt, acc, &we, m);
#undef ONNXC_WT
#else
#define ONNXC_WT float
            int q, j, a, b;
            for (q = 0; q < nt; q++) {
              float s[4][6], o[4];
              const int tx = tx0 + q;
              for (j = 0; j < 6; j++)
                ONNXC_WAT6(ONNXC_SADD, ONNXC_SSUB, ONNXC_SFMA, 2.0f, 4.0f, 8.0f, op[j * xs + q], op[(6 + j) * xs + q],
                           op[(12 + j) * xs + q], op[(18 + j) * xs + q], op[(24 + j) * xs + q], op[(30 + j) * xs + q], s[0][j],
                           s[1][j], s[2][j], s[3][j])
              for (a = 0; a < 4; a++) {
                const int oh = 4 * ty + a;
                if (oh >= H) continue;
                ONNXC_WAT6(ONNXC_SADD, ONNXC_SSUB, ONNXC_SFMA, 2.0f, 4.0f, 8.0f, s[a][0], s[a][1], s[a][2], s[a][3], s[a][4],
                           s[a][5], o[0], o[1], o[2], o[3])
                for (b = 0; b < 4 && 4 * tx + b < W; b++) {
                  float *yp = ym + (long)oh * W + 4 * tx + b;
                  *yp = (acc ? *yp : 0.0f) + o[b];
                }
              }
            }
            if (e)
              for (a = 0; a < 4; a++) {
                const int oh = 4 * ty + a, ow0 = 4 * tx0, n = W - ow0 < 4 * nt ? W - ow0 : 4 * nt;
                if (oh < H) onnxc_epi_tile(e, ym + (long)oh * W + ow0, W, m, 1, oh * W + ow0, n);
              }
#undef ONNXC_WT
#endif
          }
#if defined(ONNXC_AVX2)
          ty += pr;
#endif
        }
      }
    }
  }
}

ONNXC_MAYBE_UNUSED static void onnxc_wino43(int M, int C, int H, int W, const float *x, const float *U, float *y,
                                            const onnxc_epi *e, float *scratch, int TB, int MB, int acc) {
  onnxc_wino43_r(M, C, H, W, x, U, y, e, scratch, TB, MB, acc, 0, (H + 3) / 4, 0, M);
}

/* Without scratch for the transforms: direct 3x3 convolution, each filter recovered from U
   (U = G g G^T, G = [1 0 0; .5 .5 .5; .5 -.5 .5; 0 0 1]: g's outer rows and columns are U's, the
   middle ones 2 u1 - u0 - u3). */
/* g[3][3] of filter m, channel c from the Winograd weights of F(2x2,3x3) (A = 4: U 4x4) or
   F(4x4,3x3) (A = 6: U 6x6, G's rows 0, 5 and the difference of rows 1 and 2 give back g:
   g = L U L^T, L = [4 0 0 0 0 0; 0 -3 3 0 0 0; 0 0 0 0 0 1]) */
ONNXC_MAYBE_UNUSED static void onnxc_wino_g(const float *U, int M, int C, int m, int c, int A, float g[3][3]) {
  const int Mp = (M + 7) / 8 * 8, b = c / ONNXC_KC * ONNXC_KC, bl = C - b < ONNXC_KC ? C - b : ONNXC_KC;
  float u[6][6], h[6][3];
  int i;
  for (i = 0; i < A * A; i++) u[i / A][i % A] = U[(long)i * Mp * C + (long)b * Mp + (long)(m / 8) * 8 * bl + (c - b) * 8 + m % 8];
  for (i = 0; i < A; i++) {
    if (A == 4) {
      h[i][0] = u[i][0];
      h[i][2] = u[i][3];
      h[i][1] = 2.0f * u[i][1] - u[i][0] - u[i][3];
    } else {
      h[i][0] = 4.0f * u[i][0];
      h[i][2] = u[i][5];
      h[i][1] = 3.0f * (u[i][2] - u[i][1]);
    }
  }
  for (i = 0; i < 3; i++) {
    if (A == 4) {
      g[0][i] = h[0][i];
      g[2][i] = h[3][i];
      g[1][i] = 2.0f * h[1][i] - h[0][i] - h[3][i];
    } else {
      g[0][i] = 4.0f * h[0][i];
      g[2][i] = h[5][i];
      g[1][i] = 3.0f * (h[2][i] - h[1][i]);
    }
  }
}

ONNXC_MAYBE_UNUSED static void onnxc_wino_direct(int M, int C, int H, int W, const float *x, const float *U, int A, float *y,
                                                 const onnxc_epi *e, int acc) {
  const int N = H * W;
  int m, c, kh, kw, oh, ow, i;
#if defined(ONNXC_AVX512)
  if (M <= 64) {
    /* implicit GEMM as onnxc_conv_same, each k block of filters rebuilt into a stack buffer */
    const int K = C * 9, Mp = (M + 7) / 8 * 8, nv = (N + 15) / 16, ns = (nv + 2) / 3;
    float ab[64 * ONNXC_KC];
    int sh[9], k0, s, t, v;
    __mmask16 mk[27];
    for (k0 = 0; k0 < K; k0 += ONNXC_KC) {
      const int kc = K - k0 < ONNXC_KC ? K - k0 : ONNXC_KC, last = k0 + kc >= K;
      for (m = 0; m < Mp; m++)
        for (c = k0 / 9; c <= (k0 + kc - 1) / 9; c++) {
          float g[3][3] = {{0.0f}}; /* set where m < M; GCC -O3 saw it read uninitialized */
          if (m < M) onnxc_wino_g(U, M, C, m, c, A, g);
          for (t = 0; t < 9; t++) {
            const int k = c * 9 + t - k0;
            if (k >= 0 && k < kc) ab[(m / 8) * 8 * kc + k * 8 + m % 8] = m < M ? g[t / 3][t % 3] : 0.0f;
          }
        }
      for (s = 0; s < ns; s++) {
        const int n0 = nv * s / ns * 16, n1 = nv * (s + 1) / ns * 16, nr = (n1 < N ? n1 : N) - n0;
        const float *xb = x + (long)(k0 / 9) * N + n0;
        for (t = 0; t < 9; t++) {
          const int dh = t / 3 - 1, dw = t % 3 - 1;
          sh[t] = dh * W + dw;
          for (v = 0; v < 3; v++)
            mk[3 * t + v] = nr > 16 * v ? (__mmask16)onnxc_tapmask(n0 + 16 * v, nr - 16 * v < 16 ? nr - 16 * v : 16, W, H, dh, dw) : 0;
        }
        for (m = 0; m < M; m += 8) {
          const int mr = M - m < 8 ? M - m : 8;
          const float *ap = ab + (m / 8) * 8 * kc;
          float *cp = y + (long)m * N + n0;
          const onnxc_epi *ee = last ? e : (const onnxc_epi *)0;
          const float *pf = m == 0 && s + 1 < ns ? xb + (n1 - n0) : (const float *)0;
          const int ac = k0 > 0 || acc;
          if (nr > 32) onnxc_ukx3(kc, ap, xb, N, k0 % 9, 9, sh, mk, cp, N, mr, nr, ac, ee, m, n0, pf);
          else if (nr > 16) onnxc_ukx2(kc, ap, xb, N, k0 % 9, 9, sh, mk, cp, N, mr, nr, ac, ee, m, n0, pf);
          else onnxc_ukx1(kc, ap, xb, N, k0 % 9, 9, sh, mk, cp, N, mr, nr, ac, ee, m, n0, pf);
        }
      }
    }
    return;
  }
#endif
  for (m = 0; m < M; m++) {
    float *ym = y + (long)m * N;
    if (!acc)
      for (i = 0; i < N; i++) ym[i] = 0.0f;
    for (c = 0; c < C; c++) {
      float g[3][3];
      onnxc_wino_g(U, M, C, m, c, A, g);
      for (kh = 0; kh < 3; kh++)
        for (kw = 0; kw < 3; kw++) {
          const float wv = g[kh][kw];
          const int lo = kw == 0 ? 1 : 0, hi = kw == 2 ? W - 1 : W;
          for (oh = 0; oh < H; oh++) {
            const int ih = oh + kh - 1;
            const float *xr;
            float *yr = ym + (long)oh * W;
            if (ih < 0 || ih >= H) continue;
            xr = x + ((long)c * H + ih) * W + kw - 1;
            for (ow = lo; ow < hi; ow++) yr[ow] += wv * xr[ow];
          }
        }
    }
    if (e) onnxc_epi_tile(e, ym, N, m, 1, 0, N);
  }
}

#define ONNXC_MP_ROW 2304 /* onnxc_maxpool2d's separable form: the padded row it reads */

/* 2-D max pooling of C planes (every window holds an input element): rows of 16 outputs, for
   each kernel row and column one load (stride 2: two loads and an even-lane compress) with the
   columns outside the input masked to -inf.  Output rows [oh0, oh1) of planes OH * OW apart,
   from input planes xs floats apart that hold the input rows from xr0 on (onnxc_conv_mp: a band
   of rows; onnxc_maxpool2d: whole planes). */
ONNXC_MAYBE_UNUSED static void onnxc_maxpool2d_rb(int C, const float *x, long xs, int xr0, int IH, int IW, int KH, int KW,
                                                  int SH, int SW, int PH, int PW, float *y, int OH, int OW, int oh0, int oh1) {
  int c, oh, ow0, kh, kw;
#if defined(ONNXC_AVX512)
  if (KW == 3 && SW == 2 && PW <= 1 && KH <= 3) {
    /* 3-wide windows, stride 2 across (the stems' 3x3 stride-2 pools), in registers: per 16
       outputs from input column c0 = 2 ow0 - PW, the maxima over the window rows of the columns
       c0.. (carried from the step before), c0 + 16.. and c0 + 32.. (lanes outside the row are
       -inf), then the even, odd and next-even columns of those by permutes.  (The separable form
       below stores the column maxima and reads them back unaligned: on an Intel core each such
       load waits for the stores it overlaps, SqueezeNet's 64 x 111 x 111 -> 55 x 55 at 1.2 TSC
       ticks per output.) */
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    const __m512i ev_i = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i od_i = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512i e2_i = _mm512_setr_epi32(2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 0);
    for (c = 0; c < C; c++) {
      const float *xc = x + (long)c * xs;
      float *yc = y + (long)c * OH * OW;
      for (oh = oh0; oh < oh1; oh++) {
        const int ih0 = oh * SH - PH, h0 = ih0 < 0 ? 0 : ih0, h1 = ih0 + KH < IH ? ih0 + KH : IH;
        /* the window's rows (at least one); a missing one repeats the first */
        const float *q0 = xc + (long)(h0 - xr0) * IW, *q1 = h1 - h0 > 1 ? q0 + IW : q0, *q2 = h1 - h0 > 2 ? q1 + IW : q1;
        __m512 va, vb, vc;
#define ONNXC_MP3(v, col)                                                                                \
  {                                                                                                      \
    const int cc_ = (col);                                                                               \
    if (cc_ >= 0 && cc_ + 16 <= IW)                                                                      \
      v = _mm512_max_ps(_mm512_max_ps(_mm512_loadu_ps(q0 + cc_), _mm512_loadu_ps(q1 + cc_)), _mm512_loadu_ps(q2 + cc_)); \
    else {                                                                                               \
      const __mmask16 k_ = (__mmask16)(ONNXC_MASK16(IW - cc_) & (cc_ < 0 ? ~ONNXC_MASK16(-cc_) : 0xffff)); \
      v = _mm512_max_ps(_mm512_max_ps(_mm512_mask_loadu_ps(ninf, k_, q0 + cc_), _mm512_mask_loadu_ps(ninf, k_, q1 + cc_)), \
                        _mm512_mask_loadu_ps(ninf, k_, q2 + cc_));                                       \
    }                                                                                                    \
  }
        ONNXC_MP3(va, -PW)
        for (ow0 = 0; ow0 < OW; ow0 += 16) {
          const int c0 = 2 * ow0 - PW;
          __m512 ev, od, e2;
          ONNXC_MP3(vb, c0 + 16)
          if (2 * (ow0 + 16) - PW < IW) ONNXC_MP3(vc, c0 + 32) else vc = ninf;
          ev = _mm512_permutex2var_ps(va, ev_i, vb);
          od = _mm512_permutex2var_ps(va, od_i, vb);
          e2 = _mm512_mask_broadcastss_ps(_mm512_permutex2var_ps(va, e2_i, vb), (__mmask16)0x8000, _mm512_castps512_ps128(vc));
          _mm512_mask_storeu_ps(yc + (long)oh * OW + ow0, ONNXC_MASK16(OW - ow0), _mm512_max_ps(_mm512_max_ps(ev, od), e2));
          va = vc;
        }
#undef ONNXC_MP3
      }
    }
    return;
  }
  if (SW <= 2 && PW + IW + 64 <= ONNXC_MP_ROW && SW * OW + KW + 48 <= ONNXC_MP_ROW && PW < KW) {
    /* separable: per output row the column maximum over its window rows into a row padded
       with -inf (whole vectors, no masks but the row's last), then the row maximum over the
       window columns read from it (stride 2: two loads and an even-lane compress) */
    float vr[ONNXC_MP_ROW];
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    const __m512i ev_i = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const int vn = (IW + 15) / 16, tail = SW * OW + KW + 32;
    int i;
    for (i = 0; i < PW; i++) vr[i] = -INFINITY;
    for (i = PW + IW; i < tail; i++) vr[i] = -INFINITY;
    for (c = 0; c < C; c++) {
      const float *xc = x + (long)c * xs;
      float *yc = y + (long)c * OH * OW;
      for (oh = oh0; oh < oh1; oh++) {
        const int ih0 = oh * SH - PH, h0 = ih0 < 0 ? 0 : ih0, h1 = ih0 + KH < IH ? ih0 + KH : IH;
        int v;
        for (v = 0; v < vn; v++) {
          const __mmask16 km = ONNXC_MASK16(IW - 16 * v);
          __m512 mx = ninf;
          int ih;
          for (ih = h0; ih < h1; ih++) mx = _mm512_max_ps(mx, _mm512_maskz_loadu_ps(km, xc + (long)(ih - xr0) * IW + 16 * v));
          _mm512_mask_storeu_ps(vr + PW + 16 * v, km, mx);
        }
        for (ow0 = 0; ow0 < OW; ow0 += 16) {
          __m512 mx = ninf;
          for (kw = 0; kw < KW; kw++) {
            const float *r = vr + ow0 * SW + kw;
            mx = _mm512_max_ps(mx, SW == 1 ? _mm512_loadu_ps(r)
                                           : _mm512_permutex2var_ps(_mm512_loadu_ps(r), ev_i, _mm512_loadu_ps(r + 16)));
          }
          _mm512_mask_storeu_ps(yc + (long)oh * OW + ow0, ONNXC_MASK16(OW - ow0), mx);
        }
      }
    }
    return;
  }
  if (SW <= 2) {
    const __m512 ninf = _mm512_set1_ps(-INFINITY);
    const __m512i ev_i = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    for (c = 0; c < C; c++) {
      const float *xc = x + (long)c * xs;
      float *yc = y + (long)c * OH * OW;
      for (oh = oh0; oh < oh1; oh++)
        for (ow0 = 0; ow0 < OW; ow0 += 16) {
          const int nout = OW - ow0 < 16 ? OW - ow0 : 16;
          __m512 mx = ninf;
          for (kh = 0; kh < KH; kh++) {
            const int ih = oh * SH + kh - PH;
            const float *r;
            if (ih < 0 || ih >= IH) continue;
            r = xc + (long)(ih - xr0) * IW;
            for (kw = 0; kw < KW; kw++) {
              const int c0 = ow0 * SW + kw - PW; /* input column of lane 0 */
              const int span = (nout - 1) * SW + 1, lo = c0 < 0 ? -c0 : 0, hi = IW - c0 < span ? IW - c0 : span;
              const unsigned long long bits = hi > lo ? (((1ULL << (hi - lo)) - 1ULL) << lo) : 0ULL;
              __m512 v;
              if (SW == 1) {
                v = _mm512_mask_loadu_ps(ninf, (__mmask16)(bits & 0xffff), r + c0);
              } else {
                const __m512 a = _mm512_mask_loadu_ps(ninf, (__mmask16)(bits & 0xffff), r + c0);
                const __m512 b = _mm512_mask_loadu_ps(ninf, (__mmask16)((bits >> 16) & 0xffff), r + c0 + 16);
                v = _mm512_permutex2var_ps(a, ev_i, b);
              }
              mx = _mm512_max_ps(mx, v);
            }
          }
          _mm512_mask_storeu_ps(yc + (long)oh * OW + ow0, ONNXC_MASK16(nout), mx);
        }
    }
    return;
  }
#endif
  for (c = 0; c < C; c++) {
    const float *xc = x + (long)c * xs;
    float *yc = y + (long)c * OH * OW;
    for (oh = oh0; oh < oh1; oh++)
      for (ow0 = 0; ow0 < OW; ow0++) {
        float mx = -INFINITY;
        for (kh = 0; kh < KH; kh++) {
          const int ih = oh * SH + kh - PH;
          if (ih < 0 || ih >= IH) continue;
          for (kw = 0; kw < KW; kw++) {
            const int iw = ow0 * SW + kw - PW;
            if (iw >= 0 && iw < IW && xc[(long)(ih - xr0) * IW + iw] > mx) mx = xc[(long)(ih - xr0) * IW + iw];
          }
        }
        yc[(long)oh * OW + ow0] = mx;
      }
  }
}

ONNXC_MAYBE_UNUSED static void onnxc_maxpool2d(int C, const float *x, int IH, int IW, int KH, int KW, int SH, int SW,
                                               int PH, int PW, float *y, int OH, int OW) {
  onnxc_maxpool2d_rb(C, x, (long)IH * IW, 0, IH, IW, KH, KW, SH, SW, PH, PW, y, OH, OW, 0, OH);
}

#if defined(ONNXC_AVX2)
/* onnxc_maxpool2d_rb on AVX2 with stride 1 or 2 across (onnxc_conv_mp's bands; a MaxPool node
   calls onnxc_maxpool2d with constant shapes, where GCC vectorizes the plain loops better:
   SqueezeNet's 128 x 55 x 55 pool 147k TSC ticks against 284k here) */
ONNXC_MAYBE_UNUSED static void onnxc_maxpool2d_rb8(int C, const float *x, long xs, int xr0, int IH, int IW, int KH, int KW,
                                                   int SH, int SW, int PH, int PW, float *y, int OH, int OW, int oh0, int oh1) {
  int c, oh, ow0, kh, kw;
  if (SW <= 2) {
    /* 8 outputs per vector: per window row and column the input columns c0, c0 + SW, ... as one
       vector (stride 2: the even lanes of two loads by two shuffles), -inf outside the row (at
       the row's ends by masked loads: through a copy on the stack, the loads waited on its
       stores) */
    for (c = 0; c < C; c++) {
      const float *xc = x + (long)c * xs;
      float *yc = y + (long)c * OH * OW;
      for (oh = oh0; oh < oh1; oh++)
        for (ow0 = 0; ow0 < OW; ow0 += 8) {
          const int nout = OW - ow0 < 8 ? OW - ow0 : 8, span = (nout - 1) * SW + 1;
          __m256 mx = _mm256_set1_ps(-INFINITY);
          for (kh = 0; kh < KH; kh++) {
            const int ih = oh * SH + kh - PH;
            const float *r;
            if (ih < 0 || ih >= IH) continue;
            r = xc + (long)(ih - xr0) * IW;
            for (kw = 0; kw < KW; kw++) {
              const int c0 = ow0 * SW + kw - PW; /* input column of lane 0 */
              const float *q = (const float *)ONNXC_FAR(r, c0);
              __m256 a, b = a = _mm256_setzero_ps(), v;
              if (c0 >= 0 && c0 + 8 * SW <= IW) {
                a = _mm256_loadu_ps(q);
                if (SW == 2) b = _mm256_loadu_ps(q + 8);
              } else { /* masked loads, -inf in the lanes outside [0, min(IW, c0 + span)) */
                const __m256i l = _mm256_add_epi32(_mm256_set1_epi32(c0), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
                const __m256i lo = _mm256_set1_epi32(-1), hi = _mm256_set1_epi32(IW < c0 + span ? IW : c0 + span);
                const __m256i ka = _mm256_and_si256(_mm256_cmpgt_epi32(l, lo), _mm256_cmpgt_epi32(hi, l));
                const __m256 ninf = _mm256_set1_ps(-INFINITY);
                a = _mm256_blendv_ps(ninf, _mm256_maskload_ps(q, ka), _mm256_castsi256_ps(ka));
                if (SW == 2) {
                  const __m256i l8 = _mm256_add_epi32(l, _mm256_set1_epi32(8));
                  const __m256i kb = _mm256_and_si256(_mm256_cmpgt_epi32(l8, lo), _mm256_cmpgt_epi32(hi, l8));
                  b = _mm256_blendv_ps(ninf, _mm256_maskload_ps((const float *)ONNXC_FAR(r, c0 + 8), kb), _mm256_castsi256_ps(kb));
                }
              }
              v = SW == 1 ? a : _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(_mm256_shuffle_ps(a, b, 0x88)), 0xd8));
              mx = _mm256_max_ps(mx, v);
            }
          }
          onnxc_storen8(yc + (long)oh * OW + ow0, mx, nout);
        }
    }
    return;
  }
  onnxc_maxpool2d_rb(C, x, xs, xr0, IH, IW, KH, KW, SH, SW, PH, PW, y, OH, OW, oh0, oh1);
}
#endif

/* A 2-D convolution (one group, no dilation) whose output only a 2-D max pooling reads (the
   stems of ResNet-18, SqueezeNet and ShuffleNetV2: a stride-2 convolution of the 3 image
   channels, then a 3x3 stride-2 pool), in bands of pooled rows: per band, the convolution rows
   its windows read go into cb (M planes of CR rows of OW floats), then the pooled rows into y.
   Run one after the other, the two write and read the convolution's whole output (64 x 112 x
   112 floats on ResNet-18, 3.2 MB: more than the L2 cache); here a band of it stays in cache.
   The rows consecutive bands share (3x3 stride 2: one) move to the top of cb instead of being
   computed again.  The convolution is onnxc_conv_sc (sc, AVX-512 and AVX2 targets: its band buffer in
   buf, bands of R rows) or the im2col tiles of KB x TR (in buf), with the epilogue e: every
   sum and maximum is taken as in the unfused kernels.  Pooled rows [pb, pe) of POH (the whole
   output, or one task's share under --threads). */
ONNXC_MAYBE_UNUSED static void onnxc_conv_mp(int sc, int M, int C, int IH, int IW, int KH, int KW, int SH, int SW, int PH,
                                             int PW, int OH, int OW, const float *x, const float *wp, const onnxc_epi *e,
                                             float *buf, int R, int KB, int TR, int PKH, int PKW, int PSH, int PSW, int PPH,
                                             int PPW, int POH, int POW, float *y, float *cb, int CR, int pb, int pe) {
  const long cs = (long)CR * OW;
  /* pooled rows per band (CR = OH: all at once, also where the plane is shorter than a window) */
  const int PB = CR >= OH ? pe - pb : (CR - PKH) / PSH + 1;
  int have0 = 0, have1 = 0, p0, m;
  (void)sc;
  (void)R;
  for (p0 = pb; p0 < pe; p0 += PB) {
    const int p1 = pe - p0 < PB ? pe : p0 + PB;
    int n0 = p0 * PSH - PPH, n1 = (p1 - 1) * PSH - PPH + PKH;
    if (n0 < 0) n0 = 0;
    if (n1 > OH) n1 = OH;
    if (have0 < n0 && n0 < have1) /* the shared rows [n0, have1) to the top */
      for (m = 0; m < M; m++)
        memmove(cb + m * cs, cb + m * cs + (long)(n0 - have0) * OW, sizeof(float) * (size_t)(have1 - n0) * (size_t)OW);
    else if (have0 != n0)
      have1 = n0;
    have0 = n0;
    if (n1 > have1) {
#if defined(ONNXC_AVX512) || defined(ONNXC_AVX2)
      if (sc) onnxc_conv_sc_rb(M, C, IH, IW, KH, KW, SH, PH, PW, OH, OW, x, wp, cb, cs, have0, e, buf, R, have1, n1);
      else
#endif
        onnxc_conv_i2c_rb(M, C * KH * KW, KB, IH, IW, KH, KW, SH, SW, 1, 1, PH, PW, OW, x, wp, cb, cs, have0, e, buf, TR, have1,
                          n1, 0, M);
      have1 = n1;
    }
#if defined(ONNXC_AVX2)
    onnxc_maxpool2d_rb8(M, cb, cs, have0, OH, OW, PKH, PKW, PSH, PSW, PPH, PPW, y, POH, POW, p0, p1);
#else
    onnxc_maxpool2d_rb(M, cb, cs, have0, OH, OW, PKH, PKW, PSH, PSW, PPH, PPW, y, POH, POW, p0, p1);
#endif
  }
}
