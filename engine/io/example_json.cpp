#include "io/example_json.h"

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "io/example.pb.h"

namespace flowlens {
namespace {

using nlohmann::json;

void fill_feature(const json& value, proto::Feature* feature, const std::string& where) {
  const json list = value.is_array() ? value : json::array({value});
  if (list.empty()) return;  // an empty Feature: no kind, as TensorFlow writes one
  const json& first = list.front();
  for (const json& v : list) {
    const bool same = (first.is_number_float() && v.is_number()) ||
                      (first.is_number_integer() && v.is_number_integer()) ||
                      (first.is_string() && v.is_string());
    if (!same) throw Error(where + ": a feature's values must all be floats, all integers or all strings");
  }
  if (first.is_number_float()) {
    for (const json& v : list) feature->mutable_float_list()->add_value(v.get<float>());
  } else if (first.is_number_integer()) {
    for (const json& v : list) feature->mutable_int64_list()->add_value(v.get<int64_t>());
  } else if (first.is_string()) {
    for (const json& v : list) feature->mutable_bytes_list()->add_value(v.get<std::string>());
  } else {
    throw Error(where + ": values must be numbers or strings, got " + std::string(first.type_name()));
  }
}

}  // namespace

std::vector<std::string> examples_from_json(const std::string& json_text) {
  json parsed;
  try {
    parsed = json::parse(json_text);
  } catch (const json::parse_error& e) {
    throw Error("tf.Example JSON: " + std::string(e.what()));
  }
  if (parsed.is_object()) parsed = json::array({parsed});
  if (!parsed.is_array())
    throw Error("tf.Example JSON: expected a list of objects like [{\"x\": [1.0]}], got " +
                std::string(parsed.type_name()));
  std::vector<std::string> out;
  for (std::size_t k = 0; k < parsed.size(); ++k) {
    const json& object = parsed[k];
    if (!object.is_object()) throw Error("tf.Example JSON: example " + std::to_string(k) + " is not an object");
    proto::Example example;
    auto& features = *example.mutable_features()->mutable_feature();
    for (const auto& [name, value] : object.items())
      fill_feature(value, &features[name], "tf.Example JSON: example " + std::to_string(k) + ", feature '" + name + "'");
    out.push_back(example.SerializeAsString());
  }
  return out;
}

}  // namespace flowlens
