/*
 * ops_cuda.c - the CUDA forms of Conv, Gemm and MatMul: cuBLAS GEMMs plus small kernels.
 *
 * Row-major products go to cuBLAS (column-major) as their transposes: C = A B (M x N) is
 * C^T = B^T A^T, so the call gets (m, n) = (N, M), B first, and each operand's row-major
 * leading dimension.  Batches of equal-sized products use the strided-batched call (stride 0
 * for an operand shared by the batch).
 *
 *   Gemm    one sgemm (transA/transB/alpha passed through), then an epilogue kernel for
 *           beta * C (broadcast), a fused residual and a fused activation;
 *   MatMul  one sgemm when B has no batch (A's batch dims folded into its rows), else one
 *           strided-batched call when each operand has the full batch or none; other
 *           broadcasts run the C function;
 *   Conv    (1-D and 2-D, float32) depthwise and channel-multiplier convolutions (one input
 *           channel per group): a direct kernel, one thread per output element, epilogue
 *           fused; 1x1 stride-1 unpadded: a GEMM straight on the input; otherwise im2col of
 *           as many images as fit 64 MiB of scratch (or the plan's scratch cap), then GEMMs
 *           (batched over images, or over groups), then the epilogue (bias per channel,
 *           residual, activation) as one kernel.
 * The fused epilogues are optimize.c's (BatchNormalization, bias Add folded into the
 * weights; residual Add and activations as n->fuse_add / n->fuse_act); activations use
 * templates/gemm.h's onnxc_act1, compiled as device code.
 * Float32 GEMMs are exact float32 unless the model is created with opt->tf32.
 */
#include <limits.h>
#include <string.h>

#include "cuda.h"

#define LL(x) ((long long)(x))
#define BLOCK 256
#define IM2COL_BYTES ((int64_t)64 << 20)

static bool is_op(const Node *n, const char *op) { return !*n->domain && !strcmp(n->op_type, op); }
static bool f32(const Value *v) { return v && v->dtype == DT_FLOAT; }
static bool fits_int(int64_t v) { return v > 0 && v <= INT_MAX; }

/* A float literal for host code. */
static const char *flit(Cu *cu, double x) { return c_lit(&cu->host, DT_FLOAT, x); }

/* Row-major C = alpha op(A) op(B) + beta C, batched; A is M x K (K x M when ta), B is K x N
   (N x K when tb); lda/ldb/ldc and strides are row-major and in elements (expressions). */
static void rm_gemm(Cu *cu, bool ta, bool tb, int64_t M, int64_t N, int64_t K, double alpha, const char *A, int64_t lda,
                    const char *sA, const char *B, int64_t ldb, const char *sB, double beta, const char *C, int64_t ldc,
                    const char *sC, const char *batch) {
  ep(&cu->host, "ONNXC_CUDA_TRY(onnxc_cuda_sgemm(R, %d, %d, %lld, %lld, %lld, %s, %s, %lld, %s, %s, %lld, %s, %s, %s, %lld, %s, %s));",
     tb, ta, LL(N), LL(M), LL(K), flit(cu, alpha), B, LL(ldb), sB, A, LL(lda), sA, flit(cu, beta), C, LL(ldc), sC, batch);
}

/* The epilogue kernel: y[o] = act(y[o] + bias + res[o]) for o < cnt.  bias: a device
   expression in o reading B (NULL: none); res: residual input or NULL. */
static void epilogue(Cu *cu, Node *n, Value *y, const char *bias, Value *bias_v, Value *res) {
  if (!bias && !res && !n->fuse_act) return;
  Emit *d = &cu->dev, *h = &cu->host;
  int64_t cnt = value_numel(y);
  CuArg a[3];
  int na = 0;
  a[na++] = (CuArg){"float *", "Y", cu_ptr(cu, y, false)};
  if (bias) a[na++] = (CuArg){"const float *", "B", cu_ptr(cu, bias_v, true)};
  if (res) a[na++] = (CuArg){"const float *", "Rs", cu_ptr(cu, res, true)};
  if (n->fuse_act) emit_use_template(d, "gemm");
  int k = cu_kernel_open(cu, n, "epilogue", a, na);
  cu_grid_loop(d, "o", cnt);
  ep(d, "float v = Y[o];");
  if (bias) ep(d, "v += %s;", bias);
  if (res) ep(d, "v += Rs[o];");
  if (n->fuse_act)
    ep(d, "v = onnxc_act1(v, %d, %s, %s);", n->fuse_act, c_lit(d, DT_FLOAT, n->fuse_alpha), c_lit(d, DT_FLOAT, n->fuse_beta));
  ep(d, "Y[o] = v;");
  ep(d, "}");
  cu_kernel_close(cu);
  ep(h, "/* epilogue of %s '%s' */", n->op_type, n->name);
  cu_launch(cu, k, cnt, BLOCK, a, na);
}

/* ---- Gemm ------------------------------------------------------------------------------ */

static bool gemm_ok(const Node *n) {
  if (!is_op(n, "Gemm") || n->n_outputs != 1 || !f32(n->outputs[0])) return false;
  Value *a = n->inputs[0], *b = n->inputs[1], *c = node_in(n, 2), *y = n->outputs[0];
  if (!f32(a) || !f32(b) || (c && !f32(c)) || a->rank != 2 || b->rank != 2 || (c && c->rank > 2)) return false;
  if (n->fuse_add && !f32(n->inputs[n->fuse_add])) return false;
  return fits_int(y->dims[0]) && fits_int(y->dims[1]) && fits_int(attr_i(n, "transA", 0) ? a->dims[0] : a->dims[1]);
}

static void emit_gemm(Cu *cu, Node *n) {
  Value *a = n->inputs[0], *b = n->inputs[1], *c = node_in(n, 2), *y = n->outputs[0];
  bool ta = attr_i(n, "transA", 0) != 0, tb = attr_i(n, "transB", 0) != 0;
  int64_t M = y->dims[0], N = y->dims[1], K = ta ? a->dims[0] : a->dims[1];
  ep(&cu->host, "/* Gemm '%s': [%lld x %lld] x [%lld x %lld] (cuBLAS) */", n->name, LL(M), LL(K), LL(K), LL(N));
  rm_gemm(cu, ta, tb, M, N, K, attr_f(n, "alpha", 1.0f), cu_ptr(cu, a, true), ta ? M : K, "0", cu_ptr(cu, b, true),
          tb ? K : N, "0", 0.0, cu_ptr(cu, y, false), N, "0", "1");
  const char *bias = NULL;
  double beta = attr_f(n, "beta", 1.0f);
  if (c && beta != 0) {
    const char *idx;
    if (value_numel(c) == 1) idx = "0";
    else if (c->rank == 1) idx = fmt(&cu->dev, "o %% %lld", LL(N));
    else idx = fmt(&cu->dev, "%s%s", c->dims[0] == 1 ? "0" : fmt(&cu->dev, "o / %lld * %lld", LL(N), LL(c->dims[1])),
                   c->dims[1] == 1 ? "" : fmt(&cu->dev, " + o %% %lld", LL(N)));
    bias = beta == 1 ? fmt(&cu->dev, "B[%s]", idx) : fmt(&cu->dev, "%s * B[%s]", c_lit(&cu->dev, DT_FLOAT, beta), idx);
  }
  epilogue(cu, n, y, bias, c, n->fuse_add ? n->inputs[n->fuse_add] : NULL);
}

