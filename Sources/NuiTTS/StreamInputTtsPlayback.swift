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
    private let continuous: ContinuousReference?
    let inputLock = NSLock()
    private let sessions = NSLock()
    private var sessionOfUtterance: [Int: String] = [:]
    private var openUtterance: Int? // the last begun utterance until it drains or stops (guarded by `sessions`)

    /// - Parameters:
    ///   - configuration: the device's rate and channels (the front end's reference format must match), buffers.
    ///   - reference: the front end whose echo reference is what is played (a ``FrontEnd``), or nil.
    ///   - sink: the app's output for the sink shape; nil for the render shape.
    ///   - pacing, bufferMilliseconds: the sink shape's pacing and buffer (2...100 ms): stop and cancel take effect
    ///     within one such buffer.
    /// - Throws: ``AudioFrontEndError`` for a setting out of range or a reference format that is not the device's.
    public init(configuration: PlaybackConfiguration = PlaybackConfiguration(), reference: (any EchoReferenceSink)?,
                sink: (any PlaybackSink)? = nil, pacing: SinkPlayback.Pacing = .sink, bufferMilliseconds: Int = 10) throws {
        if let frontEnd = (reference as? FrontEnd)?.configuration.reference,
           frontEnd.sampleRate != configuration.sampleRate || frontEnd.channelCount != configuration.channelCount {
            throw AudioFrontEndError(.invalidConfiguration,
                                     "the playback renders \(configuration.channelCount) channel(s) at \(configuration.sampleRate) Hz but the front end's"
                                         + " reference is \(frontEnd.channelCount) channel(s) at \(frontEnd.sampleRate) Hz")
        }
        let continuous = reference.map(ContinuousReference.init)
        let made = try SynthesisPlayer(configuration: configuration, reference: continuous)
        do {
            sinkPlayback = try sink.map {
                try SinkPlayback(player: made, sink: ReferencingSink(app: $0, reference: continuous), pacing: pacing,
                                 bufferMilliseconds: bufferMilliseconds)
            }
        } catch {
            made.close()
            throw error
        }
        player = made
        self.continuous = continuous
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
        continuous?.completeBuffer(UnsafeBufferPointer(buffer))
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
        }
    }

    func sessionId(of utterance: Int) -> String { sessions.withLock { sessionOfUtterance[utterance] ?? "" } }

    /// True from a task's first audio until its utterance drained or stopped: an answer still playing out after
    /// synthesis completed. Any thread.
    var isPlayingOut: Bool { sessions.withLock { openUtterance != nil } }

    /// The player's worker thread (event handler): `utterance` drained or stopped.
    func ended(_ utterance: Int) { sessions.withLock { if openUtterance == utterance { openUtterance = nil } } }
}

/// The reference side of the playback: forwards the player's pushes and, for every device buffer the player did
/// not push (the silence between answers), pushes it too — so the reference is every sample handed to the device,
/// placed sample for sample against the mic. Pushing only during answers left the reference lagging the mic by the
/// idle time whenever that was under the front end's resync threshold (200 ms): then the front end found the
/// reference missing for every frame and cancelled nothing (measured ERLE 0.1 dB).
///
/// Render thread only (`pushedThisBuffer` is its state); real-time safe.
final class ContinuousReference: EchoReferenceSink, @unchecked Sendable {
    let target: any EchoReferenceSink
    private var pushedThisBuffer = false

    init(_ target: any EchoReferenceSink) { self.target = target }

    func pushReference(samples: UnsafeBufferPointer<Int16>) -> PushResult {
        pushedThisBuffer = true
        return target.pushReference(samples: samples)
    }

    func setPlaying(_ isPlaying: Bool) { target.setPlaying(isPlaying) }

    /// After each device buffer: pushes it when the player did not.
    @inline(__always)
    func completeBuffer(_ buffer: UnsafeBufferPointer<Int16>) {
        if !pushedThisBuffer { _ = target.pushReference(samples: buffer) }
        pushedThisBuffer = false
    }
}

/// The app's sink behind ``SinkPlayback``: completes the reference of each buffer, then writes it.
final class ReferencingSink: PlaybackSink, @unchecked Sendable { // the playback thread only
    let app: any PlaybackSink
    let reference: ContinuousReference?
    init(app: any PlaybackSink, reference: ContinuousReference?) {
        self.app = app
        self.reference = reference
    }
    func write(_ samples: UnsafeBufferPointer<Int16>) {
        reference?.completeBuffer(samples)
        app.write(samples)
    }
}
