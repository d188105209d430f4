/*
 * ops_custom.c - custom operators: nodes of a non-ONNX domain that compile to calls of C
 * functions the user writes (ABI in runtime_min/onnxc_custom.h, guide in docs/CUSTOM_OPS.md).
 *
 * onnxc cannot know what a foreign op computes, so the user says what it needs to know, one
 * spec per op (--custom-op TEXT, or lines of a --custom-ops FILE):
 *
 *   spec    := DOMAIN "::" OP ":" item (":" item)*
 *   item    := "outputs=" out ("," out)*         required: one entry per output
 *            | "workspace=" BYTES                scratch for each call (default 0)
 *            | "backward=" none|inputs|outputs|all   whether <cname>_backward exists and which
 *                                                forward values it reads (default none)
 *            | "nograd=" N ("," N)*              float inputs that carry no gradient
 *   out     := "in" N                            type and shape of input N
 *            | type "[" [dim ("," dim)*] "]"     explicit dims ("float[]": a scalar)
 *   type    := float | double | float16 | bfloat16 | int8 | uint8 | ... | bool | "in" N
 *   dim     := SIZE | "in" N "." AXIS            AXIS of input N (negative: from the end)
 *
 * The C name is "<domain>_<op>" with each character outside [A-Za-z0-9_] replaced by '_'.
 *
 * A forward node gets the row custom_row: its shape rule evaluates the spec, keeps every
 * input's and output's type and shape in a CustomNode (n->priv; the views the call passes, an
 * omitted output included), and its emitter writes a node function that returns the user
 * function's status (OPF_STATUS: emit_c.c returns a non-zero status from the run at once).
 * autodiff.c builds onnxc.grad::CustomGrad(x..., y..., dy...) -> dx... for it, linked to the
 * forward node's CustomNode; its row custom_grad_row calls <cname>_backward.  Both reserve the
 * spec's workspace as node scratch, so the memory planner places it in the arena.  Custom ops
 * never fold (user code does not run at compile time).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

#define GD "onnxc.grad"
#define MAX_INDEX 255            /* input numbers a spec may name */
#define MAX_WORKSPACE ((int64_t)1 << 40)

typedef struct CustomShape { int dtype, rank; int64_t dims[ONNXC_MAX_RANK]; } CustomShape;

/* What the emitters need about one forward node (its gradient node shares it). */
typedef struct CustomNode {
  const CustomOp *op;
  int n_in, n_out;                /* the node's inputs; the spec's outputs */
  CustomShape *in, *out;          /* dtype 0: an omitted input */
} CustomNode;

/* ---- the spec ---------------------------------------------------------------------------- */

bool custom_domain_reserved(const char *d) {
  return !*d || !strcmp(d, "ai.onnx") || !strcmp(d, "ai.onnx.ml") || !strcmp(d, "ai.onnx.preview.training") ||
         !strcmp(d, GD);
}

/* The element types a view can carry: the plain ones (not strings, complex, small types). */
static int parse_type(const char *s, size_t n) {
  for (int dt = DT_FLOAT; dt <= DT_BFLOAT16; dt++) {
    if (dt == DT_STRING || dt == DT_COMPLEX64 || dt == DT_COMPLEX128) continue;
    const char *nm = dtype_name(dt);
    if (strlen(nm) == n && !strncmp(nm, s, n)) return dt;
  }
  return 0;
}

/* A decimal integer filling s[0..n) exactly. */
static bool parse_int(const char *s, size_t n, int64_t lo, int64_t hi, int64_t *out) {
  char buf[32];
  if (n == 0 || n >= sizeof buf) return false;
  memcpy(buf, s, n);
  buf[n] = 0;
  if (!((buf[0] >= '0' && buf[0] <= '9') || (buf[0] == '-' && n > 1))) return false;
  char *end;
  errno = 0;
  long long v = strtoll(buf, &end, 10);
  if (*end || errno || v < lo || v > hi) return false;
  *out = v;
  return true;
}