/* ---- MatMul ----------------------------------------------------------------------------- */

typedef struct MM {
  int64_t M, N, K, batch;
  int form;          /* 1: A's batch folded into rows; 2: strided batched */
  int64_t sa, sb;    /* batch strides (0: shared) */
} MM;

/* Batch dims of v (all but the last two; none for rank <= 2), left-padded to rank r. */
static bool batch_is(const Value *v, const Value *y, bool full) {
  int rb = v->rank - 2, ry = y->rank - 2;
  for (int i = 0; i < ry; i++) {
    int j = i - (ry - rb);
    int64_t d = j >= 0 ? v->dims[j] : 1;
    if (full ? d != y->dims[i] : d != 1) return false;
  }
  return true;
}

static bool matmul_form(const Node *n, MM *m) {
  if (!is_op(n, "MatMul") || n->n_outputs != 1) return false;
  Value *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
  if (!f32(a) || !f32(b) || !f32(y) || a->rank < 1 || b->rank < 1) return false;
  if (a->rank == 1 && b->rank > 2) return false; /* y has no row dim to carry the batch */
  if (n->fuse_add && !f32(n->inputs[n->fuse_add])) return false;
  m->M = a->rank == 1 ? 1 : a->dims[a->rank - 2];
  m->K = a->dims[a->rank - 1];
  m->N = b->rank == 1 ? 1 : b->dims[b->rank - 1];
  if (value_numel(y) == 0 || !fits_int(m->M) || !fits_int(m->N) || !fits_int(m->K)) return false;
  m->batch = value_numel(y) / (m->M * m->N);
  bool b_none = b->rank <= 2 || batch_is(b, y, false) || y->rank <= 2;
  bool a_none = a->rank <= 2 || batch_is(a, y, false) || y->rank <= 2;
  if (b_none && fits_int(m->batch * m->M)) {
    m->form = 1;
    return true;
  }
  bool a_full = !a_none && a->rank >= 2 && batch_is(a, y, true), b_full = !b_none && b->rank >= 2 && batch_is(b, y, true);
  if ((a_full || a_none) && (b_full || b_none) && fits_int(m->batch)) {
    m->form = 2;
    m->sa = a_full ? m->M * m->K : 0;
    m->sb = b_full ? m->K * m->N : 0;
    return true;
  }
  return false;
}

static void emit_matmul(Cu *cu, Node *n, const MM *m) {
  Value *a = n->inputs[0], *b = n->inputs[1], *y = n->outputs[0];
  Emit *h = &cu->host;
  ep(h, "/* MatMul '%s': %lld x [%lld x %lld] x [%lld x %lld] (cuBLAS) */", n->name, LL(m->batch), LL(m->M), LL(m->K),
     LL(m->K), LL(m->N));
  if (m->form == 1)
    rm_gemm(cu, false, false, m->batch * m->M, m->N, m->K, 1.0, cu_ptr(cu, a, true), m->K, "0", cu_ptr(cu, b, true), m->N,
            "0", 0.0, cu_ptr(cu, y, false), m->N, "0", "1");
  else
    rm_gemm(cu, false, false, m->M, m->N, m->K, 1.0, cu_ptr(cu, a, true), m->K, fmt(h, "%lldLL", LL(m->sa)),
            cu_ptr(cu, b, true), m->N, fmt(h, "%lldLL", LL(m->sb)), 0.0, cu_ptr(cu, y, false), m->N,
            fmt(h, "%lldLL", LL(m->M * m->N)), fmt(h, "%lld", LL(m->batch)));
  Value *add = n->fuse_add ? n->inputs[n->fuse_add] : NULL;
  if (add && !same_shape(add, y)) /* a constant bias per column */
    epilogue(cu, n, y, fmt(&cu->dev, "B[o %% %lld]", LL(m->N)), add, NULL);
  else
    epilogue(cu, n, y, NULL, NULL, add);
}

/* ---- Conv ------------------------------------------------------------------------------- */

typedef struct CV {
  ConvShape s;
  int64_t H, W, KH, KW, SH, SW, DH, DW, PT, PL, OH, OW, P, K;
  int form;          /* 1 direct (one input channel per group), 2 pointwise GEMM, 3 im2col + GEMM */
  int64_t nb;        /* images per im2col chunk */
} CV;

static bool conv_form(Ctx *ctx, Node *n, CV *c) {
  if (!is_op(n, "Conv") || n->n_outputs != 1 || n->orig_w) return false;
  Value *x = n->inputs[0], *w = n->inputs[1], *b = node_in(n, 2), *y = n->outputs[0];
  if (!f32(x) || !f32(w) || !f32(y) || (b && !f32(b)) || (x->rank != 3 && x->rank != 4)) return false;
  if (n->fuse_add && !f32(n->inputs[n->fuse_add])) return false;
  if (value_numel(y) == 0 || value_numel(x) == 0) return false;
  conv_shape(ctx, n, &c->s);
  bool two = c->s.r == 2;
  c->H = two ? c->s.in[0] : 1, c->W = c->s.in[two];
  c->KH = two ? c->s.k[0] : 1, c->KW = c->s.k[two];
  c->SH = two ? c->s.s[0] : 1, c->SW = c->s.s[two];
  c->DH = two ? c->s.d[0] : 1, c->DW = c->s.d[two];
  c->PT = two ? c->s.pb[0] : 0, c->PL = c->s.pb[two];
  c->OH = two ? c->s.out[0] : 1, c->OW = c->s.out[two];
  c->P = c->OH * c->OW;
  c->K = c->s.Cg * c->KH * c->KW;
  if (c->s.Cg == 1) {
    c->form = 1;
    return true;
  }
  if (!fits_int(c->P) || !fits_int(c->K) || !fits_int(c->s.Mg) || !fits_int(c->s.N * c->s.G)) return false;
  if (c->KH == 1 && c->KW == 1 && c->SH == 1 && c->SW == 1 && c->PT == 0 && c->PL == 0 && c->OH == c->H && c->OW == c->W) {
    c->form = 2;
    return true;
  }
  c->form = 3;
  int64_t per = c->s.G * c->K * c->P * 4, cap = IM2COL_BYTES;
  if (n->scratch_cap >= per && n->scratch_cap < cap) cap = n->scratch_cap;
  c->nb = cap / per;
  if (c->nb < 1) c->nb = 1;
  if (c->nb > c->s.N) c->nb = c->s.N;
  return true;
}

static const char *act_and_store(Cu *cu, const Node *n) {
  if (!n->fuse_act) return "v";
  emit_use_template(&cu->dev, "gemm");
  return fmt(&cu->dev, "onnxc_act1(v, %d, %s, %s)", n->fuse_act, c_lit(&cu->dev, DT_FLOAT, n->fuse_alpha),
             c_lit(&cu->dev, DT_FLOAT, n->fuse_beta));
}

