/*
 * ops_fused.c - DwBlock: a 1x1 expansion, a depthwise convolution and (optionally) a 1x1
 * projection run together in bands of output rows (the inverted-residual block of MobileNetV2,
 * EfficientNet, MobileNetV3; optimize.c builds it).
 *
 * Run one after another, the three convolutions write the expanded tensor (6x the block's
 * channels, e.g. 96 x 112 x 112 floats = 4.8 MB) to memory and read it back, and the same for
 * the depthwise output: on the large early planes those layers are memory-bound.  The fused
 * form computes, per band of R output rows,
 *   1. the expansion for the input rows the band's taps read, into scratch S1 (channel planes
 *      of the band's rows; rows outside the image are zero, so the depthwise kernel sees no
 *      vertical padding),
 *   2. the depthwise convolution of S1 into scratch S2 (channel planes of R rows),
 *   3. the projection of S2 into the output rows of the band (with the fused residual addend
 *      and activation), or without a projection, S2 copied into the output rows (one band:
 *      the depthwise output goes there directly),
 * with R chosen so that S1 and S2 stay in the L2 cache.  Consecutive bands of equal height
 * share (KH-1)*DH + 1 - SH input rows: those move to the top of S1 instead of being computed
 * again.  Each step calls the same kernel as the unfused node (onnxc_sgemm, onnxc_dw2d) with
 * the same epilogues, so every sum is taken in the same order as there; only the depthwise
 * kernel's form may differ per band (its taps are summed in another order: rounding).
 *
 * On AVX-512 targets (one thread, at most 49 taps and 512 input channels) the block takes the
 * channel-lanes form instead (templates/conv.h onnxc_dwb16, the generated code picks the form
 * by #if): S1 holds the expanded tensor as 16-channel vectors per pixel in a zero-padded
 * window (the layout the depthwise kernel with channels in lanes reads), written directly by a
 * 1x1 kernel that keeps 16 output channels in the lanes (the weights from the same packed
 * panels), so neither the expansion's output nor the depthwise input is ever transposed; only
 * the depthwise output goes back to planes (into S2 for the projection, else straight into the
 * output rows).  On a small plane (a padded window of at most 1024 pixels) one band covers it
 * and the channel groups take turns in one L1-sized window.  Measured on a Zen 4 core (whole
 * models, 12 alternating rounds, median ratio against the planar form): EfficientNet-B0 0.963,
 * MobileNetV2 0.980.  AVX2 targets (one thread) take the same form with groups of 8 channels
 * (onnxc_dwb8): per block 0.58-0.88x the planar form's time on EfficientNet-B0, MobileNetV2 and
 * MobileNetV3-Small (x86-64-v3 on a Zen 4 core).
 *
 * Not an ONNX op and not in the op table (like FusedElementwise).  Inputs: X0 the block input,
 * X1/X2 the packed expansion weight and its bias, X3/X4 the depthwise weight (ONNX layout) and
 * bias, X5/X6 the packed projection weight and bias, X7 the projection's residual addend; the
 * absent ones are NULL.
 */
#include <string.h>

#include "onnxc.h"

#define LL(x) ((long long)(x))
#define BAND_BYTES (384 * 1024) /* S1 + S2 target: within a 1 MiB L2 with room for weights */
/* the lanes form's limits, as templates/conv.h has them */
#define LANES_TAPS 49        /* ONNXC_KPMAX: depthwise taps */
#define LANES_CIN 512        /* ONNXC_DWB_KMAX: expansion inputs (its weight table on the stack) */
#define LANES_WINDOW 1024    /* ONNXC_DWC_PIX: padded pixels of a shared window */

typedef struct DwBlock {
  Node *ex, *dw, *pj;  /* the absorbed Convs (dead; their attributes and fused epilogues) */
  int64_t N, Cin, C, Cout, IH, IW, OH, OW, KH, KW, SH, SW, PH, PW, DH, DW;
  bool lanes;          /* the expanded tensor in channel lanes (onnxc_dwb16) */
  bool shared;         /* lanes on a small plane: one band, one window that the channel groups
                          take in turn (where the planner's cap allows: shared_window) */
  int64_t Wp;          /* lanes: padded columns of the window */
} DwBlock;

