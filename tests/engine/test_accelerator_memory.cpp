// The executor's device-memory machinery without a GPU: a test accelerator
// ("XPU") whose memory is host-addressable but marked as device memory, so
// every path a GPU takes runs here: inputs copied in at consumption, int32
// kept on the host, outputs adopted into device memory, fetches copied back,
// copy kernels through copy_rows, kernel constraints steering placement, and
// synchronization at the end of a run and before observers.
#include "test_main.h"
#include <QtTest/QtTest>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "engine/backend_parity.h"
#include "exec/executor.h"
#include "exec/function_library.h"
#include "exec/placement.h"
#include "io/graph_io.h"
#include "observe/profiler.h"
#include "ops/framework/op_helpers.h"
#include "tensor/copy_rows.h"
#include "transform/graph_builder.h"

using namespace flowlens;

namespace {

class XpuMemory final : public AcceleratorMemory {
 public:
  std::string name() const override { return "/xpu:0"; }
  void* allocate(std::size_t bytes) override {
    ++allocations;
    return bytes ? std::malloc(bytes) : nullptr;
  }
  void deallocate(void* block, std::size_t) override { std::free(block); }
  void copy_to_host(const void* src, void* dst, std::size_t bytes) override {
    ++to_host_copies;
    std::memcpy(dst, src, bytes);
  }
  void copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
               std::size_t rows) override {
    ++copies_2d;
    for (std::size_t r = 0; r < rows; ++r)
      std::memcpy(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width);
  }
  void gather_mapped(void* dst, const void* src, std::size_t element_bytes, const std::vector<int64_t>& dims,
                     const std::vector<int64_t>& in_stride, int64_t base) override {
    ++gathers;
    for_each_mapped(dims, in_stride, base, [&](int64_t i, int64_t j) {
      std::memcpy(static_cast<char*>(dst) + i * static_cast<int64_t>(element_bytes),
                  static_cast<const char*>(src) + j * static_cast<int64_t>(element_bytes), element_bytes);
    });
  }
  std::atomic<int> allocations{0}, to_host_copies{0}, copies_2d{0}, gathers{0};
};

XpuMemory& xpu_memory() {
  static XpuMemory* m = new XpuMemory;  // outlives every tensor, like a real backend's
  return *m;
}

class XpuDevice final : public Device {
 public:
  XpuDevice() : Device("XPU", 0, 1) {}
  AcceleratorMemory* memory() override { return &xpu_memory(); }
  Tensor accept_input(const Tensor& t) override {
    if (!lives_in_device_memory(t.dtype())) return t.on_host() ? t : t.to_host();
    if (t.memory() == &xpu_memory()) return t;
    ++uploads;
    Tensor out(t.dtype(), t.shape(), &xpu_memory());
    std::memcpy(out.device_data(), t.to_host().device_data(), t.byte_size());
    return out;
  }
  void synchronize() override { ++syncs; }
  // Queue-time marks at a fake clock that ticks 1000 ns per mark, so a
  // test can tell times that came from marks from the host's.
  class Mark final : public DeviceMark {
   public:
    explicit Mark(int64_t ns) : ns_(ns) {}
    int64_t host_ns() const override { return ns_; }

   private:
    int64_t ns_;
  };
  void begin_marks() override { ++mark_runs; }
  std::shared_ptr<const DeviceMark> mark() override { return std::make_shared<Mark>(mark_clock += 1000); }
  std::atomic<int> uploads{0}, syncs{0}, mark_runs{0};
  std::atomic<int64_t> mark_clock{0};
};

