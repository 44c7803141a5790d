import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

@testable import VisionTasksServer

/// The demo page's Teach panel in headless Chromium, its fake camera looping a clip of four
/// shared stills held for seven seconds each: a victory sign, a thumbs up and an OK sign (all
/// right hands), and a thumbs up from another photo made with a left hand, which the canned
/// classifier names Victory, Thumb_Up, None and Thumb_Up. The test records the first three while the page shows
/// their canned names, under new names ("hello", "yes" and "none"), through the panel's buttons;
/// trains; and then the live answers must carry the taught names, and no longer the canned
/// ones, as the clip goes on, and the fourth still, never taught, must be answered "yes". Then
/// the panel's Save bundle downloads the taught gestures as `mine.task` (Load bundle sends it
/// back under another name, and its gestures run), and the library's
/// `GestureRecognizer`, given that file, answers "yes" for the untaught photo. The page is kept
/// as `browser-teach.png` in `.build/test-artifacts/`.
final class TeachBrowserTests: XCTestCase {
    /// The clip's stills in order: the label they stand for, the canned classifier's name for
    /// them, and whether the test records them (the last one is only shown, never taught).
    /// "none" is taught from a right hand as the gestures are: taught from the left-handed call
    /// sign, the head may learn "a left hand is none" and answer so for the untaught thumbs up.
    static let segments = [
        (label: "hello", still: "hand_victory_right_01.jpg", canned: "Victory", taught: true),
        (label: "yes", still: "hand_thumb_up_left_01.jpg", canned: "Thumb_Up", taught: true),
        (label: "none", still: "hand_ok_sign_none_01.jpg", canned: "None", taught: true),
        (label: "yes", still: "hand_thumb_up_02_samples.jpg", canned: "Thumb_Up", taught: false),
    ]
    /// Answers in a row that make a run of the page's timeline count (shorter runs are the
    /// frames between two stills).
    static let minRun = 3

    /// What the page answered for the untaught still: in the page's timeline (runs of the same
    /// gesture since the training), the run that follows a run of "none", the still before it
    /// in the clip (the OK sign); nil until such a pair has been answered.
    static func answerAfterNone(_ timeline: [[String: Any]]) -> [String: Any]? {
        let runs = timeline.filter { ($0["count"] as? Int ?? 0) >= minRun && $0["gesture"] is String }
        for (run, next) in zip(runs, runs.dropFirst()) where run["gesture"] as? String == "none" {
            return next
        }
        return nil
    }
    /// Samples recorded per label before the test stops the recording; the panel stops by itself
    /// after `recordSeconds`, and the frame rate depends on the machine's load, so a label may
    /// end with fewer, but at least `minSamplesPerLabel`.
    static let samplesPerLabel = 40
    static let minSamplesPerLabel = 15
    /// The panel's recording time, within a segment of 7 s.
    static let recordSeconds = 5
    /// The panel's epochs: more than Model Maker's 10, so that a few dozen frames per label
    /// give the taught gestures scores well above the bundle's 0.5 threshold.
    static let epochs = 30

    /// The downloaded bundle (the browser writes it when the download ends: up to 10 s) holds
    /// the announced bytes, and the library's recognizer, given it, answers "yes" for the
    /// untaught thumbs up.
    static func checkSavedBundle(_ file: URL, bytes: Int?) throws {
        for _ in 0..<50 where (try? file.resourceValues(forKeys: [.fileSizeKey]).fileSize) != bytes {
            Thread.sleep(forTimeInterval: 0.2)
        }
        let size = try file.resourceValues(forKeys: [.fileSizeKey]).fileSize
        XCTAssertEqual(size, bytes, "the saved bundle's size")
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = file.path
        let recognizer = try GestureRecognizer(options: options)
        let unseen = try XCTUnwrap(segments.last)
        let result = try recognizer.recognize(image: try MPImage(contentsOfFile: try SharedTestData.file("media/\(unseen.still)").path))
        let top = result.gestures.first?.first
        XCTAssertEqual(top?.categoryName, unseen.label, "the saved bundle on \(unseen.still): \(result.gestures)")
        print("teach browser: the saved bundle (\(size ?? 0) bytes) on \(unseen.still): \(top?.categoryName ?? "no hand") \(top?.score ?? 0)")
    }

