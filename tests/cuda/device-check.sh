#!/usr/bin/env bash
# The GPU check, in two halves, because the GPU machine has the CUDA toolkit
# but none of FlowLens's Debian libraries (Qt, protobuf, OpenBLAS ...) and no
# network:
#
#   tests/cuda/device-check.sh --bundle   on the development machine:
#       configures and builds (Release, CUDA arch 90, no GUI) the parity suite
#       and the GPU benchmarks, and packs them with the shared libraries `ldd`
#       lists into device-bundle/bundle.tar.xz (git-ignored, ~30 MB). CUDA's
#       own libraries and glibc are left out: the GPU machine provides them.
#       The engine links neither cuBLAS nor cuDNN (engine/cuda/
#       cublas_library.h, cudnn_library.h): it dlopens libcublas.so.<major>
#       and libcudnn.so.<major> when a GPU first needs them, found through
#       the LD_LIBRARY_PATH the run half sets, so ldd cannot vouch for them;
#       test_cuda's cublas_library and cudnn_library topics check they load there.
#
#   tests/cuda/device-check.sh            on the GPU machine, in a copy of the
#       repository that carries device-bundle/ (the device tool's
#       carry: ["device-bundle"]): unpacks, runs the parity suites (the
#       hand-written one and the registry walk), the GPU benchmarks and the
#       PyTorch anchor (pytorch_resnet50_anchor.py: ResNet-50 training
#       images/s on the same GPU) with LD_LIBRARY_PATH set, and prints a
#       summary. cuDNN is taken from the toolkit if it has one, else from
#       the PyTorch environment's nvidia-cudnn package (its lib folder).
#       Each step has a time limit; the limits add up to 8 minutes.
#
# Environment: BUILD_DIR (default build-device) to bundle from another build,
# CUDA_HOME (default /usr/local/cuda).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUNDLE_DIR="$ROOT/device-bundle"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
# test_cuda holds the four GPU test topics (tests/test_main.h).
PROGRAMS=(test_cuda bench_gpu_gemm bench_gpu_conv
          bench_gpu_replicas)

usage() {
  sed -n '2,28p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
}

bundle() {
  local build="${BUILD_DIR:-$ROOT/build-device}"
  set -e
  if [[ ! -f "$build/CMakeCache.txt" ]]; then
    cmake -S "$ROOT" -B "$build" -DCMAKE_BUILD_TYPE=Release -DFLOWLENS_CUDA=ON -DFLOWLENS_BUILD_UI=OFF \
      -DCMAKE_CUDA_ARCHITECTURES=90
  fi
  cmake --build "$build" -j"$(nproc)" --target "${PROGRAMS[@]}"
  rm -rf "$BUNDLE_DIR/stage"
  mkdir -p "$BUNDLE_DIR/stage/bin" "$BUNDLE_DIR/stage/lib"
  for p in "${PROGRAMS[@]}"; do
    cp "$build/bin/$p" "$BUNDLE_DIR/stage/bin/"
    strip --strip-debug "$BUNDLE_DIR/stage/bin/$p"
    # Every library the loader resolves, except glibc's, the loader itself
    # and CUDA's (the GPU machine's toolkit and driver must provide those).
    # Only bench_gpu_gemm still links libcublas (its direct reference call).
    ldd "$build/bin/$p" | awk '/=> \// {print $3}' | while read -r lib; do
      case "$(basename "$lib")" in
        libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|ld-linux*|libcuda.so*|libcublas*|libcudart*|libcudnn*) ;;
        *) cp -Ln "$lib" "$BUNDLE_DIR/stage/lib/" ;;
      esac
    done
  done
  tar -C "$BUNDLE_DIR/stage" -cJf "$BUNDLE_DIR/bundle.tar.xz" bin lib
  rm -rf "$BUNDLE_DIR/stage"
  echo "device-check: wrote $BUNDLE_DIR/bundle.tar.xz ($(du -h "$BUNDLE_DIR/bundle.tar.xz" | cut -f1)); run it with"
  echo "  device tool: command 'bash tests/cuda/device-check.sh', carry ['device-bundle']"
}

