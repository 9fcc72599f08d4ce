import Foundation

/// In-place appends to a file holding a JSON array, at a cost proportional to what is appended.
///
/// The last non-blank byte must be the array's `]` and the first non-blank byte its `[`. The `]`
/// is overwritten with `,<elements>]` under the protection of an ``AppendJournal``.
///
/// **Whole once, then trusted.** A file that Stowage did not last write is checked whole, once,
/// by ``JSONArrayCheck`` (one streaming pass in bounded memory): anything that is not one JSON
/// array (`[1,"x,2]`, `[,1,2]`, `[1],2]`, `[1,[2,3]`, a NUL byte) is refused, unchanged, where
/// appending would bury the damage. After each append Stowage records the file as it left it
/// (inode, size and modification time, in the extended attribute ``trustAttribute``); an append
/// that finds the file still so trusts it and reads only the first element (so that the caller
/// can check its type) and the bytes before the `]`: the cost grows with those, never with the
/// number of elements. A file changed since (by another program, a restore, a copy: another
/// inode, size or time) is checked whole again, once. Where the file system keeps no extended
/// attributes, every append checks the whole file.
///
/// - Important: The record tells Stowage's own state from a change, not from a forgery: a program
///   that rewrites the file in place to the same size and then sets its modification time back to
///   the recorded one is trusted.
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
            if !isTrusted(file, status: status), let problem = try JSONArrayCheck.problem(in: file, size: size) {
                return .malformed(problem)
            }
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
        recordTrust(in: file)
        return .appended
    }

    /// The extended attribute recording an array file as Stowage last left it:
    /// `1 <inode> <size> <modification time>` (`user.stowage.json-array` on Linux,
    /// `org.stowage.json-array` on Apple platforms).
    static let trustAttribute = ExtendedAttributes.stowagePrefix + "json-array"

    static func trustRecord(of status: FileStatus) -> [UInt8] {
        Array("1 \(status.inode) \(status.size) \(String(status.modificationTime.bitPattern, radix: 16))".utf8)
    }

    /// Whether `file` is as Stowage last left it. Best effort: an attribute that cannot be read
    /// (none, or no attributes on this file system) means "not trusted", and the file is checked.
    static func isTrusted(_ file: OpenFile, status: FileStatus) -> Bool {
        (try? file.attribute(trustAttribute)) == trustRecord(of: status)
    }

    /// Records `file` as Stowage leaves it, after an append. Best effort: a file system without
    /// extended attributes, or one with no room for it, leaves the file unrecorded, so that the
    /// next append checks it whole (the append itself has succeeded).
    static func recordTrust(in file: OpenFile) {
        guard let status = try? file.status() else { return }
        try? file.setAttribute(trustAttribute, to: trustRecord(of: status))
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
