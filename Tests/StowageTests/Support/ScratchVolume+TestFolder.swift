import Foundation
import Testing

extension ScratchVolume {
    /// A memory file system mounted in the test's own folder.
    static func mount(_ type: String = "tmpfs", size: String? = nil, options: [String] = [], in folder: TestFolder,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> ScratchVolume {
        try mount(type, size: size, options: options, in: folder.url, sourceLocation: sourceLocation)
    }

    /// A memory file system mounted as the folder `name` inside `parent` (a location's own
    /// folder, so that it is a mount point rather than a link to one).
    static func mount(size: String, at parent: URL, named name: String,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> ScratchVolume {
        // Owner-only, as a location's folder is (a tmpfs root is otherwise sticky and writable by all).
        try mount("tmpfs", size: size, options: ["mode=0700"], in: parent, named: name, sourceLocation: sourceLocation)
    }

    /// An ext4 image mounted in the test's own folder.
    static func mountExt4(megabytes: Int, blockSize: Int? = nil, reservedPercent: Int? = nil, in folder: TestFolder,
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> ScratchVolume {
        try mountExt4(megabytes: megabytes, blockSize: blockSize, reservedPercent: reservedPercent, in: folder.url,
                      sourceLocation: sourceLocation)
    }
}
