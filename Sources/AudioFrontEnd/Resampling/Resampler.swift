/// Converts a stream of mono samples from one rate to another, keeping state across calls.
///
/// Lifecycle: create (may throw) → ``process(_:into:)`` any number of times with any chunk sizes (real-time safe)
/// → ``flush(into:)`` at end of stream → ``reset()`` to start a new stream. One thread at a time.
///
/// Output is time-aligned with input (the filter delay is compensated: output sample `k` is the signal at time
/// `k / outputRate`), and over a whole stream the output count is exact: after `n` input samples and a flush,
/// exactly ``expectedOutputCount(forInputCount:)`` samples have come out.
/// Backends: ``SpeexResampler`` and ``SampleRateConverter`` (libsamplerate).
public protocol Resampler: AnyObject {
    var inputRate: Int { get }
    var outputRate: Int { get }

    /// Resamples `input` into `output`. Consumes all of `input` when `output` has room for
    /// ``maximumOutputCount(forInputCount:)`` samples. Real-time safe.
    /// - Returns: samples consumed from `input` and produced into `output`.
    func process(_ input: UnsafeBufferPointer<Float>, into output: UnsafeMutableBufferPointer<Float>)
        -> (consumed: Int, produced: Int)

    /// Ends the stream: writes the samples still owed so that the total equals
    /// ``expectedOutputCount(forInputCount:)`` of the total input. Returns how many it wrote. Real-time safe.
    func flush(into output: UnsafeMutableBufferPointer<Float>) -> Int

    /// The most samples one ``process(_:into:)`` call can produce for `inputCount` input samples.
    func maximumOutputCount(forInputCount inputCount: Int) -> Int

    /// Clears the stream state and the counters. Not real-time safe.
    func reset()
}

extension Resampler {
    /// Output samples a whole stream of `inputCount` input samples yields: `floor(inputCount × outputRate / inputRate)`.
    public func expectedOutputCount(forInputCount inputCount: Int) -> Int {
        inputCount * outputRate / inputRate
    }
}
