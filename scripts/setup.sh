#!/usr/bin/env bash
# Fresh Debian 12 machine -> dependencies installed, onnxc built, and the demo run: the digit
# classifier in examples/digits (trained on scikit-learn's digits data) compiled to C with
# onnxc, built into a program with a static arena, and run on 100 held-out images.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
mkdir -p build/demo
./build/onnxc examples/digits/digits.onnx -o build/demo/digits.c -v
cc -std=c11 -O2 -Wall -Wextra -Iruntime_min -Ibuild/demo -Iexamples/digits \
  examples/digits/main.c build/demo/digits.c build/libonnxc_rt.a -lm -o build/demo/digits_demo
./build/demo/digits_demo
