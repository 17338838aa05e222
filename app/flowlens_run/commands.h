#pragma once
// The subcommands of flowlens-run. Each add_*_command registers its options
// and a callback that stores the process exit code in `exit_code`; the
// callbacks throw flowlens::Error for anything the user must fix.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include <memory>

#include "exec/function_body.h"
#include "analysis/graph_analysis.h"
#include "exec/queue_runner.h"
#include "exec/session.h"

namespace flowlens::cli {

// Device choices shared by run, train and info.
struct DeviceFlags {
  int virtual_gpus = 0;         // logical GPUs per physical GPU
  std::string gpu_math = "fp32";
  bool cpu_only = false;
};
void add_device_flags(CLI::App* cmd, DeviceFlags& flags);
void apply_device_flags(const DeviceFlags& flags, SessionOptions& options);
LocalDeviceOptions local_device_options(const DeviceFlags& flags);

// The thread budget shared by run and train: --threads (inter-op) and
// --intra-op-threads (exec/thread_budget.h); 0 is one per core.
struct ThreadFlags {
  int inter_op_threads = 0;
  int intra_op_threads = 0;
};
void add_thread_flags(CLI::App* cmd, ThreadFlags& flags);
void apply_thread_flags(const ThreadFlags& flags, SessionOptions& options);

void add_info_command(CLI::App& app, int& exit_code);
void add_run_command(CLI::App& app, int& exit_code);
void add_convert_command(CLI::App& app, int& exit_code);
void add_place_command(CLI::App& app, int& exit_code);
void add_partition_command(CLI::App& app, int& exit_code);
void add_train_command(CLI::App& app, int& exit_code);
void add_replicate_command(CLI::App& app, int& exit_code);
void add_ops_command(CLI::App& app, int& exit_code);
void add_ckpt_command(CLI::App& app, int& exit_code);
void add_events_command(CLI::App& app, int& exit_code);
void add_template_command(CLI::App& app, int& exit_code);
// What `events PATH` prints; 1 when a record was damaged. Also used by info.
int describe_event_log(const std::string& path);

// --feed NAME=file.npy or NAME=VALUE (typed as numpy writes it, read as the
// tensor's dtype). With a function body, NAME may be an _Arg's name or arg:N.
FeedList parse_feeds(const std::vector<std::string>& specs, const GraphAnalysis& analysis,
                     const FunctionBody* body = nullptr);

// Flags of graphs exported from a function body (exec/function_body.h), shared by run and train.
struct FunctionBodyFlags {
  std::string init_args;  // "", "zeros" or "random"
  uint64_t seed = 0;
  std::string arg_map;    // file of 'ARG KEY' lines
};
void add_function_body_flags(CLI::App* cmd, FunctionBodyFlags& flags);
bool uses_function_body_flags(const FunctionBodyFlags& flags);
// Gives the resource arguments their first values and says on stderr where they came from.
void initialize_function_args(Session& session, const FunctionBody& body, const FunctionBodyFlags& flags,
                              const std::string& checkpoint);

// Queue flags shared by run and train: --queue-timeout, --no-queue-runners.
struct QueueFlags {
  double timeout_s = 60;      // SessionOptions::blocking_op_timeout_s
  bool start_runners = true;  // start the queue runners the step needs
};
void add_queue_flags(CLI::App* cmd, QueueFlags& flags);
void apply_queue_flags(const QueueFlags& flags, SessionOptions& options);
// Starts the queue runners (a meta graph's, else derived from the graph) whose
// queues the fetches and targets need, and says on stderr which; nullptr when
// none is needed or --no-queue-runners. Destroying the result stops and joins them.
std::unique_ptr<QueueRunners> start_queue_runners(Session& session, const QueueFlags& flags,
                                                  const std::vector<QueueRunnerDef>* from_meta_graph,
                                                  const std::vector<std::string>& roots);
// Stops the runners (if any) and prints the errors their threads met.
void finish_queue_runners(std::unique_ptr<QueueRunners>& runners);

// Splits "a,b" and repeated flags into one list, dropping empty items.
std::vector<std::string> split_list(const std::vector<std::string>& items);
// The inverse for printing: the items with `sep` between them.
std::string join_list(const std::vector<std::string>& items, const char* sep = ", ");

}  // namespace flowlens::cli
