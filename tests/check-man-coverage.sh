#!/bin/sh
# check-man-coverage.sh - every NLA_API function declared in include/nla.h
# has a manual page, as a file doc/NAME.3 or as an alias (a .Nm name in the
# NAME section of another page), and every name a page lists is declared.
src="${srcdir:-.}"
header="$src/include/nla.h"
[ -f "$header" ] || { echo "FAIL: $header not found"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/nla-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# NLA_API declarations may span lines: the name is the first nla_ word
# followed by "(" on the line that starts with NLA_API.
awk '/^NLA_API / { if (match($0, /nla_[a-z0-9_]+[ \t]*\(/)) {
         s = substr($0, RSTART, RLENGTH); sub(/[ \t]*\($/, "", s); print s } }' \
    "$header" | sort -u > "$tmp/api"
{
    for p in "$src"/doc/nla_*.3; do b=${p##*/}; echo "${b%.3}"; done
    sh "$src/doc/man-aliases.sh" "$src"/doc/*.3 | awk '{ sub(/\.3$/, "", $1); print $1 }'
} | sort -u > "$tmp/pages"

missing=$(comm -23 "$tmp/api" "$tmp/pages")
extra=$(comm -13 "$tmp/api" "$tmp/pages")
[ -z "$missing" ] || { echo "FAIL: NLA_API functions without a page:"; echo "$missing"; }
[ -z "$extra" ] || { echo "FAIL: pages for names nla.h does not declare:"; echo "$extra"; }
[ -z "$missing$extra" ] || exit 1
echo "PASS: all $(wc -l < "$tmp/api") NLA_API functions have a page" \
     "($(ls "$src"/doc/nla_*.3 | wc -l) files, $(sh "$src/doc/man-aliases.sh" "$src"/doc/*.3 | wc -l) aliases)"
