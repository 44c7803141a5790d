import Foundation
import ServiceLifecycle
import TestSupport
import XCTest

@testable import VisionTasksServer
@testable import VisionTasksServerTLS

/// HTTPS and WSS on the server's own port (`ServerTLS`): certificates and keys checked before
/// the server starts, the self-signed certificate made once and kept, and the page in Chromium
/// over `https://` (landmarks drawn, two cards swiped) beside the same page over plain HTTP,
/// their frame rates and server times printed.
final class ServerTLSTests: XCTestCase {
    var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("vision-tasks-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Writes a certificate and key made here for `names` (valid `days` from `now`); returns their paths.
    func writePair(_ name: String, names: [String] = ["demo.test"], now: Date = Date(), days: Int = 30) throws -> (String, String) {
        let (certificate, key) = try ServerTLS.makeSelfSigned(names: names, now: now, days: days)
        let certificateFile = folder.appendingPathComponent("\(name).pem").path
        let keyFile = folder.appendingPathComponent("\(name).key").path
        try ServerTLS.write(certificate, to: certificateFile, mode: 0o644)
        try ServerTLS.write(key, to: keyFile, mode: 0o600)
        return (certificateFile, keyFile)
    }

    func assertRefused(_ certificate: String, _ key: String, saying expected: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try ServerTLS.load(certificateFile: certificate, keyFile: key)
            XCTFail("\(certificate) with \(key) was accepted", file: file, line: line)
        } catch {
            XCTAssertTrue(error.description.contains(expected), "\(error.description) should say \(expected)", file: file, line: line)
        }
    }

    func testCertificateAndKeyProblemsAreClearErrorsBeforeTheServerStarts() throws {
        let (certificate, key) = try writePair("good")
        let good = try ServerTLS.load(certificateFile: certificate, keyFile: key)
        XCTAssertEqual(good.names, ["demo.test"])
        XCTAssertEqual(good.fingerprint.split(separator: ":").count, 32)

        assertRefused(folder.appendingPathComponent("missing.pem").path, key, saying: "does not exist")
        assertRefused(certificate, folder.appendingPathComponent("missing.key").path, saying: "does not exist")
        let text = folder.appendingPathComponent("notes.txt").path
        try "not a certificate\n".write(toFile: text, atomically: true, encoding: .utf8)
        assertRefused(text, key, saying: "no certificate")
        try ServerTLS.write("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", to: text, mode: 0o600)
        assertRefused(certificate, text, saying: "is not a PEM private key")
        let (_, otherKey) = try writePair("other")
        assertRefused(certificate, otherKey, saying: "is not the key of the certificate")
        let (expired, expiredKey) = try writePair("expired", now: Date(timeIntervalSinceNow: -400 * 86_400), days: 30)
        assertRefused(expired, expiredKey, saying: "expired on")
        let (future, futureKey) = try writePair("future", now: Date(timeIntervalSinceNow: 10 * 86_400))
        assertRefused(future, futureKey, saying: "is not valid before")
        XCTAssertEqual(chmod(key, 0o644), 0)
        assertRefused(certificate, key, saying: "may be read by other users (mode 644): chmod 600")

        // A certificate and key from openssl (RSA, PKCS#8) load as well.
        let (rsaCertificate, rsaKey) = try TLSProxyBrowserTests.opensslCertificate(
            name: "rsa.test", alternativeNames: "DNS:rsa.test,IP:127.0.0.1", days: 2, in: folder)
        XCTAssertEqual(chmod(rsaKey, 0o600), 0)
        let rsa = try ServerTLS.load(certificateFile: rsaCertificate, keyFile: rsaKey)
        XCTAssertEqual(rsa.names, ["rsa.test", "127.0.0.1"])
    }

