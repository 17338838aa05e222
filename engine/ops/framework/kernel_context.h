#pragma once
// What a kernel sees while it runs: its node, input tensors, and slots for
// its outputs. Kernels throw flowlens::Error for bad input; the executor adds
// the node name and op to the message.
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "graph/node.h"
#include "ops/framework/attr_reader.h"
#include "ops/framework/run_context.h"
#include "ops/framework/run_log.h"
#include "tensor/tensor.h"

namespace flowlens {

class Device;
struct OpDef;

// A variable's storage, owned by the Session so values persist across runs.
struct Variable {
  std::mutex mu;
  Tensor value;  // !valid() until first assigned
  std::string name;
};

class KernelContext {
 public:
  KernelContext(const Node& node, std::span<const Tensor> inputs, std::span<Variable* const> ref_inputs,
                std::span<Tensor> outputs, Variable* own_variable, Device* device = nullptr,
                AcceleratorMemory* memory = nullptr, const OpDef* def = nullptr, const LogSink* log_sink = nullptr,
                const RunContext* run = nullptr)
      : node_(node), inputs_(inputs), refs_(ref_inputs), outputs_(outputs), own_variable_(own_variable),
        device_(device), memory_(memory), def_(def), log_sink_(log_sink), run_(run) {}

  const Node& node() const { return node_; }
  // The op's definition (nullptr when a test calls a kernel without one).
  const OpDef* def() const { return def_; }
  // Attrs with the OpDef's defaults.
  AttrReader attrs() const { return AttrReader(node_, def_); }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  // Data input i. For a ref input position this is the variable's current
  // value (may be an empty tensor if uninitialized).
  const Tensor& input(int i) const { return inputs_[checked(i, inputs_.size(), "input")]; }
  // The variable bound to ref input i, or nullptr if that input is not a ref.
  Variable* ref_input(int i) const { return i >= 0 && static_cast<size_t>(i) < refs_.size() ? refs_[static_cast<size_t>(i)] : nullptr; }
  // For Variable/VariableV2 nodes: this node's own storage.
  Variable* own_variable() const { return own_variable_; }
  // The device the kernel runs on (nullptr in unit tests that call kernels
  // directly); GPU kernels take their stream from it.
  Device* device() const { return device_; }
  // The session run this kernel is part of (ops/framework/run_context.h); nullptr
  // when a test calls the kernel directly.
  const RunContext* run_context() const { return run_; }
  // The session's resources; throws Error naming the op when the kernel
  // runs outside a session.
  ResourceManager& resources() const {
    if (!run_ || !run_->resources) throw Error(node_.op + " needs a session's resources; it ran outside one");
    return *run_->resources;
  }
  // The function library; throws Error naming the op when there is none.
  FunctionCaller& functions() const {
    if (!run_ || !run_->functions) throw Error(node_.op + " calls a function, and no function library is available");
    return *run_->functions;
  }
  // The device's memory, nullptr for host memory.
  AcceleratorMemory* memory() const { return memory_; }
  // Where Print and PrintV2 write: the run log of the session that owns the
  // device, or the process's streams without one (a kernel run directly).
  void log(LogStream stream, std::string_view text) const {
    if (log_sink_ && *log_sink_)
      (*log_sink_)(stream, text);
    else
      write_to_process_streams(stream, text);
  }
  // The same node, inputs and outputs with outputs allocated on the host: a
  // device running a CPU kernel on host-memory inputs (int32 shape math, a
  // Cast from int32) hands it this view; the executor moves float results
  // into device memory afterwards.
  KernelContext host_memory_view() const {
    KernelContext view = *this;
    view.memory_ = nullptr;
    return view;
  }

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  void set_output(int i, Tensor t) { outputs_[checked(i, outputs_.size(), "output")] = std::move(t); }
  // In the device's memory for dtypes that live there, else on the host.
  Tensor& allocate_output(int i, DType dtype, Shape shape) {
    Tensor& slot = outputs_[checked(i, outputs_.size(), "output")];
    slot = Tensor(dtype, std::move(shape), memory_);
    return slot;
  }

 private:
  // A kernel never reaches past its node's inputs or outputs, whatever attrs
  // it was given (a list size that disagrees with the inputs): an Error, not UB.
  size_t checked(int i, size_t n, const char* what) const {
    if (i < 0 || static_cast<size_t>(i) >= n)
      throw Error(node_.op + ": " + what + " " + std::to_string(i) + " does not exist (the node has " +
                  std::to_string(n) + ")");
    return static_cast<size_t>(i);
  }

  const Node& node_;
  std::span<const Tensor> inputs_;
  std::span<Variable* const> refs_;
  std::span<Tensor> outputs_;
  Variable* own_variable_;
  Device* device_;
  AcceleratorMemory* memory_;
  const OpDef* def_;
  const LogSink* log_sink_;
  const RunContext* run_;
};

}  // namespace flowlens
