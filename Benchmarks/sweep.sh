#!/usr/bin/env bash
# Times `stowage sweep` (least recently used first, down to a size) on a generated cache against
# the administrator's pipeline (find -printf '%A@ %p' | sort -n | head | cut | xargs rm) and
# against SweepBaseline, the common Foundation way (FileManager.enumerator, resource values,
# sort by access date, removeItem), after one checked run of each.
#
#   bash Benchmarks/sweep.sh                   # 100,000 files (1.4 GB): about 5 minutes on 2 cores
#   bash Benchmarks/sweep.sh --files 10000     # a quicker run
#   bash Benchmarks/sweep.sh --keep            # keep the caches and hyperfine's JSON afterwards
#   STOWAGE_BIN=/path/to/stowage bash Benchmarks/sweep.sh    # time this binary instead
#
# Targets: Stowage's mean time at most 1.0x the pipeline's, the baseline's at least 5x
# Stowage's; Stowage must leave the cache at most at the target size. Misses are reported, not
# fatal: the exit status is 0 whenever the run completes, as for usage.sh. If `stowage sweep`
# cannot be built or run, the script says so and times the rest.
#
# Needs hyperfine, jq and GNU time (/usr/bin/time; installed with apt-get when missing).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

usage() {
    sed -n '2,17s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    echo "Options: --files N (default 100000), --seed S (default 1), --runs R (default 3), --keep, -h/--help."
}

files=100000
seed=1
runs=3
keep=0
while (($#)); do
    case "$1" in
        --files) files="${2:?--files needs a number}"; shift 2 ;;
        --seed) seed="${2:?--seed needs a number}"; shift 2 ;;
        --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
        --keep) keep=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done

# The same sorting, comparison and number formats whatever the caller's locale (find's %A@
# and sort -n agree on '.' as the decimal point).
export LC_ALL=C

# MARK: Tools

# shellcheck source=build.sh
source "$here/build.sh"
require_tools hyperfine jq du find stat setsid

# MARK: Working folder and signals
# A fresh Benchmarks/.scratch-sweep-<random> (gitignored): a copy of the cache per command,
# listings, hyperfine's JSON and the logs. Removed at the end, on an interrupt or on SIGTERM,
# unless --keep.

scratch="$(mktemp -d "$here/.scratch-sweep-XXXXXXXX")"
# The master is made first, measured and listed; it then serves as the pipeline's copy (every
# copy is brought back to the master's listing before each run, see below), which saves
# making and removing a fourth 1.4 GB folder.
master="$scratch/copy-pipeline"

# The long steps run through `run`, in a process group of their own: bash defers a trap until
# the foreground command ends, so a SIGTERM sent to this script alone would otherwise wait for
# minutes, and could leave hyperfine's command writing into the folder being removed.
child=""
run() {
    local status=0
    setsid "$@" &
    child=$!
    wait "$child" || status=$?
    child=""
    return "$status"
}
on_signal() {
    if [[ -n "$child" ]]; then
        kill -TERM -- "-$child" 2>/dev/null || true
        wait "$child" 2>/dev/null || true
    fi
    exit 130
}
cleanup() {
    if ((keep)); then
        echo "Kept $scratch: a copy of the cache per command, as its last run left it"
        echo "  (MakeCache DIR --repair with the same --files, --seed and --now restores one)."
    else
        rm -rf "$scratch"
    fi
}
trap cleanup EXIT
trap on_signal INT TERM

started=$SECONDS

# MARK: Build

build_products MakeCache SweepBaseline
# Empty when `stowage sweep` is not available; `stowage_missing` then says why.
build_stowage sweep

# `stowage sweep` must exist and take --max-size; with --low-watermark it is asked to sweep down
# to the limit itself, as the other two do, rather than below it (to a fraction of the limit).
stowage_options=()
low_watermark_note=""
if [[ -n "$stowage" ]]; then
    if ! "$stowage" sweep --help >"$scratch/stowage-help.txt" 2>&1 || ! grep -q -- '--max-size' "$scratch/stowage-help.txt"; then
        stowage_missing="stowage sweep not available ('stowage sweep --help' shows no --max-size: $(grep -m1 -i -E 'error|usage' "$scratch/stowage-help.txt" || head -n1 "$scratch/stowage-help.txt"))"
        stowage=""
    elif grep -q -- '--low-watermark' "$scratch/stowage-help.txt"; then
        stowage_options=(--low-watermark 1.0)
        low_watermark_note="with --low-watermark 1.0, so that it stops at the target as the others do"
    else
        low_watermark_note="without --low-watermark (it has no such option), so to below the target: its default low watermark"
    fi
