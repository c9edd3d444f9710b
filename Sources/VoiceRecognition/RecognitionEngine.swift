import AudioFrontEnd
import SpeechStreaming
import Synchronization

/// The session-scoped half of recognition: one running ``AudioFrontEnd/FrontEnd`` and one kept streaming
/// connection that outlive dialogs. Dialogs (``RecognitionCore/init(engine:service:)``) start and stop
/// recognition on it, one at a time; the echo canceller, the delay and drift estimates and the VAD's noise
/// estimates carry over from one dialog to the next.
///
/// **Outside a dialog** every mic and reference push is processed exactly as inside one (the canceller keeps
/// adapting, the delay estimator keeps tracking); what the front end produces is then discarded: processed
/// audio, Opus packets, speech start/end, levels, telemetry and drop reports. The discarded output is counted
/// in ``betweenDialogs`` (nothing of it is sent to the service). A dialog takes the output from the mic position
/// at its ``RecognitionCore/start()`` to the mic position at its ``RecognitionCore/finish()``, sample-exact for
/// PCM; its positions and milliseconds count from its start.
///
/// **The connection** is kept after a task ends when the protocol allows it (DashScope: a new run-task with a
/// new task id on the same socket after task-finished; NLS closes after TranscriptionCompleted, so each NLS
/// dialog connects anew). A task-failed connection is closed by the service and never reused; a connection
/// the server closed while idle (DashScope's 60 s) is replaced at the next dialog's start without an error.
/// A dialog with another service configuration (a new key, other parameters) gets a new connection.
///
/// Threads: pushes are real-time safe (mic thread, reference thread); the other calls are for a control thread.
public final class RecognitionEngine: @unchecked Sendable { // immutable references to thread-safe parts
    /// The configuration the front end runs (its service is the default for dialogs).
    public let configuration: RecognitionConfiguration
    let frontEnd: FrontEnd
    let router: DialogRouter
    /// Mic pushes (any size above zero); a dialog's mic-silence watchdog watches it change. Mic thread.
    let micPushes = Atomic<Int>(0)
    /// Mic bytes the front end took. Mic thread; read when a dialog starts or finishes.
    let micBytes = Atomic<Int>(0)
    /// Bytes the front end refused (pushes too long, or the ring full); a dialog counts its share. Push threads.
    let micRefusedBytes = Atomic<Int>(0)
    let referenceRefusedBytes = Atomic<Int>(0)
    private let link = Mutex<Link?>(nil)
    private let closed = Atomic<Bool>(false)

    private struct Link {
        var service: RecognitionConfiguration.Service
        var session: SpeechStreamingSession
    }

    /// Creates the front end and starts it: pushes are taken from now on. No connection yet. Control thread.
    /// - Throws: ``RecognitionError`` naming the first bad value.
    public convenience init(configuration: RecognitionConfiguration) throws {
        try self.init(configuration: configuration, drainHost: nil)
    }

    /// An engine whose front end is drained by `drainHost`'s thread (``AudioFrontEnd/FrontEndDrainHost``: NeoNui's
    /// callback thread) with ``AudioFrontEnd/FrontEndConfiguration/EventsBehind/dropAppEvents``: a host slow in
    /// its callbacks costs the app's audio and level events (counted), never the service's audio nor a push.
    /// ``close()`` then does not wait for the drain (the host ends it in its next round). nil: as
    /// ``init(configuration:)``. Control thread.
    /// - Throws: ``RecognitionError`` naming the first bad value.
    package init(configuration: RecognitionConfiguration, drainHost: FrontEndDrainHost?) throws {
        self.configuration = configuration
        var frontEndConfiguration = try configuration.resolvedFrontEnd() // packets only: each dialog's client muxes
        if drainHost != nil { frontEndConfiguration.whenEventsBehind = .dropAppEvents }
        do {
            frontEnd = try FrontEnd(configuration: frontEndConfiguration, host: drainHost)
        } catch let error as AudioFrontEndError {
            throw RecognitionError.frontEnd(error)
        }
        router = DialogRouter(outputRate: frontEndConfiguration.effectiveOutputRate)
        frontEnd.delegate = router
        frontEnd.audioSink = router // the processing thread hands the running dialog's client its audio
        do { try frontEnd.start() } catch let error as AudioFrontEndError {
            throw RecognitionError.frontEnd(error)
        }
    }

    deinit { close() }

