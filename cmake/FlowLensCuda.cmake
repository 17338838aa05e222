# Decides whether engine/cuda is built (FLOWLENS_WITH_CUDA) from FLOWLENS_CUDA.
# The toolkit is looked for where Debian's and NVIDIA's installers put it, so
# `make test` finds /usr/local/cuda without the user setting PATH.
string(TOUPPER "${FLOWLENS_CUDA}" _flowlens_cuda)
if(NOT _flowlens_cuda MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "FLOWLENS_CUDA must be AUTO, ON or OFF, got '${FLOWLENS_CUDA}'")
endif()

set(FLOWLENS_WITH_CUDA OFF)
if(NOT _flowlens_cuda STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      # sm_90: the H200 these builds are checked on. Override with
      # -DCMAKE_CUDA_ARCHITECTURES=... for other cards.
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(FLOWLENS_WITH_CUDA ON)
    message(STATUS "FlowLens: CUDA backend ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, sm_${CMAKE_CUDA_ARCHITECTURES})")
  elseif(_flowlens_cuda STREQUAL "ON")
    message(FATAL_ERROR "FLOWLENS_CUDA=ON but no CUDA compiler (nvcc) was found: install the CUDA toolkit, "
                        "set CUDACXX=/path/to/nvcc, or configure with -DFLOWLENS_CUDA=AUTO|OFF")
  else()
    message(STATUS "FlowLens: CUDA backend OFF (no nvcc found; FLOWLENS_CUDA=AUTO)")
  endif()
else()
  message(STATUS "FlowLens: CUDA backend OFF (FLOWLENS_CUDA=OFF)")
endif()
