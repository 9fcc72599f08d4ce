import Foundation
import Testing
@testable import Stowage

@Suite("Container")
struct ContainerTests {
    @Test("a rooted container lays out the iOS tree under its root, shared containers inside it")
    func rootedLayout() throws {
        let container = Container(root: URL(filePath: "/data/app", directoryHint: .isDirectory))
        func path(_ location: Location) throws -> String { try container.url(for: location).path(percentEncoded: false) }
        #expect(try path(.documents) == "/data/app/Documents/")
        #expect(try path(.applicationSupport) == "/data/app/Library/Application Support/")
        #expect(try path(.caches) == "/data/app/Library/Caches/")
        #expect(try path(.preferences) == "/data/app/Library/Preferences/")
        #expect(try path(.temporary) == "/data/app/tmp/")
        #expect(try path(.sharedContainer("group.com.example")) == "/data/app/Shared/AppGroup/group.com.example/")
        #expect(container.kind == .rooted)
    }

    @Test("the Linux default follows the XDG variables, always inside a folder of the app's own")
    func xdgLayout() throws {
        let environment = ["HOME": "/home/u", "XDG_DATA_HOME": "/d", "XDG_CACHE_HOME": "/c",
                           "XDG_CONFIG_HOME": "/f", "TMPDIR": "/t"]
        let container = try Container.default(appIdentifier: "com.example.App", environment: environment)
        func path(_ location: Location) throws -> String { try container.url(for: location).path(percentEncoded: false) }
        #expect(try path(.documents) == "/d/com.example.App/documents/")
        #expect(try path(.applicationSupport) == "/d/com.example.App/support/")
        #expect(try path(.caches) == "/c/com.example.App/")
        #expect(try path(.preferences) == "/f/com.example.App/")
        #expect(try path(.temporary) == "/t/com.example.App/")
        #expect(try path(.sharedContainer("group.x")) == "/d/app-groups/group.x/")
        #expect(container.kind == .xdg)
        #expect(container.appIdentifier == "com.example.App")
    }

    @Test("unset or relative XDG variables fall back to the home folder, TMPDIR to /tmp")
    func xdgFallbacks() throws {
        let container = try Container.default(appIdentifier: "app", environment: ["HOME": "/home/u", "XDG_CACHE_HOME": "relative/cache"])
        #expect(try container.url(for: .documents).path(percentEncoded: false) == "/home/u/.local/share/app/documents/")
        #expect(try container.url(for: .caches).path(percentEncoded: false) == "/home/u/.cache/app/")
        #expect(try container.url(for: .preferences).path(percentEncoded: false) == "/home/u/.config/app/")
        #expect(try container.url(for: .temporary).path(percentEncoded: false) == "/tmp/app/")
    }

    @Test("an app identifier must be a single folder name", arguments: ["", ".", "..", "a/b", "a\0b", String(repeating: "a", count: 256), "../\u{301}escape"])
    func badAppIdentifier(identifier: String) {
        expectStowageError(.invalidArgument) { try Container.default(appIdentifier: identifier, environment: ["HOME": "/h"]) }
    }

    @Test("a group identifier must be a single folder name")
    func badGroup() {
        let container = Container(root: URL(filePath: "/r"))
        expectStowageError(.invalidArgument) { try container.url(for: .sharedContainer("../escape")) }
        expectStowageError(.invalidArgument) { try container.url(for: .sharedContainer("")) }
        // A combining mark glues the slash into one Character; the slash byte is still there.
        expectStowageError(.invalidArgument) { try container.url(for: .sharedContainer("../\u{301}escape")) }
    }

    @Test("folders are created on first write, owner-only")
    func createdOnFirstUse() throws {
        let folder = TestFolder()
        let container = folder.container()
        #expect(try !container.folderExists(for: .caches))
        try Store(container: container).save(Data("x".utf8), to: "a/b.bin", in: .caches)
        #expect(try container.folderExists(for: .caches))
        #expect(folder.permissions("container/Library/Caches") == 0o700)
        #expect(try !container.folderExists(for: .documents))
    }

    @Test("clearing caches and tmp of the default container removes only the app's own files")
    func clearingTheDefaultContainerKeepsOthersFiles() throws {
        let folder = TestFolder("xdg")
        // This test's own HOME, XDG_*_HOME and TMPDIR: never the machine's.
        let environment = folder.xdgEnvironment
        try folder.write("another program's cache", to: "cache/other-app/data.bin")
        try folder.write("a loose cache file", to: "cache/loose.bin")
        try folder.write("someone's temporary file", to: "tmp/other.tmp")
        let store = Store(container: try .default(appIdentifier: "com.example.App", environment: environment))
        try store.save(Data("mine".utf8), to: "mine.bin", in: .caches)
        try store.save(Data("mine".utf8), to: "nested/mine.bin", in: .temporary)
        try store.clear(.caches)
        try store.clear(.temporary)
        #expect(try !store.exists("mine.bin", in: .caches))
        #expect(try !store.exists("nested", in: .temporary))
        #expect(try folder.read("cache/other-app/data.bin") == "another program's cache")
        #expect(try folder.read("cache/loose.bin") == "a loose cache file")
        #expect(try folder.read("tmp/other.tmp") == "someone's temporary file")
        #expect(folder.exists("cache/com.example.App"), "the location's folder itself stays")
    }

    @Test("a default tmp folder that is a link or belongs to another user is refused")
    func temporaryOwnership() throws {
        let folder = TestFolder("owner")
        let environment = ["HOME": folder.path + "/home", "TMPDIR": folder.path + "/tmp"]
        try FileManager.default.createDirectory(atPath: folder.path + "/tmp", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder.path + "/victim", withIntermediateDirectories: true)
        try folder.write("precious", to: "victim/keep.txt")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/tmp/linked", withDestinationPath: folder.path + "/victim")
        let linked = Store(container: try .default(appIdentifier: "linked", environment: environment))
        // A linked location folder is refused as a path, naming it, for every location (below).
        expectStowageError(.invalidPath) { try linked.clear(.temporary) }
        expectStowageError(.invalidPath) { try linked.save(Data(), to: "x", in: .temporary) }
        #expect(try folder.read("victim/keep.txt") == "precious")

        guard getuid() == 0 else {
            print("SKIPPED: the foreign-owner half of this test changes a folder's owner, which needs root")
            try Test.cancel("changing a folder's owner needs root")
        }
        try FileManager.default.createDirectory(atPath: folder.path + "/tmp/foreign", withIntermediateDirectories: true)
        try folder.write("theirs", to: "tmp/foreign/file")
        #expect(chown(folder.path + "/tmp/foreign", 65534, 65534) == 0)
        let foreign = Store(container: try .default(appIdentifier: "foreign", environment: environment))
        let error = expectStowageError(.permissionDenied) { try foreign.clear(.temporary) }
        #expect(error?.description.contains("not a folder owned by the current user") == true)
        #expect(try folder.read("tmp/foreign/file") == "theirs")
    }
}
