#!/usr/bin/env bash
# Times 256 rooms of a trivial command (/bin/true), from 0 to 1020 KiB in steps of one 4 KiB block:
# one `stowage run --available 0..1020KiB` (a range: one namespace for all, a fresh layer mounted per
# room) against 256 separate `stowage run --available N` (a stowage process and a namespace each), in
# one hyperfine run; also the range with a check (/bin/true, run in each room after the command, with
# the limit lifted), and `--find-minimum` of a 500 kB write over the same range (a bisection: about a
# dozen rooms). Before timing, one checked run of each way prints how many rooms it ran. The command is
# /bin/true, so what is timed is the rooms themselves.
#
#   bash Benchmarks/run-range.sh            # a few minutes after its release build; --runs N (default 5)
#   STOWAGE_BIN=/path/to/stowage bash Benchmarks/run-range.sh
#
# Needs root (or unprivileged user namespaces), hyperfine (apt-get install hyperfine) and jq.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
runs=5
while (($#)); do
    case "$1" in
        --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
        -h | --help) sed -n '2,13s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
# shellcheck source=build.sh
source "$here/build.sh"
require_tools hyperfine jq seq
scratch_folder run-range
build
data="$scratch/data"
mkdir -p "$data"
echo
echo "Machine: $(machine "$data"); load average $(cut -d' ' -f1-3 /proc/loadavg)"

names=(range check minimum separate)
declare -A title=([range]="one range run, 256 rooms" [check]="one range run, 256 rooms, --check /bin/true"
    [minimum]="one range run, --find-minimum of a 500 kB write" [separate]="256 separate stowage runs")
declare -A command=(
    [range]="$(q "$stowage") run --available 0..1020KiB --over $(q "$data") -- /bin/true >/dev/null"
    [check]="$(q "$stowage") run --available 0..1020KiB --over $(q "$data") --check /bin/true -- /bin/true >/dev/null"
    [minimum]="$(q "$stowage") run --available 0..1020KiB --find-minimum --over $(q "$data") -- /bin/sh -c $(q "head -c 500000 /dev/zero > $(q "$data")/f") >/dev/null"
    [separate]="for i in \$(seq 0 255); do $(q "$stowage") run --available \$((i * 4096)) --over $(q "$data") -- /bin/true || exit 1; done")

echo
echo "One checked run of each way (rooms run; the real folder must stay empty)..."
rooms() { "$stowage" run --available 0..1020KiB --over "$data" "$@" | grep -cE '^ *[0-9]+  '; }
printf '  %-48s %4s rooms\n' "${title[range]}" "$(rooms -- /bin/true)" "${title[check]}" "$(rooms --check /bin/true -- /bin/true)" \
    "${title[minimum]}" "$(rooms --find-minimum -- /bin/sh -c "head -c 500000 /dev/zero > $(q "$data")/f")"
separate=0
for i in $(seq 0 255); do "$stowage" run --available $((i * 4096)) --over "$data" -- /bin/true && separate=$((separate + 1)); done
printf '  %-48s %4s rooms\n' "${title[separate]}" "$separate"
[[ -z "$(ls -A "$data")" ]] || { echo "error: the real folder changed" >&2; exit 1; }
! grep -q ' stowage-room ' /proc/self/mountinfo || { echo "error: a room's mount is on the host" >&2; exit 1; }

arguments=()
for name in "${names[@]}"; do arguments+=(--command-name "${title[$name]}" "${command[$name]}"); done
echo
hyperfine --style basic --warmup 1 --runs "$runs" --export-json "$scratch/times.json" "${arguments[@]}"

seconds() { calc %.2f "$(result "$scratch/times.json" "${title[$1]}" ".$2")"; }
per_room() { calc %.1f "$(result "$scratch/times.json" "${title[$1]}" .mean) * 1000 / $2"; }
echo
echo "Summary (hyperfine: mean ± standard deviation of $runs runs)"
for name in "${names[@]}"; do printf '  %-48s %7s s ± %s\n' "${title[$name]}" "$(seconds "$name" mean)" "$(seconds "$name" stddev)"; done
printf '  per room: range %s ms, with the check %s ms (two runs a room), separate runs %s ms\n' \
    "$(per_room range 256)" "$(per_room check 256)" "$(per_room separate 256)"
printf '  256 separate runs / one range of 256 rooms: %sx\n' \
    "$(calc %.1f "$(result "$scratch/times.json" "${title[separate]}" .mean) / $(result "$scratch/times.json" "${title[range]}" .mean)")"