/* Floats of S1 for bands of R output rows and of S2: the planar form (lanes false) or the
   channel-lanes form (16 floats more in S1 for its alignment; sh: one shared window). */
static int64_t s1_floats(const DwBlock *b, int64_t R, bool lanes, bool sh) {
  int64_t rin = (R - 1) * b->SH + (b->KH - 1) * b->DH + 1;
  return lanes ? (sh ? 16 : (b->C + 15) / 16 * 16) * rin * b->Wp + 16 : b->C * rin * b->IW;
}
static int64_t s2_floats(const DwBlock *b, int64_t R, bool lanes) {
  return !b->pj && (lanes || R == b->OH) ? 0 : b->C * R * b->OW; /* without S2: straight into the output */
}

static int64_t block_scratch_for(const DwBlock *b, int64_t R, bool lanes, bool sh) {
  return (s1_floats(b, R, lanes, sh) + s2_floats(b, R, lanes)) * 4;
}

/* Whether the lanes form takes one band with one shared window (small planes) under the
   planner's cap. */
static bool shared_window(const DwBlock *b, int64_t cap) {
  return b->lanes && b->shared && (cap < 0 || block_scratch_for(b, b->OH, true, true) <= cap);
}

/* Band height of a form: output rows per band, within BAND_BYTES (and the planner's cap if any). */
static int64_t band_rows(const DwBlock *b, int64_t cap, bool lanes) {
  int64_t lim = cap >= 0 && cap < BAND_BYTES ? cap : BAND_BYTES, R = b->OH;
  if (lanes && shared_window(b, cap)) return R;
  for (; R > 1; R--)
    if (block_scratch_for(b, R, lanes, false) <= lim) break;
  return R;
}

static bool block_means(const Node *n);

/* --threads: the lanes form in tasks of output rows (onnxc_dwbl_par), each with its windows
   (bands of *R rows, *part floats; with plane means, the task's channel sums in its last C
   floats), where the plan has room for them all; 1: one thread. */
static int64_t lanes_tasks(const Ctx *ctx, const Node *n, int64_t *R, int64_t *part) {
  const DwBlock *b = n->priv;
  const int64_t cap = n->scratch_cap, T = ctx->threads;
  if (T <= 1 || !b->lanes || shared_window(b, cap) || b->OH < 2 * T ||
      !par_pays(ctx, (double)b->C * (b->Cin + (b->pj ? b->Cout : 0) + b->KH * b->KW) * b->OH * b->OW))
    return 1;
  int64_t r = band_rows(b, cap >= 0 ? cap / T : -1, true), share = (b->OH + T - 1) / T;
  if (r > share) r = share;
  const int64_t p = (block_scratch_for(b, r, true, false) + (block_means(n) ? 4 * b->C : 0) + 63) / 64 * 64;
  if (cap >= 0 && T * p > cap) return 1;
  *R = r;
  *part = p / 4;
  return T;
}

/* The forms' scratch (the lanes form on AVX-512 targets, the planar one on the others): the
   larger of the two. */
static int64_t dwblock_scratch(Ctx *ctx, Node *n) {
  const DwBlock *b = n->priv;
  const int64_t cap = n->scratch_cap, p = block_scratch_for(b, band_rows(b, cap, false), false, false);
  int64_t R, part, T;
  if (!b->lanes) return p;
  T = lanes_tasks(ctx, n, &R, &part);
  const int64_t l = T > 1 ? T * part * 4 : block_scratch_for(b, band_rows(b, cap, true), true, shared_window(b, cap));
  return l > p ? l : p;
}

static void dwblock_infer(Ctx *ctx, Node *n) {
  (void)ctx;
  const DwBlock *b = n->priv;
  Value *y = (b->pj ? b->pj : b->dw)->outputs[0];
  value_set_shape(n->outputs[0], y->dtype, y->rank, y->dims);
}

static const char *epi(Emit *e, const Node *c, const char *bias, const char *res, int64_t ldr, bool pf) {
  return fmt(e, "{%s, 0, %s, %lld, %d, %s, %s, %s, (float *)0}", bias, res, LL(ldr), c->fuse_act,
             c_lit(e, DT_FLOAT, c->fuse_alpha), c_lit(e, DT_FLOAT, c->fuse_beta), pf ? emit_pf_fields(e) : "(const char *)0, 0");
}

