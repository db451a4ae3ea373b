#!/bin/sh
# The reference BLAS/CBLAS test programs of Debian's libblas-test, run with
# libnlablas preloaded, for the routines libnlablas provides (gemm, gemv,
# gbmv, spmv); every other routine is switched off in a copy of the input
# files.  Both the computational tests and the error-exit tests must pass,
# and LD_DEBUG=bindings must show that the programs' calls were bound to
# libnlablas, not to the system BLAS.
#
# libnlablas defines no error handler (xerbla_, cblas_xerbla): preloaded
# under Debian's NumPy, a bad LAPACK argument must still raise NumPy's
# ValueError; and where the process has no handler, a bad argument prints
# the reference message and the call returns (Python's ctypes).
#
# NLA_BLAS_TEST_DIR overrides where the programs are looked for.
builddir=${NLA_BUILDDIR:-.}
lib="$builddir/.libs/libnlablas.so"
[ -f "$lib" ] || { echo "SKIP: $lib not built (static-only build)"; exit 77; }

dir=${NLA_BLAS_TEST_DIR:-}
if [ -z "$dir" ] && command -v dpkg >/dev/null 2>&1; then
    prog=$(dpkg -L libblas-test 2>/dev/null | grep '/xblat2d$' | head -n 1)
    [ -n "$prog" ] && dir=$(dirname "$prog")
fi
if [ -z "$dir" ] || [ ! -x "$dir/xblat2d" ]; then
    echo "SKIP: the reference BLAS test programs are not installed"
    echo "      (Debian: apt-get install libblas-test; or set NLA_BLAS_TEST_DIR)"
    exit 77
fi

# Only the BLAS routines are exported (no error handler).
want='cblas_dgbmv cblas_dgemm cblas_dgemv cblas_dspmv cblas_sgbmv cblas_sgemm
cblas_sgemv cblas_sspmv dgbmv_ dgemm_ dgemv_ dspmv_ sgbmv_ sgemm_ sgemv_ sspmv_'
got=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sort | tr '\n' ' ')
want=$(echo $want | tr ' ' '\n' | sort | tr '\n' ' ')
if [ "$got" != "$want" ]; then
    echo "FAIL: $lib exports"
    echo "   $got"
    echo "expected"
    echo "   $want"
    exit 1
fi
echo "PASS: $lib exports exactly the BLAS routines"

