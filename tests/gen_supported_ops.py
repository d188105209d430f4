#!/usr/bin/env python3
"""Writes docs/SUPPORTED_OPS.md from `onnxc --list-ops` (the op table itself), or with --check
fails when the committed file differs from what the table gives now.

usage: gen_supported_ops.py ONNXC [--check]
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "SUPPORTED_OPS.md")


def render(onnxc):
    out = subprocess.run([onnxc, "--list-ops"], capture_output=True, text=True, check=True).stdout
    rows = [l.split(None, 3) for l in out.splitlines()[1:] if l.strip()]
    lines = ["# Supported operators", "",
             "Generated from the op table by `tests/gen_supported_ops.py` (`onnxc --list-ops`); do not edit.",
             "An opset range `N+` means from opset N to the newest onnxc knows. A row per range whose",
             "semantics differ. Ops outside this table, or attribute combinations a row rejects, are",
             "compile errors, never wrong code.", "",
             f"{len({(r[0], r[1]) for r in rows})} operators, {len(rows)} rows.", "",
             "| op | domain | opsets | element types |", "|---|---|---|---|"]
    for r in rows:
        r += [""] * (4 - len(r))
        lines.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} |")
    return "\n".join(lines) + "\n"


def main():
    text = render(sys.argv[1])
    if "--check" in sys.argv:
        cur = open(DOC).read() if os.path.exists(DOC) else ""
        if cur != text:
            print("FAIL docs/SUPPORTED_OPS.md is out of date: run tests/gen_supported_ops.py build/onnxc")
            print("0 passed, 1 failed")
            sys.exit(1)
        print("PASS docs/SUPPORTED_OPS.md matches the op table")
        print("1 passed, 0 failed")
        return
    os.makedirs(os.path.dirname(DOC), exist_ok=True)
    with open(DOC, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
