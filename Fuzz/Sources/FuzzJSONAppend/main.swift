// Fuzzes `Store.append` to a JSON array file: the input is the file's existing content, then
// a value is appended. Never a trap; and either
// - the append succeeds: if the old content was a valid JSON array (or a single Int), the new
//   content is a valid array ending with the appended value; and whatever the old content, its
//   bytes before the closing `]` are kept (nothing existing is lost or rewritten);
// - or it fails with `decodingFailed` naming the path, and the file holds the original bytes.
// The appender deliberately does not parse the file (an append costs what the value costs), so
// content that was invalid before stays invalid after; it must just never get worse than that.
import Foundation
import FuzzSupport
import Stowage

let folder: URL = {
    var template = Array((NSTemporaryDirectory() + "/stowage-fuzz-append-XXXXXX").utf8CString)
    guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else { fatalError("mkdtemp failed") }
    let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    atexit { _ = try? FileManager.default.removeItem(at: folder) }
    return URL(filePath: path, directoryHint: .isDirectory)
}()
let store = Store(container: Container(root: folder))
let file = folder.appending(path: "Library/Caches/f.json")
let appended = 424_242

func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

func json(_ data: Data) -> Any? { try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed) }

runFuzzer { start, count in
    let original = Data(bytes(start, count))
    try! store.save(original, to: "f.json", in: .caches)
    do {
        try store.append(appended, to: "f.json", in: .caches)
    } catch let error as StowageError {
        precondition(error.code == .decodingFailed && error.path == "f.json" && error.location == .caches,
                     "unexpected \(error.debugDescription)")
        precondition(try! Data(contentsOf: file) == original, "a failed append changed the file")
        return 0
    } catch {
        preconditionFailure("not a StowageError: \(error)")
    }
    let result = try! Data(contentsOf: file)
    // JSON never holds a raw NUL byte, but Foundation's parser on Linux reads some inputs with
    // them as valid (`[\0]\0]` is `[]`): those are not valid arrays to hold the appender to.
    let before = original.contains(0) ? nil : json(original)
    if before is [Any] || before is Int || original.allSatisfy(isBlank) {
        guard let array = json(result) as? [Any] else { preconditionFailure("valid input, invalid result") }
        let expectedCount = (before as? [Any])?.count ?? (before is Int ? 1 : 0)
        precondition(array.count == expectedCount + 1, "\(array.count) elements, expected \(expectedCount + 1)")
        precondition((array.last as? Int) == appended, "the last element is not the appended value")
    }
    // An array file is appended to in place; anything else that decodes (a single value, by
    // Foundation's reading) is rewritten as an array holding it, so only arrays keep their bytes.
    if let open = original.firstIndex(where: { !isBlank($0) }), original[open] == UInt8(ascii: "["),
       let close = original.lastIndex(where: { !isBlank($0) }), original[close] == UInt8(ascii: "]") {
        precondition(result.prefix(close) == original.prefix(close), "bytes before the ']' changed")
    }
    return 0
}
