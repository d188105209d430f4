#!/usr/bin/env python3
"""Checks onnxc --train against torch.optim: for every fixture (export_curves.py) and optimizer,
compiles the model with --train, builds a harness that runs the same steps on the same batches,
and requires every step's loss within --rtol (relative) of torch's.  For each case the harness
also saves the state, loads it into a fresh buffer and runs <name>_infer; onnxc export-weights
writes the state into the .onnx and ONNX Runtime must give the same outputs (BatchNormalization
switched to inference mode, as <name>_infer runs it).  With BatchNorm, the exported running
statistics must match torch's buffers and <name>_infer torch's eval-mode output (1e-4).  A
tampered, a truncated and another model's state blob must be rejected with ONNXC_ERR_FORMAT.

With --target cuda / cuda-nvrtc / cuda-emu the same checks run through the CUDA training driver
(--train --target cuda: the state in device memory, batches from host memory through
<name>_cuda_train_step_host); cuda-emu runs its code on the CPU (tests/cuda/emu).

usage: run_curves.py --build BUILD [--rtol 1e-3] [-k SUBSTRING] [--flag=ONNXC_FLAG ...]
                     [--target c|cuda|cuda-nvrtc|cuda-emu]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

READF = r"""static void *readf(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  void *p;
  long len;
  if (!f) { perror(path); exit(2); }
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  p = malloc((size_t)len + 1);
  if (fread(p, 1, (size_t)len, f) != (size_t)len) exit(2);
  fclose(f);
  if (n) *n = (size_t)len;
  return p;
}
"""

HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "net.h"

static unsigned char state[NET_STATE_BYTES] __attribute__((aligned(64)));
static unsigned char state2[NET_STATE_BYTES] __attribute__((aligned(64)));
static unsigned char arena[NET_TRAIN_ARENA_BYTES + 16] __attribute__((aligned(64)));
static unsigned char iarena[NET_ARENA_BYTES + 16] __attribute__((aligned(64)));
static unsigned char blob[NET_STATE_BLOB_BYTES + 16];

@READF@

int main(int argc, char **argv) {
  /* argv: x.bin y.bin steps batches out.bin state.bin other_state.bin */
  const XT *x;
  const YT *y;
  int steps, K, s, st;
  static OT out1[OUT_N], out2[OUT_N];
  size_t n, other_n;
  unsigned char *other;
  FILE *f;
  if (argc != 8) return 2;
  x = readf(argv[1], NULL);
  y = readf(argv[2], NULL);
  steps = atoi(argv[3]);
  K = atoi(argv[4]);
  if (net_train_init(state) != ONNXC_OK) return 3;
  for (s = 0; s < steps; s++) {
    float loss = -1;
    st = net_train_step(state, arena, x + (size_t)(s % K) * X_N, y + (size_t)(s % K) * Y_N, &loss);
    if (st != ONNXC_OK) { fprintf(stderr, "step %d: %s\n", s, onnxc_status_str(st)); return 4; }
    printf("%.9g\n", loss);
  }
  if (net_train_steps(state) != (uint64_t)steps) return 5;
  if (net_infer(state, iarena, x, out1) != ONNXC_OK) return 6;
  /* save -> load into a fresh state -> infer gives the same outputs */
  n = net_state_save(state, blob, sizeof blob);
  if (n != NET_STATE_BLOB_BYTES || net_state_save(state, blob, NET_STATE_BLOB_BYTES - 1) != 0) return 7;
  f = fopen(argv[6], "wb");
  if (!f || fwrite(blob, 1, n, f) != n || fclose(f)) return 8;
  memset(state2, 0x5a, sizeof state2);
  if (net_state_load(state2, blob, n) != ONNXC_OK) return 9;
  if (net_infer(state2, arena, x, out2) != ONNXC_OK) return 10; /* the train arena serves too */
  if (memcmp(out1, out2, sizeof out1) != 0) return 11;
  if (net_train_steps(state2) != (uint64_t)steps) return 12;
  /* rejected: truncated, a flipped data byte, a flipped table byte, another model's state */
  memcpy(state2, state, sizeof state);
  if (net_state_load(state2, blob, n - 1) != ONNXC_ERR_FORMAT) return 13;
  blob[n - 3] ^= 0x10;
  if (net_state_load(state2, blob, n) != ONNXC_ERR_FORMAT) return 14;
  blob[n - 3] ^= 0x10;
  blob[60] ^= 1;
  if (net_state_load(state2, blob, n) != ONNXC_ERR_FORMAT) return 15;
  blob[60] ^= 1;
  other = readf(argv[7], &other_n);
  if (net_state_load(state2, other, other_n) != ONNXC_ERR_FORMAT) return 16;
  if (memcmp(state2, state, sizeof state) != 0) return 17; /* a rejected load leaves the state alone */
  if (net_state_load(state2, blob, n) != ONNXC_OK) return 18;
  if (net_train_step((void *)0, arena, x, y, (float *)0) != ONNXC_ERR_NULL) return 19;
  if (net_train_step(state + 4, arena, x, y, (float *)0) != ONNXC_ERR_ALIGN) return 20;
  f = fopen(argv[5], "wb");
  if (!f || fwrite(out1, sizeof out1[0], OUT_N, f) != OUT_N || fclose(f)) return 21;
  return 0;
}
"""

