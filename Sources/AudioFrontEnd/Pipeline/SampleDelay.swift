/// A fixed delay of samples: what comes out lags what goes in by ``delay`` samples (silence first). The front
/// end passes the mic through it while the echo canceller pauses, so the paused path has the canceller's
/// latency, and delays the mic and reference levels the echo speech gate compares with the processed output.
///
/// Created on the control thread (allocates); ``process(_:into:)`` is real-time safe, processing thread only.
final class SampleDelay {
    let delay: Int
    /// The last ``delay`` samples in, oldest at `readIndex` (a ring).
    private let history: UnsafeMutableBufferPointer<Int16>
    private var readIndex = 0

    init(delay: Int) {
        self.delay = delay
        history = .zeroed(capacity: max(delay, 1))
    }

    deinit { history.deallocate() }

    /// Writes `input` delayed by ``delay`` samples to `output` (same length; they must not overlap).
    func process(_ input: UnsafeBufferPointer<Int16>, into output: UnsafeMutableBufferPointer<Int16>) {
        let n = input.count
        guard delay > 0 else {
            _ = output.update(fromContentsOf: input)
            return
        }
        let out = output.baseAddress!, source = input.baseAddress!
        let fromHistory = min(n, delay)
        copyRing(from: readIndex, count: fromHistory, to: out)
        if n >= delay {
            (out + delay).update(from: source, count: n - delay)
            history.baseAddress!.update(from: source + n - delay, count: delay)
            readIndex = 0
        } else {
            // The n oldest samples left; the n new ones take their slots.
            let first = min(n, delay - readIndex)
            (history.baseAddress! + readIndex).update(from: source, count: first)
            history.baseAddress!.update(from: source + first, count: n - first)
            readIndex = (readIndex + n) % delay
        }
    }

    private func copyRing(from start: Int, count: Int, to destination: UnsafeMutablePointer<Int16>) {
        let first = min(count, delay - start)
        destination.update(from: history.baseAddress! + start, count: first)
        (destination + first).update(from: history.baseAddress!, count: count - first)
    }
}
