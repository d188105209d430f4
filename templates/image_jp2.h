/* ImageDecoder, JPEG 2000 (ITU-T T.800 | ISO/IEC 15444-1): a JP2 file or a raw J2K codestream
   -> interleaved 8-bit RGB, in C with no allocation, no libc and no writable static state.

   Supported: 1 to 4 components of 8-bit unsigned samples without subsampling (one component is
   gray, two are gray + alpha, the 4th of four is dropped); one or several tiles and tile-parts
   (the parts of a tile consecutive in the stream); any number of decomposition levels; the
   reversible 5/3 wavelet with the RCT and the irreversible 9/7 wavelet with the ICT (in float,
   following OpenJPEG's arithmetic) and scalar derived / expounded quantization; layers; the five
   progression orders and progression order changes (POC, B.12.2: in the main header, or in the
   tile's first tile-part header, which replaces the main header's, with further entries in later
   tile-part headers appended; at most 32 entries a tile; the packets follow the entries' volumes
   in turn, each packet read the first time its layer, resolution, component and precinct come
   up, as OpenJPEG does); default and explicit precincts; code-blocks of any legal size; all the
   code-block styles of Part 1 in any combination: selective arithmetic-coding bypass (raw
   significance propagation and magnitude refinement passes below the 4 most significant
   bit-planes), reset, termination on each coding pass, vertically causal, predictable
   termination and segmentation symbols (with bypass or termination on each pass a code-block's
   data is several codeword segments, each with its length in the packet headers, continuing
   across layers, and each decoded on its own as OpenJPEG does); SOP and EPH markers.  Refused
   (ONNXC_IMG_BAD): other bit depths, signed or subsampled components, HT code-blocks (Part 15)
   and the reserved style bit 0x80, POC entries that leave packets of a tile out (a stream that
   does not conform, of which OpenJPEG decodes fewer resolutions) and POC in a later tile-part of a
   tile with none in its first, RGN, PPM, PPT, palettes and component mappings in a JP2
   file, sYCC and other colour spaces than sRGB / gray; codeword segments longer than 65535
   bytes.

   Scratch: 20 W H + 4 (W + H) + 2 n + 131072 bytes (coefficient planes of 3 components, a wavelet
   line, a copy of the code-block data with the lengths of their codeword segments (2 bytes each;
   2 n bytes in all), and code-block / precinct / tag-tree state for one tile (with POC, 2 bytes
   more a precinct and sub-band), whose geometry is refused when it does not fit in what is left). */

#ifndef ONNXC_IMG_BAD
#define ONNXC_IMG_BAD 11 /* ONNXC_ERR_IMAGE */
#define ONNXC_IMG_SIZE 9 /* ONNXC_ERR_SHAPE */
#endif

#define ONNXC_IMG_JP2 1 /* image.h: JPEG 2000 is in (not on the CUDA targets: ops_extra.c) */


/* coding and quantization parameters of one component */
typedef struct {
  uint8_t nl, xcb, ycb, style, rev, qstyle, guard, nsteps;
  uint8_t pp[33];     /* PPx | PPy << 4 per resolution */
  uint16_t step[97];  /* exponent << 11 | mantissa per sub-band */
} onnxc_jp2_comp;

/* one sub-band of one precinct: its code-blocks and tag trees */
typedef struct {
  uint32_t cb, tt;
  uint16_t w, h;
} onnxc_jp2_prec;

/* one code-block: data (off, len in the copy), passes, Lblock (0: not yet included), zero bit-planes;
   with the bypass or terminate-each-pass styles, nseg codeword segments, whose lengths (2 bytes
   each, big-endian) precede the data in the copy */
typedef struct {
  uint32_t off, len, plen;
  uint8_t npasses, lblock, zbp, nseg;
} onnxc_jp2_cb;

/* one progression order change (POC entry, A.6.6): layers [0, lye), resolutions [rs, re),
   components [cs, ce) in progression order pr */
typedef struct {
  uint16_t lye;
  uint8_t rs, cs, re, ce, pr;
} onnxc_jp2_poc;

#define ONNXC_JP2_NPOC 32

typedef struct {
  const unsigned char *cs;
  uint32_t cslen;
  uint32_t X1, Y1, X0, Y0, TW, TH, TX0, TY0, ntx, nty, nt, W, H;
  int nc;
  onnxc_jp2_comp mc[4], tc[4];
  uint8_t mcoc[4], mqcc[4], tcoc[4], tqcc[4];
  int mprog, mlayers, mmct, mscod, tprog, tlayers, tmct, tscod;
  int have_cod, have_qcd;
  /* POC entries of the main header and of the tile (its own when townpoc, else the main's) */
  onnxc_jp2_poc mpoc[ONNXC_JP2_NPOC], tpoc[ONNXC_JP2_NPOC];
  int mnpoc, tnpoc, townpoc, tnpoc0;
  uint16_t *lnext; /* with POC: per precinct, the next layer whose packet is to be read */
  /* the tile's data: the current part's body [pos, end), its tile and part number */
  uint32_t pos, end;
  int tile, tpno, eod;
  uint32_t buf;
  int ct;
  /* the tile's geometry */
  uint32_t tx0, ty0, tx1, ty1;
  uint32_t precbase[4][33], npw[4][33], nph[4][33];
  uint32_t nrec, ncb, ntt;
  onnxc_jp2_prec *prec;
  onnxc_jp2_cb *cb;
  uint16_t *tt;
  unsigned char *arena;
  uint32_t arenasz;
  int32_t *coef;
  unsigned char *flags;
  int32_t *plane[3];
  int32_t *line;
  unsigned char *pool;
  uint64_t poolsz;
  unsigned char *done;
} onnxc_jp2_dec;

/* As CUDA device code the larger steps stay functions, and the model's kernels are compiled with
   -Ofast-compile=min (onnxc_cuda_kernels.nvrtc_opt; the header of a .cu says so for nvcc):
   without it NVVM's optimizer runs for many minutes over the tier-1 and tier-2 decoders. */
#if defined(__CUDA_ARCH__)
#define ONNXC_JP2_NOINLINE __noinline__
#else
#define ONNXC_JP2_NOINLINE
#endif

ONNXC_MAYBE_UNUSED static uint32_t onnxc_jp2_be16(const unsigned char *p) { return (uint32_t)p[0] << 8 | (uint32_t)p[1]; }
ONNXC_MAYBE_UNUSED static uint32_t onnxc_jp2_be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* ceil(a / 2^s), a < 2^40 */
ONNXC_MAYBE_UNUSED static uint32_t onnxc_jp2_cdiv(uint64_t a, uint32_t s) {
  if (s >= 40) return a ? 1u : 0u;
  return (uint32_t)((a + (((uint64_t)1 << s) - 1)) >> s);
}

/* ---- MQ arithmetic decoder (Annex C) ---- */
typedef struct {
  const unsigned char *d;
  uint32_t len, bp, a, c;
  int ct;
  uint8_t cx[19]; /* state index << 1 | MPS */
} onnxc_jp2_mq;

ONNXC_MAYBE_UNUSED static uint32_t onnxc_jp2_mqb(const onnxc_jp2_mq *m, uint32_t i) { return i < m->len ? m->d[i] : 0xffu; }

ONNXC_MAYBE_UNUSED static void onnxc_jp2_mq_bytein(onnxc_jp2_mq *m) {
  if (onnxc_jp2_mqb(m, m->bp) == 0xff) {
    if (onnxc_jp2_mqb(m, m->bp + 1) > 0x8f) {
      m->c += 0xff00u, m->ct = 8;
    } else {
      m->bp++;
      m->c += onnxc_jp2_mqb(m, m->bp) << 9, m->ct = 7;
    }
  } else {
    if (m->bp < m->len) m->bp++;
    m->c += onnxc_jp2_mqb(m, m->bp) << 8, m->ct = 8;
  }
}

ONNXC_MAYBE_UNUSED static void onnxc_jp2_mq_reset(onnxc_jp2_mq *m) {
  int i;
  for (i = 0; i < 19; i++) m->cx[i] = 0;
  m->cx[0] = 4 << 1, m->cx[17] = 3 << 1, m->cx[18] = 46 << 1;
}

