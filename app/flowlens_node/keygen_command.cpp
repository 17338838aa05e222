// flowlens-node keygen: CURVE key pairs for a secured cluster. With
// --cluster, one pair per task (ps0.key, worker1.key, ...) plus the client
// pairs named by --client NAME:ROLE (default operator:operator and
// viewer:viewer), and a copy of the cluster file with its "security" entry
// filled in (DIR/cluster.json), ready to hand to every node.
#include <iostream>

#include "commands.h"

namespace flowlens::node {
namespace {

struct KeygenOptions {
  std::string out_dir;
  std::string cluster_file;
  std::vector<std::string> names;    // without --cluster: key pairs to make
  std::vector<std::string> clients = {"operator:operator", "viewer:viewer"};
};

int keygen_command(const KeygenOptions& o) {
  if (o.cluster_file.empty()) {
    if (o.names.empty()) throw Error("keygen: give --cluster C.json (a pair per task) or the names of the key pairs to make");
    for (const std::string& name : o.names) {
      dist::write_key_pair(o.out_dir, name, dist::generate_key_pair());
      std::cout << "wrote " << o.out_dir << "/" << name << ".key (secret) and " << name << ".pub\n";
    }
    return 0;
  }
  const ClusterSpec cluster = load_cluster_spec(o.cluster_file);
  dist::ClusterSecurity security;
  for (const std::string& job : cluster.job_names())
    for (int task : cluster.task_indices(job)) {
      const dist::KeyPair keys = dist::generate_key_pair();
      const std::string label = job + " " + std::to_string(task);
      dist::write_key_pair(o.out_dir, job + std::to_string(task), keys);
      security.node_keys[label] = keys.public_key;
      security.clients[keys.public_key] = {label, job == "ps" ? dist::Role::Ps : dist::Role::Worker};
    }
  for (const std::string& spec : o.clients) {
    const auto colon = spec.find(':');
    const std::string name = spec.substr(0, colon);
    const auto role = dist::parse_role(colon == std::string::npos ? "" : spec.substr(colon + 1));
    if (name.empty() || !role) throw Error("--client " + spec + ": expected NAME:ROLE with ROLE viewer or operator");
    const dist::KeyPair keys = dist::generate_key_pair();
    dist::write_key_pair(o.out_dir, name, keys);
    security.clients[keys.public_key] = {name, *role};
  }
  const std::string path = o.out_dir + "/cluster.json";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw Error(path + ": cannot write");
  const std::string text = dist::cluster_json_with_security(cluster, security);
  std::fwrite(text.data(), 1, text.size(), f);
  std::fclose(f);
  std::cout << "wrote a key pair per task and client to " << o.out_dir << " and the secured cluster file " << path
            << "\nstart each node with --cluster " << path << " --key " << o.out_dir << "/<job><task>.key"
            << " (launch: --keys " << o.out_dir << ")\n";
  return 0;
}

}  // namespace

void add_keygen_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<KeygenOptions>();
  auto* cmd = app.add_subcommand("keygen", "Write CURVE key pairs (and a secured cluster file) for encrypted, authenticated clusters");
  cmd->add_option("--out", o->out_dir, "Folder for the key files")->required();
  cmd->add_option("--cluster", o->cluster_file, "Make a pair per task of this cluster and DIR/cluster.json with their keys")
      ->check(CLI::ExistingFile);
  cmd->add_option("--client", o->clients, "With --cluster: client key pairs NAME:ROLE (viewer or operator)");
  cmd->add_option("names", o->names, "Without --cluster: names of the key pairs to write (NAME.key, NAME.pub)");
  cmd->callback([o, &exit_code] { exit_code = keygen_command(*o); });
}

}  // namespace flowlens::node
