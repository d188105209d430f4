/*
 * emit_c.c - the C backend: net.h and net.c from a scheduled, planned graph.
 *
 * Layout of net.c:
 *   includes and the kernel templates the model needs (templates/ *.h, embedded at build time)
 *   weights: one `static const` array per constant, exact (hex-float) literals
 *   one static function per node, named after the ONNX node, with a comment giving op and
 *     shapes; inputs are X0.., outputs Y0.., scratch W; its body comes from the op row's emitter
 *   <name>_run(): binds arena offsets, weights and caller buffers and calls the node functions
 *     in schedule order
 *   the generic descriptor <name>_model (onnxc_rt.h)
 * The output depends only on the model and the flags (no timestamps, no pointer values), so
 * the same input gives byte-identical files.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

extern const struct { const char *name; const char *text; } onnxc_templates[];

/* ---- small emission helpers ----------------------------------------------------------- */

void ep(Emit *e, const char *f, ...) {
  char line[4096];
  va_list ap;
  va_start(ap, f);
  vsnprintf(line, sizeof line, f, ap);
  va_end(ap);
  if (line[0] == '}') e->indent--;
  CHECK(e->indent >= 0);
  if (line[0] != '#') /* preprocessor lines start the line */
    for (int i = 0; i < e->indent; i++) buf_puts(e->out, "  ");
  buf_puts(e->out, line);
  buf_puts(e->out, "\n");
  size_t n = strlen(line);
  if (n && line[n - 1] == '{') e->indent++;
}

const char *fmt(Emit *e, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  char tmp[2048];
  vsnprintf(tmp, sizeof tmp, f, ap);
  va_end(ap);
  return arena_strdup(&e->ctx->arena, tmp);
}

const char *c_type(int dt) {
  switch (dt) {
  case DT_FLOAT: return "float";
  case DT_DOUBLE: return "double";
  case DT_INT8: return "int8_t";
  case DT_UINT8: return "uint8_t";
  case DT_INT16: return "int16_t";
  case DT_UINT16: return "uint16_t";
  case DT_INT32: return "int32_t";
  case DT_UINT32: return "uint32_t";
  case DT_INT64: return "int64_t";
  case DT_UINT64: return "uint64_t";
  case DT_BOOL: return "uint8_t";
  case DT_FLOAT16: return "uint16_t";
  case DT_BFLOAT16: return "uint16_t";
  case DT_STRING: return "onnxc_string";
  default: return dtype_is_small(dt) ? "uint8_t" : NULL; /* codes, packed for sub-byte types */
  }
}

const char *c_ctype(int dt) {
  if (dt == DT_FLOAT16 || dt == DT_BFLOAT16 || dtype_is_small_float(dt)) return "float";
  if (dt == DT_INT4 || dt == DT_INT2) return "int";
  if (dt == DT_UINT4 || dt == DT_UINT2) return "unsigned";
  return c_type(dt);
}

/* Small types: the template's conversion of one element code (see templates/common.h). */
static const char *small_dec(int dt) {
  switch (dt) {
  case DT_FLOAT8E4M3FN: return "onnxc_e4m3fn_f";
  case DT_FLOAT8E4M3FNUZ: return "onnxc_e4m3fnuz_f";
  case DT_FLOAT8E5M2: return "onnxc_e5m2_f";
  case DT_FLOAT8E5M2FNUZ: return "onnxc_e5m2fnuz_f";
  case DT_FLOAT4E2M1: return "onnxc_e2m1_f";
  case DT_FLOAT8E8M0: return "onnxc_e8m0_f";
  case DT_INT4: return "onnxc_i4";
  case DT_INT2: return "onnxc_i2";
  default: return "(unsigned)";
  }
}

const char *c_load(Emit *e, int dt, const char *x) {
  if (dt == DT_FLOAT16) return fmt(e, "onnxc_h2f(%s)", x);
  if (dt == DT_BFLOAT16) return fmt(e, "onnxc_bf2f(%s)", x);
  if (dtype_is_small(dt)) return fmt(e, "%s(%s)", small_dec(dt), x);
  return x;
}

const char *c_store(Emit *e, int dt, const char *x) {
  if (dt == DT_FLOAT16) return fmt(e, "onnxc_f2h(%s)", x);
  if (dt == DT_BFLOAT16) return fmt(e, "onnxc_f2bf(%s)", x);
  if (dt == DT_BOOL) return fmt(e, "(uint8_t)((%s) != 0)", x);
  switch (dt) {
  case DT_FLOAT8E4M3FN: return fmt(e, "onnxc_f_e4m3fn(%s, 1)", x);
  case DT_FLOAT8E4M3FNUZ: return fmt(e, "onnxc_f_e4m3fnuz(%s, 1)", x);
  case DT_FLOAT8E5M2: return fmt(e, "onnxc_f_e5m2(%s, 1)", x);
  case DT_FLOAT8E5M2FNUZ: return fmt(e, "onnxc_f_e5m2fnuz(%s, 1)", x);
  case DT_FLOAT4E2M1: return fmt(e, "onnxc_f_e2m1(%s)", x);
  case DT_FLOAT8E8M0: return fmt(e, "onnxc_f_e8m0(%s, 1, 0)", x);
  case DT_INT4: case DT_UINT4: return fmt(e, "(uint8_t)((unsigned)(%s) & 0xfu)", x);
  case DT_INT2: case DT_UINT2: return fmt(e, "(uint8_t)((unsigned)(%s) & 0x3u)", x);
  default: return fmt(e, "(%s)(%s)", c_type(dt), x);
  }
}

const char *c_packed_get(Emit *e, int dt, const char *arr, const char *idx) {
  switch (dtype_bits(dt)) {
  case 4: return fmt(e, "((%s[(%s) >> 1] >> (((%s) & 1) << 2)) & 0xfu)", arr, idx, idx);
  case 2: return fmt(e, "((%s[(%s) >> 2] >> (((%s) & 3) << 1)) & 0x3u)", arr, idx, idx);
  default: return fmt(e, "%s[%s]", arr, idx);
  }
}

const char *c_packed_or(Emit *e, int dt, const char *arr, const char *idx, const char *x) {
  switch (dtype_bits(dt)) {
  case 4: return fmt(e, "%s[(%s) >> 1] |= (uint8_t)(((unsigned)(%s) & 0xfu) << (((%s) & 1) << 2));", arr, idx, x, idx);
  case 2: return fmt(e, "%s[(%s) >> 2] |= (uint8_t)(((unsigned)(%s) & 0x3u) << (((%s) & 3) << 1));", arr, idx, x, idx);
  default: return fmt(e, "%s[%s] = %s;", arr, idx, x);
  }
}

static void float_lit(char *out, size_t cap, double x, bool is_double) {
  if (isnan(x)) { snprintf(out, cap, is_double ? "((double)NAN)" : "NAN"); return; }
  if (isinf(x)) { snprintf(out, cap, x > 0 ? (is_double ? "((double)INFINITY)" : "INFINITY") : (is_double ? "(-(double)INFINITY)" : "(-INFINITY)")); return; }
  if (is_double) {
    snprintf(out, cap, "%.17g", x);
  } else {
    snprintf(out, cap, "%.9g", x);
  }
  if (!strpbrk(out, ".eE")) strcat(out, ".0");
  if (!is_double) strcat(out, "f");
}

const char *c_lit(Emit *e, int dt, double x) {
  char b[64];
  if (dtype_is_float(dt) || dtype_is_small_float(dt)) {
    float_lit(b, sizeof b, x, dt == DT_DOUBLE);
    return arena_strdup(&e->ctx->arena, b);
  }
  return c_lit_i(e, dt, (int64_t)x);
}

const char *c_lit_i(Emit *e, int dt, int64_t x) {
  if (dtype_is_float(dt)) return c_lit(e, dt, (double)x);
  if (dt == DT_UINT64) return fmt(e, "%lluULL", (unsigned long long)x);
  if (dt == DT_UINT32) return fmt(e, "%lluU", (unsigned long long)(uint32_t)x);
  if (x == INT64_MIN) return "(-9223372036854775807LL-1)";
  if (x > 2147483647LL || x < -2147483647LL) return fmt(e, "%lldLL", (long long)x);
  return fmt(e, "%lld", (long long)x);
}

const char *c_lowest(Emit *e, int dt) {
  switch (dt) {
  case DT_FLOAT: case DT_FLOAT16: case DT_BFLOAT16: return "(-INFINITY)";
  case DT_DOUBLE: return "(-(double)INFINITY)";
  case DT_INT8: return "INT8_MIN";
  case DT_INT16: return "INT16_MIN";
  case DT_INT32: return "INT32_MIN";
  case DT_INT64: return "INT64_MIN";
  default: (void)e; return "0";
  }
}

