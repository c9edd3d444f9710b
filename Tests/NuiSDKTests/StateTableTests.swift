import Foundation
@testable import NuiSDK
import XCTest

/// Every call in every state, against the table published in ResultCodes.md ("Every call in every state"): the
/// code each call returns and the state it leaves. The running states use a server that never confirms the task
/// (fault `no-task-started`), so a dialog stays running (and a stopping dialog stays stopping) while the call runs.
final class StateTableTests: XCTestCase {
    typealias State = NeoNui.State
    let states: [State] = [.uninitialized, .initialized, .ready, .running, .stopping]
    let letters: [String: State] = ["U": .uninitialized, "I": .initialized, "R": .ready, "D": .running, "S": .stopping]

    /// Brings a fresh harness to `state`.
    func harness(in state: State, server: ReferenceServer) throws -> NuiHarness {
        let harness = try NuiHarness()
        if state == .uninitialized { return harness }
        XCTAssertEqual(harness.initialize(harness.initParameters(url: server.url())), .SUCCESS)
        if state == .initialized { return harness }
        XCTAssertEqual(harness.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        if state == .ready { return harness }
        XCTAssertEqual(harness.start(), .SUCCESS)
        if state == .stopping { XCTAssertEqual(harness.nui.nui_dialog_cancel(false), .SUCCESS) }
        XCTAssertEqual(harness.nui.lock.withLock { harness.nui.state }, state)
        return harness
    }

    /// The call named in the table's first column.
    func call(_ name: String, on harness: NuiHarness, server: ReferenceServer) -> NuiResultCode {
        let nui = harness.nui
        let pcm = [CChar](repeating: 0, count: 320)
        switch name {
        case "`nui_initialize`": return harness.initialize(harness.initParameters(url: server.url()))
        case "`nui_set_params`": return harness.setParams(NuiHarness.recognitionParameters())
        case "`nui_dialog_start`": return harness.start()
        case "`nui_dialog_action`": return nui.nui_dialog_action(#"{"type": "action", "command": "play_start"}"#)
        case "`nui_update_audio_data`": return nui.nui_update_audio_data(pcm, Len: 320, FirstPack: true)
        case "`nui_push_reference_data`": return nui.nui_push_reference_data(pcm, Len: 320, FirstPack: true)
        case "`nui_dialog_cancel(NO)`": return nui.nui_dialog_cancel(false)
        case "`nui_dialog_cancel(YES)`": return nui.nui_dialog_cancel(true)
        case "`nui_release`": return nui.nui_release()
        default:
            XCTFail("unknown call \(name) in the table")
            return .NUI_ERR_INTERNAL
        }
    }

    func testEveryCallInEveryStateAsPublished() throws {
        let server = try ReferenceServer(["--fault", "no-task-started"])
        defer { server.stop() }
        let rows = try ResultCodesDocument.table("Every call in every state")
        XCTAssertEqual(rows.count, 11, "the table's rows")
        var checked = 0
        for row in rows where !row[0].contains("get_") {
            for (column, state) in states.enumerated() {
                let cell = row[column + 1]
                let parts = cell.components(separatedBy: " → ")
                let expectedCode = parts[0] == "SUCCESS" ? NuiResultCode.SUCCESS
                    : NuiResultCode.allCases.first { $0.name == "NUI_ERR_" + parts[0] }
                let expectedState = parts.count > 1 ? letters[parts[1]] : state
                let harness = try harness(in: state, server: server)
                let code = call(row[0], on: harness, server: server)
                let after = harness.nui.lock.withLock { harness.nui.state }
                XCTAssertEqual(code, expectedCode, "\(row[0]) in \(state): table says \(cell)")
                XCTAssertEqual(after, expectedState, "\(row[0]) in \(state): state after (table says \(cell))")
                harness.close()
                checked += 1
            }
        }
        XCTAssertEqual(checked, 45)
    }

    func testVersionAndResponseInEveryState() throws {
        let server = try ReferenceServer(["--fault", "no-task-started"])
        defer { server.stop() }
        for state in states {
            let harness = try harness(in: state, server: server)
            let version = harness.nui.nui_get_version().map { String(cString: $0) }
            XCTAssertEqual(version, state == .uninitialized ? nil : NeoNui.version, "\(state)")
            XCTAssertNil(harness.nui.nui_get_all_response(), "\(state): no event has been delivered")
            harness.close()
        }
    }

    func testPullModeRefusesPushesAndAECOffRefusesReference() throws {
        let server = try ReferenceServer(["--fault", "no-task-started"])
        defer { server.stop() }
        let pcm = [CChar](repeating: 0, count: 320)
        let pull = try NuiHarness()
        XCTAssertEqual(pull.initialize(pull.initParameters(url: server.url(), manual: false)), .SUCCESS)
        XCTAssertEqual(pull.nui.nui_update_audio_data(pcm, Len: 320, FirstPack: true), .NUI_ERR_MANUAL_AUDIO_DISABLED)
        XCTAssertEqual(pull.setParams(NuiHarness.recognitionParameters()), .SUCCESS)
        XCTAssertEqual(pull.start(), .SUCCESS)
        XCTAssertEqual(pull.nui.nui_update_audio_data(pcm, len: 320, firstPack: true), .NUI_ERR_MANUAL_AUDIO_DISABLED)
        XCTAssertEqual(pull.nui.nui_push_reference_data(pcm, Len: 320, FirstPack: true), .NUI_ERR_MANUAL_AUDIO_DISABLED)
        pull.close()

        let push = try NuiHarness()
        XCTAssertEqual(push.initialize(push.initParameters(url: server.url())), .SUCCESS)
        XCTAssertEqual(push.setParams(NuiHarness.recognitionParameters(top: ["enable_aec": false])), .SUCCESS)
        XCTAssertEqual(push.start(), .SUCCESS)
        XCTAssertEqual(push.nui.nui_push_reference_data(pcm, len: 320, firstPack: false), .NUI_ERR_AEC_DISABLED)
        XCTAssertEqual(push.nui.nui_dialog_action(#"{"type": "action", "command": "play_over"}"#), .NUI_ERR_AEC_DISABLED)
        XCTAssertEqual(push.nui.nui_update_audio_data(pcm, Len: 319, FirstPack: false), .NUI_ERR_INVALID_AUDIO_DATA, "odd length")
        XCTAssertEqual(push.nui.nui_update_audio_data(pcm, Len: -2, FirstPack: false), .NUI_ERR_INVALID_AUDIO_DATA)
        XCTAssertEqual(push.nui.nui_update_audio_data(nil, Len: 2, FirstPack: false), .NUI_ERR_INVALID_AUDIO_DATA)
        XCTAssertEqual(push.nui.nui_update_audio_data(pcm, Len: 0, FirstPack: false), .SUCCESS)
        XCTAssertEqual(push.nui.nui_dialog_action(#"{"type": "action", "command": "rewind"}"#), .NUI_ERR_INVALID_PARAMETER_VALUE)
        XCTAssertEqual(push.nui.nui_dialog_action(#"{"command": "play_start"}"#), .NUI_ERR_MISSING_PARAMETER)
        XCTAssertEqual(push.nui.nui_dialog_action(#"{"type": "action", "command": "context"}"#), .NUI_ERR_MISSING_PARAMETER)
        push.close()
    }

    func testTheSingletonLifecycle() throws {
        let nui = NeoNui.get_instance()
        XCTAssertTrue(nui === NeoNui.get_instance())
        nui.logger.setPrinting(false)
        let directory = NSTemporaryDirectory()
        let parameters = NuiHarness.json(["url": "ws://127.0.0.1:9/api-ws/v1/inference", "apikey": NuiHarness.apiKey,
                                          "service_mode": "1", "device_id": "d", "workspace": directory])
        XCTAssertEqual(nui.nui_initialize(parameters, logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
        XCTAssertEqual(nui.nui_initialize(parameters, logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .NUI_ERR_ALREADY_INITIALIZED)
        XCTAssertEqual(nui.nui_release(), .SUCCESS)
        XCTAssertEqual(nui.nui_initialize(parameters, logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS, "release then initialize")
        XCTAssertEqual(nui.nui_release(), .SUCCESS)
        XCTAssertEqual(nui.nui_release(), .NUI_ERR_NOT_INITIALIZED)
    }
}
