#!/usr/bin/env bash
# Times `stowage fill` on a fresh ext4 volume (an image on a loop device, made and mounted here) against
# the tools a tester would use for the same goal, in one hyperfine run, with the peak memory of each:
#   --method allocate  against  fallocate -l BYTES FILE
#   --method zeros     against  dd if=/dev/zero of=FILE bs=1M count=MIB conv=fdatasync
# The goal leaves 200 MB available; the peers fill the byte count that goal needs, measured on the empty
# volume. dd gets conv=fdatasync because a fill ends by writing its data back to measure the volume.
#
#   bash Benchmarks/fill.sh                 # a 4 GiB volume: about 1 minute
#   bash Benchmarks/fill.sh --size 8 --runs 5
#   STOWAGE_BIN=/path/to/stowage bash Benchmarks/fill.sh
#
# Targets: the library's .allocate (the fill's own time, from its report) at most 1.5x the time of
# fallocate; zeros at least 0.9x the throughput of dd; memory under the 4 MiB chunk plus 32 MB; both end
# on the goal. Misses are reported, not fatal. Needs root (mount), hyperfine, jq, mkfs.ext4, GNU time.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
size_gib=4 runs=5
while (($#)); do
    case "$1" in
        --size) size_gib="${2:?--size needs a number of GiB}"; shift 2 ;;
        --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
        -h | --help) sed -n '2,16s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
# shellcheck source=build.sh
source "$here/build.sh"
require_tools hyperfine jq mkfs.ext4 fallocate dd mount umount
scratch_folder fill
build
mount_ext4_volume "$size_gib"
sync -f "$volume"

available() { echo $(($(stat -f -c '%a * %S' "$volume"))); }
empty=$(available) goal=200000000 block=$(stat -f -c '%S' "$volume")
bytes=$(((empty - goal) / block * block))
mib=$((bytes / 1048576))
echo
echo "Volume: ext4 image of $size_gib GiB on a loop device ($(findmnt -n -o SOURCE "$volume")), $(uname -r)"
echo "  empty: $empty bytes available; goal: leave $goal; peers fill $bytes bytes (dd: $mib MiB)"

# Before every run, whatever the last one left goes: a fill (released) and the peers' file.
clean="$(q "$stowage") release $(q "$volume") >/dev/null && rm -f $(q "$volume/peer.bin") && sync -f $(q "$volume")"
names=(allocate fallocate zeros dd)
declare -A memory after title=([allocate]="stowage fill --method allocate" [fallocate]="fallocate -l"
                               [zeros]="stowage fill --method zeros" [dd]="dd bs=1M conv=fdatasync")
declare -A command=([allocate]="$(q "$stowage") fill $(q "$volume") --leave $goal --method allocate --json >/dev/null"
                    [fallocate]="fallocate -l $bytes $(q "$volume/peer.bin")"
                    [zeros]="$(q "$stowage") fill $(q "$volume") --leave $goal --method zeros --json >/dev/null"
                    [dd]="dd if=/dev/zero of=$(q "$volume/peer.bin") bs=1M count=$mib conv=fdatasync status=none")

echo
echo "One checked run of each (available bytes after, peak memory)..."
arguments=()
for name in "${names[@]}"; do
    sh -c "$clean"
    /usr/bin/time -f '%M' -o "$scratch/time-$name" sh -c "${command[$name]}"
    after[$name]=$(available) memory[$name]=$(tail -n1 "$scratch/time-$name")
    printf '  %-32s %14s available after (goal %s), peak %s\n' "${title[$name]}" "${after[$name]}" "$goal" "$(megabytes "${memory[$name]}")"
    arguments+=(--command-name "${title[$name]}" --prepare "$clean" "${command[$name]}")
done
echo
hyperfine --style basic --warmup 1 --runs "$runs" --export-json "$scratch/times.json" "${arguments[@]}"

# The library's .allocate without the process around it: the fill's own time from its report, over as
# many runs. A Swift program takes 20-40 ms to start on Linux, longer than fallocate(1) takes in all.
inside=0
for ((run = 0; run < runs; run++)); do
    sh -c "$clean"
    inside=$(calc %.6f "$inside + $("$stowage" fill "$volume" --leave "$goal" --method allocate --json | jq -r .elapsedSeconds) / $runs")
done
sh -c "$clean"

mean() { result "$scratch/times.json" "${title[$1]}" .mean; }
echo
echo "Summary (hyperfine: mean ± standard deviation of $runs runs; throughput = bytes filled / mean time)"
for name in "${names[@]}"; do
    printf '  %-32s %8.3f s ± %.3f  %8.0f MB/s  peak %s\n' "${title[$name]}" "$(mean "$name")" \
        "$(result "$scratch/times.json" "${title[$name]}" ".stddev // 0")" "$(calc %f "$bytes / $(mean "$name") / 1e6")" "$(megabytes "${memory[$name]}")"
done
printf '  %-32s %8.3f s          (the fill inside the process: Filler with .allocate)\n' "library .allocate" "$inside"
echo "Targets"
printf '  .allocate time / fallocate time    %5.2fx  (target at most 1.5x)   %s\n' "$(calc %f "$inside / $(mean fallocate)")" \
    "$(verdict "$inside <= 1.5 * $(mean fallocate)")"
printf '  (whole commands, process start included: stowage fill / fallocate %.2fx)\n' "$(calc %f "$(mean allocate) / $(mean fallocate)")"
printf '  zeros throughput / dd throughput   %5.2fx  (target at least 0.9x)  %s\n' "$(calc %f "$(mean dd) / $(mean zeros)")" \
    "$(verdict "$(mean dd) >= 0.9 * $(mean zeros)")"
for name in allocate zeros; do
    missed=$((after[$name] - (goal + block - 1) / block * block))
    printf '  %-32s peak %s (target under 36 MB) %s; ended %d bytes from the goal (block %d) %s\n' "${title[$name]}" \
        "$(megabytes "${memory[$name]}")" "$(verdict "${memory[$name]} < 36 * 1024")" "$missed" "$block" "$(verdict "${missed#-} < $block")"
done
