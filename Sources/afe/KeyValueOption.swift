/// `KEY=NUMBER,...` option values (`--echo-gate`, `--barge-in`, `--echo-chain`): each key with its number, and the number rounded
/// to a whole one (-1 when it is not whole-able) for integer settings.
enum KeyValueOption {
    static func pairs(_ text: String, option: String, keys: String) throws -> [(key: String, number: Float, whole: Int)] {
        try text.split(separator: ",").map { item in
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let number = Float(parts[1]), number.isFinite else {
                throw ArgumentReader.Failure(message: "\(option) takes KEY=NUMBER,... (keys: \(keys)), not '\(item)'")
            }
            return (parts[0], number, Int(exactly: number.rounded()) ?? -1)
        }
    }
}

/// `A,B,C[,D,...]` option values (`--noise-onset`, `--vad-edges`, `--vad-voicing`): `required` numbers, then up to
/// `defaults.count` optional ones; the optional fields not given take their `defaults`.
enum NumberListOption {
    /// The numbers, `required + defaults.count` of them; nil when the count is out of range or a field is not a
    /// finite number.
    static func numbers(_ text: String, required: Int, defaults: [Float] = []) -> [Float]? {
        let given = text.split(separator: ",", omittingEmptySubsequences: false).map { Float($0) }
        guard (required...required + defaults.count).contains(given.count) else { return nil }
        var numbers: [Float] = []
        for number in given {
            guard let number, number.isFinite else { return nil }
            numbers.append(number)
        }
        return numbers + defaults[(given.count - required)...]
    }

    /// A number of milliseconds as a whole number, nil when it does not fit.
    static func whole(_ value: Float) -> Int? { Int(exactly: value.rounded()) }
}
