import Foundation
import Testing
@testable import Stowage

/// The snippets of "Capacity and simulated low storage" (CapacityAndSimulation.md). They measure the volume
/// of the test's own folder, and simulate figures for their own task only.
@Suite("Snippets: Capacity")
struct CapacityAndSimulationSnippets {
    static func measure(container: Container) throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet CapacityAndSimulation/measure
        let capacity = try container.capacity(of: .documents)   // the volume holding Documents
        print(capacity.mountPoint ?? "?", capacity.fileSystemType ?? "?")           // / ext4
        print(ByteCount(capacity.availableBytes).formatted(), "of", ByteCount(capacity.totalBytes).formatted())
        print(ByteCount(capacity.reclaimableBytes).formatted(), "more that relief could free")
        // end snippet
        return printed
    }

    static func availableSpace(container: Container, showLowStorageBanner: () -> Void) throws {
        // snippet CapacityAndSimulation/available-space
        let space = try container.availableSpace(of: .caches)   // one statvfs
        if space.availableBytes < 200_000_000 { showLowStorageBanner() }
        // end snippet
    }

    static func mountedVolumes() throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet CapacityAndSimulation/mounted
        for volume in try VolumeCapacity.mountedVolumes().volumes {
            print(volume.mountPoint, volume.kind, ByteCount(volume.capacity.availableBytes).formatted())
        }
        // end snippet
        return printed
    }

    static func units() throws -> (ByteCount, [String]) {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet CapacityAndSimulation/units
        let size = try ByteCount(parsing: "1.5 GiB")                              // 1_610_612_736 bytes
        print(size.formatted(.binary), size.formatted(.decimal))                  // 1.5 GiB 1.6 GB
        print(try ByteCount(parsing: "10%", percentOf: 500_000_000_000))          // 50 GB
        print(ByteCount.formattedRate(bytesPerSecond: 12_500_000))                // 12.5 MB/s
        print(ByteCount.formattedRate(bytesPerSecond: 12_500_000, bits: true))    // 100 Mbit/s
        // end snippet
        return (size, printed)
    }

    static func headroom(container: Container) throws -> [String] {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        // snippet CapacityAndSimulation/simulated-headroom
        try SimulatedCapacity.withFigures(available: 20_000_000) {   // the real disk's total, and headroom
            let capacity = try container.capacity(of: .caches)
            print(capacity.availableBytes, capacity.availableForOpportunisticUsageBytes)   // 20000000 0
        }
        // end snippet
        return printed
    }

    static func simulated(store: Store) throws {
        // snippet CapacityAndSimulation/simulated
        try SimulatedCapacity.withFigures(available: 20_000_000, total: 100_000_000) {
            // A 100 MB volume with 20 MB available: optional data keeps 15 MB free, so 5 MB is left for it.
            let prefetch = Data(count: 6_000_000)
            do {
                try store.save(prefetch, to: "prefetch.bin", in: .caches,
                               options: WriteOptions(spaceRequirement: .opportunistic))
            } catch StowageError.noSpace {
                // 6 MB of optional data does not fit in 5 MB: skip the prefetch
            }
            try store.save(prefetch, to: "download.bin", in: .documents,
                           options: WriteOptions(spaceRequirement: .important))   // fits in 20 MB
        }
        // end snippet
    }

    /// Compiled, not run: an installation simulates figures for the whole process, which would
    /// reach the tests running beside this one.
    static func install(runScenario: () -> Void) {
        // snippet CapacityAndSimulation/install
        let installation = SimulatedCapacity.install(available: 200_000_000, total: 1_000_000_000)
        defer { installation.remove() }
        // end snippet
        runScenario()
    }

    @Test("the measuring examples print the figures of the test folder's volume")
    func measuring() throws {
        let folder = TestFolder("snippet-capacity")
        let container = folder.container()
        let printed = try Self.measure(container: container)
        #expect(printed.count == 3 && printed[1].contains(" of ") && printed[2].hasSuffix("more that relief could free"))
        var banners = 0
        try SimulatedCapacity.withFigures(available: 100_000_000) {
            try Self.availableSpace(container: container) { banners += 1 }
        }
        try SimulatedCapacity.withFigures(available: 300_000_000, total: 1_000_000_000) {
            try Self.availableSpace(container: container) { banners += 1 }
        }
        #expect(banners == 1)
        let volumes = try Self.mountedVolumes()
        #expect(!volumes.isEmpty)
    }

    @Test("sizes parse and print as the comments say")
    func units() throws {
        let (size, printed) = try Self.units()
        #expect(size.bytes == 1_610_612_736)
        #expect(printed == ["1.5 GiB 1.6 GB", "50 GB", "12.5 MB/s", "100 Mbit/s"])
    }

    @Test("without a simulated total, the real volume's headroom leaves nothing for opportunistic writes")
    func headroom() throws {
        let folder = TestFolder("snippet-headroom")
        let container = folder.container()
        let realTotal = try VolumeCapacity.forVolume(containing: folder.url).totalBytes
        let printed = try Self.headroom(container: container)
        let expected = max(0, 20_000_000 - VolumeCapacity.headroom(forTotal: realTotal))
        #expect(printed == ["20000000 \(expected)"])
        if realTotal > 134_000_000 { #expect(expected == 0, "a volume over 134 MB keeps more than 20 MB free") }
    }

    @Test("with a simulated total, optional data that does not fit is refused before writing and important data is written")
    func simulatedTotal() throws {
        let folder = TestFolder("snippet-simulated")
        let store = folder.store()
        try SimulatedCapacity.withFigures(available: 20_000_000, total: 100_000_000) {
            let capacity = try store.container.capacity(of: .caches)
            #expect(capacity.availableForOpportunisticUsageBytes == 5_000_000)
        }
        try Self.simulated(store: store)
        #expect(try !store.exists("prefetch.bin", in: .caches))
        #expect(folder.leftoverTemporaryItems().isEmpty)
        #expect(try store.retrieve(Data.self, from: "download.bin", in: .documents).count == 6_000_000)
    }

    @Test("the README's simulated write throws noSpace: its real volume's headroom leaves no room for optional data")
    func readmeSimulated() throws {
        let folder = TestFolder("snippet-readme-simulated")
        let store = folder.store()
        let realTotal = try VolumeCapacity.forVolume(containing: folder.url).totalBytes
        guard VolumeCapacity.headroom(forTotal: realTotal) >= 50_000_000 else {
            print("readmeSimulated: the test folder's volume (\(realTotal) bytes) keeps less than 50 MB free; nothing to show")
            return
        }
        // The README's block, without its process-wide installation: even one byte is refused.
        SimulatedCapacity.withFigures(available: 50_000_000) {
            expectStowageError(.noSpace) {
                try store.save(Data(count: 1), to: "v.mov", in: .documents,
                               options: WriteOptions(spaceRequirement: .opportunistic))
            }
            return
        }
    }
}
