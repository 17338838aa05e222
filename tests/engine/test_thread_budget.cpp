// One thread budget (exec/thread_budget.h): resolution and defaults, the
// intra-op parallel_for on a device pool (common/parallel_for.h), the share
// math kernels take, the GEMM split (ops/framework/blas_gemm.h) and oneDNN's team size.
#include "test_main.h"
#include <QtTest>

#include <dlfcn.h>

#include <atomic>
#include <cmath>
#include <condition_variable>
#include <future>
#include <mutex>
#include <random>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/parallel_for.h"
#include "exec/session.h"
#include "exec/thread_budget.h"
#include "exec/thread_pool.h"
#include "ops/framework/blas_gemm.h"
#include "ops/framework/onednn.h"
#include "ops/framework/op_registry.h"

using namespace flowlens;

namespace {

// Runs fn on one of the pool's workers and returns its result.
template <class F>
auto on_worker(ThreadPool& pool, F fn) {
  std::packaged_task<decltype(fn())()> task(std::move(fn));
  auto result = task.get_future();
  auto shared = std::make_shared<decltype(task)>(std::move(task));
  pool.schedule([shared] { (*shared)(); });
  return result.get();
}

Graph matmul_graph(const char* op, bool ta, bool tb) {
  Graph g;
  for (const char* name : {"a", "b"}) {
    Node p;
    p.name = name;
    p.op = "Placeholder";
    p.attrs["dtype"] = DType::Float;
    g.add_node(p);
  }
  Node m;
  m.name = "c";
  m.op = op;
  m.inputs = {"a", "b"};
  m.attrs["T"] = DType::Float;
  if (std::string(op) == "MatMul") {
    m.attrs["transpose_a"] = ta;
    m.attrs["transpose_b"] = tb;
  } else {
    m.attrs["adj_x"] = ta;
    m.attrs["adj_y"] = tb;
  }
  g.add_node(m);
  return g;
}

Tensor random_tensor(Shape shape, unsigned seed) {
  Tensor t(DType::Float, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (float& x : t.values<float>()) x = dist(rng);
  return t;
}

SessionOptions budget(int inter, int intra) {
  SessionOptions o;
  o.inter_op_threads = inter;
  o.intra_op_threads = intra;
  o.use_gpus = false;
  return o;
}

// A dnnl reorder through onednn::execute; returns the OpenMP team size the
// calling thread then has (omp_get_max_threads of the runtime oneDNN loaded).
int team_after_primitive() {
  const dnnl::memory::desc md({64}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
  dnnl::reorder::primitive_desc pd(ops::onednn::cpu_engine(), md, ops::onednn::cpu_engine(), md,
                                   ops::onednn::default_attr());
  dnnl::reorder reorder(pd);
  std::vector<float> src(64, 1.0f), dst(64, 0.0f);
  ops::onednn::execute(reorder, pd.scratchpad_desc(),
                       {{DNNL_ARG_FROM, ops::onednn::wrap(md, src.data())}, {DNNL_ARG_TO, ops::onednn::wrap(md, dst.data())}});
  if (dst[63] != 1.0f) throw std::runtime_error("reorder did not run");
  using GetThreads = int (*)();
  auto get = reinterpret_cast<GetThreads>(dlsym(RTLD_DEFAULT, "omp_get_max_threads"));
  return get ? get() : -1;
}

}  // namespace

class TestThreadBudget : public QObject {
  Q_OBJECT

 private slots:
  void defaults_fit_the_machine() {
    const int cores = available_cores();
    QVERIFY(cores >= 1);
    QVERIFY(cores <= static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
    const ThreadBudget d = resolve_thread_budget(0, 0);
    QCOMPARE(d.inter_op, std::max(2, cores));
    QCOMPARE(d.intra_op, cores);
    const ThreadBudget e = resolve_thread_budget(3, 5);
    QCOMPARE(e.inter_op, 3);
    QCOMPARE(e.intra_op, 5);
  }

  void session_pool_carries_the_budget() {
    Session s(matmul_graph("MatMul", false, false), budget(3, 5));
    const ThreadPool& pool = s.devices().at(0).pool();
    QCOMPARE(pool.num_threads(), 3);
    QCOMPARE(pool.intra_op_threads(), 5);
    Session d(matmul_graph("MatMul", false, false), budget(0, 0));
    QCOMPARE(d.devices().at(0).pool().num_threads(), resolve_thread_budget(0, 0).inter_op);
    QCOMPARE(d.devices().at(0).pool().intra_op_threads(), available_cores());
  }

  void parallel_for_runs_every_block_once() {
    ThreadPool pool("t", 4);
    for (int threads : {1, 2, 4, 8}) {
      std::vector<std::atomic<int>> hits(37);
      std::mutex mu;
      std::set<std::thread::id> ran_on;
      on_worker(pool, [&] {
        parallel_for(&pool, 37, threads, [&](int b) {
          hits[static_cast<size_t>(b)].fetch_add(1);
          std::lock_guard lock(mu);
          ran_on.insert(std::this_thread::get_id());
        });
        return 0;
      });
      for (auto& h : hits) QCOMPARE(h.load(), 1);
      QVERIFY(static_cast<int>(ran_on.size()) <= std::min(threads, 4));
    }
    int calls = 0;
    parallel_for(nullptr, 5, 4, [&](int) { ++calls; });  // no pool: the caller alone
    QCOMPARE(calls, 5);
  }

  void parallel_for_completes_on_a_saturated_pool() {
    // Both workers wait (outside any BlockingRegion, so no spare is lent):
    // the helpers never start, and the caller must run every block itself.
    ThreadPool pool("busy", 2);
    std::mutex mu;
    std::condition_variable cv;
    bool release = false;
    std::atomic<int> parked{0};
    for (int i = 0; i < 2; ++i)
      pool.schedule([&] {
        ++parked;
        std::unique_lock lock(mu);
        cv.wait(lock, [&] { return release; });
      });
    while (parked.load() < 2) std::this_thread::yield();
    std::vector<int> hits(16, 0);
    bool all_on_caller = true;
    auto done = std::async(std::launch::async, [&] {
      const auto caller = std::this_thread::get_id();
      parallel_for(&pool, 16, 2, [&](int b) {
        ++hits[static_cast<size_t>(b)];
        if (std::this_thread::get_id() != caller) all_on_caller = false;
      });
    });
    const bool finished = done.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
    {
      std::lock_guard lock(mu);
      release = true;
    }
    cv.notify_all();
    QVERIFY2(finished, "parallel_for waited on a pool whose threads were all busy");
    for (int h : hits) QCOMPARE(h, 1);
    QVERIFY(all_on_caller);
  }

  void parallel_for_rethrows_after_the_other_blocks() {
    ThreadPool pool("t", 2);
    std::vector<std::atomic<int>> hits(9);
    bool threw = on_worker(pool, [&] {
      try {
        parallel_for(&pool, 9, 2, [&](int b) {
          hits[static_cast<size_t>(b)].fetch_add(1);
          if (b == 3) throw std::runtime_error("block 3");
        });
      } catch (const std::runtime_error& e) {
        return std::string(e.what()) == "block 3";
      }
      return false;
    });
    QVERIFY(threw);
    for (auto& h : hits) QCOMPARE(h.load(), 1);
  }

  void math_kernels_share_the_budget() {
    ThreadPool pool("t", 2, 4);
    const auto shares = on_worker(pool, [] {
      MathKernelScope first;
      const int alone = first.share();
      MathKernelScope second;
      return std::pair{alone, second.share()};
    });
    QCOMPARE(shares.first, 4);
    QCOMPARE(shares.second, 2);  // 4 threads between 2 kernels
    QCOMPARE(math_kernels_running(), 0);
    MathKernelScope outside;  // not a pool worker: the caller alone
    QCOMPARE(outside.share(), 1);
  }

  void gemm_split_depends_on_the_shape_only() {
    QCOMPARE(ops::gemm_split(64, 64, 64).count, 1);      // small: one call
    QCOMPARE(ops::gemm_split(200, 200, 300).count, 1);   // too few rows or columns for two blocks of 128
    const ops::GemmSplit rows = ops::gemm_split(1031, 700, 300);
    QVERIFY(rows.by_rows);
    QVERIFY(rows.count >= 2);
    QVERIFY(rows.block * rows.count >= 1031 && rows.block * (rows.count - 1) < 1031);
    const ops::GemmSplit cols = ops::gemm_split(37, 1031, 300);
    QVERIFY(!cols.by_rows);
    QVERIFY(cols.count >= 2);
  }

  void split_matmul_matches_a_reference_whatever_the_budget() {
    struct Case {
      const char* op;
      std::vector<int64_t> a, b;
      bool ta, tb;
    };
    const std::vector<Case> cases = {
        {"MatMul", {1031, 300}, {300, 700}, false, false},  // row blocks, odd sizes
        {"MatMul", {300, 1031}, {300, 700}, true, false},   // row blocks of a transposed a
        {"MatMul", {1031, 300}, {700, 300}, false, true},
        {"MatMul", {37, 300}, {300, 1031}, false, false},   // column blocks
        {"MatMul", {37, 300}, {1031, 300}, false, true},    // column blocks of a transposed b
        {"BatchMatMulV2", {2, 300, 777}, {2, 300, 523}, true, false},
    };
    for (const Case& c : cases) {
      const Tensor a = random_tensor(Shape(c.a), 1), b = random_tensor(Shape(c.b), 2);
      const int64_t ra = c.a[c.a.size() - 2], ca = c.a.back(), rb = c.b[c.b.size() - 2], cb = c.b.back();
      const int64_t m = c.ta ? ca : ra, k = c.ta ? ra : ca, n = c.tb ? rb : cb;
      QVERIFY(ops::gemm_split(m, n, k).count >= 2);  // the case does split
      std::vector<Tensor> results;
      for (auto [inter, intra] : {std::pair{1, 1}, std::pair{2, 2}, std::pair{4, 3}}) {
        Session s(matmul_graph(c.op, c.ta, c.tb), budget(inter, intra));
        results.push_back(s.run({{"a", a}, {"b", b}}, {"c"})[0]);
      }
      // The same bits whichever budget ran it.
      QVERIFY(results[0].equals(results[1]));
      QVERIFY(results[0].equals(results[2]));
      // Every element right (blocks at the right offsets), against doubles.
      const int64_t batches = c.a.size() == 3 ? c.a[0] : 1;
      const float* pa = a.data<float>();
      const float* pb = b.data<float>();
      const float* pc = results[0].data<float>();
      double worst = 0;
      for (int64_t z = 0; z < batches; ++z)
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double sum = 0;
            for (int64_t p = 0; p < k; ++p) {
              const double x = c.ta ? pa[z * ra * ca + p * ca + i] : pa[z * ra * ca + i * ca + p];
              const double y = c.tb ? pb[z * rb * cb + j * cb + p] : pb[z * rb * cb + p * cb + j];
              sum += x * y;
            }
            worst = std::max(worst, std::fabs(sum - pc[z * m * n + i * n + j]));
          }
      QVERIFY2(worst < 1e-3, (std::string(c.op) + " max error " + std::to_string(worst)).c_str());
    }
  }

  void onednn_team_is_the_kernels_share() {
    if (!dlsym(RTLD_DEFAULT, "omp_get_max_threads")) QSKIP("oneDNN runs on no OpenMP runtime here");
    ThreadPool one("t", 2, 1), three("t", 2, 3);
    QCOMPARE(on_worker(one, [] { return team_after_primitive(); }), 1);
    QCOMPARE(on_worker(three, [] { return team_after_primitive(); }), 3);
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestThreadBudget)
#include "test_thread_budget.moc"
