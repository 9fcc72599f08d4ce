import Foundation

/// Reads an ncdu JSON export (``UsageReport/init(ncduExport:path:options:)``) byte by byte:
/// names are bytes (ncdu writes a name that is not UTF-8 as it is, which a JSON decoder for
/// text refuses), and the tree is read with a stack of its own, so any depth reads.
struct NcduExportReader {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let source: String?
    private let options: UsageOptions
    private var index = 0
    /// When the file says it was made (the metadata's `timestamp`, seconds since 1970), once read.
    private(set) var timestamp: UInt64?

    init(bytes: UnsafeBufferPointer<UInt8>, source: String?, options: UsageOptions) {
        self.bytes = bytes
        self.source = source
        self.options = options
    }

    /// One entry's fields.
    private struct Entry {
        var name: [UInt8]?
        var logical: Int64 = 0
        var allocated: Int64 = 0
        var device: UInt64?
        var inode: UInt64?
        var linkCount: UInt64?
        var modification: UInt64?
        var isHardLink = false
        var readError = false
        var notRegular = false
        var excluded = false
    }

    /// A folder being read: its item (when listed) and the totals of what it holds so far.
    private struct Frame {
        var path: [UInt8]
        var depth: Int
        var device: UInt64
        var item: Int?
        var logical: Int64
        var allocated: Int64
        var files: Int
    }

    mutating func read() throws -> UsageReport {
        skipSpace()
        try expect(UInt8(ascii: "["))
        let major = try unsignedNumber()
        guard major == 1 else { throw failure("format version \(major) (only version 1 is read)") }
        try expect(UInt8(ascii: ","))
        _ = try unsignedNumber()  // the minor version: later ones add keys, which are skipped
        try expect(UInt8(ascii: ","))
        try metadata()
        try expect(UInt8(ascii: ","))

        var totals = UsageTotals()
        var items: [UsageItem] = []
        var issues: [UsageIssue] = []
        var largest = LargestFiles(limit: options.largestFileCount, byLogical: options.ranksByLogicalSize)
        var counted = Set<FileIdentity>()
        var skippedHardLinks = 0
        var stack: [Frame] = []
        var rootPath: [UInt8] = []

        // Reads one item (at `index`, after blanks) into the folder on top of the stack.
        func item() throws {
            skipSpace()
            let isFolder = peek() == UInt8(ascii: "[")
            if isFolder { index += 1 }
            let entry = try object()
            guard let name = entry.name else { throw failure("an item without a name") }
            let parent = stack.last
            if parent != nil { try checkName(name) }
            let path = parent.map { RawPath(bytes: $0.path).appending(RawPath(bytes: name)).bytes } ?? name
            let depth = (parent?.depth ?? -1) + 1
            let device = entry.device ?? parent?.device ?? 0
            if parent == nil { rootPath = path }
            if entry.readError { issues.append(UsageIssue(pathBytes: path, errno: nil, message: "could not be read when the scan was saved")) }
            // An excluded file is left out, as a scan leaves it out (ncdu writes excluded
            // folders as objects, without their contents).
            if entry.excluded && !isFolder { return }
            if !isFolder, let inode = entry.inode, entry.isHardLink || (entry.linkCount ?? 1) > 1,
               !counted.insert(FileIdentity(device: device, inode: inode)).inserted {
                skippedHardLinks += 1
                return
            }
            let isFile = !isFolder && !entry.notRegular
            if isFolder {
                totals.folderCount += 1
            } else if isFile {
                totals.fileCount += 1
            } else if entry.logical > 0 {
                totals.symbolicLinkCount += 1
            } else {
                totals.otherCount += 1
            }
            totals.logicalBytes += entry.logical
            totals.allocatedBytes += entry.allocated
            var listed: Int?
            if depth > 0 && depth <= options.breakdownDepth {
                let link = entry.inode.map { UsageHardLink(device: device, inode: $0, linkCount: entry.linkCount) }
                items.append(UsageItem(pathBytes: path, depth: depth, isFolder: isFolder, logicalBytes: entry.logical,
                                       allocatedBytes: entry.allocated, fileCount: isFile ? 1 : 0,
                                       modificationDate: entry.modification.map { Date(timeIntervalSince1970: Double($0)) },
                                       hardLink: isFile && (entry.isHardLink || (entry.linkCount ?? 1) > 1) ? link : nil))
                listed = items.count - 1
            }
            if isFile { largest.insert((RawPath(bytes: path), entry.logical, entry.allocated)) }
            if isFolder {
                stack.append(Frame(path: path, depth: depth, device: device, item: listed, logical: entry.logical,
                                   allocated: entry.allocated, files: 0))
            } else if !stack.isEmpty {
                stack[stack.count - 1].logical += entry.logical
                stack[stack.count - 1].allocated += entry.allocated
                stack[stack.count - 1].files += isFile ? 1 : 0
            }
        }

        try item()
        // The root's items, and theirs: after each, a comma (another item) or the end of a folder.
        while let top = stack.last {
            skipSpace()
            guard index < bytes.count else { throw failure("the file ends inside a folder") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                try item()
                continue
            }
            try expect(UInt8(ascii: "]"))
            stack.removeLast()
            if let listed = top.item {
                items[listed].logicalBytes = top.logical
                items[listed].allocatedBytes = top.allocated
                items[listed].fileCount = top.files
            }
            if !stack.isEmpty {
                stack[stack.count - 1].logical += top.logical
                stack[stack.count - 1].allocated += top.allocated
                stack[stack.count - 1].files += top.files
            }
        }
        try expect(UInt8(ascii: "]"))
        skipSpace()
        guard index == bytes.count else { throw failure("more after the end of the file's array") }

        totals.path = ReportedPath.text(rootPath)
        var sum = totals
        sum.path = nil
        let byLogical = options.ranksByLogicalSize
        items.sort { byLogical ? $0.logicalBytes > $1.logicalBytes : $0.allocatedBytes > $1.allocatedBytes }
        return UsageReport(roots: [totals], totals: sum, skippedHardLinkCount: skippedHardLinks, largestFiles: largest.sorted(),
                           breakdown: items, issues: issues.sorted { RawPath(bytes: $0.pathBytes) < RawPath(bytes: $1.pathBytes) })
    }

