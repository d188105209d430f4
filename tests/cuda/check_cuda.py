#!/usr/bin/env python3
"""Compile checks of the CUDA backend (no GPU needed).

  check_cuda.py nvrtc [--build B] [--ratchet F --prefix P] [-k REGEX] [--cover] [--arch 90] SUITE...
      every case of the suites (folders of model.onnx + test_data_set_*; with --ratchet only
      the listed ones; with --cover only cases until every op type occurs once) is compiled with onnxc --target cuda-nvrtc (compile-time inputs bound
      from the test data as tests/conformance/run.py does), the generated host C is built with
      gcc -std=c99 -Wall -Wextra -Werror -pedantic, and its kernel source is compiled by NVRTC
      in-process through the runtime's own path (tests/cuda/nvrtc_check.c), for sm_ARCH.
  check_cuda.py nvcc [--build B] [--arch 90] MODEL.onnx|DIR...
      every model is compiled with onnxc --target cuda and the .cu with nvcc -c for sm_ARCH
      and compute_75 (PTX, the oldest architecture CUDA 13 supports) in one nvcc run, warnings as errors
      (device and host); models of folders: DIR/*/model.onnx and DIR/*.onnx.

Prints one line per case and closes with 'N passed, N failed'.  Exits 77 (skipped) when
/usr/local/cuda (or $CUDA_HOME) has no nvcc/NVRTC, 1 when a case fails.
"""
import argparse
import concurrent.futures as cf
import glob
import os
import re
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))
import run as conf  # noqa: E402

CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O1"]


def sh(cmd, timeout=600):
    return conf.run_cmd(cmd, timeout=timeout)


def first_error(msg):
    lines = msg.splitlines()
    for l in lines:
        if "error" in l:
            return l.strip()[:300]
    return (lines[0] if lines else "").strip()[:300]


def compile_case(onnxc, case_dir, out_c, name, target):
    """onnxc with the retries of run.py: symbolic dims and compile-time inputs bound from the
    first data set.  Returns (ok, message)."""
    import onnx
    model_path = os.path.join(case_dir, "model.onnx")
    by_name = {}
    sets = sorted(glob.glob(os.path.join(case_dir, "test_data_set_*")))
    flags = []
    fp = os.path.join(case_dir, "onnxc_flags.txt")
    if os.path.exists(fp):
        import shlex
        flags = shlex.split(open(fp).read(), comments=True)
    model = None
    if sets:
        model = onnx.load(model_path, load_external_data=False)
        init = {t.name for t in model.graph.initializer}
        names = [i.name for i in model.graph.input if i.name not in init]
        files = sorted(glob.glob(os.path.join(sets[0], "input_*.pb")), key=lambda p: int(re.findall(r"(\d+)\.pb$", p)[0]))
        types = [i.type for i in model.graph.input if i.name not in init]
        for j, f in enumerate(files):
            v = conf.parse_val(open(f, "rb").read(), types[j] if j < len(types) else None)
            by_name[names[j] if j < len(names) else (v.t.name if v.t is not None else f"input_{j}")] = (f, v)
    const, dims, seqs = {}, {}, {}
    for _ in range(8):
        cmd = [onnxc, model_path, "--target", target, "-o", out_c, "--name", name] + flags
        for k, v in const.items():
            cmd += ["--const-input", f"{k}={v}"]
        for k, v in dims.items():
            cmd += ["--dim", f"{k}={v}"]
        for k, v in seqs.items():
            cmd += ["--seq-input", f"{k}={v}"]
        rc, msg = sh(cmd, timeout=300)
        if rc == 0:
            return True, ""
        if conf.bind_for_retry(msg, model, by_name, const, dims, seqs):
            continue
        return False, "onnxc: " + conf.first_line(msg)
    return False, "onnxc: too many compile-time inputs"


def have_cuda(tool):
    if tool == "nvcc":
        return os.path.exists(os.path.join(CUDA, "bin", "nvcc"))
    return os.path.exists(os.path.join(CUDA, "include", "nvrtc.h"))


