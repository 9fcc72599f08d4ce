import Foundation
import Testing
@testable import Stowage

/// The snippets of the "Locations and containers" article (LocationsAndContainers.md), and of the Getting
/// Started article where they are the same code.
@Suite("Snippets: Locations")
struct LocationsAndContainersSnippets {
    static func policy() -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet LocationsAndContainers/policy
        let policy = Location.caches.policy
        print(policy.isBackedUp, policy.purgePriority, policy.isUserVisible)   // false underPressure false
        print(Location.temporary.policy.purgePriority < .underPressure)       // true: tmp goes first
        // end snippet
        return printed
    }

    static func identifiers() -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet LocationsAndContainers/identifiers
        let location = Location(identifier: "cache")           // .caches (also "tmp", "support", ...)
        let shared = Location(identifier: "shared:group.com.example.shared")
        print(location?.displayName ?? "?", shared?.identifier ?? "?")
        // Caches shared:group.com.example.shared
        // end snippet
        return printed
    }

    static func defaultContainer() throws -> (Container, URL) {
        // snippet LocationsAndContainers/default
        let container = try Container.default(appIdentifier: "com.example.Chat")
        let caches = try container.url(for: .caches)   // ~/.cache/com.example.Chat on Linux
        // end snippet
        return (container, caches)
    }

    static func rooted() -> Container {
        // snippet LocationsAndContainers/rooted
        let root = FileManager.default.temporaryDirectory.appending(path: UUID().uuidString)
        let container = Container(root: root)
        // end snippet
        return container
    }

    static func environment() throws -> (URL, URL) {
        // snippet LocationsAndContainers/environment
        let home = FileManager.default.temporaryDirectory.appending(path: "chat-test-home")
        let container = try Container.default(appIdentifier: "com.example.Chat", environment: [
            "HOME": home.path(percentEncoded: false),
            "TMPDIR": home.appending(path: "tmp").path(percentEncoded: false),
        ])
        let documents = try container.url(for: .documents)   // <home>/.local/share/com.example.Chat/documents
        // end snippet
        return (home, documents)
    }

    static func shared(container: Container) throws -> URL {
        // snippet LocationsAndContainers/shared
        let shared = try container.url(for: .sharedContainer("group.com.example.shared"))
        try Store(container: container).save(Data("hello".utf8), to: "inbox/1", in: .sharedContainer("group.com.example.shared"))
        // end snippet
        return shared
    }

    @Test("the policy and identifier examples print what their comments say")
    func policiesAndIdentifiers() {
        #expect(Self.policy() == ["false underPressure false", "true"])
        #expect(Self.identifiers() == ["Caches shared:group.com.example.shared"])
    }

    @Test("the default container example gives the XDG caches folder of the app, here inside the test's folder")
    func defaultContainer() throws {
        let folder = TestFolder("snippet-locations")
        let (container, caches) = try SnippetSandbox.run(in: folder) { try Self.defaultContainer() }
        #expect(container.kind == .xdg)
        #expect(caches.path(percentEncoded: false) == folder.path + "/cache/com.example.Chat/")
    }

    @Test("a rooted container and a default one with given variables lay out their folders as the article's tables say")
    func layouts() throws {
        let container = Self.rooted()
        let root = try #require(container.root).path(percentEncoded: false)
        let caches = try container.url(for: .caches).path(percentEncoded: false)
        let temporary = try container.url(for: .temporary).path(percentEncoded: false)
        #expect(caches.hasPrefix(root) && caches.hasSuffix("/Library/Caches/"), "\(caches)")
        #expect(temporary.hasPrefix(root) && temporary.hasSuffix("/tmp/"), "\(temporary)")
        #expect(!FileManager.default.fileExists(atPath: root), "nothing is made before a write")

        let (home, documents) = try Self.environment()
        #expect(documents.path(percentEncoded: false)
                == home.path(percentEncoded: false) + "/.local/share/com.example.Chat/documents/")
        #expect(!FileManager.default.fileExists(atPath: home.path(percentEncoded: false)))
    }

    @Test("a shared container is a folder of the group in Shared/AppGroup, made on first write")
    func sharedContainer() throws {
        let folder = TestFolder("snippet-shared")
        let container = folder.container()
        let shared = try Self.shared(container: container)
        #expect(shared.path(percentEncoded: false) == folder.path + "/container/Shared/AppGroup/group.com.example.shared/")
        #expect(try folder.read("container/Shared/AppGroup/group.com.example.shared/inbox/1") == "hello")
    }
}
