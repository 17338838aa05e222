// Every GPU kernel against the CPU reference, forward and gradient, plus the
// GPU runtime's own promises: device-resident variables, no cudaMalloc per
// training step, copies between logical GPUs, soft placement. Skips (with
// the reason) on machines without a GPU; built only with CUDA.
#include "test_main.h"
#include <QtTest/QtTest>

#include <map>

#include "cuda/logical_gpu.h"
#include "gpu_parity_util.h"
#include "io/graph_io.h"
#include "ops/framework/op_registry.h"
#include "transform/gradients.h"
#include "transform/optimizers.h"
#include "transform/replicate_in_graph.h"

using namespace flowlens;
using namespace flowlens::testing;

namespace {

AttrMap T_float() { return {{"T", AttrValue(DType::Float)}}; }
AttrMap T_with(std::initializer_list<std::pair<const std::string, AttrValue>> extra) {
  AttrMap m = T_float();
  for (const auto& [k, v] : extra) m[k] = v;
  return m;
}
Tensor ints(std::vector<int32_t> v) { return Tensor::from_vector<int32_t>(Shape{static_cast<int64_t>(v.size())}, v); }

// A least-squares model of one [7, 3] variable `w` trained by `kind` (sgd,
// momentum, adam), everything on `device`: a ref variable (VariableV2) or a
// resource one (VarHandleOp, read as "w/read"), whose updates add_optimizer
// makes ApplyX or ResourceApplyX.
Graph training_graph(const std::string& device, const std::string& kind, bool resource) {
  Graph g;
  GraphBuilder b(g, "", device);
  const uint32_t seed = resource ? 90 : 80;
  const Tensor init = random_floats(Shape{7, 3}, seed);
  std::string w = "w";
  if (resource) {
    b.add("VarHandleOp", "w", {},
          {{"dtype", AttrValue(DType::Float)}, {"shape", AttrValue(Shape{7, 3})},
           {"shared_name", AttrValue(std::string("w"))}});
    b.add("AssignVariableOp", "w/Assign", {"w", b.constant("w_init", init)}, {{"dtype", AttrValue(DType::Float)}});
    w = b.add("ReadVariableOp", "w/read", {"w"}, {{"dtype", AttrValue(DType::Float)}});
  } else {
    b.add("VariableV2", "w", {}, {{"dtype", AttrValue(DType::Float)}, {"shape", AttrValue(Shape{7, 3})}});
    b.add("Assign", "w/Assign", {"w", b.constant("w_init", init)}, T_float());
  }
  const std::string y = b.add("MatMul", "y", {b.constant("x", random_floats(Shape{5, 7}, seed + 1)), w}, T_float());
  const std::string sq = b.unary("Square", y, DType::Float);
  b.add("Sum", "loss", {sq, b.int32_vector("axes", {0, 1})}, T_with({{"Tidx", AttrValue(DType::Int32)}}));
  const std::vector<std::string> grads =
      add_gradients(g, {"loss"}, {w}, OpRegistry::global(), GradientOptions{"gradients", {}, device, false});
  OptimizerOptions opt;
  opt.learning_rate = 0.01f;
  if (kind == "momentum") opt.kind = OptimizerOptions::Kind::Momentum;
  if (kind == "adam") opt.kind = OptimizerOptions::Kind::Adam;
  add_optimizer(g, {{"w", grads[0]}}, opt, "train");
  for (Node& n : g.mutable_nodes())
    if (n.device.empty()) n.device = device;
  return g;
}

// An embedding table `emb` [10, 4] (a resource variable) looked up by ids
// with repeats, loss = sum of the rows squared. With `train`, SGD through
// the lookup's gradient (UnsortedSegmentSum of the rows' gradients); the
// lookup is GatherV2 of the read value, or ResourceGather of the handle.
Graph embedding_graph(const std::string& device, bool resource_gather) {
  Graph g;
  GraphBuilder b(g, "", device);
  const AttrValue f(DType::Float);
  b.add("VarHandleOp", "emb", {},
        {{"dtype", f}, {"shape", AttrValue(Shape{10, 4})}, {"shared_name", AttrValue(std::string("emb"))}});
  b.add("AssignVariableOp", "emb/Assign", {"emb", b.constant("emb_init", random_floats(Shape{10, 4}, 70))},
        {{"dtype", f}});
  const std::string read = b.add("ReadVariableOp", "emb/read", {"emb"}, {{"dtype", f}});
  const std::string ids = b.constant("ids", Tensor::from_vector<int32_t>(Shape{2, 3}, {1, 4, 1, 9, 0, 4}));
  const std::string rows =
      resource_gather
          ? b.add("ResourceGather", "lookup", {"emb", ids}, {{"dtype", f}, {"Tindices", AttrValue(DType::Int32)}})
          : b.add("GatherV2", "lookup", {read, ids, b.int32_vector("axis", {0})},
                  {{"Tparams", f}, {"Tindices", AttrValue(DType::Int32)}, {"Taxis", AttrValue(DType::Int32)}});
  b.add("Sum", "loss", {b.unary("Square", rows, DType::Float), b.int32_vector("axes", {0, 1, 2})},
        T_with({{"Tidx", AttrValue(DType::Int32)}}));
  if (!resource_gather) {
    const std::vector<std::string> grads =
        add_gradients(g, {"loss"}, {read}, OpRegistry::global(), GradientOptions{"gradients", {}, device, false});
    OptimizerOptions opt;
    opt.learning_rate = 0.05f;
    add_optimizer(g, {{"emb", grads[0]}}, opt, "train");
  }
  for (Node& n : g.mutable_nodes())
    if (n.device.empty()) n.device = device;
  return g;
}

}  // namespace

