#!/bin/sh
# check-info-forms.sh - `nla info`'s level-2 form queries (tools/info_forms.c):
# each prints the form the library reports after a call of that shape, and
# a malformed query is a usage error (exit 2).  NLA_TUNE_CACHES fixes the
# caches (L2 1 MiB, L3 32 MiB), so gemv's bound is 2 MiB and spmv's 8 MiB
# on any machine; the band widths asked are past every table's crossovers
# or under all of them.  Run by make check (NLA_BUILDDIR set).
b=${NLA_BUILDDIR:-.}
nla="$b/tools/nla"
fail() { echo "FAIL: $*"; exit 1; }
[ -x "$nla" ] || fail "$nla was not built"
NLA_TUNE_CACHES=32K,1M,32M
export NLA_TUNE_CACHES
unset NLA_L2_FORM NLA_CPU_TUNE

q() { # the form's start, then the query
    want=$1
    shift
    got=$("$nla" info "$@") || fail "nla info $*: exit status $?"
    case $got in
    "$want"*) echo "ok: nla info $* -> $got" ;;
    *) fail "nla info $*: \"$got\", not \"$want...\"" ;;
    esac
}
q "spmv U few:" spmv d U 1000            # 4 MB, within the bound
q "spmv U many:" spmv d U 2000           # 16 MB
q "spmv L many:" spmv s L 3000           # 18 MB
q "spmv L few:" spmv s L 1
q "gemv T dotxf many:" gemv d T 1000 1000 1000   # 8 MB, columns 8000 B apart
q "gemv N axpyf few:" gemv s N 100 100 100       # within twice the L2
q "gemv N axpyf few:" gemv d N 1024 2000 1024    # 8 KiB apart: one L1 set
q "gbmv N rows:" gbmv d N 1000 1000 1 1
q "gbmv N cols:" gbmv s N 1000 1000 40 40
q "gbmv T diag:" gbmv s T 1000 1000 1 1
q "gbmv T dots:" gbmv d T 1000 1000 40 40

for bad in "spmv d X 3" "spmv d U 0" "spmv d U" "gemv d N 10 10 5" "gbmv q N 1 1 0 0"; do
    # shellcheck disable=SC2086
    "$nla" info $bad > /dev/null 2>&1
    rc=$?
    [ $rc -eq 2 ] || fail "nla info $bad: exit status $rc, not 2 (usage)"
    echo "ok: nla info $bad -> usage error"
done

table=$("$nla" info) || fail "nla info failed"
for row in "spmv d U" "spmv s L" "gemv d T" "gbmv s N"; do
    echo "$table" | grep -Eq "^  $row +(few|many|rows|cols|diag|dots)( |\$)" ||
        fail "nla info has no row \"$row\" with its forms"
done
echo "ok: nla info's table has the gbmv, gemv and spmv rows"
