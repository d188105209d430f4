#!/usr/bin/python3
"""Training-step speed: onnxc --train against PyTorch on the CPU, one core, same models, same batch.

Run with Debian's python3-torch (/usr/bin/python3: torch is only there).  For every model:
  - the torch model (random init, seed 0) is exported to ONNX (BatchNorm in training mode),
    compiled with `onnxc --train --loss cross_entropy:output --optimizer ...` for SGD (momentum
    0.9) and AdamW, and the generated C is built with CFLAGS (default -O3 -march=native) into a
    harness that runs warm-up steps, then times each step (process CPU time);
  - torch (torch.set_num_threads(1)) trains a copy of the same model with torch.optim on the same
    batch, each step being zero_grad + forward + loss + backward + step, timed the same way;
  - rounds of onnxc and torch alternate (the machine is shared: both see the same load), and
    each column is the median over all timed steps of all rounds;
  - as a sanity check the first step's loss of both must agree (1e-4 relative; same weights).
Prints one row per model and optimizer: onnxc ms, torch ms, ratio torch / onnxc (> 1: onnxc
is faster), the arenas of the generated code and the first-step loss agreement.

usage: /usr/bin/python3 bench/train_speed.py [--build build] [--cflags "-O3 -march=native"]
                                             [--steps 20] [--warmup 5] [--rounds 3] [--recompute] [NAME...]
"""
import argparse
import copy
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "training"))
from export_training import EncoderBlock, ResNetBN  # noqa: E402

HARNESS = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "net.h"

static unsigned char state[NET_STATE_BYTES] __attribute__((aligned(64)));
static unsigned char arena[NET_TRAIN_ARENA_BYTES + 16] __attribute__((aligned(64)));

