/*
 * pipeline.c - the compiler, as one list of stages.
 *
 *   load_onnx        protobuf -> IR, checks of files, tensors, opsets; inlines functions
 *   graph_verify     names defined, single producers, acyclic; topological order
 *   infer_and_fold   shape/type of every value; constant folding (Loops whose body changes
 *                    form per iteration are unrolled on the way: unroll.c)
 *   flatten_outputs  sequence and optional outputs become tensors grouped in ports (ports.c)
 *   autodiff         --gradients only: loss and gradient graph (autodiff.c); with
 *                    --recompute, cheap forward values recomputed (recompute.c) -- planned
 *                    both ways, the smaller arena kept (keep_smaller)
 *   eliminate_dead   drop nodes nobody needs and nodes folded to constants
 *   optimize_graph   fusion into Conv/Gemm/MatMul epilogues, weight layouts (optimize.c);
 *                    CUDA targets: also fuse_elementwise (trees of elementwise nodes)
 *   schedule_graph   execution order
 *   plan_memory      live ranges, views, arena offsets (checked)
 *   plan_string_heap the string heap after the planned tensors (ops_string.c)
 *   emit_c_model     net.c + net.h (C); emit_cuda_model: net.cu or net.c + net.h (CUDA)
 *
 * --train runs the same stages over three loads of the model (compile_train below): the
 * parameters as run-time values, a training step and an inference graph, one C file.
 *
 * Each stage is a free function over the IR with its precondition in its file's header
 * comment; --dump-ir prints the IR after each stage.
 */
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx.pb-c.h"
#include "onnxc.h"

static void dump(Ctx *ctx, const char *stage) {
  if (ctx->dump_ir) graph_dump(ctx, ctx->graph, stderr, stage);
}

static char *dirname_of(Arena *a, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return arena_strdup(a, ".");
  if (slash == path) return arena_strdup(a, "/");
  char *d = arena_alloc(a, (size_t)(slash - path) + 1);
  memcpy(d, path, (size_t)(slash - path));
  return d;
}

static char *default_prefix(Arena *a, const char *out_c) {
  const char *base = strrchr(out_c, '/');
  base = base ? base + 1 : out_c;
  char *p = arena_strdup(a, base);
  char *dot = strrchr(p, '.');
  if (dot && dot != p) *dot = 0;
  return p;
}

/* Plans every order (or the one --order names) and keeps the smallest arena; ties go to the
   earlier order in the list, so the result is deterministic. */
