/*
 * load_onnx.c - ONNX protobuf to IR.
 *
 * The file is read whole and decoded by protobuf-c (onnx.proto from libonnx-dev).  Then:
 *   - opset imports are checked against what onnxc knows;
 *   - initializers become constant Values with their data converted to the host layout
 *     (raw_data, the typed *_data fields, or external data files that must stay inside the
 *     model's folder); the element count is checked for overflow and the data length against
 *     the dims (for int4/uint4/float4e2m1 and int2/uint2 against the packed size: raw_data and
 *     int32_data both hold the packed bytes, low bits first);
 *   - graph inputs that are not initializers become VAL_INPUT values with static shapes
 *     (symbolic dims must be bound with --dim NAME=VALUE); a sequence or optional input becomes
 *     a structured Value over flat VAL_INPUT tensors (its items from --seq-input, its flag),
 *     grouped into a port (ports.c);
 *   - nodes are created with their attributes (subgraphs load recursively);
 *   - calls of model-local functions (FunctionProto) are expanded while loading: the body's
 *     nodes join the graph with internal names prefixed by the call node's name, formal
 *     inputs/outputs bound to the call's values, attribute references resolved from the call
 *     and the function's own opset imports; nested calls expand recursively (depth-bounded).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "onnx/onnx.pb-c.h"
#include "onnxc.h"

static unsigned char *read_file(Ctx *ctx, const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) fail(ctx, "cannot open '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    fail(ctx, "'%s' is not a regular file", path);
  }
  size_t n = (size_t)st.st_size;
  unsigned char *p = arena_alloc(&ctx->arena, n + 1);
  if (n && fread(p, 1, n, f) != n) {
    fclose(f);
    fail(ctx, "cannot read '%s'", path);
  }
  fclose(f);
  *len = n;
  return p;
}

/* --- tensors ----------------------------------------------------------------------------- */

static void set_dims(Ctx *ctx, Value *v, size_t n_dims, const int64_t *dims, const char *what) {
  if (n_dims > ONNXC_MAX_RANK)
    fail(ctx, "%s '%s' has rank %zu; onnxc supports up to %d", what, v->name, n_dims, ONNXC_MAX_RANK);
  v->rank = (int)n_dims;
  int64_t count = 1;
  for (size_t i = 0; i < n_dims; i++) {
    if (dims[i] < 0) fail(ctx, "%s '%s' has a negative dimension %lld", what, v->name, (long long)dims[i]);
    if (!mul_ok(count, dims[i], &count))
      fail(ctx, "%s '%s': element count overflows", what, v->name);
    v->dims[i] = dims[i];
  }
  int64_t bytes;
  if (!mul_ok(count, (int64_t)(dtype_size(v->dtype) ? dtype_size(v->dtype) : 1), &bytes) ||
      bytes > ONNXC_MAX_TENSOR_BYTES)
    fail(ctx, "%s '%s': element count overflows (%lld elements)", what, v->name, (long long)count);
  v->typed = true;
}

/* Checks that an external data path stays inside the model's folder. */
static char *external_path(Ctx *ctx, const char *tensor, const char *loc) {
  if (!loc || !*loc) fail(ctx, "initializer '%s': external data without a location", tensor);
  if (loc[0] == '/') fail(ctx, "initializer '%s': external data path '%s' is absolute", tensor, loc);
  /* reject any '..' component */
  const char *p = loc;
  while (*p) {
    const char *q = strchr(p, '/');
    size_t n = q ? (size_t)(q - p) : strlen(p);
    if (n == 2 && p[0] == '.' && p[1] == '.')
      fail(ctx, "initializer '%s': external data path '%s' leaves the model's folder", tensor, loc);
    p += n;
    if (*p == '/') p++;
  }
  char *full = arena_printf(&ctx->arena, "%s/%s", ctx->model_dir, loc);
  char rdir[PATH_MAX], rfull[PATH_MAX];
  if (!realpath(ctx->model_dir, rdir)) fail(ctx, "cannot resolve the model's folder");
  if (!realpath(full, rfull))
    fail(ctx, "initializer '%s': cannot open external data '%s': %s", tensor, loc, strerror(errno));
  size_t dl = strlen(rdir);
  if (strncmp(rfull, rdir, dl) != 0 || (rfull[dl] != '/' && rfull[dl] != 0))
    fail(ctx, "initializer '%s': external data path '%s' leaves the model's folder", tensor, loc);
  return full;
}

