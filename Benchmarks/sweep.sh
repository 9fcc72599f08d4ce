#!/usr/bin/env bash
# Times `stowage sweep --max-size TARGET --low-watermark 1` (least recently used first, down to half
# the folder's size) on a generated cache against the administrator's pipeline (find -printf '%A@ %p' |
# sort -n | head | cut | xargs rm) and SweepBaseline, the common Foundation way (FileManager.enumerator,
# resource values, sort by access date, removeItem), each on its own copy, after one checked run of each.
#
#   bash Benchmarks/sweep.sh                  # 100,000 files (1.4 GB): about 5 minutes on 2 cores
#   bash Benchmarks/sweep.sh --files 10000    # quicker; also --seed S, --runs R (default 3), --keep
#   STOWAGE_BIN=/path/to/stowage bash Benchmarks/sweep.sh
#
# Targets: Stowage's mean time at most 1.0x the pipeline's, the baseline's at least 5x Stowage's; Stowage
# leaves the files at most at the target, having removed the least recently used. Misses are reported,
# not fatal. Needs hyperfine, jq and GNU time.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
files=100000 seed=1 runs=3 keep=0
while (($#)); do
    case "$1" in
        --files) files="${2:?--files needs a number}"; shift 2 ;;
        --seed) seed="${2:?--seed needs a number}"; shift 2 ;;
        --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
        --keep) keep=1; shift ;;
        -h | --help) sed -n '2,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
# shellcheck source=build.sh
source "$here/build.sh"
require_tools hyperfine jq du find stat
scratch_folder sweep "$keep"
build MakeCache SweepBaseline

# The master is made, measured and listed first, then serves as the pipeline's copy. Every copy is made
# from the same N, seed and time, so MakeCache --repair brings any copy back to the master (untimed,
# before each run): it writes what a run removed and sets every file's times again, much faster than
# `cp -a`, whose reads would also reset the master's access times on a relatime mount.
now="$(date +%s)"
make_cache=("$bin/MakeCache" --files "$files" --seed "$seed" --now "$now")
master="$scratch/copy-pipeline"
echo
"${make_cache[@]}" "$master" | tee "$scratch/master.txt"
echo "Flushing the master to disk (sync)..."  # so that the kernel's writeback falls in no timed run
sync -f "$master"

# The files, least recently used first: access time, 512-byte blocks, path below the cache.
find "$master" -type f -printf '%A@ %b %P\n' | sort -n >"$scratch/master.lru"
cut -d' ' -f3 "$scratch/master.lru" | sort >"$scratch/master.paths"
if [[ -n "$(cut -d. -f1 "$scratch/master.lru" | uniq -d)" ]]; then
    echo "error: some files share an access time (in whole seconds): least recently used is ambiguous" >&2
    exit 1
fi
master_allocated="$(du -s -B1 "$master" | cut -f1)"
target=$((master_allocated / 2))
# What the files take (the folders' own blocks left out), as the pipeline and SweepBaseline count, and
# so how many of the least recently used files the pipeline's `head` must pass on to rm.
files_allocated="$(awk '{ bytes += $2 * 512 } END { print bytes + 0 }' "$scratch/master.lru")"
remove_count="$(awk -v bytes="$files_allocated" -v target="$target" \
    'bytes > target { bytes -= $2 * 512; count++ } END { print count + 0 }' "$scratch/master.lru")"
echo "Master: $master_allocated bytes allocated (du -s -B1), $files_allocated in the files; target $target;"
echo "  the pipeline removes the $remove_count least recently used files."

listing() { (cd "$1" && find . -type f -printf '%P %s %b %A@ %T@\n' | sort); }
listing "$master" >"$scratch/master.listing"
names=(pipeline baseline stowage)
declare -A title=([pipeline]="find | sort | rm" [baseline]="SweepBaseline" [stowage]="stowage sweep")
declare -A copy command prepare
for name in "${names[@]}"; do
    copy[$name]="$scratch/copy-$name"
    prepare[$name]="$(printf '%q ' "${make_cache[@]}" "${copy[$name]}" --repair)>/dev/null && sync -f $(q "${copy[$name]}")"
done
command[pipeline]="find $(q "${copy[pipeline]}") -type f -printf '%A@ %p\n' | sort -n | head -$remove_count | cut -d' ' -f2- | xargs -d '\n' rm"
command[baseline]="$(q "$bin/SweepBaseline") $(q "${copy[baseline]}") $target"
command[stowage]="$(q "$stowage") sweep $(q "${copy[stowage]}") --max-size $target --low-watermark 1"

echo
echo "Making a copy for each other command (MakeCache --repair on a missing folder makes it)..."
for name in "${names[@]}"; do
    sh -c "${prepare[$name]}"
    cmp -s <(listing "${copy[$name]}") "$scratch/master.listing" ||
        { echo "error: the copy for ${title[$name]} differs from the master as made" >&2; exit 1; }
done
echo "  All three are the master as made: every file's path, size, blocks, access and modification time."

