#!/usr/bin/env bash
# Measures what `stowage watch` costs while idle (issue "watch must cost nothing while idle"):
# the CPU time of one check that finds enough space, with a 100,000-file cache and with a
# 100-file cache, for this tree's `stowage` and for an earlier commit's (default: main), in one
# run. Each watch runs in a scratch container (--root) whose Library/Caches MakeCache filled,
# with a threshold of 1 byte (never reached) and a short interval, for a fixed time, then gets
# SIGTERM.
#
#   bash Benchmarks/watch.sh                     # about 70 s, plus building the earlier commit once
#   bash Benchmarks/watch.sh --before 1e8a85e    # compare with that commit instead of main
#   bash Benchmarks/watch.sh --no-before         # this tree only
#   bash Benchmarks/watch.sh --seconds 5 --files 20000
#   STOWAGE_BIN=/path/to/stowage bash Benchmarks/watch.sh    # measure this binary as "after"
#
# How: `perf stat -e task-clock,syscalls:sys_enter_statfs` runs each watch (all its threads,
# from start to exit): task-clock is its CPU time, and the statfs system calls count its checks
# (a check measures the volume with one statvfs, in the earlier code too; checked below with a
# run of known length). Starting the process and its first check are taken out by a second run
# of the same watch with an interval of an hour (one check): per idle check = (CPU of the short
# run - CPU of the hour run) / (checks of the short run - 1).
#
# Targets: at most 1 ms of CPU per idle check, and the same (within 1.5x, or 20 us) for both
# caches. Misses are reported, not fatal. Needs perf (root, or perf_event_paranoid <= 1 and
# access to tracefs), git and GNU time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

usage() {
    sed -n '2,26s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    echo "Options: --files N (default 100000), --small N (default 100), --seconds S (default 10),"
    echo "  --interval I (default 0.01s, as watch --interval takes it), --before REF (default main),"
    echo "  --no-before, --keep, -h/--help."
}

files=100000
small=100
seconds=10
interval=0.01s
before=main
keep=0
while (($#)); do
    case "$1" in
        --files) files="${2:?--files needs a number}"; shift 2 ;;
        --small) small="${2:?--small needs a number}"; shift 2 ;;
        --seconds) seconds="${2:?--seconds needs a number}"; shift 2 ;;
        --interval) interval="${2:?--interval needs a duration such as 0.01s}"; shift 2 ;;
        --before) before="${2:?--before needs a commit}"; shift 2 ;;
        --no-before) before=""; shift ;;
        --keep) keep=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
    esac
done
export LC_ALL=C

# MARK: Tools

# shellcheck source=build.sh
source "$here/build.sh"
require_tools perf git timeout awk
if ! perf stat -x, -e task-clock,syscalls:sys_enter_statfs -o /dev/null -- true 2>/dev/null; then
    echo "error: perf cannot count syscalls:sys_enter_statfs here (run as root, or see perf_event_paranoid)" >&2
    exit 1
fi

# MARK: Working folder
# A fresh Benchmarks/.scratch-watch-<random> (gitignored): the two containers, the watches' logs
# and perf's counts. Removed at the end, on an interrupt or on SIGTERM, unless --keep. The
# earlier commit's build is kept in Benchmarks/.build-before/<commit> (gitignored) for the next run.

