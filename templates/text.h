/* String tensors (onnxc_string: a pointer to a NUL-terminated UTF-8 string per element).

   The string heap.  Strings made at run time (StringConcat, StringSplit, StringNormalizer,
   Cast to string) are bump-allocated from a region at the end of the arena whose size onnxc
   fixes at compile time; the run function starts it empty, and a node that finds it full
   returns ONNXC_ERR_CAPACITY (nothing is written past its end).  The strings stay valid until
   the next run with that arena.

   Also here: UTF-8 decoding, the simple case mapping of StringNormalizer, Python's str.split
   rules (StringSplit), a Pike VM for RegexFullMatch (the pattern is compiled by onnxc into a
   program of int32 triples), and exact conversions between numbers and decimal text (Cast),
   which use small big integers in the node's scratch: no libc beyond memcpy. */

typedef struct onnxc_sheap {
  char *p;
  size_t used, cap;
} onnxc_sheap;

/* n bytes of the heap, or NULL when it is full. */
ONNXC_MAYBE_UNUSED static inline char *onnxc_salloc(onnxc_sheap *h, size_t n) {
  char *r;
  if (n > h->cap - h->used) return (char *)0;
  r = h->p + h->used;
  h->used += n;
  return r;
}

ONNXC_MAYBE_UNUSED static inline size_t onnxc_slen(const char *s) {
  const char *p = s;
  while (*p) p++;
  return (size_t)(p - s);
}

/* A heap copy of the n bytes at s, NUL-terminated ("" itself for n == 0); NULL when full. */
ONNXC_MAYBE_UNUSED static inline const char *onnxc_sdup(onnxc_sheap *h, const char *s, size_t n) {
  char *r;
  if (n == 0) return "";
  r = onnxc_salloc(h, n + 1);
  if (!r) return (const char *)0;
  memcpy(r, s, n);
  r[n] = 0;
  return r;
}

/* Byte-wise comparison (unsigned bytes: code point order for valid UTF-8). */
ONNXC_MAYBE_UNUSED static inline int onnxc_scmp(const char *a, const char *b) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  while (*x && *x == *y) { x++; y++; }
  return (int)*x - (int)*y;
}

/* ---- UTF-8 ----------------------------------------------------------------------------- */

/* The code point of the character at s (which is not the terminating NUL) and its length in
   bytes; a byte that does not start a well-formed sequence reads as U+FFFD, one byte long. */
ONNXC_MAYBE_UNUSED static inline int32_t onnxc_u8dec(const unsigned char *s, int *len) {
  unsigned c = s[0];
  *len = 1;
  if (c < 0x80) return (int32_t)c;
  if (c >= 0xC2 && c <= 0xDF) {
    if ((s[1] & 0xC0) != 0x80) return 0xFFFD;
    *len = 2;
    return (int32_t)((c & 0x1Fu) << 6 | (s[1] & 0x3Fu));
  }
  if (c >= 0xE0 && c <= 0xEF) {
    unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    if (s[1] < lo || s[1] > hi || (s[2] & 0xC0) != 0x80) return 0xFFFD;
    *len = 3;
    return (int32_t)((c & 0x0Fu) << 12 | (s[1] & 0x3Fu) << 6 | (s[2] & 0x3Fu));
  }
  if (c >= 0xF0 && c <= 0xF4) {
    unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    if (s[1] < lo || s[1] > hi || (s[2] & 0xC0) != 0x80 || (s[3] & 0xC0) != 0x80) return 0xFFFD;
    *len = 4;
    return (int32_t)((c & 0x07u) << 18 | (s[1] & 0x3Fu) << 12 | (s[2] & 0x3Fu) << 6 | (s[3] & 0x3Fu));
  }
  return 0xFFFD;
}

/* Python's str.isspace for the character at s: its length in bytes, 0 when it is not white
   space (ASCII \t \n \v \f \r, \x1c-\x1f and space; U+0085, U+00A0, U+1680, U+2000-U+200A,
   U+2028, U+2029, U+202F, U+205F, U+3000). */
ONNXC_MAYBE_UNUSED static inline int onnxc_u8space(const unsigned char *s) {
  int len;
  int32_t c;
  if (s[0] < 0x80) return (s[0] >= 9 && s[0] <= 13) || (s[0] >= 0x1C && s[0] <= 0x20) ? 1 : 0;
  c = onnxc_u8dec(s, &len);
  if (c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
      c == 0x202F || c == 0x205F || c == 0x3000)
    return len;
  return 0;
}

