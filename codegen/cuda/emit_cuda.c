/*
 * emit_cuda.c - the CUDA backend: net.h and net.cu (nvcc) or net.c (host C99 carrying the
 * kernel source for NVRTC) from a scheduled, planned graph.
 *
 * The front end, the schedule and the memory plan are the C backend's (pipeline.c); only the
 * last stage differs.  What runs where:
 *   - weights: host `static const` arrays copied once, at create, into one device block that
 *     also holds the arena of the memory plan (same offsets as the C backend's arena), the
 *     staging buffers of run_host and the dims slots of data-dependent outputs;
 *   - every node is one or more kernel launches (or cuBLAS calls) queued on the context's
 *     stream in schedule order, written as host code in the schedule function:
 *       * ops with a parallel CUDA form (ops_cuda.c: cuBLAS GEMMs, pooling, softmax, ...);
 *       * ops whose C emitter is one elementwise loop nest (OPF_PARALLEL, and the fused
 *         elementwise trees): the C function itself with the nest as a grid-stride loop;
 *       * every other op: its C function (the C backend's code, compiled as CUDA C++ with
 *         __device__) run by a one-thread kernel -- correct, slow, and so every op the C
 *         backend supports runs on the GPU;
 *   - subgraph bodies (If/Loop/Scan) run inside their owner's one-thread kernel; their
 *     constants are __device__ arrays in the device code.
 * The device code is the same text in both forms: nvcc compiles it with the host code in one
 * .cu file; for NVRTC it is embedded as string pieces (each under C99's 4095-character limit
 * for literals) that the runtime joins and hands to NVRTC.
 * The schedule function is what onnxc_cuda_run captures into a CUDA graph after the first run.
 * The output is deterministic: the same model and flags give byte-identical files.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda.h"

#define BLOCK 256
#define PART_MAX 3900 /* characters of one string piece of the NVRTC source */

const char *cu_base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

const char *cu_upper(Arena *a, const char *s) {
  char *u = arena_strdup(a, s);
  for (char *p = u; *p; p++)
    if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
  return u;
}

/* ---- storage expressions and kernels (used by ops_cuda.c too) -------------------------- */

const char *cu_ptr(Cu *cu, Value *v, bool as_const) {
  Value *r = v;
  int64_t extra = 0;
  while (r->alias_of) {
    extra += r->alias_offset;
    r = r->alias_of;
  }
  if (r->data) {
    int64_t off = cu->wconst_off[r->id];
    CHECK(off >= 0);
    cu->uses_weights = true;
    return fmt(&cu->host, "((const %s *)(Wd + %lld))", c_type(v->dtype), (long long)(off + extra));
  }
  if (r->kind == VAL_INTERMEDIATE && !r->is_output) cu->uses_arena = true;
  return top_value_ptr(&cu->host, cu->g, cu->in_names, cu->out_names, "A", v, as_const);
}

const char *cu_arena(Cu *cu, int64_t off) {
  cu->uses_arena = true;
  return fmt(&cu->host, "(A + %lld)", (long long)off);
}

int cu_kernel_open(Cu *cu, const Node *n, const char *tag, const CuArg *a, int na) {
  int k = cu->knames.n;
  Arena *ar = &cu->ctx->arena;
  const char *name = arena_printf(ar, "%s_k%d_%s%s%s", cu->ctx->prefix, k, c_ident(ar, n->name, 24), tag ? "_" : "",
                                  tag ? tag : "");
  vec_push(ar, &cu->knames, (void *)name);
  /* the emulation trampoline's call (tests/cuda/emu: kernels run on the CPU) */
  Buf t = {0};
  buf_printf(&t, "static void %s_emu(void **a) { %s(", name, name);
  for (int i = 0; i < na; i++) buf_printf(&t, "%s*(%s%s*)a[%d]", i ? ", " : "", a[i].type, a[i].type[strlen(a[i].type) - 1] == '*' ? "" : " ", i);
  buf_puts(&t, "); }");
  vec_push(ar, &cu->ktramps, arena_strdup(ar, t.p));
  buf_free(&t);
  Buf b = {0};
  buf_printf(&b, "%s__global__ void %s(", cu->nvrtc ? "extern \"C\" " : "static ", name);
  for (int i = 0; i < na; i++) {
    size_t tl = strlen(a[i].type);
    buf_printf(&b, "%s%s%s%s", i ? ", " : "", a[i].type, tl && a[i].type[tl - 1] == '*' ? "" : " ", a[i].name);
  }
  buf_printf(&b, "%s) {", na ? "" : "void");
  ep(&cu->dev, "%s", b.p);
  buf_free(&b);
  return k;
}

void cu_kernel_close(Cu *cu) {
  ep(&cu->dev, "}");
  ep(&cu->dev, "%s", "");
}

void cu_launch(Cu *cu, int k, int64_t threads, int block, const CuArg *a, int na) {
  Emit *h = &cu->host;
  int64_t grid = (threads + block - 1) / block;
  if (grid < 1) grid = 1;
  if (grid > 65535LL * 32) grid = 65535LL * 32; /* the kernels loop over the rest */
  ep(h, "{");
  for (int i = 0; i < na; i++) ep(h, "%s a%d = %s;", a[i].type, i, a[i].expr);
  if (na) {
    Buf b = {0};
    buf_printf(&b, "void *args[%d] = {", na);
    for (int i = 0; i < na; i++) buf_printf(&b, "%s(void *)&a%d", i ? ", " : "", i);
    buf_puts(&b, "};");
    ep(h, "%s", b.p);
    buf_free(&b);
  } else {
    ep(h, "void **args = 0;");
  }
  ep(h, "ONNXC_CUDA_TRY(onnxc_cuda_launch(R, %d, %lldu, %du, args));", k, (long long)grid, block);
  ep(h, "}");
}

void cu_grid_loop(Emit *e, const char *var, int64_t n) {
  const char *it = n < 2147483647LL ? "int" : "long long";
  ep(e, "for (%s %s = (%s)(blockIdx.x * blockDim.x + threadIdx.x); %s < %lld; %s += (%s)(blockDim.x * gridDim.x)) {", it,
     var, it, var, (long long)n, var, it);
}

/* ---- nodes that run their C function ----------------------------------------------------- */

/* The C function of n, as a device function; returns true when its one loop nest became a
   grid-stride loop (run it with many threads), false when it is serial (one thread). */