static void load_external(Ctx *ctx, const Onnx__TensorProto *t, Value *v, void *dst, int64_t bytes) {
  const char *loc = NULL;
  int64_t offset = 0, length = -1;
  for (size_t i = 0; i < t->n_external_data; i++) {
    const char *k = t->external_data[i]->key, *val = t->external_data[i]->value;
    if (!k || !val) continue;
    if (strcmp(k, "location") == 0) loc = val;
    else if (strcmp(k, "offset") == 0) offset = strtoll(val, NULL, 10);
    else if (strcmp(k, "length") == 0) length = strtoll(val, NULL, 10);
  }
  char *path = external_path(ctx, v->name, loc);
  if (offset < 0) fail(ctx, "initializer '%s': negative external data offset", v->name);
  if (length >= 0 && length != bytes)
    fail(ctx, "initializer '%s': external data length %lld does not match its dims (%lld bytes)",
         v->name, (long long)length, (long long)bytes);
  FILE *f = fopen(path, "rb");
  if (!f) fail(ctx, "initializer '%s': cannot open external data '%s'", v->name, loc);
  if (fseek(f, (long)offset, SEEK_SET) != 0 || fread(dst, 1, (size_t)bytes, f) != (size_t)bytes) {
    fclose(f);
    fail(ctx, "initializer '%s': external data '%s' is shorter than its dims (%lld bytes at offset %lld)",
         v->name, loc, (long long)bytes, (long long)offset);
  }
  fclose(f);
}

/* Fills v (name already set) from a TensorProto. */
static void load_tensor(Ctx *ctx, const Onnx__TensorProto *t, Value *v, const char *what) {
  v->dtype = t->data_type;
  if (!dtype_bits(v->dtype) || v->dtype == DT_COMPLEX64 || v->dtype == DT_COMPLEX128)
    fail(ctx, "%s '%s' has element type %s (%d), which onnxc does not support", what, v->name,
         dtype_name(v->dtype), v->dtype);
  set_dims(ctx, v, t->n_dims, t->dims, what);
  if (t->segment) fail(ctx, "%s '%s' is segmented; not supported", what, v->name);
  int64_t n = value_numel(v);
  int64_t bytes = value_bytes(v); /* packed size for the sub-byte types */
  void *dst = value_alloc_data(ctx, v);
  v->kind = VAL_CONST;
  if (v->dtype == DT_STRING) {
    if ((int64_t)t->n_string_data != n)
      fail(ctx, "%s '%s': %zu strings for %lld elements", what, v->name, t->n_string_data, (long long)n);
    char **s = dst;
    for (int64_t i = 0; i < n; i++) {
      /* elements become C strings (onnxc_string): a NUL inside one cannot be kept */
      if (t->string_data[i].len && memchr(t->string_data[i].data, 0, t->string_data[i].len))
        fail(ctx, "%s '%s': string element %lld holds a NUL byte, which a C string cannot", what, v->name, (long long)i);
      s[i] = arena_alloc(&ctx->arena, t->string_data[i].len + 1);
      if (t->string_data[i].len) memcpy(s[i], t->string_data[i].data, t->string_data[i].len);
    }
    return;
  }
  if (t->has_data_location && t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
    load_external(ctx, t, v, dst, bytes);
    return;
  }
  if (t->has_raw_data) {
    if ((int64_t)t->raw_data.len != bytes)
      fail(ctx, "%s '%s': raw data holds %zu bytes but dims %s need %lld", what, v->name,
           t->raw_data.len, shape_str(&ctx->arena, v), (long long)bytes);
    if (bytes) memcpy(dst, t->raw_data.data, (size_t)bytes);
    return;
  }
  if (dtype_is_small(v->dtype)) {
    /* int32_data holds one stored byte per entry: a float8 code, or 2 (4-bit) / 4 (2-bit)
       packed elements, low bits first */
    if ((int64_t)t->n_int32_data != bytes)
      fail(ctx, "%s '%s': int32_data holds %zu entries but dims %s need %lld (%s packs %d per entry)",
           what, v->name, t->n_int32_data, shape_str(&ctx->arena, v), (long long)bytes,
           dtype_name(v->dtype), 8 / dtype_bits(v->dtype));
    for (int64_t i = 0; i < bytes; i++) ((uint8_t *)dst)[i] = (uint8_t)t->int32_data[i];
    return;
  }
  int64_t have;
  switch (v->dtype) {
  case DT_FLOAT: have = (int64_t)t->n_float_data; break;
  case DT_DOUBLE: have = (int64_t)t->n_double_data; break;
  case DT_INT64: have = (int64_t)t->n_int64_data; break;
  case DT_UINT32: case DT_UINT64: have = (int64_t)t->n_uint64_data; break;
  default: have = (int64_t)t->n_int32_data; break;
  }
  if (have != n)
    fail(ctx, "%s '%s': data holds %lld elements but dims %s need %lld", what, v->name,
         (long long)have, shape_str(&ctx->arena, v), (long long)n);
  for (int64_t i = 0; i < n; i++) {
    switch (v->dtype) {
    case DT_FLOAT: ((float *)dst)[i] = t->float_data[i]; break;
    case DT_DOUBLE: ((double *)dst)[i] = t->double_data[i]; break;
    case DT_INT64: ((int64_t *)dst)[i] = t->int64_data[i]; break;
    case DT_UINT32: ((uint32_t *)dst)[i] = (uint32_t)t->uint64_data[i]; break;
    case DT_UINT64: ((uint64_t *)dst)[i] = t->uint64_data[i]; break;
    case DT_FLOAT16: case DT_BFLOAT16: case DT_UINT16:
      ((uint16_t *)dst)[i] = (uint16_t)t->int32_data[i]; break;
    case DT_INT16: ((int16_t *)dst)[i] = (int16_t)t->int32_data[i]; break;
    case DT_INT32: ((int32_t *)dst)[i] = t->int32_data[i]; break;
    case DT_INT8: ((int8_t *)dst)[i] = (int8_t)t->int32_data[i]; break;
    case DT_UINT8: ((uint8_t *)dst)[i] = (uint8_t)t->int32_data[i]; break;
    case DT_BOOL: ((uint8_t *)dst)[i] = t->int32_data[i] != 0; break;
    default: unreachable("tensor dtype");
    }
  }
}

