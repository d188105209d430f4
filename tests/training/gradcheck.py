#!/usr/bin/env python3
"""Finite-difference check of every gradient rule of onnxc --gradients (needs the onnx package).

Each case is a one-op model in double precision whose differentiable inputs are initializers
(the parameters; stop-gradient inputs such as Clip bounds, indices and shapes are Constant
nodes), followed by loss = sum_k ReduceSum(Y_k * R_k) with random initializers R_k.  The
reference gradients are central differences of that loss, evaluated with onnx's reference
implementation; the cases are written in the conformance layout (model.onnx, onnxc_flags.txt
with `--gradients --loss output:loss`, output_0.pb = loss, output_<k>.pb = <init>_grad in
initializer order) and checked by tests/conformance/run.py with --max-rel-err 1e-6.

It also checks the error contract of the training flags (status 1, one line naming the
problem: an op without a gradient rule, unknown loss kind or value, bad --freeze, ...).

  gradcheck.py --build BUILD [-k REGEX] [--keep-cases DIR]
"""
import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx.reference.op_run import OpRun
from onnx.reference.ops.op_conv_transpose import ConvTranspose as RefConvTranspose
from onnx.reference.ops.op_rnn import RNN_14

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(os.path.dirname(HERE), "conformance", "run.py")
D = TensorProto.DOUBLE


class Case:
    """op_type, inputs: list of ("p", shape[, low, high]) parameters or ("c", array) constants
    (None: omitted), attrs, number of outputs, which outputs enter the loss, opset."""

    def __init__(self, name, op, inputs, attrs=None, n_out=1, use=None, opset=17):
        self.name, self.op, self.inputs, self.attrs = name, op, inputs, attrs or {}
        self.n_out, self.use, self.opset = n_out, use if use is not None else list(range(n_out)), opset


def P(*shape, lo=-1.0, hi=1.0):
    return ("p", shape, lo, hi)


def C(arr):
    return ("c", np.asarray(arr))


def F(*vals):  # a double constant
    return ("c", np.asarray(vals if len(vals) != 1 else vals[0], dtype=np.float64))


def I(*vals):
    return ("c", np.asarray(vals, dtype=np.int64))


