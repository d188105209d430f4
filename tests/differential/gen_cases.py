#!/usr/bin/env python3
"""Random one-op (and a few fused two- and three-op) ONNX models checked against ONNX Runtime.

For every op family a case generator draws a valid model (shapes, attributes, element types,
which inputs are weights and which are run-time inputs) from a seeded numpy generator, draws
the inputs, runs ONNX Runtime (CPU, one thread, graph optimizations off) for the reference
outputs, and writes the case in the ONNX backend-test layout that tests/conformance/run.py
reads:

    OUT/<family>_<NNN>/model.onnx
    OUT/<family>_<NNN>/test_data_set_0/input_K.pb, output_K.pb
    OUT/<family>_<NNN>/case.txt        one line: what was drawn (also the model's doc_string)

Case K of family F depends only on (seed, F, K): raising --cases keeps the earlier cases, and
adding a family changes no other family's cases.

Every model passes onnx.checker (full check) before it is run, so a drawn configuration that the
spec forbids is a generator bug, not an onnxc failure.  Configurations where ONNX Runtime is
known to differ from the ONNX spec, or where the spec leaves the result open, are not drawn;
each such exclusion is commented where the generator avoids it (and listed in README.md).

usage: gen_cases.py OUT --seed S --cases N [-k FAMILY_REGEX] [--list]
"""
import argparse
import math
import os
import re
import shutil
import zlib
from fractions import Fraction

import ml_dtypes
import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper, numpy_helper

F32, F16, F64, BF16 = np.float32, np.float16, np.float64, "bfloat16"
I8, U8, I16, U16, I32, U32, I64, U64, BOOL = (np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32,
                                              np.int64, np.uint64, np.bool_)
ELEM = {F32: TP.FLOAT, F16: TP.FLOAT16, F64: TP.DOUBLE, BF16: TP.BFLOAT16, I8: TP.INT8, U8: TP.UINT8,
        I16: TP.INT16, U16: TP.UINT16, I32: TP.INT32, U32: TP.UINT32, I64: TP.INT64, U64: TP.UINT64,
        BOOL: TP.BOOL}
DT_NAME = {F32: "f32", F16: "f16", F64: "f64", BF16: "bf16", I8: "i8", U8: "u8", I16: "i16", U16: "u16",
           I32: "i32", U32: "u32", I64: "i64", U64: "u64", BOOL: "bool"}
FLOATS = (F32, F16, F64)
# element types numpy (and so ORT's Python API) has no native type for: ORT's outputs of these
# are widened exactly by an appended Cast (see reference_model) and narrowed back with ml_dtypes
EXOTIC = {TP.BFLOAT16: (ml_dtypes.bfloat16, TP.FLOAT), TP.FLOAT8E4M3FN: (ml_dtypes.float8_e4m3fn, TP.FLOAT),
          TP.FLOAT8E4M3FNUZ: (ml_dtypes.float8_e4m3fnuz, TP.FLOAT), TP.FLOAT8E5M2: (ml_dtypes.float8_e5m2, TP.FLOAT),
          TP.FLOAT8E5M2FNUZ: (ml_dtypes.float8_e5m2fnuz, TP.FLOAT), TP.INT4: (ml_dtypes.int4, TP.INT8),
          TP.UINT4: (ml_dtypes.uint4, TP.UINT8)}


class Skip(Exception):
    """The drawn configuration is one the generator must not use; draw again."""


def bf16_bits(a):
    """float32 array -> bfloat16 bit patterns (round to nearest even), as uint16."""
    a = np.asarray(a, dtype=np.float32)
    b = np.ascontiguousarray(a).view(np.uint32).astype(np.uint64)
    b = (b + 0x7FFF + ((b >> 16) & 1)) >> 16
    return b.astype(np.uint16).reshape(a.shape)


def bf16_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def tensor(name, arr, dt):
    """A TensorProto of dt from a numpy array (bfloat16 from float32 values)."""
    if dt == BF16:
        t = TP()
        t.name, t.data_type = name, TP.BFLOAT16
        t.dims.extend(arr.shape)
        t.raw_data = bf16_bits(arr).tobytes()
        return t
    return numpy_helper.from_array(np.asarray(arr, dtype=dt), name)


class Case:
    """One model being drawn: nodes, initializers, run-time inputs and outputs."""

    def __init__(self, rng, opset):
        self.rng, self.opset = rng, opset
        self.nodes, self.inits, self.ins, self.outs, self.desc = [], [], [], [], []
        self.feeds = {}  # name -> array as fed to ORT
        self.vi_in = []
        self.counter = 0
        self.ref_nodes = None  # nodes for ORT when they differ (see reference_model)
        self.pending_residual = None
        self.lenient_check = False  # onnx's shape inference is known wrong for this draw
        self.allow_nonfinite = False  # infinities in the outputs are meant (else: draw again)
        self.flags = ""  # extra onnxc flags for this case (onnxc_flags.txt)

    # -- drawing helpers ---------------------------------------------------------------------
    def choice(self, seq, p=None):
        i = self.rng.choice(len(seq), p=p)
        return seq[i]

    def randint(self, lo, hi):
        """Uniform integer in [lo, hi]."""
        return int(self.rng.integers(lo, hi + 1))

    def chance(self, p):
        return bool(self.rng.random() < p)

    def values(self, shape, dt, lo=-2.0, hi=2.0):
        """Random values of element type dt (floats uniform in [lo, hi), ints uniform in it)."""
        shape = tuple(int(s) for s in shape)
        if dt in FLOATS or dt == BF16:
            v = self.rng.uniform(lo, hi, size=shape).astype(np.float32)
            if dt == BF16:
                return bf16_to_f32(bf16_bits(v))
            return v.astype(dt)
        if dt == BOOL:
            return self.rng.random(size=shape) < 0.5
        info = np.iinfo(dt)
        lo, hi = max(int(lo), info.min), min(int(hi), info.max)
        return self.rng.integers(lo, hi + 1, size=shape).astype(dt)

    def note(self, s):
        self.desc.append(s)

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    # -- graph building ----------------------------------------------------------------------
    def input(self, arr, dt, name=None):
        """A run-time graph input holding arr."""
        name = name or self.fresh("in")
        arr = np.asarray(arr)
        self.vi_in.append(helper.make_tensor_value_info(name, ELEM[dt], list(arr.shape)))
        if dt == BF16:
            raise ValueError("bfloat16 run-time inputs: ORT feeds need a bfloat16 numpy type")
        self.feeds[name] = np.asarray(arr, dtype=dt)
        return name

    def const(self, arr, dt, name=None):
        """An initializer holding arr."""
        name = name or self.fresh("c")
        self.inits.append(tensor(name, np.asarray(arr), dt))
        return name

    def weight(self, arr, dt, p_const, name=None):
        """An initializer with probability p_const, else a run-time input."""
        if self.chance(p_const):
            return self.const(arr, dt, name)
        return self.input(arr, dt, name)

    def node(self, op, inputs, n_out=1, outputs=None, domain="", **attrs):
        outs = outputs or [self.fresh("t") for _ in range(n_out)]
        attrs = {k: v for k, v in attrs.items() if v is not None}
        self.nodes.append(helper.make_node(op, list(inputs), outs, name=self.fresh(op.lower() + "_"),
                                           domain=domain, **attrs))
        return outs[0] if len(outs) == 1 else outs

    def output(self, name):
        if name:
            self.outs.append(name)

    def final(self, op, inputs, n_out=1, **attrs):
        """A node whose n_out outputs are all graph outputs."""
        ys = self.node(op, inputs, n_out=n_out, **attrs)
        for y in [ys] if n_out == 1 else ys:
            self.output(y)


# ---- the families -----------------------------------------------------------------------------
FAMILIES = {}


def family(name):
    def reg(f):
        FAMILIES[name] = f
        return f
    return reg


def float_dt(c, f16=0.2, f64=0.05):
    return c.choice([F32, F16, F64], p=[1 - f16 - f64, f16, f64])


def conv_out(n, k, s, d, pb, pe):
    return (n + pb + pe - ((k - 1) * d + 1)) // s + 1


