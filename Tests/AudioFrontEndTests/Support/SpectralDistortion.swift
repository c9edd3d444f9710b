import Foundation

/// A phase-blind distortion measure for stages whose output is a filtered copy of their input.
///
/// Echo cancellers and noise suppressors keep the near-end talker's short-time magnitude spectrum but may shift
/// its phase: speexdsp's DC notch (a high-pass near 50 Hz with phase shift well into the speech band), WebRTC's
/// band-splitting filters at 48 kHz (a fractional-sample delay). A waveform SNR counts those as distortion; this
/// measure compares short-time magnitude spectra instead, so it sees attenuation, suppression and added noise.
enum SpectralDistortion {
    /// Magnitude SDR in dB of `test[i + lag]` against `reference[i]` over the union of `ranges`:
    /// Σ|X|² / Σ(|Y| − |X|)² over Hann-windowed frames of `frame` samples (a power of two) with half overlap,
    /// over the bins from `lowestHz` (at `sampleRate`) to Nyquist.
    static func magnitudeSDR(reference: [Int16], test: [Int16], ranges: [Range<Int>], lag: Int,
                             sampleRate: Int, lowestHz: Double = 0, frame: Int = 512) -> Double {
        let firstBin = Int((lowestHz * Double(frame) / Double(sampleRate)).rounded(.up))
        let window = (0..<frame).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(frame)) }
        var signal = 0.0, error = 0.0
        var xr = [Double](repeating: 0, count: frame), xi = xr, yr = xr, yi = xr
        for r in ranges {
            var start = r.lowerBound
            while start + frame <= r.upperBound {
                for k in 0..<frame {
                    let j = start + k + lag
                    xr[k] = Double(reference[start + k]) * window[k]
                    yr[k] = (j >= 0 && j < test.count ? Double(test[j]) : 0) * window[k]
                    xi[k] = 0
                    yi[k] = 0
                }
                CrossCorrelation.fft(&xr, &xi, inverse: false)
                CrossCorrelation.fft(&yr, &yi, inverse: false)
                for k in firstBin...(frame / 2) {
                    let mx = (xr[k] * xr[k] + xi[k] * xi[k]).squareRoot()
                    let my = (yr[k] * yr[k] + yi[k] * yi[k]).squareRoot()
                    signal += mx * mx
                    error += (my - mx) * (my - mx)
                }
                start += frame / 2
            }
        }
        return SignalMetrics.decibels(signal / max(error, 1e-10))
    }
}
