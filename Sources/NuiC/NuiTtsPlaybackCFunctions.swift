import AudioFrontEnd
import AudioPlayback
import CNui
import Foundation
import NuiSDK
import NuiTTS

// Local playback through the C ABI (nui_tts.h, "Local playback"): each `NuiTtsPlayback` is a retained
// ``PlaybackHandle`` around a ``StreamInputTtsPlayback``.

/// One `NuiTtsPlayback`: the playback, whether it renders itself (sink shape), and the one synthesizer it is
/// attached to (its input side has one producer). `owner` under `lock`.
final class PlaybackHandle: @unchecked Sendable {
    let playback: StreamInputTtsPlayback
    let isSinkShaped: Bool
    private let lock = NSLock()
    private weak var owner: TtsHandle?

    init(_ playback: StreamInputTtsPlayback) {
        self.playback = playback
        isSinkShaped = playback.sinkPlayback != nil
    }

    /// Claims the playback for `handle`; false when another live synthesizer has it.
    func claim(for handle: TtsHandle) -> Bool {
        lock.withLock {
            if let owner, owner !== handle { return false }
            owner = handle
            return true
        }
    }

    func release(from handle: TtsHandle) { lock.withLock { if owner === handle { owner = nil } } }

    /// The synthesizer it is attached to, taken out.
    func takeOwner() -> TtsHandle? { lock.withLock { defer { owner = nil }; return owner } }
}

/// The C sink: the playback thread calls the app's function with each device buffer.
final class CPlaybackSink: PlaybackSink, @unchecked Sendable { // immutable; the pointer is the app's to share
    private let function: FuncTtsPlaybackSink
    private let userData: UnsafeMutableRawPointer?
    init(_ function: FuncTtsPlaybackSink, _ userData: UnsafeMutableRawPointer?) {
        self.function = function
        self.userData = userData
    }
    func write(_ samples: UnsafeBufferPointer<Int16>) {
        guard let base = samples.baseAddress else { return }
        function(userData, base, Int32(samples.count))
    }
}

private typealias Code = NuiSDK.NuiResultCode

