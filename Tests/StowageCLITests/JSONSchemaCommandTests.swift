import Foundation
import Testing

/// Every command's JSON against its schema in `Schemas/`, and the schemas against the one JSON
/// vocabulary (README, "JSON output").
@Suite("JSON output: schemas and vocabulary")
struct JSONSchemaCommandTests {
    let schemas: JSONSchemas

    init() throws { schemas = try JSONSchemas() }

    @Test("every schema keeps the vocabulary: Bytes, Count, Seconds, Date suffixes and is/has booleans")
    func vocabulary() throws {
        #expect(schemas.fileNames.count >= 14, "\(schemas.fileNames)")
        var problems: [String] = []
        for file in schemas.fileNames {
            Self.visitProperties(of: try #require(schemas.document(file))) { name, schema in
                if let problem = Self.vocabularyProblem(name: name, schema: schema) { problems.append("\(file): \(name) \(problem)") }
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test("every schema is self-contained: an absolute $id, references only into its own $defs, which are definitions.json's")
    func bundled() throws {
        let shared = try #require(schemas.document(JSONSchemas.sharedFile)?["$defs"] as? [String: Any])
        var problems: [String] = []
        for file in schemas.fileNames {
            let schema = try #require(schemas.document(file))
            if schema["$id"] as? String != JSONSchemas.identifierBase + file { problems.append("\(file): $id is not \(JSONSchemas.identifierBase + file)") }
            let definitions = schema["$defs"] as? [String: Any] ?? [:]
            var needed: Set<String> = []
            var pending = Self.references(in: schema.filter { $0.key != "$defs" })
            while let reference = pending.popLast() {
                guard reference.hasPrefix("#/$defs/") else {
                    problems.append("\(file): $ref \(reference) leaves the file (a plain validator cannot resolve it)")
                    continue
                }
                let name = String(reference.dropFirst("#/$defs/".count))
                if needed.insert(name).inserted, let definition = definitions[name] { pending += Self.references(in: definition) }
            }
            for name in needed.union(definitions.keys).sorted() {
                if file != JSONSchemas.sharedFile, !needed.contains(name) { problems.append("\(file): $defs/\(name) is not used") }
                guard let definition = definitions[name] else {
                    problems.append("\(file): $defs/\(name) is referenced but missing")
                    continue
                }
                if !NSDictionary(dictionary: ["d": definition]).isEqual(to: ["d": shared[name] as Any]) {
                    problems.append("\(file): $defs/\(name) differs from \(JSONSchemas.sharedFile)'s")
                }
            }
        }
        #expect(problems.isEmpty, "run Scripts/bundle-schemas.py after editing \(JSONSchemas.sharedFile):\n\(problems.joined(separator: "\n"))")
    }

    @Test("the vocabulary check catches a byte count without Bytes, a count without Count, a bare boolean and a date without Date")
    func vocabularyCheckCatches() {
        #expect(Self.vocabularyProblem(name: "available", schema: ["type": "integer"]) != nil)
        #expect(Self.vocabularyProblem(name: "files", schema: ["type": "integer"]) != nil)
        #expect(Self.vocabularyProblem(name: "simulated", schema: ["type": "boolean"]) != nil)
        #expect(Self.vocabularyProblem(name: "lastAccess", schema: ["type": "string", "format": "date-time"]) != nil)
        #expect(Self.vocabularyProblem(name: "seconds", schema: ["type": "number"]) != nil)
        #expect(Self.vocabularyProblem(name: "totalInodeCount", schema: ["type": ["integer", "null"]]) == nil)
        #expect(Self.vocabularyProblem(name: "isDryRun", schema: ["type": "boolean"]) == nil)
        #expect(Self.vocabularyProblem(name: "availableBytesBefore", schema: ["type": "integer"]) == nil)
        #expect(Self.vocabularyProblem(name: "availableBefore", schema: ["type": "integer"]) != nil)
    }

    @Test("the validator finds a missing key, an unexpected key, a wrong type and a bad date")
    func validatorCatches() throws {
        let good: [String: Any] = ["error": ["code": "usage", "operation": "parse arguments", "location": NSNull(),
                                             "path": NSNull(), "errno": NSNull(), "message": "m"]]
        #expect(schemas.validate(good, against: "error.json").isEmpty)
        var missing = good["error"] as! [String: Any]
        missing.removeValue(forKey: "message")
        #expect(!schemas.validate(["error": missing], against: "error.json").isEmpty)
        var extra = good["error"] as! [String: Any]
        extra["available"] = 1
        #expect(!schemas.validate(["error": extra], against: "error.json").isEmpty)
        var wrong = good["error"] as! [String: Any]
        wrong["errno"] = "2"
        #expect(!schemas.validate(["error": wrong], against: "error.json").isEmpty)
        let event: [String: Any] = ["event": "stopped", "date": "yesterday"]
        #expect(!schemas.validate(event, against: "watch-events.json").isEmpty)
        #expect(schemas.validate(["event": "stopped", "date": "2026-11-22T17:35:00Z"], against: "watch-events.json").isEmpty)
        #expect(!schemas.validate(["event": "stopped", "date": "2026-11-22T17:35:00Z", "extra": true], against: "watch-events.json").isEmpty)
    }

    @Test("overview, locations, info (one volume and --all), usage, sweep, clear, relieve, audit and errors match their schemas")
    func documents() async throws {
        let runner = try CommandRunner()
        let root = runner.folderPath + "/root"
        try Self.write(1000, to: root + "/Library/Caches/a/b.bin")
        try Self.write(3000, to: root + "/tmp/t.bin")
        try Self.write(20_000, to: root + "/Documents/big.bin")
        try Self.write(5000, to: runner.folderPath + "/tree/sub/x.bin")
        let cases: [([String], String, Int32)] = [
            (["--root", root], "overview.json", 0),
            (["locations", "--root", root], "locations.json", 0),
            (["info", root], "info.json", 0),
            (["info", "--all"], "info-all.json", 0),
            (["usage", runner.folderPath + "/tree", "--depth", "2"], "usage.json", 0),
            (["sweep", runner.folderPath + "/tree", "--max-size", "1KB", "--dry-run"], "sweep.json", 0),
            (["audit", "--root", root, "--min-size", "10KB"], "audit.json", 0),
            (["relieve", "--root", root, "--available", "1PB", "--dry-run"], "relieve.json", 3),
            (["clear", "caches", "--root", root], "sweep.json", 0),
            (["sweep", runner.folderPath + "/tree", "--max-size", "1KB"], "sweep.json", 0),
            (["info", runner.folderPath + "/missing"], "error.json", 1),
            (["usage", runner.folderPath + "/missing"], "error.json", 1),
            (["usage", "--depth", "nine"], "error.json", 64),
        ]
        for (arguments, schema, status) in cases {
            let result = try await runner.run(arguments + ["--json"], environment: ["STOWAGE_SIMULATED_AVAILABLE": "100MB"])
            #expect(result.status == status, "\(arguments): \(result.error)")
            try expectValid(result.output, schema, arguments)
        }
    }

    @Test("fill --json, --json-lines, --status and release match their schemas")
    func fillDocuments() async throws {
        let runner = try CommandRunner()
        let volume = try ScratchVolume.mount(size: "32m", in: runner.folder)
        let status = try await runner.run("fill", "--status", volume.path, "--json")
        try expectValid(status.output, "fill-status.json", ["fill", "--status"])
        #expect(try status.json()["status"] is NSNull, "status is null, not missing, when nothing is filled")
        let fill = try await runner.run("fill", volume.path, "--leave", "20MB", "--json")
        #expect(fill.status == 0, "\(fill.error)")
        try expectValid(fill.output, "fill.json", ["fill", "--json"])
        let lines = try await runner.run("fill", volume.path, "--leave", "10MB", "--method", "zeros", "--chunk", "64KB", "--json-lines")
        #expect(lines.status == 0, "\(lines.error)")
        let events = lines.output.split(separator: "\n")
        #expect(events.count >= 1 && events.last?.contains(#""event":"filled""#) == true, "\(lines.output)")
        for line in events { try expectValid(String(line), "fill-events.json", ["fill", "--json-lines"]) }
        let filled = try await runner.run("fill", "--status", volume.path, "--json")
        try expectValid(filled.output, "fill-status.json", ["fill", "--status"])
        let release = try await runner.run("release", volume.path, "--json")
        try expectValid(release.output, "release.json", ["release"])
        let text = try await runner.run("fill", volume.path, "--leave", "25MB")
        #expect(text.status == 0 && text.output.hasPrefix("Filled ") && !text.output.contains("{"),
                "standard output is a pipe, yet no JSON without --json or --json-lines: \(text.output)")
        _ = try await runner.run("release", volume.path)
        let refused = try await runner.run("fill", volume.path, "--leave", "1MB", "--hold", "--json")
        #expect(refused.status == 64 && refused.error.contains("--json-lines"), "\(refused.error)")
        try expectValid(refused.output, "error.json", ["fill", "--hold", "--json"])
        let usage = try await runner.run("fill", volume.path, "--leave", "-", "--json-lines")
        #expect(usage.status == 64)
        try expectValid(usage.output.trimmingCharacters(in: .newlines), "fill-events.json", ["fill", "--json-lines", "usage error"])
    }

    @Test("watch --json-lines: started, relief and stopped events match the schema; --json is refused")
    func watchEvents() async throws {
        let runner = try CommandRunner()
        let root = runner.folderPath + "/root"
        try Self.write(4000, to: root + "/Library/Caches/c.bin")
        let watch = try runner.start(["watch", "--available", "1GB", "--interval", "0.2s", "--root", root, "--json-lines"],
                                     environment: ["STOWAGE_SIMULATED_AVAILABLE": "0"])
        _ = try await watch.read(within: .seconds(120), waitingFor: "write a whole relief line") { text in
            text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().contains { $0.contains(#""event":"relief""#) }
        }
        watch.signal(SIGTERM)
        let lines = try await watch.finish(within: .seconds(60)).output.split(separator: "\n").map(String.init)
        #expect(lines.first?.contains(#""event":"started""#) == true, "\(lines)")
        #expect(lines.contains { $0.contains(#""event":"relief""#) }, "\(lines)")
        #expect(lines.last?.contains(#""event":"stopped""#) == true, "\(lines)")
        for line in lines { try expectValid(line, "watch-events.json", ["watch"]) }
        let refused = try await runner.run("watch", "--available", "1GB", "--root", root, "--json")
        #expect(refused.status == 64 && refused.error.contains("--json-lines"), "\(refused.error)")
    }

    @Test("run over a range --json-lines: room, finished, minimum and error events match run-range-events.json")
    func runRangeEvents() async throws {
        let runner = try await RunCommandTests.runner()
        let real = runner.folderPath + "/real"
        let keep = runner.folderPath + "/kept"
        // Room 0 cannot hold the byte: the file is made, empty, and the check fails there only.
        let every = try await runner.run("run", "--available", "0..12KiB", "--over", real, "--keep", keep, "--check", "test -s '\(real)/f'",
                                   "--json-lines", "--", "/bin/sh", "-c", "echo x > \"$0/f\"", real)
        #expect(every.status == 1, "\(every.error)")
        let lines = every.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "four rooms, then the summary: \(every.output)")
        for line in lines { try expectValid(line, "run-range-events.json", ["run", "--json-lines"]) }
        let finished = try #require(try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any])
        #expect(finished["event"] as? String == "finished" && finished["failedCount"] as? Int == 1 && finished["exitStatus"] as? Int == 1)
        #expect((finished["keptRoom"] as? [String: Any])?["availableBytes"] as? Int == 0, "\(finished)")
        let minimum = try await runner.run("run", "--available", "0..12KiB", "--find-minimum", "--over", real, "--json-lines", "--",
                                     "/bin/sh", "-c", "echo x > \"$0/f\"", real)
        #expect(minimum.status == 0, "\(minimum.error)")
        for line in minimum.output.split(separator: "\n") { try expectValid(String(line), "run-range-events.json", ["run", "--find-minimum"]) }
        #expect(minimum.output.contains(#""event":"minimum""#) && minimum.output.contains(#""minimumAvailableBytes":4096"#),
                "\(minimum.output)")
        let inodes = try await runner.run("run", "--available", "4KiB", "--inodes", "0..2", "--find-minimum", "--over", real, "--json-lines",
                                    "--", "/bin/sh", "-c", "kill -KILL $$")
        #expect(inodes.status == 3, "\(inodes.error)")
        for line in inodes.output.split(separator: "\n") { try expectValid(String(line), "run-range-events.json", ["run", "--inodes"]) }
        #expect(inodes.output.contains(#""command":{"exitStatus":null,"signal":"SIGKILL"}"#), "\(inodes.output)")
        let usage = try await runner.run("run", "--available", "2MB..1MB", "--over", real, "--json-lines", "--", "/bin/true")
        #expect(usage.status == 64)
        try expectValid(usage.output.trimmingCharacters(in: .newlines), "run-range-events.json", ["run", "usage error"])
        let failed = try await runner.run("run", "--available", "0..8KiB", "--over", runner.folderPath + "/missing", "--json-lines", "--", "/bin/true")
        #expect(failed.status == 125, "\(failed.error)")
        try expectValid(failed.output.trimmingCharacters(in: .newlines), "run-range-events.json", ["run", "missing folder"])
    }

    // MARK: - Helpers

    private func expectValid(_ text: String, _ schema: String, _ arguments: [String],
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        let value = try #require(try? JSONSerialization.jsonObject(with: Data(text.utf8)),
                                 "\(arguments): not JSON: \(text)", sourceLocation: sourceLocation)
        let problems = schemas.validate(value, against: schema)
        #expect(problems.isEmpty, "\(arguments) against \(schema):\n\(problems.map(\.description).joined(separator: "\n"))\n\(text)",
                sourceLocation: sourceLocation)
    }