const char *c_highest(Emit *e, int dt) {
  (void)e;
  switch (dt) {
  case DT_FLOAT: case DT_FLOAT16: case DT_BFLOAT16: return "INFINITY";
  case DT_DOUBLE: return "((double)INFINITY)";
  case DT_INT8: return "INT8_MAX";
  case DT_INT16: return "INT16_MAX";
  case DT_INT32: return "INT32_MAX";
  case DT_INT64: return "INT64_MAX";
  case DT_UINT8: case DT_BOOL: return "UINT8_MAX";
  case DT_UINT16: return "UINT16_MAX";
  case DT_UINT32: return "UINT32_MAX";
  case DT_UINT64: return "UINT64_MAX";
  default: return "0";
  }
}

/* ---- sums that vectorize ------------------------------------------------------------------ */

void emit_lane_sums(Emit *e, const char *T, const char *it, int64_t n, int k, const char *const *dst,
                    const char *const *expr) {
  CHECK(k >= 1 && k <= 4);
  ep(e, "{");
  for (int j = 0; j < k; j++) ep(e, "%s l%d_[16] = {0};", T, j);
  ep(e, "%s q0_ = 0, j_;", it);
  ep(e, "for (; q0_ + 16 <= %lld; q0_ += 16) {", (long long)n);
  ep(e, "for (j_ = 0; j_ < 16; j_++) {");
  ep(e, "const %s q = q0_ + j_;", it);
  for (int j = 0; j < k; j++) ep(e, "l%d_[j_] += %s;", j, expr[j]);
  ep(e, "}");
  ep(e, "}");
  ep(e, "for (; q0_ < %lld; q0_++) {", (long long)n);
  ep(e, "const %s q = q0_;", it);
  for (int j = 0; j < k; j++) ep(e, "l%d_[0] += %s;", j, expr[j]);
  ep(e, "}");
  ep(e, "for (j_ = 0; j_ < 16; j_++) {");
  for (int j = 0; j < k; j++) ep(e, "%s += l%d_[j_];", dst[j], j);
  ep(e, "}");
  ep(e, "}");
}

/* ---- broadcast loop nests ------------------------------------------------------------- */

/* `const IT i<k> = d0 * s + d1 * s + ...;` for each input k (its strides ms[k + 1]). */
static void emit_input_indices(Emit *e, const char *it, int n, int m, int64_t ms[9][ONNXC_MAX_RANK]) {
  for (int k = 0; k < n; k++) {
    char expr[512];
    size_t len = 0;
    expr[0] = 0;
    for (int d = 0; d < m; d++) {
      if (ms[k + 1][d] == 0) continue;
      if (ms[k + 1][d] == 1)
        len += (size_t)snprintf(expr + len, sizeof expr - len, "%sd%d", len ? " + " : "", d);
      else
        len += (size_t)snprintf(expr + len, sizeof expr - len, "%sd%d * %lld", len ? " + " : "", d, (long long)ms[k + 1][d]);
    }
    ep(e, "const %s i%d = %s;", it, k, len ? expr : "0");
  }
}

void emit_broadcast_loops(Emit *e, const Value *out, const Value *const *ins, int n, BodyFn body,
                          void *arg) {
  int r = out->rank;
  int64_t dims[ONNXC_MAX_RANK];
  int64_t st[9][ONNXC_MAX_RANK]; /* st[0] output, st[k+1] input k */
  CHECK(n <= 8);
  int64_t maxn = value_numel(out);
  for (int k = 0; k < n; k++)
    if (value_numel(ins[k]) > maxn) maxn = value_numel(ins[k]);
  if (value_numel(out) == 0) return;
  for (int d = 0; d < r; d++) dims[d] = out->dims[d];
  {
    int64_t s = 1;
    for (int d = r - 1; d >= 0; d--) { st[0][d] = s; s *= dims[d]; }
  }
  for (int k = 0; k < n; k++) {
    const Value *v = ins[k];
    int64_t s = 1;
    for (int d = r - 1; d >= 0; d--) {
      int vd = d - (r - v->rank);
      int64_t len = vd >= 0 ? v->dims[vd] : 1;
      st[k + 1][d] = (len == 1 && dims[d] != 1) ? 0 : s;
      if (len == 1) st[k + 1][d] = 0;
      s *= len;
    }
  }
  /* drop size-1 dims, then merge neighbours whose strides stay consistent */
  int m = 0;
  int64_t md[ONNXC_MAX_RANK], ms[9][ONNXC_MAX_RANK];
  for (int d = 0; d < r; d++) {
    if (dims[d] == 1) continue;
    if (m > 0) {
      bool ok = true;
      for (int k = 0; k <= n; k++)
        if (ms[k][m - 1] != st[k][d] * dims[d]) ok = false;
      if (ok) {
        md[m - 1] *= dims[d];
        for (int k = 0; k <= n; k++) ms[k][m - 1] = st[k][d];
        continue;
      }
    }
    md[m] = dims[d];
    for (int k = 0; k <= n; k++) ms[k][m] = st[k][d];
    m++;
  }
  const char *it = maxn < 2147483647LL ? "int" : "long long";
  if (e->par) {
    /* CUDA: one thread per output element (grid-stride), coordinates from o */
    e->par_loops++;
    if (value_numel(out) > e->par_n) e->par_n = value_numel(out);
    ep(e, "{");
    ep(e, "%s o;", it);
    ep(e, "for (o = (%s)(blockIdx.x * blockDim.x + threadIdx.x); o < %lld; o += (%s)(blockDim.x * gridDim.x)) {", it,
       (long long)value_numel(out), it);
    if (m > 0) ep(e, "%s r_ = o;", it);
    for (int d = m - 1; d >= 0; d--) {
      if (d > 0) {
        ep(e, "const %s d%d = r_ %% %lld;", it, d, (long long)md[d]);
        ep(e, "r_ /= %lld;", (long long)md[d]);
      } else {
        ep(e, "const %s d0 = r_;", it);
      }
    }
    emit_input_indices(e, it, n, m, ms);
    for (int d = 0; d < m; d++) ep(e, "(void)d%d;", d);
    body(e, arg);
    ep(e, "}");
    ep(e, "}");
    return;
  }
  ep(e, "{");
  if (m == 0) {
    ep(e, "const %s o = 0;", it);
    for (int k = 0; k < n; k++) ep(e, "const %s i%d = 0;", it, k);
    body(e, arg);
  } else if (m == 1) {
    ep(e, "%s o;", it);
    ep(e, "for (o = 0; o < %lld; o++) {", (long long)md[0]);
    for (int k = 0; k < n; k++) {
      if (ms[k + 1][0] == 0) ep(e, "const %s i%d = 0;", it, k);
      else ep(e, "const %s i%d = o;", it, k);
    }
    body(e, arg);
    ep(e, "}");
  } else {
    ep(e, "%s o = 0;", it);
    for (int d = 0; d < m; d++) ep(e, "%s d%d;", it, d);
    for (int d = 0; d < m; d++) {
      if (d == m - 1) ep(e, "for (d%d = 0; d%d < %lld; d%d++, o++) {", d, d, (long long)md[d], d);
      else ep(e, "for (d%d = 0; d%d < %lld; d%d++) {", d, d, (long long)md[d], d);
    }
    emit_input_indices(e, it, n, m, ms);
    body(e, arg);
    for (int d = 0; d < m; d++) ep(e, "}");
  }
  ep(e, "}");
}

void emit_par_for(Emit *e, const char *decl, const char *var, int64_t cnt) {
  if (!e->par) {
    ep(e, "for (%s%s = 0; %s < %lld; %s++) {", decl, var, var, (long long)cnt, var);
    return;
  }
  e->par_loops++;
  if (cnt > e->par_n) e->par_n = cnt;
  ep(e, "for (%s%s = blockIdx.x * blockDim.x + threadIdx.x; %s < %lld; %s += blockDim.x * gridDim.x) {", decl, var, var,
     (long long)cnt, var);
}

void emit_par_nest(Emit *e, const char *it, int n, const char *const *vars, const int64_t *cnt) {
  if (!e->par) {
    for (int i = 0; i < n; i++) ep(e, "for (%s %s = 0; %s < %lld; %s++) {", it, vars[i], vars[i], (long long)cnt[i], vars[i]);
    return;
  }
  int64_t total = 1;
  for (int i = 0; i < n; i++) total *= cnt[i];
  emit_par_for(e, fmt(e, "%s ", it), "pt_", total);
  ep(e, "%s pr_ = pt_;", it);
  for (int i = n - 1; i > 0; i--) {
    ep(e, "const %s %s = pr_ %% %lld;", it, vars[i], (long long)cnt[i]);
    ep(e, "pr_ /= %lld;", (long long)cnt[i]);
  }
  ep(e, "const %s %s = pr_;", it, vars[0]);
}

void emit_par_end(Emit *e, int n) {
  for (int i = 0; i < (e->par ? 1 : n); i++) ep(e, "}");
}

/* ---- names ---------------------------------------------------------------------------- */

static const char *sanitize(Arena *a, const char *name, int maxlen) {
  char buf[80];
  int k = 0;
  for (const char *p = name; *p && k < maxlen && k < (int)sizeof buf - 1; p++) {
    char c = *p;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    buf[k++] = ok ? c : '_';
  }
  buf[k] = 0;
  if (k == 0) strcpy(buf, "v");
  return arena_strdup(a, buf);
}

