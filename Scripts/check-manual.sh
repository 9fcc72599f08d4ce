#!/usr/bin/env bash
# Checks a man page as a person reads it on an 80-column terminal: groff (-ww, every warning)
# prints no warning, and no line is wider than 80 columns or wraps a line of a table.
#
#   Scripts/check-manual.sh .build/stowage.1    # the page `make manual` makes
#
# It is rendered twice: at 80 columns (-rLL=80n) and at the 78 that man gives a page when
# MANWIDTH=80. A table row (a line of the help's text that starts with spaces, which groff sets
# on a line of its own) that does not fit wraps, and its end comes back to the paragraph's
# margin, left of the row's own: such a line, right after a more indented one, is reported.
# Prints each problem and exits 1 when there is one; 2 when groff is missing.
set -euo pipefail
export LC_ALL=C.UTF-8  # ${#line} counts characters, not bytes

page=${1:?usage: check-manual.sh PAGE}
command -v groff >/dev/null 2>&1 || { echo "check-manual: groff is not installed" >&2; exit 2; }

problems=0
for length in 80 78; do
    # -P-cbou: plain characters, no overstriking for bold or underline.
    if ! rendered=$(groff -man -Tutf8 -ww -rLL="${length}n" -P-cbou "$page" 2>"${TMPDIR:-/tmp}/check-manual.$$"); then
        echo "$page: groff failed"
        problems=$((problems + 1))
    fi
    warnings=$(cat "${TMPDIR:-/tmp}/check-manual.$$")
    rm -f "${TMPDIR:-/tmp}/check-manual.$$"
    if [ -n "$warnings" ]; then
        echo "$page at $length columns: groff warns:"
        echo "$warnings" | sed 's/^/  /'
        problems=$((problems + 1))
    fi
    number=0
    previous=""
    while IFS= read -r line; do
        number=$((number + 1))
        if [ "${#line}" -gt 80 ]; then
            echo "$page at $length columns: line $number is ${#line} columns wide: $line"
            problems=$((problems + 1))
        fi
        indent=${line%%[! ]*}
        previous_indent=${previous%%[! ]*}
        # A line that starts left of the line before it, with no blank line between them: the
        # end of a table row that did not fit (a filled paragraph keeps its margin, and a new
        # list item or section comes after a blank line).
        if [ -n "${line// /}" ] && [ -n "${previous// /}" ] && [ "${#indent}" -lt "${#previous_indent}" ]; then
            echo "$page at $length columns: line $number wraps the row before it:"
            echo "  $previous"
            echo "  $line"
            problems=$((problems + 1))
        fi
        previous=$line
    done <<< "$rendered"
done

if [ "$problems" -gt 0 ]; then
    echo "check-manual: $page does not pass (see above)"
    exit 1
fi
echo "check-manual: $page renders at 80 and 78 columns with no warning and no wrapped row"