// out = f(a, b) over float32 XPU tensors with NumPy broadcasting.
template <class F>
void xpu_binary(KernelContext& ctx, const char* what, F f) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (a.on_host() || b.on_host()) ops::fail(std::string(what) + ": inputs must be in XPU memory");
  const int rank = std::max(a.shape().rank(), b.shape().rank());
  std::vector<int64_t> dims(static_cast<size_t>(rank)), sa(dims.size()), sb(dims.size());
  for (int d = rank - 1, stride_a = 1, stride_b = 1; d >= 0; --d) {
    const int da = d - (rank - a.shape().rank()), db = d - (rank - b.shape().rank());
    const int64_t na = da >= 0 ? a.shape().dim(da) : 1, nb = db >= 0 ? b.shape().dim(db) : 1;
    if (na != nb && na != 1 && nb != 1) ops::fail(std::string(what) + ": shapes do not broadcast");
    dims[static_cast<size_t>(d)] = std::max(na, nb);
    sa[static_cast<size_t>(d)] = na == 1 ? 0 : stride_a;
    sb[static_cast<size_t>(d)] = nb == 1 ? 0 : stride_b;
    stride_a *= static_cast<int>(na);
    stride_b *= static_cast<int>(nb);
  }
  Tensor& out = ctx.allocate_output(0, a.dtype(), Shape(dims));
  if (out.on_host()) ops::fail(std::string(what) + ": output must be in XPU memory");
  for (int64_t i = 0; i < out.num_elements(); ++i) {
    int64_t rest = i, ia = 0, ib = 0;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t c = rest % dims[static_cast<size_t>(d)];
      rest /= dims[static_cast<size_t>(d)];
      ia += c * sa[static_cast<size_t>(d)];
      ib += c * sb[static_cast<size_t>(d)];
    }
    out.device_data<float>()[i] = f(a.device_data<float>()[ia], b.device_data<float>()[ib]);
  }
}

// Mul on XPU memory, for float32 only (the constraint below).
void xpu_mul(KernelContext& ctx) { xpu_binary(ctx, "xpu_mul", [](float x, float y) { return x * y; }); }

// Sub that adds: a kernel wrong on purpose, which the parity walk must catch.
void xpu_wrong_sub(KernelContext& ctx) { xpu_binary(ctx, "xpu_wrong_sub", [](float x, float y) { return x + y; }); }

bool float_only(const Node& n) { return n.attr_type("T", DType::Invalid) == DType::Float; }

// A registry with the standard ops, Mul on XPU for float32, and the copy
// kernels shared with the CPU as a real accelerator shares them.
OpRegistry xpu_registry() {
  OpRegistry r;
  register_standard_ops(r);
  register_gradient_functions(r);
  KernelDef mul;
  mul.device = "XPU";
  mul.fn = xpu_mul;
  mul.type_constraints = {{"T", {DType::Float}}};  // stated, so placement can say why an int32 Mul moves
  r.add_kernel("Mul", std::move(mul));
  for (const char* op : {"Const", "Identity", "ConcatV2", "Split", "Slice", "Reshape", "Shape", "VariableV2",
                         "Transpose", "ReverseV2", "StridedSlice", "DepthToSpace", "SpaceToDepth", "Tile",
                         "BroadcastTo"})
    r.add_kernel(op, "XPU", r.find(op)->kernel("CPU"));
  return r;
}

}  // namespace

class TestAcceleratorMemory : public QObject {
  Q_OBJECT

 private slots:
  void host_code_cannot_read_device_tensors() {
    Tensor t(DType::Float, Shape{3}, &xpu_memory());
    QVERIFY(!t.on_host());
    bool refused = false;
    try {
      (void)t.data<float>();
    } catch (const Error& e) {
      refused = std::string(e.what()).find("/xpu:0") != std::string::npos;
    }
    QVERIFY(refused);
    for (int i = 0; i < 3; ++i) t.device_data<float>()[i] = float(i);
    Tensor host = t.to_host();
    QVERIFY(host.on_host());
    QCOMPARE(host.values<float>()[2], 2.f);
    QVERIFY(t.clone().memory() == &xpu_memory());
    QVERIFY(t.equals(host));
    // int32 never lives in device memory, even when a device allocates it.
    QVERIFY(Tensor(DType::Int32, Shape{2}, &xpu_memory()).on_host());
  }

  void copy_rows_refuses_mixed_memories() {
    Tensor dev(DType::Float, Shape{4}, &xpu_memory());
    Tensor host(DType::Float, Shape{4});
    bool refused = false;
    try {
      copy_rows(dev, 0, 16, host, 0, 16, 16, 1);
    } catch (const Error&) {
      refused = true;
    }
    QVERIFY(refused);
  }

