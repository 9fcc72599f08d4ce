/// The process's working folder, against which a relative path that a person typed is resolved.
///
/// Foundation's `FileManager.currentDirectoryPath` turns bytes that are not UTF-8 into U+FFFD,
/// so inside a folder named `sx\377` it names the folder `sx\u{FFFD}` beside it, and a relative
/// path resolved against it names another file. ``path()`` reads the folder as bytes and refuses
/// what a `String` cannot carry.
public enum WorkingFolder {
    /// The working folder's absolute path (`getcwd(3)`).
    ///
    /// ```swift
    /// let base = URL(filePath: try WorkingFolder.path(), directoryHint: .isDirectory)
    /// ```
    ///
    /// - Returns: The path, exactly as the kernel names the folder.
    /// - Throws: ``StowageError/Code/invalidArgument`` when the path is not UTF-8 (the error's
    ///   path shows it with U+FFFD), or when the folder cannot be named (it was removed, or its
    ///   path is too long).
    public static func path() throws -> String {
        guard let bytes = Sys.workingDirectoryBytes else {
            throw StowageError(.invalidArgument, operation: .locate, errno: Errno.current, systemCall: "getcwd",
                               reason: "the working folder cannot be named (removed, or its path too long); give an absolute path")
        }
        guard RawPath.isUTF8(bytes) else {
            throw StowageError(.invalidArgument, operation: .locate, path: String(decoding: bytes, as: UTF8.self),
                               reason: "the working folder's path is not UTF-8, so a path relative to it cannot be carried "
                               + "exactly; give an absolute path")
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
