// The caching host allocator (tensor/allocator.h): size classes and their
// waste bound, reuse from the free lists, the cache limit, trim(), the peak
// counter, the trim when the last Session goes, the profiler's figures, and
// the acceptance case: a training session takes no memory from the system
// once warmed up, with small tensors counted like large ones.
//
// The allocator is process-wide, so each case measures differences and trims
// first; Qt Test runs the cases one after another.
#include "test_main.h"
#include <QtTest>

#include <memory>
#include <random>
#include <set>
#include <thread>

#define FLOWLENS_SAMPLES_DIR FLOWLENS_SAMPLES
#include "bench/mlp_trainer.h"
#include "common/error.h"
#include "exec/session.h"
#include "io/graph_io.h"
#include "observe/profiler.h"
#include "tensor/allocator.h"
#include "tensor/tensor.h"

using namespace flowlens;

namespace {

constexpr std::size_t KiB = 1024, MiB = 1024 * 1024;

// a: float[n] const -> b = Neg(a) -> c = Neg(b): b is freed during the run.
Graph chain(int n) {
  std::string values;
  for (int i = 0; i < n; ++i) values += " float_val: 1";
  return parse_graph_text(
      "node { name: 'a' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
      "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: " +
          std::to_string(n) + " } }" + values +
          " } } } }\n"
          "node { name: 'b' op: 'Neg' input: 'a' attr { key: 'T' value { type: DT_FLOAT } } }\n"
          "node { name: 'c' op: 'Neg' input: 'b' attr { key: 'T' value { type: DT_FLOAT } } }\n",
      "chain.pbtxt");
}

}  // namespace

class TestHostAllocator : public QObject {
  Q_OBJECT

 private slots:
  void init() { HostAllocator::trim(); }

  void size_classes_bound_the_waste() {
    QCOMPARE(HostAllocator::size_class(0), std::size_t{64});
    QCOMPARE(HostAllocator::size_class(1), std::size_t{64});
    QCOMPARE(HostAllocator::size_class(64), std::size_t{64});
    QCOMPARE(HostAllocator::size_class(65), std::size_t{128});
    QCOMPARE(HostAllocator::size_class(512), std::size_t{512});
    QCOMPARE(HostAllocator::size_class(513), std::size_t{640});
    QCOMPARE(HostAllocator::size_class(1024), std::size_t{1024});
    QCOMPARE(HostAllocator::size_class(1025), std::size_t{1280});
    QCOMPARE(HostAllocator::size_class(MiB), MiB);
    QCOMPARE(HostAllocator::size_class(MiB + 1), MiB + MiB / 4);
    QCOMPARE(HostAllocator::size_class(3 * MiB - 1), 3 * MiB);
    QCOMPARE(HostAllocator::size_class(HostAllocator::kMaxBlockBytes), HostAllocator::kMaxBlockBytes);

    // Every size up to 64 KiB, then a random sweep up to 2^40: aligned,
    // large enough, under 25% waste above 512 bytes (under 64 bytes below),
    // and monotonic.
    auto check = [](std::size_t n) {
      const std::size_t c = HostAllocator::size_class(n);
      if (c % HostAllocator::kAlignment != 0 || c < n) return false;
      if (n == 0) return c == HostAllocator::kAlignment;
      if (n <= HostAllocator::kLinearClassMaxBytes) return c - n < HostAllocator::kAlignment;
      return 4 * (c - n) < n && HostAllocator::size_class(c) == c;
    };
    std::size_t previous = 0;
    for (std::size_t n = 0; n <= 64 * KiB; ++n) {
      if (!check(n)) QFAIL(qPrintable(QStringLiteral("size class of %1").arg(n)));
      QVERIFY(HostAllocator::size_class(n) >= previous);
      previous = HostAllocator::size_class(n);
    }
    std::mt19937_64 rng(7);
    for (int i = 0; i < 100000; ++i) {
      const std::size_t n = rng() >> (24 + rng() % 40);
      if (!check(n)) QFAIL(qPrintable(QStringLiteral("size class of %1").arg(n)));
    }
    // Four classes per doubling above the linear range.
    std::set<std::size_t> classes;
    for (std::size_t n = 4097; n <= 8192; ++n) classes.insert(HostAllocator::size_class(n));
    QCOMPARE(classes.size(), std::size_t{4});
  }

