/*
 * ports.c - sequences and optionals at the graph boundary.
 *
 * Inside the compiler a sequence is a compile-time list of tensor Values (ops_sequence.c) and
 * an optional a presence flag plus the tensor or sequence it holds (OptInfo); neither has
 * storage.  What the generated code exchanges with its caller are therefore tensors, and a
 * "port" groups them into what the caller sees (codegen/c/emit_ports.c writes the structs of
 * onnxc_rt.h around them):
 *
 *   tensor              the value itself
 *   sequence            its items, in order; their number and dims are fixed at compile time
 *   optional            a bool scalar (does it hold a value?) decided at run time, then the
 *                       tensors of what it holds
 *
 * Inputs.  A sequence input's length and item shapes cannot come from the model (ONNX types
 * say nothing about them), so the caller states them: --seq-input NAME=ITEMS, ITEMS a comma-
 * separated list of [COUNT:]TYPE[DIMS] (`x=3:float[10]`, `x=int64[4],int64[3]`, `x=0:float[]`
 * for an empty one).  The loader makes one graph input per item ("name[k]") and, for an
 * optional, one for its flag ("name.has_value"); the structured Value the nodes read lists
 * them.  Optional tensors take their type and shape from the model (--dim for symbolic dims).
 *
 * Outputs.  flatten_outputs() replaces a graph's structured outputs by flat ones: copies of a
 * sequence's items, of an optional's flag, and of its content -- by an OptionalCopy node, which
 * copies only when the flag is set, so content that an absent optional input never provided is
 * never read.  If/Loop bodies are flattened the same way, so an If can return sequences and
 * optionals.  The same node, in its checking form, is OptionalGetElement of an optional whose
 * presence is known only at run time: it returns ONNXC_ERR_EMPTY when the flag is clear.
 */
#include <string.h>

#include "onnxc.h"

#define MAX_SEQ_ITEMS 4096

/* ---- --seq-input ---------------------------------------------------------------------- */

void seq_inputs_setup(Ctx *ctx, const CompileOptions *opt) {
  for (int i = 0; i < opt->n_seq_inputs; i++) {
    const char *s = opt->seq_inputs[i], *eq = strchr(s, '=');
    if (!eq || eq == s) fail(ctx, "--seq-input expects NAME=ITEMS (e.g. x=3:float[10]), got '%s'", s);
    const char *name = arena_printf(&ctx->arena, "%.*s", (int)(eq - s), s);
    for (int k = 0; k < ctx->n_seq_inputs; k++)
      if (!strcmp(ctx->seq_inputs[k].name, name)) fail(ctx, "--seq-input %s is given twice", name);
    ctx->seq_inputs[ctx->n_seq_inputs].name = name;
    ctx->seq_inputs[ctx->n_seq_inputs++].spec = eq + 1;
  }
}

static int dtype_by_name(const char *s, size_t n) {
  for (int dt = DT_FLOAT; dt <= DT_INT2; dt++) {
    if (dt == DT_COMPLEX64 || dt == DT_COMPLEX128) continue;
    const char *nm = dtype_name(dt);
    if (strlen(nm) == n && !strncmp(nm, s, n)) return dt;
  }
  return 0;
}

/* One item type of a spec: TYPE[DIMS]. */
typedef struct ItemType { int dtype, rank; int64_t dims[ONNXC_MAX_RANK]; } ItemType;

static bool parse_int(const char **p, int64_t *out) {
  const char *s = *p;
  if (*s < '0' || *s > '9') return false;
  int64_t v = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    if (v > ((int64_t)1 << 40)) return false;
    v = v * 10 + (*s - '0');
  }
  *p = s;
  *out = v;
  return true;
}

