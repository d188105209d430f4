/*
 * util.c - errors, data types and element access shared by every stage.
 *
 * fail() is how a user error leaves the library: it formats "onnxc: error: FILE: what" into the
 * context and jumps back to onnxc_compile(), which returns the status to the CLI.  Nothing in
 * the library prints or exits on a user error.
 *
 * The small element types (float8, float4e2m1, float8e8m0, int4/uint4, int2/uint2) share their
 * conversions with generated code: templates/common.h is included here, so a folded constant
 * and a run-time result are computed by the same functions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"
#include "../templates/common.h"

static _Noreturn void vfail(Ctx *ctx, const Node *n, const char *fmt, va_list ap) {
  char msg[768];
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (n)
    snprintf(ctx->err, sizeof ctx->err, "onnxc: error: %s: node '%s' (%s): %s", ctx->file,
             n->name ? n->name : "?", n->op_type ? n->op_type : "?", msg);
  else
    snprintf(ctx->err, sizeof ctx->err, "onnxc: error: %s: %s", ctx->file, msg);
  /* one line, whatever the message held */
  for (char *p = ctx->err; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  longjmp(ctx->fail_jmp, 1);
}

void fail(Ctx *ctx, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(ctx, NULL, fmt, ap);
}

void fail_node(Ctx *ctx, const Node *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(ctx, n, fmt, ap);
}

void unreachable_at(const char *file, int line, const char *msg) {
  fprintf(stderr, "onnxc: internal error at %s:%d: %s\n", file, line, msg);
  abort();
}

size_t dtype_size(int dt) {
  switch (dt) {
  case DT_FLOAT: case DT_INT32: case DT_UINT32: return 4;
  case DT_UINT8: case DT_INT8: case DT_BOOL: return 1;
  case DT_UINT16: case DT_INT16: case DT_FLOAT16: case DT_BFLOAT16: return 2;
  case DT_INT64: case DT_DOUBLE: case DT_UINT64: return 8;
  case DT_STRING: return sizeof(char *);
  case DT_FLOAT8E4M3FN: case DT_FLOAT8E4M3FNUZ: case DT_FLOAT8E5M2: case DT_FLOAT8E5M2FNUZ:
  case DT_FLOAT8E8M0: return 1;
  default: return 0;
  }
}

int dtype_bits(int dt) {
  switch (dt) {
  case DT_UINT4: case DT_INT4: case DT_FLOAT4E2M1: return 4;
  case DT_UINT2: case DT_INT2: return 2;
  default: return (int)dtype_size(dt) * 8;
  }
}

bool dtype_is_small(int dt) { return dt >= DT_FLOAT8E4M3FN && dt <= DT_INT2; }

bool dtype_is_packed(int dt) {
  return dt == DT_UINT4 || dt == DT_INT4 || dt == DT_FLOAT4E2M1 || dt == DT_UINT2 || dt == DT_INT2;
}

bool dtype_is_small_float(int dt) {
  return dtype_is_small(dt) && dt != DT_UINT4 && dt != DT_INT4 && dt != DT_UINT2 && dt != DT_INT2;
}

const char *dtype_name(int dt) {
  static const char *names[] = {"undefined", "float", "uint8", "int8", "uint16", "int16",
                                "int32", "int64", "string", "bool", "float16", "double",
                                "uint32", "uint64", "complex64", "complex128", "bfloat16",
                                "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz",
                                "uint4", "int4", "float4e2m1", "float8e8m0", "uint2", "int2",
                                "float6e2m3", "float6e3m2"};
  if (dt >= 0 && dt < (int)(sizeof names / sizeof names[0])) return names[dt];
  return "unknown";
}

bool dtype_is_float(int dt) {
  return dt == DT_FLOAT || dt == DT_DOUBLE || dt == DT_FLOAT16 || dt == DT_BFLOAT16;
}

bool dtype_is_int(int dt) {
  switch (dt) {
  case DT_UINT8: case DT_INT8: case DT_UINT16: case DT_INT16: case DT_INT32: case DT_INT64:
  case DT_UINT32: case DT_UINT64: return true;
  default: return false;
  }
}

bool dtype_is_signed(int dt) {
  return dt == DT_INT8 || dt == DT_INT16 || dt == DT_INT32 || dt == DT_INT64 || dtype_is_float(dt);
}

int64_t value_numel(const Value *v) {
  int64_t n = 1;
  for (int i = 0; i < v->rank; i++) n *= v->dims[i];
  return n;
}

int64_t value_bytes(const Value *v) {
  int bits = dtype_bits(v->dtype);
  if (bits % 8 == 0) return value_numel(v) * (bits / 8);
  return (value_numel(v) * bits + 7) / 8;
}

