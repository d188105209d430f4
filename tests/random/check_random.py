#!/usr/bin/env python3
"""The random-number operators (RandomUniform, RandomNormal, their Like forms, Bernoulli,
Multinomial) against ONNX's reference implementation, onnx.reference.ReferenceEvaluator, which
draws from numpy's RandomState(seed).

Small models of one node per output (each dtype, several seeds, shapes and attributes) are
compiled with onnxc, built with strict C99 flags, linked with the conformance harness
(tests/conformance/harness.c) and run; every output is compared with the reference's:
  - RandomUniform(Like), Bernoulli: bit for bit;
  - RandomNormal(Like): within MAX_ULP units in the last place of the output type at the
    larger of |y| and |y - mean| (log and sqrt come from the C library; with the same libm as
    numpy's they are bit for bit too, and the count of exact elements is printed);
  - Multinomial, which the reference does not implement: bit for bit against the definition
    in compiler/ops_random.c written here in Python (numpy draws, math.exp), and its class
    frequencies against the softmax probabilities.
Shapes include 2000 uniform and 1301 normal draws (several refills of the 624-word MT state)
and odd counts (the cached second Gaussian).  Models without a seed must use the documented
default (the FNV-1a hash of the output name), give the same numbers on two runs of one
process and across processes, and the generated C must be byte-identical when compiled twice
and build for Cortex-M4 (arm-none-eabi-gcc, when installed).

usage: check_random.py [--build BUILD] [--cc CC] [--cflags FLAGS] [--ldflags FLAGS]
                       [--run-wrapper CMD] [--link FILE.c]
(--cc/--run-wrapper: another target, e.g. arm-none-eabi-gcc under qemu-arm; the runtime is then
built from runtime_min/ with that compiler.)
"""
import argparse
import bisect
import math
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto as T
from onnx import helper
from onnx.reference import ReferenceEvaluator

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
INCLUDE = os.path.join(ROOT, "runtime_min")
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2"]
M4 = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-Os"]
MAX_ULP = 4
NP = {T.FLOAT: np.float32, T.DOUBLE: np.float64, T.FLOAT16: np.float16, T.BFLOAT16: ml_dtypes.bfloat16,
      T.INT8: np.int8, T.INT16: np.int16, T.INT32: np.int32, T.INT64: np.int64, T.UINT8: np.uint8,
      T.UINT16: np.uint16, T.UINT32: np.uint32, T.UINT64: np.uint64, T.BOOL: np.bool_, T.STRING: object}
FLOATS = [T.FLOAT, T.DOUBLE, T.FLOAT16, T.BFLOAT16]


def fnv1a(name):
    h = 2166136261
    for c in name.encode():
        h = ((h ^ c) * 16777619) & 0xffffffff
    return h


def multinomial_ref(x, sample_size, seed, dtype):
    """compiler/ops_random.c's definition: per row, cdf of exp(x - max finite) over the finite
    logits; per sample, the first class whose running sum exceeds u * total."""
    rs = np.random.RandomState(seed)
    xd = np.asarray(x).astype(np.float64)
    out = np.zeros((xd.shape[0], sample_size), dtype)
    for b in range(xd.shape[0]):
        row = [float(v) for v in xd[b]]
        fin = [math.isfinite(v) for v in row]
        m = max([v for v, f in zip(row, fin) if f], default=-1.7976931348623157e308)
        cdf, total, last = [], 0.0, -1
        for j, v in enumerate(row):
            if fin[j]:
                w = math.exp(v - m)
                total += w
                if w > 0:
                    last = j
            cdf.append(total)
        for s in range(sample_size):
            t = rs.random_sample() * total
            out[b, s] = bisect.bisect_right(cdf, t) if t < total else max(last, 0)
    return out


