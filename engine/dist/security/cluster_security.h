#pragma once
// CURVE security of a cluster, as the cluster file describes it. A secured
// cluster file uses the TF_CONFIG form with a "security" entry:
//
//   {"cluster": {"ps": ["h:2222"], "worker": ["h:2223", "h:2224"]},
//    "security": {
//      "keys": {"ps": ["<Z85 public key of ps 0>"], "worker": ["<worker 0>", "<worker 1>"]},
//      "clients": [{"name": "alice", "key": "<Z85 public key>", "role": "operator"},
//                  {"name": "dashboard", "key": "<...>", "role": "viewer"}]}}
//
// "keys" gives every task's public key (same shape as "cluster"): nodes are
// CURVE servers with those keys, and a task's key is also its identity when
// it connects to another node (role worker or ps). "clients" is the
// allow-list of everyone else: viewer (status, fetch), operator (viewer +
// pause/step/resume/stop/profile/break), worker, ps. Any other key is refused
// during the handshake. Secret keys never appear here: each process loads its
// own key pair file (flowlens-node keygen writes them).
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "cluster/cluster_spec.h"
#include "dist/wire/wire.pb.h"

namespace flowlens::dist {

enum class Role { Viewer, Operator, Worker, Ps };
const char* role_name(Role role);
std::optional<Role> parse_role(std::string_view name);

// What `role` may ask: viewers read, operators also control, workers and ps
// tasks also pull, push, init and report done. "" when allowed, else the
// "permission denied: ..." text to answer with.
std::string permission_problem(Role role, wire::Kind kind);

struct KeyPair {
  std::string public_key;  // Z85, 40 characters
  std::string secret_key;
};

struct ClusterSecurity {
  std::map<std::string, std::string> node_keys;  // "ps 0" -> public key
  struct Client {
    std::string name;
    Role role = Role::Viewer;
  };
  std::map<std::string, Client> clients;  // public key -> who and what role (nodes included)

  bool enabled() const { return !node_keys.empty(); }
  // The public key of "ps 0"; throws Error naming the node when there is none.
  const std::string& node_key(const std::string& node_label) const;
};

// Everything a process needs to speak CURVE in its cluster.
struct Credentials {
  KeyPair own;
  ClusterSecurity security;
};

// What `node` ("ps 0"; "" for a client) uses in a cluster whose security
// section came from `source`: nullopt when it is not secured. Throws Error
// when a secured cluster gets no key file, the file has no secret, a node's
// file holds another key than the cluster lists for it, or a client's key is
// not in the allow-list (the nodes would refuse it). A key file that group
// or others may read gets a warning, or with `strict_key_mode` an Error.
std::optional<Credentials> credentials_for(ClusterSecurity security, const std::string& source,
                                           const std::string& key_file, const std::string& node,
                                           bool strict_key_mode = false);

// "" when only the owner may read or write `key_file`; else the problem
// ("... is mode 0644: group and others can read the secret key").
std::string key_file_mode_problem(const std::string& key_file);

// The "security" entry of a cluster file's JSON text (empty when there is
// none). Throws ParseError naming `source_name` and the field: keys that are
// not 40-character Z85, tasks without a key or not in the cluster, unknown
// roles, a key listed twice.
ClusterSecurity parse_cluster_security(std::string_view text, const ClusterSpec& cluster, const std::string& source_name);
ClusterSecurity load_cluster_security(const std::string& path, const ClusterSpec& cluster);

KeyPair generate_key_pair();
// A key pair file: 'public-key = "..."' and 'secret-key = "..."' lines (a
// public-only file has no secret line). Throws Error naming the file.
KeyPair load_key_pair(const std::string& path);
// Writes NAME.key (both keys, mode 0600) and NAME.pub (public key) in `dir`.
void write_key_pair(const std::string& dir, const std::string& name, const KeyPair& keys);

// The cluster file's JSON with a "security" entry (TF_CONFIG form).
std::string cluster_json_with_security(const ClusterSpec& cluster, const ClusterSecurity& security);

// True for 127.0.0.0/8, localhost and ::1: addresses no other host can reach.
bool is_loopback_host(const std::string& address);

}  // namespace flowlens::dist
