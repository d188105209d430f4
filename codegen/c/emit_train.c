/*
 * emit_train.c - net.c and net.h of `onnxc --train`.
 *
 * net.c holds two graphs, emitted by emit_graph_impl() with one shared Emit, so their node
 * functions and constants get distinct names and each kernel template is spliced in once:
 *   train_graph(arena, params..., inputs..., label, loss, grads...)   the training step's graph
 *   infer_graph(arena, params..., inputs..., outputs...)             inference
 * and the public API around them:
 *   <name>_train_init   state := initial weights (static const arrays), zero optimizer state
 *   <name>_train_step   train_graph over the state, then the optimizer's in-place loop per
 *                       parameter (SGD / AdamW exactly as torch.optim computes them)
 *   <name>_infer        infer_graph over the state
 *   <name>_state_save / <name>_state_load   the saved-state format below
 *
 * Saved state (<NAME>_STATE_BLOB_BYTES bytes; header integers little-endian):
 *     0  8  magic "ONNXCST\0"
 *     8  4  format version (1)
 *    12  4  checksum: 32-bit FNV-1a of bytes [16, total)
 *    16  4  H: header bytes = offset of the data (a multiple of the state alignment)
 *    20  4  number of table entries
 *    24  8  total bytes
 *    32  8  optimizer step count
 *    40  4  optimizer: 1 SGD, 2 AdamW
 *    44  4  0x01020304 in the writer's byte order (the data's byte order)
 *    48     table entries: u32 kind (0 parameter, 1 SGD momentum buffer, 2 AdamW exp_avg,
 *           3 AdamW exp_avg_sq, 4 running statistic), u32 ONNX dtype, u32 rank, u32 name bytes, u64 data offset
 *           (from the blob's start), u64 data bytes, u64 dims[rank], the name (no NUL) padded
 *           with zeros to a multiple of 8
 *     H     the data: the state buffer from its first parameter on
 * A load accepts only a blob whose header equals this model's (names, shapes, optimizer,
 * layout) and whose checksum holds; onnxc export-weights reads the kind-0 and kind-4 entries.
 */
#include <string.h>

#include "onnxc.h"

static int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

static const char *upper(Arena *a, const char *s) {
  char *u = arena_strdup(a, s);
  for (char *p = u; *p; p++)
    if (*p >= 'a' && *p <= 'z') *p = (char)(*p - 'a' + 'A');
  return u;
}

static const char *ident(Arena *a, const char *name) {
  char buf[40];
  int k = 0;
  for (const char *p = name; *p && k < 32; p++) {
    char c = *p;
    buf[k++] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ? c : '_';
  }
  buf[k] = 0;
  return arena_strdup(a, k ? buf : "v");
}

static void put32(Buf *b, uint32_t x) {
  unsigned char c[4] = {(unsigned char)x, (unsigned char)(x >> 8), (unsigned char)(x >> 16), (unsigned char)(x >> 24)};
  buf_put(b, (const char *)c, 4);
}
static void put64(Buf *b, uint64_t x) {
  put32(b, (uint32_t)x);
  put32(b, (uint32_t)(x >> 32));
}

