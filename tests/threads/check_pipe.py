#!/usr/bin/env python3
"""Recurrent pipelines under `--threads` (plan_memory.c mark_pipes, ops_seq.c): the
tests/models/rnn_stack_op14 fixture (a 2-layer LSTM, a GRU, an RNN: two producer/consumer
pairs) built with --threads 2 --par-min 0 and run many times in one process, two different
inputs in turn, with the pool warm (the first call of onnxc_parallel_for starts the pool and runs
both tasks on the calling thread; later calls run them concurrently).  Every output must match
ONNX Runtime's for its input (1e-4 of the largest value) and repeat bit for bit: a consumer that
read rows its producer had not yet written would find the other input's rows there.  Then two
LSTMs where the second also takes the first one's final state as its initial state: no pipeline
(that state comes at the producer's end), and the same checks.

usage: check_pipe.py --build BUILD [--runs N] [--cflags FLAGS]"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnxruntime as ort

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODEL = os.path.join(ROOT, "tests", "models", "rnn_stack_op14", "model.onnx")

MAIN_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include "net.h"
static _Alignas(64) unsigned char arena[NET_ARENA_BYTES + 64];
int main(int argc, char **argv) {
  const int runs = atoi(argv[1]), nin = atoi(argv[2]), nout = atoi(argv[3]);
  float *x = malloc(sizeof(float) * 2 * (size_t)nin), *y = malloc(sizeof(float) * (size_t)nout);
  FILE *f = fopen("in.bin", "rb"), *o = fopen("out.bin", "wb");
  if (!x || !y || !f || !o || fread(x, sizeof(float), 2 * (size_t)nin, f) != 2 * (size_t)nin) return 2;
  fclose(f);
  for (int r = 0; r < runs; r++) {
    const void *in[1];
    void *out[1];
    in[0] = x + (size_t)(r % 2) * (size_t)nin;
    out[0] = y;
    if (net_model.run(arena, in, out) != ONNXC_OK) return 3;
    fwrite(y, sizeof(float), (size_t)nout, o);
  }
  fclose(o);
  return 0;
}
"""


def init_h_model(path):
    """LSTM -> Squeeze -> LSTM over 12 steps whose initial_h is the first LSTM's Y_h."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(1)
    S, B, I, H = 12, 2, 6, 16
    inits = []
    for name, shape in [("W1", (1, 4 * H, I)), ("R1", (1, 4 * H, H)), ("W2", (1, 4 * H, H)), ("R2", (1, 4 * H, H))]:
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name))
    inits.append(numpy_helper.from_array(np.array([1], dtype=np.int64), "ax1"))
    nodes = [helper.make_node("LSTM", ["x", "W1", "R1"], ["y1", "yh1"], hidden_size=H),
             helper.make_node("Squeeze", ["y1", "ax1"], ["x2"]),
             helper.make_node("LSTM", ["x2", "W2", "R2", "", "", "yh1"], ["y2"], hidden_size=H)]
    g = helper.make_graph(nodes, "init_h", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [S, B, I])],
                          [helper.make_tensor_value_info("y2", TensorProto.FLOAT, [S, 1, B, H])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 8
    onnx.save(m, path)


def check(args, model, want_pipes, runs, d):
    sess = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    inp = sess.get_inputs()[0]
    rng = np.random.default_rng(5)
    xs = [rng.standard_normal(inp.shape).astype(np.float32) for _ in range(2)]
    refs = [sess.run(None, {inp.name: x})[0] for x in xs]
    subprocess.run([os.path.join(args.build, "onnxc"), model, "-o", os.path.join(d, "net.c"), "--threads", "2",
                    "--par-min", "0"], check=True)
    src = open(os.path.join(d, "net.c")).read()
    pairs = src.count("onnxc_pipe_wait(PC")
    name = os.path.basename(os.path.dirname(model)) if model == MODEL else os.path.basename(model)
    if pairs != want_pipes:
        print(f"FAIL {name}: expected {want_pipes} pipelines in the generated C, found {pairs}")
        return False
    with open(os.path.join(d, "main.c"), "w") as f:
        f.write(MAIN_C)
    rt = os.path.join(ROOT, "runtime_min")
    subprocess.run(["cc", *args.cflags.split(), "-I", rt, "-o", os.path.join(d, "run"), os.path.join(d, "net.c"),
                    os.path.join(d, "main.c"), os.path.join(rt, "onnxc_rt.c"), os.path.join(rt, "onnxc_rt_threads.c"),
                    "-pthread", "-lm"], check=True)
    np.concatenate([x.ravel() for x in xs]).tofile(os.path.join(d, "in.bin"))
    nout = refs[0].size
    subprocess.run([os.path.join(d, "run"), str(runs), str(xs[0].size), str(nout)], cwd=d, check=True)
    ys = np.fromfile(os.path.join(d, "out.bin"), dtype=np.float32).reshape(runs, nout)
    bad = 0
    for r in range(runs):
        ref = refs[r % 2].ravel()
        err = float(np.max(np.abs(ys[r].astype(np.float64) - ref))) / max(float(np.max(np.abs(ref))), 1e-30)
        same = np.array_equal(ys[r], ys[r % 2])
        if err > 1e-4 or not same:
            bad += 1
            if bad <= 5:
                print(f"FAIL {name} run {r} (input {r % 2}): rel err {err:.2e}, bit-identical to run {r % 2}: {same}")
    if bad:
        print(f"FAIL {name}: {bad} of {runs} runs wrong")
        return False
    print(f"PASS {name}: {runs} runs, {want_pipes} pipelines, two inputs in turn, all match ORT and repeat bit for bit")
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--cflags", default="-O2 -march=native")
    args = ap.parse_args()
    ok = True
    with tempfile.TemporaryDirectory(prefix="onnxc_pipe_") as d:
        ok &= check(args, MODEL, 2, args.runs, d)
        m = os.path.join(d, "init_h.onnx")
        init_h_model(m)
        ok &= check(args, m, 0, max(args.runs // 4, 20), d)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