def draw_conv_geometry(c, kind):
    """Shapes and attributes of one Conv: returns a dict (x dims, w dims, attrs)."""
    rng = c
    if kind == "generic":
        nsp = rng.choice([1, 2, 2, 2, 3])
        group = rng.choice([1, 1, 2, 3])
        cg, mg = rng.randint(1, 4), rng.randint(1, 4)
        n = rng.choice([1, 1, 2])
        size_hi = 9 if nsp < 3 else 6
        ks = [rng.randint(1, 4) for _ in range(nsp)]
        ss = [rng.choice([1, 1, 2, 3]) for _ in range(nsp)]
        ds = [rng.choice([1, 1, 1, 2]) for _ in range(nsp)]
        sp = [rng.randint(1, size_hi) for _ in range(nsp)]
        pads = [rng.randint(0, 2) for _ in range(2 * nsp)]
    elif kind == "depthwise":  # onnxc_dw2d: one input channel per group, < 4 outputs each
        nsp, n = rng.choice([1, 2, 2, 2]), rng.choice([1, 1, 2])
        cg, group = 1, rng.randint(1, 24)
        mg = rng.choice([1, 1, 1, 2, 3])
        k = rng.choice([3, 3, 5, 7])
        ks = [k] * nsp if rng.chance(0.7) else [rng.randint(1, 7) for _ in range(nsp)]
        ss = [rng.choice([1, 1, 2])] * nsp if rng.chance(0.7) else [rng.randint(1, 3) for _ in range(nsp)]
        ds = [rng.choice([1, 1, 1, 2])] * nsp
        wide = rng.chance(0.4)  # rows of several 16-column vectors
        sp = [rng.randint(3, 14) for _ in range(nsp)]
        if wide:
            sp[-1] = rng.randint(15, 40)
        if rng.chance(0.6):
            pads = [(ks[i % nsp] - 1) * ds[i % nsp] // 2 for i in range(2 * nsp)]
        else:
            pads = [rng.randint(0, 3) for _ in range(2 * nsp)]
    elif kind == "same":  # stride 1, output of the input's size: onnxc_conv_same
        nsp, n = rng.choice([1, 2, 2]), rng.choice([1, 1, 2])
        group = rng.choice([1, 1, 2])
        cg, mg = rng.randint(1, 20), rng.randint(1, 20)
        ks = [rng.choice([1, 3, 3, 5, 7]) for _ in range(nsp)]
        if all(k == 1 for k in ks):
            ks[-1] = 3
        ss = [1] * nsp
        ds = [rng.choice([1, 1, 2]) for _ in range(nsp)]
        sp = [rng.randint(2, 24) for _ in range(nsp)]
        pads = [(ks[i % nsp] - 1) * ds[i % nsp] // 2 for i in range(2 * nsp)]
    elif kind == "im2col":  # strided / unpadded 2-D convs on bigger planes: im2col tiles
        nsp, n = 2, rng.choice([1, 2])
        group = rng.choice([1, 1, 2])
        cg, mg = rng.randint(1, 16), rng.randint(1, 24)
        k = rng.choice([2, 3, 3, 5])
        ks = [k, k] if rng.chance(0.8) else [rng.randint(1, 5), rng.randint(1, 5)]
        ss = [rng.choice([1, 2, 2])] * 2
        ds = [1, 1] if rng.chance(0.8) else [2, 2]
        sp = [rng.randint(6, 40), rng.randint(6, 40)]
        pads = [rng.randint(0, ks[i % 2] // 2) for i in range(4)]
    elif kind == "winograd":  # onnxc's F(2x2,3x3) path: 3x3 s1 p1, >= 32 channels per group
        nsp, n = 2, rng.choice([1, 1, 2])
        group = rng.choice([1, 1, 2])
        cg, mg = rng.choice([32, 33, 40]), rng.choice([32, 35, 48])
        ks, ss, ds = [3, 3], [1, 1], [1, 1]
        sp = [rng.randint(2, 14), rng.randint(2, 14)]
        if sp[0] * sp[1] < 16:
            sp[1] = rng.randint(8, 14)
        pads = [1, 1, 1, 1]
    elif kind == "stem":  # few input channels, rows of >= 16 outputs: onnxc_conv_sc on AVX-512
        nsp, n, group = 2, rng.choice([1, 1, 2]), 1
        cg, mg = rng.randint(1, 4), rng.randint(1, 40)
        k = rng.choice([3, 3, 5, 7])
        ks = [k, k] if rng.chance(0.8) else [rng.randint(1, 7), rng.randint(1, 7)]
        ss = [rng.choice([1, 2, 2])] * 2
        ds = [1, 1]
        sp = [rng.randint(ks[0], 40), rng.randint(16 * ss[1] + ks[1], 120)]
        pads = [rng.randint(0, ks[i % 2] // 2) for i in range(4)]
    elif kind == "bigk":  # reduction dim over the 128-deep k blocks of the packed GEMM
        nsp, n, group = 2, 1, 1
        cg, mg = rng.randint(15, 40), rng.randint(1, 20)
        k = rng.choice([3, 3, 5])
        ks, ss, ds = [k, k], [rng.choice([1, 2])] * 2, [1, 1]
        sp = [rng.randint(k, 10), rng.randint(k, 10)]
        pads = [rng.randint(0, k // 2) for _ in range(4)]
    else:  # pointwise (1x1): a GEMM on the input when stride 1
        nsp, n = rng.choice([1, 2, 2]), rng.choice([1, 2])
        group = rng.choice([1, 1, 1, 2])
        cg, mg = rng.randint(1, 150), rng.randint(1, 64)
        ks, ss, ds = [1] * nsp, [rng.choice([1, 1, 2])] * nsp, [1] * nsp
        sp = [rng.randint(1, 12) for _ in range(nsp)]
        if rng.chance(0.4):
            # bigger planes with 16 or more channels: columns past the last whole 16-column
            # vector go through onnxc_sgemm_ct (rows in the lanes) on AVX-512
            mg = rng.randint(16, 64)
            sp = [rng.randint(9, 20) for _ in range(nsp)]
        pads = [0] * (2 * nsp)
    auto_pad = "NOTSET"
    if kind in ("generic", "depthwise", "same") and rng.chance(0.3):
        auto_pad = rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"])
        if auto_pad != "VALID" and any(d != 1 for d in ds):
            ds = [1] * nsp  # ORT rejects SAME_* with dilations ("Dilation not supported")
    outs = []
    for i in range(nsp):
        keff = (ks[i] - 1) * ds[i] + 1
        if auto_pad == "VALID":
            o = (sp[i] - keff) // ss[i] + 1
        elif auto_pad.startswith("SAME"):
            o = -(-sp[i] // ss[i])
        else:
            o = conv_out(sp[i], ks[i], ss[i], ds[i], pads[i], pads[nsp + i])
        if o < 1:
            raise Skip()
        outs.append(o)
    attrs = {"group": group if group != 1 or rng.chance(0.5) else None}
    if any(s != 1 for s in ss) or rng.chance(0.3):
        attrs["strides"] = ss
    if any(d != 1 for d in ds) or rng.chance(0.3):
        attrs["dilations"] = ds
    if auto_pad != "NOTSET":
        attrs["auto_pad"] = auto_pad
    elif any(pads) or rng.chance(0.3):
        attrs["pads"] = pads
    if rng.chance(0.5):
        attrs["kernel_shape"] = ks
    return dict(n=n, c=cg * group, m=mg * group, cg=cg, sp=sp, ks=ks, attrs=attrs, nsp=nsp, out=outs,
                desc=f"{kind} x[{n},{cg * group},{','.join(map(str, sp))}] w[{mg * group},{cg},"
                     f"{','.join(map(str, ks))}] {attrs}")


def add_conv(c, dt, kind, p_wconst=0.85, bias=None):
    g = draw_conv_geometry(c, kind)
    x = c.input(c.values([g["n"], g["c"]] + g["sp"], dt), dt, "x")
    fan = g["cg"] * int(np.prod(g["ks"]))
    w = c.weight(c.values([g["m"], g["cg"]] + g["ks"], dt, -1.5 / math.sqrt(fan), 1.5 / math.sqrt(fan)), dt,
                 p_wconst, "w")
    ins = [x, w]
    if bias if bias is not None else c.chance(0.7):
        ins.append(c.weight(c.values([g["m"]], dt), dt, p_wconst, "b"))
    c.note(g["desc"] + (" +bias" if len(ins) == 3 else "") + f" w={'const' if w not in c.feeds else 'input'}")
    return c.node("Conv", ins, **g["attrs"]), g


CONV_KINDS = ["generic", "generic", "depthwise", "depthwise", "same", "im2col", "winograd", "bigk", "pointwise", "stem"]


@family("conv")
def g_conv(c):
    dt = float_dt(c, 0.2, 0.0)
    kind = c.choice(CONV_KINDS)
    y, _ = add_conv(c, dt, kind)
    c.output(y)
    return dt


@family("convt")
def g_convt(c):
    """2-D convolutions of >= 16 channels on small output planes (<= 256 pixels): onnxc_conv_t
    (output channels in the lanes, a zero-padded input copy in scratch or, with little headroom,
    bands of output rows on the stack), any kernel size, strides, dilations, asymmetric pads,
    output channels that split into panels of 1-3 vectors (the last one partial), a bias, a residual
    and an activation."""
    c.opset = 14
    dt = F32
    n = c.choice([1, 1, 2])
    cg, mg = c.randint(16, 40), c.choice([16, 24, 32, 40, 48, 64, 80, 100])
    kh, kw = c.randint(1, 5), c.randint(1, 5)
    if kh * kw == 1:
        kw = 3
    sh, sw = c.choice([1, 1, 2, 3]), c.choice([1, 1, 2, 3])
    dh, dw = c.choice([1, 1, 2]), c.choice([1, 1, 2])
    pads = [c.randint(0, kh - 1), c.randint(0, kw - 1), c.randint(0, kh - 1), c.randint(0, kw - 1)]
    h, w = c.randint((kh - 1) * dh + 1, 20), c.randint((kw - 1) * dw + 1, 20)
    oh = (h + pads[0] + pads[2] - (kh - 1) * dh - 1) // sh + 1
    ow = (w + pads[1] + pads[3] - (kw - 1) * dw - 1) // sw + 1
    if oh * ow > 256:
        raise Skip()
    x = c.input(c.values([n, cg, h, w], dt), dt, "x")
    xr = c.node("Relu", [x])
    fan = cg * kh * kw
    wt = c.const(c.values([mg, cg, kh, kw], dt, -1.5 / math.sqrt(fan), 1.5 / math.sqrt(fan)), dt, "w")
    ins = [xr, wt] + ([c.const(c.values([mg], dt), dt, "b")] if c.chance(0.7) else [])
    y = c.node("Conv", ins, pads=pads, strides=[sh, sw], dilations=[dh, dw])
    desc = f"convt x[{n},{cg},{h},{w}] w[{mg},{cg},{kh},{kw}] s{sh}x{sw} d{dh}x{dw} pads{pads}" + (" +bias" if len(ins) == 3 else "")
    if c.chance(0.4):
        y = c.node("Add", [y, c.input(c.values([n, mg, oh, ow], dt), dt, "r")])
        desc += " +residual"
    act = c.choice([None, "Relu", "Sigmoid", "Clip"])
    if act == "Clip":
        y = c.node("Clip", [y, c.const(np.array(-0.5, np.float32), dt, "lo"), c.const(np.array(0.5, np.float32), dt, "hi")])
    elif act:
        y = c.node(act, [y])
    if act:
        desc += " +" + act.lower()
    c.note(desc)
    c.flags = "--scratch-headroom " + str(c.choice([1000, 300, 0]))
    c.output(y)


@family("winograd")
def g_winograd(c):
    """3x3 stride-1 pad-1 convolutions that read a tensor of the arena (a Relu in front) and get
    scratch headroom: the Winograd kernels themselves (onnxc_wino23 on small planes, onnxc_wino43
    on planes of >= 16 4x4 tiles, in blocks of tile rows and of output channels as the scratch
    allows; with headroom 0 the direct forms), with a residual Add accumulated in place."""
    c.opset = 14
    dt = F32
    n = c.choice([1, 1, 2])
    cg, mg = c.randint(16, 72), c.randint(16, 72)
    h, w = c.randint(3, 44), c.randint(3, 44)
    if h * w < 16:
        w = c.randint(8, 20)
    x = c.input(c.values([n, cg, h, w], dt), dt, "x")
    xr = c.node("Relu", [x])
    fan = cg * 9
    wt = c.const(c.values([mg, cg, 3, 3], dt, -1.5 / math.sqrt(fan), 1.5 / math.sqrt(fan)), dt, "w")
    ins = [xr, wt] + ([c.const(c.values([mg], dt), dt, "b")] if c.chance(0.7) else [])
    y = c.node("Conv", ins, pads=[1, 1, 1, 1], kernel_shape=[3, 3] if c.chance(0.5) else None)
    desc = f"winograd x[{n},{cg},{h},{w}] w[{mg},{cg},3,3]" + (" +bias" if len(ins) == 3 else "")
    if c.chance(0.6):
        r = c.input(c.values([n, mg, h, w], dt), dt, "r")
        if c.chance(0.7):  # a residual in the arena: the conv's output may take its buffer (acc)
            r = c.node("Relu", [r])
            desc += " +residual(arena)"
        else:
            desc += " +residual"
        y = c.node("Add", [y, r] if c.chance(0.5) else [r, y])
    if c.chance(0.5):
        y = c.node("Relu", [y])
        desc += " +relu"
    if c.chance(0.7):  # the conv's output in the arena too (a graph output cannot take the residual's buffer)
        y = c.node("Transpose", [y], perm=[0, 1, 3, 2])
        desc += " +transpose"
    c.note(desc)
    c.flags = "--scratch-headroom " + str(c.choice([1000, 1000, 300, 100, 40, 0]))
    c.output(y)
    return dt


@family("stem")
def g_stem(c):
    """Convolutions of few input channels on wide rows (the stems: onnxc_conv_sc on AVX-512
    hosts, im2col elsewhere), sometimes over a 7x7 / 4-channel reduction longer than one packed
    k block, with a fused residual and activation, and under scratch caps down to none (the band
    buffer on the stack)."""
    c.opset = 14
    dt = F32
    y, g = add_conv(c, dt, "stem", p_wconst=1.0)
    desc = ""
    if c.chance(0.4):
        r = c.input(c.values([g["n"], g["m"]] + g["out"], dt), dt, "r")
        y = c.node("Add", [y, r] if c.chance(0.5) else [r, y])
        desc += " +residual"
    if c.chance(0.7):
        act = c.choice(FUSE_ACTS)
        y = act_tail(c, y, act)
        desc += " +" + act
    if c.chance(0.5):  # the output in the arena too
        y = c.node("Transpose", [y], perm=[0, 1, 3, 2])
        desc += " +transpose"
    c.note(desc)
    c.flags = "--scratch-headroom " + str(c.choice([1000, 1000, 100, 0]))
    c.output(y)
    return dt


@family("convpool")
def g_convpool(c):
    """A convolution whose output only a MaxPool reads (the stems of ResNet-18, SqueezeNet,
    ShuffleNetV2): onnxc fuses the two (ConvPool: the convolution in bands of rows the pooling
    reads, by onnxc_conv_sc on AVX-512 or im2col tiles), with a fused activation, ceil mode and
    pads, under scratch caps."""
    c.opset = c.choice([14, 14, 22])
    dt = F32
    y, g = add_conv(c, dt, c.choice(["stem", "stem", "im2col"]), p_wconst=1.0)
    desc = ""
    if c.chance(0.7):
        act = c.choice(FUSE_ACTS)
        y = act_tail(c, y, act)
        desc += " +" + act
    oh, ow = g["out"]
    k = [c.choice([2, 3, 3]), c.choice([2, 3, 3])]
    s = [c.choice([1, 2, 2]), c.choice([1, 2, 2])]
    pads = [c.randint(0, (k[i % 2] - 1) // 2) for i in range(4)]
    ceil_mode = 1 if c.chance(0.4) else 0
    if oh + pads[0] + pads[2] < k[0] or ow + pads[1] + pads[3] < k[1]:
        raise Skip()
    attrs = dict(kernel_shape=k, strides=s, pads=pads)
    if ceil_mode:
        attrs["ceil_mode"] = 1
    y = c.node("MaxPool", [y], **attrs)
    desc += f" +MaxPool {attrs}"
    c.note(desc)
    c.flags = "--scratch-headroom " + str(c.choice([1000, 25, 25, 0]))
    c.output(y)
    return dt


def dw_conv_act(c, y, dt, ch, kh, kw, s, d, ph, pw, chain, desc):
    """A depthwise Conv of ch channels on y (constant weights, a bias mostly), then an activation
    mostly; their descriptions appended to chain."""
    lim = 1.5 / math.sqrt(kh * kw)
    ins = [y, c.const(c.values([ch, 1, kh, kw], dt, -lim, lim), dt, "wd")]
    if c.chance(0.8):
        ins.append(c.const(c.values([ch], dt), dt, "bd"))
    y = c.node("Conv", ins, group=ch, kernel_shape=[kh, kw], pads=[ph, pw, ph, pw], strides=[s, s],
               dilations=[d, d] if d > 1 else None)
    chain.append(desc)
    if c.chance(0.85):
        act = c.choice(FUSE_ACTS)
        y = act_tail(c, y, act)
        chain.append(act)
    return y


def se_gate(c, y, dt, ch, red, gates):
    """The excitation of a squeeze-and-excitation branch on y (ch channels): GlobalAveragePool,
    1x1 Conv to red channels, Relu or SiLU, 1x1 Conv back to ch, one of gates."""
    sq = c.node("GlobalAveragePool", [y])
    sq = c.node("Conv", [sq, c.const(c.values([red, ch, 1, 1], dt, -1, 1), dt, "ws1"),
                         c.const(c.values([red], dt), dt, "bs1")])
    sq = act_tail(c, sq, c.choice(["Relu", "SiLU"]))
    sq = c.node("Conv", [sq, c.const(c.values([ch, red, 1, 1], dt, -1, 1), dt, "ws2"),
                         c.const(c.values([ch], dt), dt, "bs2")])
    return act_tail(c, sq, c.choice(gates))


@family("convdw")
def g_convdw(c):
    """A stem convolution, the depthwise convolution that alone reads it and the 1x1 projection of
    that (MobileNetV1/V2): onnxc fuses the three when the stem's output is 1 MiB or more and the
    depthwise kernel 3x3 "same" with stride 1 (ConvDw: bands of depthwise output rows; the stem
    by onnxc_conv_sc on AVX-512 or im2col tiles, rows the next band reads again moved up, the
    image's edges as zero rows), with activations and a residual on the projection, under
    scratch caps; some other depthwise shapes, unfused.  A quarter without the projection
    (EfficientNet's stem: ConvDw writes the depthwise output), then a squeeze-and-excitation
    branch mostly (its pooling becomes the node's plane means)."""
    c.opset = c.choice([14, 17])
    dt = F32
    cin, m = c.randint(1, 4), c.randint(4, 40)
    kh, kw = c.choice([(3, 3), (3, 3), (5, 5), (7, 7), (10, 4), (1, 3)])
    s = c.choice([1, 2, 2, 2])  # (stride 1 "same": onnxc_conv_same, unfused)
    ph, pw = kh // 2, kw // 2
    if c.chance(0.3):
        ph, pw = c.randint(0, kh // 2), c.randint(0, kw // 2)
    # a stem output of >= 1 MiB mostly (optimize.c DWBLOCK_MIN_BYTES), some smaller ones unfused
    px = -(-262144 // m) if c.chance(0.9) else c.randint(64, 4096)
    oh = c.randint(max(2, int(math.sqrt(px) / 2)), max(3, int(math.sqrt(px) * 2)))
    ow = max(2, -(-px // oh))
    h, w = (oh - 1) * s + kh - 2 * ph, (ow - 1) * s + kw - 2 * pw
    if h < kh or w < kw or h * w * cin > 2_000_000:
        raise Skip()
    nb = c.choice([1, 1, 1, 2])
    x = c.input(c.values([nb, cin, h, w], dt), dt, "x")
    lim = 1.5 / math.sqrt(cin * kh * kw)
    ins = [x, c.const(c.values([m, cin, kh, kw], dt, -lim, lim), dt, "w")]
    if c.chance(0.8):
        ins.append(c.const(c.values([m], dt), dt, "b"))
    y = c.node("Conv", ins, kernel_shape=[kh, kw], pads=[ph, pw, ph, pw], strides=[s, s])
    chain = [f"Conv {cin}->{m} {kh}x{kw} s{s} pads {ph},{pw} on {h}x{w}"]
    if c.chance(0.85):
        act = c.choice(FUSE_ACTS)
        y = act_tail(c, y, act)
        chain.append(act)
    # mostly the fused form (3x3, stride 1, "same"); the others stay unfused
    k, ds, d, dp = 3, 1, 1, 1
    if c.chance(0.2):
        k, ds, d = c.choice([3, 5]), c.choice([1, 2]), c.choice([1, 1, 2])
        dp = c.randint(0, (k - 1) * d // 2)
    if oh + 2 * dp < (k - 1) * d + 1 or ow + 2 * dp < (k - 1) * d + 1:
        raise Skip()
    y = dw_conv_act(c, y, dt, m, k, k, ds, d, dp, dp, chain, f"DwConv {k}x{k} s{ds} d{d} pads {dp}")
    if c.chance(0.25):
        if c.chance(0.75):
            red = c.randint(1, 8)
            sq = se_gate(c, y, dt, m, red, ["Sigmoid"])
            y = c.node("Mul", [y, sq] if c.chance(0.5) else [sq, y])
            chain.append(f"SE {m}->{red}")
        c.output(y)
        c.note("chain: " + " -> ".join(chain))
        c.flags = "--scratch-headroom " + str(c.choice([1000, 1000, 25, 0]))
        return dt
    co = c.randint(1, 48)
    lim = 1.5 / math.sqrt(m)
    ins = [y, c.const(c.values([co, m, 1, 1], dt, -lim, lim), dt, "wp")]
    if c.chance(0.8):
        ins.append(c.const(c.values([co], dt), dt, "bp"))
    y = c.node("Conv", ins)
    dh, dw_ = (oh + 2 * dp - (k - 1) * d - 1) // ds + 1, (ow + 2 * dp - (k - 1) * d - 1) // ds + 1
    chain.append(f"Conv1x1 {m}->{co} on {dh}x{dw_}")
    if c.chance(0.3):
        r = c.input(c.values([nb, co, dh, dw_], dt), dt, "r")
        y = c.node("Add", [y, r] if c.chance(0.5) else [r, y])
        chain.append("AddResidual")
    if c.chance(0.4):
        act = c.choice(FUSE_ACTS)
        y = act_tail(c, y, act)
        chain.append(act)
    c.output(y)
    c.note("chain: " + " -> ".join(chain))
    c.flags = "--scratch-headroom " + str(c.choice([1000, 1000, 25, 0]))
    return dt


@family("pointwise_wide")
def g_pointwise_wide(c):
    """1x1 convolutions with more output channels than pixels (classifier heads, the late
    layers of MobileNets and SqueezeNet): onnxc_sgemm_t on AVX-512 hosts, and with --threads
    the product cut by rows of the weights (templates/par.h), with a fused residual and
    activation sometimes."""
    c.opset = 14
    dt = F32
    m, cin = c.randint(32, 400), c.randint(1, 300)
    sp = [c.randint(1, 10), c.randint(1, 10)]
    lim = 1.5 / math.sqrt(cin)
    x = c.input(c.values([1, cin] + sp, dt), dt, "x")
    ins = [x, c.const(c.values([m, cin, 1, 1], dt, -lim, lim), dt, "w")]
    if c.chance(0.7):
        ins.append(c.const(c.values([m], dt), dt, "b"))
    y = c.node("Conv", ins)
    desc = f"x[1,{cin},{sp[0]},{sp[1]}] w[{m},{cin},1,1]" + (" +bias" if len(ins) == 3 else "")
    if c.chance(0.3):
        r = c.input(c.values([1, m] + sp, dt), dt, "r")
        y = c.node("Add", [y, r])
        desc += " +residual"
    if c.chance(0.6):
        act = c.choice(FUSE_ACTS)
        y = act_tail(c, y, act)
        desc += " +" + act
    c.note(desc)
    c.output(y)
    return dt


@family("convtranspose")
def g_convtranspose(c):
    dt = float_dt(c, 0.2, 0.0)
    nsp = c.choice([1, 2, 2, 3])
    group = c.choice([1, 1, 2])
    cg, mg = c.randint(1, 4), c.randint(1, 4)
    n = c.choice([1, 2])
    ks = [c.randint(1, 4) for _ in range(nsp)]
    ss = [c.choice([1, 2, 3]) for _ in range(nsp)]
    ds = [c.choice([1, 1, 2]) for _ in range(nsp)]
    sp = [c.randint(1, 6 if nsp < 3 else 4) for _ in range(nsp)]
    attrs = {"group": group if group != 1 or c.chance(0.5) else None, "strides": ss}
    if any(d != 1 for d in ds) or c.chance(0.3):
        attrs["dilations"] = ds
    full = [ss[i] * (sp[i] - 1) + ((ks[i] - 1) * ds[i] + 1) for i in range(nsp)]
    variant = c.choice(["pads", "pads", "output_shape", "same", "valid"])
    if variant == "pads":
        pads = [c.randint(0, (ks[i % nsp] - 1) * ds[i % nsp]) for i in range(2 * nsp)]
        # output_padding < stride (the spec allows < dilation as well; ORT checks stride only)
        op = [c.randint(0, ss[i] - 1) for i in range(nsp)]
        for i in range(nsp):
            if full[i] + op[i] - pads[i] - pads[nsp + i] < 1:
                raise Skip()
        attrs["pads"] = pads
        if any(op) or c.chance(0.2):
            attrs["output_padding"] = op
    elif variant == "output_shape":
        # (with auto_pad SAME_* as well, onnx 1.23's shape inference gets the output rank
        # wrong and the checker rejects the model: only auto_pad NOTSET is drawn)
        # (a total padding beyond the dilated kernel makes onnx's shape inference give up)
        attrs["output_shape"] = [max(1, full[i] - c.randint(0, (ks[i] - 1) * ds[i])) for i in range(nsp)]
    elif variant == "same":
        attrs["auto_pad"] = c.choice(["SAME_UPPER", "SAME_LOWER"])
        if any(full[i] < ss[i] * sp[i] for i in range(nsp)):
            # output in * stride needs a negative total padding: ORT then gives a smaller
            # output than the spec's in * stride; not drawn
            raise Skip()
    else:
        attrs["auto_pad"] = "VALID"
    if c.chance(0.5):
        attrs["kernel_shape"] = ks
    x = c.input(c.values([n, cg * group] + sp, dt), dt, "x")
    w = c.weight(c.values([cg * group, mg] + ks, dt, -0.7, 0.7), dt, 0.8, "w")
    ins = [x, w]
    if c.chance(0.6):
        ins.append(c.weight(c.values([mg * group], dt), dt, 0.8, "b"))
    c.note(f"x[{n},{cg * group},{sp}] w[{cg * group},{mg},{ks}] bias={len(ins) == 3} {attrs}")
    c.output(c.node("ConvTranspose", ins, **attrs))
    return dt


@family("pool")
def g_pool(c):
    kind = c.choice(["MaxPool", "MaxPool", "AveragePool", "AveragePool", "LpPool", "GlobalAveragePool",
                     "GlobalMaxPool", "GlobalLpPool"])
    # (GlobalLpPool-22 has no ORT kernel: GlobalLpPool-2 is drawn)
    opset = {"MaxPool": [8, 11, 12, 22], "AveragePool": [7, 11, 19, 22], "LpPool": [11, 18, 22],
             "GlobalLpPool": [13, 21]}.get(kind, [13, 22])
    c.opset = c.choice(opset)
    dt = float_dt(c, 0.2, 0.0)
    if kind == "MaxPool" and c.opset >= 12 and c.chance(0.2):
        dt = c.choice([I8, U8])
    nsp = c.choice([1, 2, 2, 3])
    n, ch = c.choice([1, 2]), c.randint(1, 5)
    sp = [c.randint(1, 9 if nsp < 3 else 5) for _ in range(nsp)]
    if nsp == 2 and c.chance(0.3):
        sp[-1] = c.randint(16, 40)  # rows of several 16-output vectors (onnxc_maxpool2d)
    x = c.input(c.values([n, ch] + sp, dt, -5, 5) if dt in (I8, U8) else c.values([n, ch] + sp, dt), dt, "x")
    attrs = {}
    if kind.startswith("Global"):
        if kind == "GlobalLpPool" and c.chance(0.7):
            attrs["p"] = c.choice([1, 2, 3])
        c.note(f"{kind} x[{n},{ch},{sp}] {DT_NAME[dt]} {attrs}")
        c.output(c.node(kind, [x], **attrs))
        return dt
    ks = [c.randint(1, min(4, s + 1)) for s in sp]
    has_dil = kind == "MaxPool" and c.opset >= 10 or kind == "AveragePool" and c.opset >= 19 or \
        kind == "LpPool" and c.opset >= 18
    ds = [c.choice([1, 1, 2]) if has_dil else 1 for _ in range(nsp)]
    ss = [c.choice([1, 1, 2, 3]) for _ in range(nsp)]
    # pads smaller than the (dilated) kernel: ORT rejects larger ones
    pads = [c.randint(0, min(2, ks[i % nsp] - 1)) for i in range(2 * nsp)]
    auto_pad = c.choice(["NOTSET"] * 4 + ["SAME_UPPER", "SAME_LOWER", "VALID"])
    ceil = (c.opset >= 10 and kind != "LpPool" or c.opset >= 18) and c.chance(0.4)
    if ceil and auto_pad != "NOTSET":
        ceil = False
    for i in range(nsp):
        keff = (ks[i] - 1) * ds[i] + 1
        if auto_pad == "VALID":
            o = (sp[i] - keff) // ss[i] + 1
        elif auto_pad.startswith("SAME"):
            o = -(-sp[i] // ss[i])
        else:
            span = sp[i] + pads[i] + pads[nsp + i] - keff
            if span < 0:
                raise Skip()
            o = (-(-span // ss[i]) if ceil else span // ss[i]) + 1
            if ceil and (o - 1) * ss[i] >= sp[i] + pads[i]:
                # the last window would start in the end padding: ORT, the reference and onnxc
                # drop it, onnx 1.23's shape inference keeps it (so the full check would
                # reject the true output shape)
                o -= 1
                c.lenient_check = True
        if o < 1:
            raise Skip()
        pb = 0 if auto_pad != "NOTSET" else pads[i]
        if auto_pad.startswith("SAME"):
            total = max(0, (o - 1) * ss[i] + keff - sp[i])
            pb = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
        for j in range(o):
            if not any(0 <= j * ss[i] - pb + t * ds[i] < sp[i] for t in range(ks[i])):
                # a window of padding only: the spec gives no value (ORT: the type's lowest
                # value for MaxPool)
                raise Skip()
        if auto_pad.startswith("SAME") and (ds[i] != 1 or (o - 1) * ss[i] + keff < sp[i]):
            raise Skip()  # ORT rejects the negative total padding of a stride above the kernel
    attrs["kernel_shape"] = ks
    if any(s != 1 for s in ss) or c.chance(0.3):
        attrs["strides"] = ss
    if has_dil and (any(d != 1 for d in ds) or c.chance(0.2)):
        attrs["dilations"] = ds
    if auto_pad != "NOTSET":
        attrs["auto_pad"] = auto_pad
    elif any(pads) or c.chance(0.3):
        attrs["pads"] = pads
    if ceil:
        attrs["ceil_mode"] = 1
    n_out = 1
    if kind == "AveragePool" and c.chance(0.5):
        attrs["count_include_pad"] = 1
    if kind == "LpPool" and c.chance(0.7):
        attrs["p"] = c.choice([1, 2, 3])
    if kind == "MaxPool" and dt in FLOATS and c.chance(0.4):
        n_out = 2
        if c.chance(0.4):
            attrs["storage_order"] = 1
    c.note(f"{kind} x[{n},{ch},{sp}] {DT_NAME[dt]} {attrs} outputs={n_out}")
    c.final(kind, [x], n_out=n_out, **attrs)
    return dt


@family("gemm")
def g_gemm(c):
    c.opset = c.choice([9, 11, 13])
    dt = float_dt(c, 0.2, 0.1)
    m, n = c.choice([c.randint(1, 24), c.randint(1, 60)]), c.choice([c.randint(1, 40), c.randint(40, 130)])
    k = c.choice([c.randint(1, 16), c.randint(17, 140), c.randint(120, 300)])
    ta, tb = c.randint(0, 1), c.randint(0, 1)
    attrs = {"transA": ta or None, "transB": tb or None}
    if c.chance(0.4):
        attrs["alpha"] = c.choice([0.5, -1.25, 2.0])
    if c.chance(0.4):
        attrs["beta"] = c.choice([0.0, 0.5, -2.0])
    a = c.input(c.values([k, m] if ta else [m, k], dt, -1, 1), dt, "a")
    b = c.weight(c.values([n, k] if tb else [k, n], dt, -1, 1), dt, 0.7, "b")
    ins = [a, b]
    cshape = c.choice([None, [n], [1, n], [m, 1], [m, n], [1], [], [1, 1]])
    if cshape is None and c.opset < 11:
        cshape = [m, n]
    if cshape is not None:
        ins.append(c.weight(c.values(cshape, dt), dt, 0.6, "c"))
    c.note(f"M={m} N={n} K={k} {DT_NAME[dt]} C={cshape} {attrs} b={'const' if b not in c.feeds else 'input'}")
    c.output(c.node("Gemm", ins, **attrs))
    return dt


def bcast_pair(c, rank_hi=4, dim_hi=5):
    """Two broadcast-compatible shapes (numpy rules)."""
    r = c.randint(0, rank_hi)
    full = [c.randint(1, dim_hi) for _ in range(r)]
    a = list(full[r - c.randint(0, r):]) if r else []
    b = list(full[r - c.randint(0, r):]) if r else []
    a = [1 if c.chance(0.3) else d for d in a]
    b = [1 if c.chance(0.3) else d for d in b]
    return a, b


@family("matmul")
def g_matmul(c):
    dt = c.choice([F32, F32, F32, F16, F64, I32, I64])
    m, n = c.choice([c.randint(1, 12), c.randint(1, 50)]), c.choice([c.randint(1, 30), c.randint(30, 110)])
    k = c.choice([c.randint(1, 16), c.randint(17, 200)])
    shape = c.choice(["1d1d", "1dnd", "nd1d", "2d", "2d", "batched", "batched"])
    if shape == "1d1d":
        sa, sb = [k], [k]
    elif shape == "1dnd":
        sa, sb = [k], [c.randint(1, 3) for _ in range(c.randint(0, 2))] + [k, n]
    elif shape == "nd1d":
        sa, sb = [c.randint(1, 3) for _ in range(c.randint(0, 2))] + [m, k], [k]
    elif shape == "2d":
        sa, sb = [m, k], [k, n]
    else:
        ba, bb = bcast_pair(c, 3, 4)
        sa, sb = ba + [m, k], bb + [k, n]
    isint = dt in (I32, I64)
    lo, hi = (-4, 4) if isint else (-1, 1)
    a = c.input(c.values(sa, dt, lo, hi), dt, "a")
    b = c.weight(c.values(sb, dt, lo, hi), dt, 0.5 if len(sb) == 2 else 0.3, "b")
    c.note(f"a{sa} b{sb} {DT_NAME[dt]} b={'const' if b not in c.feeds else 'input'}")
    c.output(c.node("MatMul", [a, b]))
    return dt


# -- Resize ------------------------------------------------------------------------------------
def _is_pow2(fr):
    return fr > 0 and fr.numerator & (fr.numerator - 1) == 0 and fr.denominator & (fr.denominator - 1) == 0


def resize_coords(ctm, x, in_w, out_w, scale, roi):
    """Exact rational source coordinate of output index x (scale, roi as Fractions)."""
    if ctm == "align_corners":
        return Fraction(0) if out_w == 1 else Fraction(x * (in_w - 1), out_w - 1)
    if ctm == "asymmetric":
        return x / scale
    if ctm == "pytorch_half_pixel":
        return Fraction(-1, 2) if out_w == 1 else (x + Fraction(1, 2)) / scale - Fraction(1, 2)
    if ctm == "tf_half_pixel_for_nn":
        return (x + Fraction(1, 2)) / scale
    if ctm == "tf_crop_and_resize":
        r0, r1 = roi
        if out_w == 1:
            return (r1 - r0) * (in_w - 1) / 2 + r0 * (in_w - 1)
        return x * (r1 - r0) * (in_w - 1) / (out_w - 1) + r0 * (in_w - 1)
    if ctm == "half_pixel_symmetric":
        adj = Fraction(out_w) / (scale * in_w)
        center = Fraction(in_w, 2)
        return center * (1 - adj) + (x + Fraction(1, 2)) / scale - Fraction(1, 2)
    return (x + Fraction(1, 2)) / scale - Fraction(1, 2)  # half_pixel


@family("resize")
def g_resize(c):
    c.opset = c.choice([10, 11, 13, 18, 19])
    dt = c.choice([F32, F32, F32, F16, U8]) if c.opset >= 11 else F32
    mode = c.choice(["nearest", "linear", "cubic"] if c.opset >= 11 else ["nearest", "linear"])
    if mode != "nearest" and dt == U8:
        # ORT truncates interpolated integers, the reference (and onnxc) rounds; the spec does
        # not say (and ORT's uint8 cubic kernel fails: "Tensor type mismatch"): not drawn
        dt = F32
    ctms = ["half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel", "tf_crop_and_resize"]
    if c.opset >= 19:
        ctms.append("half_pixel_symmetric")
    if c.opset == 11 and mode == "nearest":
        ctms.append("tf_half_pixel_for_nn")
    ctm = c.choice(ctms) if c.opset >= 11 else "asymmetric"
    if mode == "nearest":
        rank = c.randint(1, 4)
        resized = [i for i in range(rank) if c.chance(0.7)] or [rank - 1]
    else:
        # ORT interpolates linear/cubic over the last two axes only (rank 2, or rank 4 with
        # unit scales on N and C; the extra 1-D/3-D forms are not drawn)
        rank = c.choice([2, 4, 4])
        resized = [rank - 2, rank - 1] if c.chance(0.8) else [c.choice([rank - 2, rank - 1])]
    in_dims = [c.randint(1, 3) if i < rank - 2 else c.randint(1, 7) for i in range(rank)]
    for i in resized:
        if mode != "nearest" and in_dims[i] < 2 and c.chance(0.7):
            in_dims[i] = c.randint(2, 7)
    use_axes = c.opset >= 18 and c.chance(0.4)
    axes = resized if use_axes else list(range(rank))
    if use_axes and c.chance(0.3):
        axes = [a - rank for a in axes]
    use_sizes = c.opset >= 11 and c.chance(0.4)
    attrs = {"mode": mode}
    if c.opset >= 11 and (ctm != "half_pixel" or c.chance(0.5)):
        attrs["coordinate_transformation_mode"] = ctm
    scale_choices = [0.5, 0.75, 1.5, 2.0, 3.0, 0.6, 1.7, 2.5, 1.25, 0.4]
    scales = [1.0] * rank
    sizes = list(in_dims)
    kar = "stretch"
    if use_sizes:
        for i in resized:
            sizes[i] = c.randint(1, 2 * in_dims[i] + 2)
        # (keep_aspect_ratio_policy scales every axis in `axes`, all of them without the
        # attribute; ORT interpolates linear/cubic over the last two axes only)
        if c.opset >= 18 and c.chance(0.3) and (use_axes or mode == "nearest"):
            kar = c.choice(["not_larger", "not_smaller"])
            attrs["keep_aspect_ratio_policy"] = kar
            if not use_axes:
                resized = list(range(rank))
        eff = [Fraction(sizes[i], in_dims[i]) for i in range(rank)]
        if kar != "stretch":
            pick = min if kar == "not_larger" else max
            s = pick(eff[i] for i in resized)
            out = list(in_dims)
            for i in resized:
                v = s * in_dims[i]
                if abs(v - math.floor(v) - Fraction(1, 2)) < Fraction(1, 10000):
                    raise Skip()  # round(scale * in) at a tie: float rounding decides
                out[i] = int(math.floor(v + Fraction(1, 2)))
                eff[i] = s
        else:
            out = list(sizes)
    else:
        for i in resized:
            scales[i] = c.choice(scale_choices)
        eff = [Fraction(float(np.float32(s))) for s in scales]
        out = []
        for i in range(rank):
            v = eff[i] * in_dims[i]
            if v != math.floor(v) and v - math.floor(v) > Fraction(9999, 10000):
                raise Skip()  # floor(scale * in) just below an integer: float vs double decides
            out.append(int(math.floor(v)))
    if any(o < 1 for o in out):
        raise Skip()
    if ctm in ("align_corners", "pytorch_half_pixel", "tf_crop_and_resize") and \
            any(eff[i] * in_dims[i] != out[i] for i in resized):
        # with scale * in not an integer, ORT uses the integer output length in these
        # transforms and the ONNX reference (its node tests, and onnxc) the fractional one: ORT
        # fails test_resize_downsample_scales_{linear,cubic}_align_corners.  Not drawn.
        raise Skip()
    if ctm == "tf_crop_and_resize" and any(out[i] == in_dims[i] and eff[i] == 1 for i in resized):
        # ORT ignores the roi (and extrapolation) of an axis that keeps its length
        raise Skip()
    if out == in_dims and (any(eff[i] != 1 for i in resized) or ctm == "tf_crop_and_resize"):
        # ORT copies the input when the output shape equals the input shape, whatever the
        # scales or roi; the spec still samples at x / scale (e.g. scale 1.25 on a length-2 axis)
        raise Skip()
    roi = [(Fraction(0), Fraction(1))] * rank
    roi_vals = None
    if ctm == "tf_crop_and_resize":
        lo = [float(np.float32(c.choice([0.0, 0.1, 0.25, -0.2]))) for _ in axes]
        hi = [float(np.float32(c.choice([1.0, 0.9, 0.6, 1.2]))) for _ in axes]
        roi_vals = lo + hi
        for j, a in enumerate(axes):
            roi[a if a >= 0 else a + rank] = (Fraction(lo[j]), Fraction(hi[j]))
        for i in range(rank):
            if i not in resized:
                roi[i] = (Fraction(0), Fraction(1))
        if roi_vals and not use_axes:
            roi_vals = [float(roi[i][0]) for i in range(rank)] + [float(roi[i][1]) for i in range(rank)]
        if c.chance(0.5):
            attrs["extrapolation_value"] = c.choice([0.0, -1.5, 7.0])
    if mode == "nearest" and c.opset >= 11:
        nm = c.choice(["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"])
        if nm != "round_prefer_floor" or c.chance(0.5):
            attrs["nearest_mode"] = nm
    else:
        nm = "round_prefer_floor" if c.opset >= 11 else "floor"
    if mode == "cubic":
        if c.chance(0.5):
            attrs["cubic_coeff_a"] = c.choice([-0.5, -0.75, -0.6])
        if c.chance(0.4):
            attrs["exclude_outside"] = 1
    if mode != "nearest" and c.opset >= 18 and c.chance(0.3):
        attrs["antialias"] = 1
    if "antialias" in attrs and any(out[i] == in_dims[i] and eff[i] != 1 for i in resized):
        # ORT's antialias kernels resample such an axis differently from the spec's x / scale
        # (e.g. scale 1.25 on a length-2 axis); plain linear/cubic get it right
        raise Skip()
    if ctm == "pytorch_half_pixel" and (mode == "cubic" or "antialias" in attrs) and \
            any(out[i] == 1 for i in resized):
        # an output length of 1: the spec text says x_original = 0, the ONNX reference (and
        # onnxc) -0.5; equal for plain linear, not for cubic or antialias.  Not drawn.
        raise Skip()
    if use_axes:
        if "keep_aspect_ratio_policy" in attrs:
            # ORT ignores keep_aspect_ratio_policy's sizes when axes are negative (it returns
            # the input unchanged): the same axes are drawn non-negative
            axes = [a % rank for a in axes]
        attrs["axes"] = axes
    # Sampling positions at a decision boundary (nearest rounding, tf_crop_and_resize's
    # extrapolation edge) are computed in float by ORT and may land on either side unless the
    # arithmetic is exact; such draws are not used.  Exact-safe: a division by a representable
    # scale (or none at all) whose true result is representable.
    for i in resized:
        scale = eff[i]
        exact_safe = ctm in ("half_pixel", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn") and \
            (not use_sizes or _is_pow2(scale)) or ctm == "align_corners"
        for y in range(out[i]):
            xo = resize_coords(ctm, y, in_dims[i], out[i], scale, roi[i])
            if ctm == "tf_crop_and_resize":
                for edge in (0, in_dims[i] - 1):
                    if abs(xo - edge) < Fraction(1, 10000):
                        raise Skip()
            if mode != "nearest":
                continue
            fr = xo - math.floor(xo)
            for b in ((Fraction(1, 2),) if nm.startswith("round") else (Fraction(0), Fraction(1))):
                if abs(fr - b) < Fraction(1, 10000) and not (fr == b and exact_safe):
                    raise Skip()
    if mode == "nearest" and c.opset < 11:
        # Resize-10 nearest rounds like round_prefer_ceil in ORT but floor in the reference
        # (and onnxc follows the reference); ties are not drawn
        pass
    xv = c.values(in_dims, dt, 0, 255) if dt == U8 else c.values(in_dims, dt)
    x = c.input(xv, dt, "x")
    ins = [x]
    if c.opset == 10:
        ins.append(c.const(np.array(scales, np.float32), F32, "scales"))
    else:
        if roi_vals is not None:
            ins.append(c.const(np.array(roi_vals, np.float32), F32, "roi"))
        elif c.opset == 11 or c.chance(0.3):
            ins.append(c.const(np.zeros([0], np.float32), F32, "roi"))
        else:
            ins.append("")
        if use_sizes:
            sz = [sizes[a] for a in axes] if use_axes else sizes
            if c.opset == 11 or c.chance(0.3):
                ins.append(c.const(np.zeros([0], np.float32), F32, "scales"))
            else:
                ins.append("")
            ins.append(c.const(np.array(sz, np.int64), I64, "sizes"))
        else:
            sc = [scales[a] for a in axes] if use_axes else scales
            ins.append(c.const(np.array(sc, np.float32), F32, "scales"))
    while ins and ins[-1] == "":
        ins.pop()
    c.note(f"x{in_dims} {DT_NAME[dt]} {'sizes=' + str(sizes) if use_sizes else 'scales=' + str(scales)} "
           f"roi={roi_vals} {attrs}")
    c.output(c.node("Resize", ins, **attrs))
    return dt


@family("pad")
def g_pad(c):
    c.opset = c.choice([2, 11, 13, 18, 19, 21])
    dt = c.choice([F32, F32, F16, F64, I32, I64, I8, U8] + ([BOOL] if c.opset >= 13 else []))
    if c.opset == 2:
        # (no float16: ORT's inserted float16->float Cast is invalid under opsets before 6)
        dt = c.choice([F32, F64])
    modes = ["constant", "constant", "reflect", "edge"] + (["wrap"] if c.opset >= 19 else [])
    mode = c.choice(modes)
    rank = c.randint(1, 4)
    dims = [c.randint(1, 6) for _ in range(rank)]
    use_axes = c.opset >= 18 and c.chance(0.4)
    axes = sorted(c.rng.choice(rank, size=c.randint(1, rank), replace=False).tolist()) if use_axes else list(range(rank))
    pads = []
    for side in range(2):
        for a in axes:
            d = dims[a]
            if mode == "reflect":
                p = c.randint(0, d - 1)
            elif mode == "wrap":
                p = c.randint(0, d)
            elif mode == "edge":
                p = c.randint(0, 3)
            else:
                p = c.randint(-min(2, d - 1), 3)
            pads.append(p)
    for j, a in enumerate(axes):
        if dims[a] + pads[j] + pads[len(axes) + j] < 1:
            raise Skip()
    if use_axes and c.chance(0.3):
        axes = [a - rank for a in axes]
    if dt == BOOL:
        xv = c.values(dims, dt)
    elif dt in FLOATS:
        xv = c.values(dims, dt)
    else:
        xv = c.values(dims, dt, -50, 50)
    x = c.input(xv, dt, "x")
    attrs = {"mode": mode if mode != "constant" or c.chance(0.5) else None}
    ins = [x]
    cv = None
    if mode == "constant" and c.chance(0.6):
        cv = {BOOL: True}.get(dt, 1.5 if dt in FLOATS else 7)
    if c.opset == 2:
        attrs["pads"] = pads
        if cv is not None:
            attrs["value"] = float(cv)
    else:
        ins.append(c.weight(np.array(pads, np.int64), I64, 0.85, "pads"))
        if cv is not None or use_axes:
            ins.append(c.const(np.array(cv if cv is not None else 0, dtype=dt if dt != BOOL else np.bool_), dt, "value")
                       if cv is not None or c.chance(0.5) else "")
        if use_axes:
            ins.append(c.const(np.array(axes, np.int64), I64, "axes"))
    c.note(f"x{dims} {DT_NAME[dt]} {mode} pads={pads} axes={axes if use_axes else None} value={cv}")
    c.output(c.node("Pad", ins, **attrs))
    return dt


@family("slice")
def g_slice(c):
    c.opset = c.choice([1, 10, 11, 13])
    dt = c.choice([F32, F32, F16, F64, I64, I32, I16, U16, I8, U8, BOOL])
    rank = c.randint(1, 4)
    dims = [c.randint(1, 7) for _ in range(rank)]
    naxes = c.randint(1, rank)
    axes = c.rng.choice(rank, size=naxes, replace=False).tolist()
    big = 2 ** 63 - 1
    starts, ends, steps = [], [], []
    for a in axes:
        d = dims[a]
        step = 1 if c.opset < 10 else c.choice([1, 1, 1, 2, 3, -1, -1, -2])
        def pos():
            return c.choice([c.randint(-d - 2, d + 2), c.randint(0, d), big, -big])
        s, e = pos(), pos()
        if step < 0 and c.chance(0.5):
            s, e = c.randint(0, d - 1), c.choice([-big, -d - 1, c.randint(-d, d)])
        if step < 0 and e == big:
            # ORT 1.32 reads end INT64_MAX with a negative step as "through the first element";
            # the spec clamps it to dim-1 (an empty slice): not drawn
            e = c.randint(-d - 2, d + 2)
        starts.append(s)
        ends.append(e)
        steps.append(step)
    neg_axes = c.opset >= 11 and c.chance(0.3)
    if neg_axes:
        axes = [a - rank for a in axes]
    xv = c.values(dims, dt, -50, 50) if dt not in FLOATS else c.values(dims, dt)
    x = c.input(xv, dt, "x")
    give_axes = c.chance(0.6) or sorted(axes) != list(range(naxes)) or neg_axes
    if sorted(a % rank for a in axes) != list(range(naxes)):
        give_axes = True
    attrs = {}
    ins = [x]
    if c.opset < 10:
        # INT64_MAX/-INT64_MAX in the int attribute lists
        attrs = {"starts": starts, "ends": ends, "axes": axes if give_axes else None}
    else:
        ity = c.choice([I64, I64, I32])
        if ity == I32:
            lim = 2 ** 31 - 1
            starts = [max(-lim, min(lim, v)) for v in starts]
            ends = [max(-lim, min(lim, v)) for v in ends]
        ins += [c.weight(np.array(starts, ity), ity, 0.85, "starts"), c.weight(np.array(ends, ity), ity, 0.85, "ends")]
        give_steps = any(s != 1 for s in steps) or c.chance(0.3)
        if give_axes or give_steps:
            ins.append(c.const(np.array(axes, ity), ity, "axes") if give_axes else "")
        if give_steps:
            ins.append(c.const(np.array(steps, ity), ity, "steps"))
    c.note(f"x{dims} {DT_NAME[dt]} starts={starts} ends={ends} axes={axes if give_axes else None} steps={steps}")
    c.output(c.node("Slice", ins, **attrs))
    return dt


@family("gather")
def g_gather(c):
    op = c.choice(["Gather", "Gather", "GatherElements", "GatherND", "GatherND", "ScatterND", "ScatterND",
                   "ScatterElements"])
    c.opset = c.choice([11, 13, 16, 18])
    dt = c.choice([F32, F32, F16, F64, I64, I32, I16, U32, I8, U8, BOOL])
    rank = c.randint(1, 4)
    dims = [c.randint(1, 5) for _ in range(rank)]
    xv = c.values(dims, dt, -50, 50) if dt not in FLOATS else c.values(dims, dt)
    x = c.input(xv, dt, "x")
    ity = c.choice([I64, I64, I32])
    attrs = {}
    p_iconst = 0.5
    if op == "Gather":
        axis = c.randint(-rank, rank - 1)
        d = dims[axis]
        ishape = [c.randint(1, 4) for _ in range(c.randint(0, 3))]
        idx = c.rng.integers(-d, d, size=ishape)
        attrs["axis"] = axis if axis != 0 or c.chance(0.5) else None
        ins = [x, c.weight(idx.astype(ity), ity, p_iconst, "idx")]
    elif op == "GatherElements":
        axis = c.randint(-rank, rank - 1)
        ishape = [c.randint(1, d) for d in dims]
        ishape[axis] = c.randint(1, 5)
        idx = c.rng.integers(-dims[axis], dims[axis], size=ishape)
        attrs["axis"] = axis
        ins = [x, c.weight(idx.astype(ity), ity, p_iconst, "idx")]
    elif op == "GatherND":
        ity = I64  # GatherND takes int64 indices only
        b = c.randint(0, rank - 1) if c.opset >= 12 else 0
        k = c.randint(1, rank - b)
        ishape = dims[:b] + [c.randint(1, 3) for _ in range(c.randint(0, 2))] + [k]
        idx = np.stack([c.rng.integers(-dims[b + j], dims[b + j], size=ishape[:-1]) for j in range(k)], axis=-1)
        if b:
            attrs["batch_dims"] = b
        ins = [x, c.weight(idx.astype(ity), ity, p_iconst, "idx")]
    elif op == "ScatterND":
        ity = I64
        k = c.randint(1, rank)
        red = "none"
        # (ORT has no float16 ScatterND reductions)
        if c.opset >= 16 and c.chance(0.6) and dt not in (BOOL, F16):
            red = c.choice(["add", "mul"] + (["max", "min"] if c.opset >= 18 else []))
        nupd = c.randint(1, 6)
        cells = int(np.prod(dims[:k]))
        if red == "none":
            # duplicate indices with reduction 'none' leave the result undefined: not drawn
            nupd = min(nupd, cells)
            flat = c.rng.choice(cells, size=nupd, replace=False)
        else:
            flat = c.rng.integers(0, cells, size=nupd)
        idx = np.stack(np.unravel_index(flat, dims[:k]), axis=-1)
        if c.chance(0.4):
            neg = c.rng.random(idx.shape) < 0.5
            idx = np.where(neg, idx - np.array(dims[:k]), idx)
        lead = [nupd] if nupd == 1 or c.chance(0.7) else None
        if lead is None and nupd % 2 == 0:
            lead = [2, nupd // 2]
        lead = lead or [nupd]
        idx = idx.reshape(lead + [k])
        ushape = lead + dims[k:]
        uv = c.values(ushape, dt, -50, 50) if dt not in FLOATS else c.values(ushape, dt)
        if red != "none":
            attrs["reduction"] = red
        ins = [x, c.weight(idx.astype(ity), ity, p_iconst, "idx"), c.weight(uv, dt, 0.3, "upd")]
    else:  # ScatterElements
        axis = c.randint(-rank, rank - 1)
        red = "none"
        if c.opset >= 16 and c.chance(0.5) and dt not in (BOOL, F16):
            red = c.choice(["add", "mul"] + (["max", "min"] if c.opset >= 18 else []))
        ishape = [c.randint(1, d) for d in dims]
        ishape[axis] = c.randint(1, dims[axis])
        if red == "none":
            # unique target positions along axis for each line (duplicates are undefined)
            idx = np.zeros(ishape, np.int64)
            it = np.nditer(np.zeros([s for j, s in enumerate(ishape) if j != axis % rank] or [1]), flags=["multi_index"])
            for _ in it:
                perm = c.rng.permutation(dims[axis])[:ishape[axis]]
                sl = list(it.multi_index)
                sl.insert(axis % rank, slice(None))
                if rank == 1:
                    idx[:] = perm
                else:
                    idx[tuple(sl)] = perm
        else:
            idx = c.rng.integers(0, dims[axis], size=ishape)
        if c.chance(0.3):
            idx = np.where(c.rng.random(idx.shape) < 0.5, idx - dims[axis], idx)
        uv = c.values(ishape, dt, -50, 50) if dt not in FLOATS else c.values(ishape, dt)
        attrs["axis"] = axis
        if red != "none":
            attrs["reduction"] = red
        ins = [x, c.weight(idx.astype(ity), ity, p_iconst, "idx"), c.weight(uv, dt, 0.3, "upd")]
    c.note(f"{op} x{dims} {DT_NAME[dt]} idx{list(np.shape(idx))} {DT_NAME[ity]} {attrs}")
    c.output(c.node(op, ins, **attrs))
    return dt


REDUCE_OPS = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
              "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "ArgMax", "ArgMin"]


@family("reduce")
def g_reduce(c):
    op = c.choice(REDUCE_OPS)
    c.opset = c.choice([11, 13, 18])
    ints_ok = op in ("ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ArgMax", "ArgMin",
                     "ReduceSumSquare", "ReduceL1")
    dt = c.choice([F32, F32, F32, F16, F64] + ([I32, I64] if ints_ok else []))
    rank = c.randint(1, 4)
    dims = [c.randint(1, 6) for _ in range(rank)]
    if op == "ReduceLogSum":
        xv = c.values(dims, dt, 0.1, 3)
    elif op == "ReduceProd":
        xv = c.values(dims, dt, 0.6, 1.5) if dt in FLOATS else c.values(dims, dt, -2, 2)
    elif op == "ReduceLogSumExp" and dt in FLOATS and c.chance(0.4):
        xv = c.values(dims, dt, -100, 100)  # exp overflows float without the max shift
    elif dt in FLOATS:
        xv = c.values(dims, dt)
    else:
        xv = c.values(dims, dt, -20, 20)
    if op.startswith("Arg") and dt not in FLOATS:
        pass  # ties between equal integers: select_last_index decides, both are drawn
    x = c.input(xv, dt, "x")
    attrs = {}
    if op.startswith("Arg"):
        attrs["axis"] = c.randint(-rank, rank - 1)
        if c.chance(0.5):
            attrs["keepdims"] = c.randint(0, 1)
        if c.opset >= 12 and c.chance(0.5):
            attrs["select_last_index"] = c.randint(0, 1)
        c.note(f"{op} x{dims} {DT_NAME[dt]} {attrs}")
        c.output(c.node(op, [x], **attrs))
        return dt
    axes_as_input = c.opset >= 18 or (op == "ReduceSum" and c.opset >= 13)
    naxes = c.choice([0, 1, 1, 2, rank])
    axes = sorted(c.rng.choice(rank, size=min(naxes, rank), replace=False).tolist())
    axes = [a - rank if c.chance(0.3) else a for a in axes]
    if c.chance(0.5):
        attrs["keepdims"] = c.randint(0, 1)
    ins = [x]
    if axes_as_input:
        if axes or c.chance(0.3):
            ins.append(c.weight(np.array(axes, np.int64), I64, 0.85, "axes"))
        if not axes and c.chance(0.6):
            attrs["noop_with_empty_axes"] = c.randint(0, 1)
    elif axes:
        attrs["axes"] = axes
    c.note(f"{op} x{dims} {DT_NAME[dt]} axes={axes} {attrs}")
    c.output(c.node(op, ins, **attrs))
    return dt


@family("softmax")
def g_softmax(c):
    op = c.choice(["Softmax", "LogSoftmax"])
    c.opset = c.choice([11, 13, 13])
    dt = float_dt(c, 0.2, 0.1)
    rank = c.randint(1, 4)
    dims = [c.randint(1, 7) for _ in range(rank)]
    if c.chance(0.2):
        dims[-1] = c.randint(20, 300)
    spread = c.choice([2.0, 2.0, 30.0, 200.0])
    xv = c.values(dims, dt, -spread, spread)
    attrs = {}
    if c.chance(0.7) or (c.opset < 13 and rank < 2):  # (the default axis 1 needs rank 2)
        attrs["axis"] = c.randint(-rank, rank - 1)
    masked = c.chance(0.25)
    if masked:
        # -inf entries, as attention masks give (a row of -inf only has no defined result)
        xv = np.where(c.rng.random(xv.shape) < 0.3, -np.inf, xv).astype(dt)
        a = attrs.get("axis", 1 if c.opset < 13 else -1) % rank
        rows = xv.reshape(int(np.prod(dims[:a])), -1) if c.opset < 13 else np.moveaxis(xv, a, -1)
        if np.any(np.all(np.isinf(rows), axis=-1)):
            raise Skip()
        c.allow_nonfinite = True
    x = c.input(xv, dt, "x")
    c.note(f"{op} x{dims} {DT_NAME[dt]} spread={spread} masked={masked} {attrs}")
    c.output(c.node(op, [x], **attrs))
    return dt


def ill_conditioned(rows, eps):
    """True when a row's mean dwarfs its spread: ORT takes the variance as E[x^2] - E[x]^2 in
    float (LayerNormalization's kernel, GroupNormalization's function body), which cancels
    there; onnxc subtracts the mean first.  Such draws are not used."""
    rows = rows.astype(np.float64)
    mean = rows.mean(axis=1)
    var = rows.var(axis=1)
    return bool(np.any(mean * mean > 300.0 * (var + eps)))


@family("layernorm")
def g_layernorm(c):
    c.opset = c.choice([17, 17, 22])
    dt = float_dt(c, 0.2, 0.1)
    rank = c.randint(1, 4)
    dims = [c.randint(1, 6) for _ in range(rank)]
    if c.chance(0.3):
        dims[-1] = c.randint(16, 200)
    axis = c.randint(-rank, rank - 1)
    xv = c.values(dims, dt, -3, 3)
    x = c.input(xv, dt, "x")
    norm_shape = dims[axis:]
    ins = [x, c.weight(c.values(norm_shape, dt), dt, 0.8, "scale")]
    if c.chance(0.6):
        ins.append(c.weight(c.values(norm_shape, dt), dt, 0.8, "bias"))
    attrs = {"axis": axis if axis != -1 or c.chance(0.5) else None}
    if c.chance(0.4):
        attrs["epsilon"] = c.choice([1e-3, 1e-6, 0.1])
    if ill_conditioned(xv.reshape(int(np.prod(dims[:axis])), -1), attrs.get("epsilon", 1e-5)):
        raise Skip()
    n_out = c.choice([1, 1, 2, 3])  # Mean and InvStdDev (stash_type float) too
    c.note(f"x{dims} {DT_NAME[dt]} axis={axis} bias={len(ins) == 3} outputs={n_out} {attrs}")
    c.final("LayerNormalization", ins, n_out=n_out, **attrs)
    return dt


@family("groupnorm")
def g_groupnorm(c):
    c.opset = c.choice([18, 21, 21])
    dt = float_dt(c, 0.2, 0.0)
    rank = c.randint(3, 5)
    groups = c.randint(1, 4)
    ch = groups * c.randint(1, 3)
    dims = [c.randint(1, 2), ch] + [c.randint(1, 6) for _ in range(rank - 2)]
    xv = c.values(dims, dt, -3, 3)
    x = c.input(xv, dt, "x")
    pshape = [groups] if c.opset < 21 else [ch]
    ins = [x, c.weight(c.values(pshape, dt), dt, 0.8, "scale"), c.weight(c.values(pshape, dt), dt, 0.8, "bias")]
    attrs = {"num_groups": groups}
    if c.chance(0.4):
        attrs["epsilon"] = c.choice([1e-3, 0.1])
    if ill_conditioned(xv.reshape(dims[0] * groups, -1), attrs.get("epsilon", 1e-5)):
        raise Skip()
    c.note(f"x{dims} {DT_NAME[dt]} {attrs}")
    c.output(c.node("GroupNormalization", ins, **attrs))
    return dt


@family("einsum")
def g_einsum(c):
    dt = c.choice([F32, F32, F32, F16, F64, I32, I64])
    letters = "abcdefgh"
    sizes = {ch: c.randint(1, 5) for ch in letters}
    nops = c.choice([1, 2, 2, 2, 3])
    ell = c.chance(0.2)
    ell_dims = [c.randint(1, 3) for _ in range(c.randint(0, 2))] if ell else []
    terms, shapes = [], []
    for _ in range(nops):
        r = c.randint(1 if not ell else 0, 3)
        sub = [c.choice(letters[:5]) for _ in range(r)]
        if not c.chance(0.15):  # a repeated letter in one term is a diagonal: rarely
            seen = []
            for ch in sub:
                if ch not in seen:
                    seen.append(ch)
            sub = seen
        shape = [sizes[ch] for ch in sub]
        term = "".join(sub)
        if ell:
            e = list(ell_dims)
            # broadcasting ellipsis dims: some may be 1 (ORT wants the same count in every
            # operand, so none is missing)
            e = [1 if c.chance(0.2) else d for d in e]
            pos = c.randint(0, len(sub))
            term = term[:pos] + "..." + term[pos:]
            shape = shape[:pos] + e + shape[pos:]
        terms.append(term)
        shapes.append(shape)
    used = []
    for t in terms:
        for ch in t.replace("...", ""):
            if ch not in used:
                used.append(ch)
    if c.chance(0.3):
        eq = ",".join(terms)  # implicit output: the letters used once, sorted
    else:
        keep = [ch for ch in used if c.chance(0.5)]
        c.rng.shuffle(keep)
        out = "".join(keep)
        if ell:
            pos = c.randint(0, len(out))
            out = out[:pos] + "..." + out[pos:]
        eq = ",".join(terms) + "->" + out
    ins = []
    for i, s in enumerate(shapes):
        v = c.values(s, dt, -3, 3) if dt in (I32, I64) else c.values(s, dt, -1, 1)
        ins.append(c.weight(v, dt, 0.2, f"x{i}"))
    if not c.feeds:
        raise Skip()
    c.note(f"'{eq}' shapes={shapes} {DT_NAME[dt]}")
    c.output(c.node("Einsum", ins, equation=eq))
    return dt


@family("transpose")
def g_transpose(c):
    dt = c.choice([F32, F32, F16, F64, I8, U8, I16, U16, I32, U32, I64, U64, BOOL])
    rank = c.randint(1, 6)
    dims = [c.randint(1, 5 if rank < 5 else 3) for _ in range(rank)]
    x = c.input(c.values(dims, dt, -50, 50) if dt not in FLOATS else c.values(dims, dt), dt, "x")
    perm = c.rng.permutation(rank).tolist() if c.chance(0.8) else None
    c.note(f"x{dims} {DT_NAME[dt]} perm={perm}")
    c.output(c.node("Transpose", [x], perm=perm))
    return dt


@family("expand")
def g_expand(c):
    dt = c.choice([F32, F32, F16, F64, I64, I32, I16, U16, I8, U8, BOOL])
    a, b = bcast_pair(c, 4, 4)
    x = c.input(c.values(a, dt, -50, 50) if dt not in FLOATS else c.values(a, dt), dt, "x")
    s = c.weight(np.array(b, np.int64), I64, 0.8, "shape")
    c.note(f"x{a} shape={b} {DT_NAME[dt]}")
    c.output(c.node("Expand", [x, s]))
    return dt


@family("where")
def g_where(c):
    dt = c.choice([F32, F32, F16, F64, I64, I32, U8])  # (ORT has no bool Where)
    a, b = bcast_pair(c, 4, 4)
    full = list(np.broadcast_shapes(tuple(a), tuple(b)))
    cs = list(full[len(full) - c.randint(0, len(full)):]) if full else []
    cs = [1 if c.chance(0.3) else d for d in cs]
    shapes = [cs, a, b]
    c.rng.shuffle(shapes)
    cond = c.input(c.values(shapes[0], BOOL), BOOL, "cond")
    def val(s, name):
        return c.weight(c.values(s, dt, -50, 50) if dt not in FLOATS else c.values(s, dt), dt, 0.3, name)
    xn, yn = val(shapes[1], "x"), val(shapes[2], "y")
    c.note(f"cond{shapes[0]} x{shapes[1]} y{shapes[2]} {DT_NAME[dt]}")
    c.output(c.node("Where", [cond, xn, yn]))
    return dt


CAST_TYPES = [F32, F16, F64, BF16, I8, U8, I16, U16, I32, U32, I64, U64, BOOL]


def cast_small(c, dims):
    """Casts to and from the 8-bit floats (opset 19, with saturate) and 4-bit integers (21)."""
    kinds = [TP.FLOAT8E4M3FN, TP.FLOAT8E4M3FNUZ, TP.FLOAT8E5M2, TP.FLOAT8E5M2FNUZ]
    if c.opset >= 21:
        kinds += [TP.INT4, TP.UINT4]
    k = c.choice(kinds)
    npt = EXOTIC[k][0]
    name = helper.tensor_dtype_to_string(k).replace("TensorProto.", "")
    if k in (TP.INT4, TP.UINT4):
        lo, hi = (-8, 7) if k == TP.INT4 else (0, 15)
        if c.chance(0.5):
            src = c.choice([I8, I32, I64] if k == TP.INT4 else [U8, I32, U64])
            x = c.input(c.values(dims, src, lo, hi), src, "x")
            c.note(f"{DT_NAME[src]} -> {name} x{dims}")
            return c.node("Cast", [x], to=k)
        dst = c.choice([I8, I32, F32] if k == TP.INT4 else [U8, I64, F32])
        wide = I8 if k == TP.INT4 else U8
        x = c.node("Cast", [c.input(c.values(dims, wide, lo, hi), wide, "x")], to=k)
        c.note(f"{name} -> {DT_NAME[dst]} x{dims}")
        return c.node("Cast", [x], to=ELEM[dst])
    scale = c.choice([1.0, 0.01, 1000.0])
    if c.chance(0.5):
        # to float8: rounding to nearest even, saturation (or inf/NaN with saturate=0),
        # subnormals
        src = c.choice([F32, F16])
        v = c.values(dims, src, -scale, scale)
        v = np.where(c.rng.random(v.shape) < 0.1, 0, v).astype(src)
        attrs = {"saturate": c.choice([None, 0, 1])}
        c.note(f"{DT_NAME[src]} -> {name} x{dims} scale={scale} {attrs}")
        return c.node("Cast", [c.input(v, src, "x")], to=k, **attrs)
    dst = c.choice([F32, F16])
    v = c.values(dims, F32, -scale, scale).astype(npt).astype(np.float32)  # float8 values, exactly
    x = c.node("Cast", [c.input(v, F32, "x")], to=k)
    c.note(f"{name} -> {DT_NAME[dst]} x{dims} scale={scale}")
    return c.node("Cast", [x], to=ELEM[dst])


@family("cast")
def g_cast(c):
    c.opset = c.choice([13, 19, 21])
    if c.opset >= 19 and c.chance(0.3):
        c.output(cast_small(c, [c.randint(1, 6) for _ in range(c.randint(0, 3))]))
        return F32  # (the output type comes from shape inference)
    src = c.choice(CAST_TYPES)
    dst = c.choice([t for t in CAST_TYPES if t != src])
    dims = [c.randint(1, 6) for _ in range(c.randint(0, 3))]
    # values: inside the destination's range when the destination is an integer (out of range
    # float->int conversion is undefined in C and not specified by ONNX); integer sources stay
    # inside the destination's range too (ONNX does not say what narrowing does)
    if dst in (I8, U8, I16, U16, I32, U32, I64, U64):
        info = np.iinfo(dst)
        lo, hi = max(info.min, -1000), min(info.max, 1000)
    else:
        lo, hi = -1000, 1000
    if src in (I8, U8, I16, U16, I32, U32, I64, U64):
        info = np.iinfo(src)
        lo, hi = max(lo, info.min), min(hi, info.max)
        if dst in (F32, F16, BF16) and c.chance(0.3) and src in (I32, I64, U32, U64) and dst != F16:
            hi = min(np.iinfo(src).max, 2 ** 40)  # rounding of wide integers to float
        v = c.values(dims, src, lo, hi)
    elif src == BOOL:
        v = c.values(dims, src)
    else:
        scale = c.choice([1.0, float(hi)])
        v = c.values(dims, src, max(lo, -scale), min(hi, scale)) if src != F16 else \
            c.values(dims, src, max(lo, -min(scale, 60000.0)), min(hi, 60000.0))
        if dst in (U8, U16, U32, U64):
            v = np.abs(v)
        if dst == BOOL or c.chance(0.2):
            v = np.where(c.rng.random(v.shape) < 0.3, 0, v).astype(v.dtype)
    if src == BF16:
        # numpy has no bfloat16 to feed: a float32 input holding bfloat16 values, cast exactly
        x = c.node("Cast", [c.input(v, F32, "x")], to=TP.BFLOAT16)
    else:
        x = c.input(v, src, "x")
    c.note(f"{DT_NAME[src]} -> {DT_NAME[dst]} x{dims}")
    c.output(c.node("Cast", [x], to=ELEM[dst]))
    return dst


RNN_ACTS = ["Relu", "Tanh", "Sigmoid", "Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid",
            "Elu", "Softsign", "Softplus"]
RNN_ACT_PARAMS = {"Affine": (0.8, 0.1), "LeakyRelu": (0.1, None), "ThresholdedRelu": (0.3, None),
                  "ScaledTanh": (1.2, 0.7), "HardSigmoid": (0.25, 0.45), "Elu": (0.9, None)}


@family("rnn")
def g_rnn(c):
    op = c.choice(["LSTM", "GRU", "RNN"])
    c.opset = c.choice([7, 14, 14, 22])
    dt = float_dt(c, 0.15, 0.0)
    ngates = {"LSTM": 4, "GRU": 3, "RNN": 1}[op]
    direction = c.choice(["forward", "reverse", "bidirectional"])
    nd = 2 if direction == "bidirectional" else 1
    seq, batch, isz, hid = c.randint(1, 5), c.randint(1, 3), c.randint(1, 6), c.randint(1, 6)
    if c.chance(0.2):
        # wider layers: gate columns over several 128-column strips of the one-row GEMV
        # (ops_seq.c), a partial last strip, and GRU's [0, 2H) / [2H, 3H) split on a strip
        hid = c.choice([40, 64, 96])
    layout = c.randint(0, 1) if c.opset >= 14 and c.chance(0.4) else 0
    attrs = {"hidden_size": hid}
    if direction != "forward" or c.chance(0.3):
        attrs["direction"] = direction
    if layout:
        attrs["layout"] = 1
    nacts = {"LSTM": 3, "GRU": 2, "RNN": 1}[op]
    if c.chance(0.3):
        acts = [c.choice(RNN_ACTS) for _ in range(nacts * nd)]
        attrs["activations"] = acts
        al, be = [], []
        for a in acts:
            p = RNN_ACT_PARAMS.get(a)
            if p:
                al.append(p[0])
                if p[1] is not None:
                    be.append(p[1])
        # the alpha/beta lists hold one value per activation that takes one, in order
        if al:
            attrs["activation_alpha"] = al
        if be:
            attrs["activation_beta"] = be
        if any(a in ("Affine", "LeakyRelu", "ThresholdedRelu", "ScaledTanh", "HardSigmoid", "Elu") for a in acts):
            # ORT pairs alpha/beta with activations by position in the full list; the spec is
            # silent on the layout; drawn only where both readings agree (one such activation)
            n_param = sum(a in RNN_ACT_PARAMS for a in acts)
            if n_param > 1 or any(a in RNN_ACT_PARAMS for a in acts[:-1]):
                raise Skip()
    if c.chance(0.25):
        attrs["clip"] = c.choice([0.5, 2.0])
    if op == "LSTM" and c.chance(0.2):
        attrs["input_forget"] = 1
    if op == "GRU" and c.chance(0.5):
        attrs["linear_before_reset"] = 1
    xs = [batch, seq, isz] if layout else [seq, batch, isz]
    x = c.input(c.values(xs, dt, -1, 1), dt, "x")
    lim = 1.0 / math.sqrt(hid)
    w = c.weight(c.values([nd, ngates * hid, isz], dt, -lim, lim), dt, 0.8, "w")
    r = c.weight(c.values([nd, ngates * hid, hid], dt, -lim, lim), dt, 0.8, "r")
    ins = [x, w, r]
    opt = []
    if c.chance(0.6):
        opt.append(("B", c.weight(c.values([nd, 2 * ngates * hid], dt, -lim, lim), dt, 0.8, "b")))
    if c.chance(0.3):
        lens = c.rng.integers(1, seq + 1, size=[batch]).astype(np.int32)
        opt.append(("sequence_lens", c.weight(lens, I32, 0.5, "lens")))
    hs = [batch, nd, hid] if layout else [nd, batch, hid]
    if c.chance(0.4):
        opt.append(("initial_h", c.weight(c.values(hs, dt, -1, 1), dt, 0.3, "h0")))
    if op == "LSTM" and c.chance(0.4):
        opt.append(("initial_c", c.weight(c.values(hs, dt, -1, 1), dt, 0.3, "c0")))
    if op == "LSTM" and c.chance(0.3):
        opt.append(("P", c.weight(c.values([nd, 3 * hid], dt, -0.5, 0.5), dt, 0.8, "p")))
    order = ["B", "sequence_lens", "initial_h", "initial_c", "P"]
    given = dict(opt)
    last = max([order.index(k) for k in given] + [-1])
    for k in order[:last + 1]:
        ins.append(given.get(k, ""))
    n_out = 3 if op == "LSTM" else 2
    want = [c.chance(0.7) for _ in range(n_out)]
    if not any(want):
        want[0] = True
    outs = [c.fresh("y") if w_ else "" for w_ in want]
    while outs[-1] == "":
        outs.pop()
    c.note(f"{op} x{xs} hidden={hid} {DT_NAME[dt]} inputs={[k for k in order if k in given]} "
           f"outputs={[i for i, w_ in enumerate(want) if w_]} {attrs}")
    c.node(op, ins, outputs=outs, **attrs)
    for o in outs:
        if o:
            c.output(o)
    if layout:
        # ORT implements layout 0 only: its reference is the layout-0 node between the
        # transposes that define layout 1
        ref = [helper.make_node("Transpose", [ins[0]], ["x_t"], perm=[1, 0, 2])]
        rins = ["x_t"] + ins[1:]
        for j in (5, 6):  # initial_h, initial_c
            if j < len(rins) and rins[j]:
                ref.append(helper.make_node("Transpose", [rins[j]], [f"s{j}_t"], perm=[1, 0, 2]))
                rins[j] = f"s{j}_t"
        routs = [o + "_t" if o else "" for o in outs]
        ref.append(helper.make_node(op, rins, routs, **{k: v for k, v in attrs.items() if k != "layout"}))
        for j, o in enumerate(outs):
            if o:
                ref.append(helper.make_node("Transpose", [routs[j]], [o], perm=[2, 0, 1, 3] if j == 0 else [1, 0, 2]))
        c.ref_nodes = ref
    return dt


# -- fusion: patterns that compiler/optimize.c folds into a Conv/Gemm/MatMul epilogue ------------
def act_tail(c, y, which):
    """Appends activation `which` to y; returns the new value name."""
    if which == "Relu":
        return c.node("Relu", [y])
    if which == "Clip":
        lo = c.const(np.array(0.0, np.float32), F32)
        hi = c.const(np.array(6.0, np.float32), F32)
        return c.node("Clip", [y, lo, hi])
    if which == "LeakyRelu":
        return c.node("LeakyRelu", [y], alpha=0.1)
    if which == "Sigmoid":
        return c.node("Sigmoid", [y])
    if which == "Tanh":
        return c.node("Tanh", [y])
    if which == "HardSigmoid":
        return c.node("HardSigmoid", [y], alpha=0.2, beta=0.5)
    if which == "HardSwish":
        return c.node("HardSwish", [y])
    if which == "SiLU":
        return c.node("Mul", [y, c.node("Sigmoid", [y])])
    if which == "HardSwishPattern":
        return c.node("Mul", [y, c.node("HardSigmoid", [y], alpha=1 / 6, beta=0.5)])
    if which == "GELU":
        s2 = c.const(np.array(math.sqrt(2.0), np.float32), F32)
        one = c.const(np.array(1.0, np.float32), F32)
        half = c.const(np.array(0.5, np.float32), F32)
        e = c.node("Erf", [c.node("Div", [y, s2])])
        return c.node("Mul", [c.node("Mul", [y, c.node("Add", [e, one])]), half])
    raise ValueError(which)


FUSE_ACTS = ["Relu", "Clip", "LeakyRelu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish", "SiLU",
             "HardSwishPattern", "GELU"]


@family("fusion")
def g_fusion(c):
    c.opset = c.choice([14, 17])
    dt = F32  # optimize.c fuses float32 only
    prod = c.choice(["Conv", "Conv", "Conv", "Gemm", "MatMul"])
    chain = []
    if prod == "Conv":
        kind = c.choice(CONV_KINDS)
        if c.chance(0.2):
            # a zero Pad in front (made a view by optimize.c)
            g = draw_conv_geometry(c, kind)
            xin = c.input(c.values([g["n"], g["c"]] + g["sp"], dt), dt, "x")
            zp = c.const(np.zeros([2 * (g["nsp"] + 2)], np.int64), I64, "zpads")
            xp = c.node("Pad", [xin, zp])
            fan = g["cg"] * int(np.prod(g["ks"]))
            w = c.const(c.values([g["m"], g["cg"]] + g["ks"], dt, -1.5 / math.sqrt(fan), 1.5 / math.sqrt(fan)), dt, "w")
            y = c.node("Conv", [xp, w], **g["attrs"])
            chain.append("ZeroPad")
            c.note(g["desc"])
        else:
            y, g = add_conv(c, dt, kind, p_wconst=1.0)
        m, out_rank = g["m"], g["nsp"] + 2
    else:
        mm, n, k = c.randint(1, 16), c.randint(1, 40), c.randint(1, 150)
        a = c.input(c.values([mm, k], dt, -1, 1), dt, "a")
        if prod == "Gemm":
            tb = c.randint(0, 1)
            b = c.const(c.values([n, k] if tb else [k, n], dt, -0.3, 0.3), dt, "b")
            ins = [a, b] + ([c.const(c.values([n], dt), dt, "c")] if c.chance(0.5) else [])
            y = c.node("Gemm", ins, transB=tb or None)
        else:
            b = c.const(c.values([k, n], dt, -0.3, 0.3), dt, "b")
            y = c.node("MatMul", [a, b])
        c.note(f"{prod} M={mm} N={n} K={k}")
        m, out_rank = n, 2
    # what follows the producer
    if c.chance(0.3) and prod != "MatMul":
        # BatchNormalization with constant statistics (folded into the weights)
        shape = [m]
        if prod == "Conv" or c.chance(1.0):
            bn_ins = [y] + [c.const(v, dt) for v in (c.values(shape, dt, 0.5, 1.5), c.values(shape, dt),
                                                      c.values(shape, dt, -0.5, 0.5), c.values(shape, dt, 0.5, 2))]
            y = c.node("BatchNormalization", bn_ins, epsilon=1e-3)
            chain.append("BN")
    if c.chance(0.4):
        # a per-channel / per-column constant (folded into the bias)
        bshape = [m] + [1] * (out_rank - 2) if prod == "Conv" else [m]
        y = c.node("Add", [y, c.const(c.values(bshape, dt), dt)] if c.chance(0.5) else
                   [c.const(c.values(bshape, dt), dt), y])
        chain.append("AddBias")
    res_shape = None
    if c.chance(0.4):
        # a residual of y's shape: a run-time input, or the Conv's own input when shapes allow
        res_name = c.fresh("res")
        chain.append("AddResidual")
        y = c.node("Add", [y, res_name] if c.chance(0.5) else [res_name, y])
        res_shape = res_name
    if c.chance(0.8):
        act = c.choice(FUSE_ACTS)
        y = act_tail(c, y, act)
        chain.append(act)
    if prod == "Conv" and c.chance(0.35):
        # a second Conv on the chain's output (pointwise, 3x3 "same" or depthwise 3x3), with a
        # residual from the first chain's output when the channels match: MobileNet/ResNet
        # blocks, where fusion, aliasing and the memory plan meet
        y0, nsp = y, g["nsp"]
        kind2 = c.choice(["pointwise", "same3", "dw3"])
        m2 = m if kind2 == "dw3" or c.chance(0.5) else c.randint(1, 24)
        ks = [1] * nsp if kind2 == "pointwise" else [3] * nsp
        pads = [0 if kind2 == "pointwise" else 1] * (2 * nsp)
        cin = 1 if kind2 == "dw3" else m
        lim = 1.5 / math.sqrt(cin * int(np.prod(ks)))
        ins2 = [y0, c.const(c.values([m2, cin] + ks, dt, -lim, lim), dt, "w2")]
        if c.chance(0.6):
            ins2.append(c.const(c.values([m2], dt), dt, "b2"))
        y = c.node("Conv", ins2, pads=pads, group=m if kind2 == "dw3" else None)
        chain.append(f"Conv2({kind2}, {m2} out)")
        if m2 == m and c.chance(0.6):
            y = c.node("Add", [y, y0] if c.chance(0.5) else [y0, y])
            chain.append("AddBlockInput")
        if c.chance(0.7):
            act = c.choice(FUSE_ACTS)
            y = act_tail(c, y, act)
            chain.append(act)
    if c.chance(0.15):
        # the producer's output is also a graph output: nothing may be fused into it
        first = c.nodes[0 if "ZeroPad" not in chain else 1].output[0]
        c.output(first)
        chain.append("ProducerIsOutput")
    c.output(y)
    c.note("chain: " + " -> ".join([prod] + chain))
    c.pending_residual = res_shape
    return dt


@family("dwblock")
def g_dwblock(c):
    """An inverted-residual block (compiler/ops_fused.c's DwBlock): a 1x1 expansion, a depthwise
    Conv (3x3, 5x5 or 7x7, stride 1 or 2, padding "same" or less, sometimes dilated or with
    another kernel height) and sometimes a 1x1 projection with the block input as residual,
    activations between; channel counts off the 16-lane groups too; mostly big enough to be fused."""
    c.opset = c.choice([14, 17])
    dt = F32
    n = c.choice([1, 1, 1, 2])
    # (sometimes over 170 inputs: the lanes form's expansion then takes fewer than three
    # channel groups per pass, its weight table holding 512 x 16)
    cin = c.randint(1, 48) if c.chance(0.85) else c.randint(150, 300)
    if c.chance(0.7):
        # an expanded tensor of >= 1 MiB: optimize.c fuses those (DWBLOCK_MIN_BYTES)
        # (small planes: one band in one shared window, many channel groups)
        n, h, w = (1, c.randint(18, 30), c.randint(18, 30)) if c.chance(0.3) else (1, c.randint(40, 80), c.randint(40, 80))
        lo = -(-262144 // (h * w))
        ce = c.randint(lo, max(lo, 300))
    elif c.chance(0.5):
        # few pixels (7x7 planes and the like): the expansion packed for the channel-lanes
        # GEMM, fused anyway where its K is short (optimize.c lanes_small) or the depthwise is a
        # strided 5x5 (dw_strided_big)
        ce = c.randint(16, 600)
        h, w = c.randint(2, 8), c.randint(2, 8)
    else:
        ce = c.choice([c.randint(1, 40), cin * c.choice([3, 4, 6]), c.randint(8, 200)])
        h, w = c.randint(1, 40), c.randint(1, 40)
    k = c.choice([3, 3, 5, 5, 7])
    kh = k if c.chance(0.85) else c.choice([1, 3, 5])
    s = c.choice([1, 1, 2])
    d = 2 if c.chance(0.1) else 1
    ph, pw = c.randint(0, (kh - 1) * d // 2), c.randint(0, (k - 1) * d // 2)
    if c.chance(0.7):
        ph, pw = (kh - 1) * d // 2, (k - 1) * d // 2
    if (h + 2 * ph - (kh - 1) * d - 1) < 0 or (w + 2 * pw - (k - 1) * d - 1) < 0:
        raise Skip()
    x = c.input(c.values([n, cin, h, w], dt), dt, "x")
    lim = 1.5 / math.sqrt(cin)
    ins = [x, c.const(c.values([ce, cin, 1, 1], dt, -lim, lim), dt, "we")]
    if c.chance(0.8):
        ins.append(c.const(c.values([ce], dt), dt, "be"))
    y = c.node("Conv", ins)
    chain = [f"Conv1x1 {cin}->{ce}"]
    if c.chance(0.85):
        act = c.choice(FUSE_ACTS)
        y = act_tail(c, y, act)
        chain.append(act)
    y = dw_conv_act(c, y, dt, ce, kh, k, s, d, ph, pw, chain, f"DwConv {kh}x{k} s{s} d{d} pads {ph},{pw} on {h}x{w}")
    if c.chance(0.35):
        # a channel scale on the depthwise output (optimize.c folds it into the projection's
        # weights): a squeeze-and-excitation branch (EfficientNet, MobileNetV3), or a run-time
        # input of one value per channel (per batch element)
        if c.chance(0.7):
            red = c.randint(1, 16)
            sq = se_gate(c, y, dt, ce, red, ["Sigmoid", "HardSigmoid"])
            chain.append(f"SE {ce}->{red}")
        else:
            sq = c.input(c.values(c.choice([[n, ce, 1, 1], [1, ce, 1, 1], [ce, 1, 1]]), dt, 0, 2), dt, "scale")
            chain.append("ChannelScale")
        y = c.node("Mul", [y, sq] if c.chance(0.5) else [sq, y])
    if c.chance(0.6):
        co = cin if s == 1 and ph == (kh - 1) * d // 2 and pw == (k - 1) * d // 2 and c.chance(0.6) else c.randint(1, 48)
        lim = 1.5 / math.sqrt(ce)
        ins = [y, c.const(c.values([co, ce, 1, 1], dt, -lim, lim), dt, "wp")]
        if c.chance(0.8):
            ins.append(c.const(c.values([co], dt), dt, "bp"))
        y = c.node("Conv", ins)
        chain.append(f"Conv1x1 {ce}->{co}")
        if co == cin and s == 1 and ph == (kh - 1) * d // 2 and pw == (k - 1) * d // 2 and c.chance(0.7):
            y = c.node("Add", [y, x] if c.chance(0.5) else [x, y])
            chain.append("AddBlockInput")
    c.output(y)
    c.note("chain: " + " -> ".join(chain))
    return dt


# ---- running ORT and writing the case ------------------------------------------------------------
def ort_run(model, feeds):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.log_severity_level = 3
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def infer_types(model):
    """Output element types (and shapes) by ONNX shape inference; returns {name: ValueInfo}."""
    inf = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    vis = {v.name: v for v in list(inf.graph.value_info) + list(inf.graph.output)}
    return vis


def build_model(c, out_dt):
    """The model with typed outputs (shapes are filled in from ORT's results later)."""
    nodes = c.nodes
    graph = helper.make_graph(nodes, "g", c.vi_in, [helper.make_empty_tensor_value_info(o) for o in c.outs],
                              initializer=c.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", c.opset)], producer_name="onnxc-difftest")
    model.ir_version = 8 if c.opset <= 18 else (9 if c.opset <= 20 else 10)
    try:
        vis = infer_types(model)
    except Exception:  # noqa: BLE001 (the checker below reports real problems)
        vis = {}
    outputs = []
    for o in c.outs:
        vi = vis.get(o)
        et = vi.type.tensor_type.elem_type if vi is not None and vi.type.tensor_type.elem_type else ELEM[out_dt]
        outputs.append(helper.make_tensor_value_info(o, et, None))
    del model.graph.output[:]
    model.graph.output.extend(outputs)
    return model


def reference_model(c, model):
    """The model ORT runs: c.ref_nodes in place of the nodes where a family gives them (a form
    ORT implements that computes the same function), and bfloat16 outputs widened to float32
    by a Cast (exact) since numpy has no bfloat16 for ORT to return."""
    ref = onnx.ModelProto()
    ref.CopyFrom(model)
    if c.ref_nodes is not None:
        del ref.graph.node[:]
        ref.graph.node.extend(c.ref_nodes)
    for vi in ref.graph.output:
        et = vi.type.tensor_type.elem_type
        if et in EXOTIC:
            wide = vi.name + "__narrow"
            for n in ref.graph.node:
                for i, o in enumerate(n.output):
                    if o == vi.name:
                        n.output[i] = wide
            ref.graph.node.append(helper.make_node("Cast", [wide], [vi.name], to=EXOTIC[et][1]))
            vi.type.tensor_type.elem_type = EXOTIC[et][1]
    return ref


def make_case(family_name, seed, index):
    """Draws case `index` of a family: returns (model, feeds, outputs, description)."""
    gen = FAMILIES[family_name]
    for attempt in range(200):
        rng = np.random.default_rng([seed, zlib.crc32(family_name.encode()), index, attempt])
        c = Case(rng, opset=17)
        try:
            out_dt = gen(c)
        except Skip:
            continue
        if c.pending_residual:
            add_residual_input(c)
        model = build_model(c, out_dt)
        outs = ort_run(reference_model(c, model), c.feeds)
        if not c.allow_nonfinite and any(o.dtype.kind == "f" and not np.all(np.isfinite(o)) for o in outs):
            continue  # overflow in the drawn values (e.g. a long product): draw again
        for vi, o in zip(model.graph.output, outs):  # the models declare full static shapes
            vi.type.tensor_type.shape.SetInParent()
            for d in o.shape:
                vi.type.tensor_type.shape.dim.add().dim_value = int(d)
        try:
            onnx.checker.check_model(model, full_check=not c.lenient_check)
        except onnx.checker.ValidationError as e:
            if "is deprecated" not in str(e):  # GroupNormalization-18 (deprecated in 21) is valid
                raise
        model.doc_string = "; ".join(c.desc)
        # narrowed back exactly (the values are the exotic type's)
        outs = [o.astype(EXOTIC[vi.type.tensor_type.elem_type][0]) if vi.type.tensor_type.elem_type in EXOTIC else o
                for vi, o in zip(model.graph.output, outs)]
        return model, c.feeds, outs, model.doc_string, c.flags
    raise RuntimeError(f"{family_name} case {index}: no valid draw in 200 attempts")


def add_residual_input(c):
    """Gives the fusion family's residual Add its other operand: a run-time input of the shape
    of the value it joins (from shape inference of the graph before the Add), or the Conv's
    own input when that has the same shape."""
    res = c.pending_residual
    add = next(n for n in c.nodes if res in n.input)
    other = add.input[0] if add.input[1] == res else add.input[1]
    keep = c.nodes[:c.nodes.index(add)]
    g = helper.make_graph(keep, "g", c.vi_in, [helper.make_empty_tensor_value_info(other)], initializer=c.inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", c.opset)])
    m.ir_version = 8
    vi = infer_types(m)[other]
    shape = [d.dim_value for d in vi.type.tensor_type.shape.dim]
    if c.chance(0.3) and "x" in c.feeds and list(c.feeds["x"].shape) == shape:
        for i, name in enumerate(add.input):
            if name == res:
                add.input[i] = "x"
        c.note("residual = x")
    else:
        c.input(c.values(shape, F32), F32, res)
        c.note(f"residual{shape}")


def write_case(out_dir, name, model, feeds, outs, desc, flags=""):
    d = os.path.join(out_dir, name)
    if os.path.exists(d):
        shutil.rmtree(d)
    ds = os.path.join(d, "test_data_set_0")
    os.makedirs(ds)
    onnx.save(model, os.path.join(d, "model.onnx"))
    init = {t.name for t in model.graph.initializer}
    k = 0
    for vi in model.graph.input:
        if vi.name in init:
            continue
        t = numpy_helper.from_array(feeds[vi.name], vi.name)
        with open(os.path.join(ds, f"input_{k}.pb"), "wb") as fh:
            fh.write(t.SerializeToString())
        k += 1
    for j, (vi, o) in enumerate(zip(model.graph.output, outs)):
        t = numpy_helper.from_array(o, vi.name)
        with open(os.path.join(ds, f"output_{j}.pb"), "wb") as fh:
            fh.write(t.SerializeToString())
    with open(os.path.join(d, "case.txt"), "w") as fh:
        fh.write(desc + (f" [onnxc {flags}]" if flags else "") + "\n")
    if flags:
        with open(os.path.join(d, "onnxc_flags.txt"), "w") as fh:
            fh.write(flags + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=4, help="cases per family")
    ap.add_argument("-k", "--family", default=None, help="regex on family names")
    ap.add_argument("--list", action="store_true", help="list the families")
    args = ap.parse_args()
    fams = [f for f in FAMILIES if not args.family or re.search(args.family, f)]
    if args.list:
        print("\n".join(fams))
        return
    if not args.out:
        ap.error("OUT is required")
    os.makedirs(args.out, exist_ok=True)
    n = 0
    for f in fams:
        for i in range(args.cases):
            model, feeds, outs, desc, flags = make_case(f, args.seed, i)
            write_case(args.out, f"{f}_{i:03d}", model, feeds, outs, desc, flags)
            n += 1
    print(f"wrote {n} cases ({len(fams)} families x {args.cases}, seed {args.seed}) to {args.out}")


if __name__ == "__main__":
    main()
