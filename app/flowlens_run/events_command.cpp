// flowlens-run events: what a TensorBoard log holds, per run.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>

#include "commands.h"
#include "common/error.h"
#include "io/event_log.h"
#include "observe/profiler.h"
#include "observe/run_metadata_profile.h"

namespace flowlens::cli {
namespace {

constexpr int kTopOps = 5;

// "      4 node execution(s) on 2 device(s), 0.085 ms; top ops: MatMul 0.040 ms (47.1%), ..."
void print_step_stats(const EventRunMetadata& m, std::vector<EventProblem>& problems) {
  Profiler profiler;
  RunMetadataImport imported;
  try {
    imported = add_run_metadata(profiler, m.bytes, m.file + "@" + std::to_string(m.offset), {.run_id = m.step});
  } catch (const Error& e) {
    std::cout << "      unreadable RunMetadata\n";
    problems.push_back({m.file, m.offset, "tagged_run_metadata '" + m.tag + "': not a RunMetadata"});
    return;
  }
  if (imported.node_stats == 0) {
    std::cout << "      no step stats\n";
    return;
  }
  double total_ms = 0;
  const std::vector<OpTiming> ops = profiler.op_summary();
  for (const OpTiming& t : ops) total_ms += t.total_ms;
  std::cout << "      " << imported.node_stats << " node execution(s) on " << imported.devices << " device(s), "
            << std::fixed << std::setprecision(3) << total_ms << " ms; top ops:";
  for (std::size_t i = 0; i < ops.size() && i < kTopOps; ++i)
    std::cout << (i ? ", " : " ") << ops[i].op << " " << ops[i].total_ms << " ms (" << std::setprecision(1)
              << ops[i].percent << "%)" << std::setprecision(3);
  std::cout << std::defaultfloat << "\n";
  for (const std::string& note : imported.notes) std::cout << "      note: " << note << "\n";
}

struct EventsOptions {
  std::string path;
};

void print_run(const EventRun& run, std::vector<EventProblem>& problems) {
  std::cout << "run " << run.name << "  (" << run.files.size() << " file(s), " << run.events << " event(s)";
  if (!run.file_version.empty()) std::cout << ", " << run.file_version;
  std::cout << ")\n";

  std::size_t width = 0;
  for (const auto& [tag, points] : run.scalars) width = std::max(width, tag.size());
  for (const auto& [tag, info] : run.other_tags) width = std::max(width, tag.size());
  const int w = static_cast<int>(width);
  if (!run.scalars.empty()) {
    std::cout << "  scalars:\n";
    for (const auto& [tag, points] : run.scalars) {
      std::cout << "    " << std::left << std::setw(w) << tag << "  " << points.size() << " point(s)";
      if (!points.empty())
        std::cout << "  last " << std::setprecision(7) << points.back().value << " at step " << points.back().step;
      std::cout << "\n";
    }
  }
  if (!run.other_tags.empty()) {
    std::cout << "  other tags:\n";
    for (const auto& [tag, info] : run.other_tags)
      std::cout << "    " << std::left << std::setw(w) << tag << "  " << info.kind << ", " << info.count
                << " value(s)\n";
  }
  if (!run.graphs.empty()) {
    std::cout << "  graphs: " << run.graphs.size() << "\n";
    for (const EventGraph& g : run.graphs) {
      std::cout << "    step " << g.step << ": ";
      try {
        std::cout << parse_event_graph(g).size() << " node(s)\n";
      } catch (const Error& e) {
        std::cout << "unreadable GraphDef (" << g.bytes.size() << " bytes)\n";
        problems.push_back({g.file, g.offset, std::string("graph_def: ") + e.what()});
      }
    }
  }
  if (!run.meta_graphs.empty()) {
    std::cout << "  meta graphs: " << run.meta_graphs.size() << "\n";
    for (const EventGraph& g : run.meta_graphs)
      std::cout << "    step " << g.step << ": " << g.bytes.size() << " bytes\n";
  }
  if (!run.run_metadata.empty()) {
    std::cout << "  run metadata: " << run.run_metadata.size() << "\n";
    for (const EventRunMetadata& m : run.run_metadata) {
      std::cout << "    " << m.tag << " at step " << m.step << ": " << m.bytes.size() << " bytes\n";
      print_step_stats(m, problems);
    }
  }
  if (run.scalars.empty() && run.other_tags.empty() && run.graphs.empty() && run.meta_graphs.empty() &&
      run.run_metadata.empty())
    std::cout << "  no summaries, graphs or run metadata\n";
}

}  // namespace

int describe_event_log(const std::string& path) {
  EventsOptions options;
  options.path = path;
  std::error_code ec;
  const bool is_dir = std::filesystem::is_directory(options.path, ec);
  const EventLog log = is_dir ? read_log_directory(options.path) : read_event_file(options.path);
  std::vector<EventProblem> problems = log.problems;
  if (is_dir) std::cout << options.path << ": " << log.runs.size() << " run(s)\n";
  if (log.runs.empty()) std::cout << "no " << kEventFileNameMarker << "* files found\n";
  for (const EventRun& run : log.runs) {
    std::vector<EventProblem> graph_problems;
    print_run(run, graph_problems);
    problems.insert(problems.end(), run.problems.begin(), run.problems.end());
    problems.insert(problems.end(), graph_problems.begin(), graph_problems.end());
  }
  if (problems.empty()) return 0;
  std::cout << "problems: " << problems.size() << "\n";
  for (const EventProblem& p : problems) std::cout << "  " << p.to_string() << "\n";
  return 1;
}

void add_events_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<EventsOptions>();
  auto* cmd = app.add_subcommand(
      "events", "Summarize a TensorBoard log (an events.out.tfevents.* file or a log directory): runs, scalar "
                "tags, graphs, run metadata and damaged records; exit code 1 if any record was damaged");
  cmd->add_option("path", options->path, "Event file, or a log directory whose runs are its event-file folders")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->callback([options, &exit_code] { exit_code = describe_event_log(options->path); });
}

}  // namespace flowlens::cli