static bool emit_device_fn(Cu *cu, Node *n) {
  Emit *d = &cu->dev;
  for (int k = 0; k < n->n_attrs; k++)
    if (n->attrs[k].g) emit_node_fns_of(d, n->attrs[k].g);
  n->fn_id = d->fn_counter++;
  if (n->def->flags & OPF_PARALLEL) {
    Buf tmp = {0}, *saved = d->out;
    d->out = &tmp;
    d->par = true;
    d->par_loops = 0;
    d->par_indep = false;
    d->par_n = 0;
    emit_node_fn_one(d, n);
    d->par = false;
    d->out = saved;
    if (d->par_loops == 1 || (d->par_loops > 1 && d->par_indep)) {
      buf_put(d->out, tmp.p, tmp.len);
      buf_free(&tmp);
      return true;
    }
    buf_free(&tmp);
  }
  emit_node_fn_one(d, n);
  return false;
}

static const char *dims_slot(Cu *cu, Value *v) {
  (void)v;
  return fmt(&cu->host, "(int64_t *)(R->dev + %lld)", (long long)(cu->dims_off + (int64_t)cu->n_dims_slots++ * 8 * ONNXC_MAX_RANK));
}

static void emit_generic(Cu *cu, Node *n) {
  bool par = emit_device_fn(cu, n);
  int64_t threads = par ? cu->dev.par_n : 1;
  int na = 0;
  CuArg *a = arena_alloc(&cu->ctx->arena, sizeof(CuArg) * (size_t)(n->n_inputs + 2 * n->n_outputs + 3));
  Emit *h = &cu->host;
  for (int k = 0; k < n->n_inputs; k++) {
    Value *v = n->inputs[k];
    a[na++] = (CuArg){v ? fmt(h, "const %s *", c_type(v->dtype)) : "const void *", fmt(h, "X%d", k),
                      v ? cu_ptr(cu, v, true) : "(const void *)0"};
  }
  for (int k = 0; k < n->n_outputs; k++) {
    Value *v = n->outputs[k];
    bool used = v && (v->n_consumers > 0 || v->is_output);
    const char *t = v ? fmt(h, "%s *", c_type(v->dtype)) : "void *";
    a[na++] = (CuArg){t, fmt(h, "Y%d", k), used ? cu_ptr(cu, v, false) : fmt(h, "(%s)0", t)};
  }
  for (int k = 0; k < n->n_outputs; k++) {
    Value *v = n->outputs[k];
    if (!v || !v->dynamic) continue;
    a[na++] = (CuArg){"int64_t *", fmt(h, "D%d", k), dims_slot(cu, v)};
  }
  int heap_arg = -1;
  if (n->str_heap) {
    /* the run's string heap (its state in the device block; host C does not know the type) */
    heap_arg = na;
    a[na++] = (CuArg){"void *", "H", "(void *)(R->dev + SHEAP_OFF)"};
    cu->uses_sheap = true;
  }
  a[na++] = (CuArg){"unsigned char *", "W",
                    n->scratch_bytes > 0 ? cu_arena(cu, n->scratch_offset) : "(unsigned char *)0"};
  /* a function that returns a status (ImageDecoder, OptionalGetElement, a subgraph running
     one): the first non-zero status of a run goes to the device status word */
  bool status = node_returns_status(n);
  if (status) {
    a[na++] = (CuArg){"int *", "S", "(int *)(R->dev + STATUS_OFF)"};
    cu->uses_status = true;
  }
  int k = cu_kernel_open(cu, n, par ? NULL : "serial", a, na);
  Buf call = {0};
  buf_printf(&call, "%s%s(", status ? "const int st_ = " : "", node_fn_name(&cu->dev, n));
  for (int i = 0; i < na - (status ? 1 : 0); i++)
    buf_printf(&call, "%s%s%s", i ? ", " : "", i == heap_arg ? "(onnxc_sheap *)" : "", a[i].name);
  buf_puts(&call, ");");
  ep(&cu->dev, "%s", call.p);
  if (status) ep(&cu->dev, "if (st_) atomicCAS(S, 0, st_);");
  buf_free(&call);
  cu_kernel_close(cu);
  ep(h, "/* %s '%s' (%s) */", n->op_type, n->name, par ? "parallel loop" : "one thread");
  cu_launch(cu, k, threads, par ? BLOCK : 1, a, na);
}

/* ---- constants ---------------------------------------------------------------------------- */

typedef struct HostConst {
  const char *name;
  int64_t off, bytes;
  /* a string tensor: n addresses at off, then its strings (blob: blob_bytes at off + blob_off);
     name is the blob, offs the array of the strings' offsets in it */
  bool str;
  const char *offs;
  int64_t n, blob_off, blob_bytes;
} HostConst;

/* The host arrays of string constant v: its strings' bytes (each NUL-ended) and offsets. */
static void emit_string_const(Emit *e, Value *v, HostConst *hc) {
  int64_t n = value_numel(v), at = 0;
  const char **sv = (const char **)v->data;
  buf_printf(e->out, "/* %s string%s: its strings, then their offsets */\nstatic const unsigned char %s[] = {",
             v->name, shape_str(&e->ctx->arena, v), hc->name);
  for (int64_t i = 0; i < n; i++) {
    for (const unsigned char *p = (const unsigned char *)sv[i];; p++) {
      buf_printf(e->out, "%s%s%u", at ? "," : "", at % 24 == 0 ? "\n  " : "", (unsigned)*p);
      at++;
      if (!*p) break;
    }
  }
  buf_puts(e->out, at ? "\n};\n" : "0};\n");
  buf_printf(e->out, "static const int64_t %s[] = {", hc->offs);
  int64_t o = 0;
  for (int64_t i = 0; i < n; i++) {
    buf_printf(e->out, "%s%s%lld", i ? "," : "", i % 16 == 0 ? "\n  " : "", (long long)o);
    o += (int64_t)strlen(sv[i]) + 1;
  }
  buf_puts(e->out, n ? "\n};\n" : "0};\n");
  hc->str = true;
  hc->n = n;
  hc->blob_off = (n * (int64_t)sizeof(char *) + 15) / 16 * 16;
  hc->blob_bytes = at;
}

