import AllocationCounter
import XCTest
@testable import AudioFrontEnd

/// Opus encoder and decoder: quality of decoded round trips on speech, every setting, errors, real-time safety.
final class OpusTests: XCTestCase {
    /// Thresholds set from measurement on nearend_16k.wav (correlation / segmental SNR above 300 Hz, see
    /// SpeechQuality): 24 kb/s gives 0.948 / 9.9 dB; 6 kb/s gives 0.66 / 3.3 dB; decoding one sample out of
    /// alignment gives at most 0.69 / 7.1 dB; 16 kb/s gives 0.91 / 8.5 dB.
    static let roundTripCorrelation = 0.92
    static let roundTripSegmentalSNR = 8.0
    /// "Sane" for every other setting: the worst measured is 0.80 (2.5 ms frames, 48 kHz full band).
    static let saneCorrelation = 0.75

    static func speech16k() throws -> [Int16] { try TestVectors.int16("nearend_16k.wav").samples }

    /// Encodes `speech` with `configuration`, decodes at the same rate, and measures the round trip.
    static func roundTrip(_ speech: [Int16], _ configuration: Opus.Encoder.Configuration) throws
        -> (quality: SpeechQuality.Result, packets: [[UInt8]], decoded: [Int16], encoder: Opus.Encoder) {
        let encoder = try Opus.Encoder(configuration: configuration)
        let packets = try encoder.encodeAll(speech)
        let decoder = try Opus.Decoder(sampleRate: configuration.sampleRate, channelCount: configuration.channelCount)
        let decoded = try decoder.decodeAll(packets)
        // Stereo: measure the first channel.
        let channels = configuration.channelCount
        func first(_ x: [Int16]) -> [Int16] { channels == 1 ? x : stride(from: 0, to: x.count, by: channels).map { x[$0] } }
        let quality = SpeechQuality.measure(reference: first(speech), decoded: first(decoded),
                                            delay: encoder.lookahead, sampleRate: configuration.sampleRate)
        return (quality, packets, decoded, encoder)
    }

    func testSpeechRoundTripAt24kbpsAndTheMetricRejectsLowRateAndMisalignment() throws {
        let speech = try Self.speech16k()
        var configuration = Opus.Encoder.Configuration()
        configuration.bitrate = 24000
        let good = try Self.roundTrip(speech, configuration)
        print("Opus 16 kHz 24 kb/s 20 ms VOIP: \(good.quality), lookahead \(good.encoder.lookahead)")
        XCTAssertEqual(good.encoder.lookahead, 104, "libopus 1.3 VOIP lookahead at 16 kHz is 6.5 ms")
        XCTAssertEqual(good.encoder.preSkip, 312)
        XCTAssertGreaterThanOrEqual(good.quality.correlation, Self.roundTripCorrelation, "24 kb/s: \(good.quality)")
        XCTAssertGreaterThanOrEqual(good.quality.segmentalSNR, Self.roundTripSegmentalSNR, "24 kb/s: \(good.quality)")
        XCTAssertEqual(good.decoded.count, good.packets.count * 320, "20 ms packets at 16 kHz decode to 320 samples")
        XCTAssertGreaterThanOrEqual(good.decoded.count, speech.count + good.encoder.lookahead, "padding covers the lookahead")

        // The same measure must fail a poor encode and a decode one sample out of alignment.
        configuration.bitrate = 6000
        let poor = try Self.roundTrip(speech, configuration)
        print("Opus 16 kHz 6 kb/s: \(poor.quality)")
        XCTAssertLessThan(poor.quality.correlation, Self.roundTripCorrelation, "6 kb/s: \(poor.quality)")
        for shift in [-1, 1] {
            let shifted = SpeechQuality.measure(reference: speech, decoded: good.decoded,
                                                delay: good.encoder.lookahead + shift, sampleRate: 16000)
            print("Opus 24 kb/s decoded \(shift) sample(s) off: \(shifted)")
            XCTAssertLessThan(shifted.correlation, Self.roundTripCorrelation, "shift \(shift): \(shifted)")
            XCTAssertLessThan(shifted.segmentalSNR, Self.roundTripSegmentalSNR, "shift \(shift): \(shifted)")
        }
    }