void load_tensor_file(Ctx *ctx, const char *path, Value *v) {
  size_t len;
  unsigned char *buf = read_file(ctx, path, &len);
  Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, len, buf);
  if (!t) fail(ctx, "'%s' is not a serialized TensorProto", path);
  load_tensor(ctx, t, v, "tensor");
  onnx__tensor_proto__free_unpacked(t, NULL);
}

/* --- graphs ------------------------------------------------------------------------------ */

static bool is_tensor_type(const Onnx__TypeProto *tp) {
  return tp && tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE && tp->tensor_type;
}

static int64_t dim_param_value(Ctx *ctx, const char *param, const char *input) {
  for (int i = 0; i < ctx->n_dim_params; i++)
    if (strcmp(ctx->dim_params[i].name, param) == 0) return ctx->dim_params[i].value;
  fail(ctx, "input '%s' has symbolic dimension '%s'; give its size with --dim %s=N", input,
       param, param);
}

/* v's type and static shape from a tensor type (input `what`, for messages). */
static void load_tensor_type(Ctx *ctx, const Onnx__TypeProto__Tensor *tt, Value *v) {
  v->dtype = tt->elem_type;
  if (!dtype_bits(v->dtype) || v->dtype == DT_COMPLEX64 || v->dtype == DT_COMPLEX128)
    fail(ctx, "input '%s' has element type %s (%d), which onnxc does not support", v->name,
         dtype_name(v->dtype), v->dtype);
  if (!tt->shape) fail(ctx, "input '%s' has no shape; onnxc needs static shapes", v->name);
  int64_t dims[ONNXC_MAX_RANK] = {0};
  if (tt->shape->n_dim > ONNXC_MAX_RANK)
    fail(ctx, "input '%s' has rank %zu; onnxc supports up to %d", v->name, tt->shape->n_dim,
         ONNXC_MAX_RANK);
  for (size_t i = 0; i < tt->shape->n_dim; i++) {
    const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
      dims[i] = d->dim_value;
    else if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
      dims[i] = dim_param_value(ctx, d->dim_param, v->name);
    else
      fail(ctx, "input '%s' has an unknown dimension %zu; onnxc needs static shapes", v->name, i);
  }
  set_dims(ctx, v, tt->shape->n_dim, dims, "input");
}


