// cuDNN is optional twice over: a build without its header leaves the cuDNN
// kernels out (convolutions take im2col + cuBLAS), and a build with it still
// only dlopens libcudnn.so.<major> when a GPU convolution or batch norm first
// runs. These checks need no GPU: loading resolves every function the
// backend calls (so a renamed or missing symbol fails here, not on the first
// GPU a user has), failures name each place tried, and the registry carries
// the GPU kernels with their constraints in words.
#include "test_main.h"
#include <QtTest/QtTest>

#include <fstream>
#include <string>

#include "common/error.h"
#include "ops/framework/op_registry.h"
#if FLOWLENS_WITH_CUDNN
#include "cuda/cudnn_library.h"
#endif

using namespace flowlens;

namespace {

const KernelDef* gpu_kernel(const std::string& op) {
  const OpDef* def = OpRegistry::global().find(op);
  if (!def) return nullptr;
  for (const KernelDef& k : def->kernels)
    if (k.device == "GPU" && !k.host_memory_only) return &k;
  return nullptr;
}

bool cudnn_is_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("libcudnn") != std::string::npos) return true;
  return false;
}

}  // namespace

class TestCudnnLibrary : public QObject {
  Q_OBJECT

 private slots:
  void a_nothing_loads_cudnn_before_it_is_needed() { QVERIFY(!cudnn_is_mapped()); }

  void convolutions_and_pooling_have_gpu_kernels_with_or_without_cudnn() {
    for (const char* op : {"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPool", "MaxPoolV2", "AvgPool",
                           "MaxPoolGrad", "MaxPoolGradV2", "AvgPoolGrad"}) {
      const KernelDef* k = gpu_kernel(op);
      QVERIFY2(k, op);
      QVERIFY2(k->note.find("float32") != std::string::npos, (std::string(op) + ": " + k->note).c_str());
      QVERIFY2(OpRegistry::global().find(op)->no_gpu_reason.empty(), op);
    }
    QVERIFY(gpu_kernel("Conv2D")->note.find("im2col") != std::string::npos);
  }

#if FLOWLENS_WITH_CUDNN
  void batch_norm_gpu_kernels_say_they_need_cudnn() {
    for (const char* op : {"FusedBatchNorm", "FusedBatchNormV3", "FusedBatchNormGradV3"}) {
      const KernelDef* k = gpu_kernel(op);
      QVERIFY2(k, op);
      QVERIFY2(k->note.find("cuDNN") != std::string::npos, k->note.c_str());
    }
    QVERIFY(gpu_kernel("FusedBatchNormGradV3")->note.find("is_training=true") != std::string::npos);
  }

  void a_missing_library_is_an_error_naming_each_place_tried() {
    try {
      cuda::load_cudnn_library({"/nonexistent/libcudnn.so.9", "libflowlens-no-such-cudnn.so"});
      QFAIL("loaded a library that does not exist");
    } catch (const Error& e) {
      const std::string what = e.what();
      QVERIFY2(what.find("cuDNN could not be loaded") != std::string::npos, e.what());
      QVERIFY2(what.find("/nonexistent/libcudnn.so.9") != std::string::npos, e.what());
      QVERIFY2(what.find("libflowlens-no-such-cudnn.so") != std::string::npos, e.what());
    }
  }

  void a_library_without_the_functions_is_refused_naming_them() {
    // libm loads but has none of cuDNN's functions.
    try {
      cuda::load_cudnn_library({"libm.so.6"});
      QFAIL("accepted libm as cuDNN");
    } catch (const Error& e) {
      QVERIFY2(std::string(e.what()).find("lacks cudnnGetVersion") != std::string::npos, e.what());
    }
  }

  // The toolkit's own libcudnn (this build found its header there): every
  // function the backend calls resolves, and the version is the header's.
  void the_toolkit_library_resolves_every_function() {
    const cuda::CudnnLibrary* api = cuda::cudnn_library();
    if (!api) QSKIP(("no libcudnn here: " + cuda::cudnn_unavailable_reason()).c_str());
    QVERIFY(cudnn_is_mapped());
    QCOMPARE(api->get_version() / 10000, static_cast<size_t>(CUDNN_MAJOR));
    QVERIFY(api->forward && api->backward_data && api->backward_filter && api->batch_norm_training &&
            api->batch_norm_backward && api->batch_norm_inference);
    QCOMPARE(std::string(api->error_string(CUDNN_STATUS_BAD_PARAM)), std::string("CUDNN_STATUS_BAD_PARAM"));
  }
#endif
};

FLOWLENS_TEST_GUILESS_MAIN(TestCudnnLibrary)
#include "test_cudnn_library.moc"
