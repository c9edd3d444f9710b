/// Decides how far the reference is shifted before the echo canceller, from the delay estimate.
///
/// The shift leaves a small margin (the canceller's filter sees the echo slightly after the reference, never
/// before, so an estimate a few milliseconds off still lands inside the filter), and moves only when the
/// estimate has moved by more than the hysteresis, so the canceller is not disturbed by estimator jitter.
/// Real-time safe; processing thread.
struct EchoAlignment {
    let sampleRate: Int
    /// Delay left to the canceller, ms.
    let marginMilliseconds: Double
    /// Smallest change of the estimate that moves the shift, ms.
    let hysteresisMilliseconds: Double
    /// Current shift of the reference, samples.
    private(set) var shiftSamples: Int
    private let fixed: Bool

    init(sampleRate: Int, alignment: FrontEndConfiguration.Alignment, marginMilliseconds: Double = 10,
         hysteresisMilliseconds: Double = 2.5) {
        self.sampleRate = sampleRate
        self.marginMilliseconds = marginMilliseconds
        self.hysteresisMilliseconds = hysteresisMilliseconds
        switch alignment {
        case .automatic:
            fixed = false
            shiftSamples = 0
        case .fixed(let milliseconds):
            fixed = true
            shiftSamples = max(0, Int((Double(milliseconds) - marginMilliseconds) * Double(sampleRate) / 1000))
        }
    }

    var shiftMilliseconds: Double { Double(shiftSamples) * 1000 / Double(sampleRate) }

    /// Takes a new estimate of the total delay (ms). Returns true when the shift changed.
    mutating func update(estimateMilliseconds: Double) -> Bool {
        guard !fixed else { return false }
        let target = max(0, estimateMilliseconds - marginMilliseconds)
        guard abs(target - shiftMilliseconds) > hysteresisMilliseconds else { return false }
        shiftSamples = Int((target * Double(sampleRate) / 1000).rounded())
        return true
    }

    /// The delay the canceller still has to bridge, ms, given the total estimate (or the margin without one).
    func residualMilliseconds(estimate: Double?) -> Int {
        let total = estimate ?? (fixed ? shiftMilliseconds + marginMilliseconds : shiftMilliseconds)
        return max(0, Int((total - shiftMilliseconds).rounded()))
    }
}
