#!/bin/sh
# The long run of the command-line fuzz (Tests/StowageCLITests/CommandLineFuzzTests.swift):
# figures at and around Int64's ends through every option and variable of `stowage` that takes
# one, sometimes with standard streams closed, in scratch folders only (a container, a tree, a
# tmpfs the test mounts, rooms over its own folder). Fails on any ending but a documented exit
# status; prints each failing case with its seed.
#
#   Scripts/fuzz-command-line.sh [CASES] [SEED...]     default: 2000 cases, seeds 1 2 3
#
# Needs root (or user namespaces) for rooms and a tmpfs mount, as the suite does. `swift test`
# runs one fixed seed, 150 cases.
set -eu
cd "$(dirname "$0")/.."
cases=${1:-2000}
[ $# -gt 0 ] && shift
seeds=${*:-1 2 3}
swift build --build-tests
status=0
for seed in $seeds; do
    STOWAGE_TEST_SEED=$seed STOWAGE_CLI_FUZZ_CASES=$cases swift test --skip-build --filter CommandLineFuzzTests || status=1
done
exit $status
