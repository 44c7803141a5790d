import Foundation
import TestSupport
import XCTest

@testable import VisionTasksServer

/// The demo page's other sources and its Settings panel, in headless Chromium with no camera:
/// a video file chosen in the page plays there and its frames go through the live session; a
/// photo file is answered once over HTTP in image mode; a settings change reaches the session at
/// once (two hands found after `numHands` 2 on a two-hand clip; a pose photo's mask drawn after
/// segmentation masks are turned on). The photo test runs on a phone's screen (390 × 844, touch). Screenshots are kept beside the others in `.build/test-artifacts/`.
final class PageSourcesBrowserTests: XCTestCase {
    static let noCamera = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream=device-count=0"]

    func testVideoFilePlaysThroughTheSessionAndTwoHandsAfterNumHandsTwo() async throws {
        let chromium = try BrowserDemoTests.requireChromium()
        let work = try BrowserDemoTests.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        // A WebM (VP8) clip of the two-hand photo, 20 s, made with the ffmpeg program from a
        // Y4M clip of the still (MediaPipe finds two hands in it).
        let y4m = work.appendingPathComponent("two-hands.y4m"), webm = work.appendingPathComponent("two-hands.webm")
        try Y4MClip.write([(try SharedTestData.file("media/hands_two_open_palm_and_hanging.jpg").path, 300)], to: y4m)
        let ffmpeg = try ChildProcess(
            executable: try LiveStreamServer.ffmpeg(),
            arguments: ["-nostdin", "-loglevel", "error", "-y", "-i", y4m.path, "-c:v", "libvpx", "-b:v", "2M", webm.path],
            stdout: work.appendingPathComponent("ffmpeg.out").path, stderr: work.appendingPathComponent("ffmpeg.err").path)
        XCTAssertEqual(ffmpeg.wait(seconds: 120), 0, "ffmpeg: \(ffmpeg.errorText())")

        try await BrowserDemoTests.withDemoPage(chromium: chromium, work: work, camera: Self.noCamera) { pageURL in
            let stateText = try await DevTools.run(url: pageURL) { devtools in
                _ = try await devtools.waitFor("a connected session", "window.visionTasksDemo") { $0["connected"] as? Bool == true }
                try await devtools.setFiles("#media-file", [webm.path])
                // With the default numHands 1: 10 answers, each with one hand.
                let one = try await devtools.waitFor("10 answers with one hand", "window.visionTasksDemo") {
                    ($0["peopleSeen"] as? [String: Any])?["1"] as? Int ?? 0 >= 10
                }
                XCTAssertEqual((one["source"] as? [String: Any])?["kind"] as? String, "video")
                XCTAssertEqual((one["source"] as? [String: Any])?["name"] as? String, "two-hands.webm")
                XCTAssertNil((one["peopleSeen"] as? [String: Any])?["2"], "numHands 1 finds one hand: \(one)")
                XCTAssertEqual(one["cameraProblem"] as? String ?? "", "", "the file replaced the missing camera")

                _ = try await devtools.evaluate(
                    "(() => { const s = document.getElementById('set-count'); s.value = '2'; s.dispatchEvent(new Event('change')); return ''; })()")
                let two = try await devtools.waitFor("10 answers with two hands", "window.visionTasksDemo") {
                    ($0["peopleSeen"] as? [String: Any])?["2"] as? Int ?? 0 >= 10
                }
                XCTAssertEqual((two["settingsInForce"] as? [String: Any])?["numHands"] as? Int, 2, "the session's ready answer")
                XCTAssertEqual(((two["settings"] as? [String: Any])?["hands"] as? [String: Any])?["numHands"] as? Int, 2)
                try await Task.sleep(for: .seconds(1))
                try await devtools.keepScreenshot("browser-demo-video-file.png")
                return try await devtools.evaluate("JSON.stringify(window.visionTasksDemo)")
            }
            let state = try ServerFixture.json(stateText)
            XCTAssertEqual((state["errors"] as? [Any])?.count, 0, "no error answers: \(state)")
            XCTAssertNotNil(state["firstLandmarksMilliseconds"] as? Int, "the time to the first landmarks is kept")
        }
    }