    func testSelfSignedCertificateIsMadeOnceAndKept() throws {
        let kept = folder.appendingPathComponent("config/vision-tasks/tls")
        let names = ["studio", "studio.local", "192.168.1.20", "localhost", "127.0.0.1", "::1"]
        let first = try ServerTLS.selfSigned(folder: kept, names: names)
        XCTAssertTrue(first.created)
        XCTAssertEqual(first.tls.names, names)
        let key = kept.appendingPathComponent(ServerTLS.selfSignedFiles.key).path
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int, 0o600)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: kept.path)[.posixPermissions] as? Int, 0o700)

        let again = try ServerTLS.selfSigned(folder: kept, names: names)
        XCTAssertFalse(again.created, "the kept certificate is used again")
        XCTAssertEqual(again.tls.fingerprint, first.tls.fingerprint)
        // The machine got another address: a new certificate that covers it.
        let moved = try ServerTLS.selfSigned(folder: kept, names: names + ["10.0.0.7"])
        XCTAssertTrue(moved.created)
        XCTAssertNotEqual(moved.tls.fingerprint, first.tls.fingerprint)
        XCTAssertTrue(moved.tls.names.contains("10.0.0.7"))
        // Near its end (less than a day left), it is made again.
        let late = try ServerTLS.selfSigned(folder: kept, names: names + ["10.0.0.7"], now: Date(timeIntervalSinceNow: 365 * 86_400))
        XCTAssertTrue(late.created)
        XCTAssertEqual(ServerTLS.defaultSelfSignedFolder(environment: ["XDG_CONFIG_HOME": "/x"]).path, "/x/vision-tasks/tls")
    }

    func testPageOverHTTPSOnTheServersOwnPort() async throws {
        let chromium = try BrowserDemoTests.requireChromium()
        let work = try BrowserDemoTests.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let (tls, _) = try ServerTLS.selfSigned(folder: folder, names: ["demo.test", "127.0.0.1"])

        let plainPort = LiveStreamServer.freePort(), tlsPort = LiveStreamServer.freePort()
        var plain = try ServerFixture.configuration()
        plain.port = plainPort
        var secure = try ServerFixture.configuration()
        secure.port = tlsPort
        secure.tls = tls
        secure.allowedOrigins = ["https://demo.test:\(tlsPort)"]
        let servers = [try VisionServer(configuration: plain), try VisionServer(configuration: secure)]

        let flags = try TLSProxyBrowserTests.chromiumFlags(work: work)
        let ports = [PortBox(), PortBox()]
        let group = ServiceGroup(
            configuration: .init(
                services: zip(servers, ports).map { server, port in server.makeApplication { port.set($0) } },
                logger: servers[0].logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            defer { Task { await group.triggerGracefulShutdown() } }
            for port in ports { _ = try await port.wait() }

            // The certificate served is the one made (openssl's view of the handshake).
            let openssl = try TLSProxyBrowserTests.program("openssl", in: ["/usr/bin", "/usr/local/bin"], package: "openssl")
            let shown = try ChildProcess(
                executable: "/bin/sh",
                arguments: ["-c", "\(openssl) s_client -connect 127.0.0.1:\(tlsPort) -servername demo.test </dev/null 2>/dev/null | \(openssl) x509 -noout -fingerprint -sha256"],
                stdout: work.appendingPathComponent("fingerprint.txt").path, stderr: work.appendingPathComponent("fingerprint.err").path)
            XCTAssertEqual(shown.wait(seconds: 30), 0, shown.errorText())
            let fingerprint = (try? String(contentsOf: work.appendingPathComponent("fingerprint.txt"), encoding: .utf8)) ?? ""
            XCTAssertTrue(fingerprint.uppercased().contains(tls.fingerprint), "openssl saw \(fingerprint), the server says \(tls.fingerprint)")

            let browser = try ChromiumPage(
                chromium: chromium, work: work, url: "about:blank", camera: flags,
                home: try TLSProxyBrowserTests.trustingHome(folder.appendingPathComponent("self-signed-certificate.pem").path, in: work))
            defer { browser.close() }
            let report = try await DevTools.run(url: try await browser.debuggerURL()) { devtools in
                var figures: [String] = []
                for (name, url) in [("http://127.0.0.1", "http://127.0.0.1:\(plainPort)/"), ("https (the server's own TLS)", "https://demo.test:\(tlsPort)/")] {
                    figures.append(try await TLSProxyBrowserTests.swipeAndMeasure(&devtools, name: name, url: url))
                }
                let location = try await devtools.evaluate("location.protocol")
                XCTAssertEqual(location, "https:")
                return figures.joined(separator: "; ")
            }
            print("server tls: \(report)")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }
}
