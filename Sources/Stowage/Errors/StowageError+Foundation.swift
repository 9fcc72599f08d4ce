import Foundation

extension StowageError: LocalizedError {
    /// The same sentence as ``description``, such as
    /// `save 'Caches/feed.json' failed: no space left on device (needed 12 MB, 3 MB available)`.
    ///
    /// This is what `error.localizedDescription` and `(error as NSError).localizedDescription`
    /// return, so an app that shows `localizedDescription` shows the whole sentence rather than
    /// "The operation could not be completed".
    public var errorDescription: String? { description }

    /// Why the operation failed, as a sentence without the operation and path: such as
    /// `No space left on device (needed 12 MB, 3 MB available).`
    ///
    /// `NSError`'s `localizedFailureReason`.
    public var failureReason: String? {
        var text = cause + figures
        if let first = text.first { text.replaceSubrange(...text.startIndex, with: first.uppercased()) }
        return text.hasSuffix(".") ? text : text + "."
    }

    /// What could be done about it, when Stowage knows: such as freeing space, or the option
    /// that replaces an existing folder. `nil` when nothing better than "try again" is known.
    ///
    /// `NSError`'s `localizedRecoverySuggestion`. The suggestions name Stowage's API where that is
    /// the remedy; they are written for the developer and the log rather than for an end user.
    public var recoverySuggestion: String? {
        switch code {
        case .noSpace:
            return "Free space on the volume: remove files you can re-create, or let Stowage evict caches "
                + "with Container.relieve(toAvailableBytes:); check VolumeCapacity before large writes."
        case .notFound:
            return "Check the location and the path, which are case-sensitive; treat a missing item as "
                + "nothing saved yet, or test first with Store.exists(_:in:)."
        case .alreadyExists:
            if operation == .save {
                return "Save with WriteOptions(replacesExistingFolder: true) to replace the folder, "
                    + "or remove it first."
            }
            return "Remove the item at the destination first, or choose another name."
        case .invalidPath:
            return "Give a path relative to the location, such as \"Folder/file.json\": not empty, not "
                + "absolute, without '..' or '.', without a NUL byte, each name at most 255 bytes, no name "
                + "starting with '.stowage-', and no symbolic link on the way."
        case .permissionDenied:
            return "Check that the app owns the folder and may write to it, and that the volume is not "
                + "mounted read-only."
        case .decodingFailed:
            return "The file holds something else than the requested type: read it with the type that "
                + "saved it, or remove it and save it again."
        case .unsupported:
            return "Keep the container on a file system with extended attributes (ext4, XFS, Btrfs, APFS)."
        case .wrongKind:
            return "Remove or rename the item that is in the way, or use a path that names the expected kind "
                + "of item."
        default:
            return nil
        }
    }
}

extension StowageError: CustomNSError {
    /// The domain of Stowage's errors bridged to `NSError`: `"Stowage"`.
    public static let errorDomain = "Stowage"

    /// The stable number of the error's ``code`` (``Code/errorCode``), used as the `NSError` code.
    public var errorCode: Int { code.errorCode }

    /// The user info of the bridged `NSError`:
    /// - `NSLocalizedDescriptionKey`: ``description``;
    /// - `NSLocalizedFailureReasonErrorKey`: ``failureReason``;
    /// - `NSLocalizedRecoverySuggestionErrorKey`: ``recoverySuggestion``, when there is one;
    /// - `NSFilePathErrorKey`: ``displayPath``, such as `Caches/feed.json` (relative to the
    ///   container for a location path, absolute otherwise), when the error concerns a path;
    /// - `NSUnderlyingErrorKey`: the ``underlying`` error, or else an `NSPOSIXErrorDomain` error
    ///   with the ``errno``, when there is one.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: description]
        info[NSLocalizedFailureReasonErrorKey] = failureReason
        if let recoverySuggestion { info[NSLocalizedRecoverySuggestionErrorKey] = recoverySuggestion }
        if let displayPath { info[NSFilePathErrorKey] = displayPath }
        if let underlying {
            info[NSUnderlyingErrorKey] = underlying as NSError
        } else if let errno {
            info[NSUnderlyingErrorKey] = NSError(domain: NSPOSIXErrorDomain, code: Int(errno.rawValue))
        }
        return info
    }
}
