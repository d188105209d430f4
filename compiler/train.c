/*
 * train.c - on-device training: `onnxc --train --loss KIND:OUTPUT --optimizer OPT[:k=v,...]`.
 *
 * The --gradients pipeline treats the weights as compile-time constants; training needs them
 * as run-time state.  pipeline.c (compile_train) therefore loads the model three times:
 *
 *   1. as for --gradients (inference, folding, autodiff), only to learn which initializers get
 *      gradients: the parameters (train_collect_params);
 *   2. again, with the parameters turned into graph inputs before shape inference
 *      (train_bind_params), so nothing derived from them (a transposed weight, a weight-only
 *      subexpression) is folded; autodiff then builds the same gradients over run-time values
 *      (train_check_gradients) -- the training step;
 *   3. again, bound the same way, without autodiff, BatchNormalization in inference mode --
 *      inference with the current state.
 *
 * optimize_graph is not run on these graphs: its fusions and weight packing assume constant
 * weights.  Non-trainable initializers (frozen, integer, off the loss path) stay constants.
 *
 * Running statistics (the running mean/var of training-mode BatchNormalization) are state too,
 * without gradients: the training graph reads them and outputs their updated values
 * (BatchNormalization outputs 1 and 2, with torch's unbiased variance), which the step copies
 * into the state; the inference graph runs BatchNormalization in inference mode over them
 * (train_eval_mode), like torch's .eval().
 *
 * State buffer (<NAME>_STATE_BYTES, aligned like the arena): the step count (uint64) at 0,
 * then every parameter, then every running statistic, then the optimizer buffers (SGD: one
 * momentum buffer per parameter when momentum != 0; AdamW: exp_avg and exp_avg_sq per
 * parameter), each at an aligned offset.  The train arena is the training graph's planned
 * arena followed by the loss, one gradient slot per parameter and one slot per running
 * statistic (graph outputs, written by the step's graph, read by the update after it, so the
 * update never races the schedule).  emit_train.c writes the code and the
 * saved-state format; onnxc_export_weights reads that format back (see the README).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx.pb-c.h"
#include "onnxc.h"

/* ---- --optimizer ------------------------------------------------------------------------- */

static bool parse_num(const char *s, size_t n, double *out) {
  char buf[64];
  if (n == 0 || n >= sizeof buf) return false;
  memcpy(buf, s, n);
  buf[n] = 0;
  char *end;
  errno = 0;
  double v = strtod(buf, &end);
  if (*end || errno || !isfinite(v)) return false;
  *out = v;
  return true;
}

bool train_parse_optimizer(const char *spec, TrainOptim *o, char *err, size_t errlen) {
  memset(o, 0, sizeof *o);
  const char *colon = strchr(spec, ':');
  size_t nl = colon ? (size_t)(colon - spec) : strlen(spec);
  if (nl == 3 && !strncmp(spec, "sgd", 3)) {
    o->kind = OPT_SGD;
  } else if (nl == 5 && !strncmp(spec, "adamw", 5)) {
    o->kind = OPT_ADAMW;
    o->lr = 1e-3;
    o->has_lr = true;
    o->beta1 = 0.9;
    o->beta2 = 0.999;
    o->eps = 1e-8;
    o->weight_decay = 1e-2;
  } else {
    snprintf(err, errlen, "--optimizer: unknown optimizer '%.*s' (sgd, adamw)", (int)nl, spec);
    return false;
  }
  static const char *const sgd_keys[] = {"lr", "momentum", "weight_decay", "nesterov", "dampening", NULL};
  static const char *const adamw_keys[] = {"lr", "beta1", "beta2", "eps", "weight_decay", NULL};
  const char *const *keys = o->kind == OPT_SGD ? sgd_keys : adamw_keys;
  for (const char *p = colon ? colon + 1 : NULL; p;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    const char *eq = memchr(p, '=', len);
    if (!eq || eq == p) {
      snprintf(err, errlen, "--optimizer: expected k=v, got '%.*s'", (int)len, p);
      return false;
    }
    size_t kl = (size_t)(eq - p);
    int which = -1;
    for (int i = 0; keys[i]; i++)
      if (strlen(keys[i]) == kl && !strncmp(keys[i], p, kl)) which = i;
    if (which < 0) {
      snprintf(err, errlen, "--optimizer %s: unknown parameter '%.*s' (%s)", o->kind == OPT_SGD ? "sgd" : "adamw",
               (int)kl, p, o->kind == OPT_SGD ? "lr, momentum, weight_decay, nesterov, dampening" : "lr, beta1, beta2, eps, weight_decay");
      return false;
    }
    double v;
    const char *vs = eq + 1;
    size_t vl = len - kl - 1;
    if (!strcmp(keys[which], "nesterov")) {
      if ((vl == 4 && !strncmp(vs, "true", 4)) || (vl == 1 && *vs == '1')) v = 1;
      else if ((vl == 5 && !strncmp(vs, "false", 5)) || (vl == 1 && *vs == '0')) v = 0;
      else {
        snprintf(err, errlen, "--optimizer: nesterov must be 0, 1, true or false, not '%.*s'", (int)vl, vs);
        return false;
      }
    } else if (!parse_num(vs, vl, &v)) {
      snprintf(err, errlen, "--optimizer: %s must be a number, not '%.*s'", keys[which], (int)vl, vs);
      return false;
    }
    const char *k = keys[which];
    if (!strcmp(k, "lr")) { o->lr = v; o->has_lr = true; }
    else if (!strcmp(k, "momentum")) o->momentum = v;
    else if (!strcmp(k, "weight_decay")) o->weight_decay = v;
    else if (!strcmp(k, "nesterov")) o->nesterov = v != 0;
    else if (!strcmp(k, "dampening")) o->dampening = v;
    else if (!strcmp(k, "beta1")) o->beta1 = v;
    else if (!strcmp(k, "beta2")) o->beta2 = v;
    else if (!strcmp(k, "eps")) o->eps = v;
    p = comma ? comma + 1 : NULL;
  }
  if (!o->has_lr) {
    snprintf(err, errlen, "--optimizer sgd needs a learning rate (sgd:lr=0.01)");
    return false;
  }
  return true;
}

