#!/usr/bin/env python3
"""CPU speed benchmark: onnxc-generated C against ONNX Runtime on the same machine, in one run.

For every model of bench/models (bench/export_models.py) it
  - compiles the model with onnxc (timed: "compile s"), builds the generated C with the given
    flags into a shared library together with a tiny timing loop, and loads it with ctypes;
  - opens the model in ONNX Runtime (intra_op_num_threads=1, inter_op_num_threads=1, all graph
    optimizations, sequential execution) with inputs and outputs pre-bound (IOBinding);
  - runs both on the stored input sample, checks onnxc's outputs against ORT's
    (max |onnxc - ort| <= 1e-4 * max |ort| per output), then times them: after a warm-up,
    batches of onnxc and ORT runs alternate (the machine is shared, so alternating keeps both
    under the same load) and each reports the median over batches of the time per run.  Times
    are the process's CPU time (CLOCK_PROCESS_CPUTIME_ID / time.process_time; ORT runs on the
    calling thread with one intra-op thread), so time the other jobs of a shared machine take
    from this process does not count; caches and memory bandwidth are still shared;
  - prints onnxc us, ORT us, speedup (ORT / onnxc), GFLOP/s of onnxc and its share of the
    core's fp32 peak, the code size of the generated object beyond the weights (text + rodata
    minus the weight arrays) and onnxc's compile time.
The fp32 peak is measured with an FMA loop in C (GCC vector extensions, independent
accumulators) at 128/256/512-bit widths with the same compiler and -march=native; the best is
the peak.  On x86 it is built with -mprefer-vector-width=512: under GCC's tuning for some AVX-512
cores (-march=native on a Rocket Lake-tuned Xeon picks a 256-bit preference) the 64-byte vectors
otherwise live in memory and the 512-bit loop measures store forwarding (65 instead of 225
GFLOP/s).  FLOPs count 2 per multiply-add of Conv, ConvTranspose, Gemm, MatMul, LSTM and GRU
(the usual convention); other ops are not counted.

ORT is called from Python (run_with_iobinding); its per-call binding overhead is measured on
a one-node model and printed ("ORT call overhead"); the speedup column uses the raw ORT time and
the "spd-ovh" column the ORT time minus that overhead (the conservative comparison).

With --rounds R the whole suite is timed R times over, round after round, and each model
reports the median of its rounds (speedup: the median of the rounds' ratios) and the range of
its % peak over the rounds: this shared machine has phases of seconds to minutes in which
everything, ORT too, runs up to 20% slower, and a single run can land in one.

usage: python3 bench/speed.py [--build build] [--cflags "-O3 -march=native -ffp-contract=fast"]
                              [--batches 15] [--batch-ms 30] [--rounds 1] [NAME...]
"""
import argparse
import ctypes
import glob
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper, shape_inference

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_CFLAGS = "-O3 -march=native -ffp-contract=fast"
THREADS = 1  # --threads: onnxc --threads N and ORT intra_op_num_threads = N; times are wall-clock

PEAK_C = r"""
#include <stdio.h>
#include <time.h>
typedef float v4 __attribute__((vector_size(16)));
typedef float v8 __attribute__((vector_size(32)));
typedef float v16 __attribute__((vector_size(64)));
static double now(void) { struct timespec t; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
#define PEAK(NAME, V, L)                                                                    \
  static double NAME(long iters) {                                                         \
    V m, c, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11;                              \
    for (int l = 0; l < L; l++) {                                                          \
      m[l] = 0.999999f; c[l] = 1e-7f; a0[l] = a1[l] = a2[l] = a3[l] = (float)l;            \
      a4[l] = a5[l] = a6[l] = a7[l] = a8[l] = a9[l] = a10[l] = a11[l] = (float)(l + 1);    \
    }                                                                                      \
    double t0 = now();                                                                     \
    for (long it = 0; it < iters; it++) {                                                  \
      a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c;                  \
      a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c;                  \
      a8 = a8 * m + c; a9 = a9 * m + c; a10 = a10 * m + c; a11 = a11 * m + c;              \
      __asm__ volatile("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5),     \
                       "+x"(a6), "+x"(a7), "+x"(a8), "+x"(a9), "+x"(a10), "+x"(a11));      \
    }                                                                                      \
    double t = now() - t0;                                                                 \
    V s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11;                     \
    if (s[0] == 12345.f) printf("-");                                                      \
    return 2.0 * 12 * L * iters / t / 1e9;                                                 \
  }
/* a width is measured only where the target has registers that wide (an "x" operand cannot
   hold a 64-byte vector without AVX-512, nor a 32-byte one without AVX) */
#if defined(__x86_64__) && !defined(__AVX__)
#define NO_V8 1
#endif
#if defined(__x86_64__) && !defined(__AVX512F__)
#define NO_V16 1
#endif
PEAK(p4, v4, 4)
#ifndef NO_V8
PEAK(p8, v8, 8)
#endif
#ifndef NO_V16
PEAK(p16, v16, 16)
#endif
int main(void) {
  double b4 = 0, b8 = 0, b16 = 0;
  for (int r = 0; r < 7; r++) {
    double x;
    if ((x = p4(20000000)) > b4) b4 = x;
#ifndef NO_V8
    if ((x = p8(20000000)) > b8) b8 = x;
#endif
#ifndef NO_V16
    if ((x = p16(20000000)) > b16) b16 = x;
#endif
  }
  printf("%.2f %.2f %.2f\n", b4, b8, b16);
  return 0;
}
"""