/* The saved state's header bytes (checksum and step count zero, byte-order mark little-endian). */
void train_state_header(Ctx *ctx, TrainSpec *ts, Buf *h, int64_t *hdr_bytes, int64_t *total) {
  int64_t al = (int64_t)ctx->align < 16 ? 16 : (int64_t)ctx->align;
  int nbuf = ts->opt.kind == OPT_ADAMW ? 2 : ts->params[0].off_buf[0] >= 0 ? 1 : 0;
  int nent = ts->n_params * (1 + nbuf) + ts->n_stats;
  /* the table's size first: entry offsets depend on H */
  int64_t tab = 0;
  for (int i = 0; i < ts->n_params; i++)
    tab += (32 + 8 * ts->params[i].rank + align_up((int64_t)strlen(ts->params[i].name), 8)) * (1 + nbuf);
  for (int i = 0; i < ts->n_stats; i++)
    tab += 32 + 8 * ts->stats[i].rank + align_up((int64_t)strlen(ts->stats[i].name), 8);
  int64_t H = align_up(48 + tab, al);
  int64_t data = ts->state_bytes - ts->state_data;
  buf_put(h, "ONNXCST\0", 8);
  put32(h, 1);
  put32(h, 0);
  put32(h, (uint32_t)H);
  put32(h, (uint32_t)nent);
  put64(h, (uint64_t)(H + data));
  put64(h, 0);
  put32(h, (uint32_t)ts->opt.kind);
  put32(h, 0x01020304u);
  /* b = -2: parameters, -1: running statistics, >= 0: optimizer buffer b */
  for (int b = -2; b < nbuf; b++)
    for (int i = 0; i < (b == -1 ? ts->n_stats : ts->n_params); i++) {
      TrainParam *p = b == -1 ? &ts->stats[i] : &ts->params[i];
      int kind = b == -2 ? 0 : b == -1 ? 4 : ts->opt.kind == OPT_SGD ? 1 : 2 + b;
      int64_t off = b < 0 ? p->off : p->off_buf[b];
      size_t nl = strlen(p->name);
      put32(h, (uint32_t)kind);
      put32(h, (uint32_t)p->dtype);
      put32(h, (uint32_t)p->rank);
      put32(h, (uint32_t)nl);
      put64(h, (uint64_t)(H + off - ts->state_data));
      put64(h, (uint64_t)p->bytes);
      for (int d = 0; d < p->rank; d++) put64(h, (uint64_t)p->dims[d]);
      buf_put(h, p->name, nl);
      while (h->len % 8) buf_put(h, "", 1);
    }
  while ((int64_t)h->len < H) buf_put(h, "", 1);
  CHECK((int64_t)h->len == H);
  *hdr_bytes = H;
  *total = H + data;
}

/* The update of element i, torch.optim's arithmetic in its order, over p, g (gradient), m, v
   (optimizer buffers), first (SGD: the first step), neg_step and bc2_sqrt (AdamW: -lr over the
   first bias correction, the square root of the second).  The C step and the CUDA update
   kernels (emit_cuda_train.c) share it. */
void train_emit_update_body(Emit *e, const TrainOptim *o, int dt) {
  const char *T = c_type(dt);
  if (o->kind == OPT_SGD) {
    ep(e, "%s d = g[i];", T);
    if (o->weight_decay != 0) ep(e, "d = d + %s * p[i];", c_lit(e, dt, o->weight_decay));
    if (o->momentum != 0) {
      if (o->dampening != 0)
        ep(e, "m[i] = first ? d : m[i] * %s + %s * d;", c_lit(e, dt, o->momentum), c_lit(e, dt, 1.0 - o->dampening));
      else
        ep(e, "m[i] = first ? d : m[i] * %s + d;", c_lit(e, dt, o->momentum));
      if (o->nesterov) ep(e, "d = d + %s * m[i];", c_lit(e, dt, o->momentum));
      else ep(e, "d = m[i];");
    }
    ep(e, "p[i] = p[i] + %s * d;", c_lit(e, dt, -o->lr));
  } else {
    const char *sq = dt == DT_DOUBLE ? "sqrt" : "sqrtf";
    if (o->weight_decay != 0) ep(e, "p[i] = p[i] * %s;", c_lit(e, dt, 1.0 - o->lr * o->weight_decay));
    ep(e, "m[i] = m[i] * %s + %s * g[i];", c_lit(e, dt, o->beta1), c_lit(e, dt, 1.0 - o->beta1));
    ep(e, "v[i] = v[i] * %s + %s * g[i] * g[i];", c_lit(e, dt, o->beta2), c_lit(e, dt, 1.0 - o->beta2));
    ep(e, "p[i] = p[i] + (%s)neg_step * m[i] / (%s(v[i]) / (%s)bc2_sqrt + %s);", T, sq, T, c_lit(e, dt, o->eps));
  }
}