/* ---- constants ------------------------------------------------------------------------ */

/* Exact float32 literal in hex-float notation, built without printf (weights are many). */
static int hexfloat(char *out, float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  int k = 0;
  if (x >> 31) out[k++] = '-';
  uint32_t ex = (x >> 23) & 0xff, man = x & 0x7fffff;
  if (ex == 0xff) {
    const char *s = man ? "NAN" : "INFINITY";
    if (man && k) k--; /* sign of NaN is irrelevant */
    memcpy(out + k, s, strlen(s));
    return k + (int)strlen(s);
  }
  if (ex == 0 && man == 0) {
    memcpy(out + k, "0.0f", 4);
    return k + 4;
  }
  int e2;
  out[k++] = '0';
  out[k++] = 'x';
  if (ex == 0) { out[k++] = '0'; e2 = -126; }
  else { out[k++] = '1'; e2 = (int)ex - 127; }
  uint32_t m = man << 1; /* 24 bits = 6 hex digits */
  if (m) {
    out[k++] = '.';
    int digits = 6;
    while (digits > 0 && (m & 0xf) == 0) { m >>= 4; digits--; }
    for (int i = digits - 1; i >= 0; i--) out[k + i] = "0123456789abcdef"[(m >> (4 * (digits - 1 - i))) & 0xf];
    k += digits;
  }
  out[k++] = 'p';
  if (e2 < 0) { out[k++] = '-'; e2 = -e2; } else out[k++] = '+';
  char tmp[8];
  int t = 0;
  do { tmp[t++] = (char)('0' + e2 % 10); e2 /= 10; } while (e2);
  while (t) out[k++] = tmp[--t];
  out[k++] = 'f';
  return k;
}

static int itoa64(char *out, int64_t v, bool is_unsigned) {
  char tmp[24];
  int t = 0, k = 0;
  uint64_t u;
  if (!is_unsigned && v < 0) {
    if (v == INT64_MIN) {
      const char *s = "(-9223372036854775807LL-1)";
      memcpy(out, s, strlen(s));
      return (int)strlen(s);
    }
    out[k++] = '-';
    u = (uint64_t)(-v);
  } else {
    u = (uint64_t)v;
  }
  do { tmp[t++] = (char)('0' + u % 10); u /= 10; } while (u);
  while (t) out[k++] = tmp[--t];
  if (is_unsigned && (uint64_t)v > 0xffffffffu) { memcpy(out + k, "ULL", 3); k += 3; }
  else if (is_unsigned) out[k++] = 'U';
  else if (v > 2147483647LL || v < -2147483647LL) { memcpy(out + k, "LL", 2); k += 2; }
  return k;
}

static void emit_const(Emit *e, Value *v) {
  int64_t n = value_numel(v);
  bool raw = dtype_is_small(v->dtype); /* small types: their stored (packed) bytes */
  if (raw) n = value_bytes(v);
  if (v->dtype == DT_STRING) {
    /* one literal per element (onnxc_string = const char *) */
    buf_printf(e->out, "/* %s %s%s */\nstatic %sconst onnxc_string %s[%lld] = {", v->name, dtype_name(v->dtype),
               shape_str(&e->ctx->arena, v), e->const_qual ? e->const_qual : "", v->cname, (long long)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) buf_printf(e->out, "\n  %s,", c_str_lit(e, ((const char **)v->data)[i]));
    buf_puts(e->out, n ? "\n};\n" : "0};\n");
    return;
  }
  buf_printf(e->out, "/* %s %s%s */\nstatic %sconst %s %s[%lld]%s = {", v->name, dtype_name(v->dtype),
             shape_str(&e->ctx->arena, v), e->const_qual ? e->const_qual : "", c_type(v->dtype), v->cname,
             (long long)(n ? n : 1), e->walign && value_bytes(v) >= 64 ? " ONNXC_WALIGN" : "");
  char line[4096];
  int len = 0;
  for (int64_t i = 0; i < n; i++) {
    if (len > 100) {
      buf_put(e->out, line, (size_t)len);
      len = 0;
    }
    if (len == 0) { line[len++] = '\n'; line[len++] = ' '; }
    line[len++] = ' ';
    if (raw) {
      len += itoa64(line + len, ((const uint8_t *)v->data)[i], false);
      line[len++] = ',';
      continue;
    }
    switch (v->dtype) {
    case DT_FLOAT: len += hexfloat(line + len, ((float *)v->data)[i]); break;
    case DT_DOUBLE: {
      double d = ((double *)v->data)[i];
      char b[64];
      if (isnan(d)) strcpy(b, "(double)NAN");
      else if (isinf(d)) strcpy(b, d > 0 ? "(double)INFINITY" : "-(double)INFINITY");
      else snprintf(b, sizeof b, "%a", d);
      memcpy(line + len, b, strlen(b));
      len += (int)strlen(b);
      break;
    }
    case DT_UINT64: case DT_UINT32: len += itoa64(line + len, const_get_i(v, i), true); break;
    case DT_FLOAT16: case DT_BFLOAT16: /* raw 16-bit patterns */
      len += itoa64(line + len, ((const uint16_t *)v->data)[i], false);
      break;
    default: len += itoa64(line + len, const_get_i(v, i), false); break;
    }
    line[len++] = ',';
  }
  if (n == 0) line[len++] = '0';
  buf_put(e->out, line, (size_t)len);
  buf_puts(e->out, "\n};\n");
}

/* ---- the model ------------------------------------------------------------------------ */

typedef struct Names {
  const char **in, **out;
} Names;

/* Where a graph's values live while its nodes run: the top graph binds caller buffers and the
   arena `A`; a subgraph (If/Loop/Scan body) runs inside its owner's node function, with its
   arena at `base` (in the owner's scratch) and outer values reached through the owner's
   inputs X<k>. */
typedef struct Env {
  Graph *g;
  Node *owner;        /* NULL for the top graph */
  const char *base;   /* arena base expression */
  Names *nm;          /* top graph only */
} Env;

/* The C expression for a value's storage. */
static const char *value_ptr(Emit *e, const Env *env, Value *v, bool as_const) {
  Graph *g = env->g;
  int64_t extra = 0;
  while (v->alias_of) { extra += v->alias_offset; v = v->alias_of; }
  const char *base = NULL;
  if (v->data) {
    base = v->cname;
  } else if (!value_is_local(g, v)) {
    CHECK(env->owner);
    for (int k = 0; k < env->owner->n_inputs && !base; k++)
      if (env->owner->inputs[k] == v) base = fmt(e, "X%d", k);
  } else if (env->owner) {
    CHECK(v->offset >= 0);
    base = fmt(e, "(%s%s *)(%s + %lld)", as_const ? "const " : "", c_type(v->dtype), env->base, (long long)v->offset);
  } else if (v->kind == VAL_INPUT) {
    for (int i = 0; i < g->inputs.n; i++)
      if (g->inputs.v[i] == v) base = env->nm->in[i];
  } else if (v->is_output) {
    for (int i = 0; i < g->outputs.n; i++)
      if (g->outputs.v[i] == v) { base = env->nm->out[i]; break; }
  } else {
    CHECK(v->offset >= 0);
    base = fmt(e, "(%s%s *)(%s + %lld)", as_const ? "const " : "", c_type(v->dtype), env->base, (long long)v->offset);
  }
  CHECK(base);
  if (extra && v->dtype == DT_STRING) {
    /* planned at sizeof(char *) of the compiling host per element; the target's may differ */
    CHECK(extra % (int64_t)dtype_size(DT_STRING) == 0);
    return fmt(e, "((%sonnxc_string *)%s + %lld)", as_const ? "const " : "", base, (long long)(extra / (int64_t)dtype_size(DT_STRING)));
  }
  if (extra) base = fmt(e, "((%s%s *)((%sunsigned char *)%s + %lld))", as_const ? "const " : "", c_type(v->dtype), as_const ? "const " : "", base, (long long)extra);
  return base;
}

static const char *fn_name(Emit *e, const Node *n) {
  return fmt(e, "n%d_%s", n->fn_id, sanitize(&e->ctx->arena, n->name, 40));
}

/* Does n's function return a status?  Rows flagged OPF_STATUS and string makers do, and so do
   If/Loop/Scan nodes whose subgraphs run such a node (the status leaves through them). */
bool node_returns_status(const Node *n) {
  if ((n->def->flags & OPF_STATUS) || n->str_heap) return true;
  for (int k = 0; k < n->n_attrs; k++) {
    Graph *g = n->attrs[k].g;
    for (int s = 0; g && s < g->sched.n; s++)
      if (!((Node *)g->sched.v[s])->elided && node_returns_status(g->sched.v[s])) return true;
  }
  return false;
}

static bool node_flattens(const Node *n);

/* The parameters of n's C function, types (ending in '*') and names: inputs X<k>, outputs
   Y<k>, the dims D<k> of outputs with data-dependent shapes, the string heap H, a pipeline's
   step counter PC (plan_memory.c mark_pipes), the scratch W. */
