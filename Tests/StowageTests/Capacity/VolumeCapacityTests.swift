import Foundation
import StowageTestSupport
import Testing
@testable import Stowage

/// Everything that queries capacity or installs simulated figures runs here, one test at a
/// time: a process-wide simulation must not leak into a parallel test's figures.
@Suite("Capacity", .serialized)
struct CapacityTests {
    /// `df -B1 --output=size,avail` of a path: the figures the command-line peer reports.
    static func df(_ path: String) throws -> (total: Int64, available: Int64) {
        let result = try runProcess(URL(filePath: "/bin/df"), ["-B1", "--output=size,avail", path])
        let numbers = try #require(result.output.split(separator: "\n").last, "df printed nothing: \(result.error)")
            .split(separator: " ").compactMap { Int64($0) }
        try #require(numbers.count == 2, "df printed \(result.output)")
        return (numbers[0], numbers[1])
    }

    @Suite("VolumeCapacity")
    struct VolumeCapacityTests {
        @Test("a tmpfs of known size reports the figures statvfs and df -B1 report")
        func tmpfsFigures() throws {
            let folder = TestFolder()
            let volume = try ScratchVolume.mount(size: "16m", in: folder)
            try Data(repeating: 7, count: 1 << 20).write(to: volume.url.appending(path: "one-mib"))
            let capacity = try VolumeCapacity.forVolume(containing: volume.url)
            let df = try CapacityTests.df(volume.path)
            #expect(capacity.totalBytes == 16 << 20)
            #expect(capacity.totalBytes == df.total)
            #expect(capacity.availableBytes == df.available)
            #expect(capacity.availableBytes == (16 << 20) - (1 << 20))
            #expect(capacity.usedBytes == 1 << 20)
            #expect(capacity.fileSystemType == "tmpfs")
            #expect(capacity.mountPoint == volume.path)
            #expect(capacity.blockSizeBytes == 4096)
            #expect(!capacity.isSimulated)
            #expect(capacity.availableForImportantUsageBytes == capacity.availableBytes, "a plain path has nothing reclaimable")
            #expect(capacity.availableForOpportunisticUsageBytes
                == capacity.availableBytes - VolumeCapacity.headroom(forTotal: 16 << 20))
        }

        @Test("headroom is 15% of the volume, at most 4 GiB")
        func headroom() {
            #expect(VolumeCapacity.headroom(forTotal: 1000) == 150)
            #expect(VolumeCapacity.headroom(forTotal: 16 << 20) == (16 << 20) * 15 / 100)
            #expect(VolumeCapacity.headroom(forTotal: 1 << 40) == 4 << 30)
        }

        @Test("important usage counts the container's caches and tmp on the same volume as reclaimable")
        func reclaimable() throws {
            let folder = TestFolder()
            let volume = try ScratchVolume.mount(size: "16m", in: folder)
            let store = Store(container: Container(root: volume.url))
            try store.save(Data(repeating: 1, count: 100_000), to: "a.bin", in: .caches)
            try store.save(Data(repeating: 2, count: 5_000), to: "b/c.bin", in: .temporary)
            try store.save(Data(repeating: 3, count: 300_000), to: "kept.bin", in: .documents)
            let capacity = try store.container.capacity(of: .documents)
            let du = try runProcess(try requireToolURL("du"), ["-s", "-B1",
                                                                   volume.path + "/Library/Caches", volume.path + "/tmp"])
            let counted = du.output.split(separator: "\n").compactMap { Int64($0.split(separator: "\t")[0]) }
            // du counts the folders' own blocks too; Stowage counts what is inside them.
            #expect(capacity.reclaimableBytes == 4096 * 25 + 4096 * 2)
            #expect(counted.reduce(0, +) >= capacity.reclaimableBytes)
            #expect(capacity.availableForImportantUsageBytes == capacity.availableBytes + capacity.reclaimableBytes)
        }