class Model:
    """One ONNX model of independent random nodes; each output has a comparison kind."""

    def __init__(self, name, opset=22):
        self.name, self.opset = name, opset
        self.nodes, self.inputs, self.outputs, self.feeds = [], [], [], {}
        self.kinds, self.own_ref = {}, {}

    def input(self, name, arr, dt):
        self.inputs.append(helper.make_tensor_value_info(name, dt, list(arr.shape)))
        self.feeds[name] = arr

    def node(self, op, ins, out, dt, oshape, kind, ref=None, **attrs):
        self.nodes.append(helper.make_node(op, ins, [out], name=out + "_node", **attrs))
        self.outputs.append(helper.make_tensor_value_info(out, dt, list(oshape)))
        self.kinds[out] = kind
        if ref is not None:
            self.own_ref[out] = ref

    def proto(self):
        g = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = 10
        return m

    def reference(self):
        m = self.proto()
        names = [o.name for o in self.outputs if o.name not in self.own_ref]
        want = dict(self.own_ref)
        if names:
            got = ReferenceEvaluator(m).run(names, self.feeds)
            want.update(zip(names, got))
        return [want[o.name] for o in self.outputs]


def models():
    rnd = np.random.RandomState(1234)
    out = []
    # RandomUniform: every dtype; seeds with a fraction (truncated) and near 2^32; default and
    # other ranges; 2000 elements = 4000 words (six refills of the state)
    m = Model("uniform")
    k = 0
    for dt in FLOATS:
        for seed, shape, lo_hi in ((0.0, [3, 4], None), (5.9, [2000], (-0.1, 0.7)), (4294967040.0, [1], (3.3, 100.7)),
                                   (77.0, [2, 3, 5], (-1e-3, 1e-3))):
            attrs = dict(dtype=dt, shape=shape, seed=seed)
            if lo_hi:
                attrs.update(low=lo_hi[0], high=lo_hi[1])
            m.node("RandomUniform", [], f"u{k}", dt, shape, "exact", **attrs)
            k += 1
    m.node("RandomUniform", [], "u_int_seed", T.FLOAT, [5], "exact", shape=[5], seed=123)  # seed as an int attribute
    # double -> float16 rounds once: about one element in 8192 would differ through float
    m.node("RandomUniform", [], "u_half_big", T.FLOAT16, [40000], "exact", shape=[40000], seed=8.0, dtype=T.FLOAT16)
    out.append(m)
    # RandomNormal: odd counts (the cached second value), 1301 draws, mean/scale
    m = Model("normal")
    k = 0
    for dt in FLOATS:
        for seed, shape, ms in ((0.0, [7], None), (3.0, [3, 5], (0.1, 0.3)), (11.0, [1301], (-7.7, 13.1)), (2.0, [1], (1.0, 0.0))):
            attrs = dict(dtype=dt, shape=shape, seed=seed)
            if ms:
                attrs.update(mean=ms[0], scale=ms[1])
            m.node("RandomNormal", [], f"n{k}", dt, shape, "ulp", **attrs)
            k += 1
    out.append(m)
    # the Like forms: dtype from the input or the attribute, any input type
    m = Model("like")
    specs = [("x_f", T.FLOAT, [4, 5], {}), ("x_h", T.FLOAT16, [3, 7], {}), ("x_d", T.DOUBLE, [9], {"mean": 2.5, "scale": 0.5}),
             ("x_i", T.INT32, [2, 2, 3], {"dtype": T.BFLOAT16}), ("x_b", T.BOOL, [5], {"dtype": T.DOUBLE}),
             ("x_s", T.STRING, [3], {"dtype": T.FLOAT}), ("x_big", T.FLOAT, [1300], {"low": -2.0, "high": 2.0})]
    for k, (xn, dt, shape, attrs) in enumerate(specs):
        if dt == T.STRING:
            arr = np.array(["a", "bc", ""], dtype=object)
        else:
            arr = (rnd.rand(*shape) * 4).astype(NP[dt])
        m.input(xn, arr, dt)
        odt = attrs.get("dtype", dt)
        uni = {a: v for a, v in attrs.items() if a not in ("mean", "scale")}
        nor = {a: v for a, v in attrs.items() if a not in ("low", "high")}
        m.node("RandomUniformLike", [xn], f"ul{k}", odt, shape, "exact", seed=float(10 + k), **uni)
        m.node("RandomNormalLike", [xn], f"nl{k}", odt, shape, "ulp", seed=float(20 + k), **nor)
    out.append(m)
    # Bernoulli: p with 0, 1, 1/2, tiny and near-1 values; input and output types
    m = Model("bernoulli", opset=22)
    p = rnd.rand(3000)
    p[::7], p[::11], p[::13] = 0.0, 1.0, 0.5
    p[5], p[6], p[8], p[9] = 1e-300, 1 - 1e-16, 1e-8, 0.99999
    k = 0
    for idt in FLOATS:
        xn = f"p_{k}"
        m.input(xn, p.astype(NP[idt]), idt)
        for odt in (None, T.DOUBLE, T.INT32, T.INT64, T.UINT8, T.BOOL, T.FLOAT16, T.BFLOAT16, T.INT8, T.UINT64):
            attrs = {} if odt is None else {"dtype": odt}
            m.node("Bernoulli", [xn], f"b{k}", odt or idt, [3000], "exact", seed=float(k), **attrs)
            k += 1
    m.input("p2d", rnd.rand(4, 6).astype(np.float32), T.FLOAT)
    m.node("Bernoulli", ["p2d"], "b_2d", T.FLOAT, [4, 6], "exact", seed=99.0)
    out.append(m)
    # Multinomial (no reference implementation: the definition above), opset 7 and 22
    for opset in (7, 22):
        m = Model(f"multinomial_op{opset}", opset=opset)
        k = 0
        for idt in FLOATS if opset >= 22 else [T.FLOAT, T.DOUBLE, T.FLOAT16]:
            for B, C, S, odt in ((1, 1, 3, T.INT32), (3, 5, 7, T.INT64), (2, 40, 700, T.INT32)):
                x = (rnd.randn(B, C) * 2).astype(NP[idt])
                if C == 5:
                    x[0, 1] = -np.inf  # a class that can never be drawn
                    x[1, :] = x[1, 0]  # equal logits
                    x[2, 4] = np.inf   # a non-finite logit adds nothing
                xn = f"x_{k}"
                m.input(xn, x, idt)
                seed = 31 + k
                m.node("Multinomial", [xn], f"m{k}", odt, [B, S], "exact", multinomial_ref(x, S, seed, NP[odt]),
                       seed=float(seed), sample_size=S, dtype=odt)
                k += 1
        out.append(m)
    return out


