#!/bin/sh
# check-install.sh - `make install DESTDIR=...` installs everything a user
# needs, and an example builds against the installed copy with nothing but
# `pkg-config --cflags --libs nla`, and runs.
#
# Needs from make (AM_TESTS_ENVIRONMENT): NLA_BUILDDIR, NLA_MAKE, NLA_CC and
# the installation directories NLA_{BIN,LIB,INCLUDE,MAN,PKGCONFIG}DIR.
: "${NLA_BUILDDIR:?}" "${NLA_MAKE:=make}" "${NLA_CC:=cc}"
src="${srcdir:-.}"
if ! command -v pkg-config >/dev/null 2>&1; then
    echo "SKIP: pkg-config is not installed"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nla-install.XXXXXX") || exit 1
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# the parent make's jobserver is not ours to use: run the install serially
if ! MAKEFLAGS= MFLAGS= $NLA_MAKE -C "$NLA_BUILDDIR" install DESTDIR="$tmp" \
        > "$tmp/install.log" 2>&1; then
    cat "$tmp/install.log"
    fail "make install DESTDIR=$tmp"
fi

root=$tmp
for f in "$NLA_INCLUDEDIR/nla.h" "$NLA_PKGCONFIGDIR/nla.pc" "$NLA_BINDIR/nla" \
         "$NLA_LIBDIR/libnla.la" "$NLA_MANDIR/man1/nla.1" "$NLA_MANDIR/man3/nla.3" \
         "$NLA_MANDIR/man7/nla.7" "$NLA_MANDIR/man3/nla_dgemm.3" \
         "$NLA_MANDIR/man3/nla_sgemm.3"; do
    [ -f "$root$f" ] || fail "$f was not installed"
done
# the BLAS drop-in, where the build has one
if [ -f "$NLA_BUILDDIR/libnlablas.la" ] && [ ! -f "$root$NLA_LIBDIR/libnlablas.la" ]; then
    fail "$NLA_LIBDIR/libnlablas.la was not installed"
fi
grep -qx '\.so man3/nla_dgemm\.3' "$root$NLA_MANDIR/man3/nla_sgemm.3" ||
    fail "the alias page nla_sgemm.3 does not point to nla_dgemm.3"
echo "installed: header, nla.pc, the nla command, libnla, man pages (1, 3, 7) and aliases"

PKG_CONFIG_LIBDIR="$root$NLA_PKGCONFIGDIR" PKG_CONFIG_SYSROOT_DIR="$root"
PKG_CONFIG_PATH=
export PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH
if [ -f "$root$NLA_LIBDIR/libnla.so" ]; then
    flags=$(pkg-config --cflags --libs nla) || fail "pkg-config --cflags --libs nla"
else
    flags=$(pkg-config --static --cflags --libs nla) || fail "pkg-config --static nla"
fi
echo "pkg-config --cflags --libs nla: $flags"
# a sanitizer build's libnla needs its runtime in the program too
# (NLA_SAN_FLAGS: configure --enable-sanitizers / --enable-tsan, else empty)
# shellcheck disable=SC2086
$NLA_CC ${NLA_SAN_FLAGS:-} "$src/examples/gemm_rowmajor.c" -o "$tmp/gemm_rowmajor" $flags ||
    fail "the example does not build against the installed copy"
LD_LIBRARY_PATH="$root$NLA_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$tmp/gemm_rowmajor" || fail "the example built against the installed copy fails"
LD_LIBRARY_PATH="$root$NLA_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    "$root$NLA_BINDIR/nla" version || fail "the installed nla command does not run"
# the command links libnla only: nla bench loads its references when it runs
refs=$(readelf -d "$root$NLA_BINDIR/nla" | grep NEEDED | grep -Ei 'blas|fftw|gsl|lapack|mkl|blis')
[ -z "$refs" ] || fail "the installed nla links a reference: $refs"
echo "PASS: installed copy works with pkg-config alone; nla links no CBLAS, FFTW or GSL"

# libnla-mpi, where the build has it: its example against nla-mpi.pc alone
if [ "${NLA_WITH_MPI:-no}" = yes ]; then
    [ -f "$root$NLA_INCLUDEDIR/nla_mpi.h" ] && [ -f "$root$NLA_PKGCONFIGDIR/nla-mpi.pc" ] &&
        [ -f "$root$NLA_LIBDIR/libnla-mpi.la" ] && [ -f "$root$NLA_MANDIR/man3/nla_mpi_dgemm.3" ] ||
        fail "libnla-mpi's header, nla-mpi.pc, library or man pages were not installed"
    # nla-mpi.pc requires MPI's own module, which lives outside DESTDIR: the
    # installed .pc files with their prefix moved into DESTDIR, searched
    # before the system's
    mkdir -p "$tmp/pc"
    for pc in nla nla-mpi; do
        sed "s|^prefix=|prefix=$root|" "$root$NLA_PKGCONFIGDIR/$pc.pc" > "$tmp/pc/$pc.pc"
    done
    mflags=$(unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR; PKG_CONFIG_PATH="$tmp/pc" \
             pkg-config --cflags --libs nla-mpi) || fail "pkg-config --cflags --libs nla-mpi"
    # shellcheck disable=SC2086
    $NLA_CC ${NLA_SAN_FLAGS:-} "$src/examples/mpi_gemm.c" -o "$tmp/mpi_gemm" $mflags ||
        fail "examples/mpi_gemm.c does not build with pkg-config nla-mpi"
    if [ -n "${NLA_MPIRUN:-}" ]; then
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader \
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0" \
        LSAN_OPTIONS="suppressions=$src/tests/lsan-mpi.supp:print_suppressions=0" \
        LD_LIBRARY_PATH="$root$NLA_LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
            timeout 120 "$NLA_MPIRUN" -np 2 --oversubscribe "$tmp/mpi_gemm" ||
            fail "examples/mpi_gemm built against the installed copy fails on 2 processes"
    fi
    echo "PASS: libnla-mpi installed; its example builds with pkg-config nla-mpi alone"
fi

# the build tree itself, through nla-uninstalled.pc
unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
PKG_CONFIG_PATH=$NLA_BUILDDIR
export PKG_CONFIG_PATH
if [ -f "$NLA_BUILDDIR/.libs/libnla.so" ]; then
    flags=$(pkg-config --cflags --libs nla) || fail "pkg-config nla from the build tree"
else
    flags=$(pkg-config --static --cflags --libs nla) || fail "pkg-config --static nla (build tree)"
fi
case $flags in
*"$NLA_BUILDDIR/.libs"*) ;;
*) fail "pkg-config with PKG_CONFIG_PATH=$NLA_BUILDDIR did not take nla-uninstalled.pc: $flags" ;;
esac
# shellcheck disable=SC2086
$NLA_CC ${NLA_SAN_FLAGS:-} "$src/examples/gemm_rowmajor.c" -o "$tmp/gemm_tree" $flags ||
    fail "the example does not build against the build tree"
LD_LIBRARY_PATH="$NLA_BUILDDIR/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/gemm_tree" ||
    fail "the example built against the build tree fails"
echo "PASS: the build tree works with PKG_CONFIG_PATH (nla-uninstalled.pc)"
