import AudioFrontEnd
import Foundation
import XCTest

/// Runs whole files through a ``FrontEnd`` the way an app would (mic and reference pushed in chunks) and
/// collects what it reports.
final class FrontEndCollector: FrontEndDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var _events: [FrontEndEvent] = []
    var events: [FrontEndEvent] { lock.withLock { _events } }
    func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) { lock.withLock { _events.append(event) } }

    var audio: [Int16] {
        var samples: [Int16] = []
        for case .audio(let chunk) in events { samples += chunk.samples }
        return samples
    }
    var telemetry: [EchoTelemetry] { events.compactMap { if case .telemetry(let t) = $0 { t } else { nil } } }
    var summary: FrontEndSummary? { events.lazy.compactMap { if case .finished(let s) = $0 { s } else { nil } }.first }
}

enum FrontEndHarness {
    /// Pushes `mic` and `reference` interleaved in `chunk`-sample pieces (reference first, as a device plays
    /// before it hears), finishes, and returns the collector.
    static func run(_ configuration: FrontEndConfiguration, mic: [Int16], reference: [Int16]?, chunk: Int = 160,
                    referenceChunk: Int? = nil) throws -> FrontEndCollector {
        let frontEnd = try FrontEnd(configuration: configuration)
        let collector = FrontEndCollector()
        frontEnd.delegate = collector
        try frontEnd.start()
        let ratio = Double(configuration.reference.sampleRate) / Double(configuration.mic.sampleRate)
        var referenceOffset = 0
        var offset = 0
        while offset < mic.count {
            let end = min(mic.count, offset + chunk)
            if let reference {
                let referenceEnd = min(reference.count, Int((Double(end) * ratio).rounded()))
                if referenceEnd > referenceOffset {
                    let r = reference[referenceOffset..<referenceEnd].withUnsafeBufferPointer { frontEnd.pushReference(samples: $0) }
                    XCTAssertEqual(r.status, .ok)
                    referenceOffset = referenceEnd
                }
            }
            var taken = offset
            while taken < end {
                let r = mic[taken..<end].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }
                taken += r.accepted
                if r.status == .bufferFull { usleep(1000) }
            }
            offset = end
        }
        try frontEnd.finish()
        if let directory = ProcessInfo.processInfo.environment["AFE_DUMP"] {
            // Debug aid for sweeps: the output and the telemetry of the last run, for offline analysis.
            let audio = collector.audio
            try audio.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: directory + "/output.s16"))
            let lines = collector.telemetry.map { "\($0.milliseconds) \($0.delayMilliseconds ?? -1) \($0.alignmentMilliseconds)" }
            try lines.joined(separator: "\n").write(toFile: directory + "/telemetry.txt", atomically: true, encoding: .utf8)
        }
        return collector
    }
}