WRAP_C = r"""
#include <time.h>
#ifndef BENCH_CLOCK
#define BENCH_CLOCK CLOCK_PROCESS_CPUTIME_ID
#endif
#include "onnxc_rt.h"
extern const onnxc_model net_model;
int bench_run(void *arena, const void *const *in, void *const *out) { return net_model.run(arena, in, out); }
size_t bench_arena(void) { return net_model.arena_bytes; }
double bench_loop(void *arena, const void *const *in, void *const *out, int iters) {
  struct timespec a, b;
  clock_gettime(BENCH_CLOCK, &a);
  for (int i = 0; i < iters; i++) net_model.run(arena, in, out);
  clock_gettime(BENCH_CLOCK, &b);
  return (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
}
"""


def sh(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode:
        raise RuntimeError(f"{' '.join(cmd)}:\n{p.stdout}{p.stderr}")
    return p.stdout


def measure_peak(cc, work):
    src = os.path.join(work, "peak.c")
    with open(src, "w") as f:
        f.write(PEAK_C)
    exe = os.path.join(work, "peak")
    extra = ["-mprefer-vector-width=512"] if os.uname().machine in ("x86_64", "i686") else []
    sh([cc, "-O2", "-march=native", "-ffp-contract=fast"] + extra + [src, "-o", exe])
    vals = [float(x) for x in sh([exe]).split()]
    return max(vals), vals


def tensor_shapes(path):
    """Every tensor's shape, from one ONNX Runtime run on the stored input with all node outputs
    exposed as graph outputs (static shape inference leaves shapes unknown after data-dependent
    Reshapes, e.g. ShuffleNet's channel shuffle, which would drop those convolutions' FLOPs)."""
    m = onnx.load(path)
    g = m.graph
    have = {o.name for o in g.output}
    for n in g.node:
        for o in n.output:
            if o and o not in have:
                g.output.append(onnx.ValueInfoProto(name=o))
                have.add(o)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 1
    sess = ort.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
    x = np.load(path[:-5] + ".input.npy")
    vals = sess.run(None, {sess.get_inputs()[0].name: x})
    shapes = {o.name: list(v.shape) for o, v in zip(sess.get_outputs(), vals)}
    shapes[sess.get_inputs()[0].name] = list(x.shape)
    for t in g.initializer:
        shapes[t.name] = list(t.dims)
    return g, shapes


def model_flops(path):
    g, shapes = tensor_shapes(path)
    total = 0
    for n in g.node:
        ins = [shapes.get(i) for i in n.input]
        outs = [shapes.get(o) for o in n.output]
        if n.op_type in ("Conv", "ConvTranspose"):
            w, y = ins[1], outs[0]
            if n.op_type == "Conv":
                total += 2 * math.prod(y) * math.prod(w[1:])
            else:
                total += 2 * math.prod(ins[0]) * math.prod(w[1:])
        elif n.op_type == "Gemm":
            a, y = ins[0], outs[0]
            trans_a = any(at.name == "transA" and at.i for at in n.attribute)
            total += 2 * math.prod(y) * (a[0] if trans_a else a[1])
        elif n.op_type == "MatMul":
            total += 2 * math.prod(outs[0]) * ins[0][-1]
        elif n.op_type in ("LSTM", "GRU"):
            x, w, r = ins[0], ins[1], ins[2]
            seq, batch = x[0], x[1]
            total += 2 * seq * batch * (math.prod(w) + math.prod(r))
    return total


def code_size(obj):
    """text + rodata of the object, minus the weight arrays (w<N>_ symbols)."""
    text = rodata = 0
    for line in sh(["size", "-A", obj]).splitlines():
        parts = line.split()
        if len(parts) < 2 or not parts[1].isdigit():
            continue
        if parts[0].startswith(".text"):
            text += int(parts[1])
        elif parts[0].startswith(".rodata"):
            rodata += int(parts[1])
    weights = 0
    for line in sh(["nm", "-S", obj]).splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "rR" and re.match(r"w\d+_", parts[3]):
            weights += int(parts[1], 16)
    return text + rodata - weights, weights


class Onnxc:
    def __init__(self, lib):
        self.lib = lib
        lib.bench_run.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
        lib.bench_arena.restype = ctypes.c_size_t
        lib.bench_loop.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]
        lib.bench_loop.restype = ctypes.c_double
        n = lib.bench_arena()
        self.arena_buf = ctypes.create_string_buffer(n + 64)
        addr = ctypes.addressof(self.arena_buf)
        self.arena = (addr + 63) // 64 * 64

    def bind(self, inputs, outputs):
        self.inputs, self.outputs = inputs, outputs
        self.inp = (ctypes.c_void_p * len(inputs))(*[a.ctypes.data for a in inputs])
        self.outp = (ctypes.c_void_p * len(outputs))(*[a.ctypes.data for a in outputs])

    def run(self):
        rc = self.lib.bench_run(self.arena, self.inp, self.outp)
        if rc:
            raise RuntimeError(f"run returned {rc}")

    def loop(self, iters):
        return self.lib.bench_loop(self.arena, self.inp, self.outp, iters)


