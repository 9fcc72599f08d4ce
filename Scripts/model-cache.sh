#!/usr/bin/env bash
# The long run of DiskCache's model-based test (Tests/StowageTests/Caching/DiskCacheModelTests.swift):
# SEQUENCES random sequences of LENGTH operations (sets, gets, removals, removeAll, sweeps from two
# instances, a new instance, a second process, a writer killed at a fault point, the index cut
# short, written over or replaced), each checked step by step against the reference model. Prints
# the figures (sequences, operations, reads checked, evictions, processes, kills, index damages)
# and, for each failure, its seed, the shrunk operation list and the replay command. Not in CI;
# `swift test` runs a fixed set of seeds in a few seconds.
#
#   Scripts/model-cache.sh [SEQUENCES [LENGTH [FIRST-SEED]]]   default 1000 sequences of 60 from seed 1
#
# Exit status: 0 when every sequence agreed with the model, 1 otherwise.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
swift build --build-tests >/dev/null
export STOWAGE_MODEL_SEQUENCES=${1:-1000} STOWAGE_MODEL_LENGTH=${2:-60} STOWAGE_MODEL_FIRST_SEED=${3:-1}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
swift test --skip-build --filter 'DiskCacheModelTests/fixedSeeds' >"$log" 2>&1 || status=$?
grep -E '^model:|parted from the model|first at step|shortest sequence|^ +[0-9]+: ' "$log" || true
failed=$(grep -c 'FAILED' "$log" || true)
echo "model-cache: $STOWAGE_MODEL_SEQUENCES sequences of $STOWAGE_MODEL_LENGTH operations from seed $STOWAGE_MODEL_FIRST_SEED, $failed failed"
exit $(( status != 0 ))