/* A second output (optimize.c fuse_plane_means): the means of the depthwise output planes,
   which the depthwise kernels add up band by band (onnxc_epi.sum). */
static bool block_means(const Node *n) { return n->n_outputs > 1 && n->outputs[1]; }

/* The opening of a kernel call (the task-split form with --threads). */
static const char *kc(Emit *e, const char *fn) {
  if (e->ctx->threads <= 1) return fmt(e, "%s(", fn);
  emit_use_template(e, "par");
  return fmt(e, "%s_par(%d, ", fn, e->ctx->threads);
}

/* With plane means: ed.sum at the batch element's means, zeroed (the kernels add into them);
   after its bands, the sums into means. */
static void means_open(Emit *e, Node *n) {
  const DwBlock *b = n->priv;
  if (!block_means(n)) return;
  ep(e, "ed.sum = Y1 + nb * %lld;", LL(b->C));
  ep(e, "for (int c = 0; c < %lld; c++) ed.sum[c] = 0.0f;", LL(b->C));
}
static void means_close(Emit *e, Node *n) {
  const DwBlock *b = n->priv;
  if (block_means(n)) ep(e, "for (int c = 0; c < %lld; c++) ed.sum[c] /= %s;", LL(b->C), c_lit(e, DT_FLOAT, (double)(b->OH * b->OW)));
}

/* Both forms: the epilogues, the batch loop and the loop over bands of R output rows (on rows
   from o0; input rows top.. of the window, rows of them). */
static void band_open(Emit *e, Node *n, int64_t R) {
  const DwBlock *b = n->priv;
  ep(e, "const onnxc_epi ee = %s;", epi(e, b->ex, n->inputs[2] ? "X2" : "(const float *)0", "(const float *)0", 0, false));
  ep(e, "%sonnxc_epi ed = %s;", block_means(n) ? "" : "const ",
     epi(e, b->dw, n->inputs[4] ? "X4" : "(const float *)0", "(const float *)0", 0, false));
  ep(e, "for (int nb = 0; nb < %lld; nb++) {", LL(b->N));
  means_open(e, n);
  ep(e, "const float *x = X0 + nb * %lld;", LL(b->Cin * b->IH * b->IW));
  ep(e, "float *y = Y0 + nb * %lld;", LL(b->Cout * b->OH * b->OW));
  ep(e, "int prev_top = 0, prev_rows = 0;");
  ep(e, "for (int o0 = 0; o0 < %lld; o0 += %lld) {", LL(b->OH), LL(R));
  ep(e, "const int on = %lld - o0 < %lld ? %lld - o0 : %lld;", LL(b->OH), LL(R), LL(b->OH), LL(R));
  ep(e, "const int top = o0 * %lld - %lld, rows = (on - 1) * %lld + %lld;", LL(b->SH), LL(b->PH), LL(b->SH),
     LL((b->KH - 1) * b->DH + 1));
}

/* Both forms: the projection of the band's S2 into its output rows (if any), the loops' ends.
   The lanes form projects on the calling thread (with --threads its bands are the tasks:
   onnxc_dwbl_par; one split per band cost more than it gained), the planar form splits it. */
static void band_close(Emit *e, Node *n, bool lanes) {
  const DwBlock *b = n->priv;
  const int64_t OHW = b->OH * b->OW;
  if (b->pj) {
    const char *res = n->inputs[7] ? fmt(e, "X7 + nb * %lld + (long)o0 * %lld", LL(b->Cout * OHW), LL(b->OW)) : "(const float *)0";
    ep(e, "const onnxc_epi ej = %s;", epi(e, b->pj, n->inputs[6] ? "X6" : "(const float *)0", res, OHW, true));
    ep(e, "%s%lld, on * %lld, %lld, X5, 8, s2, (long)on * %lld, y + (long)o0 * %lld, %lld, &ej);", lanes ? "onnxc_sgemm(" : kc(e, "onnxc_sgemm"),
       LL(b->Cout), LL(b->OW), LL(b->C), LL(b->OW), LL(b->OW), LL(OHW));
  }
  ep(e, "prev_top = top;");
  ep(e, "prev_rows = rows;");
  ep(e, "}");
  means_close(e, n);
  ep(e, "}");
}

