// swift-tools-version: 6.1
//
// Benchmarks of Stowage's Store against the plain Foundation way of doing the same thing.
// A package of its own so that the library's package carries no benchmark code or
// dependencies. Run it with `bash Benchmarks/store.sh` (release build, then the binary).

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
    ],
    swiftLanguageModes: [.v6]
)
