#pragma once
// What a kernel reaches beyond its own node while a session runs it: the
// session's named resources (queues, iterators, anything a `shared_name`
// names), the graph's function library (calls, If/While bodies, tf.data map
// functions), the step it runs in, and whether the run is being abandoned
// (a kernel that blocks, a queue dequeue, polls that). The executor hands one
// to every kernel; a kernel a test calls directly gets none
// (KernelContext::run_context() is nullptr) and kernels needing it say so.
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <typeinfo>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph/attr_value.h"
#include "graph/node.h"
#include "tensor/resource_handle.h"
#include "tensor/tensor.h"

namespace flowlens {

class Graph;
class Rendezvous;

// The session's resources by (container, name), TensorFlow's ResourceMgr
// keys. They live as long as the session (or until a kernel erases them),
// so a queue filled by one run is there for the next.
class ResourceManager {
 public:
  using Factory = std::function<std::shared_ptr<ResourceBase>()>;

  // The T under (container, name), made by `make` when there is none.
  // Throws Error when the one there is of another kind.
  template <class T>
  std::shared_ptr<T> lookup_or_create(const std::string& container, const std::string& name,
                                      const std::function<std::shared_ptr<T>()>& make) {
    return std::static_pointer_cast<T>(lookup_or_create_of(container, name, typeid(T), [&] { return make(); }));
  }
  // nullptr when there is none.
  std::shared_ptr<ResourceBase> lookup(const std::string& container, const std::string& name) const;
  // Whether there was one to remove.
  bool erase(const std::string& container, const std::string& name);
  // Every resource, by "container/name", for status views.
  std::vector<std::pair<std::string, std::shared_ptr<ResourceBase>>> list() const;

 private:
  std::shared_ptr<ResourceBase> lookup_or_create_of(const std::string& container, const std::string& name,
                                                    const std::type_info& type, const Factory& make);
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, std::shared_ptr<ResourceBase>> resources_;
};

// The graph's function library as kernels call it. An implementation
// instantiates a FunctionDef with the call's attrs, runs its body on the
// session's devices (observers see the body's nodes, with the call on their
// call stack) and returns the results.
class FunctionCaller {
 public:
  virtual ~FunctionCaller() = default;
  virtual bool has_function(std::string_view name) const = 0;
  // Throws Error naming the function (and the caller) for an unknown
  // function, wrong argument count or dtypes, or a failing body node.
  virtual std::vector<Tensor> call(const Node& caller, std::string_view function, const AttrMap& attrs,
                                   std::span<const Tensor> args) = 0;
};

struct RunContext {
  // The step this run belongs to: the session's run id, or, for one
  // partition of a distributed step, the step id every partition shares
  // (the rendezvous matches _Send and _Recv by it).
  int64_t step_id = 0;
  // Where this partition's _Send nodes hand their tensors and its _Recv
  // nodes (run by the executor, never blocking a thread) wait for theirs
  // (ops/framework/rendezvous.h); nullptr outside a distributed step.
  Rendezvous* rendezvous = nullptr;
  ResourceManager* resources = nullptr;
  FunctionCaller* functions = nullptr;
  // Set when the run fails elsewhere or is stopped: a kernel waiting on
  // something (a queue) gives up.
  const std::atomic<bool>* cancelled = nullptr;
  // The session's graph, for messages that name other nodes (a queue's
  // enqueue ops when a dequeue waits in vain); nullptr when unknown.
  const Graph* graph = nullptr;
  // How long a blocking kernel (a queue dequeue or enqueue) waits before it
  // gives up with DeadlineExceededError (SessionOptions::blocking_op_timeout_s).
  double blocking_timeout_s = 60;

  bool is_cancelled() const { return cancelled && cancelled->load(std::memory_order_relaxed); }
};

}  // namespace flowlens
