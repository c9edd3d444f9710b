/// What the reference server's deterministic recognizer says (refserver/recognizers.py): one word per
/// started 300 ms of a sentence; word j of sentence i is `words[(3 (i − 1) + j) mod 16]`.
enum Deterministic {
    static let words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
                        "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa"]

    /// The final text of sentence `index` (from 1) spanning [begin, end) ms, with the trailing period.
    static func text(index: Int, beginMilliseconds: Int, endMilliseconds: Int) -> String {
        let count = max(0, endMilliseconds - beginMilliseconds - 1) / 300 + 1
        return (0..<count).map { words[(3 * (index - 1) + $0) % 16] }.joined(separator: " ") + "."
    }

    /// The sentences the bursts make: (index, begin ms, end ms, text).
    static func sentences(_ bursts: [(start: Double, end: Double)] = TestAudio.bursts)
        -> [(index: Int, begin: Int, end: Int, text: String)] {
        bursts.enumerated().map { offset, burst in
            let begin = Int((burst.start * 1000).rounded()), end = Int((burst.end * 1000).rounded())
            return (offset + 1, begin, end, text(index: offset + 1, beginMilliseconds: begin, endMilliseconds: end))
        }
    }
}
