import Foundation
import Testing
@testable import Stowage

/// Kills a writer with SIGKILL at every fault point of its writes, and at random moments, and
/// checks after every kill what a crash may leave: the old file or the new one, never a torn one.
@Suite("Reliability: SIGKILL at every step and at random moments")
struct CrashReliabilityTests {
    /// The child kills itself (a fault point, debug builds) the `hit`-th time it reaches each of
    /// these: deterministic kills inside every window of an atomic write and of an append.
    static let faultPoints: [FaultPoint] = [.atomicWriteBeforeRename, .atomicWriteRenamed, .appendJournalWritten,
                                            .appendBytesWritten]
    static let hits = [1, 2, 3, 4, 6, 9]
    /// Then kills at random moments, as extra stress: the seed is printed, and replayed with
    /// `STOWAGE_TEST_SEED`.
    static let randomKills = 120
    /// Each random kill comes this long (uniformly at random) after the child said it was writing.
    static let delays = 0.0 ... 0.02

    /// What the parent knows between kills, to check that nothing goes backwards.
    struct Progress {
        var generation = 0
        var sequence = 0
        var frames = 0
        var killsDuringAppend = 0
        var killsLeavingTemporaryFiles = 0
        var temporaryFiles: Set<String> = []
    }

    @Test("a writer killed at every step of its writes and at random moments leaves every file whole, arrays prefix-complete, renamed files under one name")
    func killedWriter() throws {
        let folder = TestFolder("crash")
        let root = folder.path + "/container"
        let helper = try builtProduct("stowage-test-helper")
        let store = folder.store()
        var progress = Progress()
        var random = SeededRandom(for: "killedWriter")
        var kills: [(label: String, kill: () throws -> Void)] = []
        for point in Self.faultPoints {
            for hit in Self.hits {
                kills.append(("\(point)@\(hit)", { try self.runToFault(helper, root: root, point: point, hit: hit) }))
            }
        }
        for index in 0..<Self.randomKills {
            let delay = Double.random(in: Self.delays, using: &random)
            kills.append(("random kill \(index) after \(Int(delay * 1000)) ms", { try self.runAndKill(helper, root: root, delay: delay) }))
        }
        for (number, (label, kill)) in kills.enumerated() {
            try kill()
            let journals = folder.leftoverTemporaryItems(in: "container/Documents", prefixes: [".stowage-append-"])
            if !journals.isEmpty { progress.killsDuringAppend += 1 }
            let temporary = Set(folder.leftoverTemporaryItems(in: "container/Documents", prefixes: [TemporaryItem.prefix]))
            if !temporary.isSubset(of: progress.temporaryFiles) { progress.killsLeavingTemporaryFiles += 1 }
            progress.temporaryFiles = temporary
            if label.hasPrefix(FaultPoint.appendJournalWritten.name) || label.hasPrefix(FaultPoint.appendBytesWritten.name) {
                #expect(!journals.isEmpty, "\(label): killed inside an append, its journal is left")
            }
            if label.hasPrefix(FaultPoint.atomicWriteBeforeRename.name) {
                #expect(!temporary.isEmpty, "\(label): killed before the rename, its temporary file is left")
            }
            // Every other time the parent settles an interrupted append by reading; otherwise the
            // next child's append does.
            try check(folder, store, &progress, settle: journals.isEmpty || number % 2 == 0, label: "after \(label)")
        }
        try check(folder, store, &progress, settle: true, label: "at the end")
        #expect(folder.leftoverTemporaryItems(prefixes: [".stowage-append-"]).isEmpty, "reads settled every journal")

        // Leftover temporary files are reclaimed by a sweep once older than the grace period
        // (SweepPolicy.leftoverMinimumAge, an hour): younger ones may be writes in progress.
        let leftovers = folder.leftoverTemporaryItems(in: "container/Documents", prefixes: [TemporaryItem.prefix])
        let crashFolder = folder.file("container/Documents/" + CrashWorkload.folder)
        let early = try Sweeper(policy: SweepPolicy()).sweep(crashFolder)
        #expect(early.removed.isEmpty, "nothing is reclaimed within the grace period: \(early.removed.map(\.path))")
        // So the test ages them: modification and access times two hours back, with utimensat.
        let twoHoursAgo = Date().timeIntervalSince1970 - 7200
        for leftover in leftovers {
            let url = folder.file("container/Documents/" + leftover)
            let parent = try OpenFile.openFolder(atPath: url.deletingLastPathComponent().fileSystemPath, followingLinks: false)
            try Sys.setTimes(parent.descriptor, url.lastPathComponent, access: twoHoursAgo, modification: twoHoursAgo)
        }
        let sweep = try Sweeper(policy: SweepPolicy()).sweep(crashFolder)
        #expect(sweep.removed.count == leftovers.count)
        #expect(sweep.removed.allSatisfy { $0.reason == .leftover })
        #expect(sweep.issues.isEmpty, "\(sweep.issues)")
        #expect(folder.leftoverTemporaryItems(prefixes: [TemporaryItem.prefix, ".stowage-append-"]).isEmpty)
        try check(folder, store, &progress, settle: true, label: "after the sweep")
        print("crash consistency: \(kills.count) SIGKILLs survived (\(Self.faultPoints.count * Self.hits.count) at fault points, "
            + "\(Self.randomKills) at random); \(progress.killsDuringAppend) landed during an append "
            + "(journal left), \(progress.killsLeavingTemporaryFiles) left temporary files, \(leftovers.count) leftovers "
            + "reclaimed by one sweep; reached value generation \(progress.generation), \(progress.sequence) appended "
            + "numbers, \(progress.frames) appended files")
    }

