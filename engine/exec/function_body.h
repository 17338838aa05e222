#pragma once
// Running a graph exported from a function body step after step: its _Arg
// nodes are the inputs, its _Retval nodes the outputs (ops/kernels/control_flow/function_ops.cpp).
//
//   * A data argument is fed like a Placeholder, by its node name or by index
//     as "arg:N"; every one must be fed, with its dtype T and, when the node
//     records one (_output_shapes), a shape compatible with it.
//   * A DT_RESOURCE argument is a variable the Session owns, bound to the
//     node the way a VarHandleOp's is (Session::variable_of_node): it is
//     named after the node in the default container, declared with the dtype
//     and shape of its _handle_dtypes / _handle_shapes attrs, and persists
//     across runs, so the body's AssignVariableOp / ResourceApply* updates are
//     what the next step reads. initialize_resource_args gives these
//     variables their first values.
//   * A return value is fetched by index as "retval:N" or by its node name.
//     Every step runs the whole body, as TensorFlow's function runtime does:
//     every _Retval, and every stateful node nothing consumes (an update the
//     body does not tie to a return value), whichever values are fetched.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "exec/session.h"
#include "graph/graph.h"

namespace flowlens {

// What a resource argument's value is to the ops that read it, found by
// following the value forward (see FunctionBody::initialize_resource_args):
// its kind ("Adam lr", "FusedBatchNorm scale") and the default TensorFlow /
// Keras gives a variable in that role.
struct ArgRole {
  std::string kind;
  double value = 0;
};

struct FunctionArg {
  std::string node;
  int64_t index = 0;
  DType dtype = DType::Invalid;         // T
  Shape shape = Shape::unknown_rank();  // a data argument's _output_shapes[0], if recorded
  // DT_RESOURCE: the variable's dtype and shape (_handle_dtypes[0], _handle_shapes[0]).
  bool resource = false;
  DType var_dtype = DType::Invalid;
  Shape var_shape = Shape::unknown_rank();
  // Input 1.. of a ResourceApply* op: an optimizer slot (Adam's m and v), not a weight.
  bool optimizer_slot = false;
  // The role its value plays, when the consumers it reaches give it one (and
  // agree on the default); --init-args random starts it at role->value.
  std::optional<ArgRole> role;
  // "arg:3 'x' (float [4,3])" for messages.
  std::string describe() const;
};

struct FunctionRetval {
  std::string node;
  int64_t index = 0;
  DType dtype = DType::Invalid;
  std::string tensor;  // the node's data input: what fetching it returns
};

// A resource _Arg or _DeviceArg (T = DT_RESOURCE).
bool is_resource_arg(const Node& node);
// A resource argument's variable dtype and shape from its handle attrs
// (Invalid / unknown rank when absent).
void resource_arg_handle_data(const Node& node, DType* dtype, Shape* shape);

// How resource arguments get their first values.
enum class ArgFill {
  None,    // every resource argument must come from the checkpoint
  Zeros,   // zeros of the variable's dtype and shape
  Random,  // glorot-uniform weights, role defaults, zeros for the rest (see initialize_resource_args)
};

struct ArgInitOptions {
  std::string checkpoint;  // prefix (or anything open_checkpoint takes); empty: none
  // Explicit argument -> checkpoint key pairs (read_arg_map); the argument as
  // its node name or "arg:N".
  std::map<std::string, std::string> name_map;
  ArgFill fill = ArgFill::None;  // for the arguments the checkpoint does not give
  uint64_t seed = 0;             // ArgFill::Random
};

struct ArgInitReport {
  std::vector<std::pair<std::string, std::string>> restored;  // (argument node, checkpoint key)
  std::vector<std::string> filled;                            // given by the fill
  std::vector<std::string> unmatched;                         // not in the checkpoint (then filled)
  // Of `filled`, those ArgFill::Random gave their role's default, by kind in
  // argument order: (role, argument nodes).
  std::vector<std::pair<ArgRole, std::vector<std::string>>> by_role;
};

// Reads an argument-to-checkpoint-key map: one "ARG KEY" or "ARG=KEY" pair a
// line, ARG a node name or arg:N; blank lines and lines starting with '#'
// skipped. Throws Error naming the file and line of a malformed one.
std::map<std::string, std::string> read_arg_map(const std::string& path);

class FunctionBody {
 public:
  // Collects the _Arg/_DeviceArg and _Retval/_DeviceRetval nodes by index.
  // Throws Error naming the nodes when two share an index, when an index is
  // missing (0..N-1 must all be there), or when an index or T is absent.
  explicit FunctionBody(const Graph& graph);

  // True when the graph has _Arg or _Retval nodes: a function body.
  static bool is_function_body(const Graph& graph);

  const std::vector<FunctionArg>& args() const { return args_; }        // by index
  const std::vector<FunctionRetval>& retvals() const { return retvals_; }  // by index

