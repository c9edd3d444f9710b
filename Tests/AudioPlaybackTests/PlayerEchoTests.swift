import AudioFrontEnd
import AudioPlayback
import Foundation
import XCTest

/// The loop the player exists for: the device plays the synthesized speech into a room, the mic hears its echo,
/// and the front end cancels it using the reference the player pushed — the app pushes no reference itself.
final class PlayerEchoTests: XCTestCase {
    func testFrontEndCancelsTheEchoOfWhatThePlayerRendered() throws {
        let erle = try echoReturnLossEnhancement(pushingReference: true)
        // Measured 49.9–51.3 dB (WebRTC AEC2 with its suppressor, the default chain).
        XCTAssertGreaterThanOrEqual(erle, 30, "the front end could not cancel the echo of what the player pushed")
        // The control: the same room with the player not feeding the front end.
        let control = try echoReturnLossEnhancement(pushingReference: false)
        XCTAssertLessThan(control, 10, "without the player's reference nothing should cancel the echo")
    }

    private func echoReturnLossEnhancement(pushingReference: Bool) throws -> Double {
        let rate = 16000, frames = 160
        let (frontEnd, collector) = try OutputCollector.startedFrontEnd(rate: rate)
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate, bufferMilliseconds: 20_000),
                                         reference: pushingReference ? frontEnd : nil)
        defer { player.close() }
        let log = EventLog()
        log.attach(to: player)
        let wav = try EncodedInputs.speech(rate: 24000)
        let pages = Feed.oggPages(try EncodedInputs.opus(wav))
        // Two sentences back to back (about 9 s), so the canceller has converged for the second.
        try player.play(.opus, sampleRate: 24000, pieces: pages)
        try player.play(.opus, sampleRate: 24000, pieces: pages)
        XCTAssertTrue(log.wait { $0.filter(\.isInputEnded).count == 2 })
        // The room: a direct path 2.5 ms late at −4 dB and a reflection 12.5 ms late at −10 dB.
        var history = [Float](repeating: 0, count: 400)
        var mic: [Int16] = [], out = [Int16](repeating: 0, count: frames), micFrame = [Int16](repeating: 0, count: frames)
        while !log.has({ if case .drained(2, _) = $0 { return true }; return false }) && mic.count < 20 * rate {
            out.withUnsafeMutableBufferPointer { player.render(into: $0) }
            for i in 0..<frames {
                history.removeFirst()
                history.append(Float(out[i]))
                micFrame[i] = Int16(0.63 * history[399 - 40] + 0.32 * history[399 - 200])
            }
            mic += micFrame
            _ = micFrame.withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
            if mic.count % (rate / 2) == 0 { usleep(2000) }
        }
        _ = try frontEnd.finish()
        // The loop renders until the drained event is delivered (on the worker thread): when delivery lags by more
        // than the re-arm time of rendered audio (a loaded machine), the mic re-arm follows it, as documented.
        XCTAssertEqual(log.all.filter { !$0.isRearmed }.map(\.name),
                       ["inputEnded", "inputEnded", "started", "drained", "started", "drained"])
        for case .inputEnded(let utterance, let samples) in log.all {
            XCTAssertTrue(log.all.contains(.drained(utterance: utterance, position: PlayedPosition(samples: samples, sampleRate: rate))),
                          "\(log.all)")
        }
        let output = collector.audio
        // ERLE over the second sentence's 100 ms blocks where the echo is loud.
        let start = mic.count / 2
        var echo = 0.0, residual = 0.0
        for block in stride(from: start, to: min(mic.count, output.count) - 1600, by: 1600) {
            let e = (block..<(block + 1600)).reduce(0.0) { $0 + Double(mic[$1]) * Double(mic[$1]) }
            guard e / 1600 > 300 * 300 else { continue }
            echo += e
            residual += (block..<(block + 1600)).reduce(0.0) { $0 + Double(output[$1]) * Double(output[$1]) }
        }
        let erle = 10 * log10(echo / max(residual, 1))
        print("echo of the player's own output (reference pushed: \(pushingReference)): ERLE \(String(format: "%.1f", erle)) dB over the second sentence, "
              + "\(mic.count) mic samples, \(output.count) output samples")
        XCTAssertGreaterThan(echo, 0)
        XCTAssertEqual(player.counts.refusedReferenceSamples, 0)
        return erle
    }
}