/* "inN" filling s[0..n). */
static bool parse_input_ref(const char *s, size_t n, int *idx) {
  int64_t v;
  if (n < 3 || strncmp(s, "in", 2) || !(s[2] >= '0' && s[2] <= '9') || !parse_int(s + 2, n - 2, 0, MAX_INDEX, &v))
    return false;
  *idx = (int)v;
  return true;
}

#define PERR(...) do { snprintf(err, errlen, __VA_ARGS__); return false; } while (0)

static bool parse_dim(const char *s, size_t n, CustomDim *d, char *err, size_t errlen) {
  const char *dot = memchr(s, '.', n);
  d->input = -1;
  if (!dot) {
    if (!parse_int(s, n, 0, ONNXC_MAX_TENSOR_BYTES, &d->size))
      PERR("dim '%.*s' is neither a size nor inN.AXIS", (int)n, s);
    return true;
  }
  int64_t axis;
  if (!parse_input_ref(s, (size_t)(dot - s), &d->input) ||
      !parse_int(dot + 1, n - (size_t)(dot - s) - 1, -ONNXC_MAX_RANK, ONNXC_MAX_RANK - 1, &axis))
    PERR("dim '%.*s' is neither a size nor inN.AXIS (AXIS from %d to %d)", (int)n, s, -ONNXC_MAX_RANK,
         ONNXC_MAX_RANK - 1);
  d->axis = (int)axis;
  return true;
}

static bool parse_out(const char *s, size_t n, CustomOut *o, char *err, size_t errlen) {
  memset(o, 0, sizeof *o);
  o->like = o->type_of = -1;
  const char *br = memchr(s, '[', n);
  if (!br) {
    if (!parse_input_ref(s, n, &o->like))
      PERR("output '%.*s': expected inN or TYPE[DIMS] (e.g. float[in0.0,4])", (int)n, s);
    return true;
  }
  size_t tl = (size_t)(br - s);
  if (s[n - 1] != ']') PERR("output '%.*s': missing ']'", (int)n, s);
  if (!parse_input_ref(s, tl, &o->type_of) && !(o->dtype = parse_type(s, tl)))
    PERR("output '%.*s': unknown element type '%.*s' (float, double, float16, bfloat16, int8..int64, "
         "uint8..uint64, bool or inN)", (int)n, s, (int)tl, s);
  const char *p = br + 1, *end = s + n - 1;
  if (p == end) return true; /* a scalar */
  for (;;) {
    const char *c = memchr(p, ',', (size_t)(end - p));
    const char *e = c ? c : end;
    if (o->rank == ONNXC_MAX_RANK) PERR("output '%.*s': more than %d dims", (int)n, s, ONNXC_MAX_RANK);
    if (!parse_dim(p, (size_t)(e - p), &o->dims[o->rank++], err, errlen)) return false;
    if (!c) break;
    p = c + 1;
  }
  return true;
}

static bool parse_outputs(Arena *a, const char *s, size_t n, CustomOp *op, char *err, size_t errlen) {
  int cnt = 1, depth = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == ',' && depth == 0) cnt++;
    depth += (s[i] == '[') - (s[i] == ']');
  }
  op->outs = arena_alloc(a, sizeof(CustomOut) * (size_t)cnt);
  const char *p = s, *end = s + n;
  depth = 0;
  for (const char *q = s;; q++) {
    if (q < end && *q == '[') depth++;
    if (q < end && *q == ']') depth--;
    if (q < end && (*q != ',' || depth)) continue;
    if (q == p) PERR("outputs: an empty entry");
    if (!parse_out(p, (size_t)(q - p), &op->outs[op->n_outputs++], err, errlen)) return false;
    if (q == end) break;
    p = q + 1;
  }
  return true;
}

