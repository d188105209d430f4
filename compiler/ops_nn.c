/*
 * ops_nn.c - neural-network operators: Conv, ConvTranspose, the pooling family (Max, Average,
 * Lp, Global*, MaxUnpool), the normalizations (Batch, Instance, Layer, Group, RMS, LRN, Lp,
 * MeanVariance), Gemm, MatMul and Dropout.
 *
 * Kernels for float and double work on the storage type directly; float16/bfloat16 (and the
 * integer MatMul/Gemm types) take simple loops that load/convert every element.
 *
 * float32 Conv/Gemm/MatMul call the kernels of templates/gemm.h and templates/conv.h
 * (register-blocked micro-kernels with AVX-512 / AVX2+FMA / portable C paths, chosen when the
 * generated C is compiled), with the epilogue optimize.c fused in (bias, addend, activation):
 *   - Conv with weights packed by optimize.c: 1x1 stride 1 -> onnxc_sgemm on the input (small
 *     planes with W_TPANELS weights: onnxc_sgemm_t, output channels in the lanes); other 2-D
 *     convolutions with W_TPANELS weights (small output planes) -> onnxc_conv_t, output
 *     channels in the lanes over a zero-padded input copy (scratch; none: stack bands); 3x3
 *     stride 1 pad 1 (>= 16 channels) -> Winograd F(2x2,3x3) in blocks of tile rows (scratch;
 *     none: direct); other stride-1 "same" 2-D -> implicit GEMM on the input (no scratch);
 *     else im2col in blocks of KB rows x TR output rows into scratch, each block multiplied
 *     into the output (under a tight scratch cap: direct loops on the packed weights);
 *   - depthwise (one input channel per group, < 4 outputs each), rank <= 2 -> onnxc_dw2d;
 *   - Gemm/MatMul with B as [K][N] (optimize.c transposes constant B, folds alpha) ->
 *     onnxc_sgemm_a (A packed 8 rows at a time on the stack; M = 1: a vector product).
 *   MaxPool 2-D -> onnxc_maxpool2d; global pools use 16 partial results.
 * Other types and layouts use emitted loops: GEMM register blocks of 4 rows x 16 columns whose
 * sums stay in small local arrays across the k loop, i-k-j inside the block (contiguous in j);
 * this form auto-vectorizes at -O3 and is still 4-5x faster than a plain i-k-j loop at -O2.
 * Gemm with transB (PyTorch Linear) uses dot products with 8 partial sums instead.
 * Fused epilogues that a form cannot apply itself run as a pass over the output.
 * Conv (double, and float without packed weights) forms:
 *   - pointwise (1x1, stride 1, no pad): GEMM straight on the input,
 *   - depthwise (one input channel per group, < 4 outputs each), rank <= 2: the channel is
 *     copied into a zero-padded plane in scratch and outputs are computed on rows of WW >= OW
 *     columns, so each kernel tap is one long contiguous loop; valid columns are copied out,
 *   - other depthwise: direct loops accumulating whole output rows,
 *   - otherwise im2col + GEMM: a tile of whole output rows is unfolded into scratch as a
 *     [Cg*kernel, tile] matrix and multiplied by the group's weights (float: onnxc_sgemm_a,
 *     the weights packed on the stack -- run-time weights, as in --train).
 * The valid range of the innermost output coordinate is computed per kernel tap (lo/hi), so
 * there are no bounds checks in inner loops; pool windows clip their kernel range the same way.
 * Pool output sizes follow the ONNX reference: with ceil_mode the last window must start inside
 * the input or the left padding; averages count only real elements unless count_include_pad,
 * and then count taps inside the declared padding, never the extra ceil_mode area.
 * Training-mode Dropout reproduces numpy's RandomState(seed).uniform (MT19937, 53-bit doubles),
 * which is what the ONNX reference and its test data use: the generator of ops_random.c /
 * templates/random.h, its state in the node's scratch.
 */
#include <math.h>
#include <string.h>

#include "onnxc.h"

#define MAXR 6 /* spatial rank limit of conv/pool */
#define LL(x) ((long long)(x))

/* Index type of the node being emitted ("int" unless a tensor is huge); set by set_it(). */
static const char *IT = "int";

static void set_it(const Node *n, int64_t extra) {
  int64_t mx = extra;
  for (int k = 0; k < n->n_inputs; k++)
    if (n->inputs[k] && value_numel(n->inputs[k]) > mx) mx = value_numel(n->inputs[k]);
  for (int k = 0; k < n->n_outputs; k++)
    if (n->outputs[k] && value_numel(n->outputs[k]) > mx) mx = value_numel(n->outputs[k]);
  IT = mx < 2000000000LL ? "int" : "int64_t";
}

static bool is_native(int dt) { return dt == DT_FLOAT || dt == DT_DOUBLE; }
static int ct_dt(int dt) { return dt == DT_DOUBLE ? DT_DOUBLE : DT_FLOAT; }
static const char *ct_of(int dt) { return dt == DT_DOUBLE ? "double" : "float"; }
static const char *fsuf(int dt) { return dt == DT_DOUBLE ? "" : "f"; } /* libm suffix */

static int64_t prod(const int64_t *d, int n) {
  int64_t p = 1;
  for (int i = 0; i < n; i++) p *= d[i];
  return p;
}

static const int float_types[] = {DT_FLOAT, DT_DOUBLE, DT_FLOAT16, DT_BFLOAT16, 0};

static void require_same_dtype(Ctx *ctx, const Node *n, int i, int dt) {
  Value *v = node_in(n, i);
  if (v && v->dtype != dt)
    fail_node(ctx, n, "input %d has element type %s, expected %s", i, dtype_name(v->dtype), dtype_name(dt));
}

static void require_numel(Ctx *ctx, const Node *n, int i, int64_t cnt, const char *what) {
  Value *v = node_in(n, i);
  if (v && value_numel(v) != cnt)
    fail_node(ctx, n, "%s has %lld elements, expected %lld", what, LL(value_numel(v)), LL(cnt));
}

static void loop(Emit *e, const char *var, int64_t cnt) {
  ep(e, "for (%s %s = 0; %s < %lld; %s++) {", IT, var, var, LL(cnt), var);
}

/* ---- geometry of convolution and pooling windows ------------------------------------------ */

typedef struct Geo {
  int r;                                 /* spatial rank */
  int64_t in[MAXR], k[MAXR], out[MAXR], s[MAXR], d[MAXR], pb[MAXR], pe[MAXR];
} Geo;

static void spatial_ints(Ctx *ctx, const Node *n, const char *name, int cnt, int64_t dflt, int64_t min,
                         int64_t *out) {
  const int64_t *a;
  int na = attr_ints(n, name, &a);
  if (na && na != cnt) fail_node(ctx, n, "attribute '%s' has %d values, expected %d", name, na, cnt);
  for (int i = 0; i < cnt; i++) {
    out[i] = na ? a[i] : dflt;
    if (out[i] < min) fail_node(ctx, n, "attribute '%s' has an invalid value %lld", name, LL(out[i]));
  }
}

/* Output size and padding per spatial dim for Conv and the pools (kernel k already set). */
static void geo_window(Ctx *ctx, const Node *n, const Value *x, Geo *g, bool ceil_ok) {
  int r = g->r;
  if (r < 1 || r > MAXR) fail_node(ctx, n, "%d spatial dimensions are not supported", r);
  if (x->rank != r + 2) fail_node(ctx, n, "input rank %d does not match %d spatial dims", x->rank, r);
  for (int i = 0; i < r; i++) g->in[i] = x->dims[i + 2];
  spatial_ints(ctx, n, "strides", r, 1, 1, g->s);
  spatial_ints(ctx, n, "dilations", r, 1, 1, g->d);
  int64_t pads[2 * MAXR];
  spatial_ints(ctx, n, "pads", 2 * r, 0, 0, pads);
  const char *ap = attr_s(n, "auto_pad", "NOTSET");
  int ceil_mode = ceil_ok ? (int)attr_i(n, "ceil_mode", 0) : 0;
  for (int i = 0; i < r; i++) {
    int64_t in = g->in[i], s = g->s[i], ek = (g->k[i] - 1) * g->d[i] + 1, out;
    if (g->k[i] < 1) fail_node(ctx, n, "kernel size must be positive");
    if (!strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER")) {
      out = (in + s - 1) / s;
      int64_t total = (out - 1) * s + ek - in;
      if (total < 0) total = 0;
      g->pb[i] = !strcmp(ap, "SAME_UPPER") ? total / 2 : total - total / 2;
      g->pe[i] = total - g->pb[i];
    } else if (!strcmp(ap, "VALID") || !strcmp(ap, "NOTSET") || !*ap) {
      bool valid = !strcmp(ap, "VALID");
      g->pb[i] = valid ? 0 : pads[i];
      g->pe[i] = valid ? 0 : pads[i + r];
      int64_t num = in + g->pb[i] + g->pe[i] - ek;
      if (num < 0) fail_node(ctx, n, "the kernel is larger than the padded input in spatial dim %d", i);
      out = ceil_mode ? (num + s - 1) / s + 1 : num / s + 1;
      if (ceil_mode && (out - 1) * s >= in + g->pb[i]) out--;
    } else {
      fail_node(ctx, n, "unknown auto_pad '%s'", ap);
    }
    if (out < 1) fail_node(ctx, n, "empty output in spatial dim %d", i);
    g->out[i] = out;
  }
}

/* ---- GEMM building blocks ----------------------------------------------------------------- */

/* C(m,j) += alpha * sum_k A(m,k) * B(k,j) for m < M, j < N, k < K, with
   A(m,k) = A[m*sam + k*sak], B(k,j) = B[k*ldb + j], C(m,j) = C[m*ldc + j].
   Register blocks of 4 rows x 16 columns: the block's sums live in small local arrays across
   the whole k loop (i-k-j inside the block, contiguous in j), so C is read and written once
   per block.  This form vectorizes at -O3 and stays fast as scalar code at -O2/-Os. */
typedef struct GemmNN {
  const char *T, *A, *B, *C, *ldb, *N, *alpha;
  int64_t sam, sak, ldc, M, K;
} GemmNN;

#define GEMM_JB 16

static const char *a_at(Emit *e, const GemmNN *g, int row) {
  const char *k = g->sak == 1 ? "k" : fmt(e, "k * %lld", LL(g->sak));
  return fmt(e, "(%s)[(m + %d) * %lld + %s]", g->A, row, LL(g->sam), k);
}

/* one block of `rows` rows starting at m and `w` columns starting at j0 */
static void emit_gemm_block(Emit *e, const GemmNN *g, int rows, const char *w) {
  ep(e, "{");
  for (int r = 0; r < rows; r++) ep(e, "%s s%d[%d] = {0};", g->T, r, GEMM_JB);
  loop(e, "k", g->K);
  ep(e, "const %s *b = (%s) + k * %s + j0;", g->T, g->B, g->ldb);
  for (int r = 0; r < rows; r++) ep(e, "const %s a%d = %s;", g->T, r, a_at(e, g, r));
  ep(e, "for (%s j = 0; j < %s; j++) {", IT, w);
  ep(e, "const %s bv = b[j];", g->T);
  for (int r = 0; r < rows; r++) ep(e, "s%d[j] += a%d * bv;", r, r);
  ep(e, "}");
  ep(e, "}");
  ep(e, "for (%s j = 0; j < %s; j++) {", IT, w);
  for (int r = 0; r < rows; r++)
    ep(e, "(%s)[(m + %d) * %lld + j0 + j] += %ss%d[j];", g->C, r, LL(g->ldc), g->alpha ? fmt(e, "%s * ", g->alpha) : "", r);
  ep(e, "}");
  ep(e, "}");
}

static void emit_gemm_nn(Emit *e, const GemmNN *g) {
  int64_t m4 = g->M / 4 * 4;
  ep(e, "{");
  ep(e, "%s m = 0;", IT);
  for (int pass = 0; pass < 2; pass++) {
    int rows = pass == 0 ? 4 : 1;
    if (pass == 0 && m4 == 0) continue;
    if (pass == 1 && m4 == g->M) continue;
    ep(e, "for (; m < %lld; m += %d) {", LL(pass == 0 ? m4 : g->M), rows);
    ep(e, "%s j0 = 0;", IT);
    ep(e, "for (; j0 + %d <= %s; j0 += %d)", GEMM_JB, g->N, GEMM_JB);
    emit_gemm_block(e, g, rows, fmt(e, "%d", GEMM_JB));
    ep(e, "if (j0 < %s) {", g->N);
    ep(e, "const %s jw = %s - j0;", IT, g->N);
    emit_gemm_block(e, g, rows, "jw");
    ep(e, "}");
    ep(e, "}");
  }
  ep(e, "}");
}

/* C(m,n) += alpha * sum_k A[m*sam + k] * B[n*sbn + k]: dot products with 8 partial sums. */
static void emit_gemm_nt(Emit *e, const char *T, const char *A, int64_t sam, const char *B, int64_t sbn,
                         const char *C, int64_t ldc, int64_t M, int64_t N, int64_t K, const char *alpha) {
  loop(e, "m", M);
  ep(e, "const %s *ar = %s + m * %lld;", T, A, LL(sam));
  ep(e, "%s *cr = %s + m * %lld;", T, C, LL(ldc));
  loop(e, "n", N);
  ep(e, "const %s *br = %s + n * %lld;", T, B, LL(sbn));
  if (K >= 8) {
    ep(e, "%s s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;", T);
    ep(e, "%s k = 0;", IT);
    ep(e, "for (; k + 8 <= %lld; k += 8) {", LL(K));
    for (int i = 0; i < 8; i++) ep(e, "s%d += ar[k + %d] * br[k + %d];", i, i, i);
    ep(e, "}");
    if (K % 8) ep(e, "for (; k < %lld; k++) s0 += ar[k] * br[k];", LL(K));
    ep(e, "cr[n] += %s(((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)));", alpha ? fmt(e, "%s * ", alpha) : "");
  } else {
    ep(e, "%s s0 = 0;", T);
    loop(e, "k", K);
    ep(e, "s0 += ar[k] * br[k];");
    ep(e, "}");
    ep(e, "cr[n] += %ss0;", alpha ? fmt(e, "%s * ", alpha) : "");
  }
  ep(e, "}");
  ep(e, "}");
}

/* ---- Conv ------------------------------------------------------------------------------------ */

typedef struct ConvInfo {
  Geo g;
  int64_t N, C, M, G, Cg, Mg, KP, IHW, OHW, ROWS, TR;
  bool pointwise, direct, wide;
  /* fast: float32 with the weight packed by optimize.c (panels of 8 filters, Mp rows per
     group): GEMM forms of templates/gemm.h; im2col in blocks of KB rows x TR output rows */
  bool fast, same, dw, wino;
  bool convt;                /* onnxc_conv_t (W_TPANELS weights, not 1x1): ctF floats of scratch */
  int64_t ctF, ctT;          /* ctT > 1 (--threads): tasks of output rows, ctF floats of scratch each */
  bool same_par;             /* --threads: onnxc_conv_same in tasks of its pixel strips */
  int wa;                    /* wino: 4 (F(2x2,3x3)) or 6 (F(4x4,3x3)) */
  int64_t MB;                /* wino: output channels per pass (F(4x4,3x3)) */
  int64_t WT;                /* wino: tasks (--threads; a scratch each) */
  bool wbych;                /* wino with WT > 1: tasks of output channels (else of tile rows) */
  int64_t Mp, KB, TB; /* TB: tiles per Winograd block (whole tile rows) */
  /* direct under a scratch cap: im2col tiles of sKB rows x sTR output rows on the stack
     instead, where the target has a SIMD GEMM path (a hosted 64-bit CPU); 0: none */
  int64_t sKB, sTR;
  /* sc: AVX-512 and AVX2 hosts run onnxc_conv_sc (direct, few input channels, templates/conv.h) on
     bands of scR output rows in the im2col scratch; other targets the im2col blocks */
  bool sc;
  int64_t scR;
  int64_t scT, scBF; /* sc with --threads: scT tasks of output rows, a band buffer of scBF floats each */
  int64_t i2T, i2F, i2TR; /* im2col with --threads: i2T tasks (rows, or channels: i2ch), a tile of
                             i2F floats and i2TR rows each */
  bool i2ch;
  /* wide form (2-D view, 1-D as H = 1): padded plane PH x PW, wide output rows of WW */
  int64_t v_in[2], v_k[2], v_s[2], v_d[2], v_p[2], v_out[2], PH, PW, WW;
} ConvInfo;

#define TILE_ELEMS 65536 /* target size of one im2col tile */
#define STACK_TILE 8192  /* floats of an im2col tile on the stack (32 KiB) */
#define GEMM_KB 128      /* k block of the packed GEMM (templates/gemm.h ONNXC_KC) */

/* Inputs, ranks, kernel size, batch and channels shared by Conv and ConvTranspose. */
static void conv_common(Ctx *ctx, const Node *n, ConvInfo *ci, Value **px, Value **pw) {
  const int last = n->fuse_scale > n->fuse_add ? n->fuse_scale : n->fuse_add;
  require_inputs(ctx, n, 2, last ? last + 1 : 3);
  Value *x = *px = n->inputs[0], *w = *pw = n->orig_w ? n->orig_w : n->inputs[1];
  require_dtype(ctx, n, 0, float_types);
  require_same_dtype(ctx, n, 1, x->dtype);
  require_same_dtype(ctx, n, 2, x->dtype);
  Geo *g = &ci->g;
  int r = g->r = x->rank - 2;
  if (r < 1 || r > MAXR) fail_node(ctx, n, "input rank %d is not supported", x->rank);
  if (w->rank != x->rank) fail_node(ctx, n, "weight rank %d does not match input rank %d", w->rank, x->rank);
  const int64_t *ks;
  int nk = attr_ints(n, "kernel_shape", &ks);
  if (nk && nk != r) fail_node(ctx, n, "kernel_shape has %d values, expected %d", nk, r);
  for (int i = 0; i < r; i++) {
    g->in[i] = x->dims[i + 2];
    g->k[i] = w->dims[i + 2];
    if (nk && ks[i] != g->k[i]) fail_node(ctx, n, "kernel_shape does not match the weight shape");
  }
  ci->N = x->dims[0];
  ci->C = x->dims[1];
  ci->G = attr_i(n, "group", 1);
  if (ci->G < 1 || ci->C % ci->G) fail_node(ctx, n, "group %lld does not divide %lld channels", LL(ci->G), LL(ci->C));
  ci->Cg = ci->C / ci->G;
}

/* Scratch of onnxc_wino23 (A = 4) / onnxc_wino43 (A = 6) for blocks of TB tiles: A*A transformed
   C x TB input and M x TB output matrices, ONNXC_WINO_LD apart (templates/conv.h) */
static int64_t wino_ld(int64_t n) { return n % 512 == 0 ? n + 16 : n; }
static int64_t wino_scratch(int64_t A, int64_t TB, int64_t C, int64_t M) {
  return A * A * (wino_ld(C * TB) + wino_ld(M * TB)) * 4;
}
/* onnxc_wino_par (templates/par.h): WT parts of tile rows, each a scratch of 64-byte multiples */
static int64_t wino_scratch_par(int64_t A, int64_t TB, int64_t C, int64_t M, int64_t WT) {
  return WT > 1 ? WT * ((wino_scratch(A, TB, C, M) + 63) / 64 * 64) : wino_scratch(A, TB, C, M);
}

