/* ImageDecoder, WebP: a RIFF/WEBP file -> interleaved 8-bit RGB, in C with no allocation, no libc and
   no file-scope data (this file is spliced into the generated C before image.h, which dispatches
   "RIFF....WEBP" bytes to onnxc_img_webp).

   Supported: lossy "VP8 " key frames (simple files and VP8X extended files; an ALPH chunk is
   skipped, alpha is dropped) with every intra mode, segmentation, quantizer deltas, probability
   updates, 1-8 token partitions, skipped macroblocks and both loop filters; and lossless "VP8L"
   (Huffman-coded ARGB, color cache, LZ77 backward references, meta Huffman codes and the predictor,
   color, subtract-green and color-indexing transforms; alpha dropped). The output is libwebp's
   default RGB decode: its "fancy" chroma upsampling and its 14-bit fixed-point YUV->RGB conversion,
   so it matches libwebp (Pillow's Image.convert("RGB")) byte for byte.  Refused (ONNXC_IMG_BAD):
   animations (ANIM/ANMF), non-key or hidden frames, and anything malformed or truncated, which
   includes a VP8 partition read past its end. ONNXC_IMG_SIZE: a well-formed image whose size is not
   W x H.

   Scratch: the larger of the lossy need, 385 MW MH + 13 MW + 4096 bytes with MW = (W + 15) / 16 and
   MH = (H + 15) / 16, and the lossless need, 4 W H + 40 ((W + 3) / 4) ((H + 3) / 4) + 16 n + 49152
   bytes (the ARGB image, transform and Huffman sub-images, a Huffman code pool of 8 n + 16384
   uint16, a 2048-entry color cache).  A lossless file whose codes overflow the pool is refused.

   Every read of s is checked against n; arithmetic stays within 32 bits (long may be 32 bits);
   tables are static const locals (CUDA device code); no recursion. */

#ifndef ONNXC_IMG_BAD
#define ONNXC_IMG_BAD 11
#define ONNXC_IMG_SIZE 9
#endif

/* device code (the CUDA targets): the helpers stay calls -- inlined into their callers they make
   a kernel that ptxas takes many minutes to compile */
#if defined(__CUDA_ARCH__)
#define ONNXC_WEBP_FN ONNXC_MAYBE_UNUSED __noinline__ static
#else
#define ONNXC_WEBP_FN ONNXC_MAYBE_UNUSED static
#endif

/* ---- WebP, lossy (VP8 key frame; RFC 6386) ---- */

/* The boolean entropy decoder.  range holds range - 1; bits counts the bits in value beyond the
   8 the next decision needs.  Past the end of its partition it reads zeros and sets eof, as
   libwebp does; a frame that needed those zeros is refused (libwebp refuses it too). */
typedef struct onnxc_webp_br {
  const unsigned char *p, *end;
  uint32_t value, range;
  int bits, eof;
} onnxc_webp_br;

ONNXC_WEBP_FN void onnxc_webp_br_load(onnxc_webp_br *b) {
  if (b->p < b->end) {
    b->value = (b->value << 8) | *b->p++;
  } else {
    b->value <<= 8;
    b->eof = 1;
  }
  b->bits += 8;
}

ONNXC_MAYBE_UNUSED static void onnxc_webp_br_init(onnxc_webp_br *b, const unsigned char *p, long len) {
  b->p = p, b->end = p + len;
  b->value = 0, b->range = 254, b->bits = -8, b->eof = 0;
  onnxc_webp_br_load(b);
}

ONNXC_WEBP_FN int onnxc_webp_bit(onnxc_webp_br *b, int prob) {
  uint32_t range = b->range, split, v;
  int bit;
  if (b->bits < 0) onnxc_webp_br_load(b);
  split = (range * (uint32_t)prob) >> 8;
  v = b->value >> b->bits;
  if (v > split) {
    range -= split;
    b->value -= (split + 1) << b->bits;
    bit = 1;
  } else {
    range = split + 1;
    bit = 0;
  }
  while (range < 128) range <<= 1, b->bits--;
  b->range = range - 1;
  return bit;
}

ONNXC_MAYBE_UNUSED static int onnxc_webp_lit(onnxc_webp_br *b, int n) {
  int v = 0;
  while (n-- > 0) v = (v << 1) | onnxc_webp_bit(b, 128);
  return v;
}

/* flag ? signed n-bit value : 0 */
ONNXC_MAYBE_UNUSED static int onnxc_webp_sval(onnxc_webp_br *b, int n) {
  int v;
  if (!onnxc_webp_bit(b, 128)) return 0;
  v = onnxc_webp_lit(b, n);
  return onnxc_webp_bit(b, 128) ? -v : v;
}

/* x wrapped to int16 as libwebp's int16_t stores do (no implementation-defined conversion) */
ONNXC_WEBP_FN int onnxc_webp_w16(long x) {
  const long v = (long)((unsigned long)x & 0xffffUL);
  return (int)(v >= 32768L ? v - 65536L : v);
}

typedef struct onnxc_webp_dec {
  onnxc_webp_br br[9]; /* partition 0, then the token partitions */
  unsigned char prob[4][8][3][11];
  unsigned char segp[3];
  int use_seg, update_map, abs_delta, seg_q[4], seg_lf[4];
  int simple, level, sharp, use_lf_delta, ref_lf[4], mode_lf[4];
  int nparts, use_skip, skip_p;
  int dq[4][6];                /* per segment: y1 dc, ac, y2 dc, ac, uv dc, ac */
  int flim[4][2], filv[4][2], fhev[4][2]; /* per segment and i4x4: limit (0: none), ilevel, hev */
  int16_t coef[384];
  unsigned char lnz[9], lmode[4];
  unsigned char work[35 * 32];
} onnxc_webp_dec;
/* the state fits the 4096 bytes the scratch formula gives it (with 8 for alignment) */
typedef char onnxc_webp_dec_fits[sizeof(onnxc_webp_dec) + 8 <= 4096 ? 1 : -1];

/* Reads one block's tokens (libwebp's GetCoeffs): returns the position after the last coded
   token (16 when zeros run to the end), the dequantized values into out (zig-zag undone). */
ONNXC_WEBP_FN int onnxc_webp_coeffs(onnxc_webp_br *b, unsigned char (*prob)[3][11], int ctx, int dqdc,
                                                int dqac, int n, int16_t *out) {
  static const unsigned char bands[17] = {0, 1, 2, 3, 6, 4, 5, 6, 6, 6, 6, 6, 6, 6, 6, 7, 0};
  static const unsigned char zz[16] = {0, 1, 4, 8, 5, 2, 3, 6, 9, 12, 13, 10, 7, 11, 14, 15};
  static const unsigned char cat[4][12] = {{173, 148, 140, 0},
                                           {176, 155, 140, 135, 0},
                                           {180, 157, 141, 134, 130, 0},
                                           {254, 254, 243, 230, 196, 177, 153, 140, 133, 130, 129, 0}};
  const unsigned char *p = prob[bands[n]][ctx];
  for (; n < 16; ++n) {
    long v;
    if (!onnxc_webp_bit(b, p[0])) return n;
    while (!onnxc_webp_bit(b, p[1])) {
      p = prob[bands[++n]][0];
      if (n == 16) return 16;
    }
    if (!onnxc_webp_bit(b, p[2])) {
      v = 1;
      p = prob[bands[n + 1]][1];
    } else {
      if (!onnxc_webp_bit(b, p[3])) {
        if (!onnxc_webp_bit(b, p[4])) v = 2;
        else v = 3 + onnxc_webp_bit(b, p[5]);
      } else if (!onnxc_webp_bit(b, p[6])) {
        if (!onnxc_webp_bit(b, p[7])) {
          v = 5 + onnxc_webp_bit(b, 159);
        } else {
          v = 7 + 2 * onnxc_webp_bit(b, 165);
          v += onnxc_webp_bit(b, 145);
        }
      } else {
        const int b1 = onnxc_webp_bit(b, p[8]);
        const int b0 = onnxc_webp_bit(b, p[9 + b1]);
        const int c = 2 * b1 + b0;
        const unsigned char *t;
        v = 0;
        for (t = cat[c]; *t; ++t) v += v + onnxc_webp_bit(b, *t);
        v += 3 + (8L << c);
      }
      p = prob[bands[n + 1]][2];
    }
    if (onnxc_webp_bit(b, 128)) v = -v;
    out[zz[n]] = (int16_t)onnxc_webp_w16(v * (n > 0 ? dqac : dqdc));
  }
  return 16;
}

/* (a * c) >> 16 on 32-bit wrap-around, as libwebp computes it, without signed overflow */
ONNXC_MAYBE_UNUSED static long onnxc_webp_mulhi16(long a, long c) {
  const uint32_t u = (uint32_t)a * (uint32_t)c;
  const long s = u >= 0x80000000UL ? (long)(u - 0x80000000UL) - 0x7fffffffL - 1 : (long)u;
  return s >= 0 ? s / 65536 : -((-s + 65535) / 65536);
}

ONNXC_MAYBE_UNUSED static unsigned char onnxc_webp_clip8(long v) { return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v); }

/* libwebp's arithmetic shift right, for negative values too */
ONNXC_MAYBE_UNUSED static long onnxc_webp_asr(long v, int k) {
  return v >= 0 ? v >> k : -((-v + (1L << k) - 1) >> k);
}

/* inverse DCT of in (raster order), added to the 4x4 block at dst */
ONNXC_WEBP_FN void onnxc_webp_idct(const int16_t *in, unsigned char *dst, int st) {
  long t[16];
  int i;
  for (i = 0; i < 4; ++i) {
    const long a = (long)in[i] + in[8 + i], b = (long)in[i] - in[8 + i];
    const long c = onnxc_webp_mulhi16(in[4 + i], 35468) - (onnxc_webp_mulhi16(in[12 + i], 20091) + in[12 + i]);
    const long d = onnxc_webp_mulhi16(in[4 + i], 20091) + in[4 + i] + onnxc_webp_mulhi16(in[12 + i], 35468);
    t[4 * i] = a + d, t[4 * i + 1] = b + c, t[4 * i + 2] = b - c, t[4 * i + 3] = a - d;
  }
  for (i = 0; i < 4; ++i, dst += st) {
    const long dc = t[i] + 4;
    const long a = dc + t[8 + i], b = dc - t[8 + i];
    const long c = onnxc_webp_mulhi16(t[4 + i], 35468) - (onnxc_webp_mulhi16(t[12 + i], 20091) + t[12 + i]);
    const long d = onnxc_webp_mulhi16(t[4 + i], 20091) + t[4 + i] + onnxc_webp_mulhi16(t[12 + i], 35468);
    dst[0] = onnxc_webp_clip8(dst[0] + onnxc_webp_asr(a + d, 3));
    dst[1] = onnxc_webp_clip8(dst[1] + onnxc_webp_asr(b + c, 3));
    dst[2] = onnxc_webp_clip8(dst[2] + onnxc_webp_asr(b - c, 3));
    dst[3] = onnxc_webp_clip8(dst[3] + onnxc_webp_asr(a - d, 3));
  }
}

