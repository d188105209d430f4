#!/usr/bin/env python3
"""A/B of two onnxc builds (or two thread pools, or two sets of C flags) on one model.

Each side is compiled into its own small program that runs the model REPS times and prints the
median wall time per run; the two programs run alternately, ROUNDS times each, in separate
processes (so that neither side's pool threads or caches disturb the other), and the medians of
their medians are compared.  This machine's phases move whole runs by 10-20%; the ratio of two
builds measured this way moves by 1-3%.

  python3 bench/ab.py MODEL.onnx --a-bin OLD/onnxc [--b-bin build/onnxc] [--threads 2]
      [--a-pool FILE.c] [--b-pool FILE.c] [--a-cflags ...] [--b-cflags ...] [--reps N] [--rounds N]

The input is synthetic (the model's input shape, fixed values); outputs are not checked here
(bench/speed.py checks them against ORT).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INC = os.path.join(ROOT, "runtime_min")
MAIN = r'''
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "onnxc_rt.h"
extern const onnxc_model net_model;
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
static int cmp(const void *a, const void *b) { double x = *(const double *)a, y = *(const double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
  const onnxc_model *m = &net_model;
  int reps = argc > 1 ? atoi(argv[1]) : 100, i, k, r;
  void *arena = aligned_alloc(64, (m->arena_bytes + 63) / 64 * 64 + 64);
  void *ins[16], *outs[16];
  double *t = malloc(sizeof(double) * (size_t)reps);
  for (i = 0; i < m->n_inputs; i++) {
    long n = 1;
    for (k = 0; k < m->inputs[i].rank; k++) n *= m->inputs[i].dims[k];
    float *p = malloc((size_t)n * 8 + 64);
    for (long j = 0; j < n; j++) p[j] = (float)((j * 7919) % 1000) / 1000.0f - 0.5f;
    ins[i] = p;
  }
  for (i = 0; i < m->n_outputs; i++) {
    long n = 1;
    for (k = 0; k < m->outputs[i].rank; k++) n *= m->outputs[i].dims[k];
    outs[i] = malloc((size_t)n * 8 + 64);
  }
  for (r = 0; r < reps / 4 + 3; r++) m->run(arena, (const void *const *)ins, outs);
  for (r = 0; r < reps; r++) {
    double a = now();
    m->run(arena, (const void *const *)ins, outs);
    t[r] = now() - a;
  }
  qsort(t, (size_t)reps, sizeof(double), cmp);
  printf("%.3f\n", t[reps / 2] * 1e6);
  return 0;
}
'''


def build(d, onnxc, model, threads, pool, cflags, cc):
    os.makedirs(d, exist_ok=True)
    net = os.path.join(d, "net.c")
    subprocess.check_call([onnxc, model, "-o", net, "--name", "net"] + (["--threads", str(threads)] if threads > 1 else []))
    with open(os.path.join(d, "main.c"), "w") as f:
        f.write(MAIN)
    c = [cc, "-O3", "-march=native", "-ffp-contract=fast", "-I", INC] + cflags.split()
    subprocess.check_call(c + ["-c", net, "-o", os.path.join(d, "net.o")])
    exe = os.path.join(d, "run")
    subprocess.check_call(c + ["-pthread", os.path.join(d, "main.c"), os.path.join(d, "net.o")] +
                          ([pool] if threads > 1 else []) + ["-o", exe, "-lm"])
    return exe


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--a-bin", required=True)
    ap.add_argument("--b-bin", default=os.path.join(ROOT, "build", "onnxc"))
    ap.add_argument("--a-pool", default=os.path.join(INC, "onnxc_rt_threads.c"))
    ap.add_argument("--b-pool", default=os.path.join(INC, "onnxc_rt_threads.c"))
    ap.add_argument("--a-cflags", default="")
    ap.add_argument("--b-cflags", default="")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--reps", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--cc", default="cc")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as work:
        exes = [build(os.path.join(work, "a"), args.a_bin, args.model, args.threads, args.a_pool, args.a_cflags, args.cc),
                build(os.path.join(work, "b"), args.b_bin, args.model, args.threads, args.b_pool, args.b_cflags, args.cc)]
        res = [[], []]
        for r in range(args.rounds):
            for k in ((0, 1) if r % 2 == 0 else (1, 0)):
                res[k].append(float(subprocess.check_output([exes[k], str(args.reps)])))
    ma, mb = statistics.median(res[0]), statistics.median(res[1])
    print(f"{os.path.basename(args.model)} threads={args.threads}: A {ma:.1f} us  B {mb:.1f} us  B/A {mb / ma:.3f}"
          f"   (A {min(res[0]):.1f}-{max(res[0]):.1f}, B {min(res[1]):.1f}-{max(res[1]):.1f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