/* The same checks as torch.optim's constructors. */
void train_check_optimizer(Ctx *ctx, const TrainOptim *o) {
  if (o->lr < 0) fail(ctx, "--optimizer: invalid learning rate %g (must be >= 0)", o->lr);
  if (o->weight_decay < 0) fail(ctx, "--optimizer: invalid weight_decay %g (must be >= 0)", o->weight_decay);
  if (o->kind == OPT_SGD) {
    if (o->momentum < 0) fail(ctx, "--optimizer: invalid momentum %g (must be >= 0)", o->momentum);
    if (o->nesterov && (o->momentum <= 0 || o->dampening != 0))
      fail(ctx, "--optimizer: nesterov momentum requires a momentum > 0 and zero dampening");
  } else {
    if (o->beta1 < 0 || o->beta1 >= 1) fail(ctx, "--optimizer: invalid beta1 %g (must be in [0, 1))", o->beta1);
    if (o->beta2 < 0 || o->beta2 >= 1) fail(ctx, "--optimizer: invalid beta2 %g (must be in [0, 1))", o->beta2);
    if (o->eps < 0) fail(ctx, "--optimizer: invalid eps %g (must be >= 0)", o->eps);
  }
}

/* ---- the parameters ---------------------------------------------------------------------- */

/* A state entry with w's name, type, shape and initial contents. */
static void state_entry(Ctx *ctx, TrainParam *p, const Value *w) {
  p->name = arena_strdup(&ctx->arena, w->name);
  p->dtype = w->dtype;
  p->rank = w->rank;
  memcpy(p->dims, w->dims, sizeof p->dims);
  p->bytes = value_bytes(w);
  p->init = arena_alloc(&ctx->arena, (size_t)p->bytes + 1);
  if (p->bytes) memcpy(p->init, w->data, (size_t)p->bytes);
}

void train_collect_params(Ctx *ctx, TrainSpec *ts, Graph *g) {
  /* autodiff's outputs: loss, then <init>_grad for each parameter in initializer order */
  int n = g->outputs.n - 1;
  ts->params = arena_alloc(&ctx->arena, sizeof(TrainParam) * (size_t)(n + 1));
  ts->n_params = 0;
  for (int i = 0; i < g->inits.n; i++) {
    Value *w = g->inits.v[i];
    const char *want = arena_printf(&ctx->arena, "%s_grad", w->name);
    bool has = false;
    for (int k = 1; k < g->outputs.n && !has; k++) has = !strcmp(((Value *)g->outputs.v[k])->name, want);
    if (!has) continue;
    CHECK(ts->n_params < n);
    if (w->dtype != DT_FLOAT && w->dtype != DT_DOUBLE)
      fail(ctx, "--train: parameter '%s' is %s; the optimizers handle float and double parameters (--freeze it)",
           w->name, dtype_name(w->dtype));
    state_entry(ctx, &ts->params[ts->n_params++], w);
  }
  if (ts->n_params != n) fail(ctx, "--train: internal: %d gradients for %d parameters", n, ts->n_params);
}

