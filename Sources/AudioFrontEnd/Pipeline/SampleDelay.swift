/// A fixed delay of whole frames of samples: what comes out lags what goes in by ``delay`` samples (silence
/// first). The front end passes the mic through it while the echo canceller pauses, so the paused path has the
/// canceller's latency and the output stays aligned with the mic.
///
/// Created on the control thread (allocates); ``process(_:into:)`` is real-time safe, processing thread only.
final class SampleDelay {
    let delay: Int
    private let history: UnsafeMutableBufferPointer<Int16>
    private var writeIndex = 0

    init(delay: Int) {
        self.delay = delay
        history = .zeroed(capacity: max(delay, 1))
    }

    deinit { history.deallocate() }

    /// Writes `input` delayed by ``delay`` samples to `output` (same length; they must not overlap).
    func process(_ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Int16>) {
        guard delay > 0 else {
            _ = output.update(fromContentsOf: input)
            return
        }
        for i in 0..<input.count {
            output[i] = history[writeIndex]
            history[writeIndex] = input[i]
            writeIndex = writeIndex + 1 == delay ? 0 : writeIndex + 1
        }
    }
}
