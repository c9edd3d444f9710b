/// Sentence numbering and times across the tasks of one caller task (a reconnection starts a new server
/// task whose ids and times restart from 1 and 0).
///
/// After a reconnection the server's sentence ids are shifted by the last final sentence before the drop,
/// and its times by the task-audio position the replay started at, so events continue seamlessly.
struct SentenceTracker {
    private(set) var timeOffsetMilliseconds = 0
    private var sentenceIdOffset = 0
    private(set) var lastStarted = 0
    private(set) var lastFinal = 0
    private var begins: [Int: Int] = [:]

    mutating func reset() { self = SentenceTracker() }

    /// A new server task begins with audio from `milliseconds` of task audio.
    mutating func resume(atMilliseconds milliseconds: Int) {
        timeOffsetMilliseconds = milliseconds
        sentenceIdOffset = lastFinal
    }

    /// The session's id for a server sentence id (or, without one, the sentence after the last final one).
    func sentenceId(_ serverId: Int?) -> Int { serverId.map { $0 + sentenceIdOffset } ?? lastFinal + 1 }

    /// Task-audio time of a server time.
    func time(_ serverMilliseconds: Int) -> Int { serverMilliseconds + timeOffsetMilliseconds }

    /// Whether `id` has not been announced yet.
    func isNew(_ id: Int) -> Bool { id > lastStarted }

    mutating func started(_ id: Int, beginMilliseconds: Int) {
        lastStarted = max(lastStarted, id)
        begins[id] = beginMilliseconds
    }

    /// Where sentence `id` began, when known.
    func begin(of id: Int) -> Int? { begins[id] }

    mutating func ended(_ id: Int) {
        lastFinal = max(lastFinal, id)
        lastStarted = max(lastStarted, id)
        begins[id] = nil
    }
}