def ort_session(model):
    so = ort.SessionOptions()
    so.intra_op_num_threads = THREADS
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if isinstance(model, bytes):
        return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
    return ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])


class Ort:
    def __init__(self, sess, feeds, outputs):
        self.sess = sess
        self.b = sess.io_binding()
        self.keep = (feeds, outputs)  # the bound buffers stay alive as long as the binding
        for name, arr in feeds.items():
            self.b.bind_cpu_input(name, arr)
        for o, arr in zip(sess.get_outputs(), outputs):
            self.b.bind_output(o.name, "cpu", 0, arr.dtype, list(arr.shape), arr.ctypes.data)

    def run(self):
        self.sess.run_with_iobinding(self.b)

    def loop(self, iters):
        run, b = self.sess.run_with_iobinding, self.b
        clock = time.process_time if THREADS == 1 else time.perf_counter
        t0 = clock()
        for _ in range(iters):
            run(b)
        return clock() - t0


def ort_overhead(batches):
    """Per-call cost of run_with_iobinding on a one-node model (Relu of 1 float)."""
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])
    y = helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "tiny", [x], [y])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    sess = ort_session(m.SerializeToString())
    r = Ort(sess, {"x": np.ones(1, np.float32)}, [np.zeros(1, np.float32)])
    for _ in range(2000):
        r.run()
    return statistics.median(r.loop(2000) / 2000 for _ in range(batches)) * 1e6


def np_type(t):
    return {"tensor(float)": np.float32, "tensor(double)": np.float64, "tensor(int64)": np.int64,
            "tensor(int32)": np.int32, "tensor(bool)": np.bool_}[t]


