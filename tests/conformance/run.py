#!/usr/bin/env python3
"""ONNX backend-test conformance runner for onnxc.

Every case folder (model.onnx + test_data_set_*/input_*.pb, output_*.pb) is compiled with
onnxc, the generated C is built with strict C99 flags (-Wall -Wextra -Werror -pedantic) and
linked with a generic harness, run on each data set, and its outputs compared with the
reference outputs of the ONNX test data.

Inputs that a model needs at compile time (a Reshape shape, a TopK k, ... given as graph
inputs in the test) are bound with --const-input from the data set being run: onnxc names
them in its error, and the runner retries with them bound, once per data set.

Tolerance: floats rtol 1e-3, atol 1e-4 (NaNs must match); integers, bools and strings exact;
the small types (float8, float4, float8e8m0, int4/uint4, int2/uint2) exact by element code.
String tensors travel to and from the harness as their elements' bytes, each ended by a NUL.

Sequence and optional inputs (input_N.pb holding a SequenceProto or an OptionalProto) are
written for the harness as their tensors' bytes one after another ('-' for an optional
without a value).  A sequence input's length and item shapes are compile-time facts: when
onnxc asks for them (--seq-input NAME=ITEMS) the runner gives those of the data set's sample.
Sequence and optional outputs are compared item by item (and presence); the CUDA targets,
which return a sequence as one output per item, are compared that way.

Cross testing: --cc names the C compiler (e.g. aarch64-linux-gnu-gcc), --ldflags adds link flags
(e.g. -static) and --run-wrapper runs each program through an emulator (e.g. qemu-aarch64); with
a wrapper the runtime library is compiled from runtime_min/ by --cc instead of taken from BUILD.

A case folder may hold onnxc_flags.txt: extra onnxc flags for that case (whitespace-separated,
e.g. the training fixtures' `--gradients --loss KIND:OUTPUT`).  --link FILE.c adds a C source
(built with the same strict flags) to every case's program: custom-op implementations.

Sanitized compiler runs: --onnxc SANITIZED --same-as PLAIN runs both compilers on every case
and requires the same generated files (or the same error) from both, without building or
running anything: the plain compiler's suite run builds and checks that code.  A sanitizer
report, a crash or a difference fails the run whether or not the case is in the ratchet.

Prints one line per case and closes with 'N passed, N failed'.  With --ratchet FILE the exit
status is non-zero when a case listed in FILE fails; --update-ratchet rewrites FILE with the
passing cases.
"""
import argparse
import concurrent.futures as cf
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CFLAGS = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1"]
RTOL, ATOL = 1e-3, 1e-4


# ONNX small element types: 8-bit floats one code per byte, 4-bit and 2-bit types packed
# (low bits first), exactly as the generated code stores them.  Their outputs are compared
# by element code (exact: NaN patterns and signed zeros count).
SMALL_BITS = {17: 8, 18: 8, 19: 8, 20: 8, 24: 8, 21: 4, 22: 4, 23: 4, 25: 2, 26: 2}


def np_dtype(elem_type):
    if elem_type in SMALL_BITS:
        return np.uint8
    return {
        1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32,
        7: np.int64, 9: np.uint8, 10: np.uint16, 11: np.float64, 12: np.uint32, 13: np.uint64,
        16: np.uint16,
    }.get(elem_type)


def small_codes(raw, elem_type, dims):
    """Element codes (uint8, one per element) of stored small-type bytes."""
    bits = SMALL_BITS[elem_type]
    n = int(np.prod(dims, dtype=np.int64))
    if len(raw) * 8 < n * bits:
        raise ValueError(f"{len(raw)} bytes hold fewer than {n} {bits}-bit elements")
    data = np.frombuffer(raw, dtype=np.uint8)
    if bits == 8:
        return data[:n].reshape(dims)
    per = 8 // bits
    codes = np.empty(data.size * per, dtype=np.uint8)
    for k in range(per):
        codes[k::per] = (data >> (k * bits)) & ((1 << bits) - 1)
    return codes[:n].reshape(dims)


def tensor_bytes(t):
    """Raw little-endian bytes of a TensorProto as the generated code stores it (strings: each
    element's bytes and a NUL)."""
    if t.data_type == 8:
        return b"".join(bytes(x) + b"\0" for x in t.string_data)
    if t.data_type in (10, 16):  # float16 / bfloat16: raw 16-bit patterns
        if t.raw_data:
            return t.raw_data
        return np.array(t.int32_data, dtype=np.uint16).tobytes()
    if t.data_type in SMALL_BITS:  # stored bytes (packed for 4/2-bit types), either field
        n = int(np.prod(t.dims, dtype=np.int64))
        nbytes = (n * SMALL_BITS[t.data_type] + 7) // 8
        data = t.raw_data if t.HasField("raw_data") else np.array(t.int32_data, dtype=np.uint32).astype(np.uint8).tobytes()
        if len(data) < nbytes:
            raise ValueError(f"tensor {t.name}: {len(data)} bytes for {n} elements")
        return bytes(data[:nbytes])
    arr = numpy_helper.to_array(t)
    if t.data_type == 9:
        arr = arr.astype(np.uint8)
    return np.ascontiguousarray(arr).tobytes()


