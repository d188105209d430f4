#!/usr/bin/env python3
"""The run-time contract of sequence and optional inputs and outputs (README, "Sequences and
optionals"): two small models compiled with onnxc (--seq-input for their sequences), built with
strict C99 flags (also with --canary) and linked with ports_abi.c, which checks values, counts,
dims, has_value, the statuses ONNXC_ERR_SHAPE / ONNXC_ERR_NULL / ONNXC_ERR_EMPTY and the
descriptor fields (kind, n_items, items); then the same models for --target cuda on the CPU
emulation with ports_cuda.cpp (flat ports, the status word).

usage: check_ports.py [--build BUILD]
"""
import argparse
import os
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1"]


def models(d):
    F = TensorProto.FLOAT
    opt3 = helper.make_optional_type_proto(helper.make_tensor_type_proto(F, [3]))
    optseq = helper.make_optional_type_proto(helper.make_sequence_type_proto(helper.make_tensor_type_proto(F, None)))
    a = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"]), helper.make_node("OptionalHasElement", ["o"], ["h"]),
         helper.make_node("Identity", ["o"], ["oo"]), helper.make_node("Identity", ["s"], ["os"])], "a",
        [helper.make_tensor_sequence_value_info("x", F, None), helper.make_value_info("o", opt3),
         helper.make_value_info("s", optseq)],
        [helper.make_tensor_sequence_value_info("y", F, None), helper.make_tensor_value_info("h", TensorProto.BOOL, []),
         helper.make_value_info("oo", opt3), helper.make_value_info("os", optseq)])
    b = helper.make_graph([helper.make_node("OptionalGetElement", ["o"], ["v"])], "b", [helper.make_value_info("o", opt3)],
                          [helper.make_tensor_value_info("v", F, [3])])
    for name, g in (("a", a), ("b", b)):
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
        m.ir_version = 8
        onnx.save(m, os.path.join(d, name + ".onnx"))


def sh(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    onnxc, inc = os.path.join(build, "onnxc"), os.path.join(ROOT, "runtime_min")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="onnxc_ports_") as d:
        models(d)
        for extra in ([], ["--canary"]):
            label = " ".join(extra) or "plain"
            steps = [
                [onnxc, os.path.join(d, "a.onnx"), "-o", os.path.join(d, "a.c"), "--seq-input", "x=float[2],float[3]",
                 "--seq-input", "s=float[2]"] + extra,
                [onnxc, os.path.join(d, "b.onnx"), "-o", os.path.join(d, "b.c")] + extra,
                ["cc"] + STRICT + ["-I", inc, "-I", d, os.path.join(d, "a.c"), os.path.join(d, "b.c"),
                                   os.path.join(HERE, "ports_abi.c"), os.path.join(build, "libonnxc_rt.a"), "-lm",
                                   "-o", os.path.join(d, "abi")],
                [os.path.join(d, "abi")],
            ]
            for cmd in steps:
                rc, msg = sh(cmd)
                if rc:
                    print(f"FAIL {label}: {os.path.basename(cmd[0])}: {msg[:2000]}")
                    failed += 1
                    break
            else:
                print(f"PASS {label}")
        # the CUDA targets' flat ports, on the CPU emulation (tests/cuda/emu)
        emu = os.path.join(ROOT, "tests", "cuda", "emu")
        steps = [
            [onnxc, os.path.join(d, "a.onnx"), "--target", "cuda", "-o", os.path.join(d, "a.cu"), "--seq-input",
             "x=float[2],float[3]", "--seq-input", "s=float[2]"],
            [onnxc, os.path.join(d, "b.onnx"), "--target", "cuda", "-o", os.path.join(d, "b.cu")],
            ["g++", "-std=c++17", "-w", "-O1", "-include", os.path.join(emu, "cuda_emu.h"), "-I", inc, "-I", emu, "-I", d, "-x", "c++",
             os.path.join(d, "a.cu"), os.path.join(d, "b.cu"), os.path.join(HERE, "ports_cuda.cpp"), os.path.join(emu, "rt_emu.cpp"),
             "-x", "none", os.path.join(build, "libonnxc_rt.a"), "-lm", "-o", os.path.join(d, "cuda")],
            [os.path.join(d, "cuda")],
        ]
        for cmd in steps:
            rc, msg = sh(cmd)
            if rc:
                print(f"FAIL cuda-emu: {os.path.basename(cmd[0])}: {msg[:2000]}")
                failed += 1
                break
        else:
            print("PASS cuda-emu")
    print(f"{3 - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
