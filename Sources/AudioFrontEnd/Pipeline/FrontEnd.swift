import Synchronization

/// The real-time voice front end: the app pushes microphone audio and the audio it plays (the reference) from
/// its own threads; the front end cancels the echo, suppresses noise, detects speech, converts the rate and
/// encodes, and reports everything as ``FrontEndEvent``s.
///
/// Threads:
/// - one thread pushes the mic (``pushMic(bytes:)`` / ``pushMic(samples:)``), and each complete 10 ms frame is
///   processed inline on that thread, right away (the lowest latency: no hand-off, no wake-up; a frame costs a
///   fraction of a millisecond); frames a push could not process because the event consumer was behind are
///   processed by the drain thread once it has caught up (no push fails for it: see `MicGate`);
/// - another thread pushes the reference (``pushReference(bytes:)`` / ``pushReference(samples:)``) at the same time;
/// - a third thread controls (``start()``, ``setPlaying(_:)``, ``finish()``, ``cancel()``);
/// - the front end's drain thread delivers events to the ``delegate`` and to ``events``, never the audio threads,
///   and processes the frames left behind (above); a front end made with a ``FrontEndDrainHost`` (package) has
///   no drain thread: the host's thread does that in its rounds.
/// Pushes are real-time safe: no allocation, no lock, no blocking, no throwing; they return a ``PushResult``.
/// (The WebRTC stages lock their own uncontended mutex inside webrtc-audio-processing 0.3: 3 times per frame for
/// AEC2, once each for WebRTC NS and VAD; every other stage takes none. `FrontEndLockTests` counts them.)
/// Processed audio is emitted in the push that completes its frame and lags the mic by ``processingDelay``.
public final class FrontEnd: @unchecked Sendable {
    // Invariant for @unchecked Sendable: the mic ring's producer side and micCarry are touched only by the push
    // inside the mic gate; mic-side processing state (micRing consumer side, micConverter, chain, frame buffer,
    // the event rings' producer side) only by the holder of the mic gate's processing (a push, or the drain
    // thread for frames a push left behind); reference-side state only inside the reference gate; the gates are
    // atomics; the drain side is the EventChannel's consumer and the Mutex-guarded sinks.
    public let configuration: FrontEndConfiguration
    let micRing: SPSCRing<Int16>
    let references: ReferenceHistory
    let eventChannel: EventChannel
    let chain: ProcessingChain
    let micConverter: InputConverter
    let referenceConverter: InputConverter
    let frame: FrameAccumulator
    let drain: EventDrain
    let micGate = MicGate()
    let referenceGate = PushGate()
    let lifecycle = Atomic<Int>(Lifecycle.created.rawValue)
    let playing = Atomic<Bool>(true)
    /// Set by ``startReferenceAtMic()``: the reference's first sample goes to the mic's position.
    let referenceStartsAtMic = Atomic<Bool>(false)
    let micRefusedBytes = Atomic<Int>(0)
    let referenceRefusedBytes = Atomic<Int>(0)
    var micCarry = ByteCarry()
    var referenceCarry = ByteCarry()
    /// Decoded bytes of a push (push threads; the mic and reference sides each have their own).
    let scratch: UnsafeMutableBufferPointer<Int16>
    let referenceBytesScratch: UnsafeMutableBufferPointer<Int16>
    /// Mic samples read from the ring for conversion (processing thread).
    let micScratch: UnsafeMutableBufferPointer<Int16>
    let referenceScratch: UnsafeMutableBufferPointer<Int16>
    /// Frames the drain thread processed (left behind by a push: ``processMicLeftBehind()``). Any thread.
    let framesProcessedByDrain = Atomic<Int>(0)

    enum Lifecycle: Int { case created, running, ended }

    /// Creates a front end: validates the configuration, creates every stage and ring, starts nothing.
    /// Control thread; allocates.
    /// - Throws: ``AudioFrontEndError`` naming the problem (e.g. 8000 Hz with echo cancellation on).
    public convenience init(configuration: FrontEndConfiguration = FrontEndConfiguration()) throws {
        try self.init(configuration: configuration, host: nil)
    }

