import AllocationCounter
import XCTest
@testable import AudioFrontEnd

final class SampleConversionTests: XCTestCase {
    func testRoundTripIsExactForEveryInt16() {
        let all = (Int32(Int16.min)...Int32(Int16.max)).map { Int16($0) }
        let floats = SampleConversion.float(from: all)
        XCTAssertEqual(floats.first, -1.0)
        XCTAssertEqual(floats[32768], 0)
        XCTAssertEqual(SampleConversion.int16(from: floats), all)
    }

    func testFloatToInt16ClipsAndRoundsInEveryLane() {
        // 37 values: covers the 16-wide vector body and the scalar tail.
        let input: [Float] = (0..<37).map { i in [2.0, -2.0, 0.5, -0.5, 1.0 / 65536.0 * 3, .nan][i % 6] }
        let out = SampleConversion.int16(from: input)
        for (i, value) in out.enumerated() {
            let expected: Int16 = [32767, -32768, 16384, -16384, 2, 0][i % 6]
            XCTAssertEqual(value, expected, "lane \(i), input \(input[i])")
        }
    }

    func testVectorBodyMatchesScalarRoundingIncludingTiesAndInfinities() {
        // Ties (k + 0.5) / 32768 round to even; infinities clip; the vector path must agree with `int16(_:)`.
        var input: [Float] = (-40...40).map { (Float($0) + 0.5) / 32768 }
        input += [.infinity, -.infinity, 32767.5 / 32768, -32768.5 / 32768, 1e30, -1e30, .nan]
        var random = SeededRandom(seed: 7)
        input += (0..<1000).map { _ in random.uniform() * 1.5 }
        let out = SampleConversion.int16(from: input)
        for (i, value) in out.enumerated() {
            XCTAssertEqual(value, SampleConversion.int16(input[i]), "index \(i), input \(input[i]), seed 7")
        }
        XCTAssertEqual(out[40], 0)  // 0.5 rounds to even 0
        XCTAssertEqual(out[41], 2)  // 1.5 rounds to 2
    }

    func testLevelMeterReadsFullScaleSilenceAndSine() {
        let square = [Int16](repeating: 0, count: 160).enumerated().map { $0.offset % 2 == 0 ? Int16.max : Int16.min }
        let silence = [Int16](repeating: 0, count: 160)
        let sine = (0..<1600).map { Int16((sin(Double($0) * 2 * .pi * 1000 / 16000) * 32767).rounded()) }
        square.withUnsafeBufferPointer { XCTAssertEqual(LevelMeter.rmsDecibels($0), 0, accuracy: 0.01) }
        silence.withUnsafeBufferPointer { XCTAssertEqual(LevelMeter.rmsDecibels($0), -160) }
        sine.withUnsafeBufferPointer { XCTAssertEqual(LevelMeter.rmsDecibels($0), -3.01, accuracy: 0.05) }
        let floats = SampleConversion.float(from: sine)
        floats.withUnsafeBufferPointer { XCTAssertEqual(LevelMeter.rmsDecibels($0), -3.01, accuracy: 0.05) }
        let tiny: [Int16] = [1, 0, 0, 0]
        tiny.withUnsafeBufferPointer { XCTAssertEqual(LevelMeter.rmsDecibels($0), -90.31 - 6.02, accuracy: 0.05) }
    }

    func testConversionAndMeteringAllocateNothing() throws {
        try XCTSkipUnless(afe_allocation_counter_available() == 1, "allocation counting is off under sanitizers")
        let ints = [Int16](repeating: 1000, count: 480)
        var floats = [Float](repeating: 0, count: 480)
        var back = [Int16](repeating: 0, count: 480)
        var level: Float = 0
        for pass in 0..<2 { // pass 0 warms up (the runtime allocates type metadata on first use)
        if pass == 1 { afe_allocation_counter_start() }
        for _ in 0..<1000 {
            ints.withUnsafeBufferPointer { src in floats.withUnsafeMutableBufferPointer { SampleConversion.convert(src, to: $0) } }
            floats.withUnsafeBufferPointer { src in back.withUnsafeMutableBufferPointer { SampleConversion.convert(src, to: $0) } }
            level += back.withUnsafeBufferPointer { LevelMeter.rmsDecibels($0) }
        }
        }
        let allocations = afe_allocation_counter_stop()
        XCTAssertEqual(allocations, 0)
        XCTAssertEqual(back, ints)
        // A control: the counter does see an allocation.
        afe_allocation_counter_start()
        let array = [Int](repeating: Int(level), count: 1000)
        let seen = afe_allocation_counter_stop()
        XCTAssertGreaterThan(seen, 0, "counter saw nothing for an array of \(array.count)")
    }
}
