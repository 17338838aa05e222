// The distributed runtime's transport against raw ZeroMQ, in one run:
//   transport_bandwidth: Pull + Push of a 64 MiB variable through a PsServer
//     running its registered partition vs raw cppzmq PUSH/PULL moving the
//     same bytes there and back (zero-copy both); ratio = raw time / ps time
//     (target >= 0.8). The ps side runs its read phase (the variable) and its
//     update phase (the graph's ApplyGradientDescent with the pushed gradient).
//   transport_small_pull: round trip of a Pull of 4 floats vs a raw REQ/REP
//     of 16 bytes, the REP side in a context of its own as the ps is;
//     ratio = pull time / REQ/REP time (target <= 1.5).
//   dist_workers_2_vs_1 (MLP) and dist_workers_2_vs_1_cnn (the CNN
//     template, batch norm on the ps): examples/s of between-graph training,
//     real flowlens-node processes, 1 ps + 2 workers vs 1 ps + 1 worker
//     (target >= 1.6 with a core per worker; this machine may have fewer).
//   machine_2_vs_1_cnn: the ceiling for the CNN's figure on this machine:
//     the same step in 2 independent `flowlens-run train` processes vs 1,
//     no cluster (what two processes that share nothing but the machine gain).
//   distributed_step_overhead: time per MLP step of 1 ps + 1 worker with
//     distributed steps (every task runs its partition at once, tensors
//     meeting in a rendezvous: worker/distributed_step.h) / with the
//     pull/run/push phases they generalize (target <= 1.2).
//   distributed_step_overhead_small: the same for a small MLP whose step is
//     under a millisecond, where the messages are most of it: what keeping
//     the phases as the fast path buys.
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <thread>

#include <zmq_addon.hpp>

#include "../free_ports.h"
#include "bench_util.h"
#include "mlp_bench_model.h"
#include "dist/wire/node_connection.h"
#include "dist/ps/ps_server.h"
#include "ops/framework/op_registry.h"
#include "transform/gradients.h"
#include "dist/worker/worker_plan.h"
#include "transform/graph_templates.h"
#include "transform/optimizers.h"

using namespace flowlens;
using namespace flowlens::dist;