    /// Creates a front end whose events are drained by `host`'s thread instead of a drain thread of its own
    /// (``FrontEndDrainHost``; nil: its own, as ``init(configuration:)``). Hosted, the ``delegate`` runs on the
    /// host's thread; ``finish()`` and ``waitUntilDrained()`` return at once there (elsewhere they wait for the
    /// host's rounds); ``finish()`` from the host's thread with full rings would wait for itself, so a hosted
    /// front end is ended with ``cancel()`` there. Control thread; allocates.
    /// - Throws: ``AudioFrontEndError`` naming the problem.
    package init(configuration: FrontEndConfiguration, host: FrontEndDrainHost?) throws {
        try configuration.validate()
        _ = RuntimeWarmUp.done
        self.configuration = configuration
        let rate = configuration.processingRate
        let frameLength = rate / 100
        micRing = SPSCRing(minimumCapacity: configuration.mic.sampleRate * configuration.mic.channelCount
                           * configuration.micBufferMilliseconds / 1000)
        references = ReferenceHistory(minimumCapacity: rate * configuration.referenceWindowMilliseconds / 1000,
                                      resyncLag: Self.referenceResyncThresholdMilliseconds * rate / 1000)
        eventChannel = EventChannel(frames: 200, outputSamplesPerFrame: OutputStages.maximumOutputPerFrame(configuration),
                                    bytesPerFrame: configuration.encoding == nil ? 0 : 2 * (Opus.maximumPacketBytes + 512),
                                    typicalBytesPerFrame: OutputStages.typicalBytesPerFrame(configuration),
                                    dropsAppEvents: configuration.whenEventsBehind == .dropAppEvents, host: host)
        micConverter = try InputConverter(format: configuration.mic, outputRate: rate, name: "mic")
        referenceConverter = try InputConverter(format: configuration.reference, outputRate: rate, name: "reference")
        frame = FrameAccumulator(frameLength: frameLength, capacity: frameLength + micConverter.maximumOutput + 64)
        chain = try ProcessingChain(configuration: configuration, references: references, events: eventChannel)
        scratch = .zeroed(capacity: 1024)
        referenceBytesScratch = .zeroed(capacity: 1024)
        micScratch = .zeroed(capacity: micConverter.maximumFrames * micConverter.channelCount)
        referenceScratch = .zeroed(capacity: referenceConverter.maximumOutput)
        drain = EventDrain(events: eventChannel)
    }

    deinit {
        drain.join() // the drain thread holds the front end only during a delivery: it is between them, and returns now
        scratch.deallocate()
        referenceBytesScratch.deallocate()
        micScratch.deallocate()
        referenceScratch.deallocate()
    }

    /// Receives every event on the drain thread, in order. Set it before ``start()``; held weakly.
    public var delegate: (any FrontEndDelegate)? {
        get { drain.delegate }
        set { drain.delegate = newValue }
    }

    /// Receives the processed audio and the Opus packets on the processing thread (the mic push thread, the
    /// drain thread for frames a push left behind, or ``finish()``'s; one at a time, in order), as soon as the stages produce them and before their events: the real-time path to a
    /// consumer such as a streaming client's lock-free queue, with no hand-off through the drain thread. Set it
    /// before ``start()`` (not changed while running); held strongly until the front end is released. Its calls must
    /// be real-time safe.
    public var audioSink: (any FrontEndAudioSink)? {
        get { chain.output.sink }
        set { chain.output.sink = newValue }
    }

    /// The pre-skip (48 kHz samples) an Ogg Opus stream of the packets records: the encoder's lookahead plus the
    /// stages' start-up delay; 0 without encoding. Constant; any thread.
    public var opusPreSkip: Int { chain.output.opusPreSkip }

    /// Every event, in order, as an async sequence. Single consumer: each access returns the same sequence,
    /// which ends after ``FrontEndEvent/finished(_:)`` or on ``cancel()``. Access it before ``start()`` to
    /// receive everything; at most ``FrontEndEvents/bufferLimit`` unread events are kept (the newest).
    public var events: FrontEndEvents { drain.sequence(owner: self) }

    /// App-only events (audio, levels, telemetry, packets, pages) the processing thread dropped because the event
    /// rings were full (only with ``FrontEndConfiguration/EventsBehind/dropAppEvents``; also in
    /// ``DropCounts/eventOverruns``). Any thread; real-time safe (an atomic load).
    public var appEventsDropped: Int { eventChannel.appEventsDropped.load(ordering: .relaxed) }

    /// Events ``events`` dropped because its reader was ``FrontEndEvents/bufferLimit`` behind. Any thread.
    public var sequenceEventsDropped: Int { drain.sequenceDrops.load(ordering: .relaxed) }

    /// Starts accepting pushes and delivering events. Control thread.
    /// - Throws: ``AudioFrontEndError/Code/invalidState`` when already started or ended.
    public func start() throws {
        guard lifecycle.compareExchange(expected: Lifecycle.created.rawValue, desired: Lifecycle.running.rawValue,
                                        ordering: .acquiringAndReleasing).exchanged else {
            throw AudioFrontEndError(.invalidState, "the front end was already started; create a new one for a new stream")
        }
        drain.start(owner: self)
    }

    /// Whether the front end accepts pushes now.
    public var isRunning: Bool { lifecycle.load(ordering: .acquiring) == Lifecycle.running.rawValue }

