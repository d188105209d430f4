/* Random numbers as numpy's legacy RandomState(seed) draws them (what the ONNX reference
   implementation and its test data use): the node functions of RandomUniform(Like),
   RandomNormal(Like), Bernoulli, Multinomial and training-mode Dropout keep one onnxc_rng in
   their scratch, seed it, and draw in element order.

   MT19937 (Matsumoto & Nishimura 1998): 624 words of state, refilled 624 at a time by the
   twist recurrence, each output word tempered by four shift/mask steps.  Seeding is the
   reference's init_genrand (a multiplicative recurrence from the one 32-bit seed).
   A uniform double in [0, 1) takes two words: the top 27 bits of the first and the top 26 of
   the second make a 53-bit integer, divided by 2^53.
   The normal variate is the Marsaglia polar method: (x1, x2) uniform in the square [-1, 1)^2
   until 0 < r2 = x1^2 + x2^2 < 1, f = sqrt(-2 ln r2 / r2); f*x2 is returned and f*x1 kept for
   the next call (numpy's legacy order).  The products of r2 go through volatile temporaries:
   a fused multiply-add (-ffp-contract=fast) would change which pairs are rejected.
   The Bernoulli variate is numpy's binomial inversion for n = 1: with p' = min(p, 1 - p),
   q = 1 - p', qn = exp(log(q)) (not q: the rounding of exp(log(q)) decides some draws), one
   uniform u gives 0 when u <= qn, else 1 when u - qn <= p' qn / q, else a fresh draw; the
   result is flipped when p > 1/2.  Every element takes at least one draw, p = 0 included.
   p outside [0, 1] (the reference refuses it) is clamped, NaN counts as 0. */

#define ONNXC_RNG_BYTES 2560 /* scratch a node sets aside for an onnxc_rng (ops_random.c) */

typedef struct onnxc_rng {
  uint32_t mt[624];
  int pos;       /* next word of mt to temper; 624: refill first */
  int has_gauss; /* gauss holds the second value of the last polar pair */
  double gauss;
} onnxc_rng;

/* (a negative array size when onnxc_rng outgrows the scratch the compiler plans for it) */
typedef char onnxc_rng_fits_scratch[sizeof(onnxc_rng) <= ONNXC_RNG_BYTES ? 1 : -1];

ONNXC_MAYBE_UNUSED static inline void onnxc_rng_seed(onnxc_rng *r, uint32_t seed) {
  int k;
  r->mt[0] = seed;
  for (k = 1; k < 624; k++) r->mt[k] = 1812433253u * (r->mt[k - 1] ^ (r->mt[k - 1] >> 30)) + (uint32_t)k;
  r->pos = 624;
  r->has_gauss = 0;
  r->gauss = 0.0;
}

/* The twist: every word from its successor's low 31 bits, its own top bit and the word 397
   places on (wrapping around). */
ONNXC_MAYBE_UNUSED static inline void onnxc_rng_refill(onnxc_rng *r) {
  uint32_t *mt = r->mt, y;
  int k;
  for (k = 0; k < 624; k++) {
    y = (mt[k] & 0x80000000u) | (mt[k + 1 < 624 ? k + 1 : 0] & 0x7fffffffu);
    mt[k] = mt[k + 397 < 624 ? k + 397 : k + 397 - 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
  }
  r->pos = 0;
}

ONNXC_MAYBE_UNUSED static inline uint32_t onnxc_rng_u32(onnxc_rng *r) {
  uint32_t y;
  if (r->pos >= 624) onnxc_rng_refill(r);
  y = r->mt[r->pos++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  y ^= y >> 18;
  return y;
}

/* Uniform in [0, 1) with 53 random bits (numpy's random_sample / rand). */
ONNXC_MAYBE_UNUSED static inline double onnxc_rng_double(onnxc_rng *r) {
  uint32_t a = onnxc_rng_u32(r) >> 5;
  uint32_t b = onnxc_rng_u32(r) >> 6;
  return ((double)a * 67108864.0 + (double)b) / 9007199254740992.0;
}

/* Standard normal (numpy's legacy gauss: randn, standard_normal). */
ONNXC_MAYBE_UNUSED static inline double onnxc_rng_gauss(onnxc_rng *r) {
  double x1, x2, r2, f;
  if (r->has_gauss) {
    r->has_gauss = 0;
    return r->gauss;
  }
  do {
    volatile double s1, s2;
    x1 = 2.0 * onnxc_rng_double(r) - 1.0;
    x2 = 2.0 * onnxc_rng_double(r) - 1.0;
    s1 = x1 * x1;
    s2 = x2 * x2;
    r2 = s1 + s2;
  } while (r2 >= 1.0 || r2 == 0.0);
  f = sqrt(-2.0 * log(r2) / r2);
  r->gauss = f * x1;
  r->has_gauss = 1;
  return f * x2;
}

/* 1 with probability p (numpy's legacy binomial(1, p)). */
ONNXC_MAYBE_UNUSED static inline int onnxc_rng_bernoulli(onnxc_rng *r, double p) {
  double pp, q, qn, px;
  int flip;
  if (!(p >= 0.0)) p = 0.0;
  if (p > 1.0) p = 1.0;
  flip = !(p <= 0.5);
  pp = flip ? 1.0 - p : p;
  q = 1.0 - pp;
  qn = exp(log(q));
  px = pp * qn / q;
  for (;;) {
    double u = onnxc_rng_double(r);
    if (u <= qn) return flip;
    if (u - qn <= px) return !flip;
  }
}

/* double -> float16 rounded once to nearest even (numpy's astype(float16) of a float64): the
   float in between is rounded to odd (truncated, its last bit set when inexact), which float's
   13 extra bits make exact for the second rounding. */
ONNXC_MAYBE_UNUSED static inline uint16_t onnxc_d2h(double d) {
  float f = (float)d;
  if ((double)f != d && d == d) {
    uint32_t b;
    memcpy(&b, &f, 4);
    if (fabs((double)f) > fabs(d)) b--;
    b |= 1u;
    memcpy(&f, &b, 4);
  }
  return onnxc_f2h(f);
}
