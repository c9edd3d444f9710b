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