static bool is_bn(const Node *n) { return !*n->domain && !strcmp(n->op_type, "BatchNormalization"); }

/* Running statistics: inputs 3 (mean) and 4 (var) of training-mode BatchNormalization nodes
   that are initializers.  Torch updates them in the forward pass of a training step and uses
   them in eval mode; so does the --train step (its BatchNormalization outputs 1 and 2 become
   state) and <name>_infer. */
void train_collect_stats(Ctx *ctx, TrainSpec *ts, Graph *g) {
  ts->stats = arena_alloc(&ctx->arena, sizeof(TrainParam) * (size_t)(2 * g->nodes.n + 1));
  ts->n_stats = 0;
  for (int i = 0; i < g->nodes.n; i++) {
    Node *n = g->nodes.v[i];
    if (n->dead || !is_bn(n) || !bn_training_mode(n)) continue;
    for (int k = 3; k <= 4; k++) {
      Value *v = node_in(n, k);
      bool init = false;
      for (int j = 0; v && j < g->inits.n && !init; j++) init = g->inits.v[j] == v;
      if (!init || !v->data) continue;
      if (v->dtype != DT_FLOAT && v->dtype != DT_DOUBLE)
        fail_node(ctx, n, "--train: running statistic '%s' is %s; float and double are supported", v->name, dtype_name(v->dtype));
      for (int j = 0; j < ts->n_stats; j++)
        if (!strcmp(ts->stats[j].name, v->name))
          fail_node(ctx, n, "--train: running statistic '%s' is shared by two BatchNormalization nodes", v->name);
      for (int j = 0; j < ts->n_params; j++)
        if (!strcmp(ts->params[j].name, v->name))
          fail_node(ctx, n, "--train: running statistic '%s' is also a trainable parameter (--freeze it)", v->name);
      state_entry(ctx, &ts->stats[ts->n_stats++], v);
    }
  }
}

static Value *bind(Ctx *ctx, Graph *g, const TrainParam *p) {
  Value *v = NULL;
  for (int k = 0; k < g->inits.n && !v; k++)
    if (!strcmp(((Value *)g->inits.v[k])->name, p->name)) v = g->inits.v[k];
  CHECK(v && v->dtype == p->dtype);
  v->data = NULL;
  v->kind = VAL_INPUT;
  (void)ctx;
  return v;
}

void train_bind_params(Ctx *ctx, TrainSpec *ts, Graph *g) {
  PtrVec ins = {0};
  for (int i = 0; i < ts->n_params; i++) vec_push(&ctx->arena, &ins, bind(ctx, g, &ts->params[i]));
  for (int i = 0; i < ts->n_stats; i++) vec_push(&ctx->arena, &ins, bind(ctx, g, &ts->stats[i]));
  for (int i = 0; i < g->inputs.n; i++) vec_push(&ctx->arena, &ins, g->inputs.v[i]);
  g->inputs = ins;
}

void train_eval_mode(Ctx *ctx, Graph *g) {
  for (int i = 0; i < g->nodes.n; i++) {
    Node *n = g->nodes.v[i];
    if (!is_bn(n) || !bn_training_mode(n)) continue;
    for (int k = 1; k < n->n_outputs; k++) {
      Value *o = n->outputs[k];
      if (o && (o->n_consumers || o->is_output))
        fail_node(ctx, n, "--train: inference runs BatchNormalization on its running statistics (eval mode), "
                  "but the model reads its statistics output '%s'", o->name);
      n->outputs[k] = NULL;
    }
    if (n->opset >= 14) node_set_attr_i(ctx, n, "training_mode", 0);
  }
}

/* The training-mode BatchNormalization output (1: mean, 2: var) that updates stat p. */
static Value *stat_output(Ctx *ctx, Graph *g, const TrainParam *p) {
  for (int i = 0; i < g->nodes.n; i++) {
    Node *n = g->nodes.v[i];
    if (n->dead || !is_bn(n) || !bn_training_mode(n)) continue;
    for (int k = 3; k <= 4; k++) {
      Value *v = node_in(n, k);
      if (!v || v->kind != VAL_INPUT || strcmp(v->name, p->name)) continue;
      int o = k - 2;
      if (o >= n->n_outputs) {
        Value **outs = arena_alloc(&ctx->arena, sizeof(Value *) * 3);
        memcpy(outs, n->outputs, sizeof(Value *) * (size_t)n->n_outputs);
        n->outputs = outs;
        n->n_outputs = 3;
      }
      if (!n->outputs[o]) {
        Value *nv = graph_new_value(ctx, g, arena_printf(&ctx->arena, "%s_updated", p->name));
        nv->producer = n;
        n->outputs[o] = nv;
      }
      node_set_attr_i(ctx, n, "onnxc.unbiased_var", 1);
      infer_node(ctx, n);
      return n->outputs[o];
    }
  }
  fail(ctx, "--train: internal: no BatchNormalization updates running statistic '%s'", p->name);
}

