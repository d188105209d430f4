#!/usr/bin/env python3
"""Run-time statuses of string models (through tests/conformance/run.py and its harness):
  - a string heap too small for the run (--string-bytes) -> ONNXC_ERR_CAPACITY (7), also 0 bytes;
  - a StringSplit string with more pieces than --max-substrings -> ONNXC_ERR_BOUNDS (3);
  - Cast of text that is not a number -> ONNXC_ERR_PARSE (8).
The same models pass with enough room (the bound is not off by one).

usage: check_status.py [--build BUILD] [--target c|cuda-emu|cuda|cuda-nvrtc]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUN = os.path.join(ROOT, "tests", "conformance", "run.py")


def case(d, node, x, outs, opset=20):
    os.makedirs(os.path.join(d, "test_data_set_0"), exist_ok=True)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.STRING, x.shape)],
                          [helper.make_tensor_value_info(n, t, None) for n, t, _ in outs])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]), os.path.join(d, "model.onnx"))
    with open(os.path.join(d, "test_data_set_0", "input_0.pb"), "wb") as f:
        f.write(numpy_helper.from_array(x, "x").SerializeToString())
    for k, (n, _, a) in enumerate(outs):
        with open(os.path.join(d, "test_data_set_0", f"output_{k}.pb"), "wb") as f:
            f.write(numpy_helper.from_array(a, n).SerializeToString())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--target", default="c", help="as run.py's (the CUDA targets report through the device status word)")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="onnxc_strstatus_")
    x = np.array(["abc", "de"], dtype=object)
    case(os.path.join(work, "concat"), helper.make_node("StringConcat", ["x", "x"], ["y"]), x,
         [("y", TensorProto.STRING, np.array(["abcabc", "dede"], dtype=object))])
    s = np.array(["a b c", "d"], dtype=object)
    case(os.path.join(work, "split"), helper.make_node("StringSplit", ["x"], ["y", "n"]), s,
         [("y", TensorProto.STRING, np.array([["a", "b", "c"], ["d", "", ""]], dtype=object)),
          ("n", TensorProto.INT64, np.array([3, 1], dtype=np.int64))])
    case(os.path.join(work, "parse"), helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT),
         np.array(["1.5", "one"], dtype=object), [("y", TensorProto.FLOAT, np.array([1.5, 0], dtype=np.float32))])
    case(os.path.join(work, "parse_int"), helper.make_node("Cast", ["x"], ["y"], to=TensorProto.INT8),
         np.array(["127", "128"], dtype=object), [("y", TensorProto.INT8, np.array([127, 0], dtype=np.int8))])
    # (case, flags, expected status or None for a pass); concat needs 7 + 5 bytes
    checks = [("concat", ["--string-bytes", "11"], 7), ("concat", ["--string-bytes", "0"], 7), ("concat", ["--string-bytes", "12"], None),
              ("concat", [], None), ("split", ["--max-substrings", "2"], 3), ("split", ["--max-substrings", "3"], None),
              ("split", ["--string-bytes", "5"], 7), ("split", ["--string-bytes", "8"], None),
              ("parse", [], 8), ("parse_int", [], 8)]
    passed = failed = 0
    for name, flags, want in checks:
        cmd = [sys.executable, RUN, "--build", args.build, os.path.join(work, name), "-j", "1", "--target", args.target]
        cmd += [f"--flag={f}" for f in flags]
        out = subprocess.run(cmd, capture_output=True, text=True).stdout
        line = next((l for l in out.splitlines() if l.startswith(("PASS", "FAIL"))), out.strip())
        m = re.search(r"run failed: status (\d+)", line)
        ok = line.startswith("PASS") if want is None else bool(m and int(m.group(1)) == want)
        what = "passes" if want is None else f"status {want}"
        print(f"{'PASS' if ok else 'FAIL'} {name} {' '.join(flags) or '(no flags)'}: {what}{'' if ok else ': ' + line}")
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
