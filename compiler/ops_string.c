/*
 * ops_string.c - string tensors: StringConcat, StringSplit, StringNormalizer, RegexFullMatch,
 * LabelEncoder, and Equal / Cast / CastLike / Identity when they meet strings.
 *
 * A string element is a `const char *` (onnxc_string) to NUL-terminated UTF-8.  The caller's
 * input strings are only read.  Strings made at run time go to the string heap, a region of
 * compile-time size at the end of the arena that the run function starts empty; the node
 * functions that allocate from it take the heap as `H` and return ONNXC_ERR_CAPACITY when it
 * is full (they never write past it).  An output may also point at a constant string of the
 * generated code (LabelEncoder's values, "" padding) or at an input string that passes
 * through unchanged (Identity, StringNormalizer without case change).
 *
 * The heap's default size assumes every input string is at most STR_INPUT_LEN bytes: a walk
 * over the schedule bounds each string value's longest element (constants: measured; made
 * strings: from their inputs' bounds) and sums what each node can allocate.  --string-bytes N
 * sets the size instead.
 *
 * The gate: ops that do not read string elements never see them (only rows flagged
 * OPF_STRINGS do), so the byte-moving kernels elsewhere need not know that a string element
 * is a pointer whose size differs between the compiling host and the target.  Equal, Cast,
 * CastLike and Identity of strings are redirected to this file's forms of them.
 *
 * RegexFullMatch compiles its RE2 pattern at compile time: a recursive-descent parser builds
 * a small tree, which becomes a program for the Pike VM of templates/text.h (a thread list
 * per position, no backtracking, time linear in the text for a given pattern).  Counted
 * repetitions are unrolled (RE2's limit of 1000 applies).  What RE2 accepts but this does
 * not (\p classes, case folding beyond ASCII, \C) is a compile error.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

#define ML "ai.onnx.ml"
#define STR_INPUT_LEN 64       /* the input string length the default heap size assumes */
#define SPLIT_DEFAULT_MAX 16   /* StringSplit's default bound on pieces per string */
#define RE_MAX_PROG 20000      /* instructions of a compiled pattern */

static void need_string(Ctx *ctx, const Node *n, int i) {
  Value *v = node_in(n, i);
  if (!v) fail_node(ctx, n, "missing input %d", i);
  if (v->dtype != DT_STRING) fail_node(ctx, n, "input '%s' must be a string tensor, not %s", v->name, dtype_name(v->dtype));
}

/* A string attribute without NUL bytes inside (a C string cannot hold them). */
static const char *attr_str(Ctx *ctx, const Node *n, const char *name, const char *dflt) {
  const Attr *a = node_attr(n, name);
  if (!a || !a->s) return dflt;
  if (strlen(a->s) != a->slen) fail_node(ctx, n, "attribute '%s' holds a NUL byte, which a C string cannot", name);
  return a->s;
}

const char *c_str_lit(Emit *e, const char *s) {
  Buf b = {0};
  buf_puts(&b, "\"");
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\' || *p == '?') buf_printf(&b, "\\%c", *p);
    else if (*p < 32 || *p >= 127) buf_printf(&b, "\\%03o", *p);
    else buf_put(&b, (const char *)p, 1);
  }
  buf_puts(&b, "\"");
  const char *r = arena_strdup(&e->ctx->arena, b.p);
  buf_free(&b);
  return r;
}

static const char *itype(int64_t n) { return n < 2147483647LL ? "int" : "long long"; }

/* ---- StringConcat ----------------------------------------------------------------------- */

static void concat_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 2);
  need_string(ctx, n, 0);
  need_string(ctx, n, 1);
  infer_broadcast(ctx, n);
  n->str_heap = true;
}

static void concat_body(Emit *e, void *arg) {
  (void)arg;
  ep(e, "const size_t la = onnxc_slen(X0[i0]), lb = onnxc_slen(X1[i1]);");
  ep(e, "char *p = la + lb ? onnxc_salloc(H, la + lb + 1) : (char *)0;");
  ep(e, "if (la + lb && !p) return ONNXC_ERR_CAPACITY;");
  ep(e, "if (p) {");
  ep(e, "memcpy(p, X0[i0], la);");
  ep(e, "memcpy(p + la, X1[i1], lb);");
  ep(e, "p[la + lb] = 0;");
  ep(e, "}");
  ep(e, "Y0[o] = p ? p : \"\";");
}

static void concat_emit(Emit *e, Node *n) {
  emit_use_template(e, "text");
  const Value *ins[2] = {n->inputs[0], n->inputs[1]};
  emit_broadcast_loops(e, n->outputs[0], ins, 2, concat_body, NULL);
  ep(e, "return ONNXC_OK;");
}

/* ---- StringSplit ------------------------------------------------------------------------ */

typedef struct SplitInfo {
  const char *delim;
  int64_t maxsplit;   /* -1: no limit */
  int64_t K;          /* bound on pieces per string */
} SplitInfo;

static void split_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  need_string(ctx, n, 0);
  Value *x = n->inputs[0];
  SplitInfo *si = arena_alloc(&ctx->arena, sizeof *si);
  si->delim = attr_str(ctx, n, "delimiter", "");
  si->maxsplit = node_attr(n, "maxsplit") ? attr_i(n, "maxsplit", -1) : -1;
  if (si->maxsplit < -1) si->maxsplit = -1; /* Python: a negative maxsplit means no limit */
  si->K = ctx->max_substrings > 0 ? ctx->max_substrings : SPLIT_DEFAULT_MAX;
  if (si->maxsplit >= 0 && si->maxsplit < si->K - 1) si->K = si->maxsplit + 1;
  if (value_numel(x) == 0) si->K = 0;
  if (x->rank + 1 > ONNXC_MAX_RANK) fail_node(ctx, n, "output rank %d exceeds %d", x->rank + 1, ONNXC_MAX_RANK);
  n->priv = si;
  int64_t dims[ONNXC_MAX_RANK];
  memcpy(dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
  dims[x->rank] = si->K;
  if (node_out(n, 0)) {
    value_set_shape(n->outputs[0], DT_STRING, x->rank + 1, dims);
    n->outputs[0]->dynamic = true;
  }
  if (node_out(n, 1)) value_set_shape(n->outputs[1], DT_INT64, x->rank, x->dims);
  n->str_heap = true;
}

static void split_emit(Emit *e, Node *n) {
  const SplitInfo *si = n->priv;
  Value *x = n->inputs[0], *y = node_out(n, 0);
  int64_t N = value_numel(x);
  emit_use_template(e, "text");
  ep(e, "static const char d_[] = %s;", c_str_lit(e, si->delim));
  ep(e, "long long i, mx = 0;");
  ep(e, "onnxc_split_it it;");
  ep(e, "const char *ps;");
  ep(e, "size_t pl;");
  ep(e, "(void)d_; (void)it; (void)ps; (void)pl;");
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)N);
  ep(e, "long long c = 0;");
  ep(e, "onnxc_split_init(&it, X0[i], d_, %zu, %lld);", strlen(si->delim), (long long)si->maxsplit);
  ep(e, "while (onnxc_split_next(&it, &ps, &pl)) c++;");
  if (node_out(n, 1)) ep(e, "if (Y1) Y1[i] = c;");
  ep(e, "if (c > mx) mx = c;");
  ep(e, "}");
  if (!y) {
    ep(e, "return ONNXC_OK;");
    return;
  }
  ep(e, "if (mx > %lld) return ONNXC_ERR_BOUNDS;", (long long)si->K);
  for (int d = 0; d < x->rank; d++) ep(e, "D0[%d] = %lld;", d, (long long)x->dims[d]);
  ep(e, "D0[%d] = mx;", x->rank);
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)N);
  ep(e, "long long j = 0;");
  ep(e, "onnxc_split_init(&it, X0[i], d_, %zu, %lld);", strlen(si->delim), (long long)si->maxsplit);
  ep(e, "while (onnxc_split_next(&it, &ps, &pl)) {");
  ep(e, "const char *q = onnxc_sdup(H, ps, pl);");
  ep(e, "if (!q) return ONNXC_ERR_CAPACITY;");
  ep(e, "Y0[i * mx + j++] = q;");
  ep(e, "}");
  ep(e, "for (; j < mx; j++) Y0[i * mx + j] = \"\";");
  ep(e, "}");
  ep(e, "return ONNXC_OK;");
}

