#!/bin/sh
# Builds the libFuzzer targets (release, -sanitize=fuzzer, linked with lld: ld.gold fails on
# libFuzzer's archive with this toolchain) and fuzzes each for a while.
#
#   Fuzz/run.sh [SECONDS] [TARGET...]     default: 600 seconds each, all three targets
#
# The corpus grows in .build-fuzz/corpus/TARGET (seeded from Fuzz/corpus/TARGET); a crashing
# input is written to .build-fuzz/crash-TARGET-*. `swift test` runs a short pass of each
# (FuzzReliabilityTests).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
scratch="$here/../.build-fuzz"
seconds=${1:-600}
[ $# -gt 0 ] && shift
targets=${*:-FuzzByteCount FuzzRelativePath FuzzJSONAppend}
swift build -c release --package-path "$here" --scratch-path "$scratch" --toolset "$here/toolset.json"
for target in $targets; do
    mkdir -p "$scratch/corpus/$target"
    dictionary=""
    [ "$target" = FuzzRelativePath ] && dictionary="-dict=$here/relative-path.dict"
    # Swift's backtracer would take the trap first, and libFuzzer would save no crashing input.
    SWIFT_BACKTRACE=enable=no "$scratch/release/$target" -max_total_time="$seconds" -print_final_stats=1 $dictionary \
        -artifact_prefix="$scratch/crash-$target-" "$scratch/corpus/$target" "$here/corpus/$target"
done
