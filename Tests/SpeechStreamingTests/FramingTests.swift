import Foundation
@testable import SpeechStreaming
import XCTest

/// PCM and Ogg framing, Ogg page reading and renumbering, and the replay buffer: deterministic integer
/// code, checked byte for byte.
final class FramingTests: XCTestCase {
    static func opusPages() throws -> [[UInt8]] { try TestAudio.oggPages(TestAudio.samples()) }

    // MARK: Ogg pages

    func testPagesFromTheWriterScanAndRenumberBackToThemselves() throws {
        let pages = try Self.opusPages()
        let stream = pages.flatMap { $0 }
        var offset = 0
        for (index, page) in pages.enumerated() {
            XCTAssertEqual(OggPage.scan(stream, at: offset), .page(page.count), "page \(index)")
            let sequence = UInt32(page[18]) | UInt32(page[19]) << 8 | UInt32(page[20]) << 16 | UInt32(page[21]) << 24
            XCTAssertEqual(sequence, UInt32(index))
            XCTAssertEqual(OggPage.renumbered(page[...], sequence: sequence), page,
                           "page \(index): our CRC equals libogg's")
            XCTAssertEqual(OggPage.renumbered(OggPage.renumbered(page[...], sequence: 77)[...], sequence: sequence), page)
            offset += page.count
        }
        XCTAssertEqual(OggPage.opusPreSkip(pages[0][...]), 312, "OpusHead pre-skip (encoder lookahead at 48 kHz)")
        XCTAssertNil(OggPage.opusPreSkip(pages[1][...]), "OpusTags")
        XCTAssertEqual(OggPage.granule(pages[0][...]), 0)
        XCTAssertEqual(OggPage.granule(pages[2][...]), 960, "one 20 ms packet at 48 kHz")
        XCTAssertEqual(OggPage.scan(Array(stream.prefix(20)), at: 0), .incomplete)
        XCTAssertEqual(OggPage.scan(Array(stream.prefix(pages[0].count - 1)), at: 0), .incomplete)
        XCTAssertEqual(OggPage.scan(Array("OggX".utf8), at: 0), .invalid)
        XCTAssertEqual(OggPage.scan(Array("Og".utf8), at: 0), .incomplete)
    }

    // MARK: Frame assembly

