#!/usr/bin/env bash
# Times `stowage run` (a command in a room of 5 MB) against starting the command directly, and
# against making the same room the other way, `stowage fill --leave 5MB` + `stowage release`, on
# a 4 GiB ext4 volume (an image on a loop device, made and mounted by this script), in one
# hyperfine run. The command is /bin/true, so what is timed is the cost of the room itself.
#
#   bash Benchmarks/run.sh                  # about 1 minute
#   bash Benchmarks/run.sh --runs 50
#   STOWAGE_BIN=/path/to/stowage bash Benchmarks/run.sh
#
# Also shown: `unshare --mount` (the kernel's mount namespace alone, the floor for any room),
# `stowage --version` (starting the Swift program alone), and an ext4 room of 5 MB and of 1 GB
# (an image made with mkfs.ext4 each time). Before timing, one
# checked run of each room prints what df reports inside. Needs root, hyperfine, jq, mkfs.ext4,
# unshare.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
runs=20
while (($#)); do
    case "$1" in
        --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
        -h | --help) sed -n '2,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
export LC_ALL=C

# shellcheck source=build.sh
source "$here/build.sh"
require_tools hyperfine jq mkfs.ext4 unshare mount umount df findmnt bc

ext4_scratch run

build_products MakeCache  # any product: sets `bin`; stowage itself comes next
require_stowage run

mount_ext4_volume 4
data="$volume/data"
mkdir -p "$data"
echo
echo "Volume: ext4 image of 4 GiB on a loop device ($(findmnt -n -o SOURCE "$volume")), $(uname -r)"

q() { printf '%q' "$1"; }
declare -A command title
names=(direct unshare start tmpfs ext4 ext4big fill)
title=([direct]="/bin/true directly" [unshare]="unshare --mount /bin/true" [start]="stowage --version"
       [tmpfs]="stowage run --available 5MB (tmpfs)" [ext4]="stowage run --available 5MB --fs ext4"
       [ext4big]="stowage run --available 1GB --fs ext4" [fill]="stowage fill --leave 5MB + release")
command[direct]="/bin/true"
command[unshare]="unshare --mount /bin/true"
command[start]="$(q "$stowage") --version"
command[tmpfs]="$(q "$stowage") run --available 5MB --over $(q "$data") -- /bin/true"
command[ext4]="$(q "$stowage") run --available 5MB --fs ext4 --over $(q "$data") -- /bin/true"
command[ext4big]="$(q "$stowage") run --available 1GB --fs ext4 --over $(q "$data") -- /bin/true"
command[fill]="$(q "$stowage") fill $(q "$volume") --leave 5MB --json >/dev/null && /bin/true && $(q "$stowage") release $(q "$volume") >/dev/null"

echo
echo "One checked run of each room (df inside: available bytes)..."
inside() { "$stowage" run --available "$1" "${@:2}" --over "$data" -- df -B1 --output=avail "$data" | tail -n1 | tr -d ' '; }
printf '  %-40s %12s\n' "${title[tmpfs]}" "$(inside 5MB)"
printf '  %-40s %12s\n' "${title[ext4]}" "$(inside 5MB --fs ext4)"
printf '  %-40s %12s\n' "${title[ext4big]}" "$(inside 1GB --fs ext4)"
"$stowage" fill "$volume" --leave 5MB --json >/dev/null
printf '  %-40s %12s  (the whole volume, for every process)\n' "stowage fill --leave 5MB" "$(df -B1 --output=avail "$volume" | tail -n1 | tr -d ' ')"
"$stowage" release "$volume" >/dev/null
if grep -q ' stowage-room ' /proc/self/mountinfo; then
    echo "error: a room's mount is on the host" >&2
    exit 1
fi

arguments=()
for name in "${names[@]}"; do
    arguments+=(--command-name "${title[$name]}" "${command[$name]}")
done
echo
hyperfine --style basic --warmup 2 --runs "$runs" --export-json "$scratch/times.json" "${arguments[@]}"

mean() { jq -r --arg name "$1" '.results[] | select(.command == $name) | .mean * 1000' "$scratch/times.json"; }
sd() { jq -r --arg name "$1" '.results[] | select(.command == $name) | .stddev * 1000' "$scratch/times.json"; }
echo
echo "Summary (hyperfine: mean ± standard deviation of $runs runs, in ms)"
for name in "${names[@]}"; do
    printf '  %-40s %8.1f ms ± %.1f\n' "${title[$name]}" "$(mean "${title[$name]}")" "$(sd "${title[$name]}")"
done
printf '  room (tmpfs) over starting directly:   +%.1f ms (of which starting stowage: %.1f ms)\n' \
    "$(echo "$(mean "${title[tmpfs]}") - $(mean "${title[direct]}")" | bc -l)" "$(mean "${title[start]}")"
printf '  fill + release / room (tmpfs):          %.2fx\n' "$(echo "$(mean "${title[fill]}") / $(mean "${title[tmpfs]}")" | bc -l)"
