#include "ops/framework/rendezvous.h"

#include "graph/node.h"

namespace flowlens {

std::string rendezvous_key(const Node& transfer) {
  return transfer.attr_string("send_device", "") + ";" + transfer.attr_string("recv_device", "") + ";" +
         transfer.attr_string("tensor_name", "");
}

}  // namespace flowlens
