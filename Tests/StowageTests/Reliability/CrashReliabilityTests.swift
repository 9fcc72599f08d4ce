import Foundation
import Testing
@testable import Stowage

/// Kills a writer with SIGKILL at random moments, hundreds of times, and checks after every kill
/// what a crash may leave: the old file or the new one, never a torn one.
@Suite("Reliability: SIGKILL at random moments")
struct CrashReliabilityTests {
    static let kills = 240
    /// Each kill comes this long (uniformly at random) after the child said it was writing.
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

    @Test("a writer killed 240 times leaves every file whole, arrays prefix-complete, renamed files under one name")
    func killedWriter() throws {
        let folder = TestFolder("crash")
        let root = folder.path + "/container"
        let helper = try builtProduct("stowage-test-helper")
        let store = folder.store()
        var progress = Progress()
        for kill in 0..<Self.kills {
            try runAndKill(helper, root: root, delay: Double.random(in: Self.delays))
            let journals = folder.leftoverTemporaryItems(in: "container/Documents", prefixes: [".stowage-append-"])
            if !journals.isEmpty { progress.killsDuringAppend += 1 }
            let temporary = Set(folder.leftoverTemporaryItems(in: "container/Documents", prefixes: [TemporaryItem.prefix]))
            if !temporary.isSubset(of: progress.temporaryFiles) { progress.killsLeavingTemporaryFiles += 1 }
            progress.temporaryFiles = temporary
            // Every other time the parent settles an interrupted append by reading; otherwise the
            // next child's append does.
            try check(folder, store, &progress, settle: journals.isEmpty || kill % 2 == 0, label: "after kill \(kill)")
        }
        try check(folder, store, &progress, settle: true, label: "at the end")
        #expect(folder.leftoverTemporaryItems(prefixes: [".stowage-append-"]).isEmpty, "reads settled every journal")

        // Leftover temporary files are reclaimed by a sweep once older than the grace period
        // (SweepPolicy.leftoverGracePeriod, an hour): younger ones may be writes in progress.
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
        print("crash consistency: \(Self.kills) SIGKILLs survived; \(progress.killsDuringAppend) landed during an append "
            + "(journal left), \(progress.killsLeavingTemporaryFiles) left temporary files, \(leftovers.count) leftovers "
            + "reclaimed by one sweep; reached value generation \(progress.generation), \(progress.sequence) appended "
            + "numbers, \(progress.frames) appended files")
        #expect(progress.killsLeavingTemporaryFiles > 0 && progress.killsDuringAppend > 0,
                "kills landed in the middle of writes")
    }

    /// Starts the crash loop, waits until it says it is writing, lets it write for `delay`
    /// seconds and kills it with SIGKILL.
    func runAndKill(_ helper: URL, root: String, delay: Double) throws {
        let process = Process()
        process.executableURL = helper
        process.arguments = ["crash-loop", root]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let ready = output.fileHandleForReading.availableData  // blocks until "ready" or the end
        if ready.isEmpty {
            process.waitUntilExit()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            Issue.record("the crash loop ended by itself (\(process.terminationStatus)): \(message)")
            return
        }
        usleep(useconds_t(delay * 1_000_000))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        if process.terminationReason != .uncaughtSignal || process.terminationStatus != SIGKILL {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            Issue.record("the crash loop ended by itself (\(process.terminationStatus)): \(message)")
        }
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
            let frames = try store.retrieve([Data].self, from: CrashWorkload.frames, in: .documents)
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