    /// Playback hints (NUI's `play_start` / `play_over`): while not playing there is no echo, so the canceller
    /// pauses (after ``FrontEndConfiguration/echoTailAfterPlaybackMilliseconds`` for the room's tail) instead of
    /// adapting to silence, and resumes where it left off: after a play_start (`true` after `false`), at the
    /// first frame whose aligned reference holds sound, not at the hint, so how long the hint came before the
    /// sound (a TTS server's latency) does not change what the cancellers make of it (issue 14).
    ///
    /// The app need not push reference while nothing plays. Reference is placed by sample position, so after
    /// such a gap the reference stream would lag the mic by the gap; on play_start (`true` after `false`) the
    /// next reference push first advances the reference stream, with silence, to the mic's current position
    /// when it lags by more than ``referenceResyncThresholdMilliseconds`` (an app that kept pushing silence
    /// lags by scheduling jitter only, and its alignment is kept). Call it before pushing the new playback's
    /// reference. Without the hint a reference that keeps arriving behind the mic (started after it) is
    /// re-anchored too, once the delay estimator has had its say and 200 ms of frames found it late
    /// (`ReferenceHistory.lateReadsBeforeRealign`): the hint saves that fifth of a second. Both are one mechanism,
    /// `ReferenceHistory`'s re-anchoring, carried out by the reference push thread. Any thread; real-time safe.
    public func setPlaying(_ isPlaying: Bool) {
        let was = playing.exchange(isPlaying, ordering: .acquiringAndReleasing)
        if isPlaying && !was { references.requestResync() } // carried out by the next reference push
    }

    /// How far the reference stream may lag the mic at play_start before it is advanced, ms.
    public static let referenceResyncThresholdMilliseconds = 200

    /// How far the processed audio (``FrontEndEvent/audio(_:)``, NUI's `EVENT_AEC_DATA`, the Opus stream) lags
    /// the mic: the echo canceller(s)' and noise suppressor's fixed delay, at the output rate. The output is
    /// emitted as soon as the stages produce it, not held back; output sample `n + processingDelay.samples`
    /// carries mic sample `n`. Constant; any thread. Also in ``FrontEndSummary`` and ``EchoTelemetry``.
    public var processingDelay: ProcessingDelay { chain.processingDelay }

    /// The delay estimate from reference to echo after the last processed frame, ms; nil before the first
    /// confident estimate. Any thread (an atomic the processing thread stores once a frame; telemetry carries
    /// it too, in step with the other figures).
    public var delayEstimateMilliseconds: Double? { chain.latestDelayMilliseconds }

    /// The drop and underrun counts so far. Mic push thread or after the end.
    var dropCounts: DropCounts {
        var drops = DropCounts()
        drops.micRefusedBytes = micRefusedBytes.load(ordering: .relaxed)
        drops.referenceRefusedBytes = referenceRefusedBytes.load(ordering: .relaxed)
        drops.referenceDroppedSamples = references.droppedCount
        drops.referenceMissingSamples = references.missingCount
        drops.eventOverruns = eventChannel.appEventsDropped.load(ordering: .relaxed)
        return drops
    }
}

/// Receives a ``FrontEnd``'s processed audio and Opus packets on its processing thread (``FrontEnd/audioSink``).
///
/// Called on the thread that processes a frame (the mic push thread, the drain thread for frames a push left
/// behind when the event consumer was behind, or the thread in ``FrontEnd/finish()``), one at a time, in
/// order, before the same output's ``FrontEndEvent``. Real-time: the calls must not allocate, lock or block. The
/// buffers are valid only during the call.
public protocol FrontEndAudioSink: AnyObject, Sendable {
    /// Processed samples at the output rate; `position` is the first one's index from the stream's start.
    func frontEnd(processed samples: UnsafeBufferPointer<Int16>, position: Int)
    /// One Opus packet and the granule positions it advances (48 kHz); the stream's last packet (`isLast`, from
    /// ``FrontEnd/finish()``) advances only to the end of the real input (RFC 7845 end trimming).
    func frontEnd(encoded packet: UnsafeRawBufferPointer, granuleAdvance48k: Int, isLast: Bool)
}

/// Receives a ``FrontEnd``'s events.
///
/// Called on the front end's drain thread (or its ``FrontEndDrainHost``'s thread), one event at a time, in
/// order, never on a push thread and never
/// while the front end holds a lock: a callback may call back into the front end.
public protocol FrontEndDelegate: AnyObject, Sendable {
    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent)
}

/// A ``FrontEndDelegate`` that takes the processed audio as the drain thread read it, without an ``AudioChunk``
/// (no `[Int16]` per 10 ms chunk): the stack's own consumers (VoiceRecognition's engine). Used for
/// ``FrontEndEvent/audio(_:)`` while the front end's ``FrontEnd/events`` sequence was never asked for; every
/// other event still comes through ``FrontEndDelegate/frontEnd(_:didProduce:)``, in the same order.
package protocol FrontEndRawAudioDelegate: FrontEndDelegate {
    /// One chunk of processed audio at the output rate: `samples` are valid during the call only; `position` is
    /// the first one's index from the stream's start. Drain thread; the buffer is the drain's, no allocation.
    func frontEnd(_ frontEnd: FrontEnd, didProduceAudio samples: UnsafeBufferPointer<Int16>, position: Int)
    /// The processed audio up to output position `end` whose events were dropped
    /// (``FrontEndConfiguration/EventsBehind/dropAppEvents``) and that no later chunk shows as a gap yet (e.g.
    /// the stream's latest frames, dropped while the drain was behind): called once the drain has read every
    /// record written before. Drain thread.
    func frontEnd(_ frontEnd: FrontEnd, didDropAudioUpTo end: Int)
}

extension FrontEndRawAudioDelegate {
    package func frontEnd(_ frontEnd: FrontEnd, didDropAudioUpTo end: Int) {}
}
