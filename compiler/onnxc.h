/*
 * onnxc.h - the compiler's one internal header.
 *
 * Sections follow the files that define the functions.  The IR is small on purpose: a Graph
 * holds Nodes and Values; a Value is one tensor (a graph input, an initializer, a node output);
 * its `data` is non-NULL when its contents are known at compile time (initializers and folded
 * values).  All compiler memory comes from the Ctx arena and is freed at once.
 *
 * User errors (bad model, unsupported op, bad flag) go through `fail()`/`fail_node()`, which
 * format one line into ctx->err and longjmp to the boundary in onnxc_compile(); compiler bugs go
 * through `unreachable()`, which aborts with file and line.
 */
#ifndef ONNXC_H
#define ONNXC_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define ONNXC_MAX_RANK 8
#define ONNXC_MAX_OPSET 28        /* newest default-domain opset onnxc knows */
#define ONNXC_MAX_TENSOR_BYTES ((int64_t)1 << 40)
/* onnxc_conv_t's constants in templates/conv.h (keep them equal): floats of slack after the
   padded input copy (ONNXC_CONVT_PAD), floats of its stack band buffer where the plan leaves
   no scratch (ONNXC_CONVT_STACK), and the most taps of its offset table (ONNXC_KPMAX) */
#define CONVT_PAD 16
#define CONVT_STACK 4096
#define CONVT_KPMAX 49

/* ONNX TensorProto.DataType */
enum {
  DT_UNDEFINED = 0, DT_FLOAT = 1, DT_UINT8 = 2, DT_INT8 = 3, DT_UINT16 = 4, DT_INT16 = 5,
  DT_INT32 = 6, DT_INT64 = 7, DT_STRING = 8, DT_BOOL = 9, DT_FLOAT16 = 10, DT_DOUBLE = 11,
  DT_UINT32 = 12, DT_UINT64 = 13, DT_COMPLEX64 = 14, DT_COMPLEX128 = 15, DT_BFLOAT16 = 16,
  /* ONNX 1.14+ small types (see dtype_is_small()): 8-bit floats are stored one per byte
     (uint8_t); 4-bit types two per byte and 2-bit types four per byte, packed from the low
     bits up exactly as in ONNX raw_data (the last byte's unused bits are zero). */
  DT_FLOAT8E4M3FN = 17, DT_FLOAT8E4M3FNUZ = 18, DT_FLOAT8E5M2 = 19, DT_FLOAT8E5M2FNUZ = 20,
  DT_UINT4 = 21, DT_INT4 = 22, DT_FLOAT4E2M1 = 23, DT_FLOAT8E8M0 = 24, DT_UINT2 = 25, DT_INT2 = 26
};

typedef struct Ctx Ctx;
typedef struct CustomOp CustomOp;
typedef struct Graph Graph;
typedef struct Node Node;
typedef struct Value Value;
typedef struct OpDef OpDef;
typedef struct Emit Emit;
typedef struct OptInfo OptInfo;

/* ---- arena.c: bump allocator, strings, buffers ---------------------------------------- */

typedef struct ArenaBlock ArenaBlock;
typedef struct Arena { ArenaBlock *head; } Arena;
void *arena_alloc(Arena *a, size_t n);              /* zeroed, 16-byte aligned */
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void arena_free_all(Arena *a);

/* A growable byte buffer (heap-backed; the emitter's output). */
typedef struct Buf { char *p; size_t len, cap; } Buf;
void buf_put(Buf *b, const char *s, size_t n);
void buf_puts(Buf *b, const char *s);
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
void buf_free(Buf *b);

/* A growable array of pointers in the arena. */
typedef struct PtrVec { void **v; int n, cap; } PtrVec;
void vec_push(Arena *a, PtrVec *vec, void *p);

/* ---- IR ------------------------------------------------------------------------------- */

enum { VAL_INTERMEDIATE = 0, VAL_INPUT = 1, VAL_CONST = 2 };
enum { ALIAS_NONE = 0, ALIAS_VIEW = 1, ALIAS_INPLACE = 2, ALIAS_CONCAT = 3 };

struct Value {
  const char *name;       /* ONNX name ("" for absent optional inputs never get a Value) */
  int id;                 /* dense index in Graph.values */
  int kind;               /* VAL_INPUT, VAL_CONST or VAL_INTERMEDIATE */
  bool is_output;         /* a graph output */
  bool typed;             /* dtype/shape known (set by loader for inputs, by inference otherwise) */
  bool dynamic;           /* shape depends on data: dims are the compile-time upper bound and
                             the kernel reports the actual dims at run time (see emit_c.c) */
  int dtype;
  int rank;
  int64_t dims[ONNXC_MAX_RANK];
  /* load_onnx.c: the static shape the model declares for it (graph output or value_info), for
     rules whose output shape the inputs do not determine (ImageDecoder); decl_rank -1: none */
  int decl_rank;
  int64_t decl_dims[ONNXC_MAX_RANK];
  void *data;             /* compile-time contents (little-endian host layout) or NULL;
                             for DT_STRING an array of char* */
  Node *producer;
  int n_consumers;
  /* planning */
  int64_t offset;         /* byte offset in the arena, or -1 */
  int first, last;        /* live range in schedule steps */
  Value *alias_of;        /* shares storage with another value (set by the planner) */
  int alias_kind;         /* ALIAS_VIEW, ALIAS_INPLACE, ALIAS_CONCAT */
  int64_t alias_offset;   /* byte offset inside alias_of */
  const char *cname;      /* C identifier of constants in generated code */
  PtrVec *seq;            /* a sequence: its items, known at compile time (ops_sequence.c);
                             dtype is the items' type, the value itself has no storage */
  OptInfo *opt;           /* an optional (ports.c): its presence and content; dtype is the
                             content's element type, the value itself has no storage */
};

/* An ONNX optional: whether it holds a value is `present`, a bool scalar known at compile time
   (a constant) or computed at run time; `content` is the tensor or sequence Value it holds, or
   NULL when it is known to be empty.  Sequences and optionals are structure the compiler
   resolves: no node that runs reads or writes one (their tensors are ordinary values). */
struct OptInfo {
  Value *present;
  Value *content;
  bool of_seq;            /* the content type is a sequence (also for an empty optional) */
};

/* True for a value that is a sequence or an optional (no storage of its own). */
static inline bool value_is_structured(const Value *v) { return v && (v->seq || v->opt); }

/* Attribute kinds (AttributeProto.AttributeType) */
enum { ATTR_UNDEFINED = 0, ATTR_FLOAT = 1, ATTR_INT = 2, ATTR_STRING = 3, ATTR_TENSOR = 4,
       ATTR_GRAPH = 5, ATTR_FLOATS = 6, ATTR_INTS = 7, ATTR_STRINGS = 8, ATTR_TENSORS = 9,
       ATTR_GRAPHS = 10 };

typedef struct Attr {
  const char *name;
  int type;
  float f;
  int64_t i;
  const char *s; size_t slen;
  float *floats; int n_floats;
  int64_t *ints; int n_ints;
  const char **strings; int n_strings;
  Value *t;               /* ATTR_TENSOR: a detached constant Value */
  Graph *g;               /* ATTR_GRAPH */
  int tp_kind;            /* ATTR_TYPE_PROTO: TP_TENSOR, TP_SEQUENCE (of tensors) or TP_OTHER */
  int tp_dtype;           /* ATTR_TYPE_PROTO: the (items') element type */
} Attr;

