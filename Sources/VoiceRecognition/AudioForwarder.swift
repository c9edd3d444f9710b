import AudioFrontEnd
import Foundation
import SpeechStreaming
import Synchronization

/// The bridge between the two halves: on the front end's drain thread it sends each processed chunk (PCM) or
/// Ogg page (Opus) to the streaming client and, after the front end's last event, ends the client's audio; it
/// hands every event of both halves to the session's event thread. Never runs on an audio thread.
///
/// On a ``RecognitionEngine`` (shared mode) the engine's ``DialogRouter`` hands it the events through
/// ``take(_:opusStart:outputEnd:)`` and it keeps to the dialog's ``DialogWindow``.
final class AudioForwarder: FrontEndDelegate, SpeechStreamingDelegate, @unchecked Sendable { // immutable, window under its mutex
    private let session: SpeechStreamingSession
    private let window = Mutex<DialogWindow?>(nil)
    private let pump: EventPump
    private let shared: SharedState
    private let format: AudioFormat
    private let policy: RecognitionConfiguration.QueueFullPolicy
    private let reportsAudio: Bool

    init(session: SpeechStreamingSession, pump: EventPump, shared: SharedState, configuration: RecognitionConfiguration) {
        self.session = session
        self.pump = pump
        self.shared = shared
        format = configuration.audioFormat
        policy = configuration.queueFullPolicy
        reportsAudio = configuration.reportsAudio
    }

