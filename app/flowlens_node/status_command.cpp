// flowlens-node status: a table of every node of the cluster, refreshed
// live (or printed once).
#include <chrono>
#include <iostream>
#include <thread>

#include "commands.h"
#include "dist/control/cluster_client.h"

namespace flowlens::node {
namespace {

struct StatusOptions {
  std::string cluster_file;
  std::string key_file;
  bool once = false;
  double interval_s = 1;
  int timeout_ms = 500;
};

int status_command(const StatusOptions& o) {
  std::unique_ptr<dist::ClusterClient> owned = make_client(o.cluster_file, o.key_file);
  dist::ClusterClient& client = *owned;
  install_signal_handlers();
  for (;;) {
    std::vector<dist::StatusRow> rows = client.status_all(std::chrono::milliseconds(o.timeout_ms));
    std::string table = dist::format_status_table(rows);
    if (!o.once) std::cout << "\x1b[H\x1b[2J";  // redraw in place, like `watch`
    std::cout << table << std::flush;
    if (o.once) {
      for (const auto& r : rows)
        if (!r.status) return 1;  // scriptable: non-zero unless every node answered
      return 0;
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int>(o.interval_s * 1000));
    while (std::chrono::steady_clock::now() < until) {
      if (g_interrupted) return 0;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
}

}  // namespace

void add_status_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<StatusOptions>();
  auto* cmd = app.add_subcommand("status", "Live table of every node: state, step, loss, steps/s, traffic, variables");
  cmd->add_option("--cluster", o->cluster_file, "Cluster JSON (default: $TF_CONFIG)")->check(CLI::ExistingFile);
  cmd->add_option("--key", o->key_file, "Secured cluster: your CURVE key pair file")->check(CLI::ExistingFile);
  cmd->add_flag("--once", o->once, "Print the table once and exit (1 if a node did not answer)");
  cmd->add_option("--interval", o->interval_s, "Seconds between refreshes")->check(CLI::PositiveNumber);
  cmd->add_option("--node-timeout", o->timeout_ms, "Milliseconds to wait for each node")->check(CLI::PositiveNumber);
  cmd->callback([o, &exit_code] { exit_code = status_command(*o); });
}

}  // namespace flowlens::node
