import Foundation
import Stowage

/// The full-screen browser of `stowage usage --interactive` and `stowage locations
/// --interactive`: a scan in the background with its progress, then the tree, to walk, sort,
/// delete from (through the removal walk) and rescan; also of a saved scan (`--import`, where
/// nothing is deleted or scanned) and of what changed since one (`--compare`, the "changed
/// since" mode: a tree of changes, deleting only from a folder scanned now).
///
/// It runs on a thread of its own (``run()`` blocks), waiting for whatever comes first of a key,
/// the scan's progress or end, and a signal (the scan and the signal trap wake it through a
/// pipe, so that nothing waits for a timer), then drawing what changed; the signals that end a
/// command (SIGINT, SIGTERM, SIGHUP) end it the same way `q` does, the terminal given back
/// first; SIGWINCH redraws at the new size.
final class Browser {
    /// How the browser ended: `q` (0), or a signal (128 + its number, as a shell reports it).
    enum Ending: Equatable {
        case quit
        case signal(Signal)
        case terminalGone

        var status: Int32 {
            switch self {
            case .quit: 0
            case .signal(let signal): 128 + signal.rawValue
            case .terminalGone: 128 + Signal.hangUp.rawValue
            }
        }
    }

    private enum Mode {
        /// A scan runs: of everything (`rescanning` nil) or of one folder.
        case scanning(BrowserScan, subject: String, rescanning: Int?)
        case browsing
        case help
        /// `d` asked `question` about `node`; `y` deletes.
        case confirming(node: Int, question: String)
    }

    /// What is browsed (its reports let go of once the tree holds them).
    private var source: BrowserSource
    private let units: ByteCountStyle
    private let terminal: BrowserTerminal
    /// Wakes the loop: the scan's progress and end, and the signals caught.
    private let wakeUp: WakeUpPipe
    private let style: BrowserStyle
    private var tree: BrowserTree?
    private var mode: Mode
    private var folder = 0
    private var order = BrowserOrder()
    private var rows: [Int] = []
    private var selected = 0
    private var offset = 0
    private var status: String?
    /// Across a new comparison (after `d` or `r` in the "changed since" mode): the folder to
    /// show again (its path) and what the status line is to say.
    private var reopening: (path: [UInt8], status: String?)?
    /// Signals caught (guarded by `signalLock`): the first that ends, and whether the size changed.
    private let signalLock = NSLock()
    private nonisolated(unsafe) var endingSignal: Signal?
    private nonisolated(unsafe) var resized = false

    /// A browser of `source` on the terminal, woken through `wakeUp`.
    init(source: BrowserSource, units: ByteCountStyle, style: BrowserStyle, wakeUp: WakeUpPipe) throws {
        self.source = source
        self.units = units
        self.style = style
        self.wakeUp = wakeUp
        terminal = try BrowserTerminal()
        mode = source.content.isLive ? .scanning(Self.scanOfAll(source, wakingUp: wakeUp), subject: Self.subject(of: source), rescanning: nil) : .browsing
        if case .changes = source.content { order.key = .change }
        guard !source.content.isLive else { return }
        // Saved scans: the tree at once, and the reports let go of.
        if let report = self.source.report {
            self.source.report = nil
            show(report)
        } else {
            tree = BrowserTree(report: nil, topName: source.topName)
        }
        self.source.earlier = nil
    }

    /// A scan of all of `source`'s roots: into a report to compare in the "changed since" mode,
    /// into the tree of names otherwise; `wakeUp` woken as it progresses and when it ends.
    private static func scanOfAll(_ source: BrowserSource, wakingUp wakeUp: WakeUpPipe) -> BrowserScan {
        BrowserScan(source.roots, options: source.options, comparing: source.earlier != nil, wakingUp: wakeUp)
    }

    /// What the progress screen says is scanned.
    private static func subject(of source: BrowserSource) -> String {
        let roots = source.roots.count == 1 ? DisplayPath.of(source.roots[0]) : source.topName ?? "\(source.roots.count) paths"
        guard case .changes(let since, _, _) = source.content else { return roots }
        return roots + ", to compare with " + DisplayPath.escaped(since)
    }

    /// The title bar's words before the folder's path: the command, or what the figures are
    /// (a saved scan and when it was taken, the changes since one).
    private var heading: String {
        func time(_ date: Date) -> String { BrowserScreen.time(date.timeIntervalSince1970) + " UTC" }
        switch source.content {
        case .disk: return source.title
        case .savedScan(let takenAt): return "saved scan" + (takenAt.map { " taken " + time($0) } ?? "")
        case .changes(let since, let takenAt, _): return "changes since " + (takenAt.map(time) ?? DisplayPath.escaped(since))
        }
    }

