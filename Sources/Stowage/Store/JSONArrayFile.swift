import Foundation

/// In-place appends to a file holding a JSON array, at a cost proportional to what is appended.
///
/// The file is never parsed whole: the last non-blank byte must be the array's `]` and the first
/// non-blank byte its `[`. The `]` is overwritten with `,<elements>]` under the protection of an
/// ``AppendJournal``. Only the first element (so that the caller can check its type) and the last
/// one (so that the array's end is well formed) are read: the cost grows with those two
/// elements, never with the number of elements.
///
/// The last element is found by reading backwards from the `]`, through strings (an unescaped
/// `"`) and nested values, to the `,` before it or the array's own `[`; it must be one JSON value
/// (or nothing, after a trailing comma that follows a value). So `[1,2]]`, `[1] [2]`, `[1,[2]`,
/// `[,]` and `[1 2]` are refused, unchanged, where appending would make them worse. Damage before
/// the last element is not seen (`[1,,2,3]`, `[1],2]`, `[1,[2,3]`: the last element looks well
/// formed, and telling `[1],2]` from `[[1],2]` would cost a read of the whole file).
enum JSONArrayFile {
    /// What an append found.
    enum Outcome: Equatable {
        /// The elements were appended.
        case appended
        /// The file does not hold an array (a single value, say): the caller converts it.
        case notAnArray
        /// The file starts and ends like an array, but its end is not well formed (the reason
        /// says how): nothing was written.
        case malformed(String)
    }

    /// Appends encoded `elements` to `file`, which the caller has locked exclusively.
    ///
    /// - Parameter checkingFirstElement: Called with the bytes of the array's first element, when
    ///   it has one, before anything is written; an error it throws leaves the file untouched.
    static func append(_ elements: [Data], to file: OpenFile, name: String, in folder: OpenFile, durable: Bool,
                       checkingFirstElement: (Data) throws -> Void = { _ in }) throws -> Outcome {
        let status = try file.status()
        let size = status.size
        var joined = Data()
        for (index, element) in elements.enumerated() {
            if index > 0 { joined.append(UInt8(ascii: ",")) }
            joined.append(element)
        }

        let offset: Int64
        var newBytes = Data()
        if let last = try lastNonBlank(in: file, before: size) {
            guard last.byte == UInt8(ascii: "]"), let first = try firstNonBlank(in: file, size: size),
                  first.byte == UInt8(ascii: "[") else { return .notAnArray }
            if let problem = try problemAtEnd(of: file, open: first.offset, close: last.offset) { return .malformed(problem) }
            if let element = try firstElement(in: file, after: first.offset, before: last.offset) {
                try checkingFirstElement(element)
            }
            let previous = try lastNonBlank(in: file, before: last.offset)
            let isEmpty = previous?.offset == first.offset
            // Foundation's decoder accepts a trailing comma (`[1,]`); another would break the array.
            let endsWithComma = previous?.byte == UInt8(ascii: ",")
            offset = last.offset
            if !isEmpty && !endsWithComma && !elements.isEmpty { newBytes.append(UInt8(ascii: ",")) }
            newBytes.append(joined)
            newBytes.append(UInt8(ascii: "]"))
        } else {
            // Missing, empty or blank: a new array.
            offset = 0
            newBytes.append(UInt8(ascii: "["))
            newBytes.append(joined)
            newBytes.append(UInt8(ascii: "]"))
        }

        guard let tailLength = Int(exactly: size - offset) else { throw SystemCallError(errno: .valueTooLarge, call: "read") }
        var oldTail = [UInt8](repeating: 0, count: tailLength)
        if !oldTail.isEmpty {
            _ = try oldTail.withUnsafeMutableBytes { try Sys.preadAll(file.descriptor, $0, at: offset) }
        }
        let record = AppendJournal.Record(
            device: status.device, inode: status.inode, offset: offset,
            anchor: try AppendJournal.anchor(of: file, before: offset),
            newLength: offset + Int64(newBytes.count), checksum: AppendJournal.checksum(newBytes), oldTail: oldTail)
        try AppendJournal.begin(record, for: name, in: folder, durable: durable)
        try FaultPoint.appendJournalWritten.reach()
        do {
            try file.writeAll(newBytes, at: offset)
            if size > record.newLength { try file.truncate(to: record.newLength) }
            if durable { try file.syncData() }
        } catch {
            // Put the array back as it was (no new blocks are needed for that), then report the
            // write's error. Should putting it back fail too, the journal stays and the next
            // holder of the lock settles the file.
            do {
                try AppendJournal.restore(file: file, record: record, durable: durable)
                try AppendJournal.end(for: name, in: folder)
            } catch {}
            throw error
        }
        try FaultPoint.appendBytesWritten.reach()
        try AppendJournal.end(for: name, in: folder)
        return .appended
    }