class TestGpuParity : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    std::string status;
    if (gpu_count(&status) == 0) QSKIP(("no GPU on this machine: " + status).c_str());
  }

  void unary_ops() {
    for (const char* op : {"Relu", "Sigmoid", "Tanh", "Square", "Neg", "Exp"})
      CHECK_OP_PARITY(op, {random_floats(Shape{37, 65}, 1, -4.f, 4.f)}, T_float());
    for (const char* op : {"Log", "Sqrt"}) CHECK_OP_PARITY(op, {random_floats(Shape{37, 65}, 2, 0.01f, 9.f)}, T_float());
  }

  void binary_ops_with_broadcasting() {
    const std::vector<std::pair<Shape, Shape>> shapes = {
        {Shape{33, 17}, Shape{33, 17}}, {Shape{4, 1, 6}, Shape{5, 1}}, {Shape{33, 17}, Shape{}},
        {Shape{}, Shape{33, 17}},       {Shape{33, 17}, Shape{17}},    {Shape{3, 1}, Shape{1, 5}}};
    for (const char* op : {"Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum"})
      for (const auto& [sa, sb] : shapes)
        CHECK_OP_PARITY(op, {random_floats(sa, 3), random_floats(sb, 4, 0.5f, 2.f)}, T_float());
  }

  void activation_gradients() {
    const Tensor y = random_floats(Shape{21, 40}, 5, 0.05f, 0.95f), dy = random_floats(Shape{21, 40}, 6);
    for (const char* op : {"ReluGrad", "SigmoidGrad", "TanhGrad", "SqrtGrad"}) CHECK_OP_PARITY(op, {y, dy}, T_float());
    CHECK_OP_PARITY("ReluGrad", {dy, random_floats(Shape{21, 40}, 7)}, T_float());
  }

  void add_n_and_bias() {
    std::vector<Tensor> xs;
    for (uint32_t i = 0; i < 4; ++i) xs.push_back(random_floats(Shape{9, 31}, 10 + i));
    for (size_t n : {1, 2, 4})
      CHECK_OP_PARITY("AddN", std::vector<Tensor>(xs.begin(), xs.begin() + static_cast<long>(n)),
                      T_with({{"N", AttrValue(static_cast<int64_t>(n))}}));
    CHECK_OP_PARITY("BiasAdd", {random_floats(Shape{8, 5, 7}, 20), random_floats(Shape{7}, 21)}, T_float());
    CHECK_OP_PARITY("BiasAddGrad", {random_floats(Shape{64, 33}, 22)}, T_float(), 1, 1e-5);
    CHECK_OP_PARITY("BiasAddGrad", {random_floats(Shape{4, 3, 5}, 23)}, T_float());
  }

  void reductions_over_any_axes() {
    const Tensor x = random_floats(Shape{6, 5, 4}, 30);
    const std::vector<std::vector<int32_t>> axes_list = {{0}, {1}, {2}, {0, 2}, {-1}, {0, 1, 2}, {}};
    for (const char* op : {"Sum", "Mean", "Max"}) {
      for (const auto& axes : axes_list)
        for (bool keep : {false, true})
          CHECK_OP_PARITY(op, {x, ints(axes)}, T_with({{"keep_dims", AttrValue(keep)}}), 1, 1e-4);
      // Long contiguous rows take the block-per-output path, columns the
      // thread-per-output path; size-1 dims are dropped.
      CHECK_OP_PARITY(op, {random_floats(Shape{1000}, 31), ints({0})}, T_float(), 1, 1e-4);
      CHECK_OP_PARITY(op, {random_floats(Shape{300, 200}, 32), ints({1})}, T_float(), 1, 1e-4);
      CHECK_OP_PARITY(op, {random_floats(Shape{300, 200}, 33), ints({0})}, T_float(), 1, 1e-4);
      CHECK_OP_PARITY(op, {random_floats(Shape{1, 50, 1}, 34), ints({1})}, T_float(), 1, 1e-4);
    }
  }

  void matmul_all_transposes() {
    for (bool ta : {false, true})
      for (bool tb : {false, true}) {
        const Tensor a = random_floats(ta ? Shape{29, 37} : Shape{37, 29}, 40);
        const Tensor b = random_floats(tb ? Shape{41, 29} : Shape{29, 41}, 41);
        CHECK_OP_PARITY("MatMul", {a, b}, T_with({{"transpose_a", AttrValue(ta)}, {"transpose_b", AttrValue(tb)}}), 1,
                        1e-5);
      }
    CHECK_OP_PARITY("MatMul", {random_floats(Shape{256, 512}, 42), random_floats(Shape{512, 128}, 43)}, T_float(), 1,
                    1e-4);
    CHECK_OP_PARITY("MatMul", {Tensor(DType::Float, Shape{3, 0}), Tensor(DType::Float, Shape{0, 4})}, T_float());
  }

  void softmax_and_cross_entropy() {
    CHECK_OP_PARITY("Softmax", {random_floats(Shape{16, 10}, 50, -5.f, 5.f)}, T_float());
    CHECK_OP_PARITY("Softmax", {random_floats(Shape{3, 4, 1000}, 51, -5.f, 5.f)}, T_float());
    Tensor labels = run_graph(single_op_graph("/cpu:0", "Softmax", {random_floats(Shape{32, 10}, 52)}, T_float()),
                              {"op"}, {false})[0];
    CHECK_OP_PARITY("SoftmaxCrossEntropyWithLogits", {random_floats(Shape{32, 10}, 53, -3.f, 3.f), labels}, T_float(), 2);
    std::vector<int32_t> ids(32);
    for (int i = 0; i < 32; ++i) ids[static_cast<size_t>(i)] = (i * 7) % 10;
    CHECK_OP_PARITY("SparseSoftmaxCrossEntropyWithLogits", {random_floats(Shape{32, 10}, 54, -3.f, 3.f), ints(ids)},
                    T_with({{"Tlabels", AttrValue(DType::Int32)}}), 2);
    const std::string bad = op_parity_problem("SparseSoftmaxCrossEntropyWithLogits",
                                              {random_floats(Shape{2, 3}, 55), ints({0, 3})},
                                              T_with({{"Tlabels", AttrValue(DType::Int32)}}), 2);
    QVERIFY2(bad.find("outside the valid range") != std::string::npos, bad.c_str());
  }

  void fills() {
    CHECK_OP_PARITY("Fill", {ints({3, 4}), Tensor::scalar<float>(2.5f)}, T_with({{"index_type", AttrValue(DType::Int32)}}));
    CHECK_OP_PARITY("ZerosLike", {random_floats(Shape{5, 6}, 60)}, T_float());
    CHECK_OP_PARITY("OnesLike", {random_floats(Shape{5, 6}, 61)}, T_float());
  }

  void copies_concat_split_pack_slice() {
    const Tensor a = random_floats(Shape{4, 3}, 70), b = random_floats(Shape{4, 5}, 71), c = random_floats(Shape{4, 2}, 72);
    const AttrMap concat = T_with({{"N", AttrValue(int64_t{3})}, {"Tidx", AttrValue(DType::Int32)}});
    CHECK_OP_PARITY("ConcatV2", {a, b, c, Tensor::scalar<int32_t>(1)}, concat);
    CHECK_OP_PARITY("ConcatV2", {a, a, a, Tensor::scalar<int32_t>(0)}, concat);
    CHECK_OP_PARITY("Concat", {Tensor::scalar<int32_t>(-1), a, b, c}, T_with({{"N", AttrValue(int64_t{3})}}));
    const Tensor x = random_floats(Shape{6, 9, 2}, 73);
    CHECK_OP_PARITY("Split", {Tensor::scalar<int32_t>(1), x}, T_with({{"num_split", AttrValue(int64_t{3})}}), 3);
    CHECK_OP_PARITY("SplitV", {x, ints({2, 4}), Tensor::scalar<int32_t>(0)},
                    T_with({{"num_split", AttrValue(int64_t{2})}, {"Tlen", AttrValue(DType::Int32)}}), 2);
    CHECK_OP_PARITY("Pack", {a, a, a}, T_with({{"N", AttrValue(int64_t{3})}, {"axis", AttrValue(int64_t{1})}}));
    CHECK_OP_PARITY("Unpack", {x}, T_with({{"num", AttrValue(int64_t{9})}, {"axis", AttrValue(int64_t{1})}}), 9);
    CHECK_OP_PARITY("Slice", {x, ints({1, 2, 0}), ints({4, -1, 1})}, T_with({{"Index", AttrValue(DType::Int32)}}));
    CHECK_OP_PARITY("Reshape", {x, ints({18, -1})}, T_with({{"Tshape", AttrValue(DType::Int32)}}));
    CHECK_OP_PARITY("Identity", {x}, T_float());
  }

  void integer_shape_math_runs_on_the_gpu_in_host_memory() {
    const AttrMap t{{"T", AttrValue(DType::Int32)}};
    CHECK_OP_PARITY("Add", {ints({1, 2, 3}), ints({10, 20, 30})}, t);
    CHECK_OP_PARITY("Sum", {ints({1, 2, 3}), ints({0})}, {{"T", AttrValue(DType::Int32)}, {"Tidx", AttrValue(DType::Int32)}});
  }

  void optimizers_update_device_variables() {
    for (const char* kind : {"sgd", "momentum", "adam"}) {
      const Tensor cpu = run_graph(training_graph("/cpu:0", kind, false), {"w"}, {false}, {"train"}, 4)[0];
      const Tensor gpu = run_graph(training_graph("/gpu:0", kind, false), {"w"}, {true}, {"train"}, 4)[0];
      const double diff = parity_difference(gpu, cpu);
      QVERIFY2(diff < 1e-4, (std::string(kind) + ": max relative difference " + std::to_string(diff)).c_str());
    }
  }

  // Resource variables (TF2/Keras graphs) read and updated on the GPU:
  // ReadVariableOp, AssignVariableOp and ResourceApply* all run there, the
  // variable lives in device memory, and training matches the CPU.
  void resource_variables_train_on_the_gpu() {
    for (const char* kind : {"sgd", "momentum", "adam"}) {
      auto train = [&](const std::string& device, bool gpu, std::string* apply_device) {
        SessionOptions options;
        options.use_gpus = gpu;
        options.allow_soft_placement = !gpu;
        Session s(training_graph(device, kind, true), options);
        s.run({}, {}, variable_initializers(s.graph()));
        for (int i = 0; i < 4; ++i) s.run({}, {}, {"train"});
        for (const Node& n : s.graph().nodes())
          if (n.op.starts_with("ResourceApply")) *apply_device = s.device_of(n.name);
        return s.run({}, {"w/read"})[0];
      };
      std::string cpu_apply, gpu_apply;
      const Tensor cpu = train("/cpu:0", false, &cpu_apply);
      const Tensor gpu = train("/gpu:0", true, &gpu_apply);
      QCOMPARE(gpu_apply, std::string("/gpu:0"));
      const double diff = parity_difference(gpu, cpu);
      QVERIFY2(diff < 1e-4, (std::string(kind) + ": max relative difference " + std::to_string(diff)).c_str());
    }
  }

  // Embedding lookups on the GPU: GatherV2 forward and UnsortedSegmentSum
  // (its gradient, repeated ids summing their rows) train the table as the
  // CPU does; ResourceGather reads rows of the device-resident table.
  void embeddings_train_on_the_gpu() {
    auto run = [](bool gpu, bool resource_gather, std::map<std::string, std::string>* placed) {
      SessionOptions options;  // soft placement: the gradient's shape math may take the CPU
      options.use_gpus = gpu;
      Session s(embedding_graph(gpu ? "/gpu:0" : "/cpu:0", resource_gather), options);
      s.run({}, {}, variable_initializers(s.graph()));
      if (!resource_gather)
        for (int i = 0; i < 4; ++i) s.run({}, {}, {"train"});
      for (const Node& n : s.graph().nodes()) (*placed)[n.op] = s.device_of(n.name);
      return s.run({}, {resource_gather ? "lookup" : "emb/read"})[0];
    };
    for (bool resource_gather : {false, true}) {
      std::map<std::string, std::string> cpu_placed, gpu_placed;
      const Tensor cpu = run(false, resource_gather, &cpu_placed);
      const Tensor gpu = run(true, resource_gather, &gpu_placed);
      if (resource_gather) {
        QCOMPARE(gpu_placed["ResourceGather"], std::string("/gpu:0"));
      } else {
        QCOMPARE(gpu_placed["GatherV2"], std::string("/gpu:0"));
        QCOMPARE(gpu_placed["UnsortedSegmentSum"], std::string("/gpu:0"));
      }
      const double diff = parity_difference(gpu, cpu);
      QVERIFY2(diff < 1e-5, ("max relative difference " + std::to_string(diff)).c_str());
    }
  }

  void variables_stay_in_device_memory() {
    Graph g;
    GraphBuilder b(g, "", "/gpu:0");
    b.add("VariableV2", "v", {}, {{"dtype", AttrValue(DType::Float)}, {"shape", AttrValue(Shape{2})}});
    b.add("Assign", "v/Assign", {"v", b.constant("init", Tensor::from_vector<float>(Shape{2}, {1.f, 2.f}))}, T_float());
    SessionOptions options;
    options.allow_soft_placement = false;
    Session s(std::move(g), options);
    QCOMPARE(s.device_of("v"), std::string("/gpu:0"));
    s.run({}, {}, {"v/Assign"});
    const Tensor& value = s.find_variable("v")->value;
    QVERIFY(!value.on_host());
    bool refused = false;
    try {
      (void)value.data<float>();
    } catch (const Error& e) {
      refused = std::string(e.what()).find("/gpu:0") != std::string::npos;
    }
    QVERIFY2(refused, "host access to a device tensor must fail naming the device");
    QCOMPARE(value.to_host().values<float>()[1], 2.f);
    const Tensor fetched = s.run({}, {"v"})[0];
    QVERIFY(fetched.on_host());
  }

  void ops_without_a_gpu_kernel_move_to_the_cpu() {
    Graph g = load_graph(sample_path("mlp_model.pbtxt"));
    for (Node& n : g.mutable_nodes()) n.device = "/gpu:0";
    Session s(std::move(g));
    QCOMPARE(s.device_of("data"), std::string("/cpu:0"));  // SyntheticClassification: CPU only
    QCOMPARE(s.device_of("layer1/MatMul"), std::string("/gpu:0"));
    bool noted = false;
    for (const auto& note : s.placement().soft_placed) noted |= note.node == "data";
    QVERIFY(noted);
  }

  void mlp_training_matches_the_cpu_step_by_step() {
    auto losses = [](bool gpu) {
      Graph g = load_graph(sample_path("mlp_train.pbtxt"));
      SessionOptions options;
      options.use_gpus = gpu;
      Session s(std::move(g), options);
      s.run({}, {}, variable_initializers(s.graph()));
      std::vector<float> out;
      for (int step = 0; step < 30; ++step) out.push_back(s.run({}, {"loss"}, {"train"})[0].values<float>()[0]);
      return out;
    };
    const std::vector<float> cpu = losses(false), gpu = losses(true);
    for (size_t i = 0; i < cpu.size(); ++i)
      QVERIFY2(std::abs(cpu[i] - gpu[i]) <= 1e-3f * std::max(1.f, std::abs(cpu[i])),
               qPrintable(QString("step %1: cpu %2 gpu %3").arg(i).arg(cpu[i]).arg(gpu[i])));
    QVERIFY(gpu.back() < gpu.front());
  }

  void in_graph_towers_on_logical_gpus_match_the_cpu() {
    auto train = [](bool gpu) {
      Graph model = load_graph(sample_path("mlp_model.pbtxt"));
      ReplicateOptions r;
      r.replicas = 2;
      r.devices = gpu ? std::vector<std::string>{"/gpu:0", "/gpu:1"} : std::vector<std::string>{"/cpu:0", "/cpu:0"};
      r.split_inputs = {"features", "labels"};
      r.loss = "loss";
      r.optimizer.learning_rate = 0.1f;
      ReplicationResult result = replicate_in_graph(model, r, OpRegistry::global());
      SessionOptions options;
      options.use_gpus = gpu;
      options.virtual_gpus = 2;  // two logical GPUs even on a single card
      Session s(std::move(result.graph), options);
      s.run({}, {}, variable_initializers(s.graph()));
      for (int step = 0; step < 5; ++step) s.run({}, {}, {result.train_op});
      return s.run({}, {"layer1/weights", "logits/biases"});
    };
    const std::vector<Tensor> cpu = train(false), gpu = train(true);
    for (size_t i = 0; i < cpu.size(); ++i) {
      const double diff = parity_difference(gpu[i], cpu[i]);
      QVERIFY2(diff < 1e-4, qPrintable(QString("variable %1: max relative difference %2").arg(i).arg(diff)));
    }
  }

  void no_device_allocation_after_the_first_steps() {
    SessionOptions options;
    Session s(load_graph(sample_path("mlp_train.pbtxt")), options);
    s.run({}, {}, variable_initializers(s.graph()));
    for (int i = 0; i < 3; ++i) s.run({}, {"loss"}, {"train"});
    cuda::CachingDeviceAllocator& memory = cuda::logical_gpu(0, 0, 1).memory();
    const int64_t before = memory.stats().driver_allocations;
    for (int i = 0; i < 20; ++i) s.run({}, {"loss"}, {"train"});
    QCOMPARE(memory.stats().driver_allocations, before);
    QVERIFY(memory.stats().reuses > 0);
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestGpuParity)
#include "test_gpu_parity.moc"
