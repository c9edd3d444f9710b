#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Signal level in dBFS, as NUI's `onNuiRmsChanged` reports it: RMS relative to full scale, clamped to -160...0.
///
/// Real-time safe (no allocation, no locks); any thread. Full scale is 32768 for int16 and 1.0 for floats,
/// so a full-scale square wave reads 0 dBFS and a full-scale sine about -3 dBFS. Silence reads -160.
public enum LevelMeter {
    /// The floor of the scale, returned for digital silence.
    public static let floorDecibels: Float = -160

    /// RMS level of int16 samples in dBFS, clamped to -160...0. Real-time safe.
    public static func rmsDecibels(_ samples: UnsafeBufferPointer<Int16>) -> Float {
        let meanSquare = meanSquare(count: samples.count, base: samples.baseAddress,
                                    load: { SIMD16<Float>($0.loadUnaligned(as: SIMD16<Int16>.self)) }, value: { Double($0) })
        return decibels(meanSquare: meanSquare / (32768.0 * 32768.0))
    }

    /// RMS level of float samples (full scale 1.0) in dBFS, clamped to -160...0. Real-time safe.
    public static func rmsDecibels(_ samples: UnsafeBufferPointer<Float>) -> Float {
        decibels(meanSquare: meanSquare(count: samples.count, base: samples.baseAddress,
                                        load: { $0.loadUnaligned(as: SIMD16<Float>.self) }, value: { Double($0) }))
    }

    /// Mean square of `count` samples at `base`, 16 lanes at a time (`load` reads 16 samples as floats), the tail
    /// one by one. `acc += v * v` rather than `addProduct`: the generic fused multiply-add is a libm call per lane
    /// (measured 12× slower).
    @inline(__always)
    private static func meanSquare<T>(count: Int, base: UnsafePointer<T>?, load: (UnsafeRawPointer) -> SIMD16<Float>,
                                      value: (T) -> Double) -> Double {
        guard let base, count > 0 else { return 0 }
        let vectorEnd = count & ~15
        var acc = SIMD16<Float>(repeating: 0)
        var i = 0
        while i < vectorEnd {
            let v = load(UnsafeRawPointer(base + i))
            acc += v * v
            i += 16
        }
        var sum = Double(acc.sum())
        while i < count {
            let v = value(base[i])
            sum += v * v
            i += 1
        }
        return sum / Double(count)
    }

    @inline(__always)
    static func decibels(meanSquare: Double) -> Float {
        guard meanSquare > 0, meanSquare.isFinite else { return meanSquare.isInfinite ? 0 : floorDecibels }
        let db = 10 * log10(meanSquare)
        return Float(max(Double(floorDecibels), min(0, db)))
    }
}
