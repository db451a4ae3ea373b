#!/usr/bin/env bash
# tests/fuzz/run.sh - build and run the libFuzzer harnesses (issue 9).
#
#   tests/fuzz/run.sh [SECONDS] [HARNESS...]
#
# Compiles libnla's sources and each harness directly with clang
# (-fsanitize=fuzzer,address,undefined; needs clang and libclang-rt-dev),
# then runs each harness (default: fuzz_blas, fuzz_fft, fuzz_fw) for
# SECONDS (default 60) on 1 job, as many harnesses at once as there are
# cores, seeded from tests/fuzz/corpus/<harness>/ (new inputs go to a
# scratch copy, the committed corpus is not modified).  Prints, per
# harness, the executions and the distinct invalid-argument patterns.  Exits non-zero on a
# contract violation or sanitizer report (the crashing input is kept in
# $NLA_FUZZ_DIR/<harness>/).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${1:-60}
shift || true
harnesses=${*:-fuzz_blas fuzz_fft fuzz_fw}
out=${NLA_FUZZ_DIR:-$top/_fuzz}
CC=${CC_FUZZ:-clang}
mkdir -p "$out/obj"

san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
cflags="-std=gnu11 -g -O1 -fno-omit-frame-pointer -fopenmp -I$top/include -I$top/src
        -DNLA_BUILDING_LIBRARY -DNLA_VERSION_STRING=\"fuzz\" -DNLA_PKGLIBDIR=\"/nonexistent\"
        -Wall -Wextra -Wno-unknown-pragmas"
[ "$(uname -m)" = x86_64 ] && cflags="$cflags -DNLA_HAVE_X86_KERNELS"

echo "== building libnla with $CC ($san)"
objs=()
for src in $(cd "$top" && find src -name '*.c' ! -path 'src/cuda/*' ! -path 'src/blasapi/*' ! -path 'src/mpi/*' | sort); do
    isa=
    case $src in
        */avx512.c|*/l2_avx512.c) isa="-mavx512f -mavx512dq -mavx512vl -mavx2 -mfma" ;;
        */avx2.c|*/l2_avx2.c) isa="-mavx2 -mfma" ;;
    esac
    [ "$(uname -m)" = x86_64 ] || [ -z "$isa" ] || continue
    obj=$out/obj/$(echo "$src" | tr / _ | sed 's/\.c$/.o/')
    # shellcheck disable=SC2086
    $CC $cflags $san $isa -c "$top/$src" -o "$obj" &
    objs+=("$obj")
    while [ "$(jobs -r | wc -l)" -ge "$(nproc)" ]; do wait -n; done
done
wait

# one harness, its verdict in $out/<harness>.result (PASS or FAIL first)
run_one() {
    local h=$1 work=$out/$1 log=$out/$1.log execs pats
    rm -rf "$work.corpus" && mkdir -p "$work.corpus"
    cp "$here/corpus/$h/"* "$work.corpus/" 2>/dev/null || true
    if ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 OMP_NUM_THREADS=1 \
       "$out/$h" -seed="${NLA_FUZZ_SEED:-1}" -max_total_time="$secs" -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 \
           -artifact_prefix="$work." "$work.corpus" >"$log" 2>&1; then
        execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
        pats=$(grep -a '^fuzz: ' "$log" | tail -n 1)
        printf 'PASS\n%s\n' "$h: ${execs:-?} executions in ${secs}s; ${pats#fuzz: }" \
            >"$out/$h.result"
    else
        { echo FAIL; tail -n 40 "$log"; echo "$h: FAILED (log $log)"; } >"$out/$h.result"
    fi
}

for h in $harnesses; do
    echo "== $h"
    # shellcheck disable=SC2086
    $CC $cflags -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        "$here/$h.c" "${objs[@]}" -lm -ldl -o "$out/$h"
    rm -f "$out/$h.result"
done
# the harnesses side by side, one a core (each runs one thread)
for h in $harnesses; do
    run_one "$h" &
    while [ "$(jobs -r | wc -l)" -ge "$(nproc)" ]; do wait -n; done
done
wait
status=0
for h in $harnesses; do
    if [ "$(head -n 1 "$out/$h.result" 2>/dev/null)" != PASS ]; then
        status=1
    fi
    tail -n +2 "$out/$h.result" 2>/dev/null || echo "$h: no result"
done
exit $status
