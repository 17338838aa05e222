#include "dist/control/cluster_rendezvous.h"

#include "common/error.h"

namespace flowlens::dist {

RendezvousKeyParts split_rendezvous_key(const std::string& key) {
  const std::size_t a = key.find(';');
  const std::size_t b = a == std::string::npos ? a : key.find(';', a + 1);
  if (b == std::string::npos || key.find(';', b + 1) != std::string::npos)
    throw Error("malformed rendezvous key '" + key + "' (expected <send_device>;<recv_device>;<tensor_name>)");
  return {key.substr(0, a), key.substr(a + 1, b - a - 1), key.substr(b + 1)};
}

void ClusterRendezvous::send(const std::string& key, int64_t step_id, Tensor value) {
  std::vector<Route> routes = route_(key, step_id, value);
  if (routes.empty()) {
    local_.send(key, step_id, std::move(value));
    return;
  }
  // The message leaves later, and a variable read shares the variable's
  // buffer, which the step's own updates change in place: the wire gets a
  // host copy of the value as it is now.
  const Tensor copy = value.to_host().clone();
  for (Route& route : routes) messenger_.post(route.destination, std::move(route.header), {{route.wire_key, copy}});
}

bool ClusterRendezvous::deliver(const std::string& key, int64_t step_id, Tensor value) {
  try {
    local_.send(key, step_id, std::move(value));
    return true;
  } catch (const Error&) {
    return false;  // sent twice, or the step is over
  }
}

}  // namespace flowlens::dist
