extension Errno {
    /// What `fcntl(F_SETPROTECTIONCLASS)` fails with on a volume that has no data-protection
    /// classes: `ENOTSUP`, as Apple's HFS answers for a mount "not formatted for content
    /// protection" (`cp_vnode_setclass`; APFS's source is not published). Such volumes are those
    /// of a Mac that an iOS build can run on: the Simulator's, Mac Catalyst's and an iPad app's on
    /// an Intel Mac, and external volumes.
    package static let protectionClassesUnsupported: [Errno] = [.notSupported]
}

extension Sys {
    /// The level of class D, `FileProtection.none` (`PROTECTION_CLASS_D` in `<sys/fcntl.h>`).
    package static let noProtectionClass = 4

    /// Whether `fcntl(F_SETPROTECTIONCLASS, level)` failing with `errno` means "this volume does
    /// not have that class", so the file keeps the volume's own protection and the write goes on.
    ///
    /// - ``Errno/protectionClassesUnsupported`` for any level: the volume has no classes at all.
    ///   Protection at rest is then the volume's (FileVault on a Mac); the caller's owner-only
    ///   permissions still apply.
    /// - `EINVAL` too for class D (`.none`): Apple silicon Macs, where iOS apps and Mac Catalyst run
    ///   on a volume with classes, do not support class D (Apple Platform Security, "Data
    ///   Protection classes"); the file then has the default class C, more protection than asked,
    ///   never less.
    ///
    /// Anything else (`EPERM`: the class's key is not available now, the device being locked;
    /// `EBADF`; `EROFS`) is a failed write.
    package static func isProtectionClassRefusal(_ errno: Errno, level: Int) -> Bool {
        Errno.protectionClassesUnsupported.contains(errno) || (level == noProtectionClass && errno == .invalidArgument)
    }

    /// Sets a file's data-protection class with `setClass` (`fcntl(F_SETPROTECTIONCLASS)` on Apple
    /// platforms; a call returning -1 and setting `errno` on failure, retried on `EINTR`), leaving
    /// the class unset where ``isProtectionClassRefusal(_:level:)`` says the volume does not have
    /// it. The rule is shared so that it is tested everywhere.
    ///
    /// - Throws: the `SystemCallError` of any other failure.
    package static func setProtectionClass(_ level: Int, _ setClass: () -> Int32) throws {
        do {
            _ = try retrying("fcntl(F_SETPROTECTIONCLASS)", setClass)
        } catch let error as SystemCallError where isProtectionClassRefusal(error.errno, level: level) {
            return  // the volume has no such class: the file keeps the volume's protection (see above)
        }
    }
}