    /// Runs until `q`, a signal that ends, or the terminal going away; gives the terminal back.
    func run() -> Ending {
        let trap = try? SignalTrap(signals: [Signal.interrupt, .terminate, .hangUp, .windowSizeChanged]) { [self] signal in
            signalLock.withLock {
                if signal == .windowSizeChanged { resized = true } else if endingSignal == nil { endingSignal = signal }
            }
            wakeUp.wakeUp()
        }
        let ending = loop()
        if case .scanning(let scan, _, _) = mode { scan.cancel() }
        terminal.restore()
        trap?.cancel()
        return ending
    }

    private func loop() -> Ending {
        while true {
            let (signal, sizeChanged) = signalLock.withLock { () -> (Signal?, Bool) in
                defer { resized = false }
                return (endingSignal, resized)
            }
            if let signal { return .signal(signal) }
            if sizeChanged { terminal.invalidate() }
            collectScan()
            terminal.draw(screen())
            let bytes: [UInt8]
            do {
                bytes = try terminal.read(orWakeUp: wakeUp, timeout: nil)
            } catch {
                return .terminalGone
            }
            for key in BrowserKey.decode(bytes) {
                if handle(key) { return .quit }
            }
        }
    }

    // MARK: Scans

    /// Takes what a finished scan found into the tree.
    private func collectScan() {
        guard case .scanning(let scan, _, let rescanning) = mode, let result = scan.take() else { return }
        mode = .browsing
        switch result {
        case .failure(let error):
            status = "The scan failed: \(DisplayPath.escaped(String(describing: error)))"
            if tree == nil { tree = BrowserTree(report: nil, topName: source.topName) }
        case .success(.names(let scanned)):
            if let rescanning, var updated = tree, scanned.rootCount == 1 {
                updated.replace(rescanning, with: scanned)
                tree = updated
                status = Self.problems(scanned.report) ?? "Scanned again: \(ByteCount(order.size(updated[rescanning])).formatted(units))"
                arrange(keeping: rows.indices.contains(selected) ? rows[selected] : nil)
            } else {
                show(BrowserTree(scanned: scanned, topName: source.topName, notes: source.notes), problems: Self.problems(scanned.report))
            }
        case .success(.report(let report)):
            show(report)
        }
    }

    /// What the status line says of a scan's issues (`nil` when there is none).
    private static func problems(_ report: UsageReport) -> String? {
        report.issues.isEmpty ? nil : "\(Noun("folder").counted(report.issues.count)) could not be read: "
            + DisplayPath.escaped(bytes: report.issues[0].pathBytes) + ": " + report.issues[0].message
    }

    /// Takes `report` (a saved scan, or a scan to compare) into the tree: as the whole tree, or
    /// as the changes since ``BrowserSource/earlier`` in the "changed since" mode.
    private func show(_ report: UsageReport) {
        show(source.earlier.map { BrowserTree(changes: report.difference(from: $0).roots) }
                 ?? BrowserTree(report: report, topName: source.topName, notes: source.notes),
             problems: Self.problems(report))
    }

    /// Shows `shown`, a new tree, the status line saying `problems`.
    private func show(_ shown: BrowserTree, problems: String?) {
        folder = reopening.flatMap { shown.node(atPath: $0.path) } ?? shown.top
        status = reopening?.status ?? problems
        reopening = nil
        tree = shown
        arrange(keeping: nil)  // a new tree: the rows' nodes are its own
    }

    /// Scans the folder shown again (the nearest folder above it whose path is text, when its
    /// own is not: the scanner takes paths as text), or everything at the top of several roots;
    /// in the "changed since" mode, scans everything again and compares again, coming back to
    /// the folder shown, the status line then saying `outcome`.
    private func rescan(saying outcome: String? = nil) {
        guard let tree else { return }
        if tree.isComparison {
            reopening = (tree.path(of: folder), outcome)
            mode = .scanning(Self.scanOfAll(source, wakingUp: wakeUp), subject: Self.subject(of: source), rescanning: nil)
            self.tree = nil
            return
        }
        var target = folder
        while tree.isOnDisk(target), !RawPathText.isUTF8(tree.path(of: target)), let parent = tree[target].parent { target = parent }
        guard tree.isOnDisk(target) else {
            mode = .scanning(Self.scanOfAll(source, wakingUp: wakeUp), subject: source.topName ?? "\(source.roots.count) paths", rescanning: nil)
            self.tree = nil
            return
        }
        let path = String(decoding: tree.path(of: target), as: UTF8.self)
        mode = .scanning(BrowserScan([URL(filePath: path, directoryHint: .isDirectory)], options: source.options, wakingUp: wakeUp),
                         subject: DisplayPath.escaped(path), rescanning: target)
    }

