import Foundation

/// The walk both Foundation baselines make, the common way: `FileManager.default.enumerator(at:
/// includingPropertiesForKeys:)` and `resourceValues(forKeys:)` for each URL.
public enum FoundationWalk {
    /// `path` as a folder URL; exits with status 1 and a message when it is not a folder.
    public static func folder(_ path: String) -> URL {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
            FileHandle.standardError.write(Data("error: \(path) is not a folder\n".utf8))
            exit(1)
        }
        return URL(filePath: path, directoryHint: .isDirectory)
    }

    /// Calls `body` with every entry below `root` and its resource values for `keys`. Entries
    /// that cannot be read are reported on standard error and skipped; returns how many.
    /// Exits with status 1 when the folder cannot be enumerated at all.
    public static func forEach(in root: URL, keys: [URLResourceKey], _ body: (URL, URLResourceValues) -> Void) -> Int {
        var failures = 0
        let keySet = Set(keys)
        guard let enumerator = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: keys, options: [],
            errorHandler: { url, error in
                failures += 1
                FileHandle.standardError.write(Data("warning: \(url.path(percentEncoded: false)): \(error)\n".utf8))
                return true  // go on with the rest of the tree
            }
        ) else {
            FileHandle.standardError.write(Data("error: cannot enumerate \(root.path(percentEncoded: false))\n".utf8))
            exit(1)
        }
        for case let url as URL in enumerator {
            guard let values = try? url.resourceValues(forKeys: keySet) else {
                failures += 1  // counted and reported in the totals, as a failure to read
                continue
            }
            body(url, values)
        }
        return failures
    }
}
