#include <algorithm>
#include <filesystem>
#include <optional>
#include <iostream>

#include "commands.h"
#include "model_printing.h"
#include "exec/loaded_model.h"
#include "exec/session.h"
#include "exec/variable_checkpoint.h"
#include "io/example_json.h"
#include "io/file_formats.h"
#include "io/graph_io.h"
#include "observe/debugger.h"
#include "observe/stop_text.h"
#include "observe/profiler.h"
#include "tensor/npy.h"
#include "tensor/tensor_format.h"

namespace flowlens::cli {
namespace {

struct RunOptions {
  std::string graph;
  std::vector<std::string> fetches;
  std::vector<std::string> feeds;    // name=file.npy or name=VALUE
  std::vector<std::string> targets;
  std::vector<std::string> init;     // targets run first, in their own run
  std::string save_dir;              // write each fetch as DIR/<name>.npy
  int edge_items = -1;               // -1: NumPy's print options
  ThreadFlags threads;
  bool strict_placement = false;
  bool auto_init = true;             // run every `v/Assign` initializer first
  std::string profile_path;          // Chrome trace of the step; op summary to stderr
  bool check_numerics = false;       // fail naming the first node that produces NaN/Inf
  std::vector<std::string> breaks;   // print these nodes' inputs/outputs as they run
  DeviceFlags devices;
  QueueFlags queues;
  // SavedModels and meta graphs
  std::string signature;             // run this SignatureDef by its keys
  std::vector<std::string> inputs;   // KEY=VALUE or KEY=file.npy for the signature
  std::vector<std::string> examples; // KEY=JSON: serialized tf.Examples for a string input
  std::vector<std::string> outputs;  // signature output keys to print (default: all)
  std::vector<std::string> tags;     // the SavedModel meta graph's tags (default: serve)
  std::string checkpoint;            // restore from this checkpoint instead of the default
  std::string save_checkpoint;       // write the variables after the run, as a V2 checkpoint
  // Function-body graphs (_Arg/_Retval): --checkpoint above, --init-args, --seed, --arg-map
  FunctionBodyFlags function_body;
  int steps = 1;                     // run the step this many times (variables persist)
};

// "layer/w:1" -> "layer_w_1.npy": one flat file per fetch.
std::string npy_file_name(const std::string& tensor) {
  std::string s = tensor;
  for (char& c : s)
    if (c == '/' || c == ':') c = '_';
  return s + ".npy";
}

// --edge-items N elides every dimension longer than 2N (0: nothing); without
// it, tensors print as NumPy prints them.
TensorFormatOptions print_options(int edge_items) {
  if (edge_items < 0) return kNumpyPrintOptions;
  return TensorFormatOptions{edge_items, 0};
}

// --break output: the node (with its iteration inside a loop frame:
// "break at 'while/add' @ iteration 3 (Add) on /cpu:0"), then each input and
// output, one per line.
void print_stop(const DebugStop& stop, const TensorFormatOptions& format) {
  std::cout << break_line(stop) << "\n";
  for (size_t i = 0; i < stop.inputs.size(); ++i) {
    const std::string name = i < stop.input_names.size() ? stop.input_names[i] : std::to_string(i);
    std::cout << "  input " << i << " '" << name << "' = "
              << (stop.inputs[i].valid() ? format_tensor(stop.inputs[i], format) : std::string("(ref)")) << "\n";
  }
  for (size_t i = 0; i < stop.outputs.size(); ++i)
    std::cout << "  output " << i << " = "
              << (stop.outputs[i].valid() ? format_tensor(stop.outputs[i], format) : std::string("(none)")) << "\n";
  std::cout.flush();
}

SessionOptions session_options_for(const RunOptions& options) {
  // Print and PrintV2 write where TensorFlow does (the default run log):
  // output_stream 'stdout' to stdout, the rest to stderr.
  SessionOptions session_options;
  apply_thread_flags(options.threads, session_options);
  session_options.allow_soft_placement = !options.strict_placement;
  apply_device_flags(options.devices, session_options);
  apply_queue_flags(options.queues, session_options);
  return session_options;
}

void report_session(const Session& session) {
  for (const Diagnostic& d : session.diagnostics()) std::cerr << d.to_string() << "\n";
  for (const auto& note : session.placement().soft_placed)
    std::cerr << "note: soft placement: '" << note.node << "' asked for " << note.requested << ", runs on "
              << note.placed << " (" << note.reason << ")\n";
}

// A graph without a Saver of its own: its variables take the checkpoint's
// values by name after their initializers ran, as tf.train.Saver().restore
// does (every variable, or the run stops).
void restore_graph_variables(Session& session, const std::string& checkpoint) {
  const RestoredVariables restored = restore_variables(session, checkpoint);
  std::cerr << "restored " << restored.restored.size() << " variable(s) from checkpoint " << restored.prefix << "\n";
}

void save_checkpoint_if_asked(Session& session, const RunOptions& options) {
  if (options.save_checkpoint.empty()) return;
  const SavedVariables saved = save_variables(session, options.save_checkpoint);
  for (const std::string& name : saved.uninitialized)
    std::cerr << "note: variable '" << name << "' has no value and is not in the checkpoint\n";
  std::cerr << "saved " << saved.saved.size() << " variable(s) to checkpoint " << options.save_checkpoint << "\n";
}

void save_npy_files(const RunOptions& options, const std::vector<std::string>& names,
                    const std::vector<Tensor>& results) {
  if (options.save_dir.empty()) return;
  std::filesystem::create_directories(options.save_dir);
  for (size_t i = 0; i < results.size(); ++i) {
    std::string path = (std::filesystem::path(options.save_dir) / npy_file_name(names[i])).string();
    write_npy(results[i], path);
    std::cerr << "saved " << names[i] << " to " << path << "\n";
  }
}

int run_step(Session& session, const GraphAnalysis& analysis, const RunOptions& options,
             const FunctionBody* body = nullptr, const std::vector<QueueRunnerDef>* queue_runners = nullptr);

// A SavedModel or meta graph: restored, then run by signature or by names.
int run_model(const RunOptions& options) {
  ModelLoadOptions load_options;
  load_options.session = session_options_for(options);
  if (!options.tags.empty()) load_options.tags = options.tags;
  load_options.checkpoint = options.checkpoint;
  LoadedModel model = LoadedModel::load(options.graph, load_options);
  report_session(model.session());
  for (const std::string& note : model.notes()) std::cerr << "note: " << note << "\n";
  if (options.signature.empty()) {
    if (options.fetches.empty() && options.targets.empty()) {
      std::string keys;
      for (const Signature& s : model.meta_graph().signatures)
        if (!s.key.starts_with("__")) keys += (keys.empty() ? "" : ", ") + s.key;
      throw Error("name a --signature to run (this model has: " + (keys.empty() ? std::string("none") : keys) +
                  ") or give --fetch/--target");
    }
    const GraphAnalysis analysis(std::make_shared<const Graph>(model.session().graph()));
    const int code = run_step(model.session(), analysis, options, nullptr, &model.meta_graph().queue_runners);
    save_checkpoint_if_asked(model.session(), options);
    return code;
  }
  const Signature& sig = model.signature(options.signature);
  std::map<std::string, Tensor> inputs = parse_signature_inputs(options.inputs, sig);
  for (const std::string& spec : options.examples) {
    const auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error("--input-examples '" + spec + "': expected KEY=[{\"feature\": [values]}, ...]");
    const std::string key = spec.substr(0, eq);
    std::vector<std::string> serialized = examples_from_json(spec.substr(eq + 1));
    const auto count = static_cast<int64_t>(serialized.size());
    if (!inputs.emplace(key, Tensor::from_strings(Shape{count}, std::move(serialized))).second)
      throw Error("--input-examples '" + key + "' is given twice");
  }
  const auto results = model.run_signature(options.signature, inputs, options.outputs);
  const TensorFormatOptions format = print_options(options.edge_items);
  std::vector<std::string> names;
  std::vector<Tensor> values;
  for (const auto& [key, value] : results) {
    std::cout << key << " = " << format_tensor(value, format) << "\n";
    names.push_back(key);
    values.push_back(value);
  }
  save_npy_files(options, names, values);
  save_checkpoint_if_asked(model.session(), options);
  return 0;
}

int run_command(const RunOptions& options) {
  std::string format_name;
  auto graph = std::make_shared<Graph>();
  bool is_model = false;
  {
    Probe probe(options.graph);  // holds the file's bytes until parsed, not for the run
    const FormatHandler& format = find_format(probe);
    is_model = format.is_model();
    format_name = format.name();
    if (!is_model && (!options.signature.empty() || !options.inputs.empty() || !options.examples.empty()))
      throw Error("--signature and --input need a SavedModel or a .meta file; '" + options.graph + "' is " +
                  format_name);
    if (!is_model) *graph = format.load(probe);
  }
  // A model (signatures, a Saver) is LoadedModel's, which reads it itself,
  // once the sniffed bytes above are gone.
  if (is_model) return run_model(options);
  // Validated once, here, and shape-inferred only if a typed-in feed needs it.
  const auto analysis = std::make_shared<const GraphAnalysis>(std::shared_ptr<const Graph>(std::move(graph)));
  std::optional<FunctionBody> body;
  if (FunctionBody::is_function_body(analysis->graph())) body.emplace(analysis->graph());
  if (!body && uses_function_body_flags(options.function_body))
    throw Error("--init-args and --arg-map are for function-body graphs (with _Arg nodes); '" + options.graph +
                "' has none");
  if (!body && options.fetches.empty() && options.targets.empty())
    throw CLI::ValidationError("run", "give at least one --fetch or --target");
  Session session(analysis, session_options_for(options));
  report_session(session);
  if (body) initialize_function_args(session, *body, options.function_body, options.checkpoint);
  if (!options.init.empty()) {
    session.run({}, {}, options.init);
  } else if (options.auto_init) {
    session.initialize_variables([](std::size_t count) {
      std::cerr << "note: initializing " << count << " variable(s) first (--no-auto-init to skip)\n";
    });
  }
  if (!body && !options.checkpoint.empty()) restore_graph_variables(session, options.checkpoint);
  const int code = run_step(session, *analysis, options, body ? &*body : nullptr);
  save_checkpoint_if_asked(session, options);
  return code;
}

// --steps steps with --feed/--fetch/--target and the observers (--profile,
// --check-numerics, --break); prints each step's fetched tensors and saves
// the last step's. A function body is fed by argument and fetched by return
// value (every one when no --fetch is given), and each step runs it whole.
int run_step(Session& session, const GraphAnalysis& analysis, const RunOptions& options, const FunctionBody* body,
             const std::vector<QueueRunnerDef>* queue_runners) {
  FeedList feeds = parse_feeds(options.feeds, analysis, body);
  std::vector<std::string> fetch_names = options.fetches, fetches = options.fetches, targets = options.targets;
  if (body) {
    feeds = body->feeds_for(feeds);
    if (fetch_names.empty())
      for (const FunctionRetval& r : body->retvals()) fetch_names.push_back("retval:" + std::to_string(r.index));
    fetches = body->fetches_for(fetch_names);
    for (const std::string& t : body->step_targets())
      if (std::find(targets.begin(), targets.end(), t) == targets.end()) targets.push_back(t);
  }

  const TensorFormatOptions format = print_options(options.edge_items);
  // Only the requested step is observed, not the initializers.
  Profiler profiler;
  Debugger debugger;
  std::string numerics_error;  // set on a worker thread, read after the run returned
  const bool profiling = !options.profile_path.empty();
  const bool debugging = options.check_numerics || !options.breaks.empty();
  if (debugging) {
    for (const std::string& node : options.breaks) {
      if (!session.graph().find(node)) throw Error("--break: no node named '" + node + "'");
      debugger.break_at(node);
    }
    debugger.set_check_numerics(options.check_numerics);
    debugger.set_on_stop([&](const DebugStop& stop) {
      if (stop.reason == StopReason::Numerics) {
        numerics_error = stop.message;
        debugger.stop();
        return;
      }
      print_stop(stop, format);
      debugger.continue_run();  // for scripting: report and go on
    });
    session.add_observer(&debugger);
  }
  if (profiling) session.add_observer(&profiler);
  auto finish_observing = [&] {
    session.remove_observer(&debugger);
    session.remove_observer(&profiler);
    if (!profiling) return;
    profiler.write_chrome_trace(options.profile_path);
    std::cerr << profiler.summary_table(10) << "wrote trace of " << profiler.size() << " node(s) to "
              << options.profile_path << " (open in https://ui.perfetto.dev)\n";
  };
  std::vector<std::string> roots = fetches;
  roots.insert(roots.end(), targets.begin(), targets.end());
  // Threads that fill the step's input queues; stopped (joined) however the steps end.
  std::unique_ptr<QueueRunners> runners = start_queue_runners(session, options.queues, queue_runners, roots);
  std::vector<Tensor> results;
  for (int step = 1; step <= options.steps; ++step) {
    try {
      results = session.run(feeds, fetches, targets);
    } catch (const OutOfRangeError& e) {
      // --steps past the end of a dataset's input: the steps that ran stand
      // (a single run at the end is an error, as in TensorFlow).
      if (options.steps == 1 || step == 1) {
        finish_observing();
        throw;
      }
      std::cout.flush();
      std::cerr << "input ended after " << step - 1 << " step(s): " << e.what() << "\n";
      break;
    } catch (const Error& e) {
      finish_queue_runners(runners);
      finish_observing();
      if (!numerics_error.empty()) throw Error("--check-numerics: " + numerics_error);
      if (options.steps > 1) throw Error("step " + std::to_string(step) + ": " + e.what());
      throw;
    }
    if (options.steps > 1) std::cout << "step " << step << ":\n";
    for (size_t i = 0; i < results.size(); ++i)
      std::cout << fetch_names[i] << " = " << format_tensor(results[i], format) << "\n";
    std::cout.flush();
  }
  finish_queue_runners(runners);
  finish_observing();
  save_npy_files(options, fetch_names, results);
  return 0;
}

}  // namespace

void add_run_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand(
      "run", "Run a graph on this machine's devices and print the fetched tensors; run a SavedModel's signature");
  cmd->add_option("graph", o->graph,
                  "A graph file (.pbtxt, .pb, .onnx), a SavedModel directory, or a .meta file (restored from its "
                  "checkpoint)")
      ->required();
  cmd->footer("Formats (detected by content):\n" + formats_help());
  cmd->add_option("--signature,-s", o->signature, "SavedModel/meta graph: run this SignatureDef (e.g. serving_default)");
  cmd->add_option("--input,-i", o->inputs,
                  "A signature input: KEY=VALUE (1,2,3 or [[1],[2]], shaped to the input) or KEY=file.npy (repeatable)");
  cmd->add_option("--input-examples", o->examples,
                  "A signature input of serialized tf.Examples: KEY='[{\"x\": [1.0]}, {\"x\": [2.0]}]' (floats need a "
                  "decimal point; integers become int64_list, strings bytes_list)");
  cmd->add_option("--output", o->outputs, "Signature output keys to print (default: all; comma-separated)");
  cmd->add_option("--tags", o->tags, "SavedModel: the meta graph's tags (default: serve; comma-separated)");
  cmd->add_option("--checkpoint", o->checkpoint,
                  "Restore from this checkpoint prefix (or directory) instead of the model's own variables or the "
                  "latest checkpoint beside the .meta; for a plain graph, its variables by node name after their "
                  "initializers ran (as tf.train.Saver().restore); for a function-body graph, the resource _Args' "
                  "values (see --arg-map)");
  add_function_body_flags(cmd, o->function_body);
  cmd->add_option("--steps", o->steps,
                  "Run the step N times (variables persist, so a function-body train step trains); prints each "
                  "step's fetches")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--save-checkpoint", o->save_checkpoint,
                  "After the run, write every variable to PREFIX.index/PREFIX.data-00000-of-00001 (a TensorFlow V2 "
                  "checkpoint)");
  add_device_flags(cmd, o->devices);
  add_queue_flags(cmd, o->queues);
  cmd->add_option("--fetch,-f", o->fetches,
                  "Tensors to fetch and print: name or name:port, comma-separated; in a function-body graph also "
                  "retval:N or a _Retval's name (default there: every _Retval)");
  cmd->add_option("--feed", o->feeds, "Feed a tensor: name=file.npy, or name=VALUE typed as numpy writes it (3.5, 1,2,3, [[1,2],[3,4]], "
                  "\"text\"), read as the tensor's dtype, or generated: zeros, ones, random, each with an optional "
                  "shape (random[4,2]; default the declared shape, ? as 1) (repeatable); a function body's _Arg by "
                  "name or as arg:N=...");
  cmd->add_option("--target,-t", o->targets, "Nodes to run without fetching, comma-separated");
  cmd->add_option("--init", o->init, "Nodes run first in their own step (e.g. a variable initializer)");
  cmd->add_flag("!--no-auto-init", o->auto_init, "Do not run the variables' initializers (v/Assign) before the step");
  cmd->add_option("--save", o->save_dir, "Also write every fetched tensor to DIR/<name>.npy");
  cmd->add_option("--edge-items", o->edge_items,
                  "Print only this many items at each edge of every long dimension; 0 prints every element "
                  "(default: as NumPy, tensors over 1000 elements show 3 at each edge)")
      ->check(CLI::NonNegativeNumber);
  add_thread_flags(cmd, o->threads);
  cmd->add_flag("--strict-placement", o->strict_placement,
                "Fail instead of moving nodes whose requested device does not exist to the CPU");
  cmd->add_option("--profile", o->profile_path,
                  "Write a Chrome trace (Perfetto) of the step to FILE and print the top-10 ops to stderr");
  cmd->add_flag("--check-numerics", o->check_numerics, "Fail naming the first node that produces NaN or Inf");
  cmd->add_option("--break", o->breaks,
                  "Print these nodes' inputs and outputs when they run, then continue (comma-separated)");
  cmd->callback([o, &exit_code] {
    o->breaks = split_list(o->breaks);
    o->fetches = split_list(o->fetches);
    o->targets = split_list(o->targets);
    o->init = split_list(o->init);
    o->outputs = split_list(o->outputs);
    o->tags = split_list(o->tags);
    exit_code = run_command(*o);
  });
}

}  // namespace flowlens::cli
