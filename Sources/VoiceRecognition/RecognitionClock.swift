import Synchronization

/// A monotonic clock for the session's timers (the mic-silence watchdog) and timings.
///
/// Any thread; ``now()`` must not allocate or lock (the session may read it often). Not part of the shipped
/// API: tests reach it with `@_spi(Testing) import VoiceRecognition`.
@_spi(Testing) public protocol RecognitionClock: Sendable {
    /// Time since an arbitrary fixed origin.
    func now() -> Duration
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
    public init() {}
    public func now() -> Duration { .nanoseconds(nanoseconds.load(ordering: .acquiring)) }
    /// Moves the clock forward by `duration`.
    public func advance(by duration: Duration) {
        let (seconds, attoseconds) = duration.components
        nanoseconds.add(seconds * 1_000_000_000 + attoseconds / 1_000_000_000, ordering: .acquiringAndReleasing)
    }
}
