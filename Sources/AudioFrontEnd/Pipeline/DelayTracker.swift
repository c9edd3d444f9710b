/// Steadies the delay estimator's raw estimates for the alignment: the median of the last ``defaultCapacity`` raw
/// estimates (eight per second of far-end activity).
///
/// Why: the raw correlation peak sometimes jumps a few milliseconds to a reflection for a few seconds of
/// particular far-end content and back. Every move of the reference shift makes the canceller
/// re-adapt, so the alignment follows the median, which ignores excursions shorter than half the window, yet
/// follows drift (about 0.1 ms/s at 100 ppm) with a lag of half the window. A genuine jump (the app switched
/// output devices, or the first estimates of a stream were wrong) is taken after ``jumpConfirmations`` agreeing raw
/// estimates (0.5 s) instead of waiting for the median. Real-time safe (fixed storage); one thread.
final class DelayTracker {
    /// Raw estimates the median spans.
    let capacity: Int
    /// Default span: 33 raw estimates (4.1 s of far-end activity at eight a second). Chosen on the scenario
    /// matrix's tuning half: spans 9, 17 and 33 left 6, 5 and 3 of 25 scenes not within 2 ms of the truth by 3 s
    /// after the first echo (mean far-end-only ERLE 23.85, 23.82, 23.85 dB).
    static let defaultCapacity = 33
    /// Raw estimates this far (samples) from the median that agree among themselves count as a jump.
    let jumpSamples: Double
    let agreementSamples: Double
    let jumpConfirmations = 4
    private let values: UnsafeMutableBufferPointer<Double>
    /// When each raw estimate was made (s), beside ``values``.
    private let times: UnsafeMutableBufferPointer<Double>
    private let sorted: UnsafeMutableBufferPointer<Double>
    private var count = 0
    private var next = 0
    private var jumpRun = 0
    /// The steadied estimate (samples), nil before the first raw one.
    private(set) var median: Double?

    init(sampleRate: Int, capacity: Int = DelayTracker.defaultCapacity) {
        self.capacity = capacity
        jumpSamples = Double(sampleRate) * 0.02
        agreementSamples = Double(sampleRate) * 0.004
        values = .zeroed(capacity: capacity)
        times = .zeroed(capacity: capacity)
        sorted = .zeroed(capacity: capacity)
    }

    deinit {
        values.deallocate()
        times.deallocate()
        sorted.deallocate()
    }

    func reset() {
        count = 0
        next = 0
        jumpRun = 0
        median = nil
    }

    /// When the middle one of the estimates the median spans was made (s): under a steady drift the median is
    /// the delay of that moment. Nil before the first estimate.
    var middleSeconds: Double? { count == 0 ? nil : times[(next - 1 - count / 2 + 2 * capacity) % capacity] }

    /// Adds one raw estimate (samples) made at `seconds`. Returns true when it completed a jump (the median moved
    /// to a new run).
    @discardableResult
    func add(_ raw: Double, seconds: Double = 0) -> Bool {
        if let median, abs(raw - median) > jumpSamples,
           jumpRun == 0 || abs(raw - values[(next + capacity - 1) % capacity]) <= agreementSamples {
            jumpRun += 1
        } else {
            jumpRun = 0
        }
        values[next] = raw
        times[next] = seconds
        next = (next + 1) % capacity
        count = min(count + 1, capacity)
        let jumped = jumpRun >= jumpConfirmations
        if jumped {
            // Keep only the agreeing run.
            count = jumpConfirmations
            jumpRun = 0
        }
        // The first estimates of a stream come from little evidence and the later ones correct them: until `jumpConfirmations`
        // are in, the newest stands.
        median = count < jumpConfirmations ? raw : currentMedian()
        return jumped
    }

    private func currentMedian() -> Double {
        // Insertion sort of the newest `count` values (count ≤ capacity, 61 by default).
        for i in 0..<count {
            let v = values[(next - 1 - i + 2 * capacity) % capacity]
            var j = i
            while j > 0 && sorted[j - 1] > v { sorted[j] = sorted[j - 1]; j -= 1 }
            sorted[j] = v
        }
        return count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2
    }
}
