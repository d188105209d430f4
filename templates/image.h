/* ImageDecoder: encoded image bytes -> interleaved 8-bit RGB, in C with no allocation.

   Formats: BMP (uncompressed 24/32-bit, 8-bit with a palette; bottom-up or top-down rows),
   PNM (binary P5/P6 and text P2/P3, maxval 255), TIFF (baseline strips, 8 bits per sample,
   gray/RGB/RGBA chunky, no compression or PackBits), PNG (8-bit gray, gray+alpha, RGB, RGBA and
   palette images, not interlaced; zlib/deflate decoded here).  Alpha is dropped; gray is
   replicated into R, G and B.

   The decoders trust nothing in the input: every read is checked against its length, and an
   image that is malformed, truncated or of a kind listed as unsupported gives ONNXC_ERR_IMAGE;
   one whose width and height differ from the compiled output's gives ONNXC_ERR_SHAPE.  Scratch
   (PNG only): the input length plus H * (1 + 4 W) bytes. */

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

/* Decodes s[0..n) into rgb (H x W x 3); by its first bytes: BMP, PNM, TIFF or PNG.  Scratch:
   n + H * (1 + 4 W) bytes (PNG). */
ONNXC_MAYBE_UNUSED static int onnxc_img_decode(const unsigned char *s, long n, unsigned char *rgb, long H, long W,
                                               unsigned char *scr) {
  if (n >= 8 && s[0] == 137 && onnxc_img_tag(s + 1, "PNG\r") && s[5] == 10 && s[6] == 26 && s[7] == 10)
    return onnxc_img_png(s, n, rgb, H, W, scr);
  if (n >= 2 && s[0] == 'B' && s[1] == 'M') return onnxc_img_bmp(s, n, rgb, H, W);
  if (n >= 3 && s[0] == 'P' && (s[1] == '2' || s[1] == '3' || s[1] == '5' || s[1] == '6')) return onnxc_img_pnm(s, n, rgb, H, W);
  if (n >= 8 && ((s[0] == 'I' && s[1] == 'I' && s[2] == 42 && s[3] == 0) || (s[0] == 'M' && s[1] == 'M' && s[2] == 0 && s[3] == 42)))
    return onnxc_img_tiff(s, n, rgb, H, W);
  return ONNXC_IMG_BAD;
}