def nan_eq(a, b):
    return (a == b) | (np.isnan(a) & np.isnan(b))


def ulp_of(x, dtype):
    """The spacing of dtype's values at |x| (x float64)."""
    x = np.abs(x)
    if dtype == ml_dtypes.bfloat16:
        return np.spacing(x.astype(np.float32)).astype(np.float64) * 65536.0
    return np.spacing(x.astype(dtype)).astype(np.float64)


def as_bytes(arr, dt):
    if dt == T.STRING:
        return b"".join(s.encode() + b"\0" for s in arr.reshape(-1))
    if dt == T.BOOL:
        return arr.astype(np.uint8).tobytes()
    return np.ascontiguousarray(arr).tobytes()


class Builder:
    def __init__(self, args, work):
        self.args, self.work = args, work
        self.onnxc = os.path.join(os.path.abspath(args.build), "onnxc")
        self.cc = args.cc
        self.cflags = STRICT + shlex.split(args.cflags)
        self.ldflags = shlex.split(args.ldflags)
        self.wrapper = shlex.split(args.run_wrapper)
        self.objs = []
        harness = os.path.join(ROOT, "tests", "conformance", "harness.c")
        self.objs.append(self.compile(harness, ["-O1", "-std=c11", "-I", INCLUDE] + shlex.split(args.cflags)))
        self.objs.append(self.compile(os.path.join(INCLUDE, "onnxc_rt.c"), self.cflags + ["-I", INCLUDE]))
        for src in args.link:
            self.objs.append(self.compile(src, self.cflags + ["-I", INCLUDE]))

    def compile(self, src, flags, obj=None):
        obj = obj or os.path.join(self.work, os.path.basename(src) + ".o")
        subprocess.run([self.cc] + flags + ["-c", src, "-o", obj], check=True)
        return obj

    def onnxc_c(self, model_path, c_path):
        p = subprocess.run([self.onnxc, model_path, "-o", c_path, "--name", "model"], capture_output=True, text=True)
        return p.returncode, (p.stdout + p.stderr).strip()

    def build(self, name, proto, extra_main=None):
        d = os.path.join(self.work, name)
        os.makedirs(d, exist_ok=True)
        mp = os.path.join(d, "model.onnx")
        onnx.save(proto, mp)
        c_path = os.path.join(d, "model.c")
        rc, msg = self.onnxc_c(mp, c_path)
        if rc != 0:
            raise RuntimeError(f"onnxc: {msg}")
        obj = self.compile(c_path, self.cflags + ["-I", INCLUDE, "-I", d], os.path.join(d, "model.o"))
        exe = os.path.join(d, "model")
        objs = self.objs if extra_main is None else [self.compile(extra_main, self.cflags + ["-I", INCLUDE])] + self.objs[1:]
        subprocess.run([self.cc, obj] + objs + ["-lm", "-o", exe] + self.ldflags, check=True)
        return d, exe

    def run(self, d, exe, feeds, dtypes, n_out, tag="run"):
        out_dir = os.path.join(d, tag)
        os.makedirs(out_dir, exist_ok=True)
        args = []
        for k, (nm, arr) in enumerate(feeds.items()):
            f = os.path.join(d, f"in{k}.bin")
            with open(f, "wb") as fh:
                fh.write(as_bytes(arr, dtypes[nm]))
            args.append(f"{nm}={f}")
        if self.wrapper and len(" ".join(args)) > 150:  # semihosting passes a short command line only
            resp = os.path.join(d, "args.txt")
            with open(resp, "w") as fh:
                fh.write("\n".join(args) + "\n")
            args = ["@" + resp]
        subprocess.run(self.wrapper + [exe, out_dir] + args, check=True, timeout=600)
        res = []
        for k in range(n_out):
            with open(os.path.join(out_dir, f"out_{k}.bin"), "rb") as fh:
                res.append(fh.read())
        return res


