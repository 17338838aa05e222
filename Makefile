# Thin wrapper: the README's two commands. Everything real lives in CMake.
PRESET ?= default
BUILD_DIR := $(if $(filter default,$(PRESET)),build,build-$(PRESET))
SAMPLE ?= samples/matmul_baseline.pbtxt
REPLICAS ?= 2
JOBS ?= $(shell nproc)

.PHONY: run test build deps bench fuzz clean

run: build
	$(BUILD_DIR)/bin/flowlens $(if $(filter-out 0,$(REPLICAS)),--replicas $(REPLICAS)) $(SAMPLE)

test: build
	ctest --preset $(PRESET) -j $(JOBS)

build: deps
	cmake --preset $(PRESET)
	cmake --build --preset $(PRESET) -j $(JOBS)

deps:
	scripts/install-deps

bench: build
	$(BUILD_DIR)/bin/bench_gemm
	$(BUILD_DIR)/bin/bench_dispatch
	$(BUILD_DIR)/bin/bench_replicas
	$(BUILD_DIR)/bin/bench_observe
	$(BUILD_DIR)/bin/bench_transport
	$(BUILD_DIR)/bin/bench_attach
	$(BUILD_DIR)/bin/bench_bigraph

# Long fuzzing runs (clang, libFuzzer + ASan + UBSan in build-fuzz/): FUZZ_SECONDS
# per target; FUZZ_TARGETS picks some of graphdef_text graphdef_binary onnx
# cluster_json wire_decoder npy graph_exec.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?=
fuzz: deps
	tests/fuzz/run-fuzzers.sh --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD_DIR)
