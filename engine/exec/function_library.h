#pragma once
// The graph's function library at run time, as TensorFlow's
// FunctionLibraryRuntime: a FunctionDef (io/function_defs.h) is
// instantiated with the caller's attrs into a Graph whose inputs are _Arg
// and outputs _Retval nodes (TensorFlow's InstantiateFunction: signature
// args expanded per their type / number / type-list attrs, `$T`
// placeholders substituted, inputs "node:out_arg:index" resolved through
// the op's output arg lists, `ret` and `control_ret` honoured), validated,
// placed on the session's devices and planned once per (function, attrs).
//
// A call runs the body on the calling thread, node after node in
// dependency order, so calls nested to any depth never wait on a worker
// of the pool they occupy; observers see every body node with the call
// stack (observer.h CallSite) filled. Calls nest at most kMaxCallDepth
// deep (a recursive function fails with the call chain named).
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "exec/device.h"
#include "exec/execution_plan.h"
#include "exec/observer.h"
#include "exec/placement.h"
#include "graph/graph.h"
#include "io/function_defs.h"
#include "ops/framework/op_registry.h"
#include "ops/framework/run_context.h"

namespace flowlens {

constexpr int kMaxCallDepth = 64;

// One instantiation of a function: its body graph, placement and plan.
struct FunctionInstance {
  std::string function;
  std::string key;  // function name and attrs: the body's variable scope
  Graph graph;
  Placement placement;
  std::unique_ptr<ExecutionPlan> plan;  // null when the body has nothing to run
  std::vector<DType> arg_types;         // per expanded argument
  std::vector<DType> ret_types;         // per expanded return value
  std::vector<std::string> arg_nodes;   // _Arg node per argument
};

// Storage for a body node that keeps state (a VarHandleOp's handle, a random
// op's counter), given the instance's key as a scope.
using BodyVariableResolver = std::function<Variable*(const std::string& scope, const Node& node)>;

// The library functions a node calls, as (function, attrs) pairs in the
// order the node names them: PartitionedCall's f, If's then_branch and
// else_branch, While's body and cond, Case's branches, or the node's own op
// when it is a library function's name (called with the node's attrs).
// Empty for any other node.
std::vector<std::pair<std::string, AttrMap>> called_functions(const Graph& graph, const Node& node);

// The body of library function `name` instantiated with `attrs` as a Graph of
// _Arg and _Retval nodes, as a call runs it (nested calls kept as nodes, the
// library carried along so they can be opened in turn); for viewing, neither
// placed nor planned. Throws Error naming the function when it is not
// defined or does not instantiate.
Graph function_body_graph(const Graph& graph, const std::string& name, const AttrMap& attrs);

class FunctionLibraryRuntime {
 public:
  FunctionLibraryRuntime(const Graph& graph, DeviceSet& devices, const OpRegistry& registry,
                         bool allow_soft_placement, BodyVariableResolver variables);

  bool has_function(std::string_view name) const;
  // The decoded library; throws Error when it does not decode.
  const FunctionLibraryDefinition& library() const;
  // Instantiated (cached) body of `name` with `attrs`. Throws Error naming
  // the function for an unknown function, a missing attr, an unresolvable
  // input or ret name, or an invalid body.
  const FunctionInstance& instantiate(std::string_view name, const AttrMap& attrs);

 private:
  const Graph& graph_;
  DeviceSet& devices_;
  const OpRegistry& registry_;
  bool allow_soft_placement_;
  BodyVariableResolver variables_;
  mutable std::once_flag decoded_;
  mutable std::unique_ptr<FunctionLibraryDefinition> library_;
  mutable std::string decode_error_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<FunctionInstance>> instances_;
};

// The FunctionCaller one run's kernels see: the runtime, the run's observers
// and id, and the calls the current node runs inside. A body's kernels see a
// child frame with the call pushed on the stack. A frame lives as long as
// its run (or call): a kernel must not keep the FunctionCaller it was handed
// (an iterator's map function calls through the one of the run that asks
// for the next element).
class FunctionCallFrame : public FunctionCaller {
 public:
  FunctionCallFrame(FunctionLibraryRuntime& runtime, std::span<ExecutionObserver* const> observers, int64_t run_id,
                    const RunContext& run, std::vector<CallSite> call_stack = {});

  bool has_function(std::string_view name) const override;
  std::vector<Tensor> call(const Node& caller, std::string_view function, const AttrMap& attrs,
                           std::span<const Tensor> args) override;

  const std::vector<CallSite>& call_stack() const { return stack_; }

 private:
  std::vector<Tensor> run_body(const FunctionInstance& instance, const Node& caller, std::span<const Tensor> args);

  FunctionLibraryRuntime& runtime_;
  std::span<ExecutionObserver* const> observers_;
  int64_t run_id_;
  RunContext run_;
  std::vector<CallSite> stack_;
};

// The dtypes of a function's inputs and outputs with `attrs` (list args
// expanded). Throws Error naming the function and attr when one is missing.
void function_signature_types(const FunctionDefinition& f, const AttrMap& attrs, std::vector<DType>* inputs,
                              std::vector<DType>* outputs);

// Rewrites every node whose op is a library function (and not a registered
// op) into the call TensorFlow makes of it: StatefulPartitionedCall, or
// PartitionedCall for a function whose signature is not stateful, with
// f = {op, the node's attrs} and Tin/Tout from the signature; attrs whose
// names start with '_' stay on the node. Returns how many were rewritten.
// Throws Error naming the node when the signature's attrs cannot be told.
int lower_function_call_nodes(Graph& graph, const FunctionLibraryDefinition& library, const OpRegistry& registry);

// Whether the graph has nodes lower_function_call_nodes would rewrite.
bool has_function_call_nodes(const Graph& graph, const OpRegistry& registry);

}  // namespace flowlens