/* One parameter's update. */
static void emit_update(Emit *e, TrainSpec *ts, TrainParam *p) {
  const char *T = c_type(p->dtype);
  int64_t n = p->bytes / (int64_t)dtype_size(p->dtype);
  const char *it = n < 2147483647LL ? "long" : "long long";
  ep(e, "/* %s */", p->name);
  ep(e, "{");
  ep(e, "%s *p = (%s *)(S + %lld);", T, T, (long long)p->off);
  ep(e, "const %s *g = (const %s *)(A + %lld);", T, T, (long long)p->grad_off);
  if (p->off_buf[0] >= 0) ep(e, "%s *m = (%s *)(S + %lld);", T, T, (long long)p->off_buf[0]);
  if (p->off_buf[1] >= 0) ep(e, "%s *v = (%s *)(S + %lld);", T, T, (long long)p->off_buf[1]);
  ep(e, "%s i;", it);
  ep(e, "for (i = 0; i < %lld; i++) {", (long long)n);
  train_emit_update_body(e, &ts->opt, p->dtype);
  ep(e, "}");
  ep(e, "}");
}

/* State entry i bound to graph input i: the parameters, then the running statistics. */
static TrainParam *bound(TrainSpec *ts, int i) { return i < ts->n_params ? &ts->params[i] : &ts->stats[i - ts->n_params]; }

static const char *tensor_comment(Arena *a, Value *v) {
  return arena_printf(a, "%s %s%s", v->name, dtype_name(v->dtype), shape_str(a, v));
}

const char **train_emit_inits(Emit *e, TrainSpec *ts) {
  Arena *a = &e->ctx->arena;
  int np = ts->n_params, ns = np + ts->n_stats;
  const char **names = arena_alloc(a, sizeof(char *) * (size_t)(ns + 1));
  for (int i = 0; i < ns; i++) {
    TrainParam *p = bound(ts, i);
    Value *v = arena_alloc(a, sizeof *v);
    v->name = p->name;
    v->dtype = p->dtype;
    v->rank = p->rank;
    v->typed = true;
    memcpy(v->dims, p->dims, sizeof v->dims);
    v->data = p->init;
    v->cname = names[i] = arena_printf(a, "init%d_%s", i, ident(a, p->name));
    buf_puts(e->out, i < np ? "/* initial value of parameter */ " : "/* initial value of running statistic */ ");
    emit_c_const(e, v);
  }
  return names;
}

