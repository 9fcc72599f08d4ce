import Foundation
@testable import Stowage

/// Where the snippets that use an app's default container run: the folders of a test's own
/// `TestFolder`, never the user's.
///
/// The documents write `Container.default(appIdentifier: "com.example.Chat")` and
/// `DiskCache(name: "thumbnails", limits: ...)`, as an app does. In this test target those calls
/// resolve to the overloads below, which Swift prefers to the library's because they need no
/// default argument (`environment:`, `format:`), and which build the container from
/// ``environment``: `HOME`, `XDG_*_HOME` and `TMPDIR` inside the test's folder. Outside
/// ``run(in:_:)`` they throw, so no test can reach the real folders through them.
enum SnippetSandbox {
    @TaskLocal static var environment: [String: String]?

    /// Runs `body` with the default container inside `folder`.
    static func run<T>(in folder: TestFolder, _ body: () throws -> T) rethrows -> T {
        try $environment.withValue(folder.xdgEnvironment, operation: body)
    }

    /// Runs `body` with the default container inside `folder`.
    static func run<T>(in folder: TestFolder, isolation: isolated (any Actor)? = #isolation,
                       _ body: () async throws -> T) async rethrows -> T {
        try await $environment.withValue(folder.xdgEnvironment, operation: body, isolation: isolation)
    }

    static func requireEnvironment() throws -> [String: String] {
        guard let environment else {
            throw StowageError(.refused, operation: .locate,
                               reason: "a test used the default container outside SnippetSandbox.run: tests never touch the user's folders")
        }
        return environment
    }
}

extension Container {
    /// The snippets' default container: ``Container/default(appIdentifier:environment:)`` with
    /// the sandbox's variables (see ``SnippetSandbox``).
    static func `default`(appIdentifier: String) throws -> Container {
        try .default(appIdentifier: appIdentifier, environment: SnippetSandbox.requireEnvironment())
    }
}

extension DiskCache {
    /// The snippets' cache in the default container's caches: ``DiskCache/init(name:in:limits:format:)``
    /// in the sandbox's container (see ``SnippetSandbox``).
    convenience init(name: String, limits: Limits) throws {
        try self.init(name: name, in: .default(appIdentifier: Container.currentAppIdentifier), limits: limits)
    }
}