work=$(mktemp -d "${TMPDIR:-/tmp}/nla-blas-dropin.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
abslib=$(cd "$(dirname "$lib")" && pwd)/libnlablas.so
preload=$abslib
# A sanitizer build (configure --enable-sanitizers or --enable-tsan): the
# test programs are not instrumented, so the sanitizer runtime that
# libnlablas needs must be loaded before anything else: preload it first
# (gcc links it as a shared library, which ldd names; clang links it into
# programs only, so take clang's shared copy).  Leak detection stays on.
san_rt=$(ldd "$lib" 2>/dev/null | awk '$1 ~ /^lib(a|t)san\.so/ { print $3 }')
if [ -z "$san_rt" ] && nm -D "$lib" | grep -q ' U __asan_init'; then
    san_rt=$(${NLA_CC:-cc} -print-file-name="libclang_rt.asan-$(uname -m).so")
    [ -f "$san_rt" ] || { echo "SKIP: $lib needs the ASan runtime, none found"; exit 77; }
fi
if [ -n "$san_rt" ]; then
    preload="$(echo $san_rt) $abslib"
    echo "sanitizer build: preloading $preload"
fi
# The CBLAS test programs use RowMajorStrg, a global of reference CBLAS, so
# they run against the reference libblas.so.3 installed beside them (found
# through LD_LIBRARY_PATH), whatever BLAS the system has selected.
status=0

# prog input routines...: run one program on a copy of its input file with
# only the named routines switched on, then check its output.
run() {
    prog=$1 input=$2
    shift 2
    sed -E 's/^([A-Za-z0-9_]+ +)T( +PUT F FOR NO TEST)/\1F\2/' "$dir/$input" > "$work/$input"
    for r in "$@"; do
        sed -i -E "s/^($r +)F( +PUT F FOR NO TEST)/\\1T\\2/" "$work/$input"
    done
    rm -f "$work"/ld.*
    ( cd "$work" &&
      LD_PRELOAD="$preload${LD_PRELOAD:+ $LD_PRELOAD}" \
      LD_LIBRARY_PATH="$(dirname "$abslib"):$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      LD_DEBUG=bindings LD_DEBUG_OUTPUT="$work/ld" \
      "$dir/$prog" < "$input" > "$prog.log" 2>&1 )
    rc=$?
    out="$work/$prog.log"
    for f in "$work"/*.out; do [ -f "$f" ] && cat "$f" >> "$out" && rm -f "$f"; done
    ok=1
    [ $rc -eq 0 ] || { echo "FAIL: $prog exited with $rc"; ok=0; }
    grep -q 'END OF TESTS' "$out" || { echo "FAIL: $prog did not reach END OF TESTS"; ok=0; }
    if grep -Eq 'FAIL|\*\*\*\*\*' "$out"; then
        echo "FAIL: $prog reports failures:"
        grep -E 'FAIL|\*\*\*\*\*' "$out" | head -n 20
        ok=0
    fi
    for r in "$@"; do
        name=$(echo "$r" | sed 's/^cblas_//' | tr 'A-Z' 'a-z')
        lines=$(grep -E "^ *$r +PASSED" "$out")
        echo "$lines" | grep -q 'ERROR-EXITS' ||
            { echo "FAIL: $prog: no 'PASSED THE TESTS OF ERROR-EXITS' for $r"; ok=0; }
        case $r in
        cblas_*)
            for major in COLUMN-MAJOR ROW-MAJOR; do
                echo "$lines" | grep -Eq "PASSED THE $major +COMPUTATIONAL" ||
                    { echo "FAIL: $prog: no $major computational pass for $r"; ok=0; }
            done
            sym=cblas_$name ;;
        *)
            echo "$lines" | grep -q 'PASSED THE COMPUTATIONAL' ||
                { echo "FAIL: $prog: no computational pass for $r"; ok=0; }
            sym=${name}_ ;;
        esac
        # the program's calls of this routine went to libnlablas
        if ! cat "$work"/ld.* 2>/dev/null |
                grep -q "to [^ ]*libnlablas\.so[^ ]* \[[0-9]*\]: normal symbol \`$sym'"; then
            echo "FAIL: $prog: $sym was not bound to libnlablas (LD_DEBUG=bindings)"
            ok=0
        fi
        echo "$lines" | sed "s/^/  $prog: /"
    done
    if [ $ok -eq 1 ]; then
        echo "PASS: $prog ($*), bound to libnlablas"
    else
        echo "--- $prog output:"; cat "$out"
        status=1
    fi
}

# The error handlers, from Python (Debian's python3-numpy).  A sanitizer
# build's libnlablas needs its runtime preloaded into an uninstrumented
# interpreter; these checks are for the plain build.
py=/usr/bin/python3
if [ -n "$san_rt" ]; then
    echo "SKIP: error-handler checks from Python (sanitizer build)"
elif ! "$py" -c 'import numpy' 2>/dev/null; then
    echo "SKIP: error-handler checks: $py with NumPy not found (Debian: apt-get install python3-numpy)"
else
    # NumPy's LAPACK module defines xerbla_ to raise ValueError; DORGQR's
    # argument 5 (lda = 0) is illegal.  The preloaded libnlablas must not
    # take the handler over.
    out=$(LD_PRELOAD="$abslib" "$py" -c '
import numpy as np
from numpy.linalg import lapack_lite
a = np.array([[1.0]])
try:
    lapack_lite.dorgqr(1, 1, 1, a, 0, a, a, 0, 0)
    print("returned, no ValueError")
except ValueError as e:
    print("ValueError:", e)
b = np.arange(1.0, 7.0).reshape(2, 3)
print("dot", (b @ b.T).ravel().tolist())
' 2>&1)
    if echo "$out" | grep -q '^ValueError: On entry to DORGQR parameter number 5' &&
       echo "$out" | grep -q '^dot \[14.0, 32.0, 32.0, 77.0\]'; then
        echo "PASS: NumPy under LD_PRELOAD=libnlablas: its LAPACK error raises ValueError"
    else
        echo "FAIL: NumPy under LD_PRELOAD=libnlablas:"
        echo "$out" | sed 's/^/   /'
        status=1
    fi
    # no handler in the process: the reference message, and nothing written
    out=$("$py" -c '
import ctypes
lib = ctypes.CDLL("'"$abslib"'")
r = ctypes.byref
one, zero = ctypes.c_int(1), ctypes.c_int(0)
al, be = ctypes.c_double(1.0), ctypes.c_double(0.0)
a, c = (ctypes.c_double * 1)(2.0), (ctypes.c_double * 1)(-7.0)
lib.dgemm_(b"N", b"N", r(one), r(one), r(one), r(al), a, r(zero), a, r(one), r(be), c,
           r(one))
lib.cblas_dgemv(101, 111, 1, 1, al, a, 0, a, 1, be, c, 1)
print("c", c[0])
' 2>&1)
    if echo "$out" | grep -q ' \*\* On entry to DGEMM parameter number  8 had an illegal value' &&
       echo "$out" | grep -q 'Parameter 7 to routine cblas_dgemv was incorrect' &&
       echo "$out" | grep -q '^c -7.0$'; then
        echo "PASS: with no handler in the process, libnlablas reports and returns"
    else
        echo "FAIL: libnlablas with no handler in the process:"
        echo "$out" | sed 's/^/   /'
        status=1
    fi
fi

run xblat2d dblat2.in DGEMV DGBMV DSPMV
run xblat2s sblat2.in SGEMV SGBMV SSPMV
run xblat3d dblat3.in DGEMM
run xblat3s sblat3.in SGEMM
run xdcblat2 din2 cblas_dgemv cblas_dgbmv cblas_dspmv
run xscblat2 sin2 cblas_sgemv cblas_sgbmv cblas_sspmv
run xdcblat3 din3 cblas_dgemm
run xscblat3 sin3 cblas_sgemm
exit $status
