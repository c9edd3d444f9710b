#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Running echo figures for telemetry: ERLE over far-end-active frames and a double-talk flag (the delay and
/// the drift come from the ``DelayEstimator``). Real-time safe; processing thread.
struct EchoTelemetryMeter {
    /// Frames whose reference is louder than this (dBFS) count as far-end active.
    static let activeReferenceDecibels: Float = -50
    private var micPower = 0.0
    private var outputPower = 0.0
    private var activeFrames = 0
    private var doubleTalkFrames = 0
    private var longTermERLE: Double?

    init(sampleRate: Int) {}

    /// ERLE over the period's far-end-active frames, dB; nil when the far end was quiet.
    var erleDecibels: Double? {
        guard activeFrames >= 5, outputPower > 0 else { return nil }
        return 10 * log10(micPower / outputPower)
    }

    /// Whether most far-end-active frames of the period kept their level through the canceller although the
    /// canceller had converged (long-term ERLE above 10 dB): the near end is talking.
    var isDoubleTalk: Bool { activeFrames >= 5 && doubleTalkFrames * 3 >= activeFrames }

    mutating func add(mic: Float, output: Float, reference: Float) {
        if reference > Self.activeReferenceDecibels {
            let m = pow(10, Double(mic) / 10), o = pow(10, Double(output) / 10)
            micPower += m
            outputPower += o
            activeFrames += 1
            if let erle = longTermERLE, erle > 10, Double(mic - output) < 6 { doubleTalkFrames += 1 }
        }
    }

    mutating func startPeriod() {
        if let erle = erleDecibels { longTermERLE = longTermERLE.map { 0.8 * $0 + 0.2 * erle } ?? erle }
        micPower = 0
        outputPower = 0
        activeFrames = 0
        doubleTalkFrames = 0
    }
}
