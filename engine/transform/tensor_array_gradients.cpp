// Gradients of the TensorArray ops, after TensorFlow's tensor_array_grad.py.
// Each backward op reaches the forward array's gradient TensorArray
// (TensorArrayGradV3 with a `source` naming this gradient computation, so
// separate tf.gradients calls get separate accumulators) and does the
// opposite access: a read's gradient is written (writes to a gradient array
// add up), a write's gradient is read, gather <-> scatter, concat <-> split.
// The float flows order it all: a write's gradient is read only after every
// gradient write that flows into it.
#include "transform/gradient_functions.h"

namespace flowlens::grad {
namespace {

// _GetGradSource: the name up to its last component starting with
// "gradients" ("gradients", "outer/gradients_1"). TensorFlow raises when
// there is none; here the gradient's own scope is the fallback (a gradient
// fed by the caller through grad_ys).
std::string grad_source(const GradContext& c, const std::string& tensor) {
  auto source_of = [](const std::string& name) -> std::string {
    size_t start = 0, end_of_last = std::string::npos;
    while (start <= name.size()) {
      size_t slash = name.find('/', start);
      if (slash == std::string::npos) slash = name.size();
      if (name.compare(start, 9, "gradients") == 0) end_of_last = slash;
      start = slash + 1;
    }
    return end_of_last == std::string::npos ? std::string() : name.substr(0, end_of_last);
  };
  std::string s = source_of(tensor);
  if (s.empty()) s = source_of(c.b.scope());
  if (s.empty()) s = c.b.scope();
  return s;
}

DType attr_dtype(const GradContext& c, const char* attr) { return c.node.attr_type(attr, c.dtype); }

struct GradArray {
  std::string handle;
  std::string flow;
};

// TensorArray.grad(source, flow): TensorArrayGradV3, and the flow after it.
GradArray grad_array(GradContext& c, const std::string& handle, const std::string& flow, const std::string& source) {
  GraphBuilder s = c.b.sub("TensorArrayGrad");
  const std::string g = s.add("TensorArrayGradV3", "TensorArrayGradV3", {handle, flow}, {{"source", AttrValue(source)}});
  const std::string f = s.add("Identity", "gradient_flow", {flow}, {{"T", AttrValue(DType::Float)}}, {g});
  return {g, f};
}

// The incoming flow gradient, ordered after the forward op's own flow_out
// (the "write_barrier" that keeps TensorArrayGrad after the last write).
std::string write_barrier(GradContext& c) {
  const std::string out = c.b.add("Identity", "flow_out", {c.outputs[0]}, {{"T", AttrValue(DType::Float)}});
  return c.b.add("Identity", "write_barrier", {c.grads[0]}, {{"T", AttrValue(DType::Float)}}, {out});
}

// Read: the gradient is written to the gradient array at the index.
std::vector<std::string> read_grad(GradContext& c) {
  const DType dtype = attr_dtype(c, "dtype");
  const GradArray g = grad_array(c, c.inputs[0], c.inputs[2], grad_source(c, c.grads[0]));
  const std::string w = c.b.add("TensorArrayWriteV3", "TensorArrayWrite/TensorArrayWriteV3",
                                {g.handle, c.inputs[1], c.grads[0], g.flow}, {{"T", AttrValue(dtype)}});
  return {"", "", w};
}

// Write: the value's gradient is read from the gradient array.
std::vector<std::string> write_grad(GradContext& c) {
  const DType dtype = attr_dtype(c, "T");
  const std::string source = grad_source(c, c.grads[0]);
  const std::string flow = write_barrier(c);
  const GradArray g = grad_array(c, c.inputs[0], flow, source);
  const std::string r = c.b.add("TensorArrayReadV3", "TensorArrayReadV3", {g.handle, c.inputs[1], g.flow},
                                {{"dtype", AttrValue(dtype)}});
  return {"", "", r, flow};
}

std::vector<std::string> gather_grad(GradContext& c) {
  const DType dtype = attr_dtype(c, "dtype");
  const GradArray g = grad_array(c, c.inputs[0], c.inputs[2], grad_source(c, c.grads[0]));
  const std::string s = c.b.add("TensorArrayScatterV3", "TensorArrayScatter/TensorArrayScatterV3",
                                {g.handle, c.inputs[1], c.grads[0], g.flow}, {{"T", AttrValue(dtype)}});
  return {"", "", s};
}

std::vector<std::string> scatter_grad(GradContext& c) {
  const DType dtype = attr_dtype(c, "T");
  const std::string source = grad_source(c, c.grads[0]);
  const std::string flow = write_barrier(c);
  const GradArray g = grad_array(c, c.inputs[0], flow, source);
  const std::string r = c.b.add("TensorArrayGatherV3", "TensorArrayGatherV3", {g.handle, c.inputs[1], g.flow},
                                {{"dtype", AttrValue(dtype)}});
  return {"", "", r, flow};
}

std::vector<std::string> concat_grad(GradContext& c) {
  if (c.grads[0].empty()) return {"", ""};
  const DType dtype = attr_dtype(c, "dtype");
  const GradArray g = grad_array(c, c.inputs[0], c.inputs[1], grad_source(c, c.grads[0]));
  const std::string s = c.b.add("TensorArraySplitV3", "TensorArraySplit/TensorArraySplitV3",
                                {g.handle, c.grads[0], c.outputs[1], g.flow}, {{"T", AttrValue(dtype)}});
  return {"", s};
}

std::vector<std::string> split_grad(GradContext& c) {
  const DType dtype = attr_dtype(c, "T");
  const std::string source = grad_source(c, c.grads[0]);
  const std::string flow = write_barrier(c);
  const GradArray g = grad_array(c, c.inputs[0], flow, source);
  const std::string r = c.b.add("TensorArrayConcatV3", "TensorArrayConcatV3", {g.handle, g.flow},
                                {{"dtype", AttrValue(dtype)}});
  return {"", r, "", flow};
}

}  // namespace

void add_tensor_array_gradients(GradTable& t) {
  t.insert(t.end(), {{"TensorArrayReadV3", read_grad},
                     {"TensorArrayWriteV3", write_grad},
                     {"TensorArrayGatherV3", gather_grad},
                     {"TensorArrayScatterV3", scatter_grad},
                     {"TensorArrayConcatV3", concat_grad},
                     {"TensorArraySplitV3", split_grad}});
}

}  // namespace flowlens::grad
