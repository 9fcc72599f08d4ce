import Foundation
import Stowage

/// What the browser browses: paths given to `stowage usage`, or the locations of an app's
/// container (each a root, its row saying its purge policy; deleting one clears it as `stowage
/// clear` does).
struct BrowserSource {
    /// The title bar's first words: `stowage usage`, `stowage locations`.
    var title: String
    var roots: [URL]
    /// The name of the node that holds the roots (a container's locations), or `nil` for the
    /// root itself when there is one.
    var topName: String?
    /// For each root, what its row says after the name (a location's purge policy).
    var notes: [String?] = []
    /// For each root of a container, its location, and the store that clears it.
    var locations: [Location] = []
    var store: Store?
    var options: UsageOptions
    /// What is browsed: the roots scanned now, a saved scan, or what changed since one.
    var content = BrowserContent.disk
    /// The saved scan browsed (``BrowserContent/savedScan(takenAt:)``), or the newer of two
    /// compared (``BrowserContent/changes(since:takenAt:live:)`` between saved scans).
    var report: UsageReport?
    /// The older saved scan of the "changed since" mode.
    var earlier: UsageReport?
}

/// What the browser shows.
enum BrowserContent {
    /// The roots, scanned now: `d` deletes, `r` scans again.
    case disk
    /// A saved scan (``BrowserSource/report``), taken at `takenAt` when the file says: not the
    /// disk, so nothing is deleted or scanned again.
    case savedScan(takenAt: Date?)
    /// What changed since the saved scan ``BrowserSource/earlier`` (the file `since`, taken at
    /// `takenAt`): to the roots scanned now (`live`), where `d` deletes and `r` compares again, or
    /// to a second saved scan (``BrowserSource/report``), where neither acts.
    case changes(since: String, takenAt: Date?, live: Bool)

    /// Whether the figures are the disk's now (`d` and `r` act).
    var isLive: Bool {
        switch self {
        case .disk: true
        case .savedScan: false
        case .changes(_, _, let live): live
        }
    }
}
