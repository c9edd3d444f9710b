import CNui
import Foundation
import NuiC
import NuiSDK
import XCTest

/// Which listener the C API installs in the NeoNui singleton: one per initialize, never replaced by a refused
/// initialize (racing or not), and never replacing a Swift delegate of an SDK initialized from Swift.
final class NuiCRegistrationTests: XCTestCase {
    static let parameters = #"{"url":"ws://127.0.0.1:9/api-ws/v1/inference","apikey":"k","device_id":"reg","#
        + #""service_mode":"1"}"#

    final class Closes: @unchecked Sendable { // `count` under `lock`
        let lock = NSLock()
        var count = 0
    }

    /// A listener that counts STATE_CLOSE into `closes`.
    static func listener(counting closes: Closes) -> NuiSdkListener {
        var listener = NuiSdkListener()
        listener.user_data = Unmanaged.passUnretained(closes).toOpaque()
        listener.audio_state_changed_callback = { user, state in
            guard state == CNui.STATE_CLOSE, let user else { return }
            let closes = Unmanaged<Closes>.fromOpaque(user).takeUnretainedValue()
            closes.lock.withLock { closes.count += 1 }
        }
        return listener
    }

    func testRacingInitializeCallsInstallOneListener() {
        for round in 0..<5 {
            let closes = (0..<8).map { _ in Closes() }
            let results = LockedValue<[Int: Int32]>([:])
            DispatchQueue.concurrentPerform(iterations: 8) { index in
                var listener = Self.listener(counting: closes[index])
                let code = nui_initialize(Self.parameters, &listener, CNui.LOG_LEVEL_NONE, false)
                results.update { $0[index] = code }
            }
            let codes = results.get()
            let winners = codes.filter { $0.value == 0 }.map(\.key)
            XCTAssertEqual(winners.count, 1, "round \(round): \(codes)")
            XCTAssertEqual(codes.values.filter { $0 == NuiSDK.NuiResultCode.NUI_ERR_ALREADY_INITIALIZED.rawValue }.count,
                           7, "round \(round): \(codes)")
            XCTAssertEqual(nui_release(), 0)
            // nui_release returned after STATE_CLOSE reached the installed listener, and only that one.
            let counts = closes.map { closes in closes.lock.withLock { closes.count } }
            XCTAssertEqual(counts, (0..<8).map { winners.contains($0) ? 1 : 0 }, "round \(round): \(codes)")
        }
    }

    final class SwiftDelegate: NeoNuiSdkDelegate {}

    func testARefusedCInitializeKeepsTheSwiftDelegate() {
        let sdk = NeoNui.get_instance()
        let delegate = SwiftDelegate()
        sdk.delegate = delegate
        XCTAssertEqual(sdk.nui_initialize(Self.parameters, logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
        defer { _ = sdk.nui_release() }
        var listener = NuiSdkListener()
        XCTAssertEqual(nui_initialize(Self.parameters, &listener, CNui.LOG_LEVEL_NONE, false),
                       NuiSDK.NuiResultCode.NUI_ERR_ALREADY_INITIALIZED.rawValue)
        XCTAssertTrue(sdk.delegate === delegate)
        // The C registration was given back: after a release a C initialize works.
        XCTAssertEqual(sdk.nui_release(), .SUCCESS)
        XCTAssertEqual(nui_initialize(Self.parameters, &listener, CNui.LOG_LEVEL_NONE, false), 0)
        XCTAssertEqual(nui_release(), 0)
        XCTAssertEqual(sdk.nui_initialize(Self.parameters, logLevel: .NUI_LOG_LEVEL_NONE, saveLog: false), .SUCCESS)
    }
}
