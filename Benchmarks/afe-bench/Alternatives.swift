import AudioFrontEnd

/// The choices beside the reference pipeline: each echo backend and other whole-pipeline variants, each
/// resampler and quality (48 → 16 kHz, one stream), and Opus complexity 0/5/10.
struct AlternativesResult: Codable {
    var pipelines: [PipelineResult]
    var resamplers: [StageResult]
    var opus: [StageResult]
}

enum Alternatives {
    static func run(input: BenchmarkInput, input16: [Int16], reference: FrontEndConfiguration) throws -> AlternativesResult {
        var pipelines = [PipelineResult]()
        for (name, configuration) in variants(reference) {
            pipelines.append(try OurPipeline.run(name, configuration: configuration, input: input))
        }
        var resamplers = [StageResult]()
        for quality in SpeexResampler.Configuration.qualityRange {
            let r = try SpeexResampler(inputRate: 48000, outputRate: 16000, configuration: .init(quality: quality))
            resamplers.append(resample("speex q\(quality)", input) { r.process($0, into: $1).produced })
        }
        for quality in SampleRateConverter.Configuration.Quality.allCases {
            let r = try SampleRateConverter(inputRate: 48000, outputRate: 16000, configuration: .init(quality: quality))
            resamplers.append(resample("libsamplerate \(quality)", input) { r.process($0, into: $1).produced })
        }
        var opus = [StageResult]()
        for complexity in [0, 5, 10] {
            var c = Opus.Encoder.Configuration()
            c.complexity = complexity
            opus.append(try encode("Opus complexity \(complexity), per 20 ms packet", c, input16))
        }
        return AlternativesResult(pipelines: pipelines, resamplers: resamplers, opus: opus)
    }

    static func variants(_ reference: FrontEndConfiguration) -> [(String, FrontEndConfiguration)] {
        func with(_ change: (inout FrontEndConfiguration) -> Void) -> FrontEndConfiguration {
            var c = reference
            change(&c)
            return c
        }
        var aecm = WebRTCEchoCanceller.Configuration()
        aecm.mode = .mobile
        return [
            ("echo off", with { $0.echoCancellation = .off }),
            ("echo WebRTC AEC2 (reference)", reference),
            ("echo WebRTC AECM", with { $0.echoCancellation = .webRTC(aecm) }),
            ("echo Speex MDF 128 ms + residual suppressor", with { $0.echoCancellation = .speex(.init()) }),
            ("echo Speex MDF then WebRTC AEC2", with {
                $0.echoCancellation = .speexThenWebRTC(.init(), WebRTCEchoCanceller.Configuration())
            }),
            ("echo WebRTC AEC2 at 48 kHz processing", with { $0.processingRate = 48000 }),
            ("automatic alignment (delay estimator up to 1000 ms)", with {
                $0.alignment = .automatic(maximumDelayMilliseconds: 1000)
            }),
            ("Ogg Opus pages on", with { $0.encoding?.ogg = OggOpusWriter.Configuration() }),
            ("Opus complexity 0", with { $0.encoding?.opus.complexity = 0 }),
            ("Opus complexity 10", with { $0.encoding?.opus.complexity = 10 }),
            ("library default configuration (48 kHz in, Opus on)", with { c in
                var d = FrontEndConfiguration()
                d.mic = c.mic
                d.reference = c.reference
                d.encoding = FrontEndConfiguration.Encoding(opus: c.encoding!.opus, ogg: nil)
                c = d
            }),
        ]
    }

    private static func resample(_ name: String, _ input: BenchmarkInput,
                                 _ process: (UnsafeBufferPointer<Int16>, UnsafeMutableBufferPointer<Int16>) -> Int)
        -> StageResult {
        let n = input.frameLength
        let out = UnsafeMutableBufferPointer<Int16>.allocate(capacity: 4 * n)
        defer { out.deallocate() }
        out.initialize(repeating: 0)
        let loop = FrameLoop(warmupFrames: 100, frames: input.frameCount - 100)
        let result = input.mic.withUnsafeBufferPointer { mic in
            loop.run { i in _ = process(UnsafeBufferPointer(rebasing: mic[(i * n)..<(i * n + n)]), out) }
        }
        return StageResult(name: name, result: result, audioSeconds: Double(loop.frames) / 100)
    }

    private static func encode(_ name: String, _ configuration: Opus.Encoder.Configuration, _ samples: [Int16]) throws
        -> StageResult {
        let encoder = try Opus.Encoder(configuration: configuration)
        let n = encoder.frameLength
        let packet = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: Opus.maximumPacketBytes)
        defer { packet.deallocate() }
        let packets = samples.count / n
        let loop = FrameLoop(warmupFrames: 50, frames: packets - 50)
        let result = samples.withUnsafeBufferPointer { s in
            loop.run { i in _ = encoder.encode(frame: UnsafeBufferPointer(rebasing: s[(i * n)..<(i * n + n)]), into: packet) }
        }
        var stage = StageResult(name: name, unit: "20 ms packet", result: result,
                                audioSeconds: Double(loop.frames) * Double(n) / Double(configuration.sampleRate))
        stage.allocationsPerFrame /= 2 // per 10 ms
        return stage
    }
}
