import AudioFrontEnd
import Foundation
import XCTest

/// Checks the committed test vectors against their manifest: every file loads with the right hash, rate and
/// length, its labels lie inside it, and the ground truth (SER, SNR, delay, speech spans, tones, sweeps) holds when
/// measured from the files themselves.
final class TestVectorTests: XCTestCase {
    static let contractFiles: Set<String> = {
        var names = ["farend_16k.wav", "farend_48k.wav", "nearend_16k.wav", "nearend_48k.wav",
                     "tones_48k.wav", "sweep_48k.wav", "sweep_16k.wav"]
        names += [0, 40, 120, 250, 400].map { "echo_d\($0)ms_16k.wav" }
        names += [0, 40, 120].map { "echo_d\($0)ms_48k.wav" }
        names += [-5, 0, 5].map { "doubletalk_ser\($0)db_16k.wav" }
        names += [0, 5, 10, 20].map { "noisy_snr\($0)db_16k.wav" }
        return Set(names)
    }()

    static let intervalKeys = ["speech", "doubletalk", "farend_only", "nearend_only"]

    func testManifestListsExactlyTheContractFiles() {
        XCTAssertEqual(Set(TestVectors.manifest.keys), Self.contractFiles, "manifest.json file list")
    }

    func testEveryEntryLoadsWithItsHashRateAndDuration() throws {
        XCTAssertFalse(TestVectors.manifest.isEmpty, "manifest.json missing or unreadable")
        for name in TestVectors.manifest.keys.sorted() {
            let (audio, entry) = try TestVectors.load(name)
            let duration = try XCTUnwrap(entry["duration_s"] as? Double, "\(name): duration_s")
            XCTAssertEqual(audio.channelCount, 1, "\(name): channels")
            XCTAssertEqual(entry["channels"] as? Int, 1, "\(name): manifest channels")
            XCTAssertEqual(entry["format"] as? String, "WAV PCM 16-bit", "\(name): format")
            XCTAssertEqual(audio.durationSeconds, duration, accuracy: 1 / Double(audio.sampleRate), "\(name): duration")
            XCTAssertTrue(["reference", "mic", "clean", "tones", "sweep"].contains(entry["role"] as? String ?? ""),
                          "\(name): role \(String(describing: entry["role"]))")
            for key in Self.intervalKeys {
                guard let value = entry[key] else { continue }
                let spans = try XCTUnwrap(value as? [[Double]], "\(name): \(key) is not a list of [start, end]")
                XCTAssertFalse(spans.isEmpty, "\(name): \(key) is empty")
                var previousEnd = 0.0
                for span in spans {
                    XCTAssertEqual(span.count, 2, "\(name): \(key) \(span)")
                    XCTAssertTrue(span[0] >= previousEnd && span[0] < span[1] && span[1] <= duration,
                                  "\(name): \(key) span \(span) not ordered or outside 0...\(duration) s")
                    previousEnd = span[1]
                }
            }
            for key in ["reference", "clean_nearend"] {
                guard let other = entry[key] as? String else { continue }
                let partner = try TestVectors.entry(other)
                XCTAssertEqual(partner.sampleRate, entry.sampleRate, "\(name): \(key) \(other) sample rate")
                XCTAssertEqual(partner["duration_s"] as? Double, duration, "\(name): \(key) \(other) duration")
            }
        }
    }

    /// Near-end labels: digital silence outside the speech spans, speech at the stated active level inside.
    func testSpeechLabelsMatchTheCleanNearEnd() throws {
        for name in ["nearend_16k.wav", "nearend_48k.wav"] {
            let (x, rate) = try TestVectors.int16(name)
            let entry = try TestVectors.entry(name)
            let spans = entry.speechIntervals
            let level = try XCTUnwrap(entry["active_level_dbfs"] as? Double)
            var inside = [Bool](repeating: false, count: x.count)
            for span in spans {
                let r = samples([span.start, span.end], rate, x.count)
                inside.replaceSubrange(r, with: repeatElement(true, count: r.count))
                XCTAssertGreaterThan(dbfs(SignalMetrics.power(x, r)), level - 10,
                                     "\(name): labelled span \(span) holds no speech")
                // The labels come from a 10 ms energy threshold, so both ends of a span are sound, not silence.
                for edge in [[span.start, span.start + 0.03], [span.end - 0.03, span.end]] {
                    XCTAssertGreaterThan(dbfs(SignalMetrics.power(x, samples(edge, rate, x.count))), -65,
                                         "\(name): span \(span) edge \(edge) is silent")
                }
            }
            let outsidePower = x.indices.reduce(0.0) { inside[$1] ? $0 : $0 + Double(x[$1]) * Double(x[$1]) }
                / Double(max(inside.filter { !$0 }.count, 1))
            XCTAssertLessThan(dbfs(outsidePower), -70, "\(name): sound outside the speech labels")
            let speechFraction = Double(inside.filter { $0 }.count) / Double(x.count)
            XCTAssertTrue((0.25...0.7).contains(speechFraction), "\(name): speech fraction \(speechFraction)")
        }
    }

