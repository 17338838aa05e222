# Thin wrapper: the README's two commands. Everything real lives in CMake.
# Each phase prints its time (scripts/timed).
PRESET ?= default
BUILD_DIR := $(if $(filter default,$(PRESET)),build,build-$(PRESET))
SAMPLE ?= samples/matmul_baseline.pbtxt
REPLICAS ?= 2
JOBS ?= $(shell nproc)
TIMED := scripts/timed
# What `make run` needs: the GUI and the flowlens-node its Cluster → Launch
# starts. Tests and benchmarks are built by `make test` only.
RUN_TARGETS := flowlens flowlens-node

.PHONY: run test build configure deps bench fuzz clean

run: configure
	$(TIMED) build-gui cmake --build --preset $(PRESET) -j $(JOBS) --target $(RUN_TARGETS)
	$(BUILD_DIR)/bin/flowlens $(if $(filter-out 0,$(REPLICAS)),--replicas $(REPLICAS)) $(SAMPLE)

test: build
	$(TIMED) test ctest --preset $(PRESET) -j $(JOBS)

build: configure
	$(TIMED) build cmake --build --preset $(PRESET) -j $(JOBS)

configure: deps
	$(TIMED) configure cmake --preset $(PRESET)

deps:
	$(TIMED) install-deps scripts/install-deps

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
# cluster_json wire_decoder npy graph_exec checkpoint saved_model.
FUZZ_SECONDS ?= 600
FUZZ_TARGETS ?=
fuzz: deps
	tests/fuzz/run-fuzzers.sh --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)

clean:
	rm -rf $(BUILD_DIR)
