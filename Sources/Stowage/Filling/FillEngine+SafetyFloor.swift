import Foundation

extension FillEngine {
    /// Why the volume keeps the safety floor: it holds `/` or the user's home folder (as `HOME`
    /// and the system name it), or a home folder cannot be examined, so it might be on this
    /// volume; `nil` when neither.
    func systemVolume() throws -> String? {
        let device: UInt64
        do {
            device = try parent.status().device
        } catch let error as SystemCallError {
            throw StowageError(error, operation: .fill, path: parentPath)
        }
        var unknown: String?
        for path in [RawPath("/")] + ProtectedFolders.homeFolders() {
            switch ProtectedFolders.examine(path) {
            case .present(let status) where status.device == device:
                return "this volume holds / or your home folder"
            case .present, .absent:
                continue
            case .unknown(let why):
                unknown = unknown ?? why
            }
        }
        return unknown.map { "could not tell whether this volume holds your home folder (\($0))" }
    }
}