CASES = [
    # matrix products
    Case("gemm", "Gemm", [P(3, 4), P(4, 5), P(5)]),
    Case("gemm_tA_tB", "Gemm", [P(4, 3), P(5, 4), P(3, 5)], {"transA": 1, "transB": 1, "alpha": 0.7, "beta": 1.3}),
    Case("gemm_tA", "Gemm", [P(4, 3), P(4, 5), P(1, 5)], {"transA": 1}),
    Case("gemm_tB_scalarC", "Gemm", [P(3, 4), P(5, 4), P(1)], {"transB": 1, "beta": 0.5}),
    Case("matmul_2d", "MatMul", [P(3, 4), P(4, 5)]),
    Case("matmul_3d_2d", "MatMul", [P(2, 3, 4), P(4, 5)]),
    Case("matmul_2d_3d", "MatMul", [P(3, 4), P(2, 4, 5)]),
    Case("matmul_bcast", "MatMul", [P(2, 1, 3, 4), P(3, 4, 2)]),
    Case("matmul_1d_2d", "MatMul", [P(4), P(4, 5)]),
    Case("matmul_2d_1d", "MatMul", [P(3, 4), P(4)]),
    Case("matmul_1d_3d", "MatMul", [P(4), P(2, 4, 3)]),
    Case("matmul_3d_1d", "MatMul", [P(2, 3, 4), P(4)]),
    Case("matmul_1d_1d", "MatMul", [P(4), P(4)]),
    # convolution and pooling
    Case("conv2d", "Conv", [P(2, 3, 6, 5), P(4, 3, 3, 3), P(4)], {"pads": [1, 0, 2, 1]}),
    Case("conv2d_stride_dil_group", "Conv", [P(1, 4, 9, 8), P(6, 2, 3, 2), P(6)],
         {"strides": [2, 1], "dilations": [2, 3], "group": 2, "pads": [1, 2, 0, 1]}),
    Case("conv2d_depthwise", "Conv", [P(2, 3, 5, 5), P(6, 1, 3, 3)], {"group": 3, "pads": [1, 1, 1, 1], "strides": [2, 2]}),
    Case("conv1d_same", "Conv", [P(2, 2, 7), P(3, 2, 4), P(3)], {"auto_pad": "SAME_UPPER", "strides": [2]}),
    Case("conv3d", "Conv", [P(1, 2, 4, 3, 4), P(2, 2, 2, 2, 3)], {"pads": [0, 1, 1, 1, 0, 1]}),
    Case("convtranspose2d", "ConvTranspose", [P(2, 3, 4, 3), P(3, 2, 3, 3), P(2)], {"pads": [1, 0, 0, 1]}),
    Case("convtranspose2d_stride_dil_group_opad", "ConvTranspose", [P(1, 4, 3, 4), P(4, 3, 3, 2), P(6)],
         {"strides": [2, 3], "dilations": [2, 1], "group": 2, "pads": [1, 0, 2, 1], "output_padding": [1, 2]}),
    Case("convtranspose1d_same_upper", "ConvTranspose", [P(2, 2, 5), P(2, 3, 4), P(3)], {"auto_pad": "SAME_UPPER", "strides": [2]}),
    Case("convtranspose2d_same_lower", "ConvTranspose", [P(1, 2, 3, 3), P(2, 2, 3, 3)],
         {"strides": [2, 2], "auto_pad": "SAME_LOWER"}),
    Case("convtranspose3d", "ConvTranspose", [P(1, 2, 2, 3, 2), P(2, 1, 2, 2, 3)], {"pads": [0, 1, 1, 1, 0, 0], "strides": [1, 2, 1]}),
    Case("maxpool2d", "MaxPool", [P(2, 2, 7, 6)], {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 1, 1]}),
    Case("maxpool2d_ceil_dil", "MaxPool", [P(1, 2, 8, 7)], {"kernel_shape": [2, 3], "strides": [2, 2], "dilations": [2, 1],
                                                          "ceil_mode": 1}, opset=12),
    Case("maxpool1d_indices", "MaxPool", [P(2, 3, 9)], {"kernel_shape": [3], "strides": [2]}, n_out=2, use=[0]),
    Case("avgpool2d", "AveragePool", [P(2, 2, 7, 6)], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 0]}),
    Case("avgpool2d_cip_ceil", "AveragePool", [P(1, 2, 7, 6)], {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 1, 1],
                                                             "count_include_pad": 1, "ceil_mode": 1}),
    Case("gap", "GlobalAveragePool", [P(2, 3, 4, 5)]),
    # normalization
    Case("batchnorm_train", "BatchNormalization", [P(3, 4, 3, 2), P(4, lo=0.5, hi=1.5), P(4), F(*[0.0] * 4), F(*[1.0] * 4)],
         {"training_mode": 1, "epsilon": 1e-3}, n_out=3, use=[0], opset=15),
    Case("batchnorm_eval", "BatchNormalization", [P(2, 3, 4), P(3), P(3), F(0.1, -0.2, 0.3), F(0.5, 1.5, 2.0)], opset=15),
    Case("layernorm", "LayerNormalization", [P(3, 4, 5), P(5), P(5)]),
    Case("layernorm_axis1", "LayerNormalization", [P(2, 3, 4), P(3, 4)], {"axis": 1, "epsilon": 1e-3}),
    Case("softmax_13", "Softmax", [P(2, 3, 4)], {"axis": 1}, opset=13),
    Case("softmax_legacy", "Softmax", [P(2, 3, 4)], {"axis": 1}, opset=11),
    Case("logsoftmax_13", "LogSoftmax", [P(2, 3, 4)], {"axis": -1}, opset=13),
    Case("logsoftmax_legacy", "LogSoftmax", [P(3, 2, 4)], {"axis": 1}, opset=11),
    # elementwise
    Case("relu", "Relu", [P(3, 5)]),
    Case("leakyrelu", "LeakyRelu", [P(3, 5)], {"alpha": 0.2}),
    Case("sigmoid", "Sigmoid", [P(3, 5)]),
    Case("tanh", "Tanh", [P(3, 5)]),
    Case("gelu", "Gelu", [P(3, 5, lo=-3, hi=3)], opset=20),
    Case("gelu_tanh", "Gelu", [P(3, 5, lo=-3, hi=3)], {"approximate": "tanh"}, opset=20),
    Case("erf", "Erf", [P(3, 5)]),
    Case("hardswish", "HardSwish", [P(4, 5, lo=-5, hi=5)], opset=14),
    Case("hardsigmoid", "HardSigmoid", [P(4, 5, lo=-5, hi=5)], {"alpha": 0.3, "beta": 0.4}),
    Case("clip", "Clip", [P(4, 5, lo=-2, hi=2), F(-0.5), F(0.7)], opset=13),
    Case("clip_attr", "Clip", [P(4, 5, lo=-2, hi=2)], {"min": -0.3, "max": 0.9}, opset=6),
    Case("clip_min_only", "Clip", [P(4, 5, lo=-2, hi=2), F(-0.5)], opset=13),
    Case("sqrt", "Sqrt", [P(3, 4, lo=0.5, hi=2)]),
    Case("exp", "Exp", [P(3, 4)]),
    Case("log", "Log", [P(3, 4, lo=0.5, hi=2)]),
    Case("neg", "Neg", [P(3, 4)]),
    Case("abs", "Abs", [P(3, 4)]),
    Case("reciprocal", "Reciprocal", [P(3, 4, lo=0.5, hi=2)]),
    Case("softplus", "Softplus", [P(3, 4, lo=-3, hi=3)]),
    Case("softsign", "Softsign", [P(3, 4)]),
    Case("elu", "Elu", [P(3, 4)], {"alpha": 0.7}),
    Case("add_bcast", "Add", [P(2, 3, 4), P(3, 1)]),
    Case("sub_bcast", "Sub", [P(3, 1), P(2, 3, 4)]),
    Case("mul_bcast", "Mul", [P(2, 1, 4), P(3, 1)]),
    Case("div_bcast", "Div", [P(2, 3, 4), P(4, lo=0.5, hi=2)]),
    Case("pow", "Pow", [P(2, 3, lo=0.5, hi=2), P(3)]),
    Case("pow_const2", "Pow", [P(2, 3), F(2.0)]),
    Case("add_same_shape", "Add", [P(2, 3), P(2, 3)]),
    Case("sum3", "Sum", [P(2, 3), P(3), P(1, 3)]),
    Case("mean2", "Mean", [P(2, 3), P(2, 1)]),
    Case("where", "Where", [C(np.array([[True, False, True], [False, False, True]])), P(2, 3), P(3)]),
    Case("identity", "Identity", [P(2, 3)]),
    Case("cast", "Cast", [P(2, 3)], {"to": TensorProto.DOUBLE}),
    Case("dropout_eval", "Dropout", [P(2, 3)], opset=13),
    # shapes and data movement
    Case("reshape", "Reshape", [P(2, 3, 4), I(4, -1)]),
    Case("flatten", "Flatten", [P(2, 3, 4)], {"axis": 2}),
    Case("transpose", "Transpose", [P(2, 3, 4)], {"perm": [2, 0, 1]}),
    Case("transpose_default", "Transpose", [P(2, 3, 4)]),
    Case("squeeze_11", "Squeeze", [P(2, 1, 3)], {"axes": [1]}, opset=11),
    Case("squeeze_13", "Squeeze", [P(2, 1, 3), I(1)], opset=13),
    Case("unsqueeze_13", "Unsqueeze", [P(2, 3), I(0, 3)], opset=13),
    Case("concat", "Concat", [P(2, 1, 3), P(2, 4, 3), P(2, 2, 3)], {"axis": 1}),
    Case("split_13", "Split", [P(2, 7), I(3, 4)], {"axis": 1}, n_out=2, opset=13),
    Case("split_18_partial", "Split", [P(6, 2)], {"axis": 0, "num_outputs": 3}, n_out=3, use=[0, 2], opset=18),
    Case("slice_steps", "Slice", [P(5, 6), I(4, 1), I(0, 6), I(0, 1), I(-2, 2)], opset=13),
    Case("slice_clamp", "Slice", [P(5, 6), I(-3), I(100), I(1)], opset=13),
    Case("slice_9", "Slice", [P(5, 6)], {"starts": [1, 2], "ends": [4, 5], "axes": [0, 1]}, opset=9),
    Case("gather_axis0", "Gather", [P(5, 3), I(4, 0, 4, -1)]),
    Case("gather_axis1", "Gather", [P(2, 5, 3), C(np.array([[1, 3], [0, 1]], dtype=np.int64))], {"axis": 1}),
    Case("expand", "Expand", [P(3, 1), I(2, 3, 4)]),
    Case("pad_13", "Pad", [P(2, 3), I(1, 0, 2, 2)], opset=13),
    Case("pad_18_axes", "Pad", [P(2, 3, 4), I(1, 2), F(0.5), I(2)], opset=18),
    Case("pad_10", "Pad", [P(2, 3)], {"pads": [0, 1, 1, 2]}, opset=10),
    Case("reducemean_13", "ReduceMean", [P(2, 3, 4)], {"axes": [0, 2], "keepdims": 0}, opset=13),
    Case("reducemean_18", "ReduceMean", [P(2, 3, 4), I(1)], opset=18),
    Case("reducesum_13", "ReduceSum", [P(2, 3, 4), I(-1)], {"keepdims": 1}, opset=13),
    Case("reducesum_all", "ReduceSum", [P(2, 3, 4)], {"keepdims": 0}, opset=13),
    Case("reducesum_11", "ReduceSum", [P(2, 3, 4)], {"axes": [1]}, opset=11),
    # recurrent
    Case("lstm_full", "LSTM", [P(4, 2, 3), P(1, 16, 3), P(1, 16, 4), P(1, 32), None, P(1, 2, 4), P(1, 2, 4), P(1, 12)],
         {"hidden_size": 4}, n_out=3),
    Case("lstm_reverse_y", "LSTM", [P(5, 3, 2), P(1, 12, 2), P(1, 12, 3)], {"hidden_size": 3, "direction": "reverse"},
         n_out=3, use=[0]),
    Case("lstm_bidir", "LSTM", [P(3, 2, 3), P(2, 12, 3), P(2, 12, 3), P(2, 24), None, P(2, 2, 3)],
         {"hidden_size": 3, "direction": "bidirectional"}, n_out=3, use=[0, 1, 2]),
    Case("lstm_yh_only", "LSTM", [P(4, 1, 2), P(1, 8, 2), P(1, 8, 2), P(1, 16)], {"hidden_size": 2}, n_out=2, use=[1]),
    Case("gru_full", "GRU", [P(4, 2, 3), P(1, 12, 3), P(1, 12, 4), P(1, 24), None, P(1, 2, 4)], {"hidden_size": 4}, n_out=2),
    Case("gru_lbr_reverse_y", "GRU", [P(5, 3, 2), P(1, 9, 2), P(1, 9, 3), P(1, 18)],
         {"hidden_size": 3, "direction": "reverse", "linear_before_reset": 1}, n_out=2, use=[0]),
    Case("gru_lbr_bidir", "GRU", [P(3, 2, 3), P(2, 9, 3), P(2, 9, 3), P(2, 18), None, P(2, 2, 3)],
         {"hidden_size": 3, "direction": "bidirectional", "linear_before_reset": 1}, n_out=2),
    Case("gru_bidir_yh_only", "GRU", [P(4, 1, 2), P(2, 6, 2), P(2, 6, 2)], {"hidden_size": 2, "direction": "bidirectional"},
         n_out=2, use=[1]),
    Case("rnn_full", "RNN", [P(4, 2, 3), P(1, 4, 3), P(1, 4, 4), P(1, 8), None, P(1, 2, 4)], {"hidden_size": 4}, n_out=2),
    Case("rnn_reverse_y", "RNN", [P(5, 3, 2), P(1, 3, 2), P(1, 3, 3)], {"hidden_size": 3, "direction": "reverse"}),
    Case("rnn_relu_bidir", "RNN", [P(3, 2, 3), P(2, 3, 3), P(2, 3, 3), P(2, 6), None, P(2, 2, 3)],
         {"hidden_size": 3, "direction": "bidirectional", "activations": ["Relu", "Relu"]}, n_out=2),
]


