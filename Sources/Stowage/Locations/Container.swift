import Foundation

/// The set of folders an app keeps its files in: one folder per ``Location``.
///
/// Three kinds of container exist:
/// - ``init(root:)``: the iOS layout under any folder you choose (tests, simulators, tools):
///   `Documents/`, `Library/Application Support/`, `Library/Caches/`, `Library/Preferences/`,
///   `tmp/`, and shared containers in `Shared/AppGroup/<group>/`. Nothing is ever placed
///   outside the root.
/// - ``default(appIdentifier:environment:)`` on Linux: the XDG base directories, always in a
///   folder of the app's own (see ``default(appIdentifier:environment:)`` for the table).
/// - ``default(appIdentifier:environment:)`` on Apple platforms: the app's real sandbox.
///
/// Folders are created on first use, with owner-only permissions (0700), as sandbox folders are.
///
/// ```swift
/// let container = Container(root: URL(filePath: "/tmp/MyAppTests"))
/// try container.url(for: .caches)  // /tmp/MyAppTests/Library/Caches
/// ```
public struct Container: Sendable, Hashable, CustomStringConvertible {
    /// How the container's folders were chosen.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        let name: String
        /// The iOS layout under a chosen root folder.
        public static let rooted = Kind(name: "rooted")
        /// The XDG base directories of the current user, one folder per app (Linux).
        public static let xdg = Kind(name: "xdg")
        /// The app's sandbox on an Apple platform.
        public static let appleSandbox = Kind(name: "apple-sandbox")
        /// `rooted`, `xdg` or `apple-sandbox`.
        public var description: String { name }
    }

    /// How the folders were chosen.
    public let kind: Kind
    /// The root folder, for a ``Kind/rooted`` container.
    public let root: URL?
    /// The app identifier, for a default container.
    public let appIdentifier: String?

    let documents: URL
    let applicationSupport: URL
    let caches: URL
    let preferences: URL
    let temporary: URL
    /// The folder holding shared containers, one sub-folder per group; `nil` where the platform
    /// resolves groups itself (Apple app groups).
    let sharedContainers: URL?
    /// Locations whose folder lives in a folder other users can write to (such as `/tmp`):
    /// their folder must be a real folder owned by the current user, never a link.
    let ownershipCheckedLocations: Set<Location>

    /// A container with the iOS layout under `root`.
    ///
    /// Nothing is created until a file is first written.
    ///
    /// - Parameter root: Any folder. A relative file URL is resolved against the current
    ///   directory now, so the container does not move if the directory changes later.
    public init(root: URL) {
        let root = root.standardizedFileURL.absoluteURL
        let library = root.appending(path: "Library", directoryHint: .isDirectory)
        self.init(
            kind: .rooted, root: root, appIdentifier: nil,
            documents: root.appending(path: "Documents", directoryHint: .isDirectory),
            applicationSupport: library.appending(path: "Application Support", directoryHint: .isDirectory),
            caches: library.appending(path: "Caches", directoryHint: .isDirectory),
            preferences: library.appending(path: "Preferences", directoryHint: .isDirectory),
            temporary: root.appending(path: "tmp", directoryHint: .isDirectory),
            sharedContainers: root.appending(path: "Shared/AppGroup", directoryHint: .isDirectory),
            ownershipCheckedLocations: []
        )
    }

    init(
        kind: Kind, root: URL?, appIdentifier: String?,
        documents: URL, applicationSupport: URL, caches: URL, preferences: URL, temporary: URL,
        sharedContainers: URL?, ownershipCheckedLocations: Set<Location>
    ) {
        self.kind = kind
        self.root = root
        self.appIdentifier = appIdentifier
        self.documents = documents
        self.applicationSupport = applicationSupport
        self.caches = caches
        self.preferences = preferences
        self.temporary = temporary
        self.sharedContainers = sharedContainers
        self.ownershipCheckedLocations = ownershipCheckedLocations
    }

    /// The folder of `location`.
    ///
    /// The folder may not exist yet; Stowage creates it on first write.
    ///
    /// - Throws: ``StowageError/Code/invalidArgument`` for a shared container whose group
    ///   identifier is not a single valid name, and on Apple platforms
    ///   ``StowageError/Code/notFound`` when the app is not entitled to the group.
    public func url(for location: Location) throws -> URL {
        switch location {
        case .documents: return documents
        case .applicationSupport: return applicationSupport
        case .caches: return caches
        case .preferences: return preferences
        case .temporary: return temporary
        case .sharedContainer(let group):
            if let problem = Self.problem(inIdentifier: group) {
                throw StowageError(.invalidArgument, operation: .locate, location: location,
                                   reason: "the app group identifier is not usable: \(problem)")
            }
            if let sharedContainers {
                return sharedContainers.appending(path: group, directoryHint: .isDirectory)
            }
            return try Self.platformSharedContainer(group: group)
        }
    }

    /// A one-line summary such as `rooted container at /tmp/x`.
    public var description: String {
        if let root { return "\(kind) container at \(root.path(percentEncoded: false))" }
        return "\(kind) container for \(appIdentifier ?? "?")"
    }

    /// What is wrong with `identifier` as a single folder name (an app or group identifier),
    /// or `nil` when it is fine.
    static func problem(inIdentifier identifier: String) -> String? {
        if identifier.isEmpty { return "it is empty" }
        if identifier.utf8.contains(UInt8(ascii: "/")) { return "it contains '/'" }
        if identifier.utf8.contains(0) { return "it contains a NUL byte" }
        if identifier == "." || identifier == ".." { return "'\(identifier)' is not a name" }
        if identifier.utf8.count > RelativePath.maximumNameLength { return "it is longer than 255 bytes" }
        return nil
    }
}
