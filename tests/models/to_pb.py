#!/usr/bin/env python3
"""Turns the .npy files written by export_fixtures.py into ONNX TensorProto .pb files (needs the
onnx package), named as the ONNX backend tests name them, and removes the .npy files.

usage: to_pb.py [FOLDER...]   folders of cases (default: tests/models), or single case folders"""
import glob
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))

files = []
for root in sys.argv[1:] or [HERE]:
    pattern = ("test_data_set_*" if os.path.exists(os.path.join(root, "model.onnx")) else os.path.join("*", "test_data_set_*"))
    files += glob.glob(os.path.join(root, pattern, "*.npy"))
for npy in sorted(files):
    model = onnx.load(os.path.join(os.path.dirname(os.path.dirname(npy)), "model.onnx"))
    base = os.path.basename(npy)[:-4]
    kind, idx = base.split("_")
    names = model.graph.input if kind == "input" else model.graph.output
    t = numpy_helper.from_array(np.load(npy), names[int(idx)].name)
    with open(npy[:-4] + ".pb", "wb") as f:
        f.write(t.SerializeToString())
    os.remove(npy)
