#pragma once
// Static shape inference for one node: input dtypes and (partial) shapes in,
// output dtypes and shapes out. Shape functions throw flowlens::Error when
// the inputs can never be valid (MatMul with inner dims 3 vs 4), and leave
// dims unknown (-1) when they cannot tell.
#include <vector>

#include "graph/node.h"
#include "ops/framework/attr_reader.h"
#include "tensor/shape.h"
#include "tensor/tensor.h"

namespace flowlens {

struct OpDef;

struct TensorInfo {
  DType dtype = DType::Invalid;  // Invalid when unknown
  Shape shape = Shape::unknown_rank();
  // For a resource tensor (a variable's handle): the variable's dtype and
  // shape as its VarHandleOp declares them, TensorFlow's handle shapes and
  // types, which ReadVariableOp and the optimizers infer their shapes from.
  DType handle_dtype = DType::Invalid;
  Shape handle_shape = Shape::unknown_rank();
};

class ShapeContext {
 public:
  ShapeContext(const Node& node, std::vector<TensorInfo> inputs, std::vector<const Tensor*> constant_inputs,
               int num_outputs, const OpDef* def = nullptr)
      : node_(node), inputs_(std::move(inputs)), constants_(std::move(constant_inputs)),
        outputs_(static_cast<size_t>(num_outputs)), def_(def) {}

  const Node& node() const { return node_; }
  const OpDef* def() const { return def_; }
  // Attrs with the OpDef's defaults.
  AttrReader attrs() const { return AttrReader(node_, def_); }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const TensorInfo& input(int i) const { return inputs_[static_cast<size_t>(i)]; }
  // Value of input i when it comes straight from a Const node (Reshape's
  // shape, Split's axis, Sum's axes); nullptr otherwise.
  const Tensor* constant_input(int i) const { return constants_[static_cast<size_t>(i)]; }

  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  void set_output(int i, DType dtype, Shape shape) { outputs_[static_cast<size_t>(i)] = {dtype, std::move(shape)}; }
  // The variable a resource output refers to (after set_output).
  void set_output_handle(int i, DType dtype, Shape shape) {
    outputs_[static_cast<size_t>(i)].handle_dtype = dtype;
    outputs_[static_cast<size_t>(i)].handle_shape = std::move(shape);
  }
  const std::vector<TensorInfo>& outputs() const { return outputs_; }

 private:
  const Node& node_;
  std::vector<TensorInfo> inputs_;
  std::vector<const Tensor*> constants_;
  std::vector<TensorInfo> outputs_;
  const OpDef* def_;
};

}  // namespace flowlens
