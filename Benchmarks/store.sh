#!/usr/bin/env bash
# Builds the Store benchmarks in release mode and runs them; arguments go to the binary
# (--json, --directory <path>, --temporary, --quick; --help lists them).
#   bash Benchmarks/store.sh            # the table
#   bash Benchmarks/store.sh --json     # JSON on standard output, the table on standard error
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# Build output goes to standard error so that standard output holds only the report.
swift build -c release --package-path "$here" --product StoreBenchmarks 1>&2
bin="$(swift build -c release --package-path "$here" --show-bin-path)"
exec "$bin/StoreBenchmarks" "$@"
