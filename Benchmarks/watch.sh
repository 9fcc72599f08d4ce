#!/usr/bin/env bash
# Measures what an idle `stowage watch` costs: the CPU time of one check that finds enough space, with a
# 100,000-file and a 100-file cache, for this tree's `stowage` and an earlier commit's (default: main),
# in one run. Each watch runs in a scratch container (--root) whose Library/Caches MakeCache filled,
# with a threshold of 1 byte (never reached) and a short interval, for a fixed time, then gets SIGTERM.
#
#   bash Benchmarks/watch.sh                   # about 70 s, plus building the earlier commit once
#   bash Benchmarks/watch.sh --before 1e8a85e  # compare with that commit; --no-before: this tree only
#   bash Benchmarks/watch.sh --seconds 5 --files 20000 --small 100 --interval 0.01s --keep
#   STOWAGE_BIN=/path/to/stowage bash Benchmarks/watch.sh    # measure this binary as "after"
#
# `perf stat -e task-clock,syscalls:sys_enter_statfs` runs each watch: task-clock is its CPU time (all
# threads), and statfs calls count its checks (one statvfs a check, in the earlier code too: checked
# below). A second run with an interval of an hour (one check) takes out starting and the first check:
# per idle check = (CPU of the short run - CPU of the hour run) / (checks of the short run - 1).
# Targets: at most 1 ms of CPU per idle check, and the same (within 1.5x, or 20 us) for both caches.
# Misses are reported, not fatal. Needs perf (root, or perf_event_paranoid <= 1 and tracefs) and git.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
files=100000 small=100 seconds=10 interval=0.01s before=main keep=0
while (($#)); do
    case "$1" in
        --files) files="${2:?--files needs a number}"; shift 2 ;;
        --small) small="${2:?--small needs a number}"; shift 2 ;;
        --seconds) seconds="${2:?--seconds needs a number}"; shift 2 ;;
        --interval) interval="${2:?--interval needs a duration such as 0.01s}"; shift 2 ;;
        --before) before="${2:?--before needs a commit}"; shift 2 ;;
        --no-before) before=""; shift ;;
        --keep) keep=1; shift ;;
        -h | --help) sed -n '2,18s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
# shellcheck source=build.sh
source "$here/build.sh"
require_tools perf git timeout awk
perf stat -x, -e task-clock,syscalls:sys_enter_statfs -o /dev/null -- true 2>/dev/null ||
    { echo "error: perf cannot count syscalls:sys_enter_statfs here (run as root, or see perf_event_paranoid)" >&2; exit 1; }
scratch_folder watch "$keep"
build MakeCache

declare -A binary label count root per_check checks_per_second cpu_per_second
binaries=(after)
binary[after]="$stowage"
changed="$(git -C "$here/.." diff --quiet HEAD -- Sources Package.swift || echo ", with uncommitted changes")"
label[after]="${STOWAGE_BIN:-this tree ($(git -C "$here/.." rev-parse --short HEAD)$changed)}"
if [[ -n "$before" ]]; then
    # stowage from REF's files (git archive: no checkout), built once per commit and kept, the binary
    # alone, in Benchmarks/.build-before/<commit> (gitignored).
    commit="$(git -C "$here/.." rev-parse --verify --quiet "$before^{commit}")" ||
        { echo "error: --before $before is not a commit of this repository" >&2; exit 1; }
    place="$here/.build-before/$commit"
    binaries=(before after)
    binary[before]="$place/bin/stowage"
    label[before]="$before ($(git -C "$here/.." rev-parse --short "$commit"))"
    if [[ ! -x "${binary[before]}" ]]; then
        echo "Building stowage from ${label[before]} (release, once)..."
        rm -rf "$place" && mkdir -p "$place/source" "$place/bin"
        git -C "$here/.." archive --format=tar "$commit" | tar -x -C "$place/source"
        swift build -c release --package-path "$place/source" --product stowage >"$scratch/build-before.log" 2>&1 ||
            { cat "$scratch/build-before.log" >&2; echo "error: building ${label[before]} failed" >&2; rm -rf "$place"; exit 1; }
        cp "$(swift build -c release --package-path "$place/source" --show-bin-path)/stowage" "${binary[before]}"
        rm -rf "$place/source"
    fi
fi

caches=(small large)
count=([small]=$small [large]=$files)
echo
for cache in "${caches[@]}"; do
    root[$cache]="$scratch/container-$cache"
    mkdir -p "${root[$cache]}/Library" "${root[$cache]}/Documents"
    "$bin/MakeCache" "${root[$cache]}/Library/Caches" --files "${count[$cache]}" | sed -n 1p
done
echo "Flushing the caches to disk (sync)..."  # otherwise the kernel writes them back while watches run
sync -f "$scratch"

