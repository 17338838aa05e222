// TensorFlow's DeviceNameUtils::ParseFullName and MergeDevNames, restated.
// Deliberate differences: the type is upper-cased ("/device:gpu:0" is GPU, as
// TF's placer treats it), and one trailing '/' is accepted (Python's
// tf.DeviceSpec ignores empty components; C++ would reject it).
#include "graph/device_spec.h"

#include <cctype>

#include "common/error.h"

namespace flowlens {
namespace {

bool consume(std::string_view& s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

bool is_alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// [A-Za-z][A-Za-z0-9_]*, as TF's ConsumeJobName and ConsumeDeviceType.
bool consume_name(std::string_view& s, std::string& out) {
  if (s.empty() || !is_alpha(s.front())) return false;
  std::size_t k = 1;
  while (k < s.size() && is_name_char(s[k])) ++k;
  out = std::string(s.substr(0, k));
  s.remove_prefix(k);
  return true;
}

bool consume_number(std::string_view& s, int& out) {
  std::size_t k = 0;
  int64_t value = 0;
  while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) {
    value = value * 10 + (s[k] - '0');
    if (value > INT32_MAX) return false;
    ++k;
  }
  if (k == 0) return false;
  out = static_cast<int>(value);
  s.remove_prefix(k);
  return true;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// A '*' leaves the field unset (wildcard); otherwise a number must follow.
bool consume_optional_number(std::string_view& s, std::optional<int>& field) {
  if (consume(s, "*")) {
    field.reset();
    return true;
  }
  int v = 0;
  if (!consume_number(s, v)) return false;
  field = v;
  return true;
}

// Returns an empty string on success, else what is wrong.
std::string parse_into(std::string_view text, DeviceSpec& spec) {
  std::string_view s = text;
  auto bad = [&](std::string_view what) {
    std::string rest(s.substr(0, s.find('/', 1)));
    return std::string(what) + " at '" + rest + "'";
  };
  if (!s.empty() && s.front() != '/')
    return "a device name must start with '/', e.g. '/device:CPU:0' or '/job:worker/task:0'";
  while (!s.empty()) {
    if (s == "/") break;  // trailing slash
    std::string_view before = s;
    if (consume(s, "/job:")) {
      std::string job;
      if (consume(s, "*"))
        spec.job.reset();
      else if (consume_name(s, job))
        spec.job = job;
      else
        return bad("bad job name (expected a letter followed by letters, digits or '_')");
    } else if (consume(s, "/replica:")) {
      if (!consume_optional_number(s, spec.replica)) return bad("bad replica (expected a number or '*')");
    } else if (consume(s, "/task:")) {
      if (!consume_optional_number(s, spec.task)) return bad("bad task (expected a number or '*')");
    } else if (consume(s, "/device:")) {
      std::string type;
      if (consume(s, "*"))
        spec.type.reset();
      else if (consume_name(s, type))
        spec.type = upper(type);
      else
        return bad("bad device type (expected a name such as CPU or GPU, or '*')");
      if (consume(s, ":")) {
        if (!consume_optional_number(s, spec.id)) return bad("bad device id (expected a number or '*')");
      } else {
        spec.id.reset();
      }
    } else if (consume(s, "/cpu:") || consume(s, "/CPU:") || consume(s, "/gpu:") || consume(s, "/GPU:")) {
      // Legacy "/cpu:0" == "/device:CPU:0".
      spec.type = upper(std::string(before.substr(1, 3)));
      if (!consume_optional_number(s, spec.id)) return bad("bad device id (expected a number or '*')");
    } else {
      return bad("unknown component (expected /job:, /replica:, /task: or /device:)");
    }
    // Each component must end at '/' or the end of the string: "/task:1x" is an error.
    if (!s.empty() && s.front() != '/') return bad("unexpected characters");
  }
  return {};
}

}  // namespace

DeviceSpec DeviceSpec::parse(std::string_view text) {
  DeviceSpec spec;
  std::string problem = parse_into(text, spec);
  if (!problem.empty()) throw Error("invalid device name '" + std::string(text) + "': " + problem);
  return spec;
}

std::optional<DeviceSpec> DeviceSpec::try_parse(std::string_view text) {
  DeviceSpec spec;
  if (!parse_into(text, spec).empty()) return std::nullopt;
  return spec;
}

std::string DeviceSpec::to_string() const {
  std::string s;
  if (job) s += "/job:" + *job;
  if (replica) s += "/replica:" + std::to_string(*replica);
  if (task) s += "/task:" + std::to_string(*task);
  if (type || id) s += "/device:" + (type ? *type : "*") + ":" + (id ? std::to_string(*id) : "*");
  return s;
}

void DeviceSpec::merge_from(const DeviceSpec& other, bool override_conflicts) {
  // Work on a copy so a conflict leaves *this untouched.
  DeviceSpec merged = *this;
  auto merge = [&](auto& mine, const auto& theirs, const char* plural) {
    if (!theirs) return;
    if (mine && *mine != *theirs && !override_conflicts)
      throw Error(std::string("Cannot merge devices with incompatible ") + plural + ": '" + to_string() + "' and '" +
                  other.to_string() + "'");
    mine = theirs;
  };
  merge(merged.job, other.job, "jobs");
  merge(merged.replica, other.replica, "replicas");
  merge(merged.task, other.task, "tasks");
  merge(merged.type, other.type, "types");
  merge(merged.id, other.id, "ids");
  *this = std::move(merged);
}

bool DeviceSpec::matches(const DeviceSpec& pattern) const {
  auto ok = [](const auto& mine, const auto& want) { return !want || (mine && *mine == *want); };
  return ok(job, pattern.job) && ok(replica, pattern.replica) && ok(task, pattern.task) && ok(type, pattern.type) &&
         ok(id, pattern.id);
}

}  // namespace flowlens
