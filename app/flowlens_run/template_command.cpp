// `flowlens-run template NAME -o FILE`: the editor's graph templates written
// to a file, so `run`, `train` and `replicate` can start from them without the
// GUI (File → New from Template builds the same graphs).
#include <iostream>

#include "commands.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "transform/graph_templates.h"

namespace flowlens::cli {
namespace {

struct TemplateOptions {
  std::string name;
  std::string output;
  int batch = 0;  // 0: the template's default
  int classes = 0;
  int seed = -1;
  float learning_rate = 0;
  bool no_training = false;
  // MLP
  int features = 0;
  std::vector<int> hidden;
  std::string activation;
  // CNN
  int image_size = 0;
  int channels = 0;
  std::vector<int> filters;
  std::vector<int> resnet_stages;
  bool no_batch_norm = false;
  std::string data_format;
  float noise = -1;
};

MlpTemplateOptions mlp_options(const TemplateOptions& o) {
  MlpTemplateOptions m;
  if (o.batch) m.batch = o.batch;
  if (o.classes) m.classes = o.classes;
  if (o.seed >= 0) m.seed = o.seed;
  if (o.learning_rate) m.learning_rate = o.learning_rate;
  if (o.features) m.features = o.features;
  if (!o.hidden.empty()) m.hidden = o.hidden;
  if (!o.activation.empty()) m.activation = o.activation;
  m.training = !o.no_training;
  return m;
}

CnnTemplateOptions cnn_options(const TemplateOptions& o) {
  CnnTemplateOptions c;
  if (o.batch) c.batch = o.batch;
  if (o.classes) c.classes = o.classes;
  if (o.seed >= 0) c.seed = o.seed;
  if (o.learning_rate) c.learning_rate = o.learning_rate;
  if (o.image_size) c.image_size = o.image_size;
  if (o.channels) c.channels = o.channels;
  if (!o.filters.empty()) c.filters = o.filters;
  c.resnet_stages = o.resnet_stages;
  c.batch_norm = !o.no_batch_norm;
  if (!o.data_format.empty()) c.data_format = o.data_format;
  if (o.noise >= 0) c.noise = o.noise;
  c.training = !o.no_training;
  return c;
}

int template_command(const TemplateOptions& o) {
  Graph graph;
  if (o.name == "matmul") {
    graph = matmul_example_graph();
  } else if (o.name == "mlp") {
    graph = mlp_classifier_graph(mlp_options(o));
  } else if (o.name == "two-tower") {
    TwoTowerTemplateOptions t;
    t.model = mlp_options(o);
    graph = two_tower_training_graph(t, OpRegistry::global());
  } else if (o.name == "cnn") {
    graph = cnn_classifier_graph(cnn_options(o));
  } else {
    throw Error("template: no template called '" + o.name + "' (expected matmul, mlp, two-tower or cnn)");
  }
  save_graph(graph, o.output);
  std::cout << "wrote " << o.output << " (" << o.name << " template, " << graph.size() << " nodes)\n";
  return 0;
}

}  // namespace

void add_template_command(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<TemplateOptions>();
  auto* cmd = app.add_subcommand("template", "Write one of the editor's graph templates to a file");
  cmd->add_option("name", o->name, "matmul, mlp, two-tower or cnn")
      ->required()
      ->check(CLI::IsMember({"matmul", "mlp", "two-tower", "cnn"}));
  cmd->add_option("-o,--output", o->output, "Output file; its extension picks the format (.pbtxt, .pb)")->required();
  cmd->add_option("--batch", o->batch, "Examples per step (mlp/two-tower: 64, cnn: 16)")->check(CLI::PositiveNumber);
  cmd->add_option("--classes", o->classes, "Number of classes (mlp: 4, cnn: 10)")->check(CLI::PositiveNumber);
  cmd->add_option("--seed", o->seed, "Seed of the data and the initial weights (default 7)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--learning-rate", o->learning_rate, "SGD learning rate (mlp: 0.1, cnn: 0.05)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--no-training", o->no_training, "mlp, cnn: the forward model only (no gradients, no `train` op)");
  cmd->add_option("--features", o->features, "mlp: input features (default 8)")->check(CLI::PositiveNumber);
  cmd->add_option("--hidden", o->hidden, "mlp: hidden layer sizes, e.g. 64,32 (default 16)")->delimiter(',');
  cmd->add_option("--activation", o->activation, "mlp: Relu, Tanh or Sigmoid");
  cmd->add_option("--image-size", o->image_size, "cnn: image height and width (default 32)")->check(CLI::PositiveNumber);
  cmd->add_option("--channels", o->channels, "cnn: image channels (default 3)")->check(CLI::PositiveNumber);
  cmd->add_option("--filters", o->filters, "cnn: one conv-BN-ReLU-pool block per entry, e.g. 16,32 (default)")
      ->delimiter(',');
  cmd->add_option("--resnet-stages", o->resnet_stages,
                  "cnn: ResNet bottleneck blocks per stage instead of plain blocks (ResNet-50: 3,4,6,3)")
      ->delimiter(',');
  cmd->add_flag("--no-batch-norm", o->no_batch_norm, "cnn: a bias after each convolution instead of batch norm");
  cmd->add_option("--data-format", o->data_format, "cnn: NHWC (default) or NCHW")->check(CLI::IsMember({"NHWC", "NCHW"}));
  cmd->add_option("--noise", o->noise, "cnn: pixel noise of the synthetic images (default 0.5)")
      ->check(CLI::NonNegativeNumber);
  cmd->footer("Example: flowlens-run template cnn -o cnn.pbtxt --batch 32 && flowlens-run train cnn.pbtxt --steps 50");
  cmd->callback([o, &exit_code] { exit_code = template_command(*o); });
}

}  // namespace flowlens::cli