# The reference implementation computes Erf in float32 and ignores the opset < 13 (coerced
# to 2-D) semantics of Softmax/LogSoftmax; these replacements are exact in double.
class Erf(OpRun):
    op_domain = ""

    def _run(self, x):
        return (np.vectorize(math.erf, otypes=[np.float64])(x).astype(x.dtype),)


class Gelu(OpRun):
    op_domain = ""

    def _run(self, x, approximate="none"):
        if approximate == "tanh":
            return (0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),)
        return (0.5 * x * (1 + np.vectorize(math.erf, otypes=[np.float64])(x / math.sqrt(2))),)


def legacy_softmax(x, axis, log):
    shape = x.shape
    a = axis if axis >= 0 else axis + x.ndim
    x2 = x.reshape(int(np.prod(shape[:a], dtype=np.int64)), -1)
    t = x2 - x2.max(axis=1, keepdims=True)
    y = t - np.log(np.exp(t).sum(axis=1, keepdims=True)) if log else np.exp(t) / np.exp(t).sum(axis=1, keepdims=True)
    return y.reshape(shape)


class Softmax(OpRun):
    op_domain = ""

    def _run(self, x, axis=None):
        return (legacy_softmax(x, self.onnx_node.attribute[0].i if self.onnx_node.attribute else 1, False),)