    /// Refuses a name that is not one name: empty, `.`, `..`, or holding `/` or NUL.
    private func checkName(_ name: [UInt8]) throws {
        if name.isEmpty || name == [0x2E] || name == [0x2E, 0x2E] || name.contains(0x2F) || name.contains(0) {
            throw failure("the name '\(ReportedPath.text(name))' is not a single name")
        }
    }

    /// The metadata object (program, version, time): its `timestamp` kept when it is a whole
    /// number, everything else skipped; anything but an object is skipped whole.
    private mutating func metadata() throws {
        skipSpace()
        guard peek() == UInt8(ascii: "{") else { return try skipValue() }
        index += 1
        skipSpace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipSpace()
            let key = try key()
            try expect(UInt8(ascii: ":"))
            skipSpace()
            if key == .timestamp, let byte = peek(), (0x30...0x39).contains(byte) {
                timestamp = try unsignedNumber()
            } else {
                try skipValue()
            }
            skipSpace()
            if peek() == UInt8(ascii: "}") {
                index += 1
                return
            }
            try expect(UInt8(ascii: ","))
        }
    }

    // MARK: Objects

    /// The keys read; others (of later versions, ncdu's extended mode) are skipped.
    private enum Key: String, CaseIterable {
        case name, asize, dsize, dev, ino, nlink, hlnkc, mtime, timestamp
        case readError = "read_error", notreg, excluded

        /// Each key with its bytes, for matching in place.
        static let spellings = allCases.map { ($0, Array($0.rawValue.utf8)) }
    }

    /// The key the next string names, or `nil` for one not read; matched in the file's bytes
    /// when it holds no escape (as every key ncdu writes), so that no key is copied.
    private mutating func key() throws -> Key? {
        skipSpace()
        let start = index + 1
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
        guard peek() == UInt8(ascii: "\""), end < bytes.count, bytes[end] == UInt8(ascii: "\"") else {
            let decoded = try string()
            return Key.spellings.first { $0.1 == decoded }?.0
        }
        index = end + 1
        let found = UnsafeBufferPointer(rebasing: bytes[start..<end])
        return Key.spellings.first { $0.1.count == found.count && $0.1.elementsEqual(found) }?.0
    }

    private mutating func object() throws -> Entry {
        var entry = Entry()
        try expect(UInt8(ascii: "{"))
        skipSpace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return entry
        }
        while true {
            skipSpace()
            let key = try key()
            try expect(UInt8(ascii: ":"))
            skipSpace()
            switch key {
            case .name: entry.name = try string()
            case .asize: entry.logical = try size()
            case .dsize: entry.allocated = try size()
            case .dev: entry.device = try unsignedNumber()
            case .ino: entry.inode = try unsignedNumber()
            case .nlink: entry.linkCount = try unsignedNumber()
            case .hlnkc: entry.isHardLink = try boolean()
            case .mtime: entry.modification = try unsignedNumber()
            case .readError: entry.readError = try boolean()
            case .notreg: entry.notRegular = try boolean()
            case .excluded:
                skipSpace()
                if peek() == UInt8(ascii: "\"") { entry.excluded = try !string().isEmpty } else { try skipValue() }
            case .timestamp, nil: try skipValue()
            }
            skipSpace()
            if peek() == UInt8(ascii: "}") {
                index += 1
                return entry
            }
            try expect(UInt8(ascii: ","))
        }
    }

    private mutating func size() throws -> Int64 {
        let value = try unsignedNumber()
        guard value <= UInt64(Int64.max) else { throw failure("a size past \(Int64.max)") }
        return Int64(value)
    }

    // MARK: JSON values

    private func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8) throws {
        skipSpace()
        guard peek() == byte else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
        index += 1
    }

    private mutating func unsignedNumber() throws -> UInt64 {
        skipSpace()
        let start = index
        var value: UInt64 = 0
        while let byte = peek(), byte >= 0x30, byte <= 0x39 {
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(byte - 0x30))
            guard !overflow1, !overflow2 else { throw failure("a number past \(UInt64.max)") }
            value = sum
            index += 1
        }
        guard index > start else { throw failure("expected a whole number of 0 or more") }
        if let byte = peek(), byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            throw failure("expected a whole number of 0 or more")
        }
        return value
    }

    private mutating func boolean() throws -> Bool {
        skipSpace()
        if match("true") { return true }
        if match("false") { return false }
        throw failure("expected true or false")
    }

    private mutating func match(_ word: String) -> Bool {
        let word = Array(word.utf8)
        guard index + word.count <= bytes.count, bytes[index..<(index + word.count)].elementsEqual(word) else { return false }
        index += word.count
        return true
    }

    /// A JSON string's bytes: escapes decoded, every other byte kept as it is (not UTF-8 too).
    private mutating func string() throws -> [UInt8] {
        try expect(UInt8(ascii: "\""))
        // Most strings hold no escape and no control character: copied whole.
        var end = index
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"), bytes[end] >= 0x20 { end += 1 }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            defer { index = end + 1 }
            return Array(UnsafeBufferPointer(rebasing: bytes[index..<end]))
        }
        var result: [UInt8] = []
        while true {
            guard let byte = peek() else { throw failure("the file ends inside a string") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return result
            case UInt8(ascii: "\\"):
                guard let escaped = peek() else { throw failure("the file ends inside a string") }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): result.append(escaped)
                case UInt8(ascii: "b"): result.append(0x08)
                case UInt8(ascii: "f"): result.append(0x0C)
                case UInt8(ascii: "n"): result.append(0x0A)
                case UInt8(ascii: "r"): result.append(0x0D)
                case UInt8(ascii: "t"): result.append(0x09)
                case UInt8(ascii: "u"): result.append(contentsOf: try unicodeEscape())
                default: throw failure("an unknown escape in a string")
                }
            case 0..<0x20:
                throw failure("a control character in a string")
            default:
                result.append(byte)
            }
        }
    }

    /// The UTF-8 bytes of a `\uXXXX` escape (a surrogate pair takes two).
    private mutating func unicodeEscape() throws -> [UInt8] {
        var value = try hexQuad()
        if (0xD800..<0xDC00).contains(value) {
            guard match("\\u") else { throw failure("a lone surrogate in a string") }
            let low = try hexQuad()
            guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate in a string") }
            value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
        }
        guard let scalar = Unicode.Scalar(value) else { throw failure("a lone surrogate in a string") }
        return Array(String(Character(scalar)).utf8)
    }

    private mutating func hexQuad() throws -> UInt32 {
        guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16) else {
            throw failure("a \\u escape without four hexadecimal digits")
        }
        index += 4
        return value
    }

    /// Skips any JSON value (keys of later versions, the metadata), nested to any depth.
    private mutating func skipValue() throws {
        var depth = 0
        repeat {
            skipSpace()
            guard let byte = peek() else { throw failure("the file ends inside a value") }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard depth > 0 else { throw failure("expected a value") }
                depth -= 1
                index += 1
            case UInt8(ascii: "\""):
                _ = try string()
                skipSpace()
                if depth > 0, peek() == UInt8(ascii: ":") { index += 1 }
            case UInt8(ascii: ","):
                guard depth > 0 else { throw failure("expected a value") }
                index += 1
            default:
                guard match("true") || match("false") || match("null") || scalarNumber() else { throw failure("expected a value") }
            }
        } while depth > 0
    }

    /// Skips a JSON number of any form; `false` when none is here.
    private mutating func scalarNumber() -> Bool {
        let start = index
        while let byte = peek(), (0x30...0x39).contains(byte) || [0x2D, 0x2B, 0x2E, 0x65, 0x45].contains(byte) { index += 1 }
        return index > start
    }

    private func failure(_ what: String) -> StowageError {
        StowageError(.decodingFailed, operation: .loadScan, path: source,
                     reason: "not an ncdu JSON export: \(what) at byte \(index)")
    }
}
