#pragma once
// OpDef: everything FlowLens knows about one op type, in one place — its
// signature and attrs (written in TensorFlow's REGISTER_OP syntax, so defaults
// and allowed types are TensorFlow's), shape function, kernels per device
// with their constraints as data (like KernelDefBuilder), gradient or the
// reason there is none, palette category and a one-line doc. Validation,
// placement, the executor, add_gradients, the editor's palette, the GPU
// backend and `flowlens-run ops` all read it; nothing keeps a side table.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/attr_value.h"
#include "graph/node.h"
#include "ops/framework/kernel_context.h"
#include "ops/framework/shape_context.h"

namespace flowlens {

namespace grad {
struct GradContext;
}

// The op's node class (graph/node_class.h: variable, constant, send ...),
// declared opaquely so that the predicates' header stays out of the
// precompiled header this one is in.
enum class NodeClass : std::uint8_t;

using KernelFn = void (*)(KernelContext&);
using ShapeFn = void (*)(ShapeContext&);
// What data cannot say about a kernel (a GPU variable's value must already
// live on that GPU): a predicate over the node.
using KernelSupportFn = bool (*)(const Node&);
// Adds the gradient nodes of one op (transform/gradient_functions.h): one
// gradient tensor name per data input, "" where none flows.
using GradFn = std::vector<std::string> (*)(grad::GradContext&);

// The value kind of an attr, as TensorFlow's OpDef.AttrDef.type names it.
enum class AttrKind {
  String, Int, Float, Bool, Type, Shape, Tensor, Func,
  ListString, ListInt, ListFloat, ListBool, ListType, ListShape, ListTensor, ListFunc,
};
// "int", "list(type)" ...
const char* attr_kind_name(AttrKind kind);

// One input or output: "x: T", "values: N * T", "ref: Ref(T)", "shape: int32",
// "outputs: Tout" (a list of types).
struct ArgDef {
  std::string name;
  DType type = DType::Invalid;  // a fixed type, or Invalid when type_attr/type_list_attr gives it
  std::string type_attr;
  std::string number_attr;     // N tensors of one type
  std::string type_list_attr;  // one tensor per listed type
  bool is_ref = false;
  bool is_list() const { return !number_attr.empty() || !type_list_attr.empty(); }
};

// One attr: "T: {float, double}", "keep_dims: bool = false", "N: int >= 1",
// "padding: {'SAME', 'VALID'}".
struct AttrDef {
  std::string name;
  AttrKind kind = AttrKind::String;
  std::optional<AttrValue> default_value;  // none: the node must set it (or it is inferred, see below)
  std::vector<DType> allowed_types;        // type / list(type): empty means any
  std::vector<std::string> allowed_strings;  // string: empty means any
  std::optional<int64_t> minimum;          // int: lowest value; list: fewest entries
  // A type attr named by an input (T of "x: T") or a number attr counting an
  // input list (N of "values: N * T"): a node may leave it out and have it
  // inferred from its inputs, the way FlowLens's own graph builders do.
  bool inferable = false;
};

// A kernel for one device type, with the constraints that choose it.
struct KernelDef {
  std::string device;  // "CPU", "GPU"
  KernelFn fn = nullptr;
  // attr -> the dtypes this kernel computes on (KernelDefBuilder's TypeConstraint).
  std::vector<std::pair<std::string, std::vector<DType>>> type_constraints;
  // Arguments (by name) that stay in host memory on a device with its own
  // memory (KernelDefBuilder's HostMemory): shapes, axes, sizes.
  std::vector<std::string> host_memory;
  KernelSupportFn supports = nullptr;
  // Why the predicate is there, for `flowlens-run ops` ("int32 tensors in host memory").
  std::string note;
  // A CPU kernel lent to a device for tensors that stay in host memory
  // (int32 shape arithmetic beside GPU work): not a kernel for device data.
  bool host_memory_only = false;

