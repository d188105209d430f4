/*
 * emit_cuda_train.c - `onnxc --train --target cuda|cuda-nvrtc`: training on the GPU.
 *
 * compile_train (pipeline.c) builds the same two planned graphs as for the C backend: the
 * training step (parameters and running statistics as inputs; the loss, one gradient per
 * parameter and the new running statistics as outputs) and inference over the same state.
 * Each becomes an ordinary CUDA model (emit_cuda_model) under its own prefix, in its own file:
 *
 *   OUT.cu  (+ OUT.h)          the training driver: the state in device memory, the optimizer
 *                              kernels, the API (below)
 *   OUT_step.cu (+ .h)         the training step's graph, prefix <name>_step
 *   OUT_infer.cu (+ .h)        the inference graph, prefix <name>_infer
 *
 * (.c for cuda-nvrtc).  The driver owns one device allocation (through onnxc_cuda_rt, like a
 * model): the state, in the C backend's layout (train.c: step count slot, parameters,
 * running statistics, optimizer buffers), then the loss, gradient and new-statistic slots
 * the step graph writes, then staging for the host-pointer entry points.  A step runs the
 * step graph (its CUDA graph is captured and replayed like any model's: the parameter
 * pointers never change), waits for it, copies the new running statistics into the state,
 * and launches one update kernel per parameter with torch.optim's arithmetic in
 * emit_train.c's order (the step count and AdamW's bias corrections are computed on the host,
 * in double).  Steps are synchronous: each returns when the update is done.  Saved states
 * have the C backend's format (train_state_header), so a state trained on the GPU loads into
 * the C build of the same model and optimizer (and onnxc export-weights reads it).
 */
#include <stdio.h>
#include <string.h>

#include "cuda.h"

static const char *with_suffix(Arena *a, const char *path, const char *suffix) {
  const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
  if (!dot || (slash && dot < slash)) return arena_printf(a, "%s%s", path, suffix);
  return arena_printf(a, "%.*s%s%s", (int)(dot - path), path, suffix, dot);
}

static int64_t round256(int64_t x) { return (x + 255) / 256 * 256; }

static TrainParam *bound(TrainSpec *ts, int i) { return i < ts->n_params ? &ts->params[i] : &ts->stats[i - ts->n_params]; }

static void reset_bufs(Ctx *ctx) {
  for (int i = 0; i < 5; i++) ctx->emit_bufs[i].len = 0;
}

/* One graph as an ordinary CUDA model under prefix `prefix`. */
static void emit_part(Ctx *ctx, Graph *g, const char *prefix, const char *c_path, const char *h_path) {
  const char *save = ctx->prefix;
  reset_bufs(ctx);
  ctx->prefix = prefix;
  emit_cuda_model(ctx, g, c_path, h_path);
  ctx->prefix = save;
  reset_bufs(ctx);
}

/* The update kernel of parameter i (device code). */
static void emit_update_kernel(Emit *e, TrainSpec *ts, int i, bool nvrtc, const char *P) {
  TrainParam *p = &ts->params[i];
  int dt = p->dtype;
  const char *T = c_type(dt);
  int64_t n = p->bytes / (int64_t)dtype_size(dt);
  ep(e, "/* %s */", p->name);
  ep(e, "%s__global__ void %s_upd%d(%s *p, const %s *g, %s *m, %s *v, int first, double neg_step, double bc2_sqrt) {",
     nvrtc ? "extern \"C\" " : "static ", P, i, T, T, T, T);
  ep(e, "long long i;");
  ep(e, "(void)m, (void)v, (void)first, (void)neg_step, (void)bc2_sqrt;");
  ep(e, "for (i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < %lldLL; i += (long long)blockDim.x * gridDim.x) {",
     (long long)n);
  train_emit_update_body(e, &ts->opt, dt);
  ep(e, "}");
  ep(e, "}");
}