scratch="$(mktemp -d "$here/.scratch-watch-XXXXXXXX")"
cleanup() {
    if ((keep)); then echo "Kept $scratch"; else rm -rf "$scratch"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

started=$SECONDS

# MARK: Build

build_products MakeCache
build_stowage watch
if [[ -z "$stowage" ]]; then
    echo "error: $stowage_missing" >&2
    exit 1
fi
after_label="this tree ($(git -C "$here/.." rev-parse --short HEAD)$(git -C "$here/.." diff --quiet HEAD -- Sources Package.swift || echo ", with uncommitted changes"))"
[[ -n "${STOWAGE_BIN:-}" ]] && after_label="$STOWAGE_BIN"

# `build_before REF`: builds `stowage` from REF's files (git archive: no checkout, no worktree),
# once per commit; sets `before_bin` and `before_label`.
build_before() {
    local commit
    commit="$(git -C "$here/.." rev-parse --verify --quiet "$1^{commit}")" || {
        echo "error: --before $1 is not a commit of this repository" >&2
        exit 1
    }
    local place="$here/.build-before/$commit"
    before_label="$1 ($(git -C "$here/.." rev-parse --short "$commit"))"
    before_bin="$place/bin/stowage"
    if [[ -x "$before_bin" ]]; then
        echo "Using the build of $before_label in ${place#"$here/"}"
        return
    fi
    echo "Building stowage from $before_label (release, once; kept in ${place#"$here/"})..."
    rm -rf "$place"
    mkdir -p "$place/source" "$place/bin"
    git -C "$here/.." archive --format=tar "$commit" | tar -x -C "$place/source"
    if ! swift build -c release --package-path "$place/source" --product stowage >"$scratch/build-before.log" 2>&1; then
        cat "$scratch/build-before.log" >&2
        echo "error: building stowage from $before_label failed" >&2
        rm -rf "$place"
        exit 1
    fi
    cp "$(swift build -c release --package-path "$place/source" --show-bin-path)/stowage" "$before_bin"
    rm -rf "$place/source"  # the sources and their build: only the binary is kept
}

binaries=(after)
declare -A binary label
binary[after]="$stowage"
label[after]="$after_label"
if [[ -n "$before" ]]; then
    build_before "$before"
    binaries=(before after)
    binary[before]="$before_bin"
    label[before]="$before_label"
fi

# MARK: Containers
# Two scratch containers, each with a cache made by MakeCache in Library/Caches: `large`
# (--files) and `small` (--small). Nothing else is in them.

caches=(small large)
declare -A count root
count[small]=$small
count[large]=$files
echo
for cache in "${caches[@]}"; do
    root[$cache]="$scratch/container-$cache"
    mkdir -p "${root[$cache]}/Library" "${root[$cache]}/Documents"
    echo "Making a ${count[$cache]}-file cache in $(basename "${root[$cache]}")/Library/Caches..."
    "$bin/MakeCache" "${root[$cache]}/Library/Caches" --files "${count[$cache]}" >"$scratch/make-$cache.txt"
    sed 's/^/  /' "$scratch/make-$cache.txt"
done
# Otherwise the kernel writes the new files back while the watches are measured.
echo "Flushing the caches to disk (sync)..."
sync -f "$scratch"
echo "  ($((SECONDS - started)) s so far)"

# MARK: Measuring

# `measure NAME BINARY ROOT INTERVAL SECONDS`: runs the watch under perf stat for SECONDS, then
# SIGTERM; sets `cpu_ms` (task-clock, all threads) and `checks` (statfs calls).
measure() {
    local name="$1" watch="$2" container="$3" every="$4" duration="$5" status=0
    timeout_command=(timeout --preserve-status -s TERM "$duration" "$watch" watch --available 1 --interval "$every" --root "$container")
    perf stat -x, -e task-clock,syscalls:sys_enter_statfs -o "$scratch/$name.perf" -- "${timeout_command[@]}" \
        >"$scratch/$name.out" 2>"$scratch/$name.err" || status=$?
    if ((status != 0)) || [[ -s "$scratch/$name.err" ]]; then
        cat "$scratch/$name.err" >&2
        echo "error: '${timeout_command[*]}' failed (status $status)" >&2
        exit 1
    fi
    if grep -q 'freed' "$scratch/$name.out"; then
        echo "error: the watch in $container relieved pressure: it was not idle ($(grep -m1 freed "$scratch/$name.out"))" >&2
        exit 1
    fi
    cpu_ms="$(awk -F, '$3 == "task-clock" { print $1 }' "$scratch/$name.perf")"
    checks="$(awk -F, '$3 == "syscalls:sys_enter_statfs" { print $1 }' "$scratch/$name.perf")"
}

# The statfs calls of one check: in 1.3 seconds, a watch with an interval of an hour makes one
# check and a watch with an interval of half a second three (at 0, 0.5 and 1 s), both of the
# small cache: the difference is two checks.
echo
echo "Checking that one check is one statfs call..."
for name in "${binaries[@]}"; do
    measure "calibrate-$name-hour" "${binary[$name]}" "${root[small]}" 3600s 1.3
    one=$checks
    measure "calibrate-$name-half" "${binary[$name]}" "${root[small]}" 0.5s 1.3
    if ((checks - one != 2)); then
        echo "error: ${label[$name]}: 2 more checks made $((checks - one)) more statfs calls, not 2:" >&2
        echo "  checks cannot be counted by statfs calls for this binary" >&2
        exit 1
    fi
    echo "  ${label[$name]}: yes (and starting makes $((one - 1)))"
done

declare -A per_check checks_per_second cpu_per_second
echo
echo "Measuring: each watch for $seconds s with --interval $interval, then for 3 s with --interval 3600s..."
for name in "${binaries[@]}"; do
    for cache in "${caches[@]}"; do
        measure "$name-$cache-hour" "${binary[$name]}" "${root[$cache]}" 3600s 3
        hour_cpu=$cpu_ms hour_checks=$checks
        measure "$name-$cache" "${binary[$name]}" "${root[$cache]}" "$interval" "$seconds"
        idle_checks=$((checks - hour_checks))
        if ((idle_checks <= 0)); then
            echo "error: ${label[$name]}, ${count[$cache]} files: no check after the first one" >&2
            exit 1
        fi
        # Microseconds of CPU per check beyond the first; checks and CPU per second of the run.
        per_check[$name-$cache]="$(awk -v a="$cpu_ms" -v b="$hour_cpu" -v n="$idle_checks" 'BEGIN { printf "%.1f", (a - b) * 1000 / n }')"
        checks_per_second[$name-$cache]="$(awk -v n="$checks" -v s="$seconds" 'BEGIN { printf "%.1f", n / s }')"
        cpu_per_second[$name-$cache]="$(awk -v a="$cpu_ms" -v s="$seconds" 'BEGIN { printf "%.1f", a / s }')"
        printf '  %-7s %7s files: %6d checks in %s s, %9.1f ms CPU (start and first check: %.1f ms)\n' \
            "$name" "${count[$cache]}" "$checks" "$seconds" "$cpu_ms" "$hour_cpu"
    done
done

# MARK: Summary

echo
echo "Summary"
echo "  Machine: $(nproc) cores, $(uname -sr); caches on $(df -T "$scratch" | awk 'NR == 2 { print $2 " (" $1 ")" }')"
echo "  Watch: --available 1 --interval $interval --root DIR, $seconds s, then SIGTERM; never relieved"
for name in "${binaries[@]}"; do
    echo "  $name: ${label[$name]}"
done
echo
row() { printf '    %-8s %12s %16s %13s %16s\n' "$@"; }
row "" "cache files" "CPU per check" "checks / s" "CPU ms / s"
for name in "${binaries[@]}"; do
    for cache in "${caches[@]}"; do
        row "$name" "${count[$cache]}" "${per_check[$name-$cache]} us" "${checks_per_second[$name-$cache]}" "${cpu_per_second[$name-$cache]}"
    done
done
echo
echo "  Targets (after)"
verdict() { awk "BEGIN { exit !($1) }" && echo PASS || echo MISS; }
small_us="${per_check[after-small]}"
large_us="${per_check[after-large]}"
printf '    %-48s %-22s %s\n' "at most 1 ms CPU per idle check, ${count[small]} files" "($small_us us)" "$(verdict "$small_us <= 1000")"
printf '    %-48s %-22s %s\n' "at most 1 ms CPU per idle check, ${count[large]} files" "($large_us us)" "$(verdict "$large_us <= 1000")"
same="($large_us us against $small_us)"
printf '    %-48s %-22s %s\n' "the same for both caches (within 1.5x or 20 us)" "$same" \
    "$(verdict "(($large_us <= 1.5 * $small_us && $small_us <= 1.5 * $large_us) || ($large_us - $small_us < 20 && $small_us - $large_us < 20))")"
if [[ " ${binaries[*]} " == *" before "* ]]; then
    echo "  Before, the ${count[large]}-file cache cost $(awk -v b="${per_check[before-large]}" -v a="$large_us" 'BEGIN { printf "%.0fx", b / (a > 0 ? a : 1) }') as much CPU per check as after."
fi
echo "  This run took $((SECONDS - started)) s."
