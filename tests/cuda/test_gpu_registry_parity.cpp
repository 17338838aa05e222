// The registry-wide GPU parity walk (tests/engine/backend_parity.h): every
// generated op case whose op has a GPU kernel runs on /cpu:0 and /gpu:0,
// forward and through its gradient graph, and must match; every op without
// a GPU kernel for device data is listed with the registry's reason. Skips,
// saying why, on machines without a GPU.
#include "test_main.h"
#include <QtTest/QtTest>

#include "engine/backend_parity.h"
#include "gpu_parity_util.h"

using namespace flowlens;
using namespace flowlens::testing;

class TestGpuRegistryParity : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    std::string status;
    if (gpu_count(&status) == 0) QSKIP(("no GPU on this machine: " + status).c_str());
  }

  void every_gpu_kernel_matches_the_cpu() {
    LocalDeviceOptions options;
    options.use_gpus = true;
    auto devices = DeviceSet::local(options);
    const BackendParityReport report = check_backend_parity(all_op_cases(), OpRegistry::global(), *devices, "GPU");
    // The device check quotes these lines.
    std::printf("gpu_registry_parity: %s\n", report.summary().c_str());
    for (const auto& [op, why] : report.no_kernel) std::printf("  no GPU kernel: %s: %s\n", op.c_str(), why.c_str());
    for (const auto& [op, why] : report.skipped) std::printf("  not walked: %s: %s\n", op.c_str(), why.c_str());
    for (const std::string& m : report.mismatches) std::printf("  MISMATCH %s\n", m.c_str());
    std::fflush(stdout);
    QVERIFY(report.compared > 0);
    QVERIFY2(report.mismatches.empty(), (std::to_string(report.mismatches.size()) + " GPU kernel case(s) differ from the CPU").c_str());
  }
};

FLOWLENS_TEST_GUILESS_MAIN(TestGpuRegistryParity)
#include "test_gpu_registry_parity.moc"