ONNXC_MAYBE_UNUSED static void onnxc_jp2_mq_init(onnxc_jp2_mq *m, const unsigned char *d, uint32_t len) {
  m->d = d, m->len = len, m->bp = 0;
  m->c = onnxc_jp2_mqb(m, 0) << 16;
  onnxc_jp2_mq_bytein(m);
  m->c <<= 7, m->ct -= 7, m->a = 0x8000u;
}

ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_mq_dec(onnxc_jp2_mq *m, int cx) {
  static const uint16_t qe[47] = {0x5601, 0x3401, 0x1801, 0x0ac1, 0x0521, 0x0221, 0x5601, 0x5401, 0x4801, 0x3801, 0x3001, 0x2401,
                                  0x1c01, 0x1601, 0x5601, 0x5401, 0x5101, 0x4801, 0x3801, 0x3401, 0x3001, 0x2801, 0x2401, 0x2201,
                                  0x1c01, 0x1801, 0x1601, 0x1401, 0x1201, 0x1101, 0x0ac1, 0x09c1, 0x08a1, 0x0521, 0x0441, 0x02a1,
                                  0x0221, 0x0141, 0x0111, 0x0085, 0x0049, 0x0025, 0x0015, 0x0009, 0x0005, 0x0001, 0x5601};
  static const uint8_t nmps[47] = {1,  2,  3,  4,  5,  38, 7,  8,  9,  10, 11, 12, 13, 29, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
                                   25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 45, 46};
  static const uint8_t nlps[47] = {1,  6,  9,  12, 29, 33, 6,  14, 14, 14, 17, 18, 20, 21, 14, 14, 15, 16, 17, 18, 19, 19, 20, 21,
                                   22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 46};
  static const uint8_t sw[47] = {1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  const int st = m->cx[cx] >> 1, mps = m->cx[cx] & 1;
  const uint32_t q = qe[st];
  int dd;
  m->a -= q;
  if ((m->c >> 16) < q) {
    if (m->a < q) {
      dd = mps, m->cx[cx] = (uint8_t)(nmps[st] << 1 | mps);
    } else {
      dd = 1 - mps, m->cx[cx] = (uint8_t)(nlps[st] << 1 | (sw[st] ? 1 - mps : mps));
    }
    m->a = q;
  } else {
    m->c -= q << 16;
    if (m->a & 0x8000u) return mps;
    if (m->a < q) {
      dd = 1 - mps, m->cx[cx] = (uint8_t)(nlps[st] << 1 | (sw[st] ? 1 - mps : mps));
    } else {
      dd = mps, m->cx[cx] = (uint8_t)(nmps[st] << 1 | mps);
    }
  }
  do {
    if (m->ct == 0) onnxc_jp2_mq_bytein(m);
    m->a <<= 1, m->c <<= 1, m->ct--;
  } while (!(m->a & 0x8000u));
  return dd;
}

/* raw (bypass) decoding of a segment (D.6): its bits, most significant first, a bit stuffed after
   each 0xFF; past its end (or at an 0xFF followed by a byte above 0x8F) the bits are ones */
ONNXC_MAYBE_UNUSED static void onnxc_jp2_raw_init(onnxc_jp2_mq *m, const unsigned char *d, uint32_t len) {
  m->d = d, m->len = len, m->bp = 0, m->c = 0, m->ct = 0;
}

ONNXC_MAYBE_UNUSED static int onnxc_jp2_raw(onnxc_jp2_mq *m) {
  if (m->ct == 0) {
    if (m->c == 0xff && onnxc_jp2_mqb(m, m->bp) > 0x8f) {
      m->ct = 8;
    } else {
      m->ct = m->c == 0xff ? 7 : 8;
      m->c = onnxc_jp2_mqb(m, m->bp);
      if (m->bp <= m->len) m->bp++;
    }
  }
  m->ct--;
  return (int)(m->c >> m->ct) & 1;
}

/* The codeword segments of a code-block (B.10.7.2, D.4.2, D.6): pass i (from 0) is the *u-th
   pass of segment *s, which holds at most *cap passes: one with terminate-each-pass (style 4);
   with bypass (style 1) 10 (the most significant bit-plane's cleanup and three bit-planes), then
   2 raw ones (significance propagation, magnitude refinement) and 1 MQ-coded one (cleanup) in
   turn; one segment of any number otherwise. */
ONNXC_MAYBE_UNUSED static void onnxc_jp2_seg(int style, uint32_t i, uint32_t *s, uint32_t *u, uint32_t *cap) {
  if (style & 4) {
    *s = i, *u = 0, *cap = 1;
  } else if ((style & 1) && i >= 10) {
    const uint32_t m = i - 10;
    *s = 1 + 2 * (m / 3) + (m % 3 == 2), *u = m % 3 == 2 ? 0 : m % 3, *cap = m % 3 == 2 ? 1 : 2;
  } else {
    *s = 0, *u = i, *cap = style & 1 ? 10 : 255;
  }
}

/* ---- tier-1: EBCOT code-block decoding (Annex D) ---- */
/* flags per coefficient, in a (w + 2) x (h + 2) array with a border */
#define ONNXC_JP2_SIG 1
#define ONNXC_JP2_NEG 2
#define ONNXC_JP2_VIS 4
#define ONNXC_JP2_REF 8

/* neighbourhood of the coefficient at f: sums of significant horizontal, vertical, diagonal
   neighbours; south ones ignored when vc (vertically causal, last row of a stripe) */
ONNXC_MAYBE_UNUSED static void onnxc_jp2_nbh(const unsigned char *f, long st, int vc, int *h, int *v, int *dg) {
  *h = (f[-1] & 1) + (f[1] & 1);
  *v = (f[-st] & 1) + (vc ? 0 : (f[st] & 1));
  *dg = (f[-st - 1] & 1) + (f[-st + 1] & 1) + (vc ? 0 : (f[st - 1] & 1) + (f[st + 1] & 1));
}

ONNXC_MAYBE_UNUSED static int onnxc_jp2_zc(int h, int v, int dg, int orient) {
  if (orient == 1) { /* HL: the roles of horizontal and vertical swapped */
    const int t = h;
    h = v, v = t;
  }
  if (orient == 3) {
    const int hv = h + v;
    if (dg >= 3) return 8;
    if (dg == 2) return hv >= 1 ? 7 : 6;
    if (dg == 1) return hv >= 2 ? 5 : hv == 1 ? 4 : 3;
    return hv >= 2 ? 2 : hv;
  }
  if (h == 2) return 8;
  if (h == 1) return v >= 1 ? 7 : dg >= 1 ? 6 : 5;
  if (v == 2) return 4;
  if (v == 1) return 3;
  return dg >= 2 ? 2 : dg;
}

/* decodes the sign of the coefficient at f; 1 when negative */
ONNXC_MAYBE_UNUSED static int onnxc_jp2_sign(onnxc_jp2_mq *m, const unsigned char *f, long st, int vc) {
  /* table D.3, indexed by (H + 1) * 3 + V + 1 */
  static const uint8_t ctx[9] = {13, 12, 11, 10, 9, 10, 11, 12, 13}, xr[9] = {1, 1, 1, 1, 0, 0, 0, 0, 0};
  int hc = 0, vcn = 0, k;
  if (f[-1] & 1) hc += (f[-1] & ONNXC_JP2_NEG) ? -1 : 1;
  if (f[1] & 1) hc += (f[1] & ONNXC_JP2_NEG) ? -1 : 1;
  if (f[-st] & 1) vcn += (f[-st] & ONNXC_JP2_NEG) ? -1 : 1;
  if (!vc && (f[st] & 1)) vcn += (f[st] & ONNXC_JP2_NEG) ? -1 : 1;
  hc = hc < -1 ? -1 : hc > 1 ? 1 : hc;
  vcn = vcn < -1 ? -1 : vcn > 1 ? 1 : vcn;
  k = (hc + 1) * 3 + (vcn + 1);
  return onnxc_jp2_mq_dec(m, ctx[k]) ^ xr[k];
}

/* Decodes a code-block of w x h coefficients from data[0..len) with npasses passes starting at
   bit-plane p0 (of the doubled magnitudes), into coef (signed, doubled magnitudes).  nseg 0: one
   MQ-coded segment; otherwise the data holds nseg codeword segments (onnxc_jp2_seg), their
   lengths 2 bytes each at tab, each decoded on its own: raw in the significance propagation and
   magnitude refinement passes below the 4 most significant bit-planes with bypass, MQ-coded
   otherwise (the MQ decoder started again, its contexts kept).  Returns 0, or 1 when refused. */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_t1(const unsigned char *data, uint32_t len, const unsigned char *tab, uint32_t nseg,
                                           int32_t *coef, unsigned char *flags, uint32_t w, uint32_t h, int orient, int style,
                                           int p0, int npasses) {
  onnxc_jp2_mq mq;
  const long st = (long)w + 2;
  long i, x, y, y0;
  int pass, ptype = 2, p = p0, raw = 0;
  uint32_t segoff = 0;
  for (i = 0; i < (long)(w * h); i++) coef[i] = 0;
  for (i = 0; i < st * ((long)h + 2); i++) flags[i] = 0;
  onnxc_jp2_mq_init(&mq, data, nseg ? 0 : len);
  onnxc_jp2_mq_reset(&mq);
  for (pass = 0; pass < npasses && p >= 1; pass++) {
    const int32_t one = (int32_t)1 << p, half = one >> 1, oph = one | half;
    if (nseg) {
      uint32_t s, u, cap, sl;
      onnxc_jp2_seg(style, (uint32_t)pass, &s, &u, &cap);
      if (u == 0) { /* a segment starts */
        if (s >= nseg) return 1;
        sl = (uint32_t)tab[2 * s] << 8 | tab[2 * s + 1];
        if (sl > len - segoff) return 1;
        raw = (style & 1) && ptype < 2 && p <= p0 - 4;
        if (raw) onnxc_jp2_raw_init(&mq, data + segoff, sl);
        else onnxc_jp2_mq_init(&mq, data + segoff, sl);
        segoff += sl;
      }
    }
    for (y0 = 0; y0 < (long)h; y0 += 4)
      for (x = 0; x < (long)w; x++) {
        long k = 0;
        const long ye = y0 + 4 < (long)h ? y0 + 4 : (long)h;
        if (ptype == 2 && y0 + 4 <= (long)h) { /* cleanup: run-length mode for a column of four */
          int all = 1;
          for (y = y0; y < y0 + 4 && all; y++) {
            const unsigned char *f = flags + (y + 1) * st + x + 1;
            int hh, vv, dg;
            onnxc_jp2_nbh(f, st, (style & 8) && (y & 3) == 3, &hh, &vv, &dg);
            if ((f[0] & (ONNXC_JP2_SIG | ONNXC_JP2_VIS)) || hh + vv + dg) all = 0;
          }
          if (all) {
            unsigned char *f;
            if (!onnxc_jp2_mq_dec(&mq, 17)) continue;
            k = onnxc_jp2_mq_dec(&mq, 18) << 1;
            k |= onnxc_jp2_mq_dec(&mq, 18);
            y = y0 + k;
            f = flags + (y + 1) * st + x + 1;
            if (onnxc_jp2_sign(&mq, f, st, (style & 8) && (y & 3) == 3)) f[0] |= ONNXC_JP2_NEG;
            f[0] |= ONNXC_JP2_SIG;
            coef[y * (long)w + x] = oph;
            k++;
          }
        }
        for (y = y0 + k; y < ye; y++) {
          unsigned char *f = flags + (y + 1) * st + x + 1;
          const int vc = (style & 8) && (y & 3) == 3;
          int hh, vv, dg;
          if (ptype == 0) { /* significance propagation */
            if (f[0] & ONNXC_JP2_SIG) continue;
            onnxc_jp2_nbh(f, st, vc, &hh, &vv, &dg);
            if (!(hh + vv + dg)) continue;
            f[0] |= ONNXC_JP2_VIS;
            if (raw) {
              if (onnxc_jp2_raw(&mq)) {
                if (onnxc_jp2_raw(&mq)) f[0] |= ONNXC_JP2_NEG;
                f[0] |= ONNXC_JP2_SIG;
                coef[y * (long)w + x] = oph;
              }
            } else if (onnxc_jp2_mq_dec(&mq, onnxc_jp2_zc(hh, vv, dg, orient))) {
              if (onnxc_jp2_sign(&mq, f, st, vc)) f[0] |= ONNXC_JP2_NEG;
              f[0] |= ONNXC_JP2_SIG;
              coef[y * (long)w + x] = oph;
            }
          } else if (ptype == 1) { /* magnitude refinement */
            int cx;
            if ((f[0] & (ONNXC_JP2_SIG | ONNXC_JP2_VIS)) != ONNXC_JP2_SIG) continue;
            onnxc_jp2_nbh(f, st, vc, &hh, &vv, &dg);
            cx = (f[0] & ONNXC_JP2_REF) ? 16 : hh + vv + dg ? 15 : 14;
            if (raw ? onnxc_jp2_raw(&mq) : onnxc_jp2_mq_dec(&mq, cx)) coef[y * (long)w + x] += half;
            else coef[y * (long)w + x] -= half;
            f[0] |= ONNXC_JP2_REF;
          } else { /* cleanup */
            if (f[0] & (ONNXC_JP2_SIG | ONNXC_JP2_VIS)) continue;
            onnxc_jp2_nbh(f, st, vc, &hh, &vv, &dg);
            if (onnxc_jp2_mq_dec(&mq, onnxc_jp2_zc(hh, vv, dg, orient))) {
              if (onnxc_jp2_sign(&mq, f, st, vc)) f[0] |= ONNXC_JP2_NEG;
              f[0] |= ONNXC_JP2_SIG;
              coef[y * (long)w + x] = oph;
            }
          }
        }
      }
    if (ptype == 2) {
      if (style & 32) { /* segmentation symbol */
        int k;
        for (k = 0; k < 4; k++) (void)onnxc_jp2_mq_dec(&mq, 18);
      }
      for (y = 0; y < (long)h; y++)
        for (x = 0; x < (long)w; x++) flags[(y + 1) * st + x + 1] &= (unsigned char)~ONNXC_JP2_VIS;
    }
    if (style & 2) onnxc_jp2_mq_reset(&mq);
    if (++ptype == 3) ptype = 0, p--;
  }
  for (y = 0; y < (long)h; y++)
    for (x = 0; x < (long)w; x++)
      if (flags[(y + 1) * st + x + 1] & ONNXC_JP2_NEG) coef[y * (long)w + x] = -coef[y * (long)w + x];
  return 0;
}

/* ---- codestream markers ---- */
ONNXC_MAYBE_UNUSED static void onnxc_jp2_copycomp(onnxc_jp2_comp *t, const onnxc_jp2_comp *f) {
  int i;
  t->nl = f->nl, t->xcb = f->xcb, t->ycb = f->ycb, t->style = f->style, t->rev = f->rev;
  t->qstyle = f->qstyle, t->guard = f->guard, t->nsteps = f->nsteps;
  for (i = 0; i < 33; i++) t->pp[i] = f->pp[i];
  for (i = 0; i < 97; i++) t->step[i] = f->step[i];
}

/* SPcod / SPcoc at q[0..L) into k (coding fields); prec: precinct sizes follow.  0 or 1 (bad). */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_spcod(onnxc_jp2_comp *k, const unsigned char *q, uint32_t L, int prec) {
  uint32_t i;
  if (L < 5) return 1;
  if (q[0] > 32 || q[1] > 8 || q[2] > 8 || q[1] + q[2] > 8 || q[4] > 1) return 1;
  if (q[3] & (0x40 | 0x80)) return 1; /* HT (Part 15) and the undefined bit: refused */
  k->nl = q[0], k->xcb = (uint8_t)(q[1] + 2), k->ycb = (uint8_t)(q[2] + 2), k->style = q[3], k->rev = q[4];
  for (i = 0; i < 33; i++) k->pp[i] = 0xff;
  if (prec) {
    if (L < 5u + k->nl + 1u) return 1;
    for (i = 0; i <= k->nl; i++) {
      const unsigned char v = q[5 + i];
      if (i > 0 && ((v & 15) == 0 || (v >> 4) == 0)) return 1;
      k->pp[i] = v;
    }
  }
  return 0;
}

/* Sqcd + SPqcd at q[0..L) into k (quantization fields) */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_spqcd(onnxc_jp2_comp *k, const unsigned char *q, uint32_t L) {
  uint32_t i, ns;
  if (L < 2) return 1;
  k->qstyle = q[0] & 31, k->guard = q[0] >> 5;
  if (k->qstyle == 0) {
    ns = L - 1;
    if (ns > 97) return 1;
    for (i = 0; i < ns; i++) k->step[i] = (uint16_t)((q[1 + i] >> 3) << 11);
  } else if (k->qstyle == 1 || k->qstyle == 2) {
    ns = (L - 1) / 2;
    if (ns < 1 || ns > 97 || (k->qstyle == 1 && ns != 1)) return 1;
    for (i = 0; i < ns; i++) k->step[i] = (uint16_t)onnxc_jp2_be16(q + 1 + 2 * i);
  } else {
    return 1;
  }
  k->nsteps = (uint8_t)ns;
  return 0;
}

/* one COD / COC / QCD / QCC segment (m its marker, q[0..L) its contents after the length) */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_param(onnxc_jp2_dec *d, uint32_t m, const unsigned char *q, uint32_t L, int tile) {
  onnxc_jp2_comp *cs = tile ? d->tc : d->mc;
  uint8_t *coc = tile ? d->tcoc : d->mcoc, *qcc = tile ? d->tqcc : d->mqcc;
  onnxc_jp2_comp k;
  int c;
  if (m == 0xff52) { /* COD */
    if (L < 5 || q[1] > 4 || onnxc_jp2_be16(q + 2) == 0 || q[4] > 1) return 1;
    if (onnxc_jp2_spcod(&k, q + 5, L - 5, q[0] & 1)) return 1;
    if (tile) d->tprog = q[1], d->tlayers = (int)onnxc_jp2_be16(q + 2), d->tmct = q[4], d->tscod = q[0];
    else d->mprog = q[1], d->mlayers = (int)onnxc_jp2_be16(q + 2), d->mmct = q[4], d->mscod = q[0], d->have_cod = 1;
    for (c = 0; c < d->nc; c++)
      if (!coc[c]) {
        int i;
        cs[c].nl = k.nl, cs[c].xcb = k.xcb, cs[c].ycb = k.ycb, cs[c].style = k.style, cs[c].rev = k.rev;
        for (i = 0; i < 33; i++) cs[c].pp[i] = k.pp[i];
      }
    return 0;
  }
  if (m == 0xff53) { /* COC */
    int i;
    if (L < 2 || q[0] >= d->nc) return 1;
    c = q[0];
    if (onnxc_jp2_spcod(&k, q + 2, L - 2, q[1] & 1)) return 1;
    cs[c].nl = k.nl, cs[c].xcb = k.xcb, cs[c].ycb = k.ycb, cs[c].style = k.style, cs[c].rev = k.rev;
    for (i = 0; i < 33; i++) cs[c].pp[i] = k.pp[i];
    coc[c] = 1;
    return 0;
  }
  if (m == 0xff5f) { /* POC: 7-byte entries (fewer than 257 components), appended */
    onnxc_jp2_poc *e = tile ? d->tpoc : d->mpoc;
    int *ne = tile ? &d->tnpoc : &d->mnpoc;
    uint32_t i;
    if (tile == 1 && !d->townpoc) d->tnpoc = 0, d->townpoc = 1; /* the tile's first part's replace the main header's */
    if (L < 7 || L % 7) return 1;
    for (i = 0; i < L; i += 7) {
      onnxc_jp2_poc *t;
      if (*ne >= ONNXC_JP2_NPOC || q[i + 6] > 4) return 1;
      t = e + (*ne)++;
      t->rs = q[i], t->cs = q[i + 1], t->lye = (uint16_t)onnxc_jp2_be16(q + i + 2), t->re = q[i + 4];
      t->ce = q[i + 5] ? q[i + 5] : 255, t->pr = q[i + 6]; /* CEpoc 0: 256, all of the (at most 4) components */
    }
    return 0;
  }
  if (m == 0xff5c) { /* QCD */
    if (onnxc_jp2_spqcd(&k, q, L)) return 1;
    if (!tile) d->have_qcd = 1;
    for (c = 0; c < d->nc; c++)
      if (!qcc[c]) {
        int i;
        cs[c].qstyle = k.qstyle, cs[c].guard = k.guard, cs[c].nsteps = k.nsteps;
        for (i = 0; i < k.nsteps; i++) cs[c].step[i] = k.step[i];
      }
    return 0;
  }
  if (m == 0xff5d) { /* QCC */
    int i;
    if (L < 1 || q[0] >= d->nc) return 1;
    c = q[0];
    if (onnxc_jp2_spqcd(&k, q + 1, L - 1)) return 1;
    cs[c].qstyle = k.qstyle, cs[c].guard = k.guard, cs[c].nsteps = k.nsteps;
    for (i = 0; i < k.nsteps; i++) cs[c].step[i] = k.step[i];
    qcc[c] = 1;
    return 0;
  }
  return 1;
}

/* The tile-part whose SOT is at p: parses its header (first 1: the tile's first part, whose coding
   parameters apply; 0: a later part, whose POC entries are appended; 2: a part skipped), the body
   [*body, *bend).  0, or 1 when bad. */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_tphdr(onnxc_jp2_dec *d, uint32_t p, int first, uint32_t *isot, uint32_t *body,
                                              uint32_t *bend) {
  const unsigned char *cs = d->cs;
  uint32_t psot, pend, q;
  if (d->cslen - p < 12 || onnxc_jp2_be16(cs + p) != 0xff90 || onnxc_jp2_be16(cs + p + 2) != 10) return 1;
  *isot = onnxc_jp2_be16(cs + p + 4);
  psot = onnxc_jp2_be32(cs + p + 6);
  if (*isot >= d->nt) return 1;
  if (psot == 0) {
    pend = d->cslen;
    if (pend - p >= 14 && cs[pend - 2] == 0xff && cs[pend - 1] == 0xd9) pend -= 2;
  } else {
    if (psot < 14 || psot > d->cslen - p) return 1;
    pend = p + psot;
  }
  q = p + 12;
  for (;;) {
    uint32_t m, L;
    if (pend - q < 2) return 1;
    m = onnxc_jp2_be16(cs + q);
    if (m == 0xff93) break; /* SOD */
    if (pend - q < 4) return 1;
    L = onnxc_jp2_be16(cs + q + 2);
    if (L < 2 || L > pend - q - 2) return 1;
    if (m == 0xff5f && first != 1) { /* POC in a later part: its entries follow the tile's (2: ignored) */
      if (!first && (!d->tnpoc0 || onnxc_jp2_param(d, m, cs + q + 4, L - 2, 2))) return 1; /* not after none */
    } else if (m == 0xff52 || m == 0xff53 || m == 0xff5c || m == 0xff5d || m == 0xff5f) {
      if (first != 1 || onnxc_jp2_param(d, m, cs + q + 4, L - 2, 1)) return 1;
    } else if (m == 0xff61 || m == 0xff5e || (m >> 8) != 0xff) {
      return 1; /* PPT, RGN */
    }
    q += 2 + L;
  }
  *body = q + 2, *bend = pend;
  return 0;
}

/* ---- tier-2: the tile's data, packet headers ---- */
/* moves to the body of the tile's next tile-part, when one follows the current one; 1 when none */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_nextpart(onnxc_jp2_dec *d) {
  uint32_t isot, b, e;
  const uint32_t p = d->end;
  if (d->cslen - p < 12 || onnxc_jp2_be16(d->cs + p) != 0xff90 || onnxc_jp2_be16(d->cs + p + 4) != (uint32_t)d->tile) return 1;
  if (onnxc_jp2_tphdr(d, p, 0, &isot, &b, &e)) return 1;
  d->pos = b, d->end = e, d->tpno++;
  return 0;
}

ONNXC_MAYBE_UNUSED static int onnxc_jp2_byte(onnxc_jp2_dec *d) {
  while (d->pos >= d->end)
    if (onnxc_jp2_nextpart(d)) return -1;
  return d->cs[d->pos++];
}

ONNXC_MAYBE_UNUSED static int onnxc_jp2_bit(onnxc_jp2_dec *d) {
  if (d->ct == 0) {
    const int b = onnxc_jp2_byte(d);
    if (b < 0) return -1;
    d->ct = d->buf == 0xff ? 7 : 8;
    d->buf = (uint32_t)b;
  }
  d->ct--;
  return (int)(d->buf >> d->ct) & 1;
}

/* n bits (n <= 32) into *v; 0 or 1 at the end of the data */
ONNXC_MAYBE_UNUSED static int onnxc_jp2_bits(onnxc_jp2_dec *d, int n, uint32_t *v) {
  uint32_t r = 0;
  int i;
  for (i = 0; i < n; i++) {
    const int b = onnxc_jp2_bit(d);
    if (b < 0) return 1;
    r = r << 1 | (uint32_t)b;
  }
  *v = r;
  return 0;
}

ONNXC_MAYBE_UNUSED static uint32_t onnxc_jp2_ttn(uint32_t w, uint32_t h) {
  uint32_t n = 0;
  if (!w || !h) return 0;
  for (;;) {
    n += w * h;
    if (w == 1 && h == 1) return n;
    w = (w + 1) >> 1, h = (h + 1) >> 1;
  }
}

/* Tag tree t (value, lower bound pairs; leaves w x h) at leaf (x, y): decodes up to threshold thr;
   *v the leaf's value, 0xffff when it is at least thr.  0 or 1 at the end of the data. */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_tt(onnxc_jp2_dec *d, uint16_t *t, uint32_t w, uint32_t h, uint32_t x, uint32_t y,
                                           uint32_t thr, uint32_t *v) {
  uint32_t idx[40], off = 0, low = 0;
  int nlev = 0, k;
  for (;;) {
    idx[nlev++] = off + y * w + x;
    if ((w == 1 && h == 1) || nlev == 40) break;
    off += w * h, w = (w + 1) >> 1, h = (h + 1) >> 1, x >>= 1, y >>= 1;
  }
  for (k = nlev - 1; k >= 0; k--) {
    uint16_t *nd = t + 2 * idx[k];
    if (nd[1] < low) nd[1] = (uint16_t)low;
    else low = nd[1];
    while (low < thr && low < nd[0]) {
      const int b = onnxc_jp2_bit(d);
      if (b < 0) return 1;
      if (b) nd[0] = (uint16_t)low;
      else low++;
    }
    nd[1] = (uint16_t)low;
  }
  *v = t[2 * idx[0]];
  return 0;
}

/* both FF xx next in the tile's data: skips len bytes from them */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_skipmk(onnxc_jp2_dec *d, uint32_t m, uint32_t len) {
  while (d->pos >= d->end)
    if (onnxc_jp2_nextpart(d)) return 0;
  if (d->end - d->pos >= 2 && onnxc_jp2_be16(d->cs + d->pos) == m) {
    if (d->end - d->pos < len) return 1;
    d->pos += len;
  }
  return 0;
}

/* the header of one code-block (j of w x h, tag trees at tt, nn nodes each, code-block style
   style) in a packet of layer l: 0, 2 when the packet does not include it, 1 when bad.  With the
   bypass or terminate-each-pass styles the new passes span one or more codeword segments, each
   with its length (B.10.7.2): pass 1 counts the code-block's segments, pass 2 adds the lengths
   into its table. */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_cbhdr(onnxc_jp2_dec *d, onnxc_jp2_cb *cb, uint16_t *tt, uint32_t nn, uint32_t w, uint32_t h,
                                   uint32_t j, int l, int style, int pass) {
  int bit;
  uint32_t v, np, len, i, total = 0;
  if (!cb->lblock) {
    if (onnxc_jp2_tt(d, tt, w, h, j % w, j / w, (uint32_t)l + 1, &v)) return 1;
    if (v > (uint32_t)l) return 2;
    if (onnxc_jp2_tt(d, tt + 2 * nn, w, h, j % w, j / w, 0xffff, &v)) return 1;
    if (v > 64) return 1;
    cb->zbp = (uint8_t)v, cb->lblock = 3;
  } else {
    if ((bit = onnxc_jp2_bit(d)) < 0) return 1;
    if (!bit) return 2;
  }
  /* number of passes */
  if ((bit = onnxc_jp2_bit(d)) < 0) return 1;
  if (!bit) {
    np = 1;
  } else {
    if ((bit = onnxc_jp2_bit(d)) < 0) return 1;
    if (!bit) {
      np = 2;
    } else {
      if (onnxc_jp2_bits(d, 2, &v)) return 1;
      if (v < 3) {
        np = 3 + v;
      } else {
        if (onnxc_jp2_bits(d, 5, &v)) return 1;
        if (v < 31) {
          np = 6 + v;
        } else {
          if (onnxc_jp2_bits(d, 7, &v)) return 1;
          np = 37 + v;
        }
      }
    }
  }
  /* Lblock increments, then the length */
  for (;;) {
    if ((bit = onnxc_jp2_bit(d)) < 0) return 1;
    if (!bit) break;
    if (++cb->lblock > 32) return 1;
  }
  if (cb->npasses + np > 255) return 1;
  for (i = cb->npasses; np;) {
    uint32_t s, u, cap, k;
    int nbits;
    onnxc_jp2_seg(style, i, &s, &u, &cap);
    k = cap - u < np ? cap - u : np;
    nbits = cb->lblock + (k >= 128 ? 7 : k >= 64 ? 6 : k >= 32 ? 5 : k >= 16 ? 4 : k >= 8 ? 3 : k >= 4 ? 2 : k >= 2 ? 1 : 0);
    if (nbits > 32 || onnxc_jp2_bits(d, nbits, &len)) return 1;
    if (len > d->arenasz - total) return 1;
    total += len;
    if (style & 5) {
      if (pass == 1) {
        if (u == 0) cb->nseg++;
      } else {
        unsigned char *t = d->arena + cb->off + 2 * s;
        if (s >= cb->nseg || (uint64_t)cb->off + 2 * cb->nseg > d->arenasz) return 1;
        v = ((uint32_t)t[0] << 8 | t[1]) + len;
        if (v > 0xffff) return 1;
        t[0] = (unsigned char)(v >> 8), t[1] = (unsigned char)v;
      }
    }
    i += k, np -= k;
  }
  cb->npasses = (uint8_t)i;
  cb->plen = total;
  return 0;
}

/* the data of the code-blocks of a packet's nb sub-bands at pr: pass 1 sums their lengths, pass 2
   copies the data; 0, or 1 when bad */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_pdata(onnxc_jp2_dec *d, const onnxc_jp2_prec *pr, int nb, int pass) {
  int b;
  uint32_t j;
  for (b = 0; b < nb; b++) {
    const onnxc_jp2_prec *rc = pr + b;
    for (j = 0; j < (uint32_t)rc->w * rc->h; j++) {
      onnxc_jp2_cb *cb = d->cb + rc->cb + j;
      while (cb->plen) {
        uint32_t k, i;
        while (d->pos >= d->end)
          if (onnxc_jp2_nextpart(d)) return 1;
        k = d->end - d->pos < cb->plen ? d->end - d->pos : cb->plen;
        if (pass == 2) {
          const uint64_t at = (uint64_t)cb->off + 2u * cb->nseg + cb->len;
          if (at > d->arenasz || d->arenasz - at < k) return 1;
          for (i = 0; i < k; i++) d->arena[at + i] = d->cs[d->pos + i];
        } else if (d->arenasz - cb->len < k) {
          return 1;
        }
        cb->len += k, d->pos += k, cb->plen -= k;
      }
    }
  }
  return 0;
}

/* The packet of layer l, resolution r, component c, precinct p.  pass 1 sums the code-blocks'
   lengths, pass 2 copies their data.  0, or 1 when bad. */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_packet(onnxc_jp2_dec *d, int c, int r, uint32_t p, int l, int pass) {
  const int nb = r ? 3 : 1;
  const onnxc_jp2_prec *pr;
  int b, bit;
  uint32_t j;
  if (d->eod) return 0;
  while (d->pos >= d->end)
    if (onnxc_jp2_nextpart(d)) {
      d->eod = 1; /* the data ends: the remaining packets are empty */
      return 0;
    }
  if ((d->tscod & 2) && onnxc_jp2_skipmk(d, 0xff91, 6)) return 1;
  pr = d->prec + d->precbase[c][r] + p * (uint32_t)nb;
  d->buf = 0, d->ct = 0;
  if ((bit = onnxc_jp2_bit(d)) < 0) return 1;
  if (bit)
    for (b = 0; b < nb; b++) {
      const onnxc_jp2_prec *rc = pr + b;
      const uint32_t w = rc->w, h = rc->h, nn = onnxc_jp2_ttn(w, h);
      uint16_t *tt = d->tt + 2 * rc->tt;
      for (j = 0; j < w * h; j++) {
        const int st = onnxc_jp2_cbhdr(d, d->cb + rc->cb + j, tt, nn, w, h, j, l, d->tc[c].style, pass);
        if (st == 1) return 1;
      }
    }
  if ((d->buf & 0xff) == 0xff && onnxc_jp2_byte(d) < 0) return 1;
  if ((d->tscod & 4) && onnxc_jp2_skipmk(d, 0xff92, 2)) return 1;
  return onnxc_jp2_pdata(d, pr, nb, pass);
}

/* resolution r of component c in the tile */
ONNXC_MAYBE_UNUSED static void onnxc_jp2_res(const onnxc_jp2_dec *d, int c, int r, uint32_t *x0, uint32_t *y0, uint32_t *x1,
                                             uint32_t *y1) {
  const uint32_t ls = (uint32_t)(d->tc[c].nl - r);
  *x0 = onnxc_jp2_cdiv(d->tx0, ls), *y0 = onnxc_jp2_cdiv(d->ty0, ls);
  *x1 = onnxc_jp2_cdiv(d->tx1, ls), *y1 = onnxc_jp2_cdiv(d->ty1, ls);
}

ONNXC_MAYBE_UNUSED static uint32_t onnxc_jp2_bd(uint32_t t, int o, uint32_t nb) {
  const uint64_t off = o ? (uint64_t)1 << (nb - 1) : 0;
  return (uint64_t)t <= off ? 0 : onnxc_jp2_cdiv((uint64_t)t - off, nb);
}

/* sub-band b (0 LL, 1 HL, 2 LH, 3 HH) of resolution r of component c */
ONNXC_MAYBE_UNUSED static void onnxc_jp2_band(const onnxc_jp2_dec *d, int c, int r, int b, uint32_t *x0, uint32_t *y0,
                                              uint32_t *x1, uint32_t *y1) {
  uint32_t nb;
  if (r == 0) {
    onnxc_jp2_res(d, c, 0, x0, y0, x1, y1);
    return;
  }
  nb = (uint32_t)(d->tc[c].nl - r + 1);
  *x0 = onnxc_jp2_bd(d->tx0, b & 1, nb), *x1 = onnxc_jp2_bd(d->tx1, b & 1, nb);
  *y0 = onnxc_jp2_bd(d->ty0, b >> 1, nb), *y1 = onnxc_jp2_bd(d->ty1, b >> 1, nb);
}

/* precinct p of resolution r, in sub-band b: [x0, x1) x [y0, y1) (empty: x0 == x1), and the
   code-block size exponents there */
ONNXC_MAYBE_UNUSED static void onnxc_jp2_pband(const onnxc_jp2_dec *d, int c, int r, uint32_t p, int b, uint32_t *x0, uint32_t *y0,
                                               uint32_t *x1, uint32_t *y1, uint32_t *xc, uint32_t *yc) {
  const onnxc_jp2_comp *k = &d->tc[c];
  const uint32_t ppx = k->pp[r] & 15u, ppy = (uint32_t)k->pp[r] >> 4, pxs = r ? ppx - 1 : ppx, pys = r ? ppy - 1 : ppy;
  uint32_t rx0, ry0, rx1, ry1, bx0, by0, bx1, by1;
  uint64_t ox, oy;
  onnxc_jp2_res(d, c, r, &rx0, &ry0, &rx1, &ry1);
  onnxc_jp2_band(d, c, r, b, &bx0, &by0, &bx1, &by1);
  ox = ((uint64_t)(rx0 >> ppx) + p % d->npw[c][r]) << pxs;
  oy = ((uint64_t)(ry0 >> ppy) + p / d->npw[c][r]) << pys;
  *x0 = ox > bx0 ? (uint32_t)(ox < bx1 ? ox : bx1) : bx0;
  *y0 = oy > by0 ? (uint32_t)(oy < by1 ? oy : by1) : by0;
  ox += (uint64_t)1 << pxs, oy += (uint64_t)1 << pys;
  *x1 = ox < bx1 ? (uint32_t)ox : bx1;
  *y1 = oy < by1 ? (uint32_t)oy : by1;
  if (*x1 <= *x0 || *y1 <= *y0) *x1 = *x0, *y1 = *y0;
  *xc = k->xcb < pxs ? k->xcb : pxs, *yc = k->ycb < pys ? k->ycb : pys;
}

/* precincts, code-blocks and tag trees of the tile in the pool; 1 when they do not fit */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_layout(onnxc_jp2_dec *d) {
  uint64_t nrec = 0, ncb = 0, ntt = 0, used;
  int c, r, b;
  uint32_t p;
  for (c = 0; c < d->nc; c++)
    for (r = 0; r <= d->tc[c].nl; r++) {
      uint32_t rx0, ry0, rx1, ry1, ppx = d->tc[c].pp[r] & 15u, ppy = (uint32_t)d->tc[c].pp[r] >> 4;
      onnxc_jp2_res(d, c, r, &rx0, &ry0, &rx1, &ry1);
      d->npw[c][r] = d->nph[c][r] = 0;
      if (rx1 > rx0 && ry1 > ry0)
        d->npw[c][r] = onnxc_jp2_cdiv(rx1, ppx) - (rx0 >> ppx), d->nph[c][r] = onnxc_jp2_cdiv(ry1, ppy) - (ry0 >> ppy);
      d->precbase[c][r] = (uint32_t)nrec;
      nrec += (uint64_t)d->npw[c][r] * d->nph[c][r] * (r ? 3u : 1u);
      if (nrec * sizeof(onnxc_jp2_prec) > d->poolsz) return 1;
    }
  d->prec = (onnxc_jp2_prec *)(void *)d->pool;
  used = (nrec * sizeof(onnxc_jp2_prec) + 7) & ~(uint64_t)7;
  for (c = 0; c < d->nc; c++)
    for (r = 0; r <= d->tc[c].nl; r++)
      for (p = 0; p < d->npw[c][r] * d->nph[c][r]; p++)
        for (b = r ? 1 : 0; b <= (r ? 3 : 0); b++) {
          onnxc_jp2_prec *rc = d->prec + d->precbase[c][r] + p * (r ? 3u : 1u) + (r ? b - 1 : 0);
          uint32_t x0, y0, x1, y1, xc, yc, w = 0, h = 0;
          onnxc_jp2_pband(d, c, r, p, b, &x0, &y0, &x1, &y1, &xc, &yc);
          if (x1 > x0) w = onnxc_jp2_cdiv(x1, xc) - (x0 >> xc), h = onnxc_jp2_cdiv(y1, yc) - (y0 >> yc);
          if (w > 65535 || h > 65535) return 1;
          rc->cb = (uint32_t)ncb, rc->tt = (uint32_t)ntt, rc->w = (uint16_t)w, rc->h = (uint16_t)h;
          ncb += (uint64_t)w * h, ntt += 2 * (uint64_t)onnxc_jp2_ttn(w, h);
          if (used + ncb * sizeof(onnxc_jp2_cb) + ntt * 4 > d->poolsz) return 1;
        }
  if (d->tnpoc && used + ncb * sizeof(onnxc_jp2_cb) + ntt * 4 + nrec * 2 > d->poolsz) return 1;
  d->cb = (onnxc_jp2_cb *)(void *)(d->pool + used);
  d->tt = (uint16_t *)(void *)(d->pool + used + ncb * sizeof(onnxc_jp2_cb));
  d->lnext = d->tt + 2 * ntt;
  d->nrec = (uint32_t)nrec, d->ncb = (uint32_t)ncb, d->ntt = (uint32_t)ntt;
  return 0;
}

/* a precinct of (c, r) starts at reference grid point (x, y) (B.12.1.3): its index in *p */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_ppos(const onnxc_jp2_dec *d, int c, int r, uint64_t x, uint64_t y, uint32_t *p) {
  const uint32_t ls = (uint32_t)(d->tc[c].nl - r), ppx = d->tc[c].pp[r] & 15u, ppy = (uint32_t)d->tc[c].pp[r] >> 4;
  uint32_t rx0, ry0, rx1, ry1, i, j;
  const uint32_t rpx = ppx + ls, rpy = ppy + ls;
  if (!d->npw[c][r] || !d->nph[c][r]) return 0;
  onnxc_jp2_res(d, c, r, &rx0, &ry0, &rx1, &ry1);
  if (rpx >= 40 || rpy >= 40) return 0;
  if (!((y & (((uint64_t)1 << rpy) - 1)) == 0 || (y == d->ty0 && (ry0 & ((1u << ppy) - 1)) != 0))) return 0;
  if (!((x & (((uint64_t)1 << rpx) - 1)) == 0 || (x == d->tx0 && (rx0 & ((1u << ppx) - 1)) != 0))) return 0;
  i = (onnxc_jp2_cdiv(x, ls) >> ppx) - (rx0 >> ppx);
  j = (onnxc_jp2_cdiv(y, ls) >> ppy) - (ry0 >> ppy);
  if (i >= d->npw[c][r] || j >= d->nph[c][r]) return 0;
  *p = i + j * d->npw[c][r];
  return 1;
}

/* the packet (l, r, c, p), or with POC its skip when an earlier progression has read it */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_pk(onnxc_jp2_dec *d, int c, int r, uint32_t p, int l, int pass) {
  if (d->tnpoc) {
    uint16_t *n = d->lnext + d->precbase[c][r] + p * (r ? 3u : 1u);
    if (l != *n) return 0;
    (*n)++;
  }
  return onnxc_jp2_packet(d, c, r, p, l, pass);
}

/* the packets of layers [0, L), resolutions [r0, r1), components [c0, c1) in progression order
   prog (B.12.1); sx, sy: the smallest precinct size on the reference grid (log2) */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_vol(onnxc_jp2_dec *d, int pass, int prog, int L, int r0, int r1, int c0, int c1,
                                            uint32_t sx, uint32_t sy) {
  int c, r, l, a, o, i;
  uint32_t p;
  uint64_t x, y;
  if (L <= 0 || r0 >= r1 || c0 >= c1) return 0;
  if (prog <= 1) { /* LRCP, RLCP */
    for (a = prog ? r0 : 0; a < (prog ? r1 : L); a++)
      for (o = prog ? 0 : r0; o < (prog ? L : r1); o++) {
        l = prog ? o : a, r = prog ? a : o;
        for (c = c0; c < c1; c++) {
          if (r > d->tc[c].nl) continue;
          for (p = 0; p < d->npw[c][r] * d->nph[c][r] && !d->eod; p++)
            if (onnxc_jp2_pk(d, c, r, p, l, pass)) return 1;
        }
        if (d->eod) return 0;
      }
    return 0;
  }
  /* RPCL (outer r), PCRL (outer none), CPRL (outer c) */
  for (o = prog == 2 ? r0 : prog == 4 ? c0 : 0; o < (prog == 2 ? r1 : prog == 4 ? c1 : 1); o++)
    for (y = d->ty0; y < d->ty1; y = ((y >> sy) + 1) << sy)
      for (x = d->tx0; x < d->tx1; x = ((x >> sx) + 1) << sx)
        for (i = 0; i < (prog == 2 ? c1 - c0 : prog == 3 ? (c1 - c0) * (r1 - r0) : r1 - r0); i++) {
          c = prog == 2 ? c0 + i : prog == 3 ? c0 + i / (r1 - r0) : o;
          r = prog == 2 ? o : r0 + i % (r1 - r0);
          if (r > d->tc[c].nl || !onnxc_jp2_ppos(d, c, r, x, y, &p)) continue;
          for (l = 0; l < L; l++)
            if (onnxc_jp2_pk(d, c, r, p, l, pass)) return 1;
          if (d->eod) return 0;
        }
  return 0;
}

/* all packets of the tile in its progression order, or with POC the volumes of its entries in
   turn (B.12.2), each packet read the first time it comes up */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_prog(onnxc_jp2_dec *d, int pass) {
  const int nc = d->nc;
  int maxr = 0, c, r, k;
  uint32_t sx = 40, sy = 40, i;
  for (c = 0; c < nc; c++) {
    if (d->tc[c].nl + 1 > maxr) maxr = d->tc[c].nl + 1;
    for (r = 0; r <= d->tc[c].nl; r++) {
      const uint32_t ls = (uint32_t)(d->tc[c].nl - r), px = (d->tc[c].pp[r] & 15u) + ls, py = ((uint32_t)d->tc[c].pp[r] >> 4) + ls;
      if (px < sx) sx = px;
      if (py < sy) sy = py;
    }
  }
  d->tnpoc = d->tnpoc0;
  if (d->tnpoc)
    for (i = 0; i < d->nrec; i++) d->lnext[i] = 0;
  for (k = 0; k < d->tnpoc && !d->eod; k++) {
    const onnxc_jp2_poc *e = d->tpoc + k;
    const int L = e->lye < d->tlayers ? e->lye : d->tlayers, r1 = e->re < maxr ? e->re : maxr, c1 = e->ce < nc ? e->ce : nc;
    if (onnxc_jp2_vol(d, pass, e->pr, L, e->rs, r1, e->cs, c1, sx, sy)) return 1;
    /* the entries done and the part's data too: a later part's header may bring more */
    while (k + 1 == d->tnpoc && !d->eod && d->pos >= d->end)
      if (onnxc_jp2_nextpart(d)) d->eod = 1;
  }
  if (d->tnpoc) {
    /* every packet in some entry's volume: all the layers of each resolution of each component
       (POC entries that leave packets out make a codestream that does not conform; refused) */
    for (c = 0; c < nc; c++)
      for (r = 0; r <= d->tc[c].nl; r++) {
        for (k = 0; k < d->tnpoc; k++) {
          const onnxc_jp2_poc *e = d->tpoc + k;
          if (e->rs <= r && r < e->re && e->cs <= c && c < e->ce && e->lye >= d->tlayers) break;
        }
        if (k == d->tnpoc) return 1;
      }
  }
  if (d->tnpoc) return 0;
  return onnxc_jp2_vol(d, pass, d->tprog, d->tlayers, 0, maxr, 0, nc, sx, sy);
}

/* ---- inverse wavelet transforms (Annex F, with OpenJPEG's arithmetic) ---- */
ONNXC_MAYBE_UNUSED static int32_t onnxc_jp2_clip(int64_t v) {
  return (int32_t)(v < -1073741824 ? -1073741824 : v > 1073741824 ? 1073741824 : v);
}

/* x[0..n) interleaved, x[0] at an odd position when cas; the 5/3 synthesis in place */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static void onnxc_jp2_i53(int32_t *x, long n, int cas) {
  long k;
  if (n == 1) {
    if (cas) x[0] /= 2;
    return;
  }
  for (k = cas; k < n; k += 2) { /* even positions */
    const int64_t a = k > 0 ? x[k - 1] : x[k + 1], b = k + 1 < n ? x[k + 1] : x[k - 1];
    const int64_t s = a + b + 2;
    x[k] = onnxc_jp2_clip(x[k] - (s >= 0 ? s / 4 : -((-s + 3) / 4)));
  }
  for (k = 1 - cas; k < n; k += 2) { /* odd positions */
    const int64_t a = k > 0 ? x[k - 1] : x[k + 1], b = k + 1 < n ? x[k + 1] : x[k - 1];
    const int64_t s = a + b;
    x[k] = onnxc_jp2_clip(x[k] + (s >= 0 ? s / 2 : -((-s + 1) / 2)));
  }
}

/* a product rounded to float before it is added: the 9/7 path's exactness against OpenJPEG must
   not depend on whether the compiler fuses a * b + c into one rounding (GCC does outside ISO C
   modes with FMA targets, -ffp-contract=fast; nvcc and NVRTC do by default) */
ONNXC_MAYBE_UNUSED static float onnxc_jp2_mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  volatile float p = a * b;
  return p;
#endif
}

