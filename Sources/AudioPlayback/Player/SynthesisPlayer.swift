import AudioFrontEnd
import Dispatch
import Foundation
import Synchronization
import Threads

/// Plays synthesized speech and is its own echo reference: whatever it hands to the device is pushed to the
/// front end's reference at the same moment, sample for sample, after volume — so the app does not push
/// reference (nor call play_start / play_over) for the speech it plays. Every rendered buffer is pushed, the
/// silence while idle included: the front end places reference by sample position against the mic, so a
/// reference that paused while nothing played would lag the mic by the pause (under the front end's 200 ms
/// resync threshold it is not brought back, and nothing is cancelled). `setPlaying(false)` between utterances
/// lets the canceller rest; the silence keeps the alignment.
///
/// Three sides, each on its own thread:
/// - **Input** (one thread at a time: the TTS client's): ``begin(format:sampleRate:)``, ``enqueue(_:)`` with each
///   binary audio frame's bytes, ``endInput()``. Never blocks: bytes go into a bounded ring (refused and counted
///   when full).
/// - **Worker** (the player's own thread): decodes, resamples to the playback rate and fills the decoded-sample
///   ring (SPSC, lock-free); delivers the events, in order, to ``setEventHandler(_:)``.
/// - **Render** (the device's audio thread, or ``SinkPlayback``'s thread): ``render(into:)``. Real-time safe: no
///   allocation, no lock, no Foundation; an underrun is filled with silence and counted.
///
/// ``stop()`` (any thread) takes effect at the next render call: within one device buffer.
/// Lifecycle: create (allocates, starts the worker) → utterances → ``close()`` (or deinit).
public final class SynthesisPlayer: @unchecked Sendable {
    // Invariant for @unchecked Sendable: the rings are SPSC with the producers and consumers named above; the
    // `render*` fields are touched by the render thread only, the `worker*` fields by the worker only; the input
    // fields by the input thread only; shared state is atomic or behind a `Locked` (never taken on render).
    public let configuration: PlaybackConfiguration
    /// Where the played samples go as echo reference (normally the ``FrontEnd``), if anywhere.
    public let reference: (any EchoReferenceSink)?
    /// The app's own sounds, mixed into the reference this player pushes: the sink's (a `NeoNui`'s, fed by
    /// `nui_push_reference_data` while this player is attached) or the player's own, fed by
    /// ``pushAppReference(samples:)``. See ``ReferenceMix``.
    public let appReference: ReferenceMix
    let attachedMix: ReferenceMix?
    let detached = Atomic<Bool>(false)

    let inputRecords = SPSCRing<InputRecord>(minimumCapacity: 4096)
    let inputBytes: SPSCRing<UInt8>
    let samples: SPSCRing<Int16>
    let marks = SPSCRing<UtteranceMark>(minimumCapacity: 256)
    let renderEvents = SPSCRing<RenderEventRecord>(minimumCapacity: 256)
    let wake = DispatchSemaphore(value: 0)

    let stopGeneration = Atomic<Int>(0)
    /// The last stop generation the worker has acted on, and the sample index before which everything is stale.
    let stopAcknowledged = Atomic<Int>(0)
    let skipUntil = Atomic<Int>(0)
    let volumeBits = Atomic<UInt32>(Float(1).bitPattern)
    /// A duck (``duck(decibels:milliseconds:)``): its gain, and the render frame count before which it applies.
    let duckGainBits = Atomic<UInt32>(Float(1).bitPattern)
    let duckUntilFrame = Atomic<Int>(0)
    let positionSamples = Atomic<Int>(0)
    let currentUtterance = Atomic<Int>(0)
    let underrunFrames = Atomic<Int>(0)
    let renderedFrames = Atomic<Int>(0)
    let referenceSamplesPushed = Atomic<Int>(0)
    let refusedInputBytes = Atomic<Int>(0)
    let refusedReferenceSamples = Atomic<Int>(0)
    let droppedEvents = Atomic<Int>(0)
    let shutdown = Atomic<Bool>(false)
    /// The worker thread (set once, at the end of init; nil when the system refused a thread).
    var worker: JoinableThread?
    let handler = Locked<EventHandlerBox?>(nil)
    let decodeCountsBox = Locked(DecodeCounts())

    // Input thread.
    var inputUtterance = 0
    var inputOpen = false
    var inputStopGeneration = 0

    // Worker thread.
    var workerDecoder: PlaybackDecoder?
    var workerUtterance = 0
    var workerStopGeneration = 0
    var workerDiscarding = false
    var workerSamples = 0
    let workerBytes: UnsafeMutableBufferPointer<UInt8>

    // Render thread.
    var renderStopGeneration = 0
    var renderUtterance = 0
    var renderActive = false
    var renderStarted = false
    var renderReportedPlaying = false
    var renderPosition = 0
    var renderRearmCountdown = -1
    var renderRearmUtterance = 0
    /// Frames rendered before the current piece, and the duck gain the last piece ended at.
    var renderClock = 0
    var renderDuckGain: Float = 1
    let renderMono: UnsafeMutableBufferPointer<Int16>
    let renderOut: UnsafeMutableBufferPointer<Int16>
    /// The device buffer plus the app's sounds: what is pushed as the reference.
    let renderReference: UnsafeMutableBufferPointer<Int16>
    let rearmFrames: Int

