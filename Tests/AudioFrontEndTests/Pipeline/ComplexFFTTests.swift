@testable import AudioFrontEnd
import Foundation
import XCTest

/// The delay estimator's FFT against a direct DFT, at the table's length and at the shorter lengths the same
/// tables serve (``ComplexFFT/forward(real:imaginary:count:)``).
final class ComplexFFTTests: XCTestCase {
    func testMatchesTheDirectTransform() {
        var generator = SystemRandomNumberGenerator()
        let fft = ComplexFFT(length: 256)
        for count in [2, 4, 8, 16, 128, 256] {
            let xr = (0..<count).map { _ in Float.random(in: -1...1, using: &generator) }
            let xi = (0..<count).map { _ in Float.random(in: -1...1, using: &generator) }
            var re = xr, im = xi
            re.withUnsafeMutableBufferPointer { r in
                im.withUnsafeMutableBufferPointer { i in fft.forward(real: r.baseAddress!, imaginary: i.baseAddress!, count: count) }
            }
            var worst = 0.0
            for k in 0..<count {
                var sr = 0.0, si = 0.0
                for j in 0..<count {
                    let angle = -2 * Double.pi * Double(k * j % count) / Double(count)
                    sr += Double(xr[j]) * cos(angle) - Double(xi[j]) * sin(angle)
                    si += Double(xr[j]) * sin(angle) + Double(xi[j]) * cos(angle)
                }
                worst = max(worst, abs(sr - Double(re[k])), abs(si - Double(im[k])))
            }
            XCTAssertLessThan(worst, 1e-4 * Double(count), "length \(count): largest error \(worst)")
        }
    }
}
