import Synchronization

/// A monotonic clock for the session's timers (the mic-silence watchdog) and timings.
///
/// Any thread; ``now()`` must not allocate or lock (the session may read it often). Not part of the shipped
/// API: tests reach it with `@_spi(Testing) import VoiceRecognition`.
@_spi(Testing) public protocol RecognitionClock: Sendable {
    /// Time since an arbitrary fixed origin.
    func now() -> Duration
    /// Calls `wake` (any thread) whenever the clock jumps rather than runs: the session's event thread sleeps until
    /// its next deadline converted to wall time, and must look again when a jump moved it. A clock that runs with
    /// wall time never calls it (the default).
    func onAdvance(_ wake: @escaping @Sendable () -> Void)
}

extension RecognitionClock {
    public func onAdvance(_ wake: @escaping @Sendable () -> Void) {}
}

/// The system's monotonic clock (`ContinuousClock`). The default.
@_spi(Testing) public struct SystemRecognitionClock: RecognitionClock {
    private let origin = ContinuousClock.now
    public init() {}
    public func now() -> Duration { ContinuousClock.now - origin }
}

/// A clock that moves only when told: for testing time-dependent behaviour (the mic-silence event) without
/// waiting for it. Any thread. Tests only (`@_spi(Testing)`).
@_spi(Testing) public final class ManualRecognitionClock: RecognitionClock {
    private let nanoseconds = Atomic<Int64>(0)
    private let wakes = Mutex<[@Sendable () -> Void]>([])
    public init() {}
    public func now() -> Duration { .nanoseconds(nanoseconds.load(ordering: .acquiring)) }
    public func onAdvance(_ wake: @escaping @Sendable () -> Void) { wakes.withLock { $0.append(wake) } }
    /// Moves the clock forward by `duration`, then wakes the sessions that use it.
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        nanoseconds.add(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, ordering: .acquiringAndReleasing)
        for wake in wakes.withLock({ $0 }) { wake() }
    }
}
