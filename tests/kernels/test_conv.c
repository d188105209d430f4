/* test_conv.c: the depthwise convolution (onnxc_dw2d) and the "same" stride-1 convolution
   (onnxc_conv_same) of templates/conv.h against a double-precision reference, on whichever
   path the target selects.  dw2d: 3x3 with strides 1 and 2 (both ways), paddings 0-2, planes
   from 1 x 1 to wider than a few vectors, channel multipliers 1 and 2; 5x5 (strides 1 and 2,
   rows of 6 to 35 outputs) and dilated 3x3 for the general path; bands without vertical padding (rows given explicitly, as DwBlock calls it).
   conv_same: 2-D and 1-D kernels up to 7x7, dilation 2, one and several k
   blocks, filter counts around the 8-row panels.  Epilogues: bias per channel, residual, Relu
   or Clip.  Winograd F(2x2,3x3) and F(4x4,3x3) (onnxc_wino23, onnxc_wino43, onnxc_wino_direct)
   in blocks of tile rows and of output channels (F(2x2,3x3) also in the parts onnxc_wino_par's
   tasks take).  The im2col convolution (onnxc_conv_i2c_r) in parts of rows or channels.  Max pooling (onnxc_maxpool2d); a convolution and the max pooling reading it in bands (onnxc_conv_mp).  The im2col unfolding (onnxc_im2col2d)
   element by element.  Prints one line per
   failure and exits non-zero on any. */
#include <stdio.h>
#include <stdlib.h>
#include "common.h"
#include "gemm.h"
#include "conv.h"

static unsigned rng = 4321u;
static float frand(void) {
  rng = rng * 1103515245u + 12345u;
  return (float)((rng >> 8) & 0xffff) / 32768.0f - 1.0f;
}

static int failures;

/* PH rows of zero padding above and below, PW columns left and right */
static void one2(int CO, int mult, int IH, int IW, int K, int SH, int SW, int PH, int PW, int D, int act) {
  const int CI = CO / mult, OH = (IH + 2 * PH - D * (K - 1) - 1) / SH + 1, OW = (IW + 2 * PW - D * (K - 1) - 1) / SW + 1;
  const long IHW = (long)IH * IW, OHW = (long)OH * OW;
  float *x = calloc((size_t)(CI * IHW), sizeof(float)), *w = calloc((size_t)(CO * K * K), sizeof(float));
  float *y = calloc((size_t)(CO * OHW), sizeof(float)), *r = calloc((size_t)(CO * OHW), sizeof(float));
  float bias[16];
  /* every other call: the planes' sums added to sums[] (a fused GlobalAveragePool) */
  static int with_sums;
  float *sums = (with_sums ^= 1) ? calloc((size_t)CO, sizeof(float)) : (float *)0;
  onnxc_epi e = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
  int oc, oh, ow, kh, kw, i;
  for (i = 0; i < CI * IHW; i++) x[i] = frand();
  for (i = 0; i < CO * K * K; i++) w[i] = frand();
  for (i = 0; i < CO * OHW; i++) r[i] = frand();
  for (i = 0; i < 16; i++) bias[i] = frand();
  for (i = 0; i < CO * OHW; i++) y[i] = 1e30f;
  e.bias = bias;
  e.res = act == ONNXC_ACT_CLIP ? (const float *)0 : r; /* without: the kernels' short epilogue paths */
  e.ldr = OHW;
  e.act = act == ONNXC_ACT_SILU + 100 ? ONNXC_ACT_SILU : act; /* SILU + 100: SiLU without a residual */
  if (act == ONNXC_ACT_SILU + 100) e.res = (const float *)0;
  e.alpha = -0.3f;
  e.beta = 0.4f;
  e.sum = sums;
  for (i = 0; sums && i < CO; i++) sums[i] = 0.5f; /* added to, not overwritten */
  onnxc_dw2d(CO, mult, x, IH, IW, w, K, K, SH, SW, PH, PW, D, D, y, OH, OW, &e);
  for (oc = 0; sums && oc < CO; oc++) { /* against the outputs (checked below) */
    double s = 0.5, mag = 1;
    for (i = 0; i < OHW; i++) s += y[oc * OHW + i], mag += fabs(y[oc * OHW + i]);
    if (!(fabs(sums[oc] - s) <= 1e-5 * mag)) {
      printf("FAIL dw2d sums CO=%d mult=%d %dx%d K=%d stride %d,%d pad %d,%d dil %d act %d, channel %d: got %.9g, want %.9g\n", CO,
             mult, IH, IW, K, SH, SW, PH, PW, D, act, oc, sums[oc], s);
      failures++;
      break;
    }
  }
  free(sums);
  for (oc = 0; oc < CO; oc++)
    for (oh = 0; oh < OH; oh++)
      for (ow = 0; ow < OW; ow++) {
        double s = 0, mag = 1, g = y[oc * OHW + oh * OW + ow];
        for (kh = 0; kh < K; kh++)
          for (kw = 0; kw < K; kw++) {
            const int ih = oh * SH - PH + kh * D, iw = ow * SW - PW + kw * D;
            if (ih >= 0 && ih < IH && iw >= 0 && iw < IW) {
              s += (double)w[(oc * K + kh) * K + kw] * x[(oc / mult) * IHW + ih * IW + iw];
              mag += fabs(s);
            }
          }
        s += bias[oc] + (e.res ? r[oc * OHW + oh * OW + ow] : 0.0);
        if (act == ONNXC_ACT_RELU) s = s > 0 ? s : 0;
        if (act == ONNXC_ACT_CLIP) s = s < e.alpha ? e.alpha : s > e.beta ? e.beta : s;
        if (e.act == ONNXC_ACT_SILU) s = s / (1 + exp(-s));
        if (!(fabs(g - s) <= 1e-5 * mag)) {
          printf("FAIL dw2d CO=%d mult=%d %dx%d K=%d stride %d,%d pad %d,%d dil %d at (%d,%d,%d): got %.9g, want %.9g\n",
                 CO, mult, IH, IW, K, SH, SW, PH, PW, D, oc, oh, ow, g, s);
          failures++;
          oc = CO, oh = OH, ow = OW;
        }
      }
  free(x), free(w), free(y), free(r);
}