        @Test("a missing path is notFound naming it")
        func missing() {
            let error = expectStowageError(.notFound) { try VolumeCapacity.forVolume(containing: URL(filePath: "/no/such/place")) }
            #expect(error?.path == "/no/such/place")
        }
    }

    @Suite("SimulatedCapacity")
    struct SimulatedCapacityTests {
        @Test("figures for a task: queries report them, real file sizes do not change")
        func taskFigures() throws {
            let folder = TestFolder()
            let capacity = try SimulatedCapacity.withFigures(available: 200_000_000, total: 1_000_000_000) {
                try VolumeCapacity.forVolume(containing: folder.url)
            }
            #expect(capacity.isSimulated)
            #expect(capacity.availableBytes == 200_000_000)
            #expect(capacity.totalBytes == 1_000_000_000)
            #expect(capacity.usedBytes == 800_000_000)
            #expect(capacity.availableForOpportunisticUsageBytes == 200_000_000 - 150_000_000)
            #expect(try !VolumeCapacity.forVolume(containing: folder.url).isSimulated, "only inside the scope")
        }

        /// In a helper process: figures installed for a whole process would reach every test
        /// running beside this one (a space check of another test failing for 1,000 bytes).
        @Test("figures for the process, nested and removed")
        func processFigures() throws {
            let folder = TestFolder()
            let helper = try builtProduct("stowage-test-helper")
            let result = try runProcess(helper, ["simulated-install", folder.path])
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.split(separator: "\n") == ["1000", "5000", "real"], "the inner, then the outer, then none")
        }

        /// The documented order, each pair at its turn: the task's figures over the process's, the
        /// process's over the environment's; in a helper process, as above.
        @Test("a task's figures win over the process's, and the process's over the environment's")
        func order() throws {
            let folder = TestFolder()
            let helper = try builtProduct("stowage-test-helper")
            var environment = ProcessInfo.processInfo.environment
            environment[SimulatedCapacity.availableVariable] = "9000"
            let result = try runProcess(helper, ["simulated-order", folder.path], environment: environment)
            #expect(result.status == 0, "\(result.error)")
            #expect(result.output.split(separator: "\n") == ["9000", "5000", "2000", "3000", "9000"],
                    "the environment, the process over it, the task over the process, the task over the environment, the environment")
        }

        @Test("figures from the environment, and a clear error for a malformed one")
        func environment() throws {
            let figures = try SimulatedCapacity.current(environment: ["STOWAGE_SIMULATED_AVAILABLE": "200MB",
                                                                      "STOWAGE_SIMULATED_TOTAL": "1GiB"])
            #expect(figures == SimulatedCapacity.Figures(availableBytes: 200_000_000, totalBytes: 1 << 30))
            #expect(try SimulatedCapacity.current(environment: [:]) == nil)
            let error = expectStowageError(.invalidArgument) {
                try SimulatedCapacity.current(environment: ["STOWAGE_SIMULATED_AVAILABLE": "lots"])
            }
            #expect(error?.description.contains("STOWAGE_SIMULATED_AVAILABLE") == true)
        }
    }

    @Suite("Space-checked writes")
    struct SpaceCheckTests {
        @Test("a write that does not fit its requirement is noSpace with figures, and writes nothing")
        func simulatedLowStorage() throws {
            let folder = TestFolder()
            let store = folder.store()
            try store.save(Data("old".utf8), to: "v.bin", in: .documents)
            let big = Data(repeating: 0, count: 10_000)
            try SimulatedCapacity.withFigures(available: 8192, total: 1_000_000) {
                let error = expectStowageError(.noSpace) {
                    try store.save(big, to: "v.bin", in: .documents, options: WriteOptions(spaceRequirement: .important))
                }
                #expect(error?.neededBytes == 12_288, "10,000 bytes take three 4 KiB blocks")
                #expect(error?.availableBytes == 8192)
                #expect(error?.path == "v.bin")
                #expect(error?.description.contains("needed 12.3 kB, 8.2 kB available") == true)
                // Opportunistic keeps 15% of the (simulated) volume free.
                let optional = expectStowageError(.noSpace) {
                    try store.save(Data(count: 10), to: "small.bin", in: .caches, options: WriteOptions(spaceRequirement: .opportunistic))
                }
                #expect(optional?.availableBytes == 0)
                expectStowageError(.noSpace) {
                    try store.append(Message(id: 1, text: String(repeating: "x", count: 9000)), to: "log.json", in: .documents,
                                     options: WriteOptions(spaceRequirement: .important))
                }
                expectStowageError(.noSpace) {
                    try store.saveFolder([big], to: "album", in: .documents, options: WriteOptions(spaceRequirement: .important))
                }
                try store.save(Data(count: 100), to: "fits.bin", in: .documents, options: WriteOptions(spaceRequirement: .important))
                try store.save(big, to: "unchecked.bin", in: .documents)
            }
            #expect(try store.retrieve(Data.self, from: "v.bin", in: .documents) == Data("old".utf8))
            #expect(try !store.exists("log.json", in: .documents))
            #expect(try !store.exists("album", in: .documents))
            #expect(try store.exists("unchecked.bin", in: .documents), "without a requirement nothing is checked")
            #expect(folder.leftoverTemporaryItems().isEmpty)
        }

        @Test("a real full disk mid-write is noSpace with the path; old content intact, no temporary file")
        func realFullDisk() throws {
            let folder = TestFolder()
            let volume = try ScratchVolume.mount(size: "1m", in: folder)
            let store = Store(container: Container(root: volume.url))
            let old = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0) })
            try store.save(old, to: "keep.bin", in: .documents)
            try store.save([Message(id: 1, text: "a")], to: "log.json", in: .documents)
            try store.saveFolder([Data("a".utf8)], to: "album", in: .documents)
            let arrayBefore = try store.retrieve(Data.self, from: "log.json", in: .documents)
            // Fill what is left, leaving less than a block.
            let filler = volume.url.appending(path: "filler")
            _ = FileManager.default.createFile(atPath: filler.path(percentEncoded: false), contents: nil)
            let handle = try FileHandle(forWritingTo: filler)
            let chunk = Data(count: 4096)
            while (try? handle.write(contentsOf: chunk)) != nil {}
            try? handle.close()

            for (name, attempt) in [
                ("save", { try store.save(Data(count: 200_000), to: "keep.bin", in: .documents) }),
                ("save value", { try store.save(Array(repeating: Message(id: 1, text: "x"), count: 5000), to: "keep.bin", in: .documents) }),
                ("append", { try store.append(Message(id: 2, text: String(repeating: "b", count: 20_000)), to: "log.json", in: .documents) }),
                ("save folder", { try store.saveFolder([Data(count: 100_000)], to: "album2", in: .documents) }),
                ("append data", { try store.appendToFolder(Data(count: 100_000), to: "album", in: .documents) }),
                ("checked", { try store.save(Data(count: 8192), to: "new.bin", in: .documents, options: WriteOptions(spaceRequirement: .important)) }),
            ] as [(String, () throws -> Void)] {
                let error = expectStowageError(.noSpace, attempt)
                #expect(error?.path != nil, "\(name)")
            }
            #expect(try store.retrieve(Data.self, from: "keep.bin", in: .documents) == old)
            #expect(try store.retrieve(Data.self, from: "log.json", in: .documents) == arrayBefore)
            #expect(try store.retrieveFolder(from: "album", in: .documents) == [Data("a".utf8)])
            #expect(try !store.exists("album2", in: .documents))
            #expect(folder.leftoverTemporaryItems().isEmpty, "\(folder.leftoverTemporaryItems())")
        }
    }
}
