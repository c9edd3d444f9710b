import AudioFrontEnd
import AudioPlayback
import Foundation

/// Local playback for ``NeoNuiStreamInputTts``: the synthesized audio of every task is decoded, resampled to the
/// device's rate, handed to the device and, at the same moment, sample for sample after volume, pushed as the
/// echo reference of the front end given here — so the app pushes no reference (nor `play_start`/`play_over`)
/// for the speech the SDK plays.
///
/// Two shapes (AudioPlayback's ``SynthesisPlayer``):
/// - **render**: the app's audio device pulls: call ``render(into:)`` from its render callback.
/// - **sink**: give a ``PlaybackSink``; the SDK's own playback thread writes one device buffer at a time to it.
///
/// Attach it with ``NeoNuiStreamInputTts/setPlayback(_:)``. Lifecycle: create (allocates, starts threads) → attach
/// → tasks → detach → ``close()``.
public final class StreamInputTtsPlayback: @unchecked Sendable { // `inputLock` serializes the player's input side
    /// The player (its counts, volume, played position; `stop()` for barge-in, from any thread).
    public let player: SynthesisPlayer
    /// The sink shape's playback thread, or nil in the render shape.
    public let sinkPlayback: SinkPlayback?
    let inputLock = NSLock()
    private let sessions = NSLock()
    private var sessionOfUtterance: [Int: String] = [:]
    private var openUtterance: Int? // the last begun utterance until it drains or stops (guarded by `sessions`)
    private var spokenOfUtterance: [Int: SpokenText] = [:] // word timestamps per utterance (guarded by `sessions`)
    private var interruptions: [Int: BargeInDecision] = [:] // barge-ins whose stop is on its way (guarded by `sessions`)
    /// The reference given at init (what a barge-in source normally is), or nil.
    var referenceTarget: (any EchoReferenceSink)? { player.reference }

    /// - Parameters:
    ///   - configuration: the device's rate and channels (the front end's reference format must match), buffers.
    ///   - reference: where what is played goes as the echo reference: a ``FrontEnd``, the recognizer
    ///     (`NeoNui.get_instance()`, after `nui_set_params`: its `nls_config.sample_rate`, mono), or nil.
    ///   - sink: the app's output for the sink shape; nil for the render shape.
    ///   - pacing, bufferMilliseconds: the sink shape's pacing and buffer (2...100 ms): stop and cancel take effect
    ///     within one such buffer.
    /// - Throws: ``AudioFrontEndError`` for a setting out of range, a reference format that is not the device's,
    ///   or a NeoNui whose `nui_set_params` has not been called.
    public init(configuration: PlaybackConfiguration = PlaybackConfiguration(), reference: (any EchoReferenceSink)?,
                sink: (any PlaybackSink)? = nil, pacing: SinkPlayback.Pacing = .sink, bufferMilliseconds: Int = 10) throws {
        if let expected = try Self.referenceFormat(of: reference),
           expected.sampleRate != configuration.sampleRate || expected.channelCount != configuration.channelCount {
            throw AudioFrontEndError(.invalidConfiguration,
                                     "the playback renders \(configuration.channelCount) channel(s) at \(configuration.sampleRate) Hz but the"
                                         + " reference is \(expected.channelCount) channel(s) at \(expected.sampleRate) Hz")
        }
        let made = try SynthesisPlayer(configuration: configuration, reference: reference)
        do {
            sinkPlayback = try sink.map {
                try SinkPlayback(player: made, sink: $0, pacing: pacing, bufferMilliseconds: bufferMilliseconds)
            }
        } catch {
            made.close()
            throw error
        }
        player = made
        // Nothing plays until the first task's audio (a front end starts assuming playback): the player's first
        // setPlaying(true) is then a change, and the AEC rests between answers.
        reference?.setPlaying(false)
        sinkPlayback?.start()
    }

    deinit { close() }

    /// The render shape's entry: fills `buffer` (interleaved, the configuration's channels) with what plays now,
    /// silence when nothing does, and pushes exactly that buffer to the reference. Real-time safe: no allocation,
    /// lock, blocking or Foundation; call it from the device's render thread only (one thread).
    @inline(__always)
    public func render(into buffer: UnsafeMutableBufferPointer<Int16>) {
        player.render(into: buffer)
    }

    /// Stops the sink thread and the player's worker. Any thread but a callback of the player.
    public func close() {
        sinkPlayback?.stop()
        player.setEventHandler(nil)
        player.close()
    }

    // MARK: The SDK's side (its delivery queue; serialized by `inputLock`)

    func begin(format: String, sampleRate: Int, sessionId: String) {
        guard let format = SynthesisAudioFormat(rawValue: format),
              let utterance = try? player.begin(format: format, sampleRate: sampleRate) else { return }
        sessions.withLock {
            openUtterance = utterance
            sessionOfUtterance[utterance] = sessionId
            sessionOfUtterance = sessionOfUtterance.filter { $0.key > utterance - 8 } // late events of old tasks only
            spokenOfUtterance = spokenOfUtterance.filter { $0.key > utterance - 8 }
            spokenOfUtterance[utterance] = SpokenText()
        }
    }


    /// The open utterance's text and words (the SDK's delivery queue).
    func updateSpoken(_ change: (inout SpokenText) -> Void) {
        sessions.withLock {
            guard let open = openUtterance, spokenOfUtterance[open] != nil else { return }
            change(&spokenOfUtterance[open]!)
        }
    }

    /// Marks the open utterance as interrupted by `decision` (its stop is then reported as an interruption);
    /// returns it, or nil when nothing plays.
    func markInterrupted(by decision: BargeInDecision) -> Int? {
        sessions.withLock {
            guard let open = openUtterance else { return nil }
            interruptions[open] = decision
            return open
        }
    }

    /// The barge-in that stopped `utterance`, if one did, with what was heard up to `milliseconds`.
    func takeInterruption(_ utterance: Int, milliseconds: Int) -> (BargeInDecision, (words: Int, characters: Int, text: String)?)? {
        sessions.withLock {
            guard let decision = interruptions.removeValue(forKey: utterance) else { return nil }
            return (decision, spokenOfUtterance[utterance]?.heard(at: milliseconds))
        }
    }

    func sessionId(of utterance: Int) -> String { sessions.withLock { sessionOfUtterance[utterance] ?? "" } }

    /// True from a task's first audio until its utterance drained or stopped: an answer still playing out after
    /// synthesis completed. Any thread.
    var isPlayingOut: Bool { sessions.withLock { openUtterance != nil } }

    /// The player's worker thread (event handler): `utterance` drained or stopped.
    func ended(_ utterance: Int) { sessions.withLock { if openUtterance == utterance { openUtterance = nil } } }
}