void emit_c_train(Ctx *ctx, TrainSpec *ts, const char *c_path, const char *h_path) {
  Arena *a = &ctx->arena;
  const char *P = ctx->prefix, *UP = upper(a, P);
  Graph *tg = ts->train, *ig = ts->infer;
  int np = ts->n_params, ns = np + ts->n_stats; /* graph inputs bound to the state */
  int64_t al = (int64_t)ctx->align < 16 ? 16 : (int64_t)ctx->align;
  Value *loss = tg->outputs.v[0];
  if (loss->dtype != DT_FLOAT && loss->dtype != DT_DOUBLE) fail(ctx, "--train: the loss must be float or double");
  const char *LT = c_type(loss->dtype);
  Buf *hdr = &ctx->emit_bufs[1]; /* freed however compilation ends */
  int64_t H, total;
  train_state_header(ctx, ts, hdr, &H, &total);
  const char *base = strrchr(ctx->file, '/') ? strrchr(ctx->file, '/') + 1 : ctx->file;

  /* user-facing parameter lists: the graphs' inputs after the parameters */
  const char *tparams = "", *iparams = "", *targs = "", *iargs = "", *hnull = "", *inull = "";
  for (int i = ns; i < tg->inputs.n; i++) {
    Value *v = tg->inputs.v[i];
    const char *nm = arena_printf(a, "in%d_%s", i - ns, ident(a, v->name));
    tparams = arena_printf(a, "%s,\n    const %s *%s /* %s */", tparams, c_type(v->dtype), nm, tensor_comment(a, v));
    targs = arena_printf(a, "%s, %s", targs, nm);
    hnull = arena_printf(a, "%s || !%s", hnull, nm);
  }
  tparams = arena_printf(a, "%s,\n    %s *loss /* scalar; may be NULL */", tparams, LT);
  for (int i = ns; i < ig->inputs.n; i++) {
    Value *v = ig->inputs.v[i];
    const char *nm = arena_printf(a, "in%d_%s", i - ns, ident(a, v->name));
    iparams = arena_printf(a, "%s,\n    const %s *%s /* %s */", iparams, c_type(v->dtype), nm, tensor_comment(a, v));
    iargs = arena_printf(a, "%s, %s", iargs, nm);
    inull = arena_printf(a, "%s || !%s", inull, nm);
  }
  for (int i = 0; i < ig->outputs.n; i++) {
    Value *v = ig->outputs.v[i];
    const char *nm = arena_printf(a, "out%d_%s", i, ident(a, v->name));
    iparams = arena_printf(a, "%s,\n    %s *%s /* %s */", iparams, c_type(v->dtype), nm, tensor_comment(a, v));
    iargs = arena_printf(a, "%s, %s", iargs, nm);
    inull = arena_printf(a, "%s || !%s", inull, nm);
  }
  const char *tproto = arena_printf(a, "int %s_train_step(void *state, void *arena%s)", P, tparams);
  const char *iproto = arena_printf(a, "int %s_infer(const void *state, void *arena%s)", P, iparams);

  /* ---- header ---- */
  Buf *hb = &ctx->emit_bufs[2], *h = hb;
  buf_printf(h, "/* Generated by onnxc %s from %s (--train). Do not edit. */\n", ONNXC_VERSION, base);
  buf_printf(h, "#ifndef %s_H\n#define %s_H\n\n#include <stddef.h>\n#include <stdint.h>\n#include \"onnxc_rt.h\"\n\n", UP, UP);
  buf_printf(h, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  {
    Graph *gs[2] = {tg, ig};
    custom_emit_decls(ctx, h, gs, 2);
  }
  buf_printf(h,
             "/* On-device training of %s: %s_train_step runs forward, the loss, the gradients and\n"
             "   one %s update of the parameters; %s_infer runs the model with the current\n"
             "   parameters.  Both work on a caller-owned state buffer (parameters + optimizer state +\n"
             "   step count) and a caller-owned scratch arena; nothing is allocated, nothing kept\n"
             "   elsewhere.  Buffers must be aligned to %s_STATE_ALIGN bytes (state and arenas).\n"
             "   Every function returns 0 (ONNXC_OK) or an onnxc_status. */\n",
             base, P, ts->opt.kind == OPT_SGD ? "SGD" : "AdamW", P, UP);
  buf_printf(h, "#define %s_STATE_ALIGN %lld\n", UP, (long long)al);
  buf_printf(h, "/* parameters, optimizer state and the step count */\n#define %s_STATE_BYTES %lld\n", UP, (long long)ts->state_bytes);
  buf_printf(h, "/* scratch of one training step: forward values kept for backward, gradients, temporaries */\n"
                 "#define %s_TRAIN_ARENA_BYTES %lld\n", UP, (long long)ts->train_arena);
  buf_printf(h, "/* scratch of %s_infer (a %s_TRAIN_ARENA_BYTES arena serves too when at least this big) */\n"
                 "#define %s_ARENA_BYTES %lld\n", P, UP, UP, (long long)ts->infer_arena);
  buf_printf(h, "/* bytes of a saved state (%s_state_save / %s_state_load) */\n#define %s_STATE_BLOB_BYTES %lld\n", P, P, UP, (long long)total);
  buf_printf(h, "#define %s_N_PARAMS %d\n", UP, np);
  buf_printf(h, "/* running statistics (BatchNormalization running mean/var, ONNX initializers) in the state:\n"
                 "   each step updates them, %s_infer normalizes with them (eval mode) */\n#define %s_N_STATS %d\n\n",
             P, UP, ts->n_stats);
  buf_printf(h, "/* Writes the model's initial weights into the state and zeroes the optimizer state. */\n"
                 "int %s_train_init(void *state);\n\n", P);
  buf_printf(h, "/* One training step on a batch: the loss (before the update) goes to *loss. */\n%s;\n\n", tproto);
  buf_printf(h, "/* Inference with the state's current parameters. */\n%s;\n\n", iproto);
  buf_printf(h, "/* Writes the state in the saved-state format (see the README: magic, version, checksum,\n"
                 "   a table of names/shapes/offsets, data) to blob; returns the bytes written\n"
                 "   (%s_STATE_BLOB_BYTES), or 0 when a pointer is NULL or cap is too small. */\n"
                 "size_t %s_state_save(const void *state, void *blob, size_t cap);\n\n", UP, P);
  buf_printf(h, "/* Reads a saved state; ONNXC_ERR_FORMAT (the state is unchanged) when the blob is not one\n"
                 "   of this model and optimizer, or is truncated or corrupted. */\n"
                 "int %s_state_load(void *state, const void *blob, size_t len);\n\n", P);
  buf_printf(h, "/* Steps taken so far. */\nuint64_t %s_train_steps(const void *state);\n\n", P);
  buf_printf(h, "/* The parameters (ONNX initializer names, types, shapes) and their byte offsets in the state. */\n"
                 "extern const onnxc_tensor_info %s_params[%s_N_PARAMS];\n"
                 "extern const size_t %s_param_offsets[%s_N_PARAMS];\n\n", P, UP, P, UP);
  buf_printf(h, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
  emit_write_file(ctx, h_path, h);

  /* ---- C file ---- */
  Buf *cb = &ctx->emit_bufs[0];
  Emit e = {.ctx = ctx, .out = cb};
  const char *hbase = strrchr(h_path, '/') ? strrchr(h_path, '/') + 1 : h_path;
  buf_printf(cb, "/* Generated by onnxc %s from %s (--train). Do not edit. */\n", ONNXC_VERSION, base);
  emit_opt_level(cb);
  buf_printf(cb, "#include \"%s\"\n\n", hbase);
  size_t tpl_at = emit_multi_begin(&e);
  int nconst = 0;
  train_emit_inits(&e, ts);
  buf_puts(cb, "\n/* ---- the training step's graph ---- */\n\n");
  emit_graph_impl(&e, tg, "train_graph", &nconst);
  buf_puts(cb, "/* ---- the inference graph ---- */\n\n");
  emit_graph_impl(&e, ig, "infer_graph", &nconst);

  /* saved-state header */
  buf_printf(cb, "static const unsigned char state_header[%lld] = {", (long long)H);
  for (int64_t i = 0; i < H; i++) buf_printf(cb, "%s%u,", i % 16 ? " " : "\n  ", (unsigned)(unsigned char)hdr->p[i]);
  buf_puts(cb, "\n};\n\n");
  buf_puts(cb, "static uint32_t state_fnv1a(const unsigned char *p, size_t n) {\n"
               "  uint32_t h = 2166136261u;\n  size_t i;\n"
               "  for (i = 0; i < n; i++) {\n    h ^= p[i];\n    h *= 16777619u;\n  }\n  return h;\n}\n\n");
  buf_printf(cb, "static const uint32_t state_bom = 0x01020304u;\n\n");

  /* init */
  buf_printf(cb, "int %s_train_init(void *state) {\n", P);
  e.indent = 1;
  ep(&e, "unsigned char *S = (unsigned char *)state;");
  ep(&e, "if (!S) return ONNXC_ERR_NULL;");
  ep(&e, "if ((uintptr_t)S %% %lld != 0) return ONNXC_ERR_ALIGN;", (long long)al);
  ep(&e, "memset(S, 0, %lld);", (long long)ts->state_bytes);
  for (int i = 0; i < ns; i++)
    if (bound(ts, i)->bytes)
      ep(&e, "memcpy(S + %lld, init%d_%s, %lld);", (long long)bound(ts, i)->off, i, ident(a, bound(ts, i)->name),
         (long long)bound(ts, i)->bytes);
  ep(&e, "return ONNXC_OK;");
  e.indent = 0;
  buf_puts(cb, "}\n\n");

  /* step */
  buf_printf(cb, "%s {\n", tproto);
  e.indent = 1;
  ep(&e, "unsigned char *S = (unsigned char *)state;");
  ep(&e, "unsigned char *A = (unsigned char *)arena;");
  ep(&e, "uint64_t t;");
  ep(&e, "int st;");
  if (ts->opt.kind == OPT_SGD && ts->opt.momentum != 0) ep(&e, "int first;");
  if (ts->opt.kind == OPT_ADAMW) ep(&e, "double neg_step, bc2_sqrt;");
  ep(&e, "if (!S || !A%s) return ONNXC_ERR_NULL;", hnull);
  ep(&e, "if ((uintptr_t)S %% %lld != 0 || (uintptr_t)A %% %lld != 0) return ONNXC_ERR_ALIGN;", (long long)al, (long long)al);
  {
    Buf *call = &ctx->emit_bufs[3];
    call->len = 0;
    buf_printf(call, "st = train_graph(A");
    for (int i = 0; i < ns; i++) {
      TrainParam *p = bound(ts, i);
      buf_printf(call, ", (const %s *)(S + %lld)", c_type(p->dtype), (long long)p->off);
    }
    buf_printf(call, "%s, (%s *)(A + %lld)", targs, LT, (long long)ts->loss_off);
    for (int i = 0; i < ns; i++) {
      TrainParam *p = bound(ts, i);
      buf_printf(call, ", (%s *)(A + %lld)", c_type(p->dtype), (long long)p->grad_off);
    }
    buf_puts(call, ");");
    buf_printf(cb, "  %s\n", call->p); /* may be longer than one ep() line */
  }
  ep(&e, "if (st != ONNXC_OK) return st;");
  ep(&e, "if (loss) *loss = *(const %s *)(A + %lld);", LT, (long long)ts->loss_off);
  for (int i = 0; i < ts->n_stats; i++)
    ep(&e, "memcpy(S + %lld, A + %lld, %lld); /* %s */", (long long)ts->stats[i].off, (long long)ts->stats[i].grad_off,
       (long long)ts->stats[i].bytes, ts->stats[i].name);
  ep(&e, "memcpy(&t, S, 8);");
  ep(&e, "t++;");
  ep(&e, "memcpy(S, &t, 8);");
  if (ts->opt.kind == OPT_SGD && ts->opt.momentum != 0) ep(&e, "first = t == 1;");
  if (ts->opt.kind == OPT_ADAMW) {
    /* bias corrections in double, as torch computes them in Python */
    ep(&e, "neg_step = -%.17g / (1.0 - pow(%.17g, (double)t));", ts->opt.lr, ts->opt.beta1);
    ep(&e, "bc2_sqrt = sqrt(1.0 - pow(%.17g, (double)t));", ts->opt.beta2);
  }
  for (int i = 0; i < np; i++) emit_update(&e, ts, &ts->params[i]);
  ep(&e, "return ONNXC_OK;");
  e.indent = 0;
  buf_puts(cb, "}\n\n");

  /* infer */
  buf_printf(cb, "%s {\n", iproto);
  e.indent = 1;
  ep(&e, "const unsigned char *S = (const unsigned char *)state;");
  ep(&e, "if (!S%s) return ONNXC_ERR_NULL;", inull);
  ep(&e, "if ((uintptr_t)S %% %lld != 0) return ONNXC_ERR_ALIGN;", (long long)al);
  if (ts->infer_arena > 0) {
    ep(&e, "if (!arena) return ONNXC_ERR_NULL;");
    ep(&e, "if ((uintptr_t)arena %% %lld != 0) return ONNXC_ERR_ALIGN;", (long long)al);
  }
  {
    Buf *call = &ctx->emit_bufs[3];
    call->len = 0;
    buf_printf(call, "return infer_graph(arena");
    for (int i = 0; i < ns; i++) {
      TrainParam *p = bound(ts, i);
      buf_printf(call, ", (const %s *)(S + %lld)", c_type(p->dtype), (long long)p->off);
    }
    buf_printf(call, "%s);", iargs);
    buf_printf(cb, "  %s\n", call->p); /* may be longer than one ep() line */
  }
  e.indent = 0;
  buf_puts(cb, "}\n\n");

  /* save / load / steps */
  int64_t data = ts->state_bytes - ts->state_data;
  buf_printf(cb,
             "size_t %s_state_save(const void *state, void *blob, size_t cap) {\n"
             "  const unsigned char *S = (const unsigned char *)state;\n"
             "  unsigned char *B = (unsigned char *)blob;\n"
             "  uint64_t t;\n  uint32_t h;\n  int i;\n"
             "  if (!S || !B || cap < %lldu) return 0;\n"
             "  memcpy(B, state_header, %lld);\n"
             "  memcpy(&t, S, 8);\n"
             "  for (i = 0; i < 8; i++) B[32 + i] = (unsigned char)(t >> (8 * i));\n"
             "  memcpy(B + 44, &state_bom, 4);\n"
             "  memcpy(B + %lld, S + %lld, %lld);\n"
             "  h = state_fnv1a(B + 16, %lld);\n"
             "  for (i = 0; i < 4; i++) B[12 + i] = (unsigned char)(h >> (8 * i));\n"
             "  return %lldu;\n}\n\n",
             P, (long long)total, (long long)H, (long long)H, (long long)ts->state_data, (long long)data,
             (long long)(total - 16), (long long)total);
  buf_printf(cb,
             "int %s_state_load(void *state, const void *blob, size_t len) {\n"
             "  unsigned char *S = (unsigned char *)state;\n"
             "  const unsigned char *B = (const unsigned char *)blob;\n"
             "  uint64_t t = 0;\n  uint32_t h = 0;\n  int i;\n"
             "  if (!S || !B) return ONNXC_ERR_NULL;\n"
             "  if ((uintptr_t)S %% %lld != 0) return ONNXC_ERR_ALIGN;\n"
             "  if (len != %lldu || memcmp(B, state_header, 12) != 0 || memcmp(B + 16, state_header + 16, 16) != 0 ||\n"
             "      memcmp(B + 40, state_header + 40, 4) != 0 || memcmp(B + 44, &state_bom, 4) != 0 ||\n"
             "      memcmp(B + 48, state_header + 48, %lld) != 0)\n"
             "    return ONNXC_ERR_FORMAT;\n"
             "  for (i = 0; i < 4; i++) h |= (uint32_t)B[12 + i] << (8 * i);\n"
             "  if (h != state_fnv1a(B + 16, %lld)) return ONNXC_ERR_FORMAT;\n"
             "  for (i = 0; i < 8; i++) t |= (uint64_t)B[32 + i] << (8 * i);\n"
             "  memcpy(S, &t, 8);\n"
             "  memcpy(S + %lld, B + %lld, %lld);\n"
             "  return ONNXC_OK;\n}\n\n",
             P, (long long)al, (long long)total, (long long)(H - 48), (long long)(total - 16), (long long)ts->state_data,
             (long long)H, (long long)data);
  buf_printf(cb,
             "uint64_t %s_train_steps(const void *state) {\n  uint64_t t = 0;\n"
             "  if (state) memcpy(&t, state, 8);\n  return t;\n}\n\n", P);
  /* descriptors */
  for (int i = 0; i < np; i++) {
    TrainParam *p = &ts->params[i];
    buf_printf(cb, "static const int64_t param%d_dims[] = {", i);
    for (int d = 0; d < p->rank; d++) buf_printf(cb, "%s%lld", d ? ", " : "", (long long)p->dims[d]);
    if (!p->rank) buf_puts(cb, "0");
    buf_puts(cb, "};\n");
  }
  buf_printf(cb, "const onnxc_tensor_info %s_params[%s_N_PARAMS] = {\n", P, UP);
  for (int i = 0; i < np; i++) {
    TrainParam *p = &ts->params[i];
    buf_puts(cb, "  {\"");
    for (const char *s = p->name; *s; s++) {
      if (*s == '"' || *s == '\\') buf_printf(cb, "\\%c", *s);
      else if ((unsigned char)*s < 32 || (unsigned char)*s >= 127) buf_printf(cb, "\\%03o", (unsigned char)*s);
      else buf_put(cb, s, 1);
    }
    buf_printf(cb, "\", %d, %d, param%d_dims, 0, 0, 0},\n", p->dtype, p->rank, i);
  }
  buf_puts(cb, "};\n");
  buf_printf(cb, "const size_t %s_param_offsets[%s_N_PARAMS] = {", P, UP);
  for (int i = 0; i < np; i++) buf_printf(cb, "%s%lld", i ? ", " : "", (long long)ts->params[i].off);
  buf_puts(cb, "};\n");

  emit_multi_end(&e, tpl_at);
  emit_write_file(ctx, c_path, cb);
  buf_free(cb);
  buf_free(h);
  buf_free(hdr);
}