  void small_blocks_are_reused_and_counted() {
    const AllocatorStats before = HostAllocator::stats();
    std::size_t capacity = 0;
    void* a = HostAllocator::allocate(100, &capacity);
    QCOMPARE(capacity, std::size_t{128});
    QCOMPARE(reinterpret_cast<std::uintptr_t>(a) % HostAllocator::kAlignment, std::uintptr_t{0});
    AllocatorStats s = HostAllocator::stats();
    QCOMPARE(s.system_allocations, before.system_allocations + 1);
    QCOMPARE(s.system_bytes, before.system_bytes + 128);
    QCOMPARE(s.bytes_in_use, before.bytes_in_use + 128);
    HostAllocator::deallocate(a, capacity);
    s = HostAllocator::stats();
    QCOMPARE(s.bytes_in_use, before.bytes_in_use);
    QCOMPARE(s.cached_bytes, before.cached_bytes + 128);

    // Another size of the same class gets the same block back.
    std::size_t capacity2 = 0;
    void* b = HostAllocator::allocate(65, &capacity2);
    QCOMPARE(b, a);
    QCOMPARE(capacity2, capacity);
    s = HostAllocator::stats();
    QCOMPARE(s.reuses, before.reuses + 1);
    QCOMPARE(s.system_allocations, before.system_allocations + 1);
    QCOMPARE(s.cached_bytes, before.cached_bytes);
    // A different class does not.
    std::size_t capacity3 = 0;
    void* c = HostAllocator::allocate(200, &capacity3);
    QCOMPARE(capacity3, std::size_t{256});
    QCOMPARE(HostAllocator::stats().system_allocations, before.system_allocations + 2);
    HostAllocator::deallocate(b, capacity2);
    HostAllocator::deallocate(c, capacity3);
  }

  void tensors_count_in_use_bytes() {
    const AllocatorStats before = HostAllocator::stats();
    {
      Tensor t(DType::Float, Shape{10});  // 40 bytes: a 64-byte block
      QCOMPARE(HostAllocator::stats().bytes_in_use, before.bytes_in_use + 64);
    }
    QCOMPARE(HostAllocator::stats().bytes_in_use, before.bytes_in_use);
    QCOMPARE(HostAllocator::stats().cached_bytes, before.cached_bytes + 64);
  }

  void oversized_requests_are_refused_before_allocating() {
    const AllocatorStats before = HostAllocator::stats();
    std::size_t capacity = 0;
    QVERIFY_THROWS_EXCEPTION(Error, HostAllocator::allocate(HostAllocator::kMaxBlockBytes + 1, &capacity));
    QVERIFY_THROWS_EXCEPTION(Error, HostAllocator::allocate(SIZE_MAX, &capacity));
    const AllocatorStats after = HostAllocator::stats();
    QCOMPARE(after.bytes_in_use, before.bytes_in_use);
    QCOMPARE(after.system_allocations, before.system_allocations);
  }

  void cache_limit_frees_the_excess() {
    const std::size_t old_limit = HostAllocator::cache_limit();
    QCOMPARE(old_limit, HostAllocator::kCacheMaxBytes);
    HostAllocator::set_cache_limit(MiB);
    std::size_t cap[3];
    void* blocks[3];
    for (int i = 0; i < 3; ++i) blocks[i] = HostAllocator::allocate(512 * KiB, &cap[i]);
    for (int i = 0; i < 3; ++i) HostAllocator::deallocate(blocks[i], cap[i]);
    // Two fit; the third went back to the system.
    QCOMPARE(HostAllocator::stats().cached_bytes, MiB);
    // Lowering the limit trims down to it.
    HostAllocator::set_cache_limit(600 * KiB);
    QCOMPARE(HostAllocator::stats().cached_bytes, 512 * KiB);
    HostAllocator::set_cache_limit(old_limit);
    QCOMPARE(HostAllocator::cache_limit(), old_limit);
  }

