/*
 * cuda_runtime.h - stand-in for the CUDA toolkit's <cuda_runtime.h> in the
 * CPU emulation of libnla's CUDA kernels (tests/cuda_emu/README): the
 * emulated build puts this directory first on the include path, so the
 * kernels' #include <cuda_runtime.h> gets cuda_emu.h.  Test use only; never
 * on the include path of the real (nvcc) build.
 */
#pragma once
#include "cuda_emu.h"
