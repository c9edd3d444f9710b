import Foundation
import XCTest
@testable import AudioFrontEnd

/// A resampler backend under test, made fresh for each rate pair.
enum ResamplerBackend: CustomStringConvertible {
    case speex(SpeexResampler.Configuration)
    case libsamplerate(SampleRateConverter.Configuration)

    /// Both backends at their default configurations.
    static let defaults: [ResamplerBackend] = [.speex(.init()), .libsamplerate(.init())]

    func make(_ inputRate: Int, _ outputRate: Int) throws -> any FlushAccounting {
        switch self {
        case .speex(let c): try SpeexResampler(inputRate: inputRate, outputRate: outputRate, configuration: c)
        case .libsamplerate(let c): try SampleRateConverter(inputRate: inputRate, outputRate: outputRate, configuration: c)
        }
    }

    var description: String {
        switch self {
        case .speex(let c): "SpeexResampler q\(c.quality)"
        case .libsamplerate(let c): "SampleRateConverter \(c.quality)"
        }
    }
}

/// What the tests use beyond ``Resampler``: both backends report what a flush still owes.
protocol FlushAccounting: Resampler {
    var remainingOutputCount: Int { get }
}

extension SpeexResampler: FlushAccounting {}
extension SampleRateConverter: FlushAccounting {}

/// Measurements for the resampler tests: tones in, gains and leftovers out, on exact DFT bins.
enum ResamplerProbe {
    static let passbandTones: [Double] = [100, 1000, 3000, 5000, 6400]
    static let stopbandTones: [Double] = [9000, 12000, 15000, 20000]

    static func tone(_ frequency: Double, amplitude: Double, rate: Int, seconds: Double) -> [Float] {
        (0..<Int(seconds * Double(rate))).map { Float(amplitude * sin(2 * .pi * frequency * Double($0) / Double(rate))) }
    }

    /// 100 ms of output starting 100 ms in: past the start-up transient, before the flush, and a whole number of
    /// periods of every multiple of 10 Hz.
    static func window(_ rate: Int) -> Range<Int> { (rate / 10)..<(rate / 5) }

    /// The amplitude of the `frequency` component of `x` over `range` (exact DFT bin).
    static func amplitude(_ x: [Float], at frequency: Double, rate: Int, over range: Range<Int>) -> Double {
        var re = 0.0, im = 0.0
        for n in range {
            let phase = 2 * .pi * frequency * Double(n) / Double(rate)
            re += Double(x[n]) * cos(phase)
            im += Double(x[n]) * sin(phase)
        }
        return 2 * (re * re + im * im).squareRoot() / Double(range.count)
    }

    /// Gain of half-scale tones up to `edge` Hz within ±`tolerance` dB.
    static func assertPassband(_ resampler: any Resampler, upTo edge: Double, tolerance: Double, _ label: String,
                               file: StaticString = #filePath, line: UInt = #line) {
        for frequency in passbandTones where frequency <= edge {
            let output = resampler.resample(tone(frequency, amplitude: 0.5, rate: resampler.inputRate, seconds: 0.25))
            let window = window(resampler.outputRate)
            let gain = 20 * log10(amplitude(output, at: frequency, rate: resampler.outputRate, over: window) / 0.5)
            XCTAssertEqual(gain, 0, accuracy: tolerance, "\(label): \(frequency) Hz gain \(gain) dB",
                           file: file, line: line)
        }
    }

    /// Downsampling: everything left of a full-scale tone above the output Nyquist frequency, re a full-scale tone.
    static func assertAliasRejection(_ resampler: any Resampler, below limit: Double, _ label: String,
                                     file: StaticString = #filePath, line: UInt = #line) {
        for frequency in stopbandTones where frequency < Double(resampler.inputRate) / 2 {
            let output = resampler.resample(tone(frequency, amplitude: 1, rate: resampler.inputRate, seconds: 0.25))
            let left = SignalMetrics.decibels(SignalMetrics.power(output, window(resampler.outputRate)) / 0.5)
            XCTAssertLessThan(left, limit, "\(label): \(frequency) Hz tone leaves \(left) dB", file: file, line: line)
        }
    }

    /// Upsampling: the images of full-scale tones up to `edge` Hz (at k × inputRate ± f), re a full-scale tone.
    static func assertImageRejection(_ resampler: any Resampler, tonesUpTo edge: Double, below limit: Double,
                                     _ label: String, file: StaticString = #filePath, line: UInt = #line) {
        let (inputRate, outputRate) = (Double(resampler.inputRate), Double(resampler.outputRate))
        for frequency in passbandTones where frequency <= edge {
            let output = resampler.resample(tone(frequency, amplitude: 1, rate: resampler.inputRate, seconds: 0.25))
            let images = (1...Int(outputRate / inputRate)).flatMap { [Double($0) * inputRate - frequency, Double($0) * inputRate + frequency] }
            for image in images where image < outputRate / 2 {
                let level = 20 * log10(amplitude(output, at: image, rate: resampler.outputRate, over: window(resampler.outputRate)) + 1e-12)
                XCTAssertLessThan(level, limit, "\(label): \(frequency) Hz tone, image at \(image) Hz is \(level) dB",
                                  file: file, line: line)
            }
        }
    }

    /// 24 tones at fixed pseudo-random frequencies (50–3000 Hz) and phases, evaluated at `rate`: the same
    /// continuous-time signal at any rate, so one rate's samples are the ground truth for a resampled other.
    static func multiTone(rate: Int, seconds: Double) -> [Float] {
        var generator = SeededRandom(seed: 0xA11_6E5)
        let tones = (0..<24).map { _ in (50 + 2950 * generator.unitDouble(), 2 * .pi * generator.unitDouble()) }
        return (0..<Int(seconds * Double(rate))).map { n in
            let t = Double(n) / Double(rate)
            return Float(tones.reduce(0) { $0 + 0.03 * sin(2 * .pi * $1.0 * t + $1.1) })
        }
    }

    /// Runs a whole int16 stream through `process` in chunks of `chunk` (with room for 8× as many samples, more
    /// than `maximumOutputCount` at every rate pair), then `flush`. `shortCalls` counts the calls that did not
    /// consume their whole chunk, which the contract forbids with that much room.
    static func resampleInt16(_ input: [Int16], chunk: Int,
                              _ process: (UnsafeBufferPointer<Int16>, UnsafeMutableBufferPointer<Int16>) -> (consumed: Int, produced: Int),
                              _ flush: (UnsafeMutableBufferPointer<Int16>) -> Int) -> (output: [Int16], shortCalls: Int) {
        var output: [Int16] = []
        var shortCalls = 0
        var buffer = [Int16](repeating: 0, count: chunk * 8 + 64)
        input.withUnsafeBufferPointer { all in
            var offset = 0
            while offset < all.count {
                let end = min(offset + chunk, all.count)
                let moved = buffer.withUnsafeMutableBufferPointer { process(UnsafeBufferPointer(rebasing: all[offset..<end]), $0) }
                output += buffer[0..<moved.produced]
                if moved.consumed < end - offset { shortCalls += 1 }
                offset += moved.consumed
                if moved.consumed == 0 && moved.produced == 0 { break } // stuck: the caller's count check fails
            }
        }
        while true {
            let written = buffer.withUnsafeMutableBufferPointer { flush($0) }
            output += buffer[0..<written]
            if written < buffer.count { break }
        }
        return (output, shortCalls)
    }
}