enum { ATTR_TYPE_PROTO = 13 };
enum { TP_NONE = 0, TP_TENSOR = 1, TP_SEQUENCE = 2, TP_OTHER = 3 };

struct Node {
  const char *name;       /* ONNX node name, or a generated one */
  const char *op_type;
  const char *domain;     /* "" for the default domain */
  int opset;              /* opset version of the node's domain in this model */
  int id;
  Value **inputs; int n_inputs;    /* NULL entries: omitted optional inputs; nodes with subgraphs
                                      get the outer values their subgraphs read appended after
                                      their n_explicit ONNX inputs */
  int n_explicit;
  Value **outputs; int n_outputs;  /* NULL entries: omitted optional outputs */
  Attr *attrs; int n_attrs;
  const OpDef *def;
  bool dead;
  bool inferred;          /* its shape rule ran (infer.c; unrolled copies are inferred as they
                             are made) */
  bool elided;            /* the plan made it a no-op (views, concat in place) */
  void *priv;             /* op-private data set by the shape rule for the emitter */
  int64_t scratch_cap;    /* most scratch the plan can give this node, -1: no limit (kernels
                             with several forms pick one that fits) */
  int64_t scratch_bytes;  /* from OpDef.scratch, planned in the arena */
  int64_t scratch_offset;
  bool str_heap;          /* set by a string op's shape rule: its C function also takes the run's
                             string heap H and returns a status (ops_string.c) */
  int step;               /* position in the schedule */
  int fn_id;              /* number of its C function (emit_c.c) */
  /* optimize.c: an epilogue fused into a Conv/Gemm/MatMul (its kernel applies it): the output
     becomes act(y + inputs[fuse_add]) -- fuse_add 0: no addend; the addend has the output's
     shape, or for MatMul is a constant with one value per column -- with act one of FUSE_*
     and its parameters fuse_alpha/fuse_beta (Clip: min/max; LeakyRelu: alpha; HardSigmoid and
     hard swish: alpha, beta) */
  int fuse_add;
  int fuse_act;
  /* optimize.c: an input (> 0) of one value per input channel (per batch element) that
     multiplies a 1x1 Conv's input -- the channel scale of squeeze-and-excitation blocks, folded
     into the packed weights at run time (onnxc_scale_cols); 0: none */
  int fuse_scale;
  /* optimize.c: an input (> 0) whose storage output 0 may take over where this node is its
     last reader; the kernel then finds that input's values in its output (Winograd convs
     with a fused residual: onnxc_wino23's acc).  0: none (OPF_INPLACE rows: any input) */
  int inplace_in;
  float fuse_alpha, fuse_beta;
  /* optimize.c: inputs[1] holds a weight re-laid out at compile time for the kernel (Conv:
     panels of 8 filters; Gemm/MatMul: B as [K][N] with alpha folded in); orig_w is the ONNX
     weight, for its shape */
  Value *orig_w;
  int w_layout;           /* with orig_w: W_PANELS, W_WINO23/43, W_GEMV, W_TPANELS */
  /* plan_memory.c (--threads): two recurrent nodes run as a pipeline on two threads -- pipe 1:
     the producer, which publishes each step's output row; 2: the consumer (its next node in
     the schedule), which reads the producer's output as its input sequence and waits for the
     rows of each chunk (ops_seq.c); pipe_peer the other one.  Both get a counter (PC, in the
     producer's scratch) and are live over both steps: span_lo .. span_hi */
  int pipe;
  struct Node *pipe_peer;
  int span_lo, span_hi;
};

/* A Conv with one input channel per group (depthwise, or a one-channel input such as a
   spectrogram) that the direct kernel onnxc_dw2d takes, with its weights in the ONNX layout:
   few filters per group, or a small 2-D plane (its channels-in-lanes form, templates/conv.h)
   for any number.  optimize.c and ops_nn.c both decide with this. */
static inline bool conv_one_channel_direct(int64_t Cg, int64_t Mg, int rank, int64_t KP, int64_t IHW) {
  return Cg == 1 && (Mg < 4 || (rank <= 4 && KP <= 49 && IHW <= 640 && Mg < 16));
}

/* Layouts of re-laid-out Conv weights (optimize.c; ops_nn.c and templates/ read them). */
enum { W_ONNX = 0, W_PANELS = 1, W_WINO23 = 2, W_GEMV = 3, W_TPANELS = 4, W_WINO43 = 5 };

/* Activations fused into a kernel's epilogue (the numbers of templates/gemm.h ONNXC_ACT_*). */
enum { FUSE_NONE = 0, FUSE_RELU = 1, FUSE_CLIP = 2, FUSE_LEAKY = 3, FUSE_SIGMOID = 4, FUSE_HARDSIGMOID = 5,
       FUSE_SILU = 6, FUSE_HARDSWISH = 7, FUSE_GELU = 8, FUSE_TANH = 9 };

/* A graph input or output as the caller of the generated code sees it (ports.c): a tensor, a
   sequence of tensors or an optional of either.  The graph's inputs/outputs lists hold the
   flat tensors: a tensor port is its value, a sequence port its items in order, an optional
   port its presence flag (a bool scalar) and then its content's tensors (none when it is
   known to be empty). */
enum { PORT_TENSOR = 0, PORT_SEQUENCE = 1, PORT_OPTIONAL = 2 }; /* bits, as ONNXC_KIND_* */
typedef struct Port {
  const char *name;
  int kind;               /* PORT_* bits */
  int dtype;              /* element type */
  int first, n;           /* its flat values: [first, first + n) of inputs / outputs */
} Port;

struct Graph {
  Graph *parent;
  PtrVec nodes;           /* Node*, kept in topological order after verify */
  PtrVec values;          /* Value* */
  PtrVec inputs;          /* Value*: real graph inputs (not initializers) */
  PtrVec outputs;         /* Value* */
  PtrVec inits;           /* Value*: initializers in model order */
  PtrVec sched;           /* Node*: live nodes in execution order (schedule.c) */
  int64_t arena_bytes;    /* arena this graph's plan needs (plan_memory.c) */
  int64_t live_bound;     /* max live bytes at one step under its schedule (lower bound) */
  bool is_sub;            /* a subgraph (If/Loop/Scan body) */
  /* the string heap (ops_string.c): heap_bytes at heap_offset, after the planned tensors and
     inside arena_bytes; has_heap when a node makes strings at run time */
  bool has_heap;
  int64_t heap_offset, heap_bytes;
  /* the ports of inputs and outputs (ports.c); NULL: every flat value is a tensor port */
  Port *in_ports, *out_ports;
  int n_in_ports, n_out_ports;
};

/* True when v is one of g's own values (not one of an enclosing graph's). */
bool value_is_local(const Graph *g, const Value *v);
/* Outer values a subgraph (and the subgraphs nested in it) reads: its free variables. */
void subgraph_free_values(Ctx *ctx, Graph *sub, PtrVec *out);

/* ---- util.c: errors and small helpers ------------------------------------------------- */

/* Backends (--target): portable C; CUDA C for nvcc (.cu); host C carrying CUDA kernel source
   that NVRTC compiles when the model is created. */
enum { TARGET_C = 0, TARGET_CUDA = 1, TARGET_CUDA_NVRTC = 2 };

