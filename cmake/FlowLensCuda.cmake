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

# cuDNN (optional, only with CUDA): its header is all the build needs, since
# engine/cuda/cudnn_library.cpp dlopens libcudnn.so.<major> at run time.
# FLOWLENS_WITH_CUDNN off: GPU convolutions run through im2col + cuBLAS and
# batch normalization stays on the CPU.
set(FLOWLENS_CUDNN AUTO CACHE STRING "Use cuDNN in the CUDA backend: AUTO, ON or OFF")
set_property(CACHE FLOWLENS_CUDNN PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${FLOWLENS_CUDNN}" _flowlens_cudnn)
if(NOT _flowlens_cudnn MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "FLOWLENS_CUDNN must be AUTO, ON or OFF, got '${FLOWLENS_CUDNN}'")
endif()
set(FLOWLENS_WITH_CUDNN OFF)
if(FLOWLENS_WITH_CUDA AND NOT _flowlens_cudnn STREQUAL "OFF")
  find_path(FLOWLENS_CUDNN_INCLUDE_DIR cudnn_version.h
            HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV CUDNN_PATH PATH_SUFFIXES include)
  if(FLOWLENS_CUDNN_INCLUDE_DIR)
    file(STRINGS "${FLOWLENS_CUDNN_INCLUDE_DIR}/cudnn_version.h" _cudnn_major REGEX "^#define CUDNN_MAJOR [0-9]+")
    string(REGEX REPLACE "^#define CUDNN_MAJOR ([0-9]+).*" "\\1" FLOWLENS_CUDNN_MAJOR "${_cudnn_major}")
  endif()
  if(FLOWLENS_CUDNN_MAJOR AND FLOWLENS_CUDNN_MAJOR GREATER_EQUAL 8)
    set(FLOWLENS_WITH_CUDNN ON)
    message(STATUS "FlowLens: cuDNN ON (headers ${FLOWLENS_CUDNN_INCLUDE_DIR}, libcudnn.so.${FLOWLENS_CUDNN_MAJOR} loaded at run time)")
  elseif(_flowlens_cudnn STREQUAL "ON")
    message(FATAL_ERROR "FLOWLENS_CUDNN=ON but no cuDNN 8 or later header (cudnn_version.h) was found beside "
                        "the CUDA toolkit or under CUDNN_PATH; configure with -DFLOWLENS_CUDNN=AUTO|OFF")
  else()
    message(STATUS "FlowLens: cuDNN OFF (no cudnn_version.h found; convolutions use im2col + cuBLAS)")
  endif()
elseif(FLOWLENS_WITH_CUDA)
  message(STATUS "FlowLens: cuDNN OFF (FLOWLENS_CUDNN=OFF)")
endif()