def to_compare(t):
    """A numpy array to compare against: float16/bfloat16 widened to float32, small types as
    element codes, strings as an object array of bytes."""
    if t.data_type == 8:
        return string_array(list(t.string_data), tuple(t.dims))
    if t.data_type in SMALL_BITS:
        return small_codes(tensor_bytes(t), t.data_type, tuple(t.dims))
    if t.data_type == 10:
        return numpy_helper.to_array(t).astype(np.float32)
    if t.data_type == 16:
        raw = np.frombuffer(tensor_bytes(t), dtype=np.uint16).astype(np.uint32) << 16
        return raw.view(np.float32).reshape(tuple(t.dims))
    arr = numpy_helper.to_array(t)
    return arr


def string_array(items, dims):
    arr = np.empty(len(items), dtype=object)
    arr[:] = [bytes(x) for x in items]
    return arr.reshape(dims)


def decode_output(raw, elem_type, dims):
    if elem_type == 8:
        n = int(np.prod(dims, dtype=np.int64))
        items = raw.split(b"\0")[:-1] if raw else []
        if len(items) != n:
            raise ValueError(f"{len(items)} strings for dims {dims}")
        return string_array(items, dims)
    if elem_type in SMALL_BITS:
        return small_codes(raw, elem_type, dims)
    dt = np_dtype(elem_type)
    arr = np.frombuffer(raw, dtype=dt).reshape(dims)
    if elem_type == 10:
        return arr.view(np.float16).astype(np.float32)
    if elem_type == 16:
        return (arr.astype(np.uint32) << 16).view(np.float32)
    if elem_type == 9:
        return arr.astype(bool)
    return arr


EXTRA_FLAGS = []  # --flag: extra onnxc flags for every case
WEIGHTS_FILE = False  # --weights-file: compile with --weights and bind the blob at run time
RUN_TIMEOUT = int(os.environ.get("ONNXC_RUN_TIMEOUT", "300"))  # seconds for one run of a case
MAX_REL_ERR = None  # --max-rel-err: norm-wise relative error instead of elementwise tolerance


def compare(got, want, is_float):
    if got.shape != want.shape:
        return f"shape {list(got.shape)} != expected {list(want.shape)}"
    if is_float and MAX_REL_ERR is not None:
        g = got.astype(np.float64)
        w = want.astype(np.float64)
        scale = np.max(np.abs(w)) if w.size else 0.0
        err = np.max(np.abs(g - w)) / scale if scale > 0 else np.max(np.abs(g - w), initial=0.0)
        if not np.isfinite(err) or err > MAX_REL_ERR:
            return f"relative error {err:.3g} > {MAX_REL_ERR:g} (max |got - expected| / max |expected|)"
        return None
    if is_float:
        g = got.astype(np.float64)
        w = want.astype(np.float64)
        if not np.allclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True):
            bad = ~np.isclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True)
            i = np.argmax(bad.reshape(-1))
            return (f"{int(bad.sum())} of {g.size} values differ; first at flat index {i}: "
                    f"got {g.reshape(-1)[i]!r}, expected {w.reshape(-1)[i]!r}")
        return None
    if want.dtype == object or got.dtype == object:  # strings: equal bytes
        g, w = list(got.reshape(-1)), list(want.reshape(-1))
        if g != w:
            i = next(k for k in range(len(g)) if g[k] != w[k])
            return f"{sum(a != b for a, b in zip(g, w))} of {len(g)} strings differ; first at {i}: got {g[i]!r}, expected {w[i]!r}"
        return None
    if want.dtype == bool:
        want = want.astype(bool)
        got = got.astype(bool)
    if not np.array_equal(got, want.astype(got.dtype) if got.dtype != want.dtype else want):
        bad = got.reshape(-1) != want.reshape(-1).astype(got.dtype)
        i = int(np.argmax(bad))
        return f"{int(bad.sum())} of {got.size} values differ; first at {i}: got {got.reshape(-1)[i]}, expected {want.reshape(-1)[i]}"
    return None


# element type names as onnxc spells them (--seq-input)
DTYPE_NAMES = {1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 8: "string",
               9: "bool", 10: "float16", 11: "double", 12: "uint32", 13: "uint64", 16: "bfloat16",
               17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2", 20: "float8e5m2fnuz", 21: "uint4",
               22: "int4", 23: "float4e2m1", 24: "float8e8m0", 25: "uint2", 26: "int2"}


class Val:
    """A test value: kind 'tensor' (t: TensorProto), 'sequence' (items: [TensorProto]) or
    'optional' (inner: a Val, or None when it holds nothing)."""

    def __init__(self, kind, t=None, items=None, inner=None):
        self.kind, self.t, self.items, self.inner = kind, t, items, inner


def type_kind(tp):
    """'tensor', 'sequence' or 'optional' for a TypeProto (None: a tensor)."""
    if tp is None:
        return "tensor"
    k = tp.WhichOneof("value")
    return {"sequence_type": "sequence", "optional_type": "optional"}.get(k, "tensor")


def parse_val(data, tp):
    """A serialized test value of type tp (a TypeProto, None: a tensor) as a Val."""
    kind = type_kind(tp)
    if kind == "sequence":
        sp = onnx.SequenceProto()
        sp.ParseFromString(data)
        return Val("sequence", items=list(sp.tensor_values))
    if kind == "optional":
        op = onnx.OptionalProto()
        op.ParseFromString(data)
        if op.HasField("tensor_value"):
            return Val("optional", inner=Val("tensor", t=op.tensor_value))
        if op.HasField("sequence_value"):
            return Val("optional", inner=Val("sequence", items=list(op.sequence_value.tensor_values)))
        return Val("optional", inner=None)
    t = onnx.TensorProto()
    t.ParseFromString(data)
    return Val("tensor", t=t)


