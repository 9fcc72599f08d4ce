// swift-tools-version: 6.1
//
// Stowage: on-device storage done the way Apple's storage guidelines describe,
// on Linux and Apple platforms, plus the `stowage` command.

import PackageDescription

let package = Package(
    name: "Stowage",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Stowage", targets: ["Stowage"]),
        // For test targets only: a simulated volume per test that Stowage's writes fill.
        .library(name: "StowageTesting", targets: ["StowageTesting"]),
        .executable(name: "stowage", targets: ["stowage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // `swift package generate-documentation --target Stowage` builds the DocC catalog.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The few libc calls Swift's Glibc module does not import (renameat2, fallocate, ...), and
        // a room's child process. Only StowagePlatform imports it.
        .target(name: "CStowageShims"),
        // Every system call of the library, and nothing of its domain: system-call wrappers,
        // descriptors, file status, directory streams, mounts, signals, typed errno, the storage
        // budget's seam. The only target that imports libc; it names nothing of `Stowage`
        // (`package` access: a part of the library, not an API of its own).
        .target(
            name: "StowagePlatform",
            dependencies: ["CStowageShims"]
        ),
        .target(
            name: "Stowage",
            dependencies: ["StowagePlatform"],
            // Apple's privacy manifest: the required-reason APIs Stowage calls, and why.
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        // Test support for apps: a storage budget per test (a Swift Testing trait, and a scope
        // function for XCTest and everything else). Swift Testing's `Testing` module is imported
        // only where it can be (`#if canImport(Testing)`); XCTest is not needed.
        .target(
            name: "StowageTesting",
            dependencies: ["Stowage"]
        ),
        .executableTarget(
            name: "stowage",
            dependencies: [
                "Stowage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // A child process for tests that need several processes (concurrent appends, crashes).
        .executableTarget(
            name: "stowage-test-helper",
            dependencies: ["Stowage", "StowageTestSupport"],
            path: "Tests/StowageTestHelper"
        ),
        // What the test targets and the helper share: running a child process to the end, and
        // the values the helper writes.
        .target(
            name: "StowageTestSupport",
            dependencies: ["CStowageTestShims"],
            path: "Tests/StowageTestSupport"
        ),
        // posix_spawn with a working folder and closed descriptors, for the tests' child processes.
        .target(
            name: "CStowageTestShims",
            path: "Tests/CStowageTestShims"
        ),
        .testTarget(
            name: "StowageTests",
            // CStowageShims: libc's lgetxattr, to read attributes as backup tools do, with no tool installed.
            dependencies: ["Stowage", "CStowageShims", "StowageTestSupport", "stowage-test-helper"]
        ),
        // StowageTesting's own tests, in Swift Testing and in XCTest.
        .testTarget(
            name: "StowageTestingTests",
            dependencies: ["StowageTesting", "Stowage", "StowageTestSupport"]
        ),
        .testTarget(
            name: "StowageCLITests",
            // stowage and Stowage: most tests run the built command; JSONSchemaCoverageTests
            // encodes the command's and the library's output types in process.
            dependencies: ["stowage", "Stowage", "StowageTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
