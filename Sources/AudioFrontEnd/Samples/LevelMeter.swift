#if canImport(Glibc)
import Glibc
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
        guard let base = samples.baseAddress, samples.count > 0 else { return floorDecibels }
        let count = samples.count
        let vectorEnd = count & ~15
        var acc = SIMD16<Float>(repeating: 0)
        var i = 0
        while i < vectorEnd {
            let v = SIMD16<Float>(UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<Int16>.self))
            acc.addProduct(v, v)
            i += 16
        }
        var sum = Double(acc.sum())
        while i < count {
            let v = Double(base[i])
            sum += v * v
            i += 1
        }
        return decibels(meanSquare: sum / Double(count) / (32768.0 * 32768.0))
    }

    /// RMS level of float samples (full scale 1.0) in dBFS, clamped to -160...0. Real-time safe.
    public static func rmsDecibels(_ samples: UnsafeBufferPointer<Float>) -> Float {
        guard let base = samples.baseAddress, samples.count > 0 else { return floorDecibels }
        let count = samples.count
        let vectorEnd = count & ~15
        var acc = SIMD16<Float>(repeating: 0)
        var i = 0
        while i < vectorEnd {
            let v = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<Float>.self)
            acc.addProduct(v, v)
            i += 16
        }
        var sum = Double(acc.sum())
        while i < count {
            let v = Double(base[i])
            sum += v * v
            i += 1
        }
        return decibels(meanSquare: sum / Double(count))
    }

    @inline(__always)
    static func decibels(meanSquare: Double) -> Float {
        guard meanSquare > 0, meanSquare.isFinite else { return meanSquare.isInfinite ? 0 : floorDecibels }
        let db = 10 * log10(meanSquare)
        return Float(max(Double(floorDecibels), min(0, db)))
    }
}
