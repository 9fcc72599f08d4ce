/// A thing text output counts, with its two forms: every count in human output and in messages
/// goes through ``counted(_:)``, so that one of anything is singular and every other number, 0 included,
/// plural: `0 files`, `1 file`, `2 files`.
package struct Noun: Sendable {
    /// The form for exactly one: `file`.
    package var one: String
    /// The form for any other count: `files`.
    package var many: String

    /// A noun whose plural is `one` + `s`, unless given.
    package init(_ one: String, plural many: String? = nil) {
        self.one = one
        self.many = many ?? one + "s"
    }

    /// The form for `count`: ``one`` for exactly 1, ``many`` otherwise.
    package func form(for count: some BinaryInteger) -> String { count == 1 ? one : many }

    /// `count` and the form for it: `1 file`, `3 files`; `number` writes the count (digits by default).
    package func counted<Count: BinaryInteger>(_ count: Count, number: (Count) -> String = { "\($0)" }) -> String {
        number(count) + " " + form(for: count)
    }

    package static let file = Noun("file")
    package static let folder = Noun("folder")
    package static let link = Noun("link")
    package static let entry = Noun("entry", plural: "entries")
    package static let byte = Noun("byte")
    package static let inode = Noun("inode")
    package static let room = Noun("room")
}