static void plan_best_order(Ctx *ctx, Graph *g) {
  int best = -1;
  int64_t best_bytes = 0;
  for (int i = 0; i < schedule_order_count(); i++) {
    const char *name = schedule_order_name(i);
    if (ctx->order_name && strcmp(ctx->order_name, name)) continue;
    if (!schedule_graph_order(ctx, g, name)) continue;
    plan_memory(ctx, g);
    if (ctx->verbose > 1)
      fprintf(stderr, "onnxc: order %-6s arena %lld bytes (live-bytes bound %lld)\n", name,
              (long long)g->arena_bytes, (long long)g->live_bound);
    if (best < 0 || g->arena_bytes < best_bytes) { best = i; best_bytes = g->arena_bytes; }
  }
  if (best < 0) {
    if (ctx->order_name && !schedule_graph_order(ctx, g, ctx->order_name))
      fail(ctx, "order '%s' does not apply to this graph (too many nodes)", ctx->order_name);
    fail(ctx, "unknown order '%s' (model, dfs, kahn, greedy, beam)", ctx->order_name ? ctx->order_name : "");
  }
  ctx->order_name = schedule_order_name(best);
  schedule_graph_order(ctx, g, ctx->order_name);
  plan_memory(ctx, g);
  /* Memory-lean kernels: a node's scratch may use only the slack its step leaves below the
     peak of live tensors plus the headroom (--scratch-headroom percent of that peak); kernels
     with several forms (Winograd tile rows, im2col tiles, direct loops) pick one that fits.
     Kept when the arena shrinks. */
  int64_t before = g->arena_bytes, peak = 0;
  int64_t *live = calloc((size_t)g->sched.n + 1, sizeof(int64_t));
  if (!live) abort();
  for (int s = 0; s < g->sched.n; s++) {
    Node *n = g->sched.v[s];
    live[s] = plan_live_at(g, s) - (n->scratch_bytes > 0 ? n->scratch_bytes : 0);
    if (live[s] > peak) peak = live[s];
  }
  int64_t top = peak + peak / 100 * ctx->scratch_headroom + peak % 100 * ctx->scratch_headroom / 100;
  bool any = false;
  for (int s = 0; s < g->sched.n; s++) {
    Node *n = g->sched.v[s];
    if (n->scratch_bytes > 0 && n->scratch_bytes > top - live[s]) {
      n->scratch_cap = top - live[s];
      any = true;
    }
  }
  free(live);
  if (any) {
    plan_memory(ctx, g);
    if (g->arena_bytes >= before) {
      for (int s = 0; s < g->sched.n; s++) ((Node *)g->sched.v[s])->scratch_cap = -1;
      plan_memory(ctx, g);
    }
  }
  /* Then fit each scratch into the largest gap its step has in the current placement. */
  for (int iter = 0; iter < 3 && g->arena_bytes > g->live_bound; iter++) {
    int64_t cur = g->arena_bytes;
    int64_t *saved = calloc((size_t)g->sched.n + 1, sizeof(int64_t));
    if (!saved) abort();
    bool changed = false;
    for (int s = 0; s < g->sched.n; s++) {
      Node *n = g->sched.v[s];
      saved[s] = n->scratch_cap;
      if (n->scratch_bytes <= 0) continue;
      int64_t gap = plan_largest_gap(g, s);
      if (gap < n->scratch_bytes) { n->scratch_cap = gap; changed = true; }
    }
    if (!changed) { free(saved); break; }
    plan_memory(ctx, g);
    if (g->arena_bytes >= cur) {
      for (int s = 0; s < g->sched.n; s++) ((Node *)g->sched.v[s])->scratch_cap = saved[s];
      plan_memory(ctx, g);
      free(saved);
      break;
    }
    free(saved);
  }
}

/* Max over nodes of the intermediate bytes one node reads and writes (the per-node bound). */
static int64_t per_node_bound(Graph *g) {
  int64_t best = 0;
  for (int s = 0; s < g->sched.n; s++) {
    Node *n = g->sched.v[s];
    int64_t b = 0;
    for (int k = 0; k < n->n_inputs; k++)
      if (n->inputs[k] && !n->inputs[k]->data && n->inputs[k]->kind == VAL_INTERMEDIATE && !n->inputs[k]->is_output)
        b += value_bytes(n->inputs[k]);
    for (int k = 0; k < n->n_outputs; k++)
      if (n->outputs[k] && !n->outputs[k]->is_output) b += value_bytes(n->outputs[k]);
    if (b > best) best = b;
  }
  return best;
}

static int64_t weights_bytes(Graph *g) {
  int64_t w = 0;
  for (int i = 0; i < g->values.n; i++) {
    Value *v = g->values.v[i];
    if (!v->data) continue;
    bool used = false;
    for (int s = 0; s < g->sched.n && !used; s++) {
      Node *n = g->sched.v[s];
      for (int k = 0; k < n->n_inputs; k++)
        if (n->inputs[k] == v) used = true;
    }
    if (used || v->is_output) w += value_bytes(v);
  }
  return w;
}

static void write_reports(Ctx *ctx, const CompileOptions *opt) {
  Graph *g = ctx->graph;
  if (opt->memory_report) {
    FILE *f = fopen(opt->memory_report, "w");
    if (!f) fail(ctx, "cannot write '%s'", opt->memory_report);
    plan_report_json(ctx, g, f, weights_bytes(g), per_node_bound(g));
    fclose(f);
  }
  if (opt->memory_svg) {
    FILE *f = fopen(opt->memory_svg, "w");
    if (!f) fail(ctx, "cannot write '%s'", opt->memory_svg);
    plan_report_svg(ctx, g, f);
    fclose(f);
  }
  if (ctx->verbose)
    fprintf(stderr, "onnxc: %s: %d nodes, order %s, arena %lld bytes (live-bytes bound %lld, per-node bound %lld), weights %lld bytes\n",
            ctx->file, g->sched.n, ctx->order_name, (long long)g->arena_bytes, (long long)g->live_bound,
            (long long)per_node_bound(g), (long long)weights_bytes(g));
  if (ctx->verbose && g->has_heap)
    fprintf(stderr, "onnxc: %s: of the arena, %lld bytes are the string heap (at %lld; --string-bytes sets it)\n", ctx->file,
            (long long)g->heap_bytes, (long long)g->heap_offset);
}

