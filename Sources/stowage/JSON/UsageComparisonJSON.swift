import Foundation
import Stowage

/// `stowage usage --compare --json` (`usage-compare.json`): a ``UsageDifference`` as
/// ``JSONOutput/encode(_:)`` writes it, byte for byte, written by a ``JSONWriter`` instead of
/// `JSONEncoder`, which spent a third of a large comparison's time building a generic container
/// of each of the changes' values before writing it (26,671 changes of /usr: 0.5 s).
///
/// The keys are `UsageChange`'s and `UsageFigures`' coding keys in sorted order;
/// `UsageComparisonJSONTests` checks the bytes against `JSONOutput.encode` on random and hostile
/// trees, so a key added to the library's types fails there.
enum UsageComparisonJSON {
    /// The document's text.
    static func text(_ difference: UsageDifference) -> String {
        var writer = JSONWriter(capacity: 1 << 20)
        writer.beginObject()
        writer.key("roots")
        writer.array(difference.roots, write)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `change` and the changes inside it, keys in `JSONEncoder`'s sorted order.
    private static func write(_ writer: inout JSONWriter, _ change: UsageChange) {
        writer.beginObject()
        writer.key("after")
        write(change.after, into: &writer)
        writer.key("before")
        write(change.before, into: &writer)
        writer.key("changeInAllocatedBytes")
        writer.integer(change.changeInAllocatedBytes)
        writer.key("changeInFileCount")
        writer.integer(change.changeInFileCount)
        writer.key("changeInLogicalBytes")
        writer.integer(change.changeInLogicalBytes)
        writer.key("children")
        writer.array(change.children, write)
        writer.key("depth")
        writer.integer(change.depth)
        writer.key("isFolder")
        writer.bool(change.isFolder)
        writer.key("kind")
        writer.string(change.kind.rawValue)
        writer.path(change.path, bytes: change.pathBytes)
        writer.endObject()
    }

    /// `figures`, or `null` (as `NullWhenAbsent` writes it).
    private static func write(_ figures: UsageFigures?, into writer: inout JSONWriter) {
        guard let figures else { return writer.null() }
        writer.beginObject()
        writer.key("allocatedBytes")
        writer.integer(figures.allocatedBytes)
        writer.key("fileCount")
        writer.integer(figures.fileCount)
        writer.key("logicalBytes")
        writer.integer(figures.logicalBytes)
        writer.endObject()
    }
}
