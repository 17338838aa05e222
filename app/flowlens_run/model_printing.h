#pragma once
// Printing what TensorFlow model files hold (SavedModels, meta graphs,
// checkpoints), shared by `info`, `ckpt` and `run`.
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "io/meta_graph.h"
#include "io/checkpoint_reader.h"

namespace flowlens::cli {

// Signatures with their inputs and outputs, one per line, indented.
void print_signatures(std::ostream& out, const MetaGraph& meta);
// Tags, TensorFlow version, saver, signatures, collections, assets.
void print_meta_graph(std::ostream& out, const MetaGraph& meta);
// One row per tensor: name, dtype, shape, bytes; then the total.
void print_checkpoint_entries(std::ostream& out, const CheckpointReader& reader);

// "x=1,2,3" / "x=[[1],[2]]" / "x=file.npy" for a signature input: the value is
// read as the input's dtype and, when bare comma-separated numbers are given,
// shaped to the input's rank (a [-1,1] input takes 1,2,3 as [[1],[2],[3]]).
std::map<std::string, Tensor> parse_signature_inputs(const std::vector<std::string>& specs, const Signature& sig);

}  // namespace flowlens::cli