static void conv_info(Ctx *ctx, const Node *n, ConvInfo *ci) {
  Value *x, *w;
  Geo *g = &ci->g;
  conv_common(ctx, n, ci, &x, &w);
  geo_window(ctx, n, x, g, false);
  ci->M = w->dims[0];
  if (ci->M % ci->G) fail_node(ctx, n, "group %lld does not divide %lld filters", LL(ci->G), LL(ci->M));
  ci->Mg = ci->M / ci->G;
  if (w->dims[1] != ci->Cg)
    fail_node(ctx, n, "weight has %lld input channels per group, expected %lld", LL(w->dims[1]), LL(ci->Cg));
  require_numel(ctx, n, 2, ci->M, "bias");
  ci->KP = prod(g->k, g->r);
  ci->IHW = prod(g->in, g->r);
  ci->OHW = prod(g->out, g->r);
  int r = g->r;
  ci->ROWS = prod(g->out, r - 1);
  ci->pointwise = true;
  for (int i = 0; i < r; i++)
    if (g->k[i] != 1 || g->s[i] != 1 || g->pb[i] != 0 || g->out[i] != g->in[i]) ci->pointwise = false;
  ci->direct = conv_one_channel_direct(ci->Cg, ci->Mg, r + 2, ci->KP, ci->IHW) && !ci->pointwise;
  ci->wide = ci->direct && r <= 2;
  ci->fast = x->dtype == DT_FLOAT && n->orig_w;
  ci->same = ci->dw = ci->wino = ci->sc = ci->convt = false;
  if (ci->fast && n->w_layout == W_TPANELS && !ci->pointwise) {
    /* the whole zero-padded input when the plan leaves room for it, else (0) stack bands */
    int64_t Hp = (g->out[0] - 1) * g->s[0] + (g->k[0] - 1) * g->d[0] + 1;
    int64_t Wp = (g->out[1] - 1) * g->s[1] + (g->k[1] - 1) * g->d[1] + 1;
    ci->convt = true;
    ci->Mp = (ci->Mg + 15) / 16 * 16; /* one group: the panels' rows (wg = X1) */
    ci->ctF = ci->Cg * Hp * Wp + CONVT_PAD;
    ci->ctT = 1;
    if (ctx->threads > 1 && g->out[0] >= 2 && par_pays(ctx, (double)ci->Mg * ci->Cg * ci->KP * ci->OHW)) {
      /* --threads: each task its share of the output rows and of their padded input rows */
      int64_t T = ctx->threads < g->out[0] ? ctx->threads : g->out[0];
      int64_t Hs = ((g->out[0] + T - 1) / T - 1) * g->s[0] + (g->k[0] - 1) * g->d[0] + 1;
      ci->ctT = T;
      ci->ctF = (ci->Cg * Hs * Wp + CONVT_PAD + 15) / 16 * 16;
      if (n->scratch_cap >= 0 && T * ci->ctF * 4 > n->scratch_cap) ci->ctF = 0;
    }
    if (n->scratch_cap >= 0 && ci->ctF * 4 > n->scratch_cap) ci->ctF = 0;
    ci->direct = ci->wide = false;
    return;
  }
  if (ci->fast && (n->w_layout == W_WINO23 || n->w_layout == W_WINO43)) {
    /* blocks of whole tile rows, about 1 MiB of transformed tiles; under a scratch cap
       fewer rows; none fit: direct loops (onnxc_wino_direct) */
    int64_t A = n->w_layout == W_WINO43 ? 6 : 4, TS = A - 2, MB = ci->Mg;
    int64_t TX = (g->in[1] + TS - 1) / TS, TY = (g->in[0] + TS - 1) / TS;
    int64_t rows = (1048576 + A * A * TX * (ci->Cg + ci->Mg) * 4 - 1) / (A * A * TX * (ci->Cg + ci->Mg) * 4);
    int64_t cap = n->scratch_cap;
    if (rows > TY) rows = TY;
    while (rows > 0 && cap >= 0 && wino_scratch(A, rows * TX, ci->Cg, MB) > cap) rows--;
    /* F(4x4,3x3): not even one tile row fits: fewer output channels at a time */
    while (A == 6 && rows == 0 && MB > 8) {
      MB = (MB / 2 + 7) / 8 * 8;
      if (cap < 0 || wino_scratch(A, TX, ci->Cg, MB) <= cap) rows = 1;
    }
    if (rows > 0) rows = (TY + (TY + rows - 1) / rows - 1) / ((TY + rows - 1) / rows); /* equal blocks */
    ci->WT = 1;
    ci->wbych = false;
    if (ctx->threads > 1 && rows > 0 && TY > 1 && par_pays(ctx, (double)ci->Mg * ci->Cg * g->in[0] * g->in[1])) {
      /* --threads: each task its share of the tile rows (or, on few tile rows, of the output
         channels: templates/par.h onnxc_wino_par) in blocks in its own scratch,
         where the plan has room for them all (else one task) */
      int64_t T = ctx->threads, bych = TY < 4 * T && ci->Mg >= 16 * T;
      int64_t WT = bych || T < TY ? T : TY, pr = bych ? rows : (TY + WT - 1) / WT;
      if (pr > rows) pr = rows;
      while (pr > 0 && cap >= 0 && wino_scratch_par(A, pr * TX, ci->Cg, MB, WT) > cap) pr--;
      if (pr > 0) {
        /* equal blocks of a part's rows (by channels: of all TY rows; 14x14 F(4x4,3x3): 2 + 2
           tile rows, not 3 + 1 whose second block is a product of 4 columns) */
        int64_t span = bych ? TY : (TY + WT - 1) / WT;
        rows = (span + (span + pr - 1) / pr - 1) / ((span + pr - 1) / pr);
        ci->WT = WT;
        ci->wbych = bych;
      }
    }
    ci->MB = MB;
    ci->wa = (int)A;
    ci->wino = true;
    ci->TB = rows * TX;
    ci->Mp = (ci->Mg + 7) / 8 * 8;
    ci->direct = ci->wide = false;
    return;
  }
  if (x->dtype == DT_FLOAT && ci->direct && r <= 2 && g->k[r - 1] <= 16 && g->out[r - 1] <= 1024 && !n->orig_w) {
    ci->dw = true; /* onnxc_dw2d (templates/conv.h): no scratch */
    ci->direct = ci->wide = false;
    return;
  }
  if (ci->fast && r <= 2 && ci->KP <= 49 && !ci->pointwise) {
    bool same = true;
    for (int i = 0; i < r; i++)
      if (g->s[i] != 1 || g->out[i] != g->in[i]) same = false;
    if (same) { /* implicit GEMM on the input (onnxc_conv_same): no scratch */
      ci->same = true;
      ci->same_par = par_pays(ctx, (double)ci->Mg * ci->Cg * ci->KP * ci->OHW);
      ci->direct = ci->wide = false;
      ci->Mp = (ci->Mg + 7) / 8 * 8;
      return;
    }
  }
  if (ci->fast) {
    /* im2col blocks of KB rows (k) by TR output rows, about TILE_ELEMS floats; under a scratch
       cap fewer rows, then shorter blocks, then the direct loops (no scratch) */
    int64_t K = ci->Cg * ci->KP, OW = g->out[r - 1], cap = n->scratch_cap;
    ci->Mp = (ci->Mg + 7) / 8 * 8;
    ci->direct = ci->wide = false;
    ci->KB = K < GEMM_KB ? K : GEMM_KB;
    ci->TR = TILE_ELEMS / (ci->KB * OW) > 0 ? TILE_ELEMS / (ci->KB * OW) : 1;
    if (ci->TR > ci->ROWS) ci->TR = ci->ROWS;
    if (!ci->pointwise && cap >= 0 && ci->KB * ci->TR * OW * 4 > cap) {
      ci->TR = cap / (ci->KB * OW * 4);
      if (ci->TR < 1) { /* blocks of a power of two rows, so that they nest in the packed blocks */
        ci->TR = 1;
        while (ci->KB > 8 && ci->KB * OW * 4 > cap) ci->KB = ci->KB >= GEMM_KB ? GEMM_KB / 2 : ci->KB / 2;
        if (ci->KB < 1 || ci->KB * OW * 4 > cap) ci->direct = true;
      }
    }
    int64_t tiles = (ci->ROWS + ci->TR - 1) / ci->TR; /* equal tiles: 56 rows as 8 x 7, not 6 x 9 + 2 */
    ci->TR = (ci->ROWS + tiles - 1) / tiles;
    ci->sKB = ci->sTR = 0;
    if (r == 2 && K <= 256 && OW >= 16 && g->s[0] == g->s[1] && g->s[0] <= 2 && g->d[0] == 1 && g->d[1] == 1) {
      /* onnxc_conv_sc's band: (R - 1) S + KH buffered rows of C * S * Wp floats (conv.h), in
         the im2col scratch or (direct) on the stack */
      int64_t S = g->s[1], KW = g->k[1], PW = g->pb[1], L = (PW + S - 1) / S;
      int64_t qmax = KW - 1 - PW >= 0 ? (KW - 1 - PW) / S : 0;
      int64_t Wp = (OW + 15) / 16 * 16 + L + qmax + 1, row = ci->Cg * S * Wp;
      int64_t avail = (ci->direct ? STACK_TILE : ci->KB * ci->TR * OW) / row; /* buffered rows that fit */
      int64_t fit = avail < g->k[0] ? 0 : (avail - g->k[0]) / S + 1;
      if (fit > 16) fit = 16;
      if (fit > g->out[0]) fit = g->out[0];
      if (fit >= 2 || (fit >= 1 && g->out[0] == 1)) {
        ci->sc = true;
        ci->scR = fit;
        ci->scT = 1;
        ci->scBF = 0;
      }
      if (ci->sc && !ci->direct && ctx->threads > 1 && g->out[0] >= 2 * ctx->threads &&
          par_pays(ctx, (double)ci->Mg * ci->Cg * ci->KP * ci->OHW)) {
        /* --threads: the output rows in shares, each task a band buffer in its part of the scratch */
        int64_t T = ctx->threads, bf = ci->KB * ci->TR * OW / T / 16 * 16, pa = bf / row;
        int64_t pf = pa < g->k[0] ? 0 : (pa - g->k[0]) / S + 1, share = (g->out[0] + T - 1) / T;
        if (pf > 16) pf = 16;
        if (pf > share) pf = share;
        if (pf >= 2) {
          ci->scT = T;
          ci->scR = pf;
          ci->scBF = bf;
        }
      }
    }
    ci->i2T = 1;
    ci->i2F = ci->i2TR = 0;
    ci->i2ch = false;
    if (ctx->threads > 1 && !ci->direct && !ci->sc && !ci->pointwise && r <= 2 &&
        par_pays(ctx, 0.25 * ci->Mg * K * ci->ROWS * OW)) {
      /* --threads (onnxc_conv_i2c_par): by output channels where the weights outnumber the
         pixels 2:1 (parts cut by rows would each stream all of them), else by output rows;
         each part its own tile, all in the scratch where the cap allows (else one thread) */
      int64_t T = ctx->threads, share = (ci->ROWS + T - 1) / T;
      bool bych = ci->Mg >= 2 * ci->OHW && ci->Mg >= 16 * T;
      int64_t tr = bych || ci->TR < share ? ci->TR : share;
      if (!bych && ci->TR < share) tr = (share + (share + tr - 1) / tr - 1) / ((share + tr - 1) / tr); /* equal tiles */
      int64_t part = (ci->KB * tr * OW + 15) / 16 * 16;
      if ((bych || ci->ROWS >= T) && (cap < 0 || T * part * 4 <= cap)) {
        ci->i2T = T;
        ci->i2F = part;
        ci->i2TR = tr;
        ci->i2ch = bych;
      }
    }
    if (ci->direct) { /* the same tiling within STACK_TILE floats (the direct loops stay for other targets) */
      int64_t kb = K < GEMM_KB ? K : GEMM_KB;
      while (kb > 8 && kb * OW > STACK_TILE) kb = kb >= GEMM_KB ? GEMM_KB / 2 : kb / 2;
      if (kb * OW <= STACK_TILE) {
        int64_t tr = STACK_TILE / (kb * OW);
        if (tr > ci->ROWS) tr = ci->ROWS;
        tiles = (ci->ROWS + tr - 1) / tr;
        ci->sKB = kb;
        ci->sTR = (ci->ROWS + tiles - 1) / tiles;
      }
    }
    return;
  }
  /* the planner's scratch cap (memory-lean plans): forms whose scratch does not fit fall back
     to smaller im2col tiles, then to direct loops that need none */
  int64_t cap = n->scratch_cap, es = (int64_t)dtype_size(x->dtype);
  if (ci->wide && cap >= 0) {
    int64_t need_w = ci->g.out[r - 1] * ci->g.s[r - 1] + (ci->g.k[r - 1] - 1) * ci->g.d[r - 1] + 1 + ci->g.pb[r - 1] + ci->g.in[r - 1];
    int64_t need_h = ci->g.out[0] * ci->g.s[0] + (ci->g.k[0] - 1) * ci->g.d[0] + 1 + ci->g.pb[0] + ci->g.in[0];
    if (2 * need_w * need_h * es > cap) ci->wide = false; /* generous estimate of the plane */
  }
  if (!ci->pointwise && !ci->direct && cap >= 0 && ci->Cg * ci->KP * g->out[r - 1] * es > cap) ci->direct = true;
  if (ci->wide) {
    /* depthwise: zero-padded input plane, outputs computed on rows of WW >= OW columns so
       that each kernel tap is one contiguous loop: yw[j] += w * plane[SW * j + tap offset] */
    for (int i = 0; i < 2; i++) {
      int d = i - (2 - r);
      bool real = d >= 0;
      ci->v_in[i] = real ? g->in[d] : 1;
      ci->v_k[i] = real ? g->k[d] : 1;
      ci->v_s[i] = real ? g->s[d] : 1;
      ci->v_d[i] = real ? g->d[d] : 1;
      ci->v_p[i] = real ? g->pb[d] : 0;
      ci->v_out[i] = real ? g->out[d] : 1;
    }
    int64_t need_w = (ci->v_out[1] - 1) * ci->v_s[1] + (ci->v_k[1] - 1) * ci->v_d[1] + 1;
    if (need_w < ci->v_p[1] + ci->v_in[1]) need_w = ci->v_p[1] + ci->v_in[1];
    ci->PW = (need_w + ci->v_s[1] - 1) / ci->v_s[1] * ci->v_s[1];
    ci->WW = ci->v_s[0] * ci->PW / ci->v_s[1];
    int64_t need_h = (ci->v_out[0] - 1) * ci->v_s[0] + (ci->v_k[0] - 1) * ci->v_d[0] + ci->v_s[0] + 1;
    ci->PH = need_h > ci->v_p[0] + ci->v_in[0] ? need_h : ci->v_p[0] + ci->v_in[0];
  }
  int64_t per_row = ci->Cg * ci->KP * g->out[r - 1];
  ci->TR = TILE_ELEMS / (per_row ? per_row : 1);
  if (n->scratch_cap >= 0 && per_row && ci->TR * per_row * (int64_t)dtype_size(n->inputs[0]->dtype) > n->scratch_cap)
    ci->TR = n->scratch_cap / (per_row * (int64_t)dtype_size(n->inputs[0]->dtype));
  if (ci->TR < 1) ci->TR = 1;
  if (ci->TR > ci->ROWS) ci->TR = ci->ROWS;
}

static void conv_infer(Ctx *ctx, Node *n) {
  ConvInfo ci;
  conv_info(ctx, n, &ci);
  int64_t dims[ONNXC_MAX_RANK];
  dims[0] = ci.N;
  dims[1] = ci.M;
  for (int i = 0; i < ci.g.r; i++) dims[i + 2] = ci.g.out[i];
  value_set_shape(n->outputs[0], n->inputs[0]->dtype, ci.g.r + 2, dims);
}

/* Scratch of a 1x1 Conv with a fused channel scale (optimize.c fuse_channel_scale): its packed
   weights with the columns scaled; 0 where the plan leaves too little room (onnxc_sgemm_cs then
   scales one panel at a time on the stack). */
static int64_t scaled_w_bytes(const Node *n, const ConvInfo *ci) {
  int64_t b = ci->Mp * ci->Cg * 4;
  return n->fuse_scale && (n->scratch_cap < 0 || b <= n->scratch_cap) ? b : 0;
}

static int64_t conv_scratch(Ctx *ctx, Node *n) {
  ConvInfo ci;
  conv_info(ctx, n, &ci);
  if (!is_native(n->inputs[0]->dtype)) return 0;
  if (ci.pointwise) return ci.fast ? scaled_w_bytes(n, &ci) : 0;
  if (ci.dw || ci.same) return 0;
  if (ci.convt) return ci.ctT * ci.ctF * 4;
  if (ci.wino) return wino_scratch_par(ci.wa, ci.TB, ci.Cg, ci.MB, ci.WT);
  if (ci.fast) return ci.direct ? 0 : ci.i2T > 1 ? ci.i2T * ci.i2F * 4 : ci.KB * ci.TR * ci.g.out[ci.g.r - 1] * 4;
  if (ci.wide) return (ci.PH * ci.PW + ci.v_out[0] * ci.WW) * (int64_t)dtype_size(n->inputs[0]->dtype);
  if (ci.direct) return 0;
  return ci.Cg * ci.KP * ci.TR * ci.g.out[ci.g.r - 1] * (int64_t)dtype_size(n->inputs[0]->dtype);
}

/* Emits the lo/hi range of the innermost output coordinate for which ow*S + off is inside
   [0, IW), with off = k*D - P of the current tap (k in variable kvar). */
static void emit_row_range(Emit *e, const Geo *g, const char *kvar) {
  int l = g->r - 1;
  ep(e, "const %s off = %s * %lld - %lld;", IT, kvar, LL(g->d[l]), LL(g->pb[l]));
  ep(e, "%s lo = off >= 0 ? 0 : (%lld - off) / %lld;", IT, LL(g->s[l] - 1), LL(g->s[l]));
  ep(e, "%s hi = (%lld - off) / %lld;", IT, LL(g->in[l] + g->s[l] - 1), LL(g->s[l]));
  ep(e, "if (lo > %lld) lo = %lld;", LL(g->out[l]), LL(g->out[l]));
  ep(e, "if (hi > %lld) hi = %lld;", LL(g->out[l]), LL(g->out[l]));
  ep(e, "if (hi < lo) hi = lo;");
}

/* Emits, inside a loop over output row r, the outer output coords o<d> and input coords i<d>
   (tap k<d>) and `continue` when an input coord is outside; sets `xo` = input row offset. */
static void emit_outer_coords(Emit *e, const Geo *g) {
  int r = g->r;
  int64_t istride = g->in[r - 1];
  ep(e, "%s xo = 0;", IT);
  for (int d = r - 2; d >= 0; d--) {
    int64_t below = prod(g->out + d + 1, r - 2 - d);
    const char *od = below > 1 ? fmt(e, "(rr / %lld)", LL(below)) : "rr";
    if (d > 0) od = fmt(e, "%s %% %lld", od, LL(g->out[d]));
    ep(e, "const %s i%d = (%s) * %lld + k%d * %lld - %lld;", IT, d, od, LL(g->s[d]), d, LL(g->d[d]), LL(g->pb[d]));
    ep(e, "if (i%d < 0 || i%d >= %lld) continue;", d, d, LL(g->in[d]));
    ep(e, "xo += i%d * %lld;", d, LL(istride));
    istride *= g->in[d];
  }
}

static void emit_kernel_loops(Emit *e, const Geo *g) {
  for (int d = 0; d < g->r; d++) {
    char v[16];
    snprintf(v, sizeof v, "k%d", d);
    loop(e, v, g->k[d]);
  }
}

static const char *kernel_index(Emit *e, const Geo *g) {
  const char *s = "k0";
  for (int d = 1; d < g->r; d++) s = fmt(e, "(%s) * %lld + k%d", s, LL(g->k[d]), d);
  return s;
}

/* Y[nb] = bias per output channel (or 0) */
static void emit_bias_init(Emit *e, const Node *n, const ConvInfo *ci, const char *T) {
  loop(e, "oc", ci->M);
  ep(e, "const %s bv = %s;", T, node_in(n, 2) ? "X2[oc]" : "0");
  ep(e, "%s *yp = Y0 + (nb * %lld + oc) * %lld;", T, LL(ci->M), LL(ci->OHW));
  ep(e, "for (%s j = 0; j < %lld; j++) yp[j] = bv;", IT, LL(ci->OHW));
  ep(e, "}");
}