namespace {

// A PsServer on a free port, served from a thread.
struct LocalPs {
  std::atomic<bool> stop{false};
  std::unique_ptr<PsServer> server;
  std::thread thread;
  std::string address;
  LocalPs() {
    PsOptions o;
    o.cluster.set_task("ps", 0, "127.0.0.1:1");  // the bind below picks the real port
    o.cluster.set_task("worker", 0, "127.0.0.1:2");  // the bench's connection: registers, pulls and pushes
    o.bind_endpoint = "tcp://127.0.0.1:*";
    server = std::make_unique<PsServer>(o);
    address = server->endpoint().substr(6);  // strip tcp://
    thread = std::thread([this] { server->run(&stop); });
  }
  ~LocalPs() {
    stop = true;
    thread.join();
  }
};

WireMessage call(NodeConnection& c, wire::Kind kind, const std::vector<NamedTensor>& tensors,
                 const std::vector<std::string>& names = {}) {
  wire::Header h;
  h.set_kind(kind);
  for (const auto& n : names) h.add_names(n);
  WireMessage r = c.request(h, tensors, std::chrono::seconds(30));
  if (r.header.code() != wire::OK) throw Error("ps refused " + kind_name(kind) + ": " + r.header.text());
  return r;
}

Tensor filled(int64_t n, float value) {
  Tensor t(DType::Float, Shape{n});
  for (float& x : t.values<float>()) x = value;
  return t;
}

// A variable `w` of n floats trained by ApplyGradientDescent(w, lr, grad),
// lr and grad computed on the worker: its ps partition registered with the
// ps and w initialized to ones. Pull and push use the partition's keys.
struct RegisteredVariable {
  PsLink link;
  RegisteredVariable(NodeConnection& conn, int64_t n) {
    const std::string shape = "attr { key: \"shape\" value { shape { dim { size: " + std::to_string(n) + " } } } }";
    Graph g = parse_graph_text(
        "node { name: 'w' op: 'VariableV2' attr { key: 'dtype' value { type: DT_FLOAT } } " + shape + " }\n"
        "node { name: 'grad' op: 'ZerosLike' input: 'w' attr { key: 'T' value { type: DT_FLOAT } } }\n"
        "node { name: 'lr' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } attr { key: 'value' value { "
        "tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.01 } } } }\n"
        "node { name: 'train' op: 'ApplyGradientDescent' input: 'w' input: 'lr' input: 'grad' "
        "attr { key: 'T' value { type: DT_FLOAT } } }\n",
        "bench");
    ClusterSpec c;
    c.set_task("ps", 0, "127.0.0.1:1");
    c.set_task("worker", 0, "127.0.0.1:2");
    link = plan_training(g, c, 0, OpRegistry::global()).ps.at(0);
    Tensor bytes(DType::UInt8, Shape{static_cast<int64_t>(link.partition.size())});
    std::memcpy(bytes.raw_data(), link.partition.data(), link.partition.size());
    call(conn, wire::REGISTER, {{"partition", bytes}});
    call(conn, wire::INIT, {{"w", filled(n, 1.0f)}});
  }
  // The PUSH tensors: grad (zeros: a real update that keeps the values) and lr.
  std::vector<NamedTensor> push(const Tensor& grad) const {
    std::vector<NamedTensor> out;
    for (std::size_t i = 0; i < link.push_keys.size(); ++i)
      out.push_back({link.push_keys[i], link.push_tensors[i].starts_with("lr") ? Tensor::scalar<float>(0.01f) : grad});
    return out;
  }
};

void no_free(void*, void*) {}

void bandwidth(bool smoke) {
  const int64_t elements = (smoke ? 1 : 64) * (int64_t{1} << 20) / 4;
  const std::size_t bytes = static_cast<std::size_t>(elements) * 4;
  LocalPs ps;
  zmq::context_t ctx(1);
  NodeConnection conn(ctx, "ps 0", ps.address, "worker:0");
  const RegisteredVariable w(conn, elements);
  const std::vector<NamedTensor> pushed = w.push(filled(elements, 0.0f));
  wire::Header push;
  push.set_kind(wire::PUSH);  // SGD with rate 0.01 on a zero gradient: a real update, same values

  // Raw baseline: A --PUSH--> B, B --PUSH--> A, both sends zero-copy.
  std::vector<char> buffer_a(bytes, 1), buffer_b(bytes, 2);
  zmq::socket_t a_out(ctx, zmq::socket_type::push), a_in(ctx, zmq::socket_type::pull);
  zmq::socket_t b_in(ctx, zmq::socket_type::pull), b_out(ctx, zmq::socket_type::push);
  b_in.bind("tcp://127.0.0.1:*");
  a_in.bind("tcp://127.0.0.1:*");
  a_out.connect(b_in.get(zmq::sockopt::last_endpoint));
  b_out.connect(a_in.get(zmq::sockopt::last_endpoint));
  const int reps = smoke ? 1 : 7;
  std::thread echo([&] {
    for (int i = 0; i < reps + 1; ++i) {
      zmq::message_t m;
      (void)b_in.recv(m);
      b_out.send(zmq::message_t(buffer_b.data(), bytes, no_free, nullptr), zmq::send_flags::none);
    }
  });
  auto raw = [&] {
    a_out.send(zmq::message_t(buffer_a.data(), bytes, no_free, nullptr), zmq::send_flags::none);
    zmq::message_t back;
    (void)a_in.recv(back);
  };
  auto through_ps = [&] {
    WireMessage pulled = call(conn, wire::PULL, {}, w.link.pull_keys);
    WireMessage r = conn.request(push, pushed, std::chrono::seconds(30));
    if (r.header.code() != wire::OK || pulled.frames[0].size() != bytes) throw Error("bandwidth: bad round");
  };
  const bench::Comparison c = bench::compare(reps, raw, through_ps);
  const double t_raw = c.baseline_median(), t_ps = c.candidate_median();
  echo.join();
  const double mib = 2.0 * static_cast<double>(bytes) / (1 << 20);
  std::printf("transport_bandwidth: %s   (Pull+Push of %lld MiB: ps %.0f MiB/s, raw PUSH/PULL %.0f MiB/s; target >= 0.8)\n",
              bench::speed_text(c).c_str(), static_cast<long long>(bytes >> 20), mib / t_ps, mib / t_raw);
}

void small_round_trip(bool smoke) {
  LocalPs ps;
  zmq::context_t ctx(1);
  NodeConnection conn(ctx, "ps 0", ps.address, "worker:0");
  const RegisteredVariable b(conn, 4);
  // The REP server gets its own context, as the ps has: a request then
  // crosses two I/O threads on both sides of the comparison, as it does
  // between two processes. (Sharing the client's context would make the
  // baseline skip one thread hand-off that the ps path cannot skip.)
  zmq::context_t server_ctx(1);
  zmq::socket_t req(ctx, zmq::socket_type::req), rep(server_ctx, zmq::socket_type::rep);
  rep.bind("tcp://127.0.0.1:*");
  req.connect(rep.get(zmq::sockopt::last_endpoint));
  const int calls = smoke ? 50 : 2000, reps = smoke ? 1 : 7;
  std::thread server([&] {
    char answer[16] = {};
    for (int i = 0; i < calls * (reps + 1); ++i) {
      zmq::message_t m;
      (void)rep.recv(m);
      rep.send(zmq::buffer(answer, sizeof answer), zmq::send_flags::none);
    }
  });
  auto raw = [&] {
    char ask[16] = {};
    for (int i = 0; i < calls; ++i) {
      req.send(zmq::buffer(ask, sizeof ask), zmq::send_flags::none);
      zmq::message_t m;
      (void)req.recv(m);
    }
  };
  auto pull = [&] {
    for (int i = 0; i < calls; ++i) call(conn, wire::PULL, {}, b.link.pull_keys);
  };
  const bench::Comparison c = bench::compare(reps, raw, pull);
  const double t_raw = c.baseline_median(), t_pull = c.candidate_median();
  server.join();
  std::printf("transport_small_pull: %s   (Pull of 4 floats %.1f us, raw REQ/REP %.1f us per round trip; target <= 1.5)\n",
              bench::ratio_text(c.time_ratio(), c.time_ratio_spread()).c_str(), 1e6 * t_pull / calls, 1e6 * t_raw / calls);
}

using flowlens::testing::free_ports;

// One `flowlens-node launch` of a 1-ps cluster: examples/s of all workers
// over the longest training loop any of them reports (process start,
// planning and the chief's initialization left out: they are not what the
// cluster's size changes; the loops start together once the chief has
// initialized, so the longest one spans the cluster's work), and worker 0's
// loop seconds.
// Each worker gets one thread of each kind: a core per worker, so 2 workers
// can be twice as fast as 1 (a lone worker with the default budget would
// already use every core for its convolutions).
struct ClusterRun {
  double examples_per_second = 0;
  double worker0_seconds = 0;
};

ClusterRun run_cluster(const std::string& node, const std::string& graph, int workers, int steps, int batch,
                       const std::filesystem::path& dir, const std::string& step_mode = "auto") {
  const std::vector<int> ports = free_ports(workers + 1);  // distinct: the ps's is the last
  std::string list;
  for (int i = 0; i < workers; ++i) list += (i ? ", " : "") + ("\"127.0.0.1:" + std::to_string(ports[static_cast<size_t>(i)]) + "\"");
  const std::string cluster = (dir / ("cluster" + std::to_string(workers) + ".json")).string();
  std::FILE* f = std::fopen(cluster.c_str(), "w");
  std::fprintf(f, "{\"ps\": [\"127.0.0.1:%d\"], \"worker\": [%s]}", ports.back(), list.c_str());
  std::fclose(f);
  const std::string cmd = "'" + node + "' launch --cluster '" + cluster + "' --graph '" + graph + "' --steps " +
                          std::to_string(steps) + " --threads 1 --intra-op-threads 1 --print-every 0 --step-mode " + step_mode +
                          " 2>&1";
  std::FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  if (pclose(p) != 0) throw Error("bench: flowlens-node launch failed:\n" + out);
  ClusterRun r;
  double longest = 0;
  for (int w = 0; w < workers; ++w) {
    const std::string marker = "worker " + std::to_string(w) + ": " + std::to_string(steps) + " steps in ";
    const std::size_t at = out.find(marker);
    if (at == std::string::npos) throw Error("bench: no '" + marker + "' in the output of " + node + ":\n" + out);
    // Printed to 0.01 s: a smoke run's few steps may read 0.00.
    const double seconds = std::max(0.005, std::strtod(out.c_str() + at + marker.size(), nullptr));
    longest = std::max(longest, seconds);
    if (w == 0) r.worker0_seconds = seconds;
  }
  r.examples_per_second = static_cast<double>(workers) * steps * batch / longest;
  return r;
}

std::string write_mlp_training_graph(const std::filesystem::path& dir, bool smoke, int batch) {
  Graph g = smoke ? bench::scaled_mlp_model(batch, 16, 32, 4) : bench::scaled_mlp_model(batch, 256, 1024, 32);
  const std::vector<std::string>& vars = bench::mlp_variables();
  std::vector<std::string> grads = add_gradients(g, {"loss"}, vars, OpRegistry::global());
  std::vector<std::pair<std::string, std::string>> pairs;
  for (size_t i = 0; i < vars.size(); ++i) pairs.emplace_back(vars[i], grads[i]);
  OptimizerOptions sgd;
  sgd.learning_rate = 0.05f;
  add_optimizer(g, pairs, sgd);
  const std::string graph = (dir / "mlp_train.pbtxt").string();
  save_graph(g, graph);
  return graph;
}

// Figures that a run reports itself (rates, loop seconds), which
// bench::rotated_rounds cannot time from outside: `a` and `b` measured
// `reps` times in alternating order (a b, b a, ...), paired by repetition.
struct Pairs {
  std::vector<double> a, b;
};
Pairs alternating_pairs(int reps, const std::function<double()>& a, const std::function<double()>& b) {
  Pairs p;
  for (int rep = 0; rep < reps; ++rep) {
    if (rep % 2 == 0) {
      p.a.push_back(a());
      p.b.push_back(b());
    } else {
      p.b.push_back(b());
      p.a.push_back(a());
    }
  }
  return p;
}

// Rates, not times: the pair's ratio of examples/s, alternating which
// cluster starts first.
void workers_scaling(const char* name, const std::string& node, const std::string& graph, int batch, int steps, int reps) {
  const auto dir = std::filesystem::path(graph).parent_path();
  const Pairs p = alternating_pairs(
      reps, [&] { return run_cluster(node, graph, 1, steps, batch, dir).examples_per_second; },
      [&] { return run_cluster(node, graph, 2, steps, batch, dir).examples_per_second; });
  const std::vector<double>& one = p.a;
  const std::vector<double>& two = p.b;
  std::vector<double> ratios;
  for (std::size_t i = 0; i < one.size(); ++i) ratios.push_back(two[i] / one[i]);
  const double e1 = bench::median(one), e2 = bench::median(two);
  std::printf("%s: %s   (1 worker %.0f examples/s, 2 workers %.0f examples/s, %u hardware threads; target >= 1.6)\n",
              name, bench::ratio_text(bench::median(ratios), bench::spread(ratios)).c_str(), e1, e2,
              std::thread::hardware_concurrency());
}

// The machine's own ceiling for dist_workers_2_vs_1_cnn: the same training
// step (flowlens-run train, one thread of each kind) in 2 independent
// processes started together vs 1, no cluster at all. Two workers cannot
// scale better than two copies that share nothing but the machine (its
// cores, caches and memory bandwidth). Rates: 2 * seconds alone / the
// slower copy's seconds, each as `train` reports them for its steps.
double local_training_seconds(const std::string& run, const std::string& graph, int steps, int copies) {
  const std::string cmd = "'" + run + "' train '" + graph + "' --steps " + std::to_string(steps) +
                          " --threads 1 --intra-op-threads 1 --print-every 0 --loss loss --train-op train 2>&1";
  std::vector<std::FILE*> pipes;
  for (int c = 0; c < copies; ++c) pipes.push_back(popen(cmd.c_str(), "r"));
  double slowest = 0;
  for (std::FILE* p : pipes) {
    if (!p) throw Error("bench: cannot start " + run);
    std::string out;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    if (pclose(p) != 0) throw Error("bench: flowlens-run train failed:\n" + out);
    const std::string marker = std::to_string(steps) + " steps in ";
    const std::size_t at = out.find(marker);
    if (at == std::string::npos) throw Error("bench: no '" + marker + "' in the output of " + run + ":\n" + out);
    slowest = std::max(slowest, std::strtod(out.c_str() + at + marker.size(), nullptr));
  }
  return std::max(0.005, slowest);  // printed to 0.01 s: a smoke run may read 0.00
}

void machine_ceiling(const char* name, const std::string& run, const std::string& graph, int steps, int reps) {
  const Pairs p = alternating_pairs(
      reps, [&] { return local_training_seconds(run, graph, steps, 1); },
      [&] { return local_training_seconds(run, graph, steps, 2); });
  std::vector<double> ratios;
  for (std::size_t i = 0; i < p.a.size(); ++i) ratios.push_back(2 * p.a[i] / p.b[i]);
  std::printf("%s: %s   (the same step in 2 independent processes vs 1, no cluster: the most 2 workers can gain "
              "here)\n",
              name, bench::ratio_text(bench::median(ratios), bench::spread(ratios)).c_str());
}

// Time per step of an MLP on 1 ps + 1 worker, distributed steps vs the
// phases, in alternating pairs.
void distributed_step_overhead(const char* name, const std::string& node, const std::string& graph, int batch,
                               int steps, int reps) {
  const auto dir = std::filesystem::path(graph).parent_path();
  const Pairs p = alternating_pairs(
      reps, [&] { return run_cluster(node, graph, 1, steps, batch, dir, "phases").worker0_seconds; },
      [&] { return run_cluster(node, graph, 1, steps, batch, dir, "distributed").worker0_seconds; });
  const std::vector<double>& phases = p.a;
  const std::vector<double>& distributed = p.b;
  std::vector<double> ratios;
  for (std::size_t i = 0; i < distributed.size(); ++i) ratios.push_back(distributed[i] / phases[i]);
  std::printf("%s: %s   (MLP step on 1 ps + 1 worker: distributed %.3f ms, pull/run/push %.3f ms%s)\n", name,
              bench::ratio_text(bench::median(ratios), bench::spread(ratios)).c_str(),
              1000 * bench::median(distributed) / steps, 1000 * bench::median(phases) / steps,
              batch >= 1024 ? "; target <= 1.2" : "");
}

void cluster_benchmarks(bool smoke) {
  const auto dir = std::filesystem::temp_directory_path() / ("flowlens_bench_transport_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string node = (std::filesystem::canonical("/proc/self/exe").parent_path() / "flowlens-node").string();
  const int mlp_batch = smoke ? 64 : 1024;
  const std::string mlp = write_mlp_training_graph(dir, smoke, mlp_batch);
  workers_scaling("dist_workers_2_vs_1", node, mlp, mlp_batch, smoke ? 5 : 40, smoke ? 1 : 4);

  CnnTemplateOptions cnn;
  cnn.batch = smoke ? 4 : 32;
  cnn.image_size = smoke ? 8 : 32;
  const std::string cnn_graph = (dir / "cnn_train.pbtxt").string();
  save_graph(cnn_classifier_graph(cnn), cnn_graph);
  workers_scaling("dist_workers_2_vs_1_cnn", node, cnn_graph, cnn.batch, smoke ? 3 : 60, smoke ? 1 : 4);
  const std::string run = (std::filesystem::path(node).parent_path() / "flowlens-run").string();
  machine_ceiling("machine_2_vs_1_cnn", run, cnn_graph, smoke ? 3 : 60, smoke ? 1 : 4);

  distributed_step_overhead("distributed_step_overhead", node, mlp, mlp_batch, smoke ? 20 : 300, smoke ? 1 : 6);
  const auto small_dir = dir / "small";
  std::filesystem::create_directories(small_dir);
  const std::string small_mlp = write_mlp_training_graph(small_dir, true, 64);
  distributed_step_overhead("distributed_step_overhead_small", node, small_mlp, 64, smoke ? 20 : 1000, smoke ? 1 : 6);
  std::filesystem::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
  // One BLAS thread per process, as bench_replicas does: each worker then
  // uses one core, which is what the 2-vs-1 comparison is about.
  const char* blas_threads = std::getenv("OPENBLAS_NUM_THREADS");
  if (!blas_threads || std::strcmp(blas_threads, "1") != 0) {
    setenv("OPENBLAS_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv);
    std::perror("bench_transport: re-exec with OPENBLAS_NUM_THREADS=1 failed");
    return 1;
  }
  const bool smoke = bench::smoke_mode(argc, argv);
  try {
    bandwidth(smoke);
    small_round_trip(smoke);
    cluster_benchmarks(smoke);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_transport: %s\n", e.what());
    return 1;
  }
  return 0;
}
