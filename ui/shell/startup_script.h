#pragma once
// What `flowlens` does at start-up, after its command line is parsed: open
// the graph (in the viewer or the editor), replicate it, select a node, set
// breakpoints, attach to a cluster, run, and either take a screenshot and end
// or show the window for the event loop. main() parses; this carries out, so
// tests drive the same steps without a process.
#include <QString>
#include <QStringList>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace flowlens::ui {

class MainWindow;

// One field per command-line option (see app/flowlens/main.cpp).
struct StartupOptions {
  QString graph_path;                     // [graph]
  std::optional<QString> screenshot;      // --screenshot out.png: render, then end
  std::optional<QString> view_report;     // --view-report out.json: measure the first frame, then end
  QString select;                         // --select: a node name, or an op type (its first node)
  int replicas = 0;                       // --replicas (0: no comparison)
  std::vector<std::string> split_inputs;  // --split
  std::vector<std::string> merge_outputs; // --merge
  std::vector<std::string> devices;       // --devices
  bool run = false;                       // --run (each outcome printed to stderr)
  std::vector<std::pair<QString, QString>> feeds;  // --feed NAME=VALUE, in order
  int steps = 1;                          // --steps
  QString fetch;                          // --fetch: the Fetch box's text
  QString function_node;                  // --function: open the body this node calls
  std::vector<std::string> breakpoints;   // --break NODE or NODE@iteration==N
  bool check_numerics = false;            // --check-numerics
  bool time_overlay = false;              // --time-overlay
  std::optional<QString> dock;            // --dock NAME: any dock (see dock_named in the .cpp)
  bool edit = false;                      // --edit
  std::optional<QString> template_name;   // --template
  std::optional<QString> attach;          // --attach cluster.json
  std::optional<QString> key;             // --key client.key
  bool expand_all = false;                // --expand-all
};

struct StartupOutcome {
  // Set when the program ends now: 0 after the screenshot, else a failure
  // (2 for options that cannot apply, 1 otherwise) that `error` explains.
  // Unset: the window is shown and the event loop comes next.
  std::optional<int> exit_code;
  QString error;
  QStringList warnings;  // problems start-up went on past (no node to select, replication failed)
};

// Carries out `options` on `window`, in the order main() always has. Without
// a screenshot the window is shown, and a failed load or a replication that
// needs more options opens its dialog once the event loop runs.
StartupOutcome run_startup_script(MainWindow& window, const StartupOptions& options);

}  // namespace flowlens::ui