# check NAME: compares a copy with the master after a run: `removed` (files of the master gone),
# `lru` (yes when those are exactly the least recently used), `left` (allocated bytes of the files
# left, any a command added included) and `added` (files not in the master: a command's own records).
check() {
    (cd "${copy[$1]}" && find . -type f -printf '%P %b\n' | sort) >"$scratch/$1.left"
    cut -d' ' -f1 "$scratch/$1.left" | comm -23 "$scratch/master.paths" - >"$scratch/$1.removed"
    removed="$(wc -l <"$scratch/$1.removed")"
    cmp -s "$scratch/$1.removed" <(head -n "$removed" "$scratch/master.lru" | cut -d' ' -f3 | sort) && lru=yes || lru=no
    read -r left added < <(awk 'NR == FNR { known[$1]; next } { all += $2 * 512; if (!($1 in known)) added++ }
        END { print all + 0, added + 0 }' "$scratch/master.paths" "$scratch/$1.left")
}

declare -A peak_kb removed_files lru_first files_left
echo
echo "One run of each on its copy (GNU time of sh -c: the largest peak of its processes)..."
for name in "${names[@]}"; do
    /usr/bin/time -f %M -o "$scratch/$name.rss" sh -c "${command[$name]}" >"$scratch/$name.out" 2>"$scratch/$name.err" ||
        { cat "$scratch/$name.err" >&2; echo "error: ${title[$name]} failed" >&2; exit 1; }
    peak_kb[$name]="$(tail -n1 "$scratch/$name.rss")"
    check "$name"
    removed_files[$name]=$removed lru_first[$name]=$lru files_left[$name]=$left
    printf '  %-18s removed %7d  oldest first: %-3s  files left %12d (target %d)%s\n' "${title[$name]}" "$removed" \
        "$lru" "$left" "$target" "$( ((added == 0)) || echo ", $added added by the command")"
done

echo
echo "Timing (hyperfine, $runs runs each; before each run, untimed, the copy is repaired and synced)..."
arguments=()
for name in "${names[@]}"; do arguments+=(--prepare "${prepare[$name]}"); done
for name in "${names[@]}"; do arguments+=(-n "${title[$name]}" "${command[$name]}"); done
hyperfine --style basic --warmup 0 --runs "$runs" --export-json "$scratch/times.json" "${arguments[@]}"
for name in "${names[@]}"; do  # what the last timed run left must be what the checked run left
    check "$name"
    ((removed == removed_files[$name])) ||
        echo "warning: the last timed run of ${title[$name]} removed $removed files, the checked run ${removed_files[$name]}" >&2
done

mean() { result "$scratch/times.json" "${title[$1]}" .mean; }
echo
echo "Summary"
echo "  Machine: $(machine "$master"), mounted $(findmnt -n -o OPTIONS -T "$master" 2>/dev/null || echo "?")"
echo "  Cache: $(grep -m1 -o -E '[0-9,]+ in 256 folders' "$scratch/master.txt") (--files $files --seed $seed), $master_allocated bytes"
echo "    allocated (du -s -B1), $files_allocated in the files; target $target (half of du's); pipeline: head -$remove_count"
echo "  Times (hyperfine: mean ± standard deviation; CPU = user + system, all processes), peak memory of the checked run"
for name in "${names[@]}"; do
    printf '    %-16s %18s %9s %8s removed %10s\n' "${title[$name]}" \
        "$(calc '%.3f s ± %.3f' "$(mean "$name"), $(result "$scratch/times.json" "${title[$name]}" '.stddev // 0')")" \
        "$(calc '%.2f s' "$(result "$scratch/times.json" "${title[$name]}" '.user + .system')")" \
        "${removed_files[$name]}" "$(megabytes "${peak_kb[$name]}")"
done
echo "  Targets"
row() { printf '    %-37s %-7s %-22s %s\n' "$@" | sed 's/ *$//'; }
row "SweepBaseline / find | sort | rm" "$(calc '%.1fx' "$(mean baseline) / $(mean pipeline)")" "(for reference)" ""
row "stowage / find | sort | rm" "$(calc '%.2fx' "$(mean stowage) / $(mean pipeline)")" "(target at most 1.0x)" \
    "$(verdict "$(mean stowage) <= $(mean pipeline)")"
row "SweepBaseline / stowage" "$(calc '%.1fx' "$(mean baseline) / $(mean stowage)")" "(target at least 5x)" \
    "$(verdict "$(mean baseline) >= 5 * $(mean stowage)")"
for name in stowage baseline; do
    row "${title[$name]}: files left <= target" "" "(${files_left[$name]} bytes)" "$(verdict "${files_left[$name]} <= $target")"
done
row "stowage sweep: oldest removed first" "${lru_first[stowage]}" "" "$([[ ${lru_first[stowage]} == yes ]] && echo PASS || echo MISS)"
echo "  This run took $((SECONDS - started)) s, before removing the copies."