/* float16/bfloat16: one output element at a time, loading every operand. */
static void conv_emit_generic(Emit *e, Node *n, const ConvInfo *ci) {
  const Geo *g = &ci->g;
  int dt = n->inputs[0]->dtype, r = g->r;
  const char *CT = ct_of(dt);
  loop(e, "nb", ci->N);
  loop(e, "oc", ci->M);
  ep(e, "const %s cb = (oc / %lld) * %lld;", IT, LL(ci->Mg), LL(ci->Cg));
  ep(e, "%s yo = (nb * %lld + oc) * %lld;", IT, LL(ci->M), LL(ci->OHW));
  for (int d = 0; d < r; d++) {
    char v[16];
    snprintf(v, sizeof v, "o%d", d);
    loop(e, v, g->out[d]);
  }
  ep(e, "%s acc = %s;", CT, node_in(n, 2) ? c_load(e, dt, "X2[oc]") : "0");
  loop(e, "c", ci->Cg);
  emit_kernel_loops(e, g);
  ep(e, "%s xi = (nb * %lld + cb + c) * %lld;", IT, LL(ci->C), LL(ci->IHW));
  int64_t st = 1;
  for (int d = r - 1; d >= 0; d--) {
    ep(e, "const %s i%d = o%d * %lld + k%d * %lld - %lld;", IT, d, d, LL(g->s[d]), d, LL(g->d[d]), LL(g->pb[d]));
    ep(e, "if (i%d < 0 || i%d >= %lld) continue;", d, d, LL(g->in[d]));
    ep(e, "xi += i%d * %lld;", d, LL(st));
    st *= g->in[d];
  }
  ep(e, "acc += %s * %s;", c_load(e, dt, "X0[xi]"),
     c_load(e, dt, fmt(e, "X1[(oc * %lld + c) * %lld + %s]", LL(ci->Cg), LL(ci->KP), kernel_index(e, g))));
  for (int d = 0; d <= r; d++) ep(e, "}");
  ep(e, "Y0[yo++] = %s;", c_store(e, dt, "acc"));
  for (int d = 0; d < r; d++) ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ---- fused epilogues (optimize.c) --------------------------------------------------------- */

/* The onnxc_epi initializer of n's fused epilogue: bias (per row or column), addend, act. */
static const char *epi_init(Emit *e, const Node *n, const char *bias, bool bias_cols, const char *res, int64_t ldr) {
  return fmt(e, "{%s, %d, %s, %lld, %d, %s, %s, %s, (float *)0}", bias ? bias : "(const float *)0", bias_cols ? 1 : 0,
             res ? res : "(const float *)0", LL(ldr), n->fuse_act, c_lit(e, DT_FLOAT, n->fuse_alpha),
             c_lit(e, DT_FLOAT, n->fuse_beta), emit_pf_fields(e));
}

bool par_pays(const Ctx *ctx, double w) { return ctx->threads > 1 && w >= ctx->par_min; }

/* The opening of a call of kernel fn: "fn(", or with --threads N its task-split form from
   templates/par.h, "fn_par(N, ". */
static const char *kcall(Emit *e, const char *fn) {
  if (e->ctx->threads <= 1) return fmt(e, "%s(", fn);
  emit_use_template(e, "par");
  return fmt(e, "%s_par(%d, ", fn, e->ctx->threads);
}

/* Applies n's fused addend and activation to the whole output after a kernel without them. */
static void emit_post_epilogue(Emit *e, const Node *n) {
  if (!n->fuse_add && !n->fuse_act) return;
  Value *y = n->outputs[0];
  int64_t cnt = value_numel(y), N = y->rank ? y->dims[y->rank - 1] : 1;
  Value *a = n->fuse_add ? n->inputs[n->fuse_add] : NULL;
  bool col = a && value_numel(a) != cnt;
  emit_use_template(e, "gemm");
  ep(e, "for (%s i = 0; i < %lld; i += %lld) onnxc_epi_row(Y0 + i, %lld, 0.0f, %s, %s, %d, %s, %s);", IT, LL(cnt), LL(N), LL(N),
     col ? fmt(e, "X%d", n->fuse_add) : "(const float *)0", a && !col ? fmt(e, "X%d + i", n->fuse_add) : "(const float *)0",
     n->fuse_act, c_lit(e, DT_FLOAT, n->fuse_alpha), c_lit(e, DT_FLOAT, n->fuse_beta));
}

/* The unfolding loops of im2col blocks of 3-D convolutions: rows kb..kb+kc of col (jn columns: output
   rows r0..r0+rn) from the group's input xg. */
static void emit_im2col_rows(Emit *e, const Geo *g, int64_t KP, int64_t IHW, int64_t OW) {
  int r = g->r, l = r - 1;
  ep(e, "for (%s kk = 0; kk < kc; kk++) {", IT);
  ep(e, "const %s kx = kb + kk, c = kx / %lld;", IT, LL(KP));
  ep(e, "%s t = kx - c * %lld;", IT, LL(KP));
  for (int d = r - 1; d >= 0; d--) {
    if (d > 0) {
      ep(e, "const %s k%d = t %% %lld;", IT, d, LL(g->k[d]));
      ep(e, "t /= %lld;", LL(g->k[d]));
    } else {
      ep(e, "const %s k0 = t;", IT);
    }
  }
  ep(e, "const float *xc = xg + c * %lld;", LL(IHW));
  ep(e, "float *cp = col + kk * jn;");
  emit_row_range(e, g, fmt(e, "k%d", l));
  ep(e, "for (%s rr = r0; rr < r0 + rn; rr++) {", IT);
  ep(e, "float *restrict cr = cp;");
  ep(e, "%s ow = 0;", IT);
  ep(e, "cp += %lld;", LL(OW));
  ep(e, "do {");
  emit_outer_coords(e, g);
  ep(e, "const float *restrict xr = xc + xo;");
  ep(e, "for (; ow < lo; ow++) cr[ow] = 0;");
  if (g->s[l] == 1) ep(e, "for (; ow < hi; ow++) cr[ow] = xr[ow + off];");
  else if (g->s[l] == 2 && OW >= 16) { /* narrower rows: the plain loop costs less than the call */
    ep(e, "onnxc_gather_s2(cr + ow, xr + ow * 2 + off, hi - ow);");
    ep(e, "ow = hi;");
  } else ep(e, "for (; ow < hi; ow++) cr[ow] = xr[ow * %lld + off];", LL(g->s[l]));
  ep(e, "} while (0);");
  ep(e, "for (; ow < %lld; ow++) cr[ow] = 0;", LL(OW));
  ep(e, "}");
  ep(e, "}");
}

/* float32 with packed weights: 1x1 convolutions are one GEMM per group on the input; others
   unfold blocks of KB (k) rows by TR output rows into scratch and multiply each block into the
   output (the first block writes, later ones add, the last runs the epilogue). */
static void conv_emit_fast(Emit *e, Node *n, const ConvInfo *ci) {
  const Geo *g = &ci->g;
  int r = g->r, l = r - 1;
  int64_t OW = g->out[l], K = ci->Cg * ci->KP;
  emit_use_template(e, "gemm");
  /* 2-D geometry (1-D as H = 1) for the conv.h kernels */
  int64_t H = r == 2 ? g->in[0] : 1, KH = r == 2 ? g->k[0] : 1, SH = r == 2 ? g->s[0] : 1, PH = r == 2 ? g->pb[0] : 0;
  int64_t DH = r == 2 ? g->d[0] : 1, OH = r == 2 ? g->out[0] : 1;
  if (ci->dw) { /* all channels at once: one input plane per group, Mg outputs each */
    /* a second output: the planes' means (a GlobalAveragePool fused by optimize.c) */
    const bool means = n->n_outputs > 1 && n->outputs[1];
    emit_use_template(e, "conv");
    loop(e, "nb", ci->N);
    ep(e, "%sonnxc_epi ep = %s;", means ? "" : "const ", epi_init(e, n, node_in(n, 2) ? "X2" : NULL, false,
                                                n->fuse_add ? fmt(e, "X%d + nb * %lld", n->fuse_add, LL(ci->M * ci->OHW)) : NULL, ci->OHW));
    if (means) {
      ep(e, "ep.sum = Y1 + nb * %lld;", LL(ci->M));
      ep(e, "for (%s i = 0; i < %lld; i++) ep.sum[i] = 0.0f;", IT, LL(ci->M));
    }
    ep(e, "%s%lld, %lld, X0 + nb * %lld, %lld, %lld, X1, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, Y0 + nb * %lld, %lld, %lld, &ep);",
       kcall(e, "onnxc_dw2d"), LL(ci->M), LL(ci->Mg), LL(ci->C * ci->IHW), LL(H), LL(g->in[l]), LL(KH), LL(g->k[l]), LL(SH), LL(g->s[l]), LL(PH),
       LL(g->pb[l]), LL(DH), LL(g->d[l]), LL(ci->M * ci->OHW), LL(OH), LL(OW));
    if (means) ep(e, "for (%s i = 0; i < %lld; i++) ep.sum[i] /= %s;", IT, LL(ci->M), c_lit(e, DT_FLOAT, (double)ci->OHW));
    ep(e, "}");
    return;
  }
  if (n->w_layout == W_GEMV) { /* 1x1 planes: y = W x per batch element, W^T in GEMV strips */
    loop(e, "nb", ci->N);
    ep(e, "const onnxc_epi ep = %s;", epi_init(e, n, node_in(n, 2) ? "X2" : NULL, true,
                                                n->fuse_add ? fmt(e, "X%d + nb * %lld", n->fuse_add, LL(ci->M)) : NULL, ci->M));
    ep(e, "%s%lld, %lld, X0 + nb * %lld, 1, X1, Y0 + nb * %lld, &ep);", kcall(e, "onnxc_sgemv_p"), LL(ci->M), LL(ci->C), LL(ci->C), LL(ci->M));
    ep(e, "}");
    return;
  }
  loop(e, "nb", ci->N);
  loop(e, "gi", ci->G);
  ep(e, "const float *xg = X0 + (nb * %lld + gi * %lld) * %lld;", LL(ci->C), LL(ci->Cg), LL(ci->IHW));
  ep(e, "const float *wg = X1 + gi * %lld;", LL(ci->Mp * (ci->wino ? ci->wa * ci->wa * ci->Cg : K)));
  ep(e, "float *yg = Y0 + (nb * %lld + gi * %lld) * %lld;", LL(ci->M), LL(ci->Mg), LL(ci->OHW));
  const char *res = n->fuse_add ? fmt(e, "X%d + (nb * %lld + gi * %lld) * %lld", n->fuse_add, LL(ci->M), LL(ci->Mg), LL(ci->OHW)) : NULL;
  const char *bias = node_in(n, 2) ? fmt(e, "X2 + gi * %lld", LL(ci->Mg)) : NULL;
  if (ci->pointwise && n->w_layout == W_TPANELS) { /* one group, output channels in lanes */
    ep(e, "const onnxc_epi ep = %s;", epi_init(e, n, bias, false, res, ci->OHW));
    ep(e, "%s%lld, %lld, %lld, wg, xg, %lld, yg, %lld, &ep);", kcall(e, "onnxc_sgemm_t"), LL(ci->Mg), LL(ci->OHW), LL(K), LL(ci->OHW),
       LL(ci->OHW));
  } else if (ci->pointwise && n->fuse_scale) { /* one group: the weights' columns scaled first */
    const Value *sv = n->inputs[n->fuse_scale];
    const char *sp = fmt(e, "X%d + nb * %lld", n->fuse_scale, LL(value_numel(sv) == ci->C ? 0 : ci->C));
    ep(e, "const onnxc_epi ep = %s;", epi_init(e, n, bias, false, res, ci->OHW));
    if (scaled_w_bytes(n, ci)) {
      ep(e, "onnxc_scale_cols(%lld, %lld, wg, %s, (float *)W);", LL(ci->Mg), LL(K), sp);
      ep(e, "%s%lld, %lld, %lld, (const float *)W, 8, xg, %lld, yg, %lld, &ep);", kcall(e, "onnxc_sgemm"), LL(ci->Mg), LL(ci->OHW),
         LL(K), LL(ci->OHW), LL(ci->OHW));
    } else {
      ep(e, "onnxc_sgemm_cs(%lld, %lld, %lld, wg, %s, xg, %lld, yg, %lld, &ep);", LL(ci->Mg), LL(ci->OHW), LL(K), sp, LL(ci->OHW),
         LL(ci->OHW));
    }
  } else if (ci->pointwise) {
    ep(e, "const onnxc_epi ep = %s;", epi_init(e, n, bias, false, res, ci->OHW));
    ep(e, "%s%lld, %lld, %lld, wg, 8, xg, %lld, yg, %lld, &ep);", kcall(e, "onnxc_sgemm"), LL(ci->Mg), LL(ci->OHW), LL(K), LL(ci->OHW), LL(ci->OHW));
  } else if (ci->wino) {
    /* output planned over the residual (inplace_in): the kernel adds what it finds there */
    const Value *out = n->outputs[0];
    int acc = n->fuse_add && out->alias_of == n->inputs[n->fuse_add] && out->alias_kind == ALIAS_INPLACE;
    emit_use_template(e, "conv");
    ep(e, "const onnxc_epi ep = %s;", epi_init(e, n, bias, false, acc ? NULL : res, ci->OHW));
    if (ci->TB > 0 && ci->WT > 1) {
      emit_use_template(e, "par");
      const char *shape = fmt(e, "%d, %lld, %lld, %lld, %lld", ci->wa, LL(ci->Mg), LL(ci->Cg), LL(g->in[0]), LL(g->in[1]));
      const char *blocks = fmt(e, "%lld, %lld, %d, %d", LL(ci->TB), LL(ci->MB), acc, ci->wbych ? 1 : 0);
      const char *task = emit_par_task(e, NULL, "onnxc_wino_task_k", "onnxc_wino_job", fmt(e, "%s, %s", shape, blocks));
      ep(e, "onnxc_wino_par(%s, %lld, %s, xg, wg, yg, &ep, (float *)W, %s);", task, LL(ci->WT), shape, blocks);
    } else if (ci->TB > 0)
      ep(e, "onnxc_wino%s(%lld, %lld, %lld, %lld, xg, wg, yg, &ep, (float *)W, %lld%s, %d);", ci->wa == 6 ? "43" : "23",
         LL(ci->Mg), LL(ci->Cg), LL(g->in[0]), LL(g->in[1]), LL(ci->TB), ci->wa == 6 ? fmt(e, ", %lld", LL(ci->MB)) : "", acc);
    else
      ep(e, "onnxc_wino_direct(%lld, %lld, %lld, %lld, xg, wg, %d, yg, &ep, %d);", LL(ci->Mg), LL(ci->Cg), LL(g->in[0]),
         LL(g->in[1]), ci->wa, acc);
  } else if (ci->convt) {
    emit_use_template(e, "conv");
    ep(e, "const onnxc_epi ep = %s;", epi_init(e, n, bias, false, res, ci->OHW));
    const char *shape = fmt(e, "%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld", LL(ci->Mg), LL(ci->Cg),
                            LL(H), LL(g->in[l]), LL(KH), LL(g->k[l]), LL(SH), LL(g->s[l]), LL(DH), LL(g->d[l]), LL(PH), LL(g->pb[l]),
                            LL(OH), LL(OW));
    const char *par = "";
    if (ci->ctT > 1) {
      emit_use_template(e, "par");
      par = fmt(e, "%s, %lld, ", emit_par_task(e, NULL, "onnxc_ct_task_k", "onnxc_ct_job", fmt(e, "%s, %lld", shape, LL(ci->ctF))),
                LL(ci->ctT));
    }
    ep(e, "onnxc_conv_t%s(%s%s, xg, wg, yg, &ep, %s, %lld);", ci->ctT > 1 ? "_par" : "", par, shape,
       ci->ctF ? "(float *)W" : "(float *)0", LL(ci->ctF));
  } else if (ci->same) {
    emit_use_template(e, "conv");
    ep(e, "const onnxc_epi ep = %s;", epi_init(e, n, bias, false, res, ci->OHW));
    const char *shape = fmt(e, "%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld", LL(ci->Mg), LL(ci->Cg), LL(H),
                            LL(g->in[l]), LL(KH), LL(g->k[l]), LL(DH), LL(g->d[l]), LL(PH), LL(g->pb[l]));
    if (ci->same_par) {
      emit_use_template(e, "par");
      ep(e, "onnxc_conv_same_par(%s, %d, %s, xg, wg, yg, &ep);",
         emit_par_task(e, NULL, "onnxc_same_task_k", "onnxc_same_job", shape), e->ctx->threads, shape);
    } else
      ep(e, "onnxc_conv_same(%s, xg, wg, yg, &ep);", shape);
  } else {
    if (ci->sc) {
      emit_use_template(e, "conv");
      ep(e, "#if defined(ONNXC_AVX512) || defined(ONNXC_AVX2)");
      ep(e, "{");
      ep(e, "const onnxc_epi ep = %s;", epi_init(e, n, bias, false, res, ci->OHW));
      if (ci->direct) ep(e, "float scb_[%d];", STACK_TILE);
      if (ci->scT > 1) {
        emit_use_template(e, "par");
        const char *shape = fmt(e, "%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld", LL(ci->Mg), LL(ci->Cg), LL(H),
                                LL(g->in[l]), LL(KH), LL(g->k[l]), LL(g->s[l]), LL(PH), LL(g->pb[l]), LL(OH), LL(OW));
        const char *band = fmt(e, "%lld, %lld", LL(ci->scR), LL(ci->scBF));
        const char *task = emit_par_task(e, "defined(ONNXC_AVX512) || defined(ONNXC_AVX2)", "onnxc_sc_task_k", "onnxc_sc_job", fmt(e, "%s, %s", shape, band));
        ep(e, "onnxc_conv_sc_par(%s, %lld, %s, xg, wg, yg, &ep, (float *)W, %s);", task, LL(ci->scT), shape, band);
      } else
      ep(e, "onnxc_conv_sc(%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, xg, wg, yg, &ep, %s, %lld);",
         LL(ci->Mg), LL(ci->Cg), LL(H), LL(g->in[l]), LL(KH), LL(g->k[l]), LL(g->s[l]), LL(PH), LL(g->pb[l]), LL(OH), LL(OW),
         ci->direct ? "scb_" : "(float *)W", LL(ci->scR));
      ep(e, "}");
      ep(e, "#else");
    }
    if (ci->i2T > 1) { /* --threads: the same loops in parts (templates/par.h) */
      emit_use_template(e, "conv");
      emit_use_template(e, "par");
      ep(e, "const onnxc_epi ep = %s;", epi_init(e, n, bias, false, res, ci->OHW));
      const char *shape = fmt(e, "%d, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld",
                              ci->i2ch ? 1 : 0, LL(ci->Mg), LL(K), LL(ci->KB), LL(H), LL(g->in[l]), LL(KH), LL(g->k[l]), LL(SH),
                              LL(g->s[l]), LL(DH), LL(g->d[l]), LL(PH), LL(g->pb[l]), LL(ci->ROWS), LL(OW));
      const char *tiles = fmt(e, "%lld, %lld", LL(ci->i2F), LL(ci->i2TR));
      const char *task = emit_par_task(e, NULL, "onnxc_i2c_task_k", "onnxc_i2c_job", fmt(e, "%s, %s", shape, tiles));
      ep(e, "onnxc_conv_i2c_par(%s, %lld, %s, xg, wg, yg, &ep, (float *)W, %s);", task, LL(ci->i2T), shape, tiles);
      if (ci->sc) ep(e, "#endif");
      ep(e, "}");
      ep(e, "}");
      return;
    }
    if (ci->direct) { /* the stack tile (conv_emit) */
      ep(e, "float col_[%lld];", LL(ci->KB * ci->TR * OW));
      ep(e, "float *col = col_;");
    } else {
      ep(e, "float *col = (float *)W;");
    }
    ep(e, "for (%s r0 = 0; r0 < %lld; r0 += %lld) {", IT, LL(ci->ROWS), LL(ci->TR));
    ep(e, "const %s rn = %lld - r0 < %lld ? %lld - r0 : %lld;", IT, LL(ci->ROWS), LL(ci->TR), LL(ci->ROWS), LL(ci->TR));
    ep(e, "const %s jn = rn * %lld;", IT, LL(OW));
    ep(e, "const onnxc_epi ep = %s;", epi_init(e, n, bias, false, res ? fmt(e, "%s + r0 * %lld", res, LL(OW)) : NULL, ci->OHW));
    ep(e, "for (%s kb = 0; kb < %lld; kb += %lld) {", IT, LL(K), LL(ci->KB));
    ep(e, "const %s kc = %lld - kb < %lld ? %lld - kb : %lld;", IT, LL(K), LL(ci->KB), LL(K), LL(ci->KB));
    if (r <= 2) { /* 1-D (as H = 1) and 2-D: conv.h's unfolding (vector rows for strides 1 and 2) */
      emit_use_template(e, "conv");
      ep(e, "onnxc_im2col2d(xg, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, r0, rn, kb, kc, col);",
         LL(H), LL(g->in[l]), LL(KH), LL(g->k[l]), LL(SH), LL(g->s[l]), LL(DH), LL(g->d[l]), LL(PH), LL(g->pb[l]), LL(OW));
    } else {
      emit_im2col_rows(e, g, ci->KP, ci->IHW, OW);
    }
    /* the packed block holding kb..kb+kc (KB divides GEMM_KB) */
    ep(e, "const %s b0 = kb / %d * %d, bl = %lld - b0 < %d ? %lld - b0 : %d;", IT, GEMM_KB, GEMM_KB, LL(K), GEMM_KB, LL(K), GEMM_KB);
    ep(e, "onnxc_gemm_blk(%lld, jn, kc, wg + b0 * %lld + (kb - b0) * 8, 8 * bl, col, jn, yg + r0 * %lld, %lld, kb > 0, kb + kc >= %lld ? &ep : (const onnxc_epi *)0);",
       LL(ci->Mg), LL(ci->Mp), LL(OW), LL(ci->OHW), LL(K));
    ep(e, "}");
    ep(e, "}");
    if (ci->sc) ep(e, "#endif");
  }
  ep(e, "}");
  ep(e, "}");
}

static void conv_emit(Emit *e, Node *n) {
  ConvInfo ci;
  conv_info(e->ctx, n, &ci);
  int dt = n->inputs[0]->dtype;
  set_it(n, conv_scratch(e->ctx, n));
  if (!is_native(dt)) {
    conv_emit_generic(e, n, &ci);
    return;
  }
  if ((ci.fast && !ci.direct) || ci.dw) {
    conv_emit_fast(e, n, &ci);
    return;
  }
  bool stack = ci.fast && ci.direct && ci.sKB > 0;
  if (stack) { /* SIMD targets: im2col + GEMM on a stack tile; others: the direct loops below */
    ConvInfo cs = ci;
    cs.KB = ci.sKB;
    cs.TR = ci.sTR;
    ep(e, "#if defined(ONNXC_AVX512) || defined(ONNXC_AVX2) || defined(ONNXC_NEON)");
    conv_emit_fast(e, n, &cs);
    ep(e, "#else");
  }
  const Geo *g = &ci.g;
  int r = g->r, l = r - 1;
  const char *T = c_type(dt);
  int64_t OW = g->out[l], KK = ci.Cg * ci.KP;
  loop(e, "nb", ci.N);
  emit_bias_init(e, n, &ci, T); /* every form below accumulates */
  loop(e, "gi", ci.G);
  ep(e, "const %s *xg = X0 + (nb * %lld + gi * %lld) * %lld;", T, LL(ci.C), LL(ci.Cg), LL(ci.IHW));
  ep(e, "const %s *wg = X1 + gi * %lld;", T, LL((ci.fast ? ci.Mp : ci.Mg) * KK));
  ep(e, "%s *yg = Y0 + (nb * %lld + gi * %lld) * %lld;", T, LL(ci.M), LL(ci.Mg), LL(ci.OHW));
  if (ci.pointwise && !ci.fast) {
    GemmNN gm = {T, "wg", "xg", "yg", fmt(e, "%lld", LL(ci.IHW)), fmt(e, "%lld", LL(ci.OHW)), NULL, KK, 1, ci.OHW, ci.Mg, KK};
    emit_gemm_nn(e, &gm);
  } else if (ci.wide) {
    int64_t OH = ci.v_out[0], WO = ci.v_out[1], SW = ci.v_s[1];
    ep(e, "%s *plane = (%s *)W, *yw = plane + %lld;", T, T, LL(ci.PH * ci.PW));
    ep(e, "if (gi == 0) for (%s j = 0; j < %lld; j++) plane[j] = 0;", IT, LL(ci.PH * ci.PW));
    ep(e, "for (%s ih = 0; ih < %lld; ih++) {", IT, LL(ci.v_in[0]));
    ep(e, "for (%s iw = 0; iw < %lld; iw++) plane[(ih + %lld) * %lld + %lld + iw] = xg[ih * %lld + iw];", IT,
       LL(ci.v_in[1]), LL(ci.v_p[0]), LL(ci.PW), LL(ci.v_p[1]), LL(ci.v_in[1]));
    ep(e, "}");
    loop(e, "m", ci.Mg);
    ep(e, "const %s *wm = wg + m * %lld;", T, LL(ci.KP));
    ep(e, "%s *ym = yg + m * %lld;", T, LL(ci.OHW));
    ep(e, "for (%s j = 0; j < %lld; j++) yw[j] = 0;", IT, LL(OH * ci.WW));
    loop(e, "kh", ci.v_k[0]);
    loop(e, "kw", ci.v_k[1]);
    ep(e, "const %s wv = wm[kh * %lld + kw];", T, LL(ci.v_k[1]));
    ep(e, "const %s *restrict pp = plane + kh * %lld + kw * %lld;", T, LL(ci.v_d[0] * ci.PW), LL(ci.v_d[1]));
    if (SW == 1) ep(e, "for (%s j = 0; j < %lld; j++) yw[j] += wv * pp[j];", IT, LL(OH * ci.WW));
    else ep(e, "for (%s j = 0; j < %lld; j++) yw[j] += wv * pp[j * %lld];", IT, LL(OH * ci.WW), LL(SW));
    ep(e, "}");
    ep(e, "}");
    ep(e, "for (%s oh = 0; oh < %lld; oh++) {", IT, LL(OH));
    ep(e, "for (%s ow = 0; ow < %lld; ow++) ym[oh * %lld + ow] += yw[oh * %lld + ow];", IT, LL(WO), LL(WO), LL(ci.WW));
    ep(e, "}");
    ep(e, "}");
  } else if (ci.direct) {
    /* accumulate whole output rows per input channel and kernel tap (no scratch) */
    loop(e, "m", ci.Mg);
    loop(e, "c", ci.Cg);
    if (!ci.fast) ep(e, "const %s *wm = wg + (m * %lld + c) * %lld;", T, LL(ci.Cg), LL(ci.KP));
    ep(e, "const %s *xc = xg + c * %lld;", T, LL(ci.IHW));
    ep(e, "%s *ym = yg + m * %lld;", T, LL(ci.OHW));
    emit_kernel_loops(e, g);
    if (ci.fast) { /* packed (onnxc_pack_a layout) */
      ep(e, "const %s kx = c * %lld + %s, b0 = kx / %d * %d, bl = %lld - b0 < %d ? %lld - b0 : %d;", IT, LL(ci.KP),
         kernel_index(e, g), GEMM_KB, GEMM_KB, LL(KK), GEMM_KB, LL(KK), GEMM_KB);
      ep(e, "const %s wv = wg[b0 * %lld + (m / 8) * 8 * bl + (kx - b0) * 8 + m %% 8];", T, LL(ci.Mp));
    } else {
      ep(e, "const %s wv = wm[%s];", T, kernel_index(e, g));
    }
    emit_row_range(e, g, fmt(e, "k%d", l));
    ep(e, "for (%s rr = 0; rr < %lld; rr++) {", IT, LL(ci.ROWS));
    emit_outer_coords(e, g);
    ep(e, "const %s *restrict xr = xc + xo;", T);
    ep(e, "%s *restrict yr = ym + rr * %lld;", T, LL(OW));
    if (g->s[l] == 1) ep(e, "for (%s ow = lo; ow < hi; ow++) yr[ow] += wv * xr[ow + off];", IT);
    else ep(e, "for (%s ow = lo; ow < hi; ow++) yr[ow] += wv * xr[ow * %lld + off];", IT, LL(g->s[l]));
    ep(e, "}");
    for (int d = 0; d < r; d++) ep(e, "}");
    ep(e, "}");
    ep(e, "}");
  } else {
    /* im2col of TR output rows, then GEMM into those rows */
    ep(e, "%s *col = (%s *)W;", T, T);
    ep(e, "for (%s r0 = 0; r0 < %lld; r0 += %lld) {", IT, LL(ci.ROWS), LL(ci.TR));
    ep(e, "const %s rn = %lld - r0 < %lld ? %lld - r0 : %lld;", IT, LL(ci.ROWS), LL(ci.TR), LL(ci.ROWS), LL(ci.TR));
    ep(e, "const %s jn = rn * %lld;", IT, LL(OW));
    ep(e, "%s *cp = col;", T);
    loop(e, "c", ci.Cg);
    ep(e, "const %s *xc = xg + c * %lld;", T, LL(ci.IHW));
    emit_kernel_loops(e, g);
    emit_row_range(e, g, fmt(e, "k%d", l));
    ep(e, "for (%s rr = r0; rr < r0 + rn; rr++) {", IT);
    ep(e, "%s *restrict cr = cp;", T);
    ep(e, "cp += %lld;", LL(OW));
    /* a row whose input row lies in the padding stays zero (emit_outer_coords' continue) */
    ep(e, "%s ow = 0;", IT);
    ep(e, "(void)rr;");
    ep(e, "do {");
    emit_outer_coords(e, g);
    ep(e, "const %s *restrict xr = xc + xo;", T);
    ep(e, "for (; ow < lo; ow++) cr[ow] = 0;");
    if (g->s[l] == 1) ep(e, "for (; ow < hi; ow++) cr[ow] = xr[ow + off];");
    else ep(e, "for (; ow < hi; ow++) cr[ow] = xr[ow * %lld + off];", LL(g->s[l]));
    ep(e, "} while (0);");
    ep(e, "for (; ow < %lld; ow++) cr[ow] = 0;", LL(OW));
    ep(e, "}");
    for (int d = 0; d < r; d++) ep(e, "}");
    ep(e, "}");
    if (dt == DT_FLOAT) {
      /* run-time float weights (training): the tile is computed once over all of K, so the
         template GEMM (A packed on the stack) writes it, adding the bias itself */
      emit_use_template(e, "gemm");
      ep(e, "const onnxc_epi be = {%s, 0, 0, 0, 0, 0.0f, 0.0f, 0, 0, 0};", node_in(n, 2) ? fmt(e, "X2 + gi * %lld", LL(ci.Mg)) : "0");
      ep(e, "onnxc_sgemm_a(%lld, jn, %lld, wg, %lld, 1, col, jn, yg + r0 * %lld, %lld, &be);", LL(ci.Mg), LL(KK), LL(KK),
         LL(OW), LL(ci.OHW));
    } else {
      GemmNN gm = {T, "wg", "col", fmt(e, "yg + r0 * %lld", LL(OW)), "jn", "jn", NULL, KK, 1, ci.OHW, ci.Mg, KK};
      emit_gemm_nn(e, &gm);
    }
    ep(e, "}");
  }
  ep(e, "}");
  ep(e, "}");
  emit_post_epilogue(e, n);
  if (stack) ep(e, "#endif");
}

/* ---- ConvTranspose ------------------------------------------------------------------------- */

static void convt_info(Ctx *ctx, const Node *n, ConvInfo *ci) {
  Value *x, *w;
  Geo *g = &ci->g;
  conv_common(ctx, n, ci, &x, &w);
  int r = g->r;
  if (w->dims[0] != ci->C) fail_node(ctx, n, "weight has %lld input channels, expected %lld", LL(w->dims[0]), LL(ci->C));
  ci->Mg = w->dims[1];
  ci->M = ci->Mg * ci->G;
  require_numel(ctx, n, 2, ci->M, "bias");
  spatial_ints(ctx, n, "strides", r, 1, 1, g->s);
  spatial_ints(ctx, n, "dilations", r, 1, 1, g->d);
  int64_t pads[2 * MAXR], opad[MAXR], oshape[MAXR];
  spatial_ints(ctx, n, "pads", 2 * r, 0, 0, pads);
  spatial_ints(ctx, n, "output_padding", r, 0, 0, opad);
  const int64_t *os;
  int nos = attr_ints(n, "output_shape", &os);
  if (nos && nos != r && nos != r + 2) fail_node(ctx, n, "output_shape has %d values, expected %d", nos, r);
  for (int i = 0; i < r; i++) oshape[i] = nos ? os[nos - r + i] : 0;
  const char *ap = attr_s(n, "auto_pad", "NOTSET");
  bool same = !strcmp(ap, "SAME_UPPER") || !strcmp(ap, "SAME_LOWER");
  if (!same && strcmp(ap, "NOTSET") && strcmp(ap, "VALID") && *ap) fail_node(ctx, n, "unknown auto_pad '%s'", ap);
  for (int i = 0; i < r; i++) {
    int64_t ek = (g->k[i] - 1) * g->d[i] + 1, natural = g->s[i] * (g->in[i] - 1) + opad[i] + ek;
    if (nos || same) {
      int64_t out = nos ? oshape[i] : g->in[i] * g->s[i];
      int64_t total = natural - out, half = total >= 0 ? total / 2 : -((-total + 1) / 2); /* floor */
      g->pb[i] = !strcmp(ap, "SAME_UPPER") ? half : total - half;
      g->out[i] = out;
    } else {
      bool valid = !strcmp(ap, "VALID");
      g->pb[i] = valid ? 0 : pads[i];
      g->out[i] = natural - (valid ? 0 : pads[i] + pads[i + r]);
    }
    g->pe[i] = 0;
    if (g->out[i] < 1) fail_node(ctx, n, "empty output in spatial dim %d", i);
  }
  ci->KP = prod(g->k, r);
  ci->IHW = prod(g->in, r);
  ci->OHW = prod(g->out, r);
  ci->ROWS = prod(g->in, r - 1);
}

int convt_begin_pads(Ctx *ctx, const Node *n, int64_t *pb) {
  ConvInfo ci;
  convt_info(ctx, n, &ci);
  for (int i = 0; i < ci.g.r; i++) pb[i] = ci.g.pb[i];
  return ci.g.r;
}

static void convt_infer(Ctx *ctx, Node *n) {
  ConvInfo ci;
  convt_info(ctx, n, &ci);
  int64_t dims[ONNXC_MAX_RANK];
  dims[0] = ci.N;
  dims[1] = ci.M;
  for (int i = 0; i < ci.g.r; i++) dims[i + 2] = ci.g.out[i];
  value_set_shape(n->outputs[0], n->inputs[0]->dtype, ci.g.r + 2, dims);
}

/* Scatter form: for every input row and kernel tap, add w * x-row into the strided output row. */
static void convt_emit(Emit *e, Node *n) {
  ConvInfo ci;
  convt_info(e->ctx, n, &ci);
  set_it(n, 0);
  const Geo *g = &ci.g;
  int dt = n->inputs[0]->dtype, r = g->r, l = r - 1;
  bool nat = is_native(dt);
  const char *T = ct_of(dt);
  if (!nat || e->par) {
    /* gather form, one output element at a time (CUDA: one thread per output element) */
    if (e->par) {
      const char *vars[MAXR + 2];
      int64_t cnt[MAXR + 2];
      vars[0] = "nb";
      cnt[0] = ci.N;
      vars[1] = "oc";
      cnt[1] = ci.M;
      const char *yo = "(nb * %lld + oc)";
      yo = fmt(e, yo, LL(ci.M));
      for (int d = 0; d < r; d++) {
        vars[d + 2] = fmt(e, "o%d", d);
        cnt[d + 2] = g->out[d];
        yo = fmt(e, "(%s) * %lld + o%d", yo, LL(g->out[d]), d);
      }
      emit_par_nest(e, IT, r + 2, vars, cnt);
      ep(e, "const %s gi = oc / %lld, m = oc %% %lld;", IT, LL(ci.Mg), LL(ci.Mg));
      ep(e, "const %s yo = %s;", IT, yo);
    } else {
      loop(e, "nb", ci.N);
      loop(e, "oc", ci.M);
      ep(e, "const %s gi = oc / %lld, m = oc %% %lld;", IT, LL(ci.Mg), LL(ci.Mg));
      ep(e, "%s yo = (nb * %lld + oc) * %lld;", IT, LL(ci.M), LL(ci.OHW));
      for (int d = 0; d < r; d++) loop(e, fmt(e, "o%d", d), g->out[d]);
    }
    ep(e, "%s acc = %s;", T, node_in(n, 2) ? c_load(e, dt, "X2[oc]") : "0");
    loop(e, "c", ci.Cg);
    /* with dilation 1 only the taps k = (o + pad) mod stride, + stride, ... reach output o */
    for (int d = 0; d < r; d++) {
      if (g->d[d] == 1 && g->s[d] > 1)
        ep(e, "for (%s k%d = (o%d + %lld) %% %lld; k%d < %lld; k%d += %lld) {", IT, d, d, LL(g->pb[d]), LL(g->s[d]), d,
           LL(g->k[d]), d, LL(g->s[d]));
      else
        loop(e, fmt(e, "k%d", d), g->k[d]);
    }
    ep(e, "%s xi = (nb * %lld + gi * %lld + c) * %lld;", IT, LL(ci.C), LL(ci.Cg), LL(ci.IHW));
    int64_t st = 1;
    for (int d = r - 1; d >= 0; d--) {
      ep(e, "const %s t%d = o%d + %lld - k%d * %lld;", IT, d, d, LL(g->pb[d]), d, LL(g->d[d]));
      ep(e, "if (t%d < 0 || t%d %% %lld != 0 || t%d / %lld >= %lld) continue;", d, d, LL(g->s[d]), d, LL(g->s[d]), LL(g->in[d]));
      ep(e, "xi += t%d / %lld * %lld;", d, LL(g->s[d]), LL(st));
      st *= g->in[d];
    }
    ep(e, "acc += %s * %s;", c_load(e, dt, "X0[xi]"),
       c_load(e, dt, fmt(e, "X1[((gi * %lld + c) * %lld + m) * %lld + %s]", LL(ci.Cg), LL(ci.Mg), LL(ci.KP), kernel_index(e, g))));
    for (int d = 0; d <= r; d++) ep(e, "}");
    if (e->par) {
      ep(e, "Y0[yo] = %s;", c_store(e, dt, "acc"));
      emit_par_end(e, r + 2);
      return;
    }
    ep(e, "Y0[yo++] = %s;", c_store(e, dt, "acc"));
    for (int d = 0; d < r; d++) ep(e, "}");
    ep(e, "}");
    ep(e, "}");
    return;
  }
  loop(e, "nb", ci.N);
  emit_bias_init(e, n, &ci, T);
  loop(e, "gi", ci.G);
  loop(e, "c", ci.Cg);
  ep(e, "const %s *xc = X0 + (nb * %lld + gi * %lld + c) * %lld;", T, LL(ci.C), LL(ci.Cg), LL(ci.IHW));
  loop(e, "m", ci.Mg);
  ep(e, "const %s *wm = X1 + ((gi * %lld + c) * %lld + m) * %lld;", T, LL(ci.Cg), LL(ci.Mg), LL(ci.KP));
  ep(e, "%s *ym = Y0 + (nb * %lld + gi * %lld + m) * %lld;", T, LL(ci.M), LL(ci.Mg), LL(ci.OHW));
  emit_kernel_loops(e, g);
  ep(e, "const %s wv = wm[%s];", T, kernel_index(e, g));
  /* input positions iw with 0 <= iw*S + off < OW, off = k*D - P */
  ep(e, "const %s off = k%d * %lld - %lld;", IT, l, LL(g->d[l]), LL(g->pb[l]));
  ep(e, "%s lo = off >= 0 ? 0 : (%lld - off) / %lld;", IT, LL(g->s[l] - 1), LL(g->s[l]));
  ep(e, "%s hi = (%lld - off) / %lld;", IT, LL(g->out[l] + g->s[l] - 1), LL(g->s[l]));
  ep(e, "if (lo > %lld) lo = %lld;", LL(g->in[l]), LL(g->in[l]));
  ep(e, "if (hi > %lld) hi = %lld;", LL(g->in[l]), LL(g->in[l]));
  ep(e, "for (%s rr = 0; rr < %lld; rr++) {", IT, LL(ci.ROWS));
  ep(e, "%s yo = 0;", IT);
  int64_t ostride = g->out[l];
  for (int d = r - 2; d >= 0; d--) {
    int64_t below = prod(g->in + d + 1, r - 2 - d);
    const char *id = below > 1 ? fmt(e, "(rr / %lld)", LL(below)) : "rr";
    if (d > 0) id = fmt(e, "%s %% %lld", id, LL(g->in[d]));
    ep(e, "const %s o%d = (%s) * %lld + k%d * %lld - %lld;", IT, d, id, LL(g->s[d]), d, LL(g->d[d]), LL(g->pb[d]));
    ep(e, "if (o%d < 0 || o%d >= %lld) continue;", d, d, LL(g->out[d]));
    ep(e, "yo += o%d * %lld;", d, LL(ostride));
    ostride *= g->out[d];
  }
  ep(e, "const %s *restrict xr = xc + rr * %lld;", T, LL(g->in[l]));
  ep(e, "%s *restrict yr = ym + yo;", T);
  ep(e, "for (%s iw = lo; iw < hi; iw++) yr[iw * %lld + off] += wv * xr[iw];", IT, LL(g->s[l]));
  ep(e, "}");
  for (int d = 0; d < r; d++) ep(e, "}");
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ---- pooling --------------------------------------------------------------------------------- */

enum { POOL_MAX, POOL_AVG, POOL_LP };

static void pool_info(Ctx *ctx, const Node *n, Geo *g, int kind) {
  require_inputs(ctx, n, 1, 1);
  Value *x = n->inputs[0];
  if (kind == POOL_MAX) {
    static const int t[] = {DT_FLOAT, DT_DOUBLE, DT_FLOAT16, DT_BFLOAT16, DT_INT8, DT_UINT8, 0};
    require_dtype(ctx, n, 0, t);
  } else {
    require_dtype(ctx, n, 0, float_types);
  }
  const int64_t *ks;
  int nk = attr_ints(n, "kernel_shape", &ks);
  if (!nk) fail_node(ctx, n, "missing attribute kernel_shape");
  g->r = nk;
  if (nk > MAXR) fail_node(ctx, n, "%d spatial dimensions are not supported", nk);
  for (int i = 0; i < nk; i++) g->k[i] = ks[i];
  geo_window(ctx, n, x, g, true);
}

static int pool_kind(const Node *n) {
  if (!strcmp(n->op_type, "MaxPool")) return POOL_MAX;
  if (!strcmp(n->op_type, "AveragePool")) return POOL_AVG;
  return POOL_LP;
}

static void pool_infer(Ctx *ctx, Node *n) {
  Geo g;
  int kind = pool_kind(n);
  pool_info(ctx, n, &g, kind);
  Value *x = n->inputs[0];
  int64_t dims[ONNXC_MAX_RANK];
  dims[0] = x->dims[0];
  dims[1] = x->dims[1];
  for (int i = 0; i < g.r; i++) dims[i + 2] = g.out[i];
  value_set_shape(n->outputs[0], x->dtype, x->rank, dims);
  if (n->n_outputs > 1 && n->outputs[1]) {
    if (kind != POOL_MAX) fail_node(ctx, n, "only MaxPool has a second output");
    value_set_shape(n->outputs[1], DT_INT64, x->rank, dims);
  }
}

static double lp_p(const Node *n) {
  const Attr *a = node_attr(n, "p");
  if (!a) return 2;
  return a->type == ATTR_FLOAT ? a->f : (double)a->i;
}

/* |v|^p as a C expression (v is a plain identifier) */
static const char *pow_expr(Emit *e, int ct, const char *v, double p) {
  const char *s = fsuf(ct);
  if (p == 1) return fmt(e, "fabs%s(%s)", s, v);
  if (p == 2) return fmt(e, "%s * %s", v, v);
  if (p == 3) return fmt(e, "fabs%s(%s) * %s * %s", s, v, v, v);
  if (p == 4) return fmt(e, "%s * %s * %s * %s", v, v, v, v);
  return fmt(e, "pow%s(fabs%s(%s), %s)", s, s, v, c_lit(e, ct, p));
}

static const char *root_expr(Emit *e, int ct, const char *v, double p) {
  if (p == 1) return v;
  if (p == 2) return fmt(e, "sqrt%s(%s)", fsuf(ct), v);
  return fmt(e, "pow%s(%s, %s)", fsuf(ct), v, c_lit(e, ct, 1.0 / p));
}

/* Every pooling window holds at least one input element (no window lies in the padding). */
static bool windows_nonempty(const Geo *g) {
  for (int d = 0; d < g->r; d++)
    for (int64_t o = 0; o < g->out[d]; o++) {
      bool any = false;
      for (int64_t k = 0; k < g->k[d] && !any; k++) {
        int64_t i = o * g->s[d] + k * g->d[d] - g->pb[d];
        any = i >= 0 && i < g->in[d];
      }
      if (!any) return false;
    }
  return true;
}

static void pool_emit(Emit *e, Node *n) {
  Geo g;
  int kind = pool_kind(n);
  pool_info(e->ctx, n, &g, kind);
  set_it(n, 0);
  Value *x = n->inputs[0];
  int dt = x->dtype, r = g.r;
  int ct = dtype_is_float(dt) ? ct_dt(dt) : dt;
  const char *CT = c_ctype(ct);
  bool want_idx = kind == POOL_MAX && n->n_outputs > 1 && n->outputs[1];
  int storage = (int)attr_i(n, "storage_order", 0);
  int cip = (int)attr_i(n, "count_include_pad", 0);
  double p = lp_p(n);
  int64_t NC = x->dims[0] * x->dims[1], IHW = prod(g.in, r), OHW = prod(g.out, r);
  int64_t istr[MAXR], cstr[MAXR];
  istr[r - 1] = 1;
  for (int d = r - 2; d >= 0; d--) istr[d] = istr[d + 1] * g.in[d + 1];
  cstr[0] = 1;
  for (int d = 1; d < r; d++) cstr[d] = cstr[d - 1] * g.in[d - 1];
  if (!e->par && kind == POOL_MAX && !want_idx && dt == DT_FLOAT && r == 2 && g.d[0] == 1 && g.d[1] == 1 && windows_nonempty(&g)) {
    emit_use_template(e, "gemm");
    emit_use_template(e, "conv");
    ep(e, "%s%lld, X0, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, Y0, %lld, %lld);", kcall(e, "onnxc_maxpool2d"), LL(NC), LL(g.in[0]),
       LL(g.in[1]), LL(g.k[0]), LL(g.k[1]), LL(g.s[0]), LL(g.s[1]), LL(g.pb[0]), LL(g.pb[1]), LL(g.out[0]), LL(g.out[1]));
    return;
  }
  if (!e->par && kind == POOL_MAX && !want_idx && is_native(dt) && r == 2 && windows_nonempty(&g)) {
    /* whole output rows: for each valid kernel row and column, a (vectorizable) max over the
       range of output columns whose input column is inside */
    loop(e, "nc", NC);
    ep(e, "const %s *xp = X0 + nc * %lld;", CT, LL(IHW));
    loop(e, "oh", g.out[0]);
    ep(e, "%s *restrict yr = Y0 + (nc * %lld + oh) * %lld;", CT, LL(g.out[0]), LL(g.out[1]));
    ep(e, "%s first = 1;", IT);
    loop(e, "kh", g.k[0]);
    ep(e, "const %s ih = oh * %lld + kh * %lld - %lld;", IT, LL(g.s[0]), LL(g.d[0]), LL(g.pb[0]));
    ep(e, "if (ih < 0 || ih >= %lld) continue;", LL(g.in[0]));
    loop(e, "kw", g.k[1]);
    emit_row_range(e, &g, "kw");
    ep(e, "const %s *restrict xr = xp + ih * %lld + off;", CT, LL(g.in[1]));
    ep(e, "if (first) {");
    ep(e, "for (%s ow = 0; ow < %lld; ow++) yr[ow] = %s;", IT, LL(g.out[1]), c_lowest(e, ct));
    ep(e, "first = 0;");
    ep(e, "}");
    ep(e, "for (%s ow = lo; ow < hi; ow++) yr[ow] = xr[ow * %lld] > yr[ow] ? xr[ow * %lld] : yr[ow];", IT, LL(g.s[1]), LL(g.s[1]));
    ep(e, "}");
    ep(e, "}");
    ep(e, "}");
    ep(e, "}");
    return;
  }
  /* one output element per iteration (CUDA: per thread) */
  const char *vars[MAXR + 1];
  int64_t cnts[MAXR + 1];
  vars[0] = "nc";
  cnts[0] = NC;
  for (int d = 0; d < r; d++) {
    vars[d + 1] = fmt(e, "o%d", d);
    cnts[d + 1] = g.out[d];
  }
  emit_par_nest(e, IT, r + 1, vars, cnts);
  ep(e, "const %s *xp = X0 + nc * %lld;", c_type(dt), LL(IHW));
  {
    const char *yo = "o0";
    for (int d = 1; d < r; d++) yo = fmt(e, "(%s) * %lld + o%d", yo, LL(g.out[d]), d);
    ep(e, "const %s yo = nc * %lld + %s;", IT, LL(OHW), yo);
  }
  for (int d = 0; d < r; d++) {
    ep(e, "const %s s%d = o%d * %lld - %lld;", IT, d, d, LL(g.s[d]), LL(g.pb[d]));
    ep(e, "const %s ks%d = s%d < 0 ? (%lld - s%d) / %lld : 0;", IT, d, d, LL(g.d[d] - 1), d, LL(g.d[d]));
    ep(e, "%s ke%d = (%lld - s%d) / %lld;", IT, d, LL(g.in[d] + g.d[d] - 1), d, LL(g.d[d]));
    ep(e, "if (ke%d > %lld) ke%d = %lld;", d, LL(g.k[d]), d, LL(g.k[d]));
    if (kind == POOL_AVG && cip) {
      ep(e, "%s kc%d = (%lld - s%d) / %lld;", IT, d, LL(g.in[d] + g.pe[d] + g.d[d] - 1), d, LL(g.d[d]));
      ep(e, "if (kc%d > %lld) kc%d = %lld;", d, LL(g.k[d]), d, LL(g.k[d]));
    }
  }
  if (kind == POOL_MAX) {
    ep(e, "%s best = %s;", CT, c_lowest(e, ct));
    if (want_idx) ep(e, "int64_t bi = -1;");
  } else {
    ep(e, "%s acc = 0;", CT);
  }
  ep(e, "%s cnt = 0;", IT);
  for (int d = 0; d < r; d++) {
    ep(e, "for (%s k%d = ks%d; k%d < ke%d; k%d++) {", IT, d, d, d, d, d);
    ep(e, "const %s i%d = s%d + k%d * %lld;", IT, d, d, d, LL(g.d[d]));
  }
  const char *xi = fmt(e, "i%d", r - 1);
  for (int d = r - 2; d >= 0; d--) xi = fmt(e, "i%d * %lld + %s", d, LL(istr[d]), xi);
  ep(e, "const %s v = %s;", CT, c_load(e, dt, fmt(e, "xp[%s]", xi)));
  ep(e, "cnt++;");
  if (kind == POOL_MAX) {
    if (want_idx) {
      const char *ci = storage ? "i0" : xi;
      if (storage)
        for (int d = 1; d < r; d++) ci = fmt(e, "%s + i%d * %lld", ci, d, LL(cstr[d]));
      ep(e, "if (bi < 0 || v > best) {");
      ep(e, "best = v;");
      ep(e, "bi = nc * %lldLL + %s;", LL(IHW), ci);
      ep(e, "}");
    } else {
      ep(e, "if (v > best) best = v;");
    }
  } else if (kind == POOL_AVG) {
    ep(e, "acc += v;");
  } else {
    ep(e, "acc += %s;", pow_expr(e, ct, "v", p));
  }
  for (int d = 0; d < r; d++) ep(e, "}");
  if (kind == POOL_MAX) {
    ep(e, "if (cnt == 0) best = 0;");
    ep(e, "Y0[yo] = %s;", c_store(e, dt, "best"));
    if (want_idx) ep(e, "if (Y1) Y1[yo] = bi;");
  } else if (kind == POOL_AVG) {
    if (cip) {
      const char *c = "kc0";
      for (int d = 1; d < r; d++) c = fmt(e, "%s * kc%d", c, d);
      ep(e, "cnt = %s;", c);
    }
    ep(e, "Y0[yo] = %s;", c_store(e, dt, fmt(e, "cnt ? acc / (%s)cnt : 0", CT)));
  } else {
    ep(e, "(void)cnt;");
    ep(e, "Y0[yo] = %s;", c_store(e, dt, root_expr(e, ct, "acc", p)));
  }
  emit_par_end(e, r + 1);
}

/* GlobalAveragePool / GlobalMaxPool / GlobalLpPool */
static void gpool_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  Value *x = n->inputs[0];
  require_dtype(ctx, n, 0, float_types);
  if (x->rank < 2) fail_node(ctx, n, "input rank must be at least 2");
  int64_t dims[ONNXC_MAX_RANK];
  for (int d = 0; d < x->rank; d++) dims[d] = d < 2 ? x->dims[d] : 1;
  value_set_shape(n->outputs[0], x->dtype, x->rank, dims);
}

/* Emits `dst = sum (max: the largest) over i < cnt of expr` (expr reads the index i): long runs
   in 16 partial results (i mod 16), which vectorize, then combined pairwise; one running sum is a
   chain of dependent adds, one per element.  init: the max's start (the type's lowest). */
static void emit_lane_reduce(Emit *e, const char *CT, const char *dst, int64_t cnt, const char *expr, bool max,
                             const char *init) {
  const char *step = max ? "%s = %s > %s ? %s : %s;" : NULL;
#define LANE_STEP(a, v)                                                                                         \
  do {                                                                                                          \
    if (max) ep(e, step, a, v, a, v, a);                                                                        \
    else ep(e, "%s += %s;", a, v);                                                                              \
  } while (0)
  if (cnt < 32) {
    ep(e, "%s = %s;", dst, max ? init : "0");
    loop(e, "i", cnt);
    ep(e, "const %s v = %s;", CT, expr);
    LANE_STEP(dst, "v");
    ep(e, "}");
    return;
  }
  ep(e, "{");
  ep(e, "%s ls[16];", CT);
  ep(e, "%s i0 = 0;", IT);
  ep(e, "for (int q = 0; q < 16; q++) ls[q] = %s;", max ? init : "0");
  ep(e, "for (; i0 + 16 <= %lld; i0 += 16) {", LL(cnt));
  ep(e, "for (int q = 0; q < 16; q++) {");
  ep(e, "const %s i = i0 + q;", IT);
  ep(e, "const %s v = %s;", CT, expr);
  LANE_STEP("ls[q]", "v");
  ep(e, "}");
  ep(e, "}");
  if (cnt % 16) {
    ep(e, "for (int q = 0; q < %d; q++) {", (int)(cnt % 16));
    ep(e, "const %s i = i0 + q;", IT);
    ep(e, "const %s v = %s;", CT, expr);
    LANE_STEP("ls[q]", "v");
    ep(e, "}");
  }
  ep(e, "for (int q = 8; q > 0; q /= 2)");
  ep(e, "for (int r = 0; r < q; r++) {");
  LANE_STEP("ls[r]", "ls[r + q]");
  ep(e, "}");
  ep(e, "%s = ls[0];", dst);
  ep(e, "}");
#undef LANE_STEP
}

static void emit_lane_sum(Emit *e, const char *CT, const char *dst, int64_t cnt, const char *expr) {
  emit_lane_reduce(e, CT, dst, cnt, expr, false, NULL);
}

static void gpool_emit(Emit *e, Node *n) {
  set_it(n, 0);
  Value *x = n->inputs[0];
  int dt = x->dtype, ct = ct_dt(dt);
  const char *CT = ct_of(dt);
  int64_t NC = x->dims[0] * x->dims[1], S = prod(x->dims + 2, x->rank - 2);
  int kind = !strcmp(n->op_type, "GlobalMaxPool") ? POOL_MAX : !strcmp(n->op_type, "GlobalAveragePool") ? POOL_AVG : POOL_LP;
  double p = lp_p(n);
  emit_par_for(e, fmt(e, "%s ", IT), "nc", NC);
  if (is_native(dt) && kind != POOL_LP) {
    ep(e, "const %s *xp = X0 + nc * %lld;", CT, LL(S));
    ep(e, "%s acc;", CT);
    if (dt == DT_FLOAT && kind == POOL_AVG && S >= 16) { /* the SE blocks' many small planes */
      emit_use_template(e, "gemm");
      ep(e, "#if defined(ONNXC_AVX512)");
      ep(e, "acc = onnxc_sum16(xp, %lld);", LL(S));
      ep(e, "#else");
    }
    emit_lane_reduce(e, CT, "acc", S, "xp[i]", kind == POOL_MAX, c_lowest(e, ct));
    if (dt == DT_FLOAT && kind == POOL_AVG && S >= 16) ep(e, "#endif");
    ep(e, "Y0[nc] = %s;", kind == POOL_MAX ? "acc" : fmt(e, "acc / %s", c_lit(e, ct, (double)S)));
    ep(e, "}");
    return;
  }
  ep(e, "%s acc = %s;", CT, kind == POOL_MAX ? c_lowest(e, ct) : "0");
  loop(e, "i", S);
  ep(e, "const %s v = %s;", CT, c_load(e, dt, fmt(e, "X0[nc * %lld + i]", LL(S))));
  if (kind == POOL_MAX) ep(e, "if (v > acc) acc = v;");
  else if (kind == POOL_AVG) ep(e, "acc += v;");
  else ep(e, "acc += %s;", pow_expr(e, ct, "v", p));
  ep(e, "}");
  const char *res = kind == POOL_MAX ? "acc" : kind == POOL_AVG ? fmt(e, "acc / %s", c_lit(e, ct, (double)S)) : root_expr(e, ct, "acc", p);
  ep(e, "Y0[nc] = %s;", c_store(e, dt, res));
  ep(e, "}");
}

/* MaxUnpool: indices address the unpooled tensor of the inferred shape; an output_shape input
   pads that tensor at the end of each spatial dim (as the ONNX reference does). */
static void unpool_info(Ctx *ctx, const Node *n, Geo *g, int64_t *outdims) {
  require_inputs(ctx, n, 2, 3);
  Value *x = n->inputs[0], *ind = n->inputs[1];
  require_dtype(ctx, n, 0, float_types);
  if (ind->dtype != DT_INT64 || !same_shape(x, ind)) fail_node(ctx, n, "indices must be int64 with the shape of X");
  const int64_t *ks;
  int r = attr_ints(n, "kernel_shape", &ks);
  if (!r || r > MAXR || x->rank != r + 2) fail_node(ctx, n, "kernel_shape must give every spatial dim");
  g->r = r;
  int64_t pads[2 * MAXR];
  spatial_ints(ctx, n, "strides", r, 1, 1, g->s);
  spatial_ints(ctx, n, "pads", 2 * r, 0, 0, pads);
  for (int i = 0; i < r; i++) {
    g->k[i] = ks[i];
    g->in[i] = x->dims[i + 2];
    g->out[i] = (g->in[i] - 1) * g->s[i] - pads[i] - pads[i + r] + g->k[i];
    if (g->out[i] < 1) fail_node(ctx, n, "empty output in spatial dim %d", i);
  }
  outdims[0] = x->dims[0];
  outdims[1] = x->dims[1];
  for (int i = 0; i < r; i++) outdims[i + 2] = g->out[i];
  if (node_in(n, 2)) {
    Value *os = node_const_in(ctx, n, 2, "output_shape");
    if (value_numel(os) != x->rank) fail_node(ctx, n, "output_shape must have %d values", x->rank);
    for (int i = 0; i < x->rank; i++) outdims[i] = const_get_i(os, i);
    if (outdims[0] != x->dims[0] || outdims[1] != x->dims[1])
      fail_node(ctx, n, "output_shape must keep the batch and channel dims");
    for (int i = 0; i < r; i++)
      if (outdims[i + 2] < 1) fail_node(ctx, n, "invalid output_shape");
  }
}

static void unpool_infer(Ctx *ctx, Node *n) {
  Geo g;
  int64_t dims[ONNXC_MAX_RANK];
  unpool_info(ctx, n, &g, dims);
  value_set_shape(n->outputs[0], n->inputs[0]->dtype, n->inputs[0]->rank, dims);
}

static void unpool_emit(Emit *e, Node *n) {
  Geo g;
  int64_t od[ONNXC_MAX_RANK];
  unpool_info(e->ctx, n, &g, od);
  set_it(n, 0);
  Value *x = n->inputs[0], *y = n->outputs[0];
  int r = g.r;
  int64_t inf_sp = prod(g.out, r), out_sp = prod(od + 2, r);
  bool same = inf_sp == out_sp;
  for (int i = 0; i < r; i++)
    if (g.out[i] != od[i + 2]) same = false;
  ep(e, "memset(Y0, 0, %lld);", LL(value_bytes(y)));
  ep(e, "for (int64_t i = 0; i < %lld; i++) {", LL(value_numel(x)));
  ep(e, "int64_t t = X1[i];");
  ep(e, "if (t < 0 || t >= %lldLL) continue;", LL(x->dims[0] * x->dims[1] * inf_sp));
  if (same) {
    ep(e, "Y0[t] = X0[i];");
  } else {
    ep(e, "int64_t o = 0, st = 1;");
    for (int d = r - 1; d >= 0; d--) {
      ep(e, "{");
      ep(e, "const int64_t c = t %% %lld;", LL(g.out[d]));
      ep(e, "t /= %lld;", LL(g.out[d]));
      ep(e, "if (c >= %lld) continue;", LL(od[d + 2]));
      ep(e, "o += c * st;");
      ep(e, "st *= %lld;", LL(od[d + 2]));
      ep(e, "}");
    }
    ep(e, "Y0[o + t * %lld] = X0[i];", LL(out_sp));
  }
  ep(e, "}");
}

/* ---- BatchNormalization ------------------------------------------------------------------------ */

/* Batch statistics (training) mode: opset >= 14 training_mode; 9..13 more than one output;
   < 9 is_test = 0 with more than one output. */
bool bn_training_mode(const Node *n) {
  bool extra = false;
  for (int k = 1; k < n->n_outputs; k++)
    if (n->outputs[k]) extra = true;
  if (n->opset >= 14) return attr_i(n, "training_mode", 0) != 0;
  if (n->opset >= 9) return extra;
  return extra && attr_i(n, "is_test", 0) == 0;
}

static void bn_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 5, 5);
  Value *x = n->inputs[0];
  require_dtype(ctx, n, 0, float_types);
  if (x->rank < 2) fail_node(ctx, n, "input rank must be at least 2");
  int64_t C = x->dims[1], S = prod(x->dims + 2, x->rank - 2);
  bool spatial = n->opset >= 9 || attr_i(n, "spatial", 1) != 0;
  int pdt = n->inputs[1]->dtype;
  if (!dtype_is_float(pdt)) fail_node(ctx, n, "scale must be a float type");
  for (int k = 1; k < 5; k++) {
    if (k >= 3 && n->inputs[k]->dtype != n->inputs[1]->dtype && n->inputs[k]->dtype != x->dtype)
      fail_node(ctx, n, "mean/var element types differ");
    if (!dtype_is_float(n->inputs[k]->dtype)) fail_node(ctx, n, "parameters must be float types");
    require_numel(ctx, n, k, spatial ? C : C * S, "a parameter");
  }
  if (!spatial && bn_training_mode(n)) fail_node(ctx, n, "training with spatial=0 is not supported");
  value_set_shape(n->outputs[0], x->dtype, x->rank, x->dims);
  for (int k = 1; k < n->n_outputs; k++)
    if (n->outputs[k]) {
      Value *src = n->inputs[k >= 3 ? k : k + 2];
      value_set_shape(n->outputs[k], src->dtype, 1, &C);
    }
}

