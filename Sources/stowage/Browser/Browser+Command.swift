import ArgumentParser
import Foundation
import Stowage

/// How `usage --interactive` and `locations --interactive` start the browser.
///
/// `@unchecked Sendable`: a browser is made on the command's task and then used by one thread
/// only, its own (``run()``); the signal trap's handler touches only the fields guarded by its lock.
extension Browser: @unchecked Sendable {
    /// Runs the browser over `source` on a thread of its own and returns the command's exit
    /// status once the terminal is given back: 0 after `q`, 128 + the signal's number after a
    /// signal that ends (SIGINT 130, SIGTERM 143, SIGHUP 129, also when the terminal went away).
    ///
    /// - Throws: ``UsageRefusal`` (status 64) when standard input or output is not a terminal,
    ///   or the terminal cannot place the cursor (`TERM=dumb`): nothing is scanned then.
    static func start(_ source: BrowserSource, units: ByteCountStyle, operation: StowageError.Operation) async throws -> Int32 {
        let environment = ProcessInfo.processInfo.environment
        guard Terminal.standardInputIsTerminal, Terminal.standardOutputIsTerminal, environment["TERM"] != "dumb" else {
            throw UsageRefusal(error: StowageError(.refused, operation: operation, reason:
                "--interactive needs a terminal that can place the cursor on standard input and output; "
                    + "in a script or a pipe, use --json (or the command's text) instead"))
        }
        let wakeUp: WakeUpPipe
        do {
            wakeUp = try WakeUpPipe()
        } catch {
            throw StowageError(.ioFailure, operation: operation, reason: "the pipe that wakes the browser could not be made (\(error))")
        }
        let browser: Browser
        do {
            browser = try Browser(source: source, units: units, style: BrowserStyle(environment: environment), wakeUp: wakeUp)
        } catch {
            throw StowageError(.ioFailure, operation: operation, reason: "the terminal's modes could not be set (\(error))")
        }
        let ending = await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: browser.run()) }
            thread.name = "stowage usage browser"
            thread.start()
        }
        return ending.status
    }

    /// Runs ``start(_:units:operation:)`` for a command: a refusal or an error is reported as
    /// every command reports them (64 for the refusal); a status other than 0 ends the command.
    static func runCommand(_ source: BrowserSource, units: ByteCountStyle, operation: StowageError.Operation,
                           output: OutputOptions) async throws {
        let status: Int32
        do {
            status = try await start(source, units: units, operation: operation)
        } catch let refusal as UsageRefusal {
            output.report(refusal.error)
            throw ExitCode(ExitStatus.usage)
        } catch let error as StowageError {
            output.report(error)
            throw ExitCode(ExitStatus.status(for: error))
        }
        if status != ExitStatus.success { throw ExitCode(status) }
    }
}

extension BrowserSource {
    /// The locations of `container` (and the shared containers of `groups`) whose folders
    /// exist, each a root whose row says whether it is backed up and when the system may purge
    /// it; `d` on one clears it through the container's store, as `stowage clear` does.
    ///
    /// - Throws: as ``Container/folderExists(for:)``.
    static func locations(of container: Container, groups: [String]) throws -> BrowserSource {
        var roots: [URL] = []
        var notes: [String?] = []
        var shown: [Location] = []
        for location in Location.standard + groups.map(Location.sharedContainer) where try container.folderExists(for: location) {
            roots.append(try container.url(for: location))
            let policy = location.policy
            let purge = LocationsView.purgeText(policy.purgePriority.description)
            notes.append("\(location.displayName); \(purge == "never" ? "never purged" : "purged \(purge)")"
                         + (policy.isBackedUp ? "; backed up" : ""))
            shown.append(location)
        }
        var options = UsageOptions()
        options.breakdownDepth = .max
        options.largestFileCount = 0
        return BrowserSource(title: "stowage locations", roots: roots, topName: "the app's locations",
                             notes: notes, locations: shown, store: Store(container: container), options: options)
    }
}