def bench_model(path, args, work, cc, cflags):
    name = os.path.basename(path)[:-5]
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    net_c = os.path.join(d, "net.c")
    t0 = time.perf_counter()
    sh([os.path.join(args.build, "onnxc"), path, "-o", net_c, "--name", "net"] + (["--threads", str(THREADS)] if THREADS > 1 else []))
    compile_s = time.perf_counter() - t0
    inc = os.path.join(ROOT, "runtime_min")
    wrap = os.path.join(d, "wrap.c")
    with open(wrap, "w") as f:
        f.write(WRAP_C)
    obj = os.path.join(d, "net.o")
    t0 = time.perf_counter()
    sh([cc, *cflags, "-fPIC", "-I", inc, "-c", net_c, "-o", obj])
    cc_s = time.perf_counter() - t0
    so = os.path.join(d, "libnet.so")
    if THREADS > 1:  # the pool (runtime_min/onnxc_rt_threads.c); wall-clock times
        sh([cc, *cflags, "-fPIC", "-shared", "-pthread", "-DBENCH_CLOCK=CLOCK_MONOTONIC", "-I", inc, obj, wrap,
            os.path.join(inc, "onnxc_rt_threads.c"), "-o", so, "-lm"])
    else:
        sh([cc, *cflags, "-fPIC", "-shared", "-I", inc, obj, wrap, "-o", so, "-lm"])
    size, weights = code_size(obj)
    lib = Onnxc(ctypes.CDLL(so))

    sess = ort_session(path)
    x = np.load(path[:-5] + ".input.npy")
    feeds = {sess.get_inputs()[0].name: np.ascontiguousarray(x)}
    ref = sess.run(None, feeds)
    outs = [np.zeros_like(r) for r in ref]
    lib.bind([feeds[k] for k in feeds], outs)
    lib.run()
    err = 0.0
    for o, r in zip(outs, ref):
        scale = float(np.max(np.abs(r))) if r.size else 0.0
        e = float(np.max(np.abs(o.astype(np.float64) - r))) if r.size else 0.0
        err = max(err, e / max(scale, 1e-30))
    ok = err <= 1e-4
    ort_outs = [np.zeros_like(r) for r in ref]
    runner = Ort(sess, feeds, ort_outs)

    # warm-up and batch size: a batch takes about batch_ms
    def calib(f):
        f.run()
        t0 = time.perf_counter()
        k = 0
        while time.perf_counter() - t0 < 0.05 or k < 3:
            f.run()
            k += 1
        per = (time.perf_counter() - t0) / k
        return max(1, int(args.batch_ms / 1e3 / per))
    n_c, n_o = calib(lib), calib(runner)
    return {
        "name": name, "ok": ok, "err": err, "lib": lib, "runner": runner, "n_c": n_c, "n_o": n_o,
        "flops": model_flops(path), "size": size, "weights": weights, "compile_s": compile_s, "cc_s": cc_s,
    }


