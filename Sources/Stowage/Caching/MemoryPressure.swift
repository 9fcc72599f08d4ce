import Dispatch
import Foundation

/// Empties the memory tiers of every ``DiskCache`` when the system says memory is short: on
/// Apple platforms, a Dispatch memory-pressure source (warning and critical), the signal behind
/// `UIApplication.didReceiveMemoryWarningNotification`, made once per process on the first tier.
/// Linux has no such signal for a process; there the tiers keep to their capacity only.
enum MemoryPressure {
    /// `@unchecked Sendable`: `tiers` is read and written only while `lock` is held; `source` is
    /// set once, with `lock` held, and never read after.
    private final class Registry: @unchecked Sendable {
        let lock = NSLock()
        var tiers: [ObjectIdentifier: Weak] = [:]
        var source: AnyObject?
    }

    private struct Weak { weak var tier: MemoryTier? }

    private static let registry = Registry()

    /// Empties `tier` (and every other live tier) when memory runs short.
    static func register(_ tier: MemoryTier) {
        registry.lock.withLock {
            registry.tiers = registry.tiers.filter { $0.value.tier != nil }
            registry.tiers[ObjectIdentifier(tier)] = Weak(tier: tier)
            if registry.source == nil { registry.source = startWatching() }
        }
    }

    /// Empties every live tier now (what the system's warning does), or those `only` selects.
    static func relieve(only: (MemoryTier) -> Bool = { _ in true }) {
        let tiers = registry.lock.withLock { registry.tiers.values.compactMap(\.tier) }
        for tier in tiers where only(tier) { tier.removeAll() }
    }

    private static func startWatching() -> AnyObject? {
        #if canImport(Darwin)
        let source = DispatchSource.makeMemoryPressureSource(eventMask: [.warning, .critical], queue: nil)
        source.setEventHandler { relieve() }
        source.resume()
        return source as AnyObject
        #else
        return nil
        #endif
    }
}