/* The item type a sequence type declares: element type (0: none), rank (-1: no shape) and
   dims (-1: symbolic or unknown). */
static void seq_item_decl(const Onnx__TypeProto *tp, int *dtype, int *rank, int64_t *dims) {
  const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
  *dtype = tt->has_elem_type ? tt->elem_type : 0;
  *rank = -1;
  if (!tt->shape || tt->shape->n_dim > ONNXC_MAX_RANK) return;
  *rank = (int)tt->shape->n_dim;
  for (size_t i = 0; i < tt->shape->n_dim; i++) {
    const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
    dims[i] = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ? d->dim_value : -1;
  }
}

/* A sequence of tensors: its items from --seq-input (ports.c). */
static void load_sequence_input(Ctx *ctx, Graph *g, const Onnx__TypeProto *tp, Value *v, const char *name) {
  const Onnx__TypeProto *et = tp->sequence_type ? tp->sequence_type->elem_type : NULL;
  if (!is_tensor_type(et))
    fail(ctx, "input '%s' is a sequence of %s; onnxc supports sequences of tensors", name,
         et && et->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE ? "sequences" : "non-tensors");
  int dt, rank;
  int64_t dims[ONNXC_MAX_RANK];
  seq_item_decl(et, &dt, &rank, dims);
  if (dt && (!dtype_bits(dt) || dt == DT_COMPLEX64 || dt == DT_COMPLEX128))
    fail(ctx, "input '%s' has element type %s (%d), which onnxc does not support", name, dtype_name(dt), dt);
  int item_dt;
  v->seq = seq_input_items(ctx, g, name, dt, rank, dims, &item_dt);
  v->kind = VAL_INPUT;
  value_set_shape(v, item_dt, 0, NULL);
}

/* A top-level input of sequence or optional type: the structured Value v (nodes read it) and
   its flat inputs (ports.c). */
static void load_structured_input(Ctx *ctx, Graph *g, const Onnx__TypeProto *tp, Value *v) {
  const char *name = v->name;
  if (tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE) {
    load_sequence_input(ctx, g, tp, v, name);
    return;
  }
  if (tp->value_case != ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE || !tp->optional_type || !tp->optional_type->elem_type)
    fail(ctx, "input '%s' is not a tensor, a sequence or an optional (maps and sparse tensors are not supported)", name);
  const Onnx__TypeProto *et = tp->optional_type->elem_type;
  OptInfo *oi = arena_alloc(&ctx->arena, sizeof *oi);
  oi->present = graph_new_value(ctx, g, arena_printf(&ctx->arena, "%s.has_value", name));
  oi->present->kind = VAL_INPUT;
  value_set_shape(oi->present, DT_BOOL, 0, NULL);
  Value *c = graph_new_value(ctx, g, arena_printf(&ctx->arena, "%s.value", name));
  c->kind = VAL_INPUT;
  if (is_tensor_type(et)) {
    load_tensor_type(ctx, et->tensor_type, c);
  } else if (et->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE) {
    load_sequence_input(ctx, g, et, c, name);
    oi->of_seq = true;
  } else {
    fail(ctx, "input '%s' is an optional of neither a tensor nor a sequence; not supported", name);
  }
  oi->content = c;
  v->opt = oi;
  v->kind = VAL_INPUT;
  value_set_shape(v, c->dtype, 0, NULL);
}

static Graph *load_graph(Ctx *ctx, const Onnx__GraphProto *gp, Graph *parent, bool top);

/* A model-local function being expanded: the call node, the names its formal inputs and
   outputs stand for, the prefix that makes its internal names unique, and its opsets. */
typedef struct Inline {
  const struct Inline *outer;
  const Onnx__FunctionProto *fn;
  const Onnx__NodeProto *call;
  Node *call_node;              /* for attribute references */
  const char *prefix;
  int depth;
} Inline;

static bool load_attr(Ctx *ctx, Graph *g, Node *n, Attr *a, const Onnx__AttributeProto *ap,
                      const Inline *in);