void value_set_shape(Value *v, int dtype, int rank, const int64_t *dims) {
  CHECK(rank >= 0 && rank <= ONNXC_MAX_RANK);
  v->dtype = dtype;
  v->rank = rank;
  for (int i = 0; i < rank; i++) v->dims[i] = dims[i];
  v->typed = true;
}

bool same_shape(const Value *a, const Value *b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return false;
  return true;
}

char *shape_str(Arena *a, const Value *v) {
  char buf[256];
  size_t k = 0;
  buf[k++] = '[';
  for (int i = 0; i < v->rank && k < sizeof buf - 24; i++)
    k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%lld", i ? "," : "", (long long)v->dims[i]);
  buf[k++] = ']';
  buf[k] = 0;
  return arena_strdup(a, buf);
}

bool mul_ok(int64_t a, int64_t b, int64_t *out) {
  if (a < 0 || b < 0) return false;
  if (a != 0 && b > INT64_MAX / a) return false;
  *out = a * b;
  return true;
}

/* IEEE half <-> float with round-to-nearest-even. */
float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
  if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else { /* subnormal: renormalize */
      int e = -1;
      do { e++; man <<= 1; } while (!(man & 0x400));
      bits = sign | (uint32_t)(127 - 15 - e) << 23 | (man & 0x3ff) << 13;
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | man << 13;
  } else {
    bits = sign | (exp + 112) << 23 | man << 13;
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000;
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return (uint16_t)(sign | 0x7c00 | (ax > 0x7f800000u ? 0x200 : 0));
  if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00); /* rounds to inf */
  if (ax < 0x38800000u) { /* subnormal half or zero */
    if (ax < 0x33000000u) return (uint16_t)sign;
    uint32_t e = ax >> 23, man = (ax & 0x7fffff) | 0x800000;
    uint32_t shift = 126 - e; /* value / 2^-24, rounded */
    uint32_t r = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (r & 1))) r++;
    return (uint16_t)(sign | r);
  }
  uint32_t r = ((ax >> 13) - (112u << 10));
  uint32_t rem = ax & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (r & 1))) r++;
  return (uint16_t)(sign | r);
}

