/* ImageDecoder: encoded image bytes -> interleaved 8-bit RGB, in C with no allocation.

   Formats: baseline JPEG (below), BMP (uncompressed 24/32-bit, 8-bit with a palette; bottom-up or top-down rows),
   PNM (binary P5/P6 and text P2/P3, maxval 255), TIFF (baseline strips, 8 bits per sample,
   gray/RGB/RGBA chunky, no compression or PackBits), PNG (8-bit gray, gray+alpha, RGB, RGBA and
   palette images, not interlaced; zlib/deflate decoded here); WebP (lossy and lossless,
   image_webp.h) and JPEG 2000 (image_jp2.h), spliced in before this file.  Alpha is dropped;
   gray is replicated into R, G and B.

   The decoders trust nothing in the input: every read is checked against its length, and an
   image that is malformed, truncated or of a kind listed as unsupported gives ONNXC_ERR_IMAGE;
   one whose width and height differ from the compiled output's gives ONNXC_ERR_SHAPE.  Scratch:
   PNG the input length plus H * (1 + 4 W) bytes; JPEG 3 (W + 32) (H + 32) + 2 W bytes (at most
   three component planes, each refused beyond (W + 32) x (H + 32), and two chroma rows).  onnxc
   sizes the node's scratch by these (ops_extra.c image_decode_scratch). */

#define ONNXC_IMG_BAD 11 /* ONNXC_ERR_IMAGE */
#define ONNXC_IMG_SIZE 9 /* ONNXC_ERR_SHAPE */

ONNXC_MAYBE_UNUSED static unsigned onnxc_img_le16(const unsigned char *p) { return (unsigned)p[0] | (unsigned)p[1] << 8; }
ONNXC_MAYBE_UNUSED static unsigned long onnxc_img_le32(const unsigned char *p) {
  return (unsigned long)p[0] | (unsigned long)p[1] << 8 | (unsigned long)p[2] << 16 | (unsigned long)p[3] << 24;
}
ONNXC_MAYBE_UNUSED static unsigned long onnxc_img_be32(const unsigned char *p) {
  return (unsigned long)p[3] | (unsigned long)p[2] << 8 | (unsigned long)p[1] << 16 | (unsigned long)p[0] << 24;
}

/* the 4 bytes at p spell t (no memcmp: the CUDA target runs this as device code) */
ONNXC_MAYBE_UNUSED static int onnxc_img_tag(const unsigned char *p, const char *t) {
  return p[0] == (unsigned char)t[0] && p[1] == (unsigned char)t[1] && p[2] == (unsigned char)t[2] && p[3] == (unsigned char)t[3];
}

/* ---- BMP ---- */
ONNXC_MAYBE_UNUSED static int onnxc_img_bmp(const unsigned char *s, long n, unsigned char *rgb, long H, long W) {
  unsigned long off, dib, comp, ncol;
  long w, h, y, x, stride, bpp;
  int top;
  const unsigned char *pal;
  if (n < 54) return ONNXC_IMG_BAD;
  off = onnxc_img_le32(s + 10);
  dib = onnxc_img_le32(s + 14);
  if (dib < 40 || dib > (unsigned long)n - 14) return ONNXC_IMG_BAD;
  w = (long)(int32_t)onnxc_img_le32(s + 18);
  h = (long)(int32_t)onnxc_img_le32(s + 22);
  bpp = (long)onnxc_img_le16(s + 28);
  comp = onnxc_img_le32(s + 30);
  top = h < 0;
  if (top) h = -h;
  if (w <= 0 || h <= 0 || (comp != 0 && !(comp == 3 && bpp == 32))) return ONNXC_IMG_BAD;
  if (bpp != 24 && bpp != 32 && bpp != 8) return ONNXC_IMG_BAD;
  if (w != W || h != H) return ONNXC_IMG_SIZE;
  stride = (bpp * w + 31) / 32 * 4;
  if (off > (unsigned long)n || (unsigned long)n - off < (unsigned long)stride * (unsigned long)h) return ONNXC_IMG_BAD;
  /* 8-bit: palette of 4-byte B, G, R, x entries after the DIB header */
  ncol = onnxc_img_le32(s + 46);
  if (ncol == 0 || ncol > 256) ncol = 256;
  pal = s + 14 + dib;
  if (bpp == 8 && (14 + dib + 4 * ncol > off)) return ONNXC_IMG_BAD;
  for (y = 0; y < h; y++) {
    const unsigned char *r = s + off + (top ? y : h - 1 - y) * stride;
    unsigned char *d = rgb + y * w * 3;
    for (x = 0; x < w; x++, d += 3) {
      if (bpp == 8) {
        if (r[x] >= ncol) return ONNXC_IMG_BAD;
        d[0] = pal[4 * r[x] + 2], d[1] = pal[4 * r[x] + 1], d[2] = pal[4 * r[x]];
      } else {
        const unsigned char *p = r + x * (bpp / 8);
        d[0] = p[2], d[1] = p[1], d[2] = p[0];
      }
    }
  }
  return 0;
}

/* ---- PNM ---- */
/* The next header number at *i (skipping white space and # comments), or -1. */
ONNXC_MAYBE_UNUSED static long onnxc_img_pnm_num(const unsigned char *s, long n, long *i) {
  long v = 0, k = *i;
  for (;;) {
    while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r' || s[k] == '\f' || s[k] == '\v')) k++;
    if (k < n && s[k] == '#') {
      while (k < n && s[k] != '\n') k++;
      continue;
    }
    break;
  }
  if (k >= n || s[k] < '0' || s[k] > '9') return -1;
  while (k < n && s[k] >= '0' && s[k] <= '9') {
    v = v * 10 + (s[k++] - '0');
    if (v > 1000000000L) return -1;
  }
  *i = k;
  return v;
}