def val_bytes(v):
    """What the harness reads for a value: a tensor's bytes, a sequence's items' bytes one after
    another (None: an optional without a value)."""
    if v.kind == "optional":
        return None if v.inner is None else val_bytes(v.inner)
    if v.kind == "sequence":
        return b"".join(tensor_bytes(x) for x in v.items)
    return tensor_bytes(v.t)


def seq_items_spec(v, tp):
    """--seq-input ITEMS for the sequence of sample v (or the one an optional holds), or None."""
    if v.kind == "optional":
        v = v.inner
        tp = tp.optional_type.elem_type if tp is not None else None
    if v is None or v.kind != "sequence":
        return None
    if not v.items:
        et = tp.sequence_type.elem_type.tensor_type.elem_type if tp is not None else 0
        return f"0:{DTYPE_NAMES.get(et, 'float')}[]" if et else None
    return ",".join(f"{DTYPE_NAMES[x.data_type]}[{','.join(str(d) for d in x.dims)}]" for x in v.items)


def run_cmd(cmd, cwd=None, timeout=120):
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, (p.stdout + p.stderr).strip()
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {timeout}s: {' '.join(cmd[:2])}"


def first_line(s):
    s = s.strip()
    s = s.splitlines()[0] if s else ""
    return re.sub(r"onnxc: error: \S*model\.onnx: ", "", s)


class Tools:
    def __init__(self, onnxc, harness_obj, rt_lib, include, cc, cflags, ldflags, wrapper, link_objs=()):
        self.onnxc, self.harness_obj, self.rt_lib, self.include, self.cc = onnxc, harness_obj, rt_lib, include, cc
        self.cflags, self.ldflags, self.wrapper = cflags, ldflags, wrapper
        self.link_objs = list(link_objs)  # --link: objects of extra C sources
        self.target = "c"
        self.save_build = self.use_build = None  # --save-build / --use-build folders (CUDA targets)
        self.same_as = None  # --same-as: the compiler whose output onnxc's must equal (nothing is built)


# --target cuda / cuda-emu: the CUDA backend, built with nvcc and run on the GPU, or built
# with g++ and run on the CPU through tests/cuda/emu (see tests/cuda/README.md)
CUDA_HOME = os.environ.get("CUDA_HOME", "/usr/local/cuda")
EMU = os.path.join(ROOT, "tests", "cuda", "emu")


def gpu_missing(work, cc, include, rt_cuda):
    """Why the GPU tests cannot run here (no nvcc, no runtime library, no device), or None."""
    nvcc = os.path.join(CUDA_HOME, "bin", "nvcc")
    if not os.path.exists(nvcc):
        return f"no nvcc in {CUDA_HOME}"
    if not os.path.exists(rt_cuda):
        return f"no {rt_cuda} (onnxc built without a CUDA toolkit)"
    src = os.path.join(work, "probe.c")
    with open(src, "w") as f:
        f.write('#include "onnxc_rt_cuda.h"\nint main(void) { return onnxc_cuda_available() ? 0 : 77; }\n')
    exe = os.path.join(work, "probe")
    lib = os.path.join(CUDA_HOME, "lib64")
    rc, msg = run_cmd([cc, "-I", include, src, rt_cuda, "-L", lib, f"-Wl,-rpath,{lib}", "-lcublas", "-lnvrtc", "-lcudart",
                       "-o", exe])
    if rc:
        return f"cannot build the device probe: {first_line(msg)}"
    rc, _ = run_cmd([exe])
    return "no CUDA device" if rc else None


def build_cuda(tools, src, exe, name="", key=""):
    """Builds the generated .cu (.c for cuda-nvrtc) with its harness; returns (rc, message).
    With --use-build, takes the executable that --save-build stored for this case instead,
    when it was built for the same compile-time inputs (key)."""
    if tools.use_build:
        pre = None
        for kf in sorted(glob.glob(os.path.join(tools.use_build, name, "model*.key"))):
            with open(kf) as fh:
                if fh.read() == key:
                    pre = kf[:-4]
        if pre is None:
            return 1, f"no executable in {os.path.join(tools.use_build, name)} built for these compile-time inputs"
        if os.path.lexists(exe):
            os.remove(exe)
        os.symlink(os.path.abspath(pre), exe)  # not a copy: a write fd that a concurrent fork
        return 0, ""                            # inherits makes the exec fail (ETXTBSY)
    lib = os.path.join(CUDA_HOME, "lib64")
    if tools.target == "cuda-nvrtc":
        rc, msg = run_cmd([tools.cc, "-std=c99", "-O1", "-I", tools.include, "-I", os.path.join(CUDA_HOME, "include"),
                           "-c", src, "-o", src + ".o"], timeout=600)
        if rc:
            return rc, msg
        return run_cmd([tools.cc, src + ".o", tools.harness_obj, tools.rt_lib, tools.rt_c, "-L", lib, f"-Wl,-rpath,{lib}",
                        "-lcublas", "-lnvrtc", "-lcudart", "-lm", "-lpthread", "-o", exe])
    if tools.target == "cuda-emu":
        cmd = ["g++", "-x", "c++", "-std=c++17", "-O1", "-w", "-include", os.path.join(EMU, "cuda_emu.h"),
               "-I", tools.include, "-c", src, "-o", src + ".o"]
        rc, msg = run_cmd(cmd, timeout=600)
        if rc:
            return rc, msg
        return run_cmd(["g++", src + ".o", tools.harness_obj, tools.rt_lib, tools.rt_c, "-lm", "-o", exe])
    arch = os.environ.get("ONNXC_CUDA_ARCH", "native")
    cmd = [os.path.join(CUDA_HOME, "bin", "nvcc"), "-std=c++17", "-O2", f"-arch={arch}", *nvcc_flags(src), "-I", tools.include,
           src, tools.harness_obj, tools.rt_lib, tools.rt_c,
           "-cudart=shared", "-lcublas", "-lnvrtc", "-o", exe]
    return run_cmd(cmd, timeout=1800)


