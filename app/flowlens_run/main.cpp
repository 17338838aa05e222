// flowlens-run: load, inspect, run and convert dataflow graphs from the shell.
#include <iostream>

#include "commands.h"
#include "common/error.h"
#include "flowlens_version.h"
#include "tensor/allocator.h"

int main(int argc, char** argv) {
  using namespace flowlens::cli;
  CLI::App app{"flowlens-run: inspect, run and convert TensorFlow graphs, SavedModels, checkpoints and logs"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "flowlens-run " FLOWLENS_VERSION);
  // Given before or after the subcommand (subcommands created below inherit
  // fallthrough); applied before the subcommand runs.
  app.fallthrough();
  app.add_option_function<std::size_t>(
         "--max-tensor-mb",
         [](std::size_t mb) { flowlens::HostAllocator::set_max_tensor_bytes(mb << 20); },
         "Largest tensor one op may allocate, in MiB (default: the machine's memory, or FLOWLENS_MAX_TENSOR_MB); "
         "shape inference flags bigger static shapes")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40));

  int exit_code = 0;
  add_info_command(app, exit_code);
  add_run_command(app, exit_code);
  add_convert_command(app, exit_code);
  add_place_command(app, exit_code);
  add_partition_command(app, exit_code);
  add_train_command(app, exit_code);
  add_replicate_command(app, exit_code);
  add_ops_command(app, exit_code);
  add_ckpt_command(app, exit_code);
  add_events_command(app, exit_code);
  add_template_command(app, exit_code);

  try {
    app.parse(argc, argv);  // runs the chosen subcommand's callback
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const flowlens::Error& e) {
    std::cerr << "flowlens-run: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "flowlens-run: internal error: " << e.what() << "\n";
    return 3;
  }
  return exit_code;
}
