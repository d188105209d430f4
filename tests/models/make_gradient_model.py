#!/usr/bin/python3
"""Writes tests/models/gradient_op_conv: ai.onnx.preview.training::Gradient over a graph with a
convolution, Relu, a Gemm and broadcasting, beyond the two scalar cases of the ONNX simple
suite.  y = ReduceSum(Sigmoid(Gemm(Flatten(Relu(Conv(x, W) + b) * z), V))) with
Gradient(x, W, z; xs=[x, W], zs=[z], y=y) -> dy/dx, dy/dW; expected values from torch.autograd.

Run with Debian's python3 (torch and onnx): /usr/bin/python3 tests/models/make_gradient_model.py"""
import os

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
D = os.path.join(HERE, "gradient_op_conv")
F = TensorProto.FLOAT


def main():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 6, 6)).astype(np.float32)
    w = (0.3 * rng.standard_normal((4, 3, 3, 3))).astype(np.float32)
    b = (0.1 * rng.standard_normal(4)).astype(np.float32)
    z = rng.standard_normal((1, 4, 1, 1)).astype(np.float32)
    v = (0.2 * rng.standard_normal((4 * 3 * 3, 5))).astype(np.float32)

    inits = [numpy_helper.from_array(b, "b"), numpy_helper.from_array(v, "V")]
    nodes = [
        helper.make_node("Conv", ["x", "W"], ["c"], strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Add", ["c", "b4"], ["cb"]),
        helper.make_node("Relu", ["cb"], ["r"]),
        helper.make_node("Mul", ["r", "z"], ["rz"]),
        helper.make_node("Flatten", ["rz"], ["f"]),
        helper.make_node("Gemm", ["f", "V"], ["g"]),
        helper.make_node("Sigmoid", ["g"], ["s"]),
        helper.make_node("ReduceSum", ["s"], ["y"], keepdims=0),
        helper.make_node("Gradient", ["x", "W", "z"], ["dy_dx", "dy_dW"], domain="ai.onnx.preview.training",
                         xs=["x", "W"], zs=["z"], y="y"),
    ]
    inits.append(numpy_helper.from_array(np.array([1, 4, 1, 1], np.int64), "shape4"))
    nodes.insert(1, helper.make_node("Reshape", ["b", "shape4"], ["b4"]))
    g = helper.make_graph(
        nodes, "gradient_op_conv",
        [helper.make_tensor_value_info("x", F, list(x.shape)), helper.make_tensor_value_info("W", F, list(w.shape)),
         helper.make_tensor_value_info("z", F, list(z.shape))],
        [helper.make_tensor_value_info("y", F, []), helper.make_tensor_value_info("dy_dx", F, list(x.shape)),
         helper.make_tensor_value_info("dy_dW", F, list(w.shape))], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx.preview.training", 1)])
    m.ir_version = 7
    os.makedirs(os.path.join(D, "test_data_set_0"), exist_ok=True)
    onnx.save(m, os.path.join(D, "model.onnx"))

    tx, tw, tz = (torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in (x, w, z))
    c = torch.nn.functional.conv2d(tx, tw, torch.tensor(b, dtype=torch.float64), stride=2, padding=1)
    s = torch.sigmoid((torch.relu(c) * tz).flatten(1) @ torch.tensor(v, dtype=torch.float64))
    y = s.sum()
    dx, dw = torch.autograd.grad(y, [tx, tw])
    outs = {"y": y.detach().numpy().astype(np.float32), "dy_dx": dx.numpy().astype(np.float32),
            "dy_dW": dw.numpy().astype(np.float32)}
    for k, (name, a) in enumerate([("x", x), ("W", w), ("z", z)]):
        with open(os.path.join(D, "test_data_set_0", f"input_{k}.pb"), "wb") as fh:
            fh.write(numpy_helper.from_array(a, name).SerializeToString())
    for k, name in enumerate(["y", "dy_dx", "dy_dW"]):
        with open(os.path.join(D, "test_data_set_0", f"output_{k}.pb"), "wb") as fh:
            fh.write(numpy_helper.from_array(outs[name], name).SerializeToString())


if __name__ == "__main__":
    main()
