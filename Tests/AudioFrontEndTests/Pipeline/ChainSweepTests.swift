import AudioFrontEnd
import Foundation
import XCTest

/// Not a test of the library: prints the barge-in figures of candidate echo chains through the whole front end
/// (run with AFE_SWEEP=1). AFE_CHAINS overrides the candidate list without a rebuild, e.g.
/// `AFE_CHAINS="speex tail=128 res=1 es=-40 esa=-15; speexwebrtc level=low"`; keys: kind (first word: webrtc,
/// speex, speexwebrtc), tail, res (0/1), es, esa (dB), level (low/moderate/high), ext (0/1). AFE_SERS and
/// AFE_DELAYS choose the double-talk SERs and echo delays measured.
final class ChainSweepTests: XCTestCase {
    static let defaultChains = "webrtc level=moderate; webrtc level=low; speex tail=128 res=0; speex tail=128 res=1;"
        + " speexwebrtc level=low; speexwebrtc level=moderate"

    static func chain(_ spec: String) -> FrontEndConfiguration.EchoCancellation {
        let words = spec.split(separator: " ").map(String.init)
        var values: [String: String] = [:]
        for word in words.dropFirst() {
            let pair = word.split(separator: "=").map(String.init)
            if pair.count == 2 { values[pair[0]] = pair[1] }
        }
        var speex = SpeexEchoCanceller.Configuration()
        if let t = values["tail"].flatMap(Int.init) { speex.tailMilliseconds = t }
        if let r = values["res"] { speex.residualEchoSuppression = r == "1" }
        if let e = values["es"].flatMap(Int.init) { speex.echoSuppressDecibels = e }
        if let e = values["esa"].flatMap(Int.init) { speex.echoSuppressActiveDecibels = e }
        var webRTC = WebRTCEchoCanceller.Configuration()
        switch values["level"] {
        case "low": webRTC.suppressionLevel = .low
        case "high": webRTC.suppressionLevel = .high
        default: webRTC.suppressionLevel = .moderate
        }
        if let e = values["ext"] { webRTC.extendedFilter = e == "1" }
        switch words.first {
        case "webrtc": return .webRTC(webRTC)
        case "speex": return .speex(speex)
        default:
            if values["res"] == nil { speex.residualEchoSuppression = false }
            return .speexThenWebRTC(speex, webRTC)
        }
    }

    func testSweepCandidateChains() throws {
        let env = ProcessInfo.processInfo.environment
        try XCTSkipUnless(env["AFE_SWEEP"] != nil, "set AFE_SWEEP=1 to sweep chains")
        let specs = (env["AFE_CHAINS"] ?? Self.defaultChains).split(separator: ";")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        let sers = (env["AFE_SERS"] ?? "-5 0 5").split(separator: " ").compactMap { Int($0) }
        let delays = (env["AFE_DELAYS"] ?? "0 40 120 250 400").split(separator: " ").compactMap { Int($0) }
        for spec in specs {
            var c = FrontEndConfiguration()
            c.echoCancellation = Self.chain(spec)
            for ser in sers {
                print("SWEEP [\(spec)] SER \(ser): \(try FrontEndDoubleTalkTests.measure(c, ser: ser))")
            }
            var worst: [String] = []
            for delay in delays {
                let w = try FrontEndEchoTests.worstERLE(c, delay: delay)
                worst.append("\(delay) ms \(String(format: "%.1f", w.worst))")
            }
            if !delays.isEmpty { print("SWEEP [\(spec)] worst 1 s ERLE from 3 s: \(worst.joined(separator: ", "))") }
        }
    }
}
