#!/bin/sh
# tests/valgrind-mpi.sh - make check-valgrind's run of tests/test_mpi: two
# processes under mpirun, each under $NLA_VG_CMD (libtool --mode=execute
# valgrind with the rule's flags), with Open MPI's own suppressions and
# tests/valgrind-mpi.supp (what Open MPI keeps until exit).  Its log is
# tests/test_mpi.valgrind.log; one PASS or FAIL line, as valgrind-one.sh.
t=tests/test_mpi
log=$t.valgrind.log
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader
export OMP_NUM_THREADS=1
supp="--suppressions=${NLA_SRCDIR:-.}/tests/valgrind-mpi.supp"
for f in /usr/share/openmpi/openmpi-valgrind.supp; do
    [ -f "$f" ] && supp="$supp --suppressions=$f"
done
start=$(date +%s)
# shellcheck disable=SC2086
if timeout 900 "$NLA_MPIRUN" -np 2 --oversubscribe $NLA_VG_CMD $supp "./$t" >"$log" 2>&1
then res=PASS; else res=FAIL; fi
echo "$res: valgrind $t on 2 processes ($(($(date +%s) - start)) s; $(awk \
    '/ERROR SUMMARY:/ { gsub(",", "", $4); e += $4 }
     /definitely lost:/ { gsub(",", "", $4); d += $4 }
     END { printf "%d errors, definitely lost %d B", e, d }' \
    "$log"); log $log)"
test $res = PASS
