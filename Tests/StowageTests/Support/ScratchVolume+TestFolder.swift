import Testing

extension ScratchVolume {
    /// A memory file system mounted in the test's own folder.
    static func mount(_ type: String = "tmpfs", size: String? = nil, options: [String] = [], in folder: TestFolder,
                      sourceLocation: SourceLocation = #_sourceLocation) throws -> ScratchVolume {
        try mount(type, size: size, options: options, in: folder.url, sourceLocation: sourceLocation)
    }

    /// An ext4 image mounted in the test's own folder.
    static func mountExt4(megabytes: Int, in folder: TestFolder,
                          sourceLocation: SourceLocation = #_sourceLocation) throws -> ScratchVolume {
        try mountExt4(megabytes: megabytes, in: folder.url, sourceLocation: sourceLocation)
    }
}