class LogSoftmax(OpRun):
    op_domain = ""

    def _run(self, x, axis=None):
        return (legacy_softmax(x, self.onnx_node.attribute[0].i if self.onnx_node.attribute else 1, True),)


class RNN(RNN_14):
    """The reference RNN knows Tanh and Affine; torch's nonlinearity='relu' exports Relu."""

    def choose_act(self, name, alpha, beta):
        if name in ("Relu", "relu"):
            return lambda x: np.maximum(x, 0)
        return super().choose_act(name, alpha, beta)


class ConvTranspose(RefConvTranspose):
    """The reference slices a grouped ConvTranspose's weights by output channels (right only
    when C_in == C_out); here each group's input channels and weight rows, run with group 1."""

    def _run(self, X, W, B=None, group=None, **kw):
        g = group or 1
        if g == 1:
            return super()._run(X, W, B, group=1, **kw)
        ci, co = X.shape[1] // g, W.shape[1]
        ys = [super(ConvTranspose, self)._run(X[:, i * ci:(i + 1) * ci], W[i * ci:(i + 1) * ci],
                                              None if B is None else B[i * co:(i + 1) * co], group=1, **kw)[0]
              for i in range(g)]
        return (np.concatenate(ys, axis=1),)


def evaluator(model, opset):
    return ReferenceEvaluator(model, new_ops=[Erf, Gelu, RNN, ConvTranspose] + ([Softmax, LogSoftmax] if opset < 13 else []))


