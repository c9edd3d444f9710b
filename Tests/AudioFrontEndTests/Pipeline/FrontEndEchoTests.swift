import AudioFrontEnd
import XCTest

/// The pipeline's targets on the echo vectors, default configuration, no delay given by the app.
final class FrontEndEchoTests: XCTestCase {
    func testFarEndEchoIsRemovedAtEveryDelayWithinThreeSeconds() throws {
        for delay in [0, 40, 120, 250, 400] {
            let name = "echo_d\(delay)ms_16k.wav"
            let (mic, entry) = (try TestVectors.int16(name).samples, try TestVectors.entry(name))
            let reference = try TestVectors.int16("farend_16k.wav").samples
            let result = try FrontEndHarness.run(FrontEndConfiguration(), mic: mic, reference: reference)
            let output = result.audio
            XCTAssertEqual(output.count, mic.count, "\(name): output count")
            let echoStart = entry["echo_start_s"] as! Double
            // ERLE per second from 3 s after the first echo, over seconds with echo present.
            var worst = Double.infinity
            var second = echoStart + 3
            while second + 1 <= 21 {
                let range = Int(second * 16000)..<Int((second + 1) * 16000)
                if SignalMetrics.power(mic, range) > 1e4 { // echo present (about -35 dBFS)
                    let erle = SignalMetrics.erle(mic: mic, output: output, range: range)
                    if ProcessInfo.processInfo.environment["AFE_VERBOSE"] != nil { print("  \(name) \(second) s: \(erle) dB") }
                    worst = min(worst, erle)
                }
                second += 1
            }
            print("delay \(delay) ms: worst 1 s ERLE from 3 s after first echo = \(worst) dB; final delay estimate \(String(describing: result.telemetry.last?.delayMilliseconds))")
            XCTAssertGreaterThanOrEqual(worst, 25, "\(name): worst one-second ERLE from 3 s after the first echo")
        }
    }
}
