#pragma once
// Device names with TensorFlow's rules (DeviceNameUtils): the full form
// "/job:ps/replica:0/task:1/device:GPU:0", the legacy short forms "/cpu:0",
// "/gpu:1", "/device:CPU:*" wildcards, and field-wise merging where fields
// already set win unless the merge is asked to override.
#include <optional>
#include <string>
#include <string_view>

namespace flowlens {

struct DeviceSpec {
  std::optional<std::string> job;
  std::optional<int> replica;
  std::optional<int> task;
  std::optional<std::string> type;  // upper-cased: "CPU", "GPU"
  std::optional<int> id;            // nullopt = unset or "*"

  // Parses a device string; throws Error with the offending part on bad syntax.
  // The empty string parses to a spec with no fields set.
  static DeviceSpec parse(std::string_view text);
  static std::optional<DeviceSpec> try_parse(std::string_view text);

  // Canonical form: "/job:ps/replica:0/task:1/device:GPU:0"; unset fields are
  // omitted; a type without an id prints "/device:GPU:*".
  std::string to_string() const;

  // Field-wise merge: copies each field of `other` that is set here only when
  // this one is unset (TF's MergeDevNames with allow_soft_placement=false);
  // conflicting set fields throw Error unless `override_conflicts` is true, in
  // which case `other` wins.
  void merge_from(const DeviceSpec& other, bool override_conflicts = false);

  // True when every field set in `pattern` equals this spec's field.
  bool matches(const DeviceSpec& pattern) const;
  bool empty() const { return !job && !replica && !task && !type && !id; }
  bool operator==(const DeviceSpec&) const = default;
};

}  // namespace flowlens