def build(case, rng):
    """Returns (model with parameters as initializers, the same with parameters as inputs,
    {param: array})."""
    nodes, inits, params, in_names = [], [], {}, []
    for k, spec in enumerate(case.inputs):
        if spec is None:
            in_names.append("")
            continue
        name = f"x{k}"
        in_names.append(name)
        if spec[0] == "p":
            _, shape, lo, hi = spec
            params[name] = rng.uniform(lo, hi, size=shape).astype(np.float64)
        else:
            nodes.append(helper.make_node("Constant", [], [name], value=numpy_helper.from_array(spec[1], name)))
    outs = [f"y{k}" for k in range(case.n_out)]
    nodes.append(helper.make_node(case.op, in_names, outs, **case.attrs))
    terms = []
    for k in case.use:
        r = f"r{k}"
        nodes.append(helper.make_node("Mul", [outs[k], r], [f"m{k}"]))
        nodes.append(helper.make_node("ReduceSum", [f"m{k}"], [f"s{k}"], keepdims=0))
        terms.append(f"s{k}")
    nodes.append(helper.make_node("Sum", terms, ["loss"]) if len(terms) > 1 else helper.make_node("Identity", terms, ["loss"]))
    out = [helper.make_tensor_value_info("loss", D, [])]
    opsets = [helper.make_opsetid("", case.opset)]

    # output shapes for the random weights R_k: run the op once
    probe = helper.make_model(helper.make_graph(
        [n for n in nodes if n.op_type == "Constant"] + [nodes[len([n for n in nodes if n.op_type == "Constant"])]], "probe",
        [helper.make_tensor_value_info(p, D, list(a.shape)) for p, a in params.items()],
        [helper.make_tensor_value_info(o, D, None) for o in outs]), opset_imports=opsets)
    ys = evaluator(probe, case.opset).run(None, params)
    rs = {f"r{k}": rng.uniform(-1, 1, size=np.shape(ys[k])).astype(np.float64) for k in case.use}

    with_inits = helper.make_graph(nodes, case.name, [], out,
                                   [numpy_helper.from_array(a, n) for n, a in list(params.items()) + list(rs.items())])
    m_onnxc = helper.make_model(with_inits, opset_imports=opsets)
    all_params = dict(params)
    all_params.update(rs)
    as_inputs = helper.make_graph(nodes, case.name, [helper.make_tensor_value_info(n, D, list(a.shape)) for n, a in all_params.items()],
                                  out)
    m_ref = helper.make_model(as_inputs, opset_imports=opsets)
    return m_onnxc, m_ref, all_params


