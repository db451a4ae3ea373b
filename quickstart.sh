#!/usr/bin/env bash
# quickstart.sh - set up, build and run libnla from a fresh clone.
#
#   ./quickstart.sh          install the build dependencies (Debian, as root),
#                            build, then run the verified tour: nla bench --quick
#                            (against Intel MKL and a current OpenBLAS too, when
#                            PyPI is reachable: pip wheels in a private venv,
#                            $NLA_BUILD_DIR/refs; NLA_NO_PIP=1 skips them)
#   ./quickstart.sh check    the same set-up, then the test suite (make check)
#
# Environment: NLA_CONFIGURE_FLAGS adds configure options (CI passes
# --enable-werror); NLA_BUILD_DIR (default _build) is the build folder.
set -euo pipefail
cd "$(dirname "$0")"
mode=${1:-bench}
case $mode in
    bench|check) ;;
    *) echo "usage: $0 [check]" >&2; exit 2 ;;
esac

packages="build-essential autoconf automake libtool pkg-config
          libopenblas-dev liblapacke-dev libfftw3-dev libcriterion-dev
          libgsl-dev libblas-test mandoc python3-numpy python3-venv
          libblis4-openmp
          libopenmpi-dev openmpi-bin libscalapack-openmpi-dev libfftw3-mpi-dev"

install_deps() {
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "== installing build dependencies (apt-get)"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q
        # shellcheck disable=SC2086
        apt-get install -y -q --no-install-recommends $packages
    else
        echo "== not root or no apt-get: assuming these are installed:" $packages
    fi
}

jobs=$(nproc 2>/dev/null || echo 2)
src=$(pwd)
build=${NLA_BUILD_DIR:-_build}

install_deps
echo "== bootstrapping"
autoreconf -fi
mkdir -p "$build"
cd "$build"
echo "== configuring in $build"
# shellcheck disable=SC2086
"$src/configure" ${NLA_CONFIGURE_FLAGS:-}
echo "== building"
make -j"$jobs"

# The tour's stronger references: Intel MKL and a current OpenBLAS, pip
# wheels in a venv of the build folder, which nla bench searches through
# NLA_REF_PATH.  Without PyPI the tour runs against Debian's libraries.
refs_venv() {
    local venv=$1
    if [ -n "${NLA_NO_PIP:-}" ]; then
        echo "== NLA_NO_PIP is set: no MKL or pip OpenBLAS columns"
        return 1
    fi
    echo "== pip install mkl scipy-openblas32 (into $venv)"
    if ! { [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"; } >/dev/null 2>&1; then
        echo "== python3 -m venv failed: no MKL or pip OpenBLAS columns"
        return 1
    fi
    if ! timeout 900 "$venv/bin/pip" install -q --disable-pip-version-check --timeout 30 \
            mkl scipy-openblas32; then
        echo "== pip could not install them (no PyPI?): no MKL or pip OpenBLAS columns"
        return 1
    fi
}

# cuobjdump and nvdisasm for tests/check-cuda-sass.sh, which reads the CUDA
# plugin's machine code, when the plugin was built and the toolkit lacks
# them: PyPI's wheels in a venv of the build folder.  Without them the test
# is skipped with the reason.
cuda_tools() {
    local venv=$1
    [ -f .libs/libnla-cuda.so ] || return 0
    command -v cuobjdump >/dev/null 2>&1 && return 0
    [ -x /usr/local/cuda/bin/cuobjdump ] && return 0
    [ -n "$(find "$venv" -name cuobjdump -type f 2>/dev/null)" ] && return 0
    [ -n "${NLA_NO_PIP:-}" ] && return 0
    echo "== pip install nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm (into $venv)"
    { { [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"; } >/dev/null 2>&1 &&
      timeout 600 "$venv/bin/pip" install -q --disable-pip-version-check --timeout 30 \
          nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm; } ||
        echo "== could not install them: tests/check-cuda-sass.sh will be skipped"
    find "$venv" -path '*/bin/*' \( -name cuobjdump -o -name nvdisasm \) -type f \
        -exec chmod +x {} + 2>/dev/null
    return 0
}

if [ "$mode" = bench ]; then
    if refs_venv "$(pwd)/refs"; then
        export NLA_REF_PATH="$(pwd)/refs${NLA_REF_PATH:+:$NLA_REF_PATH}"
    fi
    ./tools/nla info
    echo
    # the chart of this run: the README's doc/bench-example.svg is one
    echo "== nla bench --quick (chart: $build/bench.svg)"
    exec ./tools/nla bench --quick --svg bench.svg
fi

cuda_tools "$(pwd)/cuda-tools"
echo "== make check"
status=0
make -j"$jobs" check || status=$?
# One closing line for the whole suite, from the Criterion summaries.
passed=0 failed=0 skipped=0
for log in tests/*.log; do
    case $log in *.valgrind.log) continue ;; esac   # make check-valgrind's own
    # skipped tests (tests/refs.c: "SKIP: suite::test: reason")
    skipped=$((skipped + $(grep -ac '^SKIP: [^ ]*::' "$log" || true)))
    # every Criterion run of the log (check-cuda-emu-plugin.sh runs two)
    while IFS= read -r line; do
        p=$(sed -n 's/.*Passing: \([0-9]*\).*/\1/p' <<<"$line")
        f=$(sed -n 's/.*Failing: \([0-9]*\).*Crashing: \([0-9]*\).*/\1 \2/p' <<<"$line")
        passed=$((passed + ${p:-0}))
        for x in $f; do failed=$((failed + x)); done
    done < <(grep -a 'Synthesis:' "$log")
done
if [ "$status" -ne 0 ]; then
    echo "== make check failed; test-suite.log follows"
    cat test-suite.log 2>/dev/null || true
    [ "$failed" -eq 0 ] && failed=1
fi
echo "criterion: $passed passed, $failed failed, $skipped skipped"
exit "$status"