/* Parses ITEMS into at most MAX_SEQ_ITEMS item types; fails with one line. */
static int parse_items(Ctx *ctx, const char *name, const char *spec, ItemType *out) {
#define SPEC_ERR(...) fail(ctx, "--seq-input %s=%s: " __VA_ARGS__)
  const char *p = spec;
  int n = 0;
  if (!*p) SPEC_ERR("no items (an empty sequence is 0:TYPE[])", name, spec);
  for (;;) {
    int64_t count = 1;
    const char *start = p;
    if (*p >= '0' && *p <= '9') {
      if (!parse_int(&p, &count) || *p != ':') p = start, count = 1;
      else p++;
    }
    const char *t = p;
    while (*p && *p != '[' && *p != ',') p++;
    int dt = dtype_by_name(t, (size_t)(p - t));
    if (!dt) SPEC_ERR("unknown element type '%.*s' (float, int64, uint8, bool, string, ...)", name, spec, (int)(p - t), t);
    if (*p != '[') SPEC_ERR("expected '[' and the dims after '%.*s' (e.g. float[2,3], or float[] for a scalar)", name, spec,
                            (int)(p - t), t);
    p++;
    ItemType it = {.dtype = dt};
    while (*p != ']') {
      int64_t d;
      if (it.rank == ONNXC_MAX_RANK) SPEC_ERR("rank above %d", name, spec, ONNXC_MAX_RANK);
      if (!parse_int(&p, &d)) SPEC_ERR("dims must be non-negative integers", name, spec);
      it.dims[it.rank++] = d;
      if (*p == ',' && p[1] != ']') p++;
      else if (*p != ']') SPEC_ERR("expected ',' or ']' in the dims", name, spec);
    }
    p++;
    if (count > MAX_SEQ_ITEMS || n + count > MAX_SEQ_ITEMS) SPEC_ERR("more than %d items", name, spec, MAX_SEQ_ITEMS);
    for (int64_t k = 0; k < count; k++) out[n++] = it;
    if (count == 0 && n == 0 && !*p) {
      out[0] = it; /* the element type of an empty sequence */
      return 0;
    }
    if (!*p) break;
    if (*p != ',') SPEC_ERR("expected ',' between items", name, spec);
    p++;
  }
#undef SPEC_ERR
  return n;
}

PtrVec *seq_input_items(Ctx *ctx, Graph *g, const char *name, int decl_dtype, int decl_rank, const int64_t *decl_dims,
                        int *dtype) {
  const char *spec = NULL;
  for (int k = 0; k < ctx->n_seq_inputs; k++)
    if (!strcmp(ctx->seq_inputs[k].name, name)) spec = ctx->seq_inputs[k].spec;
  if (!spec)
    fail(ctx, "input '%s' is a sequence; onnxc needs its length and item shapes at compile time: "
         "--seq-input %s=ITEMS, e.g. 2:float[3,4] or int64[4],int64[3]", name, name);
  ItemType *its = arena_alloc(&ctx->arena, sizeof *its * (MAX_SEQ_ITEMS + 1));
  int n = parse_items(ctx, name, spec, its);
  PtrVec *items = arena_alloc(&ctx->arena, sizeof *items);
  *dtype = its[0].dtype;
  for (int k = 0; k < (n ? n : 1); k++) {
    ItemType *it = &its[k];
    if (decl_dtype && it->dtype != decl_dtype)
      fail(ctx, "--seq-input %s: items of type %s, the model declares %s", name, dtype_name(it->dtype), dtype_name(decl_dtype));
    if (it->dtype != its[0].dtype)
      fail(ctx, "--seq-input %s: items of types %s and %s; a sequence has one element type", name, dtype_name(its[0].dtype),
           dtype_name(it->dtype));
    bool ok = decl_rank < 0 || decl_rank == it->rank;
    for (int d = 0; ok && decl_rank >= 0 && d < decl_rank; d++) ok = decl_dims[d] < 0 || decl_dims[d] == it->dims[d];
    if (!ok && n) fail(ctx, "--seq-input %s: item %d's dims do not match the item shape the model declares", name, k);
    if (!n) break;
    Value *v = graph_new_value(ctx, g, arena_printf(&ctx->arena, "%s[%d]", name, k));
    v->kind = VAL_INPUT;
    value_set_shape(v, it->dtype, it->rank, it->dims);
    int64_t bytes;
    if (!mul_ok(value_numel(v), (int64_t)(dtype_size(v->dtype) ? dtype_size(v->dtype) : 1), &bytes) ||
        bytes > ONNXC_MAX_TENSOR_BYTES)
      fail(ctx, "--seq-input %s: item %d is too large", name, k);
    vec_push(&ctx->arena, items, v);
  }
  return items;
}

/* ---- ports ---------------------------------------------------------------------------- */

/* Appends v's flat tensors to out (a tensor: itself; a sequence: its items; an optional: its
   flag, then its content's). */
