import AudioFrontEnd

/// `--vad-voicing off|on|quiet|ABOVE,MARGIN_DB,MAX_DEV_DB[,MAX_NOISE_PERIODICITY[,CUTOFF_HZ]]` of `afe process`: the energy detector's lower margin for voiced
/// frames in steady noise (``EnergyVoiceActivityDetector/Configuration/Voicing``) for tuning on the scenario
/// matrix; `on` takes its defaults, `quiet` (the default) too but the rule is off while the far end plays, `off`
/// turns it off.
enum VoicingOption {
    static func parse(_ text: String) throws -> EnergyVoiceActivityDetector.Configuration.Voicing? {
        if text == "off" { return nil }
        if text == "on" { return .init() }
        if text == "quiet" { return FrontEndConfiguration.VoiceDetection.quietVoicing } // on, but not during playback
        guard let v = NumberListOption.numbers(text, required: 3, defaults: [1, 1000]) else {
            throw ArgumentReader.Failure(message: "--vad-voicing takes off, on, quiet or ABOVE,MARGIN_DB,MAX_DEV_DB[,MAX_NOISE_PERIODICITY[,CUTOFF_HZ]], not '\(text)'")
        }
        return .init(periodicityAboveNoise: v[0], marginDecibels: v[1], maximumNoiseDeviationDecibels: v[2],
                     maximumNoisePeriodicity: v[3], cutoffHz: Double(v[4]))
    }
}