/* One thread per output element; input channel = output channel / Mg (one per group). */
static void emit_conv_direct(Cu *cu, Node *n, const CV *c) {
  Emit *d = &cu->dev;
  Value *x = n->inputs[0], *w = n->inputs[1], *b = node_in(n, 2), *y = n->outputs[0];
  Value *res = n->fuse_add ? n->inputs[n->fuse_add] : NULL;
  CuArg a[5];
  int na = 0;
  a[na++] = (CuArg){"const float *", "X", cu_ptr(cu, x, true)};
  a[na++] = (CuArg){"const float *", "Wt", cu_ptr(cu, w, true)};
  if (b) a[na++] = (CuArg){"const float *", "B", cu_ptr(cu, b, true)};
  if (res) a[na++] = (CuArg){"const float *", "Rs", cu_ptr(cu, res, true)};
  a[na++] = (CuArg){"float *", "Y", cu_ptr(cu, y, false)};
  int64_t cnt = value_numel(y), M = c->s.M;
  int k = cu_kernel_open(cu, n, "direct", a, na);
  cu_grid_loop(d, "o", cnt);
  const char *it = cnt < 2147483647LL ? "int" : "long long";
  ep(d, "const %s ow = o %% %lld, oh = o / %lld %% %lld, m = o / %lld %% %lld, nb = o / %lld;", it, LL(c->OW), LL(c->OW),
     LL(c->OH), LL(c->P), LL(M), LL(c->P * M));
  ep(d, "const float *xp = X + (nb * %lld + m / %lld) * %lld;", LL(c->s.C), LL(c->s.Mg), LL(c->H * c->W));
  ep(d, "const float *wp = Wt + m * %lld;", LL(c->KH * c->KW));
  ep(d, "float v = %s;", b ? "B[m]" : "0.0f");
  ep(d, "for (int kh = 0; kh < %lld; kh++) {", LL(c->KH));
  ep(d, "const %s ih = oh * %lld - %lld + kh * %lld;", it, LL(c->SH), LL(c->PT), LL(c->DH));
  ep(d, "if (ih < 0 || ih >= %lld) continue;", LL(c->H));
  ep(d, "for (int kw = 0; kw < %lld; kw++) {", LL(c->KW));
  ep(d, "const %s iw = ow * %lld - %lld + kw * %lld;", it, LL(c->SW), LL(c->PL), LL(c->DW));
  ep(d, "if (iw >= 0 && iw < %lld) v += wp[kh * %lld + kw] * xp[ih * %lld + iw];", LL(c->W), LL(c->KW), LL(c->W));
  ep(d, "}");
  ep(d, "}");
  if (res) ep(d, "v += Rs[o];");
  ep(d, "Y[o] = %s;", act_and_store(cu, n));
  ep(d, "}");
  cu_kernel_close(cu);
  ep(&cu->host, "/* Conv '%s': %s, one thread per output */", n->name, c->s.Mg == 1 ? "depthwise" : "one channel per group");
  cu_launch(cu, k, cnt, BLOCK, a, na);
}

static void emit_conv_gemm(Cu *cu, Node *n, const CV *c) {
  Emit *h = &cu->host, *d = &cu->dev;
  Value *x = n->inputs[0], *w = n->inputs[1], *b = node_in(n, 2), *y = n->outputs[0];
  int64_t N = c->s.N, G = c->s.G, M = c->s.M, Mg = c->s.Mg, Cg = c->s.Cg, C = c->s.C, P = c->P, K = c->K;
  const char *X = cu_ptr(cu, x, true), *Wt = cu_ptr(cu, w, true), *Y = cu_ptr(cu, y, false);
  ep(h, "/* Conv '%s': %lld images, %lld groups of [%lld x %lld] x [%lld x %lld] (%s, cuBLAS) */", n->name, LL(N), LL(G),
     LL(Mg), LL(K), LL(K), LL(P), c->form == 2 ? "1x1 on the input" : "im2col");
  if (c->form == 2) {
    if (G == 1) {
      rm_gemm(cu, false, false, M, P, C, 1.0, Wt, C, "0", X, P, fmt(h, "%lldLL", LL(C * P)), 0.0, Y, P,
              fmt(h, "%lldLL", LL(M * P)), fmt(h, "%lld", LL(N)));
    } else {
      ep(h, "{");
      ep(h, "long long im;");
      ep(h, "for (im = 0; im < %lld; im++) {", LL(N));
      rm_gemm(cu, false, false, Mg, P, Cg, 1.0, Wt, Cg, fmt(h, "%lldLL", LL(Mg * Cg)), fmt(h, "%s + im * %lld", X, LL(C * P)),
              P, fmt(h, "%lldLL", LL(Cg * P)), 0.0, fmt(h, "%s + im * %lld", Y, LL(M * P)), P, fmt(h, "%lldLL", LL(Mg * P)),
              fmt(h, "%lld", LL(G)));
      ep(h, "}");
      ep(h, "}");
    }
  } else {
    const char *col = fmt(h, "(float *)%s", cu_arena(cu, n->scratch_offset));
    int64_t per = G * K * P;
    CuArg a[4] = {{"const float *", "X", X}, {"float *", "Col", col}, {"long long", "n0", "n0"}, {"long long", "cnt", "cnt"}};
    int k = cu_kernel_open(cu, n, "im2col", a, 4);
    ep(d, "for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < cnt * %lld; t += (long long)blockDim.x * gridDim.x) {",
       LL(per));
    ep(d, "const long long p = t %% %lld, kk = t / %lld %% %lld, g = t / %lld %% %lld, im = t / %lld;", LL(P), LL(P), LL(K),
       LL(P * K), LL(G), LL(per));
    ep(d, "const long long ch = g * %lld + kk / %lld, kh = kk / %lld %% %lld, kw = kk %% %lld;", LL(Cg), LL(c->KH * c->KW),
       LL(c->KW), LL(c->KH), LL(c->KW));
    ep(d, "const long long ih = p / %lld * %lld - %lld + kh * %lld, iw = p %% %lld * %lld - %lld + kw * %lld;", LL(c->OW),
       LL(c->SH), LL(c->PT), LL(c->DH), LL(c->OW), LL(c->SW), LL(c->PL), LL(c->DW));
    ep(d, "Col[t] = (ih >= 0 && ih < %lld && iw >= 0 && iw < %lld) ? X[((n0 + im) * %lld + ch) * %lld + ih * %lld + iw] : 0.0f;",
       LL(c->H), LL(c->W), LL(C), LL(c->H * c->W), LL(c->W));
    ep(d, "}");
    cu_kernel_close(cu);
    ep(h, "{");
    ep(h, "long long n0, cnt;");
    ep(h, "for (n0 = 0; n0 < %lld; n0 += %lld) {", LL(N), LL(c->nb));
    ep(h, "cnt = %lld - n0 < %lld ? %lld - n0 : %lld;", LL(N), LL(c->nb), LL(N), LL(c->nb));
    cu_launch(cu, k, c->nb * per, BLOCK, a, 4);
    if (G == 1) {
      rm_gemm(cu, false, false, M, P, K, 1.0, Wt, K, "0", col, P, fmt(h, "%lldLL", LL(K * P)), 0.0,
              fmt(h, "%s + n0 * %lld", Y, LL(M * P)), P, fmt(h, "%lldLL", LL(M * P)), "(int)cnt");
    } else {
      ep(h, "long long im;");
      ep(h, "for (im = 0; im < cnt; im++) {");
      rm_gemm(cu, false, false, Mg, P, K, 1.0, Wt, K, fmt(h, "%lldLL", LL(Mg * K)), fmt(h, "%s + im * %lld", col, LL(per)), P,
              fmt(h, "%lldLL", LL(K * P)), 0.0, fmt(h, "%s + (n0 + im) * %lld", Y, LL(M * P)), P, fmt(h, "%lldLL", LL(Mg * P)),
              fmt(h, "%lld", LL(G)));
      ep(h, "}");
    }
    ep(h, "}");
    ep(h, "}");
  }
  epilogue(cu, n, y, b ? fmt(d, "B[o / %lld %% %lld]", LL(P), LL(M)) : NULL, b, n->fuse_add ? n->inputs[n->fuse_add] : NULL);
}

