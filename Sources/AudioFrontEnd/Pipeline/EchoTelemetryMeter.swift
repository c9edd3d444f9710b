#if canImport(Glibc)
import Glibc
#endif

/// Running echo figures for telemetry: ERLE over far-end-active frames, a double-talk flag, and clock drift
/// from the slope of the delay estimate. Real-time safe; processing thread.
struct EchoTelemetryMeter {
    /// Frames whose reference is louder than this (dBFS) count as far-end active.
    static let activeReferenceDecibels: Float = -50
    private var micPower = 0.0
    private var outputPower = 0.0
    private var activeFrames = 0
    private var doubleTalkFrames = 0
    private var longTermERLE: Double?
    /// Delay history for the drift fit: one point a second, up to 128.
    private var delayTimes = (0..<128).map { _ in 0.0 }
    private var delayValues = (0..<128).map { _ in 0.0 }
    private var delayCount = 0
    private var delayNext = 0
    private var lastDelaySecond = -1

    init(sampleRate: Int) {}

    /// ERLE over the period's far-end-active frames, dB; nil when the far end was quiet.
    var erleDecibels: Double? {
        guard activeFrames >= 5, outputPower > 0 else { return nil }
        return 10 * log10(micPower / outputPower)
    }

    /// Whether most far-end-active frames of the period kept their level through the canceller although the
    /// canceller had converged (long-term ERLE above 10 dB): the near end is talking.
    var isDoubleTalk: Bool { activeFrames >= 5 && doubleTalkFrames * 3 >= activeFrames }

    /// Drift in parts per million from a least-squares fit of the delay over the last two minutes.
    var driftPartsPerMillion: Double? {
        guard delayCount >= 30 else { return nil }
        var st = 0.0, sd = 0.0, stt = 0.0, std = 0.0
        for i in 0..<delayCount {
            st += delayTimes[i]; sd += delayValues[i]
            stt += delayTimes[i] * delayTimes[i]; std += delayTimes[i] * delayValues[i]
        }
        let n = Double(delayCount)
        let denominator = n * stt - st * st
        guard denominator > 0 else { return nil }
        let slope = (n * std - st * sd) / denominator // ms per s
        return slope * 1000
    }

    mutating func add(mic: Float, output: Float, reference: Float, delay: Double?, milliseconds: Int) {
        if reference > Self.activeReferenceDecibels {
            let m = pow(10, Double(mic) / 10), o = pow(10, Double(output) / 10)
            micPower += m
            outputPower += o
            activeFrames += 1
            if let erle = longTermERLE, erle > 10, Double(mic - output) < 6 { doubleTalkFrames += 1 }
        }
        let second = milliseconds / 1000
        if let delay, second != lastDelaySecond {
            lastDelaySecond = second
            delayTimes[delayNext] = Double(milliseconds) / 1000
            delayValues[delayNext] = delay
            delayNext = (delayNext + 1) % delayTimes.count
            delayCount = min(delayCount + 1, delayTimes.count)
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
