import AudioFrontEnd
import Foundation
import SpeechStreaming
import Synchronization

/// The bridge between the two halves. **Audio** goes on the front end's processing thread (its
/// ``AudioFrontEnd/FrontEndAudioSink``), straight into the streaming client's lock-free queue: PCM chunks, or
/// Opus packets with their durations (the client muxes the Ogg stream); no drain thread, no allocation, no
/// lock. **Events** of both halves go, from the front end's drain thread and the client's delivery queue, to the
/// session's event thread; after the front end's last event the client's audio ends.
///
/// On a ``RecognitionEngine`` (shared mode) the engine's ``DialogRouter`` hands it the audio through
/// ``takeProcessed(_:position:)`` / ``takePacket(_:start48k:advance48k:)`` (processing thread, clipped to the
/// dialog by the lock-free ``RealTimeWindow``) and the events through ``take(_:opusStart:outputEnd:)`` and
/// ``takeAudio(_:position:sampleRate:outputEnd:)``, kept to the dialog's ``DialogWindow``. With a
/// ``DialogOutputTap`` (the NUI facade; ``RecognitionSession``, on an engine or not) the dialog's audio, levels
/// and VAD go to it on the drain thread instead of the session's event thread. What still goes to the event thread
/// is bounded: service events by ``backlogLimit``, the front end's droppable ones by ``frontEndBacklogLimit``.
final class AudioForwarder: FrontEndRawAudioDelegate, FrontEndAudioSink, SpeechStreamingDelegate, @unchecked Sendable { // immutable, window under its mutex, rt on the processing thread
    private let session: SpeechStreamingSession
    private let window = Mutex<DialogWindow?>(nil)
    private let pump: EventPump
    private let shared: SharedState
    private let format: AudioFormat
    private let policy: RecognitionConfiguration.QueueFullPolicy
    private let reportsAudio: Bool
    /// The dialog's bounds as the processing thread reads them (shared mode).
    let rt = RealTimeWindow()
    /// Where the dialog's audio, levels and VAD go on the drain thread instead of the event thread (shared mode;
    /// ``DialogOutputTap``). Read and written only under `window`'s lock.
    private var tap: (any DialogOutputTap)?

    init(session: SpeechStreamingSession, pump: EventPump, shared: SharedState, configuration: RecognitionConfiguration) {
        self.session = session
        self.pump = pump
        self.shared = shared
        format = configuration.audioFormat
        policy = configuration.queueFullPolicy
        reportsAudio = configuration.reportsAudio
    }

