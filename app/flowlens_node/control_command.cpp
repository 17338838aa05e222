// flowlens-node stop / pause / resume / step / profile / break / clear-break:
// commands to one node or (stop, pause, resume) every node of the cluster.
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <thread>

#include "commands.h"
#include "dist/control/cluster_client.h"

namespace flowlens::node {
namespace {

struct ControlOptions {
  std::string cluster_file;
  std::string key_file;
  std::string job;
  std::optional<int> task;
  std::string action;  // profile: start or stop
  std::string output;  // the request's argument: profile stop's trace path, break's node
  double timeout_s = 5;
};

std::vector<dist::NodeRef> targets(const dist::ClusterClient& client, const ControlOptions& o, bool all_by_default) {
  if (!o.job.empty() && o.task) return {client.node(o.job, *o.task)};
  if (!o.job.empty() || o.task) throw Error("pass both --job and --task, or neither");
  if (!all_by_default) throw Error("pass --job and --task to name the node");
  // Workers first: a stopped worker then tells its ps it is done.
  std::vector<dist::NodeRef> nodes = dist::cluster_nodes(client.cluster());
  std::stable_partition(nodes.begin(), nodes.end(), [](const dist::NodeRef& n) { return n.job == "worker"; });
  return nodes;
}

// For each "host:port": whether something accepts TCP connections there.
// All are probed at once, so nodes that are gone cost `timeout` together,
// not a request timeout each (a dead local node refuses at once).
std::vector<bool> accepting_connections(const std::vector<dist::NodeRef>& nodes, std::chrono::milliseconds timeout) {
  std::vector<bool> accepting(nodes.size(), false);
  std::vector<pollfd> pending;
  std::vector<std::size_t> pending_node;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string& address = nodes[i].address;
    const HostPort split = split_host_port(address);
    const std::string host(unbracketed_host(split.host)), port(split.port);
    addrinfo hints{}, *found = nullptr;
    hints.ai_socktype = SOCK_STREAM;
    if (::getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) continue;
    const int fd = ::socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    const int rc = fd < 0 ? -1 : ::connect(fd, found->ai_addr, found->ai_addrlen);
    ::freeaddrinfo(found);
    if (fd >= 0 && rc == 0) accepting[i] = true;
    if (fd >= 0 && rc != 0 && errno == EINPROGRESS) {
      pending.push_back({fd, POLLOUT, 0});
      pending_node.push_back(i);
    } else if (fd >= 0) {
      ::close(fd);
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t open = pending.size();
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || ::poll(pending.data(), pending.size(), static_cast<int>(left.count())) <= 0) break;
    for (std::size_t k = 0; k < pending.size(); ++k) {
      if (pending[k].fd < 0 || pending[k].revents == 0) continue;
      int error = 0;
      socklen_t size = sizeof error;
      ::getsockopt(pending[k].fd, SOL_SOCKET, SO_ERROR, &error, &size);
      accepting[pending_node[k]] = error == 0;
      ::close(pending[k].fd);
      pending[k].fd = -1;  // poll ignores it from now on
      --open;
    }
  }
  for (const pollfd& p : pending)
    if (p.fd >= 0) ::close(p.fd);
  return accepting;
}

// Until the node stops answering or reports "done" (its last step ran).
void wait_until_gone(dist::ClusterClient& client, const dist::NodeRef& node, std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    try {
      if (client.status(node, std::chrono::milliseconds(300)).state == "done") return;
    } catch (const Error&) {
      return;  // gone (or never there)
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

int control_command(const std::string& command, const ControlOptions& o, bool all_by_default) {
  std::unique_ptr<dist::ClusterClient> owned = make_client(o.cluster_file, o.key_file);
  dist::ClusterClient& client = *owned;
  int failures = 0;
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000));
  const std::vector<dist::NodeRef> nodes = targets(client, o, all_by_default);
  // A node that is gone would cost a whole --timeout to find out the slow way.
  const std::vector<bool> accepting = accepting_connections(nodes, std::min(timeout, std::chrono::milliseconds(1000)));
  bool workers_told = false, stopped_workers = false;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const dist::NodeRef& n = nodes[i];
    if (!accepting[i]) {
      std::cerr << "flowlens-node: " << n.label() << " at " << n.address
                << ": not running (nothing accepts connections there)\n";
      ++failures;
      continue;
    }
    if (command == "stop" && n.job != "worker" && workers_told) {
      // A ps that stopped under a worker still finishing its step would
      // leave that worker's Push unanswered: let the workers leave first.
      for (std::size_t k = 0; k < nodes.size(); ++k)
        if (nodes[k].job == "worker" && accepting[k]) wait_until_gone(client, nodes[k], timeout * 2);
      workers_told = false;
      stopped_workers = true;
    }
    workers_told |= n.job == "worker";
    if (stopped_workers && n.job == "ps") {
      try {
        client.status(n, std::chrono::milliseconds(500));
      } catch (const Error&) {
        std::cout << n.label() << " at " << n.address << ": already stopped (its workers finished)\n";
        continue;
      }
    }
    try {
      std::cout << n.label() << " at " << n.address << ": " << client.control(n, command, o.output, timeout) << "\n";
    } catch (const Error& e) {
      std::cerr << "flowlens-node: " << e.what() << "\n";
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}

void add_target_options(CLI::App* cmd, ControlOptions& o, const std::string& default_text) {
  cmd->add_option("--cluster", o.cluster_file, "Cluster JSON (default: $TF_CONFIG)")->check(CLI::ExistingFile);
  cmd->add_option("--key", o.key_file, "Secured cluster: your CURVE key pair file (role operator)")->check(CLI::ExistingFile);
  cmd->add_option("--job", o.job, "Job of the node (" + default_text + ")");
  cmd->add_option("--task", o.task, "Task index of the node")->check(CLI::NonNegativeNumber);
  cmd->add_option("--timeout", o.timeout_s, "Seconds to wait for each node")->check(CLI::PositiveNumber);
}

}  // namespace

void add_control_commands(CLI::App& app, int& exit_code) {
  struct Spec {
    const char* name;
    const char* help;
    bool all;
  };
  for (const Spec& s : {Spec{"stop", "Stop nodes: workers finish their step, ps tasks save a checkpoint and exit", true},
                        Spec{"pause", "Pause nodes after the current step (ps: hold pushes)", true},
                        Spec{"resume", "Resume paused nodes", true},
                        Spec{"step", "Let a paused node run one step (ps: apply one update)", false}}) {
    auto o = std::make_shared<ControlOptions>();
    auto* cmd = app.add_subcommand(s.name, s.help);
    add_target_options(cmd, *o, s.all ? "default: every node" : "required");
    const std::string name = s.name;
    const bool all = s.all;
    cmd->callback([o, name, all, &exit_code] { exit_code = control_command(name, *o, all); });
  }
  auto o = std::make_shared<ControlOptions>();
  auto* cmd = app.add_subcommand("profile", "Start or stop profiling a node; stop writes a Chrome trace on the node's machine");
  cmd->add_option("action", o->action, "start or stop")->required()->check(CLI::IsMember({"start", "stop"}));
  add_target_options(cmd, *o, "required");
  cmd->add_option("-o,--output", o->output, "profile stop: trace file (default: <job>-<task>-profile.json in the node's directory)");
  cmd->callback([o, &exit_code] { exit_code = control_command("profile_" + o->action, *o, false); });

  // The argument travels in the request's text, like profile stop's output.
  auto b = std::make_shared<ControlOptions>();
  auto* brk = app.add_subcommand("break", "Set a breakpoint on a worker's node: the worker pauses after the step in which it hits");
  brk->add_option("node", b->output, "Node name, optionally with a condition: \"x\", \"x nonfinite\", \"x max>10\"")->required();
  add_target_options(brk, *b, "required");
  brk->callback([b, &exit_code] { exit_code = control_command("break", *b, false); });
  auto c = std::make_shared<ControlOptions>();
  auto* clear = app.add_subcommand("clear-break", "Remove a worker's breakpoint (all of them without a node name)");
  clear->add_option("node", c->output, "Node name");
  add_target_options(clear, *c, "required");
  clear->callback([c, &exit_code] { exit_code = control_command("clear_break", *c, false); });
}

}  // namespace flowlens::node