static bool valid_ident(const char *s) {
  if (!*s || (*s >= '0' && *s <= '9')) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
      return false;
  return true;
}

static void parse_options(Ctx *ctx, const CompileOptions *opt) {
  for (int i = 0; i < opt->n_dims; i++) {
    const char *eq = strchr(opt->dims[i], '=');
    char *end = NULL;
    if (!eq || eq == opt->dims[i]) fail(ctx, "--dim expects NAME=VALUE, got '%s'", opt->dims[i]);
    long long val = strtoll(eq + 1, &end, 10);
    if (!*(eq + 1) || *end || val < 0) fail(ctx, "--dim %s: the value must be a non-negative integer", opt->dims[i]);
    ctx->dim_params[ctx->n_dim_params].name =
        arena_printf(&ctx->arena, "%.*s", (int)(eq - opt->dims[i]), opt->dims[i]);
    ctx->dim_params[ctx->n_dim_params++].value = val;
  }
  for (int i = 0; i < opt->n_const_inputs; i++) {
    const char *eq = strchr(opt->const_inputs[i], '=');
    if (!eq || eq == opt->const_inputs[i])
      fail(ctx, "--const-input expects NAME=FILE.pb, got '%s'", opt->const_inputs[i]);
    ctx->const_inputs[ctx->n_const_inputs].name =
        arena_printf(&ctx->arena, "%.*s", (int)(eq - opt->const_inputs[i]), opt->const_inputs[i]);
    ctx->const_inputs[ctx->n_const_inputs++].path = eq + 1;
  }
}

/* The model loaded afresh (its previous IR stays in the arena, unused). */
static void reload(Ctx *ctx) {
  if (ctx->model_proto) onnx__model_proto__free_unpacked(ctx->model_proto, NULL);
  ctx->model_proto = NULL;
  ctx->graph = NULL;
  load_onnx(ctx);
  dump(ctx, "load");
  graph_verify(ctx, ctx->graph);
  dump(ctx, "verify");
}

static void plan_graph(Ctx *ctx, const CompileOptions *opt, Graph *g) {
  eliminate_dead(ctx, g);
  dump(ctx, "dce");
  /* no optimize_graph: its fusions and packing assume constant weights */
  ctx->order_name = opt->order;
  plan_best_order(ctx, g);
}

/* The model loaded afresh with the parameters of ts as run-time inputs, inferred (eval:
   BatchNormalization on the running statistics). */
static void load_bound(Ctx *ctx, TrainSpec *ts, bool eval) {
  reload(ctx);
  if (ctx->graph->in_ports) fail(ctx, "--train: sequence and optional inputs are not supported");
  train_bind_params(ctx, ts, ctx->graph);
  if (eval) train_eval_mode(ctx, ctx->graph);
  infer_and_fold(ctx, ctx->graph);
  flatten_outputs(ctx, ctx->graph);
  if (ctx->graph->out_ports) fail(ctx, "--train: sequence and optional outputs are not supported");
  dump(ctx, "infer");
}

/* load .. plan of the model (inference, or --gradients) into ctx->graph */
static void compile_graph(Ctx *ctx, const CompileOptions *opt) {
  reload(ctx);
  infer_and_fold(ctx, ctx->graph);
  flatten_outputs(ctx, ctx->graph);
  dump(ctx, "infer");
  if (opt->gradients) {
    autodiff(ctx, ctx->graph, opt);
    dump(ctx, "autodiff");
  }
  eliminate_dead(ctx, ctx->graph);
  dump(ctx, "dce");
  optimize_graph(ctx, ctx->graph);
  if (ctx->target != TARGET_C) fuse_elementwise(ctx, ctx->graph);
  dump(ctx, "optimize");
  ctx->order_name = opt->order;
  plan_best_order(ctx, ctx->graph);
  plan_string_heap(ctx, ctx->graph);
}

/* The training step of --train (ts given) over run-time parameters, planned, in ctx->graph. */
static void compile_train_step(Ctx *ctx, const CompileOptions *opt, TrainSpec *ts);

