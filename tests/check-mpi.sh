#!/bin/sh
# check-mpi.sh - libnla-mpi's tests (tests/test_mpi.c) under mpirun on 1, 2,
# 3 and 4 processes, then on 2 with the local products on a CUDA context
# whose device is EMULATED on the CPU (tests/libnla-cuda-emu.so, as in
# check-cuda-emu-plugin.sh: the plugin's logic, not a GPU), then
# examples/mpi_gemm and tools/nla-mpi-bench --quick on 4, oversubscribed on
# a small machine.  Each run has a time limit, so a
# process left waiting in a collective fails the test instead of hanging
# it.  Skipped when configure did not build libnla-mpi.
if [ "${NLA_WITH_MPI:-no}" != yes ]; then
    echo "SKIP: libnla-mpi not built (configure found no MPI, or --without-mpi)"
    exit 77
fi
if [ -z "$NLA_MPIRUN" ] || ! command -v "$NLA_MPIRUN" >/dev/null 2>&1; then
    echo "SKIP: no mpirun (Debian: openmpi-bin)"
    exit 77
fi
prog="${NLA_BUILDDIR:-.}/tests/test_mpi"
# Open MPI refuses root unless told; one thread per process; no network
# transport beyond this machine (shared memory and loopback)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export OMPI_MCA_btl=self,vader OMPI_MCA_rmaps_base_oversubscribe=1
# a sanitizer build: what Open MPI keeps until exit is suppressed by its
# frames, which the slow unwinder finds (the fast one stops in the
# components Open MPI has unloaded); libnla-mpi's own leaks still fail
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
export LSAN_OPTIONS="suppressions=${srcdir:-.}/tests/lsan-mpi.supp:print_suppressions=0"
limit=${NLA_MPI_TIMEOUT:-300}
passed=0 failed=0 status=0
# run_tests NP [ENV...]: test_mpi on NP processes (with ENV, passed on to
# them); adds its counts, and fails on a bad exit, a missing summary or a
# time-out
run_tests() {
    np=$1
    shift
    xs=
    for v in "$@"; do xs="$xs -x ${v%%=*}"; done
    # shellcheck disable=SC2086
    out=$(env "$@" timeout "$limit" "$NLA_MPIRUN" -np "$np" --oversubscribe $xs "$prog" 2>&1)
    rc=$?
    echo "$out" | grep -v '^$' | tail -n 20
    if [ $rc -eq 124 ]; then
        echo "FAIL: np=$np did not finish in ${limit} s (a hang in a collective?)"
    fi
    line=$(echo "$out" | grep -E "^mpi np=$np: [0-9]+ passed, [0-9]+ failed" | tail -n 1)
    if [ $rc -ne 0 ] || [ -z "$line" ]; then
        status=1
    fi
    p=$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')
    f=$(echo "$line" | sed -n 's/.* \([0-9]*\) failed.*/\1/p')
    passed=$((passed + ${p:-0}))
    failed=$((failed + ${f:-1}))
}
for np in 1 2 3 4; do
    run_tests "$np"
done
# the local products on CUDA: the emulated plugin, when configure built it
emu="${NLA_BUILDDIR:-.}/tests/libnla-cuda-emu.so"
if [ "${NLA_EMU_CXX:-no}" = yes ] && [ -e "$emu" ]; then
    echo "EMULATED CUDA (CPU, not GPU): test_mpi on 2 processes with a CUDA context"
    run_tests 2 NLA_TEST_MPI_BACKEND=cuda NLA_PLUGIN_PATH="$emu" EMU_CPASYNC=wait
else
    echo "no emulated CUDA pass: ${NLA_EMU_WHY:-configure built no tests/libnla-cuda-emu.so}"
fi
# the example users copy, on 4 processes (a 2 x 2 grid); it checks itself
ex="${NLA_BUILDDIR:-.}/examples/mpi_gemm"
if timeout "$limit" "$NLA_MPIRUN" -np 4 --oversubscribe "$ex"; then
    passed=$((passed + 1))
else
    echo "FAIL: examples/mpi_gemm on 4 processes"
    failed=$((failed + 1)) status=1
fi
# the benchmark runs (its figures are not checked here: a benchmark, not a test)
bench="${NLA_BUILDDIR:-.}/tools/nla-mpi-bench"
if timeout "$limit" "$NLA_MPIRUN" -np 4 --oversubscribe "$bench" --quick; then
    passed=$((passed + 1))
else
    echo "FAIL: tools/nla-mpi-bench --quick on 4 processes"
    failed=$((failed + 1)) status=1
fi
echo "mpi: $passed passed, $failed failed"
exit $status
