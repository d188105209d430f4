#!/usr/bin/env python3
"""Differential test of onnxc against ONNX Runtime on random one-op models.

Draws --cases models per op family with gen_cases.py (seeded: the same seed gives the same
models) into a fresh folder under BUILD/differential/, then runs tests/conformance/run.py on
them, which compiles each with onnxc, builds the C (strict C99 flags), runs it and compares
with ORT's outputs (floats rtol 1e-3 / atol 1e-4, integers and bools exact).

--cflags picks the build of the generated code: the default is the runner's portable build;
"-O2 -march=native" takes the AVX2/AVX-512 paths of templates/*.h where the machine has them.

Prints the failing cases with what was drawn (case.txt) and a per-family summary; the exit
status is non-zero when any case fails.

  run_difftest.py --build build                       # CI size: seed 1, the default count
  run_difftest.py --build build --seed 7 --cases 100  # a longer local run
  run_difftest.py --build build -k 'conv|pool' --cflags='-O2 -march=native' --keep
  run_difftest.py --build build -k winograd --threads 2 --par-min 0 --cflags='-O2 -march=native -DONNXC_PAR_MIN=0'
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUNNER = os.path.join(ROOT, "tests", "conformance", "run.py")
CI_CASES = 12  # per family; the CTest tests run this many (see tests/CMakeLists.txt)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=CI_CASES, help=f"cases per family (default {CI_CASES})")
    ap.add_argument("-k", "--family", default=None, help="regex on family names")
    ap.add_argument("--cflags", default="", help="C flags for the generated code (e.g. '-O2 -march=native')")
    ap.add_argument("--cc", default=None, help="C compiler for the generated code (default: the runner's, $CC or cc)")
    ap.add_argument("--threads", type=int, default=1,
                    help="compile with onnxc --threads N and link the pool (runtime_min/onnxc_rt_threads.c)")
    ap.add_argument("--par-min", default=None,
                    help="onnxc --par-min X (0 with -DONNXC_PAR_MIN=0 in --cflags: every kernel in parts)")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--out", default=None, help="folder for the cases (default BUILD/differential/<tag>)")
    ap.add_argument("--keep", action="store_true", help="keep the cases (and the failing builds' folders)")
    ap.add_argument("--needs-cpu", default="", help="comma-separated /proc/cpuinfo flags the build "
                    "needs (e.g. avx2,fma for -mavx2 -mfma); without them the run is skipped (exit 77)")
    args = ap.parse_args()
    if args.needs_cpu:
        try:
            with open("/proc/cpuinfo") as fh:
                have = set(re.findall(r"^flags\s*:(.*)$", fh.read(), re.M)[0].split())
        except (OSError, IndexError):
            have = set()
        missing = [f for f in args.needs_cpu.split(",") if f and f not in have]
        if missing:
            print(f"skipped: this machine lacks {', '.join(missing)}")
            sys.exit(77)

    tag = f"seed{args.seed}_n{args.cases}"
    if args.cc:
        tag += "_" + os.path.basename(args.cc)
    if args.cflags:
        tag += "_" + re.sub(r"[^A-Za-z0-9]+", "_", args.cflags).strip("_")
    if args.threads > 1:
        tag += f"_t{args.threads}"
    out = os.path.abspath(args.out or os.path.join(args.build, "differential", tag))
    if os.path.exists(out):
        shutil.rmtree(out)
    t0 = time.time()
    gen = [sys.executable, os.path.join(HERE, "gen_cases.py"), out, "--seed", str(args.seed),
           "--cases", str(args.cases)] + (["-k", args.family] if args.family else [])
    p = subprocess.run(gen, capture_output=True, text=True)
    if p.returncode != 0:
        print(p.stdout + p.stderr)
        print("gen_cases.py failed")
        sys.exit(2)
    t1 = time.time()
    cmd = [sys.executable, RUNNER, "--build", args.build, out, "-j", str(args.jobs)]
    if args.cflags:
        cmd.append("--cflags=" + args.cflags)
    if args.cc:
        cmd += ["--cc", args.cc]
    if args.threads > 1:
        cmd += ["--flag=--threads", f"--flag={args.threads}", "--link",
                os.path.join(ROOT, "runtime_min", "onnxc_rt_threads.c")]
        if args.par_min is not None:
            cmd += ["--flag=--par-min", f"--flag={args.par_min}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    t2 = time.time()
    per = collections.OrderedDict()
    fails = []
    for line in p.stdout.splitlines():
        m = re.match(r"(PASS|FAIL) (\S+?)_(\d+)(?::|$)", line)
        if not m:
            continue
        fam = per.setdefault(m.group(2), [0, 0])
        fam[0 if m.group(1) == "PASS" else 1] += 1
        if m.group(1) == "FAIL":
            fails.append(line)
    if not per:
        print(p.stdout + p.stderr)
        print("the runner reported no cases")
        sys.exit(2)
    for line in fails:
        name = line.split()[1].rstrip(":")
        print(line)
        try:
            with open(os.path.join(out, name, "case.txt")) as fh:
                print("    drawn: " + fh.read().strip())
        except OSError:
            pass
    print("family          pass  fail")
    for fam, (ok, bad) in per.items():
        print(f"{fam:<15} {ok:>4}  {bad:>4}")
    total_ok = sum(v[0] for v in per.values())
    total_bad = sum(v[1] for v in per.values())
    print(f"{total_ok} passed, {total_bad} failed (seed {args.seed}, {args.cases} per family, "
          f"cflags '{args.cflags or 'default'}'; drawing {t1 - t0:.1f}s, compile+run {t2 - t1:.1f}s)")
    if not args.keep:
        shutil.rmtree(out, ignore_errors=True)
    sys.exit(1 if total_bad else 0)


if __name__ == "__main__":
    main()
