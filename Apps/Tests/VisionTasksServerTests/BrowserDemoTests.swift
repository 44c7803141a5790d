import Foundation
import NIOWebSocket
import ServiceLifecycle
import TestSupport
import XCTest

@testable import VisionTasksServer

/// The demo page in a real browser: headless Chromium with a fake camera playing a clip made
/// here from the shared stills (thumbs up held, then thumbs down), driven over the DevTools
/// protocol. The top card must go right on the thumbs up and left on the thumbs down, and
/// landmarks must be drawn. The page's screenshot is kept in `.build/test-artifacts/`.
final class BrowserDemoTests: XCTestCase {
    static let artifacts = SharedTestData.projectRoot.appendingPathComponent(".build/test-artifacts")

    func testCardsSwipeOnThumbsUpAndThumbsDown() async throws {
        let chromium = try Self.requireChromium()
        let work = try Self.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let clip = work.appendingPathComponent("thumbs.y4m")
        try Y4MClip.write(
            [
                (try SharedTestData.file("media/hand_thumb_up_left_01.jpg").path, 45),
                (try SharedTestData.file("media/hand_thumb_down_right_02_selfie.jpg").path, 45),
            ], to: clip)

        let camera = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", "--use-file-for-fake-video-capture=\(clip.path)"]
        try await Self.withDemoPage(chromium: chromium, work: work, camera: camera) { pageURL in
            let stateText = try await DevTools.run(url: pageURL) { devtools in
                // Up to 60 s for the page to connect, stream and swipe twice.
                var text = "{}"
                for _ in 0..<120 {
                    text = try await devtools.evaluate("JSON.stringify(window.visionTasksDemo)")
                    if (try ServerFixture.json(text)["swipes"] as? [Any])?.count ?? 0 >= 2 { break }
                    try await Task.sleep(for: .milliseconds(500))
                }
                // Let the last swipe's animation (0.45 s) finish, so the screenshot shows the page at rest.
                try await Task.sleep(for: .seconds(1))
                let png = try await devtools.screenshot()
                try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
                try png.write(to: Self.artifacts.appendingPathComponent("browser-demo.png"))
                return text
            }
            let state = try ServerFixture.json(stateText)
            let swipes = (state["swipes"] as? [[String: Any]]) ?? []
            XCTAssertGreaterThanOrEqual(swipes.count, 2, "page state: \(state)")
            if swipes.count >= 2 {
                XCTAssertEqual(swipes[0]["direction"] as? String, "right", "the thumbs up likes the top card: \(swipes)")
                XCTAssertEqual(swipes[0]["source"] as? String, "thumbsUp")
                XCTAssertEqual(swipes[0]["card"] as? String, "Coral")
                XCTAssertEqual(swipes[1]["direction"] as? String, "left", "the thumbs down passes the next card: \(swipes)")
                XCTAssertEqual(swipes[1]["source"] as? String, "thumbsDown")
                XCTAssertEqual(swipes[1]["card"] as? String, "Tangerine")
            }
            XCTAssertGreaterThan(state["framesWithLandmarks"] as? Int ?? 0, 0, "landmarks were drawn")
            XCTAssertEqual((state["errors"] as? [Any])?.count, 0, "no error answers: \(state)")
        }
    }

    /// A refused camera permission is said on the page; when the server drains (its sessions
    /// closed with 1001, going away) the page says so, and once a server listens on the port
    /// again the page reconnects by itself (counted in `reconnects`, its waits backing off),
    /// with the camera message still shown.
    func testPageSaysWhenTheCameraIsRefusedAndReconnectsWhenTheServerComesBack() async throws {
        let chromium = try Self.requireChromium()
        let work = try Self.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }

        // The first server takes any free port; the second one listens on the same port.
        let first = try VisionServer(configuration: ServerFixture.configuration())
        let port = PortBox()
        // With its drain, as `vision-tasks serve` runs it: the page's session gets 1001.
        let firstGroup = first.makeServiceGroup { port.set($0) }
        let firstRun = Task { try await firstGroup.run() }
        let bound = try await port.wait()