def compare(name, kind, raw, want, mean=0.0):
    """Returns (ok, message) for one output."""
    want = np.ascontiguousarray(want)
    got = np.frombuffer(raw, dtype=np.uint8 if want.dtype == np.bool_ else want.dtype).reshape(want.shape)
    if want.dtype == np.bool_:
        want = want.astype(np.uint8)
    n = want.size
    if kind == "exact":
        same = got.view(np.uint8).reshape(n, -1) == want.view(np.uint8).reshape(n, -1)
        if same.all():
            return True, f"{n} exact"
        diff = ~np.all(same.reshape(n, -1), axis=1)
        i = int(np.argmax(diff))
        return False, f"{int(np.sum(diff))} of {n} differ; first at {i}: got {got.reshape(-1)[i]}, want {want.reshape(-1)[i]}"
    # in units of the output type's spacing at the larger of |y| and |y - mean| (about |g * scale|:
    # an ulp of the normal draw stays an ulp where mean cancels most of y)
    g64, w64 = got.astype(np.float64), want.astype(np.float64)
    unit = ulp_of(np.maximum(np.abs(w64), np.abs(w64 - mean)), want.dtype)
    d = np.where(nan_eq(g64, w64), 0.0, np.abs(g64 - w64) / unit)
    exact = int(np.sum(np.all(got.view(np.uint8).reshape(n, -1) == want.view(np.uint8).reshape(n, -1), axis=1)))
    if d.max() <= MAX_ULP:
        return True, f"{exact}/{n} exact, max {d.max():.2g} ulp"
    i = int(np.argmax(d))
    return False, f"{int(np.sum(d > MAX_ULP))} of {n} beyond {MAX_ULP} ulp; worst at {i}: got {got.reshape(-1)[i]}, want {want.reshape(-1)[i]}"