/* inverse WHT of the Y2 block into the DC of the 16 luma blocks */
ONNXC_WEBP_FN void onnxc_webp_iwht(const int16_t *in, int16_t *out) {
  long t[16];
  int i;
  for (i = 0; i < 4; ++i) {
    const long a0 = (long)in[i] + in[12 + i], a1 = (long)in[4 + i] + in[8 + i];
    const long a2 = (long)in[4 + i] - in[8 + i], a3 = (long)in[i] - in[12 + i];
    t[i] = a0 + a1, t[8 + i] = a0 - a1, t[4 + i] = a3 + a2, t[12 + i] = a3 - a2;
  }
  for (i = 0; i < 4; ++i) {
    const long dc = t[4 * i] + 3;
    const long a0 = dc + t[4 * i + 3], a1 = t[4 * i + 1] + t[4 * i + 2];
    const long a2 = t[4 * i + 1] - t[4 * i + 2], a3 = dc - t[4 * i + 3];
    out[64 * i] = (int16_t)onnxc_webp_w16(onnxc_webp_asr(a0 + a1, 3));
    out[64 * i + 16] = (int16_t)onnxc_webp_w16(onnxc_webp_asr(a3 + a2, 3));
    out[64 * i + 32] = (int16_t)onnxc_webp_w16(onnxc_webp_asr(a0 - a1, 3));
    out[64 * i + 48] = (int16_t)onnxc_webp_w16(onnxc_webp_asr(a3 - a2, 3));
  }
}

#define ONNXC_WEBP_AVG3(a, b, c) ((unsigned char)(((a) + 2 * (b) + (c) + 2) >> 2))
#define ONNXC_WEBP_AVG2(a, b) ((unsigned char)(((a) + (b) + 1) >> 1))

/* sz x sz prediction at d (stride 32; row -1 and column -1 hold the edges): mode 0 DC (with
   edge availability: have bit 1 top, bit 2 left), 1 TM, 2 V, 3 H */
ONNXC_WEBP_FN void onnxc_webp_pred_big(unsigned char *d, int sz, int mode, int have) {
  int x, y;
  if (mode == 0) {
    long s = 0;
    int v, sh = sz == 16 ? 4 : 3;
    for (x = 0; x < sz; x++) s += (have & 1 ? d[x - 32] : 0) + (have & 2 ? d[x * 32 - 1] : 0);
    if (have == 3) v = (int)((s + sz) >> (sh + 1));
    else if (have) v = (int)((s + (sz >> 1)) >> sh);
    else v = 128;
    for (y = 0; y < sz; y++)
      for (x = 0; x < sz; x++) d[y * 32 + x] = (unsigned char)v;
  } else {
    for (y = 0; y < sz; y++)
      for (x = 0; x < sz; x++) {
        unsigned char *o = d + y * 32 + x;
        if (mode == 1) *o = onnxc_webp_clip8((long)d[y * 32 - 1] + d[x - 32] - d[-33]);
        else if (mode == 2) *o = d[x - 32];
        else *o = d[y * 32 - 1];
      }
  }
}

/* 4x4 subblock prediction, RFC 6386 numbering (DC TM VE HE LD RD VR VL HD HU) */
ONNXC_WEBP_FN void onnxc_webp_pred4(unsigned char *d, int mode) {
  const unsigned char *t = d - 32;
  const int X = t[-1], A = t[0], B = t[1], C = t[2], D = t[3], E = t[4], F = t[5], G = t[6], Hh = t[7];
  const int I = d[-1], J = d[31], K = d[63], L = d[95];
  unsigned char b[16];
  int x, y;
#define ONNXC_WEBP_P(x, y) b[(y) * 4 + (x)]
  switch (mode) {
  case 0: {
    const int v = (A + B + C + D + I + J + K + L + 4) >> 3;
    for (x = 0; x < 16; x++) b[x] = (unsigned char)v;
    break;
  }
  case 1:
    for (y = 0; y < 4; y++)
      for (x = 0; x < 4; x++) b[y * 4 + x] = onnxc_webp_clip8((long)d[y * 32 - 1] + t[x] - X);
    break;
  case 2:
    for (y = 0; y < 4; y++) {
      b[y * 4] = ONNXC_WEBP_AVG3(X, A, B), b[y * 4 + 1] = ONNXC_WEBP_AVG3(A, B, C);
      b[y * 4 + 2] = ONNXC_WEBP_AVG3(B, C, D), b[y * 4 + 3] = ONNXC_WEBP_AVG3(C, D, E);
    }
    break;
  case 3: {
    const unsigned char r[4] = {ONNXC_WEBP_AVG3(X, I, J), ONNXC_WEBP_AVG3(I, J, K), ONNXC_WEBP_AVG3(J, K, L),
                                ONNXC_WEBP_AVG3(K, L, L)};
    for (y = 0; y < 4; y++)
      for (x = 0; x < 4; x++) b[y * 4 + x] = r[y];
    break;
  }
  case 4: /* LD */
    ONNXC_WEBP_P(0, 0) = ONNXC_WEBP_AVG3(A, B, C);
    ONNXC_WEBP_P(1, 0) = ONNXC_WEBP_P(0, 1) = ONNXC_WEBP_AVG3(B, C, D);
    ONNXC_WEBP_P(2, 0) = ONNXC_WEBP_P(1, 1) = ONNXC_WEBP_P(0, 2) = ONNXC_WEBP_AVG3(C, D, E);
    ONNXC_WEBP_P(3, 0) = ONNXC_WEBP_P(2, 1) = ONNXC_WEBP_P(1, 2) = ONNXC_WEBP_P(0, 3) = ONNXC_WEBP_AVG3(D, E, F);
    ONNXC_WEBP_P(3, 1) = ONNXC_WEBP_P(2, 2) = ONNXC_WEBP_P(1, 3) = ONNXC_WEBP_AVG3(E, F, G);
    ONNXC_WEBP_P(3, 2) = ONNXC_WEBP_P(2, 3) = ONNXC_WEBP_AVG3(F, G, Hh);
    ONNXC_WEBP_P(3, 3) = ONNXC_WEBP_AVG3(G, Hh, Hh);
    break;
  case 5: /* RD */
    ONNXC_WEBP_P(0, 3) = ONNXC_WEBP_AVG3(J, K, L);
    ONNXC_WEBP_P(1, 3) = ONNXC_WEBP_P(0, 2) = ONNXC_WEBP_AVG3(I, J, K);
    ONNXC_WEBP_P(2, 3) = ONNXC_WEBP_P(1, 2) = ONNXC_WEBP_P(0, 1) = ONNXC_WEBP_AVG3(X, I, J);
    ONNXC_WEBP_P(3, 3) = ONNXC_WEBP_P(2, 2) = ONNXC_WEBP_P(1, 1) = ONNXC_WEBP_P(0, 0) = ONNXC_WEBP_AVG3(A, X, I);
    ONNXC_WEBP_P(3, 2) = ONNXC_WEBP_P(2, 1) = ONNXC_WEBP_P(1, 0) = ONNXC_WEBP_AVG3(B, A, X);
    ONNXC_WEBP_P(3, 1) = ONNXC_WEBP_P(2, 0) = ONNXC_WEBP_AVG3(C, B, A);
    ONNXC_WEBP_P(3, 0) = ONNXC_WEBP_AVG3(D, C, B);
    break;
  case 6: /* VR */
    ONNXC_WEBP_P(0, 0) = ONNXC_WEBP_P(1, 2) = ONNXC_WEBP_AVG2(X, A);
    ONNXC_WEBP_P(1, 0) = ONNXC_WEBP_P(2, 2) = ONNXC_WEBP_AVG2(A, B);
    ONNXC_WEBP_P(2, 0) = ONNXC_WEBP_P(3, 2) = ONNXC_WEBP_AVG2(B, C);
    ONNXC_WEBP_P(3, 0) = ONNXC_WEBP_AVG2(C, D);
    ONNXC_WEBP_P(0, 3) = ONNXC_WEBP_AVG3(K, J, I);
    ONNXC_WEBP_P(0, 2) = ONNXC_WEBP_AVG3(J, I, X);
    ONNXC_WEBP_P(0, 1) = ONNXC_WEBP_P(1, 3) = ONNXC_WEBP_AVG3(I, X, A);
    ONNXC_WEBP_P(1, 1) = ONNXC_WEBP_P(2, 3) = ONNXC_WEBP_AVG3(X, A, B);
    ONNXC_WEBP_P(2, 1) = ONNXC_WEBP_P(3, 3) = ONNXC_WEBP_AVG3(A, B, C);
    ONNXC_WEBP_P(3, 1) = ONNXC_WEBP_AVG3(B, C, D);
    break;
  case 7: /* VL */
    ONNXC_WEBP_P(0, 0) = ONNXC_WEBP_AVG2(A, B);
    ONNXC_WEBP_P(1, 0) = ONNXC_WEBP_P(0, 2) = ONNXC_WEBP_AVG2(B, C);
    ONNXC_WEBP_P(2, 0) = ONNXC_WEBP_P(1, 2) = ONNXC_WEBP_AVG2(C, D);
    ONNXC_WEBP_P(3, 0) = ONNXC_WEBP_P(2, 2) = ONNXC_WEBP_AVG2(D, E);
    ONNXC_WEBP_P(0, 1) = ONNXC_WEBP_AVG3(A, B, C);
    ONNXC_WEBP_P(1, 1) = ONNXC_WEBP_P(0, 3) = ONNXC_WEBP_AVG3(B, C, D);
    ONNXC_WEBP_P(2, 1) = ONNXC_WEBP_P(1, 3) = ONNXC_WEBP_AVG3(C, D, E);
    ONNXC_WEBP_P(3, 1) = ONNXC_WEBP_P(2, 3) = ONNXC_WEBP_AVG3(D, E, F);
    ONNXC_WEBP_P(3, 2) = ONNXC_WEBP_AVG3(E, F, G);
    ONNXC_WEBP_P(3, 3) = ONNXC_WEBP_AVG3(F, G, Hh);
    break;
  case 8: /* HD */
    ONNXC_WEBP_P(0, 0) = ONNXC_WEBP_P(2, 1) = ONNXC_WEBP_AVG2(I, X);
    ONNXC_WEBP_P(0, 1) = ONNXC_WEBP_P(2, 2) = ONNXC_WEBP_AVG2(J, I);
    ONNXC_WEBP_P(0, 2) = ONNXC_WEBP_P(2, 3) = ONNXC_WEBP_AVG2(K, J);
    ONNXC_WEBP_P(0, 3) = ONNXC_WEBP_AVG2(L, K);
    ONNXC_WEBP_P(3, 0) = ONNXC_WEBP_AVG3(A, B, C);
    ONNXC_WEBP_P(2, 0) = ONNXC_WEBP_AVG3(X, A, B);
    ONNXC_WEBP_P(1, 0) = ONNXC_WEBP_P(3, 1) = ONNXC_WEBP_AVG3(I, X, A);
    ONNXC_WEBP_P(1, 1) = ONNXC_WEBP_P(3, 2) = ONNXC_WEBP_AVG3(J, I, X);
    ONNXC_WEBP_P(1, 2) = ONNXC_WEBP_P(3, 3) = ONNXC_WEBP_AVG3(K, J, I);
    ONNXC_WEBP_P(1, 3) = ONNXC_WEBP_AVG3(L, K, J);
    break;
  default: /* HU */
    ONNXC_WEBP_P(0, 0) = ONNXC_WEBP_AVG2(I, J);
    ONNXC_WEBP_P(2, 0) = ONNXC_WEBP_P(0, 1) = ONNXC_WEBP_AVG2(J, K);
    ONNXC_WEBP_P(2, 1) = ONNXC_WEBP_P(0, 2) = ONNXC_WEBP_AVG2(K, L);
    ONNXC_WEBP_P(1, 0) = ONNXC_WEBP_AVG3(I, J, K);
    ONNXC_WEBP_P(3, 0) = ONNXC_WEBP_P(1, 1) = ONNXC_WEBP_AVG3(J, K, L);
    ONNXC_WEBP_P(3, 1) = ONNXC_WEBP_P(1, 2) = ONNXC_WEBP_AVG3(K, L, L);
    ONNXC_WEBP_P(3, 2) = ONNXC_WEBP_P(2, 2) = ONNXC_WEBP_P(0, 3) = ONNXC_WEBP_P(1, 3) = ONNXC_WEBP_P(2, 3) =
        ONNXC_WEBP_P(3, 3) = (unsigned char)L;
    break;
  }
#undef ONNXC_WEBP_P
  for (y = 0; y < 4; y++)
    for (x = 0; x < 4; x++) d[y * 32 + x] = b[y * 4 + x];
}

