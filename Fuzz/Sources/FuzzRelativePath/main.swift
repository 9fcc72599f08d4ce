// Fuzzes `RelativePath`: whatever it accepts, the kernel must see as names inside the
// location, which is checked on the bytes the system receives.
import FuzzSupport
import Stowage

let slash = UInt8(ascii: "/")

runFuzzer { start, count in
    let text = String(decoding: bytes(start, count), as: UTF8.self)
    let path: RelativePath
    do {
        path = try RelativePath(text)
    } catch let error as StowageError {
        precondition(error.code == .invalidPath && error.path == text, "unexpected \(error.debugDescription)")
        return 0
    } catch {
        preconditionFailure("not a StowageError: \(error)")
    }
    let raw = Array(text.utf8)
    precondition(raw.first != slash, "absolute path accepted")
    precondition(!raw.contains(0), "NUL accepted")
    precondition(!path.components.isEmpty, "no names")
    for name in path.components {
        let bytes = Array(name.utf8)
        precondition(!bytes.isEmpty && bytes.count <= RelativePath.maximumNameLength, "bad length \(bytes.count)")
        precondition(!bytes.contains(slash), "a name holds a '/' byte: \(bytes)")
        precondition(bytes != Array(".".utf8) && bytes != Array("..".utf8), "'.' or '..' accepted")
        precondition(!bytes.starts(with: Array(RelativePath.reservedPrefix.utf8)), "reserved name accepted")
    }
    // The names are exactly the input's non-empty pieces between '/' bytes.
    let pieces = raw.split(separator: slash, omittingEmptySubsequences: true).map { Array($0) }
    precondition(pieces == path.components.map { Array($0.utf8) }, "names differ from the bytes")
    precondition((try? RelativePath(path.string))?.components == path.components, "no round trip")
    return 0
}