    func testPCMFramesAreExactlyTheFrameSizeAndLoseNothing() {
        var generator = SeededRandom(seed: 7)
        let input = (0..<50_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        var assembler = FrameAssembler(framing: .pcm(frameBytes: 3200))
        var frames: [AudioFrame] = []
        var offset = 0
        while offset < input.count {
            let length = min(Int(generator.next() % 700) + 1, input.count - offset)
            input[offset..<offset + length].withUnsafeBytes { assembler.append($0) }
            offset += length
            while let frame = assembler.nextFrame(draining: false) { frames.append(frame) }
        }
        XCTAssertTrue(frames.allSatisfy { $0.bytes.count == 3200 }, "seed 7")
        while let frame = assembler.nextFrame(draining: true) { frames.append(frame) }
        XCTAssertEqual(frames.last?.bytes.count, 50_000 % 3200)
        XCTAssertEqual(frames.flatMap(\.bytes), input, "seed 7")
        XCTAssertEqual(assembler.pendingBytes, 0)
    }

    func testOggFramesAreWholePagesOfAbout100ms() throws {
        let pages = try Self.opusPages()
        var assembler = FrameAssembler(framing: .ogg(frameMilliseconds: 100, maxBytes: 16_384))
        var frames: [AudioFrame] = []
        for page in pages {
            page.withUnsafeBytes { assembler.append($0) }
            while let frame = assembler.nextFrame(draining: false) { frames.append(frame) }
        }
        let undrained = frames.count
        while let frame = assembler.nextFrame(draining: true) { frames.append(frame) }
        XCTAssertEqual(frames.flatMap(\.bytes), pages.flatMap { $0 }, "every byte, in order")
        XCTAssertEqual(frames.first?.pages.filter(\.isHeader).count, 2, "OpusHead and OpusTags go with the first audio")
        for (index, frame) in frames.enumerated() {
            XCTAssertEqual(frame.pages.map(\.range.count).reduce(0, +), frame.bytes.count, "frame \(index) is whole pages")
            XCTAssertEqual(frame.pages.first?.range.lowerBound, 0)
            let span = (frame.pages.last?.endMilliseconds ?? 0) - (frame.pages.first?.startMilliseconds ?? 0)
            if index < undrained { XCTAssertGreaterThanOrEqual(span, 100, "frame \(index)") }
            XCTAssertLessThanOrEqual(span, 120, "frame \(index): at most one page past 100 ms")
        }
        let audioMilliseconds = frames.last?.pages.last?.endMilliseconds ?? 0
        XCTAssertEqual(Double(audioMilliseconds), TestAudio.seconds * 1000, accuracy: 20, "granules minus pre-skip give the duration")
    }

    func testBytesThatAreNotPagesStillGoOut() {
        var assembler = FrameAssembler(framing: .ogg(frameMilliseconds: 100, maxBytes: 16_384))
        let garbage = Array("not an ogg page at all".utf8)
        garbage.withUnsafeBytes { assembler.append($0) }
        let frame = assembler.nextFrame(draining: false)
        XCTAssertEqual(frame?.bytes, garbage)
        XCTAssertEqual(frame?.pages.first?.isOpaque, true)
        // A page cut short waits, and at the end it goes out as it is.
        let partial = Array("OggS".utf8) + [0, 0, 1, 2]
        partial.withUnsafeBytes { assembler.append($0) }
        XCTAssertNil(assembler.nextFrame(draining: false))
        XCTAssertEqual(assembler.nextFrame(draining: true)?.bytes, partial)
    }

    // MARK: Replay buffer

    func testPCMReplayKeepsTheAudioSinceTheLastSentenceEnd() {
        var replay = ReplayBuffer(format: .pcm, sampleRate: 16000, capacityBytes: 1 << 20)
        let audio = (0..<64_000).map { UInt8(truncatingIfNeeded: $0 / 2) } // 2 s
        for start in stride(from: 0, to: audio.count, by: 3200) {
            replay.append(AudioFrame(bytes: Array(audio[start..<start + 3200]), pages: []))
        }
        XCTAssertEqual(replay.startMilliseconds, 0)
        replay.trim(throughMilliseconds: 1200)
        XCTAssertEqual(replay.startMilliseconds, 1200)
        XCTAssertEqual(replay.replayFrames(frameBytes: 3200, frameMilliseconds: 100).map(\.milliseconds),
                       Array(repeating: 100, count: 8), "each re-sent frame knows its duration (for pacing)")
        let frames = replay.replayFrames(frameBytes: 3200, frameMilliseconds: 100).map(\.bytes)
        XCTAssertEqual(frames.flatMap { $0 }, Array(audio[38_400...]))
        XCTAssertTrue(frames.allSatisfy { $0.count == 3200 })
        replay.trim(throughMilliseconds: 900)
        XCTAssertEqual(replay.startMilliseconds, 1200, "an earlier end trims nothing")
        replay.trim(throughMilliseconds: 5000)
        XCTAssertEqual(replay.keptBytes, 0)
        XCTAssertEqual(replay.startMilliseconds, 2000, "all sent audio is covered")
    }

    func testPCMReplayIsBoundedAndDropsTheOldestAudio() {
        var replay = ReplayBuffer(format: .pcm, sampleRate: 16000, capacityBytes: 32_000)
        let dropped = (0..<20).map { _ in replay.append(AudioFrame(bytes: [UInt8](repeating: 1, count: 3200), pages: [])) }
        XCTAssertEqual(dropped, Array(repeating: 0, count: 10) + Array(repeating: 3200, count: 10), "each drop reported")
        XCTAssertEqual(replay.keptBytes, 32_000)
        XCTAssertEqual(replay.droppedBytes, 32_000)
        XCTAssertEqual(replay.startMilliseconds, 1000)
    }

    /// The catch-up pacer on explicit times: the first frame at once, then no more than 2× real time.
    func testCatchUpPacerHoldsTheAudioToTheSpeed() {
        var pacer = CatchUpPacer(start: .seconds(10), speed: 2)
        XCTAssertNil(pacer.wait(at: .seconds(10)), "the first frame goes at once")
        pacer.sent(milliseconds: 100)
        XCTAssertEqual(pacer.wait(at: .seconds(10)), .milliseconds(50))
        XCTAssertEqual(pacer.wait(at: .milliseconds(10_020)), .milliseconds(30))
        XCTAssertNil(pacer.wait(at: .milliseconds(10_050)))
        // Sending whenever allowed for 3 s of wall time moves at most 6 s (+ one frame) of audio.
        var time = Duration.seconds(10)
        while time < .seconds(13) {
            if let wait = pacer.wait(at: time) { time += wait } else { pacer.sent(milliseconds: 100) }
        }
        XCTAssertEqual(pacer.sentMilliseconds, 6100, accuracy: 100)
    }

    func testOggReplayIsAValidStreamFromTheHeadersOn() throws {
        let pages = try Self.opusPages()
        var assembler = FrameAssembler(framing: .ogg(frameMilliseconds: 100, maxBytes: 16_384))
        var replay = ReplayBuffer(format: .opus, sampleRate: 16000, capacityBytes: 1 << 20)
        for page in pages {
            page.withUnsafeBytes { assembler.append($0) }
            while let frame = assembler.nextFrame(draining: false) { replay.append(frame) }
        }
        while let frame = assembler.nextFrame(draining: true) { replay.append(frame) }
        replay.trim(throughMilliseconds: 2500)
        // Page k (from 1) ends at 20 k − 6.5 ms: its granule counts the 312-sample pre-skip.
        XCTAssertEqual(replay.startMilliseconds, 2493, "the last page ending by 2500 ms is page 125")
        let stream = replay.replayFrames(frameBytes: 3200, frameMilliseconds: 100).flatMap(\.bytes)
        var offset = 0
        var sequence: UInt32 = 0
        var granules: [Int64] = []
        while offset < stream.count {
            guard case .page(let length) = OggPage.scan(stream, at: offset) else { return XCTFail("not a page at \(offset)") }
            let page = stream[offset..<offset + length]
            XCTAssertEqual(OggPage.renumbered(page, sequence: sequence), Array(page), "page \(sequence): sequence and CRC")
            granules.append(OggPage.granule(page))
            offset += length
            sequence += 1
        }
        XCTAssertEqual(Array(granules.prefix(2)), [0, 0], "OpusHead and OpusTags first")
        XCTAssertNotNil(OggPage.opusPreSkip(stream[0...]))
        let preSkip = Int64(OggPage.opusPreSkip(stream[0...]) ?? 0)
        XCTAssertEqual((granules[2] - preSkip) / 48, 2513, "the first replayed page is page 126")
        XCTAssertEqual(granules.count - 2, pages.count - 2 - 125, "pages ending after 2500 ms (125 of 20 ms)")
    }
}