# The folder holding libcudnn.so.9 on this machine: the toolkit's, else the
# one pip's nvidia-cudnn-cu* package installs beside PyTorch; empty if none.
find_cudnn() {
  if [[ -e "$CUDA_HOME/lib64/libcudnn.so.9" ]]; then
    echo "$CUDA_HOME/lib64"
    return
  fi
  python3 - 2> /dev/null << 'EOF'
import importlib.util, os
spec = importlib.util.find_spec("nvidia.cudnn")
for folder in (spec.submodule_search_locations or []) if spec else []:
    if os.path.exists(os.path.join(folder, "lib", "libcudnn.so.9")):
        print(os.path.join(folder, "lib"))
        break
EOF
}

# Runs one step under a time limit and keeps its output for the summary.
step() {
  local name="$1" limit="$2"
  shift 2
  echo "=== $name (limit ${limit}s)"
  local start=$SECONDS
  timeout "$limit" "$@" 2>&1 | tee "$WORK/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "=== $name: exit $rc in $((SECONDS - start))s"
  echo "$name: exit $rc in $((SECONDS - start))s" >> "$WORK/summary"
  return "$rc"
}

run() {
  if [[ ! -f "$BUNDLE_DIR/bundle.tar.xz" ]]; then
    echo "device-check: $BUNDLE_DIR/bundle.tar.xz is missing; make it with '$0 --bundle' on the build machine" >&2
    exit 2
  fi
  WORK="$(mktemp -d)"
  tar -C "$WORK" -xJf "$BUNDLE_DIR/bundle.tar.xz"
  local cudnn_dir
  cudnn_dir="$(find_cudnn)"
  echo "device-check: cuDNN from ${cudnn_dir:-nowhere (convolutions will take im2col + cuBLAS)}"
  export LD_LIBRARY_PATH="$WORK/lib:$CUDA_HOME/lib64:$CUDA_HOME/lib${cudnn_dir:+:$cudnn_dir}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export FLOWLENS_SAMPLES_DIR="$ROOT/samples"
  export QT_QPA_PLATFORM=offscreen
  : > "$WORK/summary"
  command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
  local missing
  missing="$(ldd "$WORK/bin/test_cuda" | grep 'not found' || true)"
  if [[ -n "$missing" ]]; then
    echo "device-check: libraries not found on this machine:" >&2
    echo "$missing" >&2
    exit 2
  fi
  local failed=0
  # Limits add up to 8 minutes; the steps normally take far less.
  step cublas 20 "$WORK/bin/test_cuda" cublas_library || failed=1
  step cudnn 10 "$WORK/bin/test_cuda" cudnn_library || failed=1
  step parity 60 "$WORK/bin/test_cuda" gpu_parity || failed=1
  step registry_parity 60 "$WORK/bin/test_cuda" gpu_registry_parity || failed=1
  step gpu_gemm 90 "$WORK/bin/bench_gpu_gemm" || failed=1
  step gpu_conv 90 "$WORK/bin/bench_gpu_conv" || failed=1
  step gpu_replicas 40 "$WORK/bin/bench_gpu_replicas" || failed=1
  # The anchor: PyTorch's ResNet-50 training step on the same GPU, same run.
  step pytorch_anchor 90 python3 "$ROOT/tests/cuda/pytorch_resnet50_anchor.py" || failed=1
  echo
  echo "=== summary"
  cat "$WORK/summary"
  grep -h -E '^(Totals|FAIL|SKIP)' "$WORK/cublas.log" "$WORK/cudnn.log" "$WORK/parity.log" \
    "$WORK/registry_parity.log" || true
  grep -h -E '^gpu_registry_parity|MISMATCH' "$WORK/registry_parity.log" | head -40 || true
  grep -h -E '^gpu_' "$WORK/gpu_gemm.log" "$WORK/gpu_conv.log" "$WORK/gpu_replicas.log" || true
  grep -h -E '^pytorch' "$WORK/pytorch_anchor.log" || true
  rm -rf "$WORK"
  exit "$failed"
}

case "${1:-}" in
  --bundle) bundle ;;
  "") run ;;
  -h|--help) usage ;;
  *) echo "device-check: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
esac
