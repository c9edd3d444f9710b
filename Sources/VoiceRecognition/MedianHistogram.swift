/// The median of a long series of decibel values in constant memory: counts in 0.1 dB bins from −40 to +120 dB
/// (values outside are counted in the end bins). A dialog of hours reports ERLE 4 times a second; keeping every
/// value grew the session by ~1 MB an hour. Event thread only.
struct MedianHistogram {
    private static let low = -40.0, step = 0.1
    private var counts = [Int32](repeating: 0, count: 1601)
    private(set) var total = 0

    mutating func add(_ value: Double) {
        guard value.isFinite else { return }
        let bin = Int(((value - Self.low) / Self.step).rounded())
        counts[min(max(bin, 0), counts.count - 1)] += 1
        total += 1
    }

    /// The value of the middle sample (the upper one of an even count), to the bin; nil when empty.
    var median: Double? {
        guard total > 0 else { return nil }
        var seen = 0
        for (bin, count) in counts.enumerated() {
            seen += Int(count)
            if seen > total / 2 { return Self.low + Double(bin) * Self.step }
        }
        return nil
    }
}
