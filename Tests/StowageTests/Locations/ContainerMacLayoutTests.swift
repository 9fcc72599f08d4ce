import Foundation
import Testing
@testable import Stowage

/// The default container on macOS and Mac Catalyst, computed from the folders `FileManager`
/// gives there (here: a non-sandboxed app's, under a test folder standing in for the home).
@Suite("Container.macLayout")
struct ContainerMacLayoutTests {
    let home = URL(filePath: "/Users/me", directoryHint: .isDirectory)

    func layout() -> Container {
        let library = home.appending(path: "Library", directoryHint: .isDirectory)
        return Container.macLayout(appIdentifier: "com.example.App",
                                   applicationSupport: library.appending(path: "Application Support", directoryHint: .isDirectory),
                                   caches: library.appending(path: "Caches", directoryHint: .isDirectory), library: library,
                                   temporary: URL(filePath: "/private/var/folders/xy/T", directoryHint: .isDirectory))
    }

    @Test("every location is a folder of the app's own; documents are in Application Support, never ~/Documents")
    func folders() throws {
        let container = layout()
        let paths = try Location.standard.map { try container.url(for: $0).path(percentEncoded: false) }
        #expect(paths == [
            "/Users/me/Library/Application Support/com.example.App/Documents/",
            "/Users/me/Library/Application Support/com.example.App/Support/",
            "/Users/me/Library/Caches/com.example.App/",
            "/Users/me/Library/Preferences/com.example.App/",
            "/private/var/folders/xy/T/com.example.App/",
        ])
        #expect(container.kind == .appleSandbox)
        #expect(container.appIdentifier == "com.example.App")
    }

    @Test("no location's folder is inside another's, so clearing one never touches another")
    func disjoint() throws {
        let container = layout()
        let paths = try Location.standard.map { try container.url(for: $0).path(percentEncoded: false) }
        for (index, path) in paths.enumerated() {
            for (other, otherPath) in paths.enumerated() where other != index {
                #expect(!otherPath.hasPrefix(path), "\(otherPath) is inside \(path)")
            }
        }
    }
}