/* ---- StringNormalizer --------------------------------------------------------------------- */

enum { CASE_NONE = 0, CASE_LOWER = 1, CASE_UPPER = 2 };

typedef struct NormInfo {
  int action;
  bool sensitive;
  const char **stop;
  int n_stop;
  int64_t C;
} NormInfo;

static void norm_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  need_string(ctx, n, 0);
  Value *x = n->inputs[0], *y = n->outputs[0];
  if (!(x->rank == 1 || (x->rank == 2 && x->dims[0] == 1)))
    fail_node(ctx, n, "input must have shape [C] or [1, C], not %s", shape_str(&ctx->arena, x));
  NormInfo *ni = arena_alloc(&ctx->arena, sizeof *ni);
  const char *act = attr_str(ctx, n, "case_change_action", "NONE");
  if (!strcmp(act, "NONE")) ni->action = CASE_NONE;
  else if (!strcmp(act, "LOWER")) ni->action = CASE_LOWER;
  else if (!strcmp(act, "UPPER")) ni->action = CASE_UPPER;
  else fail_node(ctx, n, "case_change_action '%s' is not NONE, LOWER or UPPER", act);
  ni->sensitive = attr_i(n, "is_case_sensitive", 0) != 0;
  const Attr *sw = node_attr(n, "stopwords");
  if (sw && sw->type == ATTR_STRINGS) {
    ni->stop = sw->strings;
    ni->n_stop = sw->n_strings;
  }
  ni->C = x->dims[x->rank - 1];
  n->priv = ni;
  /* all elements dropped (or none given): one empty string, as the spec says */
  int64_t dims[2] = {1, ni->C > 0 ? ni->C : 1};
  if (x->rank == 1) dims[0] = dims[1];
  value_set_shape(y, DT_STRING, x->rank, dims);
  y->dynamic = ni->n_stop > 0 && ni->C > 0;
  n->str_heap = ni->action != CASE_NONE;
}

static void norm_emit(Emit *e, Node *n) {
  const NormInfo *ni = n->priv;
  Value *y = n->outputs[0];
  emit_use_template(e, "text");
  if (ni->n_stop) {
    ep(e, "static const onnxc_string sw[%d] = {", ni->n_stop);
    for (int k = 0; k < ni->n_stop; k++) ep(e, "  %s,", c_str_lit(e, ni->stop[k]));
    ep(e, "};");
  }
  ep(e, "long long i, k = 0;");
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)ni->C);
  ep(e, "const char *x = X0[i];");
  if (ni->n_stop) {
    ep(e, "int s, stop = 0;");
    ep(e, "for (s = 0; s < %d && !stop; s++) stop = %s;", ni->n_stop,
       ni->sensitive ? "onnxc_scmp(x, sw[s]) == 0" : "onnxc_seq_nocase(x, sw[s])");
    ep(e, "if (stop) continue;");
  }
  if (ni->action != CASE_NONE) {
    ep(e, "x = onnxc_scase(H, x, %d);", ni->action == CASE_UPPER);
    ep(e, "if (!x) return ONNXC_ERR_CAPACITY;");
  }
  ep(e, "Y0[k++] = x;");
  ep(e, "}");
  ep(e, "if (k == 0) Y0[k++] = \"\";");
  if (y->dynamic) {
    if (y->rank == 2) ep(e, "D0[0] = 1;");
    ep(e, "D0[%d] = k;", y->rank - 1);
  }
  if (n->str_heap) ep(e, "return ONNXC_OK;");
}

/* ---- RegexFullMatch: the pattern compiler --------------------------------------------------- */

enum { RE_EMPTY, RE_LIT, RE_CLASS, RE_ANY, RE_ANYNL, RE_ASSERT, RE_CAT, RE_ALT, RE_REP };
/* the VM's opcodes (templates/text.h) */
enum { OP_CHAR = 0, OP_ANY = 1, OP_ANYNL = 2, OP_CLASS = 3, OP_SPLIT = 4, OP_JMP = 5, OP_BOT = 6, OP_EOT = 7,
       OP_BOL = 8, OP_EOL = 9, OP_WORDB = 10, OP_NWORDB = 11, OP_MATCH = 12 };

typedef struct ReNode {
  int kind;
  int32_t c;               /* RE_LIT: code point; RE_ASSERT: opcode */
  int32_t *rng; int nr;    /* RE_CLASS: sorted disjoint ranges [lo, hi] */
  struct ReNode *a, *b;
  int min, max;            /* RE_REP: max -1 = no limit */
} ReNode;

enum { F_I = 1, F_S = 2, F_M = 4, F_U = 8 };

typedef struct ReParser {
  Ctx *ctx;
  const Node *n;
  const unsigned char *p, *start;
  ReNode *prefix;          /* \Q..\E: all but its last character (a repetition binds to that) */
} ReParser;

_Noreturn static void re_fail(ReParser *rp, const char *what) {
  /* the pattern in the one-line message: control characters as '?', long ones cut */
  char shown[72];
  size_t k = 0;
  for (const unsigned char *q = rp->start; *q && k < sizeof shown - 4; q++) shown[k++] = *q < 32 ? '?' : (char)*q;
  if (rp->start[k]) { memcpy(shown + k, "...", 3); k += 3; }
  shown[k] = 0;
  fail_node(rp->ctx, rp->n, "pattern '%s': %s (at offset %d)", shown, what, (int)(rp->p - rp->start));
}

static ReNode *re_new(ReParser *rp, int kind) {
  ReNode *r = arena_alloc(&rp->ctx->arena, sizeof *r);
  r->kind = kind;
  return r;
}

/* Decodes one UTF-8 character of the pattern. */
static int32_t re_char(ReParser *rp) {
  unsigned c = *rp->p;
  int len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
  if (!len) re_fail(rp, "the pattern is not valid UTF-8");
  int32_t v = (int32_t)(len == 1 ? c : c & (0xFFu >> (len + 1)));
  for (int k = 1; k < len; k++) {
    if ((rp->p[k] & 0xC0) != 0x80) re_fail(rp, "the pattern is not valid UTF-8");
    v = v << 6 | (rp->p[k] & 0x3F);
  }
  rp->p += len;
  return v;
}

/* A growable list of ranges. */
typedef struct Ranges { int32_t *v; int n, cap; } Ranges;

static void rg_add(Ctx *ctx, Ranges *r, int32_t lo, int32_t hi) {
  if (r->n + 1 > r->cap) {
    int cap = r->cap ? r->cap * 2 : 16;
    int32_t *nv = arena_alloc(&ctx->arena, sizeof(int32_t) * 2 * (size_t)cap);
    if (r->n) memcpy(nv, r->v, sizeof(int32_t) * 2 * (size_t)r->n);
    r->v = nv;
    r->cap = cap;
  }
  r->v[2 * r->n] = lo;
  r->v[2 * r->n + 1] = hi;
  r->n++;
}