  void values_cross_devices_where_they_are_consumed() {
    OpRegistry registry = xpu_registry();
    Graph g;
    GraphBuilder cpu(g, "", "/cpu:0");
    GraphBuilder xpu(g, "", "/device:XPU:0");
    const std::string a = cpu.constant("a", Tensor::from_vector<float>(Shape{2, 3}, {1, 2, 3, 4, 5, 6}));
    const std::string b = xpu.constant("b", Tensor::from_vector<float>(Shape{2, 3}, {2, 2, 2, 2, 2, 2}));
    const std::string prod = xpu.binary("Mul", a, b, DType::Float);                  // a is uploaded
    const std::string cat = xpu.add("ConcatV2", "cat", {prod, prod, xpu.scalar("axis", DType::Int32, 1)},
                                    {{"T", AttrValue(DType::Float)}, {"N", AttrValue(int64_t{2})},
                                     {"Tidx", AttrValue(DType::Int32)}});            // copy_rows on XPU
    const std::string back = cpu.binary("Mul", cat, cat, DType::Float);              // to the host
    const std::string ints = xpu.binary("Mul", cpu.constant("i", Tensor::from_vector<int32_t>(Shape{2}, {3, 4})),
                                        cpu.constant("j", Tensor::from_vector<int32_t>(Shape{2}, {5, 6})), DType::Int32);

    auto set = std::make_unique<DeviceSet>();
    set->add(std::make_unique<Device>("CPU", 0, 2));
    auto xpu_device = std::make_unique<XpuDevice>();
    XpuDevice* x = xpu_device.get();
    set->add(std::move(xpu_device));
    Placement placement = place_graph(g, *set, registry, true);
    auto device_of = [&](const std::string& n) { return set->at(placement.device_of[static_cast<size_t>(g.index_of(n))]).short_name(); };
    QCOMPARE(device_of(prod), std::string("/xpu:0"));
    QCOMPARE(device_of(cat), std::string("/xpu:0"));
    QCOMPARE(device_of(ints), std::string("/cpu:0"));  // int32 Mul has no XPU kernel: soft placement
    bool noted = false;
    for (const auto& note : placement.soft_placed)
      noted |= note.node == ints && note.reason.find("for its dtype (T=int32 is not one of float32)") != std::string::npos;
    QVERIFY(noted);

    ExecutionPlan plan = build_plan(g, placement, *set, registry, [](const Node&) { return nullptr; },
                                    PlanRequest{{}, {cat, back, ints}, {}});
    QCOMPARE(plan.async_devices.size(), size_t{1});
    std::vector<Tensor> out = execute_plan(plan, {}, {}, 1);
    for (const Tensor& t : out) QVERIFY(t.on_host());  // fetches come back to the host
    QCOMPARE(out[0].shape(), (Shape{2, 6}));
    const std::vector<float> want = {2, 4, 6, 2, 4, 6, 8, 10, 12, 8, 10, 12};
    for (size_t i = 0; i < want.size(); ++i) QCOMPARE(out[0].values<float>()[i], want[i]);
    QCOMPARE(out[1].values<float>()[11], 144.f);
    QCOMPARE(out[2].values<int32_t>()[1], 24);
    QVERIFY(x->uploads >= 2);   // a (host Const) and b (Const adopted into XPU memory)
    QVERIFY(x->syncs >= 1);     // the run waited for the device
    QVERIFY(xpu_memory().copies_2d >= 2);
  }

  // What cannot change between steps crosses to the device once: a Const's
  // upload is kept by the plan, and a variable holding a host value (as a
  // restore leaves it) is given its device copy.
  void constants_and_restored_variables_are_uploaded_once() {
    OpRegistry registry = xpu_registry();
    Graph g;
    GraphBuilder xpu(g, "", "/device:XPU:0");
    const std::string c = xpu.constant("c", Tensor::from_vector<float>(Shape{2}, {3, 4}));
    xpu.add("VariableV2", "v", {}, {{"dtype", AttrValue(DType::Float)}, {"shape", AttrValue(Shape{2})}});
    const std::string prod = xpu.binary("Mul", c, "v", DType::Float);
    auto set = std::make_unique<DeviceSet>();
    set->add(std::make_unique<Device>("CPU", 0, 2));
    auto xpu_device = std::make_unique<XpuDevice>();
    XpuDevice* x = xpu_device.get();
    set->add(std::move(xpu_device));
    Variable restored;
    restored.name = "v";
    restored.value = Tensor::from_vector<float>(Shape{2}, {5, 6});  // on the host, as a restore leaves it
    Placement placement = place_graph(g, *set, registry, false);
    ExecutionPlan plan = build_plan(g, placement, *set, registry,
                                    [&](const Node& n) { return n.name == "v" ? &restored : nullptr; },
                                    PlanRequest{{}, {prod}, {}});
    const int before = x->uploads;
    for (int step = 0; step < 3; ++step) {
      std::vector<Tensor> out = execute_plan(plan, {}, {}, 1);
      QCOMPARE(out[0].values<float>()[1], 24.f);
    }
    QCOMPARE(x->uploads - before, 2);  // c and v, each once in three steps
    QCOMPARE(restored.value.memory(), static_cast<AcceleratorMemory*>(&xpu_memory()));
  }

