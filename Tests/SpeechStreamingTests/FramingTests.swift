import COgg
import Foundation
@testable import SpeechStreaming
import XCTest

/// PCM framing, Opus packets muxed into Ogg pages by the client (libogg), and the replay buffer: deterministic
/// integer code, checked byte for byte; every Ogg stream is read back with libogg's demuxer (capture, CRC, page
/// sequence) by ``OggStreamReader``.
final class FramingTests: XCTestCase {
    static func packets() throws -> [[UInt8]] { try TestAudio.opusPackets(TestAudio.samples()) }

    /// PCM records of random sizes through the ring into frames of exactly 3200 bytes, the rest when draining.
    func testPCMFramesAreExactlyTheFrameSizeAndLoseNothing() {
        var generator = SeededRandom(seed: 7)
        let input = (0..<50_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let ring = AudioRing(minimumCapacity: 1 << 14)
        let builder = FrameBuilder(format: .pcm, frameBytes: 3200, frameMilliseconds: 100, maxBytes: 16_384, headroom: 16,
                                   ringCapacity: ring.capacity)
        var frames: [[UInt8]] = []
        var offset = 0
        func take() {
            frames.append(Array(builder.payload))
            builder.sent()
        }
        while offset < input.count {
            let length = min(Int(generator.next() % 700) + 1, input.count - offset)
            XCTAssertTrue(input[offset..<offset + length].withUnsafeBytes { ring.write($0, epoch: 1) })
            offset += length
            while let record = ring.peek() {
                while !builder.canTake(pcm: record.length) || builder.isReady(draining: false) { take() }
                builder.takePCM(from: ring, length: record.length)
            }
            while builder.isReady(draining: false) { take() }
        }
        XCTAssertTrue(frames.allSatisfy { $0.count == 3200 }, "seed 7")
        while builder.isReady(draining: true) { take() }
        XCTAssertEqual(frames.last?.count, 50_000 % 3200)
        XCTAssertEqual(frames.flatMap { $0 }, input, "seed 7")
        XCTAssertEqual(builder.pendingBytes, 0)
    }

    /// Packets in, frames out: the frames concatenated are a valid Ogg Opus stream (OpusHead, OpusTags, one page
    /// per packet with its granule position), each frame whole pages holding about 100 ms.
    func testOpusPacketsBecomeWholePagesInFramesOfAbout100ms() throws {
        let packets = try Self.packets()
        var probe = FramingProbe(format: .opus)
        for packet in packets { packet.withUnsafeBytes { probe.append($0, duration48k: 960) } }
        probe.append(UnsafeRawBufferPointer(start: nil, count: 0), duration48k: 0, draining: true)
        let stream = probe.sentBytes
        let pages = try OggStreamReader.read(stream)
        XCTAssertEqual(pages.count, packets.count + 2)
        XCTAssertEqual(Array(pages[0].packets[0].prefix(8)), Array("OpusHead".utf8))
        XCTAssertEqual(Array(pages[1].packets[0].prefix(8)), Array("OpusTags".utf8))
        XCTAssertEqual(pages.map(\.sequence), (0..<pages.count).map { Int($0) }, "page sequence numbers")
        XCTAssertTrue(pages[2...].map(\.granule) == (1...packets.count).map { Int64($0 * 960) }, "granule positions")
        XCTAssertTrue(pages[2...].flatMap(\.packets) == packets, "packets back, in order, byte for byte")
        XCTAssertEqual(probe.frames, (packets.count + 4) / 5, "5 packets of 20 ms a frame, headers with the first")
    }

    /// After a trim at a sentence end, the replay is a new valid stream: headers, then the kept packets with their
    /// granule positions (the first audio page marks the start offset).
    func testOpusReplayIsAValidStreamFromTheHeadersOn() throws {
        let packets = try Self.packets()
        var probe = FramingProbe(format: .opus)
        for packet in packets { packet.withUnsafeBytes { probe.append($0, duration48k: 960) } }
        let replayed = probe.trimAndReplayStream(throughMilliseconds: 2500)
        let pages = try OggStreamReader.read(replayed)
        XCTAssertEqual(Array(pages[0].packets[0].prefix(8)), Array("OpusHead".utf8))
        XCTAssertEqual(pages.map(\.sequence), (0..<pages.count).map { Int($0) })
        // Packet k (from 1) ends at 20 k − 6.5 ms (the 312-sample pre-skip): the last ending by 2500 ms is 125.
        XCTAssertEqual(pages[2].granule, 126 * 960, "the first replayed packet is packet 126")
        XCTAssertEqual(pages.count - 2, packets.count - 125)
        XCTAssertTrue(pages[2...].flatMap(\.packets) == Array(packets[125...]), "the kept packets, byte for byte")
    }

    // MARK: Replay buffer

    func testPCMReplayKeepsTheAudioSinceTheLastSentenceEnd() {
        var replay = ReplayBuffer(format: .pcm, sampleRate: 16000, capacityBytes: 1 << 20)
        let audio = (0..<64_000).map { UInt8(truncatingIfNeeded: $0 / 2) } // 2 s
        for start in stride(from: 0, to: audio.count, by: 3200) {
            Array(audio[start..<start + 3200]).withUnsafeBytes { _ = replay.append(pcm: $0) }
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
        let dropped = (0..<20).map { _ in [UInt8](repeating: 1, count: 3200).withUnsafeBytes { replay.append(pcm: $0) } }
        XCTAssertEqual(dropped, Array(repeating: 0, count: 10) + Array(repeating: 3200, count: 10), "each drop reported")
        XCTAssertEqual(replay.keptBytes, 32_000)
        XCTAssertEqual(replay.droppedBytes, 32_000)
        XCTAssertEqual(replay.startMilliseconds, 1000)
    }

    /// Many small packets (DTX-sized, smaller than their 16-byte record headers) fill the queue before the
    /// capacity in packet bytes: the oldest are dropped and counted, and the replay holds the newest packets
    /// whole (a fuzz finding: headers were not counted, a record was cut short and the replay read past it).
    func testOpusReplayOfManySmallPacketsKeepsWholeRecordsAndCountsTheDrops() {
        var replay = ReplayBuffer(format: .opus, sampleRate: 16000, capacityBytes: 4096)
        let packets = (0..<3000).map { [UInt8(0x08), UInt8(truncatingIfNeeded: $0)] }
        var dropped = 0
        for (k, packet) in packets.enumerated() {
            dropped += packet.withUnsafeBytes { replay.append(packet: $0, granuleEnd: Int64(k + 1) * 960) }
        }
        XCTAssertGreaterThan(dropped, 0, "the queue filled")
        XCTAssertEqual(replay.droppedBytes, dropped)
        XCTAssertEqual(replay.keptBytes + dropped, 3000 * 2, "every packet byte kept or counted as dropped")
        let frames = replay.replayFrames(frameBytes: 3200, frameMilliseconds: 20)
        XCTAssertTrue(frames.flatMap(\.bytes) == Array(packets.suffix(replay.keptBytes / 2).joined()),
                      "the newest packets, whole, in order")
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
}