/* ---- LSTM / GRU -------------------------------------------------------------------------- */

/* Scratch (floats): Gx [D][S*B][GH] (the input projections of every step), Gh [B][GH] (one
   step's h R^T), hb and cb [D][B][H] (the state), and for GRU without linear_before_reset
   rh [B][H] (r * h) and gn [B][H] ((r * h) Rh^T). */
static int64_t rnn_floats(const RnnCuda *r) {
  int64_t GH = r->G * r->H;
  return r->D * r->S * r->B * GH + r->B * GH + 2 * r->D * r->B * r->H + (!r->lstm && !r->lbr ? 2 * r->B * r->H : 0);
}

/* The input projections of all steps as one GEMM per direction, then per step and direction
   h R^T (cuBLAS) and a cell kernel, one thread per (batch row, hidden unit); the steps are
   queued from a host loop (and replayed by the CUDA graph). */
static void emit_rnn(Cu *cu, Node *n, const RnnCuda *r) {
  Emit *h = &cu->host, *d = &cu->dev;
  Value *X = n->inputs[0], *W = n->inputs[1], *R = n->inputs[2], *Bv = node_in(n, 3), *H0 = node_in(n, 5);
  Value *C0 = r->lstm ? node_in(n, 6) : NULL;
  Value *Y = node_out(n, 0), *Yh = node_out(n, 1), *Yc = r->lstm ? node_out(n, 2) : NULL;
  int64_t S = r->S, B = r->B, I = r->I, H = r->H, D = r->D, GH = r->G * H, BH = B * H;
  bool gru0 = !r->lstm && !r->lbr;
  const char *sc = fmt(h, "((float *)%s)", cu_arena(cu, n->scratch_offset));
  const char *Gx = sc, *Gh = fmt(h, "(%s + %lld)", sc, LL(D * S * B * GH));
  const char *Hb = fmt(h, "(%s + %lld)", sc, LL(D * S * B * GH + B * GH)), *Cb = fmt(h, "(%s + %lld)", Hb, LL(D * BH));
  const char *Rh = fmt(h, "(%s + %lld)", Cb, LL(D * BH)), *Gn = fmt(h, "(%s + %lld)", Rh, LL(BH));
  ep(h, "/* %s '%s': %lld steps, %lld direction(s), batch %lld, hidden %lld (cuBLAS + a cell kernel per step) */", n->op_type,
     n->name, LL(S), LL(D), LL(B), LL(H));
  /* the initial state */
  {
    CuArg a[4];
    int na = 0;
    a[na++] = (CuArg){"float *", "Hs", Hb};
    a[na++] = (CuArg){"float *", "Cs", Cb};
    if (H0) a[na++] = (CuArg){"const float *", "H0", cu_ptr(cu, H0, true)};
    if (C0) a[na++] = (CuArg){"const float *", "C0", cu_ptr(cu, C0, true)};
    int k = cu_kernel_open(cu, n, "init", a, na);
    cu_grid_loop(d, "o", D * BH);
    ep(d, "Hs[o] = %s;", H0 ? "H0[o]" : "0.0f");
    ep(d, "Cs[o] = %s;", C0 ? "C0[o]" : "0.0f");
    ep(d, "}");
    cu_kernel_close(cu);
    cu_launch(cu, k, D * BH, BLOCK, a, na);
  }
  const char *Wp = cu_ptr(cu, W, true), *Rp = cu_ptr(cu, R, true), *Yp = Y ? cu_ptr(cu, Y, false) : NULL;
  for (int64_t dd = 0; dd < D; dd++)
    rm_gemm(cu, false, !r->pre_w, S * B, GH, I, 1.0, cu_ptr(cu, X, true), I, "0", fmt(h, "%s + %lld", Wp, LL(dd * GH * I)),
            r->pre_w ? GH : I, "0", 0.0, fmt(h, "%s + %lld", Gx, LL(dd * S * B * GH)), GH, "0", "1");
  /* the cell kernel(s): args gx (this direction's projections), gh, hs, cs, bias, y (this
     direction's first block of Y, or none), t */
  CuArg a[9];
  int na = 0;
  a[na++] = (CuArg){"const float *", "Gx", "gx_"};
  a[na++] = (CuArg){"float *", "Gh", "gh_"};
  a[na++] = (CuArg){"float *", "Hs", "hs_"};
  if (r->lstm) a[na++] = (CuArg){"float *", "Cs", "cs_"};
  if (Bv) a[na++] = (CuArg){"const float *", "Bb", "bb_"};
  if (Y && !gru0) a[na++] = (CuArg){"float *", "Yd", "yd_"};
  if (gru0) a[na++] = (CuArg){"float *", "Rh", "rh_"};
  a[na++] = (CuArg){"long long", "t", "t_"};
  int nk1 = na;
#define BIAS(gate) (Bv ? fmt(d, " + Bb[%lld + j] + Bb[%lld + j]", LL((gate) * H), LL(GH + (gate) * H)) : "")
  int k1 = cu_kernel_open(cu, n, "cell", a, nk1);
  cu_grid_loop(d, "o", BH);
  ep(d, "const long long b = o / %lld, j = o %% %lld;", LL(H), LL(H));
  ep(d, "const float *gx = Gx + (t * %lld + b) * %lld, *gh = Gh + b * %lld;", LL(B), LL(GH), LL(GH));
  if (r->lstm) { /* gates i, o, f, c */
    ep(d, "const float gi = 1.0f / (1.0f + expf(-(gx[j] + gh[j]%s)));", BIAS(0));
    ep(d, "const float go = 1.0f / (1.0f + expf(-(gx[%lld + j] + gh[%lld + j]%s)));", LL(H), LL(H), BIAS(1));
    ep(d, "const float gf = 1.0f / (1.0f + expf(-(gx[%lld + j] + gh[%lld + j]%s)));", LL(2 * H), LL(2 * H), BIAS(2));
    ep(d, "const float gc = tanhf(gx[%lld + j] + gh[%lld + j]%s);", LL(3 * H), LL(3 * H), BIAS(3));
    ep(d, "const float c = gf * Cs[o] + gi * gc;");
    ep(d, "const float hv = go * tanhf(c);");
    ep(d, "Cs[o] = c;");
    ep(d, "Hs[o] = hv;");
    if (Y) ep(d, "Yd[t * %lld + o] = hv;", LL(D * BH));
  } else if (r->lbr) { /* gates z, r, h; h R^T before the reset gate */
    ep(d, "const float z = 1.0f / (1.0f + expf(-(gx[j] + gh[j]%s)));", BIAS(0));
    ep(d, "const float rr = 1.0f / (1.0f + expf(-(gx[%lld + j] + gh[%lld + j]%s)));", LL(H), LL(H), BIAS(1));
    ep(d, "const float hh = tanhf(gx[%lld + j]%s + rr * (gh[%lld + j]%s));", LL(2 * H),
       Bv ? fmt(d, " + Bb[%lld + j]", LL(2 * H)) : "", LL(2 * H), Bv ? fmt(d, " + Bb[%lld + j]", LL(GH + 2 * H)) : "");
    ep(d, "const float hv = (1.0f - z) * hh + z * Hs[o];");
    ep(d, "Hs[o] = hv;");
    if (Y) ep(d, "Yd[t * %lld + o] = hv;", LL(D * BH));
  } else { /* first half: z (kept in gh) and r * h */
    ep(d, "const float z = 1.0f / (1.0f + expf(-(gx[j] + gh[j]%s)));", BIAS(0));
    ep(d, "const float rr = 1.0f / (1.0f + expf(-(gx[%lld + j] + gh[%lld + j]%s)));", LL(H), LL(H), BIAS(1));
    ep(d, "Gh[b * %lld + j] = z;", LL(GH));
    ep(d, "Rh[o] = rr * Hs[o];");
  }
  ep(d, "}");
  cu_kernel_close(cu);
  int k2 = -1;
  CuArg a2[8];
  int na2 = 0;
  if (gru0) { /* second half: h~ from (r * h) Rh^T, then h */
    a2[na2++] = (CuArg){"const float *", "Gx", "gx_"};
    a2[na2++] = (CuArg){"const float *", "Gh", "gh_"};
    a2[na2++] = (CuArg){"const float *", "Gn", "gn_"};
    a2[na2++] = (CuArg){"float *", "Hs", "hs_"};
    if (Bv) a2[na2++] = (CuArg){"const float *", "Bb", "bb_"};
    if (Y) a2[na2++] = (CuArg){"float *", "Yd", "yd_"};
    a2[na2++] = (CuArg){"long long", "t", "t_"};
    k2 = cu_kernel_open(cu, n, "cell2", a2, na2);
    cu_grid_loop(d, "o", BH);
    ep(d, "const long long b = o / %lld, j = o %% %lld;", LL(H), LL(H));
    ep(d, "const float *gx = Gx + (t * %lld + b) * %lld;", LL(B), LL(GH));
    ep(d, "const float z = Gh[b * %lld + j];", LL(GH));
    ep(d, "const float hh = tanhf(gx[%lld + j] + Gn[o]%s);", LL(2 * H), BIAS(2));
    ep(d, "const float hv = (1.0f - z) * hh + z * Hs[o];");
    ep(d, "Hs[o] = hv;");
    if (Y) ep(d, "Yd[t * %lld + o] = hv;", LL(D * BH));
    ep(d, "}");
    cu_kernel_close(cu);
  }
#undef BIAS
  ep(h, "{");
  ep(h, "long long s_;");
  ep(h, "for (s_ = 0; s_ < %lld; s_++) {", LL(S));
  for (int64_t dd = 0; dd < D; dd++) {
    const char *hs = fmt(h, "%s + %lld", Hb, LL(dd * BH));
    ep(h, "{");
    ep(h, "const long long t_ = %s;", r->rev[dd] ? fmt(h, "%lld - s_", LL(S - 1)) : "s_");
    ep(h, "const float *gx_ = %s + %lld;", Gx, LL(dd * S * B * GH));
    ep(h, "float *gh_ = %s, *hs_ = %s;", Gh, hs);
    if (r->lstm) ep(h, "float *cs_ = %s + %lld;", Cb, LL(dd * BH));
    if (Bv) ep(h, "const float *bb_ = %s + %lld;", cu_ptr(cu, Bv, true), LL(dd * 2 * GH));
    if (Y) ep(h, "float *yd_ = %s + %lld;", Yp, LL(dd * BH));
    if (gru0) ep(h, "float *rh_ = %s, *gn_ = %s;", Rh, Gn);
    /* h R^T: all gates (GRU without linear_before_reset: z and r only) */
    const char *Rd = fmt(h, "%s + %lld", Rp, LL(dd * GH * H));
    rm_gemm(cu, false, !r->pre_r, B, gru0 ? 2 * H : GH, H, 1.0, "hs_", H, "0", Rd, r->pre_r ? GH : H, "0", 0.0, "gh_", GH, "0", "1");
    cu_launch(cu, k1, BH, BLOCK, a, nk1);
    if (gru0) {
      /* (r * h) Rh^T: R's h-gate columns (pre_r: [H][GH] from column 2H; else rows 2H..3H of [GH][H]) */
      rm_gemm(cu, false, !r->pre_r, B, H, H, 1.0, "rh_", H, "0", fmt(h, "%s + %lld", Rd, LL(r->pre_r ? 2 * H : 2 * H * H)),
              r->pre_r ? GH : H, "0", 0.0, "gn_", H, "0", "1");
      cu_launch(cu, k2, BH, BLOCK, a2, na2);
    }
    ep(h, "}");
  }
  ep(h, "}");
  ep(h, "}");
  /* Y_h, Y_c: the final state */
  if (Yh || Yc) {
    CuArg f[4];
    int nf = 0;
    if (Yh) f[nf++] = (CuArg){"const float *", "Hs", Hb}, f[nf++] = (CuArg){"float *", "Yh", cu_ptr(cu, Yh, false)};
    if (Yc) f[nf++] = (CuArg){"const float *", "Cs", Cb}, f[nf++] = (CuArg){"float *", "Yc", cu_ptr(cu, Yc, false)};
    int kf = cu_kernel_open(cu, n, "final", f, nf);
    cu_grid_loop(d, "o", D * BH);
    if (Yh) ep(d, "Yh[o] = Hs[o];");
    if (Yc) ep(d, "Yc[o] = Cs[o];");
    ep(d, "}");
    cu_kernel_close(cu);
    cu_launch(cu, kf, D * BH, BLOCK, f, nf);
  }
}

