// flowlens-run ckpt: TensorFlow's inspect_checkpoint for V2 checkpoints.
#include <filesystem>
#include <iostream>

#include "commands.h"
#include "io/checkpoint_reader.h"
#include "model_printing.h"
#include "tensor/npy.h"
#include "tensor/tensor_format.h"

namespace flowlens::cli {
namespace {

struct CkptOptions {
  std::string checkpoint;
  std::vector<std::string> tensors;
  std::string save_dir;
  bool all = false;
  int edge_items = 3;
};

// "dense/kernel" -> "dense_kernel.npy"
std::string npy_name(const std::string& tensor) {
  std::string s = tensor;
  for (char& c : s)
    if (c == '/' || c == ':') c = '_';
  return s + ".npy";
}

int ckpt_command(const CkptOptions& options) {
  const auto opened = open_checkpoint(options.checkpoint);
  const CheckpointReader& reader = *opened;
  const std::string& prefix = reader.prefix();
  std::vector<std::string> names = options.tensors;
  if (options.all)
    for (const auto& e : reader.entries()) names.push_back(e.name);
  if (names.empty() || options.save_dir.empty()) {
    std::cout << "checkpoint: " << prefix << "\n";
    if (names.empty()) print_checkpoint_entries(std::cout, reader);
  }
  TensorFormatOptions format;
  format.edge_items = options.edge_items;
  if (!options.save_dir.empty()) std::filesystem::create_directories(options.save_dir);
  for (const std::string& name : names) {
    const Tensor value = reader.read(name);
    if (options.save_dir.empty()) {
      std::cout << name << " (" << describe_tensor(value) << ") = " << format_tensor(value, format) << "\n";
      continue;
    }
    const std::string path = (std::filesystem::path(options.save_dir) / npy_name(name)).string();
    write_npy(value, path);
    std::cout << "saved " << name << " (" << describe_tensor(value) << ") to " << path << "\n";
  }
  return 0;
}

}  // namespace

void add_ckpt_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<CkptOptions>();
  auto* cmd = app.add_subcommand(
      "ckpt", "List or print the tensors of a TensorFlow checkpoint (V2 or V1) (like inspect_checkpoint), or save them as .npy");
  cmd->add_option("checkpoint", o->checkpoint,
                  "Checkpoint prefix (model.ckpt-100), its .index or .data file, a directory with a 'checkpoint' "
                  "file, or a V1 checkpoint file or pattern (export-?????" "-of-00001)")
      ->required();
  cmd->add_option("--tensor", o->tensors, "Print (or with --save, save) these tensors (comma-separated, repeatable)");
  cmd->add_flag("--all", o->all, "Every tensor in the checkpoint");
  cmd->add_option("--save", o->save_dir, "Write the chosen tensors (--tensor/--all) to DIR/<name>.npy");
  cmd->add_option("--edge-items", o->edge_items, "Items shown at each edge of a dimension (0: all)")
      ->check(CLI::NonNegativeNumber);
  cmd->callback([o, &exit_code] {
    o->tensors = split_list(o->tensors);
    if (!o->save_dir.empty() && o->tensors.empty() && !o->all)
      throw CLI::ValidationError("ckpt", "--save needs --tensor NAME or --all");
    exit_code = ckpt_command(*o);
  });
}

}  // namespace flowlens::cli