# --target cuda / cuda-nvrtc / cuda-emu: the same checks through the CUDA training driver
# (onnxc --train --target cuda: net.cu + net_step.cu + net_infer.cu), batches passed as host
# memory; the saved state goes through the same export-weights + ORT check, so it also shows
# that the CUDA driver writes the C backend's state format.  Exit 77 in the program: no GPU.
HARNESS_CUDA = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "net.h"

static unsigned char blob[NET_STATE_BLOB_BYTES + 16];

@READF@

int main(int argc, char **argv) {
  /* argv: x.bin y.bin steps batches out.bin state.bin other_state.bin */
  const XT *x;
  const YT *y;
  int steps, K, s, st;
  static OT out1[OUT_N], out2[OUT_N];
  size_t n, other_n;
  unsigned char *other;
  net_cuda_train *c = NULL, *c2 = NULL;
  FILE *f;
  if (argc != 8) return 2;
  x = readf(argv[1], NULL);
  y = readf(argv[2], NULL);
  steps = atoi(argv[3]);
  K = atoi(argv[4]);
  st = net_cuda_train_create(&c, NULL);
  if (st == ONNXC_ERR_NO_DEVICE) { printf("SKIP: no CUDA device\n"); return 77; }
  if (st != ONNXC_OK) { fprintf(stderr, "create: %s: %s\n", onnxc_status_str(st), c ? net_cuda_train_error(c) : ""); return 3; }
  for (s = 0; s < steps; s++) {
    float loss = -1;
    st = net_cuda_train_step_host(c, x + (size_t)(s % K) * X_N, y + (size_t)(s % K) * Y_N, &loss);
    if (st != ONNXC_OK) { fprintf(stderr, "step %d: %s: %s\n", s, onnxc_status_str(st), net_cuda_train_error(c)); return 4; }
    printf("%.9g\n", loss);
  }
  if (net_cuda_train_steps(c) != (uint64_t)steps) return 5;
  if (net_cuda_infer_host(c, x, out1) != ONNXC_OK) return 6;
  /* save -> load into a fresh context -> infer gives the same outputs */
  n = net_cuda_state_save(c, blob, sizeof blob);
  if (n != NET_STATE_BLOB_BYTES || net_cuda_state_save(c, blob, NET_STATE_BLOB_BYTES - 1) != 0) return 7;
  f = fopen(argv[6], "wb");
  if (!f || fwrite(blob, 1, n, f) != n || fclose(f)) return 8;
  if (net_cuda_train_create(&c2, NULL) != ONNXC_OK) return 9;
  if (net_cuda_state_load(c2, blob, n) != ONNXC_OK) return 9;
  if (net_cuda_infer_host(c2, x, out2) != ONNXC_OK) return 10;
  if (memcmp(out1, out2, sizeof out1) != 0) return 11;
  if (net_cuda_train_steps(c2) != (uint64_t)steps) return 12;
  /* rejected: truncated, a flipped data byte, a flipped table byte, another model's state;
     a rejected load leaves the state alone */
  if (net_cuda_train_init(c2) != ONNXC_OK) return 13;
  if (net_cuda_state_load(c2, blob, n - 1) != ONNXC_ERR_FORMAT) return 13;
  blob[n - 3] ^= 0x10;
  if (net_cuda_state_load(c2, blob, n) != ONNXC_ERR_FORMAT) return 14;
  blob[n - 3] ^= 0x10;
  blob[60] ^= 1;
  if (net_cuda_state_load(c2, blob, n) != ONNXC_ERR_FORMAT) return 15;
  blob[60] ^= 1;
  other = readf(argv[7], &other_n);
  if (net_cuda_state_load(c2, other, other_n) != ONNXC_ERR_FORMAT) return 16;
  if (net_cuda_train_steps(c2) != 0) return 17;
  if (net_cuda_state_load(c2, blob, n) != ONNXC_OK || net_cuda_infer_host(c2, x, out2) != ONNXC_OK) return 18;
  if (memcmp(out1, out2, sizeof out1) != 0) return 18;
  if (net_cuda_train_step_host((net_cuda_train *)0, x, y, (float *)0) != ONNXC_ERR_NULL) return 19;
  if (net_cuda_train_step_host(c, (const XT *)0, y, (float *)0) != ONNXC_ERR_NULL) return 20;
  net_cuda_train_destroy(c2);
  net_cuda_train_destroy(c);
  f = fopen(argv[5], "wb");
  if (!f || fwrite(out1, sizeof out1[0], OUT_N, f) != OUT_N || fclose(f)) return 21;
  return 0;
}
"""
NVRTC_PROBE = r"""
#include <stdio.h>
#include "net.h"
#include "net_step.h"
#include "net_infer.h"
int main(void) {
  const onnxc_cuda_kernels *k[3];
  static char log[8192];
  int i;
  k[0] = &net_cuda_train_kernels;
  k[1] = net_step_cuda_model.kernels;
  k[2] = net_infer_cuda_model.kernels;
  for (i = 0; i < 3; i++) {
    void *code = 0;
    size_t size = 0;
    if (onnxc_cuda_nvrtc_compile(k[i], 90, &code, &size, log, sizeof log) != ONNXC_OK || !size) {
      printf("NVRTC, kernel set %d: %s\n", i, log);
      return 1;
    }
    onnxc_cuda_free_code(code);
  }
  return 0;
}
"""
EMU = os.path.join(ROOT, "tests", "cuda", "emu")
CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")


def build_cuda(target, w, build, cc):
    """The CUDA harness and the three generated files; returns the executable."""
    inc = ["-I", os.path.join(ROOT, "runtime_min"), "-I", w]
    exe = os.path.join(w, "harness")
    objs = []
    sh([cc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic", *inc, "-c", os.path.join(w, "main.c"),
        "-o", os.path.join(w, "main.o")])
    objs.append(os.path.join(w, "main.o"))
    parts = ["net", "net_step", "net_infer"]
    if target == "cuda-emu":
        for p in parts:
            sh(["g++", "-x", "c++", "-std=c++17", "-O1", "-w", "-include", os.path.join(EMU, "cuda_emu.h"), *inc,
                "-c", os.path.join(w, p + ".cu"), "-o", os.path.join(w, p + ".o")])
            objs.append(os.path.join(w, p + ".o"))
        sh(["g++", "-O1", "-std=c++17", *inc, "-I", EMU, "-c", os.path.join(EMU, "rt_emu.cpp"), "-o", os.path.join(w, "rt_emu.o")])
        sh(["g++", *objs, os.path.join(w, "rt_emu.o"), os.path.join(build, "libonnxc_rt.a"), "-lm", "-o", exe])
        return exe
    lib = os.path.join(CUDA, "lib64")
    rt = [os.path.join(build, "libonnxc_rt_cuda.a"), os.path.join(build, "libonnxc_rt.a")]
    if target == "cuda-nvrtc":
        for p in parts:
            sh([cc, "-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-pedantic", *inc, "-I", os.path.join(CUDA, "include"),
                "-c", os.path.join(w, p + ".c"), "-o", os.path.join(w, p + ".o")])
            objs.append(os.path.join(w, p + ".o"))
        link = ["-L", lib, f"-Wl,-rpath,{lib}", "-lcublas", "-lnvrtc", "-lcudart", "-lm", "-lpthread"]
        sh([cc, *objs, *rt, *link, "-o", exe])
        # the three kernel sources through NVRTC for sm_90 (no GPU needed; create does this there)
        probe = os.path.join(w, "nvrtc_probe.c")
        open(probe, "w").write(NVRTC_PROBE)
        sh([cc, "-std=c99", *inc, "-I", os.path.join(CUDA, "include"), probe, *objs[1:], *rt, *link, "-o", probe + ".exe"])
        sh([probe + ".exe"])
        return exe
    arch = os.environ.get("ONNXC_CUDA_ARCH", "native")
    sh([os.path.join(CUDA, "bin", "nvcc"), "-std=c++17", "-O2", f"-arch={arch}", *inc,
        *[os.path.join(w, p + ".cu") for p in parts], *objs, *rt, "-lcublas", "-lnvrtc", "-o", exe])
    return exe


HARNESS = HARNESS.replace("@READF@\n", READF)
HARNESS_CUDA = HARNESS_CUDA.replace("@READF@\n", READF)
CT = {np.dtype("float32"): "float", np.dtype("int64"): "int64_t"}


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    return r.stdout


def rel_err(got, ref):
    got, ref = np.asarray(got, dtype=np.float64).ravel(), np.asarray(ref, dtype=np.float64).ravel()
    return float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-6))


def eval_mode(path, out):
    """The model with every BatchNormalization in inference mode (running statistics)."""
    import onnx
    m = onnx.load(path)
    for n in m.graph.node:
        if n.op_type == "BatchNormalization":
            del n.output[1:]
            for a in n.attribute:
                if a.name == "training_mode":
                    a.i = 0
    onnx.save(m, out)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--rtol", type=float, default=1e-3)
    ap.add_argument("-k", default="")
    ap.add_argument("--flag", action="append", default=[], help="extra onnxc flag (repeatable), e.g. --recompute")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--target", choices=["c", "cuda", "cuda-nvrtc", "cuda-emu"], default="c",
                    help="cuda*: the CUDA training driver on the GPU (exit 77 without one); cuda-emu: its "
                         "code built with g++ and run on the CPU (tests/cuda/emu)")
    args = ap.parse_args()
    onnxc = os.path.join(os.path.abspath(args.build), "onnxc")
    rt = [os.path.join(ROOT, "runtime_min", "onnxc_rt.c")]
    inc = ["-I", os.path.join(ROOT, "runtime_min")]
    import onnxruntime as ort
    fixtures = sorted(d for d in os.listdir(HERE) if os.path.isfile(os.path.join(HERE, d, "curves.json")))
    passed = failed = skipped = 0
    worst = {}
    ext = {"c": "c", "cuda-nvrtc": "c"}.get(args.target, "cu")
    with tempfile.TemporaryDirectory() as tmp:
        # a blob of another model, for the rejection check
        other = os.path.join(tmp, "other_state.bin")
        with open(other, "wb") as f:
            f.write(b"ONNXCST\0" + b"\0" * 200)
        for fx in fixtures:
            d = os.path.join(HERE, fx)
            curves = json.load(open(os.path.join(d, "curves.json")))
            data = np.load(os.path.join(d, "data.npz"))
            x, y = data["x"], data["y"]
            K = x.shape[0]
            for oname, c in curves.items():
                case = f"{fx}/{oname}"
                if args.k not in case:
                    continue
                w = os.path.join(tmp, fx + "_" + oname)
                os.makedirs(w)
                try:
                    sh([onnxc, os.path.join(d, "model.onnx"), "--train", "--loss", c["loss"], "--optimizer", c["optimizer"],
                        "-o", os.path.join(w, "net." + ext), *args.flag]
                       + ([] if args.target == "c" else ["--target", "cuda-nvrtc" if args.target == "cuda-nvrtc" else "cuda"]))
                    sess = ort.InferenceSession(os.path.join(d, "model.onnx"), providers=["CPUExecutionProvider"])
                    out_shape = sess.get_outputs()[0].shape
                    out_n = int(np.prod(out_shape))
                    hdr = (f"#define XT {CT[x.dtype]}\n#define YT {CT[y.dtype]}\n#define OT float\n"
                           f"#define X_N {int(np.prod(x.shape[1:]))}\n#define Y_N {int(np.prod(y.shape[1:]))}\n"
                           f"#define OUT_N {out_n}\n")
                    open(os.path.join(w, "main.c"), "w").write(hdr + (HARNESS if args.target == "c" else HARNESS_CUDA))
                    exe = os.path.join(w, "harness")
                    if args.target == "c":
                        sh([args.cc, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-pedantic", *inc, "-I", w,
                            os.path.join(w, "main.c"), os.path.join(w, "net.c"), *rt, "-lm", "-o", exe])
                    else:
                        exe = build_cuda(args.target, w, os.path.abspath(args.build), args.cc)
                    xs, ys = os.path.join(w, "x.bin"), os.path.join(w, "y.bin")
                    x.tofile(xs)
                    y.tofile(ys)
                    outs, state = os.path.join(w, "out.bin"), os.path.join(w, "state.bin")
                    r = subprocess.run([exe, xs, ys, str(len(c["losses"])), str(K), outs, state, other],
                                       capture_output=True, text=True, timeout=60)
                    if r.returncode == 77 and args.target != "c":
                        print(f"SKIP {case}: no CUDA device")
                        skipped += 1
                        continue
                    if r.returncode != 0:
                        raise RuntimeError(f"harness exit {r.returncode}: {r.stderr[-500:]}")
                    got = np.array([float(t) for t in r.stdout.split()])
                    ref = np.array(c["losses"])
                    if got.shape != ref.shape:
                        raise RuntimeError(f"{got.shape[0]} losses, expected {ref.shape[0]}")
                    rel = np.abs(got - ref) / np.maximum(np.abs(ref), 1e-6)
                    worst[case] = float(rel.max())
                    if rel.max() > args.rtol:
                        s = int(rel.argmax())
                        raise RuntimeError(f"step {s}: loss {got[s]:.7g}, torch {ref[s]:.7g} (rel {rel[s]:.2e})")
                    # export-weights -> ONNX Runtime == <name>_infer after the same steps
                    trained = os.path.join(w, "trained.onnx")
                    sh([onnxc, "export-weights", os.path.join(d, "model.onnx"), state, "-o", trained])
                    sess = ort.InferenceSession(eval_mode(trained, os.path.join(w, "trained_eval.onnx")),
                                                providers=["CPUExecutionProvider"])
                    ref_out = sess.run(None, {sess.get_inputs()[0].name: x[0]})[0]
                    ours = np.fromfile(outs, dtype=np.float32).reshape(ref_out.shape)
                    err = rel_err(ours, ref_out)
                    if err > 1e-4:
                        raise RuntimeError(f"infer after {len(ref)} steps differs from ORT on the exported model (rel {err:.2e})")
                    extra = ""
                    if "stats" in c:  # BatchNorm running statistics and eval mode against torch
                        import onnx
                        from onnx import numpy_helper
                        inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(trained).graph.initializer}
                        serr = max(rel_err(inits[k], v) for k, v in c["stats"].items())
                        if serr > 1e-4:
                            raise RuntimeError(f"running statistics after {len(ref)} steps differ from torch's (rel {serr:.2e})")
                        eerr = rel_err(ours, c["eval_out"])
                        if eerr > 1e-4:
                            raise RuntimeError(f"infer after {len(ref)} steps differs from torch eval mode (rel {eerr:.2e})")
                        extra = f"; {len(c['stats'])} running statistics rel err {serr:.1e}, infer vs torch eval {eerr:.1e}"
                    print(f"PASS {case}: worst loss rel err {rel.max():.2e} over {len(ref)} steps "
                          f"({ref[0]:.4f} -> {ref[-1]:.4f}); export-weights + ORT rel err {err:.1e}{extra}")
                    passed += 1
                except Exception as ex:  # noqa: BLE001
                    print(f"FAIL {case}: {ex}")
                    failed += 1
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
    if skipped and not passed and not failed:
        return 77
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
