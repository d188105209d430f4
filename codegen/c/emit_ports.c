/*
 * emit_ports.c - the entry points of a model whose inputs or outputs are sequences or
 * optionals (compiler/ports.c groups the graph's flat tensors into those ports).
 *
 * The graph itself runs as `run_impl` over flat tensor pointers, as for any model.  Around it:
 *
 *   static int run_ports(arena, <one parameter per port>, int64_t *const *dims_out)
 *       checks the caller's structs (NULL pointers -> ONNXC_ERR_NULL; a sequence input's count
 *       or item dims other than the compiled ones -> ONNXC_ERR_SHAPE), passes each item's
 *       buffer to run_impl, an optional input's has_value as a one-byte flag (its content's
 *       pointers may be NULL when it is clear: only guarded copies read them), and afterwards
 *       sets the output sequences' count and dims and the output optionals' has_value;
 *   int NET_run(arena, ports...)            the typed entry (run_ports without dims);
 *   the descriptors (kind, n_items, items) and NET_model's run / run_dims over void pointers.
 *
 * dims_out[i] of run_dims is written for tensor ports and for an optional tensor's content
 * (its static dims); sequences report theirs through onnxc_sequence.dims.
 */
#include <string.h>

#include "../../compiler/onnxc.h"

typedef struct PortSide {
  Port *ports;
  int n;
  PtrVec *flat;
  const char **names;             /* the port parameters' names */
  bool out;
} PortSide;

static const char *port_type(const Port *p, bool out) {
  if (p->kind & PORT_OPTIONAL) return out ? "onnxc_optional" : "const onnxc_optional";
  if (p->kind & PORT_SEQUENCE) return out ? "onnxc_sequence" : "const onnxc_sequence";
  return NULL;
}

/* Flat value j of port p. */
static Value *flat_at(const PortSide *s, const Port *p, int j) { return s->flat->v[p->first + j]; }

/* The items of a sequence port (or an optional sequence's content): [from, p->n). */
static int items_from(const Port *p) { return p->kind & PORT_OPTIONAL ? 1 : 0; }

static void emit_params(Ctx *ctx, Buf *b, const PortSide *s) {
  Arena *a = &ctx->arena;
  for (int i = 0; i < s->n; i++) {
    const Port *p = &s->ports[i];
    const char *t = port_type(p, s->out);
    if (!t) {
      Value *v = flat_at(s, p, 0);
      buf_printf(b, ",\n    %s%s *%s /* %s %s%s%s */", s->out ? "" : "const ", c_type(v->dtype), s->names[i], p->name,
                 dtype_name(v->dtype), shape_str(a, v), v->dynamic ? ", data-dependent: bound" : "");
      continue;
    }
    buf_printf(b, ",\n    %s *%s /* %s: %s%s of %s", t, s->names[i], p->name, p->kind & PORT_OPTIONAL ? "optional " : "",
               p->kind & PORT_SEQUENCE ? "sequence" : "tensor", dtype_name(p->dtype));
    int from = items_from(p);
    if (p->kind & PORT_SEQUENCE) buf_printf(b, ", %d items", p->n - from);
    for (int j = from; j < p->n && j < from + 4; j++) buf_printf(b, " %s", shape_str(a, flat_at(s, p, j)));
    if (p->n - from > 4) buf_puts(b, " ...");
    buf_puts(b, " */");
  }
}

/* Checks of one sequence (expression `sq`, of port p; its items described by the static
   table `items`). */
static void emit_seq_checks(Emit *e, const Port *p, const char *sq, const char *items, bool out) {
  int cnt = p->n - items_from(p);
  if (!out) ep(e, "if (%s->count != %d) return ONNXC_ERR_SHAPE;", sq, cnt);
  if (!cnt) return;
  ep(e, "if (!%s->data) return ONNXC_ERR_NULL;", sq);
  ep(e, "for (k = 0; k < %d; k++) {", cnt);
  ep(e, "if (!%s->data[k]) return ONNXC_ERR_NULL;", sq);
  if (!out) {
    ep(e, "if (%s->dims) {", sq);
    ep(e, "if (!%s->dims[k]) return ONNXC_ERR_SHAPE;", sq);
    ep(e, "for (d = 0; d < %s[k].rank; d++)", items);
    ep(e, "  if (%s->dims[k][d] != %s[k].dims[d]) return ONNXC_ERR_SHAPE;", sq, items);
    ep(e, "}");
  }
  ep(e, "}");
}