# measure NAME BINARY ROOT INTERVAL SECONDS: runs the watch under perf stat for SECONDS, then SIGTERM;
# sets `cpu_ms` (task-clock, all threads) and `checks` (statfs calls).
measure() {
    local command=(timeout --preserve-status -s TERM "$5" "$2" watch --available 1 --interval "$4" --root "$3")
    perf stat -x, -e task-clock,syscalls:sys_enter_statfs -o "$scratch/$1.perf" -- "${command[@]}" \
        >"$scratch/$1.out" 2>"$scratch/$1.err" && [[ ! -s "$scratch/$1.err" ]] ||
        { cat "$scratch/$1.err" >&2; echo "error: '${command[*]}' failed" >&2; exit 1; }
    ! grep -q freed "$scratch/$1.out" || { echo "error: the watch in $3 relieved pressure: it was not idle" >&2; exit 1; }
    cpu_ms="$(awk -F, '$3 == "task-clock" { print $1 }' "$scratch/$1.perf")"
    checks="$(awk -F, '$3 == "syscalls:sys_enter_statfs" { print $1 }' "$scratch/$1.perf")"
}

# In 1.3 s a watch with an interval of an hour makes one check, one of half a second three: two more.
echo
echo "Checking that one check is one statfs call..."
for name in "${binaries[@]}"; do
    measure "calibrate-$name-hour" "${binary[$name]}" "${root[small]}" 3600s 1.3
    one=$checks
    measure "calibrate-$name-half" "${binary[$name]}" "${root[small]}" 0.5s 1.3
    ((checks - one == 2)) ||
        { echo "error: ${label[$name]}: 2 more checks made $((checks - one)) more statfs calls: they cannot be counted" >&2; exit 1; }
    echo "  ${label[$name]}: yes (and starting makes $((one - 1)))"
done

echo
echo "Measuring: each watch for $seconds s with --interval $interval, then for 3 s with --interval 3600s..."
for name in "${binaries[@]}"; do
    for cache in "${caches[@]}"; do
        measure "$name-$cache-hour" "${binary[$name]}" "${root[$cache]}" 3600s 3
        hour_cpu=$cpu_ms hour_checks=$checks
        measure "$name-$cache" "${binary[$name]}" "${root[$cache]}" "$interval" "$seconds"
        ((checks > hour_checks)) || { echo "error: ${label[$name]}, ${count[$cache]} files: no check after the first" >&2; exit 1; }
        per_check[$name-$cache]="$(calc %.1f "($cpu_ms - $hour_cpu) * 1000 / ($checks - $hour_checks)")"
        checks_per_second[$name-$cache]="$(calc %.1f "$checks / $seconds")"
        cpu_per_second[$name-$cache]="$(calc %.1f "$cpu_ms / $seconds")"
        printf '  %-7s %7s files: %6d checks in %s s, %9.1f ms CPU (start and first check: %.1f ms)\n' \
            "$name" "${count[$cache]}" "$checks" "$seconds" "$cpu_ms" "$hour_cpu"
    done
done

echo
echo "Summary"
echo "  Machine: $(machine "$scratch")"
echo "  Watch: --available 1 --interval $interval --root DIR, $seconds s, then SIGTERM; never relieved"
for name in "${binaries[@]}"; do echo "  $name: ${label[$name]}"; done
printf '    %-8s %12s %16s %13s %16s\n' "" "cache files" "CPU per check" "checks / s" "CPU ms / s"
for name in "${binaries[@]}"; do
    for cache in "${caches[@]}"; do
        printf '    %-8s %12s %16s %13s %16s\n' "$name" "${count[$cache]}" "${per_check[$name-$cache]} us" \
            "${checks_per_second[$name-$cache]}" "${cpu_per_second[$name-$cache]}"
    done
done
small_us="${per_check[after-small]}" large_us="${per_check[after-large]}"
echo "  Targets (after)"
printf '    %-48s %-22s %s\n' "at most 1 ms CPU per idle check, ${count[small]} files" "($small_us us)" "$(verdict "$small_us <= 1000")" \
    "at most 1 ms CPU per idle check, ${count[large]} files" "($large_us us)" "$(verdict "$large_us <= 1000")" \
    "the same for both caches (within 1.5x or 20 us)" "($large_us us against $small_us)" \
    "$(verdict "($large_us <= 1.5 * $small_us && $small_us <= 1.5 * $large_us) || ($large_us - $small_us < 20 && $small_us - $large_us < 20)")"
[[ -z "$before" ]] || echo "  Before, the ${count[large]}-file cache cost" \
    "$(calc %.0fx "${per_check[before-large]} / ($large_us > 0 ? $large_us : 1)") as much CPU per check as after."
echo "  This run took $((SECONDS - started)) s."
