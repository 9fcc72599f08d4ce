import Foundation

extension CacheDirectoryTag {
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