    // MARK: Keys

    /// Acts on `key`; `true` to quit.
    private func handle(_ key: BrowserKey) -> Bool {
        if key == .character("q") || key == .character("\u{3}") {
            if case .confirming = mode {} else { return true }
        }
        switch mode {
        case .scanning:
            return false
        case .help:
            mode = .browsing
            return false
        case .confirming(let node, _):
            mode = .browsing
            if key == .character("y") || key == .character("Y") { delete(node) } else { status = "Nothing deleted." }
            return false
        case .browsing:
            break
        }
        guard let tree else { return false }
        status = nil
        switch key {
        case .up: select(selected - 1)
        case .down: select(selected + 1)
        case .pageUp: select(selected - listRows)
        case .pageDown: select(selected + listRows)
        case .home: select(0)
        case .end: select(rows.count - 1)
        case .open:
            if rows.indices.contains(selected), tree[rows[selected]].isFolder {
                folder = rows[selected]
                selected = 0
                offset = 0
                arrange(keeping: nil)
            }
        case .back:
            if let parent = tree[folder].parent {
                let came = folder
                folder = parent
                arrange(keeping: came)
            }
        case .character("s"): reorder(order.choosing(.size))
        case .character("a"):
            var next = order
            next.showsLogicalSize.toggle()
            reorder(next)
        case .character("c"): reorder(order.choosing(tree.isComparison ? .change : .count))
        case .character("n"): reorder(order.choosing(.name))
        case .character("m") where !tree.isComparison: reorder(order.choosing(.modificationTime))
        case .character("?"): mode = .help
        case .character("r"):
            if let refusal = refusal(of: "scanned again") { status = refusal } else { rescan() }
        case .character("d"):
            if let refusal = refusal(of: "deleted") { status = refusal } else { askToDelete() }
        default: break
        }
        return false
    }

    /// Why nothing on disk is `done` (deleted, scanned again) from this browser: its figures
    /// are a saved scan's, not the disk's; `nil` when they are the disk's.
    private func refusal(of done: String) -> String? {
        switch source.content {
        case .disk: nil
        case .savedScan: "A saved scan: nothing is \(done) (it is not the disk)"
        case .changes(_, _, let live): live ? nil : "Two saved scans: nothing is \(done) (neither is the disk)"
        }
    }

    private var listRows: Int { max(1, terminal.size.rows - 2) }

    private func select(_ position: Int) {
        selected = max(0, min(rows.count - 1, position))
        scrollToSelection()
    }

    private func scrollToSelection() {
        if selected < offset { offset = selected }
        if selected >= offset + listRows { offset = selected - listRows + 1 }
        offset = max(0, min(offset, max(0, rows.count - listRows)))
    }

    private func reorder(_ next: BrowserOrder) {
        order = next
        arrange(keeping: rows.indices.contains(selected) ? rows[selected] : nil)
    }

    /// Sorts the folder's rows, keeping `node` selected when it is one of them.
    private func arrange(keeping node: Int?) {
        guard let tree else { return }
        rows = order.sorted(tree.children(of: folder), in: tree)
        selected = node.flatMap { rows.firstIndex(of: $0) } ?? min(selected, max(0, rows.count - 1))
        scrollToSelection()
    }

    // MARK: Deleting

    private func askToDelete() {
        guard let tree, rows.indices.contains(selected) else { return }
        let node = rows[selected]
        let item = tree[node]
        if tree.change(of: node)?.kind == .removed {
            status = "'\(DisplayPath.escaped(bytes: Array(tree.name(of: node))))' was removed since the old scan: nothing to delete"
            return
        }
        let size = ByteCount(item.allocatedBytes).formatted(units)
        let before: String, after: String
        if let location = location(of: node) {
            before = "Clear \(location.displayName)\(location.policy.isBackedUp ? ", backed-up user data," : "") '"
            after = "' (\(Noun.file.counted(item.fileCount)), \(size); pinned items stay)? [y/N]"
        } else if item.isFolder {
            before = "Delete folder '"
            after = "' (\(Noun.file.counted(item.fileCount)), \(size); pinned items stay)? [y/N]"
        } else {
            before = "Delete '"
            after = "', \(size)? [y/N]"
        }
        // The name gives way (cut, ending in ~) so that the question and its [y/N] always show.
        let name = DisplayPath.escaped(bytes: item.isRoot ? tree.path(of: node) : Array(tree.name(of: node)))
        let room = terminal.size.columns - 2 - before.unicodeScalars.count - after.unicodeScalars.count
        let question = before + fit(name, max(8, room)) + after
        mode = .confirming(node: node, question: question)
    }