static void flat_values(Ctx *ctx, Value *v, PtrVec *out) {
  if (v->opt) {
    vec_push(&ctx->arena, out, v->opt->present);
    if (v->opt->content) flat_values(ctx, v->opt->content, out);
  } else if (v->seq) {
    for (int k = 0; k < v->seq->n; k++) vec_push(&ctx->arena, out, v->seq->v[k]);
  } else {
    vec_push(&ctx->arena, out, v);
  }
}

static int port_kind(const Value *v) {
  if (v->opt) return PORT_OPTIONAL | (v->opt->of_seq ? PORT_SEQUENCE : 0);
  return v->seq ? PORT_SEQUENCE : PORT_TENSOR;
}

void add_input_port(Ctx *ctx, Graph *g, PtrVec *ports, Value *v) {
  Port *p = arena_alloc(&ctx->arena, sizeof *p);
  p->name = v->name;
  p->kind = port_kind(v);
  p->dtype = v->dtype;
  p->first = g->inputs.n;
  flat_values(ctx, v, &g->inputs);
  p->n = g->inputs.n - p->first;
  vec_push(&ctx->arena, ports, p);
}

void set_input_ports(Ctx *ctx, Graph *g, PtrVec *ports) {
  bool any = false;
  for (int i = 0; i < ports->n; i++) any |= ((Port *)ports->v[i])->kind != PORT_TENSOR;
  if (!any) return;
  g->n_in_ports = ports->n;
  g->in_ports = arena_alloc(&ctx->arena, sizeof(Port) * (size_t)(ports->n + 1));
  for (int i = 0; i < ports->n; i++) g->in_ports[i] = *(Port *)ports->v[i];
}

/* A copy of v made by a new Identity node of g, named `name`. */
static Value *copy_of(Ctx *ctx, Graph *g, Value *v, const char *name) {
  Node *id = graph_new_node(ctx, g, "Identity", arena_printf(&ctx->arena, "%s/copy", name), 1, 1);
  id->inputs[0] = v;
  id->opset = ctx->opset > 0 ? ctx->opset : 17;
  Value *y = graph_new_value(ctx, g, name);
  if (!strcmp(v->name, y->name)) { /* the port's name goes to the output (the CUDA targets' flat names) */
    if (v->kind == VAL_INTERMEDIATE && !v->is_output) v->name = arena_printf(&ctx->arena, "%s:src", name);
    else y->name = arena_printf(&ctx->arena, "%s:out", name);
  }
  id->outputs[0] = y;
  y->producer = id;
  infer_node(ctx, id);
  id->inferred = true;
  return y;
}

/* ---- OptionalCopy: copies of an optional's tensors, guarded by its flag ---------------- */

static void optcopy_infer(Ctx *ctx, Node *n) {
  (void)ctx;
  for (int k = 0; k < n->n_outputs; k++) {
    Value *x = n->inputs[k + 1], *y = n->outputs[k];
    value_set_shape(y, x->dtype, x->rank, x->dims);
  }
}

static void optcopy_emit(Emit *e, Node *n) {
  bool must = n->def->flags & OPF_STATUS;
  if (must) {
    ep(e, "if (!X0[0]) return ONNXC_ERR_EMPTY;");
  } else {
    ep(e, "if (!X0[0]) return;");
  }
  for (int k = 0; k < n->n_outputs; k++) {
    Value *y = n->outputs[k];
    if (!value_numel(y)) continue;
    if (y->dtype == DT_STRING)
      ep(e, "if (Y%d) memcpy(Y%d, X%d, %lld * sizeof(onnxc_string));", k, k, k + 1, (long long)value_numel(y));
    else
      ep(e, "if (Y%d) memcpy(Y%d, X%d, %lld);", k, k, k + 1, (long long)value_bytes(y));
  }
  if (must) ep(e, "return ONNXC_OK;");
}

static const OpDef optcopy_row = {"OptionalCopy", "onnxc", 1, ONNXC_MAX_OPSET, OPF_STRINGS, optcopy_infer, NULL,
                                  optcopy_emit, NULL, "any", NULL};
static const OpDef optget_row = {"OptionalGetElement", "", 1, ONNXC_MAX_OPSET, OPF_STATUS | OPF_STRINGS, optcopy_infer,
                                 NULL, optcopy_emit, NULL, "any", NULL};

