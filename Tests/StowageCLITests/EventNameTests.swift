import Foundation
import Testing
@testable import stowage

/// The names of the `--json-lines` events: one list in the command (`EventName`), the same as the
/// `event` constants of the event streams' schemas.
@Suite("JSON lines: event names")
struct EventNameTests {
    @Test("every event name the command has is an event of a schema, and every event of a schema is one of them")
    func namesAgreeWithTheSchemas() throws {
        var declared: Set<String> = []
        let names = try FileManager.default.contentsOfDirectory(atPath: JSONSchemas.folder.path(percentEncoded: false))
        for name in names where name.hasSuffix("-events.json") {
            let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: JSONSchemas.folder.appending(path: name)))
            declared.formUnion(Self.eventConstants(in: schema))
        }
        #expect(!declared.isEmpty, "the event schemas were read")
        #expect(Set(EventName.all.map(\.rawValue)) == declared)
        #expect(Set(EventName.all).count == EventName.all.count, "no name twice")
    }

    @Test("an event line writes its name under event, beside the payload's keys")
    func lineCarriesTheName() throws {
        struct Payload: Encodable { var availableBytes: Int64 }
        let line = try JSONOutput.line(EventLine(event: .released, date: Date(timeIntervalSince1970: 0),
                                                 payload: Payload(availableBytes: 7)))
        #expect(line == #"{"availableBytes":7,"date":"1970-01-01T00:00:00Z","event":"released"}"#)
    }

    /// The `const` of every `event` property in `schema`, at any depth.
    private static func eventConstants(in schema: Any) -> Set<String> {
        var found: Set<String> = []
        if let object = schema as? [String: Any] {
            if let properties = object["properties"] as? [String: Any],
               let event = properties["event"] as? [String: Any], let name = event["const"] as? String {
                found.insert(name)
            }
            for value in object.values { found.formUnion(eventConstants(in: value)) }
        } else if let array = schema as? [Any] {
            for value in array { found.formUnion(eventConstants(in: value)) }
        }
        return found
    }
}
