#!/usr/bin/env bash
# Times `stowage usage` (issue "Fast, exact usage scans") on a generated tree against `du -s`
# and against UsageBaseline, the common Foundation way (FileManager.enumerator plus per-file
# resource values), after checking that its totals agree with du's.
#
#   bash Benchmarks/usage.sh                   # 200,000 files: about 2 minutes on 2 cores
#   bash Benchmarks/usage.sh --files 20000     # a quicker run
#   bash Benchmarks/usage.sh --keep            # keep the tree and hyperfine's JSON afterwards
#   STOWAGE_BIN=/path/to/stowage bash Benchmarks/usage.sh    # time this binary instead
#
# Targets (from the issue): Stowage's mean time at most 0.5x du's, the baseline's at least
# 10x Stowage's, Stowage's peak memory under 64 MB. Misses are reported, not fatal: the exit
# status is 0 whenever the run completes, as for store.sh. If `stowage usage` cannot be built
# or run, the script says so and times the rest.
#
# Needs hyperfine, jq and GNU time (/usr/bin/time; installed with apt-get when missing).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

usage() {
    sed -n '2,16s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    echo "Options: --files N (default 200000), --seed S (default 1), --keep, -h/--help."
}

files=200000
seed=1
keep=0
while (($#)); do
    case "$1" in
        --files) files="${2:?--files needs a number}"; shift 2 ;;
        --seed) seed="${2:?--seed needs a number}"; shift 2 ;;
        --keep) keep=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

# MARK: Tools

# shellcheck source=build.sh
source "$here/build.sh"
require_tools hyperfine jq du stat

# MARK: Working folder
# A fresh Benchmarks/.scratch-usage-<random> (gitignored): the tree, hyperfine's JSON and the
# build logs. Removed at the end, or on an interrupt, unless --keep.