    private static func write(_ count: Int, to path: String) throws {
        let url = URL(filePath: path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(repeating: 7, count: count).write(to: url)
    }

    /// Every `$ref` in `node`.
    static func references(in node: Any) -> [String] {
        if let object = node as? [String: Any] {
            let own = (object["$ref"] as? String).map { [$0] } ?? []
            return own + object.filter { $0.key != "$ref" }.values.flatMap(references(in:))
        }
        return (node as? [Any])?.flatMap(references(in:)) ?? []
    }

    /// Calls `body` with every property name and schema declared anywhere in `node`.
    static func visitProperties(of node: Any, _ body: (String, [String: Any]) -> Void) {
        if let object = node as? [String: Any] {
            if let properties = object["properties"] as? [String: [String: Any]] {
                for (name, schema) in properties { body(name, schema) }
            }
            for value in object.values { visitProperties(of: value, body) }
        } else if let array = node as? [Any] {
            for value in array { visitProperties(of: value, body) }
        }
    }

    /// What breaks the vocabulary in a property, or `nil`: integers end in `Bytes` or `Count`,
    /// then `Before` or `After` for a pair (`depth`, `errno`, and a hard link's `device` and `inode`, are named as the
    /// system names them), fractional numbers in
    /// `Seconds` or `PerSecond`, booleans start with `is`, `has` or `was` (or are `exists`), dates end
    /// in `Date` (or are an event's `date`).
    static func vocabularyProblem(name: String, schema: [String: Any]) -> String? {
        let types = (schema["type"] as? [String]) ?? [(schema["type"] as? String)].compactMap { $0 }
        let quantity = name.replacing(/(Before|After)$/, with: "")  // availableBytesBefore: a before/after pair
        if types.contains("integer"), !(quantity.hasSuffix("Bytes") || quantity.hasSuffix("Count") || ["depth", "errno", "exitStatus", "device", "inode"].contains(name)) {
            return "is an integer: end it in Bytes or Count"
        }
        if types.contains("number"), !(name.hasSuffix("Seconds") || name.hasSuffix("PerSecond")) {
            return "is a number: end it in Seconds or PerSecond"
        }
        if types.contains("boolean"), !(name.hasPrefix("is") || name.hasPrefix("has") || name.hasPrefix("was") || name == "exists") {
            return "is a boolean: start it with is, has or was"
        }
        if schema["format"] as? String == "date-time", !(name.hasSuffix("Date") || name == "date") {
            return "is a date: end it in Date"
        }
        return nil
    }
}
