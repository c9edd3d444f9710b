import Synchronization

/// Admits one pushing thread at a time and can be closed for good. Real-time safe (one compare-exchange).
final class PushGate: Sendable {
    private let state = Atomic<Int>(0) // 0 open, 1 a push is inside, 2 closed

    /// Enters, or says why not.
    func enter() -> PushStatus? {
        let (exchanged, original) = state.compareExchange(expected: 0, desired: 1, ordering: .acquiring)
        if exchanged { return nil }
        return original == 2 ? .notRunning : .concurrentPush
    }

    func leave() { state.store(0, ordering: .releasing) }

    /// Closes the gate once the push inside (if any) has left. Control thread; may spin briefly.
    func close() {
        while true {
            let (exchanged, original) = state.compareExchange(expected: 0, desired: 2, ordering: .acquiringAndReleasing)
            if exchanged || original == 2 { return }
            sched_yield()
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The half sample left over when a byte push ends on an odd byte: kept for the next push.
struct ByteCarry {
    var byte: UInt8 = 0
    var isPresent = false
}

/// Collects converted mic samples at the processing rate until a whole 10 ms frame is there.
/// One thread at a time (the holder of the mic gate's processing); real-time safe.
final class FrameAccumulator {
    let frameLength: Int
    let buffer: UnsafeMutableBufferPointer<Int16>
    private(set) var count = 0

    init(frameLength: Int, capacity: Int) {
        self.frameLength = frameLength
        buffer = .zeroed(capacity: max(capacity, 2 * frameLength))
    }

    deinit { buffer.deallocate() }

    var hasFrame: Bool { count >= frameLength }
    /// Room for more converted samples.
    var freeSpace: UnsafeMutableBufferPointer<Int16> { UnsafeMutableBufferPointer(rebasing: buffer[count...]) }

    func didAppend(_ n: Int) { count += n }

    /// The first frame. Valid until ``removeFrame()``.
    var firstFrame: UnsafeBufferPointer<Int16> { UnsafeBufferPointer(rebasing: buffer[0..<frameLength]) }

    func removeFrame() {
        let rest = count - frameLength
        if rest > 0 { buffer.baseAddress!.update(from: buffer.baseAddress! + frameLength, count: rest) }
        count = rest
    }

    /// Pads the partial frame with zeros to a whole frame; returns how many real samples it held.
    func padToFrame() -> Int {
        let real = count
        if count < frameLength {
            (buffer.baseAddress! + count).update(repeating: 0, count: frameLength - count)
            count = frameLength
        }
        return real
    }
}