/* the whole file: its byte count comes from the caller */
static void *load(const char *path, const char *bytes) {
  size_t n = (size_t)atol(bytes);
  void *p = malloc(n + 1);
  FILE *f = fopen(path, "rb");
  if (!f || !p || fread(p, 1, n, f) != n) { perror(path); exit(2); }
  fclose(f);
  return p;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  /* argv: x.bin x_bytes y.bin y_bytes warmup steps */
  const void *x, *y;
  int warm, steps, s;
  float loss = 0;
  if (argc != 7 || net_train_init(state) != ONNXC_OK) return 3;
  x = load(argv[1], argv[2]);
  y = load(argv[3], argv[4]);
  warm = atoi(argv[5]);
  steps = atoi(argv[6]);
  for (s = 0; s < warm + steps; s++) {
    double t0 = now();
    if (net_train_step(state, arena, x, y, &loss) != ONNXC_OK) return 4;
    if (s == 0) printf("loss %.9g\n", loss);
    if (s >= warm) printf("%.9f\n", now() - t0);
  }
  return 0;
}
"""


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                                 nn.Linear(128, 10))

    def forward(self, x):
        return self.net(x)


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(1, 16, 3, padding=1)
        self.c2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 7 * 7, 10)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.c1(x)), 2)
        x = F.max_pool2d(torch.relu(self.c2(x)), 2)
        return self.fc(torch.flatten(x, 1))


class Recurrent(nn.Module):
    def __init__(self, cell):
        super().__init__()
        self.rnn = cell(32, 64, batch_first=True)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


def ids(b, t, v):
    return lambda g: torch.randint(0, v, (b, t), generator=g)


def randn(*s):
    return lambda g: torch.randn(*s, generator=g)


# name, model maker, input maker, label shape maker (from the output), BatchNorm (training-mode export)
MODELS = [
    ("mlp", MLP, randn(32, 1, 28, 28), False),
    ("cnn", CNN, randn(16, 1, 28, 28), False),
    ("resnet_bn", lambda: ResNetBN(width=32, classes=10), randn(16, 3, 32, 32), True),
    ("transformer", lambda: EncoderBlock(vocab=128, d=64, heads=4, t=32), ids(8, 32, 128), False),
    ("lstm", lambda: Recurrent(nn.LSTM), randn(8, 16, 32), False),
    ("gru", lambda: Recurrent(nn.GRU), randn(8, 16, 32), False),
]

OPTIMIZERS = [
    ("sgd", "sgd:lr=0.01,momentum=0.9", lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9)),
    ("adamw", "adamw:lr=0.001", lambda p: torch.optim.AdamW(p, lr=0.001)),
]


def sh(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    return r.stdout


def torch_steps(model, make_opt, x, y, warm, steps):
    m = copy.deepcopy(model)
    m.train()
    opt = make_opt(m.parameters())
    times, first = [], None
    for s in range(warm + steps):
        t0 = time.process_time()
        opt.zero_grad()
        loss = F.cross_entropy(m(x), y)
        loss.backward()
        opt.step()
        t = time.process_time() - t0
        if s == 0:
            first = float(loss)
        if s >= warm:
            times.append(t)
    return times, first


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--cflags", default="-O3 -march=native")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--recompute", action="store_true", help="compile with onnxc --recompute")
    ap.add_argument("--cc", default=os.environ.get("CC", "cc"))
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    torch.set_num_threads(1)
    onnxc = os.path.join(os.path.abspath(args.build), "onnxc")
    rt = os.path.join(ROOT, "runtime_min", "onnxc_rt.c")
    print(f"torch {torch.__version__}, 1 thread; onnxc C built with {args.cc} {args.cflags}; "
          f"median of {args.rounds} x {args.steps} steps after {args.warmup} warm-up steps (process CPU time)")
    print(f"{'model':<12} {'opt':<6} {'onnxc ms':>9} {'torch ms':>9} {'torch/onnxc':>11} {'train arena':>12} "
          f"{'first loss rel diff':>19}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, make, make_x, bn in MODELS:
            if args.names and name not in args.names:
                continue
            torch.manual_seed(0)
            model = make()
            g = torch.Generator().manual_seed(1)
            x = make_x(g)
            with torch.no_grad():
                model.train(bn)
                state = copy.deepcopy(model.state_dict())
                out = model(x)
            y = torch.randint(0, out.shape[1], (out.shape[0],) + tuple(out.shape[2:]), generator=g)
            path = os.path.join(tmp, name + ".onnx")
            torch.onnx.export(model, x, path, opset_version=15, input_names=["input"], output_names=["output"],
                              do_constant_folding=False,
                              training=torch.onnx.TrainingMode.TRAINING if bn else torch.onnx.TrainingMode.EVAL)
            model.load_state_dict(state)  # the export ran the model (running statistics)
            xs, ys = os.path.join(tmp, name + "_x.bin"), os.path.join(tmp, name + "_y.bin")
            x.numpy().tofile(xs)
            y.numpy().tofile(ys)
            for oname, flag, make_opt in OPTIMIZERS:
                w = os.path.join(tmp, f"{name}_{oname}")
                os.makedirs(w)
                sh([onnxc, path, "--train", "--loss", "cross_entropy:output", "--optimizer", flag, "-o",
                    os.path.join(w, "net.c")] + (["--recompute"] if args.recompute else []))
                open(os.path.join(w, "main.c"), "w").write(HARNESS)
                exe = os.path.join(w, "harness")
                sh([args.cc, "-std=c99", *args.cflags.split(), "-I", os.path.join(ROOT, "runtime_min"), "-I", w,
                    os.path.join(w, "main.c"), os.path.join(w, "net.c"), rt, "-lm", "-o", exe])
                arena = [l.split()[2] for l in open(os.path.join(w, "net.h")) if "_TRAIN_ARENA_BYTES " in l][0]
                ours, theirs, l_ours, l_torch = [], [], None, None
                for _ in range(args.rounds):
                    outp = sh([exe, xs, str(x.numpy().nbytes), ys, str(y.numpy().nbytes), str(args.warmup),
                               str(args.steps)]).split("\n")
                    l_ours = float(outp[0].split()[1])
                    ours += [float(t) for t in outp[1:] if t.strip()]
                    t, l_torch = torch_steps(model, make_opt, x, y, args.warmup, args.steps)
                    theirs += t
                mo, mt = statistics.median(ours) * 1e3, statistics.median(theirs) * 1e3
                rel = abs(l_ours - l_torch) / max(abs(l_torch), 1e-6)
                rows.append((name, oname, mo, mt))
                print(f"{name:<12} {oname:<6} {mo:9.3f} {mt:9.3f} {mt / mo:10.2f}x {int(arena):12d} {rel:19.1e}",
                      flush=True)
                if rel > 1e-4:
                    print(f"  WARNING: first-step loss {l_ours} vs torch {l_torch}")
    if rows:
        geo = np.exp(np.mean([np.log(r[3] / r[2]) for r in rows]))
        print(f"geometric mean torch/onnxc: {geo:.2f}x")


if __name__ == "__main__":
    main()
