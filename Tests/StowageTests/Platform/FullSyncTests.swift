import Foundation
import Testing
@testable import Stowage

/// The rule behind durable writes on Apple platforms: `F_FULLFSYNC`, and a plain `fsync` only
/// where the file system refuses the call. Driven here with the `errno` values a refusing or a
/// failing file system gives.
@Suite("Sys.syncFully")
struct FullSyncTests {
    /// Runs `syncFully` with a full sync that fails once with `code` (or succeeds, for `nil`),
    /// counting the calls of each kind; the error it throws, if any.
    func run(failingWith code: Int32?) -> (fullSyncs: Int, fallbacks: Int, error: SystemCallError?) {
        var fullSyncs = 0
        var fallbacks = 0
        do {
            try Sys.syncFully({
                fullSyncs += 1
                guard let code, fullSyncs == 1 else { return 0 }
                errno = code
                return -1
            }, orElse: { fallbacks += 1 })
            return (fullSyncs, fallbacks, nil)
        } catch {
            return (fullSyncs, fallbacks, error as? SystemCallError)
        }
    }

    @Test("a file system that refuses F_FULLFSYNC (ENOTTY, ENOTSUP, EINVAL) gets the plain fsync",
          arguments: [ENOTTY, ENOTSUP, EINVAL])
    func refusedFallsBack(code: Int32) {
        let result = run(failingWith: code)
        #expect(result.fullSyncs == 1)
        #expect(result.fallbacks == 1)
        #expect(result.error == nil)
    }

    @Test("an I/O error (or any other failure) of F_FULLFSYNC is thrown, never hidden behind a plain fsync",
          arguments: [EIO, ENOSPC, EROFS, EBADF])
    func failureThrown(code: Int32) {
        let result = run(failingWith: code)
        #expect(result.fallbacks == 0)
        #expect(result.error == SystemCallError(errno: Errno(rawValue: code), call: "fcntl(F_FULLFSYNC)"))
    }

    @Test("success needs no fallback; EINTR is retried")
    func successAndInterruption() {
        let success = run(failingWith: nil)
        #expect(success.fullSyncs == 1)
        #expect(success.fallbacks == 0)
        #expect(success.error == nil)
        let interrupted = run(failingWith: EINTR)
        #expect(interrupted.fullSyncs == 2)
        #expect(interrupted.fallbacks == 0)
        #expect(interrupted.error == nil)
    }

    @Test("the fallback's own failure is thrown")
    func fallbackFailure() {
        #expect(throws: SystemCallError(errno: .ioError, call: "fsync")) {
            try Sys.syncFully({ errno = ENOTSUP; return -1 },
                              orElse: { throw SystemCallError(errno: .ioError, call: "fsync") })
        }
    }
}
