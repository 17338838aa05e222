#pragma once
// The subcommands of flowlens-run. Each returns the process exit code and
// throws flowlens::Error for anything the user must fix.
#include <string>
#include <vector>

namespace flowlens::cli {

struct InfoOptions {
  std::string graph;
  int cpu_threads = 0;
};
int info_command(const InfoOptions& options);

struct RunOptions {
  std::string graph;
  std::vector<std::string> fetches;
  std::vector<std::string> feeds;    // name=file.npy
  std::vector<std::string> targets;
  std::vector<std::string> init;     // targets run first, in their own run
  std::string save_dir;              // write each fetch as DIR/<name>.npy
  int edge_items = 0;
  int cpu_threads = 0;
  bool strict_placement = false;
  bool auto_init = true;             // run every `v/Assign` initializer first
};
int run_command(const RunOptions& options);

struct ConvertOptions {
  std::string graph;
  std::string output;
};
int convert_command(const ConvertOptions& options);

// Splits "a,b" and repeated flags into one list, dropping empty items.
std::vector<std::string> split_list(const std::vector<std::string>& items);

}  // namespace flowlens::cli