ONNXC_MAYBE_UNUSED static int onnxc_img_pnm(const unsigned char *s, long n, unsigned char *rgb, long H, long W) {
  long i = 2, w, h, mx, c, k, ch;
  const int kind = s[1] - '0'; /* 2, 3: text; 5, 6: binary; 2, 5 gray */
  w = onnxc_img_pnm_num(s, n, &i);
  h = onnxc_img_pnm_num(s, n, &i);
  mx = onnxc_img_pnm_num(s, n, &i);
  if (w <= 0 || h <= 0 || mx != 255) return mx > 0 && mx != 255 ? ONNXC_IMG_BAD : ONNXC_IMG_BAD;
  if (w != W || h != H) return ONNXC_IMG_SIZE;
  ch = kind == 3 || kind == 6 ? 3 : 1;
  if (kind >= 5) {
    if (i >= n) return ONNXC_IMG_BAD;
    i++; /* the one white space character after maxval */
    if (n - i < w * h * ch) return ONNXC_IMG_BAD;
  }
  for (k = 0; k < w * h; k++)
    for (c = 0; c < 3; c++) {
      long v;
      if (c >= ch) v = rgb[3 * k];
      else if (kind >= 5) v = s[i++];
      else if ((v = onnxc_img_pnm_num(s, n, &i)) < 0 || v > 255) return ONNXC_IMG_BAD;
      rgb[3 * k + c] = (unsigned char)v;
    }
  return 0;
}

/* ---- TIFF ---- */
typedef struct onnxc_tiff {
  const unsigned char *s;
  long n;
  int be;
} onnxc_tiff;

ONNXC_MAYBE_UNUSED static unsigned long onnxc_tiff_u(const onnxc_tiff *t, long at, int bytes) {
  unsigned long v = 0;
  int k;
  if (at < 0 || at > t->n - bytes) return 0;
  for (k = 0; k < bytes; k++) v |= (unsigned long)t->s[at + (t->be ? bytes - 1 - k : k)] << (8 * k);
  return v;
}

/* Value q of the entry at e (types SHORT 3 and LONG 4; inline when they fit 4 bytes). */
ONNXC_MAYBE_UNUSED static long onnxc_tiff_val(const onnxc_tiff *t, long e, unsigned long q) {
  const unsigned type = (unsigned)onnxc_tiff_u(t, e + 2, 2);
  const unsigned long cnt = onnxc_tiff_u(t, e + 4, 4);
  const int sz = type == 3 ? 2 : type == 4 ? 4 : 0;
  long at;
  if (!sz || q >= cnt) return -1;
  at = cnt * (unsigned long)sz <= 4 ? e + 8 : (long)onnxc_tiff_u(t, e + 8, 4);
  if (at < 0 || at > t->n - (long)(q + 1) * sz) return -1;
  return (long)onnxc_tiff_u(t, at + (long)q * sz, sz);
}

ONNXC_MAYBE_UNUSED static int onnxc_img_tiff(const unsigned char *s, long n, unsigned char *rgb, long H, long W) {
  onnxc_tiff t;
  long ifd, ne, k, w = -1, h = -1, comp = 1, photo = -1, spp = 1, rps = -1, planar = 1, bits_e = -1;
  long offs_e = -1, cnts_e = -1, nstrips, y = 0, strip;
  t.s = s, t.n = n, t.be = s[0] == 'M';
  ifd = (long)onnxc_tiff_u(&t, 4, 4);
  if (ifd < 8 || ifd > n - 2) return ONNXC_IMG_BAD;
  ne = (long)onnxc_tiff_u(&t, ifd, 2);
  if (ne > (n - ifd - 2) / 12) return ONNXC_IMG_BAD;
  for (k = 0; k < ne; k++) {
    const long e = ifd + 2 + 12 * k;
    switch (onnxc_tiff_u(&t, e, 2)) {
    case 256: w = onnxc_tiff_val(&t, e, 0); break;
    case 257: h = onnxc_tiff_val(&t, e, 0); break;
    case 258: bits_e = e; break;
    case 259: comp = onnxc_tiff_val(&t, e, 0); break;
    case 262: photo = onnxc_tiff_val(&t, e, 0); break;
    case 273: offs_e = e; break;
    case 277: spp = onnxc_tiff_val(&t, e, 0); break;
    case 278: rps = onnxc_tiff_val(&t, e, 0); break;
    case 279: cnts_e = e; break;
    case 284: planar = onnxc_tiff_val(&t, e, 0); break;
    default: break;
    }
  }
  if (w <= 0 || h <= 0 || offs_e < 0 || cnts_e < 0 || planar != 1 || (comp != 1 && comp != 32773)) return ONNXC_IMG_BAD;
  if (!((photo == 2 && (spp == 3 || spp == 4)) || (photo == 1 && (spp == 1 || spp == 2)))) return ONNXC_IMG_BAD;
  for (k = 0; k < spp; k++)
    if (bits_e >= 0 && onnxc_tiff_val(&t, bits_e, (unsigned long)k) != 8) return ONNXC_IMG_BAD;
  if (w != W || h != H) return ONNXC_IMG_SIZE;
  if (rps <= 0 || rps > h) rps = h;
  nstrips = (h + rps - 1) / rps;
  for (strip = 0; strip < nstrips; strip++) {
    const long at = onnxc_tiff_val(&t, offs_e, (unsigned long)strip), len = onnxc_tiff_val(&t, cnts_e, (unsigned long)strip);
    const long rows = h - y < rps ? h - y : rps, need = rows * w * spp;
    long i = 0, o = 0;
    if (at < 0 || len < 0 || at > n || len > n - at) return ONNXC_IMG_BAD;
    /* samples of this strip, unpacked on the fly: o counts samples written */
    while (o < need) {
      long run = 1, lit = 1, r;
      unsigned char v = 0;
      if (comp == 1) {
        if (i >= len) return ONNXC_IMG_BAD;
        v = s[at + i++];
        lit = 0;
      } else {
        /* PackBits: a header byte hd; 0..127: hd + 1 literal bytes; -127..-1: the next byte 1 - hd times */
        int hd;
        if (i >= len) return ONNXC_IMG_BAD;
        hd = (int)(signed char)s[at + i++];
        if (hd == -128) continue;
        if (hd < 0) {
          if (i >= len) return ONNXC_IMG_BAD;
          run = 1 - hd, v = s[at + i++], lit = 0;
        } else {
          run = hd + 1;
        }
      }
      for (r = 0; r < run && o < need; r++, o++) {
        const long px = y * w + o / spp, c = o % spp;
        unsigned char b = v;
        if (lit) {
          if (i >= len) return ONNXC_IMG_BAD;
          b = s[at + i++];
        }
        if (photo == 1) {
          if (c == 0) rgb[3 * px] = rgb[3 * px + 1] = rgb[3 * px + 2] = b;
        } else if (c < 3) {
          rgb[3 * px + c] = b;
        }
      }
    }
    y += rows;
  }
  return 0;
}