TWICE = r"""
/* runs the model twice with one arena; the second run's outputs must equal the first's */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "onnxc_rt.h"
extern const onnxc_model model_model;
int main(void) {
  static unsigned char arena[1 << 20] __attribute__((aligned(64)));
  void *outs[8] = {0}, *first[8] = {0};
  int k, bad = 0;
  if (model_model.n_inputs != 0 || model_model.n_outputs > 8 || model_model.arena_bytes > sizeof arena) return 3;
  for (k = 0; k < model_model.n_outputs; k++) {
    size_t n = onnxc_tensor_bytes(&model_model.outputs[k]);
    outs[k] = calloc(n + 1, 1);
    first[k] = calloc(n + 1, 1);
  }
  if (model_model.run(arena, NULL, outs)) return 4;
  for (k = 0; k < model_model.n_outputs; k++) memcpy(first[k], outs[k], onnxc_tensor_bytes(&model_model.outputs[k]));
  memset(arena, 0x5a, sizeof arena);
  if (model_model.run(arena, NULL, outs)) return 4;
  for (k = 0; k < model_model.n_outputs; k++)
    if (memcmp(first[k], outs[k], onnxc_tensor_bytes(&model_model.outputs[k]))) bad++;
  printf("%d\n", bad);
  return 0;
}
"""


def check_frequencies(b, work, report):
    """Multinomial is a multinomial: class frequencies of 40000 draws near the softmax."""
    logits = np.array([[0.5, -1.0, 2.0, 0.0, -np.inf]], np.float32)
    m = Model("multinomial_freq")
    m.input("x", logits, T.FLOAT)
    m.node("Multinomial", ["x"], "y", T.INT32, [1, 40000], "exact", seed=5.0, sample_size=40000)
    d, exe = b.build(m.name, m.proto())
    y = np.frombuffer(b.run(d, exe, m.feeds, {"x": T.FLOAT}, 1)[0], np.int32)
    pr = np.exp(logits[0, :4].astype(np.float64) - 2.0)
    pr = np.append(pr / pr.sum(), 0.0)
    freq = np.bincount(y, minlength=5) / y.size
    report(bool(np.all(np.abs(freq - pr) < 0.01)) and freq[4] == 0,
           f"multinomial frequencies {np.round(freq, 4).tolist()} vs softmax {np.round(pr, 4).tolist()}")


