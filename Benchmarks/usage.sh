#!/usr/bin/env bash
# Times `stowage usage --summarize` on a generated tree against `du -s` and UsageBaseline (the common
# Foundation way: FileManager.enumerator plus per-file resource values), on a warm cache, after checking
# that its totals equal du's (allocated: du -s -B1; logical: du -s -b).
#
#   bash Benchmarks/usage.sh                  # 200,000 files: about 2 minutes on 2 cores
#   bash Benchmarks/usage.sh --files 20000    # quicker; also --seed S, --keep (keep the tree)
#   STOWAGE_BIN=/path/to/stowage bash Benchmarks/usage.sh
#
# Targets: Stowage's mean time at most 0.5x du's, the baseline's at least 10x Stowage's, Stowage's peak
# memory under 64 MB. Misses are reported, not fatal. Needs hyperfine, jq and GNU time.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
files=200000 seed=1 keep=0
while (($#)); do
    case "$1" in
        --files) files="${2:?--files needs a number}"; shift 2 ;;
        --seed) seed="${2:?--seed needs a number}"; shift 2 ;;
        --keep) keep=1; shift ;;
        -h | --help) sed -n '2,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
# shellcheck source=build.sh
source "$here/build.sh"
require_tools hyperfine jq du stat
scratch_folder usage "$keep"
build MakeTree UsageBaseline
tree="$scratch/tree"

echo
"$bin/MakeTree" "$tree" --files "$files" --seed "$seed" | tee "$scratch/tree.txt"
# Otherwise the kernel writes the new tree back (about 30 s later) while the commands are timed.
echo "Flushing the tree to disk (sync), then warming the cache (du -s once)..."
sync -f "$tree"
du -s "$tree" >/dev/null

# peak NAME COMMAND...: runs the command once, its output in $scratch/NAME.out; prints its peak resident
# set (KiB), or stops the run with what it printed.
peak() {
    local name="$1"
    shift
    /usr/bin/time -f %M -o "$scratch/$name.rss" "$@" >"$scratch/$name.out" 2>"$scratch/$name.err" ||
        { cat "$scratch/$name.err" >&2; echo "error: $* failed" >&2; exit 1; }
    tail -n1 "$scratch/$name.rss"
}
du_kb=$(peak du du -s -B1 "$tree")
stowage_kb=$(peak stowage "$stowage" usage --summarize "$tree")
baseline_kb=$(peak baseline "$bin/UsageBaseline" "$tree")

du_allocated=$(cut -f1 "$scratch/du.out")
du_logical=$(du -s -b "$tree" | cut -f1)
# du counts the root folder's own blocks and size too; a scan of what is inside may not.
root_allocated=$(($(stat -c '%b * %B' "$tree")))
root_logical=$(stat -c %s "$tree")
read -r stowage_allocated stowage_logical < <("$stowage" usage --summarize --json "$tree" | jq -r '"\(.allocatedBytes) \(.logicalBytes)"')
compare() {
    if (($1 == $2)); then echo "= du"; elif (($1 == $2 - $3)); then echo "= du less the root folder"
    else printf 'DIFFERENT (%+d bytes from du)' $(($1 - $2)); fi
}
totals="allocated $(compare "$stowage_allocated" "$du_allocated" "$root_allocated"),"
totals+=" logical $(compare "$stowage_logical" "$du_logical" "$root_logical")"
echo
echo "Totals in bytes (allocated, logical)"
echo "  du -s -B1, du -s -b             $du_allocated $du_logical (the root folder itself: $root_allocated $root_logical)"
echo "  stowage usage --summarize       $stowage_allocated $stowage_logical: $totals"
echo "  UsageBaseline (Foundation)      $(jq -r '"\(.allocatedBytes) \(.logicalBytes) (\(.files) files, \(.folders) folders, "
    + "\(.symbolicLinks) links)"' "$scratch/baseline.out")"
echo "  UsageBaseline is not expected to match: it counts each hard link's name, not the folders' own size, and"
echo "  Foundation on Linux reports allocated sizes as st_blocks x st_blksize ($(($(stat -c %o "$tree") / 512))x too much here)."

echo
echo "Timing (hyperfine, warm cache)..."
hyperfine --style basic --warmup 1 --runs 5 --export-json "$scratch/fast.json" \
    -n "du -s" "du -s $(q "$tree")" -n "stowage usage" "$(q "$stowage") usage --summarize $(q "$tree")"
# The baseline is tens of times slower: two runs, no warm-up (the cache is warm already).
hyperfine --style basic --warmup 0 --runs 2 --export-json "$scratch/baseline.json" \
    -n "UsageBaseline" "$(q "$bin/UsageBaseline") $(q "$tree")"
du_mean=$(result "$scratch/fast.json" "du -s" .mean)
stowage_mean=$(result "$scratch/fast.json" "stowage usage" .mean)
baseline_mean=$(result "$scratch/baseline.json" UsageBaseline .mean)

echo
echo "Summary"
echo "  Machine: $(machine "$tree")"
echo "  Tree: $(head -n1 "$scratch/tree.txt" | sed 's/^MakeTree: made //'), $du_allocated bytes allocated (du)"
printf '    %-16s %10s %12s\n' "" mean "peak memory" "du -s" "$(calc '%.3f s' "$du_mean")" "$(megabytes "$du_kb")" \
    "stowage usage" "$(calc '%.3f s' "$stowage_mean")" "$(megabytes "$stowage_kb")" \
    "UsageBaseline" "$(calc '%.3f s' "$baseline_mean")" "$(megabytes "$baseline_kb")"
echo "  Targets"
target() { printf '    %-24s %-9s %-22s %s\n' "$@" | sed 's/ *$//'; }
target "UsageBaseline / du" "$(calc '%.1fx' "$baseline_mean / $du_mean")" "(for reference)" ""
target "stowage / du" "$(calc '%.2fx' "$stowage_mean / $du_mean")" "(target at most 0.5x)" "$(verdict "$stowage_mean <= 0.5 * $du_mean")"
target "UsageBaseline / stowage" "$(calc '%.1fx' "$baseline_mean / $stowage_mean")" "(target at least 10x)" \
    "$(verdict "$baseline_mean >= 10 * $stowage_mean")"
target "stowage peak memory" "$(megabytes "$stowage_kb")" "(target under 64 MB)" "$(verdict "$stowage_kb < 64 * 1024")"
target "stowage totals vs du" "" "" "$([[ "$totals" == *DIFFERENT* ]] && echo MISS || echo PASS)"
echo "  This run took $((SECONDS - started)) s."