static int node_params(Emit *e, const Node *n, const char ***typ, const char ***nmp) {
  const size_t cap = (size_t)(n->n_inputs + 2 * n->n_outputs + 3);
  const char **ty = arena_alloc(&e->ctx->arena, cap * sizeof *ty), **nm = arena_alloc(&e->ctx->arena, cap * sizeof *nm);
  int np = 0;
  *typ = ty;
  *nmp = nm;
  for (int k = 0; k < n->n_inputs; k++) {
    ty[np] = fmt(e, "const %s *", n->inputs[k] ? c_type(n->inputs[k]->dtype) : "void");
    nm[np++] = fmt(e, "X%d", k);
  }
  for (int k = 0; k < n->n_outputs; k++) {
    ty[np] = fmt(e, "%s *", n->outputs[k] ? c_type(n->outputs[k]->dtype) : "void");
    nm[np++] = fmt(e, "Y%d", k);
  }
  for (int k = 0; k < n->n_outputs; k++)
    if (n->outputs[k] && n->outputs[k]->dynamic) {
      ty[np] = "int64_t *";
      nm[np++] = fmt(e, "D%d", k);
    }
  if (n->str_heap) {
    ty[np] = "onnxc_sheap *";
    nm[np++] = "H";
  }
  if (n->pipe) {
    ty[np] = "long *";
    nm[np++] = "PC";
  }
  ty[np] = "unsigned char *";
  nm[np++] = "W";
  return np;
}

/* After a pipeline's consumer b (and so after its producer a): the task that runs a (task 0)
   and b (task 1), their arguments in the array p (emit_calls). */
static void emit_pipe_task(Emit *e, Node *a, Node *b) {
  const char **ty, **nm;
  buf_printf(e->out, "static void %s_pipe(void *p, int i) {\n  void *const *a = (void *const *)p;\n", fn_name(e, b));
  int base = 0;
  for (int side = 0; side < 2; side++) {
    Node *n = side ? b : a;
    int np = node_params(e, n, &ty, &nm);
    buf_printf(e->out, "  %sif (i == %d) %s(", side ? "else " : "", side, fn_name(e, n));
    for (int k = 0; k < np; k++) buf_printf(e->out, "%s(%s)a[%d]", k ? ", " : "", ty[k], base + k);
    buf_printf(e->out, ");\n");
    base += np;
  }
  buf_printf(e->out, "}\n\n");
}

static void emit_node_fn(Emit *e, Node *n) {
  Ctx *ctx = e->ctx;
  if (!n->def->emit_c) fail_node(ctx, n, "op %s has no C emitter", n->op_type);
  /* comment with op and shapes */
  Buf sig = {0};
  buf_printf(&sig, "/* %s '%s':", n->op_type, n->name);
  for (int k = 0; k < n->n_inputs; k++) {
    Value *v = n->inputs[k];
    if (v) buf_printf(&sig, " %s%s", dtype_name(v->dtype), shape_str(&ctx->arena, v));
    else buf_printf(&sig, " -");
  }
  buf_printf(&sig, " ->");
  for (int k = 0; k < n->n_outputs; k++) {
    Value *v = n->outputs[k];
    if (v) buf_printf(&sig, " %s%s", dtype_name(v->dtype), shape_str(&ctx->arena, v));
  }
  buf_printf(&sig, " */\n");
  /* the function goes to fn; what the emitter puts in pre precedes it */
  Buf fn = {0}, pre = {0}, *out = e->out, *pre_out = e->pre;
  const int pre_n = e->pre_n;
  e->out = &fn;
  e->pre = &pre;
  e->pre_n = 0;
  buf_put(e->out, sig.p, sig.len);
  buf_free(&sig);
  buf_printf(e->out, "static %s%s %s(", e->cuda ? "__device__ " : e->flatten && node_flattens(n) ? "ONNXC_NODE_FN " : "",
             node_returns_status(n) ? "int" : "void", fn_name(e, n));
  const char **ty, **nm;
  int np = node_params(e, n, &ty, &nm);
  for (int k = 0; k < np; k++) buf_printf(e->out, "%s%s%s", k ? ", " : "", ty[k], nm[k]);
  buf_printf(e->out, ") {\n");
  e->indent = 1;
  e->node = n;
  for (int k = 0; k < np; k++) ep(e, "(void)%s;", nm[k]);
  n->def->emit_c(e, n);
  if (node_returns_status(n) && !(n->def->flags & OPF_STATUS) && !n->str_heap) ep(e, "return ONNXC_OK;");
  e->indent = 0;
  buf_puts(e->out, "}\n\n");
  e->out = out;
  e->pre = pre_out;
  e->pre_n = pre_n;
  if (pre.len) buf_put(out, pre.p, pre.len);
  buf_put(out, fn.p, fn.len);
  buf_free(&pre);
  buf_free(&fn);
}

const char *emit_par_task(Emit *e, const char *guard, const char *body, const char *job, const char *consts) {
  CHECK(e->pre && e->node);
  const char *name = fmt(e, "%s_t%d", fn_name(e, e->node), e->pre_n++);
  if (guard) buf_printf(e->pre, "#if %s\n", guard);
  buf_printf(e->pre, "static ONNXC_PAR_TASK void %s(void *p, int i) { %s((const %s *)p, i, %s); }\n", name, body, job, consts);
  if (guard) buf_printf(e->pre, "#endif\n");
  return name;
}

static bool emit_skipped(const Node *n) { return n->elided; }

/* Nodes whose function is flattened (ONNXC_NODE_FN): the ops that run the GEMM and convolution
   kernels, which gain from being compiled for their shapes.  Not the others: inlining a whole
   image decoder into its node took GCC minutes (ImageDecoder, 120 s timeout at -O1). */
static bool node_flattens(const Node *n) {
  static const char *const ops[] = {"Conv", "ConvTranspose", "ConvPool", "ConvDw", "DwBlock", "Gemm", "MatMul"};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
    if (!strcmp(n->op_type, ops[i])) return true;
  return false;
}

/* The optimization level of a generated C file under GCC, after its first line.  The kernels
   lean on passes GCC runs only at -O3: cloning a generic kernel for the constant shapes its
   node passes (IPA-CP clones), peeling small fixed loops (the 16 x 16 transposes, the tap
   loops) and unswitching loops on invariant tests.  Built at -O2, the models ran 2-18% slower
   than at -O3 (bench/ab.py, one thread: MLPerf ResNet-8 1.18, SqueezeNet 1.11, EfficientNet-B0
   1.07, MobileNetV3 1.06, MobileNetV2 1.05).  So a file built with optimization for speed on
   an x86-64 host compiles its functions at -O3; -O0, -Os, other targets (firmware keeps its
   size), clang and nvcc keep theirs, and ONNXC_KEEP_OPT_LEVEL keeps the build's level. */
void emit_opt_level(Buf *b) {
  buf_puts(b, "#if defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && defined(__OPTIMIZE__) && \\\n"
              "    !defined(__OPTIMIZE_SIZE__) && defined(__x86_64__) && !defined(ONNXC_KEEP_OPT_LEVEL)\n"
              "#pragma GCC optimize(\"O3\") /* the kernels' shape specialization is an -O3 pass */\n"
              "#endif\n");
}

/* The weights a GEMM kernel of the node at schedule step s prefetches for a later one
   (onnxc_epi.pf): the largest of the weights packed for a GEMM kernel (packed_w/_wt/_b,
   winograd_w, gemv_w; >= 32 KiB) of the first node within six steps that has them, their first
   256 KiB (more would push the running node's own data out of a 1 MiB L2).  Six steps: from an
   inverted-residual block's expansion over the depthwise convolution and a squeeze-excitation
   (pool, two small 1x1 convolutions, scale) to its projection.  Only constants emitted as arrays
   (not --weights blobs, whose base is a run parameter the node function does not see).
   A matrix-vector product's weights (gemv_w: a classifier after the last 1x1 convolution and the
   pooling) are given whole, up to PF_GEMV_BYTES: their product does 2 flops per 4 bytes, so it
   runs at the speed it reads them, from memory when the layers before have pushed them out of
   L3 (EfficientNet-B0's 1280 x 1000 classifier: 13 bytes per TSC tick).  onnxc_sgemm_t spreads
   them over its k steps (two lines each); they pass through L2 into L3, where the product finds
   them; the other kernels take the first 256 KiB (onnxc_pf_slice). */
#define PF_MIN_BYTES (32 * 1024)
#define PF_MAX_BYTES (256 * 1024)
#define PF_GEMV_BYTES (8 * 1024 * 1024)
static void pick_prefetch(Emit *e, Graph *g, int s) {
  e->pf_sym = NULL;
  e->pf_bytes = 0;
  if (e->cuda) return;
  for (int t = s + 1, seen = 0; t < g->sched.n && seen < 6; t++) {
    Node *m = g->sched.v[t];
    if (emit_skipped(m)) continue;
    seen++;
    const Value *best = NULL;
    for (int k = 0; k < m->n_inputs; k++) {
      const Value *v = m->inputs[k];
      if (v && v->data && v->dtype == DT_FLOAT && v->cname && v->cname[0] == 'w' && value_bytes(v) >= PF_MIN_BYTES &&
          (!strncmp(v->name, "packed_", 7) || !strcmp(v->name, "winograd_w") || !strcmp(v->name, "gemv_w")) &&
          (!best || value_bytes(v) > value_bytes(best)))
        best = v;
    }
    if (best) {
      e->pf_sym = best->cname;
      const int64_t cap = !strcmp(best->name, "gemv_w") ? PF_GEMV_BYTES : PF_MAX_BYTES;
      e->pf_bytes = value_bytes(best) < cap ? value_bytes(best) : cap;
      return;
    }
  }
}

