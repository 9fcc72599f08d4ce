import Foundation
import Stowage
import StowageTestSupport

/// The block size of every simulated volume in these tests.
let block: Int64 = 4096

/// A container in a fresh folder under the system's temporary folder (never under `$HOME`),
/// with every location's folder made beforehand by `FileManager`, which no budget sees: a test
/// on a simulated volume starts from a container whose folders cost nothing. Removed when the
/// value goes away.
final class ScratchContainer: Sendable {
    /// The folder holding everything this test writes.
    let folder: URL
    let container: Container

    init(_ label: String = "testing") throws {
        var base = FileManager.default.temporaryDirectory.path(percentEncoded: false)
        while base.hasSuffix("/") { base.removeLast() }
        var template = Array((base + "/stowage-\(label)-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw CocoaError(.fileWriteUnknown)
        }
        folder = URL(filePath: String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self),
                     directoryHint: .isDirectory)
        container = Container(root: folder.appending(path: "container", directoryHint: .isDirectory))
        for location in [Location.documents, .applicationSupport, .caches, .preferences, .temporary] {
            try FileManager.default.createDirectory(at: try container.url(for: location), withIntermediateDirectories: true)
        }
    }

    deinit { removeTestFolder(folder.path(percentEncoded: false)) }

    var store: Store { Store(container: container) }

    /// The available bytes Stowage reports for the container's volume.
    func available() throws -> Int64 { try container.availableSpace(of: .documents).availableBytes }

    /// The file nodes Stowage reports available, `nil` when not counted.
    func availableInodes() throws -> Int64? { try VolumeCapacity.forVolume(containing: folder).availableInodeCount }

    /// What the folder's tree takes in the simulated volume's model: each file its size in whole
    /// blocks, each folder one block; and one inode each.
    func modelledUse() throws -> (bytes: Int64, inodes: Int64) {
        var bytes: Int64 = 0
        var inodes: Int64 = 0
        let root = folder.path(percentEncoded: false)
        guard let walk = FileManager.default.enumerator(atPath: root) else { return (0, 0) }
        while let name = walk.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: root + "/" + name)
            inodes += 1
            switch attributes[.type] as? FileAttributeType {
            case .typeDirectory?: bytes += block
            case .typeRegular?:
                let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
                bytes += (size + block - 1) / block * block
            default: break
            }
        }
        return (bytes, inodes)
    }

    /// The names of Stowage's temporary items and journals anywhere in the folder (`.stowage-tmp-`,
    /// `.stowage-append-`): what a failed write must not leave.
    func leftovers() -> [String] { stowageLeftovers(in: folder) }

    /// Whether `relative` exists in the folder of `location`.
    func exists(_ relative: String, in location: Location) throws -> Bool {
        FileManager.default.fileExists(atPath: try container.url(for: location).appending(path: relative).path(percentEncoded: false))
    }

    /// Writes `count` bytes at `relative` in `location` with `FileManager`, not through Stowage.
    func writeWithoutStowage(_ count: Int, to relative: String, in location: Location) throws {
        try Data(count: count).write(to: try container.url(for: location).appending(path: relative))
    }
}

/// The names of Stowage's temporary items and journals anywhere in `folder`.
func stowageLeftovers(in folder: URL) -> [String] {
    let walk = FileManager.default.enumerator(atPath: folder.path(percentEncoded: false))
    var found: [String] = []
    while let name = walk?.nextObject() as? String {
        let last = (name as NSString).lastPathComponent
        if last.hasPrefix(".stowage-tmp-") || last.hasPrefix(".stowage-append-") { found.append(name) }
    }
    return found
}

/// Waits until `count` tasks have arrived, then lets them all go on: the tasks run their next
/// steps at the same time, whatever the scheduler does (no clock involved).
actor Rendezvous {
    private let count: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { self.count = count }

    func arrive() async {
        arrived += 1
        if arrived % count == 0 {
            let going = waiting
            waiting = []
            going.forEach { $0.resume() }
        } else {
            await withCheckedContinuation { waiting.append($0) }
        }
    }
}
