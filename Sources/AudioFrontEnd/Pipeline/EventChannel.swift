import Dispatch
import Synchronization

/// The rings that carry events from the audio thread to the drain thread, and the semaphore that wakes it.
///
/// Producer: the thread that processes frames (the mic push thread, the drain thread for frames a push left
/// behind, or the control thread in `finish`; one at a time, handed over by the `MicGate`'s acquire/release).
/// Consumer: the drain thread. Posting is real-time safe: `DispatchSemaphore.signal` is an atomic increment, and
/// a futex (Linux) or ulock (Darwin) wake only when the drain thread waits; it neither allocates nor locks.
/// (Unnamed POSIX semaphores, used before, do not exist on Darwin.)
final class EventChannel: @unchecked Sendable {
    // Invariant for @unchecked Sendable: each ring is SPSC (producer: processing thread; consumer: drain thread);
    // the semaphore is thread-safe.
    let records: SPSCRing<RawEvent>
    let samples: SPSCRing<Int16>
    let bytes: SPSCRing<UInt8>
    private let semaphore = DispatchSemaphore(value: 0)
    /// The thread that drains these rings when it is not the front end's own (``FrontEndDrainHost``): signalled
    /// instead of ``semaphore``.
    let host: FrontEndDrainHost?
    /// Room one frame's events need at most.
    let recordsPerFrame = 16
    /// Records of an average frame: level and audio every frame, a packet (and a page) every other, telemetry
    /// every 25th; speech and drops now and then.
    static let typicalRecordsPerFrame = 4
    let samplesPerFrame: Int
    let bytesPerFrame: Int
    /// Records kept free for the events ``FrontEndConfiguration/EventsBehind/dropAppEvents`` never drops
    /// (speech, barge-in, drops, finished): a frame's app-only events are written only while this many more than
    /// ``recordsPerFrame`` are free. 256: minutes of speech events with nobody reading.
    static let keptReserve = 256
    /// The most kept records one frame (or the end) writes: a speech end and start, a barge-in, a drop report.
    static let keptRecordsPerFrame = 4
    /// ``keptReserve`` with ``FrontEndConfiguration/EventsBehind/dropAppEvents``, else 0.
    let reserve: Int
    /// Whether the frame being processed writes its app-only events (``beginFrame()``). Producer only.
    private(set) var appEventsFit = true
    /// App-only events dropped so far (``FrontEnd/appEventsDropped``). Written by the producer only (a relaxed
    /// load and store, no read-modify-write); read from any thread.
    let appEventsDropped = Atomic<Int>(0)
    /// The end (output position) of the last audio chunk a frame dropped instead of writing; the drain reports
    /// it once it has read every record written before (``EventDrain``): a dropped tail has no later chunk to
    /// show its gap. Written by the producer (a release store); read by the consumer.
    let droppedAudioEnd = Atomic<Int>(0)
    /// ``DropCounts/eventOverruns`` of the last drop report written. Producer only.
    var reportedOverruns = 0

    /// The rings are sized for `frames` frames of typical events, and each frame must find room for its worst
    /// case (``recordsPerFrame``, `outputSamplesPerFrame`, `bytesPerFrame`) before it is processed. Sizing the
    /// record and byte rings for the worst case of every frame made them 2.5 MiB per front end, all of it
    /// resident once the indices had wrapped.
    /// - Parameters:
    ///   - frames: how many frames of typical events the rings hold.
    ///   - outputSamplesPerFrame: the most output samples one frame yields.
    ///   - bytesPerFrame: the most encoded bytes one frame yields (packet plus page headers); 0 without encoding.
    ///   - typicalBytesPerFrame: the encoded bytes of an average frame (from the bitrate, with headroom).
    ///   - dropsAppEvents: ``FrontEndConfiguration/EventsBehind/dropAppEvents`` (else lossless backpressure).
    ///   - host: the thread that drains the rings instead of the front end's own drain thread.
    init(frames: Int, outputSamplesPerFrame: Int, bytesPerFrame: Int, typicalBytesPerFrame: Int, dropsAppEvents: Bool = false,
         host: FrontEndDrainHost? = nil) {
        self.host = host
        samplesPerFrame = outputSamplesPerFrame
        reserve = dropsAppEvents ? Self.keptReserve : 0
        self.bytesPerFrame = bytesPerFrame
        records = SPSCRing(minimumCapacity: max(4 * recordsPerFrame, frames * Self.typicalRecordsPerFrame) + reserve)
        samples = SPSCRing(minimumCapacity: frames * outputSamplesPerFrame)
        bytes = SPSCRing(minimumCapacity: max(1, 4 * bytesPerFrame, frames * typicalBytesPerFrame))
    }

    /// Whether one more frame's events fit (leaving ``reserve`` records free). Producer; real-time safe.
    var hasRoomForFrame: Bool {
        records.freeCount >= recordsPerFrame + reserve && samples.freeCount >= samplesPerFrame
            && bytes.freeCount >= bytesPerFrame
    }

    /// Whether the next frame (or the end) may be processed now, and whether it writes its app-only events
    /// (``appEventsFit``). Lossless: only when all its events fit. With ``FrontEndConfiguration/EventsBehind/dropAppEvents``
    /// also when only the kept ones fit; its app-only events are then dropped and counted. Producer; real-time
    /// safe: the normal case is the room check it replaces and one store.
    @inline(__always)
    func beginFrame() -> Bool {
        if hasRoomForFrame {
            appEventsFit = true
            return true
        }
        return beginFrameBehind()
    }

    private func beginFrameBehind() -> Bool {
        guard hasRoomForKeptEvents else { return false }
        appEventsFit = false
        return true
    }

    /// Whether ``beginFrame()`` would admit a frame now, without starting one: for a thread that does not hold
    /// the processing yet. Either side; real-time safe.
    var admitsFrame: Bool { hasRoomForFrame || hasRoomForKeptEvents }

    private var hasRoomForKeptEvents: Bool { reserve > 0 && records.freeCount >= Self.keptRecordsPerFrame }

    /// Counts one app-only event the frame drops. Producer; real-time safe.
    func dropAppEvent() {
        appEventsDropped.store(appEventsDropped.load(ordering: .relaxed) + 1, ordering: .relaxed)
    }

    /// `drops` as the next drop report carries them: while frames are dropping their app-only events, with the
    /// overruns of the last report (the new count goes out with the next report made with room, or the end), so
    /// a stalled consumer's drops do not fill ``reserve`` with a report per push. Producer; real-time safe.
    func reportable(_ drops: DropCounts) -> DropCounts {
        guard !appEventsFit else { return drops }
        var held = drops
        held.eventOverruns = reportedOverruns
        return held
    }

    /// Wakes the drain thread (or the host's). Producer; real-time safe.
    func signal() {
        if let host { host.signal() } else { semaphore.signal() }
    }

    /// Waits until signalled or `milliseconds` pass (monotonic clock). Drain thread only.
    func wait(milliseconds: Int) { _ = semaphore.wait(timeout: .now() + .milliseconds(milliseconds)) }
}
