#!/usr/bin/env python3
"""Checks of the custom-op contract that the fixtures' numbers cannot show (CTest custom_ops_abi):

  - a non-zero status from a forward function comes out of net_run unchanged, and out of
    net_train_step / net_infer (--train); one from a backward function out of net_train_step;
  - nograd=N: input N gets no gradient (its initializer is no longer a --gradients output and
    the backward sees grad_inputs[N].data == NULL) while the other gradients stay the same;
  - the --custom-ops FILE and --custom-op forms compile to the same bytes;
  - a spec replaces a model-local function of the same name (without the spec, the function
    body runs);
  - onnxc --train through the custom ops (forward and backward in ops.c, the PGate parameter
    trained too): 20 SGD steps on grad_mlp's batch follow torch.optim's losses
    (train_losses.json, written by export_custom.py) within 1e-3 relative error.

usage: check_abi.py --build BUILD
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1"]
OPS_TXT = os.path.join(HERE, "ops.txt")
DOM = helper.make_opsetid("test.custom", 1)


def model(nodes, path, inits=()):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), DOM])
    m.ir_version = 8
    onnx.save(m, path)
    return path


def weight(name, shape, seed):
    return numpy_helper.from_array(np.random.RandomState(seed).uniform(-1, 1, shape).astype(np.float32), name)


class Checker:
    def __init__(self, build, work):
        self.onnxc = os.path.join(build, "onnxc")
        self.rt = os.path.join(build, "libonnxc_rt.a")
        self.work = work
        self.passed = self.failed = 0
        self.ops_obj = os.path.join(work, "ops.o")
        self.sh(["cc"] + STRICT + ["-I", os.path.join(ROOT, "runtime_min"), "-c", os.path.join(HERE, "ops.c"),
                 "-o", self.ops_obj], "ops.c")

    def sh(self, cmd, what):
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            raise RuntimeError(f"{what}: {(p.stdout + p.stderr).strip()[:500]}")
        return p.stdout

    def result(self, name, ok, why=""):
        print(f"{'PASS' if ok else 'FAIL'} {name}{'' if ok else ': ' + why}")
        if ok:
            self.passed += 1
        else:
            self.failed += 1

    def compile(self, onnx_path, name, flags):
        c = os.path.join(self.work, name + ".c")
        self.sh([self.onnxc, onnx_path, "-o", c] + flags, f"onnxc {name}")
        return c

    def program(self, c_path, driver):
        """Builds net C + ops.c + a driver (whose text includes the model's header) and runs it;
        returns its stdout."""
        d = c_path[:-2] + "_main.c"
        with open(d, "w") as f:
            f.write(driver)
        exe = c_path[:-2] + "_exe"
        inc = ["-I", os.path.join(ROOT, "runtime_min"), "-I", self.work]
        self.sh(["cc"] + STRICT + inc + [c_path, d, self.ops_obj, self.rt, "-lm", "-o", exe], f"cc {c_path}")
        return self.sh([exe], exe).strip()


INFER_DRIVER = """#include <stdio.h>
#include "%(n)s.h"
static unsigned char arena[%(N)s_ARENA_BYTES + 16] __attribute__((aligned(16)));
int main(void) {
  float x[6] = {1, 2, 3, 4, 5, 6}, y[6] = {0};
  int st = %(n)s_run(arena, x, y);
  printf("%%d %%g\\n", st, y[5]);
  return 0;
}
"""

TRAIN_DRIVER = """#include <stdio.h>
#include "%(n)s.h"
static unsigned char state[%(N)s_STATE_BYTES] __attribute__((aligned(16))), arena[%(N)s_TRAIN_ARENA_BYTES + %(N)s_ARENA_BYTES] __attribute__((aligned(16)));
int main(void) {
  float x[6] = {1, 2, 3, 4, 5, 6}, label[6] = {0}, y[6], loss = -1;
  int s0 = %(n)s_train_init(state);
  int s1 = %(n)s_train_step(state, arena, x, label, &loss);
  int s2 = %(n)s_infer(state, arena, x, y);
  printf("%%d %%d %%d %%llu\\n", s0, s1, s2, (unsigned long long)%(n)s_train_steps(state));
  return 0;
}
"""

CURVE_DRIVER = """#include <stdio.h>
#include "%(n)s.h"
static unsigned char state[%(N)s_STATE_BYTES] __attribute__((aligned(16)));
static unsigned char arena[%(N)s_TRAIN_ARENA_BYTES] __attribute__((aligned(16)));
static const float x[%(nx)d] = {%(x)s};
static const float label[%(nl)d] = {%(label)s};
int main(void) {
  float loss = 0;
  int s, st = %(n)s_train_init(state);
  for (s = 0; s < %(steps)d && st == ONNXC_OK; s++) {
    st = %(n)s_train_step(state, arena, x, label, &loss);
    printf("%%.9g\\n", loss);
  }
  return st;
}
"""

GRAD_DRIVER = """#include <stdio.h>
#include "%(n)s.h"
static unsigned char arena[%(N)s_ARENA_BYTES + 16] __attribute__((aligned(16)));
int main(void) {
  float x[6] = {1, -2, 3, -4, 5, 0.5f}, label[6] = {0}, loss, w_grad[9], a_grad[3];
  int i, st = %(n)s_run(arena, x, label, &loss, w_grad%(a)s);
  printf("%%d %%.9g", st, loss);
  for (i = 0; i < 9; i++) printf(" %%.9g", w_grad[i]);
  printf("\\n");
  (void)a_grad;
  return 0;
}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="onnxc_custom_abi_")
    try:
        ck = Checker(os.path.abspath(args.build), work)
        ops = ["--custom-ops", OPS_TXT]

        def fail_node(code, bcode=None):
            kw = {"code": code}
            if bcode is not None:
                kw["backward_code"] = bcode
            return helper.make_node("Fail", ["h"], ["y"], domain="test.custom", name="fail0", **kw)

        # 1. forward status out of net_run
        for code in (0, 142):
            m = model([helper.make_node("Relu", ["x"], ["h"]), fail_node(code)], os.path.join(work, f"f{code}.onnx"))
            n = f"f{code}"
            out = ck.program(ck.compile(m, n, ops), INFER_DRIVER % {"n": n, "N": n.upper()})
            want = f"{code} 6" if code == 0 else f"{code} "
            ck.result(f"net_run returns the forward status {code}", out.startswith(want), out)

        # 2. --train: forward status from train_step and infer; backward status from train_step
        gemm = helper.make_node("Gemm", ["x", "w"], ["h"])
        for code, bcode, want in ((0, 0, "0 0 0 1"), (142, 0, "0 142 142 0"), (0, 143, "0 143 0 0")):
            m = model([gemm, fail_node(code, bcode)], os.path.join(work, f"t{code}_{bcode}.onnx"), [weight("w", [3, 3], 0)])
            n = f"t{code}_{bcode}"
            c = ck.compile(m, n, ops + ["--train", "--loss", "mse:y", "--optimizer", "sgd:lr=0.1"])
            out = ck.program(c, TRAIN_DRIVER % {"n": n, "N": n.upper()})
            ck.result(f"--train: forward status {code}, backward status {bcode} -> init/step/infer/steps {want}",
                      out == want, out)

        # 3. nograd: a gets no gradient, w's gradient is unchanged
        pg = helper.make_node("PGate", ["h", "a"], ["y"], domain="test.custom", name="pg0", scale=1.5)
        m = model([gemm, pg], os.path.join(work, "ng.onnx"), [weight("w", [3, 3], 1), weight("a", [3], 2)])
        flags = ["--gradients", "--loss", "mse"]
        c_all = ck.compile(m, "ng_all", ops + flags)
        spec = "test.custom::PGate:outputs=in0:backward=inputs:nograd=1"
        c_ng = ck.compile(m, "ng_one", ["--custom-op", spec] + flags)
        with open(c_ng[:-2] + ".h") as f:
            hdr = f.read()
        ck.result("nograd=1: no a_grad output", "a_grad" not in hdr and "w_grad" in hdr, "outputs in the header differ")
        g_all = ck.program(c_all, GRAD_DRIVER % {"n": "ng_all", "N": "NG_ALL", "a": ", a_grad"})
        g_ng = ck.program(c_ng, GRAD_DRIVER % {"n": "ng_one", "N": "NG_ONE", "a": ""})
        ck.result("nograd=1: loss and w_grad unchanged", g_all == g_ng and g_all.startswith("0 "), f"{g_all} / {g_ng}")

        # 4. the file and the flag compile to the same bytes
        with open(OPS_TXT) as f:
            specs = [l.strip() for l in f if l.strip() and not l.startswith("#")]
        by_flag = ck.compile(m, "specflag", sum((["--custom-op", s] for s in specs), []) + flags)
        by_file = ck.compile(m, "specfile", ops + flags)
        same = all(open(by_flag[:-2] + e, "rb").read().replace(b"specflag", b"X").replace(b"SPECFLAG", b"X") ==
                   open(by_file[:-2] + e, "rb").read().replace(b"specfile", b"X").replace(b"SPECFILE", b"X")
                   for e in (".c", ".h"))
        ck.result("--custom-ops FILE and --custom-op give the same code", same, "outputs differ")

        # 5. a model-local function test.custom::Fail (body: Identity) replaced by the spec
        g = helper.make_graph([helper.make_node("Relu", ["x"], ["h"]), fail_node(142)], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
        fn = helper.make_function("test.custom", "Fail", ["a"], ["b"], [helper.make_node("Identity", ["a"], ["b"])],
                                  [helper.make_opsetid("", 17)], ["code"])
        mf = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), DOM], functions=[fn])
        mf.ir_version = 8
        path = os.path.join(work, "fn.onnx")
        onnx.save(mf, path)
        for n, flags, want in (("fn_spec", ops, "142 "), ("fn_body", [], "0 6")):
            out = ck.program(ck.compile(path, n, flags), INFER_DRIVER % {"n": n, "N": n.upper()})
            ck.result(f"model-local function {'replaced by the spec' if flags else 'inlined without a spec'}",
                      out.startswith(want), out)

        # 6. --train through the custom ops against torch.optim
        with open(os.path.join(HERE, "train_losses.json")) as f:
            ref = json.load(f)
        ds = os.path.join(HERE, "grad_mlp", "test_data_set_0")
        x, label = (numpy_helper.to_array(onnx.load_tensor(os.path.join(ds, f"input_{k}.pb"))).reshape(-1) for k in (0, 1))
        c = ck.compile(os.path.join(HERE, "grad_mlp", "model.onnx"), "curve",
                       ops + ["--train", "--loss", "mse:out", "--optimizer", ref["optimizer"]])
        lits = lambda a: ", ".join(f"{float(v)!r}f" for v in a)  # noqa: E731
        out = ck.program(c, CURVE_DRIVER % {"n": "curve", "N": "CURVE", "nx": x.size, "x": lits(x), "nl": label.size,
                                            "label": lits(label), "steps": len(ref["losses"])})
        got = np.array([float(v) for v in out.split()])
        want = np.array(ref["losses"])
        err = float(np.max(np.abs(got - want) / np.abs(want))) if got.shape == want.shape else float("inf")
        ck.result(f"--train: {len(want)} SGD steps follow torch.optim (max rel err {err:.2g})", err <= 1e-3,
                  f"losses {got.tolist()} vs {want.tolist()}")
    except RuntimeError as e:
        print(f"FAIL {e}")
        sys.exit(1)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{ck.passed} passed, {ck.failed} failed")
    sys.exit(1 if ck.failed else 0)


if __name__ == "__main__":
    main()
