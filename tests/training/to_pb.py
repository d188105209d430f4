#!/usr/bin/env python3
"""Turns what export_training.py wrote (.npy inputs, ref.npz) into the ONNX backend-test layout
(needs the onnx package): input_0.pb (the model input), input_1.pb (`label`), output_0.pb
(`loss`, a scalar) and output_<k>.pb (`<initializer>_grad`) for the trainable initializers in
initializer order, which is the order of onnxc --gradients' outputs.

Trainable = a floating-point initializer that torch has a gradient for; any other floating-point
initializer must be one onnxc also leaves alone (BatchNorm running statistics, or one the
fixture's onnxc_flags.txt names in --freeze), otherwise this script stops.
"""
import glob
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
FLOAT = {onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE, onnx.TensorProto.FLOAT16, onnx.TensorProto.BFLOAT16}


def write(path, arr, name):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.array(arr, order="C"), name).SerializeToString())


def main():
    dirs = sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, "*", "test_data_set_0")))
    for ds in dirs:
        ref_path = os.path.join(ds, "ref.npz")
        if not os.path.exists(ref_path):
            continue
        model = onnx.load(os.path.join(os.path.dirname(ds), "model.onnx"))
        flags = open(os.path.join(os.path.dirname(ds), "onnxc_flags.txt")).read().split()
        frozen = set(",".join(flags[i + 1] for i, f in enumerate(flags) if f == "--freeze").split(","))
        ref = dict(np.load(ref_path))
        inits = [t.name for t in model.graph.initializer]
        for i, f in enumerate(["input_0.npy", "input_1.npy"]):
            p = os.path.join(ds, f)
            if os.path.exists(p):
                write(p[:-4] + ".pb", np.load(p), model.graph.input[0].name if i == 0 else "label")
                os.remove(p)
        write(os.path.join(ds, "output_0.pb"), ref.pop("loss").astype(np.float32), "loss")
        k = 1
        for t in model.graph.initializer:
            g = ref.pop(t.name + "_grad", None)
            if g is None:
                if t.data_type in FLOAT and "running_" not in t.name and t.name not in frozen:
                    sys.exit(f"{ds}: float initializer {t.name} has no torch gradient")
                continue
            want = tuple(t.dims)
            if g.shape != want:
                sys.exit(f"{ds}: gradient of {t.name} has shape {g.shape}, initializer {want}")
            write(os.path.join(ds, f"output_{k}.pb"), g, t.name + "_grad")
            k += 1
        if ref:
            sys.exit(f"{ds}: torch parameters that are not initializers: {sorted(ref)} (initializers: {inits})")
        os.remove(ref_path)
        print(f"{ds}: loss + {k - 1} gradients")


if __name__ == "__main__":
    main()