    /// Core mode (the core's own front end): every event but the audio (``frontEnd(_:didProduceAudio:position:)``
    /// while the front end's own sequence is not asked for). With a tap the audio, levels and VAD go to it;
    /// the rest to the event thread, bounded (``postBounded(_:)``). The front end's drain thread. One rule for
    /// every event the drain reports (here and in ``take(_:opusStart:outputEnd:)``): ``report(_:)`` decides
    /// tap or event thread, under `window`'s lock, so what a dialog's completion waits for was posted before it
    /// was counted, and a tap closed by ``setTap(_:)`` is never called after.
    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
        switch event {
        case .audio:
            if !reportsAudio { return } // the samples went to the client on the processing thread
        case .oggPage, .opusPacket:
            return
        case .finished:
            pump.post(.frontEnd(event)) // before the stop, so the summary has it before completion can arrive
            session.stop() // every chunk was sent above: the client sends the rest, then finish-task
            return
        default:
            break
        }
        withWindow { _ in report(event) }
    }

    /// Core mode: one processed chunk as the drain read it. With a tap it goes to the tap with no allocation;
    /// without one, as an ``AudioChunk`` to the event thread (only with ``RecognitionConfiguration/reportsAudio``:
    /// the samples went to the client on the processing thread). The front end's drain thread.
    func frontEnd(_ frontEnd: FrontEnd, didProduceAudio samples: UnsafeBufferPointer<Int16>, position: Int) {
        guard reportsAudio else { return }
        withWindow { _ in
            if let tap { return tap.dialogAudio(samples, position: position) }
            postBounded(.audio(AudioChunk(position: position, sampleRate: frontEnd.configuration.effectiveOutputRate,
                                          samples: Array(samples))))
        }
    }

    /// Most front-end events waiting for the event thread before the droppable ones (audio, levels, echo
    /// telemetry) are dropped and counted in ``RecognitionDrops/eventsDropped``: a handler slower than the
    /// audio costs bounded memory and never holds the front end back (about 80 s of a 10 ms frame's audio and
    /// level events, ≈ 7 MiB at 16 kHz; the bound every event queue of the stack has, so a handler that keeps up
    /// on average never loses one to a scheduling hiccup at full speed). VAD, drops and the front end's end are
    /// never dropped.
    static let frontEndBacklogLimit = 16_384

    /// Posts a front-end event to the event thread; a droppable one only while fewer than
    /// ``frontEndBacklogLimit`` messages wait (one lock either way; at most that many more wait in the batch the
    /// thread handles). Drain thread.
    private func postBounded(_ event: FrontEndEvent) {
        switch event {
        case .audio, .level, .telemetry:
            if !pump.post(.frontEnd(event), ifBacklogBelow: Self.frontEndBacklogLimit) {
                shared.eventsDropped.add(1, ordering: .relaxed)
            }
        default:
            pump.post(.frontEnd(event))
        }
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

    /// Runs `body` under `window`'s lock, told to ThreadSanitizer (``AudioFrontEnd/SanitizerSync``: the drain's
    /// takes and a control thread's ``setTap(_:)`` meet at this lock, and the sanitizer does not see a contended
    /// `Mutex`'s acquire). Any thread.
    private func withWindow<Result>(_ body: (inout DialogWindow?) -> Result) -> Result {
        window.withLock { w in SanitizerSync.held(by: self) { body(&w) } }
    }

    /// Sets (or, nil, closes) the ``DialogOutputTap`` (on an engine, or on the core's own front end). Once it
    /// returns, the old tap is not called any more. Any thread but the drain thread; not from inside the tap.
    func setTap(_ newTap: (any DialogOutputTap)?) {
        withWindow { _ in tap = newTap }
    }

    /// Opens the window at output sample `start`. Control thread, after the client's start.
    func begin(at start: Int, outputRate: Int, micBytes: Int) {
        var opened = DialogWindow(start: start, outputRate: outputRate)
        opened.micBytesAtStart = micBytes
        if format == .opus { opened.preSkip = Self.opusPreSkip(rate: outputRate) }
        withWindow { $0 = opened }
        rt.open(start: start, start48k: opened.to48k(start), preSkip: opened.preSkip)
    }

    /// Takes one event of the engine's front end (drain thread). Returns false when it is outside the
    /// dialog (the router counts it as discarded).
    func take(_ event: FrontEndEvent, opusStart: Int, outputEnd: Int) -> Bool {
        withWindow { window -> Bool in
            guard var current = window else { return false }
            if current.stopped { // the audio ended; the drop counts still belong to the dialog until it ends
                if case .audio(let chunk) = event { // produced (and, in PCM, sent) before the end, its event after
                    guard let clipped = current.clip(chunk, before: format == .pcm ? rt.sentEnd : .max)
                    else { return false }
                    current.taken += clipped.samples.count
                    window = current
                    report(clipped)
                    return true
                }
                guard case .drops = event else { return false }
                pump.post(.frontEnd(event))
                return true
            }
            defer { window = current }
            switch event {
            case .audio(let chunk):
                guard let clipped = current.clip(chunk) else { return false }
                current.taken += clipped.samples.count
                // The samples went to the client on the processing thread (its last ones with the end mark).
                if format == .pcm, let stop = current.stop, outputEnd >= stop { endAudio(&current) }
                report(clipped)
                return true
            case .opusPacket(let packet):
                return format == .opus && track(packet, at: opusStart, &current)
            case .oggPage, .finished:
                return false
            default:
                report(current.rebased(event))
                return true
            }
        }
    }

    /// Takes one processed chunk of the engine's front end as the drain read it (shared mode), like
    /// ``take(_:opusStart:outputEnd:)`` for ``AudioFrontEnd/FrontEndEvent/audio(_:)``; with a tap the part inside
    /// the dialog goes to it with no allocation. Drain thread. Returns false when it is outside the dialog.
    func takeAudio(_ samples: UnsafeBufferPointer<Int16>, position: Int, sampleRate: Int, outputEnd: Int) -> Bool {
        let tapped = withWindow { window -> Bool? in
            guard let tap else { return nil }
            guard var current = window else { return false }
            let limit = current.stopped && format == .pcm ? rt.sentEnd : Int.max
            let from = max(position, current.start), to = min(position + samples.count, current.stop ?? .max, limit)
            guard from < to else { return false }
            current.taken += to - from
            if !current.stopped, format == .pcm, let stop = current.stop, outputEnd >= stop { endAudio(&current) }
            window = current
            tap.dialogAudio(UnsafeBufferPointer(rebasing: samples[(from - position)..<(to - position)]),
                            position: from - current.start)
            return true
        }
        if let tapped { return tapped }
        let chunk = AudioChunk(position: position, sampleRate: sampleRate, samples: Array(samples))
        return take(.audio(chunk), opusStart: 0, outputEnd: outputEnd)
    }

    /// Counts output samples `from..<to` the front end dropped instead of reporting (a gap in the audio
    /// positions, ``AudioFrontEnd/FrontEndConfiguration/EventsBehind/dropAppEvents``) as taken, clipped to the
    /// dialog as ``takeAudio(_:position:sampleRate:outputEnd:)`` clips a chunk: the completion does not wait for
    /// audio events that will not come, and the summary's totals stay exact; the tap is told. Drain thread.
    func takeGap(from start: Int, to end: Int, outputEnd: Int) {
        withWindow { window in
            guard var current = window else { return }
            let limit = current.stopped && format == .pcm ? rt.sentEnd : Int.max
            let from = max(start, current.start), to = min(end, current.stop ?? .max, limit)
            guard from < to else { return }
            current.taken += to - from
            if !current.stopped, format == .pcm, let stop = current.stop, outputEnd >= stop { endAudio(&current) }
            window = current
            tap?.dialogAudioDropped(samples: to - from)
        }
    }

    /// Hands a dialog's event to the tap when there is one (its VAD also to the event thread, for the summary's
    /// segments), else to the event thread. Under `window`'s lock.
    private func report(_ event: FrontEndEvent) {
        guard let tap else { return postBounded(event) }
        switch event {
        case .audio(let chunk):
            chunk.samples.withUnsafeBufferPointer { tap.dialogAudio($0, position: chunk.position) }
        case .level(let milliseconds, let input, let output):
            tap.dialogLevel(milliseconds: milliseconds, inputDecibels: input, outputDecibels: output)
        case .speechStarted(let milliseconds):
            tap.dialogSpeech(.speechStarted(milliseconds: milliseconds))
            pump.post(.tapped(event))
        case .speechEnded(let milliseconds):
            tap.dialogSpeech(.speechEnded(milliseconds: milliseconds))
            pump.post(.tapped(event))
        default:
            postBounded(event)
        }
    }

    /// The audio part of ``report(_:)``: to the tap, or to the event thread when the core reports audio.
    private func report(_ chunk: AudioChunk) {
        if tap != nil || reportsAudio { report(.audio(chunk)) }
    }

    /// Follows the packets the processing thread sent (``takePacket(_:start48k:advance48k:)``) to end the
    /// dialog's events with its audio.
    private func track(_ packet: OpusPacket, at start48k: Int, _ current: inout DialogWindow) -> Bool {
        guard start48k >= current.to48k(current.start) else { return false }
        let end48k = start48k + packet.durationSamples48k
        current.packetEnd48k = end48k
        if let stop = current.stop, end48k >= current.to48k(stop) { endAudio(&current) }
        return true
    }

    /// The pre-skip an Ogg header records for the front end's encoder at `rate` (its lookahead, 48 kHz).
    static func opusPreSkip(rate: Int) -> Int {
        var configuration = Opus.Encoder.Configuration()
        configuration.sampleRate = rate
        return (try? Opus.Encoder(configuration: configuration).preSkip) ?? 312
    }

    /// Closes the window at output sample `stop` (the mic's position at finish); ends the audio at once when
    /// the output is already there. Control thread.
    func requestStop(at stop: Int, outputEnd: Int, micBytes: Int, micPushes: Int) {
        withWindow { window in
            guard var current = window, current.stop == nil else { return }
            current.stop = max(stop, current.start)
            rt.close(at: current.stop!, stop48k: current.to48k(current.stop!))
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
        withWindow { window in
            window.map { (($0.micBytesAtStop ?? micBytesNow) - $0.micBytesAtStart, $0.taken) }
        }
    }

    /// Whether PCM the processing thread sent for the dialog has not come back as its audio events yet (the
    /// drain lags the socket): the dialog's completion waits for them, so its summary and its audio callbacks are
    /// whole. `handledEnd`: the end of the audio events the event thread has handled (dialog positions). With
    /// ``RecognitionConfiguration/reportsAudio`` the events are what must come first, and the drain's count
    /// (`taken`) runs ahead of them: it grows before the chunk's message is posted, let alone handled. Without
    /// it only the drain's count matters (the summary's totals). Event thread.
    func audioPending(handledEnd: Int) -> Bool {
        guard format == .pcm else { return false }
        return withWindow { window in
            guard let current = window else { return false }
            let sent = rt.sentEnd - current.start
            // With a tap the drain posted each chunk it counted, under this lock: `taken` is what was reported.
            return sent > 0 && (reportsAudio && tap == nil ? handledEnd : current.taken) < sent
        }
    }

    /// Ends the audio when the output has not reached the finish position and the mic stopped
    /// (``micStoppedAfter`` without a push), or at the latest ``stopGrace`` after the finish. Event thread (its poll).
    func stopIfOverdue(micPushes: Int) {
        withWindow { window in
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
        rt.end() // from here on nothing more is sent, and ``RealTimeWindow/sentEnd`` stays where it is
        session.stop() // what was sent goes out, then finish-task / StopTranscription
    }

    // MARK: Audio (processing thread)

    /// Core mode: every processed chunk goes to the client. Processing thread; real-time safe.
    func frontEnd(processed samples: UnsafeBufferPointer<Int16>, position: Int) {
        if format == .pcm { sendPCM(UnsafeRawBufferPointer(samples), endsAudio: false) }
    }

    /// Core mode: every packet goes to the client (the last one ends the Ogg stream, trimmed to the input). The audio ends at the
    /// front end's `.finished` event (drain thread), posted first so the summary has it before completion can come.
    func frontEnd(encoded packet: UnsafeRawBufferPointer, granuleAdvance48k: Int, isLast: Bool) {
        if format == .opus { sendPacket(packet, advance48k: granuleAdvance48k, endsStream: isLast, endsAudio: false) }
    }

    /// Shared mode: the part of a processed chunk inside the dialog; the chunk that reaches the finish position
    /// ends the audio. Processing thread; real-time safe.
    func takeProcessed(_ samples: UnsafeBufferPointer<Int16>, position: Int) -> Bool {
        guard format == .pcm, let (from, to, ends) = rt.clip(position: position, count: samples.count) else { return false }
        let slice = UnsafeBufferPointer(rebasing: samples[(from - position)..<(to - position)])
        sendPCM(UnsafeRawBufferPointer(slice), endsAudio: ends)
        return true
    }

    /// Shared mode: a packet starting at `start48k` of the engine's stream, when inside the dialog; the one that
    /// reaches the finish position ends the audio, trimmed to it. Processing thread; real-time safe.
    func takePacket(_ packet: UnsafeRawBufferPointer, start48k: Int, advance48k: Int) -> Bool {
        guard format == .opus, let (advance, ends) = rt.admit(packetAt: start48k, duration: advance48k) else { return false }
        sendPacket(packet, advance48k: advance, endsStream: ends, endsAudio: ends)
        return true
    }

    private func sendPCM(_ bytes: UnsafeRawBufferPointer, endsAudio: Bool) {
        guard bytes.count > 0 || endsAudio else { return }
        deliver(bytes.count) { session.enqueue(pcm: bytes, endsAudio: endsAudio) }
    }

    private func sendPacket(_ packet: UnsafeRawBufferPointer, advance48k: Int, endsStream: Bool, endsAudio: Bool) {
        deliver(packet.count) {
            session.enqueue(opusPacket: packet, durationSamples48k: advance48k, endsStream: endsStream, endsAudio: endsAudio)
        }
    }

    /// Sends with the queue-full policy: `.wait` retries (blocking the processing thread: for files pushed
    /// faster than real time), `.drop` counts the bytes in ``RecognitionDrops/audioBytesNotSent``.
    private func deliver(_ count: Int, _ send: () -> AudioSendResult) {
        var result = send()
        while result == .queueFull && policy == .wait && shared.state != .ended {
            usleep(2000)
            result = send()
        }
        if result != .accepted { shared.audioBytesNotSent.add(count, ordering: .relaxed) }
    }
}