static void bn_emit(Emit *e, Node *n) {
  set_it(n, 0);
  Value *x = n->inputs[0];
  int dt = x->dtype, ct = ct_dt(dt);
  const char *CT = ct_of(dt), *sf = fsuf(ct);
  int64_t N = x->dims[0], C = x->dims[1], S = prod(x->dims + 2, x->rank - 2);
  const char *eps = c_lit(e, ct, attr_f(n, "epsilon", 1e-5f));
  const char *P[5];
  for (int k = 1; k < 5; k++) P[k] = fmt(e, "X%d", k);
#define PL(k, idx) c_load(e, n->inputs[k]->dtype, fmt(e, "%s[%s]", P[k], idx))
  bool spatial = n->opset >= 9 || attr_i(n, "spatial", 1) != 0;
  if (!bn_training_mode(n) && e->par) {
    /* CUDA: one element per thread */
    const char *vars[3] = {"nb", "c", "i"};
    const int64_t cnt[3] = {N, C, S};
    emit_par_nest(e, IT, 3, vars, cnt);
    ep(e, "const %s p = c * %lld + i;", IT, LL(S));
    ep(e, "(void)p;");
    ep(e, "const %s xv = %s;", CT, c_load(e, dt, fmt(e, "X0[(nb * %lld + c) * %lld + i]", LL(C), LL(S))));
    if (spatial) { /* as the serial form below computes it */
      ep(e, "const %s a = %s / sqrt%s(%s + %s);", CT, PL(1, "c"), sf, PL(4, "c"), eps);
      ep(e, "const %s b = %s - %s * a;", CT, PL(2, "c"), PL(3, "c"));
      ep(e, "Y0[(nb * %lld + c) * %lld + i] = %s;", LL(C), LL(S), c_store(e, dt, "xv * a + b"));
    } else {
      ep(e, "Y0[(nb * %lld + c) * %lld + i] = %s;", LL(C), LL(S),
         c_store(e, dt, fmt(e, "(xv - %s) * %s / sqrt%s(%s + %s) + %s", PL(3, "p"), PL(1, "p"), sf, PL(4, "p"), eps, PL(2, "p"))));
    }
    emit_par_end(e, 3);
    return;
  }
  if (!bn_training_mode(n)) {
    loop(e, "nb", N);
    loop(e, "c", C);
    ep(e, "const %s *xp = X0 + (nb * %lld + c) * %lld;", c_type(dt), LL(C), LL(S));
    ep(e, "%s *yp = Y0 + (nb * %lld + c) * %lld;", c_type(dt), LL(C), LL(S));
    if (spatial) {
      ep(e, "const %s a = %s / sqrt%s(%s + %s);", CT, PL(1, "c"), sf, PL(4, "c"), eps);
      ep(e, "const %s b = %s - %s * a;", CT, PL(2, "c"), PL(3, "c"));
      loop(e, "i", S);
      ep(e, "yp[i] = %s;", c_store(e, dt, fmt(e, "%s * a + b", c_load(e, dt, "xp[i]"))));
      ep(e, "}");
    } else {
      loop(e, "i", S);
      ep(e, "const %s p = c * %lld + i;", IT, LL(S));
      ep(e, "yp[i] = %s;", c_store(e, dt, fmt(e, "(%s - %s) * %s / sqrt%s(%s + %s) + %s", c_load(e, dt, "xp[i]"),
                                             PL(3, "p"), PL(1, "p"), sf, PL(4, "p"), eps, PL(2, "p"))));
      ep(e, "}");
    }
    ep(e, "}");
    ep(e, "}");
    return;
  }
  /* training: batch statistics per channel */
  const char *mom = c_lit(e, ct, attr_f(n, "momentum", 0.9f));
  /* sums in 16 lanes per image row (they vectorize), rows added in CT */
  loop(e, "c", C);
  ep(e, "%s sum = 0, sq = 0;", CT);
  loop(e, "nb", N);
  ep(e, "const %s *xp = X0 + (nb * %lld + c) * %lld;", c_type(dt), LL(C), LL(S));
  emit_lane_sums(e, CT, IT, S, 1, (const char *const[]){"sum"}, (const char *const[]){c_load(e, dt, "xp[q]")});
  ep(e, "}");
  ep(e, "const %s mean = sum / %s;", CT, c_lit(e, ct, (double)(N * S)));
  loop(e, "nb", N);
  ep(e, "const %s *xp = X0 + (nb * %lld + c) * %lld;", c_type(dt), LL(C), LL(S));
  const char *xq = c_load(e, dt, "xp[q]");
  emit_lane_sums(e, CT, IT, S, 1, (const char *const[]){"sq"}, (const char *const[]){fmt(e, "(%s - mean) * (%s - mean)", xq, xq)});
  ep(e, "}");
  ep(e, "const %s var = sq / %s;", CT, c_lit(e, ct, (double)(N * S)));
  ep(e, "const %s a = %s / sqrt%s(var + %s);", CT, PL(1, "c"), sf, eps);
  ep(e, "const %s b = %s - mean * a;", CT, PL(2, "c"));
  loop(e, "nb", N);
  ep(e, "const %s *xp = X0 + (nb * %lld + c) * %lld;", c_type(dt), LL(C), LL(S));
  ep(e, "%s *yp = Y0 + (nb * %lld + c) * %lld;", c_type(dt), LL(C), LL(S));
  loop(e, "i", S);
  ep(e, "yp[i] = %s;", c_store(e, dt, fmt(e, "%s * a + b", c_load(e, dt, "xp[i]"))));
  ep(e, "}");
  ep(e, "}");
  /* the running variance blends in the batch variance as ONNX defines it (biased); onnxc
     --train sets onnxc.unbiased_var to blend in the unbiased one, as torch.nn.BatchNorm does */
  const char *uvar = "var";
  if (attr_i(n, "onnxc.unbiased_var", 0) && N * S > 1) uvar = fmt(e, "var * %s", c_lit(e, ct, (double)(N * S) / (double)(N * S - 1)));
  const char *stat[5] = {NULL, "mean", uvar, "mean", "var"};
  for (int k = 1; k < n->n_outputs && k < 5; k++) {
    Value *o = n->outputs[k];
    if (!o) continue;
    const char *v = stat[k];
    if (k <= 2) v = fmt(e, "%s * %s + %s * (1 - %s)", PL(k + 2, "c"), mom, stat[k], mom);
    ep(e, "if (Y%d) Y%d[c] = %s;", k, k, c_store(e, o->dtype, v));
  }
  ep(e, "}");
#undef PL
}