    /// Why the end of the array whose `[` is at `open` and `]` at `close` is not well formed, or
    /// `nil` when it is: the last element, read backwards from `close`, must start after a `,` or
    /// the array's own `[` and be one JSON value (see the type's discussion).
    static func problemAtEnd(of file: OpenFile, open: Int64, close: Int64) throws -> String? {
        var reader = BackwardReader(file: file, floor: open)
        var closers: [UInt8] = []  // the `]` and `}` of the nested values the scan is inside, innermost last
        var inString = false
        var offset = close - 1
        var boundary: (offset: Int64, byte: UInt8)?
        scan: while offset >= open {
            let byte = try reader.byte(at: offset)
            if inString {
                if byte == UInt8(ascii: "\""), try !reader.isEscaped(offset) { inString = false }
            } else {
                switch byte {
                case UInt8(ascii: "\""):
                    inString = true
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    closers.append(byte)
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    guard let closer = closers.popLast() else {
                        boundary = (offset, byte)  // an opener of no nested value: the array's own, if at `open`
                        break scan
                    }
                    if closer != (byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}")) {
                        return "a '\(Character(Unicode.Scalar(byte)))' near its end is closed by a '\(Character(Unicode.Scalar(closer)))'"
                    }
                case UInt8(ascii: ",") where closers.isEmpty:
                    boundary = (offset, byte)
                    break scan
                default:
                    break
                }
            }
            offset -= 1
        }
        guard let boundary else { return "its last ']' closes no array that starts at its first '['" }
        if boundary.byte != UInt8(ascii: ",") && !(boundary.byte == UInt8(ascii: "[") && boundary.offset == open) {
            return "its last element starts after a '\(Character(Unicode.Scalar(boundary.byte)))' that is not the array's own"
        }
        // A last element past Int (2 GiB on watchOS's arm64_32) cannot be read into memory.
        guard let length = Int(exactly: close - boundary.offset - 1) else { throw SystemCallError(errno: .valueTooLarge, call: "read") }
        var element = Data(count: length)
        if !element.isEmpty {
            _ = try element.withUnsafeMutableBytes { try Sys.preadAll(file.descriptor, $0, at: boundary.offset + 1) }
        }
        let isBlankElement = element.allSatisfy(isBlank)
        if boundary.byte == UInt8(ascii: ",") {
            // The byte before the comma ends a value: not `[` (as in `[,]`) nor another `,`.
            guard let before = try lastNonBlank(in: file, before: boundary.offset), before.offset >= open,
                  before.byte != UInt8(ascii: "[") && before.byte != UInt8(ascii: ",") else {
                return "a ',' near its end follows no element"
            }
        }
        if isBlankElement { return nil }  // `[]`, or a trailing comma after a value: `[1,]`
        if (try? JSONSerialization.jsonObject(with: element, options: .fragmentsAllowed)) == nil {
            let excerpt = String(decoding: element.prefix(64), as: UTF8.self)
            return "its last element, \(excerpt)\(element.count > 64 ? "…" : ""), is not one JSON value"
        }
        return nil
    }

    /// Reads a file's bytes at offsets that mostly go down, a chunk at a time.
    private struct BackwardReader {
        let file: OpenFile
        /// The lowest offset ever read.
        let floor: Int64
        private var start: Int64 = 0
        private var buffer: [UInt8] = []

        init(file: OpenFile, floor: Int64) {
            self.file = file
            self.floor = floor
        }

        mutating func byte(at offset: Int64) throws -> UInt8 {
            if offset < start || offset >= start + Int64(buffer.count) {
                let end = offset + 1
                start = max(floor, end - 4096)
                buffer = [UInt8](repeating: 0, count: Int(end - start))
                let read = try buffer.withUnsafeMutableBytes { try Sys.preadAll(file.descriptor, $0, at: start) }
                buffer.removeLast(buffer.count - read)
                guard offset - start < Int64(buffer.count) else { throw SystemCallError(errno: .ioError, call: "pread") }
            }
            return buffer[Int(offset - start)]
        }

        /// Whether the `"` at `offset` is escaped: an odd number of backslashes right before it.
        mutating func isEscaped(_ offset: Int64) throws -> Bool {
            var count = 0
            var position = offset - 1
            while position >= floor, try byte(at: position) == UInt8(ascii: "\\") {
                count += 1
                position -= 1
            }
            return count % 2 == 1
        }
    }

    /// Blank bytes between JSON tokens.
    static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// The last non-blank byte before `end`, reading backwards in small chunks.
    static func lastNonBlank(in file: OpenFile, before end: Int64) throws -> (offset: Int64, byte: UInt8)? {
        let chunk: Int64 = 4096
        var upper = end
        var buffer = [UInt8](repeating: 0, count: Int(chunk))
        while upper > 0 {
            let lower = max(0, upper - chunk)
            let count = Int(upper - lower)
            let read = try buffer.withUnsafeMutableBytes { raw in
                try Sys.preadAll(file.descriptor, UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]), at: lower)
            }
            for index in stride(from: read - 1, through: 0, by: -1) where !isBlank(buffer[index]) {
                return (lower + Int64(index), buffer[index])
            }
            upper = lower
        }
        return nil
    }

    /// The first non-blank byte of the file.
    static func firstNonBlank(in file: OpenFile, size: Int64) throws -> (offset: Int64, byte: UInt8)? {
        let chunk = 4096
        var lower: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: chunk)
        while lower < size {
            let count = Int(min(Int64(chunk), size - lower))
            let read = try buffer.withUnsafeMutableBytes { raw in
                try Sys.preadAll(file.descriptor, UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]), at: lower)
            }
            if read == 0 { return nil }
            for index in 0..<read where !isBlank(buffer[index]) {
                return (lower + Int64(index), buffer[index])
            }
            lower += Int64(read)
        }
        return nil
    }

    /// The bytes of the first element of the array whose `[` is at `open` and `]` at `close`, or
    /// `nil` for an empty array (or one too malformed to find an element in). Reads forward in
    /// small chunks only as far as the element reaches, tracking strings (with their escapes) and
    /// nesting, so a `,` or `]` inside a string or a nested value does not end it.
    static func firstElement(in file: OpenFile, after open: Int64, before close: Int64) throws -> Data? {
        let chunk = 4096
        var buffer = [UInt8](repeating: 0, count: chunk)
        var element = Data()
        var offset = open + 1
        var started = false, inString = false, escaped = false
        var depth = 0
        while offset < close {
            let count = Int(min(Int64(chunk), close - offset))
            let read = try buffer.withUnsafeMutableBytes { raw in
                try Sys.preadAll(file.descriptor, UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]), at: offset)
            }
            if read == 0 { return nil }
            var start = 0
            for index in 0..<read {
                let byte = buffer[index]
                if !started {
                    if isBlank(byte) { continue }
                    if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") { return nil }
                    started = true
                    start = index
                }
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\""):
                    inString = true
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    depth += 1
                case UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: ","):
                    if depth == 0 {  // the `,` after the element (a `]` or `}` here: malformed, stop too)
                        element.append(contentsOf: buffer[start..<index])
                        return element
                    }
                    if byte != UInt8(ascii: ",") { depth -= 1 }
                default:
                    break
                }
            }
            if started { element.append(contentsOf: buffer[start..<read]) }
            offset += Int64(read)
        }
        // The element runs up to the array's closing `]`.
        return started ? element : nil
    }
}
