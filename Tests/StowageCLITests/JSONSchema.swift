import Foundation

/// The JSON Schemas in `Schemas/`, and a validator for the part of JSON Schema (2020-12) they
/// use. A keyword the validator does not know is an error, never ignored, so a schema cannot
/// promise a check that nothing makes.
///
/// Supported: `type` (one or a list), `properties`, `required`, `additionalProperties: false`,
/// `unevaluatedProperties: false` (seeing through `allOf`, `oneOf` and `$ref`), `items`, `enum`,
/// `const`, `minimum`, `allOf`, `oneOf`, `$ref` (`#/$defs/x` within the schema's own file: every
/// schema is self-contained, see `Scripts/bundle-schemas.py`), `format: date-time`; and the
/// annotations `$schema`, `$id`, `$defs`, `title`, `description`.
///
/// Each validation also says which of the schema's declared properties the value had
/// (``Validation/seen``), so that a test can find a key the schema declares and no encoder writes.
struct JSONSchemas {
    /// The definitions several schemas share: the source `Scripts/bundle-schemas.py` copies into
    /// each command's schema, itself the schema of no document.
    static let sharedFile = "definitions.json"

    /// The identifier every schema's `$id` starts with (the reserved `.invalid` domain: nothing
    /// is served there; the schemas are self-contained).
    static let identifierBase = "https://stowage.invalid/schemas/"

