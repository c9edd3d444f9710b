import Foundation
import SpeechStreaming

/// Reads typed values from one JSON object of NUI parameters and remembers which keys were read, so the keys left
/// over can be reported as unknown.
///
/// Types follow the NUI documentation, leniently where the SDK's own samples disagree with its tables: a number may
/// come as a JSON number or as a string holding one (`"sample_rate": "16000"`), a flag as a JSON boolean or as
/// `"true"`/`"false"`. Anything else is a type error. Not real-time safe (Foundation).
package struct ParameterReader {
    package let object: [String: Any]
    /// The path in front of every key in errors, e.g. `nls_config.`.
    package let prefix: String
    package private(set) var readKeys: Set<String> = []

    package init(_ object: [String: Any], prefix: String = "") {
        self.object = object
        self.prefix = prefix
    }

    /// Parses `text` as a JSON object.
    package static func parse(_ text: UnsafePointer<CChar>?, what: String) throws -> [String: Any] {
        guard let text else { throw NuiParameterError(.NUI_ERR_INVALID_JSON, what, "is null") }
        let string = String(cString: text)
        if string.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return [:] }
        guard let value = try? JSONSerialization.jsonObject(with: Data(string.utf8)),
              let object = value as? [String: Any] else {
            throw NuiParameterError(.NUI_ERR_INVALID_JSON, what, "is not a JSON object")
        }
        return object
    }

    /// Keys present but never read.
    package var unknownKeys: [String] { object.keys.filter { !readKeys.contains($0) }.sorted().map { prefix + $0 } }

    private mutating func value(_ key: String) -> Any? {
        readKeys.insert(key)
        guard let value = object[key], !(value is NSNull) else { return nil }
        return value
    }

    package func typeError(_ key: String, _ expected: String) -> NuiParameterError {
        NuiParameterError(.NUI_ERR_INVALID_PARAMETER_TYPE, prefix + key, "must be \(expected)")
    }

    package func valueError(_ key: String, _ message: String) -> NuiParameterError {
        NuiParameterError(.NUI_ERR_INVALID_PARAMETER_VALUE, prefix + key, message)
    }

    package func missing(_ key: String) -> NuiParameterError {
        NuiParameterError(.NUI_ERR_MISSING_PARAMETER, prefix + key, "is required")
    }

    /// A key that must be present.
    package func required<T>(_ value: T?, _ key: String) throws -> T {
        guard let value else { throw missing(key) }
        return value
    }

    /// A string value. Control characters (CR, LF, tab, NUL, …) are refused in every one: the keys, tokens, URL
    /// and names end up in HTTP header lines and the request URL of the WebSocket upgrade, where a CR/LF would
    /// inject headers (SpeechStreaming's ``ControlCharacters`` check, applied as the parameters are read).
    package mutating func string(_ key: String, nonEmpty: Bool = true) throws -> String? {
        guard let raw = value(key) else { return nil }
        guard let string = raw as? String else { throw typeError(key, "a string") }
        if nonEmpty && string.isEmpty { throw valueError(key, "must not be empty") }
        if ControlCharacters.present(in: string) {
            throw valueError(key, "must not contain control characters (CR, LF, tab, …): it would corrupt the HTTP request")
        }
        return string
    }

    /// A string that must be one of `allowed`.
    package mutating func choice(_ key: String, _ allowed: [String]) throws -> String? {
        guard let string = try string(key, nonEmpty: false) else { return nil }
        guard allowed.contains(string) else {
            throw valueError(key, "must be one of \(allowed.joined(separator: ", ")), not \"\(string)\"")
        }
        return string
    }

    package mutating func flag(_ key: String) throws -> Bool? {
        guard let raw = value(key) else { return nil }
        if let number = raw as? NSNumber, Self.isBoolean(number) { return number.boolValue }
        if let string = raw as? String {
            switch string.lowercased() {
            case "true": return true
            case "false": return false
            default: throw valueError(key, "must be true or false, not \"\(string)\"")
            }
        }
        throw typeError(key, "a boolean (true/false or \"true\"/\"false\")")
    }

    package mutating func int(_ key: String, _ range: ClosedRange<Int>) throws -> Int? {
        guard let raw = value(key) else { return nil }
        let result: Int
        if let number = raw as? NSNumber, !Self.isBoolean(number) {
            guard let exact = Int(exactly: number.doubleValue) else { throw typeError(key, "an integer") }
            result = exact
        } else if let string = raw as? String {
            guard let parsed = Int(string.trimmingCharacters(in: .whitespaces)) else {
                throw typeError(key, "an integer (or a string holding one)")
            }
            result = parsed
        } else {
            throw typeError(key, "an integer")
        }
        guard range.contains(result) else {
            throw valueError(key, "must be in \(range.lowerBound)…\(range.upperBound), not \(result)")
        }
        return result
    }

    package mutating func double(_ key: String, _ range: ClosedRange<Double>) throws -> Double? {
        guard let raw = value(key) else { return nil }
        let result: Double
        if let number = raw as? NSNumber, !Self.isBoolean(number) {
            result = number.doubleValue
        } else if let string = raw as? String, let parsed = Double(string.trimmingCharacters(in: .whitespaces)) {
            result = parsed
        } else {
            throw typeError(key, "a number")
        }
        guard range.contains(result) else {
            throw valueError(key, "must be in \(range.lowerBound)…\(range.upperBound), not \(result)")
        }
        return result
    }

    package mutating func object(_ key: String) throws -> [String: Any]? {
        guard let raw = value(key) else { return nil }
        guard let object = raw as? [String: Any] else { throw typeError(key, "a JSON object") }
        return object
    }

    package mutating func stringArray(_ key: String) throws -> [String]? {
        guard let raw = value(key) else { return nil }
        guard let array = raw as? [Any], let strings = array as? [String] else {
            throw typeError(key, "an array of strings")
        }
        return strings
    }

    /// The raw JSON value, for parameters passed through (e.g. `special_word_filter`).
    package mutating func any(_ key: String) -> Any? { value(key) }

    package static func isBoolean(_ number: NSNumber) -> Bool {
        let type = String(cString: number.objCType)
        return type == "c" || type == "B"
    }
}