static bool load_attr(Ctx *ctx, Graph *g, Node *n, Attr *a, const Onnx__AttributeProto *ap,
                      const Inline *in) {
  a->name = arena_strdup(&ctx->arena, ap->name ? ap->name : "");
  a->type = ap->has_type ? (int)ap->type : 0;
  if (ap->ref_attr_name && *ap->ref_attr_name) {
    if (!in) fail_node(ctx, n, "attribute '%s' refers to a function attribute outside a function", a->name);
    const Attr *src = node_attr(in->call_node, ap->ref_attr_name);
    if (!src) return false; /* not given by the call: the op's default applies */
    *a = *src;
    a->name = arena_strdup(&ctx->arena, ap->name ? ap->name : "");
    return true;
  }
  if (!a->type) { /* pre-IR-v3 files: infer from which field is set */
    if (ap->has_f) a->type = ATTR_FLOAT;
    else if (ap->has_i) a->type = ATTR_INT;
    else if (ap->has_s) a->type = ATTR_STRING;
    else if (ap->t) a->type = ATTR_TENSOR;
    else if (ap->g) a->type = ATTR_GRAPH;
    else if (ap->n_floats) a->type = ATTR_FLOATS;
    else if (ap->n_ints) a->type = ATTR_INTS;
    else if (ap->n_strings) a->type = ATTR_STRINGS;
  }
  a->f = ap->f;
  a->i = ap->i;
  if (ap->has_s || a->type == ATTR_STRING) {
    char *s = arena_alloc(&ctx->arena, ap->s.len + 1);
    if (ap->s.len) memcpy(s, ap->s.data, ap->s.len);
    a->s = s;
    a->slen = ap->s.len;
  }
  if (ap->n_floats) {
    a->floats = arena_alloc(&ctx->arena, sizeof(float) * ap->n_floats);
    memcpy(a->floats, ap->floats, sizeof(float) * ap->n_floats);
    a->n_floats = (int)ap->n_floats;
  }
  if (ap->n_ints) {
    a->ints = arena_alloc(&ctx->arena, sizeof(int64_t) * ap->n_ints);
    memcpy(a->ints, ap->ints, sizeof(int64_t) * ap->n_ints);
    a->n_ints = (int)ap->n_ints;
  }
  if (ap->n_strings) {
    a->strings = arena_alloc(&ctx->arena, sizeof(char *) * ap->n_strings);
    for (size_t i = 0; i < ap->n_strings; i++) {
      char *s = arena_alloc(&ctx->arena, ap->strings[i].len + 1);
      if (ap->strings[i].len) memcpy(s, ap->strings[i].data, ap->strings[i].len);
      a->strings[i] = s;
    }
    a->n_strings = (int)ap->n_strings;
  }
  if (ap->t) {
    Value *v = arena_alloc(&ctx->arena, sizeof *v);
    v->name = arena_strdup(&ctx->arena, ap->t->name ? ap->t->name : a->name);
    v->offset = -1;
    load_tensor(ctx, ap->t, v, "attribute tensor");
    a->t = v;
  }
  if (ap->g) a->g = load_graph(ctx, ap->g, g, false);
  if (ap->tp) { /* Optional's `type`: what an empty optional would hold */
    const Onnx__TypeProto *t = ap->tp;
    a->tp_kind = TP_OTHER;
    if (is_tensor_type(t)) {
      a->tp_kind = TP_TENSOR;
      a->tp_dtype = t->tensor_type->elem_type;
    } else if (t->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE && t->sequence_type &&
               is_tensor_type(t->sequence_type->elem_type)) {
      a->tp_kind = TP_SEQUENCE;
      a->tp_dtype = t->sequence_type->elem_type->tensor_type->elem_type;
    }
  }
  if (ap->sparse_tensor || ap->n_sparse_tensors)
    fail_node(ctx, n, "attribute '%s' is a sparse tensor; not supported", a->name);
  return true;
}

static Value *use_value(Ctx *ctx, Graph *g, const char *name) {
  Value *v = graph_find_value(g, name);
  if (v) return v;
  /* Not yet defined (outputs of later nodes); created now, checked by graph_verify(). */
  return graph_new_value(ctx, g, name);
}



static const Onnx__FunctionProto *find_function(Ctx *ctx, const char *domain, const char *name) {
  const Onnx__ModelProto *m = ctx->model_proto;
  for (size_t i = 0; m && i < m->n_functions; i++) {
    const Onnx__FunctionProto *f = m->functions[i];
    const char *fd = f->domain ? f->domain : "";
    if (strcmp(fd, "ai.onnx") == 0) fd = "";
    if (f->name && strcmp(f->name, name) == 0 && strcmp(fd, domain) == 0) return f;
  }
  return NULL;
}

