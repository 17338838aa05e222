// --feed parsing shared by run and train, and the flags of graphs exported
// from a function body (_Arg inputs, _Retval outputs; exec/function_body.h):
// --init-args, --seed and --arg-map, with --checkpoint for the resource
// arguments' first values.
#include <iostream>
#include <sstream>

#include "commands.h"
#include "exec/feed_values.h"

namespace flowlens::cli {
FeedList parse_feeds(const std::vector<std::string>& specs, const GraphAnalysis& analysis, const FunctionBody* body) {
  FeedList feeds;
  for (const std::string& spec : specs) {
    auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      throw Error("--feed '" + spec + "': expected name=file.npy or name=VALUE");
    const std::string name = spec.substr(0, eq), value = spec.substr(eq + 1);
    try {
      if (body)
        if (const FunctionArg* arg = body->find_arg(name); arg && arg->resource)
          throw Error(arg->describe() + " is a variable the session owns; give it a value with --checkpoint or "
                      "--init-args instead");
      // A typed or generated value is read as the tensor's dtype. A .npy
      // file fed to a placeholder is converted to its dtype, as
      // tf.Session.run's feed_dict does; anything else keeps the file's
      // dtype (a function argument's is strict; the session checks it).
      const bool file = value.ends_with(".npy");
      const DType dtype = file ? DType::Invalid : feed_dtype(analysis, name, body);
      Tensor fed = parse_feed_value(value, dtype, feed_declared_shape(analysis, name, body));
      const auto id = TensorId::parse(name);
      const Node* node = id ? analysis.graph().find(id->node) : nullptr;
      if (file && node && is_placeholder_op(node->op))
        fed = convert_placeholder_feed(fed, dtype_base(node->attr_type("dtype", DType::Invalid)));
      feeds.emplace_back(name, std::move(fed));
    } catch (const Error& e) {
      const std::string what = e.what();
      throw Error(what.starts_with("--feed") ? what : "--feed '" + name + "': " + what);
    }
  }
  return feeds;
}

void add_function_body_flags(CLI::App* cmd, FunctionBodyFlags& flags) {
  cmd->add_option("--init-args", flags.init_args,
                  "Function-body graphs: give resource _Args (variables) that --checkpoint does not a first value: "
                  "zeros, or random (glorot-uniform weights of rank >= 2; TensorFlow/Keras's defaults for variables "
                  "reaching a batch norm's scale or variance (1) or an optimizer's hyperparameters (Adam lr 0.001, "
                  "beta1 0.9, ...); zeros for biases, counters and optimizer slots; seeded by --seed)")
      ->check(CLI::IsMember({"zeros", "random"}));
  cmd->add_option("--seed", flags.seed, "Seed of --init-args random (default 0)");
  cmd->add_option("--arg-map", flags.arg_map,
                  "Function-body graphs: a file mapping resource _Args to --checkpoint keys, one 'ARG KEY' a line "
                  "(ARG a node name or arg:N; # comments). Without one an _Arg matches the key of its own name, or "
                  "the one key TensorFlow's argument naming turns into it (dense/bias -> dense_bias[_resource])")
      ->check(CLI::ExistingFile);
}

bool uses_function_body_flags(const FunctionBodyFlags& flags) { return !flags.init_args.empty() || !flags.arg_map.empty(); }

void initialize_function_args(Session& session, const FunctionBody& body, const FunctionBodyFlags& flags,
                              const std::string& checkpoint) {
  ArgInitOptions options;
  options.checkpoint = checkpoint;
  if (!flags.arg_map.empty()) options.name_map = read_arg_map(flags.arg_map);
  options.fill = flags.init_args == "zeros" ? ArgFill::Zeros : flags.init_args == "random" ? ArgFill::Random : ArgFill::None;
  options.seed = flags.seed;
  const ArgInitReport report = body.initialize_resource_args(session, options);
  if (!report.restored.empty())
    std::cerr << "note: restored " << report.restored.size() << " resource argument(s) from checkpoint " << checkpoint
              << "\n";
  if (!report.unmatched.empty()) {
    std::cerr << "note: " << report.unmatched.size() << " resource argument(s) not in the checkpoint, initialized with "
              << flags.init_args << " (map them with --arg-map):";
    for (const std::string& name : report.unmatched) std::cerr << " " << name;
    std::cerr << "\n";
  }
  const size_t filled = report.filled.size() - report.unmatched.size();
  if (filled > 0)
    std::cerr << "note: initialized " << filled << " resource argument(s) with " << flags.init_args
              << (flags.init_args == "random" ? " (seed " + std::to_string(flags.seed) + ")" : std::string()) << "\n";
  // One line per role, so a learning rate or a gamma that is not a glorot
  // weight shows where its value came from.
  for (const auto& [role, args] : report.by_role) {
    std::ostringstream value;
    value << role.value;
    std::cerr << "note: --init-args random: " << args.size() << " resource argument(s) reaching " << role.kind
              << " start at " << value.str() << " (TensorFlow/Keras's default there)\n";
  }
}

}  // namespace flowlens::cli
