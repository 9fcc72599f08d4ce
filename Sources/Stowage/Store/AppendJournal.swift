import Foundation

/// The crash journal of an in-place append to a JSON array file.
///
/// An append overwrites the array's closing `]` with `,<values>]`. Before it touches the file
/// it writes a journal beside it (`.stowage-append-<hash>`) naming the file (device and inode),
/// the offset of the `]`, a checksum of the bytes just before it, the bytes that were there, and
/// the length and checksum the file will have afterwards. Whoever next locks the file (an append,
/// a read, a move) finds the journal of an append that did not finish and settles it: if the file
/// has the promised length and checksum the append completed and is kept; otherwise the old tail
/// is put back. So a crash at any moment leaves the array as it was before the append or after it.
///
/// A journal can outlive its file (removed by another program after the crash) and the file
/// system can give a new file the same inode number. The bytes before the offset, which an append
/// never changes, tell that file apart: a journal whose file does not have them is stale and
/// removed without touching the file. Stowage's own removals and replacements remove the journal.
///
/// The journal is synced before the data is touched when the write is durable, so the same
/// holds after a power loss.
enum AppendJournal {
    struct Record: Equatable {
        var device: UInt64
        var inode: UInt64
        var offset: Int64
        /// The checksum of the bytes before `offset` (at most ``anchorLength`` of them).
        var anchor: UInt64
        var newLength: Int64
        var checksum: UInt64
        var oldTail: [UInt8]
    }

    private static let magic = "stowage-append-journal-2"

    /// How many bytes before the offset the anchor covers: one read, whatever the file's size.
    static let anchorLength: Int64 = 64

    /// The checksum of the bytes before `offset` in `file` (of those there are, should the file
    /// be shorter).
    static func anchor(of file: OpenFile, before offset: Int64) throws -> UInt64 {
        let start = max(0, offset - anchorLength)
        var bytes = [UInt8](repeating: 0, count: Int(offset - start))
        let read = try bytes.withUnsafeMutableBytes { raw in try Sys.preadAll(file.descriptor, raw, at: start) }
        return checksum(bytes.prefix(read))
    }

    /// The start of every journal's name.
    static let prefix = RelativePath.reservedPrefix + "append-"

    /// The journal's name for the file `name`.
    static func name(for fileName: String) -> String {
        prefix + String(checksum(Array(fileName.utf8)), radix: 16)
    }

    static func exists(for fileName: String, in folder: OpenFile) throws -> Bool {
        try folder.statusIfPresent(of: name(for: fileName)) != nil
    }

    /// Writes the journal (synced, with its folder entry, when `durable`).
    static func begin(_ record: Record, for fileName: String, in folder: OpenFile, durable: Bool) throws {
        let text = [magic, String(record.device), String(record.inode), String(record.offset),
                    String(record.anchor, radix: 16), String(record.newLength), String(record.checksum, radix: 16),
                    record.oldTail.isEmpty ? "-" : record.oldTail.map { String($0, radix: 16) }.joined(separator: ",")]
            .joined(separator: " ") + "\n"
        let journalName = name(for: fileName)
        let journal = try folder.open(journalName, flags: Sys.writeCreateTruncate, mode: .ownerOnlyFile)
        do {
            try journal.writeAll(Data(text.utf8))
            if durable { try journal.syncData() }
            try journal.close()
        } catch {
            // The array is untouched yet: a journal that could not be written (a full disk) is
            // removed, not left for the next reader to find and settle.
            try? folder.removeEntry(journalName, folder: false)  // best effort: the write's error is what matters
            throw error
        }
        if durable { try folder.syncFolder() }
    }

    /// Removes the journal once the append is complete or undone.
    static func end(for fileName: String, in folder: OpenFile) throws {
        do {
            try folder.removeEntry(name(for: fileName), folder: false)
        } catch Errno.noSuchEntry {
            return
        }
    }

    /// Settles an interrupted append of the file `name` in `folder`, taking the file's exclusive
    /// lock for it (a reader holding a shared lock releases it first: locks belong to open
    /// descriptions, so a second descriptor of the same process would wait for the first).
    ///
    /// - Parameter inode: When given, the file is settled only if it is still this inode.
    static func settle(_ fileName: String, in folder: OpenFile, ifInode inode: UInt64? = nil) throws {
        let writable = try folder.open(fileName, flags: Sys.readWrite)
        try writable.lock(exclusive: true)
        defer { writable.unlock() }
        if let inode, try writable.status().inode != inode { return }
        try recover(file: writable, name: fileName, in: folder, durable: true)
    }

    /// Settles an interrupted append of `file`, which the caller has locked exclusively.
    static func recover(file: OpenFile, name fileName: String, in folder: OpenFile, durable: Bool) throws {
        let journalName = name(for: fileName)
        let text: Data
        do {
            let journal = try folder.openForReading(journalName)
            text = try journal.readAll()
        } catch Errno.noSuchEntry {
            return
        }
        // An unreadable journal was cut short while being written, before the file was touched.
        guard let record = parse(text) else { return try end(for: fileName, in: folder) }
        let status = try file.status()
        guard status.device == record.device, status.inode == record.inode, status.size >= record.offset,
              try anchor(of: file, before: record.offset) == record.anchor else {
            return try end(for: fileName, in: folder)  // another file now: the journal is stale
        }
        if status.size == record.newLength, record.newLength >= record.offset {
            let count = Int(record.newLength - record.offset)
            var bytes = [UInt8](repeating: 0, count: count)
            let read = try bytes.withUnsafeMutableBytes { raw in
                try Sys.preadAll(file.descriptor, raw, at: record.offset)
            }
            if read == count, checksum(bytes) == record.checksum {
                if durable { try file.syncData() }
                return try end(for: fileName, in: folder)
            }
        }
        try restore(file: file, record: record, durable: durable)
        try end(for: fileName, in: folder)
    }

    /// Puts the old tail back: rewritten in place first (no new blocks needed), then the file cut.
    static func restore(file: OpenFile, record: Record, durable: Bool) throws {
        if !record.oldTail.isEmpty {
            try file.writeAll(Data(record.oldTail), at: record.offset)
        }
        try file.truncate(to: record.offset + Int64(record.oldTail.count))
        if durable { try file.syncData() }
    }

    static func parse(_ data: Data) -> Record? {
        guard let text = String(data: data, encoding: .utf8), text.hasSuffix("\n") else { return nil }
        let fields = text.dropLast().split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 8, fields[0] == magic,
              let device = UInt64(fields[1]), let inode = UInt64(fields[2]),
              let offset = Int64(fields[3]), let anchor = UInt64(fields[4], radix: 16),
              let newLength = Int64(fields[5]), let checksum = UInt64(fields[6], radix: 16),
              offset >= 0 else { return nil }
        var tail: [UInt8] = []
        if fields[7] != "-" {
            for piece in fields[7].split(separator: ",") {
                guard let byte = UInt8(piece, radix: 16) else { return nil }
                tail.append(byte)
            }
        }
        return Record(device: device, inode: inode, offset: offset, anchor: anchor, newLength: newLength,
                      checksum: checksum, oldTail: tail)
    }

    /// FNV-1a, 64 bits: enough to tell a completed append from a torn one.
    static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }
}
