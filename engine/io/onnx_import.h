#pragma once
// ONNX ModelProto -> flowlens::Graph, for viewing and, where the ops map onto
// kernels FlowLens has, running. Import only: there is no ONNX writer.
//
// Mapping:
//  * graph inputs that are not initializers -> Placeholder (dtype, shape; a
//    dim_param or missing dim becomes -1, a missing shape unknown rank);
//  * initializers -> Const holding the decoded tensor (raw_data or the typed
//    *_data fields; FLOAT16/BFLOAT16 keep their 2-byte bit patterns);
//  * each node -> one Node named after the ONNX node, or "<op_type>_<index>"
//    when it has none (uniquified; ':' and a leading '^' become '_'). Ops
//    FlowLens runs are mapped (MatMul, Add->AddV2, Sub, Mul, Div->RealDiv,
//    Relu, Sigmoid, Tanh, Identity, Softmax over the last axis, Reshape with
//    a constant shape, Concat->ConcatV2 plus a "<name>/axis" Const, Gemm with
//    alpha = beta = 1 -> MatMul (+ "<name>/bias" AddV2)); every other op
//    becomes "onnx::<op_type>" and can be viewed but not run. ONNX attributes
//    are kept as attrs; GRAPH attributes (If/Loop bodies) become the string
//    "<subgraph: N nodes>". Mapped ops get T from value_info, graph
//    inputs/outputs and initializers, propagated through mapped ops; float
//    when unknown. Non-default domains are recorded in attr "_onnx_domain",
//    the ONNX op_type of every node in attr "_onnx_op_type" (kOnnxOpTypeAttr).
//  * graph outputs -> an Identity node named after the output value (so the
//    ONNX output name can be fetched), marked with attr "_onnx_output" = true.
//    Outputs that are themselves a graph input or initializer need none.
//  * an ONNX value "v" produced as output k of node n is the input "n:k".
//
// Failures throw ParseError naming `source_name`.
#include <string>
#include <string_view>

#include "graph/graph.h"

namespace flowlens {

inline constexpr std::string_view kOnnxOpTypeAttr = "_onnx_op_type";

Graph parse_graph_onnx(std::string_view bytes, const std::string& source_name);

}  // namespace flowlens