def cmd_nvrtc(args):
    build = os.path.abspath(args.build)
    onnxc = os.path.join(build, "onnxc")
    rt_cuda = os.path.join(build, "libonnxc_rt_cuda.a")
    if not have_cuda("nvrtc") or not os.path.exists(rt_cuda):
        print(f"SKIP: no NVRTC ({CUDA}) or no {rt_cuda}")
        return 77
    cases = conf.list_cases(args.suites)
    if args.filter:
        cases = [c for c in cases if re.search(args.filter, os.path.basename(c))]
    if args.ratchet:
        listed = {l.strip() for l in open(args.ratchet) if l.strip() and not l.startswith("#")}
        cases = [c for c in cases if args.prefix + os.path.basename(c.rstrip("/")) in listed]
    if args.every > 1:  # every N-th case, and one of each op type the others leave out
        keep = set(cases[::args.every]) | set(conf.covering(cases))
        cases = [c for c in cases if c in keep]
    if args.cover:
        cases = conf.covering(cases)
    if not cases:  # a missing or empty suite must not pass
        print(f"error: no cases in {' '.join(args.suites)}")
        return 1
    work = tempfile.mkdtemp(prefix="onnxc_nvrtc_")
    inc = ["-I", os.path.join(ROOT, "runtime_min"), "-I", os.path.join(CUDA, "include")]
    results = {}

    def one(i_case):
        i, case = i_case
        name = f"m{i}"
        out_c = os.path.join(work, name + ".c")
        ok, msg = compile_case(onnxc, case, out_c, name, "cuda-nvrtc")
        if not ok:
            return i, False, msg
        rc, msg = sh(["cc"] + STRICT + inc + ["-c", out_c, "-o", out_c + ".o"])
        if rc:
            return i, False, "cc: " + first_error(msg)
        return i, True, ""

    with cf.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for i, ok, msg in ex.map(one, enumerate(cases)):
            results[i] = (ok, msg)
    built = [i for i in range(len(cases)) if results[i][0]]
    # one driver over every built model
    reg = os.path.join(work, "models.c")
    with open(reg, "w") as f:
        f.write('#include "onnxc_rt_cuda.h"\n')
        for i in built:
            f.write(f"extern const onnxc_cuda_model m{i}_cuda_model;\n")
        f.write("const onnxc_cuda_model *const models[] = {\n")
        for i in built:
            f.write(f"  &m{i}_cuda_model,\n")
        f.write("  0};\n")
    exe = os.path.join(work, "nvrtc_check")
    objs = [os.path.join(work, f"m{i}.c.o") for i in built]
    rc, msg = sh(["cc", "-O1"] + inc + ["-o", exe, os.path.join(HERE, "nvrtc_check.c"), reg] + objs +
                 [os.path.join(build, "libonnxc_rt_cuda.a"), os.path.join(build, "libonnxc_rt.a"),
                  "-L", os.path.join(CUDA, "lib64"), "-Wl,-rpath," + os.path.join(CUDA, "lib64"),
                  "-lnvrtc", "-lcublas", "-lcudart", "-lpthread", "-lm"])
    if rc:
        print("link: " + msg[:2000])
        return 1
    rc, out = sh([exe, str(args.arch), str(args.jobs)], timeout=3600)
    for line in out.splitlines():
        m = re.match(r"(PASS|FAIL) m(\d+)(?:: (.*))?$", line)
        if m:
            i = int(m.group(2))
            results[i] = (m.group(1) == "PASS", "nvrtc: " + (m.group(3) or ""))
    passed = failed = 0
    for i, case in enumerate(cases):
        ok, msg = results[i]
        name = args.prefix + os.path.basename(case.rstrip("/"))
        if ok:
            passed += 1
            if not args.quiet:
                print(f"PASS {name}")
        else:
            failed += 1
            print(f"FAIL {name}: {msg}")
    shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


NVCC_WARN = ["-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra,-Werror"]


def cmd_nvcc(args):
    build = os.path.abspath(args.build)
    onnxc = os.path.join(build, "onnxc")
    nvcc = os.path.join(CUDA, "bin", "nvcc")
    if not have_cuda("nvcc"):
        print(f"SKIP: no nvcc in {CUDA}")
        return 77
    models = []
    for m in args.models:
        if m.endswith(".onnx"):
            models.append(m)
        else:
            models += sorted(glob.glob(os.path.join(m, "*", "model.onnx")) + glob.glob(os.path.join(m, "*.onnx")))
    work = tempfile.mkdtemp(prefix="onnxc_nvcc_")
    inc = ["-I", os.path.join(ROOT, "runtime_min")]
    # one nvcc run (one host pass) for both: sm_ARCH machine code and compute_75 PTX
    targets = [(f"sm_{args.arch} + compute_75", ["-gencode", f"arch=compute_{args.arch},code=sm_{args.arch}",
                                                 "-gencode", "arch=compute_75,code=compute_75"])]

    def one(i_m):
        i, m = i_m
        d = os.path.join(work, str(i))
        os.makedirs(d)
        out = os.path.join(d, "net.cu")
        case = os.path.dirname(m) if os.path.basename(m) == "model.onnx" else m
        ok, msg = compile_case(onnxc, case if case != m else os.path.dirname(m), out, "net", "cuda") \
            if os.path.basename(m) == "model.onnx" else (None, None)
        if ok is None:
            rc, msg = sh([onnxc, m, "--target", "cuda", "-o", out])
            ok, msg = rc == 0, "onnxc: " + conf.first_line(msg)
        if not ok:
            return [(m, "onnxc", False, msg)]
        res = []
        for tname, flags in targets:
            rc, msg = sh([nvcc, "-c", "-std=c++17", "-O2"] + NVCC_WARN + conf.nvcc_flags(out) + flags + inc + [out, "-o", os.path.join(d, "net.o")],
                         timeout=1800)
            res.append((m, tname, rc == 0, first_error(msg)))
        return res

    passed = failed = 0
    with cf.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for res in ex.map(one, enumerate(models)):
            for m, what, ok, msg in res:
                rel = os.path.relpath(m, ROOT) if m.startswith(ROOT) else m
                print(f"{'PASS' if ok else 'FAIL'} {rel} ({what}){'' if ok else ': ' + msg}", flush=True)
                passed += ok
                failed += not ok
    shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("nvrtc")
    a.add_argument("suites", nargs="+")
    a.add_argument("--ratchet")
    a.add_argument("--prefix", default="")
    a.add_argument("-k", "--filter")
    a.add_argument("--every", type=int, default=1, help="check every N-th case only (plus a case of each op type)")
    a.add_argument("--cover", action="store_true", help="only a subset in which every op type occurs (see covering())")
    a.add_argument("-q", "--quiet", action="store_true")
    b = sub.add_parser("nvcc")
    b.add_argument("models", nargs="+")
    for p in (a, b):
        p.add_argument("--build", default=os.path.join(ROOT, "build"))
        p.add_argument("--arch", type=int, default=90)
        p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    sys.exit(cmd_nvrtc(args) if args.cmd == "nvrtc" else cmd_nvcc(args))


if __name__ == "__main__":
    main()
