import XCTest
@testable import AudioFrontEnd

final class DelayEstimatorTests: XCTestCase {
    /// Feeds a mic vector and its reference frame by frame; returns the estimate after each second.
    private func estimates(mic: [Int16], reference: [Int16], rate: Int) -> [Double?] {
        let estimator = DelayEstimator(sampleRate: rate)
        let n = rate / 100
        var out: [Double?] = []
        for frame in 0..<(min(mic.count, reference.count) / n) {
            mic.withUnsafeBufferPointer { m in
                reference.withUnsafeBufferPointer { r in
                    estimator.process(mic: UnsafeBufferPointer(rebasing: m[(frame * n)..<((frame + 1) * n)]),
                                      reference: UnsafeBufferPointer(rebasing: r[(frame * n)..<((frame + 1) * n)]))
                }
            }
            if frame % 100 == 99 { out.append(estimator.delayMilliseconds) }
        }
        return out
    }

    func testFindsTheBulkDelayOfEveryEchoVectorWithinThreeSeconds() throws {
        for (delay, rate) in [(0, 16000), (40, 16000), (120, 16000), (250, 16000), (400, 16000), (40, 48000), (120, 48000)] {
            let name = "echo_d\(delay)ms_\(rate / 1000)k.wav"
            let mic = try TestVectors.int16(name).samples
            let reference = try TestVectors.int16("farend_\(rate / 1000)k.wav").samples
            let series = estimates(mic: mic, reference: reference, rate: rate)
            // From 3 s on, every estimate is within 6 ms of the true delay.
            for (second, estimate) in series.enumerated() where second >= 2 {
                guard let estimate else {
                    XCTFail("\(name): no estimate after \(second + 1) s"); continue
                }
                XCTAssertEqual(estimate, Double(delay), accuracy: 6, "\(name): estimate after \(second + 1) s")
            }
        }
    }

    func testHoldsNoEstimateWithoutFarEnd() throws {
        let mic = try TestVectors.int16("nearend_16k.wav").samples
        let silence = [Int16](repeating: 0, count: mic.count)
        XCTAssertTrue(estimates(mic: mic, reference: silence, rate: 16000).allSatisfy { $0 == nil })
    }
}