void train_check_gradients(Ctx *ctx, TrainSpec *ts, Graph *g) {
  bool ok = g->outputs.n == ts->n_params + 1;
  for (int i = 0; ok && i < ts->n_params; i++)
    ok = !strcmp(((Value *)g->outputs.v[i + 1])->name, arena_printf(&ctx->arena, "%s_grad", ts->params[i].name));
  if (!ok) fail(ctx, "--train: internal: the gradients over run-time weights differ from those over constants");
  for (int i = 0; i < ts->n_stats; i++) {
    Value *o = stat_output(ctx, g, &ts->stats[i]);
    if (o->is_output) fail(ctx, "--train: internal: running statistic output '%s' is already an output", o->name);
    o->is_output = true;
    vec_push(&ctx->arena, &g->outputs, o);
  }
}

static int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

void train_layout(Ctx *ctx, TrainSpec *ts) {
  int64_t al = (int64_t)ctx->align < 16 ? 16 : (int64_t)ctx->align;
  int64_t off = align_up(8, al);
  ts->state_data = off;
  int nbuf = ts->opt.kind == OPT_ADAMW ? 2 : ts->opt.momentum != 0 ? 1 : 0;
  for (int i = 0; i < ts->n_params; i++) {
    ts->params[i].off = off;
    off = align_up(off + ts->params[i].bytes, al);
  }
  for (int i = 0; i < ts->n_stats; i++) {
    ts->stats[i].off = off;
    ts->stats[i].off_buf[0] = ts->stats[i].off_buf[1] = -1;
    off = align_up(off + ts->stats[i].bytes, al);
  }
  for (int b = 0; b < 2; b++)
    for (int i = 0; i < ts->n_params; i++) {
      ts->params[i].off_buf[b] = -1;
      if (b >= nbuf) continue;
      ts->params[i].off_buf[b] = off;
      off = align_up(off + ts->params[i].bytes, al);
    }
  ts->state_bytes = off;
  Value *loss = ts->train->outputs.v[0];
  int64_t a = align_up(ts->train->arena_bytes, al);
  ts->loss_off = a;
  a = align_up(a + value_bytes(loss), al);
  for (int i = 0; i < ts->n_params; i++) {
    ts->params[i].grad_off = a;
    a = align_up(a + ts->params[i].bytes, al);
  }
  for (int i = 0; i < ts->n_stats; i++) {
    ts->stats[i].grad_off = a;
    a = align_up(a + ts->stats[i].bytes, al);
  }
  ts->train_arena = a;
  ts->infer_arena = ts->infer->arena_bytes;
}

/* ---- export-weights ------------------------------------------------------------------------ */

static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static unsigned char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0;
  unsigned char *b = malloc(cap);
  for (;;) {
    if (!b) abort();
    size_t r = fread(b + n, 1, cap - n, f);
    n += r;
    if (n < cap) break;
    cap *= 2;
    b = realloc(b, cap);
  }
  fclose(f);
  *len = n;
  return b;
}

#define EXPORT_FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); goto out; } while (0)

