import Foundation
import Testing
@testable import Stowage

/// The rule for `F_SETPROTECTIONCLASS` on iOS-family builds: a volume without the class (the
/// Simulator's and Mac Catalyst's on a Mac, class D on Apple silicon) leaves the file in the
/// volume's protection; any other failure fails the write. Driven with `errno` values.
@Suite("Sys.setProtectionClass")
struct DataProtectionTests {
    /// Sets `level` with a call that fails with `code`; the error thrown, if any.
    func set(_ level: Int, failingWith code: Int32) -> SystemCallError? {
        do {
            try Sys.setProtectionClass(level) { errno = code; return -1 }
            return nil
        } catch {
            return error as? SystemCallError
        }
    }

    @Test("ENOTSUP (a volume without data protection) leaves the class unset at every level",
          arguments: [1, 2, 3, 4])
    func volumeWithoutClasses(level: Int) {
        #expect(set(level, failingWith: ENOTSUP) == nil)
    }

    @Test("EINVAL is a refused class D only: for classes A to C it fails the write")
    func classD() {
        #expect(set(Sys.noProtectionClass, failingWith: EINVAL) == nil)
        for level in 1...3 {
            #expect(set(level, failingWith: EINVAL) == SystemCallError(errno: .invalidArgument, call: "fcntl(F_SETPROTECTIONCLASS)"))
        }
    }

    @Test("EPERM (the class's key is not available: the device is locked), EBADF and EIO fail the write",
          arguments: [EPERM, EBADF, EIO, EROFS])
    func otherFailures(code: Int32) {
        #expect(set(1, failingWith: code) == SystemCallError(errno: Errno(rawValue: code), call: "fcntl(F_SETPROTECTIONCLASS)"))
    }

    @Test("class D is FileProtection.none's level")
    func levels() {
        #expect(FileProtection.none.level == Sys.noProtectionClass)
        #expect(FileProtection.complete.level == 1)
    }
}