void emit_cuda_train(Ctx *ctx, TrainSpec *ts, const char *c_path, const char *h_path) {
  Arena *a = &ctx->arena;
  bool nvrtc = ctx->target == TARGET_CUDA_NVRTC;
  const char *P = ctx->prefix, *UP = cu_upper(a, P);
  const char *PS = arena_printf(a, "%s_step", P), *PI = arena_printf(a, "%s_infer", P);
  Graph *tg = ts->train, *ig = ts->infer;
  int np = ts->n_params, ns = np + ts->n_stats;
  if (tg->outputs.n != 1 + ns) fail(ctx, "--train: internal error: the step graph has %d outputs, expected %d", tg->outputs.n, 1 + ns);
  Value *loss = tg->outputs.v[0];
  if (loss->dtype != DT_FLOAT && loss->dtype != DT_DOUBLE) fail(ctx, "--train: the loss must be float or double");
  const char *LT = c_type(loss->dtype);

  /* the two graphs, each a model of its own */
  const char *step_c = with_suffix(a, c_path, "_step"), *step_h = with_suffix(a, h_path, "_step");
  const char *inf_c = with_suffix(a, c_path, "_infer"), *inf_h = with_suffix(a, h_path, "_infer");
  emit_part(ctx, tg, PS, step_c, step_h);
  emit_part(ctx, ig, PI, inf_c, inf_h);

  /* ---- device layout of the driver ---- */
  int64_t off = round256(ts->state_bytes), loss_off = off;
  off += 256;
  int64_t *slot = arena_alloc(a, sizeof(int64_t) * (size_t)(ns + 1));
  for (int i = 0; i < ns; i++) {
    slot[i] = off;
    off += round256(bound(ts, i)->bytes);
  }
  int nsd = tg->inputs.n - ns, nid = ig->inputs.n - ns, nio = ig->outputs.n;
  int64_t *s_in = arena_alloc(a, sizeof(int64_t) * (size_t)(nsd + 1));
  int64_t *i_in = arena_alloc(a, sizeof(int64_t) * (size_t)(nid + 1));
  int64_t *i_out = arena_alloc(a, sizeof(int64_t) * (size_t)(nio + 1));
  for (int j = 0; j < nsd; j++) {
    s_in[j] = off;
    off += round256(value_bytes(tg->inputs.v[ns + j]));
  }
  for (int j = 0; j < nid; j++) {
    i_in[j] = off;
    off += round256(value_bytes(ig->inputs.v[ns + j]));
  }
  for (int j = 0; j < nio; j++) {
    i_out[j] = off;
    off += round256(value_bytes(ig->outputs.v[j]));
  }
  int64_t dev_bytes = off;
  Buf *hdr = &ctx->emit_bufs[1];
  int64_t H, total;
  train_state_header(ctx, ts, hdr, &H, &total);
  Buf header_bytes = {0};
  buf_put(&header_bytes, hdr->p, hdr->len);
  hdr->len = 0;

  /* ---- device code: the update kernels ---- */
  Buf *db = &ctx->emit_bufs[2];
  Emit de = {.ctx = ctx, .out = db, .cuda = true};
  buf_printf(db, "/* ---- device code%s: the optimizer's update, one kernel per parameter ---- */\n",
             nvrtc ? " (NVRTC)" : "");
  for (int i = 0; i < np; i++) emit_update_kernel(&de, ts, i, nvrtc, P);

  /* ---- user-facing parameter lists ---- */
  const char *sparams = "", *sargs_dev = "", *snull = "";
  for (int j = 0; j < nsd; j++) {
    Value *v = tg->inputs.v[ns + j];
    const char *nm = arena_printf(a, "in%d_%s", j, c_ident(a, v->name, 32));
    sparams = arena_printf(a, "%s,\n    const %s *%s /* %s %s%s */", sparams, c_type(v->dtype), nm, v->name,
                           dtype_name(v->dtype), shape_str(a, v));
    sargs_dev = arena_printf(a, "%s  d[%d] = %s;\n", sargs_dev, j, nm);
    snull = arena_printf(a, "%s || !%s", snull, nm);
  }
  sparams = arena_printf(a, "%s,\n    %s *loss /* host scalar; may be NULL */", sparams, LT);
  const char *iparams = "", *inull = "", *iset = "";
  for (int j = 0; j < nid; j++) {
    Value *v = ig->inputs.v[ns + j];
    const char *nm = arena_printf(a, "in%d_%s", j, c_ident(a, v->name, 32));
    iparams = arena_printf(a, "%s,\n    const %s *%s /* %s %s%s */", iparams, c_type(v->dtype), nm, v->name,
                           dtype_name(v->dtype), shape_str(a, v));
    inull = arena_printf(a, "%s || !%s", inull, nm);
    iset = arena_printf(a, "%s  in[%d] = %s;\n", iset, j, nm);
  }
  for (int j = 0; j < nio; j++) {
    Value *v = ig->outputs.v[j];
    const char *nm = arena_printf(a, "out%d_%s", j, c_ident(a, v->name, 32));
    iparams = arena_printf(a, "%s,\n    %s *%s /* %s %s%s */", iparams, c_type(v->dtype), nm, v->name, dtype_name(v->dtype),
                           shape_str(a, v));
    inull = arena_printf(a, "%s || !%s", inull, nm);
    iset = arena_printf(a, "%s  out[%d] = %s;\n", iset, j, nm);
  }

  /* ---- header ---- */
  Buf *hb = &ctx->emit_bufs[3];
  const char *model_file = cu_base_name(ctx->file);
  buf_printf(hb, "/* Generated by onnxc %s from %s (--train --target %s). Do not edit. */\n", ONNXC_VERSION, model_file,
             nvrtc ? "cuda-nvrtc" : "cuda");
  buf_printf(hb, "#ifndef %s_H\n#define %s_H\n\n#include <stddef.h>\n#include <stdint.h>\n#include \"onnxc_rt_cuda.h\"\n\n", UP, UP);
  buf_printf(hb, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  buf_printf(hb,
             "/* Training of %s on the GPU: %s_cuda_train_step runs forward, the loss, the gradients and one\n"
             "   %s update of the parameters; %s_cuda_infer runs the model with the current parameters.\n"
             "   The state (parameters, running statistics, optimizer buffers) lives in device memory\n"
             "   owned by the context.  Link this file with %s and %s.  Every function\n"
             "   returns 0 (ONNXC_OK) or an onnxc_status; %s_cuda_train_error says why. */\n",
             model_file, P, ts->opt.kind == OPT_SGD ? "SGD" : "AdamW", P, cu_base_name(step_c), cu_base_name(inf_c), P);
  buf_printf(hb, "#define %s_N_PARAMS %d\n#define %s_N_STATS %d\n", UP, np, UP, ts->n_stats);
  buf_printf(hb, "/* bytes of a saved state (the C backend's --train format: the blobs are interchangeable) */\n"
                 "#define %s_STATE_BLOB_BYTES %lld\n", UP, (long long)total);
  buf_printf(hb, "/* the driver's device allocation (the two graphs' contexts hold their own) */\n"
                 "#define %s_TRAIN_DEVICE_BYTES %lld\n\n", UP, (long long)dev_bytes);
  buf_printf(hb, "typedef struct %s_cuda_train %s_cuda_train;\n\n", P, P);
  buf_printf(hb, "/* Creates the context (both graphs' contexts, the device state) and initializes the state\n"
                 "   from the model's weights.  opt may be NULL.  On failure *ctx may still be set:\n"
                 "   %s_cuda_train_error says why; destroy it. */\n", P);
  buf_printf(hb, "int %s_cuda_train_create(%s_cuda_train **ctx, const onnxc_cuda_options *opt);\n", P, P);
  buf_printf(hb, "void %s_cuda_train_destroy(%s_cuda_train *ctx);\n", P, P);
  buf_printf(hb, "/* Resets the state: the model's weights, zero optimizer buffers, step count 0. */\n");
  buf_printf(hb, "int %s_cuda_train_init(%s_cuda_train *ctx);\n", P, P);
  buf_printf(hb, "/* One step on a batch in device memory; the loss (before the update) goes to *loss. */\n");
  buf_printf(hb, "int %s_cuda_train_step(%s_cuda_train *ctx%s);\n", P, P, sparams);
  buf_printf(hb, "/* The same with the batch in host memory (copied in first). */\n");
  buf_printf(hb, "int %s_cuda_train_step_host(%s_cuda_train *ctx%s);\n", P, P, sparams);
  buf_printf(hb, "/* Inference with the current state: device pointers (returns when done). */\n");
  buf_printf(hb, "int %s_cuda_infer(%s_cuda_train *ctx%s);\n", P, P, iparams);
  buf_printf(hb, "/* The same with host pointers. */\n");
  buf_printf(hb, "int %s_cuda_infer_host(%s_cuda_train *ctx%s);\n", P, P, iparams);
  buf_printf(hb, "/* Writes the state to blob (host memory) in the saved-state format; returns the bytes\n"
                 "   written (%s_STATE_BLOB_BYTES), or 0 when a pointer is NULL, cap is too small or a copy\n"
                 "   fails. */\n", UP);
  buf_printf(hb, "size_t %s_cuda_state_save(%s_cuda_train *ctx, void *blob, size_t cap);\n", P, P);
  buf_printf(hb, "/* Reads a saved state (ONNXC_ERR_FORMAT, state unchanged, when the blob is not one of this\n"
                 "   model and optimizer, or is truncated or corrupted). */\n");
  buf_printf(hb, "int %s_cuda_state_load(%s_cuda_train *ctx, const void *blob, size_t len);\n", P, P);
  buf_printf(hb, "uint64_t %s_cuda_train_steps(const %s_cuda_train *ctx);\n", P, P);
  buf_printf(hb, "const char *%s_cuda_train_error(const %s_cuda_train *ctx);\n", P, P);
  buf_printf(hb, "/* The update kernels (tools: NVRTC checks); the graphs' are in %s_cuda_model and\n"
                 "   %s_cuda_model. */\nextern const onnxc_cuda_kernels %s_cuda_train_kernels;\n\n", PS, PI, P);
  buf_printf(hb, "#ifdef __cplusplus\n}\n#endif\n#endif\n");
  emit_write_file(ctx, h_path, hb);

  /* ---- the driver file ---- */
  Buf *cb = &ctx->emit_bufs[0];
  Emit e = {.ctx = ctx, .out = cb};
  buf_printf(cb, "/* Generated by onnxc %s from %s (--train --target %s). Do not edit. */\n", ONNXC_VERSION, model_file,
             nvrtc ? "cuda-nvrtc" : "cuda");
  buf_printf(cb, "#include <math.h>\n#include <string.h>\n\n#include \"%s\"\n#include \"%s\"\n#include \"%s\"\n\n",
             cu_base_name(h_path), cu_base_name(step_h), cu_base_name(inf_h));
  char hash[32];
  snprintf(hash, sizeof hash, "%016llx", (unsigned long long)cu_fnv1a(db->p ? db->p : "", db->len));
  int nparts = 0;
  if (nvrtc) nparts = cu_source_parts(ctx, cb, db, arena_printf(a, "%s_train", P));
  else buf_put(cb, db->p, db->len);
  buf_puts(cb, "\n/* ---- host code ---- */\n\n");
  const char **init = train_emit_inits(&e, ts); /* initial values */
  buf_printf(cb, "\nstatic const char *const %s_train_knames[] = {", P);
  for (int i = 0; i < np; i++) buf_printf(cb, "%s\n  \"%s_upd%d\"", i ? "," : "", P, i);
  buf_printf(cb, "%s};\n", np ? "\n" : "0");
  if (!nvrtc) {
    buf_printf(cb, "#ifdef ONNXC_CUDA_EMULATE /* tests/cuda/emu: the kernels run on the CPU */\n");
    for (int i = 0; i < np; i++) {
      const char *T = c_type(ts->params[i].dtype);
      buf_printf(cb,
                 "static void %s_upd%d_emu(void **a) { %s_upd%d(*(%s **)a[0], *(const %s **)a[1], *(%s **)a[2], "
                 "*(%s **)a[3], *(int *)a[4], *(double *)a[5], *(double *)a[6]); }\n",
                 P, i, P, i, T, T, T, T);
    }
    buf_printf(cb, "#define ONNXC_KFN(k) (const void *)k##_emu\n#else\n#define ONNXC_KFN(k) (const void *)k\n#endif\n");
    buf_printf(cb, "static const void *const %s_train_kfns[] = {", P);
    for (int i = 0; i < np; i++) buf_printf(cb, "%s\n  ONNXC_KFN(%s_upd%d)", i ? "," : "", P, i);
    buf_printf(cb, "%s};\n", np ? "\n" : "0");
    buf_printf(cb, "const onnxc_cuda_kernels %s_cuda_train_kernels = {%d, %s_train_knames, %s_train_kfns, 0, 0, 0, 0};\n\n",
               P, np, P, P);
  } else {
    buf_printf(cb, "const onnxc_cuda_kernels %s_cuda_train_kernels = {%d, %s_train_knames, 0, %d, %s_train_parts, \"%s\", 0};\n\n",
               P, np, P, nparts, P, hash);
  }
  buf_printf(cb, "static const unsigned char %s_state_header[%lld] = {", P, (long long)H);
  for (int64_t i = 0; i < H; i++) buf_printf(cb, "%s%u,", i % 16 ? " " : "\n  ", (unsigned)(unsigned char)header_bytes.p[i]);
  buf_puts(cb, "\n};\n\n");
  buf_free(&header_bytes);
  buf_printf(cb, "static uint32_t %s_state_fnv1a(const unsigned char *p, size_t n) {\n"
                 "  uint32_t h = 2166136261u;\n  size_t i;\n"
                 "  for (i = 0; i < n; i++) {\n    h ^= p[i];\n    h *= 16777619u;\n  }\n  return h;\n}\n\n", P);
  buf_printf(cb, "static const uint32_t %s_state_bom = 0x01020304u;\n\n", P);
  buf_printf(cb, "struct %s_cuda_train {\n  onnxc_cuda_rt rt;\n  const void *kernels[%d];\n  void *step, *infer;\n"
                 "  uint64_t steps;\n  int part; /* what failed last: 0 the driver, 1 the step graph, 2 inference */\n};\n\n",
             P, np ? np : 1);

  /* init */
  buf_printf(cb, "int %s_cuda_train_init(%s_cuda_train *c) {\n", P, P);
  e.indent = 1;
  ep(&e, "if (!c || !c->rt.dev) return ONNXC_ERR_NULL;");
  ep(&e, "c->part = 0;");
  ep(&e, "ONNXC_CUDA_TRY(onnxc_cuda_zero(&c->rt, c->rt.dev, %lld));", (long long)ts->state_bytes);
  for (int i = 0; i < ns; i++)
    if (bound(ts, i)->bytes)
      ep(&e, "ONNXC_CUDA_TRY(onnxc_cuda_copy(&c->rt, c->rt.dev + %lld, %s, %lld, 0));", (long long)bound(ts, i)->off, init[i],
         (long long)bound(ts, i)->bytes);
  ep(&e, "c->steps = 0;");
  ep(&e, "return onnxc_cuda_sync(&c->rt);");
  e.indent = 0;
  buf_puts(cb, "}\n\n");

  /* create / destroy */
  buf_printf(cb, "int %s_cuda_train_create(%s_cuda_train **ctx, const onnxc_cuda_options *opt) {\n", P, P);
  buf_printf(cb, "  %s_cuda_train *c;\n  int st;\n  if (!ctx) return ONNXC_ERR_NULL;\n  *ctx = 0;\n", P);
  buf_printf(cb, "  st = onnxc_cuda_host_alloc((void **)&c, sizeof *c);\n  if (st != ONNXC_OK) return st;\n");
  buf_printf(cb, "  memset(c, 0, sizeof *c);\n  *ctx = c;\n");
  buf_printf(cb, "  st = onnxc_cuda_rt_init(&c->rt, opt, &%s_cuda_train_kernels, c->kernels, %lld);\n", P, (long long)dev_bytes);
  buf_printf(cb, "  if (st != ONNXC_OK) return st;\n");
  buf_printf(cb, "  c->part = 1;\n  st = %s_cuda_model.create(&c->step, opt);\n  if (st != ONNXC_OK) return st;\n", PS);
  buf_printf(cb, "  c->part = 2;\n  st = %s_cuda_model.create(&c->infer, opt);\n  if (st != ONNXC_OK) return st;\n", PI);
  buf_printf(cb, "  return %s_cuda_train_init(c);\n}\n\n", P);
  buf_printf(cb, "void %s_cuda_train_destroy(%s_cuda_train *c) {\n  if (!c) return;\n", P, P);
  buf_printf(cb, "  if (c->step) %s_cuda_model.destroy(c->step);\n  if (c->infer) %s_cuda_model.destroy(c->infer);\n", PS, PI);
  buf_printf(cb, "  onnxc_cuda_rt_free(&c->rt);\n  onnxc_cuda_host_free(c);\n}\n\n");

  /* the step over device pointers of the batch */
  buf_printf(cb, "static int %s_step_io(%s_cuda_train *c, const void *const *d, %s *loss) {\n", P, P, LT);
  e.indent = 1;
  ep(&e, "unsigned char *D = c->rt.dev;");
  ep(&e, "const void *in[%d];", tg->inputs.n);
  ep(&e, "void *out[%d];", tg->outputs.n);
  ep(&e, "int first;");
  ep(&e, "double neg_step = 0.0, bc2_sqrt = 0.0;");
  for (int i = 0; i < ns; i++) ep(&e, "in[%d] = D + %lld;", i, (long long)bound(ts, i)->off);
  for (int j = 0; j < nsd; j++) ep(&e, "in[%d] = d[%d];", ns + j, j);
  ep(&e, "out[0] = D + %lld;", (long long)loss_off);
  for (int i = 0; i < ns; i++) ep(&e, "out[%d] = D + %lld;", 1 + i, (long long)slot[i]);
  if (!nsd) ep(&e, "(void)d;");
  ep(&e, "c->part = 1;");
  ep(&e, "ONNXC_CUDA_TRY(%s_cuda_model.run(c->step, in, out));", PS);
  ep(&e, "ONNXC_CUDA_TRY(%s_cuda_model.sync(c->step));", PS);
  ep(&e, "c->part = 0;");
  for (int i = np; i < ns; i++)
    ep(&e, "ONNXC_CUDA_TRY(onnxc_cuda_copy(&c->rt, D + %lld, D + %lld, %lld, 2)); /* %s */", (long long)bound(ts, i)->off,
       (long long)slot[i], (long long)bound(ts, i)->bytes, bound(ts, i)->name);
  ep(&e, "c->steps++;");
  ep(&e, "first = c->steps == 1;");
  if (ts->opt.kind == OPT_ADAMW) {
    ep(&e, "neg_step = -%.17g / (1.0 - pow(%.17g, (double)c->steps));", ts->opt.lr, ts->opt.beta1);
    ep(&e, "bc2_sqrt = sqrt(1.0 - pow(%.17g, (double)c->steps));", ts->opt.beta2);
  }
  for (int i = 0; i < np; i++) {
    TrainParam *p = &ts->params[i];
    const char *T = c_type(p->dtype);
    int64_t n = p->bytes / (int64_t)dtype_size(p->dtype), grid = (n + 255) / 256;
    if (grid < 1) grid = 1;
    if (grid > 65535LL * 32) grid = 65535LL * 32;
    ep(&e, "/* %s */", p->name);
    ep(&e, "{");
    ep(&e, "%s *p = (%s *)(D + %lld);", T, T, (long long)p->off);
    ep(&e, "const %s *g = (const %s *)(D + %lld);", T, T, (long long)slot[i]);
    ep(&e, "%s *m = (%s *)(D + %lld);", T, T, (long long)(p->off_buf[0] >= 0 ? p->off_buf[0] : p->off));
    ep(&e, "%s *v = (%s *)(D + %lld);", T, T, (long long)(p->off_buf[1] >= 0 ? p->off_buf[1] : p->off));
    ep(&e, "void *args[7];");
    ep(&e, "args[0] = (void *)&p, args[1] = (void *)&g, args[2] = (void *)&m, args[3] = (void *)&v;");
    ep(&e, "args[4] = (void *)&first, args[5] = (void *)&neg_step, args[6] = (void *)&bc2_sqrt;");
    ep(&e, "ONNXC_CUDA_TRY(onnxc_cuda_launch(&c->rt, %d, %lldu, 256u, args));", i, (long long)grid);
    ep(&e, "}");
  }
  ep(&e, "if (loss) ONNXC_CUDA_TRY(onnxc_cuda_copy(&c->rt, loss, D + %lld, sizeof *loss, 1));", (long long)loss_off);
  ep(&e, "return onnxc_cuda_sync(&c->rt);");
  e.indent = 0;
  buf_puts(cb, "}\n\n");
  for (int host = 0; host < 2; host++) {
    buf_printf(cb, "int %s_cuda_train_step%s(%s_cuda_train *c%s) {\n", P, host ? "_host" : "", P, sparams);
    buf_printf(cb, "  const void *d[%d] = {0};\n", nsd ? nsd : 1);
    buf_printf(cb, "  if (!c || !c->rt.dev%s) return ONNXC_ERR_NULL;\n", snull);
    if (!host) {
      buf_puts(cb, sargs_dev);
    } else {
      for (int j = 0; j < nsd; j++) {
        Value *v = tg->inputs.v[ns + j];
        const char *nm = arena_printf(a, "in%d_%s", j, c_ident(a, v->name, 32));
        buf_printf(cb, "  d[%d] = c->rt.dev + %lld;\n", j, (long long)s_in[j]);
        buf_printf(cb, "  ONNXC_CUDA_TRY(onnxc_cuda_copy(&c->rt, c->rt.dev + %lld, %s, %lld, 0));\n", (long long)s_in[j], nm,
                   (long long)value_bytes(v));
      }
      buf_printf(cb, "  ONNXC_CUDA_TRY(onnxc_cuda_sync(&c->rt));\n");
    }
    buf_printf(cb, "  return %s_step_io(c, d, loss);\n}\n\n", P);
  }

  /* inference */
  buf_printf(cb, "static int %s_infer_io(%s_cuda_train *c, const void *const *d, void *const *o) {\n", P, P);
  e.indent = 1;
  ep(&e, "const void *in[%d];", ig->inputs.n);
  for (int i = 0; i < ns; i++) ep(&e, "in[%d] = c->rt.dev + %lld;", i, (long long)bound(ts, i)->off);
  for (int j = 0; j < nid; j++) ep(&e, "in[%d] = d[%d];", ns + j, j);
  if (!nid) ep(&e, "(void)d;");
  ep(&e, "c->part = 2;");
  ep(&e, "ONNXC_CUDA_TRY(%s_cuda_model.run(c->infer, in, o));", PI);
  ep(&e, "ONNXC_CUDA_TRY(%s_cuda_model.sync(c->infer));", PI);
  ep(&e, "c->part = 0;");
  ep(&e, "return ONNXC_OK;");
  e.indent = 0;
  buf_puts(cb, "}\n\n");
  for (int host = 0; host < 2; host++) {
    buf_printf(cb, "int %s_cuda_infer%s(%s_cuda_train *c%s) {\n", P, host ? "_host" : "", P, iparams);
    buf_printf(cb, "  const void *in[%d] = {0};\n  void *out[%d] = {0};\n", nid ? nid : 1, nio ? nio : 1);
    buf_printf(cb, "  if (!c || !c->rt.dev%s) return ONNXC_ERR_NULL;\n", inull);
    buf_puts(cb, iset);
    if (!host) {
      buf_printf(cb, "  return %s_infer_io(c, in, out);\n}\n\n", P);
      continue;
    }
    buf_printf(cb, "  {\n    const void *din[%d] = {0};\n    void *dout[%d] = {0};\n", nid ? nid : 1, nio ? nio : 1);
    for (int j = 0; j < nid; j++) {
      buf_printf(cb, "    din[%d] = c->rt.dev + %lld;\n", j, (long long)i_in[j]);
      buf_printf(cb, "    ONNXC_CUDA_TRY(onnxc_cuda_copy(&c->rt, c->rt.dev + %lld, in[%d], %lld, 0));\n", (long long)i_in[j], j,
                 (long long)value_bytes(ig->inputs.v[ns + j]));
    }
    for (int j = 0; j < nio; j++) buf_printf(cb, "    dout[%d] = c->rt.dev + %lld;\n", j, (long long)i_out[j]);
    buf_printf(cb, "    ONNXC_CUDA_TRY(onnxc_cuda_sync(&c->rt));\n");
    buf_printf(cb, "    ONNXC_CUDA_TRY(%s_infer_io(c, din, dout));\n", P);
    for (int j = 0; j < nio; j++)
      buf_printf(cb, "    ONNXC_CUDA_TRY(onnxc_cuda_copy(&c->rt, out[%d], c->rt.dev + %lld, %lld, 1));\n", j,
                 (long long)i_out[j], (long long)value_bytes(ig->outputs.v[j]));
    buf_printf(cb, "    return onnxc_cuda_sync(&c->rt);\n  }\n}\n\n");
  }

  /* save / load / steps / error */
  int64_t data = ts->state_bytes - ts->state_data;
  buf_printf(cb,
             "size_t %s_cuda_state_save(%s_cuda_train *c, void *blob, size_t cap) {\n"
             "  unsigned char *B = (unsigned char *)blob;\n"
             "  uint64_t t;\n  uint32_t h;\n  int i;\n"
             "  if (!c || !c->rt.dev || !B || cap < %lldu) return 0;\n"
             "  memcpy(B, %s_state_header, %lld);\n"
             "  t = c->steps;\n"
             "  for (i = 0; i < 8; i++) B[32 + i] = (unsigned char)(t >> (8 * i));\n"
             "  memcpy(B + 44, &%s_state_bom, 4);\n"
             "  c->part = 0;\n"
             "  if (onnxc_cuda_copy(&c->rt, B + %lld, c->rt.dev + %lld, %lld, 1) != ONNXC_OK || onnxc_cuda_sync(&c->rt) != ONNXC_OK)\n"
             "    return 0;\n"
             "  h = %s_state_fnv1a(B + 16, %lld);\n"
             "  for (i = 0; i < 4; i++) B[12 + i] = (unsigned char)(h >> (8 * i));\n"
             "  return %lldu;\n}\n\n",
             P, P, (long long)total, P, (long long)H, P, (long long)H, (long long)ts->state_data, (long long)data, P,
             (long long)(total - 16), (long long)total);
  buf_printf(cb,
             "int %s_cuda_state_load(%s_cuda_train *c, const void *blob, size_t len) {\n"
             "  const unsigned char *B = (const unsigned char *)blob;\n"
             "  uint64_t t = 0;\n  uint32_t h = 0;\n  int i;\n"
             "  if (!c || !c->rt.dev || !B) return ONNXC_ERR_NULL;\n"
             "  if (len != %lldu || memcmp(B, %s_state_header, 12) != 0 || memcmp(B + 16, %s_state_header + 16, 16) != 0 ||\n"
             "      memcmp(B + 40, %s_state_header + 40, 4) != 0 || memcmp(B + 44, &%s_state_bom, 4) != 0 ||\n"
             "      memcmp(B + 48, %s_state_header + 48, %lld) != 0)\n"
             "    return ONNXC_ERR_FORMAT;\n"
             "  for (i = 0; i < 4; i++) h |= (uint32_t)B[12 + i] << (8 * i);\n"
             "  if (h != %s_state_fnv1a(B + 16, %lld)) return ONNXC_ERR_FORMAT;\n"
             "  for (i = 0; i < 8; i++) t |= (uint64_t)B[32 + i] << (8 * i);\n"
             "  c->part = 0;\n"
             "  ONNXC_CUDA_TRY(onnxc_cuda_copy(&c->rt, c->rt.dev + %lld, B + %lld, %lld, 0));\n"
             "  ONNXC_CUDA_TRY(onnxc_cuda_sync(&c->rt));\n"
             "  c->steps = t;\n"
             "  return ONNXC_OK;\n}\n\n",
             P, P, (long long)total, P, P, P, P, P, (long long)(H - 48), P, (long long)(total - 16), (long long)ts->state_data,
             (long long)H, (long long)data);
  buf_printf(cb, "uint64_t %s_cuda_train_steps(const %s_cuda_train *c) { return c ? c->steps : 0; }\n\n", P, P);
  buf_printf(cb,
             "const char *%s_cuda_train_error(const %s_cuda_train *c) {\n"
             "  if (!c) return \"no context\";\n"
             "  if (c->part == 1 && c->step) return %s_cuda_model.error(c->step);\n"
             "  if (c->part == 2 && c->infer) return %s_cuda_model.error(c->infer);\n"
             "  return onnxc_cuda_error(&c->rt);\n}\n",
             P, P, PS, PI);
  emit_write_file(ctx, c_path, cb);
  reset_bufs(ctx);
}