/* ---- PNG: zlib inflate (RFC 1950/1951) and the PNG row filters ---- */
typedef struct onnxc_infl {
  const unsigned char *s;
  long n, pos;
  unsigned long bitbuf;
  int bitcnt;
  unsigned char *o;
  long olen, ocap;
} onnxc_infl;

/* n bits, least significant first; -1 past the end */
ONNXC_MAYBE_UNUSED static long onnxc_infl_bits(onnxc_infl *z, int n) {
  long v;
  while (z->bitcnt < n) {
    if (z->pos >= z->n) return -1;
    z->bitbuf |= (unsigned long)z->s[z->pos++] << z->bitcnt;
    z->bitcnt += 8;
  }
  v = (long)(z->bitbuf & ((1UL << n) - 1UL));
  z->bitbuf >>= n;
  z->bitcnt -= n;
  return v;
}

/* A canonical Huffman code: count[len] codes of each length (1..15), sym in code order. */
typedef struct onnxc_huff {
  short count[16];
  short sym[288];
} onnxc_huff;

/* Builds h from the code lengths; 0, or -1 for an over-subscribed set. */
ONNXC_MAYBE_UNUSED static int onnxc_huff_build(onnxc_huff *h, const unsigned char *len, int n) {
  short offs[16];
  int i, left = 1;
  for (i = 0; i < 16; i++) h->count[i] = 0;
  for (i = 0; i < n; i++) h->count[len[i]]++;
  for (i = 1; i < 16; i++) {
    left <<= 1;
    left -= h->count[i];
    if (left < 0) return -1;
  }
  offs[1] = 0;
  for (i = 1; i < 15; i++) offs[i + 1] = (short)(offs[i] + h->count[i]);
  for (i = 0; i < n; i++)
    if (len[i]) h->sym[offs[len[i]]++] = (short)i;
  return 0;
}

/* One symbol: the code read bit by bit (Huffman codes are stored most significant bit first)
   and compared with the first code of each length; -1 on a bad code or the end of data. */
ONNXC_MAYBE_UNUSED static int onnxc_huff_decode(onnxc_infl *z, const onnxc_huff *h) {
  int code = 0, first = 0, index = 0, len;
  for (len = 1; len < 16; len++) {
    const long b = onnxc_infl_bits(z, 1);
    int cnt;
    if (b < 0) return -1;
    code |= (int)b;
    cnt = h->count[len];
    if (code - first < cnt) return h->sym[index + code - first];
    index += cnt;
    first += cnt;
    first <<= 1;
    code <<= 1;
  }
  return -1;
}

