#!/usr/bin/env bash
# Times `stowage usage --compare OLD NEW` of two saved scans of a large read-only tree (/usr unless
# given, on its own file system), after checking the saved scans: their totals equal du's, ncdu reads
# the first and writes back the same totals, and the compare's change equals NEW's total less OLD's.
# OLD is a scan of the whole tree; NEW the same tree with '*.gz' left out (thousands of files removed,
# every other item matched).
#
#   bash Benchmarks/compare.sh                 # /usr
#   bash Benchmarks/compare.sh --tree /opt     # another tree (read only: nothing in it is changed)
#   STOWAGE_BIN=/path/to/stowage bash Benchmarks/compare.sh
#
# Target: the compare (JSON, every change) under one second for two scans of at least 130,000 entries.
# Misses are reported, not fatal. Needs hyperfine, jq and ncdu.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tree=/usr keep=0
while (($#)); do
    case "$1" in
        --tree) tree="${2:?--tree needs a folder}"; shift 2 ;;
        --keep) keep=1; shift ;;
        -h | --help) sed -n '2,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
# shellcheck source=build.sh
source "$here/build.sh"
require_tools hyperfine jq du ncdu
scratch_folder compare "$keep"
build
old="$scratch/old.json" new="$scratch/new.json"

echo "Saving two scans of $tree (the second without *.gz)..."
"$stowage" usage --one-file-system "$tree" --export "$old" >/dev/null
"$stowage" usage --one-file-system "$tree" --exclude '*.gz' --export "$new" >/dev/null
# totals FILE: "allocated logical entries" of a saved scan, as stowage reads it.
totals() {
    "$stowage" usage --import "$1" --summarize --json |
        jq -r '"\(.allocatedBytes) \(.logicalBytes) \(.fileCount + .folderCount + .symbolicLinkCount + .otherCount)"'
}
read -r old_allocated old_logical old_entries < <(totals "$old")
read -r new_allocated new_logical new_entries < <(totals "$new")
du_allocated=$(du -sx -B1 "$tree" | cut -f1) du_logical=$(du -sx -b "$tree" | cut -f1)
ncdu -f "$old" -o "$scratch/ncdu.json"
read -r ncdu_allocated ncdu_logical ncdu_entries < <(totals "$scratch/ncdu.json")
same() { if [[ "$1" == "$2" ]]; then echo "="; else echo "DIFFERENT:"; fi; }

echo
echo "Saved scans of $tree ($(machine "$tree"))"
printf '  old: %s entries, %s allocated, %s logical (%s bytes); du -sx: %s allocated %s, %s logical %s\n' \
    "$old_entries" "$old_allocated" "$old_logical" "$(stat -c %s "$old")" \
    "$(same "$old_allocated" "$du_allocated")" "$du_allocated" "$(same "$old_logical" "$du_logical")" "$du_logical"
printf '  new: %s entries, %s allocated, %s logical (%s bytes)\n' "$new_entries" "$new_allocated" "$new_logical" "$(stat -c %s "$new")"
printf '  ncdu -f old -o: %s entries %s, %s allocated %s, %s logical %s\n' "$(same "$ncdu_entries" "$old_entries")" "$ncdu_entries" \
    "$(same "$ncdu_allocated" "$old_allocated")" "$ncdu_allocated" "$(same "$ncdu_logical" "$old_logical")" "$ncdu_logical"

"$stowage" usage --compare "$old" "$new" --json >"$scratch/compare.json"
change=$(jq '.roots[0].changeInAllocatedBytes' "$scratch/compare.json")
changes=$(jq '[.roots[0] | recurse(.children[])] | length - 1' "$scratch/compare.json")
printf '  compare: %s changes, %s bytes allocated: %s new less old\n' "$changes" "$change" \
    "$(same "$change" "$((new_allocated - old_allocated))")"

echo
hyperfine --warmup 1 --runs 5 --export-json "$scratch/times.json" \
    -n "compare --json" "$(q "$stowage") usage --compare $(q "$old") $(q "$new") --json" \
    -n "compare (text, 50 rows)" "$(q "$stowage") usage --compare $(q "$old") $(q "$new") --limit 50" \
    -n "import one (text)" "$(q "$stowage") usage --import $(q "$old")" >/dev/null
mean_json=$(result "$scratch/times.json" "compare --json" .mean)
mean_text=$(result "$scratch/times.json" "compare (text, 50 rows)" .mean)
mean_import=$(result "$scratch/times.json" "import one (text)" .mean)
echo "Times (mean of 5, warm cache):"
printf '  compare --json:          %s s\n' "$(calc %.3f "$mean_json")"
printf '  compare (text, 50 rows): %s s\n' "$(calc %.3f "$mean_text")"
printf '  import one (text):       %s s\n' "$(calc %.3f "$mean_import")"
echo
echo "Target: the compare under 1 s for two scans of at least 130,000 entries:" \
    "$(verdict "$mean_json < 1 && $mean_text < 1 && $old_entries >= 130000")"
