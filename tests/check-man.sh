#!/bin/sh
# check-man.sh - every manual page passes `mandoc -Tlint -Wwarning`.
dir="${srcdir:-.}/doc"
if ! command -v mandoc >/dev/null 2>&1; then
    echo "SKIP: mandoc is not installed (apt-get install mandoc)"
    exit 77
fi
pages=$(ls "$dir"/*.[137])
[ -n "$pages" ] || { echo "FAIL: no pages in $dir"; exit 1; }
# mandoc exits non-zero on findings; print them all before failing
# shellcheck disable=SC2086
out=$(mandoc -Tlint -Wwarning $pages 2>&1)
status=$?
if [ -n "$out" ] || [ "$status" -ne 0 ]; then
    echo "$out"
    echo "FAIL: mandoc -Tlint -Wwarning reports findings (status $status)"
    exit 1
fi
echo "PASS: $(echo "$pages" | wc -l) pages, mandoc -Tlint -Wwarning: no findings"
