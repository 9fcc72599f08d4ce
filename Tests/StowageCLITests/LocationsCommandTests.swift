import Foundation
import Testing

@Suite("stowage locations")
struct LocationsCommandTests {
    @Test("prints every location of a rooted container as JSON, with policy and existence")
    func rootedJSON() async throws {
        let runner = try CommandRunner()
        try FileManager.default.createDirectory(atPath: runner.folderPath + "/app/Documents", withIntermediateDirectories: true)
        let result = try await runner.run("locations", "--root", "app", "--json", "--group", "group.example")
        #expect(result.status == 0, "\(result.error)")
        let json = try result.json()
        let container = try #require(json["container"] as? [String: Any])
        #expect(container["kind"] as? String == "rooted")
        #expect(container["root"] as? String == runner.folderPath + "/app")
        let locations = try #require(json["locations"] as? [[String: Any]])
        #expect(locations.map { $0["location"] as? String } == ["documents", "applicationSupport", "caches", "preferences", "temporary", "shared:group.example"])
        let documents = locations[0]
        #expect(documents["path"] as? String == runner.folderPath + "/app/Documents")
        #expect(documents["exists"] as? Bool == true)
        #expect(documents["isBackedUp"] as? Bool == true)
        #expect(documents["isUserVisible"] as? Bool == true)
        #expect(locations[2]["purgePriority"] as? String == "underPressure")
        #expect(locations[2]["exists"] as? Bool == false)
        #expect(locations[4]["purgePriority"] as? String == "anyTime")
        #expect(locations[5]["path"] as? String == runner.folderPath + "/app/Shared/AppGroup/group.example")
    }

    @Test("the default container follows the XDG variables, inside the app's own folders")
    func defaultContainer() async throws {
        let runner = try CommandRunner()
        let result = try await runner.run("locations", "--app", "com.example.App")
        #expect(result.status == 0, "\(result.error)")
        let base = runner.folderPath
        #expect(result.output.contains("Container: xdg for com.example.App"))
        #expect(result.output.contains("\(base)/data/com.example.App/documents"))
        #expect(result.output.contains("\(base)/data/com.example.App/support"))
        #expect(result.output.contains("\(base)/cache/com.example.App"))
        #expect(result.output.contains("\(base)/config/com.example.App"))
        #expect(result.output.contains("\(base)/tmp/com.example.App"))
        #expect(result.output.contains("under pressure"))
    }

    @Test("with no subcommand prints the overview of the default container")
    func overview() async throws {
        let runner = try CommandRunner()
        let result = try await runner.run()
        #expect(result.status == 0, "\(result.error)")
        #expect(result.output.contains("Container: xdg for stowage"))
        #expect(result.output.contains("\(runner.folderPath)/cache/stowage"))
        let named = try await runner.run("--json", environment: ["STOWAGE_APP": "from-env"])
        let container = try #require(try named.json()["container"] as? [String: Any])
        #expect(container["appIdentifier"] as? String == "from-env")
    }

    @Test("a bad app identifier is a usage error (64) with a clear message, also as JSON")
    func badIdentifier() async throws {
        let runner = try CommandRunner()
        let result = try await runner.run("locations", "--app", "../evil")
        #expect(result.status == 64)
        #expect(result.error.hasPrefix("stowage: locate '../evil' failed: the app identifier is not usable as a folder name"))
        let json = try await runner.run("locations", "--app", "a/b", "--json")
        #expect(json.status == 64)
        let error = try #require(try json.json()["error"] as? [String: Any])
        #expect(error["code"] as? String == "invalidArgument")
    }

    @Test("--app and --root together are a usage error")
    func conflictingOptions() async throws {
        let result = try await CommandRunner().run("locations", "--app", "a", "--root", "b")
        #expect(result.status == 64)
        #expect(result.error.contains("Give --app or --root, not both."))
    }
}