    func testEveryFrameDurationRoundTrips() throws {
        let speech = try Self.speech16k()
        for duration in Opus.FrameDuration.allCases {
            var configuration = Opus.Encoder.Configuration()
            configuration.frameDuration = duration
            let run = try Self.roundTrip(speech, configuration)
            let bytes = run.packets.map(\.count)
            print("Opus frame \(duration): \(run.quality), mean \(bytes.reduce(0, +) / bytes.count) bytes/packet")
            XCTAssertGreaterThanOrEqual(run.quality.correlation, Self.saneCorrelation, "frame \(duration): \(run.quality)")
            XCTAssertEqual(run.encoder.frameLength, duration.rawValue / 3, "frame \(duration)")
            for packet in run.packets {
                let length = packet.withUnsafeBufferPointer { Opus.packetDuration($0) }
                XCTAssertEqual(length, duration.rawValue, "frame \(duration): packet duration at 48 kHz")
            }
            XCTAssertEqual(run.decoded.count, run.packets.count * run.encoder.frameLength, "frame \(duration)")
        }
    }

    func testConstantBitrateGivesPacketsOfOneSize() throws {
        let speech = Array(try Self.speech16k()[0..<(16000 * 8)])
        for bitrate in [16000, 24000, 32000] {
            var configuration = Opus.Encoder.Configuration()
            configuration.bitrate = bitrate
            for mode in Opus.BitrateMode.allCases {
                configuration.bitrateMode = mode
                let run = try Self.roundTrip(speech, configuration)
                let sizes = Set(run.packets.map(\.count))
                print("Opus \(bitrate) b/s \(mode): sizes \(sizes.min()!)...\(sizes.max()!), \(run.quality)")
                XCTAssertGreaterThanOrEqual(run.quality.correlation, Self.saneCorrelation, "\(bitrate) b/s \(mode)")
                if mode == .constant {
                    XCTAssertEqual(sizes, [bitrate / 8 / 50], "\(bitrate) b/s CBR: every 20 ms packet has bitrate × 20 ms bytes")
                } else {
                    XCTAssertGreaterThan(sizes.count, 10, "\(bitrate) b/s \(mode): VBR sizes should vary")
                }
            }
        }
    }

    func testDTXShrinksSilentPacketsAndKeepsSpeech() throws {
        let speech = Array(try Self.speech16k()[(16000 * 3)..<(16000 * 6)])
        let signal = speech + [Int16](repeating: 0, count: 16000 * 2) + speech
        for dtx in [false, true] {
            var configuration = Opus.Encoder.Configuration()
            configuration.discontinuousTransmission = dtx
            let run = try Self.roundTrip(signal, configuration)
            // Packets whose audio lies wholly in the silent 2 s (skip the first 200 ms while DTX engages).
            let silent = run.packets[(150 + 10 + 1)..<(250 - 1)]
            let tiny = silent.filter { $0.count <= 2 }.count
            print("Opus DTX \(dtx): \(tiny) of \(silent.count) silent packets ≤ 2 bytes, \(run.quality)")
            if dtx {
                XCTAssertGreaterThanOrEqual(tiny, silent.count * 8 / 10, "DTX on: silence should give 1–2 byte packets")
            } else {
                XCTAssertEqual(tiny, 0, "DTX off: no packet is a bare DTX packet")
            }
            XCTAssertGreaterThanOrEqual(run.quality.correlation, Self.roundTripCorrelation, "DTX \(dtx): \(run.quality)")
        }
    }

    func testInbandFECRecoversLostPacketsBetterThanConcealment() throws {
        let speech = try Self.speech16k()
        var configuration = Opus.Encoder.Configuration()
        configuration.inbandFEC = true
        configuration.expectedPacketLossPercent = 10
        let encoder = try Opus.Encoder(configuration: configuration)
        let packets = try encoder.encodeAll(speech)
        var results: [Bool: Double] = [:]
        for useFEC in [false, true] {
            let decoder = try Opus.Decoder(sampleRate: 16000)
            var output: [Int16] = [], lost: [Range<Int>] = []
            var pcm = [Int16](repeating: 0, count: decoder.maximumFrameLength)
            for (index, packet) in packets.enumerated() {
                let count = pcm.withUnsafeMutableBufferPointer { buffer in
                    guard index % 7 == 3, index + 1 < packets.count else {
                        return packet.withUnsafeBufferPointer { decoder.decode(packet: $0, into: buffer) }
                    }
                    lost.append(output.count..<(output.count + 320))
                    if !useFEC { return decoder.concealLoss(duration: 320, into: buffer) }
                    return packets[index + 1].withUnsafeBufferPointer { decoder.recoverLoss(from: $0, duration: 320, into: buffer) }
                }
                XCTAssertEqual(count, 320, "packet \(index), FEC \(useFEC)")
                output += pcm[0..<max(0, count)]
            }
            // Quality of the lost stretches only, in speech (where the reference is not silent).
            let delay = encoder.lookahead
            let reference = SpeechQuality.highPass(SampleConversion.float(from: speech), sampleRate: 16000)
            let decoded = SpeechQuality.highPass(SampleConversion.float(from: output), sampleRate: 16000)
            var a: [Float] = [], b: [Float] = []
            for range in lost where range.lowerBound >= delay && range.upperBound - delay <= reference.count {
                a += reference[(range.lowerBound - delay)..<(range.upperBound - delay)]
                b += decoded[range]
            }
            results[useFEC] = SignalMetrics.correlation(a, b)
        }
        print("Opus 1 in 7 packets lost, correlation on lost stretches: PLC \(results[false]!), FEC \(results[true]!)")
        XCTAssertLessThan(results[false]!, 0.65, "concealment cannot know the lost speech")
        XCTAssertGreaterThan(results[true]!, 0.75, "FEC should recover the lost speech (measured 0.84)")
    }

