/// Undoes the processing stages' buffering delay so the front end's output lines up with the mic sample for
/// sample: the first ``latency`` processed samples (the stages' start-up, not mic audio) are dropped and the rest
/// is re-cut into whole frames. At the end of the stream the chain runs silent frames through the stages until
/// the last mic sample's output has come out (see ``ProcessingChain/finish(isPlaying:)``).
///
/// Created on the control thread (allocates); every other call is real-time safe, processing thread only.
final class LatencyCompensator {
    /// Samples the stages delay their output by.
    let latency: Int
    let frameLength: Int
    private let storage: UnsafeMutableBufferPointer<Int16>
    private var toSkip: Int
    /// Processed samples held (after the skipped start).
    private(set) var count = 0

    init(latency: Int, frameLength: Int) {
        self.latency = latency
        self.frameLength = frameLength
        toSkip = latency
        storage = .zeroed(capacity: latency + 2 * frameLength)
    }

    deinit { storage.deallocate() }

    /// Takes one processed frame (``frameLength`` samples).
    func append(_ frame: UnsafeBufferPointer<Int16>) {
        let skipped = min(toSkip, frame.count)
        toSkip -= skipped
        let kept = frame.count - skipped
        (storage.baseAddress! + count).update(from: frame.baseAddress! + skipped, count: kept)
        count += kept
    }

    /// Whether a whole frame is held.
    var hasFrame: Bool { count >= frameLength }

    /// The first `length` samples held (at most ``count``); valid until the next ``removeFirst(_:)``.
    func first(_ length: Int) -> UnsafeBufferPointer<Int16> {
        UnsafeBufferPointer(rebasing: storage[0..<min(length, count)])
    }

    /// Drops the first `length` samples held.
    func removeFirst(_ length: Int) {
        let n = min(length, count)
        // copyMemory is a memmove: the regions overlap.
        UnsafeMutableRawPointer(storage.baseAddress!).copyMemory(from: storage.baseAddress! + n,
                                                                 byteCount: (count - n) * MemoryLayout<Int16>.stride)
        count -= n
    }
}