        // No --use-fake-ui-for-media-stream: headless Chromium refuses the permission prompt.
        let browser = try ChromiumPage(
            chromium: chromium, work: work, url: "http://127.0.0.1:\(bound)/",
            camera: ["--use-fake-device-for-media-stream", "--deny-permission-prompts"])
        defer { browser.close() }
        let pageURL = try await browser.debuggerURL()
        let pageState = "JSON.stringify({demo: window.visionTasksDemo, message: document.getElementById('message').hidden ? '' : document.getElementById('message').textContent})"
        _ = try await DevTools.run(url: pageURL) { devtools in
            func waitFor(_ what: String, _ condition: ([String: Any], String) -> Bool) async throws -> String {
                var last = "{}"
                for _ in 0..<120 {  // up to 60 s
                    last = try await devtools.evaluate(pageState)
                    let state = try ServerFixture.json(last)
                    if condition(state["demo"] as? [String: Any] ?? [:], state["message"] as? String ?? "") { return last }
                    try await Task.sleep(for: .milliseconds(500))
                }
                throw ServerFixture.TestFailure("the page never showed \(what); last state: \(last)")
            }
            _ = try await waitFor("the refused camera while connected") { demo, message in
                demo["connected"] as? Bool == true && message.contains("Camera permission was refused")
            }
            await firstGroup.triggerGracefulShutdown()
            try await firstRun.value
            _ = try await waitFor("that the server went away") { demo, message in
                demo["connected"] as? Bool == false && message.contains("The server went away")
            }

            var configuration = try ServerFixture.configuration()
            configuration.port = bound
            let second = try VisionServer(configuration: configuration)
            let secondGroup = ServiceGroup(configuration: .init(services: [second.makeApplication()], logger: second.logger))
            let secondRun = Task { try await secondGroup.run() }
            let back = try await waitFor("a new connection") { demo, message in
                demo["connected"] as? Bool == true && message.contains("Camera permission was refused")
            }
            let demo = try ServerFixture.json(back)["demo"] as? [String: Any] ?? [:]
            XCTAssertGreaterThanOrEqual(demo["disconnects"] as? Int ?? 0, 1)
            XCTAssertGreaterThanOrEqual(demo["reconnects"] as? Int ?? 0, 1)
            let closes = demo["closes"] as? [[String: Any]] ?? []
            XCTAssertEqual(closes.first?["code"] as? Int, 1001, "the drain closes the page's session with 1001: \(closes)")
            XCTAssertEqual(closes.first?["reason"] as? String, "server shutting down")
            // While no server listened, each wait was the one before doubled (±30 %), at most 5 s × 1.3.
            let waits = closes.compactMap { $0["wait"] as? Int }
            XCTAssertTrue(waits.allSatisfy { $0 <= 6500 }, "\(waits)")
            if waits.count >= 2 { XCTAssertLessThan(waits[0], 250 * 13 / 10 + 1, "\(waits)") }
            await secondGroup.triggerGracefulShutdown()
            try await secondRun.value
            return true
        }
    }

    /// Chromium with no camera at all (its fake capture with no device): the page says that no
    /// camera was found and stays usable by hand. Like, Nope and Reset are clicked through the
    /// DevTools protocol and the card stack is read back after each click. The page is kept as
    /// `browser-demo-no-camera.png` beside the other screenshot.
    func testButtonsAndResetWorkWithoutACamera() async throws {
        let chromium = try Self.requireChromium()
        let work = try Self.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let camera = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream=device-count=0"]
        try await Self.withDemoPage(chromium: chromium, work: work, camera: camera) { pageURL in
            _ = try await DevTools.run(url: pageURL) { devtools in
                // Per card, in stack order: its name and whether it was liked, passed or is still
                // in the stack; the tallies; the page's message.
                let stack = """
                    JSON.stringify({cards: [...document.querySelectorAll('#deck .card')].map((c) => c.dataset.name + ':' +
                      (c.classList.contains('like') ? 'like' : c.classList.contains('nope') ? 'nope' : 'stack')),
                      liked: document.getElementById('liked').textContent, passed: document.getElementById('passed').textContent,
                      sources: window.visionTasksDemo.swipes.map((s) => s.source), connected: window.visionTasksDemo.connected,
                      empty: !document.getElementById('deck-empty').hidden,
                      message: document.getElementById('message').hidden ? '' : document.getElementById('message').textContent})
                    """
                var state: [String: Any] = [:]
                for _ in 0..<120 {  // up to 60 s
                    state = try ServerFixture.json(try await devtools.evaluate(stack))
                    if state["connected"] as? Bool == true, (state["message"] as? String ?? "").contains("No camera found") { break }
                    try await Task.sleep(for: .milliseconds(500))
                }
                XCTAssertTrue((state["message"] as? String ?? "").contains("No camera found"), "the page's message: \(state)")
                XCTAssertEqual(state["connected"] as? Bool, true, "\(state)")
                let names = ["Coral", "Tangerine", "Sunflower", "Mint", "Ocean", "Violet"]
                XCTAssertEqual(state["cards"] as? [String], names.map { "\($0):stack" })

                func click(_ button: String) async throws -> [String: Any] {
                    _ = try await devtools.evaluate("document.getElementById('\(button)').click(), ''")
                    return try ServerFixture.json(try await devtools.evaluate(stack))
                }
                var after = try await click("like")
                XCTAssertEqual(after["cards"] as? [String], ["Coral:like"] + names.dropFirst().map { "\($0):stack" })
                XCTAssertEqual(after["liked"] as? String, "1")
                after = try await click("nope")
                XCTAssertEqual((after["cards"] as? [String])?.prefix(3), ["Coral:like", "Tangerine:nope", "Sunflower:stack"])
                XCTAssertEqual([after["liked"] as? String, after["passed"] as? String], ["1", "1"])
                for button in ["like", "like", "nope", "like"] { after = try await click(button) }
                XCTAssertEqual(
                    after["cards"] as? [String],
                    ["Coral:like", "Tangerine:nope", "Sunflower:like", "Mint:like", "Ocean:nope", "Violet:like"])
                XCTAssertEqual(after["empty"] as? Bool, true, "the empty stack says so and offers to deal again")
                // An empty stack: one more click changes nothing.
                after = try await click("nope")
                XCTAssertEqual([after["liked"] as? String, after["passed"] as? String], ["4", "2"])
                XCTAssertEqual(after["sources"] as? [String], Array(repeating: "button", count: 6))
                // Reset: the six cards back in the stack, in order, tallies at 0; swiping starts
                // again from the top card.
                after = try await click("reset")
                XCTAssertEqual(after["cards"] as? [String], names.map { "\($0):stack" })
                XCTAssertEqual(after["empty"] as? Bool, false)
                XCTAssertEqual([after["liked"] as? String, after["passed"] as? String], ["0", "0"])
                after = try await click("nope")
                XCTAssertEqual((after["cards"] as? [String])?.prefix(2), ["Coral:nope", "Tangerine:stack"])
                XCTAssertEqual(after["passed"] as? String, "1")

                try await Task.sleep(for: .seconds(1))  // the swipe's animation (0.45 s)
                let png = try await devtools.screenshot()
                try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
                try png.write(to: Self.artifacts.appendingPathComponent("browser-demo-no-camera.png"))
                return true
            }
        }
    }

    /// Serves the demo page on a free port of 127.0.0.1, opens it in headless Chromium started
    /// with `camera`'s flags, runs `body` with the page's DevTools URL, then closes the browser
    /// and stops the server.
    static func withDemoPage(chromium: String, work: URL, camera: [String],
                             _ body: @escaping (String) async throws -> Void) async throws {
        let server = try ServerFixture.server()
        let port = PortBox()
        let group = ServiceGroup(configuration: .init(services: [server.makeApplication { port.set($0) }], logger: server.logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            defer { Task { await group.triggerGracefulShutdown() } }
            let bound = try await port.wait()
            let browser = try ChromiumPage(chromium: chromium, work: work, url: "http://127.0.0.1:\(bound)/", camera: camera)
            defer { browser.close() }
            try await body(try await browser.debuggerURL())
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    static func requireChromium() throws -> String {
        guard let chromium = findChromium() else {
            let message = "chromium is not installed (scripts/test installs it)"
            if SharedTestData.isCI { throw ServerFixture.TestFailure(message) }
            throw XCTSkip(message)
        }
        return chromium
    }

    static func workFolder() throws -> URL {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("vision-tasks-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        return work
    }

    static func findChromium() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for dir in path.split(separator: ":") {
                let candidate = "\(dir)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        return nil
    }
}

/// Headless Chromium showing one page, with a DevTools port to drive it.
final class ChromiumPage {
    let process = Process()
    let profile: URL
    let log: URL
    let logHandle: FileHandle

    /// Starts Chromium on `url`; `camera` are the media-stream flags (fake camera, permissions).
    /// `home`, when given, is Chromium's HOME: its `.pki/nssdb` is the certificate database it
    /// trusts (`TLSProxyBrowserTests.trustingHome`).
    init(chromium: String, work: URL, url: String, camera: [String], home: URL? = nil) throws {
        profile = work.appendingPathComponent("profile")
        log = work.appendingPathComponent("chromium.log")
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
        ] + camera + [
            "--remote-debugging-port=0", "--remote-allow-origins=*", "--user-data-dir=\(profile.path)",
            "--window-size=1280,900", url,
        ]
        if let home {
            var environment = ProcessInfo.processInfo.environment
            environment["HOME"] = home.path
            process.environment = environment
        }
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        logHandle = try FileHandle(forWritingTo: log)
        process.standardOutput = logHandle
        process.standardError = logHandle
        try process.run()
    }

    func close() {
        process.terminate()
        process.waitUntilExit()
        try? logHandle.close()
    }

    /// The page's DevTools WebSocket URL, once Chromium has written its port and opened the page.
    func debuggerURL() async throws -> String {
        for _ in 0..<200 {
            if let text = try? String(contentsOf: profile.appendingPathComponent("DevToolsActivePort"), encoding: .utf8),
                let port = text.split(separator: "\n").first.flatMap({ Int($0) }),
                let data = try? RawClient.get(port: port, path: "/json/list"),
                let targets = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]],
                let page = targets.first(where: { $0["type"] as? String == "page" }),
                let url = page["webSocketDebuggerUrl"] as? String
            {
                return url
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        let files = (try? FileManager.default.contentsOfDirectory(atPath: profile.path)) ?? []
        throw ServerFixture.TestFailure(
            "Chromium's DevTools did not start; running: \(process.isRunning); profile: \(files); Chromium said:\n\(output.suffix(3000))")
    }
}

/// A minimal DevTools protocol client over `LiveClient`: commands with ids, answers matched by id.
struct DevTools {
    let client: LiveClient
    var nextID = 1

    /// Connects to a page's `ws://127.0.0.1:PORT/devtools/page/ID`, runs `body`, closes.
    static func run<T: Sendable>(url: String, _ body: @escaping @Sendable (inout DevTools) async throws -> T) async throws -> T {
        guard let parts = URLComponents(string: url), let port = parts.port, parts.host == "127.0.0.1" else {
            throw ServerFixture.TestFailure("not a local DevTools address: \(url)")
        }
        let client = try await offThePool { try LiveClient(port: port, path: parts.percentEncodedPath, receiveTimeout: 120) }
        var devtools = DevTools(client: client)
        do {
            let value = try await body(&devtools)
            try await client.close(.normalClosure, reason: nil)
            client.abort()
            return value
        } catch {
            client.abort()
            throw error
        }
    }

    mutating func command(_ method: String, _ params: [String: Any]) async throws -> [String: Any] {
        let id = nextID
        nextID += 1
        let data = try JSONSerialization.data(withJSONObject: ["id": id, "method": method, "params": params])
        try await client.write(.text(String(decoding: data, as: UTF8.self)))
        while let received = try await client.next() {
            guard case .text(let text) = received else { continue }
            let message = try ServerFixture.json(text)
            if message["id"] as? Int == id {
                if let error = message["error"] { throw ServerFixture.TestFailure("DevTools \(method): \(error)") }
                return message["result"] as? [String: Any] ?? [:]
            }
        }
        throw ServerFixture.TestFailure("DevTools closed")
    }

    /// Evaluates an expression that returns a string (e.g. JSON.stringify(...)).
    mutating func evaluate(_ expression: String) async throws -> String {
        let result = try await command("Runtime.evaluate", ["expression": expression, "returnByValue": true])
        return (result["result"] as? [String: Any])?["value"] as? String ?? "{}"
    }

    mutating func screenshot() async throws -> Data {
        let result = try await command("Page.captureScreenshot", ["format": "png"])
        guard let base64 = result["data"] as? String, let png = Data(base64Encoded: base64) else {
            throw ServerFixture.TestFailure("no screenshot")
        }
        return png
    }
}

final class ResultBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var _value: T?
    var value: T? {
        get { lock.withLock { _value } }
        set { lock.withLock { _value = newValue } }
    }
}
