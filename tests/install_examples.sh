#!/usr/bin/env bash
# Installs onnxc into a temporary prefix and builds the digits, train_classifier and custom_op
# examples the two documented ways: plain make + pkg-config, and CMake find_package(onnxc) +
# onnxc_add_model(). Every program runs.
set -euo pipefail
BUILD=$(cd "$1" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cmake --install "$BUILD" --prefix "$T/prefix" >/dev/null
for f in bin/onnxc include/onnxc_rt.h include/onnxc_custom.h lib/libonnxc_rt.a lib/pkgconfig/onnxc_rt.pc lib/cmake/onnxc/onnxcConfig.cmake; do
  [ -e "$T/prefix/$f" ] || { echo "FAIL install: missing $f"; echo "0 passed, 1 failed"; exit 1; }
done
echo "PASS install layout"
cp -r "$ROOT/examples/digits" "$T/make"
(cd "$T/make" && PKG_CONFIG_PATH="$T/prefix/lib/pkgconfig" make -s ONNXC="$T/prefix/bin/onnxc" >/dev/null && ./digits_demo | tail -n 1)
echo "PASS make + pkg-config"
cmake -S "$ROOT/examples/digits" -B "$T/cmake" -DCMAKE_PREFIX_PATH="$T/prefix" >/dev/null
cmake --build "$T/cmake" >/dev/null
"$T/cmake/digits_demo" | tail -n 1
# regenerated when the model changes
sleep 1
touch "$ROOT/examples/digits/digits.onnx"
out=$(cmake --build "$T/cmake" 2>&1)
if ! echo "$out" | grep -q "onnxc digits.onnx"; then
  echo "FAIL the model changed but the C was not regenerated"; echo "3 passed, 1 failed"; exit 1
fi
echo "PASS regenerates when the model changes"
echo "PASS cmake find_package + onnxc_add_model"
# on-device training (onnxc --train): the example exits non-zero below 95% accuracy
cp -r "$ROOT/examples/train_classifier" "$T/train_make"
rm -rf "$T/train_make/out" "$T/train_make/train_classifier"
(cd "$T/train_make" && PKG_CONFIG_PATH="$T/prefix/lib/pkgconfig" make -s ONNXC="$T/prefix/bin/onnxc" >/dev/null && ./train_classifier | tail -n 1) \
  || { echo "FAIL train_classifier (make)"; echo "4 passed, 1 failed"; exit 1; }
echo "PASS train_classifier: make + pkg-config"
cmake -S "$ROOT/examples/train_classifier" -B "$T/train_cmake" -DCMAKE_PREFIX_PATH="$T/prefix" >/dev/null
cmake --build "$T/train_cmake" >/dev/null
"$T/train_cmake/train_classifier" | tail -n 1 || { echo "FAIL train_classifier (cmake)"; echo "5 passed, 1 failed"; exit 1; }
echo "PASS train_classifier: cmake find_package + onnxc_add_model --train"
# a custom op (C forward/backward in the example) trained with --train: exits non-zero below 90%
cp -r "$ROOT/examples/custom_op" "$T/custom_make"
rm -rf "$T/custom_make/out" "$T/custom_make/custom_op"
(cd "$T/custom_make" && PKG_CONFIG_PATH="$T/prefix/lib/pkgconfig" make -s ONNXC="$T/prefix/bin/onnxc" >/dev/null && ./custom_op | tail -n 1) \
  || { echo "FAIL custom_op (make)"; echo "6 passed, 1 failed"; exit 1; }
echo "PASS custom_op: make + pkg-config, --custom-op"
cmake -S "$ROOT/examples/custom_op" -B "$T/custom_cmake" -DCMAKE_PREFIX_PATH="$T/prefix" >/dev/null
cmake --build "$T/custom_cmake" >/dev/null
"$T/custom_cmake/custom_op" | tail -n 1 || { echo "FAIL custom_op (cmake)"; echo "7 passed, 1 failed"; exit 1; }
sleep 1
touch "$ROOT/examples/custom_op/custom_ops.txt"
out=$(cmake --build "$T/custom_cmake" 2>&1)
if ! echo "$out" | grep -q "onnxc swirl.onnx"; then
  echo "FAIL the --custom-ops file changed but the C was not regenerated"; echo "7 passed, 1 failed"; exit 1
fi
echo "PASS custom_op: cmake onnxc_add_model --custom-ops FILE DEPENDS FILE (regenerates when it changes)"
echo "8 passed, 0 failed"