/* --recompute: ctx->graph was built with it; builds it again without and keeps the one with
   the smaller arena (ties: without, as it computes less).  Recomputation can lengthen the
   lives of the values a clone reads; only the plan tells. */
static void keep_smaller(Ctx *ctx, const CompileOptions *opt, TrainSpec *ts) {
  Graph *with = ctx->graph;
  const char *with_order = ctx->order_name;
  CompileOptions plain = *opt;
  plain.recompute = false;
  if (ts) compile_train_step(ctx, &plain, ts);
  else compile_graph(ctx, &plain);
  bool keep = with->arena_bytes < ctx->graph->arena_bytes;
  if (ctx->verbose)
    fprintf(stderr, "onnxc: %s: --recompute: training arena %lld bytes, without %lld bytes: %s\n", ctx->file,
            (long long)with->arena_bytes, (long long)ctx->graph->arena_bytes, keep ? "recomputing" : "not recomputing");
  if (keep) {
    ctx->graph = with;
    ctx->order_name = with_order;
  }
}

static void compile_train_step(Ctx *ctx, const CompileOptions *opt, TrainSpec *ts) {
  load_bound(ctx, ts, false);
  autodiff(ctx, ctx->graph, opt);
  dump(ctx, "autodiff");
  train_check_gradients(ctx, ts, ctx->graph);
  plan_graph(ctx, opt, ctx->graph);
}

/* --train: see train.c for why the model is loaded three times. */
static void compile_train(Ctx *ctx, const CompileOptions *opt, const char *h_path) {
  TrainSpec *ts = arena_alloc(&ctx->arena, sizeof *ts);
  char msg[512];
  if (!opt->optimizer) fail(ctx, "--train needs --optimizer sgd:lr=X or adamw[:k=v,...]");
  if (!train_parse_optimizer(opt->optimizer, &ts->opt, msg, sizeof msg)) fail(ctx, "%s", msg);
  train_check_optimizer(ctx, &ts->opt);
  if (ctx->weights_path) fail(ctx, "--weights does not apply to --train (the weights are the state)");
  /* 1. which initializers get gradients (recomputation changes none) */
  CompileOptions find = *opt;
  find.recompute = false;
  reload(ctx);
  infer_and_fold(ctx, ctx->graph);
  flatten_outputs(ctx, ctx->graph);
  autodiff(ctx, ctx->graph, &find);
  train_collect_params(ctx, ts, ctx->graph);
  train_collect_stats(ctx, ts, ctx->graph);
  /* 2. the training step over run-time parameters */
  compile_train_step(ctx, opt, ts);
  if (opt->recompute) keep_smaller(ctx, opt, ts);
  ts->train = ctx->graph;
  /* 3. inference over the same parameters */
  load_bound(ctx, ts, true);
  ts->infer = ctx->graph;
  plan_graph(ctx, opt, ts->infer);
  train_layout(ctx, ts);
  if (ctx->verbose) {
    int64_t pb = 0;
    for (int i = 0; i < ts->n_params; i++) pb += ts->params[i].bytes;
    fprintf(stderr, "onnxc: %s: train: %d parameters (%lld bytes); forward (inference) arena %lld bytes; "
            "backward (training step) arena %lld bytes (graph %lld + loss and gradients); state %lld bytes\n",
            ctx->file, ts->n_params, (long long)pb, (long long)ts->infer_arena, (long long)ts->train_arena,
            (long long)ts->train->arena_bytes, (long long)ts->state_bytes);
  }
  if (ctx->target == TARGET_C) emit_c_train(ctx, ts, opt->out_c, h_path);
  else emit_cuda_train(ctx, ts, opt->out_c, h_path);
}

