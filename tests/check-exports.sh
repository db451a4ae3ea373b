#!/bin/sh
# libnla exports only nla_* symbols, and never links the CUDA runtime.
lib="${NLA_BUILDDIR:-.}/.libs/libnla.so"
[ -f "$lib" ] || { echo "SKIP: $lib not built (static-only build)"; exit 77; }
bad=$(nm -D --defined-only "$lib" | awk '{print $NF}' | grep -v '^nla_')
if [ -n "$bad" ]; then
    echo "FAIL: symbols outside the nla_ namespace exported from $lib:"
    echo "$bad"
    exit 1
fi
count=$(nm -D --defined-only "$lib" | grep -c ' nla_')
echo "exported nla_ symbols: $count"
if readelf -d "$lib" | grep -Ei 'NEEDED.*(libcuda|libcudart)'; then
    echo "FAIL: $lib links the CUDA runtime"
    exit 1
fi
echo "PASS: only nla_ symbols exported; no CUDA runtime linked"
# libnla-mpi, where the build has it: nla_mpi_* only
mlib="${NLA_BUILDDIR:-.}/.libs/libnla-mpi.so"
if [ -f "$mlib" ]; then
    bad=$(nm -D --defined-only "$mlib" | awk '{print $NF}' | grep -v '^nla_mpi_')
    if [ -n "$bad" ]; then
        echo "FAIL: symbols outside nla_mpi_ exported from $mlib:"
        echo "$bad"
        exit 1
    fi
    echo "PASS: libnla-mpi exports $(nm -D --defined-only "$mlib" | grep -c ' nla_mpi_') nla_mpi_ symbols only"
fi