    func testTeachTwoGesturesAndNoneThenTheLiveAnswersCarryTheTaughtNames() async throws {
        let chromium = try BrowserDemoTests.requireChromium()
        let work = try BrowserDemoTests.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let clip = work.appendingPathComponent("teach.y4m")
        try Y4MClip.write(
            try Self.segments.map { (try SharedTestData.file("media/\($0.still)").path, 105) }, to: clip, width: 480, height: 360)

        let camera = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", "--use-file-for-fake-video-capture=\(clip.path)"]
        let started = ContinuousClock.now
        try await BrowserDemoTests.withDemoPage(chromium: chromium, work: work, camera: camera) { pageURL in
            let stateText = try await DevTools.run(url: pageURL) { devtools in
                var last = "{}"
                /// Polls the page's state until `condition` holds: up to 60 s.
                func waitFor(_ what: String, _ condition: ([String: Any]) -> Bool) async throws -> [String: Any] {
                    for _ in 0..<300 {
                        last = try await devtools.evaluate("JSON.stringify(window.visionTasksDemo)")
                        let state = try ServerFixture.json(last)
                        if condition(state) { return state }
                        try await Task.sleep(for: .milliseconds(200))
                    }
                    throw ServerFixture.TestFailure("the page never showed \(what); last state: \(last)")
                }
                func teach(_ state: [String: Any]) -> [String: Any] { state["teach"] as? [String: Any] ?? [:] }
                func click(_ id: String) async throws { _ = try await devtools.evaluate("document.getElementById('\(id)').click(), ''") }

                // The panel's fields once the page has loaded (an expression that throws reads as "{}").
                _ = try await waitFor("the page's teach panel") { $0["teach"] is [String: Any] }
                let fields = try await devtools.evaluate(
                    "document.getElementById('teach-seconds').value = '\(Self.recordSeconds)', document.getElementById('teach-epochs').value = '\(Self.epochs)', "
                        + "[document.getElementById('teach-seconds').value, document.getElementById('teach-epochs').value].join()")
                XCTAssertEqual(fields, "\(Self.recordSeconds),\(Self.epochs)", "the panel's seconds and epochs")
                for segment in Self.segments where segment.taught {
                    // The start of the segment: another gesture (or none) first, then this one.
                    _ = try await waitFor("a gesture other than \(segment.canned)") { teach($0)["gesture"] as? String != segment.canned }
                    _ = try await waitFor("\(segment.canned) from the camera") { teach($0)["gesture"] as? String == segment.canned }
                    if segment.label == "none" {
                        try await click("teach-record-none")
                    } else {
                        _ = try await devtools.evaluate("document.getElementById('teach-label').value = '\(segment.label)', ''")
                        try await click("teach-record")
                    }
                    _ = try await waitFor("the recording of \(segment.label)") { teach($0)["recording"] as? String == segment.label }
                    let recorded = try await waitFor("\(Self.samplesPerLabel) samples of \(segment.label), or the end of its recording") { state in
                        (teach(state)["samples"] as? [String: Int])?[segment.label] ?? 0 >= Self.samplesPerLabel
                            || teach(state)["recording"] is NSNull
                    }
                    try await click("teach-stop")
                    _ = try await waitFor("the recording of \(segment.label) stopped") { teach($0)["recording"] is NSNull }
                    XCTAssertEqual(teach(recorded)["gesture"] as? String, segment.canned, "still the same segment: \(recorded)")
                }
                try await click("teach-train")
                let trained = try await waitFor("a trained classifier") { teach($0)["trained"] is [String: Any] }
                XCTAssertEqual(teach(trained)["using"] as? String, "mine", "\(trained)")
                // The clip goes on: both taught gestures come back under their new names.
                let seen = try await waitFor("hello and yes in the live answers") { state in
                    let seen = teach(state)["seen"] as? [String: Int] ?? [:]
                    return seen["hello", default: 0] >= 3 && seen["yes", default: 0] >= 3
                }
                // The untaught thumbs up comes after the OK sign: its answer, whatever it is.
                let after = try await waitFor("the still after the OK sign") { state in
                    Self.answerAfterNone(teach(state)["timeline"] as? [[String: Any]] ?? []) != nil
                }
                let timeline = teach(after)["timeline"] as? [[String: Any]] ?? []
                let unseen = Self.answerAfterNone(timeline) ?? [:]
                XCTAssertEqual(unseen["gesture"] as? String, "yes", "the untaught thumbs up; the timeline: \(timeline)")
                print("teach browser: the untaught still answered \(unseen); timeline \(timeline)")
                // Save bundle: the browser's download lands in the work folder.
                _ = try await devtools.command("Page.setDownloadBehavior", ["behavior": "allow", "downloadPath": work.path])
                try await click("teach-download")
                let saved = try await waitFor("the bundle saved") { teach($0)["saved"] is [String: Any] }
                XCTAssertEqual((teach(saved)["saved"] as? [String: Any])?["name"] as? String, "mine", "\(saved)")
                // Load bundle: the saved file, renamed, goes back up and its gestures run.
                let savedFile = work.appendingPathComponent("mine.task"), again = work.appendingPathComponent("again.task")
                let savedBytes = (teach(saved)["saved"] as? [String: Any])?["bytes"] as? Int
                for _ in 0..<50 where (try? savedFile.resourceValues(forKeys: [.fileSizeKey]).fileSize) != savedBytes {
                    try await Task.sleep(for: .milliseconds(200))
                }
                try FileManager.default.copyItem(at: savedFile, to: again)
                // A setting changed just after the upload request, before the server's answer to
                // it (deterministically: in the same turn of the page's event loop): its options
                // message waits for the bundle's last part, the upload goes through and the
                // setting comes into force.
                _ = try await devtools.evaluate(
                    """
                    (() => {
                      const page = window.visionTasksPage, send = page.send;
                      page.send = (message) => {
                        const sent = send(message);
                        if (typeof message === 'string' && message.includes('"upload"')) {
                          page.send = send;
                          queueMicrotask(() => {
                            const slider = document.getElementById('set-detection');
                            slider.value = '0.45';
                            slider.dispatchEvent(new Event('change'));
                          });
                        }
                        return sent;
                      };
                    })(), ''
                    """)
                try await devtools.setFiles("#teach-upload-file", [again.path])
                let loaded = try await waitFor("the loaded bundle running") { teach($0)["using"] as? String == "again" }
                let changed = try await waitFor("the setting changed during the upload in force") { state in
                    abs(((state["settingsInForce"] as? [String: Any])?["minHandDetectionConfidence"] as? Double ?? 0) - 0.45) < 1e-4
                }
                XCTAssertEqual(teach(changed)["using"] as? String, "again", "the options message kept the loaded gestures: \(changed)")
                XCTAssertEqual((teach(loaded)["loaded"] as? [String: Any])?["labels"] as? [String], ["none", "hello", "yes"], "\(loaded)")
                XCTAssertEqual(teach(loaded)["models"] as? [String], ["again", "mine"], "\(loaded)")
                _ = try await waitFor("a taught gesture from the loaded bundle") { state in
                    let seen = teach(state)["seen"] as? [String: Int] ?? [:]
                    return seen["hello", default: 0] + seen["yes", default: 0] >= 2
                }
                // The screenshot shows the panel: what was taught, what runs, the last status.
                _ = try await devtools.evaluate("document.getElementById('teach-section').scrollIntoView(), ''")
                try await Task.sleep(for: .milliseconds(300))
                let png = try await devtools.screenshot()
                try FileManager.default.createDirectory(at: BrowserDemoTests.artifacts, withIntermediateDirectories: true)
                try png.write(to: BrowserDemoTests.artifacts.appendingPathComponent("browser-teach.png"))
                _ = seen
                return last
            }
            let state = try ServerFixture.json(stateText)
            let teach = state["teach"] as? [String: Any] ?? [:]
            let trained = teach["trained"] as? [String: Any] ?? [:]
            XCTAssertEqual(trained["labels"] as? [String], ["none", "hello", "yes"], "\(trained)")
            XCTAssertEqual(trained["epochs"] as? Int, Self.epochs, "the panel's epochs: \(trained)")
            XCTAssertGreaterThanOrEqual(trained["accuracy"] as? Double ?? 0, 0.9, "on the held-out frames: \(trained)")
            let samples = teach["samples"] as? [String: Int] ?? [:]
            for segment in Self.segments where segment.taught {
                XCTAssertGreaterThanOrEqual(samples[segment.label] ?? 0, Self.minSamplesPerLabel, "\(samples)")
            }
            // After training the renamed gestures are answered only by their taught names.
            let seen = teach["seen"] as? [String: Int] ?? [:]
            XCTAssertNil(seen["Victory"], "\(seen)")
            XCTAssertNil(seen["Thumb_Up"], "\(seen)")
            XCTAssertEqual((state["errors"] as? [Any])?.count, 0, "no error answers: \(state)")
            try Self.checkSavedBundle(work.appendingPathComponent("mine.task"), bytes: (teach["saved"] as? [String: Any])?["bytes"] as? Int)
            print("teach browser: trained \(trained), samples \(samples), seen \(seen)")
        }
        print("teach browser: \(ContinuousClock.now - started) from the clip to the end")
    }
}
