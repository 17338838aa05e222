// flowlens-node fetch: a variable (ps) or tensor (worker) of a running node,
// printed or saved as .npy.
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "dist/control/cluster_client.h"
#include "tensor/npy.h"
#include "tensor/tensor_format.h"

namespace flowlens::node {
namespace {

struct FetchOptions {
  std::string cluster_file;
  std::string key_file;
  std::string job = "ps";
  int task = 0;
  std::vector<std::string> names;
  std::string save_dir;
  double timeout_s = 10;
};

int fetch_command(const FetchOptions& o) {
  std::unique_ptr<dist::ClusterClient> owned = make_client(o.cluster_file, o.key_file);
  dist::ClusterClient& client = *owned;
  const dist::NodeAnswer r = client.fetch(client.node(o.job, o.task), o.names,
                                          std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000)));
  for (const dist::NamedTensor& fetched : r.tensors) {
    const Tensor& t = fetched.value;
    if (o.save_dir.empty()) {
      std::cout << fetched.name << " = " << format_tensor(t, kNumpyPrintOptions) << "\n";
      continue;
    }
    std::filesystem::create_directories(o.save_dir);
    std::string file = fetched.name;
    for (char& c : file)
      if (c == '/' || c == ':') c = '_';
    const std::string path = (std::filesystem::path(o.save_dir) / (file + ".npy")).string();
    write_npy(t, path);
    std::cout << fetched.name << " -> " << path << "\n";
  }
  return 0;
}

}  // namespace

void add_fetch_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<FetchOptions>();
  auto* cmd = app.add_subcommand("fetch", "Fetch variables (ps, also <var>/accum|m|v slots) or tensors (worker) by name");
  cmd->add_option("names", o->names, "Variable or tensor names")->required();
  cmd->add_option("--cluster", o->cluster_file, "Cluster JSON (default: $TF_CONFIG)")->check(CLI::ExistingFile);
  cmd->add_option("--key", o->key_file, "Secured cluster: your CURVE key pair file")->check(CLI::ExistingFile);
  cmd->add_option("--job", o->job, "Job of the node (default: ps)");
  cmd->add_option("--task", o->task, "Task index (default: 0)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--save", o->save_dir, "Write each as DIR/<name>.npy instead of printing");
  cmd->add_option("--timeout", o->timeout_s, "Seconds to wait for the node")->check(CLI::PositiveNumber);
  cmd->callback([o, &exit_code] { exit_code = fetch_command(*o); });
}

}  // namespace flowlens::node