scratch="$(mktemp -d "$here/.scratch-usage-XXXXXXXX")"
tree="$scratch/tree"
cleanup() {
    if ((keep)); then
        echo "Kept $scratch (the tree is $tree)."
    else
        rm -rf "$scratch"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$SECONDS

# MARK: Build

build_products MakeTree UsageBaseline
# Empty when `stowage usage` is not available; `stowage_missing` then says why.
build_stowage usage

# MARK: Tree

echo
"$bin/MakeTree" "$tree" --files "$files" --seed "$seed" | tee "$scratch/tree.txt"
echo
# Otherwise the kernel writes the new tree back (about 30 s after it was written) while the
# commands are being timed, which slows them unevenly.
echo "Flushing the tree to disk (sync)..."
sync_started=$SECONDS
sync -f "$tree"
echo "  took $((SECONDS - sync_started)) s"
echo "Warming the cache (du -s once)..."
du -s "$tree" >/dev/null

# MARK: One run of each, under GNU time: totals and peak memory

# `measure NAME COMMAND...`: runs the command once with its standard output in
# $scratch/NAME.out and its standard error in $scratch/NAME.err; sets `peak_kb` to its peak
# resident set size (KiB). Returns the command's status.
measure() {
    local name="$1"
    shift
    local status=0
    /usr/bin/time -f %M -o "$scratch/$name.rss" "$@" >"$scratch/$name.out" 2>"$scratch/$name.err" || status=$?
    # On failure GNU time writes "Command exited with non-zero status N" before the figure.
    peak_kb="$(tail -n1 "$scratch/$name.rss")"
    return "$status"
}

# `fail NAME`: stops the run on a command that must work, with what it printed.
fail() {
    cat "$scratch/$1.err" >&2
    echo "error: $1 failed" >&2
    exit 1
}

measure du du -s -B1 "$tree" || fail du
du_allocated="$(cut -f1 "$scratch/du.out")"
du_peak_kb="$peak_kb"
du_logical="$(du -s -b "$tree" | cut -f1)"
# du counts the root folder's own blocks and size too; a scan of what is inside may not.
root_allocated=$(($(stat -c %b "$tree") * $(stat -c %B "$tree")))
root_logical="$(stat -c %s "$tree")"

stowage_allocated=""
stowage_logical=""
stowage_peak_kb=""
if [[ -n "$stowage" ]]; then
    if measure stowage "$stowage" usage --summarize "$tree"; then
        stowage_peak_kb="$peak_kb"
        # The totals: the first JSON object, at any depth, with both keys.
        if "$stowage" usage --summarize --json "$tree" >"$scratch/stowage.json" 2>"$scratch/stowage-json.err"; then
            totals="$(jq -r 'first(.. | objects | select(has("allocatedBytes") and has("logicalBytes")))
                             | "\(.allocatedBytes) \(.logicalBytes)"' "$scratch/stowage.json" 2>/dev/null || true)"
            read -r stowage_allocated stowage_logical <<<"$totals" || true
        fi
    else
        stowage_missing="stowage usage not available ('$stowage usage --summarize DIR' failed: $(head -n1 "$scratch/stowage.err"))"
        stowage=""
    fi
fi

measure baseline "$bin/UsageBaseline" "$tree" || fail baseline
baseline_peak_kb="$peak_kb"
baseline_allocated="$(jq .allocatedBytes "$scratch/baseline.out")"
baseline_logical="$(jq .logicalBytes "$scratch/baseline.out")"

# `compare VALUE DU ROOT`: how a total compares with du's.
compare() {
    local value="$1" du="$2" root="$3"
    if [[ -z "$value" ]]; then
        echo "-"
    elif ((value == du)); then
        echo "MATCH (= du)"
    elif ((value == du - root)); then
        echo "MATCH (= du less the root folder itself)"
    else
        printf 'DIFFERENT (%+d bytes from du)\n' $((value - du))
    fi
}

echo
echo "Totals in bytes, before timing (du counts the root folder's own blocks and size too:"
echo "$root_allocated allocated, $root_logical logical)"
row() { printf '  %-34s %16s %16s  %s\n' "$@" | sed 's/ *$//'; }
row "" "allocated" "logical" ""
row "du -s -B1 / du -s -b" "$du_allocated" "$du_logical" ""
row "  the same, less the root folder" "$((du_allocated - root_allocated))" "$((du_logical - root_logical))" ""
if [[ -z "$stowage" ]]; then
    row "stowage usage" "-" "-" "$stowage_missing"
elif [[ -z "$stowage_allocated" ]]; then
    row "stowage usage --summarize --json" "-" "-" "(no allocatedBytes and logicalBytes in its JSON; it printed:)"
    cat "$scratch/stowage.json" "$scratch/stowage-json.err" | head -n 20 | sed 's/^/    /'
else
    row "stowage usage --summarize --json" "$stowage_allocated" "$stowage_logical" ""
    stowage_totals="allocated $(compare "$stowage_allocated" "$du_allocated" "$root_allocated"), logical $(compare "$stowage_logical" "$du_logical" "$root_logical")"
    echo "  stowage: $stowage_totals"
fi
row "UsageBaseline (Foundation)" "$baseline_allocated" "$baseline_logical" ""
echo "  UsageBaseline is not expected to match: it counts each hard link's name, skips the"
echo "  folders' own size, and Foundation on Linux reports allocated size as st_blocks x st_blksize"
echo "  rather than st_blocks x 512 ($(($(stat -c %o "$tree") / 512))x too much here). $(jq -r '"It saw \(.files) files, \(.folders) folders, \(.symbolicLinks) links."' "$scratch/baseline.out")"

# MARK: Timing

quote() { printf '%q' "$1"; }
echo
echo "Timing (hyperfine, warm cache)..."
names=(-n "du -s")
commands=("du -s $(quote "$tree")")
if [[ -n "$stowage" ]]; then
    names+=(-n "stowage usage")
    commands+=("$(quote "$stowage") usage --summarize $(quote "$tree")")
fi
hyperfine --style basic --warmup 1 --runs 5 --export-json "$scratch/fast.json" "${names[@]}" "${commands[@]}"
# The baseline is tens of times slower: two runs, no warm-up (the cache is warm already).
hyperfine --style basic --warmup 0 --runs 2 --export-json "$scratch/baseline.json" \
    -n "UsageBaseline" "$(quote "$bin/UsageBaseline") $(quote "$tree")"

# `mean NAME FILE`: the mean time in seconds of the named command in a hyperfine export.
mean() { jq -r --arg name "$1" '.results[] | select(.command == $name) | .mean' "$2"; }
du_mean="$(mean "du -s" "$scratch/fast.json")"
baseline_mean="$(mean "UsageBaseline" "$scratch/baseline.json")"
stowage_mean=""
[[ -n "$stowage" ]] && stowage_mean="$(mean "stowage usage" "$scratch/fast.json")"

# MARK: Summary

# Small arithmetic helpers (bash has integers only).
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
seconds() { [[ -n "$1" ]] && calc '%.3f s' "$1" || echo "-"; }
megabytes() { [[ -n "$1" ]] && calc '%.1f MB' "$1 / 1024" || echo "-"; }
verdict() { awk "BEGIN { exit !($1) }" && echo PASS || echo MISS; }

echo
echo "Summary"
echo "  Machine: $(nproc) cores, $(uname -sr); tree on $(df -T "$tree" | awk 'NR == 2 { print $2 " (" $1 ")" }')"
echo "  Tree: $(head -n1 "$scratch/tree.txt" | sed 's/^MakeTree: made //'), $du_allocated bytes allocated (du)"
echo
echo "  Times (hyperfine mean, warm cache) and peak memory (GNU time, maximum resident set; MB = 2^20 bytes)"
printf '    %-16s %10s %12s\n' "" "mean" "peak memory"
printf '    %-16s %10s %12s\n' "du -s" "$(seconds "$du_mean")" "$(megabytes "$du_peak_kb")"
printf '    %-16s %10s %12s\n' "stowage usage" "$(seconds "$stowage_mean")" "$(megabytes "$stowage_peak_kb")"
printf '    %-16s %10s %12s\n' "UsageBaseline" "$(seconds "$baseline_mean")" "$(megabytes "$baseline_peak_kb")"
echo
echo "  Targets"
target() { printf '    %-24s %-9s %-22s %s\n' "$@" | sed 's/ *$//'; }
target "UsageBaseline / du" "$(calc '%.1fx' "$baseline_mean / $du_mean")" "(for reference)" ""
if [[ -n "$stowage" ]]; then
    target "stowage / du" "$(calc '%.2fx' "$stowage_mean / $du_mean")" "(target at most 0.5x)" "$(verdict "$stowage_mean <= 0.5 * $du_mean")"
    target "UsageBaseline / stowage" "$(calc '%.1fx' "$baseline_mean / $stowage_mean")" "(target at least 10x)" "$(verdict "$baseline_mean >= 10 * $stowage_mean")"
    target "stowage peak memory" "$(megabytes "$stowage_peak_kb")" "(target under 64 MB)" "$(verdict "$stowage_peak_kb < 64 * 1024")"
    if [[ -z "$stowage_allocated" ]]; then
        target "stowage totals vs du" "-" "(no totals in its JSON)" "MISS"
    elif [[ "$stowage_totals" == *DIFFERENT* ]]; then
        target "stowage totals vs du" "differ" "(see the totals above)" "MISS"
    else
        target "stowage totals vs du" "match" "" "PASS"
    fi
else
    echo "    $stowage_missing"
fi
echo "  This run took $((SECONDS - started)) s$( ((keep)) || echo ", before removing the tree")."
