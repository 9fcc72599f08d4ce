import Foundation

extension Container {
    /// The default container of an app: its real sandbox on Apple platforms, the XDG base
    /// directories on Linux.
    ///
    /// On Linux every location is a folder of the app's own, never a shared folder itself, so
    /// clearing a location can only ever remove the app's files:
    ///
    /// | Location | Folder |
    /// |---|---|
    /// | documents | `$XDG_DATA_HOME/<app>/documents` |
    /// | applicationSupport | `$XDG_DATA_HOME/<app>/support` |
    /// | caches | `$XDG_CACHE_HOME/<app>` |
    /// | preferences | `$XDG_CONFIG_HOME/<app>` |
    /// | temporary | `$TMPDIR/<app>` (must be a real folder owned by the current user) |
    /// | sharedContainer(group) | `$XDG_DATA_HOME/app-groups/<group>` |
    ///
    /// Unset or relative XDG variables fall back to `~/.local/share`, `~/.cache` and
    /// `~/.config`, as the XDG Base Directory Specification says; `TMPDIR` falls back to `/tmp`.
    ///
    /// On macOS and in Mac Catalyst every location is a folder of the app's own too, because an
    /// app that is not sandboxed shares the system's folders with the user and other apps; its
    /// documents are in `Application Support/<app>/Documents`, never `~/Documents`, which macOS
    /// guards with a privacy prompt (the "Apple platforms" article says why).
    /// On iOS, tvOS, watchOS and visionOS the sandbox folders are the app's own and are used as
    /// they are.
    ///
    /// - Parameters:
    ///   - appIdentifier: A single folder name, such as `com.example.MyApp`.
    ///   - environment: The variables to read `HOME`, `XDG_*_HOME` and `TMPDIR` from; tests pass
    ///     their own. `nil` (the default) reads this process's, as bytes
    ///     (``ProcessEnvironment/containerVariables``).
    /// - Throws: ``StowageError/Code/invalidArgument`` when the identifier is not a single name,
    ///   when no home folder can be found, or when one of the process's variables is not UTF-8
    ///   (a repaired value would name another folder).
    public static func `default`(
        appIdentifier: String,
        environment: [String: String]? = nil
    ) throws -> Container {
        if let problem = problem(inIdentifier: appIdentifier) {
            throw StowageError(.invalidArgument, operation: .locate, path: appIdentifier,
                               reason: "the app identifier is not usable as a folder name: \(problem)")
        }
        let variables = try environment ?? ProcessEnvironment.values(of: ProcessEnvironment.containerVariables)
        return try platformDefault(appIdentifier: appIdentifier, environment: variables)
    }

    /// This app's identifier, for ``default(appIdentifier:environment:)``: the main bundle's
    /// identifier where there is one (an app), else the executable's name (a command-line tool or
    /// a server on Linux).
    public static var currentAppIdentifier: String {
        Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName
    }

    /// The home folder: `HOME` when it is an absolute path, else the user's home folder in the
    /// password database.
    ///
    /// - Throws: ``StowageError/Code/invalidArgument`` (for `operation`) when there is neither.
    static func homeFolder(environment: [String: String], operation: StowageError.Operation) throws -> String {
        if let value = environment["HOME"], value.hasBytePrefix("/") { return value }
        if let fallback = Self.homeFromPasswordDatabase() { return fallback }
        throw StowageError(.invalidArgument, operation: operation,
                           reason: "HOME is not set to an absolute path and the user has no home folder")
    }

    /// The user's home folder as the system has it (the password database on Linux,
    /// `NSHomeDirectory()` on Apple platforms), as text; `nil` when there is none, or when its
    /// path is not UTF-8 (as text it would name another folder).
    static func homeFromPasswordDatabase() -> String? {
        guard let bytes = Sys.homeFolderOfUser(), bytes.isUTF8 else { return nil }
        return bytes.description
    }

    /// The folder temporary files go in: `TMPDIR` when it is an absolute path, else `/tmp`.
    static func temporaryBase(environment: [String: String]) -> String {
        environment["TMPDIR"].flatMap { $0.hasBytePrefix("/") ? $0 : nil } ?? "/tmp"
    }

    /// The XDG layout, used on Linux and available everywhere for tools that want it.
    static func xdg(appIdentifier: String, environment: [String: String]) throws -> Container {
        func absolute(_ name: String) -> URL? {
            guard let value = environment[name], value.hasBytePrefix("/") else { return nil }
            return URL(filePath: value, directoryHint: .isDirectory).standardizedFileURL
        }
        let home = URL(filePath: try homeFolder(environment: environment, operation: .locate), directoryHint: .isDirectory)
            .standardizedFileURL
        let dataHome = absolute("XDG_DATA_HOME") ?? home.appending(path: ".local/share", directoryHint: .isDirectory)
        let cacheHome = absolute("XDG_CACHE_HOME") ?? home.appending(path: ".cache", directoryHint: .isDirectory)
        let configHome = absolute("XDG_CONFIG_HOME") ?? home.appending(path: ".config", directoryHint: .isDirectory)
        let temporaryBase = URL(filePath: Self.temporaryBase(environment: environment), directoryHint: .isDirectory).standardizedFileURL
        let appData = dataHome.appending(path: appIdentifier, directoryHint: .isDirectory)
        return Container(
            kind: .xdg, root: nil, appIdentifier: appIdentifier,
            documents: appData.appending(path: "documents", directoryHint: .isDirectory),
            applicationSupport: appData.appending(path: "support", directoryHint: .isDirectory),
            caches: cacheHome.appending(path: appIdentifier, directoryHint: .isDirectory),
            preferences: configHome.appending(path: appIdentifier, directoryHint: .isDirectory),
            temporary: temporaryBase.appending(path: appIdentifier, directoryHint: .isDirectory),
            sharedContainers: dataHome.appending(path: "app-groups", directoryHint: .isDirectory),
            ownershipCheckedLocations: [.temporary]
        )
    }
}
