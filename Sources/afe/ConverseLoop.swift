import AudioPlayback
import Foundation
import NuiSDK
import NuiTTS

/// The device's audio loop of `afe converse`, one 10 ms buffer at a time: render what plays (the SDK pushes it as
/// the reference), let the room make the mic of it (echo + the user + noise), push the mic to the recognizer; the
/// SDK's barge-in (``NeoNuiStreamInputTts/enableBargeIn(_:source:)``) stops the answer on the front end's decision. Offline (default), each buffer waits until the front end processed
/// the last one, and the device never underruns: while the answer's audio is still on its way the clock waits
/// for it (a real device would play silence). With --realtime, one buffer per 10 ms of wall-clock time.
struct ConverseLoop {
    let options: ConverseOptions
    let playback: StreamInputTtsPlayback
    let listener: ConverseListener
    let nui: NeoNui
    let user: ConverseInputs.User

    /// Everything on the loop's audio clock (samples at the device rate from the first buffer).
    struct Result {
        var mic: [Int16] = []
        /// Every sample handed to the device.
        var device: [Int16] = []
        var answerStartSample: Int?
        /// Where the user's part of the file begins, and the labelled onset of their speech.
        var userStartSample = 0
        var userOnsetSample = 0
        /// The end of the buffer after which the front end's barge-in decision had reached the SDK.
        var decisionSeenSample: Int?
        /// The first buffer after the decision with nothing of the answer in it (playback stopped).
        var stoppedSample: Int?
        /// The player's position when it stopped (samples of the answer handed to the device).
        var stoppedPosition: Int?
        /// The answer played to its end.
        var drainedSample: Int?
        var endSample = 0
        /// Wall-clock time the offline clock waited for synthesized audio, and buffers whose front-end output
        /// did not come within 2 s (the loop went on).
        var waitedForAudioSeconds = 0.0
        var lockstepTimeouts = 0
        var wallSeconds = 0.0
        /// When the buffer holding the user's onset, and the one holding their last sample, were pushed.
        var onsetPushedAt: ContinuousClock.Instant?
        var userEndPushedAt: ContinuousClock.Instant?
    }

    func run(room: inout ConverseRoom) -> Result {
        let rate = options.rate, frame = rate / 100
        var result = Result()
        var buffer = [Int16](repeating: 0, count: frame)
        var mic: [Int16] = []
        mic.reserveCapacity(frame)
        let began = ContinuousClock.now
        var userPlaced = !options.playback // without playback the user starts --user-at after the first buffer
        if userPlaced { result.userStartSample = Int(options.userAt * Double(rate)) }
        var lastPosition = 0
        var stopRequested = false
        var clock = 0
        let limit = 300 * rate
        while clock < limit {
            if options.playback && !options.realtime { waitForAudio(&result) }
            buffer.withUnsafeMutableBufferPointer { playback.render(into: $0) }
            let player = playback.player
            let position = player.playingUtterance == 0 ? 0 : player.playedPosition.samples
            if result.answerStartSample == nil, position > 0 {
                result.answerStartSample = clock + frame - position
            }
            if !userPlaced, let start = result.answerStartSample {
                result.userStartSample = start + Int(options.userAt * Double(rate))
                userPlaced = true
            }
            // The answer stopped: after the barge-in decision, a buffer with nothing of it, though it had not
            // played out.
            let drained = listener.playback(.TTS_PLAYBACK_DRAINED) != nil
            if result.answerStartSample != nil, result.stoppedSample == nil, result.drainedSample == nil {
                if position == lastPosition && !drained && stopRequested {
                    result.stoppedSample = clock
                    result.stoppedPosition = position
                } else if drained {
                    result.drainedSample = clock
                }
            }
            lastPosition = position
            let userOffset = clock - result.userStartSample
            let talker: ArraySlice<Float> = userPlaced && userOffset + frame > 0 && userOffset < user.samples.count
                ? Self.window(user.samples, from: userOffset, count: frame) : []
            buffer.withUnsafeBufferPointer { room.mic(played: $0, user: talker, into: &mic) }
            result.device += buffer
            result.mic += mic
            mic.withUnsafeBufferPointer { samples in
                _ = samples.baseAddress!.withMemoryRebound(to: CChar.self, capacity: frame * 2) {
                    nui.nui_update_audio_data($0, Len: Int32(frame * 2), FirstPack: clock == 0)
                }
            }
            clock += frame
            listener.clock.store(clock, ordering: .releasing)
            if userPlaced, result.onsetPushedAt == nil, clock > result.userStartSample + user.onsetSample { result.onsetPushedAt = .now }
            if userPlaced, result.userEndPushedAt == nil, clock >= result.userStartSample + user.samples.count { result.userEndPushedAt = .now }
            if options.realtime {
                let due = began + .milliseconds(clock * 1000 / rate)
                let wait = due - .now
                if wait > .zero { usleep(UInt32(Self.seconds(wait) * 1e6)) }
            } else if !waitForFrontEnd(clock) {
                result.lockstepTimeouts += 1
            }
            if !stopRequested, listener.bargeInSeen.load(ordering: .acquiring) {
                stopRequested = true
                result.decisionSeenSample = clock
            }
            if listener.dialog.isOver.load(ordering: .acquiring) { break }
            let userDone = userPlaced && clock >= result.userStartSample + user.samples.count + Int(options.tailSeconds * Double(rate))
            let answerDone = !options.playback || result.stoppedSample != nil || result.drainedSample != nil
                || listener.lock.withLock({ listener.synthesisFailure != nil })
            if userDone && answerDone { break }
        }
        result.userOnsetSample = result.userStartSample + user.onsetSample
        result.endSample = clock
        result.wallSeconds = Self.seconds(ContinuousClock.now - began)
        return result
    }

    /// `count` samples of `samples` from `offset` (which may be negative or run past the end: zeros there).
    static func window(_ samples: [Float], from offset: Int, count: Int) -> ArraySlice<Float> {
        ArraySlice((0..<count).map { index in
            let at = offset + index
            return at >= 0 && at < samples.count ? samples[at] : 0
        })
    }

    /// Offline: holds the clock while the answer's audio is still coming and less than a buffer is decoded.
    private func waitForAudio(_ result: inout Result) {
        let frame = options.rate / 100
        let start = ContinuousClock.now
        while playback.player.bufferedFrames < frame, result.decisionSeenSample == nil, !listener.bargeInSeen.load(ordering: .acquiring),
              listener.playback(.TTS_PLAYBACK_INPUT_ENDED) == nil,
              !listener.lock.withLock({ listener.synthesisFailure != nil }),
              ContinuousClock.now - start < .seconds(10) {
            usleep(500)
        }
        result.waitedForAudioSeconds += Self.seconds(ContinuousClock.now - start)
    }

    /// Offline: waits until the front end put out the buffer just pushed (its events are then delivered too).
    private func waitForFrontEnd(_ pushed: Int) -> Bool {
        let start = ContinuousClock.now
        while listener.dialog.processedSamples.load(ordering: .acquiring) < pushed {
            if listener.dialog.isOver.load(ordering: .acquiring) || ContinuousClock.now - start > .seconds(2) { return false }
            usleep(100)
        }
        return true
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