def check_no_seed(b, work, report):
    """No seed: the documented default, the same numbers on every run, different streams per node."""
    m = Model("no_seed")
    m.node("RandomNormal", [], "noise_a", T.FLOAT, [5, 3], "ulp", shape=[5, 3])
    m.node("RandomNormal", [], "noise_b", T.FLOAT, [5, 3], "ulp", shape=[5, 3])
    m.node("RandomUniform", [], "unif", T.DOUBLE, [700], "exact", shape=[700], dtype=T.DOUBLE)
    seeded = Model("no_seed_ref")
    for n in m.nodes:
        seeded.nodes.append(helper.make_node(n.op_type, [], list(n.output), **{a.name: helper.get_attribute_value(a) for a in n.attribute},
                                             seed=fnv1a(n.output[0])))  # an int: a float32 seed would round
    seeded.outputs = m.outputs
    want = seeded.reference()
    d, exe = b.build(m.name, m.proto())
    r1 = b.run(d, exe, {}, {}, 3, "run1")
    r2 = b.run(d, exe, {}, {}, 3, "run2")
    for o, raw, w in zip(m.outputs, r1, want):
        ok, msg = compare(o.name, m.kinds[o.name], raw, w)
        report(ok, f"no_seed/{o.name}: the default seed fnv1a('{o.name}') = {fnv1a(o.name)}: {msg}")
    report(r1 == r2, "no_seed: two processes give identical outputs")
    report(r1[0] != r1[1], "no_seed: two unseeded nodes draw different streams")
    twice = os.path.join(work, "twice.c")
    with open(twice, "w") as fh:
        fh.write(TWICE)
    d2, exe2 = b.build("no_seed_twice", m.proto(), extra_main=twice)
    out = subprocess.run(b.wrapper + [exe2], capture_output=True, text=True, timeout=600)
    report(out.returncode == 0 and out.stdout.strip() == "0",
           f"no_seed: two runs in one process (arena scribbled between them) agree: status {out.returncode}, {out.stdout.strip()} differ")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--cflags", default="")
    ap.add_argument("--ldflags", default="")
    ap.add_argument("--run-wrapper", default="")
    ap.add_argument("--link", action="append", default=[])
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="onnxc_random_")
    b = Builder(args, work)
    passed = failed = 0

    def report(ok, what):
        nonlocal passed, failed
        print(f"{'PASS' if ok else 'FAIL'} {what}")
        if ok:
            passed += 1
        else:
            failed += 1

    for m in models():
        want = m.reference()
        try:
            d, exe = b.build(m.name, m.proto())
            dtypes = {i.name: i.type.tensor_type.elem_type for i in m.inputs}
            got = b.run(d, exe, m.feeds, dtypes, len(m.outputs))
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:
            report(False, f"{m.name}: {e}")
            continue
        for o, raw, w in zip(m.outputs, got, want):
            node = next(n for n in m.nodes if n.output[0] == o.name)
            mean = next((a.f for a in node.attribute if a.name == "mean"), 0.0)
            ok, msg = compare(o.name, m.kinds[o.name], raw, w, mean)
            attrs = ", ".join(f"{a.name}={helper.get_attribute_value(a)}" for a in node.attribute if a.name != "shape")
            report(ok, f"{m.name}/{o.name} {node.op_type} [{attrs}] {list(w.shape)}: {msg}")

    for what, check in (("multinomial frequencies", check_frequencies), ("no seed", check_no_seed)):
        try:
            check(b, work, report)
        except (RuntimeError, OSError, subprocess.SubprocessError) as e:
            report(False, f"{what}: {e}")

    # determinism of the generated code, and the Cortex-M4 build of every model
    arm = shutil.which("arm-none-eabi-gcc")
    for name in sorted(os.listdir(work)):
        mp = os.path.join(work, name, "model.onnx")
        if not os.path.exists(mp):
            continue
        os.makedirs(os.path.join(work, name, "again"))
        again = os.path.join(work, name, "again", "model.c")
        if b.onnxc_c(mp, again)[0] != 0 or not os.path.exists(os.path.join(work, name, "model.c")):
            report(False, f"{name}: onnxc fails")
            continue
        same = all(open(again[:-1] + x, "rb").read() == open(os.path.join(work, name, "model." + x), "rb").read()
                   for x in "ch")
        report(same, f"{name}: compiling twice gives byte-identical C")
        if arm and not args.run_wrapper:
            p = subprocess.run([arm] + STRICT + M4 + ["-I", INCLUDE, "-c", again, "-o", again + ".m4.o"],
                               capture_output=True, text=True)
            report(p.returncode == 0, f"{name}: builds for Cortex-M4{'' if p.returncode == 0 else ': ' + p.stderr[:300]}")

    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"work folder: {work}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
