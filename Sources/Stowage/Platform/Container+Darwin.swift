#if canImport(Darwin)
import Darwin
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
        var documents = try folder(.documentDirectory)
        var support = try folder(.applicationSupportDirectory)
        var caches = try folder(.cachesDirectory)
        var preferences = library.appending(path: "Preferences", directoryHint: .isDirectory)
        var temporary = files.temporaryDirectory
        #if os(macOS)
        // Outside the App Sandbox these folders are the user's and every app's: keep to our own.
        documents = documents.appending(path: appIdentifier, directoryHint: .isDirectory)
        support = support.appending(path: appIdentifier, directoryHint: .isDirectory)
        caches = caches.appending(path: appIdentifier, directoryHint: .isDirectory)
        preferences = preferences.appending(path: appIdentifier, directoryHint: .isDirectory)
        temporary = temporary.appending(path: appIdentifier, directoryHint: .isDirectory)
        #endif
        return Container(
            kind: .appleSandbox, root: nil, appIdentifier: appIdentifier,
            documents: documents, applicationSupport: support, caches: caches,
            preferences: preferences, temporary: temporary,
            sharedContainers: nil, ownershipCheckedLocations: []
        )
    }

    static func platformSharedContainer(group: String) throws -> URL {
        guard let url = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) else {
            throw StowageError(.notFound, operation: .locate, location: .sharedContainer(group),
                               reason: "the app is not entitled to the app group '\(group)'")
        }
        return url
    }

    static func homeFromPasswordDatabase() -> String? {
        NSHomeDirectory()
    }
}
#endif
