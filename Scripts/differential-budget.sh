#!/usr/bin/env bash
# The long run of the differential test of StowageTesting's budget: many random, seeded
# sequences of Stowage operations (saves, appends, folders of data, DiskCache sets, removals,
# moves, bursts of long names) run under the budget and on loop volumes of ext4, XFS, btrfs and
# a tmpfs with exactly the same bytes available; the first refusal on each side is compared.
# Needs root (loop mounts) and mkfs.xfs / mkfs.btrfs (apt-get install xfsprogs btrfs-progs);
# a file system that cannot be mounted is skipped, saying why. Not part of CI.
#
#   Scripts/differential-budget.sh [SEQUENCES [FIRST-SEED]]    default 100 sequences from seed 1000
#
# Prints, per file system: the sequences and operations run, how often both sides refused at
# the same step, how often and by how much the budget refused earlier (steps, and the bytes the
# disk still had then), and how often it refused later (a failure, except on XFS: see the
# StowageTesting article). Every sequence's line says how to replay it.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
sequences=${1:-100}
first=${2:-1000}
cd "$repo"
swift build --build-tests >/dev/null
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
status=0
STOWAGE_BUDGET_SEQUENCES=$sequences STOWAGE_BUDGET_FIRST_SEED=$first \
    swift test --skip-build --filter 'BudgetDifferentialTests/(ext4|tmpfs|xfs|btrfs)' >"$log" 2>&1 || status=$?
grep -E 'budget differential [a-z0-9]+ seed' "$log" || true
echo
grep -E 'budget differential [a-z0-9]+:|SKIPPED|✘' "$log" || true
echo "($sequences sequences per file system from seed $first, $(( $(date +%s) - start )) s; swift test exit $status)"
exit $status