/* Simple one-to-one case pairs whose UTF-8 forms have the same length: ASCII, Latin-1,
   Latin Extended-A, Greek and the basic Cyrillic block (no locale; characters with no such
   pair, e.g. U+00DF or U+0130, are left as they are). */
ONNXC_MAYBE_UNUSED static inline int32_t onnxc_ucase(int32_t c, int upper) {
  if (c < 0x80) {
    if (upper && c >= 'a' && c <= 'z') return c - 32;
    if (!upper && c >= 'A' && c <= 'Z') return c + 32;
    return c;
  }
  if (upper) {
    if ((c >= 0xE0 && c <= 0xFE && c != 0xF7)) return c - 32;
    if (c == 0xFF) return 0x178;
    if (c == 0xB5) return 0x39C;
    if (c >= 0x100 && c <= 0x17F) {
      if (c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F || c == 0x130) return c;
      if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c : c - 1;
      return (c & 1) ? c - 1 : c;
    }
    if (c >= 0x3B1 && c <= 0x3CB) return c == 0x3C2 ? 0x3A3 : c - 32;
    if (c == 0x3AC) return 0x386;
    if (c >= 0x3AD && c <= 0x3AF) return c - 37;
    if (c == 0x3CC) return 0x38C;
    if (c == 0x3CD || c == 0x3CE) return c - 63;
    if (c >= 0x430 && c <= 0x44F) return c - 32;
    if (c >= 0x450 && c <= 0x45F) return c - 80;
    return c;
  }
  if ((c >= 0xC0 && c <= 0xDE && c != 0xD7)) return c + 32;
  if (c == 0x178) return 0xFF;
  if (c >= 0x100 && c <= 0x17F) {
    if (c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F || c == 0x130) return c;
    if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c + 1 : c;
    return (c & 1) ? c : c + 1;
  }
  if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;
  if (c == 0x386) return 0x3AC;
  if (c >= 0x388 && c <= 0x38A) return c + 37;
  if (c == 0x38C) return 0x3CC;
  if (c == 0x38E || c == 0x38F) return c + 63;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

/* Writes code point c (< 0x10000 here: the case pairs) as UTF-8; returns its length. */
ONNXC_MAYBE_UNUSED static inline int onnxc_u8enc(int32_t c, unsigned char *o) {
  if (c < 0x80) { o[0] = (unsigned char)c; return 1; }
  if (c < 0x800) { o[0] = (unsigned char)(0xC0 | (c >> 6)); o[1] = (unsigned char)(0x80 | (c & 0x3F)); return 2; }
  o[0] = (unsigned char)(0xE0 | (c >> 12));
  o[1] = (unsigned char)(0x80 | ((c >> 6) & 0x3F));
  o[2] = (unsigned char)(0x80 | (c & 0x3F));
  return 3;
}

/* A heap copy of s with every character case-mapped (the mapping keeps byte lengths; bytes
   that are not well-formed UTF-8 are copied as they are); NULL when the heap is full. */
ONNXC_MAYBE_UNUSED static inline const char *onnxc_scase(onnxc_sheap *h, const char *s, int upper) {
  size_t n = onnxc_slen(s), i = 0;
  unsigned char *o;
  const unsigned char *u = (const unsigned char *)s;
  if (n == 0) return "";
  o = (unsigned char *)onnxc_salloc(h, n + 1);
  if (!o) return (const char *)0;
  while (i < n) {
    int len;
    int32_t c = onnxc_u8dec(u + i, &len);
    if (c == 0xFFFD && len == 1) { /* not well-formed: the byte as it is */
      o[i] = u[i];
    } else {
      int32_t m = onnxc_ucase(c, upper);
      if (m == c) memcpy(o + i, u + i, (size_t)len);
      else onnxc_u8enc(m, o + i);
    }
    i += (size_t)len;
  }
  o[n] = 0;
  return (const char *)o;
}

/* Equality of a and b after mapping both to lower case (StringNormalizer's case-insensitive
   stop words). */
ONNXC_MAYBE_UNUSED static inline int onnxc_seq_nocase(const char *a, const char *b) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  while (*x && *y) {
    int lx, ly;
    int32_t cx = onnxc_u8dec(x, &lx), cy = onnxc_u8dec(y, &ly);
    if (cx == 0xFFFD || cy == 0xFFFD) {
      if (lx != ly || memcmp(x, y, (size_t)lx) != 0) return 0;
    } else if (onnxc_ucase(cx, 0) != onnxc_ucase(cy, 0)) {
      return 0;
    }
    x += lx;
    y += ly;
  }
  return *x == *y;
}