struct Ctx {
  Arena arena;
  const char *file;       /* model path as given */
  const char *model_dir;  /* folder of the model (external data root) */
  jmp_buf fail_jmp;
  char err[1024];
  int opset;              /* default-domain opset */
  Graph *graph;
  int verbose;
  /* options */
  const char *prefix;     /* symbol prefix */
  struct { const char *name; int64_t value; } dim_params[32]; int n_dim_params;
  struct { const char *name; const char *path; } const_inputs[32]; int n_const_inputs;
  struct { const char *name; const char *spec; } seq_inputs[32]; int n_seq_inputs;
  Graph *cur_graph;       /* the graph whose nodes infer_and_fold is visiting (infer_graph()) */
  int dump_ir;
  size_t align;
  const char *order_name; /* --order: force one schedule */
  bool no_alias;          /* --no-alias: plan without views/in-place/concat aliasing */
  bool canary;            /* --canary: poison dead arena bytes after every node (a test) */
  bool rnn_pipes;         /* --threads, inference: recurrent layers as pipelines (plan_memory.c) */
  int threads;            /* --threads N: big kernels as N tasks (templates/par.h), 0/1: none */
  double par_min;         /* --par-min: weighted multiply-adds under which a kernel stays on one
                             thread (templates/par.h ONNXC_PAR_MIN; par_pays) */
  int scratch_headroom;   /* --scratch-headroom: percent the arena may exceed the peak of live
                             tensors for kernel scratch */
  int scratch_headroom1;  /* the same for one thread (--threads N: a task's share of it) */
  bool fold_declined;     /* set by a fold function that cannot fold this node after all */
  const char *weights_path; /* --weights FILE.bin: constants go to a file passed at run time */
  PtrVec custom_ops;      /* CustomOp*: the --custom-op / --custom-ops specs (ops_custom.c) */
  int target;             /* TARGET_C, TARGET_CUDA or TARGET_CUDA_NVRTC (--target) */
  int64_t image_h, image_w; /* --image-size HxW (ImageDecoder), 0: the declared output shape */
  int64_t string_bytes;   /* --string-bytes: the string heap's size, -1: derived (ops_string.c) */
  int64_t max_substrings; /* --max-substrings: StringSplit's bound on pieces per string, 0: default */
  /* results */
  int64_t arena_bytes;
  void *model_proto;      /* the decoded Onnx__ModelProto (functions are inlined from it) */
  Buf emit_bufs[5];       /* the emitter's output buffers, freed however compilation ends */
};

/* The graph a shape rule adds values to: the one being inferred (a subgraph's while its owner
   infers it), else the top graph (nodes made by later passes). */
static inline Graph *infer_graph(Ctx *ctx) { return ctx->cur_graph ? ctx->cur_graph : ctx->graph; }