def central_diff(ref, params):
    f = lambda p: float(ref.run(None, p)[0])
    loss = f(params)
    grads = {}
    for name, a in params.items():
        g = np.zeros_like(a)
        for i in range(a.size):
            h = 1e-6 * max(1.0, abs(a.flat[i]))
            p = {k: v.copy() for k, v in params.items()}
            p[name].flat[i] = a.flat[i] + h
            up = f(p)
            p[name].flat[i] = a.flat[i] - h
            down = f(p)
            g.flat[i] = (up - down) / (2 * h)
        grads[name] = g
    return loss, grads


def write_case(root, case, rng):
    m_onnxc, m_ref, params = build(case, rng)
    loss, grads = central_diff(evaluator(m_ref, case.opset), params)
    d = os.path.join(root, case.name)
    ds = os.path.join(d, "test_data_set_0")
    os.makedirs(ds)
    onnx.save(m_onnxc, os.path.join(d, "model.onnx"))
    with open(os.path.join(d, "onnxc_flags.txt"), "w") as fh:
        fh.write("--gradients --loss output:loss\n")

    def save(k, arr, name):
        with open(os.path.join(ds, f"output_{k}.pb"), "wb") as fh:
            fh.write(numpy_helper.from_array(np.array(arr, dtype=np.float64), name).SerializeToString())

    save(0, loss, "loss")
    for k, t in enumerate(m_onnxc.graph.initializer):
        save(k + 1, grads[t.name], t.name + "_grad")


