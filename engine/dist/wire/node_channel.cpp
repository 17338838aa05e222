#include "dist/wire/node_channel.h"

#include "dist/wire/node_connection.h"

namespace flowlens::dist {

NodeChannel::NodeChannel(std::unique_ptr<NodeConnection> connection, NodeRef node)
    : connection_(std::move(connection)), node_(std::move(node)) {}

NodeChannel::~NodeChannel() = default;

NodeAnswer NodeChannel::ask(wire::Header request, std::chrono::milliseconds timeout) {
  WireMessage r = connection_->request(std::move(request), {}, timeout);
  NodeAnswer answer{r.header.code(), r.header.text(), r.header.step(), {}};
  for (std::size_t i = 0; i < r.num_tensors(); ++i) answer.tensors.push_back({r.name(i), r.tensor(i)});
  return answer;
}

}  // namespace flowlens::dist