ONNXC_MAYBE_UNUSED static void onnxc_jp2_lift(float *x, long n, long k0, float c) {
  long k;
  for (k = k0; k < n; k += 2) {
    const float a = k > 0 ? x[k - 1] : x[k + 1], b = k + 1 < n ? x[k + 1] : x[k - 1];
    x[k] = x[k] + onnxc_jp2_mul(a + b, c);
  }
}

/* the 9/7 synthesis in place, in float */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static void onnxc_jp2_i97(float *x, long n, int cas) {
  long k;
  if (n == 1) return;
  for (k = 0; k < n; k++) x[k] = x[k] * (((k + cas) & 1) ? 1.625732422f : 1.230174105f);
  onnxc_jp2_lift(x, n, cas, 0.443506852f * -1.0f);
  onnxc_jp2_lift(x, n, 1 - cas, 0.882911075f * -1.0f);
  onnxc_jp2_lift(x, n, cas, 0.052980118f);
  onnxc_jp2_lift(x, n, 1 - cas, 1.586134342f);
}

/* the inverse DWT of component c of the tile, its top-left sample at pl (row stride W) */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static void onnxc_jp2_idwt(onnxc_jp2_dec *d, int c, int32_t *pl) {
  const long st = (long)d->W;
  const int rev = d->tc[c].rev;
  int r;
  float *fl = (float *)(void *)d->line, *fp = (float *)(void *)pl;
  int32_t *il = d->line;
  for (r = 1; r <= d->tc[c].nl; r++) {
    uint32_t rx0, ry0, rx1, ry1, lx0, ly0, lx1, ly1;
    long w, h, sw, sh, i, j;
    int cx, cy;
    onnxc_jp2_res(d, c, r, &rx0, &ry0, &rx1, &ry1);
    onnxc_jp2_res(d, c, r - 1, &lx0, &ly0, &lx1, &ly1);
    w = (long)(rx1 - rx0), h = (long)(ry1 - ry0), sw = (long)(lx1 - lx0), sh = (long)(ly1 - ly0);
    cx = (int)(rx0 & 1), cy = (int)(ry0 & 1);
    if (w == 0 || h == 0) continue;
    for (j = 0; j < h; j++) { /* rows */
      for (i = 0; i < w; i++) {
        const long src = j * st + (((i + cx) & 1 ? sw + (i - (1 - cx)) / 2 : (i - cx) / 2));
        if (rev) il[i] = pl[src];
        else fl[i] = fp[src];
      }
      if (rev) onnxc_jp2_i53(il, w, cx);
      else onnxc_jp2_i97(fl, w, cx);
      for (i = 0; i < w; i++) {
        if (rev) pl[j * st + i] = il[i];
        else fp[j * st + i] = fl[i];
      }
    }
    for (i = 0; i < w; i++) { /* columns */
      for (j = 0; j < h; j++) {
        const long src = ((j + cy) & 1 ? sh + (j - (1 - cy)) / 2 : (j - cy) / 2) * st + i;
        if (rev) il[j] = pl[src];
        else fl[j] = fp[src];
      }
      if (rev) onnxc_jp2_i53(il, h, cy);
      else onnxc_jp2_i97(fl, h, cy);
      for (j = 0; j < h; j++) {
        if (rev) pl[j * st + i] = il[j];
        else fp[j * st + i] = fl[j];
      }
    }
  }
}

