#if canImport(Darwin)
import Foundation

extension Container {
    static func platformDefault(appIdentifier: String, environment: [String: String]) throws -> Container {
        let files = FileManager.default
        func folder(_ directory: FileManager.SearchPathDirectory) throws -> URL {
            guard let url = files.urls(for: directory, in: .userDomainMask).first else {
                throw StowageError(.notFound, operation: .locate, reason: "the system has no \(directory) folder")
            }
            return url
        }
        let library = try folder(.libraryDirectory)
        #if os(macOS) || targetEnvironment(macCatalyst)
        // Outside the App Sandbox (Mac Catalyst apps too can be outside it) these folders are the
        // user's and every app's, and ~/Documents is guarded by a privacy prompt: the app's own
        // folders, as `macLayout` says. iPad apps on a Mac always run in the sandbox.
        return macLayout(appIdentifier: appIdentifier, applicationSupport: try folder(.applicationSupportDirectory),
                         caches: try folder(.cachesDirectory), library: library, temporary: files.temporaryDirectory)
        #else
        return Container(
            kind: .appleSandbox, root: nil, appIdentifier: appIdentifier,
            documents: try folder(.documentDirectory), applicationSupport: try folder(.applicationSupportDirectory),
            caches: try folder(.cachesDirectory), preferences: library.appending(path: "Preferences", directoryHint: .isDirectory),
            temporary: files.temporaryDirectory, sharedContainers: nil, ownershipCheckedLocations: []
        )
        #endif
    }

    static func platformSharedContainer(group: String) throws -> URL {
        guard let url = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) else {
            throw StowageError(.notFound, operation: .locate, location: .sharedContainer(group),
                               reason: "the app is not entitled to the app group '\(group)'")
        }
        return url
    }
}
#endif
