#include "dist/security/cluster_security.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <zmq.h>

#include "common/error.h"
#include "dist/wire/node_connection.h"

namespace flowlens::dist {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& source, const std::string& where, const std::string& message) {
  throw ParseError(source, 0, 0, "security." + where + ": " + message);
}

bool valid_z85_key(const std::string& key) {
  if (key.size() != 40) return false;
  uint8_t bytes[32];
  return zmq_z85_decode(bytes, key.c_str()) != nullptr;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(path + ": cannot read: " + std::strerror(errno));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

const char* role_name(Role role) {
  switch (role) {
    case Role::Viewer: return "viewer";
    case Role::Operator: return "operator";
    case Role::Worker: return "worker";
    case Role::Ps: return "ps";
  }
  return "?";
}

std::optional<Role> parse_role(std::string_view name) {
  for (Role r : {Role::Viewer, Role::Operator, Role::Worker, Role::Ps})
    if (name == role_name(r)) return r;
  return std::nullopt;
}

std::string permission_problem(Role role, wire::Kind kind) {
  switch (kind) {
    case wire::STATUS:
    case wire::FETCH: return {};
    case wire::CONTROL:
      if (role == Role::Operator) return {};
      return std::string("permission denied: role ") + role_name(role) + " may not send control commands (needs operator)";
    case wire::REGISTER:  // runs a graph on the ps: workers only, like TensorFlow's RegisterGraph from a master
    case wire::PULL:
    case wire::PUSH:
    case wire::INIT:
    case wire::DONE:
    case wire::HEARTBEAT:  // worker -> ps liveness; PUB heartbeats never come this way
    case wire::RUN_STEP:   // a distributed step's messages: between the cluster's tasks only
    case wire::STEP_TENSOR:
    case wire::STEP_DONE:
    case wire::ABORT_STEP:
      if (role == Role::Worker || role == Role::Ps) return {};
      return std::string("permission denied: role ") + role_name(role) + " may not send " + wire::Kind_Name(kind) +
             " (needs worker)";
    default: return {};  // REPLY, STEP_EVENT: the handlers refuse them anyway
  }
}

const std::string& ClusterSecurity::node_key(const std::string& node_label) const {
  auto it = node_keys.find(node_label);
  if (it == node_keys.end()) throw Error("the cluster's security section has no key for " + node_label);
  return it->second;
}

ClusterSecurity parse_cluster_security(std::string_view text, const ClusterSpec& cluster, const std::string& source) {
  ClusterSecurity s;
  const json root = json::parse(text, nullptr, false);
  if (root.is_discarded() || !root.is_object() || !root.contains("security")) return s;
  const json& sec = root.at("security");
  if (!sec.is_object()) fail(source, "", "expected an object with \"keys\" and \"clients\"");
  if (!root.contains("cluster")) throw ParseError(source, 0, 0, "security: needs the TF_CONFIG form {\"cluster\": {...}, \"security\": {...}}");
  if (!sec.contains("keys") || !sec.at("keys").is_object())
    fail(source, "keys", "expected an object mapping each job to its tasks' public keys");
  auto add_key = [&](const std::string& job, int task, const json& key, const std::string& where) {
    if (!key.is_string() || !valid_z85_key(key.get<std::string>()))
      fail(source, where, "expected a 40-character Z85 CURVE public key (flowlens-node keygen writes them)");
    if (!cluster.has_job(job)) fail(source, where, "the cluster has no job '" + job + "'");
    bool known = false;
    for (int t : cluster.task_indices(job)) known |= t == task;
    if (!known) fail(source, where, "the cluster has no task " + job + " " + std::to_string(task));
    const std::string label = job + " " + std::to_string(task), k = key.get<std::string>();
    if (s.clients.count(k)) fail(source, where, "key already given to " + s.clients[k].name);
    s.node_keys[label] = k;
    s.clients[k] = {label, job == "ps" ? Role::Ps : Role::Worker};
  };
  for (const auto& [job, keys] : sec.at("keys").items()) {
    const std::string where = "keys." + job;
    if (keys.is_array()) {
      for (std::size_t i = 0; i < keys.size(); ++i)
        add_key(job, static_cast<int>(i), keys[i], where + "[" + std::to_string(i) + "]");
    } else if (keys.is_object()) {
      for (const auto& [index, key] : keys.items()) {
        char* end = nullptr;
        const long t = std::strtol(index.c_str(), &end, 10);
        if (index.empty() || *end != '\0' || t < 0) fail(source, where, "task index \"" + index + "\" is not a number");
        add_key(job, static_cast<int>(t), key, where + "[\"" + index + "\"]");
      }
    } else {
      fail(source, where, "expected a list of public keys or {\"index\": key}");
    }
  }
  for (const std::string& job : cluster.job_names())
    for (int t : cluster.task_indices(job))
      if (!s.node_keys.count(job + " " + std::to_string(t)))
        fail(source, "keys", "no public key for " + job + " " + std::to_string(t) + " (every task of a secured cluster needs one)");
  if (sec.contains("clients")) {
    const json& clients = sec.at("clients");
    if (!clients.is_array()) fail(source, "clients", "expected a list of {\"name\", \"key\", \"role\"}");
    for (std::size_t i = 0; i < clients.size(); ++i) {
      const std::string where = "clients[" + std::to_string(i) + "]";
      const json& c = clients[i];
      if (!c.is_object() || !c.contains("key") || !c.contains("role"))
        fail(source, where, "expected {\"name\": ..., \"key\": ..., \"role\": ...}");
      if (!c.at("key").is_string() || !valid_z85_key(c.at("key").get<std::string>()))
        fail(source, where + ".key", "expected a 40-character Z85 CURVE public key");
      const auto role = c.at("role").is_string() ? parse_role(c.at("role").get<std::string>()) : std::nullopt;
      if (!role) fail(source, where + ".role", "expected viewer, operator, worker or ps");
      const std::string key = c.at("key").get<std::string>();
      const std::string name = c.contains("name") && c.at("name").is_string() ? c.at("name").get<std::string>() : where;
      if (s.clients.count(key)) fail(source, where + ".key", "key already given to " + s.clients[key].name);
      s.clients[key] = {name, *role};
    }
  }
  return s;
}

std::string key_file_mode_problem(const std::string& key_file) {
  struct stat st {};
  if (::stat(key_file.c_str(), &st) != 0 || (st.st_mode & 077) == 0) return {};
  char mode[8];
  std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
  return "key file " + key_file + " is mode " + mode + ": users other than its owner can " +
         ((st.st_mode & 044) ? "read its secret key and pose as its owner" : "replace it");
}

std::optional<Credentials> credentials_for(ClusterSecurity security, const std::string& source,
                                           const std::string& key_file, const std::string& node, bool strict_key_mode) {
  if (!security.enabled()) {
    if (!key_file.empty())
      throw Error("key " + key_file + ": " + source + " has no \"security\" section, so its nodes do not use CURVE");
    return std::nullopt;
  }
  if (key_file.empty())
    throw Error(source + " is a secured cluster (it lists CURVE keys): pass --key FILE with " +
                (node.empty() ? std::string("your key pair") : node + "'s key pair") + " (flowlens-node keygen writes them)");
  KeyPair own = load_key_pair(key_file);
  if (own.secret_key.empty()) throw Error(key_file + ": holds only a public key; a key pair file (.key) is needed");
  if (const std::string problem = key_file_mode_problem(key_file); !problem.empty()) {
    if (strict_key_mode) throw Error(problem + "; --strict-keys refuses it (chmod 600 " + key_file + ")");
    log_line("warning: " + problem + "; chmod 600 " + key_file + " (--strict-keys refuses such files)");
  }
  if (!node.empty() && security.node_key(node) != own.public_key)
    throw Error(key_file + " is not " + node + "'s key pair: " + source + " lists " + security.node_key(node) +
                " for it, the file holds " + own.public_key);
  if (node.empty() && !security.clients.count(own.public_key))
    throw Error(key_file + ": public key " + own.public_key + " is not in " + source +
                "'s allow-list (security.clients); the nodes would refuse it");
  return Credentials{std::move(own), std::move(security)};
}

ClusterSecurity load_cluster_security(const std::string& path, const ClusterSpec& cluster) {
  return parse_cluster_security(read_file(path), cluster, path);
}

KeyPair generate_key_pair() {
  char pub[41], sec[41];
  if (zmq_curve_keypair(pub, sec) != 0) throw Error(std::string("cannot generate a CURVE key pair: ") + zmq_strerror(zmq_errno()));
  return {pub, sec};
}

KeyPair load_key_pair(const std::string& path) {
  KeyPair keys;
  std::istringstream in(read_file(path));
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    const auto eq = line.find('=');
    const auto open = line.find('"'), close = line.rfind('"');
    if (eq == std::string::npos || open == std::string::npos || close <= open)
      throw ParseError(path, number, 1, "expected 'public-key = \"...\"' or 'secret-key = \"...\"'");
    std::string name = line.substr(0, eq);
    name.erase(name.find_last_not_of(" \t") + 1);
    const std::string value = line.substr(open + 1, close - open - 1);
    if (!valid_z85_key(value)) throw ParseError(path, number, static_cast<int>(open) + 2, "not a 40-character Z85 key");
    if (name == "public-key") keys.public_key = value;
    else if (name == "secret-key") keys.secret_key = value;
    else throw ParseError(path, number, 1, "unknown field '" + name + "' (expected public-key or secret-key)");
  }
  if (keys.public_key.empty()) throw Error(path + ": no public-key line");
  return keys;
}