static int cmp_range(const void *a, const void *b) {
  const int32_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Sorts and merges; with neg, the complement in [0, 0x10FFFF]. */
static void rg_norm(Ctx *ctx, Ranges *r, bool neg) {
  if (r->n) qsort(r->v, (size_t)r->n, sizeof(int32_t) * 2, cmp_range);
  int m = 0;
  for (int i = 0; i < r->n; i++) {
    if (m && r->v[2 * i] <= r->v[2 * (m - 1) + 1] + 1) {
      if (r->v[2 * i + 1] > r->v[2 * (m - 1) + 1]) r->v[2 * (m - 1) + 1] = r->v[2 * i + 1];
      continue;
    }
    r->v[2 * m] = r->v[2 * i];
    r->v[2 * m + 1] = r->v[2 * i + 1];
    m++;
  }
  r->n = m;
  if (!neg) return;
  Ranges c = {0};
  int32_t next = 0;
  for (int i = 0; i < r->n; i++) {
    if (r->v[2 * i] > next) rg_add(ctx, &c, next, r->v[2 * i] - 1);
    next = r->v[2 * i + 1] + 1;
  }
  if (next <= 0x10FFFF) rg_add(ctx, &c, next, 0x10FFFF);
  *r = c;
}

/* Adds the ASCII other-case ranges of what r holds (case-insensitive matching).  Non-ASCII
   characters would need Unicode's case folding: only a range holding all of them (it folds to
   itself) is accepted. */
static void rg_fold(ReParser *rp, Ranges *r) {
  int n = r->n;
  for (int i = 0; i < n; i++) {
    int32_t lo = r->v[2 * i], hi = r->v[2 * i + 1];
    if (hi >= 0x80) {
      if (lo > 0x80 || hi < 0x10FFFF) re_fail(rp, "case-insensitive matching of non-ASCII characters is not supported");
      hi = 0x7F;
    }
    int32_t a = lo > 'a' ? lo : 'a', b = hi < 'z' ? hi : 'z';
    if (a <= b) rg_add(rp->ctx, r, a - 32, b - 32);
    a = lo > 'A' ? lo : 'A';
    b = hi < 'Z' ? hi : 'Z';
    if (a <= b) rg_add(rp->ctx, r, a + 32, b + 32);
  }
}

static void rg_perl(Ctx *ctx, Ranges *r, char k, bool neg) {
  Ranges t = {0};
  switch (k) {
  case 'd': rg_add(ctx, &t, '0', '9'); break;
  case 's':
    rg_add(ctx, &t, '\t', '\n');
    rg_add(ctx, &t, '\f', '\r');
    rg_add(ctx, &t, ' ', ' ');
    break;
  default: /* w */
    rg_add(ctx, &t, '0', '9');
    rg_add(ctx, &t, 'A', 'Z');
    rg_add(ctx, &t, '_', '_');
    rg_add(ctx, &t, 'a', 'z');
    break;
  }
  rg_norm(ctx, &t, neg);
  for (int i = 0; i < t.n; i++) rg_add(ctx, r, t.v[2 * i], t.v[2 * i + 1]);
}

static const struct { const char *name; const char *ranges; } posix_classes[] = {
    {"alnum", "09AZaz"}, {"alpha", "AZaz"}, {"ascii", "\x01\x7f"}, {"blank", "\t\t  "},
    {"cntrl", "\x01\x1f\x7f\x7f"}, {"digit", "09"}, {"graph", "!~"}, {"lower", "az"},
    {"print", " ~"}, {"punct", "!/:@[`{~"}, {"space", "\t\r  "}, {"upper", "AZ"},
    {"word", "09AZ__az"}, {"xdigit", "09AFaf"},
};

/* An escape after '\' that stands for one code point; -1 when it is not one. */
static int32_t re_escape_char(ReParser *rp) {
  unsigned c = *rp->p;
  switch (c) {
  case 'n': rp->p++; return '\n';
  case 't': rp->p++; return '\t';
  case 'r': rp->p++; return '\r';
  case 'f': rp->p++; return '\f';
  case 'v': rp->p++; return '\v';
  case 'a': rp->p++; return 7;
  case 'x': {
    rp->p++;
    int32_t v = 0;
    if (*rp->p == '{') {
      rp->p++;
      int nd = 0;
      while (*rp->p && *rp->p != '}') {
        unsigned h = *rp->p;
        int d = h >= '0' && h <= '9' ? (int)h - '0' : h >= 'a' && h <= 'f' ? (int)h - 'a' + 10 : h >= 'A' && h <= 'F' ? (int)h - 'A' + 10 : -1;
        if (d < 0 || ++nd > 8) re_fail(rp, "invalid \\x{...} escape");
        v = v * 16 + d;
        rp->p++;
      }
      if (*rp->p != '}' || nd == 0 || v > 0x10FFFF) re_fail(rp, "invalid \\x{...} escape");
      rp->p++;
      return v;
    }
    for (int k = 0; k < 2; k++) {
      unsigned h = *rp->p;
      int d = h >= '0' && h <= '9' ? (int)h - '0' : h >= 'a' && h <= 'f' ? (int)h - 'a' + 10 : h >= 'A' && h <= 'F' ? (int)h - 'A' + 10 : -1;
      if (d < 0) re_fail(rp, "invalid \\x escape");
      v = v * 16 + d;
      rp->p++;
    }
    return v;
  }
  default: break;
  }
  if (c >= '0' && c <= '7') {
    /* octal: \0 with up to two more digits, or \1-\7 followed by at least one (a lone \1 would
       be a backreference, which RE2 does not have) */
    if (c != '0' && !(rp->p[1] >= '0' && rp->p[1] <= '7')) re_fail(rp, "backreferences are not supported");
    int32_t v = 0;
    for (int k = 0; k < 3 && *rp->p >= '0' && *rp->p <= '7'; k++) v = v * 8 + (*rp->p++ - '0');
    return v;
  }
  if (c == 'p' || c == 'P') re_fail(rp, "Unicode classes (\\p, \\P) are not supported");
  if (c == 'C') re_fail(rp, "\\C (any byte) is not supported");
  if (c && c < 0x80 && !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
    rp->p++;
    return (int32_t)c;
  }
  return -1;
}

static ReNode *re_class_node(ReParser *rp, Ranges *r, bool neg, int flags) {
  if (flags & F_I) rg_fold(rp, r);
  rg_norm(rp->ctx, r, neg);
  ReNode *x = re_new(rp, RE_CLASS);
  x->rng = r->v;
  x->nr = r->n;
  return x;
}

static ReNode *re_class(ReParser *rp, int flags) {
  Ranges r = {0};
  bool neg = false, first = true;
  rp->p++; /* [ */
  if (*rp->p == '^') { neg = true; rp->p++; }
  while (first || *rp->p != ']') {
    if (!*rp->p) re_fail(rp, "missing ]");
    if (*rp->p == '[' && rp->p[1] == ':') {
      const char *end = strstr((const char *)rp->p + 2, ":]");
      if (end) {
        bool pneg = rp->p[2] == '^';
        const char *nm = (const char *)rp->p + 2 + pneg;
        size_t len = (size_t)(end - nm);
        int k = 0, nk = (int)(sizeof posix_classes / sizeof posix_classes[0]);
        for (; k < nk; k++)
          if (strlen(posix_classes[k].name) == len && !strncmp(posix_classes[k].name, nm, len)) break;
        if (k == nk) re_fail(rp, "unknown POSIX class");
        Ranges t = {0};
        for (const char *q = posix_classes[k].ranges; *q; q += 2) rg_add(rp->ctx, &t, (unsigned char)q[0], (unsigned char)q[1]);
        rg_norm(rp->ctx, &t, pneg);
        for (int i = 0; i < t.n; i++) rg_add(rp->ctx, &r, t.v[2 * i], t.v[2 * i + 1]);
        rp->p = (const unsigned char *)end + 2;
        first = false;
        continue;
      }
    }
    int32_t lo;
    if (*rp->p == '\\') {
      rp->p++;
      char k = (char)*rp->p;
      if (k == 'd' || k == 's' || k == 'w' || k == 'D' || k == 'S' || k == 'W') {
        rp->p++;
        rg_perl(rp->ctx, &r, (char)(k | 0x20), k < 'a');
        first = false;
        continue;
      }
      lo = re_escape_char(rp);
      if (lo < 0) re_fail(rp, "invalid escape in a character class");
    } else {
      lo = re_char(rp);
    }
    int32_t hi = lo;
    if (*rp->p == '-' && rp->p[1] && rp->p[1] != ']') {
      rp->p++;
      if (*rp->p == '\\') {
        rp->p++;
        hi = re_escape_char(rp);
        if (hi < 0) re_fail(rp, "invalid escape in a character class");
      } else {
        hi = re_char(rp);
      }
      if (hi < lo) re_fail(rp, "invalid character class range");
    }
    rg_add(rp->ctx, &r, lo, hi);
    first = false;
  }
  rp->p++; /* ] */
  return re_class_node(rp, &r, neg, flags);
}

static ReNode *re_lit(ReParser *rp, int32_t c, int flags) {
  if ((flags & F_I) && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) {
    Ranges r = {0};
    rg_add(rp->ctx, &r, c, c);
    return re_class_node(rp, &r, false, flags);
  }
  if ((flags & F_I) && c >= 0x80) re_fail(rp, "case-insensitive matching of non-ASCII characters is not supported");
  ReNode *x = re_new(rp, RE_LIT);
  x->c = c;
  return x;
}

static ReNode *re_cat(ReParser *rp, ReNode *a, ReNode *b) {
  if (!a) return b;
  if (!b) return a;
  ReNode *x = re_new(rp, RE_CAT);
  x->a = a;
  x->b = b;
  return x;
}

static ReNode *re_alt(ReParser *rp, int *flags);

/* Parses flags after "(?"; returns true for "(?flags:" (a group follows), false for
   "(?flags)" (they apply to the rest of the enclosing group). */
static bool re_flags(ReParser *rp, int *flags) {
  bool neg = false, any = false;
  for (;;) {
    unsigned c = *rp->p;
    int f = c == 'i' ? F_I : c == 's' ? F_S : c == 'm' ? F_M : c == 'U' ? F_U : 0;
    if (f) {
      *flags = neg ? *flags & ~f : *flags | f;
      any = true;
    } else if (c == '-' && !neg) {
      neg = true;
      any = false;
    } else if (c == ':' || c == ')') {
      if (neg && !any) re_fail(rp, "missing flag after -");
      rp->p++;
      return c == ':';
    } else {
      re_fail(rp, "invalid or unsupported group flags");
    }
    rp->p++;
  }
}

static ReNode *re_atom(ReParser *rp, int *flags) {
  unsigned c = *rp->p;
  switch (c) {
  case '(': {
    rp->p++;
    int inner = *flags;
    if (*rp->p == '?') {
      rp->p++;
      if (*rp->p == 'P' || *rp->p == '<') {
        if (*rp->p == 'P') rp->p++;
        if (*rp->p != '<') re_fail(rp, "invalid named group");
        while (*rp->p && *rp->p != '>') rp->p++;
        if (!*rp->p) re_fail(rp, "invalid named group");
        rp->p++;
      } else if (*rp->p == '=' || *rp->p == '!') {
        re_fail(rp, "lookaround assertions are not supported (RE2 has none)");
      } else if (!re_flags(rp, &inner)) {
        *flags = inner; /* (?i) on its own: for the rest of this group */
        return re_new(rp, RE_EMPTY);
      }
    }
    ReNode *x = re_alt(rp, &inner);
    if (*rp->p != ')') re_fail(rp, "missing )");
    rp->p++;
    return x ? x : re_new(rp, RE_EMPTY);
  }
  case '[': return re_class(rp, *flags);
  case '.': rp->p++; return re_new(rp, (*flags & F_S) ? RE_ANYNL : RE_ANY);
  case '^': {
    rp->p++;
    ReNode *x = re_new(rp, RE_ASSERT);
    x->c = (*flags & F_M) ? OP_BOL : OP_BOT;
    return x;
  }
  case '$': {
    rp->p++;
    ReNode *x = re_new(rp, RE_ASSERT);
    x->c = (*flags & F_M) ? OP_EOL : OP_EOT;
    return x;
  }
  case '*': case '+': case '?': re_fail(rp, "missing argument to repetition operator");
  case '\\': {
    rp->p++;
    char k = (char)*rp->p;
    if (!k) re_fail(rp, "trailing \\");
    if (k == 'd' || k == 's' || k == 'w' || k == 'D' || k == 'S' || k == 'W') {
      rp->p++;
      Ranges r = {0};
      rg_perl(rp->ctx, &r, (char)(k | 0x20), k < 'a');
      return re_class_node(rp, &r, false, *flags);
    }
    if (k == 'b' || k == 'B' || k == 'A' || k == 'z') {
      rp->p++;
      ReNode *x = re_new(rp, RE_ASSERT);
      x->c = k == 'b' ? OP_WORDB : k == 'B' ? OP_NWORDB : k == 'A' ? OP_BOT : OP_EOT;
      return x;
    }
    if (k == 'Q') {
      rp->p++;
      ReNode *x = NULL, *last = NULL;
      while (*rp->p && !(rp->p[0] == '\\' && rp->p[1] == 'E')) {
        if (rp->p[0] == '\\' && rp->p[1] == '\\') rp->p++;
        x = re_cat(rp, x, last);
        last = re_lit(rp, re_char(rp), *flags);
      }
      if (*rp->p) rp->p += 2;
      rp->prefix = x;
      return last ? last : re_new(rp, RE_EMPTY);
    }
    int32_t v = re_escape_char(rp);
    if (v < 0) re_fail(rp, "invalid or unsupported escape");
    return re_lit(rp, v, *flags);
  }
  default: return re_lit(rp, re_char(rp), *flags);
  }
}

/* {n}, {n,}, {n,m} at rp->p: true with the bounds, false when it is a literal '{'. */
static bool re_braces(ReParser *rp, int *mn, int *mx) {
  const unsigned char *q = rp->p + 1;
  long a = 0, b;
  if (!(*q >= '0' && *q <= '9')) return false;
  while (*q >= '0' && *q <= '9') { a = a * 10 + (*q - '0'); if (a > 100000) a = 100000; q++; }
  if (*q == '}') b = a;
  else if (*q == ',') {
    q++;
    if (*q == '}') b = -1;
    else {
      if (!(*q >= '0' && *q <= '9')) return false;
      b = 0;
      while (*q >= '0' && *q <= '9') { b = b * 10 + (*q - '0'); if (b > 100000) b = 100000; q++; }
      if (*q != '}') return false;
    }
  } else {
    return false;
  }
  rp->p = q + 1;
  if (a > 1000 || b > 1000 || (b >= 0 && b < a)) re_fail(rp, "bad repetition operator");
  *mn = (int)a;
  *mx = (int)b;
  return true;
}

static ReNode *re_repeat(ReParser *rp, ReNode *x) {
  bool done = false;
  for (;;) {
    int mn, mx;
    unsigned c = *rp->p;
    if (c == '*') { mn = 0; mx = -1; rp->p++; }
    else if (c == '+') { mn = 1; mx = -1; rp->p++; }
    else if (c == '?') { mn = 0; mx = 1; rp->p++; }
    else if (c == '{' && re_braces(rp, &mn, &mx)) {}
    else return x;
    if (done) re_fail(rp, "bad repetition operator (repeated repetition)");
    if (*rp->p == '?') rp->p++; /* non-greedy: the same language */
    if (x->kind == RE_ASSERT || x->kind == RE_EMPTY) {
      /* RE2 accepts repeated empty-width assertions; they match as themselves or nothing */
    }
    ReNode *r = re_new(rp, RE_REP);
    r->a = x;
    r->min = mn;
    r->max = mx;
    x = r;
    done = true;
  }
}

static ReNode *re_seq(ReParser *rp, int *flags) {
  ReNode *x = NULL;
  while (*rp->p && *rp->p != '|' && *rp->p != ')') {
    ReNode *a = re_atom(rp, flags), *pre = rp->prefix;
    rp->prefix = NULL;
    x = re_cat(rp, re_cat(rp, x, pre), re_repeat(rp, a));
  }
  return x ? x : re_new(rp, RE_EMPTY);
}

static ReNode *re_alt(ReParser *rp, int *flags) {
  ReNode *x = re_seq(rp, flags);
  while (*rp->p == '|') {
    rp->p++;
    ReNode *y = re_new(rp, RE_ALT);
    y->a = x;
    y->b = re_seq(rp, flags);
    x = y;
  }
  return x;
}

typedef struct ReProg {
  int32_t *ins; int n, cap;
  Ranges rng;
} ReProg;

static int re_put(ReParser *rp, ReProg *pg, int32_t op, int32_t x, int32_t y) {
  if (pg->n >= RE_MAX_PROG) re_fail(rp, "the pattern is too large");
  if (pg->n + 1 > pg->cap) {
    int cap = pg->cap ? pg->cap * 2 : 64;
    int32_t *nv = arena_alloc(&rp->ctx->arena, sizeof(int32_t) * 3 * (size_t)cap);
    if (pg->n) memcpy(nv, pg->ins, sizeof(int32_t) * 3 * (size_t)pg->n);
    pg->ins = nv;
    pg->cap = cap;
  }
  pg->ins[3 * pg->n] = op;
  pg->ins[3 * pg->n + 1] = x;
  pg->ins[3 * pg->n + 2] = y;
  return pg->n++;
}

static void re_gen(ReParser *rp, ReProg *pg, const ReNode *x) {
  switch (x->kind) {
  case RE_EMPTY: break;
  case RE_LIT: re_put(rp, pg, OP_CHAR, x->c, 0); break;
  case RE_ANY: re_put(rp, pg, OP_ANY, 0, 0); break;
  case RE_ANYNL: re_put(rp, pg, OP_ANYNL, 0, 0); break;
  case RE_ASSERT: re_put(rp, pg, x->c, 0, 0); break;
  case RE_CLASS: {
    int at = pg->rng.n;
    for (int i = 0; i < x->nr; i++) rg_add(rp->ctx, &pg->rng, x->rng[2 * i], x->rng[2 * i + 1]);
    re_put(rp, pg, OP_CLASS, at, x->nr);
    break;
  }
  case RE_CAT:
    re_gen(rp, pg, x->a);
    re_gen(rp, pg, x->b);
    break;
  case RE_ALT: {
    int sp = re_put(rp, pg, OP_SPLIT, 0, 0);
    pg->ins[3 * sp + 1] = pg->n;
    re_gen(rp, pg, x->a);
    int j = re_put(rp, pg, OP_JMP, 0, 0);
    pg->ins[3 * sp + 2] = pg->n;
    re_gen(rp, pg, x->b);
    pg->ins[3 * j + 1] = pg->n;
    break;
  }
  case RE_REP: {
    for (int k = 0; k < x->min; k++) re_gen(rp, pg, x->a);
    if (x->max < 0) {
      int sp = re_put(rp, pg, OP_SPLIT, 0, 0);
      pg->ins[3 * sp + 1] = pg->n;
      re_gen(rp, pg, x->a);
      re_put(rp, pg, OP_JMP, sp, 0);
      pg->ins[3 * sp + 2] = pg->n;
    } else {
      int opt = x->max - x->min, *fix = arena_alloc(&rp->ctx->arena, sizeof(int) * (size_t)(opt + 1));
      for (int k = 0; k < opt; k++) {
        fix[k] = re_put(rp, pg, OP_SPLIT, 0, 0);
        pg->ins[3 * fix[k] + 1] = pg->n;
        re_gen(rp, pg, x->a);
      }
      for (int k = 0; k < opt; k++) pg->ins[3 * fix[k] + 2] = pg->n;
    }
    break;
  }
  default: unreachable("regex node");
  }
}

static void regex_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  need_string(ctx, n, 0);
  const char *pat = attr_str(ctx, n, "pattern", NULL);
  if (!pat) fail_node(ctx, n, "missing attribute 'pattern'");
  ReParser rp = {ctx, n, (const unsigned char *)pat, (const unsigned char *)pat, NULL};
  int flags = 0;
  ReNode *tree = re_alt(&rp, &flags);
  if (*rp.p == ')') re_fail(&rp, "unmatched )");
  ReProg *pg = arena_alloc(&ctx->arena, sizeof *pg);
  re_gen(&rp, pg, tree);
  re_put(&rp, pg, OP_MATCH, 0, 0);
  n->priv = pg;
  Value *x = n->inputs[0];
  value_set_shape(n->outputs[0], DT_BOOL, x->rank, x->dims);
}

