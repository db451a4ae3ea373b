#!/bin/sh
# check-cuda-emu.sh - make check: libnla's own CUDA GEMM, level-2 and FFT kernels
# (src/cuda/gemm.cu, level2.cu, fft.cu, fft_mixed.cu) checked by tests/cuda_kernels_check.cu
# against naive host references, EMULATED on the CPU (tests/cuda_emu): no
# GPU and no nvcc are used.  This checks the kernels' logic only, not the
# code nvcc generates or anything about speed (tests/cuda_emu/README).
#
# Four passes with --quick, each with shuffled but reproducible thread and
# block orders (EMU_ORDER=rand, fixed EMU_SEED): the default kernels; the
# double GEMM with its mma884 and SIMT kernels; and one multiprocessor, so
# that GEMM uses its 128x128 tiles.  Before them, a read of the sources:
# every kernel with __launch_bounds__ must state its bound to the emulation
# (NLA_BOUNDS).  Skipped (77) when configure found no C++17 compiler for
# the emulation.
set -u
emu=${NLA_BUILDDIR:-.}/tests/cuda_kernels_emu
seed=12345

echo "EMULATED CHECK: CUDA GEMM/level-2/FFT kernels run on a CPU emulation of CUDA"
echo "(tests/cuda_emu), not on a GPU; nvcc-generated code is not tested here."
if test "${NLA_EMU_CXX:-no}" != yes; then
    echo "SKIP: ${NLA_EMU_WHY:-configure found no C++17 compiler for the CUDA emulation}"
    exit 77
fi
if ! test -x "$emu"; then
    echo "ERROR: $emu was not built"
    exit 99
fi

# Every kernel with __launch_bounds__(N...) states N again first thing in
# its body (NLA_BOUNDS, src/cuda/launch.cuh), so that the emulation checks
# each launch's block against it.
unbounded=$(awk '/^[^*\/]*__launch_bounds__\(/ { s = $0; sub(/.*__launch_bounds__\(/, "", s)
                                        sub(/[,)].*/, "", s); want = s; line = FNR; next }
                 want != "" && /^\{/ { getline nx
                                       if (index(nx, "NLA_BOUNDS(" want ");") == 0)
                                           print FILENAME ":" line ": no NLA_BOUNDS(" want ");"
                                       want = "" }' "${srcdir:-.}"/src/cuda/*.cu "${srcdir:-.}"/src/cuda/*.cuh)
if test -n "$unbounded"; then
    echo "FAIL: kernels whose launch bounds the emulation cannot check:"
    echo "$unbounded"
    exit 1
fi

passes=0
failed=0
pass() {
    what=$1
    shift
    passes=$((passes + 1))
    echo
    echo "== emulated pass $passes: $what"
    # only the settings named here: the run does not depend on the caller's
    (unset EMU_SMS NLA_CUDA_DGEMM
     EMU_ORDER=rand EMU_SEED=$seed EMU_CPASYNC=wait
     export EMU_ORDER EMU_SEED EMU_CPASYNC
     env "$@")
    st=$?
    if test $st -ne 0; then
        echo "== emulated pass $passes FAILED (exit status $st)"
        failed=$((failed + 1))
    fi
}
pass "GEMM (double: mma16816), level 2 and FFT" "$emu" --quick
pass "GEMM, double with the mma884 kernel" NLA_CUDA_DGEMM=mma884 "$emu" --quick --gemm
pass "GEMM, double with the SIMT kernel" NLA_CUDA_DGEMM=simt "$emu" --quick --gemm
pass "GEMM on 1 SM (128x128 tiles)" EMU_SMS=1 "$emu" --quick --gemm
echo
echo "emulated (CPU, not GPU): $passes passes, $failed failed"
test $failed -eq 0
