#!/usr/bin/env python3
"""Writes tests/models/flexattention_gqa_mods: FlexAttention (ai.onnx.preview) with grouped
query heads (4 query heads over 2 key/value heads), an explicit scale, a soft-cap score_mod
and a prob_mod subgraph -- the combination the ONNX node cases do not cover -- checked against
the ONNX reference implementation (onnx.reference), ONNX Runtime having no FlexAttention."""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

HERE = os.path.dirname(os.path.abspath(__file__))
D = os.path.join(HERE, "flexattention_gqa_mods")
F = TensorProto.FLOAT


def main():
    cap = numpy_helper.from_array(np.array(2.0, np.float32), "cap")
    soft = helper.make_graph(
        [helper.make_node("Div", ["scores", "cap"], ["t0"]), helper.make_node("Tanh", ["t0"], ["t1"]),
         helper.make_node("Mul", ["t1", "cap"], ["scores_out"])],
        "soft_cap", [helper.make_tensor_value_info("scores", F, None)], [helper.make_tensor_value_info("scores_out", F, None)], [cap])
    h = numpy_helper.from_array(np.array(0.9, np.float32), "h")
    pmod = helper.make_graph([helper.make_node("Mul", ["probs", "h"], ["po"])], "prob_scale",
                             [helper.make_tensor_value_info("probs", F, None)], [helper.make_tensor_value_info("po", F, None)], [h])
    node = helper.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], domain="ai.onnx.preview", score_mod=soft,
                            prob_mod=pmod, scale=0.3)
    g = helper.make_graph([node], "flex", [helper.make_tensor_value_info("Q", F, [2, 4, 3, 8]),
                                           helper.make_tensor_value_info("K", F, [2, 2, 5, 8]),
                                           helper.make_tensor_value_info("V", F, [2, 2, 5, 6])],
                          [helper.make_tensor_value_info("Y", F, [2, 4, 3, 6])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 26), helper.make_opsetid("ai.onnx.preview", 1)])
    m.ir_version = 11
    os.makedirs(os.path.join(D, "test_data_set_0"), exist_ok=True)
    onnx.save(m, os.path.join(D, "model.onnx"))
    rng = np.random.default_rng(0)
    ins = {"Q": rng.standard_normal((2, 4, 3, 8)).astype(np.float32), "K": rng.standard_normal((2, 2, 5, 8)).astype(np.float32),
           "V": rng.standard_normal((2, 2, 5, 6)).astype(np.float32)}
    y = ReferenceEvaluator(m).run(None, ins)[0]
    for i, k in enumerate(["Q", "K", "V"]):
        onnx.save_tensor(numpy_helper.from_array(ins[k], k), os.path.join(D, "test_data_set_0", f"input_{i}.pb"))
    onnx.save_tensor(numpy_helper.from_array(y, "Y"), os.path.join(D, "test_data_set_0", "output_0.pb"))
    print("wrote", D)


if __name__ == "__main__":
    main()
