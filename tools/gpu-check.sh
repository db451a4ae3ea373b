#!/usr/bin/env bash
# tools/gpu-check.sh - check the CUDA backend on a machine with an NVIDIA GPU
# (sized for an H200: about 8 minutes), then print a short table.
#
#   tools/gpu-check.sh                  build here (configure --with-cuda in
#                                       _build-gpu), test, bench
#   tools/gpu-check.sh --prebuilt DIR   no build: use binaries built elsewhere
#   tools/gpu-check.sh --bundle BUILD OUT
#                                       (on the build machine) copy what
#                                       --prebuilt needs from the --with-cuda
#                                       build tree BUILD into OUT (a few MB)
#
# The GPU machine may lack a build dependency (Criterion, OpenBLAS, LAPACKE,
# FFTW, GSL headers; autotools).  The lent H200s have none of them, so
# build on a machine that has them, with nvcc but no GPU:
#     mkdir _build-gpu && cd _build-gpu && ../configure --with-cuda
#     make -j libnla.la libnla-cuda.la tools/nla tests/test_cuda \
#          tests/test_runtime tests/libnla-mock.la tests/libnla-mock-badabi.la
#     cd .. && tools/gpu-check.sh --bundle _build-gpu _build-gpu-bundle
#     mkdir -p _build-gpu-pack && tar cJf _build-gpu-pack/bundle.tar.xz _build-gpu-bundle
# The bundle holds the programs and every shared library they need beyond
# glibc (about 60 MB, 13 MB compressed: carry the tarball, _build* is
# ignored by git).  On the GPU machine:
#     tar xJf _build-gpu-pack/bundle.tar.xz && tools/gpu-check.sh --prebuilt _build-gpu-bundle
# (cuBLAS and cuFFT for the bench come from the machine's CUDA toolkit,
# /usr/local/cuda/lib64).
#
# Steps: the device (nvidia-smi); the build; the kernels alone
# (tests/cuda_kernels_check.cu, built with nvcc); `nla info` (CUDA must be
# available); tests/test_cuda (every CUDA routine against the CPU backend,
# device and host memory) and tests/test_runtime; the same CUDA tests on a
# reduced size set (NLA_TEST_CUDA_QUICK=1) under compute-sanitizer memcheck
# when it is installed; `nla bench --backend cuda` (against cuBLAS/cuFFT).
# Exit status: 0 when every step passed.
set -uo pipefail
cd "$(dirname "$0")/.."
src=$(pwd)