/* The graph-level name a function-body name stands for. */
static const char *map_name(Ctx *ctx, const Inline *in, const char *name) {
  if (!in || !name || !*name) return name;
  const Onnx__FunctionProto *f = in->fn;
  for (size_t i = 0; i < f->n_input; i++)
    if (strcmp(f->input[i], name) == 0)
      return i < in->call->n_input ? map_name(ctx, in->outer, in->call->input[i]) : "";
  for (size_t i = 0; i < f->n_output; i++)
    if (strcmp(f->output[i], name) == 0)
      return i < in->call->n_output ? map_name(ctx, in->outer, in->call->output[i]) : "";
  return arena_printf(&ctx->arena, "%s/%s", in->prefix, name);
}

static int function_opset(const Onnx__FunctionProto *f, const char *domain) {
  for (size_t i = 0; i < f->n_opset_import; i++) {
    const char *d = f->opset_import[i]->domain ? f->opset_import[i]->domain : "";
    if (strcmp(d, "ai.onnx") == 0) d = "";
    if (strcmp(d, domain) == 0) return (int)f->opset_import[i]->version;
  }
  return -1;
}

static void add_node(Ctx *ctx, Graph *g, const Onnx__NodeProto *np, size_t idx, const Inline *in) {
  const char *op = np->op_type ? np->op_type : "";
  const char *domain = np->domain && strcmp(np->domain, "ai.onnx") ? np->domain : "";
  char autoname[64];
  snprintf(autoname, sizeof autoname, "%s_%zu", *op ? op : "node", idx);
  const char *name = np->name && *np->name ? np->name : autoname;
  if (in) name = arena_printf(&ctx->arena, "%s/%s", in->prefix, name);
  /* a --custom-op spec replaces a model-local function of the same name: the call stays */
  Node probe = {.op_type = op, .domain = domain};
  const Onnx__FunctionProto *fn = *op && !custom_resolve(ctx, &probe) ? find_function(ctx, domain, op) : NULL;
  if (fn) {
    /* expand the call in place: its body's nodes join this graph */
    int depth = in ? in->depth + 1 : 1;
    if (depth > 32) fail(ctx, "node '%s' (%s): model-local functions nest too deeply (recursion?)", name, op);
    Node tmp = {.name = name, .op_type = op, .domain = domain};
    Inline sub = {in, fn, np, NULL, name, depth};
    /* attributes of the call, for ref_attr_name in the body */
    tmp.n_attrs = (int)np->n_attribute;
    tmp.attrs = arena_alloc(&ctx->arena, sizeof(Attr) * (np->n_attribute + 1));
    for (size_t k = 0; k < np->n_attribute; k++) load_attr(ctx, g, &tmp, &tmp.attrs[k], np->attribute[k], in);
    Node *call = arena_alloc(&ctx->arena, sizeof *call);
    *call = tmp;
    sub.call_node = call;
    for (size_t k = 0; k < fn->n_node; k++) add_node(ctx, g, fn->node[k], k, &sub);
    return;
  }
  Node *n = graph_new_node(ctx, g, op, name, (int)np->n_input, (int)np->n_output);
  n->domain = arena_strdup(&ctx->arena, domain);
  n->opset = -1;
  if (in) {
    n->opset = function_opset(in->fn, n->domain);
    if (n->opset < 0 && !*n->domain) n->opset = ctx->opset;
  }
  if (!*op) fail_node(ctx, n, "node has no op_type");
  for (size_t k = 0; k < np->n_input; k++) {
    const char *nm = map_name(ctx, in, np->input[k]);
    n->inputs[k] = nm && *nm ? use_value(ctx, g, nm) : NULL;
  }
  n->n_attrs = (int)np->n_attribute;
  n->attrs = arena_alloc(&ctx->arena, sizeof(Attr) * (np->n_attribute + 1));
  int na = 0;
  for (size_t k = 0; k < np->n_attribute; k++)
    if (load_attr(ctx, g, n, &n->attrs[na], np->attribute[k], in)) na++;
  n->n_attrs = na;
  /* the outer values its subgraphs read become hidden inputs, so ordering, liveness and the
     emitted function see them like any input */
  PtrVec fv = {0};
  for (int k = 0; k < n->n_attrs; k++)
    if (n->attrs[k].g) subgraph_free_values(ctx, n->attrs[k].g, &fv);
  /* Gradient's y: read by its expansion (autodiff.c), so it is ordered after y's producers */
  if (!strcmp(op, "Gradient") && !strcmp(n->domain, "ai.onnx.preview.training")) {
    const char *y = attr_s(n, "y", "");
    const char *nm = *y ? map_name(ctx, in, y) : NULL;
    if (nm && *nm) vec_push(&ctx->arena, &fv, use_value(ctx, g, nm));
  }
  if (fv.n) {
    Value **ins = arena_alloc(&ctx->arena, sizeof(Value *) * (size_t)(n->n_inputs + fv.n + 1));
    for (int k = 0; k < n->n_inputs; k++) ins[k] = n->inputs[k];
    for (int k = 0; k < fv.n; k++) ins[n->n_inputs + k] = fv.v[k];
    n->inputs = ins;
    n->n_inputs += fv.n;
  }
  for (size_t k = 0; k < np->n_output; k++) {
    const char *nm = map_name(ctx, in, np->output[k]);
    if (!nm || !*nm) continue;
    Value *v = NULL;
    /* an output may already exist as a forward reference of an earlier node's input */
    for (int q = 0; q < g->values.n; q++) {
      Value *w = g->values.v[q];
      if (strcmp(w->name, nm) == 0) { v = w; break; }
    }
    if (!v) v = graph_new_value(ctx, g, nm);
    n->outputs[k] = v;
  }
}