static int64_t regex_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  const ReProg *pg = n->priv;
  return value_numel(n->inputs[0]) ? (int64_t)sizeof(int32_t) * 4 * pg->n : 0;
}

static void regex_emit(Emit *e, Node *n) {
  const ReProg *pg = n->priv;
  int64_t N = value_numel(n->inputs[0]);
  if (N == 0) return;
  emit_use_template(e, "text");
  ep(e, "static const int32_t prog[%d] = {", 3 * pg->n);
  for (int i = 0; i < pg->n; i++) ep(e, "  %d, %d, %d,", pg->ins[3 * i], pg->ins[3 * i + 1], pg->ins[3 * i + 2]);
  ep(e, "};");
  ep(e, "static const int32_t rng[%d] = {", pg->rng.n ? 2 * pg->rng.n : 1);
  for (int i = 0; i < pg->rng.n; i++) ep(e, "  %d, %d,", pg->rng.v[2 * i], pg->rng.v[2 * i + 1]);
  if (!pg->rng.n) ep(e, "  0");
  ep(e, "};");
  ep(e, "%s i;", itype(N));
  ep(e, "for (i = 0; i < %lld; i++) Y0[i] = (uint8_t)onnxc_re_full(prog, %d, rng, X0[i], (int32_t *)(void *)W);",
     (long long)N, pg->n);
}

