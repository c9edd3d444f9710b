import AudioFrontEnd
import Foundation
import XCTest

/// Issue 14's false speech start: how long the app's play_start precedes the first sound must not change what the
/// front end makes of that sound. A player says play_start when it begins an utterance, and the utterance's audio
/// arrives from the TTS server a server's latency later; frames a push left behind are processed after the hint.
/// Either way a number of silent frames set by wall-clock timing lies between the hint and the first sound. The
/// cancellers ran over them, which advanced their state (speex's preprocessor counts frames; AEC2 after it follows
/// its output) by that number: the same answer came out differently, and after 38 or 40 such frames (not 36, 39
/// or 0) AEC2 let a burst of residual echo through 1.54 s into the answer that opened a speech segment
/// (BargeInPlaybackTests, a noiseless simulated room). Deterministic: one thread pushes both streams.
final class FrontEndPlayHintLeadTests: XCTestCase {
    static let rate = 16000

    /// Plays `farend_16k.wav` into a noiseless room (the barge-in test's: 0.63·x[n-40] + 0.32·x[n-200]) after
    /// `silence` 10 ms buffers of silence, the last `lead` of them after play_start; reference first, then the
    /// mic, 10 ms at a time, as `StreamInputTtsPlayback` does. Returns the output from the first sound on and the
    /// speech starts (ms after the first sound).
    static func run(lead: Int, silence: Int = 50) throws -> (output: [Int16], starts: [Int]) {
        let far = try TestVectors.int16("farend_16k.wav").samples
        let played = [Int16](repeating: 0, count: silence * 160) + far[0..<(8 * rate)]
        var mic = [Int16](repeating: 0, count: played.count)
        for n in played.indices {
            let echo = 0.63 * Float(n >= 40 ? played[n - 40] : 0) + 0.32 * Float(n >= 200 ? played[n - 200] : 0)
            mic[n] = Int16(max(-32768, min(32767, echo.rounded())))
        }
        let (frontEnd, collector) = try FrontEndHarness.started(FrontEndConfiguration())
        frontEnd.setPlaying(false)
        for buffer in 0..<(played.count / 160) {
            let chunk = buffer * 160..<(buffer + 1) * 160
            XCTAssertEqual(played[chunk].withUnsafeBufferPointer { frontEnd.pushReference(samples: $0) }.status, .ok)
            if buffer == silence - lead { frontEnd.setPlaying(true) }
            XCTAssertEqual(mic[chunk].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }.status, .ok)
        }
        try frontEnd.finish()
        let first = silence * 160
        let starts = collector.events.compactMap { if case .speechStarted(let ms) = $0 { ms - first / 16 } else { nil } }
        return (Array(collector.alignedAudio[first...]), starts)
    }

    /// The level (dBFS) of the loudest 100 ms window of `a - b` over their common length.
    static func worstDifference(_ a: [Int16], _ b: [Int16]) -> (decibels: Float, atMilliseconds: Int) {
        let window = rate / 10
        var worst: (decibels: Float, atMilliseconds: Int) = (-200, -1)
        for start in stride(from: 0, to: min(a.count, b.count) - window + 1, by: window) {
            var sum = 0.0
            for n in start..<(start + window) { let d = Double(a[n]) - Double(b[n]); sum += d * d }
            let level = sum > 0 ? Float(10 * log10(sum / Double(window) / (32768.0 * 32768.0))) : -200
            if level > worst.decibels { worst = (level, start * 1000 / rate) }
        }
        return worst
    }

    /// The outputs are compared by level, not bit for bit: the residual echo of this noiseless room sits at
    /// -90..-45 dBFS, and the defect let bursts through at -56..-50 dBFS where the other leads had -89. A run may
    /// differ from the lead-0 run by at most -80 dBFS in any 100 ms window (a few LSB of rounding).
    func testTheOutputDoesNotDependOnHowLongPlayStartPrecededTheFirstSound() throws {
        let reference = try Self.run(lead: 0)
        XCTAssertGreaterThan(reference.output.count, 7 * Self.rate)
        for lead in [1, 36, 38, 40] {
            let run = try Self.run(lead: lead)
            let worst = Self.worstDifference(run.output, reference.output)
            XCTAssertLessThanOrEqual(worst.decibels, -80, "play_start \(lead * 10) ms before the first sound: the output "
                                     + "differs by \(worst.decibels) dBFS \(worst.atMilliseconds) ms into it")
            XCTAssertEqual(run.starts, reference.starts, "play_start \(lead * 10) ms before the first sound")
        }
    }
}