static const char *custom_c_name(Arena *a, const char *domain, const char *op) {
  char *s = arena_printf(a, "%s_%s", domain, op);
  for (char *p = s; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'))) *p = '_';
  return s;
}

bool custom_parse(Arena *a, const char *text, CustomOp *op, char *err, size_t errlen) {
  memset(op, 0, sizeof *op);
  const char *sep = strstr(text, "::");
  if (!sep) PERR("expected DOMAIN::OP:outputs=...");
  op->domain = arena_printf(a, "%.*s", (int)(sep - text), text);
  if (custom_domain_reserved(op->domain))
    PERR("domain '%s' is not a custom domain (custom ops need a domain of their own, e.g. com.example)",
         *op->domain ? op->domain : "");
  const char *p = sep + 2, *colon = strchr(p, ':');
  op->op = arena_printf(a, "%.*s", colon ? (int)(colon - p) : (int)strlen(p), p);
  if (!*op->op) PERR("expected DOMAIN::OP:outputs=... (the op type is empty)");
  op->cname = custom_c_name(a, op->domain, op->op);
  if (op->cname[0] >= '0' && op->cname[0] <= '9')
    PERR("the C name '%s' would start with a digit", op->cname);
  bool seen[4] = {false, false, false, false};
  static const char *const keys[4] = {"outputs", "workspace", "backward", "nograd"};
  for (p = colon ? colon + 1 : NULL; p;) {
    const char *next = strchr(p, ':');
    size_t len = next ? (size_t)(next - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    if (!eq || eq == p) PERR("expected KEY=VALUE, got '%.*s'", (int)len, p);
    size_t kl = (size_t)(eq - p), vl = len - kl - 1;
    const char *v = eq + 1;
    int k = 0;
    while (k < 4 && !(strlen(keys[k]) == kl && !strncmp(keys[k], p, kl))) k++;
    if (k == 4) PERR("unknown key '%.*s' (outputs, workspace, backward, nograd)", (int)kl, p);
    if (seen[k]) PERR("key '%s' given twice", keys[k]);
    seen[k] = true;
    if (k == 0) {
      if (!vl) PERR("outputs: no outputs listed");
      if (!parse_outputs(a, v, vl, op, err, errlen)) return false;
    } else if (k == 1) {
      if (!parse_int(v, vl, 0, MAX_WORKSPACE, &op->workspace))
        PERR("workspace must be a byte count from 0 to 2^40, got '%.*s'", (int)vl, v);
    } else if (k == 2) {
      static const char *const modes[4] = {"none", "inputs", "outputs", "all"};
      op->backward = -1;
      for (int m = 0; m < 4; m++)
        if (strlen(modes[m]) == vl && !strncmp(modes[m], v, vl)) op->backward = m;
      if (op->backward < 0) PERR("backward must be none, inputs, outputs or all, got '%.*s'", (int)vl, v);
    } else {
      for (const char *q = v; q <= v + vl;) {
        const char *c = memchr(q, ',', (size_t)(v + vl - q));
        const char *e = c ? c : v + vl;
        int64_t idx;
        if (!parse_int(q, (size_t)(e - q), 0, 31, &idx))
          PERR("nograd: expected input numbers from 0 to 31, got '%.*s'", (int)vl, v);
        op->nograd |= 1u << idx;
        q = e + 1;
      }
    }
    p = next ? next + 1 : NULL;
  }
  if (!seen[0]) PERR("missing outputs=... (one entry per output: inN or TYPE[DIMS])");
  return true;
}

static void add_spec(Ctx *ctx, const char *text, const char *where) {
  CustomOp *op = arena_alloc(&ctx->arena, sizeof *op);
  char err[512];
  if (!custom_parse(&ctx->arena, text, op, err, sizeof err)) fail(ctx, "%s: %s", where, err);
  for (int i = 0; i < ctx->custom_ops.n; i++) {
    const CustomOp *o = ctx->custom_ops.v[i];
    if (!strcmp(o->domain, op->domain) && !strcmp(o->op, op->op))
      fail(ctx, "%s: custom op %s::%s is described twice", where, op->domain, op->op);
    if (!strcmp(o->cname, op->cname))
      fail(ctx, "%s: custom ops %s::%s and %s::%s have the same C name '%s'", where, o->domain, o->op,
           op->domain, op->op, op->cname);
  }
  vec_push(&ctx->arena, &ctx->custom_ops, op);
}

/* The whole file in the arena (closed before any parse error can leave through fail()). */
static char *read_text(Ctx *ctx, const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) fail(ctx, "--custom-ops: cannot open '%s'", path);
  Buf b = {0};
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && b.len < (1u << 20)) buf_put(&b, chunk, n);
  bool bad = ferror(f) || b.len >= (1u << 20);
  fclose(f);
  char *text = arena_alloc(&ctx->arena, b.len + 1);
  if (b.len) memcpy(text, b.p, b.len);
  buf_free(&b);
  if (bad) fail(ctx, "--custom-ops: cannot read '%s' (or it is over 1 MiB)", path);
  return text;
}

