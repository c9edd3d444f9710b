import AudioFrontEnd
import Foundation
import XCTest

/// Mic, reference and control on three threads, 10 minutes of audio as fast as possible. CI also runs this
/// under `swift test --sanitize=thread`.
final class FrontEndConcurrencyTests: XCTestCase {
    func testThreeThreadsTenMinutesExactAccounting() throws {
        var configuration = FrontEndConfiguration()
        configuration.mic = .init(sampleRate: 48000)
        configuration.reference = .init(sampleRate: 44100)
        let frontEnd = try FrontEnd(configuration: configuration)
        final class Counter: FrontEndDelegate, @unchecked Sendable {
            let lock = NSLock()
            var samples = 0, finished = 0, next = 0, outOfOrder = 0
            func frontEnd(_ frontEnd: FrontEnd, didProduce event: FrontEndEvent) {
                lock.withLock {
                    switch event {
                    case .audio(let chunk):
                        if chunk.position != next { outOfOrder += 1 }
                        next = chunk.position + chunk.samples.count
                        samples += chunk.samples.count
                    case .finished: finished += 1
                    default: break
                    }
                }
            }
        }
        let counter = Counter()
        frontEnd.delegate = counter
        try frontEnd.start()
        let seconds = 600
        let micChunk = (0..<480).map { Int16(sin(Double($0) * 0.3) * 3000) }
        let referenceChunk = [Int16](repeating: 500, count: 441)
        let group = DispatchGroup()
        let micPushed = LockedCount()
        DispatchQueue.global().async(group: group) {
            for _ in 0..<(seconds * 100) {
                var taken = 0
                while taken < micChunk.count {
                    taken += micChunk[taken...].withUnsafeBufferPointer { frontEnd.pushMic(samples: $0) }.accepted
                }
                micPushed.add(taken)
            }
        }
        DispatchQueue.global().async(group: group) {
            for _ in 0..<(seconds * 100) {
                _ = referenceChunk.withUnsafeBufferPointer { frontEnd.pushReference(samples: $0) }
            }
        }
        DispatchQueue.global().async(group: group) {
            for i in 0..<2000 {
                frontEnd.setPlaying(i % 2 == 0)
                _ = frontEnd.delayEstimateMilliseconds // any thread, while the mic thread processes (TSan checks it)
                usleep(100)
            }
            frontEnd.setPlaying(true)
        }
        group.wait()
        let summary = try frontEnd.finish()
        XCTAssertEqual(micPushed.value, seconds * 48000)
        XCTAssertEqual(summary.micSamplesPushed, seconds * 48000)
        XCTAssertEqual(summary.outputSamples, seconds * 16000)
        counter.lock.withLock {
            XCTAssertEqual(counter.samples, seconds * 16000, "every mic sample's share of output is delivered")
            XCTAssertEqual(counter.finished, 1)
            XCTAssertEqual(counter.outOfOrder, 0)
        }
    }
}

final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ n: Int) { lock.withLock { count += n } }
    var value: Int { lock.withLock { count } }
}