    /// Runs the crash loop until it kills itself the `hit`-th time it reaches `point`.
    func runToFault(_ helper: URL, root: String, point: FaultPoint, hit: Int) throws {
        var environment = ProcessInfo.processInfo.environment
        environment["STOWAGE_TEST_FAULTS"] = "\(point)@\(hit)=kill"
        let child = try ChildProcess(helper, ["crash-loop", root], environment: environment)
        let ended = try child.finish(within: .seconds(120))
        #expect(ended.signal == SIGKILL, "the crash loop was to kill itself at \(point)@\(hit); it ended with \(ended.status): \(ended.error)")
    }

    /// Starts the crash loop, waits until it says it is writing, lets it write for `delay`
    /// seconds and kills it with SIGKILL.
    func runAndKill(_ helper: URL, root: String, delay: Double) throws {
        let child = try ChildProcess(helper, ["crash-loop", root])
        _ = try child.read(until: "ready\n", within: .seconds(120))
        usleep(useconds_t(delay * 1_000_000))
        let ended = child.killGroup()
        #expect(ended.signal == SIGKILL, "the crash loop ended by itself (\(ended.status)): \(ended.error)")
    }

    /// What a crash may leave, checked on the raw files and through the store.
    func check(_ folder: TestFolder, _ store: Store, _ progress: inout Progress, settle: Bool, label: String) throws {
        let documents = "container/Documents/"
        // The overwritten value: the raw file always decodes to a generation that was written,
        // never an older one than seen before.
        if folder.exists(documents + CrashWorkload.value) {
            let raw = try Data(contentsOf: folder.file(documents + CrashWorkload.value))
            let value = try? JSONDecoder().decode(CrashWorkload.Versioned.self, from: raw)
            #expect(value.map { $0 == CrashWorkload.Versioned(generation: $0.generation) } == true,
                    "\(label): value.json is torn or never written (\(raw.count) bytes)")
            #expect((value?.generation ?? 0) >= progress.generation, "\(label): value.json went back")
            progress.generation = value?.generation ?? progress.generation
        } else {
            #expect(progress.generation == 0, "\(label): value.json vanished")
        }
        // The appended array: 0, 1, ..., n-1, nothing missing or repeated. Without a journal the
        // raw file is such an array already; with one, the next holder of the lock settles it.
        if folder.exists(documents + CrashWorkload.sequence) {
            let journal = !folder.leftoverTemporaryItems(in: documents + CrashWorkload.folder, prefixes: [".stowage-append-"]).isEmpty
            if !journal {
                let raw = try Data(contentsOf: folder.file(documents + CrashWorkload.sequence))
                let numbers = try? JSONDecoder().decode([Int].self, from: raw)
                #expect(numbers != nil && numbers == numbers.map { Array(0..<$0.count) },
                        "\(label): raw sequence.json is \(raw.count) bytes ending \(String(decoding: raw.suffix(40), as: UTF8.self))")
            }
            if !journal || settle {
                let numbers = try store.retrieve([Int].self, from: CrashWorkload.sequence, in: .documents)
                #expect(numbers == Array(0..<numbers.count), "\(label): sequence is not 0..<\(numbers.count)")
                #expect(numbers.count >= progress.sequence, "\(label): appended numbers were lost")
                progress.sequence = numbers.count
            }
        }
        // The array created by an append: absent, or whole with its one number.
        if folder.exists(documents + CrashWorkload.created) {
            let raw = try Data(contentsOf: folder.file(documents + CrashWorkload.created))
            #expect((try? JSONDecoder().decode([Int].self, from: raw))?.count == 1,
                    "\(label): created.json holds \(String(decoding: raw.prefix(40), as: UTF8.self).debugDescription)")
        }
        // The numbered folder: files 0, 1, ..., each holding its own number.
        if folder.exists(documents + CrashWorkload.frames) {
            let frames = try store.retrieveFolder(from: CrashWorkload.frames, in: .documents)
            #expect(frames == (0..<frames.count).map { Data("\($0)".utf8) }, "\(label): frames \(frames.count)")
            #expect(frames.count >= progress.frames, "\(label): appended files were lost")
            progress.frames = frames.count
        }
        // The renamed file: under exactly one of its names, whole.
        let names = [CrashWorkload.renamed.0, CrashWorkload.renamed.1].filter { folder.exists(documents + $0) }
        if progress.generation > 0 {
            #expect(names.count == 1, "\(label): the renamed file is under \(names)")
            for name in names {
                #expect(try Data(contentsOf: folder.file(documents + name)) == CrashWorkload.renamedContent)
            }
        }
    }
}