void custom_ops_setup(Ctx *ctx, const CompileOptions *opt) {
  for (int i = 0; i < opt->n_custom_ops; i++)
    add_spec(ctx, opt->custom_ops[i], arena_printf(&ctx->arena, "--custom-op '%s'", opt->custom_ops[i]));
  /* a file: one spec per line; '#' starts a comment; blank lines and surrounding blanks ignored */
  for (int i = 0; i < opt->n_custom_op_files; i++) {
    const char *path = opt->custom_op_files[i];
    char *line = read_text(ctx, path);
    for (int lineno = 1; line; lineno++) {
      char *nl = strchr(line, '\n'), *next = nl ? nl + 1 : NULL;
      if (nl) *nl = 0;
      char *hash = strchr(line, '#');
      if (hash) *hash = 0;
      char *e = line + strlen(line);
      while (*line == ' ' || *line == '\t') line++;
      while (e > line && (e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t')) *--e = 0;
      if (*line) add_spec(ctx, line, arena_printf(&ctx->arena, "--custom-ops %s line %d", path, lineno));
      line = next;
    }
  }
}

/* ---- shape rules --------------------------------------------------------------------------- */

static const CustomOp *find_spec(Ctx *ctx, const char *domain, const char *op) {
  for (int i = 0; i < ctx->custom_ops.n; i++) {
    const CustomOp *o = ctx->custom_ops.v[i];
    if (!strcmp(o->domain, domain) && !strcmp(o->op, op)) return o;
  }
  return NULL;
}

static const char *which(Arena *a, int k) { return arena_printf(a, "output %d of its --custom-op spec", k); }

/* Input `idx` of n as the spec refers to it: present, and with `axis` when axis is given. */
static const CustomShape *ref_input(Ctx *ctx, const Node *n, const CustomNode *cn, int k, int idx) {
  if (idx >= cn->n_in || !cn->in[idx].dtype)
    fail_node(ctx, n, "%s refers to input %d, which the node %s", which(&ctx->arena, k), idx,
              idx >= cn->n_in ? "does not have" : "omits");
  return &cn->in[idx];
}

static void custom_infer(Ctx *ctx, Node *n) {
  const CustomOp *op = find_spec(ctx, n->domain, n->op_type);
  CHECK(op);
  if (n->n_outputs > op->n_outputs)
    fail_node(ctx, n, "the node has %d outputs; its --custom-op spec declares %d", n->n_outputs, op->n_outputs);
  for (int k = 0; k < n->n_attrs; k++) {
    int t = n->attrs[k].type;
    if (t != ATTR_FLOAT && t != ATTR_INT && t != ATTR_STRING && t != ATTR_FLOATS && t != ATTR_INTS && t != ATTR_STRINGS)
      fail_node(ctx, n, "attribute '%s': custom ops take float, int, string, floats, ints and strings attributes only",
                n->attrs[k].name);
  }
  CustomNode *cn = arena_alloc(&ctx->arena, sizeof *cn);
  cn->op = op;
  cn->n_in = n->n_inputs;
  cn->n_out = op->n_outputs;
  cn->in = arena_alloc(&ctx->arena, sizeof(CustomShape) * (size_t)(cn->n_in + 1));
  cn->out = arena_alloc(&ctx->arena, sizeof(CustomShape) * (size_t)cn->n_out);
  for (int k = 0; k < n->n_inputs; k++) {
    Value *v = n->inputs[k];
    if (!v) continue;
    if (!parse_type(dtype_name(v->dtype), strlen(dtype_name(v->dtype))))
      fail_node(ctx, n, "input %d ('%s'): element type %s cannot be passed to a custom op", k, v->name,
                dtype_name(v->dtype));
    cn->in[k].dtype = v->dtype;
    cn->in[k].rank = v->rank;
    memcpy(cn->in[k].dims, v->dims, sizeof v->dims);
  }
  for (int k = 0; k < op->n_outputs; k++) {
    const CustomOut *o = &op->outs[k];
    CustomShape *s = &cn->out[k];
    if (o->like >= 0) {
      *s = *ref_input(ctx, n, cn, k, o->like);
    } else {
      s->dtype = o->type_of >= 0 ? ref_input(ctx, n, cn, k, o->type_of)->dtype : o->dtype;
      s->rank = o->rank;
      for (int d = 0; d < o->rank; d++) {
        const CustomDim *cd = &o->dims[d];
        if (cd->input < 0) { s->dims[d] = cd->size; continue; }
        const CustomShape *in = ref_input(ctx, n, cn, k, cd->input);
        int ax = cd->axis < 0 ? cd->axis + in->rank : cd->axis;
        if (ax < 0 || ax >= in->rank)
          fail_node(ctx, n, "%s takes axis %d of input %d, which has rank %d", which(&ctx->arena, k), cd->axis,
                    cd->input, in->rank);
        s->dims[d] = in->dims[ax];
      }
    }
    if (k < n->n_outputs && n->outputs[k]) value_set_shape(n->outputs[k], s->dtype, s->rank, s->dims);
  }
  n->priv = cn;
}

static int64_t custom_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  return ((const CustomNode *)n->priv)->op->workspace;
}

/* CustomGrad(x_0.., y_0.., dy_0..) -> dx_0..: x and y where the spec's backward reads them,
   dy where a gradient reaches that output; dx where an input needs one. */
static void custom_grad_infer(Ctx *ctx, Node *n) {
  const CustomNode *cn = n->priv;
  if (!cn) fail_node(ctx, n, "internal op of onnxc's gradient graphs");
  CHECK(n->n_inputs == cn->n_in + 2 * cn->n_out && n->n_outputs == cn->n_in);
  for (int k = 0; k < cn->n_in; k++)
    if (n->outputs[k]) value_set_shape(n->outputs[k], cn->in[k].dtype, cn->in[k].rank, cn->in[k].dims);
}

/* ---- C emission ---------------------------------------------------------------------------- */

/* static const int64_t name[n] (int64_t whatever the values: the ABI's dims and ints). */
static void i64_table(Emit *e, const char *name, const int64_t *v, int n) {
  if (n <= 8) {
    Buf b = {0};
    buf_printf(&b, "static const int64_t %s[%d] = {", name, n > 0 ? n : 1);
    for (int i = 0; i < n; i++) buf_printf(&b, "%s%s", i ? ", " : "", c_lit_i(e, DT_INT64, v[i]));
    buf_puts(&b, n ? "};" : "0};");
    ep(e, "%s", b.p);
    buf_free(&b);
    return;
  }
  ep(e, "static const int64_t %s[%d] = {", name, n);
  for (int i = 0; i < n; i += 8) {
    Buf b = {0};
    for (int j = i; j < n && j < i + 8; j++) buf_printf(&b, "%s%s", c_lit_i(e, DT_INT64, v[j]), j + 1 < n ? ", " : "");
    ep(e, "%s", b.p ? b.p : ""); /* never empty here; gcc -O3 cannot tell */
    buf_free(&b);
  }
  ep(e, "};");
}

/* A C string literal of s[0..n) (octal escapes; '?' escaped against trigraphs). */
static const char *c_string(Emit *e, const char *s, size_t n) {
  Buf b = {0};
  buf_puts(&b, "\"");
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\' || c == '?') buf_printf(&b, "\\%c", c);
    else if (c < 32 || c >= 127) buf_printf(&b, "\\%03o", c);
    else buf_put(&b, (const char *)&c, 1);
  }
  buf_puts(&b, "\"");
  const char *r = arena_strdup(&e->ctx->arena, b.p);
  buf_free(&b);
  return r;
}

