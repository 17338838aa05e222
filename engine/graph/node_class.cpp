#include "graph/node_class.h"

#include <string>
#include <unordered_map>

namespace flowlens {

NodeClass node_class(std::string_view op) {
  // TensorFlow's kNodeClassTable for the classes FlowLens asks about, plus
  // VarHandleOp and the placeholders (see node_class.h).
  static const auto* table = new std::unordered_map<std::string_view, NodeClass>{
      {"Switch", NodeClass::Switch},
      {"RefSwitch", NodeClass::Switch},
      {"Merge", NodeClass::Merge},
      {"RefMerge", NodeClass::Merge},
      {"Enter", NodeClass::Enter},
      {"RefEnter", NodeClass::Enter},
      {"Exit", NodeClass::Exit},
      {"RefExit", NodeClass::Exit},
      {"NextIteration", NodeClass::NextIteration},
      {"RefNextIteration", NodeClass::NextIteration},
      {"LoopCond", NodeClass::LoopCond},
      {"ControlTrigger", NodeClass::ControlTrigger},
      {"_Send", NodeClass::Send},
      {"_HostSend", NodeClass::Send},
      {"_Recv", NodeClass::Recv},
      {"_HostRecv", NodeClass::Recv},
      {"Const", NodeClass::Constant},
      {"HostConst", NodeClass::Constant},
      {"Variable", NodeClass::Variable},
      {"VariableV2", NodeClass::Variable},
      {"VarHandleOp", NodeClass::ResourceVariable},
      {"Placeholder", NodeClass::Placeholder},
      {"PlaceholderV2", NodeClass::Placeholder},
      {"PlaceholderWithDefault", NodeClass::PlaceholderWithDefault},
      {"_Arg", NodeClass::Arg},
      {"_DeviceArg", NodeClass::Arg},
      {"_Retval", NodeClass::Retval},
      {"_DeviceRetval", NodeClass::Retval},
  };
  const auto it = table->find(op);
  return it == table->end() ? NodeClass::Other : it->second;
}

bool is_control_flow(NodeClass c) {
  switch (c) {
    case NodeClass::Switch:
    case NodeClass::Merge:
    case NodeClass::Enter:
    case NodeClass::Exit:
    case NodeClass::NextIteration:
    case NodeClass::LoopCond:
    case NodeClass::ControlTrigger: return true;
    default: return false;
  }
}

}  // namespace flowlens
