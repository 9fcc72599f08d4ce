#!/usr/bin/env bash
# Times `stowage run` (a command in a room of 5 MB) against starting the command directly, and against
# making the same room the other way, `stowage fill --leave 5MB` + `stowage release`, on a 4 GiB ext4
# volume (an image on a loop device, made and mounted here), in one hyperfine run. The command is
# /bin/true, so what is timed is the room itself. Also shown: `unshare --mount` (the kernel's mount
# namespace alone, the floor of any room), `stowage --version` (starting the Swift program alone), and
# ext4 rooms of 5 MB and 1 GB. Before timing, one checked run of each room prints what df sees inside.
#
#   bash Benchmarks/run.sh                  # about 1 minute; --runs N (default 20)
#   STOWAGE_BIN=/path/to/stowage bash Benchmarks/run.sh
#
# Needs root, hyperfine, jq, mkfs.ext4, unshare.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
runs=20
while (($#)); do
    case "$1" in
        --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
        -h | --help) sed -n '2,12s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
# shellcheck source=build.sh
source "$here/build.sh"
require_tools hyperfine jq mkfs.ext4 unshare mount umount df findmnt
scratch_folder run
build
mount_ext4_volume 4
data="$volume/data"
mkdir -p "$data"
echo
echo "Volume: ext4 image of 4 GiB on a loop device ($(findmnt -n -o SOURCE "$volume")), $(uname -r)"

names=(direct unshare start tmpfs ext4 ext4big fill)
declare -A title=([direct]="/bin/true directly" [unshare]="unshare --mount /bin/true" [start]="stowage --version"
    [tmpfs]="stowage run --available 5MB (tmpfs)" [ext4]="stowage run --available 5MB --fs ext4"
    [ext4big]="stowage run --available 1GB --fs ext4" [fill]="stowage fill --leave 5MB + release")
declare -A command=([direct]="/bin/true" [unshare]="unshare --mount /bin/true" [start]="$(q "$stowage") --version"
    [tmpfs]="$(q "$stowage") run --available 5MB --over $(q "$data") -- /bin/true"
    [ext4]="$(q "$stowage") run --available 5MB --fs ext4 --over $(q "$data") -- /bin/true"
    [ext4big]="$(q "$stowage") run --available 1GB --fs ext4 --over $(q "$data") -- /bin/true"
    [fill]="$(q "$stowage") fill $(q "$volume") --leave 5MB --json >/dev/null && /bin/true && $(q "$stowage") release $(q "$volume") >/dev/null")

echo
echo "One checked run of each room (df inside: available bytes)..."
inside() { "$stowage" run --available "$1" "${@:2}" --over "$data" -- df -B1 --output=avail "$data" | tail -n1 | tr -d ' '; }
available() { df -B1 --output=avail "$volume" | tail -n1 | tr -d ' '; }
printf '  %-40s %12s\n' "${title[tmpfs]}" "$(inside 5MB)" "${title[ext4]}" "$(inside 5MB --fs ext4)" "${title[ext4big]}" "$(inside 1GB --fs ext4)"
"$stowage" fill "$volume" --leave 5MB --json >/dev/null
printf '  %-40s %12s  (the whole volume, for every process)\n' "stowage fill --leave 5MB" "$(available)"
"$stowage" release "$volume" >/dev/null
! grep -q ' stowage-room ' /proc/self/mountinfo || { echo "error: a room's mount is on the host" >&2; exit 1; }

arguments=()
for name in "${names[@]}"; do arguments+=(--command-name "${title[$name]}" "${command[$name]}"); done
echo
hyperfine --style basic --warmup 2 --runs "$runs" --export-json "$scratch/times.json" "${arguments[@]}"

ms() { calc %.1f "$(result "$scratch/times.json" "${title[$1]}" ".$2") * 1000"; }
echo
echo "Summary (hyperfine: mean ± standard deviation of $runs runs, in ms)"
for name in "${names[@]}"; do printf '  %-40s %8s ms ± %s\n' "${title[$name]}" "$(ms "$name" mean)" "$(ms "$name" stddev)"; done
printf '  room (tmpfs) over starting directly:   +%s ms (of which starting stowage: %s ms)\n' \
    "$(calc %.1f "$(ms tmpfs mean) - $(ms direct mean)")" "$(ms start mean)"
printf '  fill + release / room (tmpfs):          %sx\n' "$(calc %.2f "$(ms fill mean) / $(ms tmpfs mean)")"
