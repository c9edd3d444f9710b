import SpeechSynthesis

/// The text of one task as the server split it into sentences, with its word timestamps: what a listener heard
/// up to a played position. Built on the SDK's delivery queue; read under the playback's lock.
struct SpokenText {
    private var sentences: [Int: String] = [:]
    /// Each word with the sentence it belongs to.
    private var words: [(sentence: Int, word: SynthesisWord)] = []
    private var seen: Set<[Int]> = []
    /// For words that come without a sentence (task-finished): the sentence they are taken to be in.
    private var looseSentence = 0
    private var looseLastBegin = -1

    var hasWords: Bool { !words.isEmpty }

    mutating func sentence(_ index: Int, text: String?) {
        if let text, sentences[index] == nil { sentences[index] = text }
    }

    /// Adds words (a word repeated in several events is kept once). `sentence` nil: words of task-finished,
    /// whose sentence follows from their order (a begin index below the previous one starts the next sentence).
    mutating func add(_ list: [SynthesisWord], sentence: Int?) {
        for word in list {
            let index: Int
            if let sentence { index = sentence } else {
                if word.beginIndex < looseLastBegin { looseSentence += 1 }
                looseLastBegin = word.beginIndex
                index = looseSentence
            }
            let key = [index, word.beginIndex, word.endIndex, word.beginMilliseconds]
            guard seen.insert(key).inserted else { continue }
            words.append((index, word))
        }
    }

    /// Words whose end time is at or before `milliseconds`, the characters of the text up to the end of the last
    /// of them, and that text; nil without word timestamps.
    func heard(at milliseconds: Int) -> (words: Int, characters: Int, text: String)? {
        guard hasWords else { return nil }
        let heard = words.filter { $0.word.endMilliseconds <= milliseconds }
        guard let last = heard.max(by: { ($0.sentence, $0.word.endIndex) < ($1.sentence, $1.word.endIndex) }) else {
            return (0, 0, "")
        }
        var text = ""
        for index in sentences.keys.sorted() where index < last.sentence { text += sentences[index]! }
        let current = Array((sentences[last.sentence] ?? last.word.text).unicodeScalars)
        let end = min(current.count, sentences[last.sentence] == nil ? current.count : last.word.endIndex)
        text += String(String.UnicodeScalarView(current[0..<end]))
        return (heard.count, text.unicodeScalars.count, text)
    }
}