/* ---- StringSplit: Python's str.split ---------------------------------------------------- */

/* Pieces of a string one at a time.  With a delimiter (dl > 0 bytes) every occurrence splits
   and empty pieces are kept; without one, runs of white space split and white space at the
   ends makes no piece.  After `left` splits (< 0: no limit) the rest is the last piece (in
   white-space mode without its leading white space). */
typedef struct onnxc_split_it {
  const unsigned char *p;
  const char *d;
  size_t dl;
  int64_t left;
  int done;
} onnxc_split_it;

ONNXC_MAYBE_UNUSED static inline void onnxc_split_init(onnxc_split_it *it, const char *s, const char *d, size_t dl,
                                                       int64_t maxsplit) {
  it->p = (const unsigned char *)s;
  it->d = d;
  it->dl = dl;
  it->left = maxsplit;
  it->done = 0;
}

/* The next piece (*start, *len); 0 when there is none. */
ONNXC_MAYBE_UNUSED static inline int onnxc_split_next(onnxc_split_it *it, const char **start, size_t *len) {
  const unsigned char *p = it->p;
  if (it->done) return 0;
  if (it->dl) {
    if (it->left != 0) {
      const unsigned char *q = p;
      for (; *q; q++)
        if (*q == (unsigned char)it->d[0] && memcmp(q, it->d, it->dl) == 0) break;
      if (*q) {
        *start = (const char *)p;
        *len = (size_t)(q - p);
        it->p = q + it->dl;
        if (it->left > 0) it->left--;
        return 1;
      }
    }
    *start = (const char *)p;
    *len = onnxc_slen((const char *)p);
    it->done = 1;
    return 1;
  }
  for (;;) {
    int w = onnxc_u8space(p);
    if (!w) break;
    p += w;
  }
  if (!*p) {
    it->done = 1;
    return 0;
  }
  *start = (const char *)p;
  if (it->left == 0) {
    *len = onnxc_slen((const char *)p);
    it->done = 1;
    return 1;
  }
  while (*p && !onnxc_u8space(p)) {
    int l;
    (void)onnxc_u8dec(p, &l);
    p += l;
  }
  *len = (size_t)(p - (const unsigned char *)*start);
  it->p = p;
  if (it->left > 0) it->left--;
  return 1;
}

/* ---- RegexFullMatch: a Pike VM --------------------------------------------------------- */

/* Instructions (op, x, y): CHAR x: the code point x; ANY: any but \n; ANYNL: any; CLASS x y:
   a code point in one of the y ranges [lo, hi] at rng[2x..]; SPLIT x y: go on at both; JMP x;
   the zero-width assertions; MATCH. */
enum {
  ONNXC_RE_CHAR = 0, ONNXC_RE_ANY = 1, ONNXC_RE_ANYNL = 2, ONNXC_RE_CLASS = 3, ONNXC_RE_SPLIT = 4,
  ONNXC_RE_JMP = 5, ONNXC_RE_BOT = 6, ONNXC_RE_EOT = 7, ONNXC_RE_BOL = 8, ONNXC_RE_EOL = 9,
  ONNXC_RE_WORDB = 10, ONNXC_RE_NWORDB = 11, ONNXC_RE_MATCH = 12
};

