#!/bin/bash
# gpu_run.sh - the GPU checks in one command, on a GPU machine, from the repository root, with
# gpu/ made by tests/cuda/gpu_pack.sh (only the training stage compiles there, with cc;
# python3 with onnx, onnxruntime, numpy, torch and torchvision, the CUDA libraries and a
# driver are needed).
#
#   bash tests/cuda/gpu_run.sh OUTDIR [STAGE...]     STAGE: fixtures, bench, node, suites, train
#                                                    (default: all)
#   NODE_K=REGEX: only the node cases whose names match (a lease too short for all of them can
#   run them in two calls, e.g. '^test_[a-g]' then '^test_[h-z]'); NODE_LIMIT: the node stage's
#   time limit in seconds (default 240).
#
# 1. the PyTorch fixtures (--target cuda, nvcc builds): eager, graph capture, replay, 1e-4;
#    the same without CUDA graphs;
# 2. the CUDA speed table (bench/cuda_speed.py --prebuilt): ResNet-18, MobileNetV2, the
#    transformer encoder at batch 1 and 32 against PyTorch eager;
# 3. the ONNX node suite (--target cuda-nvrtc): the one gpu_pack.sh packed (build/onnx-data,
#    the onnx wheel this project pins), else this machine's onnx package's;
# 3b. (suites) the other three ONNX suites (pytorch-converted, pytorch-operator, simple) when packed;
# 4. --train --target cuda-nvrtc: the training curves against torch.optim (built there: needs cc).
# Logs go to OUTDIR; each stage has a time limit so that one hang cannot eat the lease.
set -u
O=${1:-/tmp/gpu_out}
shift
STAGES=${*:-fixtures bench node suites train}
mkdir -p "$O"
tar -C gpu -xJf gpu/pack.tar.xz || exit 1
# the CUDA libraries: the toolkit's, else wherever the image keeps them (pip's nvidia-* too)
for lib in libcublas.so.13 libnvrtc.so.13 libcudart.so.13; do
  f=$(find /usr/local/cuda/lib64/ /usr/local/cuda/ /usr/lib /opt -name "$lib" 2>/dev/null | head -n 1)
  [ -n "$f" ] && LD_LIBRARY_PATH=$(dirname "$f"):${LD_LIBRARY_PATH:-}
done
export LD_LIBRARY_PATH
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
ldd gpu/fixtures/lenet_op12/model0 | grep -E 'not found|cublas|cudart|nvrtc'

export PYTHONUNBUFFERED=1
J=$(nproc)
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm --format=csv
python3 -c "import onnx, numpy, torch; print('onnx', onnx.__version__, 'numpy', numpy.__version__, 'torch', torch.__version__)"
stage() { echo "== $1 ($(date +%T))"; }
want() { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }

if want fixtures; then
stage "fixtures, --target cuda (nvcc), with CUDA graphs"
timeout 100 python3 tests/conformance/run.py --target cuda --build gpu/build tests/models --max-rel-err 1e-4 \
  --require-all --use-build gpu/fixtures -j "$J" >"$O/fixtures.log" 2>&1
echo "status $?"; grep -v '^PASS' "$O/fixtures.log" | tail -n 20
stage "fixtures without CUDA graphs"
ONNXC_CUDA_NO_GRAPHS=1 timeout 60 python3 tests/conformance/run.py --target cuda --build gpu/build tests/models \
  --max-rel-err 1e-4 --require-all --use-build gpu/fixtures -j "$J" >"$O/fixtures_nograph.log" 2>&1
echo "status $?"; grep -v '^PASS' "$O/fixtures_nograph.log" | tail -n 20
fi

if want bench; then
stage "CUDA speed against PyTorch eager"
timeout 180 python3 bench/cuda_speed.py --prebuilt gpu/bench --iters 100 >"$O/bench.log" 2>&1
echo "status $?"; tail -n 12 "$O/bench.log"
fi

if want node; then
stage "ONNX node cases, --target cuda-nvrtc"
D=gpu/data/node
[ -d "$D" ] || D=$(python3 -c "import onnx, os; print(os.path.join(os.path.dirname(onnx.__file__), 'backend', 'test', 'data', 'node'))")
echo "cases: $D ($(ls "$D" | wc -l))"
ONNXC_RUN_TIMEOUT=60 timeout ${NODE_LIMIT:-240} python3 tests/conformance/run.py --target cuda-nvrtc --build gpu/build "$D" \
  --prefix onnx123/node/ --ratchet tests/conformance/ratchet.txt --use-build gpu/node -j "$J" \
  --log "$O/node_stream.log" ${NODE_K:+-k "$NODE_K"} >"$O/node.log" 2>&1
echo "status $?"; tail -n 1 "$O/node.log"
echo "streamed: $(grep -c '^PASS' "$O/node_stream.log") passed, $(grep -c '^FAIL' "$O/node_stream.log") failed"
grep '^FAIL' "$O/node_stream.log" | cut -c1-220 | head -n 60
fi
if want suites; then
for s in pytorch-converted pytorch-operator simple; do
  [ -d "gpu/suites/$s" ] || continue
  stage "ONNX $s cases, --target cuda-nvrtc"
  ONNXC_RUN_TIMEOUT=60 timeout 120 python3 tests/conformance/run.py --target cuda-nvrtc --build gpu/build "gpu/data/$s" \
    --prefix "onnx123/$s/" --ratchet tests/conformance/ratchet.txt --use-build "gpu/suites/$s" -j "$J" \
    --log "$O/suites_stream.log" >"$O/suite.log" 2>&1
  echo "status $?"; grep -v '^PASS' "$O/suite.log" | tail -n 20
  cat "$O/suite.log" >>"$O/suites.log"
  rm -f "$O/suite.log"
done
fi
if want train; then
stage "training curves, --train --target cuda-nvrtc"
timeout 150 python3 tests/training/train_curve/run_curves.py --build gpu/build --target cuda-nvrtc >"$O/train.log" 2>&1
echo "status $?"; tail -n 14 "$O/train.log"
fi
stage done