const char *emit_pf_fields(Emit *e) {
  if (!e->pf_sym) return "(const char *)0, 0";
  return fmt(e, "(const char *)%s, %lld", e->pf_sym, (long long)e->pf_bytes);
}

/* Emits the node functions of g, those of nested subgraphs first (C has no nested functions). */
static void emit_node_fns_rec(Emit *e, Graph *g) {
  for (int s = 0; s < g->sched.n; s++) {
    Node *n = g->sched.v[s];
    if (emit_skipped(n)) continue;
    for (int k = 0; k < n->n_attrs; k++)
      if (n->attrs[k].g) emit_node_fns_rec(e, n->attrs[k].g);
    n->fn_id = e->fn_counter++;
    Node *saved = e->node;
    int saved_indent = e->indent;
    pick_prefetch(e, g, s);
    emit_node_fn(e, n);
    if (n->pipe == 2) emit_pipe_task(e, n->pipe_peer, n);
    e->node = saved;
    e->indent = saved_indent;
  }
}

/* Node functions of g and its subgraphs that node_flattens marks */
static int count_node_fns(const Graph *g) {
  int c = 0;
  for (int s = 0; s < g->sched.n; s++) {
    const Node *n = g->sched.v[s];
    if (emit_skipped(n)) continue;
    c += node_flattens(n);
    for (int k = 0; k < n->n_attrs; k++)
      if (n->attrs[k].g) c += count_node_fns(n->attrs[k].g);
  }
  return c;
}

/* Node functions are flattened (ONNXC_NODE_FN, templates/common.h: each inlines its kernels,
   compiled for the node's shape) in graphs with up to this many of them: each carries its
   own copy of its kernel's specialized code (MobileNetV2, 48 nodes: text 265 -> 319 KiB;
   ResNet-18, 22 nodes: 122 -> 209 KiB), which a graph of thousands of nodes would multiply;
   bigger graphs keep the calls (and GCC's own clones within its budget). */
#define FLATTEN_MAX_FNS 256
static void emit_node_fns(Emit *e, Graph *g) {
  e->flatten = count_node_fns(g) <= FLATTEN_MAX_FNS;
  emit_node_fns_rec(e, g);
}

/* --canary: after step s, overwrite every arena byte that no buffer live across the boundary
   to step s+1 owns.  Kernels must never read bytes they did not write, so outputs stay equal. */
static void emit_canary(Emit *e, Graph *g, int s) {
  int64_t n = g->has_heap ? g->heap_offset : g->arena_bytes; /* the string heap stays */
  unsigned char *live = calloc((size_t)n, 1);
  if (!live) abort();
  for (int i = 0; i < g->values.n; i++) {
    Value *v = g->values.v[i];
    if (v->alias_of || v->offset < 0 || v->first > s || v->last <= s) continue;
    memset(live + v->offset, 1, (size_t)value_bytes(v));
  }
  for (int64_t a = 0; a < n;) {
    if (live[a]) { a++; continue; }
    int64_t b = a;
    while (b < n && !live[b]) b++;
    ep(e, "memset(A + %lld, 0xA5, %lld);", (long long)a, (long long)(b - a));
    a = b;
  }
  free(live);
}

/* The arguments of a call of n's function (node_params' order). */
static int call_args(Emit *e, const Env *env, Node *n, const char ***argp) {
  Graph *g = env->g;
  const char **a = arena_alloc(&e->ctx->arena, (size_t)(n->n_inputs + 2 * n->n_outputs + 3) * sizeof *a);
  int na = 0;
  *argp = a;
  for (int k = 0; k < n->n_inputs; k++) {
    Value *v = n->inputs[k];
    a[na++] = v ? value_ptr(e, env, v, true) : "(const void *)0";
  }
  for (int k = 0; k < n->n_outputs; k++) {
    Value *v = n->outputs[k];
    bool used = v && (v->n_consumers > 0 || v->is_output);
    a[na++] = used ? value_ptr(e, env, v, false) : fmt(e, "(%s *)0", v ? c_type(v->dtype) : "void");
  }
  for (int k = 0; k < n->n_outputs; k++) {
    Value *v = n->outputs[k];
    if (!v || !v->dynamic) continue;
    int oi = -1;
    if (!env->owner)
      for (int i = 0; i < g->outputs.n; i++)
        if (g->outputs.v[i] == v && oi < 0) oi = i;
    a[na++] = oi >= 0 ? fmt(e, "(dims ? dims[%d] : dl%d)", oi, oi) : "dyn_scratch";
  }
  if (n->str_heap) {
    /* the run's string heap lives in run_impl; an If/Loop/Scan body's function has none */
    if (env->owner) fail_node(e->ctx, n, "ops that make strings are not supported inside If/Loop/Scan bodies");
    a[na++] = "&H";
  }
  if (n->pipe) {
    /* the step counter: the last 64 bytes of the producer's scratch (ops_seq.c rnn_scratch) */
    const Node *p = n->pipe == 1 ? n : n->pipe_peer;
    CHECK(p->scratch_bytes >= 128);
    a[na++] = fmt(e, "(long *)(void *)(%s + %lld)", env->base, (long long)(p->scratch_offset + p->scratch_bytes - 64));
  }
  a[na++] = n->scratch_bytes > 0 ? fmt(e, "%s + %lld", env->base, (long long)n->scratch_offset) : "(unsigned char *)0";
  return na;
}

/* Emits, at the current indentation, the calls that run g's schedule. */
static void emit_calls(Emit *e, const Env *env) {
  Graph *g = env->g;
  for (int s = 0; s < g->sched.n; s++) {
    Node *n = g->sched.v[s];
    if (emit_skipped(n)) continue;
    if (n->pipe == 2) {
      /* ran with its producer */
      if (e->ctx->canary && !env->owner && g->arena_bytes > 0) emit_canary(e, g, s);
      continue;
    }
    const char **args;
    int na = call_args(e, env, n, &args);
    if (n->pipe == 1) {
      /* a pipeline (plan_memory.c mark_pipes): the producer and its consumer as two tasks of
         one onnxc_parallel_for, their arguments in one array, the step counter from 0 */
      const char **bargs;
      int nb = call_args(e, env, n->pipe_peer, &bargs);
      CHECK(!node_returns_status(n) && !node_returns_status(n->pipe_peer));
      Buf arr = {0};
      for (int k = 0; k < na + nb; k++) buf_printf(&arr, "%s(void *)(%s)", k ? ", " : "", k < na ? args[k] : bargs[k - na]);
      ep(e, "{");
      ep(e, "void *pp[%d] = {%s};", na + nb, arr.p);
      ep(e, "onnxc_pipe_post(%s, 0);", args[na - 2]);
      ep(e, "onnxc_parallel_for(2, %s_pipe, pp);", fn_name(e, n->pipe_peer));
      ep(e, "}");
      buf_free(&arr);
      continue;
    }
    Buf call = {0};
    buf_printf(&call, "%s(", fn_name(e, n));
    for (int k = 0; k < na; k++) buf_printf(&call, "%s%s", k ? ", " : "", args[k]);
    buf_printf(&call, ")");
    if (node_returns_status(n)) {
      /* a status ends the run (from a subgraph, through its owner's function) */
      if (env->owner && custom_op_of(n)) fail_node(e->ctx, n, "custom ops inside If/Loop/Scan bodies are not supported");
      ep(e, "{ const int st = %s; if (st != ONNXC_OK) return st; }", call.p);
    } else {
      ep(e, "%s;", call.p);
    }
    buf_free(&call);
    if (e->ctx->canary && !env->owner && g->arena_bytes > 0) emit_canary(e, g, s);
  }
}

void emit_subgraph(Emit *e, Node *owner, Graph *sub, const char *base) {
  Env env = {sub, owner, base, NULL};
  for (int s = 0; s < sub->sched.n; s++) {
    Node *n = sub->sched.v[s];
    for (int k = 0; k < n->n_outputs; k++)
      if (n->outputs[k] && n->outputs[k]->dynamic)
        fail_node(e->ctx, n, "data-dependent shapes inside a subgraph are not supported");
  }
  emit_calls(e, &env);
}

const char *subgraph_ptr(Emit *e, Node *owner, Graph *sub, const char *base, Value *v, bool as_const) {
  Env env = {sub, owner, base, NULL};
  return value_ptr(e, &env, v, as_const);
}

/* Every constant read by a node of g or nested subgraphs, or returned by a graph. */
/* --weights: constants of the top graph live in a blob the caller passes as the first input
   (`__weights`, uint8, 16-byte aligned, host byte order); their C names become casts into it. */
