// swift-tools-version: 6.1
//
// Benchmarks of Stowage against the common ways of doing the same thing. A package of its own, so
// that the library's package carries no benchmark code or dependencies.
//
// The in-process figures run on package-benchmark (ordo-one/benchmark), each Stowage call beside its
// baselines in one run, with package-benchmark's percentiles and throughput (Benchmarks/<Name>/):
//   swift package --package-path Benchmarks benchmark --target StoreBenchmarks   # bash Benchmarks/store.sh
//   swift package --package-path Benchmarks benchmark --target CacheBenchmarks   # bash Benchmarks/cache.sh
// StoreBenchmarks: the Store against plain Foundation. CacheBenchmarks: DiskCache against bare system
// calls and Kingfisher's approach, on 1 thread, 4 threads and 2 processes. --filter REGEX picks some.
// The scripts time the `stowage` command against other tools, with what they build from Sources/:
// usage.sh (du, and UsageBaseline; MakeTree makes the tree), sweep.sh (find | sort | rm, and
// SweepBaseline; MakeCache makes the cache), watch.sh (an idle watch's CPU), fill.sh (fallocate, dd)
// and run.sh (a room against fill + release); everyday.sh (usage and start-up; ParserHello is the floor
// of a start on swift-argument-parser).

import PackageDescription

let benchmark: [Target.Dependency] = [
    "BenchmarkSupport",
    .product(name: "Stowage", package: "Stowage"),
    .product(name: "Benchmark", package: "benchmark"),
]

let package = Package(
    name: "StowageBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Stowage", path: ".."),
        // The same parser as the command's (the parent's version), for ParserHello.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The MallocInterposer trait alone: the default traits' Linux runtime interposer (for ARC counts,
        // which these benchmarks do not measure) is another package, not needed.
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(name: "StoreBenchmarks", dependencies: benchmark, path: "Benchmarks/StoreBenchmarks",
                          plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        .executableTarget(name: "CacheBenchmarks", dependencies: benchmark, path: "Benchmarks/CacheBenchmarks",
                          plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]),
        // What the others share: system calls, scratch folders, the seeded generator, formatting.
        .target(name: "BenchmarkSupport"),
        // Makes a realistic, repeatable tree of files for usage scans.
        .executableTarget(name: "MakeTree", dependencies: ["BenchmarkSupport"]),
        // Sets into a DiskCache folder, for counting the system calls and instructions of a set.
        .executableTarget(name: "CacheSets", dependencies: [.product(name: "Stowage", package: "Stowage")]),
        // Makes a repeatable cache folder with distinct access times, for sweeps.
        .executableTarget(name: "MakeCache", dependencies: ["BenchmarkSupport"]),
        // The enumerator-and-resource-values walk of both Foundation baselines.
        .target(name: "FoundationWalk"),
        // Sizes a tree the common Foundation way: the peer of `stowage usage`.
        .executableTarget(name: "UsageBaseline", dependencies: ["FoundationWalk"]),
        // Sweeps a folder down to a size the common Foundation way: the peer of `stowage sweep`.
        .executableTarget(name: "SweepBaseline", dependencies: ["FoundationWalk"]),
        // A minimal command on swift-argument-parser: the floor of `stowage --version`'s start.
        .executableTarget(name: "ParserHello", dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")]),
    ],
    swiftLanguageModes: [.v6]
)
