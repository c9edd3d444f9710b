import AllocationCounter
import AudioFrontEnd
import Foundation
import SpeechStreaming
import VoiceRecognition
import XCTest

/// Pushes through the core run on the app's audio threads: no allocation there, in PCM and Opus, while the
/// front end processes each frame inline and the drain thread forwards the output to the streaming client.
final class RecognitionRealTimeTests: XCTestCase {
    func testPushesAllocateNothing() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let server = try ReferenceServer()
        let (mic, reference) = try RecognitionLifecycleTests.audio(seconds: 8)
        for format in [AudioFormat.pcm, .opus] {
            let core = try RecognitionCore(configuration: RecognitionConfiguration(
                service: Wire.dashScope.service(server), audioFormat: format, queueFullPolicy: .wait))
            let log = EventLog()
            log.attach(to: core)
            try core.start()
            core.setPlaying(true)
            Feed.push(core, mic: mic.prefix(16000), reference: reference.prefix(16000)) // warm-up: 1 s
            var allocations: Int64 = 0
            var results: [PushStatus: Int] = [:]
            var offset = mic.startIndex + 16000
            while offset < mic.endIndex {
                let end = min(offset + 160, mic.endIndex)
                afe_allocation_counter_start()
                let referenceResult = reference[offset..<end].withUnsafeBytes { core.pushReference(bytes: $0) }
                let micResult = mic[offset..<end].withUnsafeBufferPointer { core.pushMic(samples: $0) }
                allocations += afe_allocation_counter_stop()
                results[referenceResult.status, default: 0] += 1
                results[micResult.status, default: 0] += 1
                if micResult.accepted == end - offset { offset = end } else { usleep(1000) }
            }
            XCTAssertEqual(allocations, 0, "\(format): allocations in 7 s of pushes \(results)")
            XCTAssertGreaterThan(results[.ok] ?? 0, 1000, "\(format): \(results)")
            try core.finish()
            guard case .completed(let summary) = log.waitForEnd() else { return XCTFail("\(format): \(log.events.suffix(2))") }
            XCTAssertEqual(summary.frontEnd?.micSamplesPushed, mic.count, "\(format)")
        }
    }
}
