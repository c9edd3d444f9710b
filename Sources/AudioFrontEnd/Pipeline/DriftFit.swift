#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Clock drift as the slope of the delay over time: a least-squares line through (time, delay) points with
/// exponential forgetting (time constant ``memorySeconds``), so a long history averages out the estimator's
/// jitter while a changed drift shows within minutes. Real-time safe (a handful of running sums); one thread.
struct DriftFit {
    /// How long points are remembered (time constant), s.
    var memorySeconds = 180.0
    /// Points and time span needed before a slope is reported.
    var minimumPoints = 240
    var minimumSpanSeconds = 60.0
    /// Points and time span needed before ``earlySlope`` (the delay estimate's lag correction) is reported. A
    /// short fit's slope is rough (tens of ppm from the estimates' jitter); the estimator believes it only when
    /// the line moved by a millisecond over its span (``DelayEstimator/delaySamples``).
    var minimumEarlyPoints = 20
    var minimumEarlySpanSeconds = 5.0
    private var weight = 0.0, sumT = 0.0, sumD = 0.0, sumTT = 0.0, sumTD = 0.0
    private var points = 0
    private var firstTime: Double?
    private var lastTime = 0.0

    /// Adds a point: `delay` (s) measured at `seconds` (s from the stream's start), times increasing.
    mutating func add(seconds: Double, delay: Double) {
        let origin = firstTime ?? seconds
        if firstTime == nil { firstTime = seconds }
        let t = seconds - origin
        let decay = exp(-(t - lastTime) / memorySeconds)
        lastTime = t
        weight = weight * decay + 1
        sumT = sumT * decay + t
        sumD = sumD * decay + delay
        sumTT = sumTT * decay + t * t
        sumTD = sumTD * decay + t * delay
        points += 1
    }

    /// Moves every point so far by `delay` (s): a step of the echo path, which leaves the slope as it was.
    mutating func shift(by delay: Double) {
        sumD += weight * delay
        sumTD += sumT * delay
    }

    /// Seconds of delay change per second (dimensionless), or nil without enough points.
    var slope: Double? {
        guard points >= minimumPoints, lastTime >= minimumSpanSeconds else { return nil }
        return fittedSlope
    }

    /// The slope from fewer points (``minimumEarlyPoints`` over ``minimumEarlySpanSeconds``), or nil.
    var earlySlope: Double? {
        guard points >= minimumEarlyPoints, lastTime >= minimumEarlySpanSeconds else { return nil }
        return fittedSlope
    }

    /// Time from the first point to the last, s.
    var spanSeconds: Double { lastTime }

    private var fittedSlope: Double? {
        let denominator = weight * sumTT - sumT * sumT
        guard denominator > 0 else { return nil }
        return (weight * sumTD - sumT * sumD) / denominator
    }
}
