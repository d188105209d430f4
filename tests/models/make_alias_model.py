#!/usr/bin/env python3
"""Writes tests/models/alias_views: a small graph built to exercise every aliasing form of the
memory planner at once -- Slice and Split along the outer axis as views, in-place elementwise
ops, Concat whose producers write into its slices, Reshape views -- checked against ONNX
Runtime's output."""
import os

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
D = os.path.join(HERE, "alias_views")


def c(name, vals):
    return helper.make_tensor(name, TensorProto.INT64, [len(vals)], vals)


nodes = [
    helper.make_node("Relu", ["x"], ["r"]),
    helper.make_node("Slice", ["r", "s0", "e0", "a0"], ["s"]),              # rows 1..2: a view
    helper.make_node("Split", ["r", "sp"], ["p0", "p1"], axis=0),           # views at offsets
    helper.make_node("Mul", ["s", "two"], ["m"]),                           # writes into the concat
    helper.make_node("Sigmoid", ["p1"], ["q"]),                             # writes into the concat
    helper.make_node("Neg", ["p0"], ["n0"]),
    helper.make_node("Abs", ["n0"], ["n1"]),                                # in place over n0
    helper.make_node("Concat", ["m", "q", "n1"], ["cat"], axis=0),          # [6,3,5]
    helper.make_node("Reshape", ["cat", "shp"], ["flat"]),                  # [6,15], a view
    helper.make_node("Tanh", ["flat"], ["t"]),                              # in place
    helper.make_node("Slice", ["t", "z", "f4", "z"], ["t4"]),               # rows 0..3: a view
    helper.make_node("Reshape", ["r", "shp2"], ["r2"]),                     # [4,15], a view
    helper.make_node("Add", ["t4", "r2"], ["y4"]),
    helper.make_node("Concat", ["y4", "t"], ["y"], axis=0),                 # [10,15]
]
g = helper.make_graph(
    nodes, "alias_views", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3, 5])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [10, 15])],
    initializer=[c("s0", [1]), c("e0", [3]), c("a0", [0]), c("sp", [1, 3]), c("shp", [6, 15]), c("shp2", [4, 15]),
                 c("z", [0]), c("f4", [4]), helper.make_tensor("two", TensorProto.FLOAT, [], [2.0])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(m)
os.makedirs(os.path.join(D, "test_data_set_0"), exist_ok=True)
onnx.save(m, os.path.join(D, "model.onnx"))
x = np.random.default_rng(7).standard_normal((4, 3, 5)).astype(np.float32)
y = ort.InferenceSession(os.path.join(D, "model.onnx")).run(None, {"x": x})[0]
open(os.path.join(D, "test_data_set_0", "input_0.pb"), "wb").write(numpy_helper.from_array(x, "x").SerializeToString())
open(os.path.join(D, "test_data_set_0", "output_0.pb"), "wb").write(numpy_helper.from_array(y, "y").SerializeToString())