void write_key_pair(const std::string& dir, const std::string& name, const KeyPair& keys) {
  std::filesystem::create_directories(dir);
  const std::string base = (std::filesystem::path(dir) / name).string();
  {
    std::ofstream pub(base + ".pub");
    pub << "# FlowLens CURVE public key of " << name << "\npublic-key = \"" << keys.public_key << "\"\n";
    if (!pub) throw Error(base + ".pub: cannot write");
  }
  // The secret file is created owner-only before anything is written to it.
  const std::string secret_path = base + ".key";
  std::filesystem::remove(secret_path);
  const mode_t old = umask(077);
  std::ofstream sec(secret_path);
  umask(old);
  sec << "# FlowLens CURVE key pair of " << name << ": keep it secret\npublic-key = \"" << keys.public_key
      << "\"\nsecret-key = \"" << keys.secret_key << "\"\n";
  if (!sec) throw Error(secret_path + ": cannot write");
  std::filesystem::permissions(secret_path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
}

std::string cluster_json_with_security(const ClusterSpec& cluster, const ClusterSecurity& security) {
  json root = json::parse(cluster.to_json());
  if (!root.contains("cluster")) root = json{{"cluster", root}};
  json keys = json::object();
  for (const std::string& job : cluster.job_names()) {
    json list = json::object();
    for (int t : cluster.task_indices(job)) list[std::to_string(t)] = security.node_key(job + " " + std::to_string(t));
    keys[job] = list;
  }
  json clients = json::array();
  for (const auto& [key, client] : security.clients)
    if (client.role == Role::Viewer || client.role == Role::Operator)
      clients.push_back({{"name", client.name}, {"key", key}, {"role", role_name(client.role)}});
  root["security"] = {{"keys", keys}, {"clients", clients}};
  return root.dump(2) + "\n";
}

bool is_loopback_host(const std::string& address) {
  const std::string_view host = unbracketed_host(split_host_port(address).host);
  return host == "localhost" || host == "::1" || host.starts_with("127.");
}

}  // namespace flowlens::dist
