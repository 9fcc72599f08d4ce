import Foundation

/// A value appended by one of several writers: who wrote it, and its place in that writer's run.
public struct Tagged: Codable, Hashable, Sendable {
    public var tag: String
    public var index: Int

    public init(tag: String, index: Int) {
        self.tag = tag
        self.index = index
    }
}

/// What the crash-loop helper writes over and over, and the parent checks after each kill.
public enum CrashWorkload {
    /// The folder in Documents the loop works in.
    public static let folder = "crash"
    /// A Codable value overwritten with a new generation each turn.
    public static let value = folder + "/value.json"
    /// A JSON array the loop appends 0, 1, 2, ... to.
    public static let sequence = folder + "/sequence.json"
    /// A JSON array the loop removes and creates anew by appending one number each turn.
    public static let created = folder + "/created.json"
    /// A numbered folder the loop appends files "0", "1", ... to.
    public static let frames = folder + "/frames"
    /// The file the loop renames back and forth between these two names.
    public static let renamed = (folder + "/left", folder + "/right")
    /// The renamed file's content.
    public static let renamedContent = Data("renamed back and forth".utf8)

    /// One generation of the overwritten value.
    public struct Versioned: Codable, Equatable, Sendable {
        public var generation: Int
        public var payload: String

        /// The value of `generation`: its payload is a function of the generation, from a few
        /// bytes to a few blocks, so a torn or mixed file cannot pass for a written one.
        public init(generation: Int) {
            self.generation = generation
            payload = String(repeating: "g\(generation);", count: 1 + (generation * 37) % 1500)
        }
    }
}

/// Entries a cache-writer helper stores: each key's data is a function of the key.
public enum CacheWorkload {
    public static func data(for key: String) -> Data {
        let seed = key.utf8.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 }
        let length = 500 + Int(seed % 6000)
        let pattern = Array(key.utf8)
        return Data((0..<length).map { pattern[$0 % pattern.count] ^ UInt8(truncatingIfNeeded: $0) })
    }
}

/// The values of the model-based test of `DiskCache`: each names its key and version, so a read
/// says which write it came from, and a torn or mixed entry cannot pass for a written one.
public enum CacheModelValue {
    /// `size` bytes (at least the prefix) for `key`'s `version`: `k<key>v<version>;` then a byte
    /// that depends on both, repeated.
    public static func data(key: Int, version: Int, size: Int) -> Data {
        var data = Data("k\(key)v\(version);".utf8)
        let filler = UInt8(truncatingIfNeeded: key &* 31 &+ version &* 7 &+ 1)
        if data.count < size { data.append(Data(repeating: filler, count: size - data.count)) }
        return data
    }

    /// The version `data` holds for `key`, or `nil` when it is no value of that key written whole.
    public static func version(of data: Data, key: Int) -> Int? {
        guard let end = data.firstIndex(of: UInt8(ascii: ";")),
              let text = String(data: data[data.startIndex..<end], encoding: .utf8), text.hasPrefix("k\(key)v"),
              let version = Int(text.dropFirst("k\(key)v".count)) else { return nil }
        return self.data(key: key, version: version, size: data.count) == data ? version : nil
    }
}
