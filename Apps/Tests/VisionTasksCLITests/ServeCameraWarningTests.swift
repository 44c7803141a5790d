import XCTest

@testable import VisionTasksCLI

/// `vision-tasks serve` on an address other machines reach, without TLS, says at start that their
/// browsers will give the page no camera, and how to fix it; on a loopback address it says nothing.
final class ServeCameraWarningTests: XCTestCase {
    func testOnlyNonLoopbackAddressesAreWarnedAbout() {
        for host in ["127.0.0.1", "127.0.1.1", "::1", "localhost"] {
            XCTAssertNil(ServeCommand.cameraWarning(host: host, port: 8080), host)
        }
        for host in ["0.0.0.0", "::", "192.168.1.20", "vision.example.com"] {
            let warning = ServeCommand.cameraWarning(host: host, port: 9000) ?? ""
            XCTAssertTrue(warning.contains("no camera over http://"), "\(host): \(warning)")
            XCTAssertTrue(warning.contains("--tls-self-signed") && warning.contains("docs/server.md"), "names the fix: \(warning)")
            XCTAssertTrue(warning.contains("http://127.0.0.1:9000/"), "and the address that works here: \(warning)")
        }
    }
}