/* v's declared tensor shape, when every dim is a number (Value.decl_rank) */
static void note_declared_shape(Value *v, const Onnx__ValueInfoProto *vi) {
  const Onnx__TypeProto *tp = vi->type;
  if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type || !tp->tensor_type->shape) return;
  const Onnx__TensorShapeProto *sh = tp->tensor_type->shape;
  if (sh->n_dim > ONNXC_MAX_RANK) return;
  for (size_t d = 0; d < sh->n_dim; d++) {
    if (sh->dim[d]->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE || sh->dim[d]->dim_value < 0) return;
    v->decl_dims[d] = sh->dim[d]->dim_value;
  }
  v->decl_rank = (int)sh->n_dim;
}

static Graph *load_graph(Ctx *ctx, const Onnx__GraphProto *gp, Graph *parent, bool top) {
  Graph *g = graph_new(ctx, parent);
  PtrVec ports = {0};
  g->is_sub = !top;
  for (size_t i = 0; i < gp->n_initializer; i++) {
    const Onnx__TensorProto *t = gp->initializer[i];
    const char *name = t->name ? t->name : "";
    if (!*name) fail(ctx, "initializer %zu has no name", i);
    Value *v = graph_new_value(ctx, g, name);
    load_tensor(ctx, t, v, "initializer");
    vec_push(&ctx->arena, &g->inits, v);
  }
  if (gp->n_sparse_initializer) fail(ctx, "sparse initializers are not supported");
  for (size_t i = 0; i < gp->n_input; i++) {
    const Onnx__ValueInfoProto *vi = gp->input[i];
    const char *name = vi->name ? vi->name : "";
    Value *existing = NULL;
    for (int k = 0; k < g->inits.n; k++)
      if (strcmp(((Value *)g->inits.v[k])->name, name) == 0) existing = g->inits.v[k];
    if (existing) continue; /* IR < 4: initializers are listed as inputs too */
    Value *v = graph_new_value(ctx, g, name);
    v->kind = VAL_INPUT;
    if (top) {
      bool bound = false;
      for (int k = 0; k < ctx->n_const_inputs; k++)
        if (strcmp(ctx->const_inputs[k].name, name) == 0) {
          if (vi->type && !is_tensor_type(vi->type)) fail(ctx, "--const-input %s: the input is not a tensor", name);
          load_tensor_file(ctx, ctx->const_inputs[k].path, v);
          v->kind = VAL_CONST;
          bound = true;
        }
      if (!bound) {
        const Onnx__TypeProto *tp = vi->type;
        if (!tp) fail(ctx, "input '%s' has no type", v->name);
        if (is_tensor_type(tp)) load_tensor_type(ctx, tp->tensor_type, v);
        else load_structured_input(ctx, g, tp, v);
        add_input_port(ctx, g, &ports, v);
      }
    } else {
      /* subgraph inputs (Loop/Scan bodies): types set by the owning op's shape rule */
      if (vi->type && vi->type->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
          vi->type->tensor_type) {
        const Onnx__TypeProto__Tensor *tt = vi->type->tensor_type;
        v->dtype = tt->elem_type;
        /* the declared shape, when fully static, is a hint for the owner's rule (rank of a
           Loop's iteration number, ...); rank -1 means undeclared */
        v->rank = -1;
        if (tt->shape && tt->shape->n_dim <= ONNXC_MAX_RANK) {
          bool ok = true;
          for (size_t d = 0; d < tt->shape->n_dim; d++) {
            const Onnx__TensorShapeProto__Dimension *dm = tt->shape->dim[d];
            if (dm->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) v->dims[d] = dm->dim_value;
            else ok = false;
          }
          if (ok) v->rank = (int)tt->shape->n_dim;
        }
      }
      vec_push(&ctx->arena, &g->inputs, v);
    }
  }
  if (top) set_input_ports(ctx, g, &ports);
  for (size_t i = 0; i < gp->n_node; i++) add_node(ctx, g, gp->node[i], i, NULL);
  for (size_t i = 0; i < gp->n_output; i++) {
    const char *name = gp->output[i]->name ? gp->output[i]->name : "";
    Value *v = graph_find_value(g, name);
    if (!v) fail(ctx, "graph output '%s' is not produced by any node, input or initializer", name);
    v->is_output = true;
    note_declared_shape(v, gp->output[i]);
    vec_push(&ctx->arena, &g->outputs, v);
  }
  for (size_t i = 0; i < gp->n_value_info; i++) {
    Value *v = gp->value_info[i]->name ? graph_find_value(g, gp->value_info[i]->name) : NULL;
    if (v) note_declared_shape(v, gp->value_info[i]);
  }
  return g;
}