/* ---- dispatch --------------------------------------------------------------------------- */

/* ---- rows: Softmax, LogSoftmax, LayerNormalization, RMSNormalization, reductions -----------
   A warp per row (float32, the reduced axis innermost): each lane reads every 32nd element,
   the warp's partial maxima and sums meet through shuffles; rows loop over the grid's warps.
   The reductions (Reduce* over the innermost dims, GlobalAveragePool) write one value per row.
   The C backend's form (a thread per row, each reading its whole row) is latency-bound on
   rows of a few hundred elements and uncoalesced. */

enum { RW_SOFTMAX, RW_LOGSOFTMAX, RW_LAYERNORM, RW_RMSNORM, RW_REDUCE };

typedef struct RowForm {
  int kind, red; /* red: RK_* of a reduction (Reduce*, GlobalAveragePool) */
  int64_t rows, cols;
  double eps;
  bool bias, mean_out, inv_out;
} RowForm;

static bool row_form(Ctx *ctx, const Node *n, RowForm *r) {
  memset(r, 0, sizeof *r);
  if (n->fuse_act || n->n_inputs < 1 || n->n_outputs < 1) return false;
  Value *x = n->inputs[0], *y = n->outputs[0];
  if (!f32(x) || !f32(y) || x->rank < 1 || value_numel(x) == 0) return false;
  int rank = x->rank, a;
  if (!*n->domain && !strncmp(n->op_type, "Reduce", 6)) {
    r->kind = RW_REDUCE;
    return reduce_as_rows(n, &r->red, &r->rows, &r->cols) && fits_int(r->rows) && fits_int(r->cols) &&
           value_numel(y) == r->rows;
  }
  if (is_op(n, "GlobalAveragePool")) {
    if (rank < 3) return false;
    r->kind = RW_REDUCE;
    r->red = RK_MEAN;
    r->rows = x->dims[0] * x->dims[1];
    r->cols = value_numel(x) / r->rows;
    return fits_int(r->rows) && fits_int(r->cols) && value_numel(y) == r->rows;
  }
  if (is_op(n, "Softmax") || is_op(n, "LogSoftmax")) {
    r->kind = is_op(n, "Softmax") ? RW_SOFTMAX : RW_LOGSOFTMAX;
    int64_t axis = attr_i(n, "axis", n->opset < 13 ? 1 : -1);
    if (n->opset < 13) { /* coerced to 2-D at axis: the row is dims[axis:] */
      if (axis < -rank || axis > rank) return false;
      a = (int)(axis < 0 ? axis + rank : axis);
    } else {
      a = norm_axis(ctx, n, axis, rank);
      if (a != rank - 1) return false; /* the reduced axis must be innermost */
    }
  } else if (is_op(n, "LayerNormalization") || is_op(n, "RMSNormalization")) {
    r->kind = is_op(n, "LayerNormalization") ? RW_LAYERNORM : RW_RMSNORM;
    if (attr_i(n, "stash_type", 1) != DT_FLOAT) return false;
    a = norm_axis(ctx, n, attr_i(n, "axis", -1), rank);
    r->eps = attr_f(n, "epsilon", 1e-5f);
  } else {
    return false;
  }
  r->rows = r->cols = 1;
  for (int d = 0; d < a; d++) r->rows *= x->dims[d];
  for (int d = a; d < rank; d++) r->cols *= x->dims[d];
  if (!fits_int(r->rows) || !fits_int(r->cols)) return false;
  if ((r->kind == RW_LAYERNORM || r->kind == RW_RMSNORM)) {
    /* scale and bias: the whole normalized shape (element j of the row) */
    Value *sc = n->n_inputs > 1 ? n->inputs[1] : NULL, *b = n->n_inputs > 2 ? n->inputs[2] : NULL;
    if (!f32(sc) || value_numel(sc) != r->cols) return false;
    if (b && (r->kind == RW_RMSNORM || !f32(b) || value_numel(b) != r->cols)) return false;
    r->bias = b != NULL;
    for (int k = 1; k < n->n_outputs; k++) {
      Value *v = n->outputs[k];
      if (!v || (!v->n_consumers && !v->is_output)) continue;
      if (r->kind != RW_LAYERNORM || k > 2 || !f32(v) || value_numel(v) != r->rows) return false;
      if (k == 1) r->mean_out = true;
      else r->inv_out = true;
    }
  } else if (n->n_outputs > 1) {
    return false;
  }
  return true;
}