ONNXC_MAYBE_UNUSED static int onnxc_infl_codes(onnxc_infl *z, const onnxc_huff *lit, const onnxc_huff *dst) {
  static const short lbase[29] = {3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                  35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
  static const short lext[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
  static const unsigned short dbase[30] = {1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193,
                                           257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
  static const short dext[30] = {0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
  for (;;) {
    int sym = onnxc_huff_decode(z, lit);
    if (sym < 0) return -1;
    if (sym < 256) {
      if (z->olen >= z->ocap) return -1;
      z->o[z->olen++] = (unsigned char)sym;
    } else if (sym == 256) {
      return 0;
    } else {
      long len, dist, e;
      sym -= 257;
      if (sym >= 29) return -1;
      e = onnxc_infl_bits(z, lext[sym]);
      if (e < 0) return -1;
      len = lbase[sym] + e;
      sym = onnxc_huff_decode(z, dst);
      if (sym < 0 || sym >= 30) return -1;
      e = onnxc_infl_bits(z, dext[sym]);
      if (e < 0) return -1;
      dist = (long)dbase[sym] + e;
      if (dist > z->olen || len > z->ocap - z->olen) return -1;
      for (; len > 0; len--, z->olen++) z->o[z->olen] = z->o[z->olen - dist];
    }
  }
}

/* Inflates the zlib stream s[0..n) into o (at most ocap bytes); the length, or -1. */
ONNXC_MAYBE_UNUSED static long onnxc_inflate(const unsigned char *s, long n, unsigned char *o, long ocap) {
  onnxc_infl z;
  onnxc_huff lit, dst;
  unsigned char len[320];
  int last = 0, i;
  if (n < 2 || (s[0] & 15) != 8 || ((unsigned)s[0] << 8 | s[1]) % 31 != 0 || (s[1] & 32)) return -1;
  z.s = s, z.n = n, z.pos = 2, z.bitbuf = 0, z.bitcnt = 0, z.o = o, z.olen = 0, z.ocap = ocap;
  while (!last) {
    long type;
    last = (int)onnxc_infl_bits(&z, 1);
    type = onnxc_infl_bits(&z, 2);
    if (last < 0 || type < 0) return -1;
    if (type == 0) { /* stored: byte aligned LEN, NLEN, then LEN bytes */
      long L;
      z.bitbuf = 0, z.bitcnt = 0;
      if (z.pos > z.n - 4) return -1;
      L = (long)onnxc_img_le16(s + z.pos);
      if ((L ^ 0xffff) != (long)onnxc_img_le16(s + z.pos + 2)) return -1;
      z.pos += 4;
      if (L > z.n - z.pos || L > z.ocap - z.olen) return -1;
      for (i = 0; i < L; i++) z.o[z.olen++] = s[z.pos++];
    } else if (type == 1) { /* fixed codes */
      for (i = 0; i < 144; i++) len[i] = 8;
      for (; i < 256; i++) len[i] = 9;
      for (; i < 280; i++) len[i] = 7;
      for (; i < 288; i++) len[i] = 8;
      onnxc_huff_build(&lit, len, 288);
      for (i = 0; i < 30; i++) len[i] = 5;
      onnxc_huff_build(&dst, len, 30);
      if (onnxc_infl_codes(&z, &lit, &dst)) return -1;
    } else if (type == 2) { /* dynamic codes: code lengths coded with a code-length code */
      static const unsigned char ord[19] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
      const long nlen = onnxc_infl_bits(&z, 5) + 257, ndist = onnxc_infl_bits(&z, 5) + 1, ncode = onnxc_infl_bits(&z, 4) + 4;
      onnxc_huff cl;
      long k = 0;
      if (nlen < 257 || ndist < 1 || ncode < 4 || nlen > 286 || ndist > 30) return -1;
      for (i = 0; i < 19; i++) len[ord[i]] = 0;
      for (i = 0; i < ncode; i++) {
        const long b = onnxc_infl_bits(&z, 3);
        if (b < 0) return -1;
        len[ord[i]] = (unsigned char)b;
      }
      if (onnxc_huff_build(&cl, len, 19)) return -1;
      while (k < nlen + ndist) {
        int sym = onnxc_huff_decode(&z, &cl), rep;
        unsigned char v = 0;
        long e;
        if (sym < 0) return -1;
        if (sym < 16) {
          len[k++] = (unsigned char)sym;
          continue;
        }
        if (sym == 16) {
          if (k == 0) return -1;
          v = len[k - 1];
          e = onnxc_infl_bits(&z, 2), rep = 3;
        } else if (sym == 17) {
          e = onnxc_infl_bits(&z, 3), rep = 3;
        } else {
          e = onnxc_infl_bits(&z, 7), rep = 11;
        }
        if (e < 0 || k + rep + e > nlen + ndist) return -1;
        for (rep += (int)e; rep > 0; rep--) len[k++] = v;
      }
      if (len[256] == 0) return -1;
      if (onnxc_huff_build(&lit, len, (int)nlen) || onnxc_huff_build(&dst, len + nlen, (int)ndist)) return -1;
      if (onnxc_infl_codes(&z, &lit, &dst)) return -1;
    } else {
      return -1;
    }
  }
  return z.olen;
}

ONNXC_MAYBE_UNUSED static int onnxc_img_paeth(int a, int b, int c) {
  const int p = a + b - c, pa = p > a ? p - a : a - p, pb = p > b ? p - b : b - p, pc = p > c ? p - c : c - p;
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

ONNXC_MAYBE_UNUSED static int onnxc_img_png(const unsigned char *s, long n, unsigned char *rgb, long H, long W,
                                            unsigned char *scr) {
  long pos = 8, zlen = 0, w = 0, h = 0, y, x, bpp, row, raw;
  int depth = 0, ctype = -1, have_hdr = 0, npal = 0;
  const unsigned char *pal = (const unsigned char *)0;
  unsigned char *z = scr, *img;
  /* chunks: IHDR, PLTE, IDAT (concatenated into scratch), IEND */
  for (;;) {
    unsigned long len;
    const unsigned char *t, *d;
    if (pos > n - 12) return ONNXC_IMG_BAD;
    len = onnxc_img_be32(s + pos);
    t = s + pos + 4, d = s + pos + 8;
    if (len > (unsigned long)(n - pos - 12)) return ONNXC_IMG_BAD;
    if (onnxc_img_tag(t, "IHDR")) {
      if (len != 13) return ONNXC_IMG_BAD;
      w = (long)onnxc_img_be32(d), h = (long)onnxc_img_be32(d + 4), depth = d[8], ctype = d[9];
      if (d[10] || d[11] || d[12] || depth != 8) return ONNXC_IMG_BAD; /* interlaced, other depths */
      if (ctype != 0 && ctype != 2 && ctype != 3 && ctype != 4 && ctype != 6) return ONNXC_IMG_BAD;
      if (w <= 0 || h <= 0) return ONNXC_IMG_BAD;
      if (w != W || h != H) return ONNXC_IMG_SIZE;
      have_hdr = 1;
    } else if (onnxc_img_tag(t, "PLTE")) {
      if (len % 3 || len > 768) return ONNXC_IMG_BAD;
      pal = d, npal = (int)(len / 3);
    } else if (onnxc_img_tag(t, "IDAT")) {
      if (!have_hdr || (long)len > n - zlen) return ONNXC_IMG_BAD;
      for (y = 0; y < (long)len; y++) z[zlen + y] = d[y];
      zlen += (long)len;
    } else if (onnxc_img_tag(t, "IEND")) {
      break;
    } else if (!(t[0] & 32)) {
      return ONNXC_IMG_BAD; /* an unknown critical chunk */
    }
    pos += 12 + (long)len;
  }
  if (!have_hdr || (ctype == 3 && !pal)) return ONNXC_IMG_BAD;
  bpp = ctype == 0 ? 1 : ctype == 4 ? 2 : ctype == 2 ? 3 : ctype == 6 ? 4 : 1;
  row = w * bpp;
  img = z + n; /* scratch: the compressed data (<= n bytes), then the filtered rows */
  raw = onnxc_inflate(z, zlen, img, h * (row + 1));
  if (raw != h * (row + 1)) return ONNXC_IMG_BAD;
  for (y = 0; y < h; y++) {
    unsigned char *r = img + y * (row + 1), *cur = r + 1;
    const unsigned char *up = y ? r - row : (const unsigned char *)0;
    const int f = r[0];
    if (f > 4) return ONNXC_IMG_BAD;
    for (x = 0; x < row; x++) {
      const int a = x >= bpp ? cur[x - bpp] : 0, b = up ? up[x] : 0, c = up && x >= bpp ? up[x - bpp] : 0;
      const int p = f == 1 ? a : f == 2 ? b : f == 3 ? (a + b) >> 1 : f == 4 ? onnxc_img_paeth(a, b, c) : 0;
      cur[x] = (unsigned char)(cur[x] + p);
    }
    for (x = 0; x < w; x++) {
      const unsigned char *p = cur + x * bpp;
      unsigned char *d = rgb + (y * w + x) * 3;
      if (ctype == 3) {
        if (p[0] >= npal) return ONNXC_IMG_BAD;
        d[0] = pal[3 * p[0]], d[1] = pal[3 * p[0] + 1], d[2] = pal[3 * p[0] + 2];
      } else if (ctype == 0 || ctype == 4) {
        d[0] = d[1] = d[2] = p[0];
      } else {
        d[0] = p[0], d[1] = p[1], d[2] = p[2];
      }
    }
  }
  return 0;
}

/* ---- JPEG: baseline (sequential, Huffman, 8-bit) ----
   Bit-exact with libjpeg(-turbo)'s default decode, which Pillow uses: the integer "islow" IDCT
   (Loeffler-Ligtenberg-Moschytz with 13-bit constants, 2 extra bits between the passes), the
   triangle ("fancy") upsampling of 2x1 and 2x2 subsampled chroma with edge rows and columns
   replicated, and 16-bit fixed-point YCbCr -> RGB.  Progressive, arithmetic-coded, 12-bit,
   CMYK and other sampling ratios are ONNXC_ERR_IMAGE. */
typedef struct onnxc_jhuff {
  unsigned char bits[17]; /* codes of each length 1..16 */
  unsigned char val[256];
  int nval;
  long maxcode[18], valptr[17], mincode[17];
  int ok;
} onnxc_jhuff;

typedef struct onnxc_jpeg {
  const unsigned char *s;
  long n, pos;
  unsigned long bitbuf;
  int bitcnt, marker; /* marker: a marker met in the entropy data (no more bits from it) */
  unsigned short q[4][64];
  onnxc_jhuff dc[4], ac[4];
  int nc, hmax, vmax, restart;
  int id[3], h[3], v[3], tq[3], td[3], ta[3], pred[3];
  long cw[3], ch[3], stride[3]; /* component width and height (samples), plane stride */
  unsigned char *plane[3];
} onnxc_jpeg;

ONNXC_MAYBE_UNUSED static void onnxc_jhuff_build(onnxc_jhuff *t) {
  long code = 0, k = 0;
  int l;
  for (l = 1; l <= 16; l++) {
    t->valptr[l] = k;
    t->mincode[l] = code;
    code += t->bits[l];
    k += t->bits[l];
    t->maxcode[l] = t->bits[l] ? code - 1 : -1;
    code <<= 1;
  }
  t->maxcode[17] = 0x7fffffffL;
}

ONNXC_MAYBE_UNUSED static int onnxc_jbit(onnxc_jpeg *j) {
  if (j->bitcnt == 0) {
    unsigned c = 0;
    if (!j->marker && j->pos < j->n) {
      c = j->s[j->pos];
      if (c == 0xff) {
        if (j->pos + 1 >= j->n) return -1;
        if (j->s[j->pos + 1] == 0) {
          j->pos += 2;
        } else {
          j->marker = 1; /* a marker: zeros from here, as libjpeg feeds */
          c = 0;
        }
      } else {
        j->pos++;
      }
    } else if (!j->marker) {
      return -1;
    }
    j->bitbuf = c;
    j->bitcnt = 8;
  }
  j->bitcnt--;
  return (int)((j->bitbuf >> j->bitcnt) & 1);
}

ONNXC_MAYBE_UNUSED static long onnxc_jbits(onnxc_jpeg *j, int n) {
  long v = 0;
  while (n-- > 0) {
    const int b = onnxc_jbit(j);
    if (b < 0) return -1;
    v = v << 1 | b;
  }
  return v;
}

ONNXC_MAYBE_UNUSED static int onnxc_jdecode(onnxc_jpeg *j, const onnxc_jhuff *t) {
  long code = 0;
  int l;
  if (!t->ok) return -1;
  for (l = 1; l <= 16; l++) {
    const int b = onnxc_jbit(j);
    if (b < 0) return -1;
    code = code << 1 | b;
    if (code <= t->maxcode[l]) {
      const long k = t->valptr[l] + code - t->mincode[l];
      return k >= 0 && k < t->nval ? t->val[k] : -1;
    }
  }
  return -1;
}

/* One 8-point pass of the islow IDCT over x[0], x[st], .., x[7 st]: the 8 outputs before
   descaling (the 13-bit constants are FIX(c) = round(c * 8192)). */
ONNXC_MAYBE_UNUSED static void onnxc_jidct8(const long *x, int st, long *r) {
  long t0, t1, t2, t3, t10, t11, t12, t13, z1, z2, z3, z4, z5;
  z2 = x[2 * st], z3 = x[6 * st];
  z1 = (z2 + z3) * 4433;
  t2 = z1 + z3 * -15137;
  t3 = z1 + z2 * 6270;
  t0 = (x[0] + x[4 * st]) * 8192;
  t1 = (x[0] - x[4 * st]) * 8192;
  t10 = t0 + t3, t13 = t0 - t3, t11 = t1 + t2, t12 = t1 - t2;
  t0 = x[7 * st], t1 = x[5 * st], t2 = x[3 * st], t3 = x[st];
  z1 = t0 + t3, z2 = t1 + t2, z3 = t0 + t2, z4 = t1 + t3;
  z5 = (z3 + z4) * 9633;
  t0 *= 2446, t1 *= 16819, t2 *= 25172, t3 *= 12299;
  z1 *= -7373, z2 *= -20995, z3 *= -16069, z4 *= -3196;
  z3 += z5, z4 += z5;
  t0 += z1 + z3, t1 += z2 + z4, t2 += z2 + z3, t3 += z1 + z4;
  r[0] = t10 + t3, r[7] = t10 - t3, r[1] = t11 + t2, r[6] = t11 - t2;
  r[2] = t12 + t1, r[5] = t12 - t1, r[3] = t13 + t0, r[4] = t13 - t0;
}

/* The islow IDCT of one dequantized block into 8 x 8 samples at out (row stride os): columns
   descaled by 11 bits (2 extra bits kept), rows by 18, then +128 and libjpeg's range limit
   (a 10-bit wrap, clamped to 0..255). */
ONNXC_MAYBE_UNUSED static void onnxc_jidct(const long *in, unsigned char *out, long os) {
  long ws[64], r[8];
  int i, k;
  for (i = 0; i < 8; i++) {
    onnxc_jidct8(in + i, 8, r);
    for (k = 0; k < 8; k++) ws[8 * k + i] = (r[k] + (1L << 10)) >> 11;
  }
  for (i = 0; i < 8; i++) {
    onnxc_jidct8(ws + 8 * i, 1, r);
    for (k = 0; k < 8; k++) {
      const long x = ((r[k] + (1L << 17)) >> 18) & 1023;
      out[i * os + k] = (unsigned char)(x < 128 ? x + 128 : x < 512 ? 255 : x < 896 ? 0 : x - 896);
    }
  }
}

/* One block of component c (entropy-decoded, dequantized, transformed) into its plane at block
   (by, bx); 0, or -1 on bad data. */
ONNXC_MAYBE_UNUSED static int onnxc_jblock(onnxc_jpeg *j, int c, long by, long bx) {
  static const unsigned char zz[64] = {0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,
                                       12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6,  7,  14, 21, 28,
                                       35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
                                       58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};
  long coef[64];
  const unsigned short *q = j->q[j->tq[c]];
  int k, s;
  long v;
  for (k = 0; k < 64; k++) coef[k] = 0;
  s = onnxc_jdecode(j, &j->dc[j->td[c]]);
  if (s < 0 || s > 11) return -1;
  v = s ? onnxc_jbits(j, s) : 0;
  if (v < 0) return -1;
  if (s && v < (1L << (s - 1))) v -= (1L << s) - 1;
  j->pred[c] += (int)v;
  coef[0] = (long)j->pred[c] * q[0];
  for (k = 1; k < 64;) {
    const int rs = onnxc_jdecode(j, &j->ac[j->ta[c]]), r = rs >> 4;
    if (rs < 0) return -1;
    s = rs & 15;
    if (!s) {
      if (r != 15) break;
      k += 16;
      continue;
    }
    k += r;
    if (k > 63) return -1;
    v = onnxc_jbits(j, s);
    if (v < 0) return -1;
    if (v < (1L << (s - 1))) v -= (1L << s) - 1;
    coef[zz[k]] = v * q[k];
    k++;
  }
  onnxc_jidct(coef, j->plane[c] + by * 8 * j->stride[c] + bx * 8, j->stride[c]);
  return 0;
}

/* Output row y of component c upsampled to full width into o (W samples): libjpeg's h2v1 /
   h2v2 triangle filters, rows and columns past the component's edges replicated. */
ONNXC_MAYBE_UNUSED static void onnxc_jupsample(const onnxc_jpeg *j, int c, long y, long W, unsigned char *o) {
  const int fy = j->vmax / j->v[c], fx = j->hmax / j->h[c];
  const long cw = j->cw[c], st = j->stride[c];
  long cy = y / fy, x;
  const unsigned char *near = j->plane[c] + (cy < j->ch[c] ? cy : j->ch[c] - 1) * st, *far = near;
  if (fy == 2) {
    long fr = (y & 1) ? cy + 1 : cy - 1;
    if (fr < 0) fr = 0;
    if (fr > j->ch[c] - 1) fr = j->ch[c] - 1;
    far = j->plane[c] + fr * st;
  }
  if (fx == 1 && fy == 1) {
    for (x = 0; x < W; x++) o[x] = near[x];
  } else if (fy == 1) { /* h2v1 */
    for (x = 0; x < W; x++) {
      const long i = x >> 1;
      const int v3 = near[i] * 3;
      if (cw == 1) o[x] = near[0];
      else if (!(x & 1)) o[x] = (unsigned char)(i == 0 ? near[0] : (v3 + near[i - 1] + 1) >> 2);
      else o[x] = (unsigned char)(i == cw - 1 ? near[i] : (v3 + near[i + 1] + 2) >> 2);
    }
  } else if (fx == 2) { /* h2v2 */
    for (x = 0; x < W; x++) {
      const long i = x >> 1;
      const int t = near[i] * 3 + far[i];
      if (cw == 1) o[x] = (unsigned char)((t * 4 + ((x & 1) ? 7 : 8)) >> 4);
      else if (!(x & 1)) o[x] = (unsigned char)(i == 0 ? (t * 4 + 8) >> 4 : (t * 3 + near[i - 1] * 3 + far[i - 1] + 8) >> 4);
      else o[x] = (unsigned char)(i == cw - 1 ? (t * 4 + 7) >> 4 : (t * 3 + near[i + 1] * 3 + far[i + 1] + 7) >> 4);
    }
  } else { /* (h1v2: refused at the frame header) */
    for (x = 0; x < W; x++) o[x] = near[x];
  }
}

/* scratch: see the top of this file */

ONNXC_MAYBE_UNUSED static int onnxc_img_jpeg(const unsigned char *s, long n, unsigned char *rgb, long H, long W,
                                             unsigned char *scr) {
  onnxc_jpeg j;
  long pos = 2, mcux = 0, mcuy = 0, used = 0, y, x;
  int have_frame = 0, adobe = -1, jfif = 0, c, k, done = 0;
  unsigned char *row0, *row1;
  for (k = 0; k < 4; k++) j.dc[k].ok = j.ac[k].ok = 0;
  for (k = 0; k < 4 * 64; k++) j.q[k / 64][k % 64] = 0;
  j.s = s, j.n = n, j.restart = 0, j.nc = 0;
  while (!done) {
    int m;
    long len, d;
    while (pos < n && s[pos] != 0xff) pos++; /* (libjpeg skips stray bytes too) */
    while (pos < n && s[pos] == 0xff) pos++;
    if (pos >= n) return ONNXC_IMG_BAD;
    m = s[pos++];
    if (m == 0xd9) break;                        /* EOI */
    if (m == 0x01 || (m >= 0xd0 && m <= 0xd7)) continue;
    if (pos > n - 2) return ONNXC_IMG_BAD;
    len = (long)s[pos] << 8 | s[pos + 1];
    if (len < 2 || len > n - pos) return ONNXC_IMG_BAD;
    d = pos + 2;
    if (m == 0xdb) { /* DQT */
      while (d < pos + len) {
        const int pq = s[d] >> 4, tq = s[d] & 15;
        if (tq > 3 || pq > 1 || pos + len - d - 1 < 64L * (pq + 1)) return ONNXC_IMG_BAD;
        for (k = 0; k < 64; k++) j.q[tq][k] = (unsigned short)(pq ? s[d + 1 + 2 * k] << 8 | s[d + 2 + 2 * k] : s[d + 1 + k]);
        d += 1 + 64L * (pq + 1);
      }
    } else if (m == 0xc4) { /* DHT */
      while (d < pos + len) {
        const int tc = s[d] >> 4, th = s[d] & 15;
        onnxc_jhuff *t;
        int cnt = 0;
        if (tc > 1 || th > 3 || pos + len - d < 17) return ONNXC_IMG_BAD;
        t = tc ? &j.ac[th] : &j.dc[th];
        for (k = 1; k <= 16; k++) cnt += t->bits[k] = s[d + k];
        if (cnt > 256 || pos + len - d - 17 < cnt) return ONNXC_IMG_BAD;
        for (k = 0; k < cnt; k++) t->val[k] = s[d + 17 + k];
        t->nval = cnt;
        onnxc_jhuff_build(t);
        t->ok = 1;
        d += 17 + cnt;
      }
    } else if (m == 0xc0 || m == 0xc1) { /* SOF0/1: baseline, extended Huffman */
      long fh, fw;
      if (have_frame || len < 8 || s[d] != 8) return ONNXC_IMG_BAD;
      fh = (long)s[d + 1] << 8 | s[d + 2], fw = (long)s[d + 3] << 8 | s[d + 4], j.nc = s[d + 5];
      if ((j.nc != 1 && j.nc != 3) || len != 8 + 3 * j.nc || fw <= 0 || fh <= 0) return ONNXC_IMG_BAD;
      if (fw != W || fh != H) return ONNXC_IMG_SIZE;
      j.hmax = j.vmax = 1;
      for (c = 0; c < j.nc; c++) {
        j.id[c] = s[d + 6 + 3 * c], j.h[c] = s[d + 7 + 3 * c] >> 4, j.v[c] = s[d + 7 + 3 * c] & 15, j.tq[c] = s[d + 8 + 3 * c];
        if (j.h[c] < 1 || j.h[c] > 4 || j.v[c] < 1 || j.v[c] > 4 || j.tq[c] > 3) return ONNXC_IMG_BAD;
        if (j.h[c] > j.hmax) j.hmax = j.h[c];
        if (j.v[c] > j.vmax) j.vmax = j.v[c];
      }
      mcux = (W + 8 * j.hmax - 1) / (8 * j.hmax), mcuy = (H + 8 * j.vmax - 1) / (8 * j.vmax);
      for (c = 0; c < j.nc; c++) {
        if ((j.hmax / j.h[c] != 1 && j.hmax / j.h[c] != 2) || j.hmax % j.h[c] || (j.vmax / j.v[c] != 1 && j.vmax / j.v[c] != 2) ||
            j.vmax % j.v[c] || (j.hmax / j.h[c] == 1 && j.vmax / j.v[c] == 2))
          return ONNXC_IMG_BAD; /* sampling other than 1x1, 2x1, 2x2 */
        j.cw[c] = (W * j.h[c] + j.hmax - 1) / j.hmax, j.ch[c] = (H * j.v[c] + j.vmax - 1) / j.vmax;
        j.stride[c] = mcux * j.h[c] * 8;
        if (j.stride[c] > W + 32 || mcuy * j.v[c] * 8 > H + 32) return ONNXC_IMG_BAD;
        j.plane[c] = scr + used;
        used += j.stride[c] * mcuy * j.v[c] * 8;
        j.pred[c] = 0;
      }
      for (k = 0; k < used; k++) scr[k] = 0;
      have_frame = 1;
    } else if (m == 0xdd) { /* DRI */
      if (len != 4) return ONNXC_IMG_BAD;
      j.restart = s[d] << 8 | s[d + 1];
    } else if (m == 0xe0 && len >= 7 && onnxc_img_tag(s + d, "JFIF")) {
      jfif = 1;
    } else if (m == 0xee && len >= 12 && onnxc_img_tag(s + d, "Adob")) {
      adobe = s[d + 11];
    } else if (m == 0xda) { /* SOS: one scan (a sequential image may have one per component) */
      const int ns = s[d];
      int sc[3];
      long blocks, b;
      if (!have_frame || ns < 1 || ns > j.nc || len != 6 + 2 * ns) return ONNXC_IMG_BAD;
      for (k = 0; k < ns; k++) {
        for (c = 0; c < j.nc && j.id[c] != s[d + 1 + 2 * k]; c++) {}
        if (c == j.nc) return ONNXC_IMG_BAD;
        sc[k] = c, j.td[c] = s[d + 2 + 2 * k] >> 4, j.ta[c] = s[d + 2 + 2 * k] & 15;
        if (j.td[c] > 3 || j.ta[c] > 3) return ONNXC_IMG_BAD;
      }
      if (s[d + 1 + 2 * ns] != 0 || s[d + 2 + 2 * ns] != 63 || s[d + 3 + 2 * ns] != 0) return ONNXC_IMG_BAD;
      j.pos = pos + len, j.bitcnt = 0, j.marker = 0;
      for (c = 0; c < j.nc; c++) j.pred[c] = 0;
      /* MCUs: interleaved, or single blocks of one component in raster order */
      blocks = ns > 1 ? mcux * mcuy : ((j.cw[sc[0]] + 7) / 8) * ((j.ch[sc[0]] + 7) / 8);
      for (b = 0; b < blocks; b++) {
        if (j.restart && b && b % j.restart == 0) { /* RSTn: byte aligned, predictions reset */
          j.bitcnt = 0;
          if (j.marker || (j.pos < j.n - 1 && j.s[j.pos] == 0xff && j.s[j.pos + 1] >= 0xd0 && j.s[j.pos + 1] <= 0xd7)) {
            if (!j.marker) j.pos += 2;
            else if (j.pos < j.n - 1 && j.s[j.pos + 1] >= 0xd0 && j.s[j.pos + 1] <= 0xd7) j.pos += 2, j.marker = 0;
          }
          for (c = 0; c < j.nc; c++) j.pred[c] = 0;
        }
        if (ns > 1) {
          const long my = b / mcux, mx = b % mcux;
          for (k = 0; k < ns; k++) {
            int u, w;
            c = sc[k];
            for (u = 0; u < j.v[c]; u++)
              for (w = 0; w < j.h[c]; w++)
                if (onnxc_jblock(&j, c, my * j.v[c] + u, mx * j.h[c] + w)) return ONNXC_IMG_BAD;
          }
        } else {
          const long bw = (j.cw[sc[0]] + 7) / 8;
          if (onnxc_jblock(&j, sc[0], b / bw, b % bw)) return ONNXC_IMG_BAD;
        }
      }
      /* past the entropy data to the next marker */
      pos = j.pos;
    } else if (m == 0xc2 || m == 0xc3 || (m >= 0xc5 && m <= 0xcf && m != 0xc8 && m != 0xcc)) {
      return ONNXC_IMG_BAD; /* progressive, lossless, hierarchical, arithmetic */
    }
    if (m != 0xda) pos += len;
  }
  if (!have_frame) return ONNXC_IMG_BAD;
  /* upsample and convert, a row at a time */
  row0 = scr + used, row1 = row0 + W;
  for (y = 0; y < H; y++) {
    unsigned char *o = rgb + y * W * 3;
    const unsigned char *yr = j.plane[0] + y * j.stride[0];
    if (j.nc == 1) {
      for (x = 0; x < W; x++) o[3 * x] = o[3 * x + 1] = o[3 * x + 2] = yr[x];
      continue;
    }
    onnxc_jupsample(&j, 1, y, W, row0);
    onnxc_jupsample(&j, 2, y, W, row1);
    if (j.hmax != j.h[0] || j.vmax != j.v[0]) return ONNXC_IMG_BAD; /* luma subsampled */
    for (x = 0; x < W; x++) {
      const long Y = yr[x], cb = (long)row0[x] - 128, cr = (long)row1[x] - 128;
      long r, g, bb;
      if (adobe == 0 && !jfif) { /* stored as RGB */
        r = Y, g = row0[x], bb = row1[x];
      } else {
        r = Y + ((91881L * cr + 32768L) >> 16);
        g = Y + ((-22554L * cb + 32768L - 46802L * cr) >> 16);
        bb = Y + ((116130L * cb + 32768L) >> 16);
      }
      o[3 * x] = (unsigned char)(r < 0 ? 0 : r > 255 ? 255 : r);
      o[3 * x + 1] = (unsigned char)(g < 0 ? 0 : g > 255 ? 255 : g);
      o[3 * x + 2] = (unsigned char)(bb < 0 ? 0 : bb > 255 ? 255 : bb);
    }
  }
  return 0;
}

/* Decodes s[0..n) into rgb (H x W x 3); the format by its first bytes (JPEG, PNG, BMP, PNM,
   TIFF, WebP: templates/image_webp.h, JPEG 2000: templates/image_jp2.h).  Scratch: the largest
   of the PNG, JPEG, WebP and JPEG 2000 needs. */
ONNXC_MAYBE_UNUSED static int onnxc_img_decode(const unsigned char *s, long n, unsigned char *rgb, long H, long W,
                                               unsigned char *scr) {
  if (n >= 8 && s[0] == 137 && onnxc_img_tag(s + 1, "PNG\r") && s[5] == 10 && s[6] == 26 && s[7] == 10)
    return onnxc_img_png(s, n, rgb, H, W, scr);
  if (n >= 2 && s[0] == 'B' && s[1] == 'M') return onnxc_img_bmp(s, n, rgb, H, W);
  if (n >= 4 && s[0] == 0xff && s[1] == 0xd8) return onnxc_img_jpeg(s, n, rgb, H, W, scr);
  if (n >= 3 && s[0] == 'P' && (s[1] == '2' || s[1] == '3' || s[1] == '5' || s[1] == '6')) return onnxc_img_pnm(s, n, rgb, H, W);
  if (n >= 8 && ((s[0] == 'I' && s[1] == 'I' && s[2] == 42 && s[3] == 0) || (s[0] == 'M' && s[1] == 'M' && s[2] == 0 && s[3] == 42)))
    return onnxc_img_tiff(s, n, rgb, H, W);
  if (n >= 12 && onnxc_img_tag(s, "RIFF") && onnxc_img_tag(s + 8, "WEBP")) return onnxc_img_webp(s, n, rgb, H, W, scr);
#ifdef ONNXC_IMG_JP2
  if ((n >= 12 && s[0] == 0 && s[1] == 0 && s[2] == 0 && s[3] == 12 && onnxc_img_tag(s + 4, "jP  ")) ||
      (n >= 4 && s[0] == 0xff && s[1] == 0x4f && s[2] == 0xff && s[3] == 0x51))
    return onnxc_img_jp2(s, n, rgb, H, W, scr);
#endif
  return ONNXC_IMG_BAD;
}