/* ---- Instance / Group / Layer / RMS normalization ---------------------------------------------- */

static void instnorm_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 3, 3);
  Value *x = n->inputs[0];
  require_dtype(ctx, n, 0, float_types);
  require_same_dtype(ctx, n, 1, x->dtype);
  require_same_dtype(ctx, n, 2, x->dtype);
  if (x->rank < 3) fail_node(ctx, n, "input rank must be at least 3");
  require_numel(ctx, n, 1, x->dims[1], "scale");
  require_numel(ctx, n, 2, x->dims[1], "bias");
  value_set_shape(n->outputs[0], x->dtype, x->rank, x->dims);
}

/* Emits mean and (population) variance of `cnt` elements at xp[0..cnt) into mean/var. */
static void emit_mean_var(Emit *e, int dt, int ct, int64_t cnt) {
  const char *CT = c_type(ct);
  const char *x = c_load(e, dt, "xp[i]");
  ep(e, "%s mean, var;", CT);
  emit_lane_sum(e, CT, "mean", cnt, x);
  ep(e, "mean /= %s;", c_lit(e, ct, (double)cnt));
  emit_lane_sum(e, CT, "var", cnt, fmt(e, "(%s - mean) * (%s - mean)", x, x));
  ep(e, "var /= %s;", c_lit(e, ct, (double)cnt));
}