def cli_checks(onnxc, work):
    """User errors of --gradients/--loss/--freeze/--train: exit status 1 and one clear line."""
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("Sin", ["h"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
                          [numpy_helper.from_array(np.ones((3, 4), np.float32), "w")])
    path = os.path.join(work, "sin.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    checks = [
        (["--gradients", "--loss", "mse:y"], "node 'Sin"),
        (["--gradients", "--loss", "mse:y"], "no gradient rule for op Sin"),
        (["--gradients", "--loss", "mse:h", "--freeze", "w"], "no trainable initializer"),
        (["--gradients", "--loss", "mse:h", "--freeze", "q"], "no initializer named 'q'"),
        (["--gradients", "--loss", "hinge:h"], "unknown kind 'hinge'"),
        (["--gradients", "--loss", "mse:nope"], "no value named 'nope'"),
        (["--gradients"], "needs --loss"),
        (["--loss", "mse"], "need --gradients"),
        (["--gradients", "--loss", "output:y"], "must have one element"),
    ]
    # --train runs inference in eval mode: a model that reads BatchNormalization's running statistics
    bn = helper.make_graph([helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"],
                                             training_mode=1)], "bn",
                           [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                           [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3]),
                            helper.make_tensor_value_info("rm", TensorProto.FLOAT, [3])],
                           [numpy_helper.from_array(np.full(3, k, np.float32), n) for k, n in enumerate("sbmv")])
    bn_path = os.path.join(work, "bn.onnx")
    onnx.save(helper.make_model(bn, opset_imports=[helper.make_opsetid("", 15)]), bn_path)
    checks = [(path, a, w) for a, w in checks] + [
        (bn_path, ["--train", "--loss", "mse:y", "--optimizer", "sgd:lr=0.1"], "reads its statistics output 'rm'")]
    failed = 0
    for path, args, want in checks:
        p = subprocess.run([onnxc, path, "-o", os.path.join(work, "m.c")] + args, capture_output=True, text=True, timeout=30)
        lines = p.stderr.splitlines()
        ok = p.returncode == 1 and len(lines) == 1 and want in lines[0] and lines[0].startswith("onnxc: error: ")
        print(f"{'PASS' if ok else 'FAIL'} cli {' '.join(args)}: {p.stderr.strip()!r}")
        failed += not ok
    p = subprocess.run([onnxc, checks[0][0], "-o", os.path.join(work, "m.c"), "--gradients", "--loss", "mse:h"],
                       capture_output=True, text=True)
    ok = p.returncode == 0
    print(f"{'PASS' if ok else 'FAIL'} cli --gradients --loss mse:h: {p.stderr.strip()!r}")
    return failed + (not ok)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("-k", "--filter", default=None)
    ap.add_argument("--keep-cases", default=None, help="write the cases here and keep them")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    root = args.keep_cases or tempfile.mkdtemp(prefix="onnxc_gradcheck_")
    os.makedirs(root, exist_ok=True)
    try:
        for i, case in enumerate(CASES):
            if args.filter and not re.search(args.filter, case.name):
                continue
            if os.path.exists(os.path.join(root, case.name)):
                shutil.rmtree(os.path.join(root, case.name))
            write_case(root, case, np.random.default_rng(100 + i))
        bad = 0 if args.filter else cli_checks(os.path.join(os.path.abspath(args.build), "onnxc"), root)
        rc = subprocess.call([sys.executable, RUN, "--build", args.build, root, "--max-rel-err", "1e-6", "--require-all",
                              "-j", str(args.jobs)])
        rc = rc or (1 if bad else 0)
    finally:
        if not args.keep_cases:
            shutil.rmtree(root, ignore_errors=True)
    sys.exit(rc)


if __name__ == "__main__":
    main()