static void one(int CO, int mult, int IH, int IW, int K, int SH, int SW, int P, int D, int act) {
  one2(CO, mult, IH, IW, K, SH, SW, P, P, D, act);
}

/* onnxc_conv_same: a "same" stride-1 convolution, weights packed like onnxc_pack_a */
static void same(int M, int C, int H, int W, int KH, int KW, int D, int act) {
  const int KP = KH * KW, K = C * KP, PH = D * (KH - 1) / 2, PW = D * (KW - 1) / 2;
  const long N = (long)H * W;
  float *x = calloc((size_t)(C * N), sizeof(float)), *w = calloc((size_t)(M * K), sizeof(float));
  float *wp = calloc((size_t)((M + 7) / 8 * 8 * K), sizeof(float)), *y = calloc((size_t)(M * N), sizeof(float));
  float *r = calloc((size_t)(M * N), sizeof(float)), *bias = calloc((size_t)M, sizeof(float));
  onnxc_epi e = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
  int m, c, oh, ow, kh, kw, i;
  for (i = 0; i < C * N; i++) x[i] = frand();
  for (i = 0; i < M * K; i++) w[i] = frand();
  for (i = 0; i < M * N; i++) r[i] = frand(), y[i] = 1e30f;
  for (i = 0; i < M; i++) bias[i] = frand();
  onnxc_pack_a(M, K, w, K, 1, wp);
  e.bias = bias;
  e.res = act == ONNXC_ACT_RELU ? r : (const float *)0;
  e.ldr = N;
  e.act = act;
  e.alpha = -0.3f;
  e.beta = 0.4f;
  onnxc_conv_same(M, C, H, W, KH, KW, D, D, PH, PW, x, wp, y, &e);
  for (m = 0; m < M; m++)
    for (oh = 0; oh < H; oh++)
      for (ow = 0; ow < W; ow++) {
        double s = 0, mag = 1, g = y[m * N + oh * W + ow];
        for (c = 0; c < C; c++)
          for (kh = 0; kh < KH; kh++)
            for (kw = 0; kw < KW; kw++) {
              const int ih = oh - PH + kh * D, iw = ow - PW + kw * D;
              if (ih >= 0 && ih < H && iw >= 0 && iw < W) {
                const double t = (double)w[(long)m * K + (c * KH + kh) * KW + kw] * x[c * N + ih * W + iw];
                s += t;
                mag += fabs(t);
              }
            }
        s += bias[m] + (e.res ? r[m * N + oh * W + ow] : 0.0);
        if (act == ONNXC_ACT_RELU) s = s > 0 ? s : 0;
        if (act == ONNXC_ACT_CLIP) s = s < e.alpha ? e.alpha : s > e.beta ? e.beta : s;
        if (!(fabs(g - s) <= 1e-5 * mag)) {
          printf("FAIL conv_same M=%d C=%d %dx%d K=%dx%d dil %d at (%d,%d,%d): got %.9g, want %.9g\n", M, C, H, W, KH,
                 KW, D, m, oh, ow, g, s);
          failures++;
          m = M, oh = H, ow = W;
        }
      }
  free(x), free(w), free(wp), free(y), free(r), free(bias);
}

/* Winograd: U = G g G^T per filter and channel packed as onnxc_pack_a would pack each xi's M x C
   matrix (as optimize.c does), then onnxc_wino23 (A = 4) / onnxc_wino43 (A = 6) in blocks of TB
   tiles (whole tile rows) and, for F(4x4), MB output channels per pass, or onnxc_wino_direct
   (TB = 0); acc: y holds the residual on entry.  Against a double 3x3 "same" convolution. */