/* the warp's sum (or maximum) of v into every lane */
static void warp_reduce(Emit *d, const char *v, bool max) {
  ep(d, "for (int o_ = 16; o_ > 0; o_ >>= 1) %s = %s;", v,
     fmt(d, max ? "fmaxf(%s, __shfl_xor_sync(0xffffffffu, %s, o_))" : "%s + __shfl_xor_sync(0xffffffffu, %s, o_)", v, v));
}

static void emit_rows(Cu *cu, Node *n, const RowForm *r) {
  Emit *d = &cu->dev, *h = &cu->host;
  CuArg a[6];
  int na = 0;
  a[na++] = (CuArg){"const float *", "X", cu_ptr(cu, n->inputs[0], true)};
  a[na++] = (CuArg){"float *", "Y", cu_ptr(cu, n->outputs[0], false)};
  if ((r->kind == RW_LAYERNORM || r->kind == RW_RMSNORM)) a[na++] = (CuArg){"const float *", "Sc", cu_ptr(cu, n->inputs[1], true)};
  if (r->bias) a[na++] = (CuArg){"const float *", "Bs", cu_ptr(cu, n->inputs[2], true)};
  if (r->mean_out) a[na++] = (CuArg){"float *", "Mo", cu_ptr(cu, n->outputs[1], false)};
  if (r->inv_out) a[na++] = (CuArg){"float *", "Vo", cu_ptr(cu, n->outputs[2], false)};
  long long R = (long long)r->rows, C = (long long)r->cols;
  int k = cu_kernel_open(cu, n, "warp", a, na);
  ep(d, "const int lane = (int)(threadIdx.x & 31u);");
  ep(d, "for (long long r = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < %lld; "
        "r += ((long long)gridDim.x * blockDim.x) >> 5) {", R);
  ep(d, "const float *x = X + r * %lld;", C);
  if (r->kind != RW_REDUCE) ep(d, "float *y = Y + r * %lld;", C);
  ep(d, "int j;");
  switch (r->kind) {
  case RW_SOFTMAX:
  case RW_LOGSOFTMAX:
    ep(d, "float m = -INFINITY, s = 0;");
    ep(d, "for (j = lane; j < %lld; j += 32) m = fmaxf(m, x[j]);", C);
    warp_reduce(d, "m", true);
    ep(d, "for (j = lane; j < %lld; j += 32) s += expf(x[j] - m);", C);
    warp_reduce(d, "s", false);
    if (r->kind == RW_SOFTMAX) {
      ep(d, "s = 1 / s;");
      ep(d, "for (j = lane; j < %lld; j += 32) y[j] = expf(x[j] - m) * s;", C);
    } else {
      ep(d, "s = logf(s);");
      ep(d, "for (j = lane; j < %lld; j += 32) y[j] = (x[j] - m) - s;", C);
    }
    break;
  case RW_LAYERNORM:
    ep(d, "float mean = 0, var = 0;");
    ep(d, "for (j = lane; j < %lld; j += 32) mean += x[j];", C);
    warp_reduce(d, "mean", false);
    ep(d, "mean /= %s;", c_lit(d, DT_FLOAT, (double)C));
    ep(d, "for (j = lane; j < %lld; j += 32) {", C);
    ep(d, "  const float t = x[j] - mean;");
    ep(d, "  var += t * t;");
    ep(d, "}");
    warp_reduce(d, "var", false);
    ep(d, "var /= %s;", c_lit(d, DT_FLOAT, (double)C));
    ep(d, "const float inv = 1 / sqrtf(var + %s);", c_lit(d, DT_FLOAT, r->eps));
    ep(d, "for (j = lane; j < %lld; j += 32) y[j] = (x[j] - mean) * inv * Sc[j]%s;", C, r->bias ? " + Bs[j]" : "");
    if (r->mean_out) ep(d, "if (lane == 0) Mo[r] = mean;");
    if (r->inv_out) ep(d, "if (lane == 0) Vo[r] = inv;");
    break;
  case RW_REDUCE: {
    /* each lane's part, then the lanes' parts (max/min keep NaN, as the C form) */
    static const char *const init[] = {"0", "0", "-INFINITY", "INFINITY", "1", "0", "0", "0", "0", "0"};
    const char *acc = "a += v;", *comb = "a += o_;";
    switch (r->red) {
    case RK_MAX:
    case RK_LOGSUMEXP:
      acc = "if (v > a || v != v) a = v;";
      comb = "if (o_ > a || o_ != o_) a = o_;";
      break;
    case RK_MIN:
      acc = "if (v < a || v != v) a = v;";
      comb = "if (o_ < a || o_ != o_) a = o_;";
      break;
    case RK_PROD: acc = "a *= v;"; comb = "a *= o_;"; break;
    case RK_L1: acc = "a += fabsf(v);"; break;
    case RK_L2:
    case RK_SUMSQ: acc = "a += v * v;"; break;
    default: break;
    }
    ep(d, "float a = %s;", r->red == RK_LOGSUMEXP ? "-INFINITY" : init[r->red]);
    ep(d, "for (j = lane; j < %lld; j += 32) {", C);
    ep(d, "  const float v = x[j];");
    ep(d, "  %s", acc);
    ep(d, "}");
    ep(d, "for (int s_ = 16; s_ > 0; s_ >>= 1) {");
    ep(d, "  const float o_ = __shfl_xor_sync(0xffffffffu, a, s_);");
    ep(d, "  %s", comb);
    ep(d, "}");
    if (r->red == RK_LOGSUMEXP) { /* then the sum of exp(v - max) */
      ep(d, "const float m = isfinite(a) ? a : 0.0f;");
      ep(d, "a = 0;");
      ep(d, "for (j = lane; j < %lld; j += 32) a += expf(x[j] - m);", C);
      warp_reduce(d, "a", false);
    }
    const char *post = "a";
    switch (r->red) {
    case RK_MEAN: post = fmt(d, "a / %s", c_lit(d, DT_FLOAT, (double)C)); break;
    case RK_L2: post = "sqrtf(a)"; break;
    case RK_LOGSUM: post = "logf(a)"; break;
    case RK_LOGSUMEXP: post = "logf(a) + m"; break;
    default: break;
    }
    ep(d, "if (lane == 0) Y[r] = %s;", post);
    break;
  }
  default:
    ep(d, "float sq = 0;");
    ep(d, "for (j = lane; j < %lld; j += 32) sq += x[j] * x[j];", C);
    warp_reduce(d, "sq", false);
    ep(d, "const float inv = 1 / sqrtf(sq / %s + %s);", c_lit(d, DT_FLOAT, (double)C), c_lit(d, DT_FLOAT, r->eps));
    ep(d, "for (j = lane; j < %lld; j += 32) y[j] = x[j] * inv * Sc[j];", C);
    break;
  }
  ep(d, "}");
  cu_kernel_close(cu);
  ep(h, "/* %s '%s' (a warp per row) */", n->op_type, n->name);
  cu_launch(cu, k, r->rows * 32, BLOCK, a, na);
}

