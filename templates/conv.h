/* ---- conv.h: convolution kernels that need no scratch (after gemm.h) -------------------------
   onnxc_conv_same: a stride-1 2-D convolution whose output has its input's size ("same"
   padding; 1-D as H = 1).  Output pixel j = oh*W + ow reads input j + (kh*DH - PH)*W +
   (kw*DW - PW) at tap (kh, kw): a constant shift per tap, so the B operand of the product
   W[M][C*KH*KW] x im2col is read straight from the input, one shifted row per (c, tap), with
   the lanes that fall in the padding masked off (implicit GEMM: no im2col buffer).  The
   weights are packed like onnxc_pack_a.  AVX-512 runs the 8 x 48 micro-kernel on it; the
   portable form accumulates output rows per filter tap.
   onnxc_dw2d: depthwise 2-D convolution (one input channel per output channel), any stride,
   padding and dilation; AVX-512 computes 16 outputs of a row per vector (stride 2 by
   compressing two loads), four vectors in flight, with the row-edge masks precomputed per
   column segment. */
#define ONNXC_KPMAX 49

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
                                      int nr, int acc, const onnxc_epi *e, int m0, int n0) {                \
    ONNXC_K##NV                                                                                             \
    ONNXC_ROWS8(ONNXC_D##NV)                                                                                \
    int k;                                                                                                  \
    for (k = 0; k < kc; k++) {                                                                              \
      ONNXC_BX##NV                                                                                          \
      ONNXC_ROWS8(ONNXC_F##NV)                                                                              \
      A += 8;                                                                                               \
      if (++t == KP) {                                                                                      \
        t = 0;                                                                                              \
        X += HW;                                                                                            \
      }                                                                                                     \
    }                                                                                                       \
    ONNXC_EV                                                                                                \
    ONNXC_ROWS8(ONNXC_S##NV)                                                                                \
  }
ONNXC_UKX_DEF(onnxc_ukx1, 1)
ONNXC_UKX_DEF(onnxc_ukx2, 2)
ONNXC_UKX_DEF(onnxc_ukx3, 3)
#endif

ONNXC_MAYBE_UNUSED static void onnxc_conv_same(int M, int C, int H, int W, int KH, int KW, int DH, int DW, int PH,
                                               int PW, const float *x, const float *wp, float *y, const onnxc_epi *e) {
  const int N = H * W, KP = KH * KW, K = C * KP, Mp = (M + 7) / 8 * 8;
#if defined(ONNXC_AVX512)
  int sh[ONNXC_KPMAX];
  __mmask16 mk[3 * ONNXC_KPMAX];
  const int nv = (N + 15) / 16, ns = (nv + 2) / 3;
  int s, t, k0, m0, v;
  for (s = 0; s < ns; s++) {
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
        if (nr > 32) onnxc_ukx3(kc, ap, xb, N, k0 % KP, KP, sh, mk, cp, N, mr, nr, k0 > 0, ee, m0, n0);
        else if (nr > 16) onnxc_ukx2(kc, ap, xb, N, k0 % KP, KP, sh, mk, cp, N, mr, nr, k0 > 0, ee, m0, n0);
        else onnxc_ukx1(kc, ap, xb, N, k0 % KP, KP, sh, mk, cp, N, mr, nr, k0 > 0, ee, m0, n0);
      }
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
#if defined(ONNXC_AVX512)
#define ONNXC_DWTAB 8192
/* job q of a group of four (one row segment each): accumulator a<q>, tables at ix<q> */
#define ONNXC_DWLD1(q) a##q = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(rk##q & ma[ix##q + kw], xr##q + co[ix##q + kw]), a##q);
#define ONNXC_DWLD2(q)                                                                                  \
  a##q = _mm512_fmadd_ps(wv, _mm512_permutex2var_ps(_mm512_maskz_loadu_ps(rk##q & ma[ix##q + kw], xr##q + co[ix##q + kw]), \
                                                    even, _mm512_maskz_loadu_ps(rk##q & mb[ix##q + kw], xr##q + co[ix##q + kw] + 16)), a##q);
#define ONNXC_DWROW(q)                                               \
  {                                                                  \
    const int ih = oh##q * SH + kh * DH - PH;                        \
    rk##q = (q < nj && ih >= 0 && ih < IH) ? (__mmask16)0xffff : 0;  \
    xr##q = xc + (long)(rk##q ? ih : 0) * IW;                        \
  }
#define ONNXC_DWST(q)                                                                              \
  if (q < nj) {                                                                                    \
    const int ow0 = sg##q * 16, n = OW - ow0 < 16 ? OW - ow0 : 16;                                 \
    const __mmask16 km = ONNXC_MASK16(n);                                                          \
    __m512 r_ = a##q;                                                                              \
    if (e) r_ = onnxc_epi16(&ev, r_, km, oc, oh##q * OW + ow0);                                    \
    _mm512_mask_storeu_ps(yc + (long)oh##q * OW + ow0, km, r_);                                    \
  }
#define ONNXC_DWJOB(q)                                          \
  const long jj##q = j0 + (q < nj ? q : 0);                     \
  const int oh##q = (int)(jj##q / nseg), sg##q = (int)(jj##q % nseg), ix##q = sg##q * 16; \
  __m512 a##q = _mm512_setzero_ps();                            \
  __mmask16 rk##q;                                              \
  const float *xr##q;
#define ONNXC_Q4(X) X(0) X(1) X(2) X(3)
#endif

ONNXC_MAYBE_UNUSED static void onnxc_dw2d(int CO, int mult, const float *x, int IH, int IW, const float *w, int KH,
                                          int KW, int SH, int SW, int PH, int PW, int DH, int DW, float *y, int OH,
                                          int OW, const onnxc_epi *e) {
  const long IHW = (long)IH * IW, OHW = (long)OH * OW;
  int oc;
#if defined(ONNXC_AVX512)
  onnxc_epi ev = {0, 0, 0, 0, 0, 0.0f, 0.0f};
  const int KP = KH * KW, nv = (int)((OHW + 15) / 16), nv4 = (nv + 3) / 4 * 4;
  if (e) ev = *e;
  if (SH == 1 && SW == 1 && KH == 3 && KW == 3 && DH == 1 && DW == 1 && PH == 1 && PW == 1 && OH == IH && OW == IW &&
      OH >= 2 && OW >= 2 && 5 * nv4 <= ONNXC_DWTAB) {
    /* 3x3 "same": nine taps unrolled, weights in registers; tap masks from five per vector
       (not the first row / last row / first column / last column / inside the plane) */
    __mmask16 mt[ONNXC_DWTAB];
    __mmask16 *mT = mt, *mB = mt + nv4, *mL = mt + 2 * nv4, *mR = mt + 3 * nv4, *mI = mt + 4 * nv4;
    int v, i;
    {
      int ow = 0;
      for (v = 0; v < nv4; v++) {
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
    return;
  }
  if (SH == 1 && SW == 1 && OH == IH && OW == IW && KP <= ONNXC_KPMAX && nv4 * KP <= ONNXC_DWTAB) {
    /* "same" stride 1: the plane as one row; tap t reads input j + sh[t], masks per vector */
    __mmask16 tab[ONNXC_DWTAB];
    int sh[ONNXC_KPMAX], v, t;
    for (t = 0; t < KP; t++) {
      const int dh = t / KW * DH - PH, dw = t % KW * DW - PW;
      sh[t] = dh * IW + dw;
      for (v = 0; v < nv4; v++) {
        const int n = (int)(OHW - 16L * v < 16 ? OHW - 16L * v : 16);
        tab[v * KP + t] = v < nv ? (__mmask16)onnxc_tapmask(16 * v, n, OW, OH, dh, dw) : 0;
      }
    }
    for (oc = 0; oc < CO; oc++) {
      const float *xc = x + (long)(oc / mult) * IHW, *wc = w + (long)oc * KP;
      float *yc = y + (long)oc * OHW;
      for (v = 0; v < nv; v += 4) {
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        const __mmask16 *tb = tab + v * KP;
        const float *xv = xc + 16L * v;
        int q;
        for (t = 0; t < KP; t++) {
          const __m512 wv = _mm512_set1_ps(wc[t]);
          const float *p = xv + sh[t];
          a0 = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(tb[t], p), a0);
          a1 = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(tb[KP + t], p + 16), a1);
          a2 = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(tb[2 * KP + t], p + 32), a2);
          a3 = _mm512_fmadd_ps(wv, _mm512_maskz_loadu_ps(tb[3 * KP + t], p + 48), a3);
        }
        for (q = 0; q < 4 && v + q < nv; q++) {
          const long j = 16L * (v + q);
          const __mmask16 km = ONNXC_MASK16((int)(OHW - j));
          __m512 r = q == 0 ? a0 : q == 1 ? a1 : q == 2 ? a2 : a3;
          if (e) r = onnxc_epi16(&ev, r, km, oc, (int)j);
          _mm512_mask_storeu_ps(yc + j, km, r);
        }
      }
    }
    return;
  }
  if (SW <= 2 && KW <= 16 && OW <= 16 * 64) {
    /* per output row segment s (16 outputs) and kw: input column offset and lane masks */
    __mmask16 ma[64 * 16], mb[64 * 16];
    int co[64 * 16];
    const int nseg = (OW + 15) / 16;
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const long jobs = (long)OH * nseg;
    int s, kw;
    for (s = 0; s < nseg; s++)
      for (kw = 0; kw < KW; kw++) {
        const int ow0 = 16 * s, nout = OW - ow0 < 16 ? OW - ow0 : 16, c0 = ow0 * SW + kw * DW - PW;
        const int span = (nout - 1) * SW + 1; /* input elements the segment spans */
        int lo = -c0, hi = IW - c0;
        unsigned long long bits;
        if (lo < 0) lo = 0;
        if (hi > span) hi = span;
        bits = hi > lo ? (((1ULL << (hi - lo)) - 1ULL) << lo) : 0ULL;
        co[s * 16 + kw] = c0;
        ma[s * 16 + kw] = (__mmask16)(bits & 0xffffu);
        mb[s * 16 + kw] = (__mmask16)((bits >> 16) & 0xffffu);
      }
    for (oc = 0; oc < CO; oc++) {
      const float *xc = x + (long)(oc / mult) * IHW, *wc = w + (long)oc * KP;
      float *yc = y + (long)oc * OHW;
      long j0;
      for (j0 = 0; j0 < jobs; j0 += 4) {
        const int nj = jobs - j0 < 4 ? (int)(jobs - j0) : 4;
        int kh;
        ONNXC_Q4(ONNXC_DWJOB)
        for (kh = 0; kh < KH; kh++) {
          ONNXC_Q4(ONNXC_DWROW)
          if (SW == 1) {
            for (kw = 0; kw < KW; kw++) {
              const __m512 wv = _mm512_set1_ps(wc[kh * KW + kw]);
              ONNXC_Q4(ONNXC_DWLD1)
            }
          } else {
            for (kw = 0; kw < KW; kw++) {
              const __m512 wv = _mm512_set1_ps(wc[kh * KW + kw]);
              ONNXC_Q4(ONNXC_DWLD2)
            }
          }
        }
        ONNXC_Q4(ONNXC_DWST)
      }
    }
    return;
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
}
