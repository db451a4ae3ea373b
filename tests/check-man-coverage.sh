#!/bin/sh
# check-man-coverage.sh - every NLA_API function declared in the public
# headers (include/nla.h and include/nla_mpi.h) has a manual page, as a file
# doc/NAME.3 or as an alias (a .Nm name in the NAME section of another page),
# and every name a page lists is declared.  A header's overview page (doc/nla.3
# for nla.h, doc/nla_mpi.3 for nla_mpi.h) is named after the header, not after
# a function, and documents functions only through its .Nm names.
src="${srcdir:-.}"
headers="nla.h nla_mpi.h"
for h in $headers; do
    [ -f "$src/include/$h" ] || { echo "FAIL: $src/include/$h not found"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nla-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# NLA_API declarations may span lines: the name is the first nla_ word
# followed by "(" on the line that starts with NLA_API.
for h in $headers; do
    awk '/^NLA_API / { if (match($0, /nla_[a-z0-9_]+[ \t]*\(/)) {
             s = substr($0, RSTART, RLENGTH); sub(/[ \t]*\($/, "", s); print s } }' \
        "$src/include/$h" | sort -u > "$tmp/api.$h"
    echo "${h%.h}"
done | sort -u > "$tmp/overview"
for h in $headers; do cat "$tmp/api.$h"; done | sort -u > "$tmp/api"
{
    for p in "$src"/doc/nla_*.3; do b=${p##*/}; echo "${b%.3}"; done
    sh "$src/doc/man-aliases.sh" "$src"/doc/*.3 | awk '{ sub(/\.3$/, "", $1); print $1 }'
} | sort -u | comm -23 - "$tmp/overview" > "$tmp/pages"

missing=$(comm -23 "$tmp/api" "$tmp/pages")
extra=$(comm -13 "$tmp/api" "$tmp/pages")
[ -z "$missing" ] || { echo "FAIL: NLA_API functions without a page:"; echo "$missing"; }
[ -z "$extra" ] || { echo "FAIL: pages for names no header declares:"; echo "$extra"; }
[ -z "$missing$extra" ] || exit 1
for h in $headers; do
    echo "$h: $(wc -l < "$tmp/api.$h") NLA_API functions, each with a page"
done
echo "PASS: all $(wc -l < "$tmp/api") NLA_API functions have a page" \
     "($(ls "$src"/doc/nla_*.3 | wc -l) files, $(sh "$src/doc/man-aliases.sh" "$src"/doc/*.3 | wc -l) aliases)"
