/// A position in the played speech: samples of the utterance actually handed to the device (underrun silence
/// not counted), at the playback rate.
public struct PlayedPosition: Sendable, Equatable, CustomStringConvertible {
    public var samples: Int
    public var sampleRate: Int
    public init(samples: Int, sampleRate: Int) {
        self.samples = samples
        self.sampleRate = sampleRate
    }
    /// The position in milliseconds.
    public var milliseconds: Double { sampleRate == 0 ? 0 : Double(samples) * 1000 / Double(sampleRate) }
    public var description: String { "\(samples) samples (\(Int(milliseconds.rounded())) ms)" }
}

/// What a ``SynthesisPlayer`` reports, delivered on its worker thread (never the audio thread), in order.
///
/// The three moments that full-duplex devices must keep apart are separate events: the synthesis input ended
/// (every byte decoded; the server's "synthesis complete" means no more than that), the playback drained (the
/// last sample handed to the device), and the mic re-armed (a hook for barge-in, after the room's tail).
public enum PlaybackEvent: Sendable, Equatable {
    /// The first sample of the utterance was handed to the device.
    case started(utterance: Int)
    /// The decoder hit what ends the stream; what was decoded before still plays. ``inputEnded(utterance:samples:)`` follows.
    case decodeFailed(utterance: Int, error: PlaybackDecodeError)
    /// Every byte of the utterance was decoded; `samples` (at the playback rate) is all it will play.
    case inputEnded(utterance: Int, samples: Int)
    /// The utterance's last sample was handed to the device.
    case drained(utterance: Int, position: PlayedPosition)
    /// ``SynthesisPlayer/stop()`` took effect: nothing more of the utterance is handed to the device.
    case stopped(utterance: Int, position: PlayedPosition)
    /// ``PlaybackConfiguration/rearmAfterMilliseconds`` after the utterance drained or stopped, with nothing
    /// else playing: the barge-in hook for re-opening the mic.
    case micRearmed(utterance: Int)
}

/// Drops and underruns so far. Read on any thread (each field is read atomically on its own).
public struct PlaybackCounts: Sendable, Equatable {
    /// Frames handed to the device so far (silence included).
    public var renderedFrames = 0
    /// Samples (interleaved) pushed to the reference sink and taken by it.
    public var referenceSamplesPushed = 0
    /// Device samples (frames) filled with silence because the decoded audio was late, during an utterance.
    public var underrunFrames = 0
    /// Input bytes refused because the input buffer was full.
    public var refusedInputBytes = 0
    /// Reference samples the front end refused (the front end not running, or a push of another thread at the
    /// same moment; the app's own sounds go through ``SynthesisPlayer/appReference`` instead).
    public var refusedReferenceSamples = 0
    /// Events lost because the event ring was full (the worker thread stalled).
    public var droppedEvents = 0
    public init() {}
}
