import Foundation

extension Container {
    /// The default container of an app on macOS and in Mac Catalyst, from the folders `FileManager` gives it (the
    /// user's, or the App Sandbox container's when the app is sandboxed):
    ///
    /// | Location | Folder |
    /// |---|---|
    /// | documents | `~/Library/Application Support/<app>/Documents` |
    /// | applicationSupport | `~/Library/Application Support/<app>/Support` |
    /// | caches | `~/Library/Caches/<app>` |
    /// | preferences | `~/Library/Preferences/<app>` |
    /// | temporary | `$TMPDIR/<app>` |
    ///
    /// Every folder is the app's own, since an app outside the App Sandbox shares the system's
    /// folders with the user and every other app. **Documents is not `~/Documents`**: macOS asks
    /// the user before an app reads the Documents folder (Apple: `NSDocumentsFolderUsageDescription`,
    /// macOS 10.15), so a library that kept its files there would put a privacy prompt in front of
    /// the app's first read and fail with `permissionDenied` once the user says no; and Apple's File
    /// System Programming Guide keeps the data an app manages in Application Support, in a folder
    /// named by its bundle identifier, leaving Documents to what the user creates and saves
    /// through the app's own Save panels. Documents and Application Support are side by side in
    /// the app's folder, never one inside the other, so clearing one never touches the other.
    ///
    /// Pure: shared by every platform so that it is tested everywhere; only macOS and Mac Catalyst use it.
    static func macLayout(appIdentifier: String, applicationSupport: URL, caches: URL, library: URL,
                          temporary: URL) -> Container {
        let appData = applicationSupport.appending(path: appIdentifier, directoryHint: .isDirectory)
        return Container(
            kind: .appleSandbox, root: nil, appIdentifier: appIdentifier,
            documents: appData.appending(path: "Documents", directoryHint: .isDirectory),
            applicationSupport: appData.appending(path: "Support", directoryHint: .isDirectory),
            caches: caches.appending(path: appIdentifier, directoryHint: .isDirectory),
            preferences: library.appending(path: "Preferences", directoryHint: .isDirectory)
                .appending(path: appIdentifier, directoryHint: .isDirectory),
            temporary: temporary.appending(path: appIdentifier, directoryHint: .isDirectory),
            sharedContainers: nil, ownershipCheckedLocations: []
        )
    }
}