/* ---- attention: MatMul -> Softmax -> MatMul in one kernel ----------------------------------
   scores = Q Kt, P = softmax(scores) over the keys, O = P V (float32, Q [B.., L, D],
   Kt [B.., D, S], V [B.., S, Dv], the same leading dims), when the scores and P have no other
   reader and the three nodes are consecutive in the schedule: a warp per query row keeps its
   row of scores in registers (lane j holds keys j, j + 32, ...), takes the softmax with
   shuffles and sums P V with each lane on output columns (K and V come from global memory
   through the caches: a block per batch entry with them in shared memory was slower on an H100,
   too few blocks at batch 1).  Runs at the first MatMul's place;
   the output must not share storage with Q, Kt or V (the planner may have put it there, as Q
   and Kt are dead by the second MatMul). */

typedef struct AttnForm {
  Node *sm, *mm2;
  int64_t B, L, D, S, Dv;
} AttnForm;

/* Where v lives: a space (NULL: the arena; else its root value: an input, output or constant)
   and the byte range in it. */
static const void *storage(Value *v, int64_t *lo, int64_t *hi) {
  Value *r = v;
  int64_t extra = 0;
  while (r->alias_of) {
    extra += r->alias_offset;
    r = r->alias_of;
  }
  *lo = (r->data || r->kind == VAL_INPUT || r->is_output ? 0 : r->offset) + extra;
  *hi = *lo + value_bytes(v);
  return r->data || r->kind == VAL_INPUT || r->is_output ? (const void *)r : NULL;
}

static bool share_storage(Value *a, Value *b) {
  int64_t al, ah, bl, bh;
  const void *sa = storage(a, &al, &ah), *sb = storage(b, &bl, &bh);
  return sa == sb && al < bh && bl < ah;
}

/* The next node of the schedule after position s that is not elided, or NULL. */
static Node *next_node(const Graph *g, int s, int *pos) {
  for (int t = s + 1; t < g->sched.n; t++)
    if (!((Node *)g->sched.v[t])->elided) {
      *pos = t;
      return g->sched.v[t];
    }
  return NULL;
}

