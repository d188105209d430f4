#!/usr/bin/env bash
# Builds onnxc twice (plain, and with AddressSanitizer + UndefinedBehaviorSanitizer) and runs
# every test under CTest: conformance suites with their ratchet, PyTorch fixtures, bad-input
# corpus (under the sanitizers), generated-code strictness (C99 -pedantic, Cortex-M4),
# determinism, and the install/package examples.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
J=$(nproc)
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DONNXC_SANITIZE=ON -DBUILD_TESTING=OFF >/dev/null
cmake --build build-asan -j"$J" >/dev/null
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DONNXC_ASAN_ONNXC="$PWD/build-asan/onnxc" >/dev/null
cmake --build build -j"$J" >/dev/null
# ONNX 1.23 node cases: generated from the installed onnx wheel (4 s), not downloaded
if [ ! -d build/onnx-data/node ]; then
  ${PYTHON:-python3} tests/conformance/gen_node_data.py build/onnx-data >/dev/null 2>&1
fi
cd build
ctest --output-on-failure -j"$J" "$@"