    /// Creates a player and starts its worker thread. Allocates; not real-time safe.
    /// - Parameters:
    ///   - configuration: the device format and buffer sizes.
    ///   - reference: where the played samples go: the ``FrontEnd``, whose reference format must then be the
    ///     device's (``PlaybackConfiguration/sampleRate`` and ``PlaybackConfiguration/channelCount``).
    /// - Throws: ``AudioFrontEndError`` naming the setting out of range or the format mismatch.
    public init(configuration: PlaybackConfiguration = PlaybackConfiguration(), reference: (any EchoReferenceSink)? = nil) throws {
        try configuration.validate()
        if let reference = (reference as? FrontEnd)?.configuration.reference,
           reference.sampleRate != configuration.sampleRate || reference.channelCount != configuration.channelCount {
            throw AudioFrontEndError(.invalidConfiguration,
                                     "the player renders \(configuration.channelCount) channel(s) at \(configuration.sampleRate) Hz but the front end's"
                                         + " reference is \(reference.channelCount) channel(s) at \(reference.sampleRate) Hz")
        }
        self.configuration = configuration
        self.reference = reference
        inputBytes = SPSCRing(minimumCapacity: configuration.inputCapacityBytes)
        samples = SPSCRing(minimumCapacity: configuration.sampleRate * configuration.bufferMilliseconds / 1000)
        workerBytes = .allocate(capacity: 4096)
        renderMono = .allocate(capacity: configuration.maximumRenderFrames)
        renderOut = .allocate(capacity: configuration.maximumRenderFrames * configuration.channelCount)
        renderReference = .allocate(capacity: configuration.maximumRenderFrames * configuration.channelCount)
        rearmFrames = configuration.sampleRate * configuration.rearmAfterMilliseconds / 1000
        attachedMix = reference?.attachPlayback(sampleRate: configuration.sampleRate, channelCount: configuration.channelCount)
        // Half a second of the app's sounds may wait (the render mixes them at its next calls).
        appReference = attachedMix ?? ReferenceMix(capacity: configuration.sampleRate * configuration.channelCount / 2)
        startWorker()
    }

    deinit {
        detach()
        workerBytes.deallocate()
        renderMono.deallocate()
        renderOut.deallocate()
        renderReference.deallocate()
    }

    /// Hands the sink's mix back (once): the app's pushes go to the sink directly again.
    func detach() {
        guard !detached.exchange(true, ordering: .acquiringAndReleasing) else { return }
        reference?.detachPlayback(attachedMix)
    }

    /// The app's own sounds (earcons, music it plays through its own output, not through this player), in the
    /// device format, pushed as the app plays them: mixed into the reference this player pushes at its next render
    /// calls (see ``ReferenceMix`` for the alignment bound and the counts). For a ``FrontEnd`` reference, push the
    /// app's sounds here instead of `FrontEnd.pushReference` while the player exists (a second stream pushed to the
    /// front end would interleave with the player's). One app thread; real-time safe.
    public func pushAppReference(samples: UnsafeBufferPointer<Int16>) -> PushResult {
        appReference.push(samples: samples)
    }

    /// The app's own sound started or ended (its `play_start` / `play_over`): the sink is told playback is on
    /// while either the app's sound or this player's speech plays, from the next render call. Any thread.
    public func setAppPlaying(_ isPlaying: Bool) { appReference.setAppPlaying(isPlaying) }

    /// Delivers every event to `handler` on the worker thread, in order (nil stops delivery). Any thread; the
    /// handler may call back into the player.
    public func setEventHandler(_ handler: (@Sendable (PlaybackEvent) -> Void)?) {
        let box = handler.map(EventHandlerBox.init)
        self.handler.withLock { $0 = box }
    }

    /// The gain applied to what is handed to the device (and so to the reference), 0...1 (clamped). Any thread;
    /// takes effect at the next render call.
    public var volume: Float {
        get { Float(bitPattern: volumeBits.load(ordering: .relaxed)) }
        set { volumeBits.store(max(0, min(1, newValue.isNaN ? 0 : newValue)).bitPattern, ordering: .relaxed) }
    }

    /// The utterance now (or last) playing: its samples handed to the device so far. Updated at each render
    /// call; any thread.
    public var playedPosition: PlayedPosition {
        PlayedPosition(samples: positionSamples.load(ordering: .acquiring), sampleRate: configuration.sampleRate)
    }

    /// The utterance now (or last) playing (0 before the first). Any thread.
    public var playingUtterance: Int { currentUtterance.load(ordering: .relaxed) }

    /// Decoded frames waiting to be rendered (the sample ring's fill): the latency the player adds. Any thread.
    public var bufferedFrames: Int { samples.count }

