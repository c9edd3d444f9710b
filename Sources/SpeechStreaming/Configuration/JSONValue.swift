import Foundation

/// A JSON value, for protocol parameters this package does not model by name (e.g. `special_word_filter`,
/// or a new server parameter).
public enum JSONValue: Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// Parses JSON text (e.g. NUI's `special_word_filter` string).
    ///
    /// - Throws: ``SpeechStreamingError/Code/invalidConfiguration`` when `text` is not JSON.
    /// Not real-time safe (Foundation).
    public init(parsing text: String) throws {
        guard let data = text.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]),
              let value = JSONValue(foundation: object) else {
            throw SpeechStreamingError(.invalidConfiguration, "not valid JSON: \(text.prefix(80))")
        }
        self = value
    }

    /// The value as Foundation objects for JSONSerialization.
    package var foundationObject: Any {
        switch self {
        case .string(let s): s
        case .int(let i): i
        case .double(let d): d
        case .bool(let b): b
        case .array(let a): a.map(\.foundationObject)
        case .object(let o): o.mapValues(\.foundationObject)
        case .null: NSNull()
        }
    }

    init?(foundation object: Any) {
        switch object {
        case let s as String: self = .string(s)
        case let n as NSNumber:
            switch String(cString: n.objCType) {
            case "c", "B": self = .bool(n.boolValue)
            case "f", "d": self = .double(n.doubleValue)
            default: self = .int(n.intValue)
            }
        case let a as [Any]:
            var values: [JSONValue] = []
            for element in a {
                guard let v = JSONValue(foundation: element) else { return nil }
                values.append(v)
            }
            self = .array(values)
        case let o as [String: Any]:
            var values: [String: JSONValue] = [:]
            for (k, element) in o {
                guard let v = JSONValue(foundation: element) else { return nil }
                values[k] = v
            }
            self = .object(values)
        case is NSNull: self = .null
        default: return nil
        }
    }
}