fi

# MARK: Master cache

# Every copy is made from the same N, seed and time, so that all are the same as the master.
now="$(date +%s)"
make_cache=("$bin/MakeCache" --files "$files" --seed "$seed" --now "$now")

echo
run "${make_cache[@]}" "$master" >"$scratch/master.txt"
cat "$scratch/master.txt"
# Otherwise the kernel writes the new files back (about 30 s after they were written) while
# the commands are being timed, which slows them unevenly.
echo "Flushing the master to disk (sync)..."
sync -f "$master"

# The files, least recently used first: access time, 512-byte blocks, path below the cache.
find "$master" -type f -printf '%A@ %b %P\n' | sort -n >"$scratch/master.lru"
cut -d' ' -f3 "$scratch/master.lru" | sort >"$scratch/master.paths"
# Ties in the order would make "least recently used" ambiguous: MakeCache promises none.
duplicate_times="$(cut -d. -f1 "$scratch/master.lru" | uniq -d | wc -l)"
if ((duplicate_times > 0)); then
    echo "error: $duplicate_times access times (in whole seconds) are shared by several files" >&2
    exit 1
fi

master_allocated="$(du -s -B1 "$master" | cut -f1)"
target=$((master_allocated / 2))
# What the files themselves take, the folders left out: what SweepBaseline counts, and what the
# pipeline's count is worked out from. The folders (the root, 256 folders of a few hundred
# entries) take the rest of du's total.
files_allocated="$(awk '{ bytes += $2 * 512 } END { print bytes + 0 }' "$scratch/master.lru")"
# The pipeline's `head -N`: how many of the least recently used files must go for the files'
# total to be at most the target. Worked out once, here, from the master.
remove_count="$(awk -v bytes="$files_allocated" -v target="$target" \
    'bytes > target { bytes -= $2 * 512; count++ } END { print count + 0 }' "$scratch/master.lru")"
echo "Master: $master_allocated bytes allocated (du -s -B1), $files_allocated in the files; target $target bytes;"
echo "  the pipeline removes the $remove_count least recently used files. ($((SECONDS - started)) s so far)"

# MARK: Copies
# A copy for each command, so that one command's leftovers never meet another's. Before every
# run (untimed: hyperfine's --prepare) MakeCache --repair brings the copy back to the master:
# it writes the files the last run removed, removes anything a command added and sets every
# file's times again. `cp -a` from the master would do too, but costs 20-40 s a copy on this
# kind of machine, against 5-10 s, and on a relatime mount its reads reset the master's access
# times (checked below).

# `listing DIR`: every file with its size, blocks, access and modification times, by path.
listing() {
    (cd "$1" && find . -type f -printf '%P %s %b %A@ %T@\n' | sort)
}
master_listing="$scratch/master.listing"
listing "$master" >"$master_listing"