/* The lanes form: onnxc_dwb16 (AVX-512) or onnxc_dwb8 (AVX2: fn) per band (the expansion and
   the depthwise convolution; their output straight into the block's output rows, or into S2 for
   the projection).  With tasks (--threads) AVX-512 only (onnxc_dwbl_par). */
static void dwblock_emit_lanes(Emit *e, Node *n, const char *fn) {
  const DwBlock *b = n->priv;
  int64_t TR, part;
  if (lanes_tasks(e->ctx, n, &TR, &part) > 1) {
    const int64_t OHW = b->OH * b->OW, Cout = b->pj ? b->Cout : 0;
    emit_use_template(e, "par");
    ep(e, "const onnxc_epi ee = %s;", epi(e, b->ex, n->inputs[2] ? "X2" : "(const float *)0", "(const float *)0", 0, false));
    ep(e, "%sonnxc_epi ed = %s;", block_means(n) ? "" : "const ",
       epi(e, b->dw, n->inputs[4] ? "X4" : "(const float *)0", "(const float *)0", 0, false));
    ep(e, "for (int nb = 0; nb < %lld; nb++) {", LL(b->N));
    means_open(e, n); /* (onnxc_dwbl_par adds the tasks' sums into them) */
    if (b->pj) {
      const char *res = n->inputs[7] ? fmt(e, "X7 + nb * %lld", LL(b->Cout * OHW)) : "(const float *)0";
      ep(e, "const onnxc_epi ej = %s;", epi(e, b->pj, n->inputs[6] ? "X6" : "(const float *)0", res, OHW, true));
    }
    const char *task = emit_par_task(
        e, "defined(ONNXC_AVX512)", "onnxc_dwbl_task_k", "onnxc_dwbl_job",
        fmt(e, "%lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld", LL(b->C),
            LL(b->Cin), LL(b->IH), LL(b->IW), LL(b->KH), LL(b->KW), LL(b->SH), LL(b->SW), LL(b->PH), LL(b->PW), LL(b->DH), LL(b->DW),
            LL(b->Wp), LL(b->OH), LL(b->OW), LL(Cout), LL(s1_floats(b, TR, true, false)), LL(part), LL(TR)));
    ep(e, "onnxc_dwbl_par(%s, %d, %lld, %lld, X0 + nb * %lld, %lld, %lld, X1, &ee, X3, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, &ed, %lld, %s, %s, Y0 + nb * %lld, (float *)W, %lld, %lld, %lld);",
       task, e->ctx->threads, LL(b->C), LL(b->Cin), LL(b->Cin * b->IH * b->IW), LL(b->IH), LL(b->IW), LL(b->KH), LL(b->KW), LL(b->SH),
       LL(b->SW), LL(b->PH), LL(b->PW), LL(b->DH), LL(b->DW), LL(b->Wp), LL(b->OH), LL(b->OW), LL(Cout),
       b->pj ? "X5" : "(const float *)0", b->pj ? "&ej" : "&ee", LL((b->pj ? b->Cout : b->C) * OHW), LL(s1_floats(b, TR, true, false)),
       LL(part), LL(TR));
    means_close(e, n);
    ep(e, "}");
    return;
  }
  const int64_t R = band_rows(b, n->scratch_cap, true);
  const bool sh = shared_window(b, n->scratch_cap);
  ep(e, "float *s1 = (float *)W%s;", b->pj ? fmt(e, ", *s2 = s1 + %lld", LL(s1_floats(b, R, true, sh))) : "");
  band_open(e, n, R);
  /* rows the previous band of the same height computed: moved up, not computed again */
  ep(e, "const int j0 = rows == prev_rows && top - prev_top < rows ? rows - (top - prev_top) : 0;");
  ep(e, "%s(%lld, %lld, x, %lld, %lld, top, rows, j0, top - prev_top, X1, &ee, X3, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, s1, %s, %s, on, %lld, &ed, %d);",
     fn, LL(b->C), LL(b->Cin), LL(b->IH), LL(b->IW), LL(b->KH), LL(b->KW), LL(b->SH), LL(b->SW), LL(b->PW), LL(b->DH), LL(b->DW),
     LL(b->Wp), b->pj ? "s2" : fmt(e, "y + (long)o0 * %lld", LL(b->OW)),
     b->pj ? fmt(e, "(long)on * %lld", LL(b->OW)) : fmt(e, "%lldL", LL(b->OH * b->OW)), LL(b->OW), sh ? 1 : 0);
  band_close(e, n, true);
}

