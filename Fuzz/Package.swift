// swift-tools-version: 6.1
//
// libFuzzer targets for Stowage's input parsers: byte units (`ByteCount`), relative paths
// (`RelativePath`) and the in-place JSON array appender. Build and run with `Fuzz/run.sh`
// (FuzzReliabilityTests runs a short pass of each inside `swift test`).

import Foundation
import PackageDescription

// A package depended on by path is named after its folder, whatever the clone is called.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let stowage = Target.Dependency.product(name: "Stowage", package: root.lastPathComponent)

let package = Package(
    name: "StowageFuzz",
    dependencies: [.package(path: "..")],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver, which each target's main calls.
        .target(name: "CFuzzerDriver"),
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver"]),
    ] + ["FuzzByteCount", "FuzzRelativePath", "FuzzJSONAppend"].map { name in
        .executableTarget(name: name, dependencies: ["FuzzSupport", stowage])
    },
    swiftLanguageModes: [.v6]
)
