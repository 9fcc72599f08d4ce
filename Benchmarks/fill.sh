#!/usr/bin/env bash
# Times `stowage fill` on a fresh ext4 volume (an image on a loop device, made and mounted by
# this script) against the tools a tester would use for the same goal, in one run:
#   --method allocate  against  fallocate -l BYTES FILE
#   --method zeros     against  dd if=/dev/zero of=FILE bs=1M count=MIB conv=fdatasync
# and prints peak memory of each. The goal leaves 200 MB available; the peers get the byte
# count that goal needs, measured on the empty volume. dd is given conv=fdatasync because a
# fill ends by writing its data back (syncfs) to measure the volume exactly: both then
# report the time until the data is on disk.
#
#   bash Benchmarks/fill.sh                 # a 4 GiB volume: about 1 minute
#   bash Benchmarks/fill.sh --size 8        # the volume's size in GiB
#   STOWAGE_BIN=/path/to/stowage bash Benchmarks/fill.sh
#
# Targets: the library's .allocate (the fill's own time, from its report) at most 1.5x the time
# of the fallocate command (whole commands are shown too); zeros at least 0.9x the throughput of
# dd; memory under the chunk size (4 MiB) plus 32 MB. Misses are reported, not fatal. Needs
# root (mount), hyperfine, jq, mkfs.ext4 and GNU time.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
size_gib=4
runs=5
while (($#)); do
    case "$1" in
        --size) size_gib="${2:?--size needs a number of GiB}"; shift 2 ;;
        --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
        -h | --help) sed -n '2,17s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
export LC_ALL=C

# shellcheck source=build.sh
source "$here/build.sh"
require_tools hyperfine jq mkfs.ext4 fallocate dd mount umount

# MARK: Scratch folder, volume, and clean-up on any exit

ext4_scratch fill

build_products MakeCache  # any product: sets `bin`; stowage itself comes next
require_stowage fill

mount_ext4_volume "$size_gib"
sync -f "$volume"

available() { echo $(( $(stat -f -c '%a' "$volume") * $(stat -f -c '%S' "$volume") )); }
empty=$(available)
goal=200000000
block=$(stat -f -c '%S' "$volume")
bytes=$(( (empty - goal) / block * block ))
mib=$(( bytes / 1048576 ))
echo
echo "Volume: ext4 image of ${size_gib} GiB on a loop device ($(findmnt -n -o SOURCE "$volume")), $(uname -r)"
echo "  empty: $empty bytes available; goal: leave $goal; peers fill $bytes bytes (dd: $mib MiB)"

# MARK: Commands

q() { printf '%q' "$1"; }
# Before every run, whatever the last run left goes: a fill (released) and the peers' file.
clean="$(q "$stowage") release $(q "$volume") >/dev/null && rm -f $(q "$volume/peer.bin") && sync -f $(q "$volume")"
declare -A command prepare title
names=(allocate fallocate zeros dd)
title=([allocate]="stowage fill --method allocate" [fallocate]="fallocate -l" [zeros]="stowage fill --method zeros" [dd]="dd bs=1M conv=fdatasync")
command[allocate]="$(q "$stowage") fill $(q "$volume") --leave $goal --method allocate --json >/dev/null"
command[fallocate]="fallocate -l $bytes $(q "$volume/peer.bin")"
command[zeros]="$(q "$stowage") fill $(q "$volume") --leave $goal --method zeros --json >/dev/null"
command[dd]="dd if=/dev/zero of=$(q "$volume/peer.bin") bs=1M count=$mib conv=fdatasync status=none"
for name in "${names[@]}"; do prepare[$name]="$clean"; done

# MARK: One checked run of each, under GNU time

declare -A memory after
echo
echo "One checked run of each (available bytes after, peak memory)..."
for name in "${names[@]}"; do
    sh -c "${prepare[$name]}"
    /usr/bin/time -f '%M' -o "$scratch/time-$name" sh -c "${command[$name]}"
    after[$name]=$(available)
    memory[$name]=$(tail -n1 "$scratch/time-$name")
    printf '  %-32s %14s available after  (goal %s)  peak %6.1f MB\n' "${title[$name]}" "${after[$name]}" "$goal" \
        "$(echo "${memory[$name]} / 1024" | bc -l)"
    sh -c "${prepare[$name]}"
done

# MARK: Timing

arguments=()
for name in "${names[@]}"; do
    arguments+=(--command-name "${title[$name]}" --prepare "${prepare[$name]}" "${command[$name]}")
done
echo
hyperfine --style basic --warmup 1 --runs "$runs" --export-json "$scratch/times.json" "${arguments[@]}"

# The library's .allocate without the process around it: the fill's own time, from its report
# (`seconds`), over the same number of runs. A Swift program takes ~20-40 ms to start on Linux
# (loading Foundation), longer than fallocate(1) takes for the whole job.
inside_total=0
for ((run = 0; run < runs; run++)); do
    sh -c "$clean"
    seconds=$("$stowage" fill "$volume" --leave "$goal" --method allocate --json | jq -r '.elapsedSeconds')
    inside_total=$(echo "$inside_total + $seconds" | bc -l)
done
sh -c "$clean"
inside=$(echo "$inside_total / $runs" | bc -l)

mean() { jq -r --arg name "$1" '.results[] | select(.command == $name) | .mean' "$scratch/times.json"; }
sd() { jq -r --arg name "$1" '.results[] | select(.command == $name) | .stddev' "$scratch/times.json"; }

echo
echo "Summary (hyperfine: mean ± standard deviation of $runs runs; throughput = bytes filled / mean time)"
for name in "${names[@]}"; do
    m=$(mean "${title[$name]}")
    printf '  %-32s %8.3f s ± %.3f  %8.0f MB/s  peak %6.1f MB\n' "${title[$name]}" "$m" "$(sd "${title[$name]}")" \
        "$(echo "$bytes / $m / 1000000" | bc -l)" "$(echo "${memory[$name]} / 1024" | bc -l)"
done
printf '  %-32s %8.3f s          (the fill inside the process: Filler with .allocate)\n' "library .allocate" "$inside"
ratio_allocate=$(echo "$inside / $(mean "${title[fallocate]}")" | bc -l)
ratio_command=$(echo "$(mean "${title[allocate]}") / $(mean "${title[fallocate]}")" | bc -l)
ratio_zeros=$(echo "$(mean "${title[dd]}") / $(mean "${title[zeros]}")" | bc -l)
verdict() { if (( $(echo "$1" | bc -l) )); then echo PASS; else echo MISS; fi; }
echo
echo "Targets"
printf '  .allocate time / fallocate time    %5.2fx  (target at most 1.5x)   %s\n' "$ratio_allocate" "$(verdict "$ratio_allocate <= 1.5")"
printf '  (whole commands, process start included: stowage fill / fallocate %.2fx)\n' "$ratio_command"
printf '  zeros throughput / dd throughput   %5.2fx  (target at least 0.9x)  %s\n' "$ratio_zeros" "$(verdict "$ratio_zeros >= 0.9")"
for name in allocate zeros; do
    printf '  %-32s peak %6.1f MB     (target under 36 MB)    %s\n' "${title[$name]}" "$(echo "${memory[$name]} / 1024" | bc -l)" \
        "$(verdict "${memory[$name]} < 36 * 1024")"
    missed=$(( ${after[$name]} - (goal + block - 1) / block * block ))
    printf '  %-32s ended %d bytes from the goal (block %d)  %s\n' "${title[$name]}" "$missed" "$block" \
        "$(verdict "${missed#-} < $block")"
done