/* An expression for the string s[0..n): a literal, or for long strings a static const array
   `tag` written in pieces (one line of generated C stays short). */
static const char *string_expr(Emit *e, const char *tag, const char *s, size_t n) {
  if (n <= 64) return c_string(e, s, n);
  ep(e, "static const char %s[%zu] =", tag, n + 1);
  e->indent++;
  for (size_t i = 0; i < n; i += 64) ep(e, "%s%s", c_string(e, s + i, n - i < 64 ? n - i : 64), i + 64 < n ? "" : ";");
  e->indent--;
  return tag;
}

/* static const onnxc_attr attrs[] with the node's attributes (values in tables beside it);
   returns the expression to pass. */
static const char *emit_attrs(Emit *e, const Node *n) {
  if (!n->n_attrs) return "(const onnxc_attr *)0";
  for (int k = 0; k < n->n_attrs; k++) {
    const Attr *a = &n->attrs[k];
    if (a->type == ATTR_FLOATS && a->n_floats) {
      double *v = arena_alloc(&e->ctx->arena, sizeof(double) * (size_t)a->n_floats);
      for (int i = 0; i < a->n_floats; i++) v[i] = a->floats[i];
      emit_ftab(e, DT_FLOAT, fmt(e, "attr%d_floats", k), v, a->n_floats);
    } else if (a->type == ATTR_INTS && a->n_ints) {
      i64_table(e, fmt(e, "attr%d_ints", k), a->ints, a->n_ints);
    } else if (a->type == ATTR_STRINGS && a->n_strings) {
      const char **items = arena_alloc(&e->ctx->arena, sizeof(char *) * (size_t)a->n_strings);
      for (int i = 0; i < a->n_strings; i++)
        items[i] = string_expr(e, fmt(e, "attr%d_s%d", k, i), a->strings[i], strlen(a->strings[i]));
      ep(e, "static const char *const attr%d_strings[%d] = {", k, a->n_strings);
      for (int i = 0; i < a->n_strings; i++) ep(e, "%s%s", items[i], i + 1 < a->n_strings ? "," : "");
      ep(e, "};");
    }
  }
  const char **names = arena_alloc(&e->ctx->arena, sizeof(char *) * (size_t)n->n_attrs);
  const char **strs = arena_alloc(&e->ctx->arena, sizeof(char *) * (size_t)n->n_attrs);
  for (int k = 0; k < n->n_attrs; k++) {
    const Attr *a = &n->attrs[k];
    names[k] = string_expr(e, fmt(e, "attr%d_name", k), a->name, strlen(a->name));
    strs[k] = a->type == ATTR_STRING ? string_expr(e, fmt(e, "attr%d_s", k), a->s, a->slen) : "0";
  }
  ep(e, "static const onnxc_attr attrs[%d] = {", n->n_attrs);
  for (int k = 0; k < n->n_attrs; k++) {
    const Attr *a = &n->attrs[k];
    int cnt = a->type == ATTR_STRING ? (int)a->slen : a->type == ATTR_FLOATS ? a->n_floats
              : a->type == ATTR_INTS ? a->n_ints : a->type == ATTR_STRINGS ? a->n_strings : 1;
    ep(e, "{%s, %d, %d, %s, %s, %s, %s, %s, %s}%s", names[k], a->type, cnt,
       c_lit(e, DT_FLOAT, a->type == ATTR_FLOAT ? a->f : 0), c_lit_i(e, DT_INT64, a->type == ATTR_INT ? a->i : 0),
       strs[k],
       a->type == ATTR_FLOATS && a->n_floats ? fmt(e, "attr%d_floats", k) : "0",
       a->type == ATTR_INTS && a->n_ints ? fmt(e, "attr%d_ints", k) : "0",
       a->type == ATTR_STRINGS && a->n_strings ? fmt(e, "attr%d_strings", k) : "0", k + 1 < n->n_attrs ? "," : "");
  }
  ep(e, "};");
  return "attrs";
}

