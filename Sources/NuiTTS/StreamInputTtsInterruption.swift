import AudioFrontEnd

/// What a barge-in interrupted (``NeoNuiStreamInputTtsDelegate/onStreamInputTtsInterruptedCallback(_:)``).
public struct StreamInputTtsInterruption: Sendable, Equatable {
    /// The interrupted task's session id.
    public var sessionId: String
    /// Where playback stopped: the task's samples handed to the device (underrun silence not counted), at the
    /// playback rate, and the same in milliseconds of the task's audio.
    public var positionSamples: Int
    public var sampleRate: Int
    public var positionMilliseconds: Int64 { Int64(positionSamples) * 1000 / Int64(max(1, sampleRate)) }
    /// Words whose audio was handed to the device in full (end time at or before the position), when the task
    /// had word timestamps (`word_timestamp_enabled`); nil otherwise.
    public var wordsHeard: Int?
    /// Characters of the task's text up to the end of the last word heard (sentences in order, as the server
    /// split them; 0 when no word was heard); nil without word timestamps.
    public var charactersHeard: Int?
    /// That text itself; nil without word timestamps.
    public var textHeard: String?
    /// The front end's decision that stopped it (times on the mic's timeline).
    public var decision: BargeInDecision

    public init(sessionId: String, positionSamples: Int, sampleRate: Int, wordsHeard: Int?, charactersHeard: Int?,
                textHeard: String?, decision: BargeInDecision) {
        self.sessionId = sessionId
        self.positionSamples = positionSamples
        self.sampleRate = sampleRate
        self.wordsHeard = wordsHeard
        self.charactersHeard = charactersHeard
        self.textHeard = textHeard
        self.decision = decision
    }
}