/* Constants read inside subgraphs become __device__ arrays (their cname), recursively. */
static void emit_device_consts(Cu *cu, Graph *g, int *nconst) {
  for (int s = 0; s < g->sched.n; s++) {
    Node *n = g->sched.v[s];
    if (n->elided) continue;
    for (int k = 0; k < n->n_attrs; k++) {
      Graph *sub = n->attrs[k].g;
      if (!sub) continue;
      for (int t = 0; t < sub->sched.n; t++) {
        Node *m = sub->sched.v[t];
        if (m->elided) continue;
        for (int j = 0; j < m->n_inputs; j++) {
          Value *v = m->inputs[j];
          if (!v || !v->data || (v->cname && !strncmp(v->cname, "d", 1))) continue;
          v->cname = arena_printf(&cu->ctx->arena, "d%d_%s", (*nconst)++, c_ident(&cu->ctx->arena, v->name, 32));
          emit_c_const(&cu->dev, v);
        }
        /* a subgraph's constant outputs are read by its owner's code */
      }
      for (int i = 0; i < sub->outputs.n; i++) {
        Value *v = sub->outputs.v[i];
        if (!v->data || (v->cname && !strncmp(v->cname, "d", 1))) continue;
        v->cname = arena_printf(&cu->ctx->arena, "d%d_%s", (*nconst)++, c_ident(&cu->ctx->arena, v->name, 32));
        emit_c_const(&cu->dev, v);
      }
      emit_device_consts(cu, sub, nconst);
    }
  }
}

/* Host arrays of the top graph's constants (read by its nodes or returned), each with a
   256-byte aligned slot in the device weights. */
static int host_consts(Cu *cu, Emit *he, HostConst **out, int64_t *wbytes) {
  Graph *g = cu->g;
  Arena *a = &cu->ctx->arena;
  int cap = 16, n = 0;
  HostConst *hc = arena_alloc(a, sizeof *hc * (size_t)cap);
  int64_t off = 0;
  for (int pass = 0; pass < 2; pass++) {
    int cnt = pass ? g->outputs.n : g->sched.n;
    for (int s = 0; s < cnt; s++) {
      Node *nd = pass ? NULL : g->sched.v[s];
      if (nd && nd->elided) continue;
      int nin = nd ? nd->n_inputs : 1;
      for (int k = 0; k < nin; k++) {
        Value *v = nd ? nd->inputs[k] : g->outputs.v[s];
        if (!v || !v->data || cu->wconst_off[v->id] >= 0) continue;
        if (n == cap) {
          HostConst *m = arena_alloc(a, sizeof *hc * (size_t)(cap * 2));
          memcpy(m, hc, sizeof *hc * (size_t)n);
          hc = m;
          cap *= 2;
        }
        memset(&hc[n], 0, sizeof hc[n]);
        hc[n].off = off;
        if (v->dtype == DT_STRING) {
          hc[n].name = arena_printf(a, "w%d_%s", n, c_ident(a, v->name, 32));
          hc[n].offs = arena_printf(a, "w%d_offs", n);
          emit_string_const(he, v, &hc[n]);
          hc[n].bytes = hc[n].blob_off + hc[n].blob_bytes;
        } else {
          const char *saved = v->cname;
          v->cname = arena_printf(a, "w%d_%s", n, c_ident(a, v->name, 32));
          emit_c_const(he, v);
          hc[n].name = v->cname;
          v->cname = saved;
          hc[n].bytes = value_bytes(v);
        }
        cu->wconst_off[v->id] = off;
        off += (hc[n].bytes + 255) / 256 * 256;
        n++;
      }
    }
  }
  *out = hc;
  *wbytes = off;
  return n;
}

/* ---- the NVRTC source as C string pieces -------------------------------------------------- */

static void put_escaped_line(Buf *b, const char *p, size_t n) {
  buf_puts(b, "\"");
  for (size_t i = 0; i < n; i++) {
    char c = p[i];
    if (c == '"' || c == '\\') buf_printf(b, "\\%c", c);
    else if (c == '\t') buf_puts(b, "\\t");
    else if ((unsigned char)c < 32 || (unsigned char)c >= 127) buf_printf(b, "\\%03o", (unsigned char)c);
    else buf_put(b, &c, 1);
  }
  buf_puts(b, "\\n\"\n");
}

/* Writes `static const char *const P_parts[]`: the source in pieces of whole lines, each one
   string literal under C99's 4095-character limit; the runtime joins them.  Returns the
   number of pieces. */
int cu_source_parts(Ctx *ctx, Buf *cb, const Buf *src, const char *P) {
  int np = 0;
  size_t at = 0;
  buf_printf(cb, "/* The kernel source, compiled by NVRTC at create (the pieces joined). */\n");
  buf_printf(cb, "static const char *const %s_parts[] = {\n", P);
  while (at < src->len) {
    size_t len = 0, end = at;
    while (end < src->len) {
      const char *nl = memchr(src->p + end, '\n', src->len - end);
      size_t line = nl ? (size_t)(nl - (src->p + end)) + 1 : src->len - end;
      size_t esc = line + 2;
      for (size_t i = end; i < end + line; i++)
        if (src->p[i] == '"' || src->p[i] == '\\' || src->p[i] == '\t') esc++;
        else if ((unsigned char)src->p[i] < 32 || (unsigned char)src->p[i] >= 127) esc += 3;
      if (esc > PART_MAX) fail(ctx, "a line of the kernel source is longer than %d characters", PART_MAX);
      if (len + esc > PART_MAX && len > 0) break;
      len += esc;
      end += line;
    }
    buf_printf(cb, "  /* piece %d */\n", np);
    for (size_t p = at; p < end;) {
      const char *nl = memchr(src->p + p, '\n', end - p);
      size_t line = nl ? (size_t)(nl - (src->p + p)) : end - p;
      put_escaped_line(cb, src->p + p, line);
      p += line + (nl ? 1 : 0);
    }
    buf_puts(cb, ",\n");
    np++;
    at = end;
  }
  if (!np) buf_puts(cb, "  \"\",\n");
  buf_puts(cb, "};\n\n");
  return np ? np : 1;
}

uint64_t cu_fnv1a(const char *p, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)p[i];
    h *= 1099511628211ULL;
  }
  return h;
}

/* Bytes of the strings the nodes' attributes hold (with their NULs): what the device code may
   hold as literals that string outputs point at (LabelEncoder's values, ...). */
static int64_t attr_string_bytes(const Graph *g) {
  int64_t b = 0;
  for (int s = 0; s < g->sched.n; s++) {
    const Node *n = g->sched.v[s];
    for (int k = 0; k < n->n_attrs; k++) {
      const Attr *a = &n->attrs[k];
      if (a->s) b += (int64_t)a->slen + 1;
      for (int i = 0; i < a->n_strings; i++) b += (int64_t)strlen(a->strings[i]) + 1;
      if (a->t && a->t->dtype == DT_STRING && a->t->data)
        for (int64_t i = 0; i < value_numel(a->t); i++) b += (int64_t)strlen(((const char **)a->t->data)[i]) + 1;
    }
  }
  return b;
}

/* ---- the model ---------------------------------------------------------------------------- */