    /// The location whose folder `node` is, in a container's browser.
    private func location(of node: Int) -> Location? {
        guard let tree, tree[node].isRoot, source.store != nil,
              let index = tree.children(of: tree.top).firstIndex(of: node), index < source.locations.count else { return nil }
        return source.locations[index]
    }

    /// Deletes `node` through the removal walk: a location is cleared as `stowage clear` clears
    /// it, anything else removed by `Sweeper.removeItem(atPath:)`; the figures of the folders
    /// above follow what the report says went.
    private func delete(_ node: Int) {
        guard var tree else { return }
        let name = DisplayPath.escaped(bytes: tree[node].isRoot ? tree.path(of: node) : Array(tree.name(of: node)))
        do {
            let report: SweepReport
            let gone: Bool
            if let location = location(of: node), let store = source.store {
                report = try store.clear(location)
                _ = tree.apply(report, below: node)
                gone = false
            } else {
                guard let parent = tree[node].parent, tree.isOnDisk(node) else { return }
                report = try Sweeper.removeItem(atPath: tree.path(of: node))
                if tree.isComparison {
                    // The changes are figures of two scans: they are made again, exactly, from a new scan.
                    let whole = report.removed.contains { $0.pathBytes[...] == tree.name(of: node) }
                        || report.removedFolders.contains(String(decoding: tree.name(of: node), as: UTF8.self))
                    rescan(saying: Self.outcome(of: report, name: name, gone: whole, units: units))
                    return
                }
                gone = tree.apply(report, below: parent).contains(node)
            }
            self.tree = tree
            status = Self.outcome(of: report, name: name, gone: gone, units: units)
            arrange(keeping: gone ? nil : node)
        } catch let error as StowageError where error.reason != nil && error.underlying == nil && error.errno == nil {
            // The cause first, and the item by its name: a status line is one row, and a long
            // path would push the cause off it.
            status = "Refused: \(name): \(DisplayPath.escaped(error.reason!))"
        } catch let error as StowageError {
            status = "Refused: \(DisplayPath.escaped(error))"
        } catch {
            status = "Refused: \(DisplayPath.escaped(String(describing: error)))"
        }
    }

    /// The status line after a removal: what went, what stayed and why.
    static func outcome(of report: SweepReport, name: String, gone: Bool, units: ByteCountStyle) -> String {
        let freed = ByteCount(report.freedAllocatedBytes).formatted(units)
        var parts: [String] = []
        if report.removed.isEmpty && report.removedFolders.isEmpty {
            parts.append("Nothing removed from \(name)")
        } else {
            parts.append((gone ? "Deleted \(name): " : "From \(name): removed ") + "\(Noun.file.counted(report.removed.count)), \(freed) freed")
        }
        if report.pinnedItemCount > 0 { parts.append("kept \(report.pinnedItemCount) pinned") }
        if let issue = report.issues.first {
            parts.append("\(report.issues.count) not removed (\(DisplayPath.escaped(bytes: issue.pathBytes)): \(issue.message))")
        }
        return parts.joined(separator: "; ")
    }

    // MARK: Drawing

    private func screen() -> [String] {
        let (columns, rows) = terminal.size
        let screen = BrowserScreen(columns: columns, rows: rows, style: style, units: units)
        switch mode {
        case .scanning(let scan, let subject, _):
            let (entries, bytes) = scan.progress
            return screen.progress(scanning: subject, entries: entries, bytes: bytes, title: source.title)
        case .help:
            return screen.help(title: source.title, content: source.content)
        case .browsing, .confirming:
            guard let tree else { return screen.help(title: source.title, content: source.content) }
            var question: String?
            if case .confirming(_, let text) = mode { question = text }
            return screen.folder(tree, folder, rows: self.rows, selected: selected, offset: offset, order: order,
                                 status: question ?? status, title: heading)
        }
    }
}

/// Whether bytes are UTF-8 (a path the scanner can take as text).
enum RawPathText {
    static func isUTF8(_ bytes: [UInt8]) -> Bool {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .error: return false
            case .emptyInput: return true
            }
        }
    }
}