static bool attn_form(Cu *cu, Node *n, AttnForm *f) {
  const Graph *g = cu->g;
  if (!is_op(n, "MatMul") || n->fuse_act || n->fuse_add) return false;
  int s = -1;
  for (int t = 0; t < g->sched.n && s < 0; t++)
    if (g->sched.v[t] == n) s = t;
  if (s < 0) return false; /* a subgraph's node */
  Value *q = n->inputs[0], *kt = n->inputs[1], *sc = n->outputs[0];
  Node *sm = next_node(g, s, &s), *mm2 = sm ? next_node(g, s, &s) : NULL;
  RowForm r;
  if (!sm || !mm2 || !is_op(sm, "Softmax") || !is_op(mm2, "MatMul") || mm2->fuse_act || mm2->fuse_add) return false;
  if (sm->inputs[0] != sc || mm2->inputs[0] != sm->outputs[0] || sc->n_consumers != 1 || sc->is_output ||
      sm->outputs[0]->n_consumers != 1 || sm->outputs[0]->is_output || !row_form(cu->ctx, sm, &r))
    return false;
  Value *v = mm2->inputs[1], *o = mm2->outputs[0];
  if (!f32(q) || !f32(kt) || !f32(v) || !f32(o) || q->rank < 3 || kt->rank != q->rank || v->rank != q->rank ||
      o->rank != q->rank)
    return false;
  int R = q->rank;
  for (int d = 0; d < R - 2; d++)
    if (kt->dims[d] != q->dims[d] || v->dims[d] != q->dims[d]) return false;
  f->L = q->dims[R - 2];
  f->D = q->dims[R - 1];
  f->S = kt->dims[R - 1];
  f->Dv = v->dims[R - 1];
  if (kt->dims[R - 2] != f->D || v->dims[R - 2] != f->S || r.cols != f->S) return false;
  f->B = value_numel(q) / (f->L * f->D);
  if (f->B < 1 || f->L < 1 || f->D < 1 || f->S < 1 || f->S > 1024 || f->Dv < 1 || f->Dv > 256 || f->D > 1024) return false;
  if (!fits_int(f->B * f->L)) return false;
  if (share_storage(o, q) || share_storage(o, kt) || share_storage(o, v)) return false;
  f->sm = sm;
  f->mm2 = mm2;
  return true;
}

static void emit_attn(Cu *cu, Node *n, const AttnForm *f) {
  Emit *d = &cu->dev, *h = &cu->host;
  CuArg a[4] = {{"const float *", "Q", cu_ptr(cu, n->inputs[0], true)},
                {"const float *", "Kt", cu_ptr(cu, n->inputs[1], true)},
                {"const float *", "V", cu_ptr(cu, f->mm2->inputs[1], true)},
                {"float *", "O", cu_ptr(cu, f->mm2->outputs[0], false)}};
  long long B = (long long)f->B, L = (long long)f->L, D = (long long)f->D, S = (long long)f->S, Dv = (long long)f->Dv;
  int ns = (int)((f->S + 31) / 32), nd = (int)((f->Dv + 31) / 32);
  int k = cu_kernel_open(cu, n, "attn_warp", a, 4);
  ep(d, "const int lane = (int)(threadIdx.x & 31u);");
  ep(d, "int t, u, e;");
  ep(d, "for (long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; w < %lld; "
        "w += ((long long)gridDim.x * blockDim.x) >> 5) {", B * L);
  ep(d, "const float *kt = Kt + (w / %lld) * %lld;", L, D * S);
  ep(d, "const float *v = V + (w / %lld) * %lld;", L, S * Dv);
  ep(d, "const float *q = Q + w * %lld;", D);
  ep(d, "float *o = O + w * %lld;", Dv);
  ep(d, "float p[%d], acc[%d], m = -INFINITY, sum = 0;", ns, nd);
  /* scores: lane j holds keys j, j + 32, ... */
  ep(d, "for (t = 0; t < %d; t++) {", ns);
  ep(d, "  const int s = lane + 32 * t;");
  ep(d, "  float z = -INFINITY;");
  ep(d, "  if (s < %lld) {", S);
  ep(d, "    z = 0;");
  ep(d, "    for (e = 0; e < %lld; e++) z += q[e] * kt[e * %lld + s];", D, S);
  ep(d, "  }");
  ep(d, "  p[t] = z;");
  ep(d, "  m = fmaxf(m, z);");
  ep(d, "}");
  warp_reduce(d, "m", true);
  ep(d, "for (t = 0; t < %d; t++) {", ns);
  ep(d, "  p[t] = lane + 32 * t < %lld ? expf(p[t] - m) : 0.0f;", S);
  ep(d, "  sum += p[t];");
  ep(d, "}");
  warp_reduce(d, "sum", false);
  ep(d, "sum = 1 / sum;");
  ep(d, "for (u = 0; u < %d; u++) acc[u] = 0;", nd);
  /* O row: key s's probability comes from lane s % 32 */
  ep(d, "for (t = 0; t < %d; t++) {", ns);
  ep(d, "  for (e = 0; e < 32 && 32 * t + e < %lld; e++) {", S);
  ep(d, "    const float ps = __shfl_sync(0xffffffffu, p[t], e) * sum;");
  ep(d, "    const float *vr = v + (long long)(32 * t + e) * %lld;", Dv);
  ep(d, "    for (u = 0; u < %d; u++)", nd);
  ep(d, "      if (lane + 32 * u < %lld) acc[u] += ps * vr[lane + 32 * u];", Dv);
  ep(d, "  }");
  ep(d, "}");
  ep(d, "for (u = 0; u < %d; u++)", nd);
  ep(d, "  if (lane + 32 * u < %lld) o[lane + 32 * u] = acc[u];", Dv);
  ep(d, "}");
  cu_kernel_close(cu);
  ep(h, "/* %s '%s', %s '%s' and %s '%s' as one attention kernel (a warp per query row) */", n->op_type, n->name,
     f->sm->op_type, f->sm->name, f->mm2->op_type, f->mm2->name);
  cu_launch(cu, k, f->B * f->L * 32, BLOCK, a, 4);
  vec_push(&cu->ctx->arena, &cu->done, f->sm);
  vec_push(&cu->ctx->arena, &cu->done, f->mm2);
}

bool cu_emit_op(Cu *cu, Node *n) {
  MM m;
  CV c;
  if (gemm_ok(n)) {
    emit_gemm(cu, n);
    return true;
  }
  AttnForm af;
  if (attn_form(cu, n, &af)) {
    emit_attn(cu, n, &af);
    return true;
  }
  if (matmul_form(n, &m)) {
    emit_matmul(cu, n, &m);
    return true;
  }
  if (conv_form(cu->ctx, n, &c)) {
    if (c.form == 1) emit_conv_direct(cu, n, &c);
    else emit_conv_gemm(cu, n, &c);
    return true;
  }
  RnnCuda r;
  if (is_op(n, "LSTM") || is_op(n, "GRU")) {
    if (rnn_cuda_form(n, &r)) {
      emit_rnn(cu, n, &r);
      return true;
    }
  }
  RowForm rw;
  if (row_form(cu->ctx, n, &rw)) {
    emit_rows(cu, n, &rw);
    return true;
  }
  return false;
}

int64_t cuda_scratch(Ctx *ctx, Node *n) {
  MM m;
  CV c;
  if (gemm_ok(n) || matmul_form(n, &m)) return 0;
  if (conv_form(ctx, n, &c)) return c.form == 3 ? c.nb * c.s.G * c.K * c.P * 4 : 0;
  RnnCuda r;
  if ((is_op(n, "LSTM") || is_op(n, "GRU")) && rnn_cuda_form(n, &r)) return rnn_floats(&r) * 4;
  RowForm rw;
  if (row_form(ctx, n, &rw)) return 0;
  return -1;
}
