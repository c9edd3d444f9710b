import Foundation
@testable import NuiSDK
import XCTest

/// Reference audio pushed while the device plays (`nui_push_reference_data`, `play_start`): the EVENT_AEC_DATA
/// stream has the echo removed. Measured as ERLE (mic power over AEC-output power) per second of echo.
final class EchoReferenceTests: XCTestCase {
    /// Runs the far-end-only echo vector (120 ms delay) with its reference through a push-mode dialog and returns
    /// the mic samples, the AEC output and the manifest's first echo time.
    func run(aec: Bool) throws -> (mic: [Int16], output: [Int16], echoStart: Double) {
        let server = try ReferenceServer()
        let harness = try NuiHarness()
        defer {
            harness.close()
            server.stop()
        }
        let name = "echo_d120ms_16k.wav"
        let mic = try TestVectors.int16(name).samples
        let reference = try TestVectors.int16("farend_16k.wav").samples
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url())), .SUCCESS)
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters(top: ["enable_aec": aec])), .SUCCESS)
        XCTAssertEqual(harness.start(), .SUCCESS)
        XCTAssertNotNil(harness.recorder.wait(for: .EVENT_TRANSCRIBER_STARTED))
        if aec { XCTAssertEqual(harness.nui.nui_dialog_action(#"{"type": "action", "command": "play_start"}"#), .SUCCESS) }
        harness.push(mic.withUnsafeBytes { Array($0) }, reference: aec ? reference.withUnsafeBytes { Array($0) } : nil)
        if aec { XCTAssertEqual(harness.nui.nui_dialog_action(#"{"type": "action", "command": "play_over"}"#), .SUCCESS) }
        XCTAssertEqual(harness.nui.nui_dialog_cancel(false), .SUCCESS)
        XCTAssertEqual(harness.recorder.waitForEnd(timeout: 60)?.event, .EVENT_TRANSCRIBER_COMPLETE)
        let echoStart = try XCTUnwrap(TestVectors.entry(name)["echo_start_s"] as? Double)
        return (mic, harness.recorder.aecSamples, echoStart)
    }

    /// The worst one-second ERLE from 3 s after the first echo, over seconds with echo present.
    func worstERLE(_ mic: [Int16], _ output: [Int16], from start: Double) -> Double {
        var worst = Double.infinity
        var second = start + 3
        while second + 1 <= Double(min(mic.count, output.count)) / 16000 {
            let range = Int(second * 16000)..<Int((second + 1) * 16000)
            if SignalMetrics.power(mic, range) > 1e4 { worst = min(worst, SignalMetrics.erle(mic: mic, output: output, range: range)) }
            second += 1
        }
        return worst
    }

    func testReferencePushedWhilePlayingRemovesTheEcho() throws {
        let (mic, output, echoStart) = try run(aec: true)
        XCTAssertEqual(output.count, mic.count, accuracy: 320, "EVENT_AEC_DATA covers the stream")
        let erle = worstERLE(mic, output, from: echoStart)
        print("worst one-second ERLE of EVENT_AEC_DATA: \(String(format: "%.1f", erle)) dB")
        XCTAssertGreaterThanOrEqual(erle, 25, "echo removed in the AEC data (measured 34.8 dB)")

        let (rawMic, passthrough, _) = try run(aec: false)
        let none = worstERLE(rawMic, passthrough, from: echoStart)
        print("without AEC: \(String(format: "%.1f", none)) dB")
        XCTAssertLessThan(abs(none), 3, "without AEC the data is the mic (the measurement is not vacuous)")
    }
}
