#if defined(__CUDACC_RTC__)
/* NVRTC (--target cuda-nvrtc) has no C library headers: the types, limits and constants the
   generated code uses (math functions, memcpy and memset are NVRTC builtins) */
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef unsigned long long uintptr_t;
#define INT8_MIN (-128)
#define INT8_MAX 127
#define INT16_MIN (-32768)
#define INT16_MAX 32767
#define INT32_MIN (-2147483647 - 1)
#define INT32_MAX 2147483647
#define INT64_MIN (-9223372036854775807LL - 1)
#define INT64_MAX 9223372036854775807LL
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX 18446744073709551615ULL
#define INFINITY __builtin_bit_cast(float, 0x7f800000u)
#define NAN __builtin_bit_cast(float, 0x7fc00000u)
/* the run-time statuses device code returns (values as in onnxc_rt.h, which NVRTC does not see) */
enum {
  ONNXC_OK = 0,
  ONNXC_ERR_BOUNDS = 3,
  ONNXC_ERR_CAPACITY = 7,
  ONNXC_ERR_PARSE = 8,
  ONNXC_ERR_SHAPE = 9,
  ONNXC_ERR_EMPTY = 10,
  ONNXC_ERR_IMAGE = 11
};
typedef const char *onnxc_string; /* a string tensor's element (onnxc_rt.h) */
#else
#include <math.h>
#include <stdint.h>
#include <string.h>
#endif

/* Helpers below are static inline; not every model uses each one.  Compiled as CUDA (the
   cuda targets) they are device functions, and C99's restrict is CUDA's __restrict__. */
/* Weight arrays of 64 bytes or more start on a 64-byte boundary on the hosts with vector
   units (a cache line: an unaligned 64-byte AVX-512 load touches two lines, which halves the
   rate at which a kernel streams weights from L2); on other targets (microcontrollers: flash
   bytes matter, there is no cache line to split) the compiler's default. */