static int wino_parts; /* F(2x2,3x3) in three parts: 1 of the output channels, 2 of the tile rows */
static int wino_bcols; /* the bias per column (output pixel) instead of per channel */
static void wino(int A, int M, int C, int H, int W, int TB, int MB, int acc, int act) {
  static const double G2[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
  static const double G4[6][3] = {{0.25, 0, 0}, {-1.0 / 6, -1.0 / 6, -1.0 / 6}, {-1.0 / 6, 1.0 / 6, -1.0 / 6},
                                  {1.0 / 24, 1.0 / 12, 1.0 / 6}, {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}};
  const double(*Gm)[3] = A == 6 ? G4 : G2;
  const int Mp = (M + 7) / 8 * 8, TS = A - 2, TX = (W + TS - 1) / TS, MBx = MB ? MB : M;
  const long N = (long)H * W;
  const long ld1 = ONNXC_WINO_LD((long)C * TB), ld2 = ONNXC_WINO_LD((long)MBx * TB);
  float *x = calloc((size_t)(C * N), sizeof(float)), *w = calloc((size_t)(M * C * 9), sizeof(float));
  float *u = calloc((size_t)(A * A * Mp * C), sizeof(float)), *t = calloc((size_t)(M * C), sizeof(float));
  float *y = calloc((size_t)(M * N), sizeof(float)), *r = calloc((size_t)(M * N), sizeof(float));
  float *bias = calloc((size_t)(M > N ? M : N), sizeof(float)), *sc = calloc((size_t)(A * A * (ld1 + ld2) + 1), sizeof(float));
  onnxc_epi e = {0, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};
  int m, c, oh, ow, kh, kw, i, j;
  (void)TX;
  for (i = 0; i < C * N; i++) x[i] = frand();
  for (i = 0; i < M * C * 9; i++) w[i] = frand();
  for (i = 0; i < M * N; i++) r[i] = frand(), y[i] = acc ? r[i] : 1e30f;
  for (i = 0; i < (M > N ? M : N); i++) bias[i] = frand();
  for (i = 0; i < A; i++)
    for (j = 0; j < A; j++) {
      for (m = 0; m < M; m++)
        for (c = 0; c < C; c++) {
          const float *g = w + ((long)m * C + c) * 9;
          double v = 0;
          for (kh = 0; kh < 3; kh++)
            for (kw = 0; kw < 3; kw++) v += Gm[i][kh] * g[kh * 3 + kw] * Gm[j][kw];
          t[(long)m * C + c] = (float)v;
        }
      onnxc_pack_a(M, C, t, C, 1, u + (long)(i * A + j) * Mp * C);
    }
  e.bias = bias;
  e.bias_cols = wino_bcols;
  e.res = acc ? (const float *)0 : r;
  e.ldr = N;
  e.act = act;
  e.alpha = act == ONNXC_ACT_CLIP ? -0.3f : act == ONNXC_ACT_LEAKY ? 0.1f : 0.2f;
  e.beta = act == ONNXC_ACT_CLIP ? 0.4f : 0.5f;
  if (!TB) onnxc_wino_direct(M, C, H, W, x, u, A, y, &e, acc);
  else if (A == 4 && wino_parts) {
    /* as onnxc_wino_par's tasks: three parts of the output channels (groups of 8), or of the
       tile rows, one after another */
    const int TY = (H + 1) / 2, n8 = (M + 7) / 8;
    int p;
    for (p = 0; p < 3; p++) {
      const int m0 = 8 * (n8 * p / 3), m1 = 8 * (n8 * (p + 1) / 3) < M ? 8 * (n8 * (p + 1) / 3) : M;
      if (wino_parts == 1 && m1 > m0) onnxc_wino23_r(M, C, H, W, x, u, y, &e, sc, TB, acc, 0, TY, m0, m1);
      if (wino_parts == 2 && TY * (p + 1) / 3 > TY * p / 3) onnxc_wino23_r(M, C, H, W, x, u, y, &e, sc, TB, acc, TY * p / 3, TY * (p + 1) / 3, 0, M);
    }
  } else if (A == 4) onnxc_wino23(M, C, H, W, x, u, y, &e, sc, TB, acc);
  else onnxc_wino43(M, C, H, W, x, u, y, &e, sc, TB, MB, acc);
  for (m = 0; m < M; m++)
    for (oh = 0; oh < H; oh++)
      for (ow = 0; ow < W; ow++) {
        double s = 0, mag = 1, g = y[m * N + oh * W + ow];
        for (c = 0; c < C; c++)
          for (kh = 0; kh < 3; kh++)
            for (kw = 0; kw < 3; kw++) {
              const int ih = oh - 1 + kh, iw = ow - 1 + kw;
              if (ih >= 0 && ih < H && iw >= 0 && iw < W) {
                const double v = (double)w[((long)m * C + c) * 9 + kh * 3 + kw] * x[c * N + ih * W + iw];
                s += v;
                mag += fabs(v);
              }
            }
        s += (wino_bcols ? bias[oh * W + ow] : bias[m]) + r[m * N + oh * W + ow];
        if (act == ONNXC_ACT_RELU) s = s > 0 ? s : 0;
        else if (act == ONNXC_ACT_CLIP) s = s < e.alpha ? e.alpha : s > e.beta ? e.beta : s;
        else if (act) s = onnxc_act1((float)s, act, e.alpha, e.beta);
        if (!(fabs(g - s) <= 1e-5 * mag)) {
          printf("FAIL wino A=%d M=%d C=%d %dx%d TB=%d MB=%d acc=%d parts=%d act=%d bcols=%d at (%d,%d,%d): got %.9g, want %.9g\n", A,
                 M, C, H, W, TB, MB, acc, wino_parts, act, wino_bcols, m, oh, ow, g, s);
          failures++;
          m = M, oh = H, ow = W;
        }
      }
  free(x), free(w), free(u), free(t), free(y), free(r), free(bias), free(sc);
}

/* onnxc_conv_i2c_r (the im2col convolution of a row and channel range) in three parts of the
   output channels (groups of 8) or of the output rows, one after another, as onnxc_conv_i2c_par's
   tasks run them: weights packed as onnxc_pack_a packs them, k blocks of KB, tiles of TR rows,
   bias, residual, Relu; against a double convolution. */
static void i2c(int M, int C, int IH, int IW, int KH, int KW, int S, int P, int KB, int TR, int bych) {
  const int OH = (IH + 2 * P - KH) / S + 1, OW = (IW + 2 * P - KW) / S + 1, K = C * KH * KW, Mp = (M + 7) / 8 * 8;
  const long OHW = (long)OH * OW;
  float *x = calloc((size_t)C * IH * IW, sizeof(float)), *w = calloc((size_t)M * K, sizeof(float));
  float *wp = calloc((size_t)Mp * K, sizeof(float)), *y = calloc((size_t)M * OHW, sizeof(float));
  float *r = calloc((size_t)M * OHW, sizeof(float)), *bias = calloc((size_t)M, sizeof(float));
  float *col = calloc((size_t)KB * TR * OW, sizeof(float));
  onnxc_epi e = {0, 0, 0, 0, ONNXC_ACT_RELU, 0.0f, 0.0f, 0, 0, 0};
  const int n8 = (M + 7) / 8;
  int i, p, m, oh, ow, c, kh, kw;
  for (i = 0; i < C * IH * IW; i++) x[i] = frand();
  for (i = 0; i < M * K; i++) w[i] = frand();
  for (i = 0; i < M * OHW; i++) r[i] = frand(), y[i] = 1e30f;
  for (i = 0; i < M; i++) bias[i] = frand();
  onnxc_pack_a(M, K, w, K, 1, wp);
  e.bias = bias;
  e.res = r;
  e.ldr = OHW;
  for (p = 0; p < 3; p++) {
    const int m0 = 8 * (n8 * p / 3), m1 = 8 * (n8 * (p + 1) / 3) < M ? 8 * (n8 * (p + 1) / 3) : M;
    const int r0 = OH * p / 3, r1 = OH * (p + 1) / 3;
    if (bych && m1 > m0) onnxc_conv_i2c_r(M, K, KB, IH, IW, KH, KW, S, S, 1, 1, P, P, OH, OW, x, wp, y, &e, col, TR, 0, OH, m0, m1);
    if (!bych && r1 > r0) onnxc_conv_i2c_r(M, K, KB, IH, IW, KH, KW, S, S, 1, 1, P, P, OH, OW, x, wp, y, &e, col, TR, r0, r1, 0, M);
  }
  for (m = 0; m < M; m++)
    for (oh = 0; oh < OH; oh++)
      for (ow = 0; ow < OW; ow++) {
        double s = bias[m] + r[m * OHW + oh * OW + ow], mag = 1, g = y[m * OHW + oh * OW + ow];
        for (c = 0; c < C; c++)
          for (kh = 0; kh < KH; kh++)
            for (kw = 0; kw < KW; kw++) {
              const int ih = oh * S - P + kh, iw = ow * S - P + kw;
              if (ih >= 0 && ih < IH && iw >= 0 && iw < IW) {
                const double v = (double)w[(long)m * K + (c * KH + kh) * KW + kw] * x[((long)c * IH + ih) * IW + iw];
                s += v;
                mag += fabs(v);
              }
            }
        s = s > 0 ? s : 0;
        if (!(fabs(g - s) <= 1e-5 * mag)) {
          printf("FAIL conv_i2c_r M=%d C=%d %dx%d K %dx%d s%d p%d KB=%d TR=%d bych=%d at (%d,%d,%d): got %.9g, want %.9g\n", M, C,
                 IH, IW, KH, KW, S, P, KB, TR, bych, m, oh, ow, g, s);
          failures++;
          m = M, oh = OH, ow = OW;
        }
      }
  free(x), free(w), free(wp), free(y), free(r), free(bias), free(col);
}

#if defined(ONNXC_AVX512) || defined(ONNXC_AVX2)
/* the activations of the epilogue in double */
static double act_ref(double s, int act, double al, double be) {
  double t;
  switch (act) {
  case ONNXC_ACT_RELU: return s > 0 ? s : 0;
  case ONNXC_ACT_CLIP: return s < al ? al : s > be ? be : s;
  case ONNXC_ACT_SIGMOID: return 1 / (1 + exp(-s));
  case ONNXC_ACT_SILU: return s / (1 + exp(-s));
  case ONNXC_ACT_HARDSWISH:
    t = al * s + be;
    return s * (t < 0 ? 0 : t > 1 ? 1 : t);
  default: return s;
  }
}
/* onnxc_conv_sc_r (the direct stem convolution) in one to three parts of output rows, bands of
   R rows, with an activation, a per-row bias (bias 1) and a residual (res 1), against a double
   convolution */
static void sct(int M, int C, int IH, int IW, int K, int S, int P, int R, int parts, int act, int bias1, int res1) {
  const int OH = (IH + 2 * P - K) / S + 1, OW = (IW + 2 * P - K) / S + 1, KK = C * K * K, Mp = (M + 7) / 8 * 8;
  const long OHW = (long)OH * OW, bf = (long)((R - 1) * S + K) * C * S * onnxc_conv_sc_wp(OW, K, S, P);
  float *x = calloc((size_t)C * IH * IW, sizeof(float)), *w = calloc((size_t)M * KK, sizeof(float));
  float *wp = calloc((size_t)Mp * KK, sizeof(float)), *y = calloc((size_t)M * OHW, sizeof(float));
  float *r = calloc((size_t)M * OHW, sizeof(float)), *bias = calloc((size_t)M, sizeof(float));
  float *buf = calloc((size_t)bf, sizeof(float));
  onnxc_epi e = {0, 0, 0, 0, ONNXC_ACT_NONE, 0.0f, 0.0f, 0, 0, 0};
  int i, p, m, oh, ow, c, kh, kw;
  for (i = 0; i < C * IH * IW; i++) x[i] = frand();
  for (i = 0; i < M * KK; i++) w[i] = frand();
  for (i = 0; i < M * OHW; i++) r[i] = frand(), y[i] = 1e30f;
  for (i = 0; i < M; i++) bias[i] = frand();
  onnxc_pack_a(M, KK, w, KK, 1, wp);
  e.bias = bias1 ? bias : (const float *)0;
  e.res = res1 ? r : (const float *)0;
  e.ldr = OHW;
  e.act = act;
  e.alpha = act == ONNXC_ACT_CLIP ? -0.5f : act == ONNXC_ACT_HARDSWISH ? 1.0f / 6 : 0.0f;
  e.beta = act == ONNXC_ACT_CLIP ? 0.5f : act == ONNXC_ACT_HARDSWISH ? 0.5f : 0.0f;
  for (p = 0; p < parts; p++) {
    const int r0 = OH * p / parts, r1 = OH * (p + 1) / parts;
    if (r1 > r0) onnxc_conv_sc_r(M, C, IH, IW, K, K, S, P, P, OH, OW, x, wp, y, &e, buf, R, r0, r1);
  }
  for (m = 0; m < M; m++)
    for (oh = 0; oh < OH; oh++)
      for (ow = 0; ow < OW; ow++) {
        double s = (bias1 ? bias[m] : 0) + (res1 ? r[m * OHW + oh * OW + ow] : 0), mag = 1, g = y[m * OHW + oh * OW + ow];
        for (c = 0; c < C; c++)
          for (kh = 0; kh < K; kh++)
            for (kw = 0; kw < K; kw++) {
              const int ih = oh * S - P + kh, iw = ow * S - P + kw;
              if (ih >= 0 && ih < IH && iw >= 0 && iw < IW) {
                const double v = (double)w[(long)m * KK + (c * K + kh) * K + kw] * x[((long)c * IH + ih) * IW + iw];
                s += v;
                mag += fabs(v);
              }
            }
        s = act_ref(s, act, e.alpha, e.beta);
        if (!(fabs(g - s) <= 1e-5 * mag)) {
          printf("FAIL conv_sc_r M=%d C=%d %dx%d K%d s%d p%d R=%d parts=%d act %d bias %d res %d at (%d,%d,%d): got %.9g, want %.9g\n",
                 M, C, IH, IW, K, S, P, R, parts, act, bias1, res1, m, oh, ow, g, s);
          failures++;
          m = M, oh = OH, ow = OW;
        }
      }
  free(x), free(w), free(wp), free(y), free(r), free(bias), free(buf);
}
#endif

/* onnxc_maxpool2d against plain loops: windows clipped to the input (pads, ceil-mode extra
   outputs), every window holding an input element */
static void maxpool(int C, int IH, int IW, int KH, int KW, int SH, int SW, int PH, int PW, int ceil_mode) {
  const int OH = (IH + 2 * PH - KH + (ceil_mode ? SH - 1 : 0)) / SH + 1, OW = (IW + 2 * PW - KW + (ceil_mode ? SW - 1 : 0)) / SW + 1;
  float *x, *y;
  int c, oh, ow, kh, kw, i, form;
  if ((OH - 1) * SH - PH >= IH || (OW - 1) * SW - PW >= IW) return; /* (ceil mode: the last window starts inside) */
  x = calloc((size_t)C * IH * IW, sizeof(float));
  y = calloc((size_t)C * OH * OW, sizeof(float));
  for (i = 0; i < C * IH * IW; i++) x[i] = frand();
#if defined(ONNXC_AVX2)
  for (form = 0; form < 2; form++) { /* and the form onnxc_conv_mp's bands take */
    for (i = 0; i < C * OH * OW; i++) y[i] = 1e30f;
    if (form) onnxc_maxpool2d_rb8(C, x, (long)IH * IW, 0, IH, IW, KH, KW, SH, SW, PH, PW, y, OH, OW, 0, OH);
    else
#else
  for (form = 0; form < 1; form++) {
#endif
    onnxc_maxpool2d(C, x, IH, IW, KH, KW, SH, SW, PH, PW, y, OH, OW);
  for (c = 0; c < C; c++)
    for (oh = 0; oh < OH; oh++)
      for (ow = 0; ow < OW; ow++) {
        float m = -INFINITY;
        for (kh = 0; kh < KH; kh++)
          for (kw = 0; kw < KW; kw++) {
            const int ih = oh * SH - PH + kh, iw = ow * SW - PW + kw;
            if (ih >= 0 && ih < IH && iw >= 0 && iw < IW && x[((long)c * IH + ih) * IW + iw] > m) m = x[((long)c * IH + ih) * IW + iw];
          }
        if (y[((long)c * OH + oh) * OW + ow] != m) {
          printf("FAIL maxpool%s %dx%d k %dx%d s %dx%d p %dx%d at (%d,%d,%d): got %g, want %g\n", form ? "_rb8" : "", IH, IW, KH,
                 KW, SH, SW, PH, PW, c, oh, ow, y[((long)c * OH + oh) * OW + ow], m);
          failures++;
          c = C, oh = OH, ow = OW;
        }
      }
  }
  free(x), free(y);
}

/* onnxc_conv_mp (a convolution whose rows a max pooling reads in bands): the convolution by
   onnxc_conv_sc (sc, AVX-512 and AVX2) or the im2col tiles, bands of CR convolution rows, the pooled rows
   in `parts` ranges one after another (as onnxc_conv_mp_par's tasks run them, each with its own
   scratch); bias and Relu; against a double convolution (rounded to float) and plain pooling. */
static void convmp(int M, int C, int IH, int IW, int KH, int S, int P, int PK, int PS, int PP, int ceil_mode, int sc, int CR,
                   int parts) {
  const int OH = (IH + 2 * P - KH) / S + 1, OW = (IW + 2 * P - KH) / S + 1, K = C * KH * KH, Mp = (M + 7) / 8 * 8;
  const int POH = (OH + 2 * PP - PK + (ceil_mode ? PS - 1 : 0)) / PS + 1, POW = (OW + 2 * PP - PK + (ceil_mode ? PS - 1 : 0)) / PS + 1;
  const int KB = K < 128 ? K : 128, TR = 3;
  const long conv_f = 1L << 16, part = conv_f + (long)M * CR * OW;
  float *x = calloc((size_t)C * IH * IW, sizeof(float)), *w = calloc((size_t)M * K, sizeof(float));
  float *wp = calloc((size_t)Mp * K, sizeof(float)), *bias = calloc((size_t)M, sizeof(float));
  float *cv = calloc((size_t)M * OH * OW, sizeof(float)), *y = calloc((size_t)M * POH * POW, sizeof(float));
  float *buf = calloc((size_t)(part * parts), sizeof(float));
  onnxc_epi e = {0, 0, 0, 0, ONNXC_ACT_RELU, 0.0f, 0.0f, 0, 0, 0};
  int i, m, oh, ow, c, kh, kw;
  if (CR > OH) CR = OH;
  for (i = 0; i < C * IH * IW; i++) x[i] = frand();
  for (i = 0; i < M * K; i++) w[i] = frand();
  for (i = 0; i < M; i++) bias[i] = frand();
  for (i = 0; i < M * POH * POW; i++) y[i] = 1e30f;
  onnxc_pack_a(M, K, w, K, 1, wp);
  e.bias = bias;
  for (i = 0; i < parts; i++) {
    float *b = buf + i * part;
    const int p0 = POH * i / parts, p1 = POH * (i + 1) / parts;
    if (p1 > p0)
      onnxc_conv_mp(sc, M, C, IH, IW, KH, KH, S, S, P, P, OH, OW, x, wp, &e, b, 4, KB, TR, PK, PK, PS, PS, PP, PP, POH, POW, y,
                    b + conv_f, CR, p0, p1);
  }
  for (m = 0; m < M; m++)
    for (oh = 0; oh < OH; oh++)
      for (ow = 0; ow < OW; ow++) {
        double s = bias[m];
        for (c = 0; c < C; c++)
          for (kh = 0; kh < KH; kh++)
            for (kw = 0; kw < KH; kw++) {
              const int ih = oh * S - P + kh, iw = ow * S - P + kw;
              if (ih >= 0 && ih < IH && iw >= 0 && iw < IW)
                s += (double)w[(long)m * K + (c * KH + kh) * KH + kw] * x[((long)c * IH + ih) * IW + iw];
            }
        cv[((long)m * OH + oh) * OW + ow] = (float)(s > 0 ? s : 0);
      }
  for (m = 0; m < M; m++)
    for (oh = 0; oh < POH; oh++)
      for (ow = 0; ow < POW; ow++) {
        float want = -INFINITY;
        const float got = y[((long)m * POH + oh) * POW + ow];
        for (kh = 0; kh < PK; kh++)
          for (kw = 0; kw < PK; kw++) {
            const int ih = oh * PS - PP + kh, iw = ow * PS - PP + kw;
            if (ih >= 0 && ih < OH && iw >= 0 && iw < OW && cv[((long)m * OH + ih) * OW + iw] > want) want = cv[((long)m * OH + ih) * OW + iw];
          }
        if (!(fabs(got - want) <= 1e-5 * (1 + K))) {
          printf("FAIL conv_mp M=%d C=%d %dx%d K%d s%d p%d pool %d s%d p%d ceil %d sc %d CR %d parts %d at (%d,%d,%d): got %.9g, want %.9g\n",
                 M, C, IH, IW, KH, S, P, PK, PS, PP, ceil_mode, sc, CR, parts, m, oh, ow, got, want);
          failures++;
          m = M, oh = POH, ow = POW;
        }
      }
  free(x), free(w), free(wp), free(bias), free(cv), free(y), free(buf);
}

/* onnxc_im2col2d: every element of a block (rows kb..kb+kc, output rows r0..r0+rn) exactly */
static void unfold(int C, int IH, int IW, int KH, int KW, int SH, int SW, int DH, int DW, int PH, int PW, int r0, int rn,
                   int kb, int kc) {
  const int OW = (IW + 2 * PW - DW * (KW - 1) - 1) / SW + 1;
  float *x = calloc((size_t)C * IH * IW, sizeof(float)), *col = calloc((size_t)kc * rn * OW + 1, sizeof(float));
  int i, kk, rr, ow;
  for (i = 0; i < C * IH * IW; i++) x[i] = frand();
  for (i = 0; i < kc * rn * OW + 1; i++) col[i] = 1e30f;
  onnxc_im2col2d(x, IH, IW, KH, KW, SH, SW, DH, DW, PH, PW, OW, r0, rn, kb, kc, col);
  for (kk = 0; kk < kc; kk++)
    for (rr = r0; rr < r0 + rn; rr++)
      for (ow = 0; ow < OW; ow++) {
        const int k = kb + kk, c = k / (KH * KW), kh = k / KW % KH, kw = k % KW;
        const int ih = rr * SH + kh * DH - PH, iw = ow * SW + kw * DW - PW;
        const float want = ih >= 0 && ih < IH && iw >= 0 && iw < IW ? x[((long)c * IH + ih) * IW + iw] : 0.0f;
        const float got = col[((long)kk * rn + rr - r0) * OW + ow];
        if (got != want) {
          printf("FAIL im2col2d %dx%d K %dx%d s %d,%d d %d,%d p %d,%d rows %d+%d k %d+%d at (%d,%d,%d): got %g, want %g\n",
                 IH, IW, KH, KW, SH, SW, DH, DW, PH, PW, r0, rn, kb, kc, kk, rr, ow, got, want);
          failures++;
          kk = kc, rr = r0 + rn, ow = OW;
        }
      }
  if (col[kc * rn * OW] != 1e30f) {
    printf("FAIL im2col2d %dx%d K %dx%d s %d,%d: wrote past the block\n", IH, IW, KH, KW, SH, SW);
    failures++;
  }
  free(x), free(col);
}

int main(void) {
  static const int dims[] = {1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 17, 20, 33};
  const int nd = (int)(sizeof dims / sizeof dims[0]);
  int hi, wi, s, p, cases = 0;
  for (hi = 0; hi < nd; hi++)
    for (wi = 0; wi < nd; wi++)
      for (s = 0; s < 4; s++)
        for (p = 0; p <= 2; p++) {
          if (dims[hi] + 2 * p < 3 || dims[wi] + 2 * p < 3) continue;
          one(3, 1, dims[hi], dims[wi], 3, 1 + (s & 1), 1 + (s >> 1), p, 1, p == 1 ? ONNXC_ACT_RELU : ONNXC_ACT_CLIP);
          one(3, 1, dims[hi], dims[wi], 3, 1 + (s & 1), 1 + (s >> 1), p, 1, p == 1 ? ONNXC_ACT_SILU : ONNXC_ACT_SILU + 100);
          cases += 2;
        }
  /* 3x3 stride 1 across rows of a multiple of 8 columns (AVX2 onnxc_dw3r8): "same" and bands
     (no vertical padding), one to many rows, with a channel multiplier; every epilogue path
     (Relu with a residual, Clip without, SiLU with and without, sums every other call) */
  {
    static const int ws[] = {8, 16, 24, 40, 112};
    static const int hs[] = {1, 2, 3, 5, 9};
    int a, b;
    for (a = 0; a < 5; a++)
      for (b = 0; b < 5; b++) {
        one(3, 1, hs[b], ws[a], 3, 1, 1, 1, 1, ONNXC_ACT_RELU);
        one(4, 2, hs[b], ws[a], 3, 1, 1, 1, 1, ONNXC_ACT_SILU + 100);
        one(2, 1, hs[b], ws[a], 3, 1, 1, 1, 1, ONNXC_ACT_SILU);
        if (hs[b] >= 3) one2(3, 1, hs[b], ws[a], 3, 1, 1, 0, 1, 1, ONNXC_ACT_CLIP);
        if (hs[b] >= 3) one2(2, 1, hs[b], ws[a], 3, 1, 1, 0, 1, 1, ONNXC_ACT_SILU + 100);
        cases += 3 + 2 * (hs[b] >= 3);
      }
  }
  /* the bands of a DwBlock: rows given explicitly (no vertical padding), "same" across */
  for (hi = 0; hi < nd; hi++)
    for (s = 1; s <= 2; s++) {
      one2(5, 1, 2 * s + 1, dims[hi] + 2, 3, s, s, 0, 1, 1, ONNXC_ACT_CLIP);
      one2(5, 1, 4 * s + 1, dims[hi] + 12, 3, s, s, 0, 1, 1, ONNXC_ACT_RELU);
      one2(3, 1, 3 * s + 3, dims[hi] + 30, 5, s, s, 0, 2, 1, ONNXC_ACT_NONE);
      one2(5, 1, 4 * s + 3, dims[hi] + 12, 3, s, s, 0, 1, 1, ONNXC_ACT_SILU + 100);
      cases += 4;
    }
  for (hi = 4; hi < nd; hi++) {
    one(4, 2, dims[hi], dims[hi] + 3, 3, 2, 2, 1, 1, ONNXC_ACT_RELU);
    one(2, 1, dims[hi], dims[hi], 5, 1, 1, 2, 1, ONNXC_ACT_NONE);
    one(2, 1, dims[hi], dims[hi] + 1, 3, 1, 1, 2, 2, ONNXC_ACT_CLIP);
    /* 5x5 rows of 8..35 outputs (channels in lanes: every piece width 4..8) and stride 2 */
    one(3, 1, dims[hi], dims[hi] + 2, 5, 1, 1, 2, 1, ONNXC_ACT_SILU + 100);
    one(3, 1, 2 * dims[hi] + 1, 2 * dims[hi] + 5, 5, 2, 2, 2, 1, ONNXC_ACT_SILU);
    /* 3x3 "same" on narrow planes with a channel multiplier; and planes past the copied-plane
       kernel's size (onnxc_dw3n: H W <= ONNXC_DWN_MAX) */
    one(4, 2, dims[hi], dims[hi] % 7 + 2, 3, 1, 1, 1, 1, ONNXC_ACT_SILU + 100);
    one(2, 1, 150 + 20 * dims[hi], dims[hi] % 15 + 1, 3, 1, 1, 1, 1, ONNXC_ACT_RELU);
    cases += 7;
  }
  {
    static const int hw[][2] = {{1, 5}, {1, 13}, {3, 3}, {5, 7}, {6, 13}, {14, 14}, {9, 4}};
    static const int mc[][2] = {{1, 1}, {8, 3}, {9, 17}, {20, 5}};
    static const int kk[][3] = {{3, 3, 1}, {5, 5, 1}, {3, 3, 2}, {1, 3, 1}, {1, 9, 1}, {7, 7, 1}};
    int a, b, c;
    for (a = 0; a < 7; a++)
      for (b = 0; b < 4; b++)
        for (c = 0; c < 6; c++) {
          same(mc[b][0], mc[b][1], hw[a][0], hw[a][1], kk[c][0], kk[c][1], kk[c][2], c % 2 ? ONNXC_ACT_CLIP : ONNXC_ACT_RELU);
          cases++;
        }
  }
  /* Winograd F(2x2,3x3) and F(4x4,3x3): planes narrower and wider than 16 tiles, blocks of
     one and several tile rows, the last block short, output channels in passes of 8, 16 and
     all, several k blocks (C > 128), the residual in y or in the epilogue; the direct forms */
  {
    static const int cs[][5] = {/* M, C, H, W, tile rows per block */
                                {16, 16, 8, 8, 1},   {16, 16, 32, 32, 2},  {24, 17, 13, 13, 2}, {33, 40, 14, 14, 4},
                                {20, 20, 5, 70, 1},  {9, 130, 10, 11, 3},  {40, 24, 27, 27, 7}, {17, 9, 3, 3, 1},
                                {64, 32, 56, 23, 5}, {8, 200, 6, 6, 2}};
    int a, A;
    for (a = 0; a < (int)(sizeof cs / sizeof cs[0]); a++)
      for (A = 4; A <= 6; A += 2) {
        const int TS = A - 2, TX = (cs[a][3] + TS - 1) / TS, TB = TX * cs[a][4];
        wino(A, cs[a][0], cs[a][1], cs[a][2], cs[a][3], TB, A == 6 ? cs[a][0] : 0, a % 2, a % 3 ? ONNXC_ACT_RELU : ONNXC_ACT_CLIP);
        wino(A, cs[a][0], cs[a][1], cs[a][2], cs[a][3], 0, 0, a % 2 == 0, ONNXC_ACT_NONE);
        cases += 2;
        if (A == 4 && cs[a][0] > 8) {
          wino_parts = 1;
          wino(4, cs[a][0], cs[a][1], cs[a][2], cs[a][3], TB, 0, a % 2, ONNXC_ACT_RELU);
          wino_parts = 2;
          wino(4, cs[a][0], cs[a][1], cs[a][2], cs[a][3], TB, 0, a % 2 == 0, ONNXC_ACT_CLIP);
          wino_parts = 0;
          cases += 2;
        }
        if (A == 6 && cs[a][0] > 8) {
          wino(6, cs[a][0], cs[a][1], cs[a][2], cs[a][3], TB, 8, a % 2 == 0, ONNXC_ACT_RELU);
          wino(6, cs[a][0], cs[a][1], cs[a][2], cs[a][3], TX, 16, a % 2, ONNXC_ACT_NONE);
          cases += 2;
        }
      }
    /* every activation (the vector forms and the others), with and without the addend in y, the
       bias per channel or per column, on planes of one and several vectors of tiles */
    for (a = 0; a < 4; a++)
      for (A = 4; A <= 6; A += 2) {
        static const int ps[4][4] = {{12, 10, 9, 9}, {9, 7, 22, 37}, {16, 5, 6, 70}, {10, 6, 7, 7}}; /* M, C, H, W */
        const int TS = A - 2, TX = (ps[a][3] + TS - 1) / TS, TB = TX * (a + 2);
        int act;
        for (act = ONNXC_ACT_NONE; act <= ONNXC_ACT_TANH; act++) {
          wino_bcols = act % 2;
          wino(A, ps[a][0], ps[a][1], ps[a][2], ps[a][3], TB, A == 6 ? 8 : 0, (act + a) % 2, act);
          wino_bcols = 0;
          cases++;
        }
      }
  }
  /* max pooling: 2x2 / 3x3 / 3x5 windows, strides 1-3, paddings, ceil mode, rows from one to
     several vectors (the separable form and the per-tap form) */
  {
    static const int sz[][2] = {{1, 1}, {2, 3}, {5, 7}, {8, 16}, {13, 17}, {31, 33}, {55, 55}, {40, 111}, {6, 300}};
    static const int kp[][6] = {/* KH, KW, SH, SW, PH, PW */
                                {2, 2, 2, 2, 0, 0}, {3, 3, 2, 2, 1, 1}, {3, 3, 2, 2, 0, 0}, {3, 3, 1, 1, 1, 1},
                                {3, 5, 1, 2, 1, 2}, {2, 3, 3, 3, 0, 1}, {1, 1, 2, 2, 0, 0}, {5, 5, 2, 1, 2, 2}};
    int a, b, cm;
    for (a = 0; a < (int)(sizeof sz / sizeof sz[0]); a++)
      for (b = 0; b < (int)(sizeof kp / sizeof kp[0]); b++)
        for (cm = 0; cm < 2; cm++) {
          if (sz[a][0] + 2 * kp[b][4] < kp[b][0] || sz[a][1] + 2 * kp[b][5] < kp[b][1]) continue;
          maxpool(3, sz[a][0], sz[a][1], kp[b][0], kp[b][1], kp[b][2], kp[b][3], kp[b][4], kp[b][5], cm);
          cases++;
        }
  }
  /* im2col blocks: strides 1-3 (the vector path takes 1 and 2), dilations, paddings up to
     beyond the kernel, rows narrower and wider than a vector, partial row and k ranges */
  {
    static const int g[][10] = {
        /* IH, IW, KH, KW, SH, SW, DH, DW, PH, PW */
        {16, 16, 3, 3, 2, 2, 1, 1, 1, 1}, {32, 32, 3, 3, 2, 2, 1, 1, 1, 1}, {7, 7, 3, 3, 2, 2, 1, 1, 1, 1},
        {15, 37, 3, 3, 2, 2, 1, 1, 0, 0}, {9, 50, 5, 5, 1, 1, 1, 1, 2, 2}, {12, 12, 3, 3, 1, 1, 2, 2, 2, 2},
        {11, 40, 7, 7, 2, 2, 1, 1, 3, 3}, {49, 10, 10, 4, 2, 2, 1, 1, 4, 1}, {13, 29, 3, 5, 3, 3, 1, 1, 1, 2},
        {1, 70, 1, 9, 1, 2, 1, 1, 0, 4}, {6, 5, 3, 3, 1, 2, 1, 3, 3, 5}, {20, 33, 4, 4, 2, 2, 1, 1, 0, 1}};
    int a;
    for (a = 0; a < (int)(sizeof g / sizeof g[0]); a++) {
      const int *q = g[a], C = 3, K = C * q[2] * q[3];
      const int OH = (q[0] + 2 * q[8] - q[6] * (q[2] - 1) - 1) / q[4] + 1;
      unfold(C, q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8], q[9], 0, OH, 0, K);
      unfold(C, q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8], q[9], OH / 2, OH - OH / 2, K / 3, K - K / 3 - 1);
      cases += 2;
    }
  }
  /* im2col convolutions in parts: stride 2 3x3 and 1x1 (ResNet's downsampling), k in several
     blocks and partial ones, tiles of fewer rows than a part, channels not a multiple of 8 */
  {
    static const int q[][9] = {/* M, C, IH, IW, KH, KW, S, P, TR */
                               {64, 40, 14, 14, 3, 3, 2, 1, 7}, {52, 16, 9, 9, 3, 3, 2, 1, 2}, {24, 60, 8, 8, 1, 1, 2, 0, 4},
                               {100, 7, 12, 10, 5, 5, 1, 2, 3}, {9, 20, 7, 7, 3, 3, 2, 1, 1}};
    int a, bych;
    for (a = 0; a < (int)(sizeof q / sizeof q[0]); a++)
      for (bych = 0; bych < 2; bych++) {
        const int K = q[a][1] * q[a][4] * q[a][5];
        i2c(q[a][0], q[a][1], q[a][2], q[a][3], q[a][4], q[a][5], q[a][6], q[a][7], K < 128 ? K : 128, q[a][8], bych);
        i2c(q[a][0], q[a][1], q[a][2], q[a][3], q[a][4], q[a][5], q[a][6], q[a][7], K < 32 ? K : 32, q[a][8], bych);
        cases += 2;
      }
  }
  /* a convolution and the max pooling reading it, in bands (the stems of SqueezeNet, ResNet-18,
     ShuffleNetV2; a stride-1 one): bands from the window's rows to the whole plane, one to
     three parts of the pooled rows, both convolution forms */
  {
    static const int q[][11] = {/* M, C, IH, IW, K, S, P, PK, PS, PP, ceil */
                                {20, 3, 31, 37, 3, 2, 0, 3, 2, 0, 1}, {16, 3, 40, 40, 7, 2, 3, 3, 2, 1, 0},
                                {24, 3, 35, 50, 3, 2, 1, 3, 2, 1, 0}, {9, 4, 20, 33, 3, 1, 1, 2, 2, 0, 0},
                                {8, 3, 9, 70, 3, 2, 1, 3, 2, 1, 1}, {16, 3, 20, 31, 3, 2, 1, 3, 2, 1, 0},
                                {8, 3, 5, 40, 3, 2, 0, 3, 1, 1, 0}}; /* (2 rows, a 3-row window) */
    int a, sc, cr, parts;
    for (a = 0; a < (int)(sizeof q / sizeof q[0]); a++)
      for (sc = 0; sc < 2; sc++)
        for (cr = 0; cr < 3; cr++)
          for (parts = 1; parts <= 3; parts++) {
            const int CR = cr == 0 ? q[a][7] : cr == 1 ? q[a][7] + 2 * q[a][8] : 1000;
            convmp(q[a][0], q[a][1], q[a][2], q[a][3], q[a][4], q[a][5], q[a][6], q[a][7], q[a][8], q[a][9], q[a][10], sc, CR, parts);
            cases++;
          }
  }
#if defined(ONNXC_AVX512) || defined(ONNXC_AVX2)
  /* the direct stem convolution: EfficientNet/MobileNet (3x3 s2), ResNet (7x7 s2: 147 taps, two
     k blocks), stride 1; widths around the 8-, 16- and 24-column strips; every epilogue kind */
  {
    static const int q[][8] = {/* M, C, IH, IW, K, S, P, R */
                               {32, 3, 23, 33, 3, 2, 1, 4}, {16, 3, 20, 48, 3, 2, 1, 3}, {20, 3, 30, 37, 7, 2, 3, 2},
                               {13, 2, 12, 24, 3, 1, 1, 5}, {8, 3, 10, 50, 5, 1, 2, 16}, {40, 3, 9, 113, 3, 2, 1, 2},
                               {7, 1, 11, 17, 3, 1, 0, 3}, {12, 3, 14, 16, 3, 1, 1, 4}};
    static const int acts[] = {ONNXC_ACT_NONE, ONNXC_ACT_RELU, ONNXC_ACT_CLIP, ONNXC_ACT_SILU, ONNXC_ACT_HARDSWISH, ONNXC_ACT_SIGMOID};
    int a, k, parts;
    for (a = 0; a < (int)(sizeof q / sizeof q[0]); a++)
      for (k = 0; k < (int)(sizeof acts / sizeof acts[0]); k++)
        for (parts = 1; parts <= 3; parts += 2) {
          sct(q[a][0], q[a][1], q[a][2], q[a][3], q[a][4], q[a][5], q[a][6], q[a][7], parts, acts[k], 1, 0);
          sct(q[a][0], q[a][1], q[a][2], q[a][3], q[a][4], q[a][5], q[a][6], q[a][7], parts, acts[k], k % 2, 1);
          cases += 2;
        }
  }
#endif
  printf("%d cases, %d failures\n", cases, failures);
  return failures != 0;
}
