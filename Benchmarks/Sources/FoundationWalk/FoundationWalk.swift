import Foundation

/// The walk of both Foundation baselines, the common way: `FileManager.default.enumerator(at:
/// includingPropertiesForKeys:)` and `resourceValues(forKeys:)` for each URL.
public enum FoundationWalk {
    /// The folder at `arguments[0]` (exits with `usage` unless `arguments` has `count` words, the first a
    /// folder), and `body` called with each entry below it and its values for `keys`. Entries that cannot
    /// be read are reported on standard error and skipped; returns how many.
    public static func forEach(_ arguments: [String], count: Int, usage: String, keys: [URLResourceKey],
                               _ body: (URL, URLResourceValues) -> Void) -> Int {
        var isFolder: ObjCBool = false, failures = 0
        guard arguments.count == count, !arguments[0].hasPrefix("-"),
              FileManager.default.fileExists(atPath: arguments[0], isDirectory: &isFolder), isFolder.boolValue,
              let walk = FileManager.default.enumerator(
                  at: URL(filePath: arguments[0], directoryHint: .isDirectory), includingPropertiesForKeys: keys,
                  errorHandler: { url, error in
                      failures += 1
                      FileHandle.standardError.write(Data("warning: \(url.path(percentEncoded: false)): \(error)\n".utf8))
                      return true  // go on with the rest of the tree
                  })
        else {
            FileHandle.standardError.write(Data("USAGE: \(usage)\n".utf8))
            exit(2)
        }
        for case let url as URL in walk {
            guard let values = try? url.resourceValues(forKeys: Set(keys)) else { failures += 1; continue }
            body(url, values)
        }
        return failures
    }
}
