import Dispatch

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
    /// Room one frame's events need at most.
    let recordsPerFrame = 16
    /// Records of an average frame: level and audio every frame, a packet (and a page) every other, telemetry
    /// every 25th; speech and drops now and then.
    static let typicalRecordsPerFrame = 4
    let samplesPerFrame: Int
    let bytesPerFrame: Int

    /// The rings are sized for `frames` frames of typical events, and each frame must find room for its worst
    /// case (``recordsPerFrame``, `outputSamplesPerFrame`, `bytesPerFrame`) before it is processed. Sizing the
    /// record and byte rings for the worst case of every frame made them 2.5 MiB per front end, all of it
    /// resident once the indices had wrapped.
    /// - Parameters:
    ///   - frames: how many frames of typical events the rings hold.
    ///   - outputSamplesPerFrame: the most output samples one frame yields.
    ///   - bytesPerFrame: the most encoded bytes one frame yields (packet plus page headers); 0 without encoding.
    ///   - typicalBytesPerFrame: the encoded bytes of an average frame (from the bitrate, with headroom).
    init(frames: Int, outputSamplesPerFrame: Int, bytesPerFrame: Int, typicalBytesPerFrame: Int) {
        samplesPerFrame = outputSamplesPerFrame
        self.bytesPerFrame = bytesPerFrame
        records = SPSCRing(minimumCapacity: max(4 * recordsPerFrame, frames * Self.typicalRecordsPerFrame))
        samples = SPSCRing(minimumCapacity: frames * outputSamplesPerFrame)
        bytes = SPSCRing(minimumCapacity: max(1, 4 * bytesPerFrame, frames * typicalBytesPerFrame))
    }

    /// Whether one more frame's events fit. Producer; real-time safe.
    var hasRoomForFrame: Bool {
        records.freeCount >= recordsPerFrame && samples.freeCount >= samplesPerFrame && bytes.freeCount >= bytesPerFrame
    }

    /// Wakes the drain thread. Producer; real-time safe.
    func signal() { semaphore.signal() }

    /// Waits until signalled or `milliseconds` pass (monotonic clock). Drain thread only.
    func wait(milliseconds: Int) { _ = semaphore.wait(timeout: .now() + .milliseconds(milliseconds)) }
}