static int domain_opset(const Onnx__ModelProto *m, const char *domain) {
  for (size_t i = 0; i < m->n_opset_import; i++) {
    const char *d = m->opset_import[i]->domain ? m->opset_import[i]->domain : "";
    if (strcmp(d, "ai.onnx") == 0) d = "";
    if (strcmp(d, domain) == 0) return (int)m->opset_import[i]->version;
  }
  return -1;
}

static void set_opsets(Ctx *ctx, Graph *g, const Onnx__ModelProto *m) {
  for (int i = 0; i < g->nodes.n; i++) {
    Node *n = g->nodes.v[i];
    if (n->opset >= 0) continue; /* nodes from function bodies carry the function's opsets */
    n->opset = domain_opset(m, n->domain);
    if (n->opset < 0) {
      if (*n->domain) fail_node(ctx, n, "domain '%s' is not imported by the model", n->domain);
      if (!ctx->opset) fail_node(ctx, n, "the model imports no default-domain (ai.onnx) opset");
      n->opset = ctx->opset;
    }
    for (int k = 0; k < n->n_attrs; k++)
      if (n->attrs[k].g) set_opsets(ctx, n->attrs[k].g, m);
  }
}

void load_onnx(Ctx *ctx) {
  size_t len;
  unsigned char *buf = read_file(ctx, ctx->file, &len);
  if (len == 0) fail(ctx, "the file is empty");
  Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
  if (!m) fail(ctx, "not an ONNX model (protobuf decoding failed: truncated or corrupt file)");
  ctx->model_proto = m; /* freed by onnxc_compile() however compilation ends */
  if (!m->graph) fail(ctx, "not an ONNX model (no graph)");
  ctx->opset = domain_opset(m, "");
  if (ctx->opset < 0) {
    /* IR < 3 files predate opset imports; otherwise a model may use only other domains */
    ctx->opset = m->n_opset_import == 0 && m->has_ir_version && m->ir_version < 3 ? 1 : 0;
  }
  if (ctx->opset > ONNXC_MAX_OPSET)
    fail(ctx, "the model uses ai.onnx opset %d; onnxc knows opsets up to %d", ctx->opset,
         ONNXC_MAX_OPSET);
  if (ctx->opset < 0) fail(ctx, "invalid ai.onnx opset %d", ctx->opset);
  ctx->graph = load_graph(ctx, m->graph, NULL, true);
  set_opsets(ctx, ctx->graph, m);
}
