import Synchronization

/// The app's own sounds (earcons, music it plays through its own output) on their way into the reference an SDK
/// playback pushes: the app pushes them here as it plays them, and the playback's render adds them to the buffer
/// it pushes as the front end's reference — one reference stream, the two sounds mixed, instead of two streams
/// interleaved (which would break its sample alignment with the mic).
///
/// Alignment: an app sample is mixed into the first render call after its push, so when the app pushes each of
/// its output buffers as it hands it to its device, it lands in the reference within one playback device buffer
/// (plus the app's own buffer) of when it played. Pushed ahead of that, samples wait (at most ``capacity``; the
/// rest is dropped and counted in ``overflowSamples``) and are mixed later than they played.
///
/// Missing samples: between ``setAppPlaying(_:)`` `true` and `false`, once the app's first samples arrived, a
/// render that finds fewer samples than its buffer mixes silence for the rest and counts it in
/// ``missingSamples``; outside that the app's sounds are simply absent (nothing counted).
///
/// Threading: one app thread pushes (``push(samples:)``, ``setAppPlaying(_:)`` any thread), the playback's render
/// thread mixes (``mix(into:)``); the counters from any thread. All real-time safe: no lock, no allocation after
/// `init`, never blocks.
public final class ReferenceMix: @unchecked Sendable {
    // Invariant for @unchecked Sendable: the ring is SPSC (app producer, render consumer); `render*` fields are the
    // render thread's alone; everything shared is atomic.
    private let ring: SPSCRing<Int16>
    /// The most samples (interleaved) waiting to be mixed.
    public var capacity: Int { ring.capacity }
    private let appPlaying = Atomic<Bool>(false)
    /// The ring's write index at the last ``reset()``: what was written before it is dropped by the render.
    private let discardBefore = Atomic<Int>(0)
    private let overflow = Atomic<Int>(0)
    private let missing = Atomic<Int>(0)
    private let mixed = Atomic<Int>(0)
    private var renderPrimed = false

    /// Allocates room for `capacity` samples (rounded up to a power of two). Not real-time safe.
    public init(capacity: Int) {
        ring = SPSCRing(minimumCapacity: capacity)
    }

    /// Samples the app pushed ahead of the render and that did not fit: dropped. Any thread.
    public var overflowSamples: Int { overflow.load(ordering: .relaxed) }
    /// Samples the render found missing while the app was playing: mixed as silence. Any thread.
    public var missingSamples: Int { missing.load(ordering: .relaxed) }
    /// App samples mixed into the reference so far. Any thread.
    public var mixedSamples: Int { mixed.load(ordering: .relaxed) }
    /// Whether the app said its own sound is playing (`play_start` until `play_over`). Any thread.
    public var isAppPlaying: Bool { appPlaying.load(ordering: .acquiring) }

    /// Takes the app's samples (interleaved in the reference format) to be mixed at the next render calls.
    /// Returns ``PushStatus/bufferFull`` with the count that fit when the app is more than ``capacity`` ahead
    /// (the rest is dropped and counted). One app thread; real-time safe.
    public func push(samples: UnsafeBufferPointer<Int16>) -> PushResult {
        let taken = ring.write(samples)
        if taken < samples.count { overflow.add(samples.count - taken, ordering: .relaxed) }
        return PushResult(status: taken < samples.count ? .bufferFull : .ok, accepted: taken)
    }

    /// The app's own sound started (`true`, `play_start`) or ended (`false`, `play_over`). Any thread.
    public func setAppPlaying(_ isPlaying: Bool) { appPlaying.store(isPlaying, ordering: .releasing) }

    /// Forgets what waits now (a new playback takes the mix; what the app pushes after this call is kept): dropped
    /// by the next ``mix(into:)``. Any thread.
    public func reset() {
        appPlaying.store(false, ordering: .releasing)
        discardBefore.store(ring.totalWritten, ordering: .releasing)
    }

    /// Adds the waiting app samples to `buffer` (saturating), as many as it holds. The playback's render thread;
    /// real-time safe.
    public func mix(into buffer: UnsafeMutableBufferPointer<Int16>) {
        let stale = discardBefore.load(ordering: .acquiring) - ring.totalRead
        if stale > 0 {
            _ = ring.discard(stale)
            renderPrimed = false
        }
        let playing = appPlaying.load(ordering: .acquiring)
        if !playing { renderPrimed = false }
        var done = 0
        var chunk: (Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16, Int16)
            = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &chunk) { raw in
            let scratch = raw.bindMemory(to: Int16.self)
            while done < buffer.count {
                let n = ring.read(into: UnsafeMutableBufferPointer(rebasing: scratch[0..<min(scratch.count, buffer.count - done)]))
                guard n > 0 else { break }
                for i in 0..<n {
                    let sum = Int32(buffer[done + i]) + Int32(scratch[i])
                    buffer[done + i] = Int16(clamping: sum)
                }
                done += n
            }
        }
        if done > 0 {
            mixed.add(done, ordering: .relaxed)
            if playing { renderPrimed = true }
        }
        if playing, renderPrimed, done < buffer.count { missing.add(buffer.count - done, ordering: .relaxed) }
    }
}
