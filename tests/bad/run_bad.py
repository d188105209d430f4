#!/usr/bin/env python3
"""Runs onnxc on every bad model of the corpus (with the case's flags, if expected.txt gives any;
onnxc runs in corpus/) and checks the contract for user errors: exit status 1, exactly one line
on stderr that starts with 'onnxc: error: <file>' and contains the expected text, nothing on
stdout, no crash (signal), no hang (10 s), no sanitizer report.

usage: run_bad.py ONNXC     (an ASan/UBSan build makes sanitizer findings fail the case)
"""
import os
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    onnxc = os.path.abspath(sys.argv[1])
    corpus = os.path.join(HERE, "corpus")
    passed = failed = 0
    out = tempfile.mkdtemp(prefix="onnxc_bad_")
    with open(os.path.join(HERE, "expected.txt")) as f:
        cases = [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]
    for rel, want, *flags in cases:
        path = os.path.join(corpus, rel)
        flags = shlex.split(flags[0]) if flags else []
        if flags:
            rel = f"{rel} {' '.join(flags)}"
        try:
            p = subprocess.run([onnxc, path, "-o", os.path.join(out, "m.c")] + flags, capture_output=True,
                               text=True, timeout=10, cwd=corpus)
        except subprocess.TimeoutExpired:
            print(f"FAIL {rel}: hang (timed out after 10 s)")
            failed += 1
            continue
        lines = p.stderr.splitlines()
        why = None
        if p.returncode != 1:
            why = f"exit status {p.returncode}, expected 1"
        elif len(lines) != 1:
            why = f"{len(lines)} lines on stderr, expected 1: {p.stderr[:300]!r}"
        elif not lines[0].startswith(f"onnxc: error: {path}"):
            why = f"error line does not start with 'onnxc: error: {path}': {lines[0]!r}"
        elif want not in lines[0]:
            why = f"error line lacks {want!r}: {lines[0]!r}"
        elif p.stdout:
            why = f"unexpected stdout {p.stdout[:200]!r}"
        if why:
            print(f"FAIL {rel}: {why}")
            failed += 1
        else:
            print(f"PASS {rel}: {lines[0]}")
            passed += 1
    # flags that do not go together with a valid model: status 1, one line naming the model
    good = os.path.join(HERE, "..", "models", "mlp_op11", "model.onnx")
    for flags, want in ((["--target", "cuda", "--train", "--loss", "mse:output", "--optimizer", "sgd:lr=0.1", "--canary"],
                         "--canary is not supported with --target cuda"),
                        (["--target", "cuda-nvrtc", "--weights", os.path.join(out, "w.bin")], "--weights does not apply"),
                        (["--target", "cuda", "--canary"], "--canary is not supported"),
                        (["--target", "cuda", "--threads", "2"], "--threads does not apply to --target cuda"),
                        (["--target", "cuda", "--custom-op", "x::Y:outputs=in0"], "not supported with --target cuda")):
        p = subprocess.run([onnxc, good, "-o", os.path.join(out, "m.c")] + flags, capture_output=True, text=True, timeout=10)
        lines = p.stderr.splitlines()
        if p.returncode == 1 and len(lines) == 1 and lines[0].startswith(f"onnxc: error: {good}") and want in lines[0]:
            print(f"PASS flags {' '.join(flags[:2])} ...: {lines[0]}")
            passed += 1
        else:
            print(f"FAIL flags {' '.join(flags)}: status {p.returncode}, stderr {p.stderr!r}")
            failed += 1
    # command-line misuse: one line, status 2
    train = ["x.onnx", "-o", "x.c", "--train"]
    for args, want in ((["--bogus"], "unknown option"), ([], "no model given"), (["x.onnx"], "no output given"),
                       (train + ["--optimizer", "sgd:lr=0.1"], "--train needs --loss"),
                       (train + ["--loss", "mse:y"], "--train needs --optimizer"),
                       (train + ["--loss", "mse:y", "--optimizer", "rmsprop"], "unknown optimizer 'rmsprop'"),
                       (train + ["--loss", "mse:y", "--optimizer", "sgd:lr"], "expected k=v"),
                       (train + ["--loss", "mse:y", "--optimizer", "sgd:lr=fast"], "lr must be a number"),
                       (train + ["--loss", "mse:y", "--optimizer", "adamw:momentum=0.9"], "unknown parameter 'momentum'"),
                       (train + ["--loss", "mse:y", "--optimizer", "sgd:momentum=0.9"], "needs a learning rate"),
                       (["x.onnx", "-o", "x.c", "--optimizer", "sgd:lr=1"], "--optimizer needs --train"),
                       (["x.onnx", "-o", "x.c", "--threads", "0"], "--threads expects an integer from 1 to 64"),
                       (["x.onnx", "-o", "x.c", "--threads", "two"], "--threads expects an integer from 1 to 64"),
                       (["--custom-op", "com.example::Act"], "--custom-op 'com.example::Act': missing outputs="),
                       (["--custom-op", "com.example:Act:outputs=in0"], "expected DOMAIN::OP:outputs="),
                       (["--custom-op", "ai.onnx::Relu:outputs=in0"], "domain 'ai.onnx' is not a custom domain"),
                       (["--custom-op", "x::Y:outputs=float[3"], "output 'float[3': missing ']'"),
                       (["--custom-op", "x::Y:outputs=quux[2]"], "unknown element type 'quux'"),
                       (["--custom-op", "x::Y:outputs=float[in0.x]"], "dim 'in0.x' is neither a size nor inN.AXIS"),
                       (["--custom-op", "x::Y:outputs=in0:backward=maybe"], "backward must be none, inputs, outputs or all"),
                       (["--custom-op", "x::Y:outputs=in0:workspace=-1"], "workspace must be a byte count"),
                       (["--custom-op", "x::Y:outputs=in0:nograd=40"], "nograd: expected input numbers from 0 to 31"),
                       (["--custom-op", "x::Y:outputs=in0:outputs=in0"], "key 'outputs' given twice"),
                       (["--custom-op", "9x::Y:outputs=in0"], "the C name '9x_Y' would start with a digit"),
                       (["x.onnx", "-o", "x.c", "--recompute"], "--recompute needs --gradients or --train"),
                       (["x.onnx", "-o", "x.c", "--target", "metal"], "unknown target 'metal'"),
                       (["x.onnx", "-o", "x.c", "--string-bytes", "-1"], "--string-bytes expects a non-negative integer"),
                       (["x.onnx", "-o", "x.c", "--string-bytes", "4k"], "--string-bytes expects a non-negative integer"),
                       (["x.onnx", "-o", "x.c", "--image-size", "32"], "--image-size expects HxW, two integers from 1 to 65535"),
                       (["x.onnx", "-o", "x.c", "--image-size", "0x5"], "--image-size expects HxW, two integers from 1 to 65535"),
                       (["x.onnx", "-o", "x.c", "--scratch-headroom", "-5"], "--scratch-headroom expects a percentage from 0 to 1000"),
                       (["x.onnx", "-o", "x.c", "--scratch-headroom", "25%"], "--scratch-headroom expects a percentage from 0 to 1000"),
                       (["x.onnx", "-o", "x.c", "--max-substrings", "0"], "--max-substrings expects a positive integer"),
                       (["export-weights", "x.onnx"], "export-weights takes")):
        p = subprocess.run([onnxc] + args, capture_output=True, text=True, timeout=10)
        lines = p.stderr.splitlines()
        if p.returncode == 2 and len(lines) == 1 and want in lines[0]:
            print(f"PASS cli {' '.join(args) or '(no args)'}: {lines[0]}")
            passed += 1
        else:
            print(f"FAIL cli {' '.join(args)}: status {p.returncode}, stderr {p.stderr!r}")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