    func testComplexitySignalApplicationAndRateSweep() throws {
        let speech = try Self.speech16k()
        var cases: [(String, Opus.Encoder.Configuration, [Int16])] = []
        for complexity in [0, 10] {
            var c = Opus.Encoder.Configuration(); c.complexity = complexity
            cases.append(("complexity \(complexity)", c, speech))
        }
        for application in Opus.Application.allCases {
            var c = Opus.Encoder.Configuration(); c.application = application; c.frameDuration = .milliseconds10
            cases.append(("application \(application) 10 ms", c, speech))
        }
        for signal in Opus.Signal.allCases {
            var c = Opus.Encoder.Configuration(); c.signal = signal
            cases.append(("signal \(signal)", c, speech))
        }
        let speech48k = try TestVectors.int16("nearend_48k.wav").samples
        for application in [Opus.Application.voip, .audio] {
            var c = Opus.Encoder.Configuration(); c.sampleRate = 48000; c.bitrate = 32000; c.application = application
            cases.append(("48 kHz 32 kb/s \(application)", c, speech48k))
        }
        var stereo = Opus.Encoder.Configuration(); stereo.channelCount = 2; stereo.bitrate = 48000
        let excerpt = speech[(16000 * 3)..<(16000 * 10)]
        cases.append(("stereo (same speech in both channels)", stereo, excerpt.flatMap { [$0, $0] }))
        for (name, configuration, input) in cases {
            let run = try Self.roundTrip(input, configuration)
            let bytes = run.packets.map(\.count)
            print("Opus \(name): \(run.quality), lookahead \(run.encoder.lookahead), mean \(bytes.reduce(0, +) / bytes.count) bytes/packet")
            XCTAssertGreaterThanOrEqual(run.quality.correlation, Self.saneCorrelation, "\(name): \(run.quality)")
        }
    }

    func testEncoderAndDecoderFinalRangesAgree() throws {
        let speech = Array(try Self.speech16k()[(16000 * 3)..<(16000 * 5)])
        let encoder = try Opus.Encoder()
        let decoder = try Opus.Decoder()
        var pcm = [Int16](repeating: 0, count: decoder.maximumFrameLength)
        var packet = [UInt8](repeating: 0, count: Opus.maximumPacketBytes)
        for start in stride(from: 0, to: speech.count - 320, by: 320) {
            let length = speech[start..<(start + 320)].withUnsafeBufferPointer { frame in
                packet.withUnsafeMutableBufferPointer { encoder.encode(frame: frame, into: $0) }
            }
            XCTAssertGreaterThan(length, 0, "frame at \(start)")
            let decoded = pcm.withUnsafeMutableBufferPointer { out in
                packet[0..<length].withUnsafeBufferPointer { decoder.decode(packet: $0, into: out) }
            }
            XCTAssertEqual(decoded, 320)
            XCTAssertEqual(decoder.lastPacketDuration, 320)
            XCTAssertEqual(encoder.finalRange, decoder.finalRange, "frame at \(start): range coder states differ")
        }
    }

    func testWrongLengthsReturnStatusInsteadOfCrashing() throws {
        let encoder = try Opus.Encoder()
        let decoder = try Opus.Decoder()
        var packet = [UInt8](repeating: 0, count: Opus.maximumPacketBytes)
        var pcm = [Int16](repeating: 0, count: 320)
        for length in [0, 319, 321, 640] {
            let frame = [Int16](repeating: 100, count: length)
            let status = frame.withUnsafeBufferPointer { f in packet.withUnsafeMutableBufferPointer { encoder.encode(frame: f, into: $0) } }
            XCTAssertEqual(status, Int(StageStatus.wrongFrameLength.code), "frame of \(length) samples")
        }
        let frame = [Int16](repeating: 100, count: 320)
        let empty = frame.withUnsafeBufferPointer { f in packet.withUnsafeMutableBufferPointer { encoder.encode(frame: f, into: UnsafeMutableBufferPointer(rebasing: $0[0..<0])) } }
        XCTAssertEqual(empty, Int(StageStatus.outputTooSmall.code))
        let good = frame.withUnsafeBufferPointer { f in packet.withUnsafeMutableBufferPointer { encoder.encode(frame: f, into: $0) } }
        XCTAssertGreaterThan(good, 0)
        let short = pcm.withUnsafeMutableBufferPointer { out in
            packet[0..<good].withUnsafeBufferPointer { decoder.decode(packet: $0, into: UnsafeMutableBufferPointer(rebasing: out[0..<100])) }
        }
        XCTAssertEqual(short, Int(StageStatus.outputTooSmall.code), "320 samples do not fit in 100")
        let garbage: [UInt8] = [0xFF, 0xFF, 0xFF]
        let bad = pcm.withUnsafeMutableBufferPointer { out in garbage.withUnsafeBufferPointer { decoder.decode(packet: $0, into: out) } }
        XCTAssertLessThan(bad, 0, "a malformed packet gives a negative status")
    }