  void trim_returns_every_cached_block() {
    std::vector<std::pair<void*, std::size_t>> blocks;
    for (std::size_t n : {std::size_t{10}, std::size_t{1000}, 100 * KiB, 3 * MiB}) {
      std::size_t capacity = 0;
      blocks.emplace_back(HostAllocator::allocate(n, &capacity), capacity);
    }
    std::size_t total = 0;
    for (auto [block, capacity] : blocks) {
      HostAllocator::deallocate(block, capacity);
      total += capacity;
    }
    QCOMPARE(HostAllocator::stats().cached_bytes, total);
    QCOMPARE(HostAllocator::trim(), total);
    QCOMPARE(HostAllocator::stats().cached_bytes, std::size_t{0});
    QCOMPARE(HostAllocator::trim(), std::size_t{0});
    // The next request of those sizes comes from the system again.
    const AllocatorStats before = HostAllocator::stats();
    std::size_t capacity = 0;
    void* b = HostAllocator::allocate(3 * MiB, &capacity);
    QCOMPARE(HostAllocator::stats().system_allocations, before.system_allocations + 1);
    QCOMPARE(HostAllocator::stats().reuses, before.reuses);
    HostAllocator::deallocate(b, capacity);
  }

  void peak_follows_the_most_in_use_and_resets() {
    HostAllocator::reset_peak();
    const AllocatorStats start = HostAllocator::stats();
    QCOMPARE(start.peak_bytes_in_use, start.bytes_in_use);
    std::size_t ca = 0, cb = 0;
    void* a = HostAllocator::allocate(MiB, &ca);
    void* b = HostAllocator::allocate(2 * MiB, &cb);
    HostAllocator::deallocate(a, ca);
    void* c = HostAllocator::allocate(MiB, &ca);  // the cached block: in use goes back up, not past the peak
    HostAllocator::deallocate(c, ca);
    HostAllocator::deallocate(b, cb);
    AllocatorStats s = HostAllocator::stats();
    QCOMPARE(s.bytes_in_use, start.bytes_in_use);
    QCOMPARE(s.peak_bytes_in_use, start.bytes_in_use + 3 * MiB);
    HostAllocator::reset_peak();
    s = HostAllocator::stats();
    QCOMPARE(s.peak_bytes_in_use, s.bytes_in_use);
  }

  void concurrent_threads_keep_the_counts() {
    const AllocatorStats before = HostAllocator::stats();
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([t] {
        std::mt19937 rng(static_cast<unsigned>(t));
        std::vector<std::pair<void*, std::size_t>> held;
        for (int i = 0; i < 20000; ++i) {
          if (held.size() < 16 && rng() % 2) {
            std::size_t capacity = 0;
            void* p = HostAllocator::allocate(rng() % 70000, &capacity);
            static_cast<char*>(p)[0] = 1;
            held.emplace_back(p, capacity);
          } else if (!held.empty()) {
            HostAllocator::deallocate(held.back().first, held.back().second);
            held.pop_back();
          }
        }
        for (auto [p, capacity] : held) HostAllocator::deallocate(p, capacity);
      });
    for (std::thread& t : threads) t.join();
    const AllocatorStats after = HostAllocator::stats();
    QCOMPARE(after.bytes_in_use, before.bytes_in_use);
    QVERIFY(after.reuses > before.reuses);
    // Every block is either cached or back with the system.
    QCOMPARE(after.cached_bytes, after.system_bytes - before.system_bytes + before.cached_bytes);
  }