static void instnorm_emit(Emit *e, Node *n) {
  set_it(n, 0);
  Value *x = n->inputs[0];
  int dt = x->dtype, ct = ct_dt(dt);
  const char *CT = ct_of(dt);
  int64_t C = x->dims[1], S = prod(x->dims + 2, x->rank - 2);
  loop(e, "nc", x->dims[0] * C);
  ep(e, "const %s c = nc %% %lld;", IT, LL(C));
  ep(e, "const %s *xp = X0 + nc * %lld;", c_type(dt), LL(S));
  ep(e, "%s *yp = Y0 + nc * %lld;", c_type(dt), LL(S));
  emit_mean_var(e, dt, ct, S);
  ep(e, "const %s a = %s / sqrt%s(var + %s);", CT, c_load(e, dt, "X1[c]"), fsuf(ct), c_lit(e, ct, attr_f(n, "epsilon", 1e-5f)));
  ep(e, "const %s b = %s - mean * a;", CT, c_load(e, dt, "X2[c]"));
  loop(e, "i", S);
  ep(e, "yp[i] = %s;", c_store(e, dt, fmt(e, "%s * a + b", c_load(e, dt, "xp[i]"))));
  ep(e, "}");
  ep(e, "}");
}

static void groupnorm_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 3, 3);
  Value *x = n->inputs[0];
  require_dtype(ctx, n, 0, float_types);
  require_same_dtype(ctx, n, 1, x->dtype);
  require_same_dtype(ctx, n, 2, x->dtype);
  if (x->rank < 2) fail_node(ctx, n, "input rank must be at least 2");
  int64_t G = attr_i(n, "num_groups", 0), C = x->dims[1];
  if (G < 1 || C % G) fail_node(ctx, n, "num_groups %lld does not divide %lld channels", LL(G), LL(C));
  int64_t pc = n->opset >= 21 ? C : G;
  require_numel(ctx, n, 1, pc, "scale");
  require_numel(ctx, n, 2, pc, "bias");
  value_set_shape(n->outputs[0], x->dtype, x->rank, x->dims);
}

static void groupnorm_emit(Emit *e, Node *n) {
  set_it(n, 0);
  Value *x = n->inputs[0];
  int dt = x->dtype, ct = ct_dt(dt);
  const char *CT = ct_of(dt);
  int64_t G = attr_i(n, "num_groups", 0), C = x->dims[1], S = prod(x->dims + 2, x->rank - 2), Cg = C / G;
  bool per_channel = n->opset >= 21;
  loop(e, "ng", x->dims[0] * G);
  ep(e, "const %s gi = ng %% %lld;", IT, LL(G));
  ep(e, "const %s *xp = X0 + ng * %lld;", c_type(dt), LL(Cg * S));
  ep(e, "%s *yp = Y0 + ng * %lld;", c_type(dt), LL(Cg * S));
  emit_mean_var(e, dt, ct, Cg * S);
  ep(e, "const %s inv = 1 / sqrt%s(var + %s);", CT, fsuf(ct), c_lit(e, ct, attr_f(n, "epsilon", 1e-5f)));
  loop(e, "c", Cg);
  const char *pi = per_channel ? fmt(e, "gi * %lld + c", LL(Cg)) : "gi";
  ep(e, "const %s a = %s * inv;", CT, c_load(e, dt, fmt(e, "X1[%s]", pi)));
  ep(e, "const %s b = %s - mean * a;", CT, c_load(e, dt, fmt(e, "X2[%s]", pi)));
  loop(e, "i", S);
  ep(e, "yp[c * %lld + i] = %s;", LL(S), c_store(e, dt, fmt(e, "%s * a + b", c_load(e, dt, fmt(e, "xp[c * %lld + i]", LL(S))))));
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* Scale/bias of Layer/RMS normalization: broadcast over the normalized trailing dims (index j
   of the row) or a single value.  Returns the index expression or fails. */
static const char *norm_param_index(Ctx *ctx, const Node *n, const Value *p, const Value *x, int axis) {
  int64_t cols = prod(x->dims + axis, x->rank - axis);
  if (value_numel(p) == 1) return "0";
  if (value_numel(p) != cols) goto bad;
  /* p's dims, leading 1s dropped, must equal x's trailing dims */
  {
    int lead = 0;
    while (lead < p->rank && p->dims[lead] == 1 && p->rank - lead > x->rank - axis) lead++;
    int pr = p->rank - lead;
    for (int i = 0; i < pr; i++)
      if (p->dims[lead + i] != x->dims[x->rank - pr + i]) goto bad;
  }
  return "j";
bad:
  fail_node(ctx, n, "parameter shape %s does not match the normalized dims of %s", shape_str(&ctx->arena, p),
            shape_str(&ctx->arena, x));
}

static void layernorm_infer(Ctx *ctx, Node *n) {
  bool rms = !strcmp(n->op_type, "RMSNormalization");
  require_inputs(ctx, n, 2, rms ? 2 : 3);
  Value *x = n->inputs[0];
  require_dtype(ctx, n, 0, float_types);
  require_same_dtype(ctx, n, 1, x->dtype);
  require_same_dtype(ctx, n, 2, x->dtype);
  if (x->rank < 1) fail_node(ctx, n, "input must have rank >= 1");
  int axis = norm_axis(ctx, n, attr_i(n, "axis", -1), x->rank);
  norm_param_index(ctx, n, n->inputs[1], x, axis);
  if (node_in(n, 2)) norm_param_index(ctx, n, n->inputs[2], x, axis);
  int st = (int)attr_i(n, "stash_type", 1);
  if (st != DT_FLOAT && st != DT_DOUBLE && st != DT_FLOAT16 && st != DT_BFLOAT16)
    fail_node(ctx, n, "stash_type %d is not supported", st);
  value_set_shape(n->outputs[0], x->dtype, x->rank, x->dims);
  int64_t dims[ONNXC_MAX_RANK];
  for (int d = 0; d < x->rank; d++) dims[d] = d < axis ? x->dims[d] : 1;
  for (int k = 1; k < n->n_outputs && k < 3; k++)
    if (n->outputs[k]) value_set_shape(n->outputs[k], st, x->rank, dims);
}

static void layernorm_emit(Emit *e, Node *n) {
  set_it(n, 0);
  bool rms = !strcmp(n->op_type, "RMSNormalization");
  Value *x = n->inputs[0];
  int dt = x->dtype;
  int st = (int)attr_i(n, "stash_type", 1);
  int ct = (dt == DT_DOUBLE || st == DT_DOUBLE) ? DT_DOUBLE : DT_FLOAT;
  const char *CT = c_type(ct);
  int axis = norm_axis(e->ctx, n, attr_i(n, "axis", -1), x->rank);
  int64_t rows = prod(x->dims, axis), cols = prod(x->dims + axis, x->rank - axis);
  const char *si = norm_param_index(e->ctx, n, n->inputs[1], x, axis);
  const char *bi = node_in(n, 2) ? norm_param_index(e->ctx, n, n->inputs[2], x, axis) : NULL;
  const char *eps = c_lit(e, ct, attr_f(n, "epsilon", 1e-5f));
  emit_par_for(e, fmt(e, "%s ", IT), "rw", rows);
  ep(e, "const %s *xp = X0 + rw * %lld;", c_type(dt), LL(cols));
  ep(e, "%s *yp = Y0 + rw * %lld;", c_type(dt), LL(cols));
  if (rms) {
    const char *x = c_load(e, dt, "xp[i]");
    ep(e, "%s sq;", CT);
    emit_lane_sum(e, CT, "sq", cols, fmt(e, "%s * %s", x, x));
    ep(e, "const %s inv = 1 / sqrt%s(sq / %s + %s);", CT, fsuf(ct), c_lit(e, ct, (double)cols), eps);
    loop(e, "j", cols);
    ep(e, "yp[j] = %s;", c_store(e, dt, fmt(e, "%s * inv * %s", c_load(e, dt, "xp[j]"), c_load(e, dt, fmt(e, "X1[%s]", si)))));
    ep(e, "}");
  } else {
    emit_mean_var(e, dt, ct, cols);
    ep(e, "const %s inv = 1 / sqrt%s(var + %s);", CT, fsuf(ct), eps);
    loop(e, "j", cols);
    const char *v = fmt(e, "(%s - mean) * inv * %s", c_load(e, dt, "xp[j]"), c_load(e, dt, fmt(e, "X1[%s]", si)));
    if (bi) v = fmt(e, "%s + %s", v, c_load(e, dt, fmt(e, "X2[%s]", bi)));
    ep(e, "yp[j] = %s;", c_store(e, dt, v));
    ep(e, "}");
    if (n->n_outputs > 1 && n->outputs[1]) ep(e, "if (Y1) Y1[rw] = %s;", c_store(e, st, "mean"));
    if (n->n_outputs > 2 && n->outputs[2]) ep(e, "if (Y2) Y2[rw] = %s;", c_store(e, st, "inv"));
  }
  ep(e, "}");
}

/* ---- LRN, LpNormalization, MeanVarianceNormalization ------------------------------------------ */

static void unary_float_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, 1);
  require_dtype(ctx, n, 0, float_types);
  infer_same_as_input0(ctx, n);
}

static void lrn_infer(Ctx *ctx, Node *n) {
  unary_float_infer(ctx, n);
  if (n->inputs[0]->rank < 2) fail_node(ctx, n, "input rank must be at least 2");
  if (attr_i(n, "size", 0) < 1) fail_node(ctx, n, "attribute size must be positive");
}

static void lrn_emit(Emit *e, Node *n) {
  set_it(n, 0);
  Value *x = n->inputs[0];
  int dt = x->dtype, ct = ct_dt(dt);
  const char *CT = ct_of(dt);
  int64_t size = attr_i(n, "size", 1), C = x->dims[1], S = prod(x->dims + 2, x->rank - 2);
  int64_t c1 = (size - 1) / 2, c2 = size / 2; /* floor((size-1)/2), ceil((size-1)/2) */
  double alpha = attr_f(n, "alpha", 1e-4f), beta = attr_f(n, "beta", 0.75f), bias = attr_f(n, "bias", 1.0f);
  loop(e, "nb", x->dims[0]);
  loop(e, "c", C);
  ep(e, "const %s c0 = c < %lld ? 0 : c - %lld;", IT, LL(c1), LL(c1));
  ep(e, "const %s c1 = c + %lld > %lld ? %lld : c + %lld;", IT, LL(c2), LL(C - 1), LL(C - 1), LL(c2));
  loop(e, "i", S);
  ep(e, "%s sq = 0;", CT);
  ep(e, "for (%s cc = c0; cc <= c1; cc++) {", IT);
  ep(e, "const %s t = %s;", CT, c_load(e, dt, fmt(e, "X0[(nb * %lld + cc) * %lld + i]", LL(C), LL(S))));
  ep(e, "sq += t * t;");
  ep(e, "}");
  ep(e, "const %s o = (nb * %lld + c) * %lld + i;", IT, LL(C), LL(S));
  ep(e, "Y0[o] = %s;", c_store(e, dt, fmt(e, "%s / pow%s(%s + %s * sq, %s)", c_load(e, dt, "X0[o]"), fsuf(ct),
                                          c_lit(e, ct, bias), c_lit(e, ct, alpha / (double)size), c_lit(e, ct, beta))));
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

static void lpnorm_infer(Ctx *ctx, Node *n) {
  unary_float_infer(ctx, n);
  norm_axis(ctx, n, attr_i(n, "axis", -1), n->inputs[0]->rank);
  int64_t p = attr_i(n, "p", 2);
  if (p != 1 && p != 2) fail_node(ctx, n, "p must be 1 or 2");
}

static void lpnorm_emit(Emit *e, Node *n) {
  set_it(n, 0);
  Value *x = n->inputs[0];
  int dt = x->dtype, ct = ct_dt(dt);
  const char *CT = ct_of(dt);
  int axis = norm_axis(e->ctx, n, attr_i(n, "axis", -1), x->rank);
  int64_t p = attr_i(n, "p", 2);
  int64_t outer = prod(x->dims, axis), A = x->dims[axis], inner = prod(x->dims + axis + 1, x->rank - axis - 1);
  loop(e, "ot", outer);
  loop(e, "in", inner);
  ep(e, "const %s base = ot * %lld + in;", IT, LL(A * inner));
  ep(e, "%s s = 0;", CT);
  loop(e, "a", A);
  ep(e, "const %s t = %s;", CT, c_load(e, dt, fmt(e, "X0[base + a * %lld]", LL(inner))));
  ep(e, "s += %s;", p == 1 ? fmt(e, "fabs%s(t)", fsuf(ct)) : "t * t");
  ep(e, "}");
  if (p == 2) ep(e, "s = sqrt%s(s);", fsuf(ct));
  loop(e, "a", A);
  ep(e, "const %s o = base + a * %lld;", IT, LL(inner));
  ep(e, "Y0[o] = %s;", c_store(e, dt, fmt(e, "s == 0 ? 0 : %s / s", c_load(e, dt, "X0[o]"))));
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* MVN statistics live in scratch: per reduced index, the mean and then std + 1e-9. */
static void mvn_shape(Ctx *ctx, const Node *n, Value *red) {
  Value *x = n->inputs[0];
  const int64_t *ax;
  static const int64_t dflt[3] = {0, 2, 3};
  int na = attr_ints(n, "axes", &ax);
  if (!node_attr(n, "axes")) {
    ax = dflt;
    na = 3;
  }
  memset(red, 0, sizeof *red);
  red->rank = x->rank;
  for (int d = 0; d < x->rank; d++) red->dims[d] = x->dims[d];
  for (int i = 0; i < na; i++) red->dims[norm_axis(ctx, n, ax[i], x->rank)] = 1;
}

static void mvn_infer(Ctx *ctx, Node *n) {
  unary_float_infer(ctx, n);
  Value red;
  mvn_shape(ctx, n, &red);
}

static int64_t mvn_scratch(Ctx *ctx, Node *n) {
  Value red;
  mvn_shape(ctx, n, &red);
  return 2 * value_numel(&red) * (int64_t)dtype_size(ct_dt(n->inputs[0]->dtype));
}

typedef struct MvnBody { int dt, step; } MvnBody;

static void mvn_body(Emit *e, void *arg) {
  MvnBody *b = arg;
  const char *xv = c_load(e, b->dt, "X0[o]");
  if (b->step == 0) {
    ep(e, "s1[i0] += %s;", xv);
    ep(e, "s2[i0] += %s * %s;", xv, xv);
  } else {
    ep(e, "Y0[o] = %s;", c_store(e, b->dt, fmt(e, "(%s - s1[i0]) / s2[i0]", xv)));
  }
}

static void mvn_emit(Emit *e, Node *n) {
  Value red;
  mvn_shape(e->ctx, n, &red);
  set_it(n, 0);
  Value *x = n->inputs[0];
  int dt = x->dtype, ct = ct_dt(dt);
  const char *CT = ct_of(dt);
  int64_t R = value_numel(&red), cnt = value_numel(x) / (R ? R : 1);
  ep(e, "%s *s1 = (%s *)W, *s2 = s1 + %lld;", CT, CT, LL(R));
  ep(e, "for (%s i = 0; i < %lld; i++) s1[i] = s2[i] = 0;", IT, LL(R));
  const Value *ins[1] = {&red};
  MvnBody b = {dt, 0};
  emit_broadcast_loops(e, x, ins, 1, mvn_body, &b);
  loop(e, "i", R);
  ep(e, "const %s m = s1[i] / %s;", CT, c_lit(e, ct, (double)cnt));
  ep(e, "%s v = s2[i] / %s - m * m;", CT, c_lit(e, ct, (double)cnt));
  ep(e, "if (v < 0) v = 0;");
  ep(e, "s1[i] = m;");
  ep(e, "s2[i] = sqrt%s(v) + %s;", fsuf(ct), c_lit(e, ct, 1e-9));
  ep(e, "}");
  b.step = 1;
  emit_broadcast_loops(e, x, ins, 1, mvn_body, &b);
}

/* ---- Gemm ---------------------------------------------------------------------------------- */

static const int mm_types[] = {DT_FLOAT, DT_DOUBLE, DT_FLOAT16, DT_BFLOAT16, DT_INT32, DT_INT64, DT_UINT32,
                               DT_UINT64, 0};

/* transB as the kernel sees it: a B packed by optimize.c is [K][N] with alpha folded in */
static bool gemm_tb(const Node *n) { return !n->orig_w && attr_i(n, "transB", 0); }
static double gemm_alpha(const Node *n) { return n->orig_w ? 1.0 : attr_f(n, "alpha", 1.0f); }

static void gemm_dims(Ctx *ctx, const Node *n, int64_t *M, int64_t *N, int64_t *K) {
  Value *a = n->inputs[0], *b = n->inputs[1];
  if (a->rank != 2 || b->rank != 2) fail_node(ctx, n, "A and B must be matrices");
  bool ta = attr_i(n, "transA", 0), tb = gemm_tb(n);
  *M = ta ? a->dims[1] : a->dims[0];
  *K = ta ? a->dims[0] : a->dims[1];
  *N = tb ? b->dims[0] : b->dims[1];
  int64_t kb = tb ? b->dims[1] : b->dims[0];
  if (kb != *K) fail_node(ctx, n, "inner dimensions differ (%lld and %lld)", LL(*K), LL(kb));
}

/* C's broadcast: row and column counts (1 or M/N) */
static void gemm_c(Ctx *ctx, const Node *n, int64_t M, int64_t N, int64_t *cm, int64_t *cn) {
  Value *c = node_in(n, 2);
  *cm = *cn = 1;
  if (!c) return;
  if (c->rank > 2) fail_node(ctx, n, "C must have rank <= 2");
  if (c->rank == 2) *cm = c->dims[0];
  if (c->rank >= 1) *cn = c->dims[c->rank - 1];
  if ((*cm != 1 && *cm != M) || (*cn != 1 && *cn != N))
    fail_node(ctx, n, "C %s does not broadcast to [%lld,%lld]", shape_str(&ctx->arena, c), LL(M), LL(N));
}

static void gemm_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, n->fuse_add ? n->fuse_add + 1 : 3);
  require_dtype(ctx, n, 0, mm_types);
  int dt = n->inputs[0]->dtype;
  require_same_dtype(ctx, n, 1, dt);
  require_same_dtype(ctx, n, 2, dt);
  int64_t M, N, K, cm, cn;
  gemm_dims(ctx, n, &M, &N, &K);
  gemm_c(ctx, n, M, N, &cm, &cn);
  int64_t dims[2] = {M, N};
  value_set_shape(n->outputs[0], dt, 2, dims);
}

/* Accumulator type for integer matrix products (wrap-around like numpy). */
static const char *acc_type(int dt) {
  if (dtype_is_float(dt)) return ct_of(dt);
  return dtype_is_signed(dt) ? "int64_t" : "uint64_t";
}

/* Generic matrix product for float16/bfloat16 and integers: one sum per output element (ints
   accumulate in 64 bits and wrap like numpy).  aidx/bidx index A and B from m, n, k; `out`
   formats the result statement from the accumulator expression. */
static void emit_dot_generic(Emit *e, int dt, const char *A, const char *aidx, const char *B, const char *bidx,
                             int64_t M, int64_t N, int64_t K, const char *store_fmt, const char *alpha_beta) {
  const char *AT = acc_type(dt);
  loop(e, "m", M);
  loop(e, "n", N);
  ep(e, "%s acc = 0;", AT);
  loop(e, "k", K);
  if (dtype_is_float(dt))
    ep(e, "acc += %s * %s;", c_load(e, dt, fmt(e, "%s[%s]", A, aidx)), c_load(e, dt, fmt(e, "%s[%s]", B, bidx)));
  else
    ep(e, "acc += (%s)%s[%s] * (%s)%s[%s];", AT, A, aidx, AT, B, bidx);
  ep(e, "}");
  ep(e, store_fmt, c_store(e, dt, alpha_beta ? alpha_beta : "acc"));
  ep(e, "}");
  ep(e, "}");
}

/* ---- float32 products on templates/gemm.h ---------------------------------------------------- */

/* Y[M][N] = epilogue(A B) with A(m,k) = A[m*rs + k*cs] and B row-major [K][N]
   (onnxc_sgemm_a: packs A panel by panel on the stack).  bias: per column (cols) or per row;
   res: an addend laid out like Y. */
static void emit_fast_gemm(Emit *e, const Node *n, int64_t M, int64_t N, int64_t K, const char *A, int64_t rs,
                           int64_t cs, const char *B, const char *Y, const char *bias, bool cols, const char *res) {
  emit_use_template(e, "gemm");
  ep(e, "{");
  ep(e, "const onnxc_epi ep = %s;", epi_init(e, n, bias, cols, res, N));
  if (n->w_layout == W_GEMV) { /* one row, B in GEMV strips (optimize.c) */
    if (M != 1) fail_node(e->ctx, n, "internal: GEMV weight layout on a %lld-row product", LL(M));
    ep(e, "%s%lld, %lld, %s, %lld, %s, %s, &ep);", kcall(e, "onnxc_sgemv_p"), LL(N), LL(K), A, LL(cs), B, Y);
    ep(e, "}");
    return;
  }
  ep(e, "%s%lld, %lld, %lld, %s, %lld, %lld, %s, %lld, %s, %lld, &ep);", kcall(e, "onnxc_sgemm_a"), LL(M), LL(N), LL(K), A, LL(rs), LL(cs),
     B, LL(N), Y, LL(N));
  ep(e, "}");
}

