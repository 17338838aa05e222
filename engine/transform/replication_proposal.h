#pragma once
// What in-graph replication of a graph would most likely take, read from the
// graph itself: the Replicate dialog proposes it and the user edits it.
//
//   * split inputs: the placeholders a batch comes in through (with or
//     without a default), those with a declared rank >= 1 that something
//     consumes (those without a declared shape only when none has one:
//     keep_prob = tf.placeholder(tf.float32) is not a batch);
//     scalars (a learning rate, a keep probability) stay whole; without
//     one, a node called `input_data` (the batch variable of the in-graph
//     replication article's listings and of samples/);
//   * the loss: what the optimizer's gradients start from. tf.gradients
//     seeds the backward pass with `gradients/Fill` (ones of the loss's
//     shape), consumed under `gradients/<loss>_grad/`, and when the loss's
//     shape is not static `gradients/Shape` is Shape(loss); a node called
//     `loss` otherwise;
//   * merge outputs, for a graph without a loss: the sinks outside loops
//     with outputs that depend on a split input (what a forward pass returns).
#include <string>

#include "graph/graph.h"
#include "transform/replicate_in_graph.h"

namespace flowlens {

// Options with split_inputs, loss and merge_outputs filled as far as the
// graph tells; replicas, devices and the rest keep their defaults. A graph
// with no placeholder gets no split inputs.
ReplicateOptions propose_replication(const Graph& graph);

}  // namespace flowlens