  // The argument "arg:N", "name" or "name:0" names; nullptr if none. Throws
  // Error for "arg:N" with N out of range or not a number.
  const FunctionArg* find_arg(const std::string& spec) const;
  // The return value "retval:N", "name" names; nullptr if none (throws like find_arg).
  const FunctionRetval* find_retval(const std::string& spec) const;

  // The Session's feeds for feeds keyed by argument ("arg:N", a node name) or
  // by any other tensor name (passed on as they are). Throws Error naming the
  // argument for a wrong dtype or shape, an argument fed twice, a resource
  // argument fed (its variable is the session's), or data arguments not fed
  // (all of them listed).
  FeedList feeds_for(const FeedList& feeds) const;
  // Tensor names to fetch for "retval:N", a _Retval's name, or any other
  // tensor name; none given: every return value in index order.
  std::vector<std::string> fetches_for(const std::vector<std::string>& specs) const;
  // What one step runs besides the fetches: every _Retval, and every stateful
  // node (other than an argument) whose outputs nothing consumes.
  const std::vector<std::string>& step_targets() const { return targets_; }

  // One step: feeds_for, fetches_for, step_targets.
  std::vector<Tensor> run(Session& session, const FeedList& feeds, const std::vector<std::string>& fetch_specs) const;

  // Gives every resource argument's variable its first value. From the
  // checkpoint, each argument is looked up under, in order:
  //   1. its entry in options.name_map (by node name or arg:N; a key missing
  //      from the checkpoint is an error),
  //   2. its node name as a key,
  //   3. a key that TensorFlow's argument naming turns into the node name:
  //      lower-cased, every character outside [a-z0-9] an '_', with a trailing
  //      "/.ATTRIBUTES/VARIABLE_VALUE" (object-based checkpoints) dropped, the
  //      node name compared with and without a trailing "_resource"; used
  //      only when exactly one key matches.
  // Keras argument names ("dense_matmul_readvariableop_resource") name the op
  // that reads the variable, not the variable ("dense/kernel"), so such graphs
  // need a map. The value's dtype and shape must be the declared ones (a
  // partial declared shape admits any value that fits it).
  // Arguments the checkpoint does not give are filled by options.fill; with
  // ArgFill::None they are an Error listing each, with the checkpoint keys of
  // the same dtype and shape as candidates for a map.
  // ArgFill::Random gives each floating-point variable what Keras would:
  //   * by role: the argument's value is followed forward, through
  //     ReadVariableOp and value-preserving ops (Identity, IdentityN port by
  //     port, Cast, Snapshot, StopGradient, PreventGradient, CheckNumerics,
  //     EnsureShape, Enter/Exit/NextIteration/Switch/Merge), to the inputs it
  //     reaches; by the registered name of such an input it gets
  //       FusedBatchNorm{,V2,V3} scale, variance            1 (Keras's gamma and
  //                                                          moving_variance)
  //       *ApplyAdam lr 0.001, beta1 0.9, beta2 0.999, epsilon 1e-7 (Keras's
  //         Adam), beta1_power 0.9, beta2_power 0.999 (TF1's AdamOptimizer
  //         starts its power accumulators at beta1, beta2; Keras computes the
  //         powers with Pow from beta_1, which is not followed)
  //       *ApplyGradientDescent alpha 0.01 (Keras's SGD)
  //       *Apply{,Keras}Momentum lr 0.01, momentum 0 (Keras's SGD)
  //       *ApplyRMSProp lr 0.001, rho 0.9, momentum 0, epsilon 1e-7
  //       *ApplyAdagrad{,V2} lr 0.001, epsilon 1e-7, accum 0.1 (Keras's
  //         initial_accumulator_value)
  //       *ApplyFtrl{,V2} lr 0.001, lr_power -0.5, accum 0.1
  //     (* any of Apply, SparseApply, ResourceApply, ResourceSparseApply).
  //     An argument whose roles disagree on the value gets none. Names play
  //     no part: a learning rate is the variable that reaches an lr input.
  //   * otherwise, variables of rank >= 2 that are not optimizer slots get
  //     glorot-uniform values, U(-l, l) with l = sqrt(6 / (fan_in + fan_out))
  //     as Keras computes the fans, drawn from a generator seeded by
  //     options.seed (arguments in index order);
  //   * and biases, scalars, integers, counters and optimizer slots (Adam's m
  //     and v) get zeros, as Keras initializes them.
  // The report lists the arguments given a role's default (by_role).
  ArgInitReport initialize_resource_args(Session& session, const ArgInitOptions& options) const;

 private:
  std::vector<FunctionArg> args_;
  std::vector<FunctionRetval> retvals_;
  std::vector<std::string> targets_;
};

}  // namespace flowlens