/* ---- tile reconstruction ---- */
/* tier-1 decoding of all code-blocks of component c into the tile's coefficients at pl */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_blocks(onnxc_jp2_dec *d, int c, int32_t *pl) {
  const onnxc_jp2_comp *k = &d->tc[c];
  const long st = (long)d->W;
  float *fp = (float *)(void *)pl;
  int r, b;
  uint32_t p, j;
  for (r = 0; r <= k->nl; r++) {
    uint32_t lx0 = 0, ly0 = 0, lx1 = 0, ly1 = 0;
    if (r) onnxc_jp2_res(d, c, r - 1, &lx0, &ly0, &lx1, &ly1);
    for (b = r ? 1 : 0; b <= (r ? 3 : 0); b++) {
      const uint32_t bi = r ? 3u * (uint32_t)(r - 1) + (uint32_t)b : 0;
      const long ox = (b & 1) ? (long)(lx1 - lx0) : 0, oy = (b & 2) ? (long)(ly1 - ly0) : 0;
      uint32_t bx0, by0, bx1, by1, mant;
      int expn, mb, e;
      float step = 1.0f;
      onnxc_jp2_band(d, c, r, b, &bx0, &by0, &bx1, &by1);
      if (k->qstyle == 1) { /* derived from the LL sub-band's */
        expn = (int)(k->step[0] >> 11) - (r ? r - 1 : 0);
        if (expn < 0) expn = 0;
        mant = k->step[0] & 0x7ffu;
      } else {
        if (bi >= k->nsteps) return 1;
        expn = (int)(k->step[bi] >> 11), mant = k->step[bi] & 0x7ffu;
      }
      mb = k->guard + expn - 1;
      /* OpenJPEG's step: (1 + mant / 2^11) 2^(8 - expn), halved for its extra magnitude bit */
      step = 1.0f + (float)mant / 2048.0f;
      for (e = 8 - expn; e > 0; e--) step *= 2.0f;
      for (e = 8 - expn; e < 0; e++) step *= 0.5f;
      step *= 0.5f;
      for (p = 0; p < d->npw[c][r] * d->nph[c][r]; p++) {
        const onnxc_jp2_prec *rc = d->prec + d->precbase[c][r] + p * (r ? 3u : 1u) + (uint32_t)(r ? b - 1 : 0);
        uint32_t x0, y0, x1, y1, xc, yc;
        onnxc_jp2_pband(d, c, r, p, b, &x0, &y0, &x1, &y1, &xc, &yc);
        for (j = 0; j < (uint32_t)rc->w * rc->h; j++) {
          const onnxc_jp2_cb *cb = d->cb + rc->cb + j;
          const uint64_t gx = (uint64_t)((x0 >> xc) + j % rc->w) << xc, gy = (uint64_t)((y0 >> yc) + j / rc->w) << yc;
          const uint32_t cx0 = gx > x0 ? (uint32_t)gx : x0, cy0 = gy > y0 ? (uint32_t)gy : y0;
          const uint32_t cx1 = gx + ((uint64_t)1 << xc) < x1 ? (uint32_t)(gx + ((uint64_t)1 << xc)) : x1;
          const uint32_t cy1 = gy + ((uint64_t)1 << yc) < y1 ? (uint32_t)(gy + ((uint64_t)1 << yc)) : y1;
          long xx, yy;
          if (!cb->npasses || cx1 <= cx0 || cy1 <= cy0) continue;
          if (cb->zbp > mb || mb - cb->zbp > 30) return 1;
          if (onnxc_jp2_t1(d->arena + cb->off + 2 * (uint32_t)cb->nseg, cb->len, d->arena + cb->off, cb->nseg, d->coef, d->flags,
                           cx1 - cx0, cy1 - cy0, b, k->style, mb - cb->zbp, cb->npasses))
            return 1;
          for (yy = 0; yy < (long)(cy1 - cy0); yy++)
            for (xx = 0; xx < (long)(cx1 - cx0); xx++) {
              const int32_t v = d->coef[yy * (long)(cx1 - cx0) + xx];
              const long o = (oy + (long)(cy0 - by0) + yy) * st + ox + (long)(cx0 - bx0) + xx;
              if (k->rev) pl[o] = v / 2;
              else fp[o] = (float)v * step;
            }
        }
      }
    }
  }
  return 0;
}