/* ---- LabelEncoder ------------------------------------------------------------------------ */

/* Keys and values as detached constants (sorted by key, duplicates resolved: the last one
   wins), and the default. */
typedef struct LeInfo {
  Value *keys, *vals, *dflt;
  int64_t n;
  int64_t nan_at;          /* float keys: index of the value for NaN, or -1 */
} LeInfo;

static Value *le_const(Ctx *ctx, int dtype, int64_t n) {
  Value *v = arena_alloc(&ctx->arena, sizeof *v);
  v->name = "";
  v->id = -1;
  v->typed = true;
  v->offset = -1;
  value_set_shape(v, dtype, 1, &n);
  value_alloc_data(ctx, v);
  return v;
}

static bool le_type_ok(int dt) {
  return dt == DT_STRING || dt == DT_FLOAT || dt == DT_DOUBLE || dtype_is_int(dt);
}

/* One of the keys_* / values_* attributes (prefix "keys" or "values"), as a constant. */
static Value *le_list(Ctx *ctx, const Node *n, const char *prefix) {
  static const char *const kinds[] = {"floats", "int64s", "strings", "tensor"};
  Value *found = NULL;
  for (int k = 0; k < 4; k++) {
    const Attr *a = node_attr(n, arena_printf(&ctx->arena, "%s_%s", prefix, kinds[k]));
    if (!a) continue;
    if (found) fail_node(ctx, n, "more than one %s_* attribute", prefix);
    if (k == 0) {
      found = le_const(ctx, DT_FLOAT, a->n_floats);
      for (int i = 0; i < a->n_floats; i++) ((float *)found->data)[i] = a->floats[i];
    } else if (k == 1) {
      found = le_const(ctx, DT_INT64, a->n_ints);
      for (int i = 0; i < a->n_ints; i++) ((int64_t *)found->data)[i] = a->ints[i];
    } else if (k == 2) {
      found = le_const(ctx, DT_STRING, a->n_strings);
      for (int i = 0; i < a->n_strings; i++) ((const char **)found->data)[i] = a->strings[i];
    } else {
      if (!a->t || !a->t->data) fail_node(ctx, n, "attribute %s_tensor holds no data", prefix);
      if (a->t->rank != 1) fail_node(ctx, n, "attribute %s_tensor must be 1-D", prefix);
      found = a->t;
    }
  }
  if (!found) fail_node(ctx, n, "missing %s_* attribute", prefix);
  if (!le_type_ok(found->dtype))
    fail_node(ctx, n, "%s of element type %s are not supported", prefix, dtype_name(found->dtype));
  return found;
}

