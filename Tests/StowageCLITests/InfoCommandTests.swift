import Foundation
import Testing

@Suite("stowage info")
struct InfoCommandTests {
    @Test("prints exact byte counts as JSON for the volume of a path")
    func json() async throws {
        let runner = try CommandRunner()
        let result = try await runner.run("info", runner.folderPath, "--json")
        #expect(result.status == 0, "\(result.error)")
        let json = try result.json()
        let total = try #require(json["totalBytes"] as? Int64)
        let available = try #require(json["availableBytes"] as? Int64)
        let opportunistic = try #require(json["availableForOpportunisticUsageBytes"] as? Int64)
        #expect(total > 0 && available <= total)
        #expect(opportunistic == max(0, available - min(total * 15 / 100, 4 << 30)))
        #expect(json["isSimulated"] as? Bool == false)
        #expect(json["blockSizeBytes"] as? Int64 == 4096)
    }

    @Test("shows simulated figures from the environment, in the chosen units")
    func simulated() async throws {
        let runner = try CommandRunner()
        let environment = ["STOWAGE_SIMULATED_AVAILABLE": "200MB", "STOWAGE_SIMULATED_TOTAL": "1GiB"]
        let text = try await runner.run("info", runner.folderPath, "--iec", environment: environment)
        #expect(text.status == 0, "\(text.error)")
        #expect(text.output.contains("SIMULATED"))
        #expect(text.output.contains("Total"))
        #expect(text.output.contains("1 GiB"))
        #expect(text.output.contains("190.7 MiB"))
        #expect(!text.output.contains(" MB"), "one system of units only")
        let json = try await runner.run("info", "--json", environment: environment).json()
        #expect(json["availableBytes"] as? Int64 == 200_000_000)
        #expect(json["isSimulated"] as? Bool == true)
        let overview = try await runner.run(environment: environment)
        #expect(overview.output.contains("SIMULATED"))
        #expect(overview.output.contains("200 MB"))
    }

    @Test("a malformed simulated size is a usage error (64), a missing path a failure (1), each said clearly")
    func errors() async throws {
        let runner = try CommandRunner()
        let bad = try await runner.run("info", runner.folderPath, environment: ["STOWAGE_SIMULATED_AVAILABLE": "lots"])
        #expect(bad.status == 64)
        #expect(bad.error.contains("STOWAGE_SIMULATED_AVAILABLE: 'lots' is not a size"))
        let missing = try await runner.run("info", "/no/such/place")
        #expect(missing.status == 1)
        #expect(missing.error.hasPrefix("stowage: measure capacity '/no/such/place' failed: no such file or directory"))
    }

    @Test("\"% used\" is what df says: used / (used + available), reserved blocks left out")
    func percentUsedAsDf() async throws {
        let runner = try CommandRunner()
        let volume = try ScratchVolume.mountExt4(megabytes: 64, in: runner.folder)  // 5% reserved for root
        try Data(repeating: 7, count: 20 << 20).write(to: volume.url.appending(path: "data.bin"))
        let df = try await runProcess(URL(filePath: "/bin/df"), ["--output=pcent", volume.path])
        let dfPercent = try #require(df.output.split(separator: "\n").last?.trimmingCharacters(in: .whitespaces))
        let info = try await runner.run("info", volume.path)
        #expect(info.status == 0, "\(info.error)")
        #expect(info.output.contains("  \(dfPercent) used"), "df says \(dfPercent): \(info.output)")
    }

    @Test("inode figures as df -i gives them, and a warning when fewer than 1% are left")
    func inodes() async throws {
        let runner = try CommandRunner()
        let volume = try ScratchVolume.mount(size: "4m", options: ["nr_inodes=200"], in: runner.folder)
        for index in 0..<199 {
            _ = FileManager.default.createFile(atPath: volume.path + "/f\(index)", contents: nil)
        }
        let json = try await runner.run("info", volume.path, "--json").json()
        let df = try await runProcess(URL(filePath: "/bin/df"), ["--output=itotal,iavail", volume.path])
        let figures = try #require(df.output.split(separator: "\n").last).split(separator: " ").compactMap { Int64($0) }
        #expect(json["totalInodeCount"] as? Int64 == figures.first)
        #expect(json["availableInodeCount"] as? Int64 == figures.last)
        let text = try await runner.run("info", volume.path).output
        #expect(text.contains("Inodes") && text.contains("fewer than 1% left"), "\(text)")
    }
}
