// --queue-timeout and --no-queue-runners, for run and train: graphs with
// input queues get their queue runners started (tf.train.start_queue_runners)
// and stopped again before the command ends.
#include <iostream>

#include "commands.h"

namespace flowlens::cli {

void add_queue_flags(CLI::App* cmd, QueueFlags& flags) {
  cmd->add_option("--queue-timeout", flags.timeout_s,
                  "Seconds a queue dequeue (or enqueue) waits before the step fails with a message naming the queue "
                  "and what should fill it")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("!--no-queue-runners", flags.start_runners,
                "Do not start the queue runners that fill the graph's input queues (tf.train.start_queue_runners)");
}

void apply_queue_flags(const QueueFlags& flags, SessionOptions& options) {
  options.blocking_op_timeout_s = flags.timeout_s;
}

std::unique_ptr<QueueRunners> start_queue_runners(Session& session, const QueueFlags& flags,
                                                  const std::vector<QueueRunnerDef>* from_meta_graph,
                                                  const std::vector<std::string>& roots) {
  const std::vector<QueueRunnerDef> all = from_meta_graph && !from_meta_graph->empty()
                                              ? *from_meta_graph
                                              : derive_queue_runners(session.graph());
  std::vector<QueueRunnerDef> needed = queue_runners_needed(session.graph(), all, roots);
  if (needed.empty()) return nullptr;
  if (!flags.start_runners) {
    std::cerr << "note: not starting " << needed.size()
              << " queue runner(s) (--no-queue-runners): the step's queues fill only from what runs them\n";
    return nullptr;
  }
  auto runners = std::make_unique<QueueRunners>(session, std::move(needed));
  runners->start();
  std::cerr << "started " << runners->runners().size() << " queue runner(s) (--no-queue-runners to skip): "
            << runners->summary() << "\n";
  return runners;
}

void finish_queue_runners(std::unique_ptr<QueueRunners>& runners) {
  if (!runners) return;
  runners->stop();
  for (const std::string& e : runners->errors()) std::cerr << "error: " << e << "\n";
  runners.reset();
}

}  // namespace flowlens::cli