float bf16_to_float(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

uint16_t float_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

/* ---- small types ---------------------------------------------------------------------- */

double small_to_double(int dt, unsigned c) {
  switch (dt) {
  case DT_FLOAT8E4M3FN: return onnxc_e4m3fn_f(c);
  case DT_FLOAT8E4M3FNUZ: return onnxc_e4m3fnuz_f(c);
  case DT_FLOAT8E5M2: return onnxc_e5m2_f(c);
  case DT_FLOAT8E5M2FNUZ: return onnxc_e5m2fnuz_f(c);
  case DT_FLOAT4E2M1: return onnxc_e2m1_f(c);
  case DT_FLOAT8E8M0: return onnxc_e8m0_f(c);
  case DT_UINT4: case DT_UINT2: return c;
  case DT_INT4: return onnxc_i4(c);
  case DT_INT2: return onnxc_i2(c);
  default: unreachable("small_to_double: dtype");
  }
}

unsigned small_from_float(int dt, float x, int sat, int mode) {
  switch (dt) {
  case DT_FLOAT8E4M3FN: return onnxc_f_e4m3fn(x, sat);
  case DT_FLOAT8E4M3FNUZ: return onnxc_f_e4m3fnuz(x, sat);
  case DT_FLOAT8E5M2: return onnxc_f_e5m2(x, sat);
  case DT_FLOAT8E5M2FNUZ: return onnxc_f_e5m2fnuz(x, sat);
  case DT_FLOAT4E2M1: return onnxc_f_e2m1(x);
  case DT_FLOAT8E8M0: return onnxc_f_e8m0(x, sat, mode);
  case DT_UINT4: case DT_INT4: return (unsigned)(onnxc_f2wrap(x) & 0xf);
  case DT_UINT2: case DT_INT2: return (unsigned)(onnxc_f2wrap(x) & 0x3);
  default: unreachable("small_from_float: dtype");
  }
}

unsigned small_get(int dt, const void *data, int64_t i) {
  const uint8_t *p = data;
  int bits = dtype_bits(dt);
  if (bits == 8) return p[i];
  int per = 8 / bits;
  return (unsigned)(p[i / per] >> (bits * (int)(i % per))) & ((1u << bits) - 1u);
}

void small_set(int dt, void *data, int64_t i, unsigned code) {
  uint8_t *p = data;
  int bits = dtype_bits(dt);
  if (bits == 8) { p[i] = (uint8_t)code; return; }
  int per = 8 / bits, sh = bits * (int)(i % per);
  unsigned mask = ((1u << bits) - 1u) << sh;
  p[i / per] = (uint8_t)((p[i / per] & ~mask) | ((code << sh) & mask));
}

double const_get_f(const Value *v, int64_t i) {
  const void *d = v->data;
  if (dtype_is_small(v->dtype)) return small_to_double(v->dtype, small_get(v->dtype, d, i));
  switch (v->dtype) {
  case DT_FLOAT: return ((const float *)d)[i];
  case DT_DOUBLE: return ((const double *)d)[i];
  case DT_FLOAT16: return half_to_float(((const uint16_t *)d)[i]);
  case DT_BFLOAT16: return bf16_to_float(((const uint16_t *)d)[i]);
  case DT_INT8: return ((const int8_t *)d)[i];
  case DT_UINT8: case DT_BOOL: return ((const uint8_t *)d)[i];
  case DT_INT16: return ((const int16_t *)d)[i];
  case DT_UINT16: return ((const uint16_t *)d)[i];
  case DT_INT32: return ((const int32_t *)d)[i];
  case DT_UINT32: return ((const uint32_t *)d)[i];
  case DT_INT64: return (double)((const int64_t *)d)[i];
  case DT_UINT64: return (double)((const uint64_t *)d)[i];
  default: unreachable("const_get_f: dtype");
  }
}

int64_t const_get_i(const Value *v, int64_t i) {
  const void *d = v->data;
  switch (v->dtype) {
  case DT_UINT4: case DT_INT4: case DT_UINT2: case DT_INT2:
    return (int64_t)small_to_double(v->dtype, small_get(v->dtype, d, i));
  case DT_INT64: return ((const int64_t *)d)[i];
  case DT_UINT64: return (int64_t)((const uint64_t *)d)[i];
  case DT_INT32: return ((const int32_t *)d)[i];
  case DT_UINT32: return ((const uint32_t *)d)[i];
  case DT_INT16: return ((const int16_t *)d)[i];
  case DT_UINT16: return ((const uint16_t *)d)[i];
  case DT_INT8: return ((const int8_t *)d)[i];
  case DT_UINT8: case DT_BOOL: return ((const uint8_t *)d)[i];
  default: {
    double x = const_get_f(v, i);
    if (x != x) return 0;
    if (x >= 9.2e18) return INT64_MAX;
    if (x <= -9.2e18) return INT64_MIN;
    return (int64_t)x;
  }
  }
}

void const_set_f(Value *v, int64_t i, double x) {
  void *d = v->data;
  if (dtype_is_small_float(v->dtype)) { /* Cast's defaults: saturate, E8M0 rounds up */
    small_set(v->dtype, d, i, small_from_float(v->dtype, (float)x, 1, SMALL_ROUND_UP));
    return;
  }
  if (dtype_is_small(v->dtype)) { /* int4 / int2: truncate and wrap */
    small_set(v->dtype, d, i, (unsigned)(onnxc_f2wrap(x) & (v->dtype == DT_UINT4 || v->dtype == DT_INT4 ? 0xf : 0x3)));
    return;
  }
  switch (v->dtype) {
  case DT_FLOAT: ((float *)d)[i] = (float)x; break;
  case DT_DOUBLE: ((double *)d)[i] = x; break;
  case DT_FLOAT16: ((uint16_t *)d)[i] = float_to_half((float)x); break;
  case DT_BFLOAT16: ((uint16_t *)d)[i] = float_to_bf16((float)x); break;
  case DT_BOOL: ((uint8_t *)d)[i] = x != 0; break;
  default: const_set_i(v, i, (int64_t)x); break;
  }
}

void const_set_i(Value *v, int64_t i, int64_t x) {
  void *d = v->data;
  switch (v->dtype) {
  case DT_UINT4: case DT_INT4: small_set(v->dtype, d, i, (unsigned)(x & 0xf)); break;
  case DT_UINT2: case DT_INT2: small_set(v->dtype, d, i, (unsigned)(x & 0x3)); break;
  case DT_INT64: ((int64_t *)d)[i] = x; break;
  case DT_UINT64: ((uint64_t *)d)[i] = (uint64_t)x; break;
  case DT_INT32: ((int32_t *)d)[i] = (int32_t)x; break;
  case DT_UINT32: ((uint32_t *)d)[i] = (uint32_t)x; break;
  case DT_INT16: ((int16_t *)d)[i] = (int16_t)x; break;
  case DT_UINT16: ((uint16_t *)d)[i] = (uint16_t)x; break;
  case DT_INT8: ((int8_t *)d)[i] = (int8_t)x; break;
  case DT_UINT8: ((uint8_t *)d)[i] = (uint8_t)x; break;
  case DT_BOOL: ((uint8_t *)d)[i] = x != 0; break;
  default: const_set_f(v, i, (double)x); break;
  }
}
