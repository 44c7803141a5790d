import Foundation
import ServiceLifecycle
import TestSupport
import XCTest

@testable import VisionTasksServer

/// The page from another machine, as docs/server.md ("HTTPS for other machines") sets it up:
/// Debian's nginx on 127.0.0.1 terminates TLS (a certificate made here with openssl for the name
/// `demo.test`) and passes requests and the WebSocket upgrade to the server. Chromium maps
/// `demo.test` to 127.0.0.1 (`--host-resolver-rules`), so the name is not a loopback one to it.
/// Over `http://demo.test` the page gets no camera and says why; over `https://demo.test` through
/// nginx (the certificate trusted in a throwaway NSS database, as a person would add it) landmarks are
/// drawn and the thumbs up and thumbs down swipe two cards. The page's frame rate, the server's
/// time per frame and the time to the first landmarks are printed for `http://127.0.0.1` and for
/// the HTTPS proxy, on the same clip.
final class TLSProxyBrowserTests: XCTestCase {
    func testPageOverHTTPSThroughNginxHasTheCameraAndOverPlainHTTPSaysWhyNot() async throws {
        let chromium = try BrowserDemoTests.requireChromium()
        let nginx = try Self.program("nginx", in: ["/usr/sbin", "/usr/bin"], package: "nginx")
        let work = try BrowserDemoTests.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }

        // A certificate for demo.test, valid for a day.
        let (certificate, key) = try Self.opensslCertificate(name: "demo.test", alternativeNames: "DNS:demo.test", in: work)

        let serverPort = LiveStreamServer.freePort(), proxyPort = LiveStreamServer.freePort()
        let configurationFile = work.appendingPathComponent("nginx.conf")
        try Self.nginxConfiguration(proxyPort: proxyPort, serverPort: serverPort, certificate: certificate, key: key, work: work.path)
            .write(to: configurationFile, atomically: true, encoding: .utf8)
        let proxy = try ChildProcess(
            executable: nginx, arguments: ["-p", work.path, "-e", work.appendingPathComponent("nginx-error.log").path, "-c", configurationFile.path],
            stdout: work.appendingPathComponent("nginx.out").path, stderr: work.appendingPathComponent("nginx.err").path)
        defer { proxy.kill() }
        guard LiveStreamServer.waitUntilListening(tcpPort: proxyPort, seconds: 20) else {
            let log = (try? String(contentsOf: work.appendingPathComponent("nginx-error.log"), encoding: .utf8)) ?? ""
            throw ServerFixture.TestFailure("nginx did not listen on 127.0.0.1:\(proxyPort): \(proxy.errorText()) \(log)")
        }

        // The server accepts the names the browser uses for it (docs/server.md, "Host and Origin").
        var configuration = try ServerFixture.configuration()
        configuration.port = serverPort
        configuration.allowedOrigins = ["https://demo.test:\(proxyPort)", "http://demo.test:\(serverPort)"]
        let server = try VisionServer(configuration: configuration)
        let flags = try Self.chromiumFlags(work: work)