def nvcc_flags(cu_path):
    """The nvcc flags a generated .cu asks for in its "onnxc-nvcc-flags:" line (the JPEG 2000
    decoder's -Ofast-compile=min), or none."""
    with open(cu_path, errors="replace") as f:
        for _ in range(4):
            m = re.search(r"onnxc-nvcc-flags: (\S+)", f.readline())
            if m:
                return m.group(1).split(",")
    return []


def symbolic_size(model, param, by_name):
    """The size a symbolic input dimension has in this data set."""
    for inp in model.graph.input:
        for i, d in enumerate(inp.type.tensor_type.shape.dim):
            if d.dim_param == param and inp.name in by_name and by_name[inp.name][1].t is not None:
                dims = by_name[inp.name][1].t.dims
                if i < len(dims):
                    return dims[i]
    return None


def list_cases(suites):
    """Case folders: each suite is a case folder (model.onnx) or a folder of them."""
    cases = []
    for s in suites:
        if os.path.exists(os.path.join(s, "model.onnx")):
            cases.append(s)
        else:
            cases += sorted(d for d in glob.glob(os.path.join(s, "*")) if os.path.exists(os.path.join(d, "model.onnx")))
    return cases


def bind_for_retry(msg, model, by_name, const, dims, seqs=None):
    """When onnxc's error asks for a symbolic dim's size, a compile-time input or a sequence
    input's items that the data set has, records it in dims / const / seqs (NAME -> size /
    input file / ITEMS) and returns True."""
    d = re.search(r"symbolic dimension '([^']+)'; give its size with --dim", msg)
    if d and model is not None and d.group(1) not in dims:
        size = symbolic_size(model, d.group(1), by_name)
        if size is not None:
            dims[d.group(1)] = size
            return True
    for m in re.finditer(r"--const-input (\S+?)=FILE\.pb", msg):
        if m.group(1) in by_name and m.group(1) not in const and by_name[m.group(1)][1].kind == "tensor":
            const[m.group(1)] = by_name[m.group(1)][0]
            return True
    m = re.search(r"--seq-input (\S+?)=ITEMS", msg)
    if m and seqs is not None and m.group(1) in by_name and m.group(1) not in seqs and model is not None:
        tp = next((i.type for i in model.graph.input if i.name == m.group(1)), None)
        spec = seq_items_spec(by_name[m.group(1)][1], tp)
        if spec is not None:
            seqs[m.group(1)] = spec
            return True
    return False