/* round to nearest, ties to even (lrintf), clamped to +-2^30 */
ONNXC_MAYBE_UNUSED static int32_t onnxc_jp2_rint(float v) {
  int32_t t;
  float f;
  if (!(v == v) || v <= -1073741824.0f) return -1073741824;
  if (v >= 1073741824.0f) return 1073741824;
  t = (int32_t)v, f = v - (float)t;
  if (f > 0.5f || (f == 0.5f && (t & 1))) t++;
  else if (f < -0.5f || (f == -0.5f && (t & 1))) t--;
  return t;
}

ONNXC_MAYBE_UNUSED static unsigned char onnxc_jp2_u8(int64_t v) {
  v += 128;
  return (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* the tile's samples into rgb: inverse component transform, DC level shift, clamp */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static void onnxc_jp2_out(onnxc_jp2_dec *d, unsigned char *rgb, int nout) {
  const int mct = d->tmct && d->nc >= 3;
  uint32_t x, y;
  int c;
  for (y = d->ty0; y < d->ty1; y++)
    for (x = d->tx0; x < d->tx1; x++) {
      const long o = (long)(y - d->Y0) * (long)d->W + (long)(x - d->X0);
      unsigned char *q = rgb + 3 * o;
      if (mct && d->tc[0].rev) {
        const int64_t y0 = d->plane[0][o], u = d->plane[1][o], v = d->plane[2][o], s = u + v;
        const int64_t g = y0 - (s >= 0 ? s / 4 : -((-s + 3) / 4));
        q[0] = onnxc_jp2_u8(v + g), q[1] = onnxc_jp2_u8(g), q[2] = onnxc_jp2_u8(u + g);
      } else if (mct) {
        const float y0 = ((float *)(void *)d->plane[0])[o], u = ((float *)(void *)d->plane[1])[o], v = ((float *)(void *)d->plane[2])[o];
        const float r = y0 + onnxc_jp2_mul(v, 1.402f), g = y0 - onnxc_jp2_mul(u, 0.34413f) - onnxc_jp2_mul(v, 0.71414f);
        const float bb = y0 + onnxc_jp2_mul(u, 1.772f);
        q[0] = onnxc_jp2_u8(onnxc_jp2_rint(r)), q[1] = onnxc_jp2_u8(onnxc_jp2_rint(g)), q[2] = onnxc_jp2_u8(onnxc_jp2_rint(bb));
      } else {
        for (c = 0; c < nout; c++)
          q[c] = d->tc[c].rev ? onnxc_jp2_u8(d->plane[c][o]) : onnxc_jp2_u8(onnxc_jp2_rint(((float *)(void *)d->plane[c])[o]));
        if (nout == 1) q[1] = q[2] = q[0];
      }
    }
}

ONNXC_MAYBE_UNUSED static void onnxc_jp2_reset(onnxc_jp2_dec *d) {
  uint32_t i;
  for (i = 0; i < d->ncb; i++) {
    onnxc_jp2_cb *cb = d->cb + i;
    cb->len = cb->plen = 0, cb->npasses = 0, cb->lblock = cb->zbp = 0; /* nseg kept: pass 1's count */
  }
  for (i = 0; i < d->ntt; i++) d->tt[2 * i] = 0xffff, d->tt[2 * i + 1] = 0;
}

/* decodes the tile d->tile, whose first part's body is [d->pos, d->end) */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_tile(onnxc_jp2_dec *d, unsigned char *rgb) {
  const uint32_t tp = (uint32_t)d->tile % d->ntx, tq = (uint32_t)d->tile / d->ntx;
  const uint64_t ax = (uint64_t)d->TX0 + (uint64_t)tp * d->TW, ay = (uint64_t)d->TY0 + (uint64_t)tq * d->TH;
  const uint32_t pos = d->pos, end = d->end;
  const int nout = d->nc >= 3 ? 3 : 1;
  uint32_t i, sum = 0;
  int c;
  d->tx0 = ax > d->X0 ? (uint32_t)ax : d->X0, d->ty0 = ay > d->Y0 ? (uint32_t)ay : d->Y0;
  d->tx1 = ax + d->TW < d->X1 ? (uint32_t)(ax + d->TW) : d->X1, d->ty1 = ay + d->TH < d->Y1 ? (uint32_t)(ay + d->TH) : d->Y1;
  if (d->tx1 <= d->tx0 || d->ty1 <= d->ty0) return 1;
  if (d->tmct && d->nc >= 3 && (d->tc[0].rev != d->tc[1].rev || d->tc[0].rev != d->tc[2].rev)) return 1;
  if (onnxc_jp2_layout(d)) return 1;
  /* pass 1: the code-blocks' data lengths; pass 2: their data, each code-block's contiguous */
  onnxc_jp2_reset(d);
  for (i = 0; i < d->ncb; i++) d->cb[i].off = 0, d->cb[i].nseg = 0;
  d->eod = 0, d->tpno = 0;
  if (onnxc_jp2_prog(d, 1)) return 1;
  for (i = 0; i < d->ncb; i++) { /* each code-block's segment lengths, then its data */
    const uint32_t t = 2u * d->cb[i].nseg;
    d->cb[i].off = sum;
    if (t > d->arenasz - sum || d->cb[i].len > d->arenasz - sum - t) return 1;
    sum += t + d->cb[i].len;
  }
  onnxc_jp2_reset(d);
  for (i = 0; i < sum; i++) d->arena[i] = 0;
  d->pos = pos, d->end = end, d->eod = 0, d->tpno = 0;
  if (onnxc_jp2_prog(d, 2)) return 1;
  for (c = 0; c < nout; c++) {
    int32_t *pl = d->plane[c] + (long)(d->ty0 - d->Y0) * (long)d->W + (long)(d->tx0 - d->X0);
    uint32_t x, y;
    for (y = 0; y < d->ty1 - d->ty0; y++)
      for (x = 0; x < d->tx1 - d->tx0; x++) {
        if (d->tc[c].rev) pl[(long)y * (long)d->W + (long)x] = 0;
        else ((float *)(void *)pl)[(long)y * (long)d->W + (long)x] = 0.0f;
      }
    if (onnxc_jp2_blocks(d, c, pl)) return 1;
    onnxc_jp2_idwt(d, c, pl);
  }
  onnxc_jp2_out(d, rgb, nout);
  return 0;
}

/* the boxes of a JP2 header box at s[0..n): refuses palettes, component mappings, channel
   re-associations and colour spaces other than sRGB and gray */
ONNXC_MAYBE_UNUSED ONNXC_JP2_NOINLINE static int onnxc_jp2_jp2h(const unsigned char *s, uint32_t n) {
  uint32_t pos = 0;
  while (n - pos >= 8) {
    uint32_t L = onnxc_jp2_be32(s + pos), hdr = 8;
    const unsigned char *t = s + pos + 4, *b;
    if (L == 0) L = n - pos;
    if (L < hdr || L > n - pos) return 1;
    b = s + pos + hdr;
    if ((t[0] == 'p' && t[1] == 'c' && t[2] == 'l' && t[3] == 'r') || (t[0] == 'c' && t[1] == 'm' && t[2] == 'a' && t[3] == 'p'))
      return 1;
    if (t[0] == 'c' && t[1] == 'o' && t[2] == 'l' && t[3] == 'r') {
      if (L - hdr < 3 || b[0] < 1 || b[0] > 2) return 1;
      if (b[0] == 1) {
        uint32_t e;
        if (L - hdr < 7) return 1;
        e = onnxc_jp2_be32(b + 3);
        if (e != 16 && e != 17) return 1;
      }
    }
    if (t[0] == 'c' && t[1] == 'd' && t[2] == 'e' && t[3] == 'f') {
      uint32_t k, cnt;
      if (L - hdr < 2) return 1;
      cnt = onnxc_jp2_be16(b);
      if ((L - hdr - 2) / 6 < cnt) return 1;
      for (k = 0; k < cnt; k++) {
        const uint32_t cn = onnxc_jp2_be16(b + 2 + 6 * k), as = onnxc_jp2_be16(b + 6 + 6 * k);
        if (as != 0 && as != 65535 && as - 1 != cn) return 1;
      }
    }
    pos += L;
  }
  return 0;
}

/* Decodes the JPEG 2000 image s[0..n) into rgb (H x W x 3).  Scratch:
   20 W H + 4 (W + H) + 2 n + 131072 bytes. */
ONNXC_MAYBE_UNUSED static int onnxc_img_jp2(const unsigned char *s, long n, unsigned char *rgb, long H, long W, unsigned char *scr) {
  const unsigned char *cs = (const unsigned char *)0;
  uint32_t cslen = 0, p, L, i, last = 0xffffffffu, ndone = 0;
  uint64_t total, used, plane;
  unsigned char *base;
  onnxc_jp2_dec *d;
  int c;
  if (n < 4 || n > 0x7fffffffL || H <= 0 || W <= 0) return ONNXC_IMG_BAD;
  if (n >= 12 && onnxc_jp2_be32(s) == 12 && s[4] == 'j' && s[5] == 'P' && s[6] == ' ' && s[7] == ' ' &&
      onnxc_jp2_be32(s + 8) == 0x0d0a870aUL) {
    uint32_t pos = 12;
    while ((uint32_t)n - pos >= 8) {
      uint32_t hdr = 8;
      const unsigned char *t = s + pos + 4;
      L = onnxc_jp2_be32(s + pos);
      if (L == 1) {
        if ((uint32_t)n - pos < 16 || onnxc_jp2_be32(s + pos + 8) != 0) return ONNXC_IMG_BAD;
        L = onnxc_jp2_be32(s + pos + 12), hdr = 16;
      } else if (L == 0) {
        L = (uint32_t)n - pos;
      }
      if (L < hdr || L > (uint32_t)n - pos) return ONNXC_IMG_BAD;
      if (t[0] == 'j' && t[1] == 'p' && t[2] == '2' && t[3] == 'h' && onnxc_jp2_jp2h(s + pos + hdr, L - hdr)) return ONNXC_IMG_BAD;
      if (t[0] == 'j' && t[1] == 'p' && t[2] == '2' && t[3] == 'c') {
        cs = s + pos + hdr, cslen = L - hdr;
        break;
      }
      pos += L;
    }
  } else {
    cs = s, cslen = (uint32_t)n;
  }
  if (!cs || cslen < 4 || cs[0] != 0xff || cs[1] != 0x4f || cs[2] != 0xff || cs[3] != 0x51) return ONNXC_IMG_BAD;
  /* scratch */
  plane = (uint64_t)W * (uint64_t)H * 4;
  total = 5 * plane + 4 * ((uint64_t)W + (uint64_t)H) + 2 * (uint64_t)n + 131072 - 8;
  base = scr + ((8 - (uint32_t)((uintptr_t)scr & 7)) & 7);
  d = (onnxc_jp2_dec *)(void *)base;
  for (i = 0; i < sizeof(onnxc_jp2_dec); i++) base[i] = 0;
  used = (sizeof(onnxc_jp2_dec) + 7) & ~(uint64_t)7;
  d->done = base + used, used += 8192;
  d->coef = (int32_t *)(void *)(base + used), used += 16384;
  d->flags = base + used, used += 6400;
  d->line = (int32_t *)(void *)(base + used), used += (4 * (uint64_t)(W > H ? W : H) + 8 + 7) & ~(uint64_t)7;
  for (c = 0; c < 3; c++) d->plane[c] = (int32_t *)(void *)(base + used), used += (plane + 7) & ~(uint64_t)7;
  d->arena = base + used, d->arenasz = 2 * (uint32_t)n, used += (2 * (uint64_t)n + 7) & ~(uint64_t)7;
  if (used >= total) return ONNXC_IMG_BAD;
  d->pool = base + used, d->poolsz = total - used;
  d->cs = cs, d->cslen = cslen;
  /* SIZ */
  if (cslen < 6) return ONNXC_IMG_BAD;
  L = onnxc_jp2_be16(cs + 4);
  if (L < 41 || L > cslen - 4) return ONNXC_IMG_BAD;
  d->X1 = onnxc_jp2_be32(cs + 8), d->Y1 = onnxc_jp2_be32(cs + 12), d->X0 = onnxc_jp2_be32(cs + 16), d->Y0 = onnxc_jp2_be32(cs + 20);
  d->TW = onnxc_jp2_be32(cs + 24), d->TH = onnxc_jp2_be32(cs + 28), d->TX0 = onnxc_jp2_be32(cs + 32), d->TY0 = onnxc_jp2_be32(cs + 36);
  d->nc = (int)onnxc_jp2_be16(cs + 40);
  if (d->nc < 1 || d->nc > 4 || L != 38u + 3u * (uint32_t)d->nc) return ONNXC_IMG_BAD;
  for (c = 0; c < d->nc; c++)
    if (cs[42 + 3 * c] != 7 || cs[43 + 3 * c] != 1 || cs[44 + 3 * c] != 1) return ONNXC_IMG_BAD;
  if (d->X1 <= d->X0 || d->Y1 <= d->Y0 || !d->TW || !d->TH || d->TX0 > d->X0 || d->TY0 > d->Y0 ||
      (uint64_t)d->TX0 + d->TW <= d->X0 || (uint64_t)d->TY0 + d->TH <= d->Y0)
    return ONNXC_IMG_BAD;
  if ((uint64_t)(d->X1 - d->X0) != (uint64_t)W || (uint64_t)(d->Y1 - d->Y0) != (uint64_t)H) return ONNXC_IMG_SIZE;
  d->W = (uint32_t)W, d->H = (uint32_t)H;
  d->ntx = (uint32_t)(((uint64_t)d->X1 - d->TX0 + d->TW - 1) / d->TW);
  d->nty = (uint32_t)(((uint64_t)d->Y1 - d->TY0 + d->TH - 1) / d->TH);
  if ((uint64_t)d->ntx * d->nty > 65535) return ONNXC_IMG_BAD;
  d->nt = d->ntx * d->nty;
  /* the rest of the main header */
  p = 4 + L;
  for (;;) {
    uint32_t m;
    if (cslen - p < 4) return ONNXC_IMG_BAD;
    m = onnxc_jp2_be16(cs + p);
    if (m == 0xff90) break;
    L = onnxc_jp2_be16(cs + p + 2);
    if ((m >> 8) != 0xff || L < 2 || L > cslen - p - 2) return ONNXC_IMG_BAD;
    if (m == 0xff52 || m == 0xff53 || m == 0xff5c || m == 0xff5d || m == 0xff5f) {
      if (onnxc_jp2_param(d, m, cs + p + 4, L - 2, 0)) return ONNXC_IMG_BAD;
    } else if (m == 0xff51 || m == 0xff5e || m == 0xff60 || m == 0xff90 || m == 0xff93 || m == 0xffd9) {
      return ONNXC_IMG_BAD; /* SIZ again, RGN, PPM */
    }
    p += 2 + L;
  }
  if (!d->have_cod || !d->have_qcd) return ONNXC_IMG_BAD;
  for (i = 0; i < (d->nt + 7) / 8; i++) d->done[i] = 0;
  /* tile-parts */
  while (cslen - p >= 2) {
    uint32_t isot, body, bend;
    if (onnxc_jp2_be16(cs + p) == 0xffd9) break;
    if (cslen - p < 12 || onnxc_jp2_be16(cs + p) != 0xff90) return ONNXC_IMG_BAD;
    isot = onnxc_jp2_be16(cs + p + 4);
    if (isot == last) { /* a further part of the tile just decoded, its packets all read */
      if (onnxc_jp2_tphdr(d, p, 2, &isot, &body, &bend)) return ONNXC_IMG_BAD;
      p = bend;
      continue;
    }
    if (isot >= d->nt || (d->done[isot >> 3] >> (isot & 7) & 1)) return ONNXC_IMG_BAD;
    for (c = 0; c < d->nc; c++) onnxc_jp2_copycomp(&d->tc[c], &d->mc[c]), d->tcoc[c] = d->tqcc[c] = 0;
    d->tprog = d->mprog, d->tlayers = d->mlayers, d->tmct = d->mmct, d->tscod = d->mscod;
    for (i = 0; i < (uint32_t)d->mnpoc; i++) d->tpoc[i] = d->mpoc[i];
    d->tnpoc = d->mnpoc, d->townpoc = 0;
    if (onnxc_jp2_tphdr(d, p, 1, &isot, &body, &bend)) return ONNXC_IMG_BAD;
    d->tile = (int)isot, d->pos = body, d->end = bend, d->tnpoc0 = d->tnpoc;
    if (onnxc_jp2_tile(d, rgb)) return ONNXC_IMG_BAD;
    d->done[isot >> 3] = (unsigned char)(d->done[isot >> 3] | 1u << (isot & 7));
    ndone++, last = isot;
    p = d->end;
  }
  return ndone == d->nt ? 0 : ONNXC_IMG_BAD;
}
