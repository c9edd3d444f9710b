import AllocationCounter
import AudioPlayback
import XCTest

/// `SynthesisPlayer.duck(decibels:milliseconds:)`: the audio handed to the device (and so the reference) turned
/// down from the next buffer for the rendered time asked, with one buffer of ramp at each end, then back to full.
/// A constant input makes every sample's gain readable; the player's own integer output is compared exactly.
final class PlayerDuckTests: XCTestCase {
    private let rate = 16000
    private let frames = 160
    private let level: Int16 = 8000

    /// A player with 2 s of a constant level decoded ahead, its reference recorded.
    private func constantPlayer() throws -> (SynthesisPlayer, RecordingReference) {
        let reference = RecordingReference(capacity: 200_000)
        let player = try SynthesisPlayer(configuration: PlaybackConfiguration(sampleRate: rate, bufferMilliseconds: 5000),
                                         reference: reference)
        let log = EventLog()
        log.attach(to: player)
        try player.play(.pcm, sampleRate: rate, pieces: [Bytes.littleEndian([Int16](repeating: level, count: 2 * rate))])
        XCTAssertTrue(log.wait { $0.contains(where: \.isInputEnded) }, "\(log.all)")
        return (player, reference)
    }

    private func render(_ player: SynthesisPlayer, buffers: Int) -> [Int16] {
        var out: [Int16] = []
        var buffer = [Int16](repeating: 0, count: frames)
        for _ in 0..<buffers {
            buffer.withUnsafeMutableBufferPointer { player.render(into: $0) }
            out += buffer
        }
        return out
    }

    func testADuckTurnsTheNextBuffersDownForItsTimeWithRampsAndTheReferenceFollows() throws {
        let (player, reference) = try constantPlayer()
        defer { player.close() }
        var rendered = render(player, buffers: 10)
        XCTAssertFalse(player.isDucked)
        player.duck(decibels: 20, milliseconds: 300) // 30 buffers of 10 ms
        XCTAssertTrue(player.isDucked)
        rendered += render(player, buffers: 40)
        XCTAssertFalse(player.isDucked)
        let ducked = Int16((Float(level) * 0.1).rounded()) // 20 dB
        XCTAssertTrue(rendered[0..<1600].allSatisfy { $0 == level }, "before the duck")
        let rampDown = Array(rendered[1600..<1760])
        XCTAssertEqual(rampDown.last, ducked)
        XCTAssertTrue(zip(rampDown, rampDown.dropFirst()).allSatisfy { $0 >= $1 }, "the ramp down falls")
        XCTAssertLessThan(level - rampDown[0], 100, "the ramp starts near full volume (no click)")
        XCTAssertTrue(rendered[1760..<(40 * frames)].allSatisfy { $0 == ducked }, "ducked for 300 ms from the call")
        let rampUp = Array(rendered[(40 * frames)..<(41 * frames)])
        XCTAssertEqual(rampUp.last, level)
        XCTAssertTrue(zip(rampUp, rampUp.dropFirst()).allSatisfy { $0 <= $1 }, "the ramp up rises")
        XCTAssertTrue(rendered[(41 * frames)...].allSatisfy { $0 == level }, "full volume after the duck")
        XCTAssertEqual(reference.samples, rendered, "the reference is what was handed to the device")
    }

    func testAnotherDuckExtendsItZeroEndsItAndValuesAreClamped() throws {
        let (player, reference) = try constantPlayer()
        defer { player.close() }
        player.duck(decibels: 6, milliseconds: 100)
        var rendered = render(player, buffers: 5)
        player.duck(decibels: 40, milliseconds: 100) // from now: 10 more buffers, deeper
        rendered += render(player, buffers: 12)
        let six = Int16((Float(level) * 0.501_187).rounded()), forty = Int16((Float(level) * 0.01).rounded())
        XCTAssertEqual(rendered[4 * frames + frames - 1], six)
        XCTAssertEqual(rendered[5 * frames + frames - 1], forty, "the second duck's depth from the next buffer")
        XCTAssertEqual(rendered[14 * frames + frames - 1], forty, "extended to 100 ms after the second call")
        XCTAssertEqual(rendered[15 * frames + frames - 1], level)
        player.duck(decibels: 20, milliseconds: 500)
        player.duck(decibels: 20, milliseconds: 0)
        XCTAssertFalse(player.isDucked)
        rendered += render(player, buffers: 2)
        XCTAssertTrue(rendered.suffix(2 * frames).allSatisfy { $0 == level }, "0 ms ends the duck")
        player.duck(decibels: .nan, milliseconds: -5) // clamped: 0 dB for 0 ms, nothing changes
        player.duck(decibels: 500, milliseconds: 10) // 90 dB: silence for one buffer
        rendered += render(player, buffers: 3)
        XCTAssertEqual(rendered[rendered.count - 3 * frames + frames - 1], 0, "90 dB")
        XCTAssertEqual(rendered.last, level)
        XCTAssertEqual(reference.samples, rendered)
    }

    func testRenderingWhileDuckedAllocatesNothing() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let (player, _) = try constantPlayer()
        defer { player.close() }
        var buffer = [Int16](repeating: 0, count: frames)
        var allocations: Int64 = -1
        buffer.withUnsafeMutableBufferPointer { out in
            for call in 0..<150 {
                if call == 20 { afe_allocation_counter_start() }
                if call % 30 == 25 { player.duck(decibels: 20, milliseconds: 150) }
                player.render(into: out)
            }
            allocations = afe_allocation_counter_stop()
        }
        XCTAssertEqual(allocations, 0, "allocations while ducking and rendering")
    }
}
