#!/bin/sh
# nla bench finds its references when it runs (tools/bench_libs.c): the nla
# program links libnla only, and a short bench checks every row against
# the references it finds, with a column for each other CBLAS.
top=${NLA_BUILDDIR:-.}
nla=$top/tools/nla
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nla-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# what the program links (libtool keeps the real one in tools/.libs)
real=$top/tools/.libs/nla
[ -f "$real" ] || real=$nla
refs=$(readelf -d "$real" | grep NEEDED | grep -Ei 'blas|fftw|gsl|lapack|mkl|blis')
[ -z "$refs" ] || fail "tools/nla links a reference: $refs"
echo "PASS: nla links no CBLAS, FFTW or GSL"

# a short run: every row must pass its check against the references found
"$nla" bench dgemv sgbmv dgemm fft fftplan --n 256 --quick --json >"$tmp/out.json" 2>"$tmp/err" ||
    fail "nla bench exited $?: $(cat "$tmp/err")"
rows=$(grep -c '"op": ' "$tmp/out.json")
ok=$(grep -c '^     "check": "ok"' "$tmp/out.json")
[ "$rows" -ge 13 ] || fail "nla bench gave $rows rows, expected at least 13"
grep -q '"op": "fftplan"' "$tmp/out.json" || fail "no fftplan row"
[ "$ok" -eq "$rows" ] || fail "$ok of $rows rows passed their check"
grep -q '"references": \[{"id": "[a-z]*-[0-9]' "$tmp/out.json" ||
    fail "the JSON names no reference with its version"
ids=$(sed -n 's/.*"id": "\([^"]*\)", "kind": "\([a-z]*\)".*/\2:\1/p' "$tmp/out.json" |
      tr '\n' ' ')
grep -q '"kind": "cblas"' "$tmp/out.json" || fail "no CBLAS found ($ids)"
grep -q '"kind": "fftw"' "$tmp/out.json" || fail "no FFTW found ($ids)"
grep -q '"kind": "gsl"' "$tmp/out.json" || fail "no GSL found ($ids)"
# each CBLAS after the first is a column of its own, checked too
ncblas=$(grep -o '"kind": "cblas"' "$tmp/out.json" | wc -l)
if [ "$ncblas" -gt 1 ]; then
    grep -q '"other_refs": \[{"id": "[^"]*", "check": "ok"' "$tmp/out.json" ||
        fail "$ncblas CBLAS found, but no row shows the others"
fi
echo "PASS: $rows rows checked against $ids"

# --refs keeps some; a name that matches none is a usage error
"$nla" bench dgemv --n 64 --quick --refs openblas,fftw >"$tmp/t" 2>&1 ||
    fail "--refs openblas,fftw: exit $?: $(cat "$tmp/t")"
if grep -q ' gsl-\| blis-\| mkl-' "$tmp/t"; then
    fail "--refs openblas,fftw kept another: $(grep -E ' (gsl|blis|mkl)-' "$tmp/t")"
fi
"$nla" bench dgemv --n 64 --quick --refs nosuchlib >"$tmp/t" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "no reference found is named 'nosuchlib'" "$tmp/t" ||
    fail "--refs nosuchlib: exit $rc, '$(cat "$tmp/t")'"
"$nla" bench dgemv --n 64 --quick --ref "$tmp/none.so" >"$tmp/t" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q "cannot load" "$tmp/t" || fail "--ref of a missing file: exit $rc"
echo "PASS: --refs keeps the references named; unknown names and files exit 2"
