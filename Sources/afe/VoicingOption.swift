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
        let parts = text.split(separator: ",").map { Float($0) }
        guard (3...5).contains(parts.count), let above = parts[0], let margin = parts[1],
              let deviation = parts[2], let noise = parts.count >= 4 ? parts[3] : 1,
              let cutoff = parts.count == 5 ? parts[4] : 1000,
              above.isFinite, margin.isFinite, deviation.isFinite, noise.isFinite, cutoff.isFinite else {
            throw ArgumentReader.Failure(message: "--vad-voicing takes off, on, quiet or ABOVE,MARGIN_DB,MAX_DEV_DB[,MAX_NOISE_PERIODICITY[,CUTOFF_HZ]], not '\(text)'")
        }
        return .init(periodicityAboveNoise: above, marginDecibels: margin, maximumNoiseDeviationDecibels: deviation,
                     maximumNoisePeriodicity: noise, cutoffHz: Double(cutoff))
    }
}
