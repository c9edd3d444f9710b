import AudioFrontEnd

/// Our stages one by one, on the reference pipeline's settings: the same order and data as the pipeline
/// (resample both streams, AEC2, NS, VAD on the processed audio, Opus every 20 ms), each call timed.
enum OurStages {
    static func run(input: BenchmarkInput, configuration: FrontEndConfiguration, warmupFrames: Int = 100) throws
        -> [StageResult] {
        let rate = configuration.processingRate
        let micResampler = try SpeexResampler(inputRate: input.sampleRate, outputRate: rate)
        let referenceResampler = try SpeexResampler(inputRate: input.sampleRate, outputRate: rate)
        guard case .webRTC(var echoConfiguration) = configuration.echoCancellation,
              case .webRTC(var noiseConfiguration) = configuration.noiseSuppression,
              case .webRTC(var vadConfiguration) = configuration.voiceDetection?.detector,
              var opusConfiguration = configuration.encoding?.opus else {
            throw BenchmarkError("the stage run needs the reference configuration")
        }
        echoConfiguration.sampleRate = rate
        noiseConfiguration.sampleRate = rate
        vadConfiguration.sampleRate = rate
        opusConfiguration.sampleRate = rate
        let echo = try WebRTCEchoCanceller(configuration: echoConfiguration)
        echo.streamDelayMilliseconds = 10
        let noise = try WebRTCNoiseSuppressor(configuration: noiseConfiguration)
        let vad = try WebRTCVoiceActivityDetector(vadConfiguration)
        let encoder = try Opus.Encoder(configuration: opusConfiguration)
        let n = input.frameLength, m = rate / 100
        let mic16 = UnsafeMutableBufferPointer<Int16>.allocate(capacity: m + 64)
        let reference16 = UnsafeMutableBufferPointer<Int16>.allocate(capacity: m + 64)
        let processed = UnsafeMutableBufferPointer<Int16>.allocate(capacity: m)
        let packetSamples = UnsafeMutableBufferPointer<Int16>.allocate(capacity: encoder.frameLength)
        let packet = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Opus.maximumPacketBytes)
        defer { for p in [mic16, reference16, processed, packetSamples] { p.deallocate() }; packet.deallocate() }
        for p in [mic16, reference16, processed, packetSamples] { p.initialize(repeating: 0) }
        let total = input.frameCount
        var times = [[Int64]](repeating: [Int64](repeating: 0, count: total), count: 6)
        var fill = 0
        let loop = FrameLoop(warmupFrames: warmupFrames, frames: total - warmupFrames)
        let result = input.mic.withUnsafeBufferPointer { mic in
            input.reference.withUnsafeBufferPointer { reference in
                times.withUnsafeMutableBufferPointer { times in
                    loop.run { i in
                        var t = Clock.now()
                        func lap(_ stage: Int) {
                            let now = Clock.now()
                            times[stage][i] = now - t
                            t = now
                        }
                        _ = micResampler.process(UnsafeBufferPointer(rebasing: mic[(i * n)..<(i * n + n)]), into: mic16)
                        lap(0)
                        _ = referenceResampler.process(UnsafeBufferPointer(rebasing: reference[(i * n)..<(i * n + n)]),
                                                       into: reference16)
                        lap(1)
                        _ = echo.process(capture: UnsafeBufferPointer(rebasing: mic16[0..<m]),
                                         reference: UnsafeBufferPointer(rebasing: reference16[0..<m]), output: processed)
                        lap(2)
                        _ = noise.process(processed)
                        lap(3)
                        _ = vad.process(UnsafeBufferPointer(processed))
                        lap(4)
                        (packetSamples.baseAddress! + fill).update(from: processed.baseAddress!, count: m)
                        fill += m
                        if fill == packetSamples.count {
                            _ = encoder.encode(frame: UnsafeBufferPointer(packetSamples), into: packet)
                            fill = 0
                            lap(5)
                        }
                    }
                }
            }
        }
        let names = ["resample mic 48→16 kHz (speex q5)", "resample reference 48→16 kHz (speex q5)",
                     "AEC2 (WebRTCEchoCanceller)", "NS (WebRTCNoiseSuppressor)", "VAD (WebRTCVoiceActivityDetector)",
                     "Opus c\(opusConfiguration.complexity), per 20 ms packet"]
        return names.indices.map { s in
            let measured = Array(times[s][warmupFrames...]).filter { $0 > 0 }
            var stage = StageResult(name: names[s], unit: s == 5 ? "20 ms packet" : "10 ms frame", result: result,
                                    calls: measured, audioSeconds: Double(loop.frames) / 100)
            // CPU is measured for the whole loop; per stage, estimate it from the stage's share of wall time.
            let share = Double(measured.reduce(0, +)) / Double(max(1, result.wall.reduce(0, +)))
            stage.realTimeFactor *= share
            return stage
        }
    }
}