/* Gemm on the fast path: float32, B as [K][N], C absent or a per-row/per-column bias or an
   addend of Y's shape (beta 1), at most one addend. */
typedef struct GemmFast { bool ok; const char *bias; bool cols; const char *res; } GemmFast;

static GemmFast gemm_fast(Ctx *ctx, const Node *n) {
  GemmFast f = {false, NULL, false, NULL};
  int64_t M, N, K, cm, cn;
  gemm_dims(ctx, n, &M, &N, &K);
  gemm_c(ctx, n, M, N, &cm, &cn);
  if (n->inputs[0]->dtype != DT_FLOAT || gemm_tb(n) || gemm_alpha(n) != 1.0 || M < 1 || N < 1 || K < 1) return f;
  double beta = attr_f(n, "beta", 1.0f);
  Value *c = node_in(n, 2);
  if (c && beta != 0) {
    if (beta != 1.0) return f;
    /* (one value and one column: a bias, before the residual case takes a 1x1 C, so that a
       fused residual Add still finds the residual slot free) */
    if (cm == 1 && cn == N && N > 1) { f.bias = "X2"; f.cols = true; }
    else if (cm == M && cn == 1 && M > 1) f.bias = "X2";
    else if (cm == 1 && cn == 1 && N == 1) { f.bias = "X2"; f.cols = true; }
    else if (cm == M && cn == N) f.res = "X2";
    else return f;
  }
  if (n->fuse_add) {
    if (f.res) return f;
    f.res = arena_printf(&ctx->arena, "X%d", n->fuse_add);
  }
  f.ok = true;
  return f;
}

static void gemm_emit(Emit *e, Node *n) {
  set_it(n, 0);
  int64_t M, N, K, cm, cn;
  gemm_dims(e->ctx, n, &M, &N, &K);
  gemm_c(e->ctx, n, M, N, &cm, &cn);
  int dt = n->inputs[0]->dtype;
  bool ta = attr_i(n, "transA", 0), tb = gemm_tb(n);
  double alpha = gemm_alpha(n), beta = attr_f(n, "beta", 1.0f);
  GemmFast f = gemm_fast(e->ctx, n);
  if (f.ok) {
    emit_fast_gemm(e, n, M, N, K, "X0", ta ? 1 : K, ta ? M : 1, "X1", "Y0", f.bias, f.cols, f.res);
    return;
  }
  if (n->w_layout == W_GEMV) fail_node(e->ctx, n, "internal: GEMV weight layout off the fast path");
  bool has_c = node_in(n, 2) && beta != 0;
  int ct = dtype_is_float(dt) ? ct_dt(dt) : dt;
  const char *cidx = fmt(e, "%s%s", cm > 1 ? fmt(e, "m * %lld", LL(cn)) : "0", cn > 1 ? " + n" : "");
  const char *aidx = ta ? fmt(e, "k * %lld + m", LL(M)) : fmt(e, "m * %lld + k", LL(K));
  const char *bidx = tb ? fmt(e, "n * %lld + k", LL(K)) : fmt(e, "k * %lld + n", LL(N));
  if (!is_native(dt) || (ta && tb)) {
    const char *AT = acc_type(dt), *v = "acc";
    if (dtype_is_float(dt)) {
      if (alpha != 1) v = fmt(e, "%s * acc", c_lit(e, ct, alpha));
      if (has_c) v = fmt(e, "%s + %s * %s", v, c_lit(e, ct, beta), c_load(e, dt, fmt(e, "X2[%s]", cidx)));
    } else {
      if (alpha != 1) v = fmt(e, "(%s)%lld * acc", AT, LL((int64_t)alpha));
      if (has_c) v = fmt(e, "%s + (%s)%lld * (%s)X2[%s]", v, AT, LL((int64_t)beta), AT, cidx);
    }
    emit_dot_generic(e, dt, "X0", aidx, "X1", bidx, M, N, K, fmt(e, "Y0[m * %lld + n] = %%s;", LL(N)), v);
    return;
  }
  const char *T = c_type(dt);
  /* Y = beta * C (or 0), then Y += alpha * A'B' */
  loop(e, "m", M);
  loop(e, "n", N);
  ep(e, "Y0[m * %lld + n] = %s;", LL(N), has_c ? (beta == 1 ? fmt(e, "X2[%s]", cidx) : fmt(e, "%s * X2[%s]", c_lit(e, dt, beta), cidx)) : "0");
  ep(e, "}");
  ep(e, "}");
  const char *al = alpha == 1 ? NULL : c_lit(e, dt, alpha);
  if (tb) {
    emit_gemm_nt(e, T, "X0", K, "X1", K, "Y0", N, M, N, K, al);
  } else {
    GemmNN g = {T, "X0", "X1", "Y0", fmt(e, "%lld", LL(N)), fmt(e, "%lld", LL(N)), al, ta ? 1 : K, ta ? M : 1, N, M, K};
    emit_gemm_nn(e, &g);
  }
  emit_post_epilogue(e, n);
}

/* ---- MatMul -------------------------------------------------------------------------------- */

typedef struct MMInfo {
  int64_t M, N, K;
  Value ob, ab, bb; /* batch shapes (rank/dims only) of output, A, B */
  int orank;
  int64_t odims[ONNXC_MAX_RANK];
} MMInfo;

static void matmul_info(Ctx *ctx, const Node *n, MMInfo *mi) {
  Value *a = n->inputs[0], *b = n->inputs[1];
  if (a->rank < 1 || b->rank < 1) fail_node(ctx, n, "MatMul operands must have rank >= 1");
  memset(mi, 0, sizeof *mi);
  mi->M = a->rank == 1 ? 1 : a->dims[a->rank - 2];
  mi->K = a->dims[a->rank - 1];
  int64_t kb = b->rank == 1 ? b->dims[0] : b->dims[b->rank - 2];
  mi->N = b->rank == 1 ? 1 : b->dims[b->rank - 1];
  if (kb != mi->K) fail_node(ctx, n, "inner dimensions differ (%lld and %lld)", LL(mi->K), LL(kb));
  mi->ab.rank = a->rank > 2 ? a->rank - 2 : 0;
  mi->bb.rank = b->rank > 2 ? b->rank - 2 : 0;
  memcpy(mi->ab.dims, a->dims, sizeof(int64_t) * (size_t)mi->ab.rank);
  memcpy(mi->bb.dims, b->dims, sizeof(int64_t) * (size_t)mi->bb.rank);
  if (!broadcast_shapes(mi->ab.rank, mi->ab.dims, mi->bb.rank, mi->bb.dims, &mi->ob.rank, mi->ob.dims))
    fail_node(ctx, n, "batch dims of %s and %s do not broadcast", shape_str(&ctx->arena, a), shape_str(&ctx->arena, b));
  mi->orank = mi->ob.rank;
  memcpy(mi->odims, mi->ob.dims, sizeof(int64_t) * (size_t)mi->orank);
  if (a->rank > 1) mi->odims[mi->orank++] = mi->M;
  if (b->rank > 1) mi->odims[mi->orank++] = mi->N;
}

static void matmul_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 2, n->fuse_add ? n->fuse_add + 1 : 2);
  require_dtype(ctx, n, 0, mm_types);
  require_same_dtype(ctx, n, 1, n->inputs[0]->dtype);
  MMInfo mi;
  matmul_info(ctx, n, &mi);
  value_set_shape(n->outputs[0], n->inputs[0]->dtype, mi.orank, mi.odims);
}

typedef struct MMBody { Node *n; MMInfo *mi; } MMBody;

static void matmul_body(Emit *e, void *arg) {
  MMBody *b = arg;
  MMInfo *mi = b->mi;
  int dt = b->n->inputs[0]->dtype;
  int64_t M = mi->M, N = mi->N, K = mi->K;
  const char *A = fmt(e, "(X0 + i0 * %lld)", LL(M * K)), *B = fmt(e, "(X1 + i1 * %lld)", LL(K * N));
  const char *C = fmt(e, "(Y0 + o * %lld)", LL(M * N));
  if (!is_native(dt)) {
    emit_dot_generic(e, dt, A, fmt(e, "m * %lld + k", LL(K)), B, fmt(e, "k * %lld + n", LL(N)), M, N, K,
                     fmt(e, "%s[m * %lld + n] = %%s;", C, LL(N)), NULL);
    return;
  }
  const char *T = c_type(dt);
  ep(e, "for (%s j = 0; j < %lld; j++) %s[j] = 0;", IT, LL(M * N), C);
  if (N == 1) {
    emit_gemm_nt(e, T, A, K, B, K, C, 1, M, 1, K, NULL);
  } else {
    GemmNN g = {T, A, B, C, fmt(e, "%lld", LL(N)), fmt(e, "%lld", LL(N)), NULL, K, 1, N, M, K};
    emit_gemm_nn(e, &g);
  }
}

/* MatMul on the fast path: float32, both operands at least matrices.  A 2-D B makes one
   product of all of A's rows; otherwise one per broadcast batch. */
static bool matmul_fast(Ctx *ctx, const Node *n, MMInfo *mi, int64_t *rows) {
  matmul_info(ctx, n, mi);
  Value *a = n->inputs[0], *b = n->inputs[1];
  if (a->dtype != DT_FLOAT || a->rank < 2 || b->rank < 2 || mi->M < 1 || mi->N < 1 || mi->K < 1) return false;
  *rows = b->rank == 2 ? value_numel(a) / mi->K : mi->M;
  return true;
}

typedef struct MMFast { Node *n; MMInfo *mi; const char *bias, *res; } MMFast;

static void matmul_fast_body(Emit *e, void *arg) {
  MMFast *f = arg;
  int64_t M = f->mi->M, N = f->mi->N, K = f->mi->K;
  emit_fast_gemm(e, f->n, M, N, K, fmt(e, "(X0 + i0 * %lld)", LL(M * K)), K, 1, fmt(e, "(X1 + i1 * %lld)", LL(K * N)),
                 fmt(e, "(Y0 + o * %lld)", LL(M * N)), f->bias, true,
                 f->res ? fmt(e, "(%s + o * %lld)", f->res, LL(M * N)) : NULL);
}

static void matmul_emit(Emit *e, Node *n) {
  set_it(n, 0);
  MMInfo mi;
  int64_t rows;
  bool fast = matmul_fast(e->ctx, n, &mi, &rows);
  const Value *ins[2] = {&mi.ab, &mi.bb};
  MMBody b = {n, &mi};
  if (value_numel(n->outputs[0]) == 0) return;
  if (mi.K == 0) {
    ep(e, "memset(Y0, 0, %lld);", LL(value_bytes(n->outputs[0])));
    emit_post_epilogue(e, n);
    return;
  }
  if (fast) {
    Value *add = n->fuse_add ? n->inputs[n->fuse_add] : NULL;
    bool col = add && value_numel(add) != value_numel(n->outputs[0]);
    const char *an = add ? fmt(e, "X%d", n->fuse_add) : NULL;
    if (n->inputs[1]->rank == 2) {
      emit_fast_gemm(e, n, rows, mi.N, mi.K, "X0", mi.K, 1, "X1", "Y0", col ? an : NULL, true, col ? NULL : an);
    } else {
      MMFast f = {n, &mi, col ? an : NULL, col ? NULL : an};
      emit_broadcast_loops(e, &mi.ob, ins, 2, matmul_fast_body, &f);
    }
    return;
  }
  emit_broadcast_loops(e, &mi.ob, ins, 2, matmul_body, &b);
  emit_post_epilogue(e, n);
}

/* ---- Dropout ------------------------------------------------------------------------------- */

static void dropout_infer(Ctx *ctx, Node *n) {
  require_inputs(ctx, n, 1, n->opset >= 12 ? 3 : 1);
  Value *x = n->inputs[0];
  require_dtype(ctx, n, 0, float_types);
  if (node_in(n, 1) && (value_numel(n->inputs[1]) != 1 || !dtype_is_float(n->inputs[1]->dtype)))
    fail_node(ctx, n, "ratio must be a float scalar");
  if (node_in(n, 2) && (value_numel(n->inputs[2]) != 1 || n->inputs[2]->dtype != DT_BOOL))
    fail_node(ctx, n, "training_mode must be a bool scalar");
  value_set_shape(n->outputs[0], x->dtype, x->rank, x->dims);
  if (n->n_outputs > 1 && n->outputs[1])
    value_set_shape(n->outputs[1], n->opset >= 10 ? DT_BOOL : x->dtype, x->rank, x->dims);
}

/* Whether Dropout drops: 0 never, 1 always, 2 as training_mode says at run time. */
static int dropout_training(const Node *n) {
  if (n->opset < 12) return 0;
  Value *t = node_in(n, 2), *r = node_in(n, 1);
  int train = t ? (t->data ? const_get_i(t, 0) != 0 : 2) : 0;
  if (r && r->data && const_get_f(r, 0) == 0) train = 0;
  return train;
}

/* training mode: the generator state (ops_random.c) */
static int64_t dropout_scratch(Ctx *ctx, Node *n) {
  (void)ctx;
  return dropout_training(n) && value_numel(n->inputs[0]) > 0 ? rng_state_bytes() : 0;
}

static void dropout_emit(Emit *e, Node *n) {
  set_it(n, 0);
  Value *x = n->inputs[0];
  int dt = x->dtype;
  int64_t cnt = value_numel(x);
  bool has_mask = n->n_outputs > 1 && n->outputs[1];
  int mdt = has_mask ? n->outputs[1]->dtype : DT_BOOL;
  /* training flag and ratio: compile-time when known */
  int train = dropout_training(n);
  const char *ratio = c_lit(e, DT_FLOAT, 0.5);
  Value *r = n->opset >= 12 ? node_in(n, 1) : NULL;
  if (r) ratio = r->data ? c_lit(e, DT_FLOAT, const_get_f(r, 0)) : fmt(e, "(float)%s", c_load(e, r->dtype, "X1[0]"));
  ep(e, "if (Y0 != X0) memmove(Y0, X0, %lld);", LL(value_bytes(x)));
  if (has_mask) ep(e, "if (Y1) for (%s i = 0; i < %lld; i++) Y1[i] = %s;", IT, LL(cnt), c_store(e, mdt, "1"));
  if (!train || cnt == 0) return;
  /* numpy RandomState(seed).uniform(size=cnt) >= ratio keeps an element */
  ep(e, "{");
  ep(e, "const float ratio = %s;", ratio);
  ep(e, "if (%sratio != 0) {", train == 2 ? "X2[0] && " : "");
  emit_rng_init(e, (uint32_t)attr_i(n, "seed", 0));
  ep(e, "const float scale = 1.0f / (1.0f - ratio);");
  loop(e, "i", cnt);
  ep(e, "if (onnxc_rng_double(rng) >= (double)ratio) {");
  ep(e, "Y0[i] = %s;", c_store(e, dt, fmt(e, "%s * scale", c_load(e, dt, "X0[i]"))));
  ep(e, "} else {");
  ep(e, "Y0[i] = %s;", c_store(e, dt, "0"));
  if (has_mask) ep(e, "if (Y1) Y1[i] = %s;", c_store(e, mdt, "0"));
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
  ep(e, "}");
}

/* ---- ConvPool: a convolution and the max pooling that alone reads it ------------------------
   optimize.c fuses a 2-D Conv (one group, no dilation, no residual addend, the im2col or
   onnxc_conv_sc form) whose output only a 2-D MaxPool reads (no indices, no dilation, every
   window over the input) into one node: templates/conv.h onnxc_conv_mp computes the convolution
   in bands of rows into a scratch band that the pooling then reads, so the convolution's output
   (ResNet-18's stem: 64 x 112 x 112 floats, 3.2 MB) never goes through memory.  Not an ONNX op
   and not in the op table (like DwBlock).  Inputs: X0 the image, X1 the packed weight, X2 the
   bias (or NULL); the Conv's fused activation stays on its (dead) node. */

typedef struct ConvPool {
  Node *conv, *pool; /* absorbed (dead) */
} ConvPool;

#define CONVPOOL_BAND (256 * 1024) /* target bytes of the band of convolution rows */

/* The Conv's one-thread form without a scratch cap (the band takes the node's cap) and the
   pooling's geometry. */
static void convpool_info(Ctx *ctx, const Node *n, ConvInfo *ci, Geo *pg) {
  const ConvPool *cp = n->priv;
  const int threads = ctx->threads;
  cp->conv->scratch_cap = -1;
  ctx->threads = 1;
  conv_info(ctx, cp->conv, ci);
  ctx->threads = threads;
  pool_info(ctx, cp->pool, pg, POOL_MAX);
}

typedef struct ConvPoolPlan {
  int64_t T;       /* tasks (--threads): shares of the pooled rows */
  int64_t conv_f;  /* floats of the convolution's scratch (im2col tile or onnxc_conv_sc band) */
  int64_t CR;      /* convolution rows per band */
  int64_t part;    /* floats of one task's scratch: conv_f, then the band (64-byte multiples) */
} ConvPoolPlan;

static void convpool_plan(Ctx *ctx, const Node *n, const ConvInfo *ci, const Geo *pg, ConvPoolPlan *pl) {
  const int64_t OW = ci->g.out[1], POH = pg->out[0], row = ci->M * OW * 4, cap = n->scratch_cap;
  pl->T = ctx->threads > 1 && POH >= 4 * ctx->threads ? ctx->threads : 1;
  pl->conv_f = (ci->KB * ci->TR * OW + 15) / 16 * 16;
  int64_t lim = CONVPOOL_BAND;
  if (cap >= 0 && cap / pl->T - pl->conv_f * 4 < lim) lim = cap / pl->T - pl->conv_f * 4;
  int64_t share = (POH + pl->T - 1) / pl->T, PB = (lim / row - pg->k[0]) / pg->s[0] + 1;
  if (PB < 1) PB = 1;
  if (PB > share) PB = share;
  int64_t bands = (share + PB - 1) / PB; /* equal bands */
  PB = (share + bands - 1) / bands;
  pl->CR = (PB - 1) * pg->s[0] + pg->k[0];
  if (pl->CR > ci->g.out[0]) pl->CR = ci->g.out[0];
  pl->part = pl->conv_f + (ci->M * pl->CR * OW + 15) / 16 * 16;
}

static int64_t convpool_scratch(Ctx *ctx, Node *n) {
  ConvInfo ci;
  Geo pg;
  ConvPoolPlan pl;
  convpool_info(ctx, n, &ci, &pg);
  convpool_plan(ctx, n, &ci, &pg, &pl);
  return pl.T * pl.part * 4;
}

static void convpool_infer(Ctx *ctx, Node *n) {
  (void)ctx;
  const ConvPool *cp = n->priv;
  const Value *y = cp->pool->outputs[0];
  value_set_shape(n->outputs[0], y->dtype, y->rank, y->dims);
}

static void convpool_emit(Emit *e, Node *n) {
  const ConvPool *cp = n->priv;
  ConvInfo ci;
  Geo pg;
  ConvPoolPlan pl;
  convpool_info(e->ctx, n, &ci, &pg);
  convpool_plan(e->ctx, n, &ci, &pg, &pl);
  set_it(n, 0);
  emit_use_template(e, "gemm");
  emit_use_template(e, "conv");
  const Geo *g = &ci.g;
  const int64_t POHW = pg.out[0] * pg.out[1];
  loop(e, "nb", ci.N);
  ep(e, "const onnxc_epi ep = %s;", epi_init(e, cp->conv, node_in(n, 2) ? "X2" : NULL, false, NULL, ci.OHW));
  const char *args = fmt(e, "%d, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, X0 + nb * %lld, X1, &ep, (float *)W, %lld, %lld, %lld, "
                         "%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, Y0 + nb * %lld",
                         ci.sc ? 1 : 0, LL(ci.M), LL(ci.C), LL(g->in[0]), LL(g->in[1]), LL(g->k[0]), LL(g->k[1]), LL(g->s[0]),
                         LL(g->s[1]), LL(g->pb[0]), LL(g->pb[1]), LL(g->out[0]), LL(g->out[1]), LL(ci.C * ci.IHW),
                         LL(ci.sc ? ci.scR : 0), LL(ci.KB), LL(ci.TR), LL(pg.k[0]), LL(pg.k[1]), LL(pg.s[0]), LL(pg.s[1]),
                         LL(pg.pb[0]), LL(pg.pb[1]), LL(pg.out[0]), LL(pg.out[1]), LL(ci.M * POHW));
  if (pl.T > 1) {
    emit_use_template(e, "par");
    ep(e, "onnxc_conv_mp_par(%lld, %s, %lld, %lld, %lld);", LL(pl.T), args, LL(pl.CR), LL(pl.conv_f), LL(pl.part));
  } else {
    ep(e, "onnxc_conv_mp(%s, (float *)W + %lld, %lld, 0, %lld);", args, LL(pl.conv_f), LL(pl.CR), LL(pg.out[0]));
  }
  ep(e, "}");
}

static const OpDef convpool_row = {"ConvPool", "onnxc", 1, ONNXC_MAX_OPSET, 0, convpool_infer, NULL, convpool_emit,
                                   convpool_scratch, "float", NULL};

