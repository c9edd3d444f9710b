/// What the front end reports, in order, through its delegate and its `events` sequence.
///
/// Positions are sample indices from the start of the stream: `position` at the output rate for audio, and
/// milliseconds where named so. Audio is emitted as soon as the stages produce it, so the audio stream lags the
/// mic by the stages' fixed ``ProcessingDelay`` (output sample `n + delay` carries mic sample `n`); every
/// millisecond time (speech, level, telemetry) is on the mic's timeline. Events are built on the drain thread
/// (they allocate); the audio thread only writes fixed-size records into rings.
public enum FrontEndEvent: Sendable, Equatable {
    /// Processed (echo-cancelled) audio at the output rate: NUI's `EVENT_AEC_DATA`. Emitted in the push that
    /// completed its frame; it lags the mic by ``FrontEnd/processingDelay`` (its first that many samples are the
    /// stages' start-up, not mic audio).
    case audio(AudioChunk)
    /// The voice activity detector found the start of speech at `milliseconds` of the mic's timeline (back-dated
    /// to its first frame; the processing delay already subtracted).
    case speechStarted(milliseconds: Int)
    /// Speech ended at `milliseconds` of the mic's timeline (the end of the last speech frame, before the
    /// trailing silence).
    case speechEnded(milliseconds: Int)
    /// Level of one 10 ms frame in dBFS (-160...0): the microphone input and the processed output.
    case level(milliseconds: Int, inputDecibels: Float, outputDecibels: Float)
    /// One Opus packet of `durationSamples48k` samples at 48 kHz, when encoding is on.
    case opusPacket(OpusPacket)
    /// One Ogg Opus page (the stream's bytes), when Ogg output is on. Pages concatenated form a valid .opus file.
    case oggPage([UInt8])
    /// Echo telemetry, about four times a second.
    case telemetry(EchoTelemetry)
    /// The user talks over the playback (``FrontEndConfiguration/bargeIn``): stop it; or, when
    /// ``BargeInDecision/isSuspicion`` (``FrontEndConfiguration/bargeInSuspicion``), may be talking: turn it down
    /// for a moment. A playback attached through ``BargeInSource/setBargeInHandler(_:)`` has already been told.
    case bargeIn(BargeInDecision)
    /// Counts of dropped or missing audio changed (see ``DropCounts``).
    case drops(DropCounts)
    /// The stream ended: every output above was delivered first. The last event.
    case finished(FrontEndSummary)
}

/// A run of processed samples.
public struct AudioChunk: Sendable, Equatable {
    /// Index of the first sample at ``sampleRate`` from the start of the stream.
    public var position: Int
    public var sampleRate: Int
    public var samples: [Int16]

    /// A chunk (the stack's own consumers: a ``FrontEndRawAudioDelegate`` that needs the event after all).
    package init(position: Int, sampleRate: Int, samples: [Int16]) {
        self.position = position
        self.sampleRate = sampleRate
        self.samples = samples
    }
}

/// An encoded Opus packet.
public struct OpusPacket: Sendable, Equatable {
    public var bytes: [UInt8]
    /// Index of the packet from the start of the stream.
    public var sequence: Int
    /// Samples the packet covers at 48 kHz (the Ogg granule unit).
    public var durationSamples48k: Int
}

/// The echo path as the front end sees it.
public struct EchoTelemetry: Sendable, Equatable {
    public var milliseconds: Int
    /// Estimated bulk delay from reference to echo, ms; nil before the first confident estimate.
    public var delayMilliseconds: Double?
    /// The part of the delay the front end removes by shifting the reference, ms.
    public var alignmentMilliseconds: Double
    /// Echo reduction over the last second of far-end activity, dB (mic power over output power); nil when the
    /// far end was quiet.
    public var erleDecibels: Double?
    /// Whether the near end seems to talk over the far end now.
    public var isDoubleTalk: Bool
    /// Clock drift between reference and mic estimated from the delay's slope, parts per million.
    public var driftPartsPerMillion: Double?
    /// The stages' fixed delay, ms (``FrontEnd/processingDelay``): constant for a front end, repeated here so a
    /// telemetry consumer needs nothing else.
    public var processingDelayMilliseconds: Double = 0
}

/// How far the processed audio lags the mic: the fixed delay of the echo canceller(s) and noise suppressor
/// (their block and overlap buffering), which the front end reports instead of holding the output back.
/// Output sample `n + samples` (at ``sampleRate``, the output rate) carries mic sample `n`; the first
/// ``samples`` output samples are the stages' start-up. Offline tools that need sample-for-sample alignment drop
/// them (`afe process` does). The resamplers add no offset (they skip their filters' delay) but hold a few
/// samples of lookahead; see the README's latency section for the whole budget.
public struct ProcessingDelay: Sendable, Equatable {
    /// Output samples the audio lags the mic by.
    public var samples: Int
    /// The output rate the samples count in, Hz.
    public var sampleRate: Int
    public var milliseconds: Double { Double(samples) * 1000 / Double(sampleRate) }

    public init(samples: Int, sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }
}

/// Every count of audio that was not processed as pushed. All zero in a healthy stream.
public struct DropCounts: Sendable, Equatable {
    /// Mic bytes refused because the mic ring was full or the push held more than
    /// ``FrontEnd/maximumMicPushSamples`` (the push returned ``PushStatus/bufferFull``).
    public var micRefusedBytes: Int = 0
    /// Reference bytes refused because the push held more than ``FrontEnd/maximumReferencePushSamples``.
    public var referenceRefusedBytes: Int = 0
    /// Reference samples (processing rate) overwritten before they were used.
    public var referenceDroppedSamples: Int = 0
    /// Reference samples (processing rate) that had not arrived when their mic frame was processed (read as
    /// silence). Not counted before the first reference push (an app that never pushes one uses no reference)
    /// nor between `setPlaying(false)` and `setPlaying(true)`, when no reference is expected.
    public var referenceMissingSamples: Int = 0
    /// App-only events (audio, levels, telemetry, packets, pages) dropped because the event rings were full, with
    /// ``FrontEndConfiguration/EventsBehind/dropAppEvents`` (``FrontEnd/appEventsDropped``); always 0 with the
    /// default ``FrontEndConfiguration/EventsBehind/waitForConsumer`` (the processing waits for room instead).
    public var eventOverruns: Int = 0
    public init() {}
}

/// Totals at the end of a stream.
public struct FrontEndSummary: Sendable, Equatable {
    public var micSamplesPushed: Int
    public var referenceSamplesPushed: Int
    public var framesProcessed: Int
    /// Output samples delivered in all: exactly floor(mic samples × output rate / mic rate). The stream lags
    /// the mic by ``processingDelay``: it starts with that many samples of start-up and ends that much before
    /// the mic's last samples came out of the stages (a real-time filter's output: as long as its input).
    public var outputSamples: Int
    public var drops: DropCounts
    /// The stages' fixed delay (``FrontEnd/processingDelay``).
    public var processingDelay: ProcessingDelay
    /// Barge-in decisions (``FrontEndEvent/bargeIn(_:)``) in the stream, suspicions not counted.
    public var bargeIns = 0
}
