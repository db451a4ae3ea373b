#!/bin/sh
# tests/valgrind-one.sh PROGRAM - one program of make check-valgrind under
# $NLA_VG_CMD (libtool --mode=execute valgrind with the rule's flags), its
# log in PROGRAM.valgrind.log.  Prints one PASS or FAIL line with the time,
# valgrind's errors and the leaks, and exits non-zero on FAIL.
t=$1
log=$t.valgrind.log
start=$(date +%s)
# shellcheck disable=SC2086
if $NLA_VG_CMD "./$t" --jobs 1 >"$log" 2>&1; then res=PASS; else res=FAIL; fi
echo "$res: valgrind $t ($(($(date +%s) - start)) s; $(awk \
    '/ERROR SUMMARY:/ { gsub(",", "", $4); e += $4 }
     /definitely lost:/ { gsub(",", "", $4); d += $4 }
     /indirectly lost:/ { gsub(",", "", $4); i += $4 }
     END { printf "%d errors, definitely lost %d B, indirectly %d B", e, d, i }' \
    "$log"); log $log)"
test $res = PASS