echo
echo "Checking cp -a on the folder 00 of the master..."
sample="$(find "$master/00" -type f -print -quit)"
sample_name="${sample#"$master/"}"
before="$(stat -c 'access %x, modified %y' "$sample")"
cp -a "$master/00" "$scratch/cp-check"
copy_times="$(stat -c 'access %x, modified %y' "$scratch/cp-check/${sample_name#00/}")"
after="$(stat -c 'access %x, modified %y' "$sample")"
echo "  $sample_name"
echo "    master before:      $before"
echo "    copy:               $copy_times"
echo "    master after cp -a: $after"
if [[ "$copy_times" == "$before" ]]; then
    cp_copy="keeps both times on the copy"
else
    cp_copy="does NOT keep the times on the copy"
fi
if [[ "$after" == "$before" ]]; then
    cp_master="leaves the master's access times alone"
else
    cp_master="resets the master's access times to the present as it reads the files (mount: $(findmnt -n -o OPTIONS -T "$master" 2>/dev/null || echo unknown))"
fi
echo "  cp -a $cp_copy, and $cp_master."
rm -rf "$scratch/cp-check"
# Whatever cp -a did to the master's times is undone (and checked, below, with the copies).
"${make_cache[@]}" "$master" --repair >/dev/null

# `prepare DIR`: the untimed step before each run (also given to hyperfine as --prepare).
prepare_command() {
    printf '%q ' "${make_cache[@]}" "$1" --repair
    printf '>/dev/null && sync -f %q' "$1"
}

commands=(pipeline baseline)
[[ -n "$stowage" ]] && commands+=(stowage)
declare -A title=([pipeline]="find | sort | rm" [baseline]="SweepBaseline" [stowage]="stowage sweep")
declare -A copy command prepare
quote() { printf '%q' "$1"; }
for name in "${commands[@]}"; do
    copy[$name]="$scratch/copy-$name"
    prepare[$name]="$(prepare_command "${copy[$name]}")"
done
copy_q() { quote "${copy[$1]}"; }
command[pipeline]="find $(copy_q pipeline) -type f -printf '%A@ %p\n' | sort -n | head -$remove_count | cut -d' ' -f2- | xargs -d '\n' rm"
command[baseline]="$(quote "$bin/SweepBaseline") $(copy_q baseline) $target"
if [[ -n "$stowage" ]]; then
    command[stowage]="$(quote "$stowage") sweep $(copy_q stowage) --max-size $target${stowage_options[*]:+ ${stowage_options[*]}}"
fi

echo
echo "Making a copy for each other command (MakeCache --repair on a missing folder makes it)..."
for name in "${commands[@]}"; do
    run sh -c "${prepare[$name]}"
    if ! cmp -s <(listing "${copy[$name]}") "$master_listing"; then
        echo "error: the copy for ${title[$name]} is not the same as the master was when made" >&2
        exit 1
    fi
done
echo "  The master (the pipeline's copy, repaired after the cp -a check) and $((${#commands[@]} - 1)) copies are the same"
echo "  as the master was when made: every file's path, size, blocks, access and modification time."
echo "  ($((SECONDS - started)) s so far)"

# MARK: One run of each, under GNU time: what it removed, what it left, peak memory

# `check NAME`: compares a command's copy with the master after a run. Sets `removed` (files
# of the master gone), `oldest_first` (yes when the files removed are exactly the least
# recently used ones), `files_left` (allocated bytes of all the files left), `added` and
# `added_bytes` (files left that are not in the master: a command's own records),
# `added_names` (the first few) and `du_left` (du -s -B1 less the root folder's own blocks).
check() {
    local dir="${copy[$1]}"
    (cd "$dir" && find . -type f -printf '%P %b\n' | sort) >"$scratch/$1.left"
    cut -d' ' -f1 "$scratch/$1.left" >"$scratch/$1.paths"
    comm -23 "$scratch/master.paths" "$scratch/$1.paths" >"$scratch/$1.removed"
    removed="$(wc -l <"$scratch/$1.removed")"
    if cmp -s "$scratch/$1.removed" <(head -n "$removed" "$scratch/master.lru" | cut -d' ' -f3 | sort); then
        oldest_first=yes
    else
        oldest_first=no
    fi
    read -r files_left added added_bytes < <(awk '
        NR == FNR { known[$1]; next }
        { all += $2 * 512; if (!($1 in known)) { added++; added_bytes += $2 * 512 } }
        END { print all + 0, added + 0, added_bytes + 0 }' "$scratch/master.paths" "$scratch/$1.left")
    added_names="$(comm -13 "$scratch/master.paths" "$scratch/$1.paths" | head -n 3 | paste -s -d' ')"
    du_left=$(($(du -s -B1 "$dir" | cut -f1) - $(stat -c '%b * %B' "$dir")))
}

declare -A peak_kb sort_peak_kb removed_files lru left du_after output within added_note
echo
echo "One run of each on its copy..."
for name in "${commands[@]}"; do
    status=0
    measured="${command[$name]}"
    if [[ "$name" == pipeline ]]; then
        # Also the sort's own peak, by timing it inside the pipeline (this run only).
        measured="${measured/| sort -n |/| /usr/bin/time -f %M -o $(quote "$scratch/sort.rss") sort -n |}"
    fi
    # GNU time of `sh -c`: the kernel reports the largest peak of the shell and of every process
    # it waited for, so for the pipeline the largest of find, sort, head, cut, xargs and rm.
    run /usr/bin/time -f %M -o "$scratch/$name.rss" sh -c "$measured" >"$scratch/$name.out" 2>"$scratch/$name.err" || status=$?
    if ((status != 0)); then
        if [[ "$name" == stowage ]]; then
            stowage_missing="stowage sweep not available ('stowage sweep DIR --max-size $target' failed with status $status: $(grep -v -m1 'exited with non-zero' "$scratch/$name.err" || true))"
            stowage=""
            commands=(pipeline baseline)
            continue
        fi
        cat "$scratch/$name.err" >&2
        echo "error: ${title[$name]} failed (status $status)" >&2
        exit 1
    fi
    # On failure GNU time writes "Command exited with non-zero status N" before the figure.
    peak_kb[$name]="$(tail -n1 "$scratch/$name.rss")"
    check "$name"
    removed_files[$name]=$removed
    if ((added > 0)); then
        added_note[$name]="${title[$name]} added $added file(s) of its own ($added_bytes bytes, counted in 'files left'): $added_names"
    fi
    lru[$name]=$oldest_first
    left[$name]=$files_left
    du_after[$name]=$du_left
    ((files_left <= target)) && within[$name]=yes || within[$name]=no
    output[$name]="$(head -c 300 "$scratch/$name.out" | head -n 3)"
done
[[ -f "$scratch/sort.rss" ]] && sort_peak_kb[pipeline]="$(tail -n1 "$scratch/sort.rss")"

row() { printf '  %-18s %9s  %-12s %14s  %-9s %14s\n' "$@" | sed 's/ *$//'; }
echo
echo "What each left, in bytes allocated (target $target): 'files left' counts the files only, as"
echo "the pipeline and SweepBaseline do; 'du left' adds the folders' own blocks (the root's left out)."
row "" "removed" "oldest first" "files left" "<= target" "du left"
for name in "${commands[@]}"; do
    row "${title[$name]}" "${removed_files[$name]}" "${lru[$name]}" "${left[$name]}" "${within[$name]}" "${du_after[$name]}"
done
for name in "${commands[@]}"; do
    [[ -n "${added_note[$name]:-}" ]] && echo "  ${added_note[$name]}"
done
for name in "${commands[@]}"; do
    [[ -n "${output[$name]}" ]] && printf '  %s printed: %s\n' "${title[$name]}" "${output[$name]}"
done
[[ -n "$stowage" ]] && echo "  stowage sweep ran $low_watermark_note."
[[ -z "$stowage" ]] && echo "  $stowage_missing"
echo "  ($((SECONDS - started)) s so far)"

# MARK: Timing

echo
echo "Timing (hyperfine, $runs runs each; before each run, untimed, the copy is repaired and synced)..."
hyperfine_arguments=()
for name in "${commands[@]}"; do
    hyperfine_arguments+=(--prepare "${prepare[$name]}")
done
for name in "${commands[@]}"; do
    hyperfine_arguments+=(-n "${title[$name]}" "${command[$name]}")
done
run hyperfine --style basic --warmup 0 --runs "$runs" --export-json "$scratch/times.json" "${hyperfine_arguments[@]}"

# The copies hold what the last timed run left: it must be what the checked run left.
for name in "${commands[@]}"; do
    check "$name"
    if ((removed != removed_files[$name])); then
        echo "warning: the last timed run of ${title[$name]} removed $removed files, the checked run ${removed_files[$name]}" >&2
    fi
done

# `mean NAME`, `sd NAME`, `cpu NAME`: the mean time, its standard deviation and the mean CPU
# time (user + system) of a command, in seconds.
result() { jq -r --arg name "${title[$1]}" ".results[] | select(.command == \$name) | $2" "$scratch/times.json"; }
mean() { result "$1" .mean; }
sd() { result "$1" '.stddev // 0'; }
cpu() { result "$1" '.user + .system'; }

# MARK: Summary

# Small arithmetic helpers (bash has integers only).
calc() { awk "BEGIN { printf \"$1\", $2 }"; }
megabytes() { [[ -n "$1" ]] && calc '%.1f MB' "$1 / 1024" || echo "-"; }
verdict() { awk "BEGIN { exit !($1) }" && echo PASS || echo MISS; }

echo
echo "Summary"
echo "  Machine: $(nproc) cores, $(uname -sr); cache on $(df -T "$master" | awk 'NR == 2 { print $2 " (" $1 ")" }'), mounted $(findmnt -n -o OPTIONS -T "$master" 2>/dev/null || echo "?")"
echo "  Cache: $(grep -m1 -o -E '[0-9,]+ in 256 folders' "$scratch/master.txt") (--files $files --seed $seed), $master_allocated bytes allocated (du -s -B1),"
echo "    $files_allocated in the files; target $target (half of du's total); pipeline: head -$remove_count"
echo
echo "  Times (hyperfine: mean ± standard deviation of $runs runs; CPU = user + system, all processes)"
echo "  and peak memory (GNU time, the checked run; MB = 2^20 bytes)"
summary_row() { printf '    %-16s %18s %9s %10s %12s\n' "$@"; }
summary_row "" "mean" "CPU" "removed" "peak memory"
for name in pipeline baseline stowage; do
    if [[ " ${commands[*]} " == *" $name "* ]]; then
        summary_row "${title[$name]}" "$(calc '%.3f s ± %.3f' "$(mean "$name"), $(sd "$name")")" \
            "$(calc '%.2f s' "$(cpu "$name")")" "${removed_files[$name]}" "$(megabytes "${peak_kb[$name]}")"
    else
        summary_row "${title[$name]}" "-" "-" "-" "-"
    fi
done
echo "    The pipeline's peak is the largest of its processes (sort's own: $(megabytes "${sort_peak_kb[pipeline]:-}"))."
echo
echo "  Targets"
target_row() { printf '    %-37s %-7s %-22s %s\n' "$@" | sed 's/ *$//'; }
pipeline_mean="$(mean pipeline)"
baseline_mean="$(mean baseline)"
target_row "SweepBaseline / find | sort | rm" "$(calc '%.1fx' "$baseline_mean / $pipeline_mean")" "(for reference)" ""
if [[ -n "$stowage" ]]; then
    stowage_mean="$(mean stowage)"
    target_row "stowage / find | sort | rm" "$(calc '%.2fx' "$stowage_mean / $pipeline_mean")" "(target at most 1.0x)" "$(verdict "$stowage_mean <= $pipeline_mean")"
    target_row "SweepBaseline / stowage" "$(calc '%.1fx' "$baseline_mean / $stowage_mean")" "(target at least 5x)" "$(verdict "$baseline_mean >= 5 * $stowage_mean")"
    target_row "stowage: files left <= target" "${within[stowage]}" "(${left[stowage]} bytes)" "$([[ ${within[stowage]} == yes ]] && echo PASS || echo MISS)"
    [[ -n "${added_note[stowage]:-}" ]] && echo "      (${added_note[stowage]})"
    target_row "stowage: least recently used first" "${lru[stowage]}" "" "$([[ ${lru[stowage]} == yes ]] && echo PASS || echo MISS)"
    difference=$((removed_files[stowage] - removed_files[pipeline]))
    if ((difference != 0)); then
        echo "    stowage removed ${difference#-} files $( ((difference > 0)) && echo more || echo fewer) than the pipeline and SweepBaseline ($low_watermark_note)."
    fi
else
    echo "    $stowage_missing"
fi
target_row "SweepBaseline: files left <= target" "${within[baseline]}" "(${left[baseline]} bytes)" "$([[ ${within[baseline]} == yes ]] && echo PASS || echo MISS)"
echo "  This run took $((SECONDS - started)) s$( ((keep)) || echo ", before removing the copies (which takes a while too)")."
