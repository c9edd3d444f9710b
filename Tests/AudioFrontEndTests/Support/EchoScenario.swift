import AudioFrontEnd
import XCTest

/// One echo test vector with its reference and ground truth, and the measurements EchoCancellerTests make on a
/// canceller's output.
struct EchoScenario {
    let file: String
    let sampleRate: Int
    let mic: [Int16]
    let reference: [Int16]
    /// Bulk delay of the echo path in ms (manifest `delay_ms`).
    let delayMilliseconds: Int
    /// Far-end speech intervals (seconds) as played, from the reference's manifest entry.
    let farEndSpeech: [(start: Double, end: Double)]
    /// First 10 ms frame where the echo is active, in seconds.
    let echoStart: Double
    let entry: TestVectors.Entry

    init(_ file: String) throws {
        entry = try TestVectors.entry(file)
        self.file = file
        sampleRate = entry.sampleRate
        mic = try StageRunner.samples(file)
        let referenceName = try XCTUnwrap(entry["reference"] as? String, "\(file) has no reference")
        reference = try StageRunner.samples(referenceName)
        delayMilliseconds = try XCTUnwrap(entry["delay_ms"] as? Int, "\(file) has no delay_ms")
        farEndSpeech = try TestVectors.entry(referenceName).speechIntervals
        echoStart = (entry["echo_start_s"] as? Double) ?? 0
    }

    /// Samples in the bulk delay.
    var delaySamples: Int { delayMilliseconds * sampleRate / 1000 }

    /// The reference delayed by the bulk delay: what a canceller without a delay input needs.
    var alignedReference: [Int16] { StageRunner.delayed(reference, by: delaySamples) }

    /// Intervals (seconds) from a manifest list such as "doubletalk" or "farend_only".
    func intervals(_ key: String) throws -> [(start: Double, end: Double)] {
        let list = try XCTUnwrap(entry[key] as? [[Double]], "\(file) has no \(key)")
        return list.map { ($0[0], $0[1]) }
    }

    /// Echo return loss enhancement in dB over the echo of the far-end speech, from `settle` seconds after the
    /// echo starts: mic power over output power.
    func erle(_ output: [Int16], settle: Double = 2) -> Double {
        let spans = StageRunner.ranges(farEndSpeech, rate: sampleRate, shift: Double(delayMilliseconds) / 1000,
                                       from: echoStart + settle, count: output.count)
        return SignalMetrics.decibels(StageRunner.power(mic, spans) / max(StageRunner.power(output, spans), 1e-10))
    }
}