    /// Ends the front end and closes the connection for good. A running dialog should end first (its
    /// connection goes away under it). Returns once the front end's drain thread has ended (at once when called
    /// from one of its callbacks), so the front end goes with the engine's last reference; with a drain host, at
    /// once (the host delivers what was queued and ends the drain in its next round: waiting here, under a
    /// caller's lock that a callback on the host may take, could deadlock). Control thread; idempotent.
    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        frontEnd.cancel()
        if !frontEnd.hasHostedDrain { frontEnd.waitUntilDrained() }
        link.withLock { $0 }?.session.close()
        link.withLock { $0 = nil }
    }

    /// Pushes mic audio (little-endian int16 bytes); see ``AudioFrontEnd/FrontEnd/pushMic(bytes:)``. Taken
    /// between dialogs too. Mic thread (one at a time); real-time safe.
    public func pushMic(bytes: UnsafeRawBufferPointer) -> PushResult {
        count(frontEnd.pushMic(bytes: bytes), of: bytes.count, bytesPerUnit: 1)
    }

    /// Pushes mic samples. Mic thread (one at a time); real-time safe.
    public func pushMic(samples: UnsafeBufferPointer<Int16>) -> PushResult {
        count(frontEnd.pushMic(samples: samples), of: samples.count, bytesPerUnit: 2)
    }

    /// Pushes what the device plays. Reference thread; real-time safe.
    public func pushReference(bytes: UnsafeRawBufferPointer) -> PushResult {
        countReference(frontEnd.pushReference(bytes: bytes), of: bytes.count, bytesPerUnit: 1)
    }

    /// Pushes reference samples. Reference thread; real-time safe.
    public func pushReference(samples: UnsafeBufferPointer<Int16>) -> PushResult {
        countReference(frontEnd.pushReference(samples: samples), of: samples.count, bytesPerUnit: 2)
    }

    /// Playback hints (`play_start` / `play_over`). Any thread; real-time safe.
    public func setPlaying(_ isPlaying: Bool) { frontEnd.setPlaying(isPlaying) }

    /// The reference is a player's: see ``AudioFrontEnd/FrontEnd/startReferenceAtMic()``. Any thread; real-time safe.
    package func startReferenceAtMic() { frontEnd.startReferenceAtMic() }

    /// What the front end produced outside any dialog and was discarded. Any thread.
    public var betweenDialogs: BetweenDialogCounts { router.betweenDialogs }

    /// Whether the front end takes pushes (false after ``close()``). Any thread.
    public var isRunning: Bool { frontEnd.isRunning }

    private func count(_ result: PushResult, of total: Int, bytesPerUnit: Int) -> PushResult {
        if result.status == .bufferFull {
            micRefusedBytes.add((total - result.accepted) * bytesPerUnit, ordering: .relaxed)
        }
        if result.accepted > 0 {
            micPushes.add(1, ordering: .relaxed)
            micBytes.add(result.accepted * bytesPerUnit, ordering: .relaxed)
        }
        return result
    }

    private func countReference(_ result: PushResult, of total: Int, bytesPerUnit: Int) -> PushResult {
        if result.status == .bufferFull {
            referenceRefusedBytes.add((total - result.accepted) * bytesPerUnit, ordering: .relaxed)
        }
        return result
    }

    /// The output position (samples at the output rate) of the mic audio taken so far.
    var micOutputPosition: Int {
        let configuration = frontEnd.configuration
        let frames = micBytes.load(ordering: .relaxed) / (2 * configuration.mic.channelCount)
        return frames * configuration.effectiveOutputRate / configuration.mic.sampleRate
    }

    /// The streaming client for a dialog with `service`: the kept one when its service is the same and it is
    /// not closed, else a new one (the old one closed). Control thread.
    func streamingSession(for dialog: RecognitionConfiguration) throws(RecognitionError) -> SpeechStreamingSession {
        guard !closed.load(ordering: .acquiring) else { throw .invalidState("the recognition engine is closed") }
        if let kept = link.withLock({ $0 }), kept.service == dialog.service { return kept.session }
        let fresh = try dialog.makeStreamingSession()
        fresh.delegate = router
        let old = link.withLock { link in
            defer { link = Link(service: dialog.service, session: fresh) }
            return link?.session
        }
        old?.close()
        return fresh
    }
}

/// What a ``RecognitionEngine``'s front end produced outside any dialog and discarded.
public struct BetweenDialogCounts: Sendable, Equatable {
    /// Processed samples (output rate) not sent because no dialog took them.
    public var audioSamplesDiscarded: Int = 0
    /// Opus packets discarded (Opus format).
    public var opusPacketsDiscarded: Int = 0
    /// Speech start/end, level, telemetry and drop events not delivered.
    public var eventsDiscarded: Int = 0
    /// Service events that arrived with no dialog to take them (e.g. after a forced cancel).
    public var serviceEventsDiscarded: Int = 0
    public init() {}
}