  // Whether this kernel takes `node` (an absent attr cannot rule a kernel out:
  // the kernel checks the dtypes it is handed).
  bool accepts(const Node& node) const;
};

enum class GradientKind {
  Missing,           // nothing said: the registry walk reports it
  Function,          // `gradient` builds the gradient nodes
  NotDifferentiable, // no gradient flows through (TensorFlow's ops.NotDifferentiable)
  None,              // TensorFlow defines none; add_gradients fails if it needs one (`gradient_note` says why)
};

struct OpDef {
  std::string name;
  std::vector<ArgDef> inputs;
  std::vector<ArgDef> outputs;
  std::vector<AttrDef> attrs;
  bool stateful = false;     // Variable, random ops, Assign: never constant-folded or deduplicated
  bool keeps_state = false;  // owns per-session storage (KernelContext::own_variable)
  // Its CPU kernel only forwards or copies buffers (Identity, Reshape, Concat,
  // and through gather_mapped Transpose, StridedSlice ...), so it serves
  // tensors in any device's memory unchanged.
  bool moves_bytes_only = false;
  // Its CPU kernel reads no tensor values, at most shapes (Shape, Size, Rank, NoOp).
  bool reads_no_values = false;
  ShapeFn shape_fn = nullptr;
  std::vector<KernelDef> kernels;
  GradientKind gradient_kind = GradientKind::Missing;
  GradFn gradient = nullptr;
  std::string gradient_note;  // for NotDifferentiable / None: why
  std::string no_gpu_reason;  // set when no GPU kernel exists on purpose or yet
  std::string no_kernel_reason;  // set when no CPU kernel exists (the runtime executes it)
  std::string category;       // palette group: math, nn, array, state, training, sparse, strings, summary, control, internal
  // From graph/node_class.h's table when the op is registered (OpRegistry::add).
  NodeClass node_class{};
  std::string summary;        // one line

  // ---- derived from the signature -------------------------------------------
  const AttrDef* find_attr(std::string_view attr) const;
  // Fewest data inputs any node of this op takes, and most (-1: unbounded).
  int min_inputs() const;
  int max_inputs() const;
  // Number of data inputs / outputs of this node (list args sized by its
  // attrs); -1 for inputs when a list's size attr is absent (any count of at
  // least the minimum then fits). Throws Error when an output list's size
  // cannot be told or is out of range.
  int inputs_for(const Node& node) const;
  int outputs_for(const Node& node) const;
  // The argument data input i (or output i) of `node` belongs to; nullptr
  // when i is past the signature.
  const ArgDef* input_arg(const Node& node, int i) const;
  const ArgDef* output_arg(const Node& node, int i) const;
  bool is_ref_input(int i) const;  // by position, for signatures whose ref args precede any list
  bool is_ref_output(int i) const;

  // ---- kernels ------------------------------------------------------------------
  // The kernel for this node on this device type, honouring its constraints.
  KernelFn kernel_for(std::string_view device_type, const Node& node) const;
  const KernelDef* kernel_def_for(std::string_view device_type, const Node& node) const;
  // The first kernel for a device type regardless of constraints (tests, the registry walk).
  KernelFn kernel(std::string_view device_type) const;

  // ---- attrs with defaults --------------------------------------------------------
  // The node's value of `attr`, else this def's default; nullptr if neither.
  const AttrValue* attr_or_default(const Node& node, std::string_view attr) const;
};

// Builds an OpDef from TensorFlow's REGISTER_OP syntax. Malformed spec
// strings are programming errors: they throw Error naming the op at start-up,
// and the registry walk test catches them.
class OpBuilder {
 public:
  explicit OpBuilder(std::string name);

  OpBuilder& input(std::string_view spec);   // "x: T"
  OpBuilder& output(std::string_view spec);
  OpBuilder& attr(std::string_view spec);    // "T: {float, double} = DT_FLOAT"
  OpBuilder& stateful();
  OpBuilder& keeps_state();
  OpBuilder& moves_bytes_only();
  OpBuilder& reads_no_values();
  OpBuilder& shape(ShapeFn fn);
  // A CPU kernel; `types` constrains attr `type_attr` (empty: none).
  OpBuilder& cpu(KernelFn fn, std::vector<DType> types = {}, std::string type_attr = "T");
  OpBuilder& kernel(KernelDef def);
  OpBuilder& not_differentiable(std::string why = {});
  OpBuilder& no_gradient(std::string why);
  OpBuilder& no_gpu(std::string why);
  OpBuilder& no_kernel(std::string why);
  OpBuilder& category(std::string c);
  OpBuilder& doc(std::string summary);

  OpDef build();
  operator OpDef() { return build(); }

 private:
  OpDef def_;
};

// An argument or attr written back in REGISTER_OP syntax ("values: N * T",
// "keep_dims: bool = false"), for `flowlens-run ops` and tooltips.
std::string spec_text(const ArgDef& arg);
std::string spec_text(const AttrDef& attr);

// The palette categories, in palette order; every OpDef names one.
const std::vector<std::string>& op_categories();

// TensorFlow's named type sets (op_def_builder.cc), in TensorFlow's order.
const std::vector<DType>& tf_type_set(std::string_view name);  // "numbertype", "realnumbertype" ...; empty if unknown

}  // namespace flowlens
