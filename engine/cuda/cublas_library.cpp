#include "cuda/cublas_library.h"

#include <dlfcn.h>

#include "common/error.h"

// cublas_v2.h maps some names to versioned symbols (cublasCreate is
// cublasCreate_v2): expanding the macro first gives the name dlsym needs.
#define FLOWLENS_SYMBOL_NAME(function) FLOWLENS_SYMBOL_NAME_EXPANDED(function)
#define FLOWLENS_SYMBOL_NAME_EXPANDED(function) #function

namespace flowlens::cuda {
namespace {

template <typename Function>
void resolve(void* library, const char* symbol, Function*& out, std::string& missing) {
  out = reinterpret_cast<Function*>(dlsym(library, symbol));
  if (!out) missing += (missing.empty() ? "" : ", ") + std::string(symbol);
}

}  // namespace

CublasLibrary load_cublas_library(const std::vector<std::string>& candidates) {
  std::string failures;
  for (const std::string& candidate : candidates) {
    if (!failures.empty()) failures += "; ";
    // RTLD_LOCAL: cuBLAS's symbols stay out of the global namespace.
    void* library = dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
      const char* why = dlerror();  // names the file: "libcublas.so.13: cannot open shared object file: ..."
      failures += why ? why : candidate + ": cannot be loaded";
      continue;
    }
    CublasLibrary api{};
    std::string missing;
    resolve(library, FLOWLENS_SYMBOL_NAME(cublasCreate), api.create, missing);
    resolve(library, FLOWLENS_SYMBOL_NAME(cublasSetStream), api.set_stream, missing);
    resolve(library, FLOWLENS_SYMBOL_NAME(cublasGemmEx), api.gemm_ex, missing);
    resolve(library, FLOWLENS_SYMBOL_NAME(cublasGetStatusString), api.status_string, missing);
    if (missing.empty()) return api;
    failures += candidate + ": lacks " + missing;
    dlclose(library);
  }
  throw Error("cuBLAS could not be loaded (" + failures + ")");
}

const CublasLibrary& cublas_library() {
  struct Loaded {
    CublasLibrary api{};
    std::string error;
  };
  // A function-local static is initialized once, even under concurrent calls.
  static const Loaded loaded = [] {
    Loaded result;
    try {
      result.api = load_cublas_library({FLOWLENS_CUBLAS_SONAME, FLOWLENS_CUDA_LIBRARY_DIR "/" FLOWLENS_CUBLAS_SONAME});
    } catch (const Error& e) {
      result.error = e.what();
    }
    return result;
  }();
  if (!loaded.error.empty()) throw Error(loaded.error);
  return loaded.api;
}

}  // namespace flowlens::cuda
