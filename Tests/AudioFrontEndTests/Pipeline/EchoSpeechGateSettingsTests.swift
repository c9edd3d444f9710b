import AudioFrontEnd
import XCTest

/// The echo speech gate's settings (`FrontEndConfiguration.EchoGate`): out-of-range values are refused with a
/// typed error when the front end is created; in-range ones are taken.
final class EchoSpeechGateSettingsTests: XCTestCase {
    func testOutOfRangeGateSettingsAreRefused() {
        let cases: [(String, (inout FrontEndConfiguration.EchoGate) -> Void)] = [
            ("negative hold", { $0.holdMilliseconds = -10 }),
            ("hold not whole frames", { $0.holdMilliseconds = 305 }),
            ("resume too long", { $0.resumeMilliseconds = 5010 }),
            ("after-playback too long", { $0.afterPlaybackMilliseconds = 10010 }),
            ("NaN convergence", { $0.convergedDecibels = .nan }),
            ("negative echo margin", { $0.echoMarginDecibels = -1 }),
            ("residual margin too large", { $0.residualMarginDecibels = 61 }),
            ("playback onset zero", { $0.playbackOnsetMilliseconds = 0 }),
            ("playback onset not whole frames", { $0.playbackOnsetMilliseconds = 405 }),
            ("playback gap too long", { $0.playbackOnsetGapMilliseconds = 1010 }),
            ("negative back-dating", { $0.startBackdateMilliseconds = -10 }),
            ("tail decay not whole frames", { $0.tailDecayMilliseconds = 605 }),
            ("tail margin too large", { $0.tailMarginDecibels = 61 }),
        ]
        for (label, change) in cases {
            var configuration = FrontEndConfiguration()
            change(&configuration.voiceDetection!.echoGate)
            XCTAssertThrowsError(try FrontEnd(configuration: configuration), label) { error in
                XCTAssertEqual((error as? AudioFrontEndError)?.code, .invalidConfiguration, "\(label): \(error)")
            }
        }
    }

    func testInRangeGateSettingsAreTaken() throws {
        var configuration = FrontEndConfiguration()
        configuration.voiceDetection!.echoGate = .init(holdMilliseconds: 600, resumeMilliseconds: 0,
                                                       afterPlaybackMilliseconds: 0, convergedDecibels: 20,
                                                       echoMarginDecibels: 12, residualMarginDecibels: 16,
                                                       playbackOnsetMilliseconds: 200, playbackOnsetGapMilliseconds: 0,
                                                       startBackdateMilliseconds: 0, tailDecayMilliseconds: 0,
                                                       tailMarginDecibels: 20)
        XCTAssertNoThrow(try FrontEnd(configuration: configuration))
    }
}