int onnxc_compile(const CompileOptions *opt, char *err, size_t errlen) {
  Ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx) abort();
  ctx->file = opt->model_path;
  ctx->verbose = opt->verbose;
  ctx->dump_ir = opt->dump_ir;
  ctx->align = opt->align ? opt->align : 16;
  ctx->order_name = opt->order;
  ctx->no_alias = opt->no_alias;
  ctx->canary = opt->canary;
  ctx->threads = opt->threads;
  ctx->par_min = opt->par_min_set ? opt->par_min : PAR_MIN;
  /* recurrent pipelines (plan_memory.c): inference graphs only (the training and gradient
     graphs keep their nodes one after the other; not measured there) */
  ctx->rnn_pipes = opt->threads > 1 && !opt->train && !opt->gradients;
  /* --threads N (host builds): N tasks, each with its own scratch, 50% per thread by default
     (ResNet-18 on two threads: Winograd blocks of whole 14x14 planes per task) */
  ctx->scratch_headroom = opt->scratch_headroom_set ? opt->scratch_headroom : opt->threads > 1 ? 50 * opt->threads : 25;
  ctx->scratch_headroom1 = opt->scratch_headroom_set ? opt->scratch_headroom : 25;
  ctx->weights_path = opt->weights;
  ctx->string_bytes = opt->string_bytes_set ? opt->string_bytes : -1;
  ctx->image_h = opt->image_h;
  ctx->image_w = opt->image_w;
  ctx->max_substrings = opt->max_substrings;
  ctx->target = !opt->target || !strcmp(opt->target, "c") ? TARGET_C
                : !strcmp(opt->target, "cuda")            ? TARGET_CUDA
                                                          : TARGET_CUDA_NVRTC;
  volatile int status = 0;
  if (setjmp(ctx->fail_jmp)) {
    snprintf(err, errlen, "%s", ctx->err);
    status = 1;
    goto done;
  }
  ctx->model_dir = dirname_of(&ctx->arena, opt->model_path);
  ctx->prefix = opt->name ? opt->name : default_prefix(&ctx->arena, opt->out_c);
  if (ctx->align < 1 || (ctx->align & (ctx->align - 1)) || ctx->align > 4096)
    fail(ctx, "--align must be a power of two between 1 and 4096");
  if (!valid_ident(ctx->prefix))
    fail(ctx, "the symbol prefix '%s' is not a C identifier (use --name)", ctx->prefix);
  parse_options(ctx, opt);
  seq_inputs_setup(ctx, opt);
  custom_ops_setup(ctx, opt);
  if (!opt->gradients && !opt->train && (opt->loss || opt->n_freeze))
    fail(ctx, "--loss and --freeze need --gradients or --train");
  if (opt->recompute && !opt->gradients && !opt->train) fail(ctx, "--recompute needs --gradients or --train");
  if (opt->optimizer && !opt->train) fail(ctx, "--optimizer needs --train");
  if (opt->train && opt->gradients) fail(ctx, "--train and --gradients exclude each other");
  if (opt->target && strcmp(opt->target, "c") && strcmp(opt->target, "cuda") && strcmp(opt->target, "cuda-nvrtc"))
    fail(ctx, "unknown target '%s' (c, cuda, cuda-nvrtc)", opt->target);
  if (ctx->target != TARGET_C) {
    if (opt->weights) fail(ctx, "--weights does not apply to --target %s (weights go to device memory when the model is created)", opt->target);
    if (opt->canary) fail(ctx, "--canary is not supported with --target %s", opt->target);
    if (opt->threads > 1) fail(ctx, "--threads does not apply to --target %s", opt->target);
    if (ctx->custom_ops.n)
      fail(ctx, "custom operators (--custom-op/--custom-ops) are host C functions: not supported with --target %s",
           opt->target);
  }

  size_t n = strlen(opt->out_c);
  char *h_path = arena_alloc(&ctx->arena, n + 3);
  memcpy(h_path, opt->out_c, n);
  if (n > 2 && strcmp(opt->out_c + n - 2, ".c") == 0) strcpy(h_path + n - 2, ".h");
  else if (n > 3 && strcmp(opt->out_c + n - 3, ".cu") == 0) strcpy(h_path + n - 3, ".h");
  else strcpy(h_path + n, ".h");
  if (opt->train) {
    compile_train(ctx, opt, h_path);
    goto done;
  }

  compile_graph(ctx, opt);
  if (opt->gradients && opt->recompute) keep_smaller(ctx, opt, NULL);
  write_reports(ctx, opt);
  if (ctx->target == TARGET_C) emit_c_model(ctx, ctx->graph, opt->out_c, h_path);
  else emit_cuda_model(ctx, ctx->graph, opt->out_c, h_path);
done:
  if (ctx->model_proto) onnx__model_proto__free_unpacked(ctx->model_proto, NULL);
  for (int i = 0; i < 5; i++) buf_free(&ctx->emit_bufs[i]);
  arena_free_all(&ctx->arena);
  free(ctx);
  return status;
}
