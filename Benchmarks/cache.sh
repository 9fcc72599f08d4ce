#!/usr/bin/env bash
# Runs the DiskCache benchmarks on package-benchmark (about 3 minutes after their release build):
# DiskCache beside the floor and Kingfisher's approach, one table per metric (see
# Benchmarks/CacheBenchmarks/CacheBenchmarks.swift). Arguments go to `swift package benchmark`, e.g.
# --filter '1 KB.*'; --memory, of earlier versions, is accepted (the memory tier is always measured).
#   BENCHMARK_DIRECTORY=/mnt/x bash Benchmarks/cache.sh    # work on another file system (default: the temporary directory)
set -euo pipefail
arguments=()
for argument in "$@"; do [[ "$argument" == --memory ]] || arguments+=("$argument"); done
exec swift package --package-path "$(dirname "${BASH_SOURCE[0]}")" benchmark --target CacheBenchmarks --grouping metric "${arguments[@]}"
