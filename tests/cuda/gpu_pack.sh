#!/bin/sh
# gpu_pack.sh - builds, on a machine with the CUDA toolkit but no GPU, everything that
# tests/cuda/gpu_run.sh runs on a GPU machine that compiles nothing (such machines are lent
# for minutes): gpu/build (onnxc linked statically against protobuf-c, the runtime libraries)
# and gpu/pack.tar.xz (the fixtures built with nvcc for sm_90, the ONNX node cases built for
# --target cuda-nvrtc, the CUDA speed benchmark's timing executables and references).
#
#   sh tests/cuda/gpu_pack.sh [BUILD_DIR]     (BUILD_DIR: default build-gpu; needs build/onnx-data)
#
# gpu/ is meant to be ignored by git (.git/info/exclude) and carried to the GPU machine.
set -eu
B=${1:-build-gpu}
J=$(nproc)
cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
  -DPROTOBUF_C_LIB=/usr/lib/x86_64-linux-gnu/libprotobuf-c.a >/dev/null
cmake --build "$B" -j "$J" >/dev/null
rm -rf gpu
mkdir -p gpu/build
cp "$B/onnxc" "$B/libonnxc_rt.a" "$B/libonnxc_rt_cuda.a" gpu/build/
ONNXC_CUDA_ARCH=sm_90 python3 tests/conformance/run.py --target cuda --build gpu/build tests/models \
  --save-build gpu/fixtures -j "$J" | tail -n 1
python3 tests/conformance/run.py --target cuda-nvrtc --build gpu/build build/onnx-data/node \
  --save-build gpu/node -j "$J" -q | tail -n 1
/usr/bin/python3 bench/cuda_speed.py --prebuild gpu/bench --build gpu/build
mkdir -p gpu/data
cp -r build/onnx-data/node gpu/data/
tar -C gpu -c fixtures node bench data | xz -T0 -6 >gpu/pack.tar.xz
rm -rf gpu/fixtures gpu/node gpu/bench gpu/data
du -sh gpu