/* After the run: count and dims of an output sequence `sq` (of port p), `when` the optional
   holding it has a value (NULL: always). */
static void emit_seq_result(Emit *e, const Port *p, const char *sq, const char *items, const char *when) {
  int cnt = p->n - items_from(p);
  if (when) ep(e, "%s->count = %s ? %d : 0;", sq, when, cnt);
  else ep(e, "%s->count = %d;", sq, cnt);
  if (!cnt) return;
  ep(e, "if (%s%s->dims)", when ? fmt(e, "%s && ", when) : "", sq);
  ep(e, "  for (k = 0; k < %d; k++)", cnt);
  ep(e, "    if (%s->dims[k])", sq);
  ep(e, "      for (d = 0; d < %s[k].rank; d++) %s->dims[k][d] = %s[k].dims[d];", items, sq, items);
}

/* The static table describing the items of port i. */
static const char *items_name(Arena *a, const char *P, const PortSide *s, int i) {
  return arena_printf(a, "%s_%s%d_items", P, s->out ? "out" : "in", i);
}

/* The argument run_impl gets for flat value j of port i. */
static const char *flat_arg(Emit *e, const PortSide *s, int i, int j) {
  const Port *p = &s->ports[i];
  Value *v = flat_at(s, p, j);
  const char *nm = s->names[i], *T = c_type(v->dtype), *cq = s->out ? "" : "const ";
  if (!(p->kind & (PORT_OPTIONAL | PORT_SEQUENCE))) return nm;
  if (p->kind & PORT_OPTIONAL) {
    if (j == 0) return fmt(e, "&%s_has", nm);
    if ((p->kind & PORT_SEQUENCE) && s->out) return fmt(e, "(%s *)%s_seq->data[%d]", T, nm, j - 1);
    if (p->kind & PORT_SEQUENCE) /* an absent input's sequence may not exist */
      return fmt(e, "%s_has ? (const %s *)%s_seq->data[%d] : (const %s *)0", nm, T, nm, j - 1, T);
    return fmt(e, "(%s%s *)%s->value", cq, T, nm);
  }
  return fmt(e, "(%s%s *)%s->data[%d]", cq, T, nm, j);
}

/* The input and output sides of the typed entry, with their parameters' names. */
static void port_sides(Ctx *ctx, Graph *g, Port *in_ports, int n_in, Port *out_ports, int n_out, PortSide *in,
                       PortSide *out) {
  Arena *a = &ctx->arena;
  *in = (PortSide){in_ports, n_in, &g->inputs, NULL, false};
  *out = (PortSide){out_ports, n_out, &g->outputs, NULL, true};
  in->names = arena_alloc(a, sizeof(char *) * (size_t)(n_in + 1));
  out->names = arena_alloc(a, sizeof(char *) * (size_t)(n_out + 1));
  for (int i = 0; i < n_in; i++) in->names[i] = arena_printf(a, "in%d_%s", i, c_ident(a, in_ports[i].name, 32));
  for (int i = 0; i < n_out; i++) out->names[i] = arena_printf(a, "out%d_%s", i, c_ident(a, out_ports[i].name, 32));
}