static void dwblock_emit_planar(Emit *e, Node *n) {
  const DwBlock *b = n->priv;
  const int64_t R = band_rows(b, n->scratch_cap, false), IHW = b->IH * b->IW, OHW = b->OH * b->OW;
  const int64_t rin = (R - 1) * b->SH + (b->KH - 1) * b->DH + 1;
  const bool direct = !b->pj && R == b->OH; /* one band, no projection: no S2 */
  ep(e, "float *s1 = (float *)W%s;", direct ? "" : fmt(e, ", *s2 = s1 + %lld", LL(b->C * rin * b->IW)));
  band_open(e, n, R);
  ep(e, "int j0 = 0, jz;");
  /* rows the previous band of the same height computed: moved up, not computed again */
  ep(e, "if (rows == prev_rows && top - prev_top < rows) {");
  ep(e, "j0 = rows - (top - prev_top);");
  ep(e, "for (int c = 0; c < %lld; c++) memmove(s1 + (long)c * rows * %lld, s1 + (long)c * rows * %lld + (long)(top - prev_top) * %lld, sizeof(float) * (size_t)j0 * %lld);",
     LL(b->C), LL(b->IW), LL(b->IW), LL(b->IW), LL(b->IW));
  ep(e, "}");
  /* rows above and below the image are the depthwise kernel's zero padding */
  ep(e, "for (; j0 < rows && top + j0 < 0; j0++)");
  ep(e, "  for (int c = 0; c < %lld; c++) memset(s1 + ((long)c * rows + j0) * %lld, 0, sizeof(float) * %lld);", LL(b->C),
     LL(b->IW), LL(b->IW));
  ep(e, "jz = %lld - top < rows ? %lld - top : rows;", LL(b->IH), LL(b->IH));
  ep(e, "if (jz < j0) jz = j0;");
  ep(e, "for (int j = jz; j < rows; j++)");
  ep(e, "  for (int c = 0; c < %lld; c++) memset(s1 + ((long)c * rows + j) * %lld, 0, sizeof(float) * %lld);", LL(b->C),
     LL(b->IW), LL(b->IW));
  ep(e, "if (jz > j0) %s%lld, (jz - j0) * %lld, %lld, X1, 8, x + (long)(top + j0) * %lld, %lld, s1 + (long)j0 * %lld, (long)rows * %lld, &ee);",
     kc(e, "onnxc_sgemm"), LL(b->C), LL(b->IW), LL(b->Cin), LL(b->IW), LL(IHW), LL(b->IW), LL(b->IW));
  /* one band without a projection: the depthwise output straight into the block's output */
  ep(e, "%s%lld, 1, s1, rows, %lld, X3, %lld, %lld, %lld, %lld, 0, %lld, %lld, %lld, %s, on, %lld, &ed);", kc(e, "onnxc_dw2d"),
     LL(b->C), LL(b->IW), LL(b->KH), LL(b->KW), LL(b->SH), LL(b->SW), LL(b->PW), LL(b->DH), LL(b->DW), direct ? "y" : "s2", LL(b->OW));
  if (!b->pj && !direct)
    ep(e, "for (int c = 0; c < %lld; c++) memcpy(y + (long)c * %lld + (long)o0 * %lld, s2 + (long)c * on * %lld, sizeof(float) * (size_t)on * %lld);",
       LL(b->C), LL(OHW), LL(b->OW), LL(b->OW), LL(b->OW));
  band_close(e, n, false);
}

static void dwblock_emit(Emit *e, Node *n) {
  const DwBlock *b = n->priv;
  emit_use_template(e, "gemm");
  emit_use_template(e, "conv");
  if (b->lanes) {
    int64_t TR, part;
    ep(e, "#if defined(ONNXC_AVX512)");
    dwblock_emit_lanes(e, n, "onnxc_dwb16");
    if (lanes_tasks(e->ctx, n, &TR, &part) <= 1) {
      ep(e, "#elif defined(ONNXC_AVX2)");
      dwblock_emit_lanes(e, n, "onnxc_dwb8");
    }
    ep(e, "#else");
  }
  dwblock_emit_planar(e, n);
  if (b->lanes) ep(e, "#endif");
}

