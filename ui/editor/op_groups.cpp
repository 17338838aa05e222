#include "ui/editor/op_groups.h"

#include <map>

namespace flowlens::ui {
namespace {

const std::map<std::string, const char*>& group_table() {
  static const std::map<std::string, const char*> table = [] {
    std::map<std::string, const char*> t;
    auto put = [&t](const char* group, std::initializer_list<const char*> ops) {
      for (const char* op : ops) t[op] = group;
    };
    put("math", {"Add", "AddN", "AddV2", "Sub", "Mul", "RealDiv", "Neg", "Exp", "Log", "Sqrt", "Square", "Maximum",
                 "Minimum", "MatMul", "Sum", "Mean", "Max", "Cast", "GreaterEqual", "LessEqual"});
    put("nn", {"Relu", "Sigmoid", "Tanh", "Softmax", "BiasAdd", "BiasAddV1", "SoftmaxCrossEntropyWithLogits",
               "SparseSoftmaxCrossEntropyWithLogits"});
    put("array", {"Const", "Placeholder", "PlaceholderWithDefault", "Identity", "StopGradient", "Reshape", "Shape",
                  "Size", "Rank", "Fill", "ZerosLike", "OnesLike", "Concat", "ConcatV2", "Pack", "Unpack", "Split",
                  "SplitV", "Slice", "NoOp"});
    put("state", {"Variable", "VariableV2", "Assign", "AssignAdd", "AssignSub", "RandomUniform",
                  "RandomStandardNormal", "TruncatedNormal"});
    put("training", {"ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "SyntheticClassification", "ReluGrad",
                     "SigmoidGrad", "TanhGrad", "SqrtGrad", "BiasAddGrad", "BroadcastGradientArgs", "ReducedShape",
                     "ConcatOffset"});
    return t;
  }();
  return table;
}

}  // namespace

const QStringList& op_group_names() {
  static const QStringList names = {QStringLiteral("math"), QStringLiteral("nn"), QStringLiteral("array"),
                                    QStringLiteral("state"), QStringLiteral("training"), QStringLiteral("other")};
  return names;
}

QString op_group(const std::string& op) {
  const auto& table = group_table();
  auto it = table.find(op);
  if (it != table.end()) return QLatin1String(it->second);
  if (op.starts_with("Apply")) return QStringLiteral("training");
  if (op.ends_with("Grad")) return QStringLiteral("training");
  return QStringLiteral("other");
}

bool op_is_internal(const std::string& op) { return op.starts_with("_"); }

}  // namespace flowlens::ui
