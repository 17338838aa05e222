#pragma once
// Assigns every node of a graph to a local device. A node's requested device
// is honoured when such a device exists and has a kernel for the op; otherwise
// soft placement moves it to the best available device (GPU before CPU) and
// records why, so `info` and the GUI can show it. Nodes colocated by
// TensorFlow's `_class: "loc:@v"` attr, and ops taking a variable by
// reference, follow that variable.
#include <string>
#include <vector>

#include "exec/device.h"
#include "graph/graph.h"

namespace flowlens {

class OpRegistry;

struct PlacementNote {
  std::string node;
  std::string requested;  // as written in the graph
  std::string placed;     // short device name
  std::string reason;
};

struct Placement {
  std::vector<int> device_of;  // per graph node; -1 for ops without any kernel
  std::vector<PlacementNote> soft_placed;
};

// Throws Error when allow_soft_placement is false and a request cannot be met,
// or when a device string does not parse.
Placement place_graph(const Graph& graph, const DeviceSet& devices, const OpRegistry& registry,
                      bool allow_soft_placement = true);

}  // namespace flowlens