    /// SER from mic − clean near end over the double-talk spans; each span class holds what its name says.
    func testDoubleTalkSERAndSpans() throws {
        let (clean, rate) = try TestVectors.int16("nearend_16k.wav")
        let (echoOnly, _) = try TestVectors.int16("echo_d120ms_16k.wav")
        for ser in [-5, 0, 5] {
            let name = "doubletalk_ser\(ser)db_16k.wav"
            let (mic, _) = try TestVectors.int16(name)
            let entry = try TestVectors.entry(name)
            XCTAssertEqual(entry["clean_nearend"] as? String, "nearend_16k.wav", name)
            XCTAssertEqual(entry["reference"] as? String, "farend_16k.wav", name)
            XCTAssertEqual(entry["delay_ms"] as? Int, 120, name)
            let residual = zip(mic, clean).map { Int32($0) - Int32($1) }
            let dt = try spans(entry, "doubletalk", rate), nearOnly = try spans(entry, "nearend_only", rate)
            let farOnly = try spans(entry, "farend_only", rate)
            let measured = SignalMetrics.decibels(power(clean, dt) / power(residual, dt))
            XCTAssertEqual(measured, try XCTUnwrap(entry["ser_db"] as? Double), accuracy: 0.5, "\(name): SER over double talk")
            XCTAssertGreaterThan(dbfs(power(residual, farOnly)), -35, "\(name): no echo in the far-end-only spans")
            XCTAssertLessThan(dbfs(power(clean, farOnly)), -70, "\(name): near end in the far-end-only spans")
            XCTAssertGreaterThan(SignalMetrics.decibels(power(clean, nearOnly) / power(residual, nearOnly)), 25,
                                 "\(name): echo in the near-end-only spans")
            // The echo in the double-talk mic is the 120 ms echo path of echo_d120ms_16k.wav, rescaled.
            let a = residual.map { Float($0) }, b = echoOnly.map { Float($0) }
            XCTAssertGreaterThan(SignalMetrics.correlation(a, b), 0.99, "\(name): echo is not the 120 ms echo path")
            XCTAssertEqual(entry.speechIntervals.count, TestVectors.manifest["nearend_16k.wav"]?.speechIntervals.count,
                           "\(name): speech labels differ from the clean near end's")
        }
    }

    /// SNR from mic − clean near end over the speech spans; the noise is there outside speech too.
    func testNoisySNR() throws {
        let (clean, rate) = try TestVectors.int16("nearend_16k.wav")
        for snr in [0, 5, 10, 20] {
            let name = "noisy_snr\(snr)db_16k.wav"
            let (mic, _) = try TestVectors.int16(name)
            let entry = try TestVectors.entry(name)
            XCTAssertEqual(entry["clean_nearend"] as? String, "nearend_16k.wav", name)
            let noise = zip(mic, clean).map { Int32($0) - Int32($1) }
            let speech = try spans(entry, "speech", rate)
            let measured = SignalMetrics.decibels(power(clean, speech) / power(noise, speech))
            XCTAssertEqual(measured, try XCTUnwrap(entry["snr_db"] as? Double), accuracy: 0.5, "\(name): SNR over speech")
            XCTAssertEqual(dbfs(SignalMetrics.power(noise)), dbfs(power(noise, speech)), accuracy: 3,
                           "\(name): noise level outside speech differs from inside")
        }
    }

    /// GCC-PHAT delay between the reference and each echo mic: the direct path lags by delay_ms + direct_path_ms.
    func testEchoDelayAndStart() throws {
        var names = [0, 40, 120, 250, 400].map { "echo_d\($0)ms_16k.wav" } + [0, 40, 120].map { "echo_d\($0)ms_48k.wav" }
        names += [-5, 0, 5].map { "doubletalk_ser\($0)db_16k.wav" }
        var references: [String: [Float]] = [:]
        for name in names {
            let (mic, rate) = try TestVectors.float(name)
            let entry = try TestVectors.entry(name)
            let referenceName = try XCTUnwrap(entry["reference"] as? String, name)
            if references[referenceName] == nil { references[referenceName] = try TestVectors.float(referenceName).samples }
            let delay = try XCTUnwrap(entry["delay_ms"] as? Int, name)
            let directPath = try XCTUnwrap(entry["direct_path_ms"] as? Double, name)
            let length = rate == 16000 ? 1 << 16 : 1 << 18  // about 4.1 s and 5.5 s
            let lag = CrossCorrelation.phatPeakLag(reference: references[referenceName]!, signal: mic, length: length,
                                                   maxLag: rate / 2)
            let lagMs = Double(lag) * 1000 / Double(rate)
            XCTAssertEqual(lagMs, Double(delay) + directPath, accuracy: 1, "\(name): echo delay \(lagMs) ms")
            guard let start = entry["echo_start_s"] as? Double else { continue }
            XCTAssertLessThanOrEqual(start, 0.5 + Double(delay) / 1000, "\(name): echo starts late")
            // Only background noise before echo_start_s; the echo rises within 100 ms after it.
            let before = dbfs32(SignalMetrics.power(mic, samples([0, max(start - 0.02, 0.01)], rate, mic.count)))
            let after = dbfs32(SignalMetrics.power(mic, samples([start, start + 0.1], rate, mic.count)))
            XCTAssertLessThan(before, -50, "\(name): sound before echo_start_s \(start)")
            XCTAssertGreaterThan(after, before + 10, "\(name): no echo right after echo_start_s \(start)")
        }
    }

