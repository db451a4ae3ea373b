#!/bin/sh
# check-cuda-emu-plugin.sh - make check: the CUDA backend through the public
# API, with the plugin's "device" EMULATED on the CPU (tests/cuda_emu): no
# GPU and no nvcc are used.  tests/libnla-cuda-emu.so is src/cuda/plugin.cu
# and every kernel file compiled by the host C++ compiler against the
# emulation; test_cuda runs its device tests (NLA_TEST_CUDA_QUICK sizes)
# against it, so staging, device pointers, AUTO placement, error reporting
# and Frank-Wolfe's device loop are compared with the CPU backend.  This
# checks the plugin's and the kernels' logic, not nvcc's code or the
# hardware (tools/gpu-check.sh does that on a GPU).  Skipped (77) when
# configure found no C++17 compiler for the emulation.
set -u
b=${NLA_BUILDDIR:-.}
plugin=$b/tests/libnla-cuda-emu.so

echo "EMULATED CHECK: test_cuda against the CUDA plugin built on a CPU emulation"
echo "of CUDA (tests/cuda_emu), not on a GPU; nvcc-generated code is not tested here."
if test "${NLA_EMU_CXX:-no}" != yes; then
    echo "SKIP: ${NLA_EMU_WHY:-configure found no C++17 compiler for the CUDA emulation}"
    exit 77
fi
for f in "$plugin" "$b/tests/test_cuda" "$b/tests/test_fft_nd" "$b/tests/test_dct"; do
    if ! test -e "$f"; then
        echo "ERROR: $f was not built"
        exit 99
    fi
done
# the device tests only (the fallback tests expect no device); shuffled but
# reproducible thread and block orders
unset NLA_BACKEND EMU_SMS NLA_CUDA_DGEMM
NLA_WITH_CUDA=yes NLA_CUDA_PLUGIN=$plugin NLA_TEST_CUDA_QUICK=1 NLA_TEST_CUDA_EMULATED=1 \
    EMU_ORDER=rand EMU_SEED=12345 EMU_CPASYNC=wait \
    "$b/tests/test_cuda" --filter 'cuda/*' --jobs 2
st=$?
echo "emulated (CPU, not GPU): test_cuda exit status $st"
# the multi-dimensional FFT plans, made of the plugin's batched 1-D plans
NLA_WITH_CUDA=yes NLA_CUDA_PLUGIN=$plugin NLA_TEST_CUDA_EMULATED=1 \
    EMU_ORDER=rand EMU_SEED=12345 EMU_CPASYNC=wait \
    "$b/tests/test_fft_nd" --filter 'cuda/*' --jobs 2
st2=$?
echo "emulated (CPU, not GPU): test_fft_nd's cuda suite exit status $st2"
[ $st -eq 0 ] && st=$st2
# the DCT, which the plugin declines: AUTO plans it on the CPU
NLA_WITH_CUDA=yes NLA_CUDA_PLUGIN=$plugin NLA_TEST_CUDA_EMULATED=1 \
    EMU_ORDER=rand EMU_SEED=12345 EMU_CPASYNC=wait \
    "$b/tests/test_dct" --filter 'cuda/*' --jobs 2
st3=$?
echo "emulated (CPU, not GPU): test_dct's cuda suite exit status $st3"
[ $st -eq 0 ] && st=$st3
exit $st
