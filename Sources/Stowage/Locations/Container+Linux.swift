#if canImport(Glibc) || canImport(Musl)
import Foundation

extension Container {
    static func platformDefault(appIdentifier: String, environment: [String: String]) throws -> Container {
        try xdg(appIdentifier: appIdentifier, environment: environment)
    }

    static func platformSharedContainer(group: String) throws -> URL {
        // Linux containers always have a shared-containers folder; this is never reached.
        throw StowageError(.unsupported, operation: .locate, location: .sharedContainer(group))
    }
}
#endif
