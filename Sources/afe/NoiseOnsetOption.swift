import AudioFrontEnd

/// `--noise-onset off|DEV_DB,MS_PER_DB,MAX_MS` of `afe process`: the VAD's longer onset in fluctuating noise
/// (``FrontEndConfiguration/FluctuatingNoiseOnset``) for tuning on the scenario matrix; `off` turns it off.
enum NoiseOnsetOption {
    static func parse(_ text: String) throws -> FrontEndConfiguration.FluctuatingNoiseOnset? {
        if text == "off" { return nil }
        guard let v = NumberListOption.numbers(text, required: 3), let maximum = NumberListOption.whole(v[2]) else {
            throw ArgumentReader.Failure(message: "--noise-onset takes off or DEV_DB,MS_PER_DB,MAX_MS, not '\(text)'")
        }
        return FrontEndConfiguration.FluctuatingNoiseOnset(deviationDecibels: v[0], millisecondsPerDecibel: v[1],
                                                           maximumMilliseconds: maximum)
    }
}