/* Dims tables din<k> / dout<k> for the views of cn. */
static void emit_dims(Emit *e, const CustomNode *cn) {
  for (int k = 0; k < cn->n_in; k++) i64_table(e, fmt(e, "din%d", k), cn->in[k].dims, cn->in[k].rank);
  for (int k = 0; k < cn->n_out; k++) i64_table(e, fmt(e, "dout%d", k), cn->out[k].dims, cn->out[k].rank);
}

/* onnxc_tensor_view NAME[cnt] = {...}: shapes[k] with data `ptr(k)` (NULL when absent). */
static const char *emit_views(Emit *e, const char *name, const CustomShape *shapes, int cnt, const char *dims,
                              const char *const *ptrs, bool as_const) {
  if (!cnt) return as_const ? "(const onnxc_tensor_view *)0" : "(onnxc_tensor_view *)0";
  ep(e, "%sonnxc_tensor_view %s[%d] = {", as_const ? "const " : "", name, cnt);
  for (int k = 0; k < cnt; k++)
    ep(e, "{%d, %d, %s%d, %s}%s", shapes[k].dtype, shapes[k].rank, dims, k, ptrs[k] ? ptrs[k] : "(void *)0",
       k + 1 < cnt ? "," : "");
  ep(e, "};");
  return name;
}