    /// Drops and underruns so far. Any thread.
    public var counts: PlaybackCounts {
        var counts = PlaybackCounts()
        counts.underrunFrames = underrunFrames.load(ordering: .relaxed)
        counts.renderedFrames = renderedFrames.load(ordering: .relaxed)
        counts.referenceSamplesPushed = referenceSamplesPushed.load(ordering: .relaxed)
        counts.refusedInputBytes = refusedInputBytes.load(ordering: .relaxed)
        counts.refusedReferenceSamples = refusedReferenceSamples.load(ordering: .relaxed)
        counts.droppedEvents = droppedEvents.load(ordering: .relaxed)
        return counts
    }

    /// What the decoders stepped over so far, all utterances together. Any thread.
    public var decodeCounts: DecodeCounts { decodeCountsBox.withLock { $0 } }

    // MARK: Input thread

    /// Starts a new utterance in `format` (the task's `format` and `sample_rate`); it plays after what is
    /// already queued. Returns its number (1, 2, …), which the events carry. Input thread; never blocks.
    /// After a ``stop()`` the stopped utterance's input is ended here; otherwise it must have been ended.
    /// - Throws: ``AudioFrontEndError/Code/invalidState`` when the previous utterance's input was not ended, or
    ///   the record ring is full.
    @discardableResult
    public func begin(format: SynthesisAudioFormat, sampleRate: Int) throws -> Int {
        let generation = stopGeneration.load(ordering: .acquiring)
        if inputOpen && generation != inputStopGeneration { endInput() }
        guard !inputOpen else {
            throw AudioFrontEndError(.invalidState, "call endInput() (or stop()) before beginning another utterance")
        }
        let utterance = inputUtterance + 1
        let record = InputRecord(kind: .begin, utterance: utterance, format: format, sampleRate: sampleRate,
                                 stopGeneration: generation)
        guard inputRecords.write(record) else {
            throw AudioFrontEndError(.invalidState, "the player's input queue is full")
        }
        inputUtterance = utterance
        inputOpen = true
        inputStopGeneration = generation
        wake.signal()
        return utterance
    }

    /// Queues the bytes of one binary audio frame (or any piece of the stream) for decoding. Input thread;
    /// never blocks. Returns the bytes taken: all of them, or fewer when the input buffer is full (the rest is
    /// counted in ``PlaybackCounts/refusedInputBytes``), or 0 outside an utterance.
    @discardableResult
    public func enqueue(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard inputOpen, !bytes.isEmpty else {
            if !bytes.isEmpty { refusedInputBytes.add(bytes.count, ordering: .relaxed) }
            return 0
        }
        let room = min(bytes.count, inputBytes.freeCount)
        guard room > 0, inputRecords.freeCount > 1 else {
            refusedInputBytes.add(bytes.count, ordering: .relaxed)
            return 0
        }
        let taken = inputBytes.write(UnsafeBufferPointer(rebasing: bytes.bindMemory(to: UInt8.self)[0..<room]))
        inputRecords.write(InputRecord(kind: .data, utterance: inputUtterance, byteCount: taken))
        if taken < bytes.count { refusedInputBytes.add(bytes.count - taken, ordering: .relaxed) }
        wake.signal()
        return taken
    }

    /// Ends the utterance's input (the synthesis task completed): the worker decodes the rest, reports
    /// ``PlaybackEvent/inputEnded(utterance:samples:)``, and the render side reports
    /// ``PlaybackEvent/drained(utterance:position:)`` once the last sample is handed out. Input thread.
    public func endInput() {
        guard inputOpen else { return }
        while !inputRecords.write(InputRecord(kind: .end, utterance: inputUtterance)) { usleep(1000) }
        inputOpen = false
        wake.signal()
    }

    // MARK: Any thread

    /// Stops playback: the next render call hands out silence, the queued audio and input are dropped, and
    /// ``PlaybackEvent/stopped(utterance:position:)`` reports where it stopped. Input given after it for the same
    /// utterance is dropped; ``begin(format:sampleRate:)`` starts the next (it ends the stopped utterance's
    /// input itself). Any thread; does not block.
    public func stop() {
        stopGeneration.add(1, ordering: .acquiringAndReleasing)
        wake.signal()
    }

    /// Stops the worker thread and waits until it has returned (at most about one round of its work). Events not
    /// yet delivered are dropped. Any thread; from the worker's own (an event handler) it does not wait.
    public func close() {
        guard !shutdown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        detach()
        wake.signal()
        worker?.join() // from the worker itself: detaches it instead
    }
}

/// An immutable holder of the event handler. Stored as a bare closure in `Locked<(@Sendable (PlaybackEvent) ->
/// Void)?>` and read with `withLock { $0 }` (the value passes `inout` through the generic `withLock`), every read
/// wrapped the stored closure in one more reabstraction thunk and wrote that back: a heap block more per event,
/// kept while the handler stayed set, and a deeper stack on the worker at every call (about 128 bytes per event in
/// a debug build: a long-lived player would have overflowed its worker's stack). A class reference is not
/// reabstracted, and its `let` cannot be written back. (VoiceRecognition's `HandlerBox` fixed the same for
/// recognition events.)
final class EventHandlerBox: Sendable {
    let call: @Sendable (PlaybackEvent) -> Void
    init(_ call: @escaping @Sendable (PlaybackEvent) -> Void) { self.call = call }
}
