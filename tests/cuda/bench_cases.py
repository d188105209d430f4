#!/usr/bin/env python3
"""Turns the benchmark models (bench/models/NAME.onnx with NAME.input.npy and PyTorch's
NAME.output.npy, written by bench/export_models.py) into conformance-style case folders
(OUT/NAME/model.onnx + test_data_set_0/input_0.pb, output_0.pb) for tests/conformance/run.py.

usage: bench_cases.py OUT [NAME...]
"""
import glob
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "..", "..", "bench", "models")


def main():
    out = sys.argv[1]
    only = set(sys.argv[2:])
    for path in sorted(glob.glob(os.path.join(MODELS, "*.onnx"))):
        name = os.path.basename(path)[:-5]
        if only and name not in only:
            continue
        d = os.path.join(out, name)
        ds = os.path.join(d, "test_data_set_0")
        os.makedirs(ds, exist_ok=True)
        link = os.path.join(d, "model.onnx")
        if not os.path.exists(link):
            os.symlink(os.path.abspath(path), link)
        for kind in ("input", "output"):
            arr = np.load(os.path.join(MODELS, f"{name}.{kind}.npy"))
            t = numpy_helper.from_array(arr.astype(np.float32), kind)
            with open(os.path.join(ds, f"{kind}_0.pb"), "wb") as f:
                f.write(t.SerializeToString())
        print(d)


if __name__ == "__main__":
    main()