static const char *ptr(Emit *e, const Node *n, bool is_in, int k) {
  if (is_in) return k < n->n_inputs && n->inputs[k] ? fmt(e, "(void *)X%d", k) : NULL;
  return k < n->n_outputs && n->outputs[k] ? fmt(e, "(void *)Y%d", k) : NULL;
}

static const char *workspace(Emit *e, const CustomOp *op) {
  return op->workspace ? fmt(e, "(void *)W, (size_t)%s", c_lit_i(e, DT_INT64, op->workspace)) : "(void *)0, 0";
}

static void custom_emit(Emit *e, Node *n) {
  const CustomNode *cn = n->priv;
  emit_dims(e, cn);
  const char *attrs = emit_attrs(e, n);
  const char **pi = arena_alloc(&e->ctx->arena, sizeof(char *) * (size_t)(cn->n_in + 1));
  const char **po = arena_alloc(&e->ctx->arena, sizeof(char *) * (size_t)cn->n_out);
  for (int k = 0; k < cn->n_in; k++) pi[k] = ptr(e, n, true, k);
  for (int k = 0; k < cn->n_out; k++) po[k] = ptr(e, n, false, k);
  const char *in = emit_views(e, "in", cn->in, cn->n_in, "din", pi, true);
  const char *out = emit_views(e, "out", cn->out, cn->n_out, "dout", po, false);
  ep(e, "return %s_forward(%s, %d, %s, %d, %s, %d, %s);", cn->op->cname, in, cn->n_in, out, cn->n_out, attrs,
     n->n_attrs, workspace(e, cn->op));
}

static void custom_grad_emit(Emit *e, Node *n) {
  const CustomNode *cn = n->priv;
  int ni = cn->n_in, no = cn->n_out;
  emit_dims(e, cn);
  const char *attrs = emit_attrs(e, n);
  const char **p = arena_alloc(&e->ctx->arena, sizeof(char *) * (size_t)(ni + 2 * no + 1));
  for (int k = 0; k < ni + 2 * no; k++) p[k] = ptr(e, n, true, k);
  const char *in = emit_views(e, "in", cn->in, ni, "din", p, true);
  const char *out = emit_views(e, "out", cn->out, no, "dout", p + ni, true);
  const char *dout = emit_views(e, "grad_out", cn->out, no, "dout", p + ni + no, true);
  for (int k = 0; k < ni; k++) p[k] = ptr(e, n, false, k);
  const char *din = emit_views(e, "grad_in", cn->in, ni, "din", p, false);
  ep(e, "return %s_backward(%s, %d, %s, %d, %s, %s, %s, %d, %s);", cn->op->cname, in, ni, out, no, dout, din, attrs,
     n->n_attrs, workspace(e, cn->op));
}