private func playbackHandle(_ pointer: OpaquePointer?) -> PlaybackHandle? {
    pointer.map { Unmanaged<PlaybackHandle>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
}

private func ttsHandle(_ pointer: OpaquePointer?) -> TtsHandle? {
    pointer.map { Unmanaged<TtsHandle>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
}

/// The Swift settings of a C config (zero → default), or the code of the first value that is wrong.
private func settings(_ c: NuiTtsPlaybackConfig) -> Result<(PlaybackConfiguration, SinkPlayback.Pacing, Int, Bool), Code> {
    func orDefault(_ value: Int32, _ fallback: Int) -> Int { value == 0 ? fallback : Int(value) }
    var configuration = PlaybackConfiguration()
    configuration.sampleRate = orDefault(c.sample_rate, configuration.sampleRate)
    configuration.channelCount = orDefault(c.channel_count, configuration.channelCount)
    configuration.bufferMilliseconds = orDefault(c.buffer_ms, configuration.bufferMilliseconds)
    configuration.rearmAfterMilliseconds = orDefault(c.rearm_after_ms, configuration.rearmAfterMilliseconds)
    let pacing: SinkPlayback.Pacing
    switch c.sink_pacing {
    case NUI_TTS_PACING_SINK: pacing = .sink
    case NUI_TTS_PACING_CLOCK: pacing = .realTime
    default: return .failure(.NUI_ERR_INVALID_PARAMETER_VALUE)
    }
    let reference: Bool
    switch c.echo_reference {
    case NUI_TTS_REFERENCE_NONE: reference = false
    case NUI_TTS_REFERENCE_NUI: reference = true
    default: return .failure(.NUI_ERR_INVALID_PARAMETER_VALUE)
    }
    if c.rearm_after_ms < 0 { return .failure(.NUI_ERR_INVALID_PARAMETER_VALUE) }
    return .success((configuration, pacing, orDefault(c.sink_buffer_ms, 10), reference))
}

/// `nui_tts_playback_create`. Not real-time safe.
@_cdecl("nui_tts_playback_create")
public func nui_tts_playback_create(_ config: UnsafePointer<NuiTtsPlaybackConfig>?,
                                    _ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let config, let out else { return Code.NUI_ERR_MISSING_PARAMETER.rawValue }
    out.pointee = nil
    let c = config.pointee
    let (configuration, pacing, sinkMilliseconds, toNui): (PlaybackConfiguration, SinkPlayback.Pacing, Int, Bool)
    switch settings(c) {
    case .failure(let code): return code.rawValue
    case .success(let values): (configuration, pacing, sinkMilliseconds, toNui) = values
    }
    let nui = NeoNui.get_instance()
    if toNui {
        guard let rate = nui.referenceSampleRate else { return Code.NUI_ERR_PARAMS_NOT_SET.rawValue }
        if rate != configuration.sampleRate { return Code.NUI_ERR_UNSUPPORTED_SAMPLE_RATE.rawValue }
        if configuration.channelCount != 1 { return Code.NUI_ERR_INVALID_PARAMETER_VALUE.rawValue }
    }
    do {
        let playback = try StreamInputTtsPlayback(configuration: configuration, reference: toNui ? nui : nil,
                                                  sink: c.sink.map { CPlaybackSink($0, c.sink_user_data) },
                                                  pacing: pacing, bufferMilliseconds: sinkMilliseconds)
        out.pointee = OpaquePointer(Unmanaged.passRetained(PlaybackHandle(playback)).toOpaque())
        return Code.SUCCESS.rawValue
    } catch let error as AudioFrontEndError {
        return (error.code == .unsupportedSampleRate ? Code.NUI_ERR_UNSUPPORTED_SAMPLE_RATE : .NUI_ERR_INVALID_PARAMETER_VALUE).rawValue
    } catch {
        return Code.NUI_ERR_INTERNAL.rawValue
    }
}

/// `nui_tts_playback_render`: the device's audio callback. Real-time safe (no allocation, lock or wait).
@_cdecl("nui_tts_playback_render")
public func nui_tts_playback_render(_ pointer: OpaquePointer?, _ buffer: UnsafeMutablePointer<Int16>?, _ count: Int32) -> Int32 {
    guard let handle = playbackHandle(pointer) else { return Code.NUI_ERR_MISSING_PARAMETER.rawValue }
    guard count >= 0, buffer != nil || count == 0 else { return Code.NUI_ERR_INVALID_AUDIO_DATA.rawValue }
    guard !handle.isSinkShaped else { return Code.NUI_ERR_INVALID_PARAMETER_VALUE.rawValue }
    handle.playback.render(into: UnsafeMutableBufferPointer(start: buffer, count: Int(count)))
    return Code.SUCCESS.rawValue
}

/// `nui_tts_playback_stop`: barge-in. Any thread; real-time safe.
@_cdecl("nui_tts_playback_stop")
public func nui_tts_playback_stop(_ pointer: OpaquePointer?) -> Int32 {
    guard let handle = playbackHandle(pointer) else { return Code.NUI_ERR_MISSING_PARAMETER.rawValue }
    handle.playback.player.stop()
    return Code.SUCCESS.rawValue
}

/// `nui_tts_playback_set_volume`. Any thread; real-time safe.
@_cdecl("nui_tts_playback_set_volume")
public func nui_tts_playback_set_volume(_ pointer: OpaquePointer?, _ volume: Float) -> Int32 {
    guard let handle = playbackHandle(pointer) else { return Code.NUI_ERR_MISSING_PARAMETER.rawValue }
    handle.playback.player.volume = volume
    return Code.SUCCESS.rawValue
}

/// `nui_tts_playback_get_counts`. Any thread; real-time safe.
@_cdecl("nui_tts_playback_get_counts")
public func nui_tts_playback_get_counts(_ pointer: OpaquePointer?, _ out: UnsafeMutablePointer<NuiTtsPlaybackCounts>?) -> Int32 {
    guard let handle = playbackHandle(pointer), let out else { return Code.NUI_ERR_MISSING_PARAMETER.rawValue }
    let player = handle.playback.player, counts = player.counts
    out.pointee = NuiTtsPlaybackCounts(
        rendered_frames: Int64(counts.renderedFrames), underrun_frames: Int64(counts.underrunFrames),
        reference_samples_pushed: Int64(counts.referenceSamplesPushed),
        refused_reference_samples: Int64(counts.refusedReferenceSamples), refused_input_bytes: Int64(counts.refusedInputBytes),
        played_position_ms: Int64(player.playedPosition.samples) * 1000 / Int64(player.configuration.sampleRate))
    return Code.SUCCESS.rawValue
}

/// `nui_tts_set_playback`. Not real-time safe.
@_cdecl("nui_tts_set_playback")
public func nui_tts_set_playback(_ pointer: OpaquePointer?, _ playbackPointer: OpaquePointer?) -> Int32 {
    guard let tts = ttsHandle(pointer) else { return Code.NUI_ERR_MISSING_PARAMETER.rawValue }
    let next = playbackHandle(playbackPointer)
    if let next, !next.claim(for: tts) { return Code.NUI_ERR_INVALID_PARAMETER_VALUE.rawValue } // another synthesizer's
    let previous = tts.playback
    let code = tts.tts.setPlayback(next?.playback)
    guard code == .SUCCESS else {
        if let next, next !== previous { next.release(from: tts) }
        return code.rawValue
    }
    if let previous, previous !== next { previous.release(from: tts) }
    tts.playback = next
    return Code.SUCCESS.rawValue
}

/// `nui_tts_playback_destroy`: detaches it from its synthesizer (cancelling that one's running task), stops its
/// threads, frees it.
@_cdecl("nui_tts_playback_destroy")
public func nui_tts_playback_destroy(_ pointer: OpaquePointer?) {
    guard let pointer else { return }
    let unmanaged = Unmanaged<PlaybackHandle>.fromOpaque(UnsafeRawPointer(pointer))
    let handle = unmanaged.takeUnretainedValue()
    if let owner = handle.takeOwner() { owner.detachPlayback() }
    handle.playback.close()
    unmanaged.release()
}
