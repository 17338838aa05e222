#pragma once
// A reader for serialized tf.Example messages (io/example.proto) straight
// from the protobuf wire format, the way TensorFlow's ParseExample kernels
// read them (tensorflow/core/util/example_proto_fast_parsing.cc): no message
// objects, views into the input, and the same acceptance rules: unknown
// fields of Example are skipped, several Features fields (concatenated
// Examples) all contribute, a map entry holds exactly a key and a value, and
// a Feature's kind is told by its first byte. Every read is bounded by the
// input; malformed bytes make a function return false, never read past it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flowlens::example_wire {

// One entry of an Example's feature map as it appears on the wire: the key
// and the serialized Feature message, both views into the input.
struct FeatureEntry {
  std::string_view key;
  std::string_view feature;
};

// Appends the feature map entries of a serialized Example to `entries` in
// wire order (a key may repeat: the last entry is the one protobuf keeps).
// False when the bytes are not an Example.
bool read_example(std::string_view serialized, std::vector<FeatureEntry>& entries);

// The oneof kind of a serialized Feature, by its first byte: None for an
// empty Feature (no kind set), Unsupported for any other first field.
enum class Kind { None, Bytes, Float, Int64, Unsupported };
Kind feature_kind(std::string_view feature);

// Appends the values of a serialized Feature of that kind (feature_kind must
// have said so). False when the list is malformed; `out` may then hold part
// of it. The float and int64 lists take the packed and the unpacked encoding.
bool read_bytes_list(std::string_view feature, std::vector<std::string>& out);
bool read_float_list(std::string_view feature, std::vector<float>& out);
bool read_int64_list(std::string_view feature, std::vector<int64_t>& out);

}  // namespace flowlens::example_wire