#if !defined(__CUDACC__) && (defined(__GNUC__) || defined(__clang__)) && \
    (defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
#define ONNXC_WALIGN __attribute__((aligned(64)))
#else
#define ONNXC_WALIGN
#endif

#if defined(__CUDACC__)
#define ONNXC_MAYBE_UNUSED __device__ __attribute__((unused))
#define restrict __restrict__
#elif defined(__GNUC__) || defined(__clang__)
#define ONNXC_MAYBE_UNUSED __attribute__((unused))
#else
#define ONNXC_MAYBE_UNUSED
#endif

/* Node functions inline everything they call (flatten, where the build optimizes for speed):
   each kernel is then compiled for its node's constant shape.  GCC's interprocedural constant
   propagation clones a kernel for constant arguments only within a growth budget, which a model
   with many nodes exhausts (and -O2 does not clone at all), so most nodes ran the generic
   kernel: MLPerf ResNet-8 0.93x the time with flatten, MobileNetV2 0.94x (GCC -O3, bench/ab.py);
   with clang -O3 ResNet-8 0.83x.  -Os builds keep calls (flash), and a build may define
   ONNXC_NODE_FN itself (empty: the old calls). */
#if !defined(ONNXC_NODE_FN)
#if !defined(__CUDACC__) && (defined(__GNUC__) || defined(__clang__)) && defined(__OPTIMIZE__) && \
    !defined(__OPTIMIZE_SIZE__)
#define ONNXC_NODE_FN __attribute__((flatten))
#else
#define ONNXC_NODE_FN
#endif
#endif

#if defined(__CUDACC__)
/* device code has memcpy and memset, not memmove */
ONNXC_MAYBE_UNUSED static inline void *onnxc_memmove(void *dst, const void *src, unsigned long long n) {
  unsigned char *d = (unsigned char *)dst;
  const unsigned char *s = (const unsigned char *)src;
  unsigned long long i;
  if (d < s)
    for (i = 0; i < n; i++) d[i] = s[i];
  else if (d > s)
    for (i = n; i > 0; i--) d[i - 1] = s[i - 1];
  return dst;
}
#define memmove onnxc_memmove
/* nor memcmp (the string ops compare bytes) */
ONNXC_MAYBE_UNUSED static inline int onnxc_memcmp(const void *a, const void *b, unsigned long long n) {
  const unsigned char *p = (const unsigned char *)a, *q = (const unsigned char *)b;
  unsigned long long i;
  for (i = 0; i < n; i++)
    if (p[i] != q[i]) return p[i] < q[i] ? -1 : 1;
  return 0;
}
#define memcmp onnxc_memcmp
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

/* ONNX small element types, one element's code at a time.  8-bit floats are stored one per
   byte; int4/uint4/float4e2m1 two per byte and int2/uint2 four per byte, low bits first.
   Float codes follow the ONNX reference (ml_dtypes): round to nearest even; `sat` clamps
   finite overflow and infinities to the largest finite value (Cast saturate=1), otherwise
   overflow gives inf (e5m2) or NaN (e4m3fn, the FNUZ types).  FNUZ types have no negative zero
   and one NaN, 0x80.  float4e2m1 always saturates and, like ml_dtypes, maps NaN to a zero
   of the opposite sign.
   kind: 0 = e4m3fn, 1 = IEEE-like e5m2, 2 = FNUZ, 3 = float4e2m1 (4-bit code). */
ONNXC_MAYBE_UNUSED static inline float onnxc_small2f(unsigned c, int mb, int bias, int kind) {
  const int nb = kind == 3 ? 4 : 8, eb = nb - 1 - mb;
  const unsigned sign = (c >> (nb - 1)) & 1u, mag = c & ((1u << (nb - 1)) - 1u);
  const unsigned ex = mag >> mb, man = mag & ((1u << mb) - 1u);
  uint32_t bits;
  float f;
  if ((kind == 0 && mag == 0x7fu) || (kind == 2 && c == 0x80u) ||
      (kind == 1 && ex == (1u << eb) - 1u && man)) {
    bits = sign << 31 | 0x7fc00000u;
  } else if (kind == 1 && ex == (1u << eb) - 1u) {
    bits = sign << 31 | 0x7f800000u;
  } else if (ex == 0) { /* subnormal: man * 2^(1 - bias - mb) */
    bits = (uint32_t)(127 + 1 - bias - mb) << 23;
    memcpy(&f, &bits, 4);
    f *= (float)man;
    return sign ? -f : f;
  } else {
    bits = sign << 31 | (uint32_t)((int)ex - bias + 127) << 23 | man << (23 - mb);
  }
  memcpy(&f, &bits, 4);
  return f;
}

ONNXC_MAYBE_UNUSED static inline unsigned onnxc_f2small(float x, int mb, int bias, int kind, int sat) {
  const unsigned nb = kind == 3 ? 4u : 8u;
  const unsigned maxc = kind == 0 ? 0x7eu : (kind == 1 ? 0x7bu : (kind == 2 ? 0x7fu : 0x7u));
  const unsigned ovf = kind == 0 ? 0x7fu : (kind == 1 ? 0x7cu : 0x80u);
  uint32_t b, ax, m24, q, rem, half;
  unsigned sb, code;
  int e, emin = 1 - bias, shift;
  memcpy(&b, &x, 4);
  sb = (unsigned)(b >> 31) << (nb - 1);
  ax = b & 0x7fffffffu;
  if (ax > 0x7f800000u) /* NaN */
    return kind == 0 ? (sb | 0x7fu) : (kind == 1 ? (sb | 0x7eu) : (kind == 2 ? 0x80u : (sb ^ 0x8u)));
  if (ax == 0x7f800000u) /* infinity */
    return (sat || kind == 3) ? (sb | maxc) : (kind == 2 ? 0x80u : (sb | ovf));
  if (ax < 0x00800000u) return kind == 2 ? 0u : sb; /* float subnormals round to zero */
  e = (int)(ax >> 23) - 127;
  if (e > 16) {
    code = maxc + 1u;
  } else {
    m24 = (ax & 0x7fffffu) | 0x800000u;
    shift = 23 - mb + (e < emin ? emin - e : 0);
    if (shift > 24) {
      q = 0;
    } else {
      q = m24 >> shift;
      rem = m24 & ((1u << shift) - 1u);
      half = 1u << (shift - 1);
      if (rem > half || (rem == half && (q & 1u))) q++;
    }
    code = e < emin ? q : ((unsigned)(e + bias) << mb) + q - (1u << mb);
  }
  if (code > maxc) {
    if (sat || kind == 3) code = maxc;
    else return kind == 2 ? 0x80u : (sb | ovf);
  }
  if (code == 0 && kind == 2) return 0u;
  return sb | code;
}

#define onnxc_e4m3fn_f(c) onnxc_small2f((c), 3, 7, 0)
#define onnxc_e4m3fnuz_f(c) onnxc_small2f((c), 3, 8, 2)
#define onnxc_e5m2_f(c) onnxc_small2f((c), 2, 15, 1)
#define onnxc_e5m2fnuz_f(c) onnxc_small2f((c), 2, 16, 2)
#define onnxc_e2m1_f(c) onnxc_small2f((c), 1, 1, 3)
#define onnxc_f_e4m3fn(x, sat) ((uint8_t)onnxc_f2small((x), 3, 7, 0, (sat)))
#define onnxc_f_e4m3fnuz(x, sat) ((uint8_t)onnxc_f2small((x), 3, 8, 2, (sat)))
#define onnxc_f_e5m2(x, sat) ((uint8_t)onnxc_f2small((x), 2, 15, 1, (sat)))
#define onnxc_f_e5m2fnuz(x, sat) ((uint8_t)onnxc_f2small((x), 2, 16, 2, (sat)))
#define onnxc_f_e2m1(x) ((uint8_t)onnxc_f2small((x), 1, 1, 3, 1))

/* float8e8m0: a power of two 2^(c - 127); 0xff is NaN.  From float as the ONNX reference
   does it: the sign is dropped, NaN/inf give 0xff; mode 0 rounds up (any fraction bumps the
   exponent), 1 rounds down, 2 to nearest; `sat` keeps 0xfe from rounding into 0xff. */
ONNXC_MAYBE_UNUSED static inline float onnxc_e8m0_f(unsigned c) {
  uint32_t bits = c == 0xffu ? 0x7fc00000u : (c == 0 ? 0x00400000u : (uint32_t)c << 23);
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

ONNXC_MAYBE_UNUSED static inline uint8_t onnxc_f_e8m0(float x, int sat, int mode) {
  uint32_t b, ex;
  int up = 0;
  memcpy(&b, &x, 4);
  ex = (b >> 23) & 0xffu;
  if (ex == 0xffu) return 0xff;
  if (mode == 0) up = (b & 0x7fffffu) != 0;
  else if (mode == 2) up = (b & 0x400000u) && ((b & 0x200000u) || (b & 0x1fffffu) || ex > 0);
  if (up && !(sat && ex == 0xfeu)) ex++;
  return (uint8_t)ex;
}

/* int4/int2 codes to int (two's complement); float -> integer code: truncation toward zero,
   then the low bits (wrap-around), 0 for NaN and infinities, as the reference's astype. */
#define onnxc_i4(c) (((int)(c) ^ 8) - 8)
#define onnxc_i2(c) (((int)(c) ^ 2) - 2)
ONNXC_MAYBE_UNUSED static inline long long onnxc_f2wrap(double x) {
  return (x > -9.2e18 && x < 9.2e18) ? (long long)x : 0;
}
