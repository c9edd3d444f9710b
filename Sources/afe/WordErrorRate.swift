/// Word error rate: how far a recognizer's words are from the expected ones (`afe stream --expected`; the
/// recognizer tests compile this file too, through symlinks in their Support folders).
enum WordErrorRate {
    /// Words of `text`, lower case, without punctuation.
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && $0 != "'" }.map(String.init)
    }

    /// (substitutions + deletions + insertions) / reference words (Levenshtein over words).
    static func of(reference: [String], hypothesis: [String]) -> Double {
        var previous = Array(0...hypothesis.count)
        for (i, word) in reference.enumerated() {
            var current = [i + 1] + [Int](repeating: 0, count: hypothesis.count)
            for (j, guess) in hypothesis.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (word == guess ? 0 : 1))
            }
            previous = current
        }
        return Double(previous[hypothesis.count]) / Double(max(reference.count, 1))
    }
}
