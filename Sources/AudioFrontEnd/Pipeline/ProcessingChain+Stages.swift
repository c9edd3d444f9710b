extension ProcessingChain {
    /// What the chain's last echo canceller hosts in its `AudioProcessing`: WebRTC NS and the WebRTC VAD when
    /// that canceller is WebRTC's (AEC2 or AECM) and they are configured (nil otherwise: they run as stages of
    /// their own).
    static func hostedStages(_ configuration: FrontEndConfiguration)
        -> (noise: WebRTCNoiseSuppressor.Configuration.Level?, voice: WebRTCVoiceActivityDetector.Likelihood?) {
        switch configuration.echoCancellation {
        case .webRTC, .speexThenWebRTC: break
        case .off, .speex: return (nil, nil)
        }
        var noise: WebRTCNoiseSuppressor.Configuration.Level?
        if case .webRTC(let c) = configuration.noiseSuppression { noise = c.level }
        var voice: WebRTCVoiceActivityDetector.Likelihood?
        if case .webRTC(let c) = configuration.voiceDetection?.detector { voice = c.likelihood }
        return (noise, voice)
    }

    static func makeEcho(_ choice: FrontEndConfiguration.EchoCancellation, rate: Int,
                                 hosting: (noise: WebRTCNoiseSuppressor.Configuration.Level?,
                                           voice: WebRTCVoiceActivityDetector.Likelihood?)) throws
        -> ((any EchoCanceller)?, (any EchoCanceller)?) {
        switch choice {
        case .off:
            return (nil, nil)
        case .webRTC(var configuration):
            configuration.sampleRate = rate
            return (try WebRTCEchoCanceller(configuration: configuration, hostedNoise: hosting.noise,
                                            hostedVoice: hosting.voice), nil)
        case .speex(var configuration):
            configuration.sampleRate = rate
            return (try SpeexEchoCanceller(configuration: configuration), nil)
        case .speexThenWebRTC(var speex, var webRTC):
            speex.sampleRate = rate
            webRTC.sampleRate = rate
            return (try SpeexEchoCanceller(configuration: speex),
                    try WebRTCEchoCanceller(configuration: webRTC, hostedNoise: hosting.noise, hostedVoice: hosting.voice))
        }
    }

    static func makeNoise(_ choice: FrontEndConfiguration.NoiseSuppression, rate: Int) throws
        -> (any NoiseSuppressor)? {
        switch choice {
        case .off:
            return nil
        case .webRTC(var configuration):
            configuration.sampleRate = rate
            return try WebRTCNoiseSuppressor(configuration: configuration)
        case .speex(var configuration):
            configuration.sampleRate = rate
            return try SpeexNoiseSuppressor(configuration: configuration)
        }
    }
}