    func testBadConfigurationsThrowNamingTheProblem() {
        func expect(_ code: AudioFrontEndError.Code, _ word: String, _ change: (inout Opus.Encoder.Configuration) -> Void) {
            var configuration = Opus.Encoder.Configuration()
            change(&configuration)
            XCTAssertThrowsError(try Opus.Encoder(configuration: configuration)) { error in
                let e = error as? AudioFrontEndError
                XCTAssertEqual(e?.code, code, "\(configuration)")
                XCTAssertTrue(e?.message.contains(word) == true, "message \"\(e?.message ?? "")\" should name \(word)")
            }
        }
        expect(.unsupportedSampleRate, "44100") { $0.sampleRate = 44100 }
        expect(.invalidConfiguration, "bitrate") { $0.bitrate = 5999 }
        expect(.invalidConfiguration, "bitrate") { $0.bitrate = 510_001 }
        expect(.invalidConfiguration, "complexity") { $0.complexity = 11 }
        expect(.invalidConfiguration, "complexity") { $0.complexity = -1 }
        expect(.invalidConfiguration, "loss") { $0.expectedPacketLossPercent = 101 }
        expect(.invalidConfiguration, "channels") { $0.channelCount = 3 }
        XCTAssertThrowsError(try Opus.FrameDuration(milliseconds: 25)) { error in
            XCTAssertEqual((error as? AudioFrontEndError)?.code, .invalidFrameLength)
        }
        XCTAssertEqual(try Opus.FrameDuration(milliseconds: 2.5), .milliseconds2_5)
        XCTAssertEqual(try Opus.FrameDuration(milliseconds: 60), .milliseconds60)
        XCTAssertThrowsError(try Opus.Decoder(sampleRate: 32000)) { error in
            XCTAssertEqual((error as? AudioFrontEndError)?.code, .unsupportedSampleRate)
        }
        XCTAssertThrowsError(try Opus.Decoder(sampleRate: 16000, channelCount: 0))
        XCTAssertNoThrow(try Opus.Encoder(configuration: {
            var c = Opus.Encoder.Configuration(); c.bitrate = 6000; c.sampleRate = 8000; return c }()))
    }

    func testEncodeAndDecodeAllocateNothing() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let speech = try Self.speech16k()
        let encoder = try Opus.Encoder()
        let decoder = try Opus.Decoder()
        var packet = [UInt8](repeating: 0, count: Opus.maximumPacketBytes)
        var pcm = [Int16](repeating: 0, count: decoder.maximumFrameLength)
        var failures = 0
        let frames = speech.count / 320
        for pass in 0..<2 { // pass 0 warms up
            if pass == 1 { afe_allocation_counter_start() }
            for index in 0..<frames {
                let length = speech[(index * 320)..<(index * 320 + 320)].withUnsafeBufferPointer { frame in
                    packet.withUnsafeMutableBufferPointer { encoder.encode(frame: frame, into: $0) }
                }
                let decoded = pcm.withUnsafeMutableBufferPointer { out in
                    packet.withUnsafeBufferPointer { decoder.decode(packet: UnsafeBufferPointer(rebasing: $0[0..<max(1, length)]), into: out) }
                }
                if length <= 0 || decoded != 320 || encoder.finalRange != decoder.finalRange { failures += 1 }
                if index % 50 == 7, pcm.withUnsafeMutableBufferPointer({ decoder.concealLoss(duration: 320, into: $0) }) != 320 {
                    failures += 1
                }
            }
        }
        let allocations = afe_allocation_counter_stop()
        XCTAssertEqual(allocations, 0, "allocations over \(frames) encoded and decoded packets")
        XCTAssertEqual(failures, 0, "packets that failed to encode, decode or match the encoder's final range")
    }
}