    /// The folder of the schema files.
    static let folder = URL(filePath: #filePath).deletingLastPathComponent()
        .appending(path: "../../Schemas", directoryHint: .isDirectory).standardizedFileURL

    private var documents: [String: [String: Any]] = [:]

    /// Loads every `*.json` file of ``folder``.
    init() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path(percentEncoded: false))
        for name in names where name.hasSuffix(".json") {
            let data = try Data(contentsOf: Self.folder.appending(path: name))
            guard let schema = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw SchemaError(path: name, message: "is not a JSON object")
            }
            documents[name] = schema
        }
    }

    /// The file names loaded.
    var fileNames: [String] { documents.keys.sorted() }

    /// The schema document of `file`.
    func document(_ file: String) -> [String: Any]? { documents[file] }

    /// A problem: where in the instance (or schema) and what.
    struct SchemaError: Error, CustomStringConvertible {
        var path: String
        var message: String
        var description: String { "\(path): \(message)" }
    }

    /// The problems of `value` against the schema in `file` (empty when it is valid).
    func validate(_ value: Any, against file: String) -> [SchemaError] {
        validation(of: value, against: file).errors
    }

    /// What a validation found: the problems, and the declared properties the value had.
    struct Validation {
        var errors: [SchemaError] = []
        /// Each declared property the value (or a part of it) had, as `file#pointer` of its
        /// schema: `usage.json#/$defs/usageItemFields/properties/pathBase64`.
        var seen: Set<String> = []
    }

    /// Validates `value` against the schema in `file`.
    func validation(of value: Any, against file: String) -> Validation {
        var result = Validation()
        guard let schema = documents[file] else {
            result.errors.append(SchemaError(path: file, message: "no such schema"))
            return result
        }
        _ = check(value, schema, file: file, pointer: "", at: "$", into: &result)
        return result
    }

    /// Every property the schema in `file` declares for a document (reached from its root
    /// through `properties`, `items`, `allOf`, `oneOf` and `$ref`), as ``Validation/seen`` names them.
    func declaredProperties(of file: String) -> Set<String> {
        var declared: Set<String> = []
        var visited: Set<String> = []
        func visit(_ node: Any, _ pointer: String) {
            guard let schema = node as? [String: Any], visited.insert(pointer).inserted else { return }
            for (name, child) in schema["properties"] as? [String: Any] ?? [:] {
                declared.insert("\(file)#\(pointer)/properties/\(name)")
                visit(child, "\(pointer)/properties/\(name)")
            }
            if let items = schema["items"] { visit(items, pointer + "/items") }
            for keyword in ["allOf", "oneOf"] {
                for (index, part) in (schema[keyword] as? [Any] ?? []).enumerated() { visit(part, "\(pointer)/\(keyword)/\(index)") }
            }
            if let reference = schema["$ref"] as? String, let (target, _, targetPointer) = resolve(reference, from: file) {
                visit(target, targetPointer)
            }
        }
        if let root = documents[file] { visit(root, "") }
        return declared
    }

    /// Validates `value` against `schema` (at `pointer` in `file`), adding problems and the
    /// declared properties seen to `result`; returns the property names the schema evaluated
    /// (for `unevaluatedProperties`).
    private func check(_ value: Any, _ schema: [String: Any], file: String, pointer: String, at path: String,
                       into result: inout Validation) -> Set<String> {
        var evaluated: Set<String> = []
        let known: Set<String> = ["$schema", "$id", "$defs", "title", "description", "type", "properties", "required",
                                  "additionalProperties", "unevaluatedProperties", "items", "enum", "const", "minimum",
                                  "allOf", "oneOf", "$ref", "format"]
        for keyword in schema.keys where !known.contains(keyword) {
            result.errors.append(SchemaError(path: path, message: "unsupported schema keyword \(keyword) in \(file)"))
        }
        if let reference = schema["$ref"] as? String {
            guard let (target, targetFile, targetPointer) = resolve(reference, from: file) else {
                result.errors.append(SchemaError(path: path, message: "unresolvable $ref \(reference) in \(file)"))
                return evaluated
            }
            evaluated.formUnion(check(value, target, file: targetFile, pointer: targetPointer, at: path, into: &result))
        }
        if let type = schema["type"] {
            let types = (type as? [String]) ?? [(type as? String) ?? "?"]
            if !types.contains(where: { Self.value(value, is: $0) }) {
                result.errors.append(SchemaError(path: path, message: "expected \(types.joined(separator: " or ")), found \(Self.describe(value))"))
                return evaluated
            }
        }
        if let choices = schema["enum"] as? [Any], !choices.contains(where: { Self.equal($0, value) }) {
            result.errors.append(SchemaError(path: path, message: "\(Self.describe(value)) is not one of \(choices)"))
        }
        if let constant = schema["const"], !Self.equal(constant, value) {
            result.errors.append(SchemaError(path: path, message: "\(Self.describe(value)) is not \(constant)"))
        }
        if let minimum = (schema["minimum"] as? NSNumber)?.doubleValue, let number = Self.number(value), number < minimum {
            result.errors.append(SchemaError(path: path, message: "\(number) is below the minimum \(minimum)"))
        }
        if let format = schema["format"] as? String {
            if format != "date-time" {
                result.errors.append(SchemaError(path: path, message: "unsupported format \(format) in \(file)"))
            } else if let text = value as? String, ISO8601DateFormatter().date(from: text) == nil {
                result.errors.append(SchemaError(path: path, message: "\(text) is not an ISO 8601 date and time"))
            }
        }
        if let all = schema["allOf"] as? [[String: Any]] {
            for (index, part) in all.enumerated() {
                evaluated.formUnion(check(value, part, file: file, pointer: "\(pointer)/allOf/\(index)", at: path, into: &result))
            }
        }
        if let choices = schema["oneOf"] as? [[String: Any]] {
            var matching: [(names: Set<String>, seen: Set<String>)] = []
            var firstErrors: [[SchemaError]] = []
            for (index, choice) in choices.enumerated() {
                var choiceResult = Validation()
                let names = check(value, choice, file: file, pointer: "\(pointer)/oneOf/\(index)", at: path, into: &choiceResult)
                if choiceResult.errors.isEmpty {
                    matching.append((names, choiceResult.seen))
                } else {
                    firstErrors.append(choiceResult.errors)
                }
            }
            if matching.count == 1 {
                evaluated.formUnion(matching[0].names)
                result.seen.formUnion(matching[0].seen)
            } else if matching.isEmpty {
                let closest = firstErrors.min { $0.count < $1.count } ?? []
                result.errors.append(SchemaError(path: path, message: "matches none of oneOf; closest: \(closest.map(\.description).joined(separator: "; "))"))
            } else {
                result.errors.append(SchemaError(path: path, message: "matches \(matching.count) branches of oneOf"))
            }
        }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            for (name, propertySchema) in properties {
                if let member = object[name] {
                    evaluated.insert(name)
                    result.seen.insert("\(file)#\(pointer)/properties/\(name)")
                    _ = check(member, propertySchema, file: file, pointer: "\(pointer)/properties/\(name)", at: "\(path).\(name)",
                              into: &result)
                }
            }
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                result.errors.append(SchemaError(path: path, message: "missing required \(name)"))
            }
            if let additional = schema["additionalProperties"] as? Bool, !additional {
                for name in object.keys.sorted() where properties[name] == nil {
                    result.errors.append(SchemaError(path: path, message: "unexpected property \(name)"))
                }
            }
            if let unevaluated = schema["unevaluatedProperties"] as? Bool, !unevaluated {
                for name in object.keys.sorted() where !evaluated.contains(name) {
                    result.errors.append(SchemaError(path: path, message: "unexpected property \(name)"))
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, element) in array.enumerated() {
                _ = check(element, items, file: file, pointer: pointer + "/items", at: "\(path)[\(index)]", into: &result)
            }
        }
        return evaluated
    }

    /// The schema a `$ref` names, and the file and pointer it is at: only a reference within
    /// the schema's own file (`#/$defs/x`) resolves, as a plain validator with no registry
    /// resolves it.
    private func resolve(_ reference: String, from file: String) -> ([String: Any], String, String)? {
        guard reference.hasPrefix("#"), var node: Any = documents[file] else { return nil }
        let pointer = String(reference.dropFirst())
        for component in pointer.split(separator: "/") {
            guard let object = node as? [String: Any], let next = object[String(component)] else { return nil }
            node = next
        }
        return (node as? [String: Any]).map { ($0, file, pointer) }
    }

    /// Whether `value` is of the JSON type `type`.
    static func value(_ value: Any, is type: String) -> Bool {
        switch type {
        case "null": return value is NSNull
        case "boolean": return isBoolean(value)
        case "object": return value is [String: Any]
        case "array": return value is [Any]
        case "string": return value is String
        case "number": return number(value) != nil
        case "integer": return number(value).map { $0.rounded() == $0 } ?? false
        default: return false
        }
    }

    /// The number `value` holds, when it is a JSON number (not a boolean).
    static func number(_ value: Any) -> Double? {
        guard !isBoolean(value), let number = value as? NSNumber else { return nil }
        return number.doubleValue
    }

    static func isBoolean(_ value: Any) -> Bool {
        guard let number = value as? NSNumber else { return false }
        return String(cString: number.objCType) == "c" && (value is Bool)
    }

    static func equal(_ a: Any, _ b: Any) -> Bool {
        if let a = a as? String, let b = b as? String { return a == b }
        if isBoolean(a) || isBoolean(b) { return isBoolean(a) && isBoolean(b) && (a as? Bool) == (b as? Bool) }
        if let a = number(a), let b = number(b) { return a == b }
        return a is NSNull && b is NSNull
    }

    static func describe(_ value: Any) -> String {
        if value is NSNull { return "null" }
        if isBoolean(value) { return "boolean \(value)" }
        if let number = number(value) { return "number \(number)" }
        if let text = value as? String { return "string \"\(text)\"" }
        if value is [Any] { return "array" }
        return "object"
    }
}
