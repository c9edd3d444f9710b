/// What the input thread hands the worker, in order (the bytes of data records travel in the byte ring).
struct InputRecord: BitwiseCopyable {
    enum Kind: UInt8 { case begin, data, end }
    var kind: Kind
    var utterance: Int
    /// Bytes in the byte ring (data records).
    var byteCount = 0
    /// The format and the task's sample_rate (begin records).
    var format = SynthesisAudioFormat.pcm
    var sampleRate = 0
    /// ``SynthesisPlayer``'s stop generation when the record was written: a begin record after a stop carries the
    /// new generation, so the worker does not mistake the new utterance for the stopped one.
    var stopGeneration = 0
}

/// Where an utterance begins or ends in the decoded-sample ring (the worker's write index), for the render side.
struct UtteranceMark: BitwiseCopyable {
    var index: Int
    var isEnd: Bool
    var utterance: Int
    var stopGeneration: Int
}

/// An event leaving the render side for the worker, which delivers it.
struct RenderEventRecord: BitwiseCopyable {
    enum Kind: UInt8 { case started, drained, stopped, rearmed }
    var kind: Kind
    var utterance: Int
    var samples: Int
}
