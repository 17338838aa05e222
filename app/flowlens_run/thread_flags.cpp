// --threads and --intra-op-threads, for run and train: the session's thread
// budget, as TensorFlow's ConfigProto inter_op/intra_op_parallelism_threads.
#include "commands.h"

namespace flowlens::cli {

void add_thread_flags(CLI::App* cmd, ThreadFlags& flags) {
  cmd->add_option("--threads", flags.inter_op_threads,
                  "Inter-op threads: kernels of the graph run side by side on this many (0: one per core, at least 2)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--intra-op-threads", flags.intra_op_threads,
                  "Intra-op threads: the budget one large MatMul or convolution splits over, shared by those running "
                  "at once, taken from the --threads pool (0: one per core)")
      ->check(CLI::NonNegativeNumber);
}

void apply_thread_flags(const ThreadFlags& flags, SessionOptions& options) {
  options.inter_op_threads = flags.inter_op_threads;
  options.intra_op_threads = flags.intra_op_threads;
}

}  // namespace flowlens::cli