        let port = PortBox()
        let group = ServiceGroup(configuration: .init(services: [server.makeApplication { port.set($0) }], logger: server.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            defer { Task { await group.triggerGracefulShutdown() } }
            _ = try await port.wait()
            let browser = try ChromiumPage(
                chromium: chromium, work: work, url: "http://demo.test:\(serverPort)/", camera: flags,
                home: try Self.trustingHome(certificate, in: work))
            defer { browser.close() }
            let report = try await DevTools.run(url: try await browser.debuggerURL()) { devtools in
                // Plain HTTP on a name that is not a loopback one: no camera, and the page says why.
                let insecure = try await devtools.waitFor("the camera refused over plain HTTP", Self.pageState) {
                    ($0["demo"] as? [String: Any])?["connected"] as? Bool == true && !($0["message"] as? String ?? "").isEmpty
                }
                XCTAssertEqual(insecure["secure"] as? Bool, false)
                XCTAssertTrue((insecure["message"] as? String ?? "").contains("no camera access here"), "\(insecure)")
                XCTAssertTrue((insecure["message"] as? String ?? "").contains("https"), "the page names the fix: \(insecure)")

                // The same clip over http://127.0.0.1 (the camera allowed) and over HTTPS through nginx.
                var figures: [String] = []
                for (name, url) in [("http://127.0.0.1", "http://127.0.0.1:\(serverPort)/"), ("https via nginx", "https://demo.test:\(proxyPort)/")] {
                    figures.append(try await Self.swipeAndMeasure(&devtools, name: name, url: url))
                }
                try await devtools.keepScreenshot("browser-demo-https.png")
                return figures.joined(separator: "; ")
            }
            print("tls proxy: \(report)")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    /// Chromium's flags for these tests: a fake camera playing a clip of a thumbs up then a
    /// thumbs down (made in `work`), `demo.test` mapped to 127.0.0.1. Certificates are checked
    /// as usual: `trustingHome` adds the test's one to the browser's own database.
    static func chromiumFlags(work: URL) throws -> [String] {
        let clip = work.appendingPathComponent("thumbs.y4m")
        try Y4MClip.write(
            [
                (try SharedTestData.file("media/hand_thumb_up_left_01.jpg").path, 45),
                (try SharedTestData.file("media/hand_thumb_down_right_02_selfie.jpg").path, 45),
            ], to: clip)
        return [
            "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", "--use-file-for-fake-video-capture=\(clip.path)",
            "--host-resolver-rules=MAP demo.test 127.0.0.1",
        ]
    }

    /// A HOME for Chromium (in `work`) whose NSS database (`.pki/nssdb`, where Chromium on Linux
    /// keeps the certificates a user trusts) holds `certificate` (PEM) as trusted, made with
    /// NSS's certutil as a person would trust a self-signed certificate on a desktop.
    static func trustingHome(_ certificate: String, in work: URL) throws -> URL {
        let certutil = try program("certutil", in: ["/usr/bin", "/usr/local/bin"], package: "libnss3-tools")
        let home = work.appendingPathComponent("home")
        let database = home.appendingPathComponent(".pki/nssdb")
        try FileManager.default.createDirectory(at: database, withIntermediateDirectories: true)
        for arguments in [
            ["-N", "-d", "sql:\(database.path)", "--empty-password"],
            ["-A", "-d", "sql:\(database.path)", "-n", "vision-tasks-test", "-t", "CP,,", "-i", certificate],
        ] {
            let run = try ChildProcess(
                executable: certutil, arguments: arguments,
                stdout: work.appendingPathComponent("certutil.out").path, stderr: work.appendingPathComponent("certutil.err").path)
            guard run.wait(seconds: 60) == 0 else { throw ServerFixture.TestFailure("certutil \(arguments[0]): \(run.errorText())") }
        }
        return home
    }

    /// Opens `url` in the page and checks that it is a secure context, draws landmarks and that
    /// the clip's thumbs up and thumbs down swipe two cards (right and left, in either order); then measures (`measure`) and
    /// returns the figures, named `name`.
    static func swipeAndMeasure(_ devtools: inout DevTools, name: String, url: String) async throws -> String {
        _ = try await devtools.command("Page.navigate", ["url": url])
        try await Task.sleep(for: .milliseconds(500))
        let swiped = try await devtools.waitFor("two swipes over \(name)", pageState) {
            (($0["demo"] as? [String: Any])?["swipes"] as? [Any])?.count ?? 0 >= 2
        }
        XCTAssertEqual(swiped["secure"] as? Bool, true, "\(name) is a secure context")
        let demo = swiped["demo"] as? [String: Any] ?? [:]
        let swipes = demo["swipes"] as? [[String: Any]] ?? []
        // The fake camera loops the clip and a second page in the same browser starts wherever
        // the loop is, so the first swipe may be either gesture: each must swipe its own way.
        let firstTwo = swipes.prefix(2).map { [$0["source"] as? String, $0["direction"] as? String] }
        XCTAssertEqual(Set(firstTwo), [["thumbsUp", "right"], ["thumbsDown", "left"]], "\(name): \(swipes)")
        XCTAssertGreaterThan(demo["framesWithLandmarks"] as? Int ?? 0, 0, "\(name): landmarks drawn")
        XCTAssertEqual((demo["errors"] as? [Any])?.count, 0, "\(name): \(demo["errors"] ?? "")")
        return "\(name): " + (try await measure(&devtools, seconds: 8))
    }

    /// The page's state, its message and whether it is a secure context.
    static let pageState = """
        ({demo: window.visionTasksDemo, secure: window.isSecureContext,
          message: document.getElementById('message').hidden ? '' : document.getElementById('message').textContent})
        """

    /// Answers per second over `seconds`, the median server time of those answers, and the time
    /// from the page's start to its first landmarks.
    static func measure(_ devtools: inout DevTools, seconds: Int) async throws -> String {
        let sample = "({answers: window.visionTasksDemo.answers, times: window.visionTasksDemo.serverTimes.length, now: performance.now()})"
        let start = try await devtools.waitFor("a sample", sample) { _ in true }
        try await Task.sleep(for: .seconds(seconds))
        let state = try await devtools.waitFor("a sample", "({s: \(sample), d: window.visionTasksDemo})") { _ in true }
        let end = state["s"] as? [String: Any] ?? [:], demo = state["d"] as? [String: Any] ?? [:]
        let answers = (end["answers"] as? Int ?? 0) - (start["answers"] as? Int ?? 0)
        let elapsed = ((end["now"] as? Double ?? 0) - (start["now"] as? Double ?? 0)) / 1000
        let times = (demo["serverTimes"] as? [Double] ?? []).suffix(max(answers, 1)).sorted()
        let median = times.isEmpty ? 0 : times[times.count / 2]
        let first = demo["firstLandmarksMilliseconds"] as? Int ?? -1
        return String(format: "%.1f fps, server median %.1f ms, first landmarks %d ms", Double(answers) / max(elapsed, 0.001), median, first)
    }

    /// nginx in the foreground, one process, everything in `work`: TLS on 127.0.0.1:`proxyPort`,
    /// requests and WebSocket upgrades passed to 127.0.0.1:`serverPort`, as docs/server.md shows.
    static func nginxConfiguration(proxyPort: Int, serverPort: Int, certificate: String, key: String, work: String) -> String {
        """
        daemon off;
        master_process off;
        pid \(work)/nginx.pid;
        events { worker_connections 64; }
        http {
            access_log off;
            client_body_temp_path \(work)/client-body;
            proxy_temp_path \(work)/proxy;
            fastcgi_temp_path \(work)/fastcgi;
            uwsgi_temp_path \(work)/uwsgi;
            scgi_temp_path \(work)/scgi;
            map $http_upgrade $connection_upgrade { default upgrade; '' close; }
            server {
                listen 127.0.0.1:\(proxyPort) ssl;
                server_name demo.test;
                ssl_certificate \(certificate);
                ssl_certificate_key \(key);
                client_max_body_size 16m;
                location / {
                    proxy_pass http://127.0.0.1:\(serverPort);
                    proxy_http_version 1.1;
                    proxy_set_header Upgrade $http_upgrade;
                    proxy_set_header Connection $connection_upgrade;
                    proxy_set_header Host $host;
                    proxy_read_timeout 1h;
                    proxy_send_timeout 1h;
                }
            }
        }
        """
    }

    /// A self-signed RSA certificate and its unencrypted PKCS#8 key made by the openssl program in
    /// `folder` (`NAME.pem`, `NAME.key`), valid for `days`, for `alternativeNames` (openssl's
    /// subjectAltName syntax); returns their paths.
    static func opensslCertificate(name: String, alternativeNames: String, days: Int = 1, in folder: URL) throws -> (String, String) {
        let openssl = try program("openssl", in: ["/usr/bin", "/usr/local/bin"], package: "openssl")
        let certificate = folder.appendingPathComponent("\(name).pem").path, key = folder.appendingPathComponent("\(name).key").path
        let made = try ChildProcess(
            executable: openssl,
            arguments: ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", String(days), "-subj", "/CN=\(name)",
                        "-addext", "subjectAltName=\(alternativeNames)", "-keyout", key, "-out", certificate],
            stdout: folder.appendingPathComponent("openssl.out").path, stderr: folder.appendingPathComponent("openssl.err").path)
        XCTAssertEqual(made.wait(seconds: 60), 0, "openssl: \(made.errorText())")
        return (certificate, key)
    }

    /// A program's path; skipped with a message (failing under CI) when it is not installed.
    static func program(_ name: String, in folders: [String], package: String) throws -> String {
        for folder in folders where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
            return "\(folder)/\(name)"
        }
        throw SharedTestData.missing("\(name) is not installed (Debian: apt-get install \(package); scripts/test installs it)")
    }
}
