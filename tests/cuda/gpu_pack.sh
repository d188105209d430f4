#!/bin/sh
# gpu_pack.sh - builds, on a machine with the CUDA toolkit but no GPU, everything that
# tests/cuda/gpu_run.sh runs on a GPU machine that compiles nothing (such machines are lent
# for minutes): gpu/build (onnxc linked statically against protobuf-c, the runtime libraries)
# and gpu/pack.tar.xz (the fixtures built with nvcc for sm_90, the ONNX 1.23 cases of all four
# suites built for --target cuda-nvrtc with their data, the CUDA speed benchmark's timing
# executables and references).
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
# the other ONNX 1.23 suites, from the onnx wheel
W=$(python3 -c "import onnx, os; print(os.path.join(os.path.dirname(onnx.__file__), 'backend', 'test', 'data'))")
mkdir -p gpu/data gpu/suites
for s in pytorch-converted pytorch-operator simple; do
  python3 tests/conformance/run.py --target cuda-nvrtc --build gpu/build "$W/$s" \
    --save-build "gpu/suites/$s" -j "$J" -q | tail -n 1
  cp -r "$W/$s" gpu/data/
done
/usr/bin/python3 bench/cuda_speed.py --prebuild gpu/bench --build gpu/build
cp -r build/onnx-data/node gpu/data/
tar -C gpu -c fixtures node suites bench data | xz -T0 -6 >gpu/pack.tar.xz
rm -rf gpu/fixtures gpu/node gpu/suites gpu/bench gpu/data
du -sh gpu
