// swift-tools-version: 6.1
//
// Benchmarks of Stowage's Store against the plain Foundation way of doing the same thing.
// A package of its own so that the library's package carries no benchmark code or
// dependencies. Run it with `bash Benchmarks/store.sh` (release build, then the binary);
// `bash Benchmarks/usage.sh` times `stowage usage` against `du` and the Foundation way;
// `bash Benchmarks/sweep.sh` times `stowage sweep` against a find | sort | rm pipeline and the
// Foundation way; `bash Benchmarks/watch.sh` measures the CPU of an idle `stowage watch`;
// `bash Benchmarks/cache.sh` times DiskCache against bare system calls and the Foundation way.

import PackageDescription

let package = Package(
    name: "StowageBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Stowage", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "StoreBenchmarks",
            dependencies: [
                .product(name: "Stowage", package: "Stowage"),
            ]
        ),
        // DiskCache against the floor (bare system calls) and Kingfisher's approach in Foundation.
        .executableTarget(
            name: "CacheBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Stowage", package: "Stowage"),
            ]
        ),
        // What the generators share: the seeded generator, file-system calls, report formatting.
        .target(name: "BenchmarkSupport"),
        // Makes a realistic, repeatable tree of files for usage scans (no Stowage needed).
        .executableTarget(name: "MakeTree", dependencies: ["BenchmarkSupport"]),
        // The enumerator-and-resource-values walk of both Foundation baselines.
        .target(name: "FoundationWalk"),
        // Sizes a tree the common Foundation way: the peer of `stowage usage`.
        .executableTarget(name: "UsageBaseline", dependencies: ["FoundationWalk"]),
        // Makes a repeatable cache folder with distinct access times, for sweeps.
        .executableTarget(name: "MakeCache", dependencies: ["BenchmarkSupport"]),
        // Sweeps a folder down to a size the common Foundation way: the peer of `stowage sweep`.
        .executableTarget(name: "SweepBaseline", dependencies: ["FoundationWalk"]),
    ],
    swiftLanguageModes: [.v6]
)
