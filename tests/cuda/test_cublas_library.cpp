// cuBLAS is opened with dlopen when a GPU first needs it, not linked: a
// CUDA-built program that runs no GPU MatMul never maps libcublasLt (~150 MB
// of RSS). A library that cannot be loaded is an Error naming each place
// tried, never an abort. Runs with or without a GPU.
#include "test_main.h"
#include <QtTest/QtTest>

#include <fstream>
#include <string>

#include "common/error.h"
#include "cuda/cublas_library.h"
#include "exec/session.h"
#include "io/graph_io.h"
#include "tensor/tensor_format.h"

using namespace flowlens;

namespace {

bool cublas_is_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("libcublas") != std::string::npos) return true;
  return false;
}

// MatMul placed on /gpu:0 (on the CPU by soft placement where there is none),
// and an Add beside it that needs no cuBLAS.
const char* kGraph = R"(
node { name: 'a' op: 'Const' device: '/gpu:0' attr { key: 'dtype' value { type: DT_FLOAT } }
  attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } dim { size: 2 } }
    float_val: 1 float_val: 2 float_val: 3 float_val: 4 } } } }
node { name: 'sum' op: 'Add' device: '/gpu:0' input: 'a' input: 'a' attr { key: 'T' value { type: DT_FLOAT } } }
node { name: 'product' op: 'MatMul' device: '/gpu:0' input: 'a' input: 'a' attr { key: 'T' value { type: DT_FLOAT } } }
)";

std::string error_of(const std::vector<std::string>& candidates) {
  try {
    cuda::load_cublas_library(candidates);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

class TestCublasLibrary : public QObject {
  Q_OBJECT

 private slots:
  // First, before anything in this process has asked for cuBLAS.
  void a_run_without_a_gpu_matmul_does_not_load_cublas() {
    QVERIFY(!cublas_is_mapped());
    Session session(parse_graph_text(kGraph, "matmul.pbtxt"));
    QCOMPARE(format_tensor(session.run({}, {"sum"})[0].to_host()), std::string("[[2,4],[6,8]]"));
    QVERIFY(!cublas_is_mapped());
    const bool on_gpu = session.device_of("product").starts_with("/gpu:");
    QCOMPARE(format_tensor(session.run({}, {"product"})[0].to_host()), std::string("[[7,10],[15,22]]"));
    QCOMPARE(cublas_is_mapped(), on_gpu);
  }

  void the_toolkit_cublas_loads_and_resolves() {
    const cuda::CublasLibrary& library = cuda::cublas_library();
    QVERIFY(library.create && library.set_stream && library.gemm_ex);
    QCOMPARE(std::string(library.status_string(CUBLAS_STATUS_SUCCESS)), std::string("success"));
    QVERIFY(cublas_is_mapped());
    QCOMPARE(&cuda::cublas_library(), &library);  // loaded once
  }

  void a_missing_library_is_an_error_naming_each_candidate() {
    const std::string message = error_of({"libflowlens-no-such-cublas.so.1", "/no/such/dir/libcublas.so.13"});
    QVERIFY2(message.starts_with("cuBLAS could not be loaded ("), message.c_str());
    QVERIFY2(message.find("libflowlens-no-such-cublas.so.1: cannot open shared object file") != std::string::npos,
             message.c_str());
    QVERIFY2(message.find("/no/such/dir/libcublas.so.13: cannot open shared object file") != std::string::npos,
             message.c_str());
  }

  void a_library_without_the_functions_is_an_error() {
    const std::string message = error_of({"libm.so.6"});
    QVERIFY2(message.find("libm.so.6: lacks cublasCreate_v2, cublasSetStream_v2, cublasGemmEx, cublasGetStatusString") !=
                 std::string::npos,
             message.c_str());
  }
};

FLOWLENS_TEST_APPLESS_MAIN(TestCublasLibrary)
#include "test_cublas_library.moc"
