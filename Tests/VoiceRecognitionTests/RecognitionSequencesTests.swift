import AudioFrontEnd
import Foundation
import SpeechStreaming
import VoiceRecognition
import XCTest

/// The SpeechAnalyzer-shaped API: audio in as an AsyncSequence or a file, out as separate bounded sequences,
/// finish returning the summary, cancel ending everything. Against the reference server on 127.0.0.1.
final class RecognitionSequencesTests: XCTestCase {
    /// What each sequence carried, read to its end.
    struct Read {
        var finals = 0
        var partials = 0
        var speechStarts = 0
        var audioSamples = 0
        var levels = 0
        var echo = 0
    }

    /// Reads the four split sequences to their ends in tasks begun after `start` (they exist from the
    /// session's creation, so a late reader misses nothing).
    func readAll(_ session: RecognitionSession) -> Task<Read, Never> {
        let results = Task { await session.results.reduce(into: Read()) {
            switch $1 {
            case .final: $0.finals += 1
            case .partial: $0.partials += 1
            default: break
            }
        } }
        let activity = Task { await session.speechActivity.reduce(0) { if case .started = $1 { $0 + 1 } else { $0 } } }
        let audio = Task { await session.processedAudio.reduce(0) { $0 + $1.samples.count } }
        let telemetry = Task { await session.telemetry.reduce(into: (0, 0)) {
            switch $1 {
            case .level: $0.0 += 1
            case .echo: $0.1 += 1
            default: break
            }
        } }
        return Task {
            var read = await results.value
            read.speechStarts = await activity.value
            read.audioSamples = await audio.value
            (read.levels, read.echo) = await telemetry.value
            return read
        }
    }

    func testAFileGoesInAndEachSequenceCarriesItsOwnPart() async throws {
        let server = try ReferenceServer()
        let session = try RecognitionSession(configuration: RecognitionConfiguration(
            service: Wire.dashScope.service(server), queueFullPolicy: .wait))
        let reader = readAll(session)
        // The 48 kHz near-end vector: the file input mixes and resamples it to the 16 kHz mic.
        let path = TestVectors.directory.appendingPathComponent("nearend_48k.wav").path
        let file = try AudioFile(contentsOf: path)
        let summary = try await session.analyzeFile(atPath: path, pacing: .asFastAsAccepted)
        let read = await reader.value
        let expectedSamples = file.frameCount / 3
        print("file input: \(read.finals) finals, \(read.partials) partials, \(read.speechStarts) speech starts, "
              + "\(read.audioSamples) processed samples (file \(expectedSamples)), \(read.levels) levels, \(read.echo) echo telemetry")
        XCTAssertEqual(summary.ending, .finished)
        XCTAssertGreaterThan(read.finals, 0)
        XCTAssertEqual(read.finals, summary.sentences.count, "the results sequence has every final of the summary")
        XCTAssertGreaterThan(read.speechStarts, 0)
        XCTAssertEqual(read.speechStarts, summary.speechSegments.count)
        // Processed audio: as long as the file at 16 kHz (within 1 %: the resampler's edges), unless bounded.
        XCTAssertEqual(Double(read.audioSamples), Double(expectedSamples), accuracy: Double(expectedSamples) / 100)
        XCTAssertEqual(read.levels, summary.frontEnd?.framesProcessed, "one level per 10 ms frame")
        XCTAssertGreaterThan(read.echo, 0)
        XCTAssertEqual(summary.drops.eventsDropped, 0, "every sequence was read")
    }

    /// A file holding samples that are not numbers is refused, naming the file and the count, before the session
    /// starts (the file input has no channel for a warning, and a NaN would spread through the resampler).
    func testAFileWithSamplesThatAreNotNumbersIsRefused() async throws {
        let server = try ReferenceServer()
        let session = try RecognitionSession(configuration: RecognitionConfiguration(service: Wire.dashScope.service(server)))
        var samples = [Float](repeating: 0.1, count: 16000)
        samples[100] = .nan
        samples[200] = .infinity
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("nan-\(UUID().uuidString).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try AudioFile(samples: samples, sampleRate: 16000).writeWAV(to: path, encoding: .float32)
        do {
            _ = try await session.analyzeFile(atPath: path, pacing: .asFastAsAccepted)
            XCTFail("a file with samples that are not numbers was accepted")
        } catch RecognitionError.invalidConfiguration(let message) {
            XCTAssertEqual(message, "\(path) holds 2 samples that are not numbers (NaN or infinite)")
        }
        session.cancel()
    }

    func testFloatBuffersFromAnAsyncSequenceAndFinishReturnsTheSummary() async throws {
        let server = try ReferenceServer()
        let session = try RecognitionSession(configuration: RecognitionConfiguration(
            service: Wire.nls.service(server), queueFullPolicy: .wait, reportsAudio: false))
        let mic = try TestVectors.float("nearend_16k.wav").samples.prefix(16000 * 6)
        let buffers = AsyncStream<[Float]> { continuation in
            for start in stride(from: mic.startIndex, to: mic.endIndex, by: 480) {
                continuation.yield(Array(mic[start..<min(start + 480, mic.endIndex)]))
            }
            continuation.finish()
        }
        let reader = readAll(session)
        let summary = try await session.analyzeSequence(buffers)
        let read = await reader.value
        XCTAssertEqual(summary.ending, .finished)
        XCTAssertEqual(summary.frontEnd?.micSamplesPushed, mic.count, "every sample of the sequence was pushed")
        XCTAssertEqual(read.audioSamples, 0, "reportsAudio false: no processed audio")
        XCTAssertEqual(read.finals, summary.sentences.count)
        XCTAssertGreaterThan(read.levels, 0)
    }

    func testCancelEndsEverySequenceAndTheInput() async throws {
        let server = try ReferenceServer()
        let session = try RecognitionSession(configuration: RecognitionConfiguration(service: Wire.dashScope.service(server)))
        let reader = readAll(session)
        let (endless, feed) = AsyncStream.makeStream(of: [Int16].self)
        try await session.start()
        let pushing = Task { try await session.pushMic(contentsOf: endless) }
        let silence = [Int16](repeating: 0, count: 160)
        for _ in 0..<50 { feed.yield(silence) }
        try await Task.sleep(for: .milliseconds(100))
        session.cancel()
        for _ in 0..<50 { feed.yield(silence) } // the input runs on: its next push finds the session ended
        do {
            try await pushing.value
            XCTFail("pushing into a cancelled session returned normally")
        } catch let error as RecognitionError {
            guard case .invalidState = error else { return XCTFail("\(error)") }
        }
        feed.finish()
        _ = await reader.value // every sequence ended
        let summary = try await session.finish()
        XCTAssertEqual(summary.ending, .cancelled, "finish after a cancel returns the cancelled summary")
    }
}
