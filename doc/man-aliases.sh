#!/bin/sh
# man-aliases.sh PAGE... - the alias pages that section-3 PAGEs provide.
#
# Every function a page documents is listed with .Nm in its NAME section;
# each name other than the page's own becomes an alias page, installed as a
# one-line ".so man3/PAGE" file.  Prints "ALIAS.3 PAGE.3" lines.  Arguments
# that are not section-3 pages are ignored.
for page in "$@"; do
    case $page in *.3) ;; *) continue ;; esac
    base=${page##*/}
    awk -v base="$base" '
        /^\.Sh / { inname = ($2 == "NAME"); next }
        inname && /^\.Nm / && $2 ".3" != base { print $2 ".3", base }
    ' "$page" || exit 1
done