  void the_last_session_returns_the_cache() {
    auto a = std::make_unique<Session>(chain(100000));
    auto b = std::make_unique<Session>(chain(1000));
    a->run({}, {"c"});  // b's 400 KB output is freed into the cache during the run
    b->run({}, {"c"});
    QVERIFY(HostAllocator::stats().cached_bytes >= 400000);
    a.reset();  // b still lives: the cache stays
    QVERIFY(HostAllocator::stats().cached_bytes >= 400000);
    b.reset();
    QCOMPARE(HostAllocator::stats().cached_bytes, std::size_t{0});

    // A session whose graph is refused does not count as live (nor leak a count).
    QVERIFY_THROWS_EXCEPTION(Error, Session(parse_graph_text("node { name: 'x' op: 'Neg' input: 'missing' }", "bad.pbtxt")));
    Session c(chain(100000));
    c.run({}, {"c"});
    QVERIFY(HostAllocator::stats().cached_bytes > 0);
    {
      Session d(chain(10));
    }
    QVERIFY(HostAllocator::stats().cached_bytes > 0);
  }

  void profiler_shows_the_host_allocator() {
    Session session(chain(100000));
    Profiler profiler;
    QVERIFY(!profiler.host_allocator().measured);
    session.add_observer(&profiler);
    session.run({}, {"c"});
    const HostAllocatorMemory h = profiler.host_allocator();
    QVERIFY(h.measured);
    // b and c (400,000 bytes each) were live together while c ran.
    const auto block = static_cast<int64_t>(HostAllocator::size_class(400000));
    QVERIFY(h.peak_in_use_bytes >= 2 * block);
    QVERIFY(h.cached_bytes >= block);  // b, freed once c ran
    const std::string table = profiler.summary_table();
    QVERIFY2(table.find("host allocator (whole process): peak in use") != std::string::npos, table.c_str());
    profiler.clear();
    QVERIFY(!profiler.host_allocator().measured);
    QVERIFY(profiler.summary_table().find("host allocator") == std::string::npos);
  }

  // The acceptance case: samples/mlp_train.pbtxt (gradients and SGD in the
  // graph, every tensor small) trains; after warm-up steps, further steps take
  // nothing from the system and leave the bytes in use where they were.
  void training_steps_reuse_after_warm_up() {
    const AllocatorStats empty = HostAllocator::stats();
    Session session(load_graph(std::string(FLOWLENS_SAMPLES) + "/mlp_train.pbtxt"));
    QVERIFY(session.initialize_variables() > 0);
    // The variables (small tensors) are counted.
    const AllocatorStats initialized = HostAllocator::stats();
    QVERIFY(initialized.bytes_in_use > empty.bytes_in_use);
    QVERIFY(initialized.system_allocations > empty.system_allocations);
    steady_state([&] { session.run({}, {"loss"}, {"train"}); }, "mlp_train");
  }

  // The same with larger layers (blocks from 64 bytes to megabytes), the
  // gradients and SGD built by transform/ as the training benchmarks do.
  void larger_training_steps_reuse_after_warm_up() {
    bench::Trainer trainer = bench::make_trainer(bench::scaled_mlp_model(128, 256, 1024, 10), {""});
    steady_state([&] { trainer.step(); }, "scaled mlp");
  }

 private:
  template <class Step>
  void steady_state(Step step, const char* what) {
    for (int i = 0; i < 5; ++i) step();
    const AllocatorStats warm = HostAllocator::stats();
    for (int i = 0; i < 30; ++i) {
      step();
      const AllocatorStats s = HostAllocator::stats();
      QVERIFY2(s.system_allocations == warm.system_allocations,
               qPrintable(QStringLiteral("%1: step %2 took %3 block(s) from the system")
                              .arg(what)
                              .arg(i)
                              .arg(s.system_allocations - warm.system_allocations)));
      QCOMPARE(s.bytes_in_use, warm.bytes_in_use);
    }
    const AllocatorStats end = HostAllocator::stats();
    QVERIFY(end.reuses - warm.reuses >= 30 * 10);  // every step's tensors came from the cache
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestHostAllocator)
#include "test_host_allocator.moc"
