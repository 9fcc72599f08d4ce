import Foundation
import Testing
#if canImport(BackgroundTasks) && !os(macOS)
import BackgroundTasks
#else
/// Stand-ins for the part of Apple's BackgroundTasks framework that "Cleaning caches in a
/// background task" uses, declared as Apple's documentation gives them, so that the article's
/// calls into Stowage are type-checked where the framework is missing (Linux, macOS). Shape
/// only: on iOS, tvOS, Mac Catalyst and visionOS the file compiles against the real framework.
class BGTask {
    var identifier: String { "" }
    var expirationHandler: (() -> Void)?
    func setTaskCompleted(success: Bool) {}
}

final class BGProcessingTask: BGTask {}

class BGTaskRequest {
    let identifier: String
    var earliestBeginDate: Date?
    init(identifier: String) { self.identifier = identifier }
}

final class BGProcessingTaskRequest: BGTaskRequest {
    var requiresNetworkConnectivity = false
    var requiresExternalPower = false
}

final class BGTaskScheduler {
    nonisolated(unsafe) static let shared = BGTaskScheduler()
    @discardableResult
    func register(forTaskWithIdentifier identifier: String, using queue: DispatchQueue?,
                  launchHandler: @escaping (BGTask) -> Void) -> Bool { true }
    func submit(_ taskRequest: BGTaskRequest) throws {}
}
#endif
import Stowage

// The snippet of "Cleaning caches in a background task" (BackgroundCleanup.md): compiled, not
// run (it needs the system's scheduler). The relief it starts is tested in ReliefTests.

// snippet BackgroundCleanup/task
enum StorageCleanup {
    static let identifier = "com.example.App.storage-cleanup"

    /// Call from `application(_:didFinishLaunchingWithOptions:)` (or the App's init).
    static func register(container: Container) {
        BGTaskScheduler.shared.register(forTaskWithIdentifier: identifier, using: nil) { task in
            run(task as! BGProcessingTask, container: container)
        }
    }

    static func schedule() {
        let request = BGProcessingTaskRequest(identifier: identifier)
        request.requiresExternalPower = false
        request.requiresNetworkConnectivity = false
        request.earliestBeginDate = Date(timeIntervalSinceNow: 24 * 60 * 60)
        try? BGTaskScheduler.shared.submit(request)
    }

    static func run(_ task: BGProcessingTask, container: Container) {
        schedule()  // the next one
        let work = Task {
            // Keep 2 GB available: temporary files first, then caches, least recently used first.
            try await container.relieve(toAvailableBytes: 2_000_000_000) { _ in }
        }
        // Our own budget, in case the system gives more time than the cleanup deserves.
        let budget = Task {
            try await Task.sleep(for: .seconds(60))
            work.cancel()
        }
        // The system's: when time is up, stop before the next file.
        task.expirationHandler = { work.cancel() }
        nonisolated(unsafe) let task = task  // completed from the task below, once the work ends
        Task {
            let report = try? await work.value
            budget.cancel()
            // A cancelled relief is not a failure: what it removed stays removed.
            task.setTaskCompleted(success: report.map { $0.isSatisfied || $0.wasCancelled } ?? false)
        }
    }
}
// end snippet