ONNXC_MAYBE_UNUSED static int onnxc_webp_iabs(int v) { return v < 0 ? -v : v; }
ONNXC_MAYBE_UNUSED static int onnxc_webp_sclip(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* common 2-tap adjustment (p0, q0 only); outer taps included when 'outer' */
ONNXC_WEBP_FN void onnxc_webp_f2(unsigned char *p, int s, int outer) {
  const int p1 = p[-2 * s], p0 = p[-s], q0 = p[0], q1 = p[s];
  const int a = 3 * (q0 - p0) + (outer ? onnxc_webp_sclip(p1 - q1, -128, 127) : 0);
  const int a1 = onnxc_webp_sclip(onnxc_webp_asr(a + 4, 3), -16, 15);
  const int a2 = onnxc_webp_sclip(onnxc_webp_asr(a + 3, 3), -16, 15);
  p[-s] = onnxc_webp_clip8(p0 + a2);
  p[0] = onnxc_webp_clip8(q0 - a1);
  if (!outer) {
    const int a3 = (int)onnxc_webp_asr(a1 + 1, 1);
    p[-2 * s] = onnxc_webp_clip8(p1 + a3);
    p[s] = onnxc_webp_clip8(q1 - a3);
  }
}

ONNXC_WEBP_FN void onnxc_webp_f6(unsigned char *p, int s) {
  const int p2 = p[-3 * s], p1 = p[-2 * s], p0 = p[-s], q0 = p[0], q1 = p[s], q2 = p[2 * s];
  const int a = onnxc_webp_sclip(3 * (q0 - p0) + onnxc_webp_sclip(p1 - q1, -128, 127), -128, 127);
  const int a1 = (int)onnxc_webp_asr(27 * a + 63, 7);
  const int a2 = (int)onnxc_webp_asr(18 * a + 63, 7);
  const int a3 = (int)onnxc_webp_asr(9 * a + 63, 7);
  p[-3 * s] = onnxc_webp_clip8(p2 + a3);
  p[-2 * s] = onnxc_webp_clip8(p1 + a2);
  p[-s] = onnxc_webp_clip8(p0 + a1);
  p[0] = onnxc_webp_clip8(q0 - a1);
  p[s] = onnxc_webp_clip8(q1 - a2);
  p[2 * s] = onnxc_webp_clip8(q2 - a3);
}

/* filters n pixels along an edge: s steps across the edge, along steps along it.  kind 0:
   simple, 1: normal inner edge, 2: normal macroblock edge */
ONNXC_WEBP_FN void onnxc_webp_edge(unsigned char *p, int s, long along, int n, int kind, int thresh,
                                               int ithresh, int hev) {
  const int t2 = 2 * thresh + 1;
  int i;
  for (i = 0; i < n; i++, p += along) {
    const int p1 = p[-2 * s], p0 = p[-s], q0 = p[0], q1 = p[s];
    if (4 * onnxc_webp_iabs(p0 - q0) + onnxc_webp_iabs(p1 - q1) > t2) continue;
    if (kind == 0) {
      onnxc_webp_f2(p, s, 1);
      continue;
    }
    {
      const int p3 = p[-4 * s], p2 = p[-3 * s], q2 = p[2 * s], q3 = p[3 * s];
      if (onnxc_webp_iabs(p3 - p2) > ithresh || onnxc_webp_iabs(p2 - p1) > ithresh || onnxc_webp_iabs(p1 - p0) > ithresh ||
          onnxc_webp_iabs(q3 - q2) > ithresh || onnxc_webp_iabs(q2 - q1) > ithresh || onnxc_webp_iabs(q1 - q0) > ithresh)
        continue;
    }
    if (onnxc_webp_iabs(p1 - p0) > hev || onnxc_webp_iabs(q1 - q0) > hev) onnxc_webp_f2(p, s, 1);
    else if (kind == 2) onnxc_webp_f6(p, s);
    else onnxc_webp_f2(p, s, 0);
  }
}

/* fancy upsampling of one output row: chroma rows nu/nv (nearer) and fu/fv (farther) */
ONNXC_WEBP_FN void onnxc_webp_yuvrow(const unsigned char *yr, const unsigned char *nu, const unsigned char *nv,
                                                 const unsigned char *fu, const unsigned char *fv, unsigned char *o, long W) {
  long x;
  for (x = 0; x < W; x++) {
    int u, v, yy, c;
    const long k = (x + 1) >> 1; /* chroma column on the right of (or at) the sample */
    if (x == 0 || ((W & 1) == 0 && x == W - 1)) {
      const long j = x >> 1;
      u = (3 * nu[j] + fu[j] + 2) >> 2, v = (3 * nv[j] + fv[j] + 2) >> 2;
    } else if (x & 1) { /* 2k - 1: nearer to column k - 1 */
      const int du = (nu[k - 1] + 3 * nu[k] + 3 * fu[k - 1] + fu[k] + 8) >> 3;
      const int dv = (nv[k - 1] + 3 * nv[k] + 3 * fv[k - 1] + fv[k] + 8) >> 3;
      u = (du + nu[k - 1]) >> 1, v = (dv + nv[k - 1]) >> 1;
    } else { /* 2k */
      const int du = (3 * nu[k - 1] + nu[k] + fu[k - 1] + 3 * fu[k] + 8) >> 3;
      const int dv = (3 * nv[k - 1] + nv[k] + fv[k - 1] + 3 * fv[k] + 8) >> 3;
      u = (du + nu[k]) >> 1, v = (dv + nv[k]) >> 1;
    }
    yy = (yr[x] * 19077) >> 8;
    for (c = 0; c < 3; c++) {
      const int t = c == 0 ? yy + ((v * 26149) >> 8) - 14234
                  : c == 1 ? yy - ((u * 6419) >> 8) - ((v * 13320) >> 8) + 8708
                           : yy + ((u * 33050) >> 8) - 17685;
      o[3 * x + c] = (unsigned char)((t & ~16383) == 0 ? t >> 6 : t < 0 ? 0 : 255);
    }
  }
}

/* Decodes the VP8 frame d[0..dn) (dn: the chunk payload, with its pad byte where present). */
ONNXC_MAYBE_UNUSED static int onnxc_webp_vp8(const unsigned char *d, long dn, long psize, unsigned char *rgb, long H,
                                             long W, unsigned char *scr) {
  static const unsigned char bmode_prob[900] = {
    231,120,48,89,115,113,120,152,112,152,179,64,126,170,118,46,70,95,175,69,143,80,85,82,
    72,155,103,56,58,10,171,218,189,17,13,152,144,71,10,38,171,213,144,34,26,114,26,17,
    163,44,195,21,10,173,121,24,80,195,26,62,44,64,85,170,46,55,19,136,160,33,206,71,
    63,20,8,114,114,208,12,9,226,81,40,11,96,182,84,29,16,36,134,183,89,137,98,101,
    106,165,148,72,187,100,130,157,111,32,75,80,66,102,167,99,74,62,40,234,128,41,53,9,
    178,241,141,26,8,107,104,79,12,27,217,255,87,17,7,74,43,26,146,73,166,49,23,157,
    65,38,105,160,51,52,31,115,128,87,68,71,44,114,51,15,186,23,47,41,14,110,182,183,
    21,17,194,66,45,25,102,197,189,23,18,22,88,88,147,150,42,46,45,196,205,43,97,183,
    117,85,38,35,179,61,39,53,200,87,26,21,43,232,171,56,34,51,104,114,102,29,93,77,
    107,54,32,26,51,1,81,43,31,39,28,85,171,58,165,90,98,64,34,22,116,206,23,34,
    43,166,73,68,25,106,22,64,171,36,225,114,34,19,21,102,132,188,16,76,124,62,18,78,
    95,85,57,50,48,51,193,101,35,159,215,111,89,46,111,60,148,31,172,219,228,21,18,111,
    112,113,77,85,179,255,38,120,114,40,42,1,196,245,209,10,25,109,100,80,8,43,154,1,
    51,26,71,88,43,29,140,166,213,37,43,154,61,63,30,155,67,45,68,1,209,142,78,78,
    16,255,128,34,197,171,41,40,5,102,211,183,4,1,221,51,50,17,168,209,192,23,25,82,
    125,98,42,88,104,85,117,175,82,95,84,53,89,128,100,113,101,45,75,79,123,47,51,128,
    81,171,1,57,17,5,71,102,57,53,41,49,115,21,2,10,102,255,166,23,6,38,33,13,
    121,57,73,26,1,85,41,10,67,138,77,110,90,47,114,101,29,16,10,85,128,101,196,26,
    57,18,10,102,102,213,34,20,43,117,20,15,36,163,128,68,1,26,138,31,36,171,27,166,
    38,44,229,67,87,58,169,82,115,26,59,179,63,59,90,180,59,166,93,73,154,40,40,21,
    116,143,209,34,39,175,57,46,22,24,128,1,54,17,37,47,15,16,183,34,223,49,45,183,
    46,17,33,183,6,98,15,32,183,65,32,73,115,28,128,23,128,205,40,3,9,115,51,192,
    18,6,223,87,37,9,115,59,77,64,21,47,104,55,44,218,9,54,53,130,226,64,90,70,
    205,40,41,23,26,57,54,57,112,184,5,41,38,166,213,30,34,26,133,152,116,10,32,134,
    75,32,12,51,192,255,160,43,51,39,19,53,221,26,114,32,73,255,31,9,65,234,2,15,
    1,118,73,88,31,35,67,102,85,55,186,85,56,21,23,111,59,205,45,37,192,55,38,70,
    124,73,102,1,34,98,102,61,71,37,34,53,31,243,192,69,60,71,38,73,119,28,222,37,
    68,45,128,34,1,47,11,245,171,62,17,19,70,146,85,55,62,70,75,15,9,9,64,255,
    184,119,16,37,43,37,154,100,163,85,160,1,63,9,92,136,28,64,32,201,85,86,6,28,
    5,64,255,25,248,1,56,8,17,132,137,255,55,116,128,58,15,20,82,135,57,26,121,40,
    164,50,31,137,154,133,25,35,218,51,103,44,131,131,123,31,6,158,86,40,64,135,148,224,
    45,183,128,22,26,17,131,240,154,14,1,209,83,12,13,54,192,255,68,47,28,45,16,21,
    91,64,222,7,1,197,56,21,39,155,60,138,23,102,213,85,26,85,85,128,128,32,146,171,
    18,11,7,63,144,171,4,4,246,35,27,10,146,174,171,12,26,128,190,80,35,99,180,80,
    126,54,45,85,126,47,87,176,51,41,20,32,101,75,128,139,118,146,116,128,85,56,41,15,
    176,236,85,37,9,62,146,36,19,30,171,255,97,27,20,71,30,17,119,118,255,17,18,138,
    101,38,60,138,55,70,43,26,142,138,45,61,62,219,1,81,188,64,32,41,20,117,151,142,
    20,21,163,112,19,12,61,195,128,48,4,24};
  static const unsigned char upd[1056] = {
    255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,
    255,255,255,255,255,255,255,255,255,176,246,255,255,255,255,255,255,255,255,255,223,241,252,255,
    255,255,255,255,255,255,255,249,253,253,255,255,255,255,255,255,255,255,255,244,252,255,255,255,
    255,255,255,255,255,234,254,254,255,255,255,255,255,255,255,255,253,255,255,255,255,255,255,255,
    255,255,255,255,246,254,255,255,255,255,255,255,255,255,239,253,254,255,255,255,255,255,255,255,
    255,254,255,254,255,255,255,255,255,255,255,255,255,248,254,255,255,255,255,255,255,255,255,251,
    255,254,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,253,254,
    255,255,255,255,255,255,255,255,251,254,254,255,255,255,255,255,255,255,255,254,255,254,255,255,
    255,255,255,255,255,255,255,254,253,255,254,255,255,255,255,255,255,250,255,254,255,254,255,255,
    255,255,255,255,254,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,
    255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,
    217,255,255,255,255,255,255,255,255,255,255,225,252,241,253,255,255,254,255,255,255,255,234,250,
    241,250,253,255,253,254,255,255,255,255,254,255,255,255,255,255,255,255,255,255,223,254,254,255,
    255,255,255,255,255,255,255,238,253,254,254,255,255,255,255,255,255,255,255,248,254,255,255,255,
    255,255,255,255,255,249,254,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,
    255,255,255,255,253,255,255,255,255,255,255,255,255,255,247,254,255,255,255,255,255,255,255,255,
    255,255,255,255,255,255,255,255,255,255,255,255,255,253,254,255,255,255,255,255,255,255,255,252,
    255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,254,254,
    255,255,255,255,255,255,255,255,253,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,
    255,255,255,255,255,255,255,254,253,255,255,255,255,255,255,255,255,250,255,255,255,255,255,255,
    255,255,255,255,254,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,
    255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,
    186,251,250,255,255,255,255,255,255,255,255,234,251,244,254,255,255,255,255,255,255,255,251,251,
    243,253,254,255,254,255,255,255,255,255,253,254,255,255,255,255,255,255,255,255,236,253,254,255,
    255,255,255,255,255,255,255,251,253,253,254,254,255,255,255,255,255,255,255,254,254,255,255,255,
    255,255,255,255,255,254,254,254,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,
    255,255,255,255,254,255,255,255,255,255,255,255,255,255,254,254,255,255,255,255,255,255,255,255,
    255,254,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,254,
    255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,
    255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,
    255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,
    255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,
    255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,
    248,255,255,255,255,255,255,255,255,255,255,250,254,252,254,255,255,255,255,255,255,255,248,254,
    249,253,255,255,255,255,255,255,255,255,253,253,255,255,255,255,255,255,255,255,246,253,253,255,
    255,255,255,255,255,255,255,252,254,251,254,254,255,255,255,255,255,255,255,254,252,255,255,255,
    255,255,255,255,255,248,254,253,255,255,255,255,255,255,255,255,253,255,254,254,255,255,255,255,
    255,255,255,255,251,254,255,255,255,255,255,255,255,255,245,251,254,255,255,255,255,255,255,255,
    255,253,253,254,255,255,255,255,255,255,255,255,255,251,253,255,255,255,255,255,255,255,255,252,
    253,254,255,255,255,255,255,255,255,255,255,254,255,255,255,255,255,255,255,255,255,255,252,255,
    255,255,255,255,255,255,255,255,249,255,254,255,255,255,255,255,255,255,255,255,255,254,255,255,
    255,255,255,255,255,255,255,255,253,255,255,255,255,255,255,255,255,250,255,255,255,255,255,255,
    255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,
    255,255,254,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255};
  static const unsigned char defp[1056] = {
    128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,
    128,128,128,128,128,128,128,128,128,253,136,254,255,228,219,128,128,128,128,128,189,129,242,255,
    227,213,255,219,128,128,128,106,126,227,252,214,209,255,255,128,128,128,1,98,248,255,236,226,
    255,255,128,128,128,181,133,238,254,221,234,255,154,128,128,128,78,134,202,247,198,180,255,219,
    128,128,128,1,185,249,255,243,255,128,128,128,128,128,184,150,247,255,236,224,128,128,128,128,
    128,77,110,216,255,236,230,128,128,128,128,128,1,101,251,255,241,255,128,128,128,128,128,170,
    139,241,252,236,209,255,255,128,128,128,37,116,196,243,228,255,255,255,128,128,128,1,204,254,
    255,245,255,128,128,128,128,128,207,160,250,255,238,128,128,128,128,128,128,102,103,231,255,211,
    171,128,128,128,128,128,1,152,252,255,240,255,128,128,128,128,128,177,135,243,255,234,225,128,
    128,128,128,128,80,129,211,255,194,224,128,128,128,128,128,1,1,255,128,128,128,128,128,128,
    128,128,246,1,255,128,128,128,128,128,128,128,128,255,128,128,128,128,128,128,128,128,128,128,
    198,35,237,223,193,187,162,160,145,155,62,131,45,198,221,172,176,220,157,252,221,1,68,47,
    146,208,149,167,221,162,255,223,128,1,149,241,255,221,224,255,255,128,128,128,184,141,234,253,
    222,220,255,199,128,128,128,81,99,181,242,176,190,249,202,255,255,128,1,129,232,253,214,197,
    242,196,255,255,128,99,121,210,250,201,198,255,202,128,128,128,23,91,163,242,170,187,247,210,
    255,255,128,1,200,246,255,234,255,128,128,128,128,128,109,178,241,255,231,245,255,255,128,128,
    128,44,130,201,253,205,192,255,255,128,128,128,1,132,239,251,219,209,255,165,128,128,128,94,
    136,225,251,218,190,255,255,128,128,128,22,100,174,245,186,161,255,199,128,128,128,1,182,249,
    255,232,235,128,128,128,128,128,124,143,241,255,227,234,128,128,128,128,128,35,77,181,251,193,
    211,255,205,128,128,128,1,157,247,255,236,231,255,255,128,128,128,121,141,235,255,225,227,255,
    255,128,128,128,45,99,188,251,195,217,255,224,128,128,128,1,1,251,255,213,255,128,128,128,
    128,128,203,1,248,255,255,128,128,128,128,128,128,137,1,177,255,224,255,128,128,128,128,128,
    253,9,248,251,207,208,255,192,128,128,128,175,13,224,243,193,185,249,198,255,255,128,73,17,
    171,221,161,179,236,167,255,234,128,1,95,247,253,212,183,255,255,128,128,128,239,90,244,250,
    211,209,255,255,128,128,128,155,77,195,248,188,195,255,255,128,128,128,1,24,239,251,218,219,
    255,205,128,128,128,201,51,219,255,196,186,128,128,128,128,128,69,46,190,239,201,218,255,228,
    128,128,128,1,191,251,255,255,128,128,128,128,128,128,223,165,249,255,213,255,128,128,128,128,
    128,141,124,248,255,255,128,128,128,128,128,128,1,16,248,255,255,128,128,128,128,128,128,190,
    36,230,255,236,255,128,128,128,128,128,149,1,255,128,128,128,128,128,128,128,128,1,226,255,
    128,128,128,128,128,128,128,128,247,192,255,128,128,128,128,128,128,128,128,240,128,255,128,128,
    128,128,128,128,128,128,1,134,252,255,255,128,128,128,128,128,128,213,62,250,255,255,128,128,
    128,128,128,128,55,93,255,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,
    128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,128,
    202,24,213,235,186,191,220,160,240,175,255,126,38,182,232,169,184,228,174,255,187,128,61,46,
    138,219,151,178,240,170,255,216,128,1,112,230,250,199,191,247,159,255,255,128,166,109,228,252,
    211,215,255,174,128,128,128,39,77,162,232,172,180,245,178,255,255,128,1,52,220,246,198,199,
    249,220,255,255,128,124,74,191,243,183,193,250,221,255,255,128,24,71,130,219,154,170,243,182,
    255,255,128,1,182,225,249,219,240,255,224,128,128,128,149,150,226,252,216,205,255,171,128,128,
    128,28,108,170,242,183,194,254,223,255,255,128,1,81,230,252,204,203,255,192,128,128,128,123,
    102,209,247,188,196,255,233,128,128,128,20,95,153,243,164,173,255,203,128,128,128,1,222,248,
    255,216,213,128,128,128,128,128,168,175,246,252,235,205,255,255,128,128,128,47,116,215,255,211,
    212,255,255,128,128,128,1,121,236,253,212,214,255,255,128,128,128,141,84,213,252,201,202,255,
    219,128,128,128,42,80,160,240,162,185,255,205,128,128,128,1,1,255,128,128,128,128,128,128,
    128,128,244,1,255,128,128,128,128,128,128,128,128,238,1,255,128,128,128,128,128,128,128,128};
  static const short qtab[256] = {
    4,5,6,7,8,9,10,10,11,12,13,14,15,16,17,17,18,19,20,20,21,21,22,22,
    23,23,24,25,25,26,27,28,29,30,31,32,33,34,35,36,37,37,38,39,40,41,42,43,
    44,45,46,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64,65,66,
    67,68,69,70,71,72,73,74,75,76,76,77,78,79,80,81,82,83,84,85,86,87,88,89,
    91,93,95,96,98,100,101,102,104,106,108,110,112,114,116,118,122,124,126,128,130,132,134,136,
    138,140,143,145,148,151,154,157,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,
    20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,
    44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,60,62,64,66,68,70,72,74,76,
    78,80,82,84,86,88,90,92,94,96,98,100,102,104,106,108,110,112,114,116,119,122,125,128,
    131,134,137,140,143,146,149,152,155,158,161,164,167,170,173,177,181,185,189,193,197,201,205,209,
    213,217,221,225,229,234,239,245,249,254,259,264,269,274,279,284};
  static const signed char btree[18] = {0, 2, -1, 4, -2, 6, 8, 12, -3, 10, -5, -6, -4, 14, -7, 16, -8, -9};
  onnxc_webp_dec *dc;
  unsigned long bits;
  long w, h, p0len, mbw, mbh, ys, cs, mx, my, i, rest;
  unsigned char *tmode, *tnz, *info, *Y, *U, *V;
  onnxc_webp_br *br;
  int k, s, ftype, q0;
  if (dn < 10 || psize < 10) return ONNXC_IMG_BAD;
  bits = (unsigned long)d[0] | (unsigned long)d[1] << 8 | (unsigned long)d[2] << 16;
  if ((bits & 1) || ((bits >> 1) & 7) > 3 || !((bits >> 4) & 1)) return ONNXC_IMG_BAD; /* key frame, shown */
  p0len = (long)(bits >> 5);
  if (p0len >= psize) return ONNXC_IMG_BAD;
  if (d[3] != 0x9d || d[4] != 0x01 || d[5] != 0x2a) return ONNXC_IMG_BAD;
  w = (long)((d[6] | (unsigned)d[7] << 8) & 0x3fff);
  h = (long)((d[8] | (unsigned)d[9] << 8) & 0x3fff);
  if (w == 0 || h == 0) return ONNXC_IMG_BAD;
  if (w != W || h != H) return ONNXC_IMG_SIZE;
  if (p0len > dn - 10) return ONNXC_IMG_BAD;
  mbw = (w + 15) >> 4, mbh = (h + 15) >> 4;
  /* scratch: the decoder state, then per-column contexts, per-macroblock filter info, planes */
  dc = (onnxc_webp_dec *)(void *)(scr + ((8 - ((uintptr_t)scr & 7)) & 7));
  tmode = (unsigned char *)(dc + 1);
  tnz = tmode + 4 * mbw;
  info = tnz + 9 * mbw;
  Y = info + mbw * mbh;
  ys = mbw * 16, cs = mbw * 8;
  U = Y + ys * mbh * 16;
  V = U + cs * mbh * 8;
  br = &dc->br[0];
  onnxc_webp_br_init(br, d + 10, p0len);
  (void)onnxc_webp_bit(br, 128); /* color space */
  (void)onnxc_webp_bit(br, 128); /* clamping type */
  dc->use_seg = onnxc_webp_bit(br, 128);
  dc->update_map = 0, dc->abs_delta = 1;
  for (k = 0; k < 4; k++) dc->seg_q[k] = dc->seg_lf[k] = dc->ref_lf[k] = dc->mode_lf[k] = 0;
  dc->segp[0] = dc->segp[1] = dc->segp[2] = 255;
  if (dc->use_seg) {
    dc->update_map = onnxc_webp_bit(br, 128);
    if (onnxc_webp_bit(br, 128)) {
      dc->abs_delta = onnxc_webp_bit(br, 128);
      for (k = 0; k < 4; k++) dc->seg_q[k] = onnxc_webp_sval(br, 7);
      for (k = 0; k < 4; k++) dc->seg_lf[k] = onnxc_webp_sval(br, 6);
    }
    if (dc->update_map)
      for (k = 0; k < 3; k++) dc->segp[k] = (unsigned char)(onnxc_webp_bit(br, 128) ? onnxc_webp_lit(br, 8) : 255);
  }
  dc->simple = onnxc_webp_bit(br, 128);
  dc->level = onnxc_webp_lit(br, 6);
  dc->sharp = onnxc_webp_lit(br, 3);
  dc->use_lf_delta = onnxc_webp_bit(br, 128);
  if (dc->use_lf_delta && onnxc_webp_bit(br, 128)) {
    for (k = 0; k < 4; k++) dc->ref_lf[k] = onnxc_webp_sval(br, 6);
    for (k = 0; k < 4; k++) dc->mode_lf[k] = onnxc_webp_sval(br, 6);
  }
  ftype = dc->level == 0 ? 0 : dc->simple ? 1 : 2;
  if (br->eof) return ONNXC_IMG_BAD;
  /* token partitions */
  {
    const unsigned char *pp = d + 10 + p0len;
    long left = dn - 10 - p0len;
    const long last = (1L << onnxc_webp_lit(br, 2)) - 1;
    const unsigned char *sz = pp, *start;
    if (left < 3 * last) return ONNXC_IMG_BAD;
    start = pp + 3 * last;
    left -= 3 * last;
    for (i = 0; i < last; i++, sz += 3) {
      long ps = (long)(sz[0] | (unsigned long)sz[1] << 8 | (unsigned long)sz[2] << 16);
      if (ps > left) ps = left;
      onnxc_webp_br_init(&dc->br[1 + i], start, ps);
      start += ps, left -= ps;
    }
    if (left <= 0) return ONNXC_IMG_BAD;
    onnxc_webp_br_init(&dc->br[1 + last], start, left);
    dc->nparts = (int)last + 1;
  }
  /* quantizers */
  q0 = onnxc_webp_lit(br, 7);
  {
    int dlt[5];
    for (k = 0; k < 5; k++) dlt[k] = onnxc_webp_sval(br, 4);
    for (s = 0; s < 4; s++) {
      int q = dc->use_seg ? dc->seg_q[s] + (dc->abs_delta ? 0 : q0) : q0;
#define ONNXC_WEBP_Q(v, m) ((v) < 0 ? 0 : (v) > (m) ? (m) : (v))
      dc->dq[s][0] = qtab[ONNXC_WEBP_Q(q + dlt[0], 127)];
      dc->dq[s][1] = qtab[128 + ONNXC_WEBP_Q(q, 127)];
      dc->dq[s][2] = qtab[ONNXC_WEBP_Q(q + dlt[1], 127)] * 2;
      dc->dq[s][3] = (qtab[128 + ONNXC_WEBP_Q(q + dlt[2], 127)] * 101581L) >> 16;
      if (dc->dq[s][3] < 8) dc->dq[s][3] = 8;
      dc->dq[s][4] = qtab[ONNXC_WEBP_Q(q + dlt[3], 117)];
      dc->dq[s][5] = qtab[128 + ONNXC_WEBP_Q(q + dlt[4], 127)];
#undef ONNXC_WEBP_Q
    }
  }
  (void)onnxc_webp_bit(br, 128); /* refresh entropy probs */
  for (i = 0; i < 1056; i++)
    (&dc->prob[0][0][0][0])[i] = (unsigned char)(onnxc_webp_bit(br, upd[i]) ? onnxc_webp_lit(br, 8) : defp[i]);
  dc->use_skip = onnxc_webp_bit(br, 128);
  dc->skip_p = dc->use_skip ? onnxc_webp_lit(br, 8) : 0;
  if (br->eof) return ONNXC_IMG_BAD;
  /* filter strengths */
  for (s = 0; s < 4; s++) {
    int base = dc->use_seg ? dc->seg_lf[s] + (dc->abs_delta ? 0 : dc->level) : dc->level;
    for (k = 0; k < 2; k++) {
      int lv = base, il;
      if (dc->use_lf_delta) lv += dc->ref_lf[0] + (k ? dc->mode_lf[0] : 0);
      lv = lv < 0 ? 0 : lv > 63 ? 63 : lv;
      dc->flim[s][k] = 0, dc->filv[s][k] = 0, dc->fhev[s][k] = 0;
      if (lv > 0) {
        il = lv;
        if (dc->sharp > 0) {
          il >>= dc->sharp > 4 ? 2 : 1;
          if (il > 9 - dc->sharp) il = 9 - dc->sharp;
        }
        if (il < 1) il = 1;
        dc->filv[s][k] = il;
        dc->flim[s][k] = 2 * lv + il;
        dc->fhev[s][k] = lv >= 40 ? 2 : lv >= 15 ? 1 : 0;
      }
    }
  }
  for (i = 0; i < 4 * mbw; i++) tmode[i] = 0;
  for (i = 0; i < 9 * mbw; i++) tnz[i] = 0;
  /* macroblocks */
  for (my = 0; my < mbh; my++) {
    onnxc_webp_br *tb = &dc->br[1 + (my & (dc->nparts - 1))];
    for (k = 0; k < 4; k++) dc->lmode[k] = 0;
    for (k = 0; k < 9; k++) dc->lnz[k] = 0;
    for (mx = 0; mx < mbw; mx++) {
      unsigned char modes[16], *tm = tmode + 4 * mx, *tz = tnz + 9 * mx;
      unsigned char *wy = dc->work + 32 + 8, *wu = dc->work + 18 * 32 + 8, *wv = dc->work + 27 * 32 + 8;
      int seg = 0, skip = 0, i4, ymode = 0, uvmode, nzany = 0, x, y;
      const int *dq;
      if (dc->update_map)
        seg = !onnxc_webp_bit(br, dc->segp[0]) ? onnxc_webp_bit(br, dc->segp[1]) : 2 + onnxc_webp_bit(br, dc->segp[2]);
      if (dc->use_skip) skip = onnxc_webp_bit(br, dc->skip_p);
      i4 = !onnxc_webp_bit(br, 145);
      if (!i4) {
        ymode = onnxc_webp_bit(br, 156) ? (onnxc_webp_bit(br, 128) ? 1 : 3) : (onnxc_webp_bit(br, 163) ? 2 : 0);
        for (k = 0; k < 4; k++) tm[k] = dc->lmode[k] = (unsigned char)ymode;
      } else {
        for (y = 0; y < 4; y++) {
          int m = dc->lmode[y];
          for (x = 0; x < 4; x++) {
            const unsigned char *pr = bmode_prob + (tm[x] * 10 + m) * 9;
            int t = 0;
            do t = btree[t + onnxc_webp_bit(br, pr[t >> 1])]; while (t > 0);
            m = -t;
            tm[x] = (unsigned char)m;
            modes[y * 4 + x] = (unsigned char)m;
          }
          dc->lmode[y] = (unsigned char)m;
        }
      }
      uvmode = !onnxc_webp_bit(br, 142) ? 0 : !onnxc_webp_bit(br, 114) ? 2 : onnxc_webp_bit(br, 183) ? 1 : 3;
      /* residuals */
      dq = dc->dq[seg];
      for (i = 0; i < 384; i++) dc->coef[i] = 0;
      if (!skip) {
        int16_t *c = dc->coef;
        int first = 0, t;
        if (!i4) {
          int16_t y2[16];
          for (k = 0; k < 16; k++) y2[k] = 0;
          t = onnxc_webp_coeffs(tb, dc->prob[1], tz[8] + dc->lnz[8], dq[2], dq[3], 0, y2);
          tz[8] = dc->lnz[8] = (unsigned char)(t > 0);
          onnxc_webp_iwht(y2, c);
          first = 1;
        }
        for (y = 0; y < 4; y++)
          for (x = 0; x < 4; x++) {
            int16_t *bl = c + (y * 4 + x) * 16;
            t = onnxc_webp_coeffs(tb, dc->prob[i4 ? 3 : 0], tz[x] + dc->lnz[y], dq[0], dq[1], first, bl);
            tz[x] = dc->lnz[y] = (unsigned char)(t > first);
            if (t > 1 || bl[0] != 0) nzany = 1;
          }
        for (k = 0; k < 8; k++) { /* U blocks 0-3, then V */
          const int cx = 4 + (k >> 2) * 2 + (k & 1), cy = 4 + (k >> 2) * 2 + ((k >> 1) & 1);
          int16_t *bl = c + 256 + k * 16;
          t = onnxc_webp_coeffs(tb, dc->prob[2], tz[cx] + dc->lnz[cy], dq[4], dq[5], 0, bl);
          tz[cx] = dc->lnz[cy] = (unsigned char)(t > 0);
          if (t > 1 || bl[0] != 0) nzany = 1;
        }
        skip = !nzany;
      } else {
        for (k = 0; k < 8; k++) tz[k] = dc->lnz[k] = 0;
        if (!i4) tz[8] = dc->lnz[8] = 0;
      }
      if (tb->eof || br->eof) return ONNXC_IMG_BAD;
      info[my * mbw + mx] = (unsigned char)(seg | (i4 ? 4 : 0) | (i4 || !skip ? 8 : 0));
      /* edges into the work area (unfiltered neighbours; 127 above the frame, 129 left of it) */
      for (y = -1; y < 16; y++) {
        unsigned char *r = wy + y * 32;
        if (y < 0) {
          for (x = -1; x < 20; x++) {
            unsigned char v;
            if (my == 0) v = 127;
            else if (x < 0) v = mx == 0 ? 129 : Y[(my * 16 - 1) * ys + mx * 16 - 1];
            else if (x >= 16 && mx == mbw - 1) v = Y[(my * 16 - 1) * ys + mx * 16 + 15];
            else v = Y[(my * 16 - 1) * ys + mx * 16 + x];
            r[x] = v;
          }
        } else {
          r[-1] = mx == 0 ? 129 : Y[(my * 16 + y) * ys + mx * 16 - 1];
        }
      }
      for (k = 0; k < 2; k++) {
        unsigned char *wc = k ? wv : wu, *P = k ? V : U;
        for (y = -1; y < 8; y++) {
          unsigned char *r = wc + y * 32;
          if (y < 0) {
            for (x = -1; x < 8; x++)
              r[x] = my == 0 ? 127 : x < 0 ? (mx == 0 ? 129 : P[(my * 8 - 1) * cs + mx * 8 - 1]) : P[(my * 8 - 1) * cs + mx * 8 + x];
          } else {
            r[-1] = mx == 0 ? 129 : P[(my * 8 + y) * cs + mx * 8 - 1];
          }
        }
      }
      if (i4) {
        for (y = 3; y < 12; y += 4)
          for (x = 16; x < 20; x++) wy[y * 32 + x] = wy[x - 32];
        for (k = 0; k < 16; k++) {
          unsigned char *o = wy + (k >> 2) * 4 * 32 + (k & 3) * 4;
          onnxc_webp_pred4(o, modes[k]);
          onnxc_webp_idct(dc->coef + k * 16, o, 32);
        }
      } else {
        onnxc_webp_pred_big(wy, 16, ymode, ymode == 0 ? (my > 0) | (mx > 0) << 1 : 3);
        for (k = 0; k < 16; k++) onnxc_webp_idct(dc->coef + k * 16, wy + (k >> 2) * 4 * 32 + (k & 3) * 4, 32);
      }
      onnxc_webp_pred_big(wu, 8, uvmode, uvmode == 0 ? (my > 0) | (mx > 0) << 1 : 3);
      onnxc_webp_pred_big(wv, 8, uvmode, uvmode == 0 ? (my > 0) | (mx > 0) << 1 : 3);
      for (k = 0; k < 4; k++) {
        onnxc_webp_idct(dc->coef + 256 + k * 16, wu + (k >> 1) * 4 * 32 + (k & 1) * 4, 32);
        onnxc_webp_idct(dc->coef + 320 + k * 16, wv + (k >> 1) * 4 * 32 + (k & 1) * 4, 32);
      }
      for (y = 0; y < 16; y++)
        for (x = 0; x < 16; x++) Y[(my * 16 + y) * ys + mx * 16 + x] = wy[y * 32 + x];
      for (y = 0; y < 8; y++)
        for (x = 0; x < 8; x++) {
          U[(my * 8 + y) * cs + mx * 8 + x] = wu[y * 32 + x];
          V[(my * 8 + y) * cs + mx * 8 + x] = wv[y * 32 + x];
        }
    }
  }
  /* loop filter over the whole frame, macroblocks in raster order */
  if (ftype)
    for (my = 0; my < mbh; my++)
      for (mx = 0; mx < mbw; mx++) {
        const int f = info[my * mbw + mx], sg = f & 3, i4 = (f >> 2) & 1, inner = (f >> 3) & 1;
        const int lim = dc->flim[sg][i4], il = dc->filv[sg][i4], hv = dc->fhev[sg][i4];
        unsigned char *yp = Y + my * 16 * ys + mx * 16, *up = U + my * 8 * cs + mx * 8, *vp = V + my * 8 * cs + mx * 8;
        if (lim == 0) continue;
        if (ftype == 1) {
          if (mx > 0) onnxc_webp_edge(yp, 1, ys, 16, 0, lim + 4, 0, 0);
          if (inner)
            for (k = 4; k < 16; k += 4) onnxc_webp_edge(yp + k, 1, ys, 16, 0, lim, 0, 0);
          if (my > 0) onnxc_webp_edge(yp, (int)ys, 1, 16, 0, lim + 4, 0, 0);
          if (inner)
            for (k = 4; k < 16; k += 4) onnxc_webp_edge(yp + k * ys, (int)ys, 1, 16, 0, lim, 0, 0);
        } else {
          if (mx > 0) {
            onnxc_webp_edge(yp, 1, ys, 16, 2, lim + 4, il, hv);
            onnxc_webp_edge(up, 1, cs, 8, 2, lim + 4, il, hv);
            onnxc_webp_edge(vp, 1, cs, 8, 2, lim + 4, il, hv);
          }
          if (inner) {
            for (k = 4; k < 16; k += 4) onnxc_webp_edge(yp + k, 1, ys, 16, 1, lim, il, hv);
            onnxc_webp_edge(up + 4, 1, cs, 8, 1, lim, il, hv);
            onnxc_webp_edge(vp + 4, 1, cs, 8, 1, lim, il, hv);
          }
          if (my > 0) {
            onnxc_webp_edge(yp, (int)ys, 1, 16, 2, lim + 4, il, hv);
            onnxc_webp_edge(up, (int)cs, 1, 8, 2, lim + 4, il, hv);
            onnxc_webp_edge(vp, (int)cs, 1, 8, 2, lim + 4, il, hv);
          }
          if (inner) {
            for (k = 4; k < 16; k += 4) onnxc_webp_edge(yp + k * ys, (int)ys, 1, 16, 1, lim, il, hv);
            onnxc_webp_edge(up + 4 * cs, (int)cs, 1, 8, 1, lim, il, hv);
            onnxc_webp_edge(vp + 4 * cs, (int)cs, 1, 8, 1, lim, il, hv);
          }
        }
      }
  /* fancy upsampling and conversion to RGB */
  rest = (h + 1) / 2 - 1; /* the last chroma row */
  for (i = 0; i < h; i++) {
    long nr, fr;
    if (i == 0) nr = fr = 0;
    else if (i & 1) nr = (i - 1) >> 1, fr = (i + 1) >> 1;
    else nr = i >> 1, fr = (i >> 1) - 1;
    if (fr > rest) fr = nr;
    onnxc_webp_yuvrow(Y + i * ys, U + nr * cs, V + nr * cs, U + fr * cs, V + fr * cs, rgb + i * w * 3, w);
  }
  return 0;
}

/* ---- WebP, lossless (VP8L) ---- */

/* LSB-first bit reader.  Past the end it reads zeros and sets eos once a bit beyond the data was
   consumed; libwebp refuses such a stream, and so does this decoder. */
typedef struct onnxc_webp_lbr {
  const unsigned char *s;
  long n, pos;
  uint32_t val;
  int nb, pad, eos;
} onnxc_webp_lbr;

ONNXC_WEBP_FN uint32_t onnxc_webp_rb(onnxc_webp_lbr *b, int k) {
  uint32_t v;
  while (b->nb < k) {
    if (b->pos < b->n) b->val |= (uint32_t)b->s[b->pos++] << b->nb;
    else if (b->pad < 8) b->pad++;
    b->nb += 8;
  }
  v = k ? b->val & (0xffffffffUL >> (32 - k)) : 0;
  b->val = k < 32 ? b->val >> k : 0;
  b->nb -= k;
  if (b->nb < 8 * b->pad) b->eos = 1;
  return v;
}

/* Huffman codes live in a pool of uint16: counts[0..15] (counts[0] = 1: a single symbol, no
   bits), then the symbols by (length, value). */
typedef struct onnxc_webp_ll {
  onnxc_webp_lbr b;
  uint16_t *pool;
  long pool_cap, pool_used;
  unsigned char len[2328];
} onnxc_webp_ll;
/* with the cache and color map it fits the formula's fixed 16384 bytes beside the pool */
typedef char onnxc_webp_ll_fits[sizeof(onnxc_webp_ll) + 8 + 8192 + 1024 + 64 <= 16384 ? 1 : -1];

ONNXC_WEBP_FN int onnxc_webp_lsym(onnxc_webp_lbr *b, const uint16_t *c) {
  long code = 0, first = 0, idx = 0;
  int l;
  if (c[0]) return c[16];
  for (l = 1; l < 16; l++) {
    code |= (long)onnxc_webp_rb(b, 1);
    if (code - first < c[l]) return c[16 + idx + code - first];
    idx += c[l];
    first = (first + c[l]) << 1;
    code <<= 1;
  }
  return -1;
}

/* Builds the code of len[0..A) at the pool's end: its offset, or -1 (invalid, or no room) */
ONNXC_WEBP_FN long onnxc_webp_lbuild(onnxc_webp_ll *L, const unsigned char *len, int A) {
  uint16_t *c;
  long off[16], left = 1, nz = 0;
  int i, l;
  if (L->pool_cap - L->pool_used < 16 + (long)A) return -1;
  c = L->pool + L->pool_used;
  for (l = 0; l < 16; l++) c[l] = 0;
  for (i = 0; i < A; i++)
    if (len[i]) c[len[i]]++, nz++;
  if (nz == 0) return -1;
  if (nz == 1) {
    for (i = 0; i < A; i++)
      if (len[i]) c[16] = (uint16_t)i;
    for (l = 1; l < 16; l++) c[l] = 0;
    c[0] = 1;
  } else {
    for (l = 1; l < 16; l++) {
      left = 2 * left - c[l];
      if (left < 0) return -1;
    }
    if (left != 0) return -1;
    off[1] = 0;
    for (l = 1; l < 15; l++) off[l + 1] = off[l] + c[l];
    for (i = 0; i < A; i++)
      if (len[i]) c[16 + off[len[i]]++] = (uint16_t)i;
  }
  L->pool_used += 16 + (nz == 1 ? 1 : nz);
  return (long)(c - L->pool);
}

/* ReadHuffmanCode: the code for an alphabet of A symbols */
ONNXC_WEBP_FN long onnxc_webp_lcode(onnxc_webp_ll *L, int A) {
  static const unsigned char order[19] = {17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
  onnxc_webp_lbr *b = &L->b;
  unsigned char *len = L->len;
  int i;
  for (i = 0; i < A; i++) len[i] = 0;
  if (onnxc_webp_rb(b, 1)) {
    const int ns = (int)onnxc_webp_rb(b, 1) + 1;
    const int s0 = (int)onnxc_webp_rb(b, onnxc_webp_rb(b, 1) ? 8 : 1);
    if (s0 < A) len[s0] = 1;
    if (ns == 2) {
      const int s1 = (int)onnxc_webp_rb(b, 8);
      if (s1 < A) len[s1] = 1;
    }
  } else {
    unsigned char cl[19];
    long lc, save = L->pool_used;
    int nc = (int)onnxc_webp_rb(b, 4) + 4, maxs, sym = 0, prev = 8;
    for (i = 0; i < 19; i++) cl[i] = 0;
    for (i = 0; i < nc; i++) cl[order[i]] = (unsigned char)onnxc_webp_rb(b, 3);
    lc = onnxc_webp_lbuild(L, cl, 19);
    if (lc < 0) return -1;
    if (onnxc_webp_rb(b, 1)) {
      const int nb = 2 + 2 * (int)onnxc_webp_rb(b, 3);
      maxs = 2 + (int)onnxc_webp_rb(b, nb);
      if (maxs > A) return -1;
    } else {
      maxs = A;
    }
    while (sym < A) {
      int c;
      if (maxs-- == 0) break;
      c = onnxc_webp_lsym(b, L->pool + lc);
      if (c < 0 || b->eos) return -1;
      if (c < 16) {
        len[sym++] = (unsigned char)c;
        if (c) prev = c;
      } else {
        const int rep = (int)onnxc_webp_rb(b, c == 16 ? 2 : c == 17 ? 3 : 7) + (c == 18 ? 11 : 3);
        const int v = c == 16 ? prev : 0;
        if (sym + rep > A) return -1;
        for (i = 0; i < rep; i++) len[sym++] = (unsigned char)v;
      }
    }
    L->pool_used = save;
  }
  if (L->b.eos) return -1;
  return onnxc_webp_lbuild(L, len, A);
}

ONNXC_WEBP_FN uint32_t onnxc_webp_lcopylen(onnxc_webp_lbr *b, int sym) {
  int eb;
  if (sym < 4) return (uint32_t)sym + 1;
  eb = (sym - 2) >> 1;
  return ((uint32_t)(2 + (sym & 1)) << eb) + onnxc_webp_rb(b, eb) + 1;
}

/* Decodes w x h pixels into out.  codes: 5 pool offsets per group; meta (dense group per block
   of 2^mb x 2^mb pixels, mw blocks a row) or NULL; cache: 2^cb entries, cb 0 for none. */
ONNXC_WEBP_FN int onnxc_webp_lpixels(onnxc_webp_ll *L, uint32_t *out, long w, long h, const uint32_t *codes,
                                                 const uint32_t *meta, int mb, long mw, uint32_t *cache, int cb) {
  static const signed char dx[120] = {0, 1, 1, -1, 0, 2, 1, -1, 2, -2, 2, -2, 0, 3, 1, -1, 3, -3, 2, -2, 3, -3, 0, 4,
                                      1, -1, 4, -4, 3, -3, 2, -2, 4, -4, 0, 3, -3, 4, -4, 5, 1, -1, 5, -5, 2, -2, 5, -5,
                                      4, -4, 3, -3, 5, -5, 0, 6, 1, -1, 6, -6, 2, -2, 6, -6, 4, -4, 5, -5, 3, -3, 6, -6,
                                      0, 7, 1, -1, 5, -5, 7, -7, 4, -4, 6, -6, 2, -2, 7, -7, 3, -3, 7, -7, 5, -5, 6, -6,
                                      8, 4, -4, 7, -7, 8, 8, 6, -6, 8, 5, -5, 7, -7, 8, 6, -6, 7, -7, 8, 7, -7, 8, 8};
  static const unsigned char dy[120] = {1, 0, 1, 1, 2, 0, 2, 2, 1, 1, 2, 2, 3, 0, 3, 3, 1, 1, 3, 3, 2, 2, 4, 0,
                                        4, 4, 1, 1, 3, 3, 4, 4, 2, 2, 5, 4, 4, 3, 3, 0, 5, 5, 1, 1, 5, 5, 2, 2,
                                        4, 4, 5, 5, 3, 3, 6, 0, 6, 6, 1, 1, 6, 6, 2, 2, 5, 5, 4, 4, 6, 6, 3, 3,
                                        7, 0, 7, 7, 5, 5, 1, 1, 6, 6, 4, 4, 7, 7, 2, 2, 7, 7, 3, 3, 6, 6, 5, 5,
                                        0, 7, 7, 4, 4, 1, 2, 6, 6, 3, 7, 7, 5, 5, 4, 7, 7, 6, 6, 5, 7, 7, 6, 7};
  onnxc_webp_lbr *b = &L->b;
  const long total = w * h;
  long pos = 0, cached = 0;
  if (cb) /* a look-up of an entry no pixel has set yet gives 0 (libwebp's cache starts zeroed) */
    for (pos = 0; pos < (1L << cb); pos++) cache[pos] = 0;
  pos = 0;
  while (pos < total) {
    const long x = pos % w, y = pos / w;
    const uint32_t *g = codes + 5 * (meta ? (long)meta[(y >> mb) * mw + (x >> mb)] : 0);
    const int code = onnxc_webp_lsym(b, L->pool + g[0]);
    if (code < 0 || b->eos) return -1;
    if (code < 256) {
      const int r = onnxc_webp_lsym(b, L->pool + g[1]);
      const int bl = onnxc_webp_lsym(b, L->pool + g[2]);
      const int a = onnxc_webp_lsym(b, L->pool + g[3]);
      if (r < 0 || bl < 0 || a < 0) return -1;
      out[pos++] = (uint32_t)a << 24 | (uint32_t)r << 16 | (uint32_t)code << 8 | (uint32_t)bl;
    } else if (code < 280) {
      const uint32_t len = onnxc_webp_lcopylen(b, code - 256);
      const int ds = onnxc_webp_lsym(b, L->pool + g[4]);
      uint32_t dist, k;
      if (ds < 0) return -1;
      dist = onnxc_webp_lcopylen(b, ds);
      if (dist > 120) {
        dist -= 120;
      } else {
        const long dd = (long)dx[dist - 1] + (long)dy[dist - 1] * w;
        dist = dd >= 1 ? (uint32_t)dd : 1;
      }
      if (b->eos || (long)dist > pos || (long)len > total - pos) return -1;
      for (k = 0; k < len; k++, pos++) out[pos] = out[pos - (long)dist];
    } else {
      if (!cb || code - 280 >= (1 << cb)) return -1;
      while (cached < pos) { /* bring the cache up to date before a look-up */
        cache[(uint32_t)(out[cached] * 0x1e35a7bdUL) >> (32 - cb)] = out[cached];
        cached++;
      }
      out[pos++] = cache[code - 280];
    }
    if (cb)
      while (cached < pos) {
        cache[(uint32_t)(out[cached] * 0x1e35a7bdUL) >> (32 - cb)] = out[cached];
        cached++;
      }
  }
  return b->eos ? -1 : 0;
}

/* reads a group of 5 codes into codes[0..4] (cache symbols extend the green alphabet) */
ONNXC_WEBP_FN int onnxc_webp_lgroup(onnxc_webp_ll *L, uint32_t *codes, int cb) {
  int j;
  for (j = 0; j < 5; j++) {
    const int A = j == 0 ? 280 + (cb ? 1 << cb : 0) : j == 4 ? 40 : 256;
    const long c = onnxc_webp_lcode(L, A);
    if (c < 0) return -1;
    codes[j] = (uint32_t)c;
  }
  return 0;
}

/* A sub-image (transform data, color table, Huffman image): cache bits, one group, pixels. */
ONNXC_WEBP_FN int onnxc_webp_lsub(onnxc_webp_ll *L, uint32_t *out, long w, long h, uint32_t *cache) {
  uint32_t codes[5];
  const long save = L->pool_used;
  int cb = 0, r;
  if (onnxc_webp_rb(&L->b, 1)) {
    cb = (int)onnxc_webp_rb(&L->b, 4);
    if (cb < 1 || cb > 11) return -1;
  }
  if (onnxc_webp_lgroup(L, codes, cb)) return -1;
  r = onnxc_webp_lpixels(L, out, w, h, codes, 0, 0, 0, cache, cb);
  L->pool_used = save;
  return r;
}

ONNXC_MAYBE_UNUSED static uint32_t onnxc_webp_ladd(uint32_t a, uint32_t b) {
  return (((a & 0xff00ff00UL) + (b & 0xff00ff00UL)) & 0xff00ff00UL) | (((a & 0x00ff00ffUL) + (b & 0x00ff00ffUL)) & 0x00ff00ffUL);
}
ONNXC_MAYBE_UNUSED static uint32_t onnxc_webp_lavg(uint32_t a, uint32_t b) {
  return (((a ^ b) & 0xfefefefeUL) >> 1) + (a & b);
}
ONNXC_MAYBE_UNUSED static int onnxc_webp_lch(uint32_t p, int k) { return (int)((p >> (8 * k)) & 0xff); }

/* predictor mode m for the pixel with left L, top T, top-left TL, top-right TR */
ONNXC_WEBP_FN uint32_t onnxc_webp_lpred(int m, uint32_t L, uint32_t T, uint32_t TL, uint32_t TR) {
  int k;
  uint32_t r = 0;
  switch (m) {
  case 1: return L;
  case 2: return T;
  case 3: return TR;
  case 4: return TL;
  case 5: return onnxc_webp_lavg(onnxc_webp_lavg(L, TR), T);
  case 6: return onnxc_webp_lavg(L, TL);
  case 7: return onnxc_webp_lavg(L, T);
  case 8: return onnxc_webp_lavg(TL, T);
  case 9: return onnxc_webp_lavg(T, TR);
  case 10: return onnxc_webp_lavg(onnxc_webp_lavg(L, TL), onnxc_webp_lavg(T, TR));
  case 11: {
    int d = 0;
    for (k = 0; k < 4; k++) {
      d += onnxc_webp_iabs(onnxc_webp_lch(L, k) - onnxc_webp_lch(TL, k)) - onnxc_webp_iabs(onnxc_webp_lch(T, k) - onnxc_webp_lch(TL, k));
    }
    return d <= 0 ? T : L;
  }
  case 12:
    for (k = 0; k < 4; k++)
      r |= (uint32_t)onnxc_webp_sclip(onnxc_webp_lch(L, k) + onnxc_webp_lch(T, k) - onnxc_webp_lch(TL, k), 0, 255) << (8 * k);
    return r;
  case 13: {
    const uint32_t a = onnxc_webp_lavg(L, T);
    for (k = 0; k < 4; k++) {
      const int ak = onnxc_webp_lch(a, k), d = ak - onnxc_webp_lch(TL, k);
      r |= (uint32_t)onnxc_webp_sclip(ak + (d >= 0 ? d / 2 : -(-d / 2)), 0, 255) << (8 * k);
    }
    return r;
  }
  default: return 0xff000000UL;
  }
}

ONNXC_WEBP_FN void onnxc_webp_lsift(uint32_t *a, long root, long end) {
  for (;;) {
    long c = 2 * root + 1;
    uint32_t t;
    if (c >= end) return;
    if (c + 1 < end && a[c + 1] > a[c]) c++;
    if (a[root] >= a[c]) return;
    t = a[root], a[root] = a[c], a[c] = t;
    root = c;
  }
}

ONNXC_MAYBE_UNUSED static int onnxc_webp_s8(uint32_t v) { return (int)(v & 0xff) >= 128 ? (int)(v & 0xff) - 256 : (int)(v & 0xff); }

/* Decodes the VP8L bitstream d[0..dn) into rgb. */
ONNXC_MAYBE_UNUSED static int onnxc_webp_vp8l(const unsigned char *d, long dn, unsigned char *rgb, long H, long W,
                                              unsigned char *scr, long cap) {
  onnxc_webp_ll *L;
  onnxc_webp_lbr *b;
  uint32_t *argb, *cache, *tdata[4], *meta = 0;
  long w, h, xs, i, used, tx[4];
  uint32_t *codes;
  int nt = 0, ttype[4], tbits[4], seen = 0, cb = 0, mb = 0;
  long mw = 0;
  unsigned char *base = scr + ((8 - ((uintptr_t)scr & 7)) & 7);
  if (dn < 5 || d[0] != 0x2f) return ONNXC_IMG_BAD;
  L = (onnxc_webp_ll *)(void *)base;
  b = &L->b;
  b->s = d + 1, b->n = dn - 1, b->pos = 0, b->val = 0, b->nb = 0, b->pad = 0, b->eos = 0;
  w = (long)onnxc_webp_rb(b, 14) + 1;
  h = (long)onnxc_webp_rb(b, 14) + 1;
  (void)onnxc_webp_rb(b, 1);
  if (onnxc_webp_rb(b, 3) != 0) return ONNXC_IMG_BAD;
  if (w != W || h != H) return ONNXC_IMG_SIZE;
  /* scratch: the state, the color cache, the image, then sub-images and codes as they come */
  used = (long)((sizeof(onnxc_webp_ll) + 7) / 8 * 8);
  cache = (uint32_t *)(void *)(base + used);
  used += 4 * 2048;
  argb = (uint32_t *)(void *)(base + used);
  used += 4 * w * h;
  cap -= (long)(base - scr);
  L->pool = (uint16_t *)(void *)(base + used);
  L->pool_cap = 8 * dn + 16384;
  L->pool_used = 0;
  used += 2 * L->pool_cap;
#define ONNXC_WEBP_ALLOC(ptr, type, count)                                          \
  do {                                                                              \
    if ((cap - used) / (long)sizeof(type) < (long)(count)) return ONNXC_IMG_BAD;    \
    ptr = (type *)(void *)(base + used);                                            \
    used += ((long)(count) * (long)sizeof(type) + 7) / 8 * 8;                       \
  } while (0)
  if (used > cap) return ONNXC_IMG_BAD;
  xs = w;
  while (onnxc_webp_rb(b, 1)) {
    const int t = (int)onnxc_webp_rb(b, 2);
    if (seen & (1 << t)) return ONNXC_IMG_BAD;
    seen |= 1 << t;
    ttype[nt] = t, tx[nt] = xs, tbits[nt] = 0, tdata[nt] = 0;
    if (t == 0 || t == 1) {
      const int bits = (int)onnxc_webp_rb(b, 3) + 2;
      const long tw = (xs + (1L << bits) - 1) >> bits, th = (h + (1L << bits) - 1) >> bits;
      tbits[nt] = bits;
      ONNXC_WEBP_ALLOC(tdata[nt], uint32_t, tw * th);
      if (onnxc_webp_lsub(L, tdata[nt], tw, th, cache)) return ONNXC_IMG_BAD;
    } else if (t == 3) {
      const int nc = (int)onnxc_webp_rb(b, 8) + 1;
      const int bits = nc > 16 ? 0 : nc > 4 ? 1 : nc > 2 ? 2 : 3;
      uint32_t *cm;
      ONNXC_WEBP_ALLOC(cm, uint32_t, 256);
      if (onnxc_webp_lsub(L, cm, nc, 1, cache)) return ONNXC_IMG_BAD;
      for (i = 1; i < nc; i++) cm[i] = onnxc_webp_ladd(cm[i], cm[i - 1]);
      for (i = nc; i < 256; i++) cm[i] = 0;
      tbits[nt] = bits, tdata[nt] = cm;
      xs = (xs + (1L << bits) - 1) >> bits;
    }
    nt++;
  }
  /* the main image: color cache, meta codes, codes, pixels */
  if (onnxc_webp_rb(b, 1)) {
    cb = (int)onnxc_webp_rb(b, 4);
    if (cb < 1 || cb > 11) return ONNXC_IMG_BAD;
  }
  if (onnxc_webp_rb(b, 1)) {
    long mh, npx, j, nu = 0, k = 0;
    uint32_t *srt, maxg = 0;
    mb = (int)onnxc_webp_rb(b, 3) + 2;
    mw = (xs + (1L << mb) - 1) >> mb, mh = (h + (1L << mb) - 1) >> mb;
    npx = mw * mh;
    ONNXC_WEBP_ALLOC(meta, uint32_t, npx);
    ONNXC_WEBP_ALLOC(srt, uint32_t, npx);
    if (onnxc_webp_lsub(L, meta, mw, mh, cache)) return ONNXC_IMG_BAD;
    for (i = 0; i < npx; i++) {
      meta[i] = (meta[i] >> 8) & 0xffff, srt[i] = meta[i];
      if (meta[i] > maxg) maxg = meta[i];
    }
    /* heap sort of the group numbers, then the distinct ones */
    for (i = npx / 2 - 1; i >= 0; i--) onnxc_webp_lsift(srt, i, npx);
    for (i = npx - 1; i > 0; i--) {
      const uint32_t t = srt[0];
      srt[0] = srt[i], srt[i] = t;
      onnxc_webp_lsift(srt, 0, i);
    }
    for (i = 0; i < npx; i++)
      if (nu == 0 || srt[i] != srt[nu - 1]) srt[nu++] = srt[i];
    ONNXC_WEBP_ALLOC(codes, uint32_t, 5 * nu);
    /* every group's codes are read, in order; the used ones are kept */
    for (j = 0; j <= (long)maxg; j++) {
      if (k < nu && srt[k] == (uint32_t)j) {
        if (onnxc_webp_lgroup(L, codes + 5 * k, cb)) return ONNXC_IMG_BAD;
        k++;
      } else {
        uint32_t tmp[5];
        const long save = L->pool_used;
        if (onnxc_webp_lgroup(L, tmp, cb)) return ONNXC_IMG_BAD;
        L->pool_used = save;
      }
    }
    for (i = 0; i < npx; i++) { /* group numbers to dense indices */
      long lo = 0, hi = nu - 1;
      while (lo < hi) {
        const long mid = (lo + hi) / 2;
        if (srt[mid] < meta[i]) lo = mid + 1;
        else hi = mid;
      }
      meta[i] = (uint32_t)lo;
    }
  } else {
    ONNXC_WEBP_ALLOC(codes, uint32_t, 5);
    if (onnxc_webp_lgroup(L, codes, cb)) return ONNXC_IMG_BAD;
  }
#undef ONNXC_WEBP_ALLOC
  if (onnxc_webp_lpixels(L, argb, xs, h, codes, meta, mb, mw, cache, cb)) return ONNXC_IMG_BAD;
  /* inverse transforms, last read first */
  while (nt-- > 0) {
    const long tw = tx[nt], bits = tbits[nt], bw = (tw + (1L << bits) - 1) >> bits;
    const uint32_t *td = tdata[nt];
    long x, y;
    if (ttype[nt] == 0) {
      for (y = 0; y < h; y++)
        for (x = 0; x < tw; x++) {
          uint32_t *p = argb + y * tw + x, pr;
          if (y == 0) pr = x == 0 ? 0xff000000UL : p[-1];
          else if (x == 0) pr = p[-tw];
          else pr = onnxc_webp_lpred((int)((td[(y >> bits) * bw + (x >> bits)] >> 8) & 0xf), p[-1], p[-tw], p[-tw - 1], p[-tw + 1]);
          *p = onnxc_webp_ladd(*p, pr);
        }
    } else if (ttype[nt] == 1) {
      for (y = 0; y < h; y++)
        for (x = 0; x < tw; x++) {
          uint32_t *p = argb + y * tw + x;
          const uint32_t m = td[(y >> bits) * bw + (x >> bits)];
          const int g = onnxc_webp_s8(*p >> 8);
          const long nr = ((long)((*p >> 16) & 0xff) + onnxc_webp_asr((long)onnxc_webp_s8(m) * g, 5)) & 0xff;
          long nb = (long)(*p & 0xff) + onnxc_webp_asr((long)onnxc_webp_s8(m >> 8) * g, 5);
          nb += onnxc_webp_asr((long)onnxc_webp_s8(m >> 16) * onnxc_webp_s8((uint32_t)nr), 5);
          *p = (*p & 0xff00ff00UL) | (uint32_t)nr << 16 | (uint32_t)(nb & 0xff);
        }
    } else if (ttype[nt] == 2) {
      for (i = 0; i < h * tw; i++) {
        const uint32_t g = (argb[i] >> 8) & 0xff;
        argb[i] = onnxc_webp_ladd(argb[i], g << 16 | g);
      }
    } else {
      const long pw = bw, bpp = 8 >> bits, per = 1L << bits;
      for (y = h - 1; y >= 0; y--)
        for (x = tw - 1; x >= 0; x--) {
          const uint32_t packed = argb[y * pw + (x >> bits)];
          const uint32_t idx = (packed >> (8 + bpp * (x & (per - 1)))) & ((1UL << bpp) - 1);
          argb[y * tw + x] = td[idx];
        }
    }
  }
  for (i = 0; i < w * h; i++) {
    rgb[3 * i] = (unsigned char)(argb[i] >> 16);
    rgb[3 * i + 1] = (unsigned char)(argb[i] >> 8);
    rgb[3 * i + 2] = (unsigned char)argb[i];
  }
  return 0;
}

ONNXC_MAYBE_UNUSED static unsigned long onnxc_webp_le32(const unsigned char *p) {
  return (unsigned long)p[0] | (unsigned long)p[1] << 8 | (unsigned long)p[2] << 16 | (unsigned long)p[3] << 24;
}
ONNXC_MAYBE_UNUSED static int onnxc_webp_tag(const unsigned char *p, const char *t) {
  return p[0] == (unsigned char)t[0] && p[1] == (unsigned char)t[1] && p[2] == (unsigned char)t[2] && p[3] == (unsigned char)t[3];
}

/* Decodes the RIFF/WEBP file s[0..n) into rgb (H x W x 3).  The container is checked as
   libwebp's demuxer (which Pillow uses) checks it. */
ONNXC_MAYBE_UNUSED static int onnxc_img_webp(const unsigned char *s, long n, unsigned char *rgb, long H, long W,
                                             unsigned char *scr) {
  unsigned long riff;
  long end, pos, img = -1, isz = 0, ipad = 0, cw = 0, ch = 0;
  int ext = 0, lossless = 0, alph = 0;
  if (n < 12 || !onnxc_webp_tag(s, "RIFF") || !onnxc_webp_tag(s + 8, "WEBP")) return ONNXC_IMG_BAD;
  riff = onnxc_webp_le32(s + 4);
  if (riff < 12 || riff > (unsigned long)(n - 8)) return ONNXC_IMG_BAD;
  end = (long)riff + 8;
  pos = 12;
  while (pos < end) {
    unsigned long sz;
    long pad;
    const unsigned char *c = s + pos;
    if (end - pos < 8) return ONNXC_IMG_BAD;
    sz = onnxc_webp_le32(c + 4);
    if (sz > (unsigned long)(end - pos - 8)) return ONNXC_IMG_BAD;
    pad = (long)sz + (long)(sz & 1);
    if (pad > end - pos - 8) return ONNXC_IMG_BAD;
    if (pos == 12) {
      if (onnxc_webp_tag(c, "VP8X")) {
        if (sz < 10) return ONNXC_IMG_BAD;
        if (c[8] & 2) return ONNXC_IMG_BAD; /* animation */
        ext = 1;
        cw = 1 + (long)(c[12] | (unsigned long)c[13] << 8 | (unsigned long)c[14] << 16);
        ch = 1 + (long)(c[15] | (unsigned long)c[16] << 8 | (unsigned long)c[17] << 16);
        pos += 8 + pad;
        continue;
      }
      if (!onnxc_webp_tag(c, "VP8 ") && !onnxc_webp_tag(c, "VP8L")) return ONNXC_IMG_BAD;
    }
    if (onnxc_webp_tag(c, "VP8 ") || onnxc_webp_tag(c, "VP8L")) {
      if (img >= 0) {
        if (ext) return ONNXC_IMG_BAD;
        break; /* a simple file ends with its image */
      }
      lossless = c[3] == 'L';
      if (lossless && alph) return ONNXC_IMG_BAD;
      img = pos + 8, isz = (long)sz, ipad = pad;
    } else if (onnxc_webp_tag(c, "ALPH")) {
      if (img >= 0 || alph) return ONNXC_IMG_BAD;
      alph = 1;
    } else if (onnxc_webp_tag(c, "ANIM") || onnxc_webp_tag(c, "ANMF")) {
      return ONNXC_IMG_BAD;
    } else if (!ext) {
      break; /* what follows a simple file's image is not looked at */
    }
    pos += 8 + pad;
    if (!ext && pos < end && end - pos < 8) return ONNXC_IMG_BAD;
  }
  if (img < 0) return ONNXC_IMG_BAD;
  if (lossless) {
    if (ext && (isz < 5 || (((long)s[img + 1] | (long)(s[img + 2] & 0x3f) << 8) + 1 != cw) ||
                ((((long)s[img + 2] >> 6) | (long)s[img + 3] << 2 | (long)(s[img + 4] & 0xf) << 10) + 1 != ch)))
      return ONNXC_IMG_BAD;
    return onnxc_webp_vp8l(s + img, ipad, rgb, H, W, scr,
                           4 * W * H + 40 * ((W + 3) / 4) * ((H + 3) / 4) + 16 * ipad + 49152);
  }
  if (ext) {
    /* the canvas must be the frame's size */
    long fw, fh;
    if (isz < 10) return ONNXC_IMG_BAD;
    fw = (long)((s[img + 6] | (unsigned)s[img + 7] << 8) & 0x3fff);
    fh = (long)((s[img + 8] | (unsigned)s[img + 9] << 8) & 0x3fff);
    if (fw != cw || fh != ch) return ONNXC_IMG_BAD;
  }
  return onnxc_webp_vp8(s + img, ipad, isz, rgb, H, W, scr);
}

#undef ONNXC_WEBP_AVG3
#undef ONNXC_WEBP_AVG2