def time_model(r, batches):
    """One round of r's timing: batches of onnxc and ORT runs alternate; the medians over the
    batches of the time per run (us)."""
    lib, runner, n_c, n_o = r["lib"], r["runner"], r["n_c"], r["n_o"]
    lib.run()
    runner.run()
    tc, to = [], []
    for _ in range(batches):
        tc.append(lib.loop(n_c) / n_c * 1e6)
        if THREADS > 1:  # both pools spin a while after their last task: let them go to sleep
            time.sleep(0.05)
        to.append(runner.loop(n_o) / n_o * 1e6)
        if THREADS > 1:
            time.sleep(0.05)
    return statistics.median(tc), statistics.median(to)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cflags", default=DEFAULT_CFLAGS)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--batches", type=int, default=15)
    ap.add_argument("--batch-ms", type=float, default=30.0)
    ap.add_argument("--markdown", action="store_true", help="print the table as markdown")
    ap.add_argument("--rounds", type=int, default=1,
                    help="time the whole suite this many times over; per model the median of the rounds "
                         "(and a last column: the rounds' range of %% peak)")
    ap.add_argument("--threads", type=int, default=1,
                    help="onnxc --threads N against ORT with N intra-op threads (wall-clock times)")
    ap.add_argument("names", nargs="*", help="models of bench/models, or .onnx paths (input: NAME.input.npy)")
    args = ap.parse_args()
    global THREADS
    THREADS = max(1, args.threads)
    args.build = os.path.abspath(args.build)
    cflags = args.cflags.split()
    models = sorted(glob.glob(os.path.join(HERE, "models", "*.onnx")))
    if args.names:  # names of bench/models, or paths of .onnx files (with NAME.input.npy beside)
        models = [m for m in models if os.path.basename(m)[:-5] in args.names]
        models += [os.path.abspath(n) for n in args.names if n.endswith(".onnx")]
    work = tempfile.mkdtemp(prefix="onnxc_speed_")
    peak, widths = measure_peak(args.cc, work)
    ovh = ort_overhead(args.batches)
    print(f"cflags: {args.cflags}   onnxruntime {ort.__version__}   threads: {THREADS}"
          + ("  (wall-clock times; % peak of one core's peak x threads)" if THREADS > 1 else ""))
    print(f"fp32 peak (FMA loop, 1 core): {peak:.1f} GFLOP/s  (128/256/512-bit: {widths[0]:.1f} / {widths[1]:.1f} / {widths[2]:.1f})")
    print(f"ORT call overhead (run_with_iobinding, 1-node model): {ovh:.1f} us")
    args.rounds = max(1, args.rounds)
    hdr = ["model", "onnxc us", "ORT us", "speedup", "spd-ovh", "GFLOP/s", "% peak", "code KiB", "compile s", "max rel err"]
    if args.rounds > 1:
        hdr.append("% peak range")
        print(f"rounds: {args.rounds} (per model the median of its rounds; speedup: the median of the rounds' ratios)")
    if args.markdown:
        print("| " + " | ".join(hdr) + " |")
        print("|" + "|".join(["---"] + ["---:"] * (len(hdr) - 1)) + "|")
    else:
        print(f"{hdr[0]:24} {hdr[1]:>10} {hdr[2]:>10} {hdr[3]:>8} {hdr[4]:>8} {hdr[5]:>8} {hdr[6]:>7} {hdr[7]:>9} {hdr[8]:>9} {hdr[9]:>11}"
              + (f" {hdr[10]:>13}" if args.rounds > 1 else ""))
    sp, sp2 = [], []
    failed = False

    def emit(r):
        nonlocal failed
        c_us, o_us = statistics.median(r["c"]), statistics.median(r["o"])
        # the speedups of the rounds (onnxc and ORT timed side by side in each), their median
        s = statistics.median(o / c for c, o in zip(r["c"], r["o"]))
        s2 = statistics.median(max(o - ovh, 1e-3) / c for c, o in zip(r["c"], r["o"]))
        sp.append(s)
        sp2.append(s2)
        gf = r["flops"] / c_us / 1e3
        pct = [100 * r["flops"] / c / 1e3 / (peak * THREADS) for c in r["c"]]
        cells = [r["name"], f"{c_us:.1f}", f"{o_us:.1f}", f"{s:.2f}x", f"{s2:.2f}x", f"{gf:.1f}",
                 f"{100 * gf / (peak * THREADS):.1f}", f"{r['size'] / 1024:.1f}", f"{r['compile_s']:.2f}",
                 f"{r['err']:.1e}" + ("" if r["ok"] else " FAIL")]
        if args.rounds > 1:
            cells.append(f"{min(pct):.1f}-{max(pct):.1f}" if r["flops"] else "")
        if not r["ok"]:
            failed = True
        if args.markdown:
            print("| " + " | ".join(cells) + " |", flush=True)
        else:
            print(f"{cells[0]:24} {cells[1]:>10} {cells[2]:>10} {cells[3]:>8} {cells[4]:>8} {cells[5]:>8} {cells[6]:>7} {cells[7]:>9} {cells[8]:>9} {cells[9]:>11}"
                  + (f" {cells[10]:>13}" if args.rounds > 1 else ""), flush=True)

    results = []
    for m in models:
        try:
            r = bench_model(m, args, work, args.cc, cflags)
        except RuntimeError as ex:
            print(f"{os.path.basename(m)[:-5]:24} error: {str(ex).splitlines()[0][:200]}", flush=True)
            failed = True
            continue
        r["c"], r["o"] = [], []
        if args.rounds == 1:
            c, o = time_model(r, args.batches)
            r["c"].append(c)
            r["o"].append(o)
            emit(r)
        else:
            results.append(r)
    # --rounds: the whole suite timed round after round (a model's rounds minutes apart, across
    # this shared machine's slow and fast phases); per model the median of its rounds, and the
    # peak the best FMA-loop measurement of the run (one before each round)
    for k in range(args.rounds if results else 0):
        if k:
            peak = max(peak, measure_peak(args.cc, work)[0])
        for r in results:
            c, o = time_model(r, args.batches)
            r["c"].append(c)
            r["o"].append(o)
    for r in results:
        emit(r)
    if sp:
        g = math.exp(sum(math.log(x) for x in sp) / len(sp))
        g2 = math.exp(sum(math.log(x) for x in sp2) / len(sp2))
        print(f"geometric-mean speedup: {g:.2f}x (ORT minus call overhead: {g2:.2f}x) over {len(sp)} models")
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