typedef struct Blob {
  const char *param;  /* C name of the blob parameter */
  int64_t size;
  FILE *f;
} Blob;

static bool blob_take(Emit *e, Graph *g, Blob *blob, Value *v) {
  if (!blob || g->is_sub || v->dtype == DT_STRING) return false;
  int64_t off = (blob->size + 15) / 16 * 16, bytes = value_bytes(v);
  static const unsigned char zeros[16];
  if (off > blob->size && fwrite(zeros, 1, (size_t)(off - blob->size), blob->f) != (size_t)(off - blob->size))
    fail(e->ctx, "cannot write the weights file");
  if (bytes && fwrite(v->data, 1, (size_t)bytes, blob->f) != (size_t)bytes) fail(e->ctx, "cannot write the weights file");
  blob->size = off + bytes;
  v->cname = fmt(e, "((const %s *)(%s + %lld))", c_type(v->dtype), blob->param, (long long)off);
  return true;
}

static void emit_consts(Emit *e, Graph *g, int *nconst, Blob *blob) {
  Arena *a = &e->ctx->arena;
  for (int s = 0; s < g->sched.n; s++) {
    Node *n = g->sched.v[s];
    if (emit_skipped(n)) continue;
    for (int k = 0; k < n->n_attrs; k++)
      if (n->attrs[k].g) emit_consts(e, n->attrs[k].g, nconst, blob);
    for (int k = 0; k < n->n_inputs; k++) {
      Value *v = n->inputs[k];
      if (!v || !v->data || v->cname) continue;
      if (blob_take(e, g, blob, v)) continue;
      v->cname = arena_printf(a, "w%d_%s", (*nconst)++, sanitize(a, v->name, 32));
      emit_const(e, v);
    }
  }
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    if (!v->data || v->cname) continue;
    if (blob_take(e, g, blob, v)) continue;
    v->cname = arena_printf(a, "w%d_%s", (*nconst)++, sanitize(a, v->name, 32));
    emit_const(e, v);
  }
}

static void emit_template(Emit *e, const char *name) {
  for (int i = 0; onnxc_templates[i].name; i++)
    if (strcmp(onnxc_templates[i].name, name) == 0) {
      buf_puts(e->out, onnxc_templates[i].text);
      return;
    }
  unreachable("missing template");
}

/* Templates node emitters asked for (emit_use_template); they go right after common.h. */
static const char *tpl_used[16];
static int tpl_nused;

void emit_use_template(Emit *e, const char *name) {
  (void)e;
  for (int i = 0; i < tpl_nused; i++)
    if (!strcmp(tpl_used[i], name)) return;
  CHECK(tpl_nused < 16);
  tpl_used[tpl_nused++] = name;
}

/* Inserts the requested templates into b at byte `at`. */
static void splice_templates(Emit *e, Buf *b, size_t at) {
  if (!tpl_nused) return;
  Buf out = {0};
  Buf *saved = e->out;
  buf_put(&out, b->p, at);
  e->out = &out;
  /* in dependency order (par.h uses gemm.h and conv.h), then any others as requested */
  static const char *const order[] = {"gemm", "conv", "par"};
  bool done[16] = {false};
  for (size_t o = 0; o <= sizeof order / sizeof *order; o++)
    for (int i = 0; i < tpl_nused; i++) {
      if (done[i] || (o < sizeof order / sizeof *order && strcmp(tpl_used[i], order[o]))) continue;
      done[i] = true;
      emit_template(e, tpl_used[i]);
      buf_puts(&out, "\n");
    }
  e->out = saved;
  buf_put(&out, b->p + at, b->len - at);
  buf_free(b);
  *b = out;
}

void emit_write_file(Ctx *ctx, const char *path, const Buf *b) {
  FILE *f = fopen(path, "wb");
  if (!f) fail(ctx, "cannot write '%s'", path);
  bool ok = fwrite(b->p ? b->p : "", 1, b->len, f) == b->len;
  if (fclose(f) != 0 || !ok) fail(ctx, "cannot write '%s'", path);
}

static const char *upper(Arena *a, const char *s) {
  char *u = arena_strdup(a, s);
  for (char *p = u; *p; p++)
    if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
  return u;
}

/* One tensor port per flat value (the side of a model with ports that has no structure). */
static Port *tensor_ports(Arena *a, PtrVec *flat, int *n) {
  Port *p = arena_alloc(a, sizeof(Port) * (size_t)(flat->n + 1));
  for (int i = 0; i < flat->n; i++) {
    Value *v = flat->v[i];
    p[i] = (Port){v->name, PORT_TENSOR, v->dtype, i, 1};
  }
  *n = flat->n;
  return p;
}

