import XCTest

/// A test case with a fresh ``NuiHarness`` and a reference server for every test, both closed after it.
class NuiServerTestCase: XCTestCase {
    var harness: NuiHarness!
    var server: ReferenceServer!

    override func setUpWithError() throws {
        server = try ReferenceServer()
        harness = try NuiHarness()
    }

    override func tearDown() {
        harness.close()
        server.stop()
    }
}
