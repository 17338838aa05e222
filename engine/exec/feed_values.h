#pragma once
// What a run can be fed, and feed values as people give them. The GUI's Feeds
// dock and flowlens-run's --feed both read this one module, so a value typed
// in either means the same tensor.
//
// A feed's value is written one of these ways:
//   * a literal as numpy prints it, read as the slot's dtype: "3", "1,2,3"
//     (a bare comma list is a vector), "[[1,0],[1,1]]", "\"text\"";
//   * a path ending in .npy;
//   * a generated value, for a non-string dtype: "zeros", "ones" or "random"
//     (uniform in [0, 1) for floats, 0..9 for integers, a coin for bools),
//     each with an optional shape, "random[4,2]"; without one the slot's
//     declared shape, every unknown dimension ("?") taken as 1.
// A value fits a slot when its dtype is the slot's and its shape is
// compatible with the declared one, as tf.Session.run's feed_dict checks.
#include <cstdint>
#include <string>
#include <vector>

#include "exec/session.h"
#include "graph/graph.h"
#include "tensor/shape.h"

namespace flowlens {

class FunctionBody;
class GraphAnalysis;

// A Placeholder (or PlaceholderV2); PlaceholderWithDefault has a value of its own.
bool is_placeholder_op(const std::string& op);

struct FeedSlot {
  enum class Kind {
    Placeholder,  // must be fed when a run needs it
    DataArg,      // a function body's data _Arg: fed like a placeholder
    ResourceArg,  // a function body's variable: the session initializes it, never fed
  };
  std::string name;  // the node's name
  Kind kind = Kind::Placeholder;
  DType dtype = DType::Invalid;
  Shape shape = Shape::unknown_rank();  // declared; may be partial
  std::string role;                     // a resource argument's role ("Adam lr"), if it has one

  // "float32 [?,2]"
  std::string describe_type() const;
};

// Every placeholder and function argument of the graph, in graph order. The
// arguments come from `body` when given (a graph exported from a function body).
std::vector<FeedSlot> feed_slots(const Graph& graph, const FunctionBody* body = nullptr);

// The placeholders and data arguments that running `roots` (fetches and
// targets, "x" or "x:1") would execute without a value: every one the roots
// depend on through data or control edges, unless a tensor in `fed` (names
// as fed: "x", "x:0") cuts the path. In graph order.
std::vector<std::string> missing_feeds(const Graph& graph, const std::vector<std::string>& roots,
                                       const std::vector<std::string>& fed);

// The dtype a literal feed of `name` is read as: a function argument's T, the
// fed node's dtype attr (a Placeholder's), else the tensor's dtype as shape
// inference tells it. Throws Error when there is no such node or the dtype
// cannot be told.
DType feed_dtype(const GraphAnalysis& analysis, const std::string& name, const FunctionBody* body = nullptr);

// The shape `name` is declared with: a function argument's recorded shape,
// a placeholder's shape attr, else what shape inference tells; unknown rank
// when none says.
Shape feed_declared_shape(const GraphAnalysis& analysis, const std::string& name, const FunctionBody* body = nullptr);

// The value `text` stands for (see the top of this file), for a tensor of
// dtype `dtype` declared with `declared` (used by generated values). Throws
// Error saying what is wrong; .npy errors name the file.
Tensor parse_feed_value(const std::string& text, DType dtype, const Shape& declared);

// `value` as `dtype`, converted element by element as numpy's astype does
// (float to integer truncates): tf.Session.run converts a placeholder's
// feed_dict value with np.asarray(value, dtype=placeholder.dtype). Values of
// another kind (strings, resources) or an Invalid `dtype` come back as they
// are. Function arguments are not converted: a function's signature is strict.
Tensor convert_placeholder_feed(const Tensor& value, DType dtype);

// Empty when `value` fits a slot of `dtype` and `declared`; else why not:
// "expected float32 [?,2], got int32 [3]".
std::string feed_mismatch(DType dtype, const Shape& declared, const Tensor& value);

// True when `shape` (fully known) is compatible with the declared, partial one.
bool shape_fits(const Shape& declared, const Shape& shape);

}  // namespace flowlens