  // A function body runs its Const on the device once per instance, as the
  // executor does (exec/device_outputs.h): three calls upload the argument
  // three times and the constant once.
  void function_bodies_upload_constants_once() {
    OpRegistry registry = xpu_registry();
    const Graph g = parse_graph_text(R"(
library {
  function {
    signature { name: "times_ten" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
    node_def {
      name: "c" op: "Const" device: "/device:XPU:0"
      attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 10 } } }
    }
    node_def {
      name: "m" op: "Mul" device: "/device:XPU:0" input: "x" input: "c:output:0"
      attr { key: "T" value { type: DT_FLOAT } }
    }
    ret { key: "y" value: "m:z:0" }
  }
}
)",
                                     "function_bodies_upload_constants_once");
    auto set = std::make_unique<DeviceSet>();
    set->add(std::make_unique<Device>("CPU", 0, 2));
    auto xpu_device = std::make_unique<XpuDevice>();
    XpuDevice* x = xpu_device.get();
    set->add(std::move(xpu_device));
    FunctionLibraryRuntime runtime(g, *set, registry, true, [](const std::string&, const Node&) -> Variable* {
      return nullptr;
    });
    RunContext run;
    FunctionCallFrame frame(runtime, {}, 1, run);
    Node caller;
    caller.name = "call";
    caller.op = "PartitionedCall";
    const int before = x->uploads;
    for (int i = 0; i < 3; ++i) {
      const Tensor arg = Tensor::from_vector<float>(Shape{2}, {1.f, 2.f + static_cast<float>(i)});
      const std::vector<Tensor> out = frame.call(caller, "times_ten", {}, std::span<const Tensor>(&arg, 1));
      QCOMPARE(out.size(), std::size_t{1});
      QCOMPARE(out[0].values<float>()[1], 10.f * (2.f + static_cast<float>(i)));
    }
    QCOMPARE(x->uploads - before, 4);
  }

  // Transpose, ReverseV2 and StridedSlice run their CPU kernels on device
  // memory: the memory does the strided gather.
  void strided_views_gather_in_device_memory() {
    OpRegistry registry = xpu_registry();
    Graph g;
    GraphBuilder xpu(g, "", "/device:XPU:0");
    const std::string a = xpu.constant("a", Tensor::from_vector<float>(Shape{2, 3}, {1, 2, 3, 4, 5, 6}));
    const std::string t = xpu.add("Transpose", "t", {a, xpu.constant("perm", Tensor::from_vector<int32_t>(Shape{2}, {1, 0}))},
                                  {{"T", AttrValue(DType::Float)}, {"Tperm", AttrValue(DType::Int32)}});
    const std::string r = xpu.add("ReverseV2", "r", {t, xpu.constant("axis", Tensor::from_vector<int32_t>(Shape{1}, {0}))},
                                  {{"T", AttrValue(DType::Float)}, {"Tidx", AttrValue(DType::Int32)}});
    auto set = std::make_unique<DeviceSet>();
    set->add(std::make_unique<Device>("CPU", 0, 2));
    set->add(std::make_unique<XpuDevice>());
    Placement placement = place_graph(g, *set, registry, false);
    ExecutionPlan plan = build_plan(g, placement, *set, registry, [](const Node&) { return nullptr; },
                                    PlanRequest{{}, {r}, {}});
    const int gathers = xpu_memory().gathers;
    const std::vector<Tensor> out = execute_plan(plan, {}, {}, 1);
    QCOMPARE(out[0].shape(), (Shape{3, 2}));
    const std::vector<float> want = {3, 6, 2, 5, 1, 4};
    for (size_t i = 0; i < want.size(); ++i) QCOMPARE(out[0].values<float>()[i], want[i]);
    QCOMPARE(xpu_memory().gathers - gathers, 2);
  }

  // A profiled run does not wait for the device after each node: its nodes
  // are timed by queue marks and reported when the run's work is done. An
  // observer that needs finished outputs still gets a wait per node.
  void profiling_times_device_nodes_by_queue_marks() {
    OpRegistry registry = xpu_registry();
    Graph g;
    GraphBuilder xpu(g, "", "/device:XPU:0");
    const std::string a = xpu.constant("a", Tensor::from_vector<float>(Shape{2}, {1, 2}));
    const std::string p = xpu.binary("Mul", a, a, DType::Float);
    const std::string q = xpu.binary("Mul", p, p, DType::Float);
    auto set = std::make_unique<DeviceSet>();
    set->add(std::make_unique<Device>("CPU", 0, 2));
    auto xpu_device = std::make_unique<XpuDevice>();
    XpuDevice* x = xpu_device.get();
    set->add(std::move(xpu_device));
    Placement placement = place_graph(g, *set, registry, false);
    ExecutionPlan plan = build_plan(g, placement, *set, registry, [](const Node&) { return nullptr; },
                                    PlanRequest{{}, {q}, {}});

    Profiler profiler;
    ExecutionObserver* profiling[] = {&profiler};
    const int syncs = x->syncs;
    const std::vector<Tensor> out = execute_plan(plan, {}, profiling, 1);
    QCOMPARE(out[0].values<float>()[1], 16.f);
    QCOMPARE(x->syncs - syncs, 1);  // the end of the run only
    QCOMPARE(x->mark_runs.load(), 1);
    const std::vector<ProfiledNode> events = profiler.events();
    QCOMPARE(events.size(), size_t{3});
    for (const ProfiledNode& e : events) {
      QCOMPARE(e.end_ns - e.start_ns, int64_t{1000});  // one tick: the times came from the marks
      QVERIFY(e.bytes > 0);                            // outputs still reach the profiler
    }

    struct NeedsValues : ExecutionObserver {
      std::atomic<int> ends{0};
      void on_node_end(int64_t, const NodeEvent&, std::span<const Tensor>) override { ++ends; }
    } debugger_like;
    ExecutionObserver* both[] = {&profiler, &debugger_like};
    const int syncs_before = x->syncs;
    execute_plan(plan, {}, both, 2);
    QCOMPARE(debugger_like.ends.load(), 3);
    QCOMPARE(x->syncs - syncs_before, 4);  // after each of 3 nodes, and at the end
    QCOMPARE(x->mark_runs.load(), 1);      // no marks this time
  }

  // The registry-wide parity walk (backend_parity.h) the GPU check runs,
  // here against the test accelerator: what it compares, what it catches,
  // what it lists as missing.
  void registry_parity_walk_compares_catches_and_lists() {
    OpRegistry registry = xpu_registry();
    registry.add_kernel("Sub", "XPU", xpu_wrong_sub, float_only);
    auto set = std::make_unique<DeviceSet>();
    set->add(std::make_unique<Device>("CPU", 0, 2));
    set->add(std::make_unique<XpuDevice>());
    const testing::BackendParityReport report =
        testing::check_backend_parity(testing::all_op_cases(), registry, *set, "XPU");
    qInfo("%s", report.summary().c_str());
    for (const auto& [op, why] : report.gradient_not_compared) qInfo("gradient of %s not compared: %s", op.c_str(), why.c_str());
    const std::string mismatches = [&] {
      std::string all;
      for (const std::string& m : report.mismatches) all += m + "\n";
      return all;
    }();
    QVERIFY(report.ops_compared.count("Mul"));
    QVERIFY(report.ops_compared.count("ConcatV2"));
    for (const char* op : {"Transpose", "ReverseV2", "StridedSlice", "Tile", "BroadcastTo"})
      QVERIFY2(report.ops_compared.count(op), op);
    QVERIFY(report.gradients_compared >= 1);  // Mul's gradient graph, on XPU where it can be
    QVERIFY2(mismatches.find("Mul(") == std::string::npos, mismatches.c_str());
    QVERIFY2(mismatches.find("Sub(float32") != std::string::npos, mismatches.c_str());
    for (const std::string& m : report.mismatches) QVERIFY2(m.starts_with("Sub("), m.c_str());  // only the wrong kernel
    // Ops with no XPU kernel are listed with a reason; int32 Mul is turned
    // away by its constraint, but Mul ran for float32, so it is not missing.
    QVERIFY(report.no_kernel.count("MatMul"));
    QVERIFY(!report.no_kernel.at("MatMul").empty());
    QVERIFY(!report.no_kernel.count("Mul"));
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestAcceleratorMemory)
#include "test_accelerator_memory.moc"
