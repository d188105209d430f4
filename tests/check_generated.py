#!/usr/bin/env python3
"""Checks the contract of generated code on the PyTorch fixtures, the demo model, a sample of
conformance models, the string ones and some with sequence/optional inputs and outputs, --train files and the custom-op fixture (inference,
--gradients, --train):
  - deterministic: compiling twice gives byte-identical .c and .h;
  - strict C99: gcc -std=c99 -Wall -Wextra -Werror -pedantic, with and without -mno-avx;
  - Cortex-M4: arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16 -Os;
  - no malloc/free/stdio: the object's undefined symbols are only libm and mem* functions;
  - runtime_min builds under the same flags for both targets;
  - --target cuda and cuda-nvrtc: deterministic; the cuda-nvrtc host file is strict C99 without
    malloc/stdio symbols; onnxc_rt_cuda.c builds as C99 with warnings as errors;
  - the squeeze-and-excitation rewrites still apply to the MBConv fixture (scale folded into the
    projection's weights, pool summed by the depthwise kernel).
Prints one line per check and closes with 'N passed, N failed'.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic"]
M4 = ["-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16", "-Os"]
FORBIDDEN = ("malloc", "calloc", "realloc", "free", "printf", "fprintf", "sprintf", "snprintf",
             "puts", "fopen", "fwrite", "fread", "exit", "abort", "stdout", "stderr")


def sh(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--sample", type=int, default=40, help="conformance models to sample")
    args = ap.parse_args()
    onnxc = os.path.join(os.path.abspath(args.build), "onnxc")
    inc = os.path.join(ROOT, "runtime_min")
    have_arm = shutil.which("arm-none-eabi-gcc") is not None
    models = sorted(glob.glob(os.path.join(ROOT, "tests", "models", "*", "model.onnx")))
    models.append(os.path.join(ROOT, "examples", "digits", "digits.onnx"))
    node = sorted(glob.glob(os.path.join(args.build, "onnx-data", "node", "*", "model.onnx")))
    conf = []
    if node:
        step = max(1, len(node) // (args.sample * 3))
        for m in node[::step]:
            if len(conf) >= args.sample:
                break
            d = tempfile.mkdtemp()
            rc, _ = sh([onnxc, m, "-o", os.path.join(d, "m.c")])
            shutil.rmtree(d)
            if rc == 0:
                conf.append(m)
    # string tensors (templates/text.h: heap, UTF-8, regex VM, number <-> text) on every target
    strings = [os.path.join(args.build, "onnx-data", "node", c, "model.onnx")
               for c in ("test_string_concat", "test_string_split_maxsplit", "test_strnormalizer_export_monday_casesensintive_upper",
                         "test_regex_full_match_email_domain", "test_equal_string", "test_ai_onnx_ml_label_encoder_tensor_mapping")]
    strings += [os.path.join("/usr/share/libonnx-testdata/data/node", c, "model.onnx")
                for c in ("test_cast_FLOAT_to_STRING", "test_cast_STRING_to_FLOAT")]
    conf += [m for m in strings if os.path.exists(m) and m not in conf]
    # sequences and optionals as inputs and outputs (the port entry points around run_impl),
    # unrolled Loops and SequenceMap
    node_dir = os.path.join(args.build, "onnx-data", "node")
    flags_of = {}
    for c, flags in (("test_identity_opt", ["--seq-input", "opt_in=float[5]"]), ("test_if_opt", []),
                     ("test_sequence_map_add_2_sequences",
                      ["--seq-input", "x0=float[6],float[1],float[4]", "--seq-input", "x1=float[6],float[1],float[4]"]),
                     ("test_optional_get_element_optional_tensor", []), ("test_optional_has_element_empty_optional_input", []),
                     ("test_loop13_seq", ["--seq-input", "seq_empty=0:float[]",
                                          "--const-input", "trip_count=" + os.path.join(node_dir, "test_loop13_seq", "test_data_set_0", "input_0.pb"),
                                          "--const-input", "cond=" + os.path.join(node_dir, "test_loop13_seq", "test_data_set_0", "input_1.pb")])):
        m = os.path.join(node_dir, c, "model.onnx")
        if os.path.exists(m) and m not in conf:
            conf.append(m)
            flags_of[m] = flags
    passed = failed = 0

    def result(name, ok, why=""):
        nonlocal passed, failed
        print(f"{'PASS' if ok else 'FAIL'} {name}{'' if ok else ': ' + why}")
        if ok:
            passed += 1
        else:
            failed += 1

    def check_pair(rel, a, b, inc, have_arm, no_avx):
        """Two compilations of one model in folders a and b: the same bytes, strict C99 on the
        host (and with -mno-avx), no malloc/stdio symbols, Cortex-M4."""
        same = all(open(os.path.join(a, f), "rb").read() == open(os.path.join(b, f), "rb").read() for f in ("net.c", "net.h"))
        result(f"{rel}: deterministic", same, "two runs differ")
        obj = os.path.join(a, "net.o")
        rc, msg = sh(["cc"] + STRICT + ["-O1", "-I", inc, "-c", os.path.join(a, "net.c"), "-o", obj])
        result(f"{rel}: strict C99 host", rc == 0, msg[:400])
        if no_avx:
            rc2, msg2 = sh(["cc"] + STRICT + ["-O1", "-mno-avx", "-I", inc, "-c", os.path.join(a, "net.c"), "-o", obj + "2"])
            result(f"{rel}: strict C99 -mno-avx", rc2 == 0, msg2[:400])
        if rc == 0:
            rc, msg = sh(["nm", "-u", obj])
            bad = [l.split()[-1] for l in msg.splitlines() if l.split() and l.split()[-1] in FORBIDDEN]
            result(f"{rel}: no malloc/stdio", not bad, " ".join(bad))
        if have_arm:
            rc, msg = sh(["arm-none-eabi-gcc"] + STRICT + M4 + ["-I", inc, "-c", os.path.join(a, "net.c"), "-o", os.path.join(a, "m4.o")])
            result(f"{rel}: Cortex-M4", rc == 0, msg[:400])
        shutil.rmtree(a)
        shutil.rmtree(b)

    work = tempfile.mkdtemp(prefix="onnxc_gen_")
    rt = os.path.join(ROOT, "runtime_min", "onnxc_rt.c")
    rc, msg = sh(["cc"] + STRICT + ["-c", rt, "-o", os.path.join(work, "rt.o")])
    result("runtime_min strict C99 (host)", rc == 0, msg)
    if have_arm:
        rc, msg = sh(["arm-none-eabi-gcc"] + STRICT + M4 + ["-c", rt, "-o", os.path.join(work, "rt_m4.o")])
        result("runtime_min Cortex-M4", rc == 0, msg)
    for m in models + conf:
        rel = os.path.relpath(m, ROOT) if m.startswith(ROOT) else os.path.relpath(m, args.build)
        a, b = os.path.join(work, "a"), os.path.join(work, "b")
        os.makedirs(a, exist_ok=True)
        os.makedirs(b, exist_ok=True)
        flags = flags_of.get(m, [])
        r1 = sh([onnxc, m, *flags, "-o", os.path.join(a, "net.c")])
        r2 = sh([onnxc, m, *flags, "-o", os.path.join(b, "net.c")])
        if r1[0] or r2[0]:
            result(f"{rel}: compiles", False, r1[1] or r2[1])
            continue
        check_pair(rel, a, b, inc, have_arm, no_avx=True)
    # --train: the training step + inference file (SGD and AdamW; BatchNorm running statistics),
    # same contract
    sgd = "sgd:lr=0.1,momentum=0.9,nesterov=1"
    for fx, opt, extra in (("mlp_ce", sgd, []), ("mlp_ce", "adamw", []), ("cnn_ce", sgd, []), ("cnn_ce", "adamw", []),
                           ("resnet_bn_ce", sgd, []), ("resnet_bn_ce", "adamw", ["--recompute"])):
        loss = "cross_entropy:output"
        m = os.path.join(ROOT, "tests", "training", "train_curve", fx, "model.onnx")
        rel = f"--train {fx} {opt.split(':')[0]}{''.join(' ' + x for x in extra)}"
        a, b = os.path.join(work, "ta"), os.path.join(work, "tb")
        os.makedirs(a, exist_ok=True)
        os.makedirs(b, exist_ok=True)
        flags = ["--train", "--loss", loss, "--optimizer", opt, *extra]
        r1 = sh([onnxc, m, *flags, "-o", os.path.join(a, "net.c")])
        r2 = sh([onnxc, m, *flags, "-o", os.path.join(b, "net.c")])
        if r1[0] or r2[0]:
            result(f"{rel}: compiles", False, r1[1] or r2[1])
            continue
        check_pair(rel, a, b, inc, have_arm, no_avx=False)
    # custom ops: calls of user functions (declared in net.h) for inference, --gradients, --train
    cm = os.path.join(ROOT, "tests", "custom_ops", "grad_mlp", "model.onnx")
    ops = ["--custom-ops", os.path.join(ROOT, "tests", "custom_ops", "ops.txt")]
    for rel, flags in (("custom ops", []), ("custom ops --gradients", ["--gradients", "--loss", "mse"]),
                       ("custom ops --train", ["--train", "--loss", "mse:out", "--optimizer", "adamw"])):
        a, b = os.path.join(work, "ca"), os.path.join(work, "cb")
        os.makedirs(a, exist_ok=True)
        os.makedirs(b, exist_ok=True)
        r1 = sh([onnxc, cm, *ops, *flags, "-o", os.path.join(a, "net.c")])
        r2 = sh([onnxc, cm, *ops, *flags, "-o", os.path.join(b, "net.c")])
        if r1[0] or r2[0]:
            result(f"{rel}: compiles", False, r1[1] or r2[1])
            continue
        check_pair(rel, a, b, inc, have_arm, no_avx=False)
    # --target cuda / cuda-nvrtc: deterministic; the NVRTC form's host file is strict C99 with no
    # malloc/stdio (nvcc and NVRTC compile checks: tests/cuda/check_cuda.py)
    cuda_inc = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "include")
    for m in models:
        rel = os.path.relpath(m, ROOT)
        for target, ext in (("cuda", "cu"), ("cuda-nvrtc", "c")):
            a, b = os.path.join(work, "ca"), os.path.join(work, "cb")
            os.makedirs(a, exist_ok=True)
            os.makedirs(b, exist_ok=True)
            r1 = sh([onnxc, m, "--target", target, "-o", os.path.join(a, "net." + ext)])
            r2 = sh([onnxc, m, "--target", target, "-o", os.path.join(b, "net." + ext)])
            if r1[0] or r2[0]:
                result(f"{rel} --target {target}: compiles", False, r1[1] or r2[1])
                continue
            same = all(open(os.path.join(a, f), "rb").read() == open(os.path.join(b, f), "rb").read()
                       for f in ("net." + ext, "net.h"))
            result(f"{rel} --target {target}: deterministic", same, "two runs differ")
            if target == "cuda-nvrtc":
                obj = os.path.join(a, "net.o")
                rc, msg = sh(["cc"] + STRICT + ["-O1", "-I", inc, "-c", os.path.join(a, "net.c"), "-o", obj])
                result(f"{rel} --target cuda-nvrtc: strict C99 host", rc == 0, msg[:400])
                if rc == 0:
                    rc, msg = sh(["nm", "-u", obj])
                    bad = [l.split()[-1] for l in msg.splitlines() if l.split() and l.split()[-1] in FORBIDDEN]
                    result(f"{rel} --target cuda-nvrtc: no malloc/stdio", not bad, " ".join(bad))
            shutil.rmtree(a)
            shutil.rmtree(b)
    if os.path.exists(os.path.join(cuda_inc, "cuda_runtime_api.h")):
        rc, msg = sh(["cc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", cuda_inc, "-c",
                      os.path.join(ROOT, "runtime_min", "onnxc_rt_cuda.c"), "-o", os.path.join(work, "rtc.o")])
        result("runtime_min CUDA part: C99 -Wall -Wextra -Werror", rc == 0, msg[:400])
    if not have_arm:
        result("arm-none-eabi-gcc present", False, "install gcc-arm-none-eabi")
    # the speed rewrites still apply (their loss would show only in bench/): on the MBConv
    # fixture, the squeeze-and-excitation scale folded into the projection's weights and the
    # pool summed by the depthwise kernel (compiler/optimize.c)
    mb = os.path.join(ROOT, "tests", "models", "mbconv_op17", "model.onnx")
    out = os.path.join(work, "mb.c")
    rc, msg = sh([onnxc, mb, "-o", out])
    code = open(out).read() if rc == 0 else ""
    result("mbconv_op17: SE scale in the projection's weights", re.search(r"onnxc_scale_cols\(\d+, \d+, wg,", code) is not None,
           msg[:400])
    result("mbconv_op17: pool summed by the depthwise kernel", "sum = Y1" in code, msg[:400])
    shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