static const OpDef custom_row = {"(custom)", "", 1, ONNXC_MAX_OPSET, OPF_STATUS, custom_infer, NULL, custom_emit,
                                 custom_scratch, "per the --custom-op spec", NULL};
static const OpDef custom_grad_row = {"CustomGrad", GD, 1, ONNXC_MAX_OPSET, OPF_STATUS, custom_grad_infer, NULL,
                                      custom_grad_emit, custom_scratch, "per the --custom-op spec", NULL};

const OpDef *custom_resolve(Ctx *ctx, const Node *n) {
  if (!strcmp(n->domain, GD) && !strcmp(n->op_type, "CustomGrad")) return n->priv ? &custom_grad_row : NULL;
  return *n->domain && find_spec(ctx, n->domain, n->op_type) ? &custom_row : NULL;
}

const CustomOp *custom_op_of(const Node *n) {
  return n->def == &custom_row && n->priv ? ((const CustomNode *)n->priv)->op : NULL;
}

void custom_grad_link(Node *grad, const Node *fwd) {
  CHECK(custom_op_of(fwd));
  grad->priv = fwd->priv;
}

/* ---- declarations in net.h ------------------------------------------------------------------ */

static void collect(Ctx *ctx, Graph *g, bool sub, PtrVec *fwd, PtrVec *bwd) {
  for (int s = 0; s < g->sched.n; s++) {
    Node *n = g->sched.v[s];
    for (int k = 0; k < n->n_attrs; k++)
      if (n->attrs[k].g) collect(ctx, n->attrs[k].g, true, fwd, bwd);
    if (n->def != &custom_row && n->def != &custom_grad_row) continue;
    if (sub) fail_node(ctx, n, "custom ops inside If/Loop/Scan bodies are not supported");
    const CustomOp *op = ((const CustomNode *)n->priv)->op;
    PtrVec *list = n->def == &custom_row ? fwd : bwd;
    bool seen = false;
    for (int i = 0; i < list->n && !seen; i++) seen = list->v[i] == op;
    if (!seen) vec_push(&ctx->arena, list, (void *)op);
  }
}

void custom_emit_decls(Ctx *ctx, Buf *h, Graph *const *graphs, int n_graphs) {
  PtrVec fwd = {0}, bwd = {0};
  for (int i = 0; i < n_graphs; i++) collect(ctx, graphs[i], false, &fwd, &bwd);
  if (!fwd.n && !bwd.n) return;
  buf_puts(h, "#include \"onnxc_custom.h\"\n\n"
              "/* Custom operators: the program provides these functions (ABI: onnxc_custom.h). */\n");
  for (int i = 0; i < fwd.n; i++) {
    const CustomOp *op = fwd.v[i];
    buf_printf(h, "int %s_forward(const onnxc_tensor_view *inputs, int n_inputs,\n"
                  "    onnxc_tensor_view *outputs, int n_outputs, const onnxc_attr *attrs, int n_attrs,\n"
                  "    void *workspace, size_t workspace_bytes); /* %s::%s */\n", op->cname, op->domain, op->op);
  }
  for (int i = 0; i < bwd.n; i++) {
    const CustomOp *op = bwd.v[i];
    buf_printf(h, "int %s_backward(const onnxc_tensor_view *inputs, int n_inputs,\n"
                  "    const onnxc_tensor_view *outputs, int n_outputs, const onnxc_tensor_view *grad_outputs,\n"
                  "    onnxc_tensor_view *grad_inputs, const onnxc_attr *attrs, int n_attrs,\n"
                  "    void *workspace, size_t workspace_bytes); /* %s::%s */\n", op->cname, op->domain, op->op);
  }
  buf_puts(h, "\n");
}
