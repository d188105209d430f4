#!/usr/bin/env python3
"""CUDA speed: onnxc --target cuda against PyTorch eager on the same GPU, in one run.

For ResNet-18 and MobileNetV2 (torchvision, random weights, eval mode) and the 2-layer
transformer encoder of bench/export_models.py and a small upsampling decoder (ConvTranspose,
bilinear Resize, Conv), at batch 1 and batch 32 (fixed shapes):
  - this Python's torch builds the model on the GPU, exports it to ONNX (opset 17) and runs it
    eagerly under no_grad (TF32 off for matmuls and cuDNN, so both sides compute in fp32);
  - onnxc compiles the ONNX file with --target cuda, nvcc builds it (-O3, -arch=native) with
    bench/cuda_time.c and the CUDA runtime part (runtime_min/onnxc_rt_cuda.c);
  - both run the same random input; onnxc's output must match PyTorch's within 1e-3
    (max |onnxc - torch| / max |torch|), else the row says MISMATCH;
  - latency: each iteration is one inference then a sync (onnxc: net_cuda_run on bound device
    buffers, replaying the CUDA graph captured after the first run, + stream sync; PyTorch:
    model(x) + torch.cuda.synchronize()), wall clock, median over --iters after warm-up.
    onnxc is also timed with TF32 GEMMs (opt.tf32) as a second column.
Prints a table (ms per inference and PyTorch / onnxc).  Exits 77 when there is no CUDA device.

onnxc itself needs protobuf-c to build, which GPU images may lack: build it where it builds,
linked statically against protobuf-c so that it runs on the GPU machine, e.g.
  cmake -S . -B build-gpu -DPROTOBUF_C_LIB=/usr/lib/x86_64-linux-gnu/libprotobuf-c.a -DBUILD_TESTING=OFF
  cmake --build build-gpu -j2
and pass --build build-gpu (see tests/cuda/README.md).

Two-machine form, for GPU machines that are lent for minutes (nothing is compiled there):
  here:  /usr/bin/python3 bench/cuda_speed.py --prebuild DIR [--build build]
         exports each model and batch with this machine's torch (CPU), writes PyTorch's CPU output
         as the reference, and builds the timing executables with nvcc for --arch (default sm_90;
         cudart shared).  The weights are rounded to 17 levels per tensor (multiples of max|w|/8)
         and the input to multiples of 1/4, so that the executables and inputs compress for
         transport; speed does not depend on the values.
  there: python3 bench/cuda_speed.py --prebuilt DIR
         times PyTorch eager on that GPU (the same architecture and rounding, its own torch's
         initialization) and the prebuilt executables; the error column compares onnxc's GPU
         output with the PyTorch CPU reference of the same weights.

usage: python3 bench/cuda_speed.py [--build build] [--iters 100] [--batch 1 32] [NAME...]
       NAME: resnet18, mobilenet_v2, transformer_encoder, upsample_decoder
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import concurrent.futures as cf
import json

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")


class Decoder(torch.nn.Module):
    """A small upsampling head: ConvTranspose (4x4, stride 2), bilinear Resize x2, 3x3 Conv
    (the ops of segmentation decoders that CUDA runs as their own gather kernels)."""

    def __init__(self):
        super().__init__()
        nn = torch.nn
        self.up = nn.ConvTranspose2d(32, 16, 4, stride=2, padding=1)
        self.conv = nn.Conv2d(16, 8, 3, padding=1)

    def forward(self, x):
        y = torch.relu(self.up(x))
        y = torch.nn.functional.interpolate(y, scale_factor=2.0, mode="bilinear", align_corners=False)
        return self.conv(y)


def models():
    import torchvision.models as tv
    sys.path.insert(0, HERE)
    from export_models import Encoder  # noqa: E402
    return {
        "resnet18": (tv.resnet18, lambda b: (b, 3, 224, 224)),
        "mobilenet_v2": (tv.mobilenet_v2, lambda b: (b, 3, 224, 224)),
        "transformer_encoder": (Encoder, lambda b: (b, 64, 128)),
        "upsample_decoder": (Decoder, lambda b: (b, 32, 16, 16)),
    }


def sh(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode not in (0, 77):
        raise RuntimeError(f"{' '.join(cmd[:3])}...: status {p.returncode}: {(p.stdout + p.stderr)[-2000:]}")
    return p.returncode, p.stdout


def export(model, x, path):
    kw = dict(opset_version=17, input_names=["input"], output_names=["output"])
    try:
        torch.onnx.export(model, x, path, dynamo=False, **kw)
    except TypeError:  # older torch: no dynamo argument
        torch.onnx.export(model, x, path, **kw)


def torch_latency(model, x, iters):
    with torch.no_grad():
        for _ in range(10):
            model(x)
        torch.cuda.synchronize()
        t = []
        for _ in range(iters):
            t0 = time.perf_counter()
            y = model(x)
            torch.cuda.synchronize()
            t.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(t), y


def quantize(model):
    """Rounds every float parameter and buffer to a multiple of max|w|/8 (17 levels)."""
    with torch.no_grad():
        for t in model.state_dict().values():
            if t.is_floating_point() and t.numel() > 1:
                s = t.abs().max() / 8
                if s > 0:
                    t.copy_(torch.round(t / s) * s)
    return model


def runtime_objs(work):
    inc = ["-I", os.path.join(ROOT, "runtime_min")]
    rt = [os.path.join(work, "onnxc_rt.o"), os.path.join(work, "onnxc_rt_cuda.o"), os.path.join(work, "onnxc_rt_cuda_str.o")]
    sh(["cc", "-O2", "-c", os.path.join(ROOT, "runtime_min", "onnxc_rt.c"), "-o", rt[0]] + inc)
    for src, obj in (("onnxc_rt_cuda.c", rt[1]), ("onnxc_rt_cuda_str.c", rt[2])):
        sh(["cc", "-O2", "-c", os.path.join(ROOT, "runtime_min", src), "-o", obj, "-I", os.path.join(CUDA, "include")] + inc)
    return rt, inc


def build_timer(onnxc, onnx_path, d, arch, rt, inc):
    """onnxc --target cuda + nvcc with cuda_time.c: d/time.  Returns the seconds it took."""
    t0 = time.time()
    sh([onnxc, onnx_path, "--target", "cuda", "-o", os.path.join(d, "model.cu"), "--name", "model"])
    sh([os.path.join(CUDA, "bin", "nvcc"), "-O3", "-std=c++17", f"-arch={arch}", os.path.join(d, "model.cu"),
        os.path.join(HERE, "cuda_time.c"), *rt, *inc, "-cudart=shared", "-lcublas", "-lnvrtc", "-o", os.path.join(d, "time")])
    os.remove(os.path.join(d, "model.cu"))
    return time.time() - t0


def time_onnxc(d, iters):
    res = []
    for tf32 in (0, 1):
        rc, out = sh([os.path.join(d, "time"), os.path.join(d, "in.bin"), os.path.join(d, f"out{tf32}.bin"), str(iters), str(tf32)])
        if rc == 77:
            print("SKIP: no CUDA device (onnxc)")
            sys.exit(77)
        res.append(float(out.split()[0]))
    return res


def rel_err(got, want):
    want = want.reshape(-1)
    if got.size != want.size:
        return float("inf")
    return float(np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30))


HEADER = f"{'model':<22} {'batch':>5} {'torch ms':>9} {'onnxc ms':>9} {'speedup':>8} {'onnxc tf32':>10} {'rel err':>9} {'compile s':>9}"


def row(name, b, t_torch, res, err, compile_s):
    ok = err <= 1e-3
    print(f"{name:<22} {b:>5} {t_torch:>9.3f} {res[0]:>9.3f} {t_torch / res[0]:>7.2f}x {res[1]:>10.3f} "
          f"{err:>9.2e} {compile_s:>9.1f}{'' if ok else '  MISMATCH'}", flush=True)
    return ok


def prebuild(args, names):
    """Here (CPU torch, nvcc, no GPU): exports, references and timing executables into args.prebuild."""
    out = os.path.abspath(args.prebuild)
    os.makedirs(out, exist_ok=True)
    onnxc = os.path.join(os.path.abspath(args.build), "onnxc")
    rt, inc = runtime_objs(out)
    table, jobs = models(), []
    for name in names:
        ctor, shape = table[name]
        torch.manual_seed(0)
        model = quantize(ctor().eval())
        for b in args.batch:
            d = os.path.join(out, f"{name}_b{b}")
            os.makedirs(d, exist_ok=True)
            x = torch.round(torch.randn(*shape(b), generator=torch.Generator().manual_seed(1)) * 4) / 4
            export(model, x, os.path.join(d, "model.onnx"))
            with torch.no_grad():
                y = model(x)
            x.numpy().astype(np.float32).tofile(os.path.join(d, "in.bin"))
            y.numpy().astype(np.float32).tofile(os.path.join(d, "ref.bin"))
            jobs.append((name, b, d))
    arch = "sm_90" if args.arch == "native" else args.arch
    with cf.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        secs = list(ex.map(lambda j: build_timer(onnxc, os.path.join(j[2], "model.onnx"), j[2], arch, rt, inc), jobs))
    for (name, b, d), t in zip(jobs, secs):
        os.remove(os.path.join(d, "model.onnx"))
        print(f"built {name} batch {b}: {t:.0f} s")
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump([{"name": n, "batch": b, "dir": os.path.basename(d), "compile_s": t} for (n, b, d), t in zip(jobs, secs)], f)


def prebuilt(args):
    """There (a GPU): PyTorch eager against the executables --prebuild made."""
    root = os.path.abspath(args.prebuilt)
    with open(os.path.join(root, "manifest.json")) as f:
        entries = json.load(f)
    print(f"device: {torch.cuda.get_device_name(0)}; torch {torch.__version__}; {args.iters} timed runs each, median ms")
    print(HEADER)
    table, failed = models(), 0
    for e in entries:
        if args.names and e["name"] not in args.names:
            continue
        ctor, shape = table[e["name"]]
        d = os.path.join(root, e["dir"])
        torch.manual_seed(0)
        model = quantize(ctor().eval()).cuda()
        x = torch.from_numpy(np.fromfile(os.path.join(d, "in.bin"), dtype=np.float32).reshape(shape(e["batch"]))).cuda()
        t_torch, _ = torch_latency(model, x, args.iters)
        res = time_onnxc(d, args.iters)
        err = rel_err(np.fromfile(os.path.join(d, "out0.bin"), dtype=np.float32), np.fromfile(os.path.join(d, "ref.bin"), dtype=np.float32))
        failed += not row(e["name"], e["batch"], t_torch, res, err, e["compile_s"])
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 32])
    ap.add_argument("--arch", default="native", help="nvcc -arch (default: the GPU of this machine; sm_90 with --prebuild)")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--prebuild", metavar="DIR", help="export and build here, for --prebuilt on a GPU machine")
    ap.add_argument("--prebuilt", metavar="DIR", help="time what --prebuild made")
    args = ap.parse_args()
    if args.prebuild:
        prebuild(args, args.names or list(models()))
        return
    if not torch.cuda.is_available():
        print("SKIP: no CUDA device")
        sys.exit(77)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    if args.prebuilt:
        sys.exit(1 if prebuilt(args) else 0)
    onnxc = os.path.join(os.path.abspath(args.build), "onnxc")
    work = tempfile.mkdtemp(prefix="onnxc_cuda_speed_")
    rt, inc = runtime_objs(work)  # the runtime, once
    print(f"device: {torch.cuda.get_device_name(0)}; torch {torch.__version__}; {args.iters} timed runs each, median ms")
    print(HEADER)
    table = models()
    failed = 0
    for name in args.names or list(table):
        ctor, shape = table[name]
        torch.manual_seed(0)
        model = ctor().eval().cuda()
        for b in args.batch:
            d = os.path.join(work, f"{name}_b{b}")
            os.makedirs(d)
            x = torch.randn(*shape(b), generator=torch.Generator().manual_seed(1)).cuda()
            onnx_path = os.path.join(d, "model.onnx")
            export(model, x, onnx_path)
            compile_s = build_timer(onnxc, onnx_path, d, args.arch, rt, inc)
            x.cpu().numpy().astype(np.float32).tofile(os.path.join(d, "in.bin"))
            t_torch, y = torch_latency(model, x, args.iters)
            res = time_onnxc(d, args.iters)
            err = rel_err(np.fromfile(os.path.join(d, "out0.bin"), dtype=np.float32), y.float().cpu().numpy())
            failed += not row(name, b, t_torch, res, err, compile_s)
    if args.keep:
        print(f"kept {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
