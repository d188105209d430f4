#!/usr/bin/env python3
"""Writes tests/models/local_functions: a model whose graph calls model-local functions (one
nested in the other, one attribute passed by reference), as the newer PyTorch exporter writes
them.  The reference output comes from ONNX Runtime."""
import onnx, numpy as np
from onnx import helper, TensorProto, numpy_helper
import os
# a model-local function: y = Relu(x * alpha_const) + b, with a nested function call
inner = helper.make_function("local", "Scale", ["x"], ["y"],
    [helper.make_node("Constant", [], ["c"], value_float=2.0), helper.make_node("Mul", ["x", "c"], ["y"])],
    opset_imports=[helper.make_opsetid("", 17)])
leaky = helper.make_node("LeakyRelu", ["s"], ["r"])
leaky.attribute.append(helper.make_attribute_ref("alpha", onnx.AttributeProto.FLOAT))
outer = helper.make_function("local", "ScaleRelu", ["x", "b"], ["y"],
    [helper.make_node("Scale", ["x"], ["s"], domain="local"),
     leaky,
     helper.make_node("Add", ["r", "b"], ["y"])],
    opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)], attributes=["alpha"])
g = helper.make_graph([helper.make_node("ScaleRelu", ["x", "b"], ["t"], domain="local", name="call1", alpha=0.3),
                       helper.make_node("ScaleRelu", ["t", "b"], ["y"], domain="local", name="call2")], "g",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]), helper.make_tensor_value_info("b", TensorProto.FLOAT, [3])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
m = helper.make_model(g, functions=[inner, outer], opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
d = os.path.join(os.path.dirname(os.path.abspath(__file__)), "local_functions")
os.makedirs(d + "/test_data_set_0", exist_ok=True)
onnx.save(m, d + "/model.onnx")
rng = np.random.default_rng(0)
x = rng.standard_normal((2, 3)).astype(np.float32); b = rng.standard_normal(3).astype(np.float32)
import onnxruntime as ort
y = ort.InferenceSession(d + "/model.onnx").run(None, {"x": x, "b": b})[0]
for i, (nm, a) in enumerate([("x", x), ("b", b)]):
    open(f"{d}/test_data_set_0/input_{i}.pb", "wb").write(numpy_helper.from_array(a, nm).SerializeToString())
open(f"{d}/test_data_set_0/output_0.pb", "wb").write(numpy_helper.from_array(y, "y").SerializeToString())