static int le_cmp(const Value *k, int64_t i, int64_t j) {
  if (k->dtype == DT_STRING) return strcmp(((const char **)k->data)[i], ((const char **)k->data)[j]);
  if (dtype_is_float(k->dtype)) {
    double a = const_get_f(k, i), b = const_get_f(k, j);
    return a < b ? -1 : a > b;
  }
  if (k->dtype == DT_UINT64) {
    uint64_t a = ((const uint64_t *)k->data)[i], b = ((const uint64_t *)k->data)[j];
    return a < b ? -1 : a > b;
  }
  int64_t a = const_get_i(k, i), b = const_get_i(k, j);
  return a < b ? -1 : a > b;
}

static const Value *le_sort_keys;
static int le_sort_cmp(const void *a, const void *b) {
  int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
  int c = le_cmp(le_sort_keys, i, j);
  if (c) return c;
  return i < j ? 1 : i > j ? -1 : 0; /* equal keys: the later one first (it wins) */
}

static void le_copy(Value *dst, int64_t di, const Value *src, int64_t si) {
  if (src->dtype == DT_STRING) ((const char **)dst->data)[di] = ((const char **)src->data)[si];
  else if (dtype_is_float(src->dtype)) const_set_f(dst, di, const_get_f(src, si));
  else if (src->dtype == DT_UINT64) ((uint64_t *)dst->data)[di] = ((const uint64_t *)src->data)[si];
  else const_set_i(dst, di, const_get_i(src, si));
}

static void le_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  Value *x = n->inputs[0];
  Value *keys, *vals, *dflt = NULL;
  if (n->opset < 2) {
    /* classes_strings: strings <-> their index */
    const Attr *a = node_attr(n, "classes_strings");
    int64_t cnt = a ? a->n_strings : 0;
    Value *s = le_const(ctx, DT_STRING, cnt), *ix = le_const(ctx, DT_INT64, cnt);
    for (int64_t i = 0; i < cnt; i++) {
      ((const char **)s->data)[i] = a->strings[i];
      ((int64_t *)ix->data)[i] = i;
    }
    bool from_str = x->dtype == DT_STRING;
    keys = from_str ? s : ix;
    vals = from_str ? ix : s;
    dflt = le_const(ctx, vals->dtype, 1);
    if (from_str) ((int64_t *)dflt->data)[0] = attr_i(n, "default_int64", -1);
    else ((const char **)dflt->data)[0] = attr_str(ctx, n, "default_string", "_Unused");
  } else {
    keys = le_list(ctx, n, "keys");
    vals = le_list(ctx, n, "values");
    const Attr *dt = node_attr(n, "default_tensor");
    if (dt && dt->t) {
      if (!dt->t->data || value_numel(dt->t) != 1) fail_node(ctx, n, "default_tensor must hold one value");
      if (dt->t->dtype != vals->dtype) fail_node(ctx, n, "default_tensor's element type differs from the values'");
      dflt = dt->t;
    } else {
      dflt = le_const(ctx, vals->dtype, 1);
      if (vals->dtype == DT_STRING) ((const char **)dflt->data)[0] = attr_str(ctx, n, "default_string", "_Unused");
      else if (dtype_is_float(vals->dtype)) const_set_f(dflt, 0, attr_f(n, "default_float", -0.0f));
      else const_set_i(dflt, 0, attr_i(n, "default_int64", -1));
    }
  }
  if (x->dtype != keys->dtype)
    fail_node(ctx, n, "input element type %s differs from the keys' (%s)", dtype_name(x->dtype), dtype_name(keys->dtype));
  if (value_numel(keys) != value_numel(vals)) fail_node(ctx, n, "keys and values differ in length");
  int64_t cnt = value_numel(keys);
  LeInfo *li = arena_alloc(&ctx->arena, sizeof *li);
  li->nan_at = -1;
  int64_t *ord = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(cnt + 1));
  int64_t m = 0;
  for (int64_t i = 0; i < cnt; i++) {
    if (dtype_is_float(keys->dtype) && isnan(const_get_f(keys, i))) { li->nan_at = i; continue; }
    ord[m++] = i;
  }
  le_sort_keys = keys;
  if (m) qsort(ord, (size_t)m, sizeof(int64_t), le_sort_cmp);
  le_sort_keys = NULL;
  li->keys = le_const(ctx, keys->dtype, m);
  li->vals = le_const(ctx, vals->dtype, m + 1); /* + the NaN key's value */
  int64_t u = 0;
  for (int64_t i = 0; i < m; i++) {
    if (i && le_cmp(keys, ord[i], ord[i - 1]) == 0) continue; /* an earlier duplicate */
    le_copy(li->keys, u, keys, ord[i]);
    le_copy(li->vals, u, vals, ord[i]);
    u++;
  }
  li->n = u;
  if (li->nan_at >= 0) le_copy(li->vals, u, vals, li->nan_at);
  li->dflt = dflt;
  n->priv = li;
  value_set_shape(n->outputs[0], vals->dtype, x->rank, x->dims);
}

static const char *le_lit(Emit *e, const Value *v, int64_t i) {
  if (v->dtype == DT_STRING) return c_str_lit(e, ((const char **)v->data)[i]);
  if (dtype_is_float(v->dtype)) return c_lit(e, v->dtype, const_get_f(v, i));
  if (v->dtype == DT_UINT64) return fmt(e, "%lluULL", (unsigned long long)((const uint64_t *)v->data)[i]);
  return c_lit_i(e, v->dtype, const_get_i(v, i));
}

static void le_table(Emit *e, const char *name, const Value *v, int64_t n) {
  ep(e, "static const %s %s[%lld] = {", c_type(v->dtype), name, (long long)(n ? n : 1));
  for (int64_t i = 0; i < n; i++) ep(e, "  %s,", le_lit(e, v, i));
  if (!n) ep(e, "  0");
  ep(e, "};");
}

static void le_emit(Emit *e, Node *n) {
  const LeInfo *li = n->priv;
  Value *x = n->inputs[0];
  int64_t N = value_numel(x);
  if (N == 0) return;
  int kt = li->keys->dtype;
  if (kt == DT_STRING) emit_use_template(e, "text");
  le_table(e, "keys", li->keys, li->n);
  le_table(e, "vals", li->vals, li->n + (li->nan_at >= 0));
  ep(e, "const %s dflt = %s;", c_type(li->dflt->dtype), le_lit(e, li->dflt, 0));
  ep(e, "%s i;", itype(N));
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)N);
  ep(e, "const %s x = X0[i];", c_type(kt));
  if (li->nan_at >= 0) {
    ep(e, "if (x != x) {");
    ep(e, "Y0[i] = vals[%lld];", (long long)li->n);
    ep(e, "continue;");
    ep(e, "}");
  }
  ep(e, "{");
  ep(e, "long long lo = 0, hi = %lld;", (long long)li->n);
  ep(e, "while (lo < hi) {");
  ep(e, "const long long mid = lo + (hi - lo) / 2;");
  if (kt == DT_STRING) ep(e, "if (onnxc_scmp(keys[mid], x) < 0) lo = mid + 1;");
  else ep(e, "if (keys[mid] < x) lo = mid + 1;");
  ep(e, "else hi = mid;");
  ep(e, "}");
  if (kt == DT_STRING) ep(e, "Y0[i] = lo < %lld && onnxc_scmp(keys[lo], x) == 0 ? vals[lo] : dflt;", (long long)li->n);
  else ep(e, "Y0[i] = lo < %lld && keys[lo] == x ? vals[lo] : dflt;", (long long)li->n);
  ep(e, "}");
  ep(e, "}");
}

