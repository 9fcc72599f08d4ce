/// The markers of a file that an atomic write passes on to the file that replaces it.
///
/// An atomic write renames a new file over the old one, and the old file's markers (pinned,
/// purgeable, excluded from backup) belong to the old inode: without this, saving a file again
/// would silently unpin it or put it back into backups. Kept: the pinned and purgeable markers
/// (`user.stowage.pinned`, `.purgeable` on Linux, `org.stowage.*` on Apple platforms; not other
/// Stowage attributes, such as a fill file's marker) and exclusion from backup
/// (`user.xdg.robots.backup` on Linux, the `isExcludedFromBackup` resource value on Apple
/// platforms). Other attributes (SELinux labels, quarantine, ACLs) are the new file's own.
struct KeptMarkers {
    private var attributes: [(name: String, value: [UInt8])] = []
    /// Exclusion from backup where it is not an extended attribute (Apple platforms).
    private var excludedFromBackup = false

    /// Whether there is nothing to pass on.
    var isEmpty: Bool { attributes.isEmpty && !excludedFromBackup }

    /// The markers of the entry `name` in `folder`: none when it is absent or not a file, or when
    /// the file system keeps no attributes. Costs one `llistxattr` on Linux, plus one `getxattr`
    /// per marker the file has.
    static func of(entry name: String, in folder: OpenFile) throws -> KeptMarkers {
        var kept = KeptMarkers()
        let markers = Set([Marker.pinned, .purgeable].map(\.attribute))
        do {
            for attribute in try ExtendedAttributes.names(entry: name, inFolder: folder.descriptor)
            where markers.contains(attribute) || BackupMarker.isBackupAttribute(attribute) {
                if let value = try ExtendedAttributes.value(attribute, entry: name, inFolder: folder.descriptor) {
                    kept.attributes.append((attribute, value))
                }
            }
            kept.excludedFromBackup = try BackupMarker.isExcludedOutsideAttributes(entry: name, in: folder)
        } catch Errno.permissionDenied, Errno.notPermitted {
            // Best effort where the old file's attributes may not be read (an unreadable file
            // where they are read by opening it; on iOS, a protected file while the device is
            // locked): the save itself must not fail for it, and the new file gets no markers.
            return KeptMarkers()
        }
        return kept
    }

    /// Sets the markers on `file`, the replacement, before it is renamed into place.
    func apply(to file: OpenFile) throws {
        for (name, value) in attributes { try ExtendedAttributes.set(name, to: value, on: file.descriptor) }
        if excludedFromBackup { try BackupMarker.setExcludedOutsideAttributes(on: file) }
    }
}
