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

    /// - Parameters:
    ///   - configuration: the device's rate and channels (the front end's reference format must match), buffers.
    ///   - reference: the front end whose echo reference is what is played (a ``FrontEnd``), or nil.
    ///   - sink: the app's output for the sink shape; nil for the render shape.
    ///   - pacing, bufferMilliseconds: the sink shape's pacing and buffer (2...100 ms): stop and cancel take effect
    ///     within one such buffer.
    /// - Throws: ``AudioFrontEndError`` for a setting out of range or a reference format that is not the device's.
    public init(configuration: PlaybackConfiguration = PlaybackConfiguration(), reference: (any EchoReferenceSink)?,
                sink: (any PlaybackSink)? = nil, pacing: SinkPlayback.Pacing = .sink, bufferMilliseconds: Int = 10) throws {
        let made = try SynthesisPlayer(configuration: configuration, reference: reference)
        do {
            sinkPlayback = try sink.map { try SinkPlayback(player: made, sink: $0, pacing: pacing, bufferMilliseconds: bufferMilliseconds) }
        } catch {
            made.close()
            throw error
        }
        player = made
        // A front end assumes playback until told otherwise, and SynthesisPlayer reports only changes, so its first
        // setPlaying(true) would be no change and the reference (placed by sample position) would not be realigned
        // to the mic after the silence before the first answer. Nothing plays until the first task's audio.
        reference?.setPlaying(false)
        sinkPlayback?.start()
    }

    deinit { close() }

    /// The render shape's entry: fills `buffer` (interleaved, the configuration's channels) with what plays now,
    /// silence when nothing does, and pushes exactly that buffer to the reference. Real-time safe: no allocation,
    /// lock, blocking or Foundation; call it from the device's render thread only (one thread).
    @inline(__always)
    public func render(into buffer: UnsafeMutableBufferPointer<Int16>) { player.render(into: buffer) }

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
            sessionOfUtterance[utterance] = sessionId
            sessionOfUtterance = sessionOfUtterance.filter { $0.key > utterance - 8 } // late events of old tasks only
        }
    }

    func sessionId(of utterance: Int) -> String { sessions.withLock { sessionOfUtterance[utterance] ?? "" } }
}