void emit_port_entries(Ctx *ctx, Graph *g, Buf *cb, const char *P, const char *UP, Port *in_ports, int n_in,
                       Port *out_ports, int n_out) {
  Arena *a = &ctx->arena;
  Emit e = {.ctx = ctx, .out = cb};
  PortSide in, out;
  port_sides(ctx, g, in_ports, n_in, out_ports, n_out, &in, &out);
  Buf params = {0};
  emit_params(ctx, &params, &in);
  emit_params(ctx, &params, &out);

  /* descriptors */
  for (int s = 0; s < 2; s++) {
    const PortSide *ps = s ? &out : &in;
    const char *tag = s ? "out" : "in";
    for (int i = 0; i < ps->n; i++) {
      const Port *p = &ps->ports[i];
      int from = items_from(p);
      Value *c = !(p->kind & PORT_SEQUENCE) && p->n > from ? flat_at(ps, p, from) : NULL;
      buf_printf(cb, "static const int64_t %s_%s%d_dims[] = {", P, tag, i);
      for (int d = 0; c && d < c->rank; d++) buf_printf(cb, "%s%lld", d ? ", " : "", (long long)c->dims[d]);
      if (!c || !c->rank) buf_puts(cb, "0");
      buf_puts(cb, "};\n");
      if (!(p->kind & PORT_SEQUENCE) || p->n == from) continue;
      for (int j = from; j < p->n; j++) {
        Value *v = flat_at(ps, p, j);
        buf_printf(cb, "static const int64_t %s_%s%d_item%d_dims[] = {", P, tag, i, j - from);
        for (int d = 0; d < v->rank; d++) buf_printf(cb, "%s%lld", d ? ", " : "", (long long)v->dims[d]);
        if (!v->rank) buf_puts(cb, "0");
        buf_puts(cb, "};\n");
      }
      buf_printf(cb, "static const onnxc_tensor_info %s[] = {\n", items_name(a, P, ps, i));
      for (int j = from; j < p->n; j++) {
        Value *v = flat_at(ps, p, j);
        buf_printf(cb, "  {0, %d, %d, %s_%s%d_item%d_dims, 0, 0, 0},\n", v->dtype, v->rank, P, tag, i, j - from);
      }
      buf_puts(cb, "};\n");
    }
    if (!ps->n) continue;
    buf_printf(cb, "static const onnxc_tensor_info %s_%s[] = {\n", P, s ? "outputs" : "inputs");
    for (int i = 0; i < ps->n; i++) {
      const Port *p = &ps->ports[i];
      int from = items_from(p);
      Value *c = !(p->kind & PORT_SEQUENCE) && p->n > from ? flat_at(ps, p, from) : NULL;
      bool items = (p->kind & PORT_SEQUENCE) && p->n > from;
      buf_printf(cb, "  {%s, %d, %d, %s_%s%d_dims, %d, %d, %s},\n", c_str_lit(&e, p->name), p->dtype, c ? c->rank : 0, P, tag,
                 i, p->kind, (p->kind & PORT_SEQUENCE) ? p->n - from : 0,
                 items ? items_name(a, P, ps, i) : "0");
    }
    buf_puts(cb, "};\n");
  }

  /* run_ports */
  buf_printf(cb, "static int run_ports(void *arena%s,\n    int64_t *const *dims_out) {\n", params.p ? params.p : "");
  e.indent = 1;
  ep(&e, "int64_t dd[%d];", ONNXC_MAX_RANK);
  ep(&e, "int64_t *fd[%d];", g->outputs.n + 1);
  ep(&e, "int st;");
  ep(&e, "int32_t k, d;");
  for (int s = 0; s < 2; s++) {
    const PortSide *ps = s ? &out : &in;
    for (int i = 0; i < ps->n; i++) {
      const Port *p = &ps->ports[i];
      const char *nm = ps->names[i];
      ep(&e, "if (!%s) return ONNXC_ERR_NULL;", nm);
      if (!(p->kind & PORT_OPTIONAL)) {
        if (p->kind & PORT_SEQUENCE) emit_seq_checks(&e, p, nm, items_name(a, P, ps, i), ps->out);
        continue;
      }
      /* an optional: its flag, and what it holds when it holds something */
      if (ps->out) ep(&e, "uint8_t %s_has = 0;", nm);
      else ep(&e, "const uint8_t %s_has = %s->has_value != 0;", nm, nm);
      if (p->n == 1) continue; /* known empty: nothing to hold */
      const char *when = ps->out ? "" : fmt(&e, "%s_has && ", nm);
      ep(&e, "if (%s!%s->value) return ONNXC_ERR_NULL;", when, nm);
      if (p->kind & PORT_SEQUENCE) {
        ep(&e, "%sonnxc_sequence *const %s_seq = (%sonnxc_sequence *)%s->value;", ps->out ? "" : "const ", nm,
           ps->out ? "" : "const ", nm);
        if (!ps->out) ep(&e, "if (%s_has) {", nm);
        emit_seq_checks(&e, p, fmt(&e, "%s_seq", nm), items_name(a, P, ps, i), ps->out);
        if (!ps->out) ep(&e, "}");
      }
    }
  }
  /* dims of flat outputs: the caller's for tensors (and an optional tensor's content) */
  ep(&e, "if (dims_out) {");
  for (int i = 0; i < n_out; i++) {
    const Port *p = &out_ports[i];
    for (int j = 0; j < p->n; j++) {
      bool mine = !p->kind || (p->kind == PORT_OPTIONAL && j == 1);
      ep(&e, "fd[%d] = %s;", p->first + j, mine ? fmt(&e, "dims_out[%d] ? dims_out[%d] : dd", i, i) : "dd");
    }
  }
  ep(&e, "}");
  Buf call = {0};
  buf_puts(&call, "st = run_impl(arena");
  for (int s = 0; s < 2; s++) {
    const PortSide *ps = s ? &out : &in;
    for (int i = 0; i < ps->n; i++)
      for (int j = 0; j < ps->ports[i].n; j++) buf_printf(&call, ",\n      %s", flat_arg(&e, ps, i, j));
  }
  buf_printf(&call, ",\n      dims_out ? fd : (int64_t *const *)0);");
  ep(&e, "%s", call.p);
  buf_free(&call);
  ep(&e, "(void)dd;");
  ep(&e, "(void)k;");
  ep(&e, "(void)d;");
  ep(&e, "if (st != ONNXC_OK) return st;");
  for (int i = 0; i < n_out; i++) {
    const Port *p = &out_ports[i];
    const char *nm = out.names[i];
    if (p->kind & PORT_OPTIONAL) {
      ep(&e, "%s->has_value = %s_has;", nm, nm);
      if ((p->kind & PORT_SEQUENCE) && p->n > 1)
        emit_seq_result(&e, p, fmt(&e, "%s_seq", nm), items_name(a, P, &out, i), fmt(&e, "%s_has", nm));
    } else if (p->kind & PORT_SEQUENCE) {
      emit_seq_result(&e, p, nm, items_name(a, P, &out, i), NULL);
    }
  }
  ep(&e, "return ONNXC_OK;");
  buf_puts(cb, "}\n\n");

  /* the typed entry */
  buf_printf(cb, "int %s_run(void *arena%s) {\n  return run_ports(arena", P, params.p ? params.p : "");
  for (int s = 0; s < 2; s++) {
    const PortSide *ps = s ? &out : &in;
    for (int i = 0; i < ps->n; i++) buf_printf(cb, ", %s", ps->names[i]);
  }
  buf_puts(cb, ", (int64_t *const *)0);\n}\n\n");
  buf_free(&params);

  /* generic entries */
  for (int dims = 0; dims < 2; dims++) {
    if (dims)
      buf_printf(cb, "static int %s_run_dims(void *arena, const void *const *inputs, void *const *outputs,\n"
                     "    int64_t *const *dims_out) {\n", P);
    else
      buf_printf(cb, "\nstatic int %s_run_generic(void *arena, const void *const *inputs, void *const *outputs) {\n", P);
    if (n_in) buf_printf(cb, "  if (!inputs) return ONNXC_ERR_NULL;\n");
    else buf_printf(cb, "  (void)inputs;\n");
    if (n_out) buf_printf(cb, "  if (!outputs%s) return ONNXC_ERR_NULL;\n", dims ? " || !dims_out" : "");
    else if (dims) buf_printf(cb, "  (void)dims_out;\n");
    buf_printf(cb, "  return run_ports(arena");
    for (int s = 0; s < 2; s++) {
      const PortSide *ps = s ? &out : &in;
      for (int i = 0; i < ps->n; i++) {
        const Port *p = &ps->ports[i];
        const char *t = port_type(p, ps->out);
        if (!t) t = arena_printf(a, "%s%s", ps->out ? "" : "const ", c_type(flat_at(ps, p, 0)->dtype));
        buf_printf(cb, ",\n      (%s *)%s[%d]", t, s ? "outputs" : "inputs", i);
      }
    }
    buf_printf(cb, ", %s);\n}\n\n", dims && n_out ? "dims_out" : "(int64_t *const *)0");
  }
  buf_printf(cb, "const onnxc_model %s_model = {\n  \"%s\", %d, %d, %s, %s, %s_ARENA_BYTES, %s_run_generic, %zu, %s_run_dims\n};\n",
             P, P, n_in, n_out, n_in ? arena_printf(a, "%s_inputs", P) : "0", n_out ? arena_printf(a, "%s_outputs", P) : "0",
             UP, P, ctx->align, P);
}

void emit_port_prototype(Ctx *ctx, Graph *g, Buf *b, Port *in_ports, int n_in, Port *out_ports, int n_out) {
  PortSide in, out;
  port_sides(ctx, g, in_ports, n_in, out_ports, n_out, &in, &out);
  emit_params(ctx, b, &in);
  emit_params(ctx, b, &out);
}
