/// Reduces stationary noise in the capture signal, one 10 ms frame at a time, in place.
///
/// Lifecycle: create (may throw) → ``process(_:)`` (real-time safe) → ``reset()``. One thread at a time.
/// Backends: ``WebRTCNoiseSuppressor`` (four levels), ``SpeexNoiseSuppressor``, ``PassthroughNoiseSuppressor``.
public protocol NoiseSuppressor: AnyObject {
    var sampleRate: Int { get }
    var frameLength: Int { get }
    /// How many samples the output lags the input (the backend's buffering). Constant; any thread.
    var latencySamples: Int { get }
    /// Suppresses noise in `frame` (exactly ``frameLength`` samples) in place. Real-time safe.
    func process(_ frame: UnsafeMutableBufferPointer<Int16>) -> StageStatus
    /// Clears the noise estimate, keeps the configuration. Not real-time safe.
    func reset()
}
