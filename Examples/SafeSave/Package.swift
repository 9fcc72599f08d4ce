// swift-tools-version: 6.1
//
// SafeSave: a file saved two ways, the common wrong way (truncate, then write in place) and the
// right way (a temporary file beside it, fsync, rename), and a check that the file holds the old
// content or the new, never a mix. `stowage run` over a range of rooms finds every room size at
// which the wrong way loses the file, and shows the right way keeps it at every size (see
// README.md). No dependencies: it builds offline, and only `RunRangeExampleTests` builds it.

import PackageDescription

let package = Package(
    name: "SafeSave",
    targets: [
        .executableTarget(name: "safe-save", path: "Sources/SafeSave"),
    ],
    swiftLanguageModes: [.v6]
)
