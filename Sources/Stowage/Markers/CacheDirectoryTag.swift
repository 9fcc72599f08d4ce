import Foundation

/// The `CACHEDIR.TAG` file of the Cache Directory Tagging Specification, which backup tools
/// (`tar --exclude-caches`, borg, restic, ...) recognise to skip a cache folder.
///
/// Stowage writes it at the top of the caches location when it creates that folder, and keeps
/// it there: ``Store/clear(_:)`` and sweeps never remove it.
enum CacheDirectoryTag {
    static let name = "CACHEDIR.TAG"
    static let content = """
        Signature: 8a477f597d28d172789f06886806bc55
        # This file is a cache directory tag created by Stowage.
        # For information about cache directory tags, see:
        #\thttps://bford.info/cachedir/

        """

    /// Writes the tag into `folder` unless it is there.
    static func ensure(in folder: OpenFile) throws {
        if try folder.statusIfPresent(of: name) != nil { return }
        do {
            try AtomicWrite.write(Data(content.utf8), into: folder, name: name, durable: false, protection: nil, replacing: false)
        } catch Errno.fileExists {
            return  // written by someone else meanwhile
        }
    }
}
