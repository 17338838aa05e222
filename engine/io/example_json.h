#pragma once
// Serialized tf.Example messages from JSON, for feeding the signatures that
// take them (regress, classify, and serving_default of estimator exports),
// the way saved_model_cli's --input_examples builds them: a list of objects,
// one per Example, each feature a list (or a single value) of floats
// (float_list), integers (int64_list) or strings (bytes_list):
//   [{"x": [1.5], "age": 42, "city": ["Paris"]}, {"x": [2.0]}]
// JSON tells 1 (integer) from 1.0 (float); a float feature needs the ".0".
#include <string>
#include <vector>

namespace flowlens {

// Throws Error naming the example index and feature at fault.
std::vector<std::string> examples_from_json(const std::string& json_text);

}  // namespace flowlens
