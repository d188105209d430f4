#!/usr/bin/env bash
# Installs what building and testing onnxc needs on Debian 12 (as root, or through sudo).
set -euo pipefail
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
pkgs="build-essential cmake pkg-config libprotobuf-c-dev protobuf-c-compiler libonnx-dev libonnx-testdata gcc-arm-none-eabi libnewlib-arm-none-eabi gcc-aarch64-linux-gnu qemu-user clang python3 python3-pip"
missing=""
for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
if [ -n "$missing" ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
PY=${PYTHON:-python3}
if ! $PY -c "import onnx, onnxruntime, numpy; assert onnx.__version__ == '1.23.2'" 2>/dev/null; then
  $PY -m pip install -q "onnx==1.23.2" onnxruntime numpy 2>&1 | grep -v "^WARNING: Running pip as" || true
fi