# ------------------------------------------------------------------ bundle
if [ "${1:-}" = --bundle ]; then
    [ $# -eq 3 ] || { echo "usage: $0 --bundle BUILD OUT" >&2; exit 2; }
    b=$2 out=$3
    [ -f "$b/.libs/libnla-cuda.so" ] || { echo "$b/.libs/libnla-cuda.so: not a --with-cuda build" >&2; exit 2; }
    mkdir -p "$out/.libs" "$out/bin" "$out/tests/.libs"
    cp -a "$b"/.libs/libnla.so* "$b/.libs/libnla-cuda.so" "$out/.libs/"
    pick() { # the real program behind a libtool wrapper
        if [ -f "$1/.libs/$2" ]; then echo "$1/.libs/$2"; elif [ -f "$1/.libs/lt-$2" ]; then
            echo "$1/.libs/lt-$2"; else echo "$1/$2"; fi
    }
    cp "$(pick "$b/tools" nla)" "$out/bin/nla"
    for t in test_cuda test_runtime test_fft_nd; do
        [ -e "$b/tests/$t" ] || { echo "build $b/tests/$t first (make tests/$t)" >&2; exit 2; }
        cp "$(pick "$b/tests" $t)" "$out/tests/$t"
    done
    # the mocks stay apart from libnla-cuda.so (a folder lookup must not find it)
    cp "$b/tests/.libs/libnla-mock.so" "$b/tests/.libs/libnla-mock-badabi.so" \
        "$out/tests/.libs/" 2>/dev/null || true
    # the references and Criterion, with what they need, except glibc's own
    # libraries and the GCC runtime, which every Linux has
    for f in "$out/bin/nla" "$out/tests/test_cuda" "$out/tests/test_runtime" \
             "$out/tests/test_fft_nd"; do
        LD_LIBRARY_PATH=$out/.libs ldd "$f"
    done | awk '/=> \// { print $3 }' | sort -u |
        grep -vE '/(libc|libm|libdl|librt|libpthread|libresolv|libgcc_s|libstdc\+\+|libnla[^/]*)\.so' |
        while read -r l; do
            cp -L "$l" "$out/.libs/" && strip --strip-unneeded "$out/.libs/${l##*/}" 2>/dev/null
        done
    du -sh "$out"
    exit 0
fi

prebuilt=
if [ "${1:-}" = --prebuilt ]; then
    [ $# -eq 2 ] || { echo "usage: $0 --prebuilt DIR" >&2; exit 2; }
    prebuilt=$(cd "$2" && pwd)
fi
jobs=$(nproc 2>/dev/null || echo 4)
log=$(mktemp -d)
declare -A result
steps=()
fails=0
t_start=$(date +%s)
step() { # name status detail
    steps+=("$1")
    result[$1]="$2${3:+ ($3)}"
    case $2 in FAIL*) fails=$((fails + 1)) ;; esac
    echo "== $1: $2${3:+ ($3)}"
}

echo "== device (the plugin links the CUDA 13 runtime statically: it needs driver R580 or newer)"
if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader || true
else
    echo "nvidia-smi not found"
fi

# ------------------------------------------------------------------- build
if [ -z "$prebuilt" ]; then
    b=$src/_build-gpu
    t0=$(date +%s)
    (
        set -e
        [ -x configure ] || autoreconf -fi
        mkdir -p "$b" && cd "$b"
        [ -f Makefile ] || "$src/configure" -q --with-cuda
        make -j"$jobs" libnla.la libnla-cuda.la tools/nla
        make -j"$jobs" tests/test_cuda tests/test_runtime tests/test_fft_nd tests/libnla-mock.la \
            tests/libnla-mock-badabi.la
    ) >"$log/build" 2>&1
    if [ $? -ne 0 ]; then
        tail -n 40 "$log/build"
        step build FAIL "see above; a missing dependency: build elsewhere and use --prebuilt"
        exit 1
    fi
    step build ok "$(($(date +%s) - t0)) s"
    plugin=$b/.libs/libnla-cuda.so
    libdir=$b/.libs
    nla=$b/tools/nla
    pick() { echo "$b/tests/$1"; }
    mocks=$b/tests/.libs
else
    if [ -d "$prebuilt/bin" ]; then # a bundle
        libdir=$prebuilt/.libs
        nla=$prebuilt/bin/nla
        pick() { echo "$prebuilt/tests/$1"; }
        mocks=$prebuilt/tests/.libs
    else # a build tree
        libdir=$prebuilt/.libs
        nla=$prebuilt/tools/.libs/nla
        [ -f "$nla" ] || nla=$prebuilt/tools/.libs/lt-nla
        pick() { if [ -f "$prebuilt/tests/.libs/$1" ]; then echo "$prebuilt/tests/.libs/$1";
                 else echo "$prebuilt/tests/.libs/lt-$1"; fi; }
        mocks=$prebuilt/tests/.libs
    fi
    plugin=$libdir/libnla-cuda.so
    export LD_LIBRARY_PATH=$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    # cuBLAS and cuFFT for the bench, where the loader would not look
    [ -d /usr/local/cuda/lib64 ] && LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/usr/local/cuda/lib64
    missing=$(ldd "$nla" "$(pick test_cuda)" 2>/dev/null | grep 'not found' | sort -u | awk '{print $1}' | tr '\n' ' ')
    step build "skipped (--prebuilt $prebuilt)" "${missing:+missing here: $missing}"
fi
export NLA_PLUGIN_PATH=$plugin NLA_WITH_CUDA=yes NLA_CUDA_PLUGIN=$plugin
export NLA_MOCK_PLUGIN=$mocks/libnla-mock.so NLA_MOCK_BADABI_PLUGIN=$mocks/libnla-mock-badabi.so
export NLA_BUILDDIR=${b:-$prebuilt}
unset NLA_BACKEND

# ----------------------------------------------------------------- kernels
# tests/cuda_kernels_check.cu: the GEMM, level-2 and FFT kernels alone against naive
# host code (make check runs the same program on a CPU emulation), once per
# double-GEMM kernel, since the tensor-core fragment layouts are first
# checked on hardware here.  Needs only nvcc.
nvcc_bin=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ -x "$nvcc_bin" ]; then
    t0=$(date +%s)
    if "$nvcc_bin" -std=c++17 -O2 -gencode arch=compute_90,code=sm_90 -Iinclude -Isrc -Isrc/cuda \
        tests/cuda_kernels_check.cu src/cuda/gemm.cu src/cuda/fft.cu src/cuda/fft_mixed.cu \
        src/cuda/fft_plan.cu src/cuda/level2.cu \
        -o "$log/cuda_kernels_check" >"$log/kcheck.build" 2>&1; then
        kres=ok kdet=
        # each double kernel on both tile sizes (NLA_CUDA_GEMM_TILES: the
        # big tiles are otherwise picked only once they fill the 132 SMs,
        # which --quick's sizes never do); float follows the same tiles
        for kt in mma16816:big mma16816:small mma884:big mma884:small simt:big; do
            k=${kt%:*} t=${kt#*:}
            NLA_CUDA_DGEMM=$k NLA_CUDA_GEMM_TILES=$t timeout 150 "$log/cuda_kernels_check" \
                --quick >"$log/kcheck.$k.$t" 2>&1
            rc=$?
            echo "   dgemm $k, $t tiles: $(tail -n 1 "$log/kcheck.$k.$t")"
            if [ $rc -ne 0 ]; then
                grep -a -v ' ok$' "$log/kcheck.$k.$t" | head -n 12
                kres=FAIL kdet="$kdet $k $t: exit $rc;"
            fi
        done
        step "kernel check" "$kres" "${kdet:-3 GEMM kernels x tile sizes + level 2 + FFT, --quick, $(($(date +%s) - t0)) s}"
    else
        tail -n 20 "$log/kcheck.build"
        step "kernel check" FAIL "tests/cuda_kernels_check.cu does not build"
    fi
else
    step "kernel check" "not run" "no nvcc"
fi

# -------------------------------------------------------------------- info
if "$nla" info >"$log/info" 2>&1; then
    grep -E '^  (cuda|auto)' "$log/info"
    if grep -q '^  cuda  available' "$log/info"; then
        step "nla info" ok "cuda available"
    else
        step "nla info" FAIL "$(grep '^  cuda' "$log/info" | sed 's/^ *//')"
    fi
else
    cat "$log/info"
    step "nla info" FAIL "does not run"
fi

# ------------------------------------------------------------------- tests
run_tests() { # name program timeout [env...]
    local name=$1 prog=$2 limit=$3
    shift 3
    if [ ! -x "$prog" ]; then
        step "$name" "not run" "$prog missing"
        return
    fi
    env "$@" timeout "$limit" "$prog" -j"$jobs" --verbose >"$log/$name" 2>&1
    local rc=$? syn
    syn=$(grep -a 'Synthesis:' "$log/$name" | tail -1 | sed 's/.*Synthesis: //')
    grep -aE '^\[(FAIL|SKIP)\]|^\[----\].*(Assertion|error)' "$log/$name" | head -n 20
    if [ $rc -eq 0 ] && ! grep -aq '^\[SKIP\] cuda::' "$log/$name"; then
        step "$name" ok "$syn"
    elif [ $rc -eq 124 ]; then
        step "$name" "FAIL" "timed out after $limit s; $syn"
    elif [ $rc -eq 0 ] || [ $rc -eq 77 ]; then
        step "$name" "FAIL" "GPU tests skipped (no device?): $syn"
    else
        step "$name" FAIL "exit $rc; $syn"
    fi
}
t0=$(date +%s)
run_tests test_cuda "$(pick test_cuda)" 240
run_tests test_runtime "$(pick test_runtime)" 60 NLA_BACKEND=
run_tests test_fft_nd "$(pick test_fft_nd)" 120
echo "   ($(($(date +%s) - t0)) s)"

if command -v compute-sanitizer >/dev/null 2>&1 ||
   [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    cs=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    t0=$(date +%s)
    # Criterion forks a process per test: the sanitizer follows children.
    # API errors are not reported: tests provoke them on purpose (a huge
    # cudaMalloc must give NLA_ENOMEM) and assert libnla's status instead.
    NLA_TEST_CUDA_QUICK=1 timeout 200 "$cs" --tool memcheck --target-processes all \
        --report-api-errors no --error-exitcode 86 "$(pick test_cuda)" -j4 --filter 'cuda/*' >"$log/sanitizer" 2>&1
    rc=$?
    errs=$(grep -aE '^========= (Invalid|Program hit|ERROR SUMMARY: [1-9])' "$log/sanitizer" | head -n 5)
    syn=$(grep -a 'Synthesis:' "$log/sanitizer" | tail -1 | sed 's/.*Synthesis: //')
    if [ $rc -eq 0 ]; then
        step compute-sanitizer ok "memcheck, reduced sizes, $(($(date +%s) - t0)) s; $syn"
    elif [ $rc -eq 124 ]; then
        step compute-sanitizer "not finished" "timed out after 200 s; $syn"
    else
        echo "$errs"
        grep -a -B2 -A12 '^========= Invalid' "$log/sanitizer" | head -n 40
        step compute-sanitizer FAIL "exit $rc; $syn"
    fi
else
    step compute-sanitizer "not run" "compute-sanitizer not installed"
fi

# ------------------------------------------------------------------- bench
t0=$(date +%s)
timeout 300 "$nla" bench --backend cuda --json >"$log/bench.json" 2>"$log/bench.err"
rc=$?
cat "$log/bench.err"
if [ -s "$log/bench.json" ] && command -v python3 >/dev/null; then
    python3 - "$log/bench.json" <<'EOF' | tee "$log/bench.table"
import json, sys
d = json.load(open(sys.argv[1]))
print("nla bench --backend cuda on %s (%d SMs), d2d memcpy %.0f GB/s" %
      (d["device"], d["sms"], d["memcpy_gbs"]))
print("%-7s %-24s %10s %10s %8s %7s %s" % ("op", "shape", "libnla", "ref", "unit", "ratio", "memcpy"))
for r in d["rows"]:
    if "nla" not in r:
        print("%-7s %-24s %s (err %.2g, tol %.2g)" % (r["op"], r["shape"], r["check"], r["max_rel_err"], r["tol"]))
        continue
    frac = "%5.1f%%" % (100 * r["memcpy_fraction"]) if r["unit"] == "GB/s" else ""
    print("%-7s %-24s %10.1f %10.1f %8s %7.3f %s" % (r["op"], r["shape"], r["nla"]["median"],
          r["ref"]["median"], r["unit"], r["ratio"], frac))
EOF
fi
if [ $rc -eq 0 ]; then
    step "nla bench --backend cuda" ok "$(($(date +%s) - t0)) s"
else
    step "nla bench --backend cuda" FAIL "exit $rc"
fi

# ----------------------------------------------------------------- summary
summ() { # op regex -> "min..max" of the ratio or the memcpy fraction
    [ -s "$log/bench.json" ] || { echo "-"; return; }
    python3 - "$log/bench.json" "$1" "$2" <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
v = [r[sys.argv[3]] for r in d["rows"] if re.match(sys.argv[2], r["op"] + " " + r["shape"]) and "nla" in r]
print("-" if not v else "%.2f..%.2f" % (min(v), max(v)))
EOF
}
echo
echo "================================ gpu-check summary ($(($(date +%s) - t_start)) s)"
for s in "${steps[@]}"; do
    printf '%-26s %s\n' "$s" "${result[$s]}"
done
if [ -s "$log/bench.json" ]; then
    printf '%-26s %s (target >= 0.9)\n' "DGEMM / cuBLAS" "$(summ 'dgemm' ratio)"
    printf '%-26s %s\n' "SGEMM / cuBLAS" "$(summ 'sgemm' ratio)"
    printf '%-26s %s (target >= 0.80)\n' "gbmv, spmv / memcpy" "$(summ '.(gbmv|spmv)' memcpy_fraction)"
    printf '%-26s %s\n' "gemv / memcpy" "$(summ '.gemv' memcpy_fraction)"
    printf '%-26s %s (target >= 0.7)\n' "FFT / cuFFT" "$(summ '.fft' ratio)"
    printf '%-26s %s\n' "Frank-Wolfe 3000x4000" "$(python3 - "$log/bench.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
v = [r for r in d["rows"] if r["op"] == "dfw" and "nla" in r]
print("-" if not v else "%.1f us/iteration = %.2f x the time of a cuBLAS dgemv pair (N + T)" %
      (1e6 / v[0]["nla"]["median"], 1 / v[0]["ratio"]))
EOF
)"
fi
echo "logs: $log"
exit $((fails > 0))