bool is_opt_copy(const Node *n) { return n->def == &optcopy_row || n->def == &optget_row; }

void opt_copy(Ctx *ctx, Node *n, Value *opt, bool must, Value *y) {
  Graph *g = infer_graph(ctx);
  OptInfo *oi = opt->opt;
  CHECK(oi && oi->content);
  PtrVec flat = {0};
  flat_values(ctx, oi->content, &flat);
  Value **ins = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(flat.n + 2));
  Value **outs = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(flat.n + 1));
  ins[0] = oi->present;
  if (oi->content->seq) {
    PtrVec *items = arena_alloc(&ctx->arena, sizeof *items);
    for (int k = 0; k < flat.n; k++) {
      outs[k] = graph_new_value(ctx, g, arena_printf(&ctx->arena, "%s[%d]", y->name, k));
      vec_push(&ctx->arena, items, outs[k]);
    }
    y->seq = items;
    y->producer = NULL;
    value_set_shape(y, oi->content->dtype, 0, NULL);
  } else {
    outs[0] = y;
  }
  for (int k = 0; k < flat.n; k++) {
    ins[k + 1] = flat.v[k];
    outs[k]->producer = n;
  }
  n->inputs = ins;
  n->n_inputs = n->n_explicit = flat.n + 1;
  n->outputs = outs;
  n->n_outputs = flat.n;
  n->def = must ? &optget_row : &optcopy_row;
  n->op_type = must ? "OptionalGetElement" : "OptionalCopy";
  n->def->infer(ctx, n);
}

/* ---- flattening outputs ---------------------------------------------------------------- */

/* The flat outputs of structured output v of g, appended to out. */
static void flatten_one(Ctx *ctx, Graph *g, Value *v, PtrVec *out) {
  if (v->seq) {
    for (int k = 0; k < v->seq->n; k++)
      vec_push(&ctx->arena, out, copy_of(ctx, g, v->seq->v[k], arena_printf(&ctx->arena, "%s[%d]", v->name, k)));
    return;
  }
  OptInfo *oi = v->opt;
  vec_push(&ctx->arena, out, copy_of(ctx, g, oi->present, arena_printf(&ctx->arena, "%s.has_value", v->name)));
  if (!oi->content || (oi->present->data && !const_get_i(oi->present, 0))) return; /* known empty */
  const char *name = arena_printf(&ctx->arena, "%s.value", v->name);
  if (oi->present->data) { /* always there: plain copies */
    if (oi->content->seq) {
      for (int k = 0; k < oi->content->seq->n; k++)
        vec_push(&ctx->arena, out, copy_of(ctx, g, oi->content->seq->v[k], arena_printf(&ctx->arena, "%s[%d]", name, k)));
    } else {
      vec_push(&ctx->arena, out, copy_of(ctx, g, oi->content, name));
    }
    return;
  }
  Node *n = graph_new_node(ctx, g, "OptionalCopy", arena_printf(&ctx->arena, "%s/copy", v->name), 0, 0);
  Value *r = graph_new_value(ctx, g, name);
  opt_copy(ctx, n, v, false, r);
  n->inferred = true;
  flat_values(ctx, r, out);
}

void flatten_outputs(Ctx *ctx, Graph *g) {
  Graph *saved = ctx->cur_graph;
  ctx->cur_graph = g;
  PtrVec outs = {0};
  int np = g->outputs.n;
  Port *ports = arena_alloc(&ctx->arena, sizeof(Port) * (size_t)(np + 1));
  bool any = false;
  for (int i = 0; i < np; i++) {
    Value *v = g->outputs.v[i];
    Port *p = &ports[i];
    p->name = v->name;
    p->kind = port_kind(v);
    p->dtype = v->dtype;
    p->first = outs.n;
    if (p->kind == PORT_TENSOR) {
      vec_push(&ctx->arena, &outs, v);
    } else {
      any = true;
      v->is_output = false;
      flatten_one(ctx, g, v, &outs);
    }
    p->n = outs.n - p->first;
  }
  for (int i = 0; i < outs.n; i++) ((Value *)outs.v[i])->is_output = true;
  g->outputs = outs;
  if (any || g->is_sub) {
    g->out_ports = ports;
    g->n_out_ports = np;
  }
  ctx->cur_graph = saved;
}
