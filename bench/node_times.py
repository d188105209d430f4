#!/usr/bin/env python3
"""Per-node time of a compiled model, in TSC ticks (x86-64 only): where a model's time goes.

usage: python3 bench/node_times.py bench/models/mobilenet_v2.onnx [REPS] [--top N] [--cflags ...]

Compiles the model with onnxc, wraps every node call of the generated run function in rdtsc
reads, runs the model REPS times (after warm-up) on NAME.input.npy and prints, per node, the
minimum, the median and the mean ticks of one run, with the node's share of the summed medians
(--top N: the N slowest by median).  The sums are printed last.  The generated code is otherwise untouched, so node times
include what each node's call costs; a node's time depends on what ran before it (caches), so
read single nodes with care and compare builds in alternation (bench/ab.py for whole models).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

DRIVER_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>
#include "onnxc_rt.h"
extern const onnxc_model net_model;
extern unsigned long long onnxc_prof_t[];
extern const char *const onnxc_prof_name[];
extern const int onnxc_prof_n;
int main(int argc, char **argv) {
  int reps = atoi(argv[2]);
  FILE *f = fopen(argv[1], "rb");
  if (!f) return 2;
  fseek(f, 0, SEEK_END);
  long nb = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *in = aligned_alloc(64, (size_t)(nb + 63) / 64 * 64);
  if (fread(in, 1, (size_t)nb, f) != (size_t)nb) return 2;
  fclose(f);
  void *out = aligned_alloc(64, 1 << 24);
  void *arena = aligned_alloc(64, (net_model.arena_bytes + 63) / 64 * 64 + 64);
  const void *ins[1] = {in};
  void *outs[1] = {out};
  int n = onnxc_prof_n;
  double *mn = calloc((size_t)n, sizeof(double)), *sm = calloc((size_t)n, sizeof(double));
  double *all = calloc((size_t)n * (size_t)reps, sizeof(double));
  for (int i = 0; i < n; i++) mn[i] = 1e300;
  int cold = argc > 3 && atoi(argv[3]);
  size_t fl = (size_t)64 << 20;
  volatile unsigned char *fb = cold ? malloc(fl) : 0;
  for (int w = 0; w < 3; w++) net_model.run(arena, ins, outs);
  for (int r = 0; r < reps; r++) {
    if (cold) /* (--cold: 64 MiB written between runs, more than the caches hold) */
      for (size_t i = 0; i < fl; i += 64) fb[i] = (unsigned char)(i + (size_t)r);
    for (int i = 0; i < n; i++) onnxc_prof_t[i] = 0;
    if (net_model.run(arena, ins, outs)) return 3;
    for (int i = 0; i < n; i++) {
      double t = (double)onnxc_prof_t[i];
      if (t < mn[i]) mn[i] = t;
      sm[i] += t;
      all[(size_t)i * (size_t)reps + (size_t)r] = t;
    }
  }
  for (int i = 0; i < n; i++) {
    double *v = all + (size_t)i * (size_t)reps, med;
    for (int a = 1; a < reps; a++) /* (insertion sort: reps is small) */
      for (int b = a; b > 0 && v[b - 1] > v[b]; b--) {
        const double t = v[b];
        v[b] = v[b - 1];
        v[b - 1] = t;
      }
    med = reps % 2 ? v[reps / 2] : 0.5 * (v[reps / 2 - 1] + v[reps / 2]);
    printf("%d %.0f %.0f %.0f %s\n", i, mn[i], med, sm[i] / reps, onnxc_prof_name[i]);
  }
  return 0;
}
"""

CALL = re.compile(r"^  (n\d+_\w*)\((.*)\);$")


def instrument(src):
    lines = src.split("\n")
    start = next(i for i, l in enumerate(lines) if l.startswith("static int run_impl("))
    names, out = [], lines[:start]
    for l in lines[start:]:
        m = CALL.match(l)
        if m:
            k = len(names)
            names.append(m.group(1))
            l = (f"  {{ unsigned long long onnxc_t0_ = __rdtsc(); {l.strip()} "
                 f"onnxc_prof_t[{k}] += __rdtsc() - onnxc_t0_; }}")
        out.append(l)
    head = ["#include <x86intrin.h>", f"unsigned long long onnxc_prof_t[{max(len(names), 1)}];",
            f"const int onnxc_prof_n = {len(names)};",
            "const char *const onnxc_prof_name[] = {" + ", ".join(f'"{n}"' for n in names) + "};"]
    return "\n".join(head + out), names


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("reps", nargs="?", type=int, default=30)
    ap.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    ap.add_argument("--onnxc", help="onnxc binary (default: BUILD/onnxc)")
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--cflags", default="-O3 -march=native -ffp-contract=fast")
    ap.add_argument("--top", type=int, default=0, help="print only the N slowest nodes (by median)")
    ap.add_argument("--keep", help="keep the instrumented C in this directory")
    ap.add_argument("--cold", action="store_true",
                    help="evict the caches between runs (each run then reads its weights from memory)")
    args = ap.parse_args()
    onnxc = args.onnxc or os.path.join(args.build, "onnxc")
    inc = os.path.join(HERE, "..", "runtime_min")
    work = args.keep or tempfile.mkdtemp(prefix="onnxc_nt_")
    os.makedirs(work, exist_ok=True)
    net_c = os.path.join(work, "net.c")
    subprocess.run([onnxc, args.model, "-o", net_c, "--name", "net"], check=True)
    src, names = instrument(open(net_c).read())
    open(net_c, "w").write(src)
    open(os.path.join(work, "drv.c"), "w").write(DRIVER_C)
    x = np.load(args.model[:-5] + ".input.npy")
    x.astype(x.dtype).tofile(os.path.join(work, "in.bin"))
    exe = os.path.join(work, "nt")
    subprocess.run([args.cc, *args.cflags.split(), "-I", inc, net_c, os.path.join(work, "drv.c"), "-o", exe, "-lm"],
                   check=True)
    p = subprocess.run([exe, os.path.join(work, "in.bin"), str(args.reps), str(int(args.cold))], capture_output=True, text=True, check=True)
    rows = [l.split() for l in p.stdout.split("\n") if l]
    rows = [(int(i), float(a), float(m), float(b), n) for i, a, m, b, n in rows]
    total_min = sum(r[1] for r in rows)
    total_med = sum(r[2] for r in rows)
    total_avg = sum(r[3] for r in rows)
    show = sorted(rows, key=lambda r: -r[2])[:args.top] if args.top else rows
    print(f"{'node':>5} {'min':>10} {'median':>10} {'mean':>10} {'%':>6}  name")
    for i, a, m, b, n in show:
        print(f"{i:>5} {a:>10.0f} {m:>10.0f} {b:>10.0f} {100 * m / total_med:>6.1f}  {n}")
    print(f"sums: of minima {total_min:.0f} ticks, of medians {total_med:.0f}, of means {total_avg:.0f} "
          f"({len(rows)} nodes, {args.reps} runs)")


if __name__ == "__main__":
    sys.exit(main())
