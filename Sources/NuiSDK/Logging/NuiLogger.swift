import Foundation
import SpeechStreaming

/// The SDK's log: every line is redacted, then printed (at or above the `nui_initialize` level), written to the
/// log file (with save_log), and handed to `onNuiLogTrackCallback` (at or above both the level and
/// `log_track_level`).
///
/// Thread safe; any thread except the real-time audio path. The track callback is not called here: `track`
/// receives the line and must deliver it elsewhere (the SDK's callback thread), so no lock is held when the app
/// sees it.
/// `package`: the stream-input TTS SDK (module NuiTTS) logs the same way.
package final class NuiLogger: @unchecked Sendable { // mutable state under `lock`
    private let lock = NSLock()
    private var level = NuiSdkLogLevel.NUI_LOG_LEVEL_NONE
    private var trackLevel = NuiSdkLogLevel.NUI_LOG_LEVEL_INFO
    private var file: CappedFile?
    private var printsToStandardError = true
    /// The SDK's redactor (SpeechStreaming's, the one redaction point): it knows the init and dialog keys and
    /// the URL's secrets; every log line, callback text, response and the dialog summary pass it.
    package let redactor = Redactor()
    /// The name in front of each line's text.
    private let component: String
    /// Receives redacted lines for the track callback.
    private let track: @Sendable (NuiSdkLogLevel, String) -> Void

    package init(component: String = "NeoNui", track: @escaping @Sendable (NuiSdkLogLevel, String) -> Void) {
        self.component = component
        self.track = track
    }

    /// The file name of the log in debug_path.
    static let fileName = "nui.log"

    /// Sets the levels and the log file; `file` nil turns the file off.
    package func configure(level: NuiSdkLogLevel, trackLevel: NuiSdkLogLevel, file: CappedFile?) {
        lock.withLock {
            self.level = level
            self.trackLevel = trackLevel
            self.file?.close()
            self.file = file
        }
    }

    /// Stops writing the file (nui_release); levels are kept for the release's own lines.
    package func closeFile() {
        lock.withLock {
            file?.close()
            file = nil
        }
    }

    /// Whether lines print to standard error (tests turn it off to keep their output readable).
    package func setPrinting(_ enabled: Bool) { lock.withLock { printsToStandardError = enabled } }

    package func log(_ lineLevel: NuiSdkLogLevel, _ message: @autoclosure () -> String) {
        guard lineLevel != .NUI_LOG_LEVEL_NONE else { return }
        let (threshold, trackThreshold, prints) = lock.withLock { (level, trackLevel, printsToStandardError) }
        guard lineLevel >= threshold else { return }
        let text = redactor.redact(message())
        let line = "\(Self.timestamp()) \(lineLevel) \(component): \(text)\n"
        lock.withLock {
            file?.write(line)
        }
        if prints { FileHandle.standardError.write(Data(line.utf8)) }
        if lineLevel >= trackThreshold { track(lineLevel, text) }
    }

    package func verbose(_ message: @autoclosure () -> String) { log(.NUI_LOG_LEVEL_VERBOSE, message()) }
    package func debug(_ message: @autoclosure () -> String) { log(.NUI_LOG_LEVEL_DEBUG, message()) }
    package func info(_ message: @autoclosure () -> String) { log(.NUI_LOG_LEVEL_INFO, message()) }
    package func warning(_ message: @autoclosure () -> String) { log(.NUI_LOG_LEVEL_WARNING, message()) }
    package func error(_ message: @autoclosure () -> String) { log(.NUI_LOG_LEVEL_ERROR, message()) }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d.%03d", parts.tm_year + 1900, parts.tm_mon + 1,
                      parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec, Int(now.tv_nsec / 1_000_000))
    }
}
