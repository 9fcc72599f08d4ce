#!/usr/bin/env bash
# Runs the Store benchmarks on package-benchmark (about a minute after their release build): each
# operation of Stowage's Store beside the plain Foundation way, one table per metric. Arguments go to
# `swift package benchmark`, e.g. --filter 'append.*' or --format markdown.
#   BENCHMARK_DIRECTORY=/mnt/x bash Benchmarks/store.sh    # work on another file system (default: the temporary directory)
set -euo pipefail
exec swift package --package-path "$(dirname "${BASH_SOURCE[0]}")" benchmark --target StoreBenchmarks --grouping metric "$@"
