import Testing
@testable import Stowage

@Suite("Location")
struct LocationTests {
    @Test("each location carries Apple's policy")
    func policies() {
        #expect(Location.documents.policy == LocationPolicy(isBackedUp: true, purgePriority: .never, isUserVisible: true))
        #expect(Location.applicationSupport.policy == LocationPolicy(isBackedUp: true, purgePriority: .never, isUserVisible: false))
        #expect(Location.preferences.policy == LocationPolicy(isBackedUp: true, purgePriority: .never, isUserVisible: false))
        #expect(Location.caches.policy == LocationPolicy(isBackedUp: false, purgePriority: .underPressure, isUserVisible: false))
        #expect(Location.temporary.policy == LocationPolicy(isBackedUp: false, purgePriority: .anyTime, isUserVisible: false))
        #expect(Location.sharedContainer("group.x").policy.isBackedUp)
    }

    @Test("purge priorities are ordered: any time, under pressure, never")
    func purgeOrder() {
        #expect(PurgePriority.anyTime < .underPressure)
        #expect(PurgePriority.underPressure < .never)
        #expect([PurgePriority.never, .anyTime, .underPressure].sorted() == [.anyTime, .underPressure, .never])
    }

    @Test("writes are durable by default exactly where data is backed up")
    func durabilityDefaults() {
        #expect(WriteOptions.default.isDurable(in: .documents))
        #expect(WriteOptions.default.isDurable(in: .applicationSupport))
        #expect(WriteOptions.default.isDurable(in: .preferences))
        #expect(!WriteOptions.default.isDurable(in: .caches))
        #expect(!WriteOptions.default.isDurable(in: .temporary))
        #expect(WriteOptions.durable.isDurable(in: .caches))
        #expect(!WriteOptions.atomicOnly.isDurable(in: .documents))
    }

    @Test("identifiers round-trip and common spellings parse")
    func identifiers() {
        for location in Location.standard + [.sharedContainer("group.a")] {
            #expect(Location(identifier: location.identifier) == location)
        }
        #expect(Location(identifier: "tmp") == .temporary)
        #expect(Location(identifier: "Cache") == .caches)
        #expect(Location(identifier: "support") == .applicationSupport)
        #expect(Location(identifier: "desktop") == nil)
        #expect(Location(identifier: "shared:a/b") == nil)
    }
}
