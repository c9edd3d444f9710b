/// Cuts a text into pieces the service takes in one continue-task: at most ``limit`` characters as the service
/// counts them (a CJK character counts 2), each cut after the last sentence end (. ! ? ; and their full-width
/// forms, line breaks) in the second half of the piece, else after its last white space or comma, else after an
/// earlier sentence end, else at a character boundary.
///
/// Pure; not real-time safe (allocates).
enum TextSplitter {
    /// The service's limit per continue-task.
    static let limit = 20_000

    static func weight(_ character: Character) -> Int {
        character.unicodeScalars.contains { isCJK($0.value) } ? 2 : 1
    }

    static func isCJK(_ code: UInt32) -> Bool {
        (0x2E80...0x9FFF).contains(code) || (0xAC00...0xD7AF).contains(code) || (0xF900...0xFAFF).contains(code)
            || (0xFF00...0xFFEF).contains(code) || (0x20000...0x3FFFF).contains(code)
    }

    /// `text` in pieces of at most `limit` characters (the service's count); the pieces joined give `text`.
    static func split(_ text: String, limit: Int = limit) -> [String] {
        var pieces: [String] = []
        var rest = Substring(text)
        while count(rest) > limit {
            var total = 0
            var end = rest.startIndex
            var sentenceCut: String.Index?
            var spaceCut: String.Index?
            while end < rest.endIndex {
                let character = rest[end]
                let next = rest.index(after: end)
                total += weight(character)
                if total > limit { break }
                if ".!?;。！？；\n".contains(character) { sentenceCut = next }
                if character.isWhitespace || character == "," || character == "，" { spaceCut = next }
                end = next
            }
            // A sentence end in the window's second half, else the last white space, else any sentence end.
            let half = rest.index(rest.startIndex, offsetBy: rest.distance(from: rest.startIndex, to: end) / 2)
            var cut = sentenceCut.flatMap { $0 >= half ? $0 : nil } ?? spaceCut ?? sentenceCut ?? end
            if cut == rest.startIndex { cut = rest.index(after: cut) } // one character over the limit on its own
            pieces.append(String(rest[..<cut]))
            rest = rest[cut...]
        }
        if !rest.isEmpty || pieces.isEmpty { pieces.append(String(rest)) }
        return pieces
    }

    static func count(_ text: Substring) -> Int { text.reduce(0) { $0 + weight($1) } }
}