_Noreturn void fail(Ctx *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void fail_node(Ctx *ctx, const Node *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
_Noreturn void unreachable_at(const char *file, int line, const char *msg);
#define unreachable(msg) unreachable_at(__FILE__, __LINE__, msg)
#define CHECK(cond) do { if (!(cond)) unreachable_at(__FILE__, __LINE__, #cond); } while (0)

size_t dtype_size(int dtype);            /* 0 for unknown/strings and the packed sub-byte types;
                                            1 for the 8-bit float types */
int dtype_bits(int dtype);               /* bits of one element: 2/4 for packed types, else 8*size */
const char *dtype_name(int dtype);       /* "float", "int64", ... */
bool dtype_is_float(int dtype);          /* float, double, float16, bfloat16 (not the small types) */
bool dtype_is_int(int dtype);            /* signed or unsigned integer (not bool, not int4/int2) */
bool dtype_is_signed(int dtype);
/* The small types 17..26 (float8 x4, uint4, int4, float4e2m1, float8e8m0, uint2, int2).  They
   are not dtype_is_float/int: only Cast, CastLike, QuantizeLinear and DequantizeLinear compute
   with them (byte-moving ops may accept the one-byte ones). */
bool dtype_is_small(int dtype);
bool dtype_is_packed(int dtype);         /* uint4, int4, float4e2m1, uint2, int2 */
bool dtype_is_small_float(int dtype);    /* the float8 types, float8e8m0, float4e2m1 */
int64_t value_numel(const Value *v);
int64_t value_bytes(const Value *v);     /* ceil(numel * bits / 8) */
void value_set_shape(Value *v, int dtype, int rank, const int64_t *dims);
bool same_shape(const Value *a, const Value *b);
char *shape_str(Arena *a, const Value *v);       /* "[1,3,224,224]" */
/* Multiply with overflow check; returns false on overflow or negative factor. */
bool mul_ok(int64_t a, int64_t b, int64_t *out);
/* Read element i of constant data of dtype as double / int64. */
double const_get_f(const Value *v, int64_t i);
int64_t const_get_i(const Value *v, int64_t i);
void const_set_f(Value *v, int64_t i, double x);
void const_set_i(Value *v, int64_t i, int64_t x);
float half_to_float(uint16_t h);
uint16_t float_to_half(float f);
float bf16_to_float(uint16_t h);
uint16_t float_to_bf16(float f);
/* Small types (same code as the generated helpers in templates/common.h).  `code` is one
   element's bit pattern (a nibble / 2-bit field for packed types).  small_from_float rounds
   like the ONNX reference: Cast `saturate` for the float8 types (ignored otherwise), E8M0
   `round_mode` (SMALL_ROUND_*); integer types truncate toward zero and wrap. */
enum { SMALL_ROUND_UP = 0, SMALL_ROUND_DOWN = 1, SMALL_ROUND_NEAREST = 2 };
double small_to_double(int dtype, unsigned code);
unsigned small_from_float(int dtype, float x, int saturate, int round_mode);
/* Code of element i of packed or one-byte small-type data, and its store (data zeroed first
   or not: the field is replaced). */
unsigned small_get(int dtype, const void *data, int64_t i);
void small_set(int dtype, void *data, int64_t i, unsigned code);

/* ---- ir.c: building and checking the graph ------------------------------------------- */

Graph *graph_new(Ctx *ctx, Graph *parent);
Value *graph_new_value(Ctx *ctx, Graph *g, const char *name);
Value *graph_find_value(Graph *g, const char *name);   /* searches parents too */
Node *graph_new_node(Ctx *ctx, Graph *g, const char *op_type, const char *name, int n_in, int n_out);
/* Make v a compile-time constant holding a fresh zeroed buffer of its shape. */
void *value_alloc_data(Ctx *ctx, Value *v);
/* Rebuild producer/consumer counts; sort nodes topologically; fail on cycles. */
void graph_verify(Ctx *ctx, Graph *g);
void graph_dump(Ctx *ctx, Graph *g, FILE *f, const char *title);

/* Attribute access (defaults apply when the attribute is absent). */
const Attr *node_attr(const Node *n, const char *name);
int64_t attr_i(const Node *n, const char *name, int64_t dflt);
float attr_f(const Node *n, const char *name, float dflt);
const char *attr_s(const Node *n, const char *name, const char *dflt);
/* Appends an attribute (a copy of the array: attributes are few); its value fields are zero. */
Attr *node_add_attr(Ctx *ctx, Node *n, const char *name, int type);
/* Sets an int attribute, replacing one of that name. */
void node_set_attr_i(Ctx *ctx, Node *n, const char *name, int64_t v);
/* Returns the count (0 when absent) and points *out at the values. */
int attr_ints(const Node *n, const char *name, const int64_t **out);
int attr_floats(const Node *n, const char *name, const float **out);
/* Input i if present (not omitted), else NULL. */
Value *node_in(const Node *n, int i);
Value *node_out(const Node *n, int i);
/* Input i, which must be a compile-time constant; fails with a clear message otherwise. */
Value *node_const_in(Ctx *ctx, const Node *n, int i, const char *what);
/* The same, with `why` (the reason it must be constant) leading the message. */
Value *node_const_in_why(Ctx *ctx, const Node *n, int i, const char *what, const char *why);
/* After a subgraph of n was inferred: n's hidden inputs become its subgraphs' outer values
   again (nodes rewritten by inference may read others), sequences and optionals left out
   (they have no storage; what the subgraph reads of them are their tensors). */
void node_refresh_hidden(Ctx *ctx, Node *n);

/* ---- load_onnx.c ---------------------------------------------------------------------- */

/* Parses ctx->file into ctx->graph. */
void load_onnx(Ctx *ctx);
/* Decodes one serialized TensorProto (e.g. a test input_0.pb) into v. */
void load_tensor_file(Ctx *ctx, const char *path, Value *v);

/* ---- op table (ops.c and ops_*.c) ---------------------------------------------------- */

enum {
  OPF_ELEMENTWISE = 1 << 0,   /* output i depends only on element i of each input (after broadcast) */
  OPF_INPLACE = 1 << 1,       /* output 0 may reuse input 0's storage */
  OPF_VIEW = 1 << 2,          /* output 0 is input 0's bytes reinterpreted (Reshape, ...) */
  OPF_STATUS = 1 << 3,        /* the node function returns an int status; non-zero ends the run
                                 and is returned to the caller (custom ops) */
  OPF_PARALLEL = 1 << 4,      /* the C emitter's work is one emit_broadcast_loops nest whose body
                                 writes only element o of its outputs: the CUDA backend runs the
                                 nest as a grid-stride loop (one thread per element) */
  OPF_STRINGS = 1 << 5,       /* the row takes string tensors (ops_string.c's gate refuses them
                                 for every other row) */
};

struct OpDef {
  const char *name;
  const char *domain;         /* "" default */
  int since, until;           /* opset range this row handles (inclusive) */
  unsigned flags;
  /* Sets dtype and shape of every present output; may set n->priv. */
  void (*infer)(Ctx *ctx, Node *n);
  /* Computes output data at compile time when every input is constant; NULL: not foldable. */
  void (*fold)(Ctx *ctx, Node *n);
  /* Writes the body of the node's C function (inputs X0.., outputs Y0.., scratch W). */
  void (*emit_c)(Emit *e, Node *n);
  /* Scratch bytes the C kernel needs while it runs (may be NULL). */
  int64_t (*scratch)(Ctx *ctx, Node *n);
  const char *types;          /* documentation: element types handled */
  const void *arg;            /* row-specific data for shared rule/emitter functions */
};

const OpDef *op_lookup(const char *domain, const char *op_type, int opset);
bool op_known_name(const char *domain, const char *op_type);
void op_list(FILE *f);
/* Each ops_*.c file exports its rows through one of these. */
typedef struct OpTable { const OpDef *rows; int n; } OpTable;
#define OPS_FAMILY(fam) const OpTable ops_##fam = { fam##_rows, (int)(sizeof fam##_rows / sizeof fam##_rows[0]) }

/* Shared shape rules (infer_util.c) */
void infer_same_as_input0(Ctx *ctx, Node *n);     /* out0 = dtype/shape of in0 */
void infer_broadcast(Ctx *ctx, Node *n);          /* multidirectional broadcast of all inputs */
/* Broadcast shapes a and b into out; false if incompatible. */
bool broadcast_shapes(int ra, const int64_t *a, int rb, const int64_t *b, int *rout, int64_t *out);
/* Flat index into v (numpy-broadcast against out) of out's flat index o (constant folding). */
int64_t bcast_index(const Value *out, const Value *v, int64_t o);
/* Normalizes a possibly negative axis for rank r; fails on out of range. */
int norm_axis(Ctx *ctx, const Node *n, int64_t axis, int rank);
/* ops_reduce.c, for the CUDA backend: a float32 Reduce* whose reduced dims (size-1 dims aside)
   are the innermost ones, as `rows` outputs of `cols` contiguous elements; *kind is one of: */
enum { RK_SUM, RK_MEAN, RK_MAX, RK_MIN, RK_PROD, RK_L1, RK_L2, RK_LOGSUM, RK_LOGSUMEXP, RK_SUMSQ };
bool reduce_as_rows(const Node *n, int *kind, int64_t *rows, int64_t *cols);
/* Requires input i present with one of the listed dtypes (terminated by 0). */
void require_dtype(Ctx *ctx, const Node *n, int i, const int *dtypes);
void require_inputs(Ctx *ctx, const Node *n, int min, int max);

/* ---- pipeline.c ----------------------------------------------------------------------- */

void infer_and_fold(Ctx *ctx, Graph *g);       /* infer.c */
/* ops_sequence.c: ops whose explicit inputs may be sequences or optionals. */
bool op_takes_sequences(const Node *n);
/* ops_nn.c: a BatchNormalization that normalizes with batch statistics (training mode) and
   may output updated running statistics. */
bool bn_training_mode(const Node *n);
/* ConvTranspose geometry (ops_nn.c): its number of spatial dims r; pb[i] = the begin pad of dim
   i as resolved from pads / auto_pad / output_shape (input 0, tap 0 lands on output -pb[i]). */
int convt_begin_pads(Ctx *ctx, const Node *n, int64_t *pb);
void infer_node(Ctx *ctx, Node *n);            /* infer.c: one node (subgraph rules use it) */
/* infer.c: one node as infer_and_fold visits it (inputs of data-dependent shape refused); marks
   it inferred. */
void infer_visit(Ctx *ctx, Node *n);
void eliminate_dead(Ctx *ctx, Graph *g);       /* fold.c */
/* optimize.c: fuses BatchNormalization, bias/residual Adds and activations into the producing
   Conv/Gemm/MatMul and stores their constant weights in the layouts the kernels read. */
void optimize_graph(Ctx *ctx, Graph *g);
void schedule_graph(Ctx *ctx, Graph *g);       /* schedule.c: sets g->sched (model order) */
/* Sets g->sched to the named order; false when the order does not apply (too big). */
bool schedule_graph_order(Ctx *ctx, Graph *g, const char *order);
int schedule_order_count(void);
const char *schedule_order_name(int i);
int64_t plan_live_at(Graph *g, int step);
int64_t plan_largest_gap(Graph *g, int step);
void plan_report_json(Ctx *ctx, Graph *g, FILE *f, int64_t weights_bytes, int64_t node_bound);
void plan_report_svg(Ctx *ctx, Graph *g, FILE *f);
/* plan_memory.c: sets offsets and g->arena_bytes.  For a subgraph, its inputs and outputs get
   arena slots too (live over the whole body), so the owning op copies values in and out. */
void plan_memory(Ctx *ctx, Graph *g);
void plan_check(Ctx *ctx, Graph *g);           /* plan_memory.c: aborts on overlap */

typedef struct CompileOptions {
  const char *model_path;
  const char *out_c;          /* output .c path; header written beside it */
  const char *name;           /* symbol prefix; default: base name of out_c */
  int verbose;
  int dump_ir;
  const char *dims[32]; int n_dims;              /* "NAME=VALUE" */
  const char *const_inputs[32]; int n_const_inputs; /* "NAME=FILE.pb" */
  const char *seq_inputs[32]; int n_seq_inputs;     /* "NAME=ITEMS" (ports.c) */
  const char *order;          /* --order NAME */
  bool no_alias;              /* --no-alias */
  bool canary;                /* --canary */
  int threads;                /* --threads N */
  double par_min;             /* --par-min N (used when par_min_set) */
  bool par_min_set;
  int scratch_headroom;       /* --scratch-headroom PCT (used when scratch_headroom_set) */
  bool scratch_headroom_set;
  const char *weights;        /* --weights FILE.bin */
  const char *target;         /* --target c | cuda | cuda-nvrtc (NULL: c) */
  size_t align;               /* --align N (0: 16) */
  const char *memory_report;  /* --memory-report FILE.json */
  const char *memory_svg;     /* --memory-svg FILE.svg */
  /* training (autodiff.c) */
  bool gradients;             /* --gradients: emit loss + gradients instead of the outputs */
  const char *loss;           /* --loss KIND[:OUTPUT] */
  const char *freeze[32]; int n_freeze; /* --freeze NAME,... (repeatable) */
  bool recompute;             /* --recompute: cheap forward values recomputed in the backward pass */
  /* on-device training (train.c, emit_train.c) */
  bool train;                 /* --train: training step + inference with run-time weights */
  const char *optimizer;      /* --optimizer OPT[:k=v,...] */
  /* custom ops (ops_custom.c) */
  const char *custom_ops[64]; int n_custom_ops;          /* --custom-op DOMAIN::OP:SPEC */
  const char *custom_op_files[8]; int n_custom_op_files; /* --custom-ops FILE */
  /* string tensors (ops_string.c) */
  int64_t image_h, image_w;   /* --image-size HxW (0: none) */
  int64_t string_bytes;       /* --string-bytes N; -1 (or 0 when unset by a caller): derived */
  bool string_bytes_set;
  int64_t max_substrings;     /* --max-substrings N; 0: default */
} CompileOptions;

/* ---- ports.c: sequences and optionals at the graph boundary ------------------------------ */

/* Reads the --seq-input NAME=ITEMS flags into ctx (checked when the input is loaded). */
void seq_inputs_setup(Ctx *ctx, const CompileOptions *opt);
/* One VAL_INPUT Value of g per item of the --seq-input spec of input `name` (not yet graph
   inputs), checked against the item type the model declares: decl_dtype (0: any), decl_rank
   (-1: any) and decl_dims (-1: any); *dtype is the items' type (also for an empty sequence).
   Fails with one line when there is no spec. */
PtrVec *seq_input_items(Ctx *ctx, Graph *g, const char *name, int decl_dtype, int decl_rank, const int64_t *decl_dims,
                        int *dtype);
/* Appends v's flat tensors to g->inputs and a Port for v to ports (Port*). */
void add_input_port(Ctx *ctx, Graph *g, PtrVec *ports, Value *v);
/* Keeps the ports as g->in_ports when one of them is a sequence or an optional. */
void set_input_ports(Ctx *ctx, Graph *g, PtrVec *ports);
/* After inference: g's sequence and optional outputs become flat outputs (copies of the
   items, of an optional's flag and, guarded by it, of its content); g->out_ports records the
   grouping (for subgraphs always, for the top graph when one port is not a tensor). */
void flatten_outputs(Ctx *ctx, Graph *g);
/* Makes n (in ctx->cur_graph) copy the tensors held by optional `opt` when its flag is set:
   inputs flag + content tensors, outputs fresh copies.  must: OptionalGetElement's form,
   returning ONNXC_ERR_EMPTY when the flag is clear.  y stands for the copied content: for a
   tensor, n's one output; for a sequence, it becomes one whose items are n's outputs. */
void opt_copy(Ctx *ctx, Node *n, Value *opt, bool must, Value *y);
bool is_opt_copy(const Node *n);

/* ---- unroll.c: subgraphs spliced into their owner's graph --------------------------------- */

/* A fresh, un-inferred copy of subgraph `sub` whose parent is `parent` (nested subgraphs
   copied too; values of enclosing graphs are shared). */
Graph *graph_clone(Ctx *ctx, Graph *sub, Graph *parent);
/* Loop (ops_control.c): unrolls n into ctx->cur_graph when its trip count and condition are
   known at compile time; fails with one line otherwise. */
void loop_unroll(Ctx *ctx, Node *n, Graph *body, const char *why);
/* SequenceMap: the body once per item, spliced in. */
void sequence_map_infer(Ctx *ctx, Node *n);
/* FlexAttention with score_mod/prob_mod subgraphs: expanded into standard ops around them. */
void flex_attention_expand(Ctx *ctx, Node *n);

/* autodiff.c: replaces g's outputs by `loss` and the trainable initializers' gradients (after
   inference, before dead-code removal). */
void autodiff(Ctx *ctx, Graph *g, const CompileOptions *opt);
/* autodiff.c: the shape rule of ai.onnx.preview.training::Gradient: its gradient nodes spliced
   in after it (inferred), Identity nodes producing its outputs, the node left without outputs. */
void gradient_op_expand(Ctx *ctx, Node *n);
/* recompute.c: after autodiff (nodes [0, n_fwd) the forward pass): gradient nodes read clones
   of cheap forward nodes instead of forward values kept across the backward pass. */
void recompute_forward(Ctx *ctx, Graph *g, int n_fwd);

/* ---- ops_string.c: string tensors ------------------------------------------------------ */
/*
 * A string element is a `const char *` (onnxc_string) to NUL-terminated UTF-8; constant
 * strings are char* arrays in Value.data.  Strings made at run time live in the string heap
 * at the end of the arena (templates/text.h).
 */
/* Before a node's shape rule: string inputs (or Cast to string) reach only rows with
   OPF_STRINGS; Equal, Cast, CastLike and Identity of strings are redirected to this file's
   forms of them; any other op fails with one line.  After it: no other row made strings. */
void string_gate(Ctx *ctx, Node *n);
void string_gate_outputs(Ctx *ctx, Node *n);
/* After planning: the string heap of g (when a node makes strings) after its tensors. */
void plan_string_heap(Ctx *ctx, Graph *g);
/* A C string literal of s (escaped; the caller's quotes included). */
const char *c_str_lit(Emit *e, const char *s);

/* ---- ops_custom.c: custom operators (user C functions, runtime_min/onnxc_custom.h) ---- */
/*
 * A node of a non-ONNX domain that a --custom-op spec describes compiles to a call of
 * `<cname>_forward`; its gradient node (onnxc.grad::CustomGrad, built by autodiff.c) to a call
 * of `<cname>_backward`.  The spec gives the outputs' types and shapes as functions of the
 * inputs', the workspace bytes and which forward values the backward reads.
 */
enum { CUSTOM_BWD_NONE = 0, CUSTOM_BWD_INPUTS = 1, CUSTOM_BWD_OUTPUTS = 2, CUSTOM_BWD_ALL = 3 };

typedef struct CustomDim { int input, axis; int64_t size; } CustomDim; /* input < 0: size */
typedef struct CustomOut {
  int like;                   /* >= 0: type and shape of this input */
  int dtype;                  /* explicit element type, or 0 when type_of >= 0 */
  int type_of;                /* >= 0: element type of this input */
  int rank;
  CustomDim dims[ONNXC_MAX_RANK];
} CustomOut;

struct CustomOp {
  const char *domain, *op;
  const char *cname;          /* "<domain>_<op>" as a C identifier */
  int n_outputs;
  CustomOut *outs;
  int64_t workspace;          /* bytes, for forward and backward alike */
  int backward;               /* CUSTOM_BWD_*: none, or which forward values it reads */
  uint32_t nograd;            /* bit k: input k carries no gradient */
};

/* Parses one spec "DOMAIN::OP:KEY=VALUE:..." (without a Ctx, for the CLI's syntax check);
   false with a message in err. */
bool custom_parse(Arena *a, const char *text, CustomOp *op, char *err, size_t errlen);
/* Reads the --custom-op and --custom-ops specs into ctx->custom_ops; fails with one line. */
void custom_ops_setup(Ctx *ctx, const CompileOptions *opt);
/* The op row of a node a spec describes (or of an onnxc.grad::CustomGrad built by autodiff),
   or NULL. */
const OpDef *custom_resolve(Ctx *ctx, const Node *n);
/* The spec of an inferred custom forward node, or NULL. */
const CustomOp *custom_op_of(const Node *n);
/* A gradient node's link to its forward node (set before the gradient node is inferred). */
void custom_grad_link(Node *grad, const Node *fwd);
/* Writes to h the #include and the declarations of the user functions the graphs call (each
   once, in order of first use); fails on a custom op inside a subgraph. */
void custom_emit_decls(Ctx *ctx, Buf *h, Graph *const *graphs, int n_graphs);
/* True when the spec of `domain` names a domain onnxc reserves (ONNX's, its own). */
bool custom_domain_reserved(const char *domain);

/* ---- train.c: onnxc --train --------------------------------------------------------- */
/*
 * The trainable initializers ("parameters") become run-time state: graph inputs bound to the
 * caller's state buffer, never folded into constants.  One C file holds the training step
 * (forward + gradients, then an in-place optimizer loop over the state) and the inference
 * graph over the same state.
 */
enum { OPT_SGD = 1, OPT_ADAMW = 2 };
typedef struct TrainOptim {
  int kind;                   /* OPT_SGD or OPT_ADAMW */
  double lr, momentum, dampening, weight_decay, beta1, beta2, eps;
  bool nesterov, has_lr;
} TrainOptim;

typedef struct TrainParam {
  const char *name;           /* the initializer's ONNX name */
  int dtype, rank;
  int64_t dims[ONNXC_MAX_RANK];
  int64_t bytes;
  void *init;                 /* initial contents (from the model) */
  int64_t off;                /* offset in the state buffer */
  int64_t off_buf[2];         /* optimizer buffers in the state (SGD momentum; AdamW m, v), -1 none */
  int64_t grad_off;           /* its gradient (a running statistic: its new value) in the train arena */
} TrainParam;

typedef struct TrainSpec {
  TrainOptim opt;
  TrainParam *params; int n_params;
  /* running statistics: the running mean/var initializers of training-mode BatchNormalization
     nodes; state that the step updates (no gradient, no optimizer) and inference reads */
  TrainParam *stats; int n_stats;
  Graph *train, *infer;       /* the two planned graphs */
  int64_t state_data;         /* offset of the first parameter in the state (after the step count) */
  int64_t state_bytes;
  int64_t train_arena, infer_arena; /* bytes */
  int64_t loss_off;           /* the loss scalar in the train arena */
} TrainSpec;

/* Parses --optimizer (syntax only when ctx is NULL: returns false and fills err).  With a ctx,
   also checks the values and fails with one line. */
bool train_parse_optimizer(const char *spec, TrainOptim *o, char *err, size_t errlen);
void train_check_optimizer(Ctx *ctx, const TrainOptim *o);
/* After a --gradients-style autodiff: records the initializers that got gradients. */
void train_collect_params(Ctx *ctx, TrainSpec *ts, Graph *g);
/* After inference of the constant-weight graph: records the running statistics. */
void train_collect_stats(Ctx *ctx, TrainSpec *ts, Graph *g);
/* After load/verify of a fresh copy: the parameters, then the running statistics become
   run-time inputs (first in order). */
void train_bind_params(Ctx *ctx, TrainSpec *ts, Graph *g);
/* Before inference of a bound copy: BatchNormalization in inference mode (running statistics),
   as torch's .eval(). */
void train_eval_mode(Ctx *ctx, Graph *g);
/* After autodiff of the bound graph: checks its gradient outputs match the parameters, then
   appends the updated running statistics as outputs. */
void train_check_gradients(Ctx *ctx, TrainSpec *ts, Graph *g);
/* Lays out the state buffer and the train arena's gradient slots. */
void train_layout(Ctx *ctx, TrainSpec *ts);
/* `onnxc export-weights MODEL STATE -o OUT`: writes the state's parameters into a copy of the
   model.  Returns 0 or fills err. */
int onnxc_export_weights(const char *model, const char *state, const char *out, char *err, size_t errlen);

/* Returns 0 on success; on failure fills err (one line, no trailing newline). */
int onnxc_compile(const CompileOptions *opt, char *err, size_t errlen);

/* ---- codegen/c/emit_c.c --------------------------------------------------------------- */
/*
 * Node functions: static void nK_name(const T *X0, ..., T *Y0, ..., [int64_t *D<k>...,]
 * unsigned char *W).  X are inputs (NULL for omitted optional ones), Y outputs (NULL when an
 * optional output is unused), W the node's scratch (OpDef.scratch bytes, 16-byte aligned).
 * For each output k whose Value is `dynamic`, a parameter `int64_t *D<k>` follows the Y
 * parameters: the kernel writes the actual dims there (rank entries; the data is packed
 * row-major for those dims within the bound).  Dynamic values may only be graph outputs.
 */

struct Emit {
  Ctx *ctx;
  Buf *out;
  int indent;
  Node *node;           /* node being emitted */
  int tmp;              /* counter for fresh local names */
  int fn_counter;       /* node functions emitted so far */
  /* CUDA backend (codegen/cuda): node functions become __device__ functions, constants get
     `const_qual` (e.g. "__device__ "), and with `par` set emit_broadcast_loops writes a
     grid-stride loop (counted in par_loops) instead of the serial nest */
  bool cuda;
  bool par;
  int par_loops;
  bool par_indep;       /* set by an emitter whose several parallel loops are independent */
  int64_t par_n;        /* elements of the largest grid-stride loop (threads the launch wants) */
  const char *const_qual;
  /* constants of >= 64 bytes get ONNXC_WALIGN (the C targets, whose output has common.h; not
     the CUDA files' host or device sections) */
  bool walign;
  /* node functions marked ONNXC_NODE_FN (flattened: graphs of few enough nodes, emit_c.c) */
  bool flatten;
  /* weights of a later node that this node's GEMM kernels prefetch (onnxc_epi.pf), or NULL */
  const char *pf_sym;
  int64_t pf_bytes;
  /* file-scope definitions the node being emitted needs before its function (emit_par_task),
     or NULL outside a node function */
  Buf *pre;
  int pre_n;
};
/* The #pragma that builds a generated C file's functions at -O3 under GCC on x86-64 hosts when it
   is built with optimization for speed (emit_c.c) */
void emit_opt_level(Buf *b);
/* The onnxc_epi prefetch fields for the node being emitted: "(const char *)w12_x, 262144" */
const char *emit_pf_fields(Emit *e);
/* --threads: a task function for the node being emitted, defined before its function, that runs
   part i of job *p (of type job) as body(job, i, consts): the kernel's shape as constants the
   compiler specializes on, where the generic task of templates/par.h reads them from the job;
   guard: the #if condition of body's part of par.h, or NULL.  Returns its name. */
const char *emit_par_task(Emit *e, const char *guard, const char *body, const char *job, const char *consts);
/* --threads: whether a kernel of w weighted multiply-adds runs in parts (the weights of
   templates/par.h's wrappers, which take the same decision at run time against ONNXC_PAR_MIN;
   where this says no, the emitter writes the one-thread call, specialized on its shape). */
#define PAR_MIN 250000.0 /* templates/par.h ONNXC_PAR_MIN */
bool par_pays(const Ctx *ctx, double w);
/* ops_seq.c: whether recurrent node n may be a pipeline's producer (role 1) or consumer (2) */
bool rnn_pipe_ok(const Ctx *ctx, const Node *n, int role);

/* For ops with subgraphs (If/Loop/Scan): emits the calls that run `sub` inside the owner's
   node function, with the subgraph's arena at `base` (an expression inside the owner's
   scratch W); and the storage expression of one of the subgraph's values (its inputs and
   outputs have slots in that arena). */
void emit_subgraph(Emit *e, Node *owner, Graph *sub, const char *base);
const char *subgraph_ptr(Emit *e, Node *owner, Graph *sub, const char *base, Value *v, bool as_const);

/* Prints one line of C at the current indentation.  A line ending in '{' indents the lines
   after it; a line starting with '}' dedents itself and what follows. */
void ep(Emit *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* C storage type of an element ("float", "int64_t", "uint16_t" for float16, "uint8_t" bool). */
const char *c_type(int dtype);
/* C type arithmetic is done in ("float" for float16/bfloat16; else c_type). */
const char *c_ctype(int dtype);
/* An expression reading/writing storage of dtype as its compute type, e.g. load(DT_FLOAT16,
   "X0[i]") = "onnxc_h2f(X0[i])"; store gives the conversion of a compute-typed expression. */
const char *c_load(Emit *e, int dtype, const char *expr);
const char *c_store(Emit *e, int dtype, const char *expr);
/* Small types: c_load/c_store above convert one element's code (for packed types the
   extracted 2/4-bit field, see c_packed_get) to/from the compute type (float; int for the
   integer ones; c_store of float8 saturates like Cast's default).  c_packed_get reads the code
   of element `idx` of packed array `arr`; c_packed_or is a statement OR-ing code `x` into
   element `idx` (the bytes must be zeroed first).  For one-byte types they are arr[idx] and a
   plain store. */
const char *c_packed_get(Emit *e, int dtype, const char *arr, const char *idx);
const char *c_packed_or(Emit *e, int dtype, const char *arr, const char *idx, const char *x);
/* A C literal of the value x in dtype's compute type ("1.5f", "INFINITY", "(-9223372036854775807-1)"). */
const char *c_lit(Emit *e, int dtype, double x);
const char *c_lit_i(Emit *e, int dtype, int64_t x);
/* Lowest / highest finite value of dtype as a C literal (for max/min reductions). */
const char *c_lowest(Emit *e, int dtype);
const char *c_highest(Emit *e, int dtype);
/* Formats into the emission arena. */
const char *fmt(Emit *e, const char *f, ...) __attribute__((format(printf, 2, 3)));
/* Emits a loop nest over out (rank r, dims) computing for every element the flat output index
   `o` and, for each of the n inputs, its broadcast flat index `i0`, `i1`, ...; body() writes the
   loop body.  ins[k] may have lower rank (numpy broadcasting). */
typedef void (*BodyFn)(Emit *e, void *arg);
void emit_broadcast_loops(Emit *e, const Value *out, const Value *const *ins, int n, BodyFn body,
                          void *arg);

/* `dst[j] += sum over q < n of expr[j]` for k <= 4 sums at once (expr[j] reads the index `q`,
   of C type `it`): 16 independent lanes of type T per sum, which compilers vectorize without
   reassociating (no -ffast-math), added into dst[j] (e.g. a double) at the end. */
void emit_lane_sums(Emit *e, const char *T, const char *it, int64_t n, int k, const char *const *dst,
                    const char *const *expr);

/* Independent iterations: `for (<decl>var = 0; var < cnt; var++) {` in C; in the CUDA
   backend's parallel mode (e->par) the grid-stride form, one thread per iteration.  decl is ""
   when var is declared already, else its type and a space. */
void emit_par_for(Emit *e, const char *decl, const char *var, int64_t cnt);
/* n nested independent loops (outermost first), closed by emit_par_end(e, n): in parallel mode
   one grid-stride loop over their product with the indices decoded (declared const). */
void emit_par_nest(Emit *e, const char *it, int n, const char *const *vars, const int64_t *cnt);
void emit_par_end(Emit *e, int n);

/* Includes templates/<name>.h in this model's C file, once, after templates/common.h (kernel
   helpers shared by node functions). */
void emit_use_template(Emit *e, const char *name);
/* Does n's C function return a status (OPF_STATUS rows, string makers, If/Loop/Scan nodes whose
   subgraphs run such a node)? */
bool node_returns_status(const Node *n);

/* Static const tables inside a node function (lookup tables computed by the compiler). */
void emit_itab(Emit *e, const char *name, const int64_t *v, int64_t n);
void emit_ftab(Emit *e, int ct, const char *name, const double *v, int64_t n);
/* Writes net.c and net.h. */
void emit_c_model(Ctx *ctx, Graph *g, const char *c_path, const char *h_path);
/* codegen/c/emit_ports.c: for a model with sequence or optional inputs/outputs, the typed
   entry's parameters (one per port), and -- after run_impl, which takes the flat tensors --
   run_ports, NET_run, the descriptors and NET_model. */
void emit_port_prototype(Ctx *ctx, Graph *g, Buf *b, Port *in_ports, int n_in, Port *out_ports, int n_out);
void emit_port_entries(Ctx *ctx, Graph *g, Buf *cb, const char *P, const char *UP, Port *in_ports, int n_in,
                       Port *out_ports, int n_out);

/* Several graphs in one C file (--train).  emit_multi_begin writes templates/common.h into
   e->out; emit_graph_impl then adds g's constants, node functions (names unique across the
   graphs of one Emit: `nconst` and e->fn_counter are shared) and
   `static int FNAME(void *arena, <inputs>, <outputs>)`; emit_multi_end splices in the kernel
   templates any graph asked for (each once).  emit_c_const writes one static const array
   named v->cname. */
size_t emit_multi_begin(Emit *e);
void emit_graph_impl(Emit *e, Graph *g, const char *fname, int *nconst);
void emit_multi_end(Emit *e, size_t tpl_at);
void emit_c_const(Emit *e, Value *v);
/* codegen/c/emit_train.c: net.c and net.h of --train. */
/* Writes b to path (fails with one error line). */
void emit_write_file(Ctx *ctx, const char *path, const Buf *b);
void emit_c_train(Ctx *ctx, TrainSpec *ts, const char *c_path, const char *h_path);
/* The saved-state format's header (emit_train.c; checksum and step count zero): H bytes of
   header, total bytes of a saved state.  The CUDA training driver writes the same format. */
void train_state_header(Ctx *ctx, TrainSpec *ts, Buf *h, int64_t *hdr_bytes, int64_t *total);
/* The initial values of the parameters and running statistics as static arrays (emit_train.c);
   returns their C names, in state order. */
const char **train_emit_inits(Emit *e, TrainSpec *ts);
/* The optimizer's update of element i (emit_train.c; the C step and the CUDA kernels). */
void train_emit_update_body(Emit *e, const TrainOptim *o, int dt);
/* --train with a CUDA target (codegen/cuda/emit_cuda_train.c). */
void emit_cuda_train(Ctx *ctx, TrainSpec *ts, const char *c_path, const char *h_path);

/* Shared with codegen/cuda: a C identifier made of a name's first maxlen characters; the name
   of a node's function; one node function (emit_c.c's layout); a template's text appended to
   e->out; the templates requested so far, spliced into b at byte `at`, and the list reset. */
const char *c_ident(Arena *a, const char *name, int maxlen);
const char *node_fn_name(Emit *e, const Node *n);
void emit_node_fn_one(Emit *e, Node *n);
void emit_template_text(Emit *e, const char *name);
void emit_templates_splice(Emit *e, Buf *b, size_t at);
void emit_templates_reset(void);
/* `static const int64_t P_<tag><i>_dims[]` for each value of vs and the onnxc_tensor_info
   array P_<array> describing them (the model descriptors). */
void emit_tensor_infos(Buf *cb, PtrVec *vs, const char *P, const char *tag, const char *array);
/* The node functions of g (nested subgraphs' first), numbered from e->fn_counter. */
void emit_node_fns_of(Emit *e, Graph *g);
/* The storage expression of v in the top graph g: constants by their cname, inputs and
   outputs by in/out names, arena values as casts of `base` + offset. */
const char *top_value_ptr(Emit *e, Graph *g, const char *const *in_names, const char *const *out_names,
                          const char *base, Value *v, bool as_const);

/* ---- ops_elementwise.c: elementwise chains (the CUDA backend fuses them) ---------------- */

/* True when n is one of the expression-template elementwise rows (Add, Relu, Exp, ...). */
bool ew_fusable(const Node *n);
/* The expression of n in its compute type, for operands already loaded in that type. */
const char *ew_expr(Emit *e, Node *n, const char *const *ops);
/* A node computing the tree of elementwise nodes chain[0..n) (topological order, the last is
   the root whose output the new node writes; every other member's output is read only inside
   the tree and has the root's shape).  Its inputs are the tree's outside inputs. */
Node *ew_fuse_tree(Ctx *ctx, Graph *g, Node **chain, int n);

/* ---- ops_random.c: the random-number generator of generated code -------------------------- */

/* Scratch bytes of the generator state (an onnxc_rng of templates/random.h: numpy's legacy
   RandomState MT19937).  emit_rng_init declares `onnxc_rng *rng` at the start of the node's
   scratch W and seeds it; then onnxc_rng_double(rng) (53-bit uniform), onnxc_rng_gauss(rng),
   onnxc_rng_bernoulli(rng, p) draw as numpy does. */
int64_t rng_state_bytes(void);
void emit_rng_init(Emit *e, uint32_t seed);

/* ---- ops_nn.c: geometry for other backends ------------------------------------------------ */

typedef struct ConvShape {
  int r;                                   /* spatial rank */
  int64_t N, C, M, G, Cg, Mg;              /* batch, channels in/out, groups */
  int64_t in[6], k[6], out[6], s[6], d[6], pb[6], pe[6];
  bool pointwise, dw_form;                 /* Conv: 1x1 stride 1 unpadded; takes onnxc_dw2d */
} ConvShape;
/* Conv (unpacked weight) and the pools (MaxPool, AveragePool, LpPool: C = M, G = C). */
void conv_shape(Ctx *ctx, const Node *n, ConvShape *cs);

/* ---- ops_fused.c -------------------------------------------------------------------------- */

/* A DwBlock node for the 1x1 Conv ex (packed weights), the depthwise Conv dw it alone feeds and
   optionally the 1x1 Conv pj that alone reads dw's output: computed together in bands of
   output rows.  NULL when the Convs do not have those forms.  The new node is appended to
   g->nodes and the three are marked dead. */
Node *dw_block_fuse(Ctx *ctx, Graph *g, Node *ex, Node *dw, Node *pj);
/* ops_nn.c: a ConvPool node for the 2-D Conv conv whose output only the 2-D MaxPool pool reads
   (templates/conv.h onnxc_conv_mp: the convolution in bands of rows that the pooling reads
   while they are in cache), or NULL where the two do not have those forms.  The new node is
   appended to g->nodes and the two are marked dead. */
Node *conv_pool_fuse(Ctx *ctx, Graph *g, Node *conv, Node *pool);
/* ops_nn.c: a ConvDw node for the 2-D Conv conv (the im2col or onnxc_conv_sc form) whose output
   only the depthwise Conv dw reads, and the 1x1 Conv pj that alone reads dw's output: computed
   together in bands of depthwise output rows.  NULL where they do not have those forms (or
   with --threads).  The new node is appended to g->nodes and the three are marked dead. */
Node *conv_dw_fuse(Ctx *ctx, Graph *g, Node *conv, Node *dw, Node *pj);
/* Whether DwBlock n ends with the depthwise output (no projection): optimize.c may give it a
   second output, the GlobalAveragePool of the first, that its kernels add up as they go. */
bool dw_block_plain(const Node *n);
/* The same for a ConvDw (ops_nn.c: a stem and its depthwise Conv without the projection). */
bool conv_dw_plain(const Node *n);
/* Whether Conv c is 2-D, float, in the packed 1x1 GEMM form (stride 1, no padding, one group,
   no channel scale); *s its shape. */
bool packed_pointwise(Ctx *ctx, const Node *c, ConvShape *s);
void pool_shape(Ctx *ctx, const Node *n, ConvShape *cs);

/* ops_seq.c, for the CUDA backend: an LSTM or GRU whose CUDA form applies (float32, layout 0,
   no sequence_lens, peepholes, clip or input_forget, the default activations); W and R are
   [D][K][GH] row-major when pre_w / pre_r (transposed at compile time), else ONNX's [D][GH][K]. */
typedef struct RnnCuda {
  bool lstm, lbr, pre_w, pre_r, rev[2];
  int64_t S, B, I, H, D, G;
} RnnCuda;
bool rnn_cuda_form(const Node *n, RnnCuda *rc);

/* ---- codegen/cuda/emit_cuda.c ------------------------------------------------------------- */

/* Writes net.cu (or, for cuda-nvrtc, net.c carrying the kernel source) and net.h. */
void emit_cuda_model(Ctx *ctx, Graph *g, const char *c_path, const char *h_path);
/* codegen/cuda/ops_cuda.c: scratch bytes of n's CUDA kernels, or -1 when n runs its C function
   (whose op row sizes the scratch); the planner asks for the CUDA targets. */
int64_t cuda_scratch(Ctx *ctx, Node *n);
/* optimize.c: the CUDA backend's rewrites after optimize_graph: trees of elementwise nodes
   become one node (one kernel). */
void fuse_elementwise(Ctx *ctx, Graph *g);

#endif