Node *conv_pool_fuse(Ctx *ctx, Graph *g, Node *conv, Node *pool) {
  ConvInfo ci;
  Geo pg;
  if (conv->dead || pool->dead || conv->fuse_add || conv->fuse_scale || !conv->orig_w || conv->w_layout != W_PANELS) return NULL;
  if (conv->n_outputs != 1 || conv->inputs[0]->rank != 4 || conv->inputs[0]->dtype != DT_FLOAT) return NULL;
  if (pool->n_outputs > 1 && pool->outputs[1]) return NULL; /* indices */
  if (pool->inputs[0] != conv->outputs[0] || pool->outputs[0]->dtype != DT_FLOAT) return NULL;
  const int64_t cap = conv->scratch_cap;
  conv->scratch_cap = -1;
  conv_info(ctx, conv, &ci);
  conv->scratch_cap = cap;
  pool_info(ctx, pool, &pg, POOL_MAX);
  if (!ci.fast || ci.direct || ci.same || ci.dw || ci.wino || ci.convt || ci.pointwise || ci.G != 1 || ci.g.r != 2) return NULL;
  if (ci.g.d[0] != 1 || ci.g.d[1] != 1 || pg.r != 2 || pg.d[0] != 1 || pg.d[1] != 1 || !windows_nonempty(&pg)) return NULL;
  ConvPool *cp = arena_alloc(&ctx->arena, sizeof *cp);
  cp->conv = conv;
  cp->pool = pool;
  Node *f = graph_new_node(ctx, g, "ConvPool", arena_printf(&ctx->arena, "%s_pool", conv->name), 3, 1);
  f->domain = "onnxc";
  f->opset = 1;
  f->def = &convpool_row;
  f->priv = cp;
  f->inputs[0] = conv->inputs[0];
  f->inputs[1] = conv->inputs[1];
  f->inputs[2] = node_in(conv, 2);
  f->n_explicit = 3;
  f->outputs[0] = pool->outputs[0];
  f->outputs[0]->producer = f;
  conv->dead = pool->dead = true;
  return f;
}

/* ---- ConvDw: a convolution, the depthwise convolution that alone reads it, and the 1x1
   projection reading only that -----------------------------------------------------------------
   optimize.c fuses the stems of MobileNetV1/V2 and MLPerf's DS-CNN and VWW (a Conv in the
   im2col or onnxc_conv_sc form, then a depthwise Conv, then a 1x1 Conv) into one node computed
   in bands of depthwise output rows, as DwBlock's planar form (ops_fused.c) with the stem in
   place of the 1x1 expansion: per band the stem's rows the depthwise convolution reads go into
   S1 (rows the previous band computed move up; rows outside the image are its zero padding),
   the depthwise output into S2, its projection into the band's output rows.  Neither the
   stem's output nor the depthwise output goes through memory (MobileNetV2: 2 x 1.6 MB).
   Without a projection (EfficientNet's stem: its depthwise output feeds a squeeze-and-excitation
   block, then the projection that the excitation scales) the band's depthwise rows go to the
   node's output, and with plane means (optimize.c fuse_plane_means) the depthwise kernel sums
   them as it writes them: only the stem's output stays out of memory.
   Inputs: X0 the image, X1 the stem's packed weight, X2 its bias, X3 the depthwise weight, X4
   its bias, X5 the projection's packed weight, X6 its bias, X7 its residual (NULL where absent). */

static const OpDef convdw_row;

typedef struct ConvDw {
  Node *conv, *dw, *pj; /* absorbed (dead) */
  ConvShape d;          /* the depthwise convolution */
  int64_t Cout;         /* the projection's output channels (without one: the depthwise channels) */
} ConvDw;

#define CONVDW_BAND (256 * 1024) /* target bytes of S1 and S2 */

/* The stem's one-thread form without a scratch cap (the node takes the cap). */
static void convdw_conv_info(Ctx *ctx, const ConvDw *cd, ConvInfo *ci) {
  const int threads = ctx->threads;
  const int64_t cap = cd->conv->scratch_cap;
  cd->conv->scratch_cap = -1;
  ctx->threads = 1;
  conv_info(ctx, cd->conv, ci);
  ctx->threads = threads;
  cd->conv->scratch_cap = cap;
}

/* Input rows of a band of R depthwise output rows. */
static int64_t convdw_rin(const ConvDw *cd, int64_t R) { return (R - 1) * cd->d.s[0] + (cd->d.k[0] - 1) * cd->d.d[0] + 1; }

/* Depthwise output rows per band: S1 and S2 within CONVDW_BAND, or the node's scratch cap. */
static int64_t convdw_rows(const ConvDw *cd, int64_t cap, int64_t conv_f) {
  const ConvShape *d = &cd->d;
  int64_t R = d->out[0];
  while (R > 1) {
    const int64_t b = (d->C * convdw_rin(cd, R) * d->in[1] + (cd->pj ? d->C * R * d->out[1] : 0)) * 4;
    if (b <= CONVDW_BAND && (cap < 0 || b + conv_f * 4 <= cap)) break;
    R = (R + 1) / 2;
  }
  return R;
}

static int64_t convdw_conv_f(const ConvInfo *ci) { return (ci->KB * ci->TR * ci->g.out[1] + 15) / 16 * 16; }

static int64_t convdw_scratch(Ctx *ctx, Node *n) {
  const ConvDw *cd = n->priv;
  ConvInfo ci;
  convdw_conv_info(ctx, cd, &ci);
  const int64_t conv_f = convdw_conv_f(&ci), R = convdw_rows(cd, n->scratch_cap, conv_f);
  const int64_t s1 = (cd->d.C * convdw_rin(cd, R) * cd->d.in[1] + 15) / 16 * 16;
  const int64_t s2 = cd->pj ? (cd->d.C * R * cd->d.out[1] + 15) / 16 * 16 : 0; /* without a projection: no S2 */
  return (s1 + s2 + conv_f) * 4;
}

static void convdw_infer(Ctx *ctx, Node *n) {
  (void)ctx;
  const ConvDw *cd = n->priv;
  const Value *y = (cd->pj ? cd->pj : cd->dw)->outputs[0];
  value_set_shape(n->outputs[0], y->dtype, y->rank, y->dims);
}

/* Whether n is a ConvDw without a projection (its output the depthwise output, whose plane
   means it can give as a second output). */
bool conv_dw_plain(const Node *n) {
  const ConvDw *cd = n->priv;
  return n->def == &convdw_row && !cd->pj;
}

static void convdw_emit(Emit *e, Node *n) {
  const ConvDw *cd = n->priv;
  const ConvShape *d = &cd->d;
  ConvInfo ci;
  convdw_conv_info(e->ctx, cd, &ci);
  const int64_t conv_f = convdw_conv_f(&ci), R = convdw_rows(cd, n->scratch_cap, conv_f);
  const int64_t C = d->C, IH = d->in[0], IW = d->in[1], OH = d->out[0], OW = d->out[1], OHW = OH * OW;
  const int64_t s1f = (C * convdw_rin(cd, R) * IW + 15) / 16 * 16, s2f = cd->pj ? (C * R * OW + 15) / 16 * 16 : 0;
  const Geo *g = &ci.g;
  set_it(n, 0);
  emit_use_template(e, "gemm");
  emit_use_template(e, "conv");
  if (cd->pj) ep(e, "float *s1 = (float *)W, *s2 = s1 + %lld, *cw = s2 + %lld;", LL(s1f), LL(s2f));
  else ep(e, "float *s1 = (float *)W, *cw = s1 + %lld;", LL(s1f));
  ep(e, "const onnxc_epi ec = %s;", epi_init(e, cd->conv, node_in(n, 2) ? "X2" : NULL, false, NULL, ci.OHW));
  const bool means = !cd->pj && n->n_outputs > 1 && n->outputs[1];
  ep(e, "%sonnxc_epi ed = %s;", means ? "" : "const ", epi_init(e, cd->dw, node_in(n, 4) ? "X4" : NULL, false, NULL, OHW));
  ep(e, "(void)cw;");
  loop(e, "nb", d->N);
  ep(e, "const float *x = X0 + nb * %lld;", LL(ci.C * ci.IHW));
  ep(e, "float *y = Y0 + nb * %lld;", LL(cd->Cout * OHW));
  if (means) {
    ep(e, "ed.sum = Y1 + nb * %lld;", LL(C));
    ep(e, "for (int c = 0; c < %lld; c++) ed.sum[c] = 0.0f;", LL(C));
  }
  ep(e, "int prev_top = 0, prev_rows = 0;");
  ep(e, "for (int o0 = 0; o0 < %lld; o0 += %lld) {", LL(OH), LL(R));
  ep(e, "const int on = %lld - o0 < %lld ? %lld - o0 : %lld;", LL(OH), LL(R), LL(OH), LL(R));
  ep(e, "const int top = o0 * %lld - %lld, rows = (on - 1) * %lld + %lld;", LL(d->s[0]), LL(d->pb[0]), LL(d->s[0]),
     LL((d->k[0] - 1) * d->d[0] + 1));
  ep(e, "int j0 = 0, jz;");
  /* rows the previous band of the same height computed: moved up, not computed again */
  ep(e, "if (rows == prev_rows && top - prev_top < rows) {");
  ep(e, "j0 = rows - (top - prev_top);");
  ep(e, "for (int c = 0; c < %lld; c++) memmove(s1 + (long)c * rows * %lld, s1 + (long)c * rows * %lld + (long)(top - prev_top) * %lld, sizeof(float) * (size_t)j0 * %lld);",
     LL(C), LL(IW), LL(IW), LL(IW), LL(IW));
  ep(e, "}");
  /* rows above and below the stem's output are the depthwise kernel's zero padding */
  ep(e, "for (; j0 < rows && top + j0 < 0; j0++)");
  ep(e, "  for (int c = 0; c < %lld; c++) memset(s1 + ((long)c * rows + j0) * %lld, 0, sizeof(float) * %lld);", LL(C), LL(IW), LL(IW));
  ep(e, "jz = %lld - top < rows ? %lld - top : rows;", LL(IH), LL(IH));
  ep(e, "if (jz < j0) jz = j0;");
  ep(e, "for (int j = jz; j < rows; j++)");
  ep(e, "  for (int c = 0; c < %lld; c++) memset(s1 + ((long)c * rows + j) * %lld, 0, sizeof(float) * %lld);", LL(C), LL(IW), LL(IW));
  /* the stem's output rows top + j0 .. top + jz - 1 into S1 (its row top at S1's row 0) */
  ep(e, "if (jz > j0) {");
  if (ci.sc) {
    ep(e, "#if defined(ONNXC_AVX512) || defined(ONNXC_AVX2)");
    ep(e, "onnxc_conv_sc_rb(%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, x, X1, s1, (long)rows * %lld, top, &ec, cw, %lld, top + j0, top + jz);",
       LL(ci.M), LL(ci.C), LL(g->in[0]), LL(g->in[1]), LL(g->k[0]), LL(g->k[1]), LL(g->s[0]), LL(g->pb[0]), LL(g->pb[1]),
       LL(g->out[0]), LL(g->out[1]), LL(IW), LL(ci.scR));
    ep(e, "#else");
  }
  ep(e, "onnxc_conv_i2c_rb(%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, 1, 1, %lld, %lld, %lld, x, X1, s1, (long)rows * %lld, top, &ec, cw, %lld, top + j0, top + jz, 0, %lld);",
     LL(ci.M), LL(ci.C * g->k[0] * g->k[1]), LL(ci.KB), LL(g->in[0]), LL(g->in[1]), LL(g->k[0]), LL(g->k[1]), LL(g->s[0]),
     LL(g->s[1]), LL(g->pb[0]), LL(g->pb[1]), LL(g->out[1]), LL(IW), LL(ci.TR), LL(ci.M));
  if (ci.sc) ep(e, "#endif");
  ep(e, "}");
  if (!cd->pj) {
    /* a channel per call, each straight into its output plane's band rows (through S2 and a
       copy, the copy alone took 153k of EfficientNet-B0's 1.36M TSC ticks) */
    ep(e, "for (int c = 0; c < %lld; c++) {", LL(C));
    ep(e, "onnxc_epi el = ed;");
    if (node_in(n, 4)) ep(e, "el.bias = X4 + c;");
    if (means) ep(e, "el.sum = ed.sum + c;");
    ep(e, "onnxc_dw2d(1, 1, s1 + (long)c * rows * %lld, rows, %lld, X3 + c * %lld, %lld, %lld, %lld, %lld, 0, %lld, %lld, %lld, y + (long)c * %lld + (long)o0 * %lld, on, %lld, &el);",
       LL(IW), LL(IW), LL(d->k[0] * d->k[1]), LL(d->k[0]), LL(d->k[1]), LL(d->s[0]), LL(d->s[1]), LL(d->pb[1]), LL(d->d[0]),
       LL(d->d[1]), LL(OHW), LL(OW), LL(OW));
    ep(e, "}");
  } else {
    ep(e, "onnxc_dw2d(%lld, 1, s1, rows, %lld, X3, %lld, %lld, %lld, %lld, 0, %lld, %lld, %lld, s2, on, %lld, &ed);", LL(C), LL(IW),
       LL(d->k[0]), LL(d->k[1]), LL(d->s[0]), LL(d->s[1]), LL(d->pb[1]), LL(d->d[0]), LL(d->d[1]), LL(OW));
    const char *res = node_in(n, 7) ? fmt(e, "X7 + nb * %lld + (long)o0 * %lld", LL(cd->Cout * OHW), LL(OW)) : NULL;
    ep(e, "const onnxc_epi ej = %s;", epi_init(e, cd->pj, node_in(n, 6) ? "X6" : NULL, false, res, OHW));
    ep(e, "onnxc_sgemm(%lld, on * %lld, %lld, X5, 8, s2, (long)on * %lld, y + (long)o0 * %lld, %lld, &ej);", LL(cd->Cout), LL(OW),
       LL(C), LL(OW), LL(OW), LL(OHW));
  }
  ep(e, "prev_top = top;");
  ep(e, "prev_rows = rows;");
  ep(e, "}");
  if (means) ep(e, "for (int c = 0; c < %lld; c++) ed.sum[c] /= %s;", LL(C), c_lit(e, DT_FLOAT, (double)OHW));
  ep(e, "}");
}

static const OpDef convdw_row = {"ConvDw", "onnxc", 1, ONNXC_MAX_OPSET, 0, convdw_infer, NULL, convdw_emit,
                                 convdw_scratch, "float", NULL};

Node *conv_dw_fuse(Ctx *ctx, Graph *g, Node *conv, Node *dw, Node *pj) {
  ConvInfo ci;
  ConvShape sd, sp;
  if (ctx->threads > 1) return NULL; /* one thread: the form has no task split */
  if (conv->dead || dw->dead || conv->fuse_add || conv->fuse_scale || !conv->orig_w || conv->w_layout != W_PANELS) return NULL;
  if (conv->n_outputs != 1 || conv->inputs[0]->rank != 4 || conv->inputs[0]->dtype != DT_FLOAT) return NULL;
  if (*dw->domain || strcmp(dw->op_type, "Conv") || dw->orig_w || dw->fuse_add || dw->fuse_scale || dw->n_outputs != 1) return NULL;
  if (dw->inputs[0] != conv->outputs[0] || dw->inputs[0]->rank != 4 || !dw->inputs[1]->data) return NULL;
  conv_shape(ctx, dw, &sd);
  if (!sd.dw_form || sd.Cg != 1 || sd.Mg != 1 || sd.r != 2) return NULL;
  /* 3x3, stride 1, "same", rows of 16 or more: onnxc_dw2d's row form on the bands (PH = 0, two
     more input rows than output rows; the stems of MobileNetV1/V2).  Other shapes would reach
     forms whose scratch bound GCC cannot see with a run-time band height (-Warray-bounds). */
  if (sd.k[0] != 3 || sd.k[1] != 3 || sd.s[0] != 1 || sd.s[1] != 1 || sd.d[0] != 1 || sd.d[1] != 1 || sd.pb[0] != 1 ||
      sd.pb[1] != 1 || sd.pe[0] != 1 || sd.pe[1] != 1 || sd.out[1] < 16)
    return NULL;
  {
    const int64_t cap = conv->scratch_cap;
    conv->scratch_cap = -1;
    conv_info(ctx, conv, &ci);
    conv->scratch_cap = cap;
  }
  if (!ci.fast || ci.direct || ci.same || ci.dw || ci.wino || ci.convt || ci.pointwise || ci.G != 1 || ci.g.r != 2) return NULL;
  if (ci.g.d[0] != 1 || ci.g.d[1] != 1 || ci.N != sd.N || ci.M != sd.C) return NULL;
  if (pj && (!packed_pointwise(ctx, pj, &sp) || pj->inputs[0] != dw->outputs[0])) pj = NULL;
  ConvDw *cd = arena_alloc(&ctx->arena, sizeof *cd);
  cd->conv = conv;
  cd->dw = dw;
  cd->pj = pj;
  cd->d = sd;
  cd->Cout = pj ? sp.M : sd.C;
  Node *f = graph_new_node(ctx, g, "ConvDw", arena_printf(&ctx->arena, "%s_dw", conv->name), 8, 1);
  f->domain = "onnxc";
  f->opset = 1;
  f->def = &convdw_row;
  f->priv = cd;
  Value *in[8] = {conv->inputs[0], conv->inputs[1], node_in(conv, 2), dw->inputs[1], node_in(dw, 2),
                  pj ? pj->inputs[1] : NULL, pj ? node_in(pj, 2) : NULL, pj && pj->fuse_add ? pj->inputs[pj->fuse_add] : NULL};
  for (int k = 0; k < 8; k++) f->inputs[k] = in[k];
  f->n_explicit = 8;
  f->outputs[0] = (pj ? pj : dw)->outputs[0];
  f->outputs[0]->producer = f;
  conv->dead = dw->dead = true;
  if (pj) pj->dead = true;
  return f;
}

/* ---- rows ---------------------------------------------------------------------------------- */

#define FT "float, double, float16, bfloat16"
#define R(name, since, until, infer, emit, scratch, types) \
  {name, "", since, until, 0, infer, NULL, emit, scratch, types, NULL}
/* rows whose emitter has a parallel form for the CUDA backend (emit_par_for/emit_par_nest) */
#define RP(name, since, until, infer, emit, scratch, types) \
  {name, "", since, until, OPF_PARALLEL, infer, NULL, emit, scratch, types, NULL}

static const OpDef nn_rows[] = {
    R("Conv", 1, ONNXC_MAX_OPSET, conv_infer, conv_emit, conv_scratch, FT),
    RP("ConvTranspose", 1, ONNXC_MAX_OPSET, convt_infer, convt_emit, NULL, FT),
    RP("MaxPool", 1, ONNXC_MAX_OPSET, pool_infer, pool_emit, NULL, FT ", int8, uint8"),
    RP("AveragePool", 1, ONNXC_MAX_OPSET, pool_infer, pool_emit, NULL, FT),
    RP("LpPool", 1, ONNXC_MAX_OPSET, pool_infer, pool_emit, NULL, FT),
    RP("GlobalAveragePool", 1, ONNXC_MAX_OPSET, gpool_infer, gpool_emit, NULL, FT),
    RP("GlobalMaxPool", 1, ONNXC_MAX_OPSET, gpool_infer, gpool_emit, NULL, FT),
    RP("GlobalLpPool", 1, ONNXC_MAX_OPSET, gpool_infer, gpool_emit, NULL, FT),
    R("MaxUnpool", 9, ONNXC_MAX_OPSET, unpool_infer, unpool_emit, NULL, FT),
    RP("BatchNormalization", 1, 8, bn_infer, bn_emit, NULL, FT " (is_test, spatial)"),
    RP("BatchNormalization", 9, 13, bn_infer, bn_emit, NULL, FT),
    RP("BatchNormalization", 14, ONNXC_MAX_OPSET, bn_infer, bn_emit, NULL, FT " (training_mode)"),
    R("InstanceNormalization", 1, ONNXC_MAX_OPSET, instnorm_infer, instnorm_emit, NULL, FT),
    RP("LayerNormalization", 17, ONNXC_MAX_OPSET, layernorm_infer, layernorm_emit, NULL, FT),
    R("GroupNormalization", 18, 20, groupnorm_infer, groupnorm_emit, NULL, FT " (scale per group)"),
    R("GroupNormalization", 21, ONNXC_MAX_OPSET, groupnorm_infer, groupnorm_emit, NULL, FT " (scale per channel)"),
    RP("RMSNormalization", 23, ONNXC_MAX_OPSET, layernorm_infer, layernorm_emit, NULL, FT),
    R("LRN", 1, ONNXC_MAX_OPSET, lrn_infer, lrn_emit, NULL, FT),
    R("LpNormalization", 1, ONNXC_MAX_OPSET, lpnorm_infer, lpnorm_emit, NULL, FT),
    R("MeanVarianceNormalization", 9, ONNXC_MAX_OPSET, mvn_infer, mvn_emit, mvn_scratch, FT),
    R("Gemm", 1, ONNXC_MAX_OPSET, gemm_infer, gemm_emit, NULL, FT ", int32, int64, uint32, uint64"),
    R("MatMul", 1, ONNXC_MAX_OPSET, matmul_infer, matmul_emit, NULL, FT ", int32, int64, uint32, uint64"),
    R("Dropout", 1, 11, dropout_infer, dropout_emit, NULL, FT " (inference)"),
    R("Dropout", 12, ONNXC_MAX_OPSET, dropout_infer, dropout_emit, dropout_scratch, FT " (training_mode with seed)"),
};
OPS_FAMILY(nn);

/* ---- geometry for other backends (codegen/cuda) -------------------------------------------- */

static void shape_from_geo(ConvShape *cs, const Geo *g) {
  cs->r = g->r;
  for (int i = 0; i < g->r; i++) {
    cs->in[i] = g->in[i];
    cs->k[i] = g->k[i];
    cs->out[i] = g->out[i];
    cs->s[i] = g->s[i];
    cs->d[i] = g->d[i];
    cs->pb[i] = g->pb[i];
    cs->pe[i] = g->pe[i];
  }
}

void conv_shape(Ctx *ctx, const Node *n, ConvShape *cs) {
  ConvInfo ci;
  conv_info(ctx, n, &ci);
  shape_from_geo(cs, &ci.g);
  cs->N = ci.N;
  cs->C = ci.C;
  cs->M = ci.M;
  cs->G = ci.G;
  cs->Cg = ci.Cg;
  cs->Mg = ci.Mg;
  cs->pointwise = ci.pointwise;
  cs->dw_form = ci.dw;
}

void pool_shape(Ctx *ctx, const Node *n, ConvShape *cs) {
  Geo g;
  pool_info(ctx, n, &g, pool_kind(n));
  shape_from_geo(cs, &g);
  cs->N = n->inputs[0]->dims[0];
  cs->C = cs->M = cs->G = n->inputs[0]->dims[1];
  cs->Cg = cs->Mg = 1;
  cs->pointwise = cs->dw_form = false;
}