void emit_c_model(Ctx *ctx, Graph *g, const char *c_path, const char *h_path) {
  Arena *a = &ctx->arena;
  const char *P = ctx->prefix, *UP = upper(a, P);
  Value *wv = NULL;
  if (ctx->weights_path) {
    /* the blob becomes the first graph input; its size is known once constants are written */
    wv = graph_new_value(ctx, g, "__weights");
    wv->kind = VAL_INPUT;
    int64_t one = 1;
    value_set_shape(wv, DT_UINT8, 1, &one);
    vec_push(a, &g->inputs, NULL);
    for (int i = g->inputs.n - 1; i > 0; i--) g->inputs.v[i] = g->inputs.v[i - 1];
    g->inputs.v[0] = wv;
    if (g->in_ports) { /* its port goes first too */
      Port *p = arena_alloc(a, sizeof(Port) * (size_t)(g->n_in_ports + 2));
      p[0] = (Port){wv->name, PORT_TENSOR, DT_UINT8, 0, 1};
      for (int i = 0; i < g->n_in_ports; i++) {
        p[i + 1] = g->in_ports[i];
        p[i + 1].first++;
      }
      g->in_ports = p;
      g->n_in_ports++;
    }
  }
  /* sequences or optionals among inputs or outputs: entry points over ports (emit_ports.c) */
  bool ports = g->in_ports || g->out_ports;
  Port *in_ports = g->in_ports, *out_ports = g->out_ports;
  int n_in_ports = g->n_in_ports, n_out_ports = g->n_out_ports;
  if (ports && !in_ports) in_ports = tensor_ports(a, &g->inputs, &n_in_ports);
  if (ports && !out_ports) out_ports = tensor_ports(a, &g->outputs, &n_out_ports);
  Names nm;
  nm.in = arena_alloc(a, sizeof(char *) * (size_t)(g->inputs.n + 1));
  nm.out = arena_alloc(a, sizeof(char *) * (size_t)(g->outputs.n + 1));
  for (int i = 0; i < g->inputs.n; i++) {
    Value *v = g->inputs.v[i];
    nm.in[i] = arena_printf(a, "in%d_%s", i, sanitize(a, v->name, 32));
  }
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    nm.out[i] = arena_printf(a, "out%d_%s", i, sanitize(a, v->name, 32));
  }
  /* ---- header ---- */
  Buf *hb = &ctx->emit_bufs[1];
  buf_printf(hb, "/* Generated by onnxc %s from %s. Do not edit. */\n", ONNXC_VERSION, strrchr(ctx->file, '/') ? strrchr(ctx->file, '/') + 1 : ctx->file);
  buf_printf(hb, "#ifndef %s_H\n#define %s_H\n\n#include <stdint.h>\n#include \"onnxc_rt.h\"\n\n", UP, UP);
  buf_printf(hb, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  buf_printf(hb, "/* Scratch the caller provides to %s_run (16-byte aligned); 0 means none is needed. */\n", P);
  buf_printf(hb, "#define %s_ARENA_BYTES %lld\n\n", UP, (long long)g->arena_bytes);
  if (g->has_heap)
    buf_printf(hb, "/* Of those, the string heap: strings made during a run (outputs may point into it until the\n"
                   "   next run with the arena); a run that needs more returns ONNXC_ERR_CAPACITY. */\n"
                   "#define %s_STRING_BYTES %lld\n\n", UP, (long long)g->heap_bytes);
  if (wv) buf_printf(hb, "/* Bytes of the weights file (%s) the caller passes to %s_run as __weights:\n"
                         "   16-byte aligned, in the byte order of the compiling host (little-endian). */\n"
                         "#define %s_WEIGHTS_BYTES @WEIGHTS_BYTES@\n\n",
                     strrchr(ctx->weights_path, '/') ? strrchr(ctx->weights_path, '/') + 1 : ctx->weights_path, P, UP);
  Buf *paramsb = &ctx->emit_bufs[2], *argsb = &ctx->emit_bufs[3], *protob = &ctx->emit_bufs[4];
  
  for (int i = 0; i < g->inputs.n; i++) {
    Value *v = g->inputs.v[i];
    if (v == wv)
      buf_printf(paramsb, ",\n    const uint8_t *%s /* the weights file, %s_WEIGHTS_BYTES bytes */", nm.in[i], UP);
    else
      buf_printf(paramsb, ",\n    const %s *%s /* %s %s%s */", c_type(v->dtype), nm.in[i], v->name,
                 dtype_name(v->dtype), shape_str(a, v));
    buf_printf(argsb, ", %s", nm.in[i]);
  }
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    buf_printf(paramsb, ",\n    %s *%s /* %s %s%s%s */", c_type(v->dtype), nm.out[i], v->name,
               dtype_name(v->dtype), shape_str(a, v), v->dynamic ? ", data-dependent: bound" : "");
    buf_printf(argsb, ", %s", nm.out[i]);
  }
  custom_emit_decls(ctx, hb, &g, 1);
  if (ports) {
    Buf pp = {0};
    emit_port_prototype(ctx, g, &pp, in_ports, n_in_ports, out_ports, n_out_ports);
    buf_printf(protob, "int %s_run(void *arena%s)", P, pp.p ? pp.p : "");
    buf_free(&pp);
  } else {
    buf_printf(protob, "int %s_run(void *arena%s)", P, paramsb->p ? paramsb->p : "");
  }
  buf_printf(hb, "/* Runs the model; returns 0 (ONNXC_OK) or an onnxc_status. */\n%s;\n\n", protob->p);
  buf_printf(hb, "extern const onnxc_model %s_model;\n\n", P);
  buf_printf(hb, "#ifdef __cplusplus\n}\n#endif\n#endif\n");

  /* ---- C file ---- */
  Buf *cb = &ctx->emit_bufs[0];
  Emit e = {.ctx = ctx, .out = cb};
  const char *hbase = strrchr(h_path, '/') ? strrchr(h_path, '/') + 1 : h_path;
  buf_printf(cb, "/* Generated by onnxc %s from %s. Do not edit. */\n", ONNXC_VERSION, strrchr(ctx->file, '/') ? strrchr(ctx->file, '/') + 1 : ctx->file);
  emit_opt_level(cb);
  buf_printf(cb, "#include \"%s\"\n\n", hbase);
  emit_template(&e, "common");
  e.walign = true;
  buf_puts(cb, "\n");
  tpl_nused = 0;
  size_t tpl_at = cb->len;
  int nconst = 0;
  Blob blob = {nm.in[0], 0, NULL};
  if (wv) {
    blob.f = fopen(ctx->weights_path, "wb");
    if (!blob.f) fail(ctx, "cannot write '%s'", ctx->weights_path);
  }
  emit_consts(&e, g, &nconst, wv ? &blob : NULL);
  if (wv) {
    if (fclose(blob.f) != 0) fail(ctx, "cannot write '%s'", ctx->weights_path);
    wv->dims[0] = blob.size;
    /* the header's size placeholder */
    char *ph = strstr(hb->p, "@WEIGHTS_BYTES@");
    CHECK(ph);
    Buf fixed = {0};
    buf_put(&fixed, hb->p, (size_t)(ph - hb->p));
    buf_printf(&fixed, "%lld", (long long)blob.size);
    buf_puts(&fixed, ph + strlen("@WEIGHTS_BYTES@"));
    buf_free(hb);
    *hb = fixed;
  }
  emit_write_file(ctx, h_path, hb);
  buf_free(hb);
  if (nconst) buf_puts(cb, "\n");
  emit_node_fns(&e, g);
  splice_templates(&e, cb, tpl_at);
  /* run: an implementation that also reports output dims, and the typed entry */
  buf_printf(cb, "static int run_impl(void *arena%s,\n    int64_t *const *dims) {\n", paramsb->p ? paramsb->p : "");
  e.indent = 1;
  ep(&e, "unsigned char *A = (unsigned char *)arena;");
  ep(&e, "(void)A;");
  ep(&e, "(void)dims;");
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    if (!v->dynamic) continue;
    ep(&e, "int64_t dl%d[%d];", i, v->rank ? v->rank : 1);
  }
  {
    bool any_dyn = false;
    for (int s = 0; s < g->sched.n; s++) {
      Node *n = g->sched.v[s];
      for (int k = 0; k < n->n_outputs; k++)
        if (n->outputs[k] && n->outputs[k]->dynamic && !n->outputs[k]->is_output) any_dyn = true;
    }
    if (any_dyn) ep(&e, "int64_t dyn_scratch[%d];", ONNXC_MAX_RANK);
  }
  /* (with ports, run_ports checks the caller's pointers: an absent optional's may be NULL) */
  for (int i = 0; i < g->inputs.n && !ports; i++) ep(&e, "if (!%s) return ONNXC_ERR_NULL;", nm.in[i]);
  for (int i = 0; i < g->outputs.n && !ports; i++) ep(&e, "if (!%s) return ONNXC_ERR_NULL;", nm.out[i]);
  for (int i = 0; i < g->inputs.n && ports; i++) ep(&e, "(void)%s;", nm.in[i]); /* items nobody reads */
  if (wv) ep(&e, "if ((uintptr_t)%s %% 16 != 0) return ONNXC_ERR_ALIGN;", nm.in[0]);
  if (g->arena_bytes > 0) {
    ep(&e, "if (!arena) return ONNXC_ERR_NULL;");
    ep(&e, "if ((uintptr_t)arena %% %zu != 0) return ONNXC_ERR_ALIGN;", ctx->align);
  }
  if (g->has_heap) {
    /* the string heap: empty at the start of every run */
    ep(&e, "onnxc_sheap H;");
    ep(&e, "H.p = (char *)(A + %lld);", (long long)g->heap_offset);
    ep(&e, "H.used = 0;");
    ep(&e, "H.cap = %lld;", (long long)g->heap_bytes);
  }
  Env top = {g, NULL, "A", &nm};
  emit_calls(&e, &top);
  /* outputs that no node writes: constants and pass-through inputs */
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    bool written = v->producer && !v->producer->dead && !v->data;
    for (int j = 0; j < i; j++)
      if (g->outputs.v[j] == v) written = false; /* duplicate output: copy from the first */
    if (written) continue;
    const char *src = NULL;
    for (int j = 0; j < i; j++)
      if (g->outputs.v[j] == v) src = nm.out[j];
    if (!src) src = value_ptr(&e, &top, v, true);
    if (v->is_output && !v->data && v->kind != VAL_INPUT && !src) continue;
    if (value_numel(v) > 0 && v->dtype == DT_STRING)
      ep(&e, "memcpy(%s, %s, %lld * sizeof(onnxc_string));", nm.out[i], src, (long long)value_numel(v));
    else if (value_numel(v) > 0)
      ep(&e, "memcpy(%s, %s, %lld);", nm.out[i], src, (long long)value_bytes(v));
    else
      ep(&e, "(void)%s;", src);
  }
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    if (v->dynamic) continue;
    for (int d = 0; d < v->rank; d++) ep(&e, "if (dims) dims[%d][%d] = %lld;", i, d, (long long)v->dims[d]);
  }
  ep(&e, "return ONNXC_OK;");
  buf_puts(cb, "}\n\n");
  if (ports) {
    emit_port_entries(ctx, g, cb, P, UP, in_ports, n_in_ports, out_ports, n_out_ports);
    buf_free(protob);
    buf_free(paramsb);
    buf_free(argsb);
    emit_write_file(ctx, c_path, cb);
    buf_free(cb);
    return;
  }
  buf_printf(cb, "%s {\n  return run_impl(arena%s, (int64_t *const *)0);\n}\n\n", protob->p, argsb->p ? argsb->p : "");
  buf_free(protob);
  buf_free(paramsb);
  buf_free(argsb);
  /* descriptor */
  for (int io = 0; io < 2; io++) {
    emit_tensor_infos(cb, io ? &g->outputs : &g->inputs, P, io ? "out" : "in", io ? "outputs" : "inputs");
  }
  buf_printf(cb, "\nstatic int %s_run_generic(void *arena, const void *const *inputs, void *const *outputs) {\n", P);
  if (g->inputs.n) buf_printf(cb, "  if (!inputs) return ONNXC_ERR_NULL;\n");
  else buf_printf(cb, "  (void)inputs;\n");
  if (g->outputs.n) buf_printf(cb, "  if (!outputs) return ONNXC_ERR_NULL;\n");
  buf_printf(cb, "  return %s_run(arena", P);
  for (int i = 0; i < g->inputs.n; i++)
    buf_printf(cb, ",\n      (const %s *)inputs[%d]", c_type(((Value *)g->inputs.v[i])->dtype), i);
  for (int i = 0; i < g->outputs.n; i++)
    buf_printf(cb, ",\n      (%s *)outputs[%d]", c_type(((Value *)g->outputs.v[i])->dtype), i);
  buf_printf(cb, ");\n}\n\n");
  buf_printf(cb, "static int %s_run_dims(void *arena, const void *const *inputs, void *const *outputs,\n"
                 "    int64_t *const *dims_out) {\n", P);
  if (g->inputs.n) buf_printf(cb, "  if (!inputs) return ONNXC_ERR_NULL;\n");
  else buf_printf(cb, "  (void)inputs;\n");
  if (g->outputs.n) buf_printf(cb, "  if (!outputs || !dims_out) return ONNXC_ERR_NULL;\n");
  else buf_printf(cb, "  (void)dims_out;\n");
  buf_printf(cb, "  return run_impl(arena");
  for (int i = 0; i < g->inputs.n; i++)
    buf_printf(cb, ",\n      (const %s *)inputs[%d]", c_type(((Value *)g->inputs.v[i])->dtype), i);
  for (int i = 0; i < g->outputs.n; i++)
    buf_printf(cb, ",\n      (%s *)outputs[%d]", c_type(((Value *)g->outputs.v[i])->dtype), i);
  buf_printf(cb, ", %s);\n}\n\n", g->outputs.n ? "dims_out" : "(int64_t *const *)0");
  buf_printf(cb, "const onnxc_model %s_model = {\n  \"%s\", %d, %d, %s, %s, %s_ARENA_BYTES, %s_run_generic, %zu, %s_run_dims\n};\n",
             P, P, g->inputs.n, g->outputs.n, g->inputs.n ? arena_printf(a, "%s_inputs", P) : "0",
             g->outputs.n ? arena_printf(a, "%s_outputs", P) : "0", UP, P, ctx->align, P);
  emit_write_file(ctx, c_path, cb);
  buf_free(cb);
}

