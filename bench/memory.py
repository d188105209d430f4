#!/usr/bin/env python3
"""Memory-plan benchmark: for every model of bench/models (bench/export_models.py) prints

  arena      the arena onnxc plans (best of its orders, with aliasing)
  bound      the live-bytes lower bound of the chosen order (with aliasing)
  node       the per-node bound: max over nodes of the intermediate bytes the node reads + writes
  base       the arena for the exported order with no aliasing (--order model --no-alias)
  base_bnd   the live-bytes bound of that baseline
  ORT        (--ort) ONNX Runtime's peak RSS growth while running the model once (1 thread, its arena
             and memory patterns off so intermediates are plain mallocs): an approximation of its
             working memory, coarse (page granularity, malloc's reuse of freed pages)

usage: python3 bench/memory.py [--build build] [NAME...]
"""
import argparse
import glob
import json
import os
import resource
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def plan(onnxc, model, *flags):
    d = tempfile.mkdtemp()
    rep = os.path.join(d, "m.json")
    p = subprocess.run([onnxc, model, "-o", os.path.join(d, "m.c"), "--memory-report", rep, *flags],
                       capture_output=True, text=True)
    if p.returncode:
        return None, p.stderr.strip().splitlines()[0] if p.stderr.strip() else "failed"
    with open(rep) as f:
        return json.load(f), None


def ort_peak(model):
    """Peak RSS growth of a child process that loads the model and runs it once."""
    code = (
        "import resource, numpy as np, onnxruntime as ort, sys\n"
        "so = ort.SessionOptions(); so.intra_op_num_threads = 1; so.inter_op_num_threads = 1\n"
        "so.enable_cpu_mem_arena = False; so.enable_mem_pattern = False\n"
        "s = ort.InferenceSession(sys.argv[1], so, providers=['CPUExecutionProvider'])\n"
        "feeds = {i.name: np.random.rand(*[d if isinstance(d, int) else 1 for d in i.shape]).astype(np.float32) for i in s.get_inputs()}\n"
        "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
        "s.run(None, feeds)\n"
        "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024)\n")
    p = subprocess.run([sys.executable, "-c", code, model], capture_output=True, text=True)
    try:
        return int(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None


def kb(x):
    return "-" if x is None else f"{x / 1024:.1f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--ort", action="store_true", help="add the (rough) ORT RSS column")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    onnxc = os.path.join(args.build, "onnxc")
    models = sorted(glob.glob(os.path.join(HERE, "models", "*.onnx")))
    if args.names:
        models = [m for m in models if os.path.basename(m)[:-5] in args.names]
    print(f"{'model':24} {'arena KiB':>10} {'bound':>10} {'node':>10} {'base':>10} {'base_bnd':>10} {'ORT':>10}  order   arena/bound arena/node")
    for m in models:
        name = os.path.basename(m)[:-5]
        r, err = plan(onnxc, m)
        if not r:
            print(f"{name:24} error: {err}")
            continue
        b, _ = plan(onnxc, m, "--order", "model", "--no-alias")
        t = r["totals"]
        ort = ort_peak(m) if args.ort else None
        print(f"{name:24} {kb(t['arena']):>10} {kb(t['bound']):>10} {kb(t['per_node_bound']):>10} "
              f"{kb(b['totals']['arena'] if b else None):>10} {kb(b['totals']['bound'] if b else None):>10} {kb(ort):>10}  "
              f"{r['order']:7} {t['arena'] / max(t['bound'], 1):>10.3f} {t['arena'] / max(t['per_node_bound'], 1):>10.3f}",
              flush=True)


if __name__ == "__main__":
    main()
