#!/usr/bin/env bash
# Times the usage browser (`stowage usage --interactive`) against ncdu and gdu in a pseudo-terminal:
# the time until the first screen (the first drawing with text) and until the scanned tree is shown,
# and the peak memory once it is, per entry of the tree (less each tool's peak on a one-entry tree);
# beside them `stowage usage --summarize` (the plain scan). Warm cache, the median of --runs rounds
# (each tool once a round).
#
#   bash Benchmarks/browser.sh                 # /usr (read-only use: about 130,000 entries here)
#   bash Benchmarks/browser.sh --tree DIR      # another tree; also --runs N (default 9)
#   STOWAGE_BIN=/path/to/stowage bash Benchmarks/browser.sh
#
# Only `q` is ever typed: nothing is deleted, whatever the tree. Targets: the first screen no later
# than gdu's, the tree within 1.2x of `stowage usage --summarize` (timed by the same driver, in the
# same terminal, until it ends). Needs ncdu (gdu if installed), python3 and jq.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tree=/usr runs=9
while (($#)); do
    case "$1" in
        --tree) tree="${2:?--tree needs a folder}"; shift 2 ;;
        --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
        -h | --help) sed -n '2,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
# shellcheck source=build.sh
source "$here/build.sh"
require_tools ncdu python3 jq
scratch_folder browser 0
build
mkdir -p "$scratch/one" && : >"$scratch/one/file"  # ncdu draws no totals for an empty folder
entries=$(find "$tree" -xdev | wc -l)
echo "Tree: $tree, $entries entries ($(machine "$tree")); warming the cache (du -s)..."
du -s "$tree" >/dev/null

drive() { python3 "$here/browser-pty.py" --tree-marker "$1" -- "${@:2}"; }
declare -A marker=([stowage]="Sort: size" [ncdu]="Apparent size" [gdu]="Apparent size")
command_for() {  # TOOL FOLDER: the browser's command line, staying on one file system
    case "$1" in
        stowage) echo "$stowage usage --interactive --one-file-system $2" ;;
        ncdu) echo "ncdu -x $2" ;;
        gdu) echo "gdu --no-cross $2" ;;
    esac
}
tools=(stowage ncdu)
command -v gdu >/dev/null && tools+=(gdu)
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for tool in "${tools[@]}"; do
    # shellcheck disable=SC2046  # the command line is words
    drive "${marker[$tool]}" $(command_for "$tool" "$scratch/one") >"$scratch/$tool-one.json"
done
# Round after round, each tool once a round, the plain scan beside them (through the same driver,
# until it ends: the same start, clock and terminal): a slow spell of the machine falls on every
# tool alike, not on whichever ran then.
for ((run = 1; run <= runs; run++)); do
    for tool in "${tools[@]}"; do
        # shellcheck disable=SC2046
        drive "${marker[$tool]}" $(command_for "$tool" "$tree") >>"$scratch/$tool.json"
    done
    python3 "$here/browser-pty.py" --until-exit -- "$stowage" usage --summarize --one-file-system "$tree" >"$scratch/scan-run.json"
    jq -e '.status == 0' "$scratch/scan-run.json" >/dev/null || { echo "error: the plain scan failed: $(cat "$scratch/scan-run.json")" >&2; exit 1; }
    cat "$scratch/scan-run.json" >>"$scratch/scan.json"
done
scan=$(jq -r .tree "$scratch/scan.json" | median)

echo
printf '%-9s %14s %14s %12s %16s\n' TOOL "FIRST SCREEN" "TREE SHOWN" "PEAK RSS" "BYTES PER ENTRY"
for tool in "${tools[@]}"; do
    first=$(jq -r .first "$scratch/$tool.json" | median)
    shown=$(jq -r .tree "$scratch/$tool.json" | median)
    peak=$(jq -r .peakKiB "$scratch/$tool.json" | median)
    base=$(jq -r .peakKiB "$scratch/$tool-one.json")
    printf '%-9s %13.3fs %13.3fs %12s %16s\n' "$tool" "$first" "$shown" "$(megabytes "$peak")" "$(calc %.0f "($peak - $base) * 1024 / $entries")"
    declare "first_$tool=$first" "shown_$tool=$shown"
done
printf '%-9s %14s %13.3fs   (stowage usage --summarize: the plain scan)\n' scan "" "$scan"
echo
if [[ -n "${first_gdu:-}" ]]; then
    echo "First screen no later than gdu's: $(verdict "$first_stowage <= $first_gdu") ($first_stowage s; gdu $first_gdu s)"
fi
echo "Tree within 1.2x of the plain scan: $(verdict "$shown_stowage <= 1.2 * $scan") ($shown_stowage s; scan $scan s)"
echo "($((SECONDS - started)) s)"
