#include <math.h>
#include <stdint.h>
#include <string.h>

/* Helpers below are static inline; not every model uses each one. */
#if defined(__GNUC__) || defined(__clang__)
#define ONNXC_MAYBE_UNUSED __attribute__((unused))
#else
#define ONNXC_MAYBE_UNUSED
#endif

/* float16 / bfloat16 storage helpers: arithmetic is done in float, results are rounded to
   nearest-even on store. */
ONNXC_MAYBE_UNUSED static inline float onnxc_h2f(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1fu, man = h & 0x3ffu, bits;
  float f;
  if (ex == 0) {
    if (man == 0) {
      bits = sign;
    } else {
      int e = -1;
      do { e++; man <<= 1; } while (!(man & 0x400u));
      bits = sign | (uint32_t)(127 - 15 - e) << 23 | (man & 0x3ffu) << 13;
    }
  } else if (ex == 31) {
    bits = sign | 0x7f800000u | man << 13;
  } else {
    bits = sign | (ex + 112u) << 23 | man << 13;
  }
  memcpy(&f, &bits, 4);
  return f;
}

ONNXC_MAYBE_UNUSED static inline uint16_t onnxc_f2h(float f) {
  uint32_t x, sign, ax, r, rem;
  memcpy(&x, &f, 4);
  sign = (x >> 16) & 0x8000u;
  ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00u | (ax > 0x7f800000u ? 0x200u : 0u));
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);
  if (ax < 0x38800000u) {
    uint32_t e, man, shift, half;
    if (ax < 0x33000000u) return (uint16_t)sign;
    e = ax >> 23;
    man = (ax & 0x7fffffu) | 0x800000u;
    shift = 126u - e;
    r = man >> shift;
    rem = man & ((1u << shift) - 1u);
    half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u))) r++;
    return (uint16_t)(sign | r);
  }
  r = (ax >> 13) - (112u << 10);
  rem = ax & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) r++;
  return (uint16_t)(sign | r);
}

ONNXC_MAYBE_UNUSED static inline float onnxc_bf2f(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

ONNXC_MAYBE_UNUSED static inline uint16_t onnxc_f2bf(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (uint16_t)(x >> 16);
}

/* float -> integer conversion that is defined for every input (C leaves out-of-range
   conversions undefined): NaN gives 0, values beyond the range saturate. */
ONNXC_MAYBE_UNUSED static inline long long onnxc_f2i_s(double x) {
  if (x != x) return 0;
  if (x >= 9223372036854775807.0) return 9223372036854775807LL;
  if (x <= -9223372036854775808.0) return -9223372036854775807LL - 1;
  return (long long)x;
}

ONNXC_MAYBE_UNUSED static inline unsigned long long onnxc_f2i_u(double x) {
  if (x != x || x <= -1.0) return x != x ? 0u : (unsigned long long)(long long)x;
  if (x >= 18446744073709551615.0) return 18446744073709551615ULL;
  return (unsigned long long)x;
}
