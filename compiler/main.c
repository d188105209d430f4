/*
 * main.c - the onnxc command line.  Parses flags, calls onnxc_compile(), prints its one-line
 * error and exits non-zero on failure.  The only place in the compiler that exits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnxc.h"

static void usage(FILE *f) {
  fputs("usage: onnxc MODEL.onnx -o OUT.c [options]\n"
        "\n"
        "Compiles an ONNX model to C99: OUT.c and OUT.h (typed <name>_run, <NAME>_ARENA_BYTES,\n"
        "and the <name>_model descriptor of onnxc_rt.h).\n"
        "\n"
        "options:\n"
        "  -o FILE              output C file; the header is written beside it (.h)\n"
        "  --name NAME          symbol prefix (default: the output's base name)\n"
        "  --dim NAME=N         size of a symbolic input dimension (repeatable)\n"
        "  --const-input NAME=FILE.pb\n"
        "                       bind a graph input to a constant TensorProto at compile time\n"
        "                       (specializes data-dependent shapes; repeatable)\n"
        "  --seq-input NAME=ITEMS\n"
        "                       the length and item shapes of a sequence input (or of the\n"
        "                       sequence an optional input holds): comma-separated\n"
        "                       [COUNT:]TYPE[DIMS], e.g. 3:float[10] or int64[4],int64[2]\n"
        "                       (0:float[] for an empty one); the caller's onnxc_sequence\n"
        "                       must match (repeatable)\n"
        "  --order NAME         force one execution order (model, dfs, kahn, greedy, beam);\n"
        "                       default: plan them all and keep the smallest arena\n"
        "  --target T           c (default): portable C99; cuda: CUDA C for nvcc (OUT.cu + OUT.h,\n"
        "                       cuBLAS for Conv/Gemm/MatMul); cuda-nvrtc: host C99 (OUT.c + OUT.h)\n"
        "                       carrying the kernel source, compiled by NVRTC when the model is\n"
        "                       created; both link onnxc_rt_cuda (see docs/CUDA.md)\n"
        "  --no-alias           plan without views, in-place ops and concat-in-place\n"
        "  --align N            arena alignment in bytes (default 16)\n"
        "  --string-bytes N     size of the string heap in the arena (strings made at run time:\n"
        "                       StringConcat, StringSplit, Cast to string, ...); default: what\n"
        "                       the model needs when every input string is at most 64 bytes\n"
        "  --image-size HxW     ImageDecoder: the decoded images' height and width (else the\n"
        "                       shape the model declares for its output); another size is\n"
        "                       ONNXC_ERR_SHAPE at run time\n"
        "  --max-substrings N   StringSplit: most substrings of one string (the compile-time\n"
        "                       bound of its output's last dimension; default 16, or maxsplit+1)\n"
        "  --weights FILE.bin   write the weights to FILE.bin instead of static const arrays;\n"
        "                       the model then takes them as its first input, __weights\n"
        "  --scratch-headroom PCT\n"
        "                       kernel scratch may raise the arena at most PCT percent above\n"
        "                       the peak of live tensors (default 25, with --threads N\n"
        "                       50 N: each task has its own); 0: the arena is the\n"
        "                       tensors' lower bound, kernels take forms that fit below it\n"
        "  --threads N          run the big kernels (convolutions, Gemm, MatMul)\n"
        "                       as N tasks on a thread pool, and stacked recurrent layers\n"
        "                       as two-thread pipelines: link libonnxc_rt_threads (POSIX\n"
        "                       threads; host builds); default 1: no threads\n"
        "  --par-min N          with --threads: a kernel under N weighted multiply-adds stays\n"
        "                       on one thread (default 250000; 0: every kernel in parts, a\n"
        "                       test of the parts: compile the C with -DONNXC_PAR_MIN=0 too)\n"
        "  --canary             testing aid: after every node, fill the arena bytes no live\n"
        "                       tensor owns with garbage (outputs must not change)\n"
        "  --memory-report F    write the memory plan as JSON (per tensor: size, offset,\n"
        "                       first/last step, alias-of; totals: arena, bound, weights)\n"
        "  --memory-svg F       draw the memory plan (time across, addresses up)\n"
        "  --gradients          emit a training graph: inputs are the model's inputs and `label`,\n"
        "                       outputs `loss` and <initializer>_grad for every trainable\n"
        "                       (floating-point, not frozen) initializer, in initializer order\n"
        "  --loss KIND[:OUTPUT] the loss of --gradients over OUTPUT (default: the only output):\n"
        "                       mse, cross_entropy (int64 class labels), bce_logits, or output\n"
        "                       (OUTPUT already is the scalar loss; no label)\n"
        "  --freeze NAME,...    initializers that get no gradient (repeatable)\n"
        "  --recompute          with --gradients/--train: cheap forward values (activations,\n"
        "                       normalizations, views of values the gradient keeps anyway)\n"
        "                       are computed again in the backward pass instead of kept\n"
        "                       alive across it (a smaller training arena, a little more work)\n"
        "  --train              emit on-device training: <name>_train_init/_train_step/_infer\n"
        "                       and state save/load over a caller-owned state buffer (needs\n"
        "                       --loss KIND:OUTPUT and --optimizer; see README, Training);\n"
        "                       with --target cuda*: <name>_cuda_train_* (docs/CUDA.md)\n"
        "  --optimizer OPT[:k=v,...]\n"
        "                       sgd (lr required; momentum, weight_decay, nesterov, dampening)\n"
        "                       or adamw (lr=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,\n"
        "                       weight_decay=1e-2), with torch.optim's semantics\n"
        "  --custom-op 'DOMAIN::OP:outputs=OUT,...[:workspace=BYTES][:backward=MODE][:nograd=N,...]'\n"
        "                       compile nodes DOMAIN::OP to calls of your C functions\n"
        "                       <domain>_<op>_forward / _backward (onnxc_custom.h); OUT is inN\n"
        "                       (type and shape of input N) or TYPE[DIMS] with DIMS sizes or\n"
        "                       inN.AXIS; MODE none, inputs, outputs or all (what backward\n"
        "                       reads); see docs/CUSTOM_OPS.md (repeatable)\n"
        "  --custom-ops FILE    the same specs, one per line ('#' comments; repeatable)\n"
        "  --list-ops           print the supported operators and exit\n"
        "  --dump-ir            print the IR after each stage to stderr\n"
        "  -v                   print a summary line to stderr\n"
        "  --version            print the version and exit\n"
        "  -h, --help           print this help and exit\n"
        "\n"
        "onnxc export-weights MODEL.onnx STATE.bin -o OUT.onnx\n"
        "                       writes the parameters of a saved --train state (<name>_state_save)\n"
        "                       into a copy of MODEL.onnx\n",
        f);
}

static int export_weights_main(int argc, char **argv) {
  const char *files[2] = {NULL, NULL}, *out = NULL;
  int nf = 0;
  for (int i = 2; i < argc; i++) {
    if (!strcmp(argv[i], "-o")) {
      if (i + 1 >= argc) { fprintf(stderr, "onnxc: error: option '-o' needs an argument\n"); return 2; }
      out = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "onnxc: error: export-weights: unknown option '%s'\n", argv[i]);
      return 2;
    } else if (nf < 2) {
      files[nf++] = argv[i];
    } else {
      fprintf(stderr, "onnxc: error: export-weights takes MODEL.onnx STATE.bin -o OUT.onnx\n");
      return 2;
    }
  }
  if (nf != 2 || !out) {
    fprintf(stderr, "onnxc: error: export-weights takes MODEL.onnx STATE.bin -o OUT.onnx\n");
    return 2;
  }
  char err[1200];
  if (onnxc_export_weights(files[0], files[1], out, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  CompileOptions opt = {0};
  if (argc > 1 && !strcmp(argv[1], "export-weights")) return export_weights_main(argc, argv);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *next = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_ARG()                                                                \
  do {                                                                            \
    if (!next) {                                                                  \
      fprintf(stderr, "onnxc: error: option '%s' needs an argument\n", a);        \
      return 2;                                                                   \
    }                                                                             \
    i++;                                                                          \
  } while (0)
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "--version")) {
      printf("onnxc %s (ai.onnx opsets 1-%d)\n", ONNXC_VERSION, ONNXC_MAX_OPSET);
      return 0;
    } else if (!strcmp(a, "--list-ops")) {
      op_list(stdout);
      return 0;
    } else if (!strcmp(a, "-o")) {
      NEED_ARG();
      opt.out_c = next;
    } else if (!strcmp(a, "--name")) {
      NEED_ARG();
      opt.name = next;
    } else if (!strcmp(a, "--dim")) {
      NEED_ARG();
      if (opt.n_dims == 32) { fprintf(stderr, "onnxc: error: too many --dim\n"); return 2; }
      opt.dims[opt.n_dims++] = next;
    } else if (!strcmp(a, "--const-input")) {
      NEED_ARG();
      if (opt.n_const_inputs == 32) { fprintf(stderr, "onnxc: error: too many --const-input\n"); return 2; }
      opt.const_inputs[opt.n_const_inputs++] = next;
    } else if (!strcmp(a, "--seq-input")) {
      NEED_ARG();
      if (opt.n_seq_inputs == 32) { fprintf(stderr, "onnxc: error: too many --seq-input\n"); return 2; }
      opt.seq_inputs[opt.n_seq_inputs++] = next;
    } else if (!strcmp(a, "--order")) {
      NEED_ARG();
      opt.order = next;
    } else if (!strcmp(a, "--no-alias")) {
      opt.no_alias = true;
    } else if (!strcmp(a, "--canary")) {
      opt.canary = true;
    } else if (!strcmp(a, "--target")) {
      NEED_ARG();
      if (strcmp(next, "c") && strcmp(next, "cuda") && strcmp(next, "cuda-nvrtc")) {
        fprintf(stderr, "onnxc: error: unknown target '%s' (c, cuda, cuda-nvrtc)\n", next);
        return 2;
      }
      opt.target = next;
    } else if (!strcmp(a, "--weights")) {
      NEED_ARG();
      opt.weights = next;
    } else if (!strcmp(a, "--align")) {
      NEED_ARG();
      char *end;
      long v = strtol(next, &end, 10);
      if (*end || v <= 0) { fprintf(stderr, "onnxc: error: --align expects a positive integer\n"); return 2; }
      opt.align = (size_t)v;
    } else if (!strcmp(a, "--image-size")) {
      NEED_ARG();
      char *end, *end2 = NULL;
      long h = strtol(next, &end, 10), w = *end == 'x' ? strtol(end + 1, &end2, 10) : 0;
      if (end == next || *end != 'x' || !end2 || end2 == end + 1 || *end2 || h < 1 || w < 1 || h > 65535 || w > 65535) {
        fprintf(stderr, "onnxc: error: --image-size expects HxW, two integers from 1 to 65535\n");
        return 2;
      }
      opt.image_h = h;
      opt.image_w = w;
    } else if (!strcmp(a, "--string-bytes") || !strcmp(a, "--max-substrings")) {
      NEED_ARG();
      char *end;
      long long v = strtoll(next, &end, 10);
      bool sb = !strcmp(a, "--string-bytes");
      if (!*next || *end || v < (sb ? 0 : 1) || v > ((long long)1 << 40)) {
        fprintf(stderr, "onnxc: error: %s expects %s integer\n", a, sb ? "a non-negative" : "a positive");
        return 2;
      }
      if (sb) {
        opt.string_bytes = v;
        opt.string_bytes_set = true;
      } else {
        opt.max_substrings = v;
      }
    } else if (!strcmp(a, "--scratch-headroom")) {
      NEED_ARG();
      char *end;
      long v = strtol(next, &end, 10);
      if (*end || end == next || v < 0 || v > 1000) {
        fprintf(stderr, "onnxc: error: --scratch-headroom expects a percentage from 0 to 1000\n");
        return 2;
      }
      opt.scratch_headroom = (int)v;
      opt.scratch_headroom_set = true;
    } else if (!strcmp(a, "--threads")) {
      NEED_ARG();
      char *end;
      long v = strtol(next, &end, 10);
      if (*end || v < 1 || v > 64) { fprintf(stderr, "onnxc: error: --threads expects an integer from 1 to 64\n"); return 2; }
      opt.threads = (int)v;
    } else if (!strcmp(a, "--par-min")) {
      NEED_ARG();
      char *end;
      double v = strtod(next, &end);
      if (*end || end == next || !(v >= 0 && v <= 1e15)) { fprintf(stderr, "onnxc: error: --par-min expects a number >= 0\n"); return 2; }
      opt.par_min = v;
      opt.par_min_set = true;
    } else if (!strcmp(a, "--gradients")) {
      opt.gradients = true;
    } else if (!strcmp(a, "--train")) {
      opt.train = true;
    } else if (!strcmp(a, "--recompute")) {
      opt.recompute = true;
    } else if (!strcmp(a, "--optimizer")) {
      NEED_ARG();
      opt.optimizer = next;
    } else if (!strcmp(a, "--loss")) {
      NEED_ARG();
      opt.loss = next;
    } else if (!strcmp(a, "--freeze")) {
      NEED_ARG();
      if (opt.n_freeze == 32) { fprintf(stderr, "onnxc: error: too many --freeze\n"); return 2; }
      opt.freeze[opt.n_freeze++] = next;
    } else if (!strcmp(a, "--custom-op")) {
      NEED_ARG();
      if (opt.n_custom_ops == 64) { fprintf(stderr, "onnxc: error: too many --custom-op\n"); return 2; }
      /* syntax now (a usage error); the compile checks the spec against the model */
      Arena tmp = {0};
      CustomOp op;
      char msg[512];
      bool ok = custom_parse(&tmp, next, &op, msg, sizeof msg);
      arena_free_all(&tmp);
      if (!ok) { fprintf(stderr, "onnxc: error: --custom-op '%s': %s\n", next, msg); return 2; }
      opt.custom_ops[opt.n_custom_ops++] = next;
    } else if (!strcmp(a, "--custom-ops")) {
      NEED_ARG();
      if (opt.n_custom_op_files == 8) { fprintf(stderr, "onnxc: error: too many --custom-ops\n"); return 2; }
      opt.custom_op_files[opt.n_custom_op_files++] = next;
    } else if (!strcmp(a, "--memory-report")) {
      NEED_ARG();
      opt.memory_report = next;
    } else if (!strcmp(a, "--memory-svg")) {
      NEED_ARG();
      opt.memory_svg = next;
    } else if (!strcmp(a, "-vv")) {
      opt.verbose = 2;
    } else if (!strcmp(a, "--dump-ir")) {
      opt.dump_ir = 1;
    } else if (!strcmp(a, "-v")) {
      opt.verbose = 1;
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "onnxc: error: unknown option '%s' (see --help)\n", a);
      return 2;
    } else if (!opt.model_path) {
      opt.model_path = a;
    } else {
      fprintf(stderr, "onnxc: error: more than one model given ('%s' and '%s')\n", opt.model_path, a);
      return 2;
    }
  }
  if (!opt.model_path) {
    fprintf(stderr, "onnxc: error: no model given (see --help)\n");
    return 2;
  }
  if (!opt.out_c) {
    fprintf(stderr, "onnxc: error: no output given; use -o OUT.c\n");
    return 2;
  }
  if (opt.train) {
    /* flag misuse is a usage error (2); out-of-range values are checked with the model (1) */
    if (!opt.loss) { fprintf(stderr, "onnxc: error: --train needs --loss KIND:OUTPUT\n"); return 2; }
    if (!opt.optimizer) { fprintf(stderr, "onnxc: error: --train needs --optimizer sgd:lr=X or adamw[:k=v,...]\n"); return 2; }
    TrainOptim o;
    char msg[512];
    if (!train_parse_optimizer(opt.optimizer, &o, msg, sizeof msg)) { fprintf(stderr, "onnxc: error: %s\n", msg); return 2; }
  } else if (opt.optimizer) {
    fprintf(stderr, "onnxc: error: --optimizer needs --train\n");
    return 2;
  }
  if (opt.recompute && !opt.train && !opt.gradients) {
    fprintf(stderr, "onnxc: error: --recompute needs --gradients or --train\n");
    return 2;
  }
  char err[1200];
  if (onnxc_compile(&opt, err, sizeof err) != 0) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  return 0;
}