void emit_tensor_infos(Buf *cb, PtrVec *vs, const char *P, const char *tag, const char *array) {
  for (int i = 0; i < vs->n; i++) {
    Value *v = vs->v[i];
    buf_printf(cb, "static const int64_t %s_%s%d_dims[] = {", P, tag, i);
    for (int d = 0; d < v->rank; d++) buf_printf(cb, "%s%lld", d ? ", " : "", (long long)v->dims[d]);
    if (v->rank == 0) buf_puts(cb, "0");
    buf_puts(cb, "};\n");
  }
  if (!vs->n) return;
  buf_printf(cb, "static const onnxc_tensor_info %s_%s[] = {\n", P, array);
  for (int i = 0; i < vs->n; i++) {
    Value *v = vs->v[i];
    buf_puts(cb, "  {\"");
    for (const char *p = v->name; *p; p++) {
      if (*p == '"' || *p == '\\') buf_printf(cb, "\\%c", *p);
      else if ((unsigned char)*p < 32 || (unsigned char)*p >= 127) buf_printf(cb, "\\%03o", (unsigned char)*p);
      else buf_put(cb, p, 1);
    }
    buf_printf(cb, "\", %d, %d, %s_%s%d_dims, 0, 0, 0},\n", v->dtype, v->rank, P, tag, i);
  }
  buf_puts(cb, "};\n");
}

/* A static const table inside a node function: integers in the smallest C type that holds
   them (uint8_t, int32_t or int64_t), floats in the compute type ct. */
void emit_itab(Emit *e, const char *name, const int64_t *v, int64_t n) {
  bool small = true, byte = true;
  for (int64_t i = 0; i < n; i++) {
    if (v[i] > 2147483647LL || v[i] < -2147483647LL) small = false;
    if (v[i] < 0 || v[i] > 255) byte = false;
  }
  ep(e, "static const %s %s[%lld] = {", byte ? "uint8_t" : small ? "int32_t" : "int64_t", name, (long long)(n > 0 ? n : 1));
  char line[1024];
  int len = 0;
  for (int64_t i = 0; i < n; i++) {
    bool brk = (i + 1) % 12 == 0 || i + 1 == n;
    len += snprintf(line + len, sizeof line - (size_t)len, "%s%s", c_lit_i(e, DT_INT64, v[i]), i + 1 < n ? (brk ? "," : ", ") : "");
    if (brk) {
      ep(e, "%s", line);
      len = 0;
    }
  }
  if (n == 0) ep(e, "0");
  ep(e, "};");
}

void emit_ftab(Emit *e, int ct, const char *name, const double *v, int64_t n) {
  ep(e, "static const %s %s[%lld] = {", c_type(ct), name, (long long)(n > 0 ? n : 1));
  char line[1024];
  int len = 0;
  for (int64_t i = 0; i < n; i++) {
    bool brk = (i + 1) % 6 == 0 || i + 1 == n;
    len += snprintf(line + len, sizeof line - (size_t)len, "%s%s", c_lit(e, ct, v[i]), i + 1 < n ? (brk ? "," : ", ") : "");
    if (brk) {
      ep(e, "%s", line);
      len = 0;
    }
  }
  if (n == 0) ep(e, "0");
  ep(e, "};");
}

/* ---- several graphs in one file (--train) ---------------------------------------------- */

void emit_c_const(Emit *e, Value *v) { emit_const(e, v); }

size_t emit_multi_begin(Emit *e) {
  emit_template(e, "common");
  e->walign = true;
  buf_puts(e->out, "\n");
  tpl_nused = 0;
  return e->out->len;
}

void emit_multi_end(Emit *e, size_t tpl_at) { splice_templates(e, e->out, tpl_at); }

/* The graph's inputs and outputs are the function's parameters in order (caller buffers); its
   intermediates live in `arena`.  No data-dependent outputs (the caller checks). */
void emit_graph_impl(Emit *e, Graph *g, const char *fname, int *nconst) {
  Arena *a = &e->ctx->arena;
  Names nm;
  nm.in = arena_alloc(a, sizeof(char *) * (size_t)(g->inputs.n + 1));
  nm.out = arena_alloc(a, sizeof(char *) * (size_t)(g->outputs.n + 1));
  const char *params = "";
  for (int i = 0; i < g->inputs.n; i++) {
    Value *v = g->inputs.v[i];
    nm.in[i] = arena_printf(a, "in%d_%s", i, sanitize(a, v->name, 32));
    params = arena_printf(a, "%s,\n    const %s *%s /* %s %s%s */", params, c_type(v->dtype), nm.in[i], v->name,
                          dtype_name(v->dtype), shape_str(a, v));
  }
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    if (v->dynamic) fail(e->ctx, "output '%s' has a data-dependent shape (not supported here)", v->name);
    nm.out[i] = arena_printf(a, "out%d_%s", i, sanitize(a, v->name, 32));
    params = arena_printf(a, "%s,\n    %s *%s /* %s %s%s */", params, c_type(v->dtype), nm.out[i], v->name,
                          dtype_name(v->dtype), shape_str(a, v));
  }
  for (int s = 0; s < g->sched.n; s++)
    if (((Node *)g->sched.v[s])->str_heap) fail_node(e->ctx, g->sched.v[s], "ops that make strings are not supported with --train");
  int before = *nconst;
  emit_consts(e, g, nconst, NULL);
  if (*nconst > before) buf_puts(e->out, "\n");
  emit_node_fns(e, g);
  buf_printf(e->out, "static int %s(void *arena%s) {\n", fname, params);
  e->indent = 1;
  ep(e, "unsigned char *A = (unsigned char *)arena;");
  ep(e, "(void)A;");
  for (int s = 0; s < g->sched.n; s++) {
    Node *n = g->sched.v[s];
    for (int k = 0; k < n->n_outputs; k++)
      if (n->outputs[k] && n->outputs[k]->dynamic)
        fail_node(e->ctx, n, "data-dependent shapes are not supported here");
  }
  Env env = {g, NULL, "A", &nm};
  emit_calls(e, &env);
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    bool written = v->producer && !v->producer->dead && !v->data;
    for (int j = 0; j < i; j++)
      if (g->outputs.v[j] == v) written = false;
    if (written) continue;
    const char *src = NULL;
    for (int j = 0; j < i; j++)
      if (g->outputs.v[j] == v) src = nm.out[j];
    if (!src) src = value_ptr(e, &env, v, true);
    if (value_numel(v) > 0 && v->dtype == DT_STRING)
      ep(e, "memcpy(%s, %s, %lld * sizeof(onnxc_string));", nm.out[i], src, (long long)value_numel(v));
    else if (value_numel(v) > 0)
      ep(e, "memcpy(%s, %s, %lld);", nm.out[i], src, (long long)value_bytes(v));
  }
  ep(e, "return ONNXC_OK;");
  e->indent = 0;
  buf_puts(e->out, "}\n\n");
}

/* ---- shared with codegen/cuda ------------------------------------------------------------ */

const char *c_ident(Arena *a, const char *name, int maxlen) { return sanitize(a, name, maxlen); }
const char *node_fn_name(Emit *e, const Node *n) { return fn_name(e, n); }
void emit_node_fn_one(Emit *e, Node *n) { emit_node_fn(e, n); }
void emit_node_fns_of(Emit *e, Graph *g) { emit_node_fns(e, g); }
void emit_template_text(Emit *e, const char *name) { emit_template(e, name); }
void emit_templates_splice(Emit *e, Buf *b, size_t at) { splice_templates(e, b, at); }
void emit_templates_reset(void) { tpl_nused = 0; }

const char *top_value_ptr(Emit *e, Graph *g, const char *const *in_names, const char *const *out_names,
                          const char *base, Value *v, bool as_const) {
  Names nm = {(const char **)in_names, (const char **)out_names};
  Env env = {g, NULL, base, &nm};
  return value_ptr(e, &env, v, as_const);
}
