#!/usr/bin/env bash
# Runs the DiskCache benchmarks on package-benchmark (about 3 minutes after their release build):
# DiskCache beside the floor and Kingfisher's approach, one table per metric (see
# Benchmarks/CacheBenchmarks/CacheBenchmarks.swift), then a summary of the p50s: for each entry size
# and concurrency, Stowage's sets and disk hits per second, the time of one against the floor's
# (1.00x: as fast as bare system calls), and how many times faster than the Foundation approach
# (issue 32's goals: sets within 1.5x of the floor, 3x faster than Foundation). Arguments go to
# `swift package benchmark`, e.g. --filter '1 KB.*'; --memory, of earlier versions, is accepted (the
# memory tier is always measured).
#   BENCHMARK_DIRECTORY=/mnt/x bash Benchmarks/cache.sh    # work on another file system (default: the temporary directory)
set -euo pipefail
arguments=()
for argument in "$@"; do [[ "$argument" == --memory ]] || arguments+=("$argument"); done
output=$(mktemp)
trap 'rm -f "$output"' EXIT
swift package --package-path "$(dirname "${BASH_SOURCE[0]}")" benchmark --target CacheBenchmarks --grouping metric \
    "${arguments[@]}" | tee "$output"

# The p50 of each benchmark: on 1 thread from "Throughput (# / s)" (the inverse of an operation's
# p50 time), on several from "Operations / s, all together" (the p50 of the batches).
echo
echo "Summary (p50; $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg))"
awk -F'│' '
    /^Throughput \(# \/ s\)/ { table = "single"; next }
    /^Operations \/ s, all together/ { table = "batch"; next }
    /^[A-Z]/ { table = "" }
    table != "" && NF > 5 && $2 ~ /CacheBenchmarks:/ {
        name = $2; gsub(/^ *CacheBenchmarks:| *(\(#\))? *$/, "", name)
        # "1 KB set (evicts), 4 threads: Stowage"
        split(name, halves, ": "); subject = halves[2]; split(halves[1], parts, ", ")
        mode = parts[2]; operation = parts[1]; size = operation; sub(/ (set|get).*/, "", size)
        if (operation ~ /memory tier/) next
        kind = operation ~ /set/ ? "set" : (operation ~ /get hit/ ? "hit" : "")
        if (kind == "" || (mode == "1 thread") != (table == "single")) next
        value = $5; gsub(/ /, "", value)
        figure[size SUBSEP mode SUBSEP kind SUBSEP subject] = value
        seen[size SUBSEP mode] = 1
    }
    function ratio(a, b) { return (a > 0 && b > 0) ? sprintf("%.2fx", a / b) : "-" }
    END {
        printf "  %-8s %-12s %12s %10s %14s   %12s %10s\n", "entry", "concurrency", "sets/s", "vs floor", "vs Foundation", "hits/s", "vs floor"
        missed = 0; rows = 0
        split("1 KB,100 KB,1000 KB", sizes, ","); split("1 thread,4 threads,2 processes", modes, ",")
        for (i = 1; i <= 3; i++) for (j = 1; j <= 3; j++) if ((sizes[i] SUBSEP modes[j]) in seen) order[++rows] = sizes[i] SUBSEP modes[j]
        for (row = 1; row <= rows; row++) {
            split(order[row], key, SUBSEP)
            s = figure[order[row] SUBSEP "set" SUBSEP "Stowage"] + 0; f = figure[order[row] SUBSEP "set" SUBSEP "Floor"] + 0
            k = figure[order[row] SUBSEP "set" SUBSEP "Foundation"] + 0
            h = figure[order[row] SUBSEP "hit" SUBSEP "Stowage"] + 0; hf = figure[order[row] SUBSEP "hit" SUBSEP "Floor"] + 0
            printf "  %-8s %-12s %12s %10s %14s   %12s %10s\n", key[1], key[2], (s ? s : "-"), ratio(f, s), ratio(s, k), (h ? h : "-"), ratio(hf, h)
            if (s && f && f / s > 1.5) missed++
            if (s && k && s / k < 3) missed++
        }
        printf "  goals (sets within 1.5x of the floor, at least 3x the Foundation approach): %s\n", missed ? missed " cells missed" : "met in every cell"
    }' "$output"