static const OpDef dwblock_row = {"DwBlock", "onnxc", 1, ONNXC_MAX_OPSET, 0, dwblock_infer, NULL, dwblock_emit,
                                  dwblock_scratch, "float", NULL};

bool dw_block_plain(const Node *n) {
  const DwBlock *b = n->priv;
  return n->def == &dwblock_row && !b->pj;
}

/* Whether a block of Cin input channels and a depthwise kernel of taps taps takes the lanes
   form on AVX-512 targets (onnxc_dwb16, one thread). */
static bool dw_block_lanes(const Ctx *ctx, int64_t Cin, int64_t taps) {
  (void)ctx;
  return taps <= LANES_TAPS && Cin <= LANES_CIN;
}

bool packed_pointwise(Ctx *ctx, const Node *c, ConvShape *s) {
  if (!c || c->dead || *c->domain || strcmp(c->op_type, "Conv") || c->w_layout != W_PANELS || !c->orig_w || c->fuse_scale)
    return false;
  if (c->inputs[0]->rank != 4 || c->inputs[0]->dtype != DT_FLOAT) return false;
  conv_shape(ctx, c, s);
  return s->pointwise && s->G == 1;
}

Node *dw_block_fuse(Ctx *ctx, Graph *g, Node *ex, Node *dw, Node *pj) {
  ConvShape se, sd, sp;
  if (!dw || dw->dead || *dw->domain || strcmp(dw->op_type, "Conv") || dw->orig_w || dw->fuse_add) return NULL;
  if (dw->inputs[0]->rank != 4 || dw->inputs[0]->dtype != DT_FLOAT || !dw->inputs[1]->data) return NULL;
  conv_shape(ctx, dw, &sd);
  if (!sd.dw_form || sd.Cg != 1 || sd.Mg != 1) return NULL;
  if (!packed_pointwise(ctx, ex, &se) || ex->fuse_add || ex->outputs[0] != dw->inputs[0]) return NULL;
  if (pj && (!packed_pointwise(ctx, pj, &sp) || pj->inputs[0] != dw->outputs[0])) pj = NULL;
  DwBlock *b = arena_alloc(&ctx->arena, sizeof *b);
  *b = (DwBlock){ex, dw, pj, sd.N, se.C, sd.C, pj ? sp.M : sd.M, sd.in[0], sd.in[1], sd.out[0], sd.out[1], sd.k[0], sd.k[1],
                 sd.s[0], sd.s[1], sd.pb[0], sd.pb[1], sd.d[0], sd.d[1], false, false, 0};
  {
    const int64_t Wr = (b->OW - 1) * b->SW + (b->KW - 1) * b->DW + 1;
    b->Wp = Wr > b->PW + b->IW ? Wr : b->PW + b->IW;
    b->lanes = dw_block_lanes(ctx, b->Cin, b->KH * b->KW);
    const int64_t Hr = (b->OH - 1) * b->SH + (b->KH - 1) * b->DH + 1;
    b->shared = b->lanes && Hr * b->Wp <= LANES_WINDOW;
  }
  Node *f = graph_new_node(ctx, g, "DwBlock", arena_printf(&ctx->arena, "%s_block", dw->name), 8, 1);
  f->domain = "onnxc";
  f->opset = 1;
  f->def = &dwblock_row;
  f->priv = b;
  Value *in[8] = {ex->inputs[0], ex->inputs[1], node_in(ex, 2), dw->inputs[1], node_in(dw, 2),
                  pj ? pj->inputs[1] : NULL, pj ? node_in(pj, 2) : NULL, pj && pj->fuse_add ? pj->inputs[pj->fuse_add] : NULL};
  for (int k = 0; k < 8; k++) f->inputs[k] = in[k];
  f->n_explicit = 8;
  f->outputs[0] = (pj ? pj : dw)->outputs[0];
  f->outputs[0]->producer = f;
  ex->dead = dw->dead = true;
  if (pj) pj->dead = true;
  return f;
}