    func testPhotoFileIsAnsweredInImageModeOnAPhoneScreen() async throws {
        let chromium = try BrowserDemoTests.requireChromium()
        let work = try BrowserDemoTests.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let thumbsUp = try SharedTestData.file("media/hand_thumb_up_left_01.jpg").path
        let yoga = try SharedTestData.file("media/pose_fullbody_yoga_warrior.jpg").path

        try await BrowserDemoTests.withDemoPage(chromium: chromium, work: work, camera: Self.noCamera) { pageURL in
            _ = try await DevTools.run(url: pageURL) { devtools in
                _ = try await devtools.command(
                    "Emulation.setDeviceMetricsOverride", ["width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": true])
                _ = try await devtools.command("Emulation.setTouchEmulationEnabled", ["enabled": true])
                _ = try await devtools.waitFor("a connected session", "window.visionTasksDemo") { $0["connected"] as? Bool == true }
                try await devtools.setFiles("#media-file", [thumbsUp])
                let gesture = try await devtools.waitFor("the photo's answer", "window.visionTasksDemo") { $0["photo"] is [String: Any] }
                let photo = gesture["photo"] as? [String: Any] ?? [:]
                XCTAssertNil(photo["error"], "\(photo)")
                XCTAssertEqual(photo["task"] as? String, "gesture")
                XCTAssertEqual(photo["people"] as? Int, 1, "\(photo)")
                XCTAssertEqual(photo["gestures"] as? [String], ["Thumb_Up"], "\(photo)")
                XCTAssertEqual((gesture["source"] as? [String: Any])?["kind"] as? String, "photo")

                // The Pose view asks again for a photo of a person, in image mode with the pose options.
                _ = try await devtools.evaluate("document.querySelector('input[name=view][value=pose]').click(), ''")
                try await devtools.setFiles("#media-file", [yoga])
                let pose = try await devtools.waitFor("the pose photo's answer", "window.visionTasksDemo") {
                    ($0["photo"] as? [String: Any])?["task"] as? String == "pose"
                }
                XCTAssertEqual((pose["photo"] as? [String: Any])?["people"] as? Int, 1, "\(pose)")
                let label = try await devtools.evaluate("document.getElementById('people-label').textContent")
                XCTAssertEqual(label, "poses")
                // Segmentation masks on in the panel: the photo is asked again and its mask drawn.
                _ = try await devtools.evaluate("document.getElementById('set-masks').click(), ''")
                let masked = try await devtools.waitFor("the photo's mask", "window.visionTasksDemo") {
                    (($0["photo"] as? [String: Any])?["masks"] as? [Any])?.isEmpty == false
                }
                let means = (masked["photo"] as? [String: Any])?["masks"] as? [Double] ?? []
                XCTAssertEqual(means.count, 1, "\(masked)")
                // The person covers part of the photo: neither none of it nor all.
                XCTAssertTrue(means.allSatisfy { $0 > 0.01 && $0 < 0.9 }, "mask means \(means)")
                XCTAssertGreaterThanOrEqual(masked["masksDrawn"] as? Int ?? 0, 1)
                XCTAssertEqual(((masked["settings"] as? [String: Any])?["pose"] as? [String: Any])?["segmentationMasks"] as? Bool, true)
                // One column on the phone: nothing wider than its screen.
                let width = try await devtools.evaluate("String(document.documentElement.scrollWidth)")
                XCTAssertLessThanOrEqual(Int(width) ?? .max, 390, "the page fits a 390-pixel screen")
                try await Task.sleep(for: .milliseconds(500))
                try await devtools.keepScreenshot("browser-demo-phone.png")
                return true
            }
        }
    }
}

extension DevTools {
    /// Polls `expression`'s JSON (up to 60 s) until `condition` holds for it; returns it.
    mutating func waitFor(_ what: String, _ expression: String, _ condition: ([String: Any]) -> Bool) async throws -> [String: Any] {
        var last: [String: Any] = [:]
        for _ in 0..<120 {
            last = try ServerFixture.json(try await evaluate("JSON.stringify(\(expression))"))
            if condition(last) { return last }
            try await Task.sleep(for: .milliseconds(500))
        }
        throw ServerFixture.TestFailure("the page never showed \(what); last state: \(last)")
    }

    /// Chooses `paths` in the file input `selector`, as a person picking files would (the page
    /// hears its change event).
    mutating func setFiles(_ selector: String, _ paths: [String]) async throws {
        let document = try await command("DOM.getDocument", [:])
        guard let root = (document["root"] as? [String: Any])?["nodeId"] as? Int else {
            throw ServerFixture.TestFailure("DevTools gave no document")
        }
        let node = try await command("DOM.querySelector", ["nodeId": root, "selector": selector])
        guard let id = node["nodeId"] as? Int, id != 0 else { throw ServerFixture.TestFailure("no \(selector) on the page") }
        _ = try await command("DOM.setFileInputFiles", ["files": paths, "nodeId": id])
    }

    /// Keeps the page's screenshot as `name` in `.build/test-artifacts/`.
    mutating func keepScreenshot(_ name: String) async throws {
        let png = try await screenshot()
        try FileManager.default.createDirectory(at: BrowserDemoTests.artifacts, withIntermediateDirectories: true)
        try png.write(to: BrowserDemoTests.artifacts.appendingPathComponent(name))
    }
}