def run_case(case_dir, tools, keep):
    name = os.path.basename(case_dir.rstrip("/"))
    model_path = os.path.join(case_dir, "model.onnx")
    try:
        model = onnx.load(model_path, load_external_data=False)
    except Exception as e:  # noqa: BLE001
        return name, False, f"onnx cannot load the model: {e}"
    init_names = {t.name for t in model.graph.initializer}
    in_vis = [i for i in model.graph.input if i.name not in init_names]
    in_names = [i.name for i in in_vis]
    in_types = [i.type for i in in_vis]
    outputs = list(model.graph.output)
    case_flags = []
    flags_path = os.path.join(case_dir, "onnxc_flags.txt")
    if os.path.exists(flags_path):
        with open(flags_path) as fh:
            case_flags = shlex.split(fh.read(), comments=True)
        outputs = []  # the flags may change the outputs: names and types come from the data
    sets = sorted(glob.glob(os.path.join(case_dir, "test_data_set_*")))
    if not sets:
        return name, False, "no test data sets"
    work = tempfile.mkdtemp(prefix="onnxc_conf_")
    try:
        built_for = None  # const-input binding the current binary was built for
        exe = os.path.join(work, "model")
        for ds in sets:
            in_files = sorted(glob.glob(os.path.join(ds, "input_*.pb")), key=lambda p: int(re.findall(r"(\d+)\.pb$", p)[0]))
            out_files = sorted(glob.glob(os.path.join(ds, "output_*.pb")), key=lambda p: int(re.findall(r"(\d+)\.pb$", p)[0]))
            by_name = {}
            for j, f in enumerate(in_files):
                tp = in_types[j] if j < len(in_types) else None
                with open(f, "rb") as fh:
                    v = parse_val(fh.read(), tp)
                nm = in_names[j] if j < len(in_names) else (v.t.name if v.t is not None else f"input_{j}")
                by_name[nm] = (f, v)
            const = {}
            dims_bound = {}
            seqs = {}
            # compile (retrying with compile-time inputs bound and symbolic dims sized)
            for _attempt in range(8):
                key = (tuple(sorted(const.items())), tuple(sorted(dims_bound.items())), tuple(sorted(seqs.items())))
                if built_for == key:
                    break
                c_path = os.path.join(work, "model.c" if tools.target in ("c", "cuda-nvrtc") else "model.cu")
                cmd = [tools.onnxc, model_path, "-o", c_path, "--name", "model"] + case_flags + EXTRA_FLAGS
                if tools.target != "c":
                    cmd += ["--target", "cuda-nvrtc" if tools.target == "cuda-nvrtc" else "cuda"]
                if WEIGHTS_FILE:
                    cmd += ["--weights", os.path.join(work, "weights.bin")]
                for k, v in const.items():
                    cmd += ["--const-input", f"{k}={v}"]
                for k, v in dims_bound.items():
                    cmd += ["--dim", f"{k}={v}"]
                for k, v in seqs.items():
                    cmd += ["--seq-input", f"{k}={v}"]
                rc, msg = run_cmd(cmd)
                if rc < 0 or rc > 128 or "internal error" in msg or "Sanitizer" in msg or "runtime error:" in msg:
                    bad = [l for l in msg.splitlines() if "Sanitizer" in l or "runtime error:" in l or "internal error" in l]
                    return name, False, f"onnxc crashed (status {rc}): {(bad or [first_line(msg)])[0]}"
                if tools.same_as:
                    why = same_output(tools, cmd, work, rc, msg)
                    if why:
                        return name, False, why
                if rc != 0:
                    if bind_for_retry(msg, model, by_name, const, dims_bound, seqs):
                        continue
                    return name, False, f"compile: {first_line(msg)}"
                if tools.same_as:  # the plain compiler's suite run builds and runs this code
                    built_for = key
                    break
                if tools.target != "c":
                    # the key without where the data lie (prebuilt here, run on another machine)
                    pkey = repr((tuple((k, os.path.relpath(v, case_dir)) for k, v in key[0]),) + key[1:])
                    rc, msg = build_cuda(tools, c_path, exe, name, pkey)
                    if rc != 0:
                        return name, False, f"build: {first_line(msg)}"
                    built_for = key
                    if tools.save_build:  # one executable per distinct set of compile-time inputs
                        d = os.path.join(tools.save_build, name)
                        os.makedirs(d, exist_ok=True)
                        i = len(glob.glob(os.path.join(d, "model*.key")))
                        shutil.copy(exe, os.path.join(d, f"model{i}"))
                        with open(os.path.join(d, f"model{i}.key"), "w") as fh:
                            fh.write(pkey)
                    break
                rc, msg = run_cmd([tools.cc] + CFLAGS + tools.cflags + ["-I", tools.include, "-c", c_path, "-o", c_path + ".o"])
                if rc != 0:
                    return name, False, f"cc: {first_line(msg)}"
                rc, msg = run_cmd([tools.cc, c_path + ".o", tools.harness_obj] + tools.link_objs + [tools.rt_lib, "-lm", "-o", exe] + tools.ldflags)
                if rc != 0:
                    return name, False, f"link: {first_line(msg)}"
                built_for = key
                break
            else:
                return name, False, "compile: too many compile-time inputs"
            if tools.save_build or tools.same_as:  # built for another machine, or not built at all
                continue
            args = tools.wrapper + [exe, work]
            if WEIGHTS_FILE:
                args.append("__weights=" + os.path.join(work, "weights.bin"))
            for nm, (f, v) in by_name.items():
                if nm in const:
                    continue
                data = val_bytes(v)
                if data is None:  # an optional without a value
                    args.append(f"{nm}=-")
                    continue
                raw = os.path.join(work, f"in_{len(args) - len(tools.wrapper)}.bin")
                with open(raw, "wb") as fh:
                    fh.write(data)
                args.append(f"{nm}={raw}")
            if tools.wrapper and tools.target == "c" and len(" ".join(args)) > 200:
                # emulators may pass only a short command line (ARM semihosting: 255 bytes)
                resp = os.path.join(work, "args.txt")
                with open(resp, "w") as fh:
                    fh.write("\n".join(args[len(tools.wrapper) + 2:]) + "\n")
                args = args[:len(tools.wrapper) + 2] + ["@" + resp]
            rc, msg = run_cmd(args, timeout=RUN_TIMEOUT)
            if rc == 77 and tools.target in ("cuda", "cuda-nvrtc"):
                return name, None, "no CUDA device"
            if rc != 0:
                return name, False, f"run ({os.path.basename(ds)}): status {rc}: {first_line(msg)}"
            j = 0  # flat output index of the CUDA targets: a sequence output is one output per item
            for k, f in enumerate(out_files):
                with open(f, "rb") as fh:
                    data = fh.read()
                otype = outputs[k].type if k < len(outputs) else None
                want = parse_val(data, otype)
                oname = outputs[k].name if k < len(outputs) else (want.t.name if want.t is not None else "?")
                if tools.target == "c":
                    err = compare_port(work, k, want, otype)
                    if err:
                        return name, False, f"output {k} ({oname}), {os.path.basename(ds)}: {err}"
                    continue
                if want.kind == "optional":  # flat: NAME.has_value, then NAME.value or NAME.value[i]
                    flat = []
                    if os.path.exists(os.path.join(work, "outputs.txt")):
                        with open(os.path.join(work, "outputs.txt")) as fh:
                            flat = fh.read().split("\n")
                    if j >= len(flat) or flat[j] != oname + ".has_value":
                        return name, False, f"output {k} ({oname}): no flat output {oname}.has_value"
                    err = compare_file(work, f"out_{j}", numpy_helper.from_array(np.array(want.inner is not None)), 9)
                    if err:
                        return name, False, f"output {k} ({oname}.has_value), {os.path.basename(ds)}: {err}"
                    j += 1
                    nc = 0
                    while j + nc < len(flat) and (flat[j + nc] == oname + ".value" or flat[j + nc].startswith(oname + ".value[")):
                        nc += 1
                    if want.inner is None:
                        j += nc
                        continue
                    wants = want.inner.items if want.inner.kind == "sequence" else [want.inner.t]
                    if len(wants) != nc:
                        return name, False, f"output {k} ({oname}): {nc} content outputs, expected {len(wants)}"
                else:
                    wants = want.items if want.kind == "sequence" else [want.t]
                for w in wants:
                    et = w.data_type
                    if want.kind == "tensor" and otype is not None:
                        et = otype.tensor_type.elem_type
                    if not os.path.exists(os.path.join(work, f"out_{j}.dims")):
                        return name, False, f"output {k}: the model gives fewer outputs than expected"
                    err = compare_file(work, f"out_{j}", w, et)
                    if err:
                        return name, False, f"output {k} ({oname}) item {j}, {os.path.basename(ds)}: {err}"
                    j += 1
        return name, True, ""
    except Exception as e:  # noqa: BLE001
        return name, False, f"runner: {type(e).__name__}: {e}"
    finally:
        if keep:
            print(f"  kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def same_output(tools, cmd, work, rc, msg):
    """--same-as: runs the reference compiler with onnxc's command line, writing into WORK/ref;
    returns why the two differ ('' when they wrote the same files, or failed the same way)."""
    ref = os.path.join(work, "ref")
    os.makedirs(ref, exist_ok=True)
    outs = [i + 1 for i, a in enumerate(cmd[:-1]) if a in ("-o", "--weights")]
    rcmd = [tools.same_as] + [os.path.join(ref, os.path.basename(a)) if i in outs else a
                              for i, a in enumerate(cmd) if i > 0]
    rrc, rmsg = run_cmd(rcmd)
    if (rc == 0) != (rrc == 0):
        return (f"sanitized onnxc differs: it {'succeeded' if rc == 0 else 'failed'} where "
                f"{os.path.basename(tools.same_as)} {'succeeded' if rrc == 0 else 'failed'}: "
                f"{first_line(msg if rc else rmsg)}")
    if rc != 0:
        if msg.replace(work, "") != rmsg.replace(ref, "").replace(work, ""):
            return f"sanitized onnxc differs: error '{first_line(msg)}', reference '{first_line(rmsg)}'"
        return ""
    for i in outs:
        mine = cmd[i]
        files = [mine] + ([os.path.splitext(mine)[0] + ".h"] if cmd[i - 1] == "-o" else [])
        for f in files:
            g = os.path.join(ref, os.path.basename(f))
            if os.path.exists(f) != os.path.exists(g):
                return f"sanitized onnxc differs: {os.path.basename(f)} written by only one compiler"
            if os.path.exists(f):
                with open(f, "rb") as a, open(g, "rb") as b:
                    if a.read() != b.read():
                        return f"sanitized onnxc differs: {os.path.basename(f)} is not the reference's"
    return ""


def compare_file(work, stem, want, et):
    """Compares the harness's WORK/STEM.{dims,bin} with TensorProto want (element type et)."""
    with open(os.path.join(work, stem + ".dims")) as fh:
        dims = [int(x) for x in fh.read().split()]
    with open(os.path.join(work, stem + ".bin"), "rb") as fh:
        raw = fh.read()
    got = decode_output(raw, et, dims)
    return compare(got, to_compare(want), et in (1, 10, 11, 16))


def read_count(work, name):
    """The integer the harness wrote to WORK/NAME (an optional's has_value, a sequence's count),
    or None when it wrote no such file (the output is not of that kind)."""
    path = os.path.join(work, name)
    if not os.path.exists(path):
        return None
    with open(path) as fh:
        return int(fh.read().split()[0])


def compare_port(work, k, want, otype):
    """Compares output K as the harness wrote it (a tensor, a sequence or an optional) with Val
    want; returns a message or None."""
    stem = f"out_{k}"
    if want.kind == "optional":
        has = read_count(work, stem + ".has")
        if has is None:
            return "expected an optional; the model gives something else"
        if want.inner is None:
            return None if has == 0 else "holds a value; expected an empty optional"
        if has != 1:
            return f"has_value {has}; expected a value"
        want = want.inner
        otype = otype.optional_type.elem_type if otype is not None else None
    if want.kind == "sequence":
        cnt = read_count(work, stem + ".count")
        if cnt is None:
            return "expected a sequence; the model gives something else"
        if cnt != len(want.items):
            return f"a sequence of {cnt} items; expected {len(want.items)}"
        for j, w in enumerate(want.items):
            err = compare_file(work, f"{stem}_{j}", w, w.data_type)
            if err:
                return f"item {j}: {err}"
        return None
    if not os.path.exists(os.path.join(work, stem + ".dims")):
        return "the model gives fewer outputs than expected"
    et = otype.tensor_type.elem_type if otype is not None and otype.HasField("tensor_type") else want.t.data_type
    return compare_file(work, stem, want.t, et)


def uses_structure(case_dir):
    """True when the case's model has sequence or optional inputs, or optional outputs (the CUDA
    backend refuses them; it returns a sequence output as one output per item)."""
    try:
        m = onnx.load(os.path.join(case_dir, "model.onnx"), load_external_data=False)
    except Exception:  # noqa: BLE001
        return False
    init = {t.name for t in m.graph.initializer}
    return (any(type_kind(i.type) != "tensor" for i in m.graph.input if i.name not in init) or
            any(type_kind(o.type) == "optional" for o in m.graph.output))


def covering(cases):
    """A deterministic subset in which every op type of the cases (with its domain, top graph
    and subgraphs) occurs: cases in name order, each kept when it brings an op type not seen."""
    import onnx

    def ops(g, out):
        for n in g.node:
            out.add((n.domain, n.op_type))
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    ops(a.g, out)
                for sg in a.graphs:
                    ops(sg, out)
        return out

    seen, keep = set(), []
    for c in sorted(cases, key=lambda c: os.path.basename(c.rstrip("/"))):
        try:
            m = onnx.load(os.path.join(c, "model.onnx"), load_external_data=False)
        except Exception:  # noqa: BLE001
            continue
        new = ops(m.graph, set()) - seen
        if new:
            seen |= new
            keep.append(c)
    return keep


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("suites", nargs="+", help="folders of cases (or single case folders)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("--cflags", default="",
                    help="extra C flags for the generated code (e.g. '-O3 -march=native' to test the SIMD paths)")
    ap.add_argument("--ldflags", default="", help="extra link flags (e.g. -static for --run-wrapper qemu-aarch64)")
    ap.add_argument("--run-wrapper", default="",
                    help="command that runs the built programs (an emulator such as qemu-aarch64); the runtime "
                         "library is then built from source with --cc")
    ap.add_argument("-k", "--filter", default=None, help="regex on case names")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--ratchet", default=None, help="file of cases that must pass")
    ap.add_argument("--update-ratchet", action="store_true")
    ap.add_argument("--prefix", default="", help="prefix for case names (to tell suites apart)")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("-q", "--quiet", action="store_true", help="print only failures of ratchet cases")
    ap.add_argument("--onnxc", default=None, help="onnxc executable (default: BUILD/onnxc)")
    ap.add_argument("--max-rel-err", type=float, default=None,
                    help="compare floats by max|got-want|/max|want| instead of rtol/atol")
    ap.add_argument("--require-all", action="store_true", help="fail unless every case passes")
    ap.add_argument("--flag", action="append", default=[], help="extra onnxc flag (repeatable)")
    ap.add_argument("--weights-file", action="store_true", help="compile with --weights FILE.bin")
    ap.add_argument("--link", action="append", default=[],
                    help="C source built with the strict flags and linked into every case (repeatable)")
    ap.add_argument("--cover", action="store_true",
                    help="also (or, without -k, only) a subset of the cases in which every op type occurs")
    ap.add_argument("--target", choices=["c", "cuda", "cuda-nvrtc", "cuda-emu"], default="c",
                    help="cuda: onnxc --target cuda, nvcc, run on the GPU (exit 77 without one); "
                         "cuda-nvrtc: onnxc --target cuda-nvrtc, the host C built with --cc, kernels "
                         "compiled by NVRTC at create, run on the GPU; "
                         "cuda-emu: the .cu built with g++ and run on the CPU (tests/cuda/emu)")
    ap.add_argument("--save-build", default=None, metavar="DIR",
                    help="CUDA targets: build each case's executables (one per distinct set of compile-time "
                         "inputs of its data sets) into DIR/CASE/modelN (+ .key) and run nothing "
                         "(no GPU needed), for --use-build on a GPU machine")
    ap.add_argument("--use-build", default=None, metavar="DIR",
                    help="CUDA targets: run the executables that --save-build stored in DIR instead of "
                         "building them (onnxc still runs, to bind compile-time inputs)")
    ap.add_argument("--log", default=None, metavar="FILE",
                    help="append each case's result line to FILE as soon as it is known")
    ap.add_argument("--same-as", default=None, metavar="ONNXC",
                    help="run ONNXC beside --onnxc on every case and require the same files or the "
                         "same error; nothing is built or run (the sanitized compiler's runs)")
    ap.add_argument("--no-crash", action="store_true",
                    help="fail when onnxc crashes or a sanitizer reports on any case, listed or not")
    args = ap.parse_args()

    cases = list_cases(args.suites)
    if args.filter or args.cover:
        chosen = [c for c in cases if args.filter and re.search(args.filter, os.path.basename(c))]
        if args.cover:
            pool = cases
            if args.ratchet and os.path.exists(args.ratchet):  # cover with cases that must pass
                with open(args.ratchet) as fh:
                    listed = {l.strip() for l in fh if l.strip() and not l.startswith("#")}
                pool = [c for c in cases if args.prefix + os.path.basename(c.rstrip("/")) in listed]
            chosen = sorted(set(chosen) | set(covering(pool)))
        cases = chosen

    global MAX_REL_ERR, EXTRA_FLAGS
    MAX_REL_ERR = args.max_rel_err
    EXTRA_FLAGS = list(args.flag)
    global WEIGHTS_FILE
    WEIGHTS_FILE = args.weights_file
    build = os.path.abspath(args.build)
    onnxc = os.path.abspath(args.onnxc) if args.onnxc else os.path.join(build, "onnxc")
    rt_lib = os.path.join(build, "libonnxc_rt.a")
    include = os.path.join(ROOT, "runtime_min")
    hdir = tempfile.mkdtemp(prefix="onnxc_harness_")
    harness_obj = os.path.join(hdir, "harness.o")
    if args.target == "c":
        rc, msg = run_cmd([args.cc, "-O1", "-std=c11", "-I", include, "-c", os.path.join(HERE, "harness.c"), "-o", harness_obj])
        if rc == 0 and args.run_wrapper:  # another target: BUILD's runtime library is the host's
            rt_lib = os.path.join(hdir, "onnxc_rt.o")
            rc, msg = run_cmd([args.cc] + CFLAGS + ["-O2", "-I", include, "-c", os.path.join(include, "onnxc_rt.c"), "-o", rt_lib])
    else:
        harness = os.path.join(ROOT, "tests", "cuda", "harness_cuda.c")
        if args.target == "cuda-emu":
            rt_lib = os.path.join(hdir, "rt_emu.o")
            rc, msg = run_cmd(["g++", "-O1", "-std=c++17", "-I", include, "-I", EMU, "-c", os.path.join(EMU, "rt_emu.cpp"), "-o", rt_lib])
        else:
            rt_lib = os.path.join(build, "libonnxc_rt_cuda.a")
            skip = None if args.save_build else gpu_missing(hdir, args.cc, include, rt_lib)
            if skip:
                print(f"SKIP: {skip}")
                print("0 passed, 0 failed, 0 skipped")
                sys.exit(77)
            rc, msg = 0, ""
        if rc == 0:
            rc, msg = run_cmd([args.cc, "-O1", "-std=c11", "-I", include, "-c", harness, "-o", harness_obj])
    if rc != 0:
        print(msg)
        sys.exit(2)
    link_objs = []
    for k, src in enumerate(args.link):
        obj = os.path.join(hdir, f"link{k}.o")
        rc, msg = run_cmd([args.cc] + CFLAGS + args.cflags.split() + ["-I", include, "-c", src, "-o", obj])
        if rc != 0:
            print(f"--link {src}: {msg}")
            sys.exit(2)
        link_objs.append(obj)
    # the portable runs (no --cflags) build at the -O1 of CFLAGS: without ONNXC_KEEP_OPT_LEVEL the
    # generated files' #pragma (codegen/c/emit_c.c emit_opt_level) builds them at -O3 on x86-64,
    # which took thousands of test models two to four times as long to compile; the runs with
    # --cflags (native SIMD) build as users do, with it
    cflags = args.cflags.split() or ["-DONNXC_KEEP_OPT_LEVEL"]
    tools = Tools(onnxc, harness_obj, rt_lib, include, args.cc, cflags, args.ldflags.split(),
                  shlex.split(args.run_wrapper), link_objs)
    tools.target = args.target
    if args.target in ("cuda", "cuda-nvrtc"):
        tools.save_build = os.path.abspath(args.save_build) if args.save_build else None
        tools.use_build = os.path.abspath(args.use_build) if args.use_build else None
    tools.rt_c = os.path.join(build, "libonnxc_rt.a")
    tools.same_as = os.path.abspath(args.same_as) if args.same_as else None

    ratchet = set()
    if args.ratchet and os.path.exists(args.ratchet):
        with open(args.ratchet) as fh:
            ratchet = {l.strip() for l in fh if l.strip() and not l.startswith("#")}

    results = {}
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        futs = {ex.submit(run_case, c, tools, args.keep): c for c in cases}
        for fut in cf.as_completed(futs):
            name, ok, why = fut.result()
            results[args.prefix + name] = (ok, why)
            if args.log:
                with open(args.log, "a") as fh:
                    fh.write(f"{'SKIP' if ok is None else 'PASS' if ok else 'FAIL'} {args.prefix}{name}{': ' + why if why else ''}\n")
    shutil.rmtree(hdir, ignore_errors=True)

    skipped = sorted(n for n, (ok, _) in results.items() if ok is None)
    if skipped and len(skipped) == len(results):
        print(f"SKIP: {results[skipped[0]][1]}")
        print(f"0 passed, 0 failed, {len(skipped)} skipped")
        sys.exit(77)
    results = {n: r for n, r in results.items() if r[0] is not None}
    passed = sorted(n for n, (ok, _) in results.items() if ok)
    failed = sorted(n for n, (ok, _) in results.items() if not ok)
    regressions = sorted(n for n in failed if n in ratchet)
    for n in sorted(results):
        ok, why = results[n]
        if args.quiet and (ok or n not in ratchet):
            continue
        print(f"{'PASS' if ok else 'FAIL'} {n}{'' if ok else ': ' + why}")
    if args.ratchet:
        if regressions:
            print(f"REGRESSIONS ({len(regressions)}): cases in {args.ratchet} that no longer pass:")
            for n in regressions:
                print(f"  {n}: {results[n][1]}")
        if args.update_ratchet:
            keep = {n for n in ratchet if n not in results}  # cases of other suites
            with open(args.ratchet, "w") as fh:
                fh.write("# conformance cases that pass; CI fails when one of them fails\n")
                for n in sorted(keep | set(passed)):
                    fh.write(n + "\n")
    crashed = sorted(n for n in failed if results[n][1].startswith(("onnxc crashed", "sanitized onnxc differs")))
    if args.no_crash and crashed:
        print(f"CRASHES ({len(crashed)}):")
        for n in crashed:
            print(f"  {n}: {results[n][1]}")
    print(f"{len(passed)} passed, {len(failed)} failed")
    sys.exit(1 if regressions or (args.require_all and (failed or not cases)) or (args.no_crash and crashed) else 0)


if __name__ == "__main__":
    main()
