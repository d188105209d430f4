#!/usr/bin/env bash
# Installs onnxc into a temporary prefix and builds the digits, train_classifier and custom_op
# examples the two documented ways: plain make + pkg-config, and CMake find_package(onnxc) +
# onnxc_add_model(). Every program runs; the training examples exit non-zero below their
# accuracy bar (train_classifier 95%, custom_op 90%).
set -euo pipefail
BUILD=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
passed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; echo "$passed passed, 1 failed"; exit 1; }

cmake --install "$BUILD" --prefix "$T/prefix" >/dev/null
for f in bin/onnxc include/onnxc_rt.h include/onnxc_custom.h lib/libonnxc_rt.a lib/pkgconfig/onnxc_rt.pc lib/cmake/onnxc/onnxcConfig.cmake; do
  [ -e "$T/prefix/$f" ] || fail "install: missing $f"
done
pass "install layout"

# example DIR, program PROG: make + pkg-config, then CMake (build folder $T/DIR_cmake)
both_ways() { # DIR PROG WHAT
  cp -r "$ROOT/examples/$1" "$T/$1_make"
  rm -rf "$T/$1_make/out" "$T/$1_make/$2"
  (cd "$T/$1_make" && PKG_CONFIG_PATH="$T/prefix/lib/pkgconfig" make -s ONNXC="$T/prefix/bin/onnxc" >/dev/null && "./$2" | tail -n 1) \
    || fail "$1 (make)"
  pass "$1: make + pkg-config"
  cmake -S "$ROOT/examples/$1" -B "$T/$1_cmake" -DCMAKE_PREFIX_PATH="$T/prefix" >/dev/null
  cmake --build "$T/$1_cmake" >/dev/null
  "$T/$1_cmake/$2" | tail -n 1 || fail "$1 (cmake)"
  pass "$1: cmake find_package + onnxc_add_model${3:+ $3}"
}
# onnxc_add_model regenerates the C when FILE changes
regenerates() { # DIR FILE MODEL
  sleep 1
  touch "$ROOT/examples/$1/$2"
  local out
  out=$(cmake --build "$T/$1_cmake" 2>&1)
  echo "$out" | grep -q "onnxc $3" || { echo "$out" | tail -n 20; fail "$1: $2 changed but the C was not regenerated"; }
  pass "$1: regenerates when $2 changes"
}

both_ways digits digits_demo ""
regenerates digits digits.onnx digits.onnx
both_ways train_classifier train_classifier "--train"
both_ways custom_op custom_op "--train --custom-ops FILE"
regenerates custom_op custom_ops.txt swirl.onnx
echo "$passed passed, 0 failed"
