#!/bin/sh
# nla wisdom: measured plans of the sizes given, their wisdom written out;
# the file it writes is read back by --in and by libnla, and bad arguments
# are usage errors (status 2).
top=${NLA_BUILDDIR:-.}
nla=$top/tools/nla
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nla-wisdom.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$nla" wisdom --precision both --kind both 64 1000 131 >"$tmp/out" 2>"$tmp/err" ||
    fail "nla wisdom exited $?: $(cat "$tmp/err")"
[ "$(head -n 1 "$tmp/out")" = "nla-fft-wisdom 1" ] || fail "no header: $(head -n 1 "$tmp/out")"
[ "$(tail -n 1 "$tmp/out")" = "end" ] || fail "no end line"
# c2c 64, 1000, 131 and r2c cores 32, 500, 131 (Bluestein); each precision and direction
for line in "d 64 f " "d 64 b " "s 1000 b " "d 32 f " "s 500 b " "d 131 f b"; do
    grep -q "^$line" "$tmp/out" || fail "no '$line' line in: $(cat "$tmp/out")"
done
[ "$(grep -c '^[ds] ' "$tmp/out")" -eq 20 ] || fail "expected 20 entries: $(cat "$tmp/out")"
echo "PASS: nla wisdom writes an entry per size, precision, direction and core"

"$nla" wisdom -o "$tmp/w" 256 >"$tmp/err" 2>&1 || fail "nla wisdom -o: $(cat "$tmp/err")"
"$nla" wisdom --in "$tmp/w" 128 >"$tmp/out2" 2>"$tmp/err" ||
    fail "nla wisdom --in: $(cat "$tmp/err")"
grep -q '^d 256 f ' "$tmp/out2" && grep -q '^d 128 b ' "$tmp/out2" ||
    fail "--in lost or missed entries: $(cat "$tmp/out2")"
echo "PASS: -o writes wisdom that --in reads back"

for args in "" "0" "12x" "--precision q 8" "--kind r2r 8" "--threads 0 8" "-o"; do
    # shellcheck disable=SC2086
    "$nla" wisdom $args >/dev/null 2>&1
    st=$?
    [ "$st" -eq 2 ] || fail "nla wisdom $args: status $st, expected 2"
done
printf 'nla-fft-wisdom 1\nd 64 f s4.4\nend\n' >"$tmp/bad"
"$nla" wisdom --in "$tmp/bad" 8 >/dev/null 2>"$tmp/err" && fail "--in took bad wisdom"
grep -q "line 2" "$tmp/err" || fail "no line named: $(cat "$tmp/err")"
echo "PASS: bad arguments are usage errors; bad wisdom is named by line"