static const char *ctype_or_void(int dt) { return c_type(dt) ? c_type(dt) : "void"; }

/* Sequences and optionals (compiler/ports.c): the CUDA entry points take and return their
   flat tensors -- a sequence as one tensor per item (NAME[k]), an optional as its flag
   (NAME.has_value, one bool) and its content (NAME.value, or the items).  OptionalGetElement of
   an empty optional reports ONNXC_ERR_EMPTY through the status word. */

void emit_cuda_model(Ctx *ctx, Graph *g, const char *c_path, const char *h_path) {
  Arena *a = &ctx->arena;
  const char *P = ctx->prefix, *UP = cu_upper(a, P);
  Cu cu = {.ctx = ctx, .g = g, .nvrtc = ctx->target == TARGET_CUDA_NVRTC};
  Buf *db = &ctx->emit_bufs[2], *hostb = &ctx->emit_bufs[3];
  cu.dev = (Emit){.ctx = ctx, .out = db, .cuda = true};
  cu.host = (Emit){.ctx = ctx, .out = hostb, .indent = 1};
  cu.wconst_off = arena_alloc(a, sizeof(int64_t) * (size_t)(g->values.n + 1));
  for (int i = 0; i < g->values.n; i++) cu.wconst_off[i] = -1;
  cu.in_names = arena_alloc(a, sizeof(char *) * (size_t)(g->inputs.n + 1));
  cu.out_names = arena_alloc(a, sizeof(char *) * (size_t)(g->outputs.n + 1));
  for (int i = 0; i < g->inputs.n; i++) {
    Value *v = g->inputs.v[i];
    cu.in_names[i] = arena_printf(a, "in%d_%s", i, c_ident(a, v->name, 32));
  }
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    cu.out_names[i] = arena_printf(a, "out%d_%s", i, c_ident(a, v->name, 32));
  }

  /* ---- device code ---- */
  emit_templates_reset();
  buf_printf(db, "/* ---- device code%s ---- */\n", cu.nvrtc ? " (NVRTC)" : "");
  emit_template_text(&cu.dev, "common");
  buf_puts(db, "\n");
  size_t tpl_at = db->len;
  int ndc = 0;
  cu.dev.const_qual = "__device__ ";
  emit_device_consts(&cu, g, &ndc);
  cu.dev.const_qual = NULL;
  if (ndc) buf_puts(db, "\n");

  /* ---- host constants ---- */
  Buf *wb = &ctx->emit_bufs[4];
  Emit we = {.ctx = ctx, .out = wb};
  HostConst *hc;
  int64_t wbytes;
  int nhc = host_consts(&cu, &we, &hc, &wbytes);

  /* ---- device layout: weights | arena | staging (inputs, outputs) | dims slots ---- */
  int64_t arena_off = wbytes, arena_bytes = (g->arena_bytes + 255) / 256 * 256;
  int64_t stage_off = arena_off + arena_bytes, off = stage_off;
  int64_t *in_stage = arena_alloc(a, sizeof(int64_t) * (size_t)(g->inputs.n + 1));
  int64_t *out_stage = arena_alloc(a, sizeof(int64_t) * (size_t)(g->outputs.n + 1));
  for (int i = 0; i < g->inputs.n; i++) {
    in_stage[i] = off;
    off += (value_bytes(g->inputs.v[i]) + 255) / 256 * 256;
  }
  for (int i = 0; i < g->outputs.n; i++) {
    out_stage[i] = off;
    off += (value_bytes(g->outputs.v[i]) + 255) / 256 * 256;
  }
  /* run_host's string inputs: their strings' bytes (65 per element, or --string-bytes) */
  int64_t *sin_off = arena_alloc(a, sizeof(int64_t) * (size_t)(g->inputs.n + 1));
  int64_t *sin_bytes = arena_alloc(a, sizeof(int64_t) * (size_t)(g->inputs.n + 1));
  int64_t sout_elems = 0;
  for (int i = 0; i < g->inputs.n; i++) {
    Value *v = g->inputs.v[i];
    sin_off[i] = sin_bytes[i] = 0;
    if (v->dtype != DT_STRING) continue;
    sin_bytes[i] = ctx->string_bytes >= 0 ? ctx->string_bytes : value_numel(v) * 65;
    sin_bytes[i] = (sin_bytes[i] + 15) / 16 * 16;
    if (sin_bytes[i] < 16) sin_bytes[i] = 16;
    sin_off[i] = off;
    off += (sin_bytes[i] + 255) / 256 * 256;
  }
  for (int i = 0; i < g->outputs.n; i++)
    if (((Value *)g->outputs.v[i])->dtype == DT_STRING) sout_elems += value_numel(g->outputs.v[i]);
  cu.dims_off = off;

  /* ---- the schedule: one launch (or cuBLAS call) sequence per node ---- */
  Emit *h = &cu.host;
  int64_t *out_dims_slot = arena_alloc(a, sizeof(int64_t) * (size_t)(g->outputs.n + 1));
  for (int i = 0; i < g->outputs.n; i++) out_dims_slot[i] = -1;
  if (g->has_heap) {
    /* the run's string heap (the arena's last heap_bytes), empty at the start of every run */
    Node *first = NULL;
    for (int s = 0; s < g->sched.n && !first; s++)
      if (!((Node *)g->sched.v[s])->elided && ((Node *)g->sched.v[s])->str_heap) first = g->sched.v[s];
    if (first) {
      CuArg ha[2] = {{"void *", "Hv", "(void *)(R->dev + SHEAP_OFF)"},
                     {"unsigned char *", "P", cu_arena(&cu, g->heap_offset)}};
      int k = cu_kernel_open(&cu, first, "heap", ha, 2);
      ep(&cu.dev, "onnxc_sheap *H = (onnxc_sheap *)Hv;");
      ep(&cu.dev, "H->p = (char *)P;");
      ep(&cu.dev, "H->used = 0;");
      ep(&cu.dev, "H->cap = %lld;", (long long)g->heap_bytes);
      cu_kernel_close(&cu);
      ep(h, "/* the string heap: empty */");
      cu_launch(&cu, k, 1, 1, ha, 2);
      cu.uses_sheap = true;
    }
  }
  for (int s = 0; s < g->sched.n; s++) {
    Node *n = g->sched.v[s];
    if (n->elided) continue;
    bool done = false;
    for (int i = 0; i < cu.done.n && !done; i++) done = cu.done.v[i] == n;
    if (done) continue;
    int first_slot = cu.n_dims_slots;
    if (!cu_emit_op(&cu, n)) emit_generic(&cu, n);
    /* the dims slots this node got, in output order, for net_cuda_output_dims */
    int slot = first_slot;
    for (int k = 0; k < n->n_outputs; k++) {
      Value *v = n->outputs[k];
      if (!v || !v->dynamic) continue;
      for (int i = 0; i < g->outputs.n; i++)
        if (g->outputs.v[i] == v && out_dims_slot[i] < 0) out_dims_slot[i] = cu.dims_off + (int64_t)slot * 8 * ONNXC_MAX_RANK;
      slot++;
    }
  }
  /* outputs no node writes: constants, pass-through inputs, duplicates */
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    bool written = v->producer && !v->producer->dead && !v->data;
    const char *src = NULL;
    for (int j = 0; j < i; j++)
      if (g->outputs.v[j] == v) {
        written = false;
        if (!src) src = cu.out_names[j];
      }
    if (written || value_bytes(v) == 0) continue;
    if (!src) src = cu_ptr(&cu, v, true);
    ep(h, "ONNXC_CUDA_TRY(onnxc_cuda_copy(R, %s, %s, %lld, 2));", cu.out_names[i], src, (long long)value_bytes(v));
  }
  /* the status word after the dims slots */
  int64_t status_off = cu.dims_off + (int64_t)(cu.n_dims_slots > 0 ? cu.n_dims_slots : 1) * 8 * ONNXC_MAX_RANK;
  int64_t sheap_off = status_off + 16, dev_bytes = cu.uses_sheap ? sheap_off + 32 : status_off + 8;
  /* string outputs: the kernel that fetches a string the device code holds as a literal, and
     its 256-byte scratch */
  int fetch_k = -1;
  int64_t fetch_off = (dev_bytes + 15) / 16 * 16;
  if (sout_elems && g->sched.n > 0) {
    CuArg fa[3] = {{"const char *", "src", "0"}, {"char *", "dst", "0"}, {"long long", "cap", "0"}};
    fetch_k = cu_kernel_open(&cu, g->sched.v[0], "sfetch", fa, 3);
    ep(&cu.dev, "long long i;");
    ep(&cu.dev, "for (i = 0; i < cap; i++) {");
    ep(&cu.dev, "  dst[i] = src[i];");
    ep(&cu.dev, "  if (!src[i]) return;");
    ep(&cu.dev, "}");
    cu_kernel_close(&cu);
    dev_bytes = fetch_off + 256;
  }
  emit_templates_splice(&cu.dev, db, tpl_at);
  int nk = cu.knames.n;
  /* the JPEG 2000 decoder takes NVVM many minutes unless it optimizes less (image_jp2.h) */
  const char *fast = db->p && strstr(db->p, "onnxc_img_jp2(") ? "--Ofast-compile=min" : NULL;

  /* ---- header ---- */
  Buf *hb = &ctx->emit_bufs[1];
  const char *model_file = cu_base_name(ctx->file);
  buf_printf(hb, "/* Generated by onnxc %s from %s (--target %s). Do not edit. */\n", ONNXC_VERSION, model_file,
             cu.nvrtc ? "cuda-nvrtc" : "cuda");
  buf_printf(hb, "#ifndef %s_H\n#define %s_H\n\n#include <stdint.h>\n#include \"onnxc_rt_cuda.h\"\n\n", UP, UP);
  buf_printf(hb, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  buf_printf(hb, "/* Device memory of one context: arena of the memory plan, weights, and all of it. */\n");
  buf_printf(hb, "#define %s_ARENA_BYTES %lld\n#define %s_WEIGHTS_BYTES %lld\n#define %s_DEVICE_BYTES %lld\n\n", UP,
             (long long)g->arena_bytes, UP, (long long)wbytes, UP, (long long)dev_bytes);
  buf_printf(hb, "typedef struct %s_cuda %s_cuda;\n\n", P, P);
  buf_printf(hb, "/* See onnxc_rt_cuda.h.  On failure *ctx may still be set: net_cuda_error tells why;\n"
                 "   destroy it.  opt may be NULL (device 0, CUDA graphs on, no TF32, no cache). */\n");
  buf_printf(hb, "int %s_cuda_create(%s_cuda **ctx, const onnxc_cuda_options *opt);\n", P, P);
  buf_printf(hb, "void %s_cuda_destroy(%s_cuda *ctx);\n", P, P);
  Buf params = {0}, args = {0};
  for (int i = 0; i < g->inputs.n; i++) {
    Value *v = g->inputs.v[i];
    buf_printf(&params, ",\n    const %s *%s /* %s %s%s */", ctype_or_void(v->dtype), cu.in_names[i], v->name,
               dtype_name(v->dtype), shape_str(a, v));
    buf_printf(&args, "%s%s", i ? ", " : "", cu.in_names[i]);
  }
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    buf_printf(&params, ",\n    %s *%s /* %s %s%s%s */", ctype_or_void(v->dtype), cu.out_names[i], v->name,
               dtype_name(v->dtype), shape_str(a, v), v->dynamic ? ", data-dependent: bound" : "");
  }
  const char *pp = params.p ? params.p : "";
  buf_printf(hb, "/* Device pointers; queued on the context's stream (returns before the work is done). */\n");
  buf_printf(hb, "int %s_cuda_run(%s_cuda *ctx%s);\n", P, P, pp);
  buf_printf(hb, "/* Host pointers; copies in, runs, copies out, waits. */\n");
  buf_printf(hb, "int %s_cuda_run_host(%s_cuda *ctx%s);\n", P, P, pp);
  buf_printf(hb, "int %s_cuda_sync(%s_cuda *ctx);\n", P, P);
  buf_printf(hb, "/* Dims of output i after the last run (waits for it). */\n");
  buf_printf(hb, "int %s_cuda_output_dims(%s_cuda *ctx, int i, int64_t *dims);\n", P, P);
  buf_printf(hb, "void *%s_cuda_stream(%s_cuda *ctx);\n", P, P);
  buf_printf(hb, "const char *%s_cuda_error(%s_cuda *ctx);\n\n", P, P);
  buf_printf(hb, "extern const onnxc_cuda_model %s_cuda_model;\n\n", P);
  buf_printf(hb, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
  emit_write_file(ctx, h_path, hb);

  /* ---- the file ---- */
  Buf *cb = &ctx->emit_bufs[0];
  buf_printf(cb, "/* Generated by onnxc %s from %s (--target %s). Do not edit. */\n", ONNXC_VERSION, model_file,
             cu.nvrtc ? "cuda-nvrtc" : "cuda");
  if (fast && !cu.nvrtc) buf_printf(cb, "/* onnxc-nvcc-flags: %s (compile this file with it: the JPEG 2000 decoder) */\n", fast);
  buf_printf(cb, "#include \"%s\"\n\n", cu_base_name(h_path));
  if (cu.nvrtc) buf_puts(cb, "#include <math.h> /* INFINITY, NAN in the weights */\n\n");
  char hash[32];
  snprintf(hash, sizeof hash, "%016llx", (unsigned long long)cu_fnv1a(db->p ? db->p : "", db->len));
  int nparts = 0;
  if (cu.nvrtc) {
    nparts = cu_source_parts(ctx, cb, db, P);
  } else {
    buf_put(cb, db->p ? db->p : "", db->len);
    buf_puts(cb, "/* ---- host code ---- */\n\n");
  }
  if (wb->len) {
    buf_puts(cb, "/* weights (copied to the device at create) */\n");
    buf_put(cb, wb->p, wb->len);
    buf_puts(cb, "\n");
  }
  buf_printf(cb, "#define ARENA_OFF %lld\n#define STATUS_OFF %lld\n#define DEVICE_BYTES %lld\n", (long long)arena_off,
             (long long)status_off, (long long)dev_bytes);
  if (cu.uses_sheap) buf_printf(cb, "#define SHEAP_OFF %lld /* the string heap's state (onnxc_sheap) */\n", (long long)sheap_off);
  buf_puts(cb, "\n");
  buf_printf(cb, "struct %s_cuda {\n  onnxc_cuda_rt rt;\n  const void *kernels[%d];\n"
                 "  int status; /* the last run's status word (the context is pinned memory) */\n", P, nk ? nk : 1);
  /* run_host's string tensors: inputs packed here and copied over, outputs' strings mirrored */
  for (int i = 0; i < g->inputs.n; i++)
    if (sin_bytes[i])
      buf_printf(cb, "  char sin%d[%lld];\n  onnxc_string sptr%d[%lld];\n", i, (long long)sin_bytes[i], i,
                 (long long)(value_numel(g->inputs.v[i]) ? value_numel(g->inputs.v[i]) : 1));
  /* the pool of strings fetched from the device code's literals: each distinct one once (up to
     64 of them; onnxc_rt_cuda_str.c), and room for short ones */
  int64_t spool = sout_elems ? 16 * sout_elems + 256 + attr_string_bytes(g) : 0;
  if (sout_elems) {
    if (g->has_heap) buf_printf(cb, "  char sheap[%lld];\n", (long long)(g->heap_bytes ? g->heap_bytes : 1));
    buf_printf(cb, "  char spool[%lld];\n  size_t spool_used;\n", (long long)spool);
  }
  buf_printf(cb, "};\n\n");
  buf_printf(cb, "static const char *const %s_knames[] = {", P);
  for (int i = 0; i < nk; i++) buf_printf(cb, "%s\n  \"%s\"", i ? "," : "", (const char *)cu.knames.v[i]);
  buf_printf(cb, "%s};\n", nk ? "\n" : "0");
  if (!cu.nvrtc) {
    buf_printf(cb, "#ifdef ONNXC_CUDA_EMULATE /* tests/cuda/emu: the kernels run on the CPU */\n");
    for (int i = 0; i < nk; i++) buf_printf(cb, "%s\n", (const char *)cu.ktramps.v[i]);
    buf_printf(cb, "#define ONNXC_KFN(k) (const void *)k##_emu\n#else\n#define ONNXC_KFN(k) (const void *)k\n#endif\n");
    buf_printf(cb, "static const void *const %s_kfns[] = {", P);
    for (int i = 0; i < nk; i++) buf_printf(cb, "%s\n  ONNXC_KFN(%s)", i ? "," : "", (const char *)cu.knames.v[i]);
    buf_printf(cb, "%s};\n", nk ? "\n" : "0");
    buf_printf(cb, "static const onnxc_cuda_kernels %s_kernels = {%d, %s_knames, %s_kfns, 0, 0, 0, 0};\n\n", P, nk, P, P);
  } else {
    buf_printf(cb, "static const onnxc_cuda_kernels %s_kernels = {%d, %s_knames, 0, %d, %s_parts, \"%s\", %s};\n\n", P,
               nk, P, nparts, P, hash, fast ? fmt(&cu.host, "\"%s\"", fast) : "0");
  }
  /* the schedule */
  buf_printf(cb, "/* The schedule, in order (captured into a CUDA graph after the first run). */\n");
  buf_printf(cb, "static int %s_schedule(void *self, const void *const *in, void *const *out) {\n", P);
  buf_printf(cb, "  %s_cuda *c = (%s_cuda *)self;\n  onnxc_cuda_rt *R = &c->rt;\n", P, P);
  if (cu.uses_arena) buf_printf(cb, "  unsigned char *A = R->dev + ARENA_OFF;\n");
  if (cu.uses_weights) buf_printf(cb, "  const unsigned char *Wd = R->dev;\n");
  buf_printf(cb, "  (void)R;\n  (void)in;\n  (void)out;\n");
  for (int i = 0; i < g->inputs.n; i++) {
    Value *v = g->inputs.v[i];
    buf_printf(cb, "  const %s *%s = (const %s *)in[%d];\n  (void)%s;\n", ctype_or_void(v->dtype), cu.in_names[i],
               ctype_or_void(v->dtype), i, cu.in_names[i]);
  }
  for (int i = 0; i < g->outputs.n; i++) {
    Value *v = g->outputs.v[i];
    buf_printf(cb, "  %s *%s = (%s *)out[%d];\n  (void)%s;\n", ctype_or_void(v->dtype), cu.out_names[i],
               ctype_or_void(v->dtype), i, cu.out_names[i]);
  }
  if (cu.uses_status) buf_printf(cb, "  ONNXC_CUDA_TRY(onnxc_cuda_zero(R, R->dev + STATUS_OFF, sizeof(int)));\n");
  if (hostb->len) buf_put(cb, hostb->p, hostb->len);
  if (cu.uses_status) buf_printf(cb, "  ONNXC_CUDA_TRY(onnxc_cuda_copy(R, &c->status, R->dev + STATUS_OFF, sizeof(int), 1));\n");
  buf_printf(cb, "  return ONNXC_OK;\n}\n\n");
  /* create / destroy */
  buf_printf(cb, "int %s_cuda_create(%s_cuda **ctx, const onnxc_cuda_options *opt) {\n", P, P);
  buf_printf(cb, "  %s_cuda *c;\n  int st;\n  if (!ctx) return ONNXC_ERR_NULL;\n  *ctx = 0;\n", P);
  buf_printf(cb, "  st = onnxc_cuda_host_alloc((void **)&c, sizeof *c);\n  if (st != ONNXC_OK) return st;\n  *ctx = c;\n");
  buf_printf(cb, "  st = onnxc_cuda_rt_init(&c->rt, opt, &%s_kernels, c->kernels, DEVICE_BYTES);\n", P);
  buf_printf(cb, "  if (st != ONNXC_OK) return st;\n");
  for (int i = 0; i < nhc; i++) {
    if (hc[i].str)
      buf_printf(cb, "  ONNXC_CUDA_TRY(onnxc_cuda_strings_const(&c->rt, c->rt.dev + %lld, c->rt.dev + %lld, (const char *)%s, %lld, %s, %lld));\n",
                 (long long)hc[i].off, (long long)(hc[i].off + hc[i].blob_off), hc[i].name, (long long)hc[i].blob_bytes,
                 hc[i].offs, (long long)hc[i].n);
    else
      buf_printf(cb, "  ONNXC_CUDA_TRY(onnxc_cuda_copy(&c->rt, c->rt.dev + %lld, %s, %lld, 0));\n", (long long)hc[i].off,
                 hc[i].name, (long long)hc[i].bytes);
  }
  buf_printf(cb, "  return onnxc_cuda_sync(&c->rt);\n}\n\n");
  buf_printf(cb, "void %s_cuda_destroy(%s_cuda *ctx) {\n  if (!ctx) return;\n  onnxc_cuda_rt_free(&ctx->rt);\n"
                 "  onnxc_cuda_host_free(ctx);\n}\n\n", P, P);
  /* runs through the IO arrays */
  int nin = g->inputs.n, nout = g->outputs.n;
  buf_printf(cb, "static int %s_run_io(void *ctx, const void *const *in, void *const *out) {\n", P);
  buf_printf(cb, "  %s_cuda *c = (%s_cuda *)ctx;\n  (void)in;\n  (void)out;\n", P, P);
  buf_printf(cb, "  if (!c || !c->rt.dev) return ONNXC_ERR_NULL;\n");
  for (int i = 0; i < nin; i++) buf_printf(cb, "  if (!in[%d]) return ONNXC_ERR_NULL;\n", i);
  for (int i = 0; i < nout; i++) buf_printf(cb, "  if (!out[%d]) return ONNXC_ERR_NULL;\n", i);
  buf_printf(cb, "  return onnxc_cuda_run(&c->rt, %s_schedule, c, in, %d, out, %d);\n}\n\n", P, nin, nout);
  buf_printf(cb, "static int %s_run_host_io(void *ctx, const void *const *in, void *const *out) {\n", P);
  buf_printf(cb, "  %s_cuda *c = (%s_cuda *)ctx;\n  const void *din[%d] = {0};\n  void *dout[%d] = {0};\n", P, P, nin ? nin : 1, nout ? nout : 1);
  buf_printf(cb, "  (void)in;\n  (void)out;\n");
  buf_printf(cb, "  if (!c || !c->rt.dev) return ONNXC_ERR_NULL;\n");
  for (int i = 0; i < nin; i++) {
    buf_printf(cb, "  if (!in[%d]) return ONNXC_ERR_NULL;\n", i);
    buf_printf(cb, "  din[%d] = c->rt.dev + %lld;\n", i, (long long)in_stage[i]);
    if (sin_bytes[i])
      buf_printf(cb, "  ONNXC_CUDA_TRY(onnxc_cuda_strings_in(&c->rt, (const onnxc_string *)in[%d], %lld, c->sin%d, %lld, c->rt.dev + %lld, "
                     "c->sptr%d, c->rt.dev + %lld));\n", i, (long long)value_numel(g->inputs.v[i]), i, (long long)sin_bytes[i],
                 (long long)sin_off[i], i, (long long)in_stage[i]);
    else
      buf_printf(cb, "  ONNXC_CUDA_TRY(onnxc_cuda_copy(&c->rt, c->rt.dev + %lld, in[%d], %lld, 0));\n", (long long)in_stage[i], i,
                 (long long)value_bytes(g->inputs.v[i]));
  }
  for (int i = 0; i < nout; i++) {
    buf_printf(cb, "  if (!out[%d]) return ONNXC_ERR_NULL;\n", i);
    buf_printf(cb, "  dout[%d] = c->rt.dev + %lld;\n", i, (long long)out_stage[i]);
  }
  buf_printf(cb, "  ONNXC_CUDA_TRY(%s_run_io(c, din, dout));\n", P);
  for (int i = 0; i < nout; i++)
    buf_printf(cb, "  ONNXC_CUDA_TRY(onnxc_cuda_copy(&c->rt, out[%d], c->rt.dev + %lld, %lld, 1));\n", i,
               (long long)out_stage[i], (long long)value_bytes(g->outputs.v[i]));
  if (sout_elems) {
    /* string outputs: device addresses now in out[i]; each becomes a host one */
    if (g->has_heap)
      buf_printf(cb, "  ONNXC_CUDA_TRY(onnxc_cuda_copy(&c->rt, c->sheap, c->rt.dev + ARENA_OFF + %lld, %lld, 1));\n",
                 (long long)g->heap_offset, (long long)g->heap_bytes);
    /* a data-dependent output: its elements are those of its actual dims */
    for (int i = 0; i < nout; i++) {
      Value *v = g->outputs.v[i];
      if (v->dtype == DT_STRING && v->dynamic && out_dims_slot[i] >= 0)
        buf_printf(cb, "  int64_t sd%d[%d] = {0};\n  ONNXC_CUDA_TRY(onnxc_cuda_copy(&c->rt, sd%d, c->rt.dev + %lld, %d, 1));\n", i,
                   v->rank ? v->rank : 1, i, (long long)out_dims_slot[i], 8 * (v->rank ? v->rank : 1));
    }
    buf_printf(cb, "  ONNXC_CUDA_TRY(onnxc_cuda_sync(&c->rt));\n  if (c->status) return c->status;\n  {\n");
    Buf rg = {0};
    int nreg = 0;
    if (g->has_heap) {
      buf_printf(&rg, "\n      {c->rt.dev + ARENA_OFF + %lld, c->sheap, %lld},", (long long)g->heap_offset, (long long)g->heap_bytes);
      nreg++;
    }
    for (int i = 0; i < nin; i++)
      if (sin_bytes[i]) {
        buf_printf(&rg, "\n      {c->rt.dev + %lld, c->sin%d, %lld},", (long long)sin_off[i], i, (long long)sin_bytes[i]);
        nreg++;
      }
    for (int i = 0; i < nhc; i++)
      if (hc[i].str) {
        buf_printf(&rg, "\n      {c->rt.dev + %lld, (const char *)%s, %lld},", (long long)(hc[i].off + hc[i].blob_off),
                   hc[i].name, (long long)hc[i].blob_bytes);
        nreg++;
      }
    buf_printf(cb, "    const onnxc_cuda_sregion reg[%d] = {%s};\n", nreg ? nreg : 1, nreg ? rg.p : "{0, 0, 0}");
    buf_free(&rg);
    buf_printf(cb, "    const onnxc_cuda_sfetch sf = {%d, c->rt.dev + %lld, 256};\n", fetch_k, (long long)fetch_off);
    buf_printf(cb, "    c->spool_used = 0;\n");
    for (int i = 0; i < nout; i++) {
      Value *v = g->outputs.v[i];
      if (v->dtype != DT_STRING) continue;
      const char *cnt = fmt(&cu.host, "%lld", (long long)value_numel(v));
      if (v->dynamic && out_dims_slot[i] >= 0) {
        Buf e = {0};
        buf_puts(&e, "(int64_t)1");
        for (int d = 0; d < v->rank; d++) buf_printf(&e, " * sd%d[%d]", i, d);
        cnt = fmt(&cu.host, "%s", e.p);
        buf_free(&e);
        buf_printf(cb, "    if (%s < 0 || %s > %lld) return ONNXC_ERR_BOUNDS;\n", cnt, cnt, (long long)value_numel(v));
      }
      buf_printf(cb, "    ONNXC_CUDA_TRY(onnxc_cuda_strings_out(&c->rt, (onnxc_string *)out[%d], %s, reg, %d, &sf, c->spool, %lld, &c->spool_used));\n",
                 i, cnt, nreg, (long long)spool);
    }
    buf_printf(cb, "  }\n  return ONNXC_OK;\n}\n\n");
  } else {
    buf_printf(cb, "  ONNXC_CUDA_TRY(onnxc_cuda_sync(&c->rt));\n  return c->status;\n}\n\n");
  }
  /* typed entries */
  for (int host = 0; host < 2; host++) {
    buf_printf(cb, "int %s_cuda_run%s(%s_cuda *ctx%s) {\n", P, host ? "_host" : "", P, pp);
    buf_printf(cb, "  const void *in[%d] = {0};\n  void *out[%d] = {0};\n", nin ? nin : 1, nout ? nout : 1);
    for (int i = 0; i < nin; i++) buf_printf(cb, "  in[%d] = %s;\n", i, cu.in_names[i]);
    for (int i = 0; i < nout; i++) buf_printf(cb, "  out[%d] = %s;\n", i, cu.out_names[i]);
    buf_printf(cb, "  return %s_run%s_io(ctx, in, out);\n}\n\n", P, host ? "_host" : "");
  }
  buf_printf(cb, "int %s_cuda_sync(%s_cuda *ctx) {\n  if (!ctx) return ONNXC_ERR_NULL;\n"
                 "  ONNXC_CUDA_TRY(onnxc_cuda_sync(&ctx->rt));\n  return ctx->status;\n}\n\n", P, P);
  /* output dims and the descriptor's tensor infos */
  emit_tensor_infos(cb, &g->outputs, P, "out", "outputs");
  emit_tensor_infos(cb, &g->inputs, P, "in", "inputs");
  buf_printf(cb, "\nint %s_cuda_output_dims(%s_cuda *ctx, int i, int64_t *dims) {\n", P, P);
  buf_printf(cb, "  int d;\n  if (!ctx || !dims) return ONNXC_ERR_NULL;\n");
  buf_printf(cb, "  ONNXC_CUDA_TRY(onnxc_cuda_sync(&ctx->rt));\n  switch (i) {\n");
  for (int i = 0; i < nout; i++) {
    Value *v = g->outputs.v[i];
    if (v->dynamic && out_dims_slot[i] >= 0) {
      buf_printf(cb, "  case %d:\n    ONNXC_CUDA_TRY(onnxc_cuda_copy(&ctx->rt, dims, ctx->rt.dev + %lld, %d, 1));\n"
                     "    return onnxc_cuda_sync(&ctx->rt);\n", i, (long long)out_dims_slot[i], 8 * (v->rank ? v->rank : 1));
    } else {
      buf_printf(cb, "  case %d:\n    for (d = 0; d < %d; d++) dims[d] = %s_out%d_dims[d];\n    return ONNXC_OK;\n", i,
                 v->rank, P, i);
    }
  }
  buf_printf(cb, "  default:\n    (void)d;\n    return ONNXC_ERR_ARG;\n  }\n}\n\n");
  buf_printf(cb, "void *%s_cuda_stream(%s_cuda *ctx) { return ctx ? ctx->rt.stream : 0; }\n\n", P, P);
  buf_printf(cb, "const char *%s_cuda_error(%s_cuda *ctx) { return ctx ? onnxc_cuda_error(&ctx->rt) : \"no context\"; }\n\n", P, P);
  /* descriptor */
  buf_printf(cb, "\nstatic int %s_create_any(void **ctx, const onnxc_cuda_options *opt) {\n"
                 "  return %s_cuda_create((%s_cuda **)ctx, opt);\n}\n", P, P, P);
  buf_printf(cb, "static void %s_destroy_any(void *ctx) { %s_cuda_destroy((%s_cuda *)ctx); }\n", P, P, P);
  buf_printf(cb, "static int %s_sync_any(void *ctx) { return %s_cuda_sync((%s_cuda *)ctx); }\n", P, P, P);
  buf_printf(cb, "static int %s_dims_any(void *ctx, int i, int64_t *dims) {\n"
                 "  return %s_cuda_output_dims((%s_cuda *)ctx, i, dims);\n}\n", P, P, P);
  buf_printf(cb, "static const char *%s_error_any(void *ctx) { return %s_cuda_error((%s_cuda *)ctx); }\n\n", P, P, P);
  buf_printf(cb, "const onnxc_cuda_model %s_cuda_model = {\n  \"%s\", %d, %d, %s, %s, %s_ARENA_BYTES, %s_WEIGHTS_BYTES,\n"
                 "  %s_create_any, %s_destroy_any, %s_run_io, %s_run_host_io, %s_sync_any, %s_dims_any, %s_error_any,\n"
                 "  &%s_kernels\n};\n",
             P, P, nin, nout, nin ? arena_printf(a, "%s_inputs", P) : "0", nout ? arena_printf(a, "%s_outputs", P) : "0", UP,
             UP, P, P, P, P, P, P, P, P);
  emit_write_file(ctx, c_path, cb);
  buf_free(&params);
  buf_free(&args);
}
