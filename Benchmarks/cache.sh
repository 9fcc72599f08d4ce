#!/usr/bin/env bash
# Builds the DiskCache benchmarks in release mode and runs them; arguments go to the binary
# (--directory <path>, --json, --quick, --memory; --help lists them).
#   bash Benchmarks/cache.sh                      # the tables (about 2 minutes on 2 cores)
#   bash Benchmarks/cache.sh --quick              # a smoke test (about 20 s)
#   bash Benchmarks/cache.sh --directory /mnt/x   # measure another file system
#   bash Benchmarks/cache.sh --json               # JSON on standard output, the tables on standard error
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Build output goes to standard error so that standard output holds only the report.
swift build -c release --package-path "$here" --product CacheBenchmarks 1>&2
bin="$(swift build -c release --package-path "$here" --show-bin-path)"
exec "$bin/CacheBenchmarks" "$@"