ONNXC_MAYBE_UNUSED static inline int onnxc_re_word(int32_t c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

/* Adds the threads reachable from pc without reading a character (prev/next: the code points
   around the position, -1 at the ends) to list; returns the new count. */
ONNXC_MAYBE_UNUSED static inline int32_t onnxc_re_add(const int32_t *prog, int32_t *list, int32_t cnt, int32_t *mark,
                                                      int32_t *stack, int32_t gen, int32_t pc, int32_t prev,
                                                      int32_t next) {
  int32_t sp = 0;
  stack[sp++] = pc;
  while (sp > 0) {
    int32_t q = stack[--sp], ok;
    const int32_t *in;
    if (mark[q] == gen) continue;
    mark[q] = gen;
    in = prog + 3 * q;
    switch (in[0]) {
    case ONNXC_RE_JMP: stack[sp++] = in[1]; break;
    case ONNXC_RE_SPLIT:
      stack[sp++] = in[2];
      stack[sp++] = in[1];
      break;
    case ONNXC_RE_BOT: case ONNXC_RE_EOT: case ONNXC_RE_BOL: case ONNXC_RE_EOL:
    case ONNXC_RE_WORDB: case ONNXC_RE_NWORDB:
      if (in[0] == ONNXC_RE_BOT) ok = prev < 0;
      else if (in[0] == ONNXC_RE_EOT) ok = next < 0;
      else if (in[0] == ONNXC_RE_BOL) ok = prev < 0 || prev == '\n';
      else if (in[0] == ONNXC_RE_EOL) ok = next < 0 || next == '\n';
      else {
        ok = (prev >= 0 && onnxc_re_word(prev)) != (next >= 0 && onnxc_re_word(next));
        if (in[0] == ONNXC_RE_NWORDB) ok = !ok;
      }
      if (ok) stack[sp++] = q + 1;
      break;
    default: list[cnt++] = q; break;
    }
  }
  return cnt;
}

/* 1 when the whole of s matches the program (n instructions); work: 4n int32. */
ONNXC_MAYBE_UNUSED static inline int onnxc_re_full(const int32_t *prog, int32_t n, const int32_t *rng, const char *s,
                                                   int32_t *work) {
  int32_t *cl = work, *nl = work + n, *mark = work + 2 * n, *stack = work + 3 * n, *t;
  int32_t cnt, ncnt, gen = 0, i, c, next;
  const unsigned char *p = (const unsigned char *)s;
  int len = 0, nlen = 0;
  for (i = 0; i < n; i++) mark[i] = -1;
  c = *p ? onnxc_u8dec(p, &len) : -1;
  cnt = onnxc_re_add(prog, cl, 0, mark, stack, gen, 0, -1, c);
  while (*p) {
    const unsigned char *q = p + len;
    next = *q ? onnxc_u8dec(q, &nlen) : -1;
    gen++;
    ncnt = 0;
    for (i = 0; i < cnt; i++) {
      const int32_t *in = prog + 3 * cl[i];
      int hit = 0;
      switch (in[0]) {
      case ONNXC_RE_CHAR: hit = c == in[1]; break;
      case ONNXC_RE_ANY: hit = c != '\n'; break;
      case ONNXC_RE_ANYNL: hit = 1; break;
      case ONNXC_RE_CLASS: {
        int32_t k;
        for (k = 0; k < in[2] && !hit; k++) hit = c >= rng[2 * (in[1] + k)] && c <= rng[2 * (in[1] + k) + 1];
        break;
      }
      default: break;
      }
      if (hit) ncnt = onnxc_re_add(prog, nl, ncnt, mark, stack, gen, cl[i] + 1, c, next);
    }
    t = cl;
    cl = nl;
    nl = t;
    cnt = ncnt;
    if (cnt == 0) return 0;
    c = next;
    p = q;
    len = nlen;
  }
  for (i = 0; i < cnt; i++)
    if (prog[3 * cl[i]] == ONNXC_RE_MATCH) return 1;
  return 0;
}

/* ---- numbers <-> text (Cast) ----------------------------------------------------------- */

/* Big natural numbers: little-endian 32-bit words in caller memory (the node's scratch), with
   room for cap words; onnxc sizes cap for the widest value a conversion of the type needs. */
typedef struct onnxc_big {
  uint32_t *w;
  int32_t n;
} onnxc_big;

ONNXC_MAYBE_UNUSED static inline void onnxc_big_set(onnxc_big *b, uint64_t v) {
  b->n = 0;
  while (v) {
    b->w[b->n++] = (uint32_t)v;
    v >>= 32;
  }
}

ONNXC_MAYBE_UNUSED static inline void onnxc_big_copy(onnxc_big *d, const onnxc_big *s) {
  int32_t i;
  for (i = 0; i < s->n; i++) d->w[i] = s->w[i];
  d->n = s->n;
}

/* b = b * m + a */
ONNXC_MAYBE_UNUSED static inline void onnxc_big_muladd(onnxc_big *b, uint32_t m, uint32_t a) {
  uint64_t carry = a;
  int32_t i;
  for (i = 0; i < b->n; i++) {
    uint64_t t = (uint64_t)b->w[i] * m + carry;
    b->w[i] = (uint32_t)t;
    carry = t >> 32;
  }
  if (carry) b->w[b->n++] = (uint32_t)carry;
}

ONNXC_MAYBE_UNUSED static inline void onnxc_big_pow10(onnxc_big *b, int32_t k) {
  for (; k >= 9; k -= 9) onnxc_big_muladd(b, 1000000000u, 0);
  for (; k > 0; k--) onnxc_big_muladd(b, 10u, 0);
}

ONNXC_MAYBE_UNUSED static inline void onnxc_big_shl(onnxc_big *b, int32_t k) {
  int32_t words = k / 32, bits = k % 32, i;
  if (b->n == 0) return;
  if (bits) {
    uint32_t carry = 0;
    for (i = 0; i < b->n; i++) {
      uint32_t x = b->w[i];
      b->w[i] = x << bits | carry;
      carry = x >> (32 - bits);
    }
    if (carry) b->w[b->n++] = carry;
  }
  if (words) {
    for (i = b->n - 1; i >= 0; i--) b->w[i + words] = b->w[i];
    for (i = 0; i < words; i++) b->w[i] = 0;
    b->n += words;
  }
}

ONNXC_MAYBE_UNUSED static inline void onnxc_big_shr1(onnxc_big *b) {
  int32_t i;
  for (i = 0; i < b->n; i++) b->w[i] = b->w[i] >> 1 | (i + 1 < b->n ? b->w[i + 1] << 31 : 0);
  while (b->n > 0 && b->w[b->n - 1] == 0) b->n--;
}

ONNXC_MAYBE_UNUSED static inline int onnxc_big_cmp(const onnxc_big *a, const onnxc_big *b) {
  int32_t i;
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  for (i = a->n - 1; i >= 0; i--)
    if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
  return 0;
}

/* a -= b (a >= b) */
ONNXC_MAYBE_UNUSED static inline void onnxc_big_sub(onnxc_big *a, const onnxc_big *b) {
  int64_t borrow = 0;
  int32_t i;
  for (i = 0; i < a->n; i++) {
    int64_t t = (int64_t)a->w[i] - (i < b->n ? (int64_t)b->w[i] : 0) - borrow;
    borrow = t < 0;
    a->w[i] = (uint32_t)(t + (borrow ? ((int64_t)1 << 32) : 0));
  }
  while (a->n > 0 && a->w[a->n - 1] == 0) a->n--;
}

/* d = a + b */
ONNXC_MAYBE_UNUSED static inline void onnxc_big_add(onnxc_big *d, const onnxc_big *a, const onnxc_big *b) {
  uint64_t carry = 0;
  int32_t i, n = a->n > b->n ? a->n : b->n;
  for (i = 0; i < n; i++) {
    uint64_t t = (uint64_t)(i < a->n ? a->w[i] : 0) + (i < b->n ? b->w[i] : 0) + carry;
    d->w[i] = (uint32_t)t;
    carry = t >> 32;
  }
  d->n = n;
  if (carry) d->w[d->n++] = (uint32_t)carry;
}

ONNXC_MAYBE_UNUSED static inline int32_t onnxc_big_bits(const onnxc_big *b) {
  int32_t r;
  uint32_t top;
  if (b->n == 0) return 0;
  top = b->w[b->n - 1];
  r = 32 * (b->n - 1);
  while (top) { r++; top >>= 1; }
  return r;
}

/* floor(log10(2^t)) for |t| < 1700 */
ONNXC_MAYBE_UNUSED static inline int32_t onnxc_flog10_pow2(int32_t t) {
  int64_t x = (int64_t)t * 78913;
  return (int32_t)(x >= 0 ? x / 262144 : -((-x + 262143) / 262144));
}

/* The shortest decimal digits that read back as the binary floating-point value
   f * 2^e (f > 0; `unequal`: f is a power of two above the smallest normal, so the next lower
   value is half as far), as numpy's Dragon4 "unique" mode makes them (the margins to the
   neighbours inclusive when f is even, as reading back rounds ties to even; the last digit
   rounded to nearest, ties to even).  Writes the digits, returns their count;
   *k10 is the decimal exponent of the first digit and *e10 that of the exact value. */
ONNXC_MAYBE_UNUSED static inline int onnxc_dragon4(uint64_t f, int32_t e, int unequal, char *dig, int32_t *k10, int32_t *e10,
                                                   uint32_t *ws, int32_t cap) {
  onnxc_big r, s, ml, mh, hi;
  int32_t k, hb = 63, nd = 0, low, high, digit = 0, even = (int32_t)(~f & 1);
  r.w = ws;
  s.w = ws + cap;
  ml.w = ws + 2 * cap;
  mh.w = ws + 3 * cap;
  hi.w = ws + 4 * cap;
  while (!(f >> hb)) hb--;
  if (e > 0) {
    onnxc_big_set(&r, f);
    onnxc_big_shl(&r, e + (unequal ? 2 : 1));
    onnxc_big_set(&s, unequal ? 4 : 2);
    onnxc_big_set(&ml, 1);
    onnxc_big_shl(&ml, e);
  } else {
    onnxc_big_set(&r, f);
    onnxc_big_shl(&r, unequal ? 2 : 1);
    onnxc_big_set(&s, 1);
    onnxc_big_shl(&s, -e + (unequal ? 2 : 1));
    onnxc_big_set(&ml, 1);
  }
  k = onnxc_flog10_pow2(hb + e) + 1; /* correct or one too low */
  if (k > 0) {
    onnxc_big_pow10(&s, k);
  } else if (k < 0) {
    onnxc_big_pow10(&r, -k);
    onnxc_big_pow10(&ml, -k);
  }
  if (onnxc_big_cmp(&r, &s) >= 0) {
    k++;
  } else {
    onnxc_big_muladd(&r, 10, 0);
    onnxc_big_muladd(&ml, 10, 0);
  }
  onnxc_big_copy(&mh, &ml);
  if (unequal) onnxc_big_shl(&mh, 1);
  *e10 = k - 1;
  *k10 = k - 1;
  for (;;) {
    digit = 0;
    while (onnxc_big_cmp(&r, &s) >= 0) {
      onnxc_big_sub(&r, &s);
      digit++;
    }
    onnxc_big_add(&hi, &r, &mh);
    if (even) { /* an even significand wins the ties of reading back: margins inclusive */
      low = onnxc_big_cmp(&r, &ml) <= 0;
      high = onnxc_big_cmp(&hi, &s) >= 0;
    } else {
      low = onnxc_big_cmp(&r, &ml) < 0;
      high = onnxc_big_cmp(&hi, &s) > 0;
    }
    if (low || high || nd >= 40) break;
    dig[nd++] = (char)('0' + digit);
    onnxc_big_muladd(&r, 10, 0);
    onnxc_big_muladd(&ml, 10, 0);
    onnxc_big_muladd(&mh, 10, 0);
  }
  {
    int down = low;
    if (low == high) {
      int c;
      onnxc_big_shl(&r, 1);
      c = onnxc_big_cmp(&r, &s);
      down = c < 0;
      if (c == 0) down = (digit & 1) == 0;
    }
    if (down) {
      dig[nd++] = (char)('0' + digit);
    } else if (digit < 9) {
      dig[nd++] = (char)('0' + digit + 1);
    } else {
      for (;;) {
        if (nd == 0) {
          dig[nd++] = '1';
          *k10 += 1;
          break;
        }
        nd--;
        if (dig[nd] != '9') {
          dig[nd]++;
          nd++;
          break;
        }
      }
    }
  }
  return nd;
}

/* Text of a binary floating-point value as numpy prints it (str of a float16/32/64 scalar):
   bits = its IEEE pattern with p significand bits (hidden one included) and ebits exponent
   bits; positional for 1e-4 <= |x| < 10^pos_max and for zero ("0.0", "100.0", "0.00123"),
   otherwise scientific ("1e-05", "1.5e+16"); "nan", "inf", "-inf".  out: 48 bytes; returns
   the length. */
ONNXC_MAYBE_UNUSED static inline int onnxc_ftoa(char *out, uint64_t bits, int32_t p, int32_t ebits, int32_t pos_max,
                                                uint32_t *ws, int32_t cap) {
  int32_t bias = (1 << (ebits - 1)) - 1, ef = (int32_t)((bits >> (p - 1)) & ((1u << ebits) - 1)), k10, e10, i;
  uint64_t man = bits & (((uint64_t)1 << (p - 1)) - 1), f;
  int neg = (int)((bits >> (p - 1 + ebits)) & 1), o = 0, nd, unequal;
  char dig[48];
  if (ef == (1 << ebits) - 1) {
    const char *t = man ? "nan" : neg ? "-inf" : "inf";
    while (*t) out[o++] = *t++;
    out[o] = 0;
    return o;
  }
  if (neg) out[o++] = '-';
  if (ef == 0 && man == 0) {
    memcpy(out + o, "0.0", 4);
    return o + 3;
  }
  if (ef) {
    f = man | (uint64_t)1 << (p - 1);
    unequal = man == 0 && ef > 1;
  } else {
    f = man;
    ef = 1;
    unequal = 0;
  }
  nd = onnxc_dragon4(f, ef - bias - (p - 1), unequal, dig, &k10, &e10, ws, cap);
  if (e10 >= -4 && e10 < pos_max) {
    if (k10 >= 0) {
      for (i = 0; i <= k10; i++) out[o++] = i < nd ? dig[i] : '0';
      out[o++] = '.';
      if (nd > k10 + 1)
        for (i = k10 + 1; i < nd; i++) out[o++] = dig[i];
      else
        out[o++] = '0';
    } else {
      out[o++] = '0';
      out[o++] = '.';
      for (i = 0; i < -k10 - 1; i++) out[o++] = '0';
      for (i = 0; i < nd; i++) out[o++] = dig[i];
    }
  } else {
    int32_t x = k10 < 0 ? -k10 : k10;
    char t[8];
    int tn = 0;
    out[o++] = dig[0];
    if (nd > 1) {
      out[o++] = '.';
      for (i = 1; i < nd; i++) out[o++] = dig[i];
    }
    out[o++] = 'e';
    out[o++] = k10 < 0 ? '-' : '+';
    do { t[tn++] = (char)('0' + x % 10); x /= 10; } while (x);
    if (tn < 2) t[tn++] = '0';
    while (tn) out[o++] = t[--tn];
  }
  out[o] = 0;
  return o;
}

/* Decimal text of an integer. */
ONNXC_MAYBE_UNUSED static inline int onnxc_itoa(char *out, uint64_t mag, int neg) {
  char t[24];
  int tn = 0, o = 0;
  if (neg) out[o++] = '-';
  do { t[tn++] = (char)('0' + mag % 10); mag /= 10; } while (mag);
  while (tn) out[o++] = t[--tn];
  out[o] = 0;
  return o;
}

ONNXC_MAYBE_UNUSED static inline int onnxc_isws(unsigned char c) { return c == ' ' || (c >= 9 && c <= 13); }

ONNXC_MAYBE_UNUSED static inline int onnxc_word_nocase(const char *s, const char *w) {
  while (*w) {
    char c = *s;
    if (c >= 'A' && c <= 'Z') c = (char)(c + 32);
    if (c != *w) return 0;
    s++;
    w++;
  }
  return 1;
}

/* Reads s as an integer: surrounding ASCII white space, an optional sign, decimal digits and
   an optional fraction, which is dropped ("100.5" reads as 100).  Returns -1 when s is not
   one or its magnitude exceeds pos_max (neg_max when negative); else 0 with *mag and *neg. */
ONNXC_MAYBE_UNUSED static inline int onnxc_atoi(const char *s, uint64_t pos_max, uint64_t neg_max, uint64_t *mag,
                                                int *neg) {
  const unsigned char *u = (const unsigned char *)s;
  uint64_t m = 0;
  int any = 0, big = 0;
  *neg = 0;
  while (onnxc_isws(*u)) u++;
  if (*u == '+' || *u == '-') *neg = *u++ == '-';
  for (; *u >= '0' && *u <= '9'; u++) {
    unsigned d = (unsigned)(*u - '0');
    any = 1;
    if (m > (UINT64_MAX - d) / 10) big = 1;
    else m = m * 10 + d;
  }
  if (*u == '.')
    for (u++; *u >= '0' && *u <= '9'; u++) any = 1;
  while (onnxc_isws(*u)) u++;
  if (!any || *u || big || m > (*neg ? neg_max : pos_max)) return -1;
  *mag = m;
  return 0;
}

/* Reads s as a number (surrounding ASCII white space allowed): an optional sign, then
   "inf", "infinity" or "nan" in any case, or decimal digits with an optional point and
   exponent.  Rounds to nearest even in the format with p significand bits and ebits exponent
   bits (exact for up to 128 significant digits; the digits after those count only to break a
   tie) and stores its bit pattern in *bits; returns 0, or -1 when s is not a number.
   ws: 3 cap words. */
ONNXC_MAYBE_UNUSED static inline int onnxc_atof(const char *s, int32_t p, int32_t ebits, uint64_t *bits, uint32_t *ws,
                                                int32_t cap) {
  const unsigned char *u = (const unsigned char *)s;
  int neg = 0, any = 0, sticky = 0;
  int32_t nd = 0, dexp = 0, bias = (1 << (ebits - 1)) - 1, kmin = 1 - bias - (p - 1), k, m10, i;
  int64_t ex = 0;
  uint64_t sign, q = 0;
  onnxc_big num, den, t;
  num.w = ws;
  den.w = ws + cap;
  t.w = ws + 2 * cap;
  while (onnxc_isws(*u)) u++;
  if (*u == '+' || *u == '-') neg = *u++ == '-';
  sign = (uint64_t)neg << (p - 1 + ebits);
  if (onnxc_word_nocase((const char *)u, "inf") || onnxc_word_nocase((const char *)u, "nan")) {
    int nan = onnxc_word_nocase((const char *)u, "nan");
    u += onnxc_word_nocase((const char *)u, "infinity") ? 8 : 3;
    while (onnxc_isws(*u)) u++;
    if (*u) return -1;
    *bits = (nan ? 0 : sign) | ((((uint64_t)1 << ebits) - 1) << (p - 1)) | (nan ? (uint64_t)1 << (p - 2) : 0);
    return 0;
  }
  onnxc_big_set(&num, 0);
  for (; *u >= '0' && *u <= '9'; u++) {
    any = 1;
    if (nd == 0 && *u == '0') continue;
    if (nd < 128) {
      onnxc_big_muladd(&num, 10, (uint32_t)(*u - '0'));
      nd++;
    } else {
      dexp++;
      if (*u != '0') sticky = 1;
    }
  }
  if (*u == '.') {
    for (u++; *u >= '0' && *u <= '9'; u++) {
      any = 1;
      if (nd == 0 && *u == '0') { dexp--; continue; }
      if (nd < 128) {
        onnxc_big_muladd(&num, 10, (uint32_t)(*u - '0'));
        nd++;
        dexp--;
      } else if (*u != '0') {
        sticky = 1;
      }
    }
  }
  if (!any) return -1;
  if (*u == 'e' || *u == 'E') {
    int eneg = 0, edig = 0;
    u++;
    if (*u == '+' || *u == '-') eneg = *u++ == '-';
    for (; *u >= '0' && *u <= '9'; u++) {
      edig = 1;
      if (ex < 100000) ex = ex * 10 + (*u - '0');
    }
    if (!edig) return -1;
    dexp += (int32_t)(eneg ? -ex : ex);
  }
  while (onnxc_isws(*u)) u++;
  if (*u) return -1;
  if (nd == 0) {
    *bits = sign;
    return 0;
  }
  m10 = nd + dexp; /* 10^(m10-1) <= value < 10^m10 */
  /* far outside the format's range (log10(2) < 0.302, so both tests are conservative) */
  if ((int64_t)(m10 - 1) * 1000 > (int64_t)(bias + 1) * 302 + 1000) {
    *bits = sign | ((((uint64_t)1 << ebits) - 1) << (p - 1));
    return 0;
  }
  if ((int64_t)m10 * 1000 < (int64_t)(kmin - 1) * 302 - 1000) {
    *bits = sign;
    return 0;
  }
  /* value = num / den exactly; q = num * 2^-k / den with 2^(p-1) <= q < 2^p, or k = kmin */
  onnxc_big_set(&den, 1);
  if (dexp >= 0) onnxc_big_pow10(&num, dexp);
  else onnxc_big_pow10(&den, -dexp);
  k = onnxc_big_bits(&num) - onnxc_big_bits(&den) - p; /* num / den / 2^k in (2^(p-1), 2^(p+1)) */
  if (k < kmin) k = kmin;
  if (k < 0) onnxc_big_shl(&num, -k);
  else onnxc_big_shl(&den, k);
  onnxc_big_copy(&t, &den);
  onnxc_big_shl(&t, p);
  if (onnxc_big_cmp(&num, &t) >= 0) { /* one too low */
    k++;
    if (k <= 0) onnxc_big_shr1(&num);
    else onnxc_big_shl(&den, 1);
    onnxc_big_copy(&t, &den);
    onnxc_big_shl(&t, p);
  }
  for (i = p; i >= 0; i--) {
    if (onnxc_big_cmp(&num, &t) >= 0) {
      onnxc_big_sub(&num, &t);
      q |= (uint64_t)1 << i;
    }
    if (i) onnxc_big_shr1(&t);
  }
  /* the remainder num against den / 2 (t == den now); ties to even, or up when digits were cut */
  onnxc_big_shl(&num, 1);
  i = onnxc_big_cmp(&num, &t);
  if (i > 0 || (i == 0 && (sticky || (q & 1)))) q++;
  if (q == (uint64_t)1 << p) {
    q >>= 1;
    k++;
  }
  if (q >= (uint64_t)1 << (p - 1)) {
    int64_t ef = (int64_t)k + p - 1 + bias;
    if (ef >= ((int64_t)1 << ebits) - 1) {
      *bits = sign | ((((uint64_t)1 << ebits) - 1) << (p - 1));
      return 0;
    }
    *bits = sign | (uint64_t)ef << (p - 1) | (q - ((uint64_t)1 << (p - 1)));
  } else {
    *bits = sign | q;
  }
  return 0;
}