    /// Each tone segment holds its frequency at the stated level; nothing else is there.
    func testTones() throws {
        let (x, rate) = try TestVectors.float("tones_48k.wav")
        let entry = try TestVectors.entry("tones_48k.wav")
        let level = try XCTUnwrap(entry["level_dbfs"] as? Double)
        let segments = try XCTUnwrap(entry["segments"] as? [[Double]])
        XCTAssertEqual(segments.map { $0[2] }, try XCTUnwrap(entry["frequencies_hz"] as? [Double]), "segments vs frequencies_hz")
        XCTAssertTrue(segments.contains { $0[2] < 6400 } && segments.contains { $0[2] > 8000 }, "tone frequencies")
        for segment in segments {
            let r = samples([segment[0] + 0.1, segment[1] - 0.1], rate, x.count)  // clear of the fades
            let amplitude = toneAmplitude(x, r, frequency: segment[2], rate: rate)
            XCTAssertEqual(20 * log10(amplitude), level, accuracy: 0.1, "tones_48k.wav: \(segment[2]) Hz level")
            let total = SignalMetrics.power(x, r), tone = amplitude * amplitude / 2
            XCTAssertLessThan(SignalMetrics.decibels(max(total - tone, 1e-30) / tone), -60,
                              "tones_48k.wav: \(segment[2]) Hz segment holds more than the tone")
        }
    }

    /// The sweeps follow their exponential law (zero-crossing frequency) at their stated peak level.
    func testSweeps() throws {
        for name in ["sweep_48k.wav", "sweep_16k.wav"] {
            let (x, rate) = try TestVectors.float(name)
            let entry = try TestVectors.entry(name)
            let f0 = try XCTUnwrap(entry["start_hz"] as? Double), f1 = try XCTUnwrap(entry["end_hz"] as? Double)
            let duration = try XCTUnwrap(entry["sweep_duration_s"] as? Double)
            let level = try XCTUnwrap(entry["level_dbfs"] as? Double)
            let peak = x.reduce(0) { max($0, abs($1)) }
            XCTAssertEqual(20 * log10(Double(peak)), level, accuracy: 0.1, "\(name): peak level")
            for t in [0.4, 0.6, 0.8, 0.95] {
                let time = t * duration
                let expected = f0 * pow(f1 / f0, time / duration)
                let r = samples([time - 0.025, time + 0.025], rate, x.count)
                var crossings = 0
                for i in r.dropFirst() where (x[i - 1] < 0) != (x[i] < 0) { crossings += 1 }
                let measured = Double(crossings) / 2 / 0.05
                XCTAssertEqual(measured / expected, 1, accuracy: 0.05,
                               "\(name): frequency at \(time) s is \(measured) Hz, law says \(expected) Hz")
            }
        }
    }

    // MARK: - Helpers

    private func samples(_ span: [Double], _ rate: Int, _ count: Int) -> Range<Int> {
        let a = min(max(Int((span[0] * Double(rate)).rounded()), 0), count)
        return a..<min(max(Int((span[1] * Double(rate)).rounded()), a), count)
    }

    private func spans(_ entry: TestVectors.Entry, _ key: String, _ rate: Int) throws -> [Range<Int>] {
        let list = try XCTUnwrap(entry[key] as? [[Double]], "\(entry.file): \(key)")
        return list.map { samples($0, rate, Int.max) }
    }

    /// Mean square over several ranges.
    private func power<T: BinaryInteger>(_ x: [T], _ ranges: [Range<Int>]) -> Double {
        var sum = 0.0, count = 0
        for r in ranges { sum += SignalMetrics.power(x, r) * Double(r.count); count += r.count }
        return sum / Double(max(count, 1))
    }

    /// dBFS of an int16-scale mean square.
    private func dbfs(_ power: Double) -> Double { SignalMetrics.decibels(power / (32768.0 * 32768.0)) }

    /// dBFS of a float-scale mean square.
    private func dbfs32(_ power: Double) -> Double { SignalMetrics.decibels(power) }

    /// Amplitude of the sinusoid at `frequency` in x[range] (least-squares fit of sine and cosine).
    private func toneAmplitude(_ x: [Float], _ range: Range<Int>, frequency: Double, rate: Int) -> Double {
        var c = 0.0, s = 0.0
        let w = 2 * Double.pi * frequency / Double(rate)
        for i in range {
            c += Double(x[i]) * cos(w * Double(i))
            s += Double(x[i]) * sin(w * Double(i))
        }
        return 2 * (c * c + s * s).squareRoot() / Double(range.count)
    }
}