/* ---- Equal, Identity of strings ------------------------------------------------------------ */

static void sequal_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, 2);
  need_string(ctx, n, 0);
  need_string(ctx, n, 1);
  infer_broadcast(ctx, n);
  n->outputs[0]->dtype = DT_BOOL;
}

static void sequal_body(Emit *e, void *arg) {
  (void)arg;
  ep(e, "Y0[o] = (uint8_t)(onnxc_scmp(X0[i0], X1[i1]) == 0);");
}

static void sequal_emit(Emit *e, Node *n) {
  emit_use_template(e, "text");
  const Value *ins[2] = {n->inputs[0], n->inputs[1]};
  emit_broadcast_loops(e, n->outputs[0], ins, 2, sequal_body, NULL);
}

static void sequal_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  Value *y = n->outputs[0];
  for (int64_t o = 0; o < value_numel(y); o++)
    const_set_i(y, o, strcmp(((const char **)n->inputs[0]->data)[bcast_index(y, n->inputs[0], o)],
                             ((const char **)n->inputs[1]->data)[bcast_index(y, n->inputs[1], o)]) == 0);
}

static void sid_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  infer_same_as_input0(ctx, n);
}

static void sid_fold(Ctx *ctx, Node *n) {
  (void)ctx;
  int64_t N = value_numel(n->outputs[0]);
  if (N) memcpy(n->outputs[0]->data, n->inputs[0]->data, sizeof(char *) * (size_t)N);
}

static void sid_emit(Emit *e, Node *n) {
  int64_t N = value_numel(n->outputs[0]);
  if (N) ep(e, "memcpy(Y0, X0, %lld * sizeof(onnxc_string));", (long long)N);
}

/* ---- Cast to and from strings --------------------------------------------------------------- */

/* The binary formats Cast converts text to and from: significand bits (hidden one included),
   exponent bits, numpy's positional limit (10^pos), big-integer words the conversion needs. */
typedef struct RealFmt { int p, ebits, pos, words; } RealFmt;

static bool real_fmt(int dt, RealFmt *f) {
  switch (dt) {
  case DT_FLOAT: *f = (RealFmt){24, 8, 6, 24}; return true;
  case DT_DOUBLE: *f = (RealFmt){53, 11, 16, 56}; return true;
  case DT_FLOAT16: *f = (RealFmt){11, 5, 3, 24}; return true;
  case DT_BFLOAT16: *f = (RealFmt){8, 8, 0, 24}; return true; /* from text only */
  default: return false;
  }
}

/* Longest text of a number of dtype (Cast to string; the heap's default size). */
static int64_t num_text_len(int dt) {
  switch (dt) {
  case DT_FLOAT: return 16;
  case DT_DOUBLE: return 25;
  case DT_FLOAT16: return 12;
  case DT_INT8: case DT_UINT16: case DT_INT16: return 6;
  case DT_UINT8: return 3;
  case DT_INT32: case DT_UINT32: return 11;
  default: return 20;
  }
}

static int cast_to(const Node *n) {
  if (!strcmp(n->op_type, "CastLike")) return node_in(n, 1) ? n->inputs[1]->dtype : 0;
  return (int)attr_i(n, "to", 0);
}

static void scast_infer(Ctx *ctx, Node *n) {
  Value *x = node_in(n, 0);
  if (!x) fail_node(ctx, n, "missing input");
  if (!strcmp(n->op_type, "CastLike") && !node_in(n, 1)) fail_node(ctx, n, "missing target_type input");
  int from = x->dtype, to = cast_to(n);
  RealFmt rf = {0, 0, 0, 0};
  bool ok;
  if (from == DT_STRING && to == DT_STRING) ok = true;
  else if (from == DT_STRING) ok = real_fmt(to, &rf) || dtype_is_int(to);
  else ok = (real_fmt(from, &rf) && from != DT_BFLOAT16) || dtype_is_int(from);
  if (!ok) fail_node(ctx, n, "cast from %s to %s is not supported", dtype_name(from), dtype_name(to));
  value_set_shape(n->outputs[0], to, x->rank, x->dims);
  n->str_heap = from != to;
}

static int64_t scast_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  RealFmt rf = {0, 0, 0, 0};
  int from = n->inputs[0]->dtype, to = n->outputs[0]->dtype;
  if (!value_numel(n->outputs[0])) return 0;
  if (from == DT_STRING && real_fmt(to, &rf)) return 3 * 4 * rf.words;
  if (to == DT_STRING && real_fmt(from, &rf)) return 5 * 4 * rf.words;
  return 0;
}

static void scast_emit(Emit *e, Node *n) {
  Value *x = n->inputs[0], *y = n->outputs[0];
  int from = x->dtype, to = y->dtype;
  int64_t N = value_numel(y);
  RealFmt rf = {0, 0, 0, 0};
  if (from == to) {
    sid_emit(e, n);
    return;
  }
  emit_use_template(e, "text");
  if (N == 0) {
    ep(e, "return ONNXC_OK;");
    return;
  }
  ep(e, "%s i;", itype(N));
  if (from == DT_STRING && real_fmt(to, &rf)) {
    ep(e, "uint64_t b;");
    ep(e, "for (i = 0; i < %lld; i++) {", (long long)N);
    ep(e, "if (onnxc_atof(X0[i], %d, %d, &b, (uint32_t *)(void *)W, %d)) return ONNXC_ERR_PARSE;", rf.p, rf.ebits, rf.words);
    if (to == DT_FLOAT) {
      ep(e, "{ const uint32_t u = (uint32_t)b; float f; memcpy(&f, &u, 4); Y0[i] = f; }");
    } else if (to == DT_DOUBLE) {
      ep(e, "{ double d; memcpy(&d, &b, 8); Y0[i] = d; }");
    } else {
      ep(e, "Y0[i] = (uint16_t)b;");
    }
    ep(e, "}");
  } else if (from == DT_STRING) {
    bool sg = dtype_is_signed(to);
    int bits = (int)dtype_size(to) * 8;
    uint64_t pmax = sg ? ((uint64_t)1 << (bits - 1)) - 1 : (bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1);
    uint64_t nmax = sg ? (uint64_t)1 << (bits - 1) : 0;
    ep(e, "uint64_t m;");
    ep(e, "int neg;");
    ep(e, "for (i = 0; i < %lld; i++) {", (long long)N);
    ep(e, "if (onnxc_atoi(X0[i], %lluULL, %lluULL, &m, &neg)) return ONNXC_ERR_PARSE;", (unsigned long long)pmax,
       (unsigned long long)nmax);
    if (sg) ep(e, "Y0[i] = neg ? (%s)(-(int64_t)(m - 1) - 1) : (%s)m;", c_type(to), c_type(to));
    else ep(e, "Y0[i] = (%s)m;", c_type(to));
    ep(e, "}");
  } else {
    real_fmt(from, &rf);
    ep(e, "char b[48];");
    ep(e, "int len;");
    ep(e, "const char *q;");
    ep(e, "for (i = 0; i < %lld; i++) {", (long long)N);
    if (from == DT_FLOAT) {
      ep(e, "{ uint32_t u; memcpy(&u, &X0[i], 4); len = onnxc_ftoa(b, u, 24, 8, 6, (uint32_t *)(void *)W, %d); }", rf.words);
    } else if (from == DT_DOUBLE) {
      ep(e, "{ uint64_t u; memcpy(&u, &X0[i], 8); len = onnxc_ftoa(b, u, 53, 11, 16, (uint32_t *)(void *)W, %d); }", rf.words);
    } else if (from == DT_FLOAT16) {
      ep(e, "len = onnxc_ftoa(b, X0[i], 11, 5, 3, (uint32_t *)(void *)W, %d);", rf.words);
    } else if (dtype_is_signed(from)) {
      ep(e, "len = onnxc_itoa(b, X0[i] < 0 ? (uint64_t)0 - (uint64_t)(int64_t)X0[i] : (uint64_t)X0[i], X0[i] < 0);");
    } else {
      ep(e, "len = onnxc_itoa(b, (uint64_t)X0[i], 0);");
    }
    ep(e, "q = onnxc_sdup(H, b, (size_t)len);");
    ep(e, "if (!q) return ONNXC_ERR_CAPACITY;");
    ep(e, "Y0[i] = q;");
    ep(e, "}");
  }
  ep(e, "return ONNXC_OK;");
}

