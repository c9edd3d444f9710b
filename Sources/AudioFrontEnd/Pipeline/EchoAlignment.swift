/// Decides how far the reference is shifted before the echo canceller, from the delay estimate and the drift.
///
/// The shift leaves a small margin (the canceller's filter sees the echo slightly after the reference, never
/// before, so an estimate a few milliseconds off still lands inside the filter), and jumps only when the
/// estimate has moved by more than the hysteresis, so the canceller is not disturbed by estimator jitter.
/// Once the delay estimator reports clock drift, the shift also slews continuously at that rate, by fractions of
/// a sample (``FractionalDelay``): the echo path the canceller sees then stays put instead of moving by a
/// sample every 0.6 s (100 ppm at 16 kHz) and jumping back every few seconds.
/// Plain numbers only (the interpolator is the caller's, passed to ``read(_:at:into:interpolator:)``), so the
/// processing chain reads it each frame without copying a reference (a retain and release per frame).
/// Real-time safe after creation; processing thread.
struct EchoAlignment {
    let sampleRate: Int
    /// Delay left to the canceller, ms.
    let marginMilliseconds: Double
    /// Smallest change of the estimate that makes the shift jump, ms. Below the margin: the shift never puts the
    /// reference after the echo's direct path, even when the estimate reads an early reflection (about 5 ms late).
    let hysteresisMilliseconds: Double
    /// Largest drift taken as real, ppm (beyond it the fit is taken as wrong and the shift does not slew).
    let maximumDriftPartsPerMillion = 1000.0
    /// Current shift of the reference, samples (fractional while following drift).
    private(set) var shift: Double { didSet { deriveFromShift() } }
    private let fixed: Bool
    /// Derived from ``shift`` when it changes, not on every frame (each took a libm call per frame): the shift
    /// rounded to whole samples, whether the fractional reader runs, and the residual delay without an estimate.
    private(set) var shiftSamples = 0
    private var interpolates = false
    private var residualWithoutEstimate = 0

    init(sampleRate: Int, alignment: FrontEndConfiguration.Alignment, marginMilliseconds: Double = 10,
         hysteresisMilliseconds: Double = 4) {
        self.sampleRate = sampleRate
        self.marginMilliseconds = marginMilliseconds
        self.hysteresisMilliseconds = hysteresisMilliseconds
        switch alignment {
        case .automatic:
            fixed = false
            shift = 0
        case .fixed(let milliseconds):
            fixed = true
            shift = max(0, ((Double(milliseconds) - marginMilliseconds) * Double(sampleRate) / 1000).rounded())
        }
        deriveFromShift()
    }

    private mutating func deriveFromShift() {
        shiftSamples = Int(shift.rounded())
        interpolates = shift - shift.rounded(.down) > 1e-9 && shift >= Double(FractionalDelay.halfTaps)
        residualWithoutEstimate = residual(total: fixed ? shiftMilliseconds + marginMilliseconds : shiftMilliseconds)
    }

    var shiftMilliseconds: Double { shift * 1000 / Double(sampleRate) }

    /// Takes a new estimate of the total delay (ms) and the drift (ppm, nil while unknown), once per frame of
    /// `frameLength` samples. Returns true when the shift jumped.
    mutating func update(estimateMilliseconds: Double, driftPartsPerMillion: Double? = nil, frameLength: Int = 0) -> Bool {
        guard !fixed else { return false }
        if let drift = driftPartsPerMillion, abs(drift) <= maximumDriftPartsPerMillion, shift > 0 {
            shift = max(0, shift + drift * 1e-6 * Double(frameLength))
        }
        let target = max(0, estimateMilliseconds - marginMilliseconds)
        guard abs(target - shiftMilliseconds) > hysteresisMilliseconds else { return false }
        shift = (target * Double(sampleRate) / 1000).rounded()
        return true
    }

    /// Reads the reference for the mic frame at `position` into `destination`: the accounting read of the
    /// whole-sample shift, then, when the shift has a fraction, the interpolated one over it (`interpolator`,
    /// made for frames of `destination`'s length). Processing thread.
    func read(_ references: ReferenceHistory, at position: Int, into destination: UnsafeMutableBufferPointer<Int16>,
              interpolator: FractionalDelay) {
        references.read(from: position - shiftSamples, into: destination)
        guard interpolates else { return }
        interpolator.read(references, position: position, delay: shift, into: destination)
    }

    /// The delay the canceller still has to bridge, ms, given the total estimate (or the margin without one).
    func residualMilliseconds(estimate: Double?) -> Int {
        guard let estimate else { return residualWithoutEstimate }
        return residual(total: estimate)
    }

    private func residual(total: Double) -> Int { max(0, Int((total - shiftMilliseconds).rounded())) }
}
