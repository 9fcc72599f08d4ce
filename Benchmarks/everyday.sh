#!/usr/bin/env bash
# Times what users of the command look at most, each beside its peer in one hyperfine run: `stowage usage`
# of an app-sized tree (219 entries), of a build folder's size (4,872 entries) and of /usr against `du -s`
# and `gdu`; and starting the command (`stowage --version`) against a "hello" in Swift with Foundation
# (compiled here with `swiftc -O`, as a Swift user builds one), one in C, and ParserHello's `--version`
# (one option, one flag and one argument on swift-argument-parser, linked as stowage is: the floor of a
# start on the command's own stack). Trees are made by MakeTree (--files 211 and 4690, seed 1),
# read-only scans of /usr read nothing but names and sizes.
#
#   bash Benchmarks/everyday.sh                             # about 2 minutes after the release build
#   STOWAGE_BIN=$(command -v stowage) bash Benchmarks/everyday.sh   # the command as installed (make install)
#   bash Benchmarks/everyday.sh --runs 50 --no-usr
#
# The command is built with --static-swift-stdlib, as `make install` builds it. Goals (issue 32): usage of
# the 219-entry tree at most 3x du's time, of the 4,872-entry tree at most 1.0x, of /usr at most 0.50x;
# start-up at most 0.8x the Foundation hello. Misses are reported, not fatal. On a loaded machine the
# times of all rows stretch: the ratios of one run are what to compare, and user + system CPU is printed
# beside each mean. Needs hyperfine, gdu, jq and swiftc.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
runs=30 usr=1
while (($#)); do
    case "$1" in
        --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
        --no-usr) usr=0; shift ;;
        -h | --help) sed -n '2,15s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "error: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
# shellcheck source=build.sh
source "$here/build.sh"
require_tools hyperfine gdu jq du swiftc cc
scratch_folder everyday
build MakeTree ParserHello

small="$scratch/app" medium="$scratch/build"
"$bin/MakeTree" "$small" --files 211 --seed 1 >/dev/null
"$bin/MakeTree" "$medium" --files 4690 --seed 1 >/dev/null
sync -f "$small"
printf 'import Foundation\nprint("hello \\(URL(fileURLWithPath: "/").path)")\n' >"$scratch/hello.swift"
printf '#include <stdio.h>\nint main(void) { puts("hello /"); return 0; }\n' >"$scratch/hello.c"
swiftc -O "$scratch/hello.swift" -o "$scratch/hello-swift" 2>"$scratch/swiftc.log" || { cat "$scratch/swiftc.log" >&2; exit 1; }
cc -O2 "$scratch/hello.c" -o "$scratch/hello-c"
linked="dynamically (Swift's shared libraries)"
ldd "$stowage" 2>/dev/null | grep -q libswiftCore || linked="with Swift's libraries inside (--static-swift-stdlib)"

# rows NAME SUBJECT...: one hyperfine run of du -s, gdu and stowage usage on SUBJECT (or of the start-ups).
times() {
    local name="$1"
    shift
    hyperfine -N --style basic --warmup 3 --runs "$runs" --export-json "$scratch/$name.json" "$@" >"$scratch/$name.log" 2>&1 ||
        { cat "$scratch/$name.log" >&2; exit 1; }
}
usage_rows() {
    local name="$1" tree="$2"
    [[ "$("$stowage" usage --summarize --json "$tree" | jq .allocatedBytes)" == "$(du -s -B1 "$tree" | cut -f1)" ]] ||
        { echo "error: stowage usage of $tree does not equal du -s -B1" >&2; exit 1; }
    times "$name" -n "du -s" "du -s $(q "$tree")" -n "gdu" "gdu -snp $(q "$tree")" \
        -n "stowage usage" "$(q "$stowage") usage $(q "$tree")"
}
echo "Timing (hyperfine, $runs runs each, warm cache)..."
usage_rows app "$small"
usage_rows build "$medium"
((usr)) && usage_rows usr /usr
times start -n "C hello" "$(q "$scratch/hello-c")" -n "Foundation hello" "$(q "$scratch/hello-swift")" \
    -n "parser hello" "$(q "$bin/ParserHello") --version" -n "stowage --version" "$(q "$stowage") --version"

# row FILE NAME PEER: the mean (ms) and user + system (ms), each with its ratio to the peer's.
cpu() { jq -r --arg name "$2" '.results[] | select(.command == $name) | .user + .system' "$scratch/$1.json"; }
row() {
    local mean peer
    mean=$(result "$scratch/$1.json" "$2" .mean) peer=$(result "$scratch/$1.json" "$3" .mean)
    printf '    %-20s %9s %6s   cpu %8s %6s\n' "$2" "$(calc '%.2f ms' "$mean * 1000")" "$(calc '%.2fx' "$mean / $peer")" \
        "$(calc '%.2f ms' "$(cpu "$1" "$2") * 1000")" "$(calc '%.2fx' "$(cpu "$1" "$2") / $(cpu "$1" "$3")")"
}
goal() {
    local mean peer
    mean=$(result "$scratch/$1.json" "$2" .mean) peer=$(result "$scratch/$1.json" "$3" .mean)
    printf '    goal: %s at most %sx %s: %s\n' "$2" "$4" "$3" "$(verdict "$mean <= $4 * $peer")"
}
echo
echo "Summary"
echo "  Machine: $(machine "$scratch"); load average $(cut -d' ' -f1-3 /proc/loadavg); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "  stowage: $stowage, linked $linked"
for tree in "app:$small:the 219-entry tree (an app's container)" "build:$medium:the 4,872-entry tree (a build folder)" \
    "usr:/usr:/usr"; do
    IFS=: read -r name path title <<<"$tree"
    [[ -f "$scratch/$name.json" ]] || continue
    echo "  usage of $title, $(du -s --inodes "$path" | cut -f1) entries (du --inodes); mean, ratio to du -s; cpu, ratio"
    for command in "du -s" gdu "stowage usage"; do row "$name" "$command" "du -s"; done
done
echo "  start-up; mean, ratio to the Foundation hello; cpu, ratio"
for command in "C hello" "Foundation hello" "parser hello" "stowage --version"; do row start "$command" "Foundation hello"; done
echo "  the floor of a start on swift-argument-parser (ParserHello --version, linked as stowage is); ratio to it"
row start "stowage --version" "parser hello"
echo "  Goals"
goal app "stowage usage" "du -s" 3
goal build "stowage usage" "du -s" 1.0
[[ -f "$scratch/usr.json" ]] && goal usr "stowage usage" "du -s" 0.5
goal start "stowage --version" "Foundation hello" 0.8
echo "  This run took $((SECONDS - started)) s."
