import CStowageTestShims

/// Runs `body` with the calling thread's file system user set to `uid` (`setfsuid(2)`: permissions
/// are checked as that user's, and root's power to bypass them is dropped), then sets it back to
/// root. Only the calling thread changes: run it on a thread of its own (`onOwnThread`), never on
/// a task of the cooperative pool, whose thread other tests share. Linux, as root.
///
/// - Throws: `FileSystemUserRefused` when the thread's file system user could not be set (not
///   root, or not Linux): a test skips then, saying why.
public func asFileSystemUser<T>(_ uid: UInt32, _ body: () throws -> T) throws -> T {
    guard cstowage_test_set_file_system_user(uid) == 0 else { throw FileSystemUserRefused(uid: uid) }
    defer { _ = cstowage_test_set_file_system_user(0) }
    return try body()
}

/// The file system user of a thread could not be set (``asFileSystemUser(_:_:)``).
public struct FileSystemUserRefused: Error, CustomStringConvertible {
    public let uid: UInt32
    public var description: String { "setfsuid(\(uid)) was refused (not root, or not Linux)" }
}
