import ArgumentParser
import Foundation
import XCTest

@testable import VisionTasksCLI
@testable import VisionTasksServerTLS

/// `vision-tasks serve`'s TLS options: the certificate and key go together, the self-signed flag
/// stands alone, a file that cannot be served is a clear error before the server starts, and the
/// flag can come from `VISION_TASKS_TLS_SELF_SIGNED`.
final class ServeTLSOptionsTests: XCTestCase {
    func testOptionsThatDoNotGoTogetherAreRefused() throws {
        for arguments in [["--tls-cert", "a.pem"], ["--tls-key", "a.key"], ["--tls-self-signed", "--tls-cert", "a.pem", "--tls-key", "a.key"]] {
            XCTAssertThrowsError(try ServeCommand.parse(arguments), "\(arguments)") { error in
                XCTAssertTrue(ServeCommand.message(for: error).contains("--tls-"), ServeCommand.message(for: error))
            }
        }
        XCTAssertNil(try ServeCommand.parse([]).loadTLS(), "plain HTTP by default")
    }

    func testAMissingCertificateIsSaidBeforeTheServerStarts() throws {
        let command = try ServeCommand.parse(["--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"])
        XCTAssertThrowsError(try command.loadTLS()) { error in
            XCTAssertTrue("\(error)".contains("the certificate file /nonexistent/cert.pem does not exist"), "\(error)")
        }
    }

    func testTheSelfSignedFlagComesFromTheEnvironment() throws {
        XCTAssertEqual(try ServeEnvironment.arguments([], environment: ["VISION_TASKS_TLS_SELF_SIGNED": "true"]), ["--tls-self-signed"])
        XCTAssertEqual(try ServeEnvironment.arguments([], environment: ["VISION_TASKS_TLS_SELF_SIGNED": "0"]), [])
        XCTAssertThrowsError(try ServeEnvironment.arguments([], environment: ["VISION_TASKS_TLS_SELF_SIGNED": "maybe"])) { error in
            XCTAssertTrue("\(error)".contains("VISION_TASKS_TLS_SELF_SIGNED=maybe"), "\(error)")
        }
        XCTAssertEqual(ServeCommand.shownHost("0.0.0.0", tls: nil), "127.0.0.1")
        XCTAssertEqual(ServeCommand.shownHost("::1", tls: nil), "[::1]")
        let (certificate, key) = try ServerTLS.makeSelfSigned(names: ["studio", "127.0.0.1", "192.168.1.20", "::1"], now: Date())
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-tls-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try ServerTLS.keep(certificatePEM: certificate, keyPEM: key, folder: folder)
        let tls = try ServerTLS.load(
            certificateFile: folder.appendingPathComponent(ServerTLS.selfSignedFiles.certificate).path,
            keyFile: folder.appendingPathComponent(ServerTLS.selfSignedFiles.key).path)
        XCTAssertEqual(ServeCommand.shownHost("0.0.0.0", tls: tls), "192.168.1.20", "a phone on the network opens the address")
    }
}