int onnxc_export_weights(const char *model, const char *state, const char *outp, char *err, size_t errlen) {
  int status = 1;
  size_t mlen = 0, slen = 0;
  unsigned char *mb = NULL, *sb = NULL, *ob = NULL;
  Onnx__ModelProto *m = NULL;
  if (!(mb = read_all(model, &mlen))) EXPORT_FAIL("onnxc: error: %s: cannot read the model", model);
  if (!(sb = read_all(state, &slen))) EXPORT_FAIL("onnxc: error: %s: cannot read the state", state);
  m = onnx__model_proto__unpack(NULL, mlen, mb);
  if (!m || !m->graph) EXPORT_FAIL("onnxc: error: %s: not an ONNX model", model);
  /* the saved-state format of emit_train.c */
  if (slen < 48 || memcmp(sb, "ONNXCST\0", 8)) EXPORT_FAIL("onnxc: error: %s: not an onnxc training state (bad magic)", state);
  if (rd32(sb + 8) != 1) EXPORT_FAIL("onnxc: error: %s: unsupported state format version %u", state, rd32(sb + 8));
  uint64_t total = rd64(sb + 24), hdr = rd32(sb + 16), nent = rd32(sb + 20);
  if (total != slen || hdr > slen) EXPORT_FAIL("onnxc: error: %s: truncated or padded state (%zu bytes, header says %llu)", state, slen, (unsigned long long)total);
  uint32_t h = 2166136261u;
  for (size_t i = 16; i < slen; i++) { h ^= sb[i]; h *= 16777619u; }
  if (h != rd32(sb + 12)) EXPORT_FAIL("onnxc: error: %s: checksum mismatch (corrupted state)", state);
  if (rd32(sb + 44) != 0x01020304u) EXPORT_FAIL("onnxc: error: %s: state written on a host of the other byte order", state);
  size_t pos = 48;
  int replaced = 0;
  for (uint64_t e = 0; e < nent; e++) {
    if (pos + 32 > hdr) EXPORT_FAIL("onnxc: error: %s: bad parameter table", state);
    uint32_t kind = rd32(sb + pos), dtype = rd32(sb + pos + 4), rank = rd32(sb + pos + 8), nlen = rd32(sb + pos + 12);
    uint64_t off = rd64(sb + pos + 16), bytes = rd64(sb + pos + 24);
    pos += 32;
    if (rank > ONNXC_MAX_RANK || pos + 8 * (size_t)rank + nlen > hdr || off + bytes > slen || off < hdr)
      EXPORT_FAIL("onnxc: error: %s: bad parameter table", state);
    int64_t dims[ONNXC_MAX_RANK];
    for (uint32_t d = 0; d < rank; d++) dims[d] = (int64_t)rd64(sb + pos + 8 * d);
    pos += 8 * (size_t)rank;
    const char *name = (const char *)sb + pos;
    pos += (nlen + 7) / 8 * 8;
    if (kind != 0 && kind != 4) continue; /* optimizer buffers */
    Onnx__TensorProto *t = NULL;
    for (size_t i = 0; i < m->graph->n_initializer && !t; i++) {
      const char *tn = m->graph->initializer[i]->name;
      if (tn && strlen(tn) == nlen && !memcmp(tn, name, nlen)) t = m->graph->initializer[i];
    }
    if (!t) EXPORT_FAIL("onnxc: error: %s: the model has no initializer '%.*s' of the state", model, (int)nlen, name);
    bool same = t->data_type == (int32_t)dtype && t->n_dims == rank;
    for (uint32_t d = 0; same && d < rank; d++) same = t->dims[d] == dims[d];
    if (!same) EXPORT_FAIL("onnxc: error: %s: initializer '%.*s' has another type or shape than in the state", model, (int)nlen, name);
    /* raw_data (little-endian, as the state on the hosts onnxc targets) replaces any typed data */
    t->n_float_data = 0;
    t->n_double_data = 0;
    t->n_int32_data = 0;
    t->n_int64_data = 0;
    t->n_external_data = 0;
    t->has_data_location = 0;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__DEFAULT;
    if (t->has_raw_data && t->raw_data.data && !(t->raw_data.data >= sb && t->raw_data.data < sb + slen))
      free(t->raw_data.data);
    t->has_raw_data = 1;
    t->raw_data.len = (size_t)bytes;
    t->raw_data.data = sb + off;
    replaced++;
  }
  if (!replaced) EXPORT_FAIL("onnxc: error: %s: the state holds no parameters", state);
  size_t olen = onnx__model_proto__get_packed_size(m);
  ob = malloc(olen + 1);
  if (!ob) abort();
  onnx__model_proto__pack(m, ob);
  FILE *f = fopen(outp, "wb");
  if (!f) EXPORT_FAIL("onnxc: error: cannot write '%s'", outp);
  bool ok = fwrite(ob, 1, olen, f) == olen;
  if (fclose(f) != 0 || !ok) EXPORT_FAIL("onnxc: error: cannot write '%s'", outp);
  status = 0;
out:
  /* raw_data pointers into sb are not owned by the message: detach before freeing it */
  if (m) {
    for (size_t i = 0; m->graph && i < m->graph->n_initializer; i++) {
      Onnx__TensorProto *t = m->graph->initializer[i];
      if (t->has_raw_data && t->raw_data.data >= sb && t->raw_data.data < sb + slen) {
        t->raw_data.data = NULL;
        t->raw_data.len = 0;
        t->has_raw_data = 0;
      }
    }
    onnx__model_proto__free_unpacked(m, NULL);
  }
  free(mb);
  free(sb);
  free(ob);
  return status;
}
