import Foundation
import NuiSDK
import Synchronization

/// Which C listener is installed in the NeoNui singleton.
///
/// `nui_initialize` claims the registration before it touches NeoNui's delegate, so a second `nui_initialize`
/// (a state error) never replaces the listener of the running SDK; a failed initialize gives the claim back. The
/// bridge stays retained after `nui_release` (NeoNui holds its delegate weakly, and delivers `STATE_CLOSE` on its
/// callback thread after `nui_release`) until the next successful `nui_initialize` replaces it. No lock is held
/// while NeoNui runs, so a callback may call `nui_initialize` / `nui_release` without deadlock. Any thread; not
/// real-time safe.
enum CRegistration {
    private static let claimed = Atomic<Bool>(false)
    private static let lock = NSLock()
    nonisolated(unsafe) private static var retained: ListenerBridge? // under `lock`

    /// Installs `bridge` through `install` (which sets the delegate and initializes NeoNui) unless a C listener is
    /// already installed; on failure restores NeoNui's previous delegate.
    static func initialize(_ bridge: ListenerBridge,
                           install: (ListenerBridge) -> NuiSDK.NuiResultCode) -> Int32 {
        guard claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return NuiSDK.NuiResultCode.NUI_ERR_ALREADY_INITIALIZED.rawValue }
        let sdk = NeoNui.get_instance()
        let previous = sdk.delegate
        let result = install(bridge)
        if result == .SUCCESS {
            lock.withLock { retained = bridge }
        } else {
            sdk.delegate = previous
            claimed.store(false, ordering: .releasing)
        }
        return result.rawValue
    }

    /// Releases NeoNui through `release`; on success waits until the C listener got `STATE_CLOSE` (see
    /// ``ListenerBridge/waitUntilClosed(timeout:)``), then lets the next `nui_initialize` install a new listener.
    static func release(_ release: () -> NuiSDK.NuiResultCode) -> Int32 {
        let result = release()
        guard result == .SUCCESS else { return result.rawValue }
        lock.withLock { retained }?.waitUntilClosed()
        claimed.store(false, ordering: .releasing)
        return result.rawValue
    }
}
