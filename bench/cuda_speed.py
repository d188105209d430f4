#!/usr/bin/env python3
"""CUDA speed: onnxc --target cuda against PyTorch eager on the same GPU, in one run.

For ResNet-18 and MobileNetV2 (torchvision, random weights, eval mode) and the 2-layer
transformer encoder of bench/export_models.py, at batch 1 and batch 32 (fixed shapes):
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

usage: python3 bench/cuda_speed.py [--build build] [--iters 100] [--batch 1 32] [NAME...]
       NAME: resnet18, mobilenet_v2, transformer_encoder
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")


def models():
    import torchvision.models as tv
    sys.path.insert(0, HERE)
    from export_models import Encoder  # noqa: E402
    return {
        "resnet18": (tv.resnet18, lambda b: (b, 3, 224, 224)),
        "mobilenet_v2": (tv.mobilenet_v2, lambda b: (b, 3, 224, 224)),
        "transformer_encoder": (Encoder, lambda b: (b, 64, 128)),
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 32])
    ap.add_argument("--arch", default="native", help="nvcc -arch (default: the GPU of this machine)")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        print("SKIP: no CUDA device")
        sys.exit(77)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    onnxc = os.path.join(os.path.abspath(args.build), "onnxc")
    nvcc = os.path.join(CUDA, "bin", "nvcc")
    inc = ["-I", os.path.join(ROOT, "runtime_min")]
    work = tempfile.mkdtemp(prefix="onnxc_cuda_speed_")
    # the runtime, once
    rt = [os.path.join(work, "onnxc_rt.o"), os.path.join(work, "onnxc_rt_cuda.o")]
    sh(["cc", "-O2", "-c", os.path.join(ROOT, "runtime_min", "onnxc_rt.c"), "-o", rt[0]] + inc)
    sh(["cc", "-O2", "-c", os.path.join(ROOT, "runtime_min", "onnxc_rt_cuda.c"), "-o", rt[1], "-I", os.path.join(CUDA, "include")] + inc)
    print(f"device: {torch.cuda.get_device_name(0)}; torch {torch.__version__}; {args.iters} timed runs each, median ms")
    print(f"{'model':<22} {'batch':>5} {'torch ms':>9} {'onnxc ms':>9} {'speedup':>8} {'onnxc tf32':>10} {'rel err':>9} {'compile s':>9}")
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
            t0 = time.time()
            sh([onnxc, onnx_path, "--target", "cuda", "-o", os.path.join(d, "model.cu"), "--name", "model"])
            sh([nvcc, "-O3", "-std=c++17", f"-arch={args.arch}", os.path.join(d, "model.cu"), os.path.join(HERE, "cuda_time.c"),
                *rt, *inc, "-lcublas", "-lnvrtc", "-o", os.path.join(d, "time")])
            compile_s = time.time() - t0
            x.cpu().numpy().astype(np.float32).tofile(os.path.join(d, "in.bin"))
            t_torch, y = torch_latency(model, x, args.iters)
            res = []
            for tf32 in (0, 1):
                rc, out = sh([os.path.join(d, "time"), os.path.join(d, "in.bin"), os.path.join(d, f"out{tf32}.bin"),
                              str(args.iters), str(tf32)])
                if rc == 77:
                    print("SKIP: no CUDA device (onnxc)")
                    sys.exit(77)
                res.append(float(out.split()[0]))
            want = y.float().cpu().numpy().reshape(-1)
            got = np.fromfile(os.path.join(d, "out0.bin"), dtype=np.float32)
            err = float(np.max(np.abs(got - want)) / max(np.max(np.abs(want)), 1e-30)) if got.size == want.size else float("inf")
            ok = err <= 1e-3
            failed += not ok
            print(f"{name:<22} {b:>5} {t_torch:>9.3f} {res[0]:>9.3f} {t_torch / res[0]:>7.2f}x {res[1]:>10.3f} "
                  f"{err:>9.2e} {compile_s:>9.1f}{'' if ok else '  MISMATCH'}", flush=True)
    if args.keep:
        print(f"kept {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
