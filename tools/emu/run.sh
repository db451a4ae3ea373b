#!/bin/sh
# tools/emu/run.sh - the AVX-512 level-2 kernels (gemv, gbmv, spmv) run
# under an x86 emulator with AVX-512, for machines without it.  A
# developer's check, not part of make check: it needs PyPI (bochscpu-python
# and numpy), which CI does not reach.
#
#   tools/emu/run.sh [--quick] [--cover] [--lib]
#
# It compiles the three level-2 kernel tables (portable, AVX2, AVX-512)
# from this tree into one shared library beside a kernel getter (tabs.c),
# and runs l2check.py: every AVX-512 kernel (gemv N and T, each of the four
# gbmv band forms, spmv U and L) under the emulator and, as a control,
# every AVX2 kernel natively, against float64 references; each band form
# also in thread blocks, which must not change its bits.
# --cover also prints the share of each AVX-512 function's instructions
# that ran; --lib only builds the library.  EMU_WORK (default
# /tmp/nla-emu) holds the build; SEED picks the random inputs.
set -e
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
work=${EMU_WORK:-/tmp/nla-emu}
quick= cover= libonly=
for a in "$@"; do
    case $a in
    --quick) quick=1 ;;
    --cover) cover=1 ;;
    --lib) libonly=1 ;;
    *) echo "usage: tools/emu/run.sh [--quick] [--cover] [--lib]" >&2; exit 2 ;;
    esac
done
mkdir -p "$work"
CC=${CC:-gcc}
k=$top/src/blas/kernels
flags="-O2 -g -fPIC -DNLA_HAVE_X86_KERNELS -I$top/src -I$top/include"
$CC $flags -c "$k/l2_generic.c" -o "$work/g.o"
$CC $flags -mavx2 -mfma -c "$k/l2_avx2.c" -o "$work/a2.o"
$CC $flags -mavx512f -mavx512dq -mavx512vl -mavx2 -mfma -c "$k/l2_avx512.c" -o "$work/a5.o"
$CC $flags -c "$here/tabs.c" -o "$work/t.o"
$CC -shared -o "$work/libl2emu.so" "$work/g.o" "$work/a2.o" "$work/a5.o" "$work/t.o"
[ -n "$libonly" ] && exit 0

# bochscpu-python's wheel wants glibc 2.38's C23 strtoull and sscanf;
# older glibc (Debian 12 has 2.36) gets them from a preloaded shim.
$CC -shared -fPIC -O2 -o "$work/c23shim.so" "$here/c23shim.c"
pre=
python3 -c 'import numpy' 2>/dev/null || pip install -q numpy
if ! python3 -c 'import bochscpu' 2>/dev/null; then
    LD_PRELOAD=$work/c23shim.so python3 -c 'import bochscpu' 2>/dev/null ||
        pip install -q bochscpu-python==0.4.0
    python3 -c 'import bochscpu' 2>/dev/null || pre=$work/c23shim.so
fi
export PYTHONDONTWRITEBYTECODE=1  # no __pycache__ left in the tree
rc=0
for isa in avx512 avx2; do
    echo "== $isa ($( [ $isa = avx512 ] && echo emulated || echo native ))"
    EMU_LIB=$work/libl2emu.so ISA=$isa QUICK=$quick EMU_COVER=$( [ $isa = avx512 ] && echo "$cover" ) \
        LD_PRELOAD=$pre python3 "$here/l2check.py" > "$work/$isa.out" 2>&1 || rc=1
    grep -v '^nanobind:\|^ - leaked' "$work/$isa.out" || true
done
exit $rc