    /// The front end's drain thread.
    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
        switch event {
        case .audio(let chunk):
            if format == .pcm { chunk.samples.withUnsafeBytes { send($0) } }
            if !reportsAudio { return }
        case .oggPage(let page):
            if format == .opus { page.withUnsafeBytes { send($0) } }
            return
        case .opusPacket:
            return
        case .finished:
            pump.post(.frontEnd(event)) // before the stop, so the summary has it before completion can arrive
            session.stop() // every chunk was sent above: the client sends the rest, then finish-task
            return
        default:
            break
        }
        pump.post(.frontEnd(event))
    }

    /// Most messages waiting for the event thread before a service event is dropped (and counted in
    /// ``RecognitionDrops/eventsDropped``): a handler slower than the server cannot grow memory without limit.
    /// A task's start and end are never dropped.
    static let backlogLimit = 16_384

    /// The streaming client's delivery queue.
    func speechSession(_ session: SpeechStreamingSession, didReceive event: SpeechEvent) {
        if !event.isTaskBoundary, pump.backlog >= Self.backlogLimit {
            shared.eventsDropped.add(1, ordering: .relaxed)
            return
        }
        pump.post(.speech(event))
    }

    func isSession(_ other: SpeechStreamingSession) -> Bool { other === session }

    // MARK: Shared mode (a dialog on a RecognitionEngine)

    /// How long after finish the dialog waits at most for the output to reach the mic's position at finish: the
    /// stages hold their last few milliseconds back until more mic audio comes (20 ms today; for Opus the last
    /// packet is not full either). When the mic keeps being pushed (a device's mic runs on), the tail comes out
    /// within a few pushes and the dialog's audio is exact.
    static let stopGrace = Duration.milliseconds(200)
    /// With no mic push this long after the finish the mic has stopped: the held-back tail will not come, and the
    /// audio ends without it.
    static let micStoppedAfter = Duration.milliseconds(40)

    /// Opens the window at output sample `start`. Control thread, after the client's start.
    func begin(at start: Int, outputRate: Int, micBytes: Int) {
        var opened = DialogWindow(start: start, outputRate: outputRate)
        opened.micBytesAtStart = micBytes
        if format == .opus { opened.preSkip = Self.opusPreSkip(rate: outputRate) }
        window.withLock { $0 = opened }
    }

    /// Takes one event of the engine's front end (drain thread). Returns false when it is outside the
    /// dialog (the router counts it as discarded).
    func take(_ event: FrontEndEvent, opusStart: Int, outputEnd: Int) -> Bool {
        window.withLock { window -> Bool in
            guard var current = window else { return false }
            if current.stopped { // the audio ended; the drop counts still belong to the dialog until it ends
                guard case .drops = event else { return false }
                pump.post(.frontEnd(event))
                return true
            }
            defer { window = current }
            switch event {
            case .audio(let chunk):
                guard let clipped = current.clip(chunk) else { return false }
                current.taken += clipped.samples.count
                if format == .pcm {
                    clipped.samples.withUnsafeBytes { send($0) }
                    if let stop = current.stop, outputEnd >= stop { endAudio(&current) }
                }
                if reportsAudio { pump.post(.frontEnd(.audio(clipped))) }
                return true
            case .opusPacket(let packet):
                return format == .opus && write(packet, at: opusStart, &current)
            case .oggPage, .finished:
                return false
            default:
                pump.post(.frontEnd(current.rebased(event)))
                return true
            }
        }
    }

    private func write(_ packet: OpusPacket, at start48k: Int, _ current: inout DialogWindow) -> Bool {
        guard start48k >= current.to48k(current.start) else { return false }
        if current.writer == nil {
            current.writer = try? OggOpusWriter(channelCount: 1, inputSampleRate: current.outputRate,
                                                preSkip: current.preSkip) { [self] page in send(page) }
        }
        let end48k = start48k + packet.durationSamples48k
        current.packetEnd48k = end48k
        let isLast = current.stop.map { end48k >= current.to48k($0) } ?? false
        _ = packet.bytes.withUnsafeBufferPointer { bytes in
            if isLast, let stop = current.stop {
                current.writer?.finish(lastPacket: bytes, inputSampleCount: stop - current.start)
            } else {
                current.writer?.write(packet: bytes)
            }
        }
        if isLast { endAudio(&current) }
        return true
    }

    /// The pre-skip an Ogg header records for the front end's encoder at `rate` (its lookahead, 48 kHz).
    private static func opusPreSkip(rate: Int) -> Int {
        var configuration = Opus.Encoder.Configuration()
        configuration.sampleRate = rate
        return (try? Opus.Encoder(configuration: configuration).preSkip) ?? 312
    }

    /// Closes the window at output sample `stop` (the mic's position at finish); ends the audio at once when
    /// the output is already there. Control thread.
    func requestStop(at stop: Int, outputEnd: Int, micBytes: Int, micPushes: Int) {
        window.withLock { window in
            guard var current = window, current.stop == nil else { return }
            current.stop = max(stop, current.start)
            current.micBytesAtStop = micBytes
            current.micPushesAtStop = micPushes
            current.stopAskedAt = .now
            let reached = format == .pcm ? outputEnd >= stop : current.packetEnd48k >= current.to48k(stop)
            if reached || stop <= current.start { endAudio(&current) }
            window = current
        }
    }

    /// The dialog's audio so far: mic bytes pushed between start and finish (to now before the finish) and the
    /// output samples taken. Any thread.
    func totals(micBytesNow: Int) -> (micBytes: Int, outputSamples: Int)? {
        window.withLock { window in
            window.map { (($0.micBytesAtStop ?? micBytesNow) - $0.micBytesAtStart, $0.taken) }
        }
    }

    /// Ends the audio when the output has not reached the finish position and the mic stopped
    /// (``micStoppedAfter`` without a push), or at the latest ``stopGrace`` after the finish. Event thread (its poll).
    func stopIfOverdue(micPushes: Int) {
        window.withLock { window in
            guard var current = window, !current.stopped, let asked = current.stopAskedAt else { return }
            let waited = ContinuousClock.now - asked
            let micStopped = waited >= Self.micStoppedAfter && micPushes == current.micPushesAtStop
            guard micStopped || waited >= Self.stopGrace else { return }
            endAudio(&current)
            window = current
        }
    }

    private func endAudio(_ current: inout DialogWindow) {
        current.stopped = true
        current.writer = nil
        session.stop() // what was sent goes out, then finish-task / StopTranscription
    }

    private func send(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        var result = session.send(audio: bytes)
        while result == .queueFull && policy == .wait && shared.state != .ended {
            usleep(2000)
            result = session.send(audio: bytes)
        }
        if result != .accepted { shared.audioBytesNotSent.add(bytes.count, ordering: .relaxed) }
    }
}
