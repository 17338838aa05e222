#include "dist/worker_feeds.h"

namespace flowlens::dist {
namespace {

constexpr const char* kPlaceholders = "{task}, {index}, {workers}";

}  // namespace

std::string expand_feed_path(const std::string& pattern, int task, int index, int workers) {
  std::string out;
  std::size_t pos = 0;
  while (pos < pattern.size()) {
    const std::size_t open = pattern.find('{', pos);
    if (open == std::string::npos) {
      out.append(pattern, pos, std::string::npos);
      break;
    }
    out.append(pattern, pos, open - pos);
    const std::size_t close = pattern.find('}', open);
    if (close == std::string::npos)
      throw Error("feed path '" + pattern + "': unterminated placeholder '" + pattern.substr(open) + "' (expected " +
                  kPlaceholders + ")");
    const std::string name = pattern.substr(open, close - open + 1);
    if (name == "{task}") out += std::to_string(task);
    else if (name == "{index}") out += std::to_string(index);
    else if (name == "{workers}") out += std::to_string(workers);
    else
      throw Error("feed path '" + pattern + "': unknown placeholder '" + name + "' (expected " + kPlaceholders + ")");
    pos = close + 1;
  }
  return out;
}

FeedSpec parse_feed_spec(const std::string& text) {
  const std::size_t eq = text.find('=');
  if (eq == std::string::npos)
    throw Error("feed '" + text + "': expected name=path (a tensor name, '=', an .npy path), found no '='");
  FeedSpec spec{text.substr(0, eq), text.substr(eq + 1)};
  if (spec.tensor.empty()) throw Error("feed '" + text + "': expected name=path, the tensor name before '=' is empty");
  if (spec.path_pattern.empty()) throw Error("feed '" + text + "': expected name=path, the path after '=' is empty");
  try {
    expand_feed_path(spec.path_pattern, 0, 0, 1);  // placeholders are checked now, not at the worker's start
  } catch (const Error& e) {
    throw Error("feed '" + text + "': " + e.what());
  }
  return spec;
}

ShardRule parse_shard_rule(std::string_view text) {
  if (text == "none") return ShardRule::None;
  if (text == "contiguous") return ShardRule::Contiguous;
  if (text == "strided") return ShardRule::Strided;
  throw Error("shard rule '" + std::string(text) + "': expected none, contiguous or strided");
}

const char* to_string(ShardRule rule) {
  switch (rule) {
    case ShardRule::None: return "none";
    case ShardRule::Contiguous: return "contiguous";
    case ShardRule::Strided: return "strided";
  }
  return "?";
}

}  // namespace flowlens::dist
