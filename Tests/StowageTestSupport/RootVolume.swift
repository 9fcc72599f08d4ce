import Foundation
import Testing

/// Cancels the test, with a printed reason, unless `path` is on the volume holding `/`.
///
/// Tests of the safety floor expect a fill of their own temporary folder to be refused because
/// it is on the system volume. Where the temporary folder is on a volume of its own (a tmpfs
/// `/tmp`), nothing would refuse that fill, and it would fill the machine's `/tmp`.
public func requireOnRootVolume(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    var folder = stat()
    var root = stat()
    guard stat(path, &folder) == 0, stat("/", &root) == 0, folder.st_dev == root.st_dev else {
        let reason = "\(path) is not on the volume holding /; a safety-floor test there could fill that volume"
        print("SKIPPED: \(reason)")
        try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
    }
}