/* ---- the gate and the heap ---------------------------------------------------------------- */

/* Rows of ops that exist elsewhere for other types; the gate points string nodes here. */
static const OpDef redirect_rows[] = {
    {"Equal", "", 1, ONNXC_MAX_OPSET, OPF_STRINGS, sequal_infer, sequal_fold, sequal_emit, NULL, "string", NULL},
    {"Identity", "", 1, ONNXC_MAX_OPSET, OPF_STRINGS | OPF_VIEW, sid_infer, sid_fold, sid_emit, NULL, "string", NULL},
    {"Cast", "", 1, ONNXC_MAX_OPSET, OPF_STRINGS, scast_infer, NULL, scast_emit, scast_scratch, "string", NULL},
    {"CastLike", "", 15, ONNXC_MAX_OPSET, OPF_STRINGS, scast_infer, NULL, scast_emit, scast_scratch, "string", NULL},
};

void string_gate(Ctx *ctx, Node *n) {
  bool str = false;
  for (int k = 0; k < n->n_inputs; k++)
    if (n->inputs[k] && n->inputs[k]->dtype == DT_STRING && n->inputs[k]->typed) str = true;
  if (!*n->domain && !strcmp(n->op_type, "Cast") && attr_i(n, "to", 0) == DT_STRING) str = true;
  if (!str || (n->def->flags & OPF_STRINGS)) return;
  if (!*n->domain)
    for (size_t i = 0; i < sizeof redirect_rows / sizeof redirect_rows[0]; i++)
      if (!strcmp(redirect_rows[i].name, n->op_type) && n->opset >= redirect_rows[i].since) {
        n->def = &redirect_rows[i];
        return;
      }
  fail_node(ctx, n, "string tensors are not supported by this op");
}

void string_gate_outputs(Ctx *ctx, Node *n) {
  if (n->def->flags & OPF_STRINGS) return;
  for (int k = 0; k < n->n_outputs; k++)
    if (n->outputs[k] && n->outputs[k]->dtype == DT_STRING)
      fail_node(ctx, n, "string tensors are not supported by this op");
}

/* Longest element of a constant string tensor. */
static int64_t const_str_len(const Value *v) {
  int64_t L = 0;
  for (int64_t i = 0; i < value_numel(v); i++) {
    int64_t l = (int64_t)strlen(((const char **)v->data)[i]);
    if (l > L) L = l;
  }
  return L;
}

/* Sizes of the heap estimate saturate here (a long chain of concatenations doubles them). */
#define HEAP_CAP ((int64_t)1 << 50)
static int64_t sat_mul(int64_t a, int64_t b) { return a && b > HEAP_CAP / a ? HEAP_CAP : a * b; }
static int64_t sat_add(int64_t a, int64_t b) { return a > HEAP_CAP - b ? HEAP_CAP : a + b; }

void plan_string_heap(Ctx *ctx, Graph *g) {
  bool any = false;
  for (int s = 0; s < g->sched.n; s++)
    if (((Node *)g->sched.v[s])->str_heap) any = true;
  g->has_heap = any;
  g->heap_bytes = 0;
  if (!any) return;
  /* longest element of every string value, and what each node can allocate */
  int64_t *len = arena_alloc(&ctx->arena, sizeof(int64_t) * (size_t)(g->values.n + 1));
  int64_t need = 0;
  for (int i = 0; i < g->values.n; i++) {
    Value *v = g->values.v[i];
    len[i] = v->dtype != DT_STRING ? 0 : v->data ? const_str_len(v) : STR_INPUT_LEN;
  }
  for (int s = 0; s < g->sched.n; s++) {
    Node *n = g->sched.v[s];
    int64_t in_len = 0;
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k] && n->inputs[k]->id >= 0 && n->inputs[k]->id < g->values.n && len[n->inputs[k]->id] > in_len) in_len = len[n->inputs[k]->id];
    Value *y = node_out(n, 0);
    if (!y || y->id >= g->values.n || y->data) continue;
    int64_t L = in_len, cnt = value_numel(y), add = 0;
    const char *op = n->op_type;
    if (!strcmp(op, "StringConcat")) {
      L = sat_add(len[n->inputs[0]->id], len[n->inputs[1]->id]);
      add = sat_mul(cnt, L + 1);
    } else if (!strcmp(op, "StringSplit")) {
      const SplitInfo *si = n->priv;
      int64_t Lx = len[n->inputs[0]->id];
      add = sat_mul(value_numel(n->inputs[0]), Lx + (si->K < Lx ? si->K : Lx));
    } else if (!strcmp(op, "StringNormalizer")) {
      if (n->str_heap) add = sat_mul(cnt, L + 1);
    } else if ((!strcmp(op, "Cast") || !strcmp(op, "CastLike")) && y->dtype == DT_STRING &&
               n->inputs[0]->dtype != DT_STRING) {
      L = num_text_len(n->inputs[0]->dtype);
      add = sat_mul(cnt, L + 1);
    } else if (!strcmp(op, "LabelEncoder") && y->dtype == DT_STRING) {
      const LeInfo *li = n->priv;
      L = const_str_len(li->vals) > const_str_len(li->dflt) ? const_str_len(li->vals) : const_str_len(li->dflt);
    }
    for (int k = 0; k < n->n_outputs; k++)
      if (n->outputs[k] && n->outputs[k]->dtype == DT_STRING && n->outputs[k]->id >= 0 && n->outputs[k]->id < g->values.n)
        len[n->outputs[k]->id] = L;
    need = sat_add(need, add);
  }
  if (ctx->string_bytes < 0 && need > ((int64_t)1 << 32))
    fail(ctx, "the default string heap would exceed 4 GiB (every input string assumed to be %d bytes); give its size "
              "with --string-bytes N", STR_INPUT_LEN);
  g->heap_bytes = ctx->string_bytes >= 0 ? ctx->string_bytes : (need + 15) / 16 * 16;
  g->heap_offset = (g->arena_bytes + 15) / 16 * 16;
  g->arena_bytes = g->heap_offset + g->heap_bytes;
}

/* ---- rows ----------------------------------------------------------------------------------- */

static const OpDef string_rows[] = {
    {"StringConcat", "", 20, ONNXC_MAX_OPSET, OPF_STRINGS, concat_infer, NULL, concat_emit, NULL, "string", NULL},
    {"StringSplit", "", 20, ONNXC_MAX_OPSET, OPF_STRINGS, split_infer, NULL, split_emit, NULL, "string -> string, int64", NULL},
    {"StringNormalizer", "", 10, ONNXC_MAX_OPSET, OPF_STRINGS, norm_infer, NULL, norm_emit, NULL, "string", NULL},
    {"RegexFullMatch", "", 20, ONNXC_MAX_OPSET, OPF_STRINGS, regex_infer, NULL, regex_emit, regex_scratch, "string -> bool", NULL},
    {"LabelEncoder", ML, 1, ONNXC_MAX_OPSET, OPF_STRINGS, le_infer, NULL, le_emit, NULL,
     "string, int8-64, uint8-64, float, double", NULL},
};
OPS_FAMILY(string);
