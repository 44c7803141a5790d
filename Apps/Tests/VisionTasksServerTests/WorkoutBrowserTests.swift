import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

@testable import VisionTasksServer

/// The demo page's workout in a real browser: headless Chromium whose fake camera plays a clip
/// made here from `video_pose_squats.mp4` (a standing frame held 4 s, a squat's bottom held 4 s,
/// then the whole video: two complete squats and a third it ends in, then it loops). The test
/// does what a person does: on the Pose tab it records "up" while the camera shows the standing
/// person and "down" while it shows the bottom (it reads which from the page's last pose, by
/// the rule `SquatCountingTests` labels frames with), starts counting, and waits for the count
/// drawn over the video to reach 2. Then it loads the recorded samples back as a CSV file under
/// other class names and counts again. The screenshot is kept in `.build/test-artifacts/`.
///
/// This checks the page and the session together (recording, the samples CSV the page writes,
/// the workout message, the count drawn); how well the classifier counts is
/// `SquatCountingTests`' subject, with samples from other squats than the ones counted.
final class WorkoutBrowserTests: XCTestCase {
    /// "up", "down" or "between" for the page's last pose (hips 0.145 of the image height above
    /// the knees or more: standing; 0.05 or less: the bottom), "none" without a pose.
    static let phase = """
        (() => { const p = window.visionTasksDemo.lastPose; if (!p) return 'none';
          const d = (p[25].y + p[26].y) / 2 - (p[23].y + p[24].y) / 2;
          return d >= 0.145 ? 'up' : d <= 0.05 ? 'down' : 'between'; })()
        """
    static let state = """
        JSON.stringify({ workout: window.visionTasksDemo.workout, errors: window.visionTasksDemo.errors,
          shown: document.getElementById('rep-count').textContent, answers: window.visionTasksDemo.answers })
        """

    func testThePageRecordsUpAndDownAndCountsSquats() async throws {
        let chromium = try BrowserDemoTests.requireChromium()
        let work = try BrowserDemoTests.workFolder()
        defer { try? FileManager.default.removeItem(at: work) }
        let reader = try VideoReader(path: SharedTestData.file("media/video_pose_squats.mp4").path)
        var frames: [PixelBuffer] = []
        while let frame = try reader.nextFrame() { frames.append(frame.image) }
        XCTAssertEqual(frames.count, 65)
        guard frames.count == 65 else { return }
        let clip = work.appendingPathComponent("squats.y4m")
        // 10 frames a second: the 5 fps video's frames twice each. 288x512 keeps its 9:16.
        try Y4MClip.write(
            images: [(frames[20], 40), (frames[10], 40)] + frames.map { ($0, 2) }, to: clip, width: 288, height: 512, fps: 10)

        let camera = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", "--use-file-for-fake-video-capture=\(clip.path)"]
        let artifacts = BrowserDemoTests.artifacts
        try await BrowserDemoTests.withDemoPage(chromium: chromium, work: work, camera: camera) { pageURL in
            let (recorded, countedText, loadedText) = try await DevTools.run(url: pageURL) { devtools in
                func poll(_ what: String, tries: Int = 120, every: Duration = .milliseconds(500), until done: ([String: Any]) -> Bool) async throws -> [String: Any] {
                    var state: [String: Any] = [:]
                    for _ in 0..<tries {
                        state = try ServerFixture.json(try await devtools.evaluate(Self.state))
                        if done(state) { return state }
                        try await Task.sleep(for: every)
                    }
                    throw ServerFixture.TestFailure("the page did not \(what): \(String(describing: state).prefix(2000))")
                }
                func workout(_ state: [String: Any]) -> [String: Any] { state["workout"] as? [String: Any] ?? [:] }
                func samples(_ state: [String: Any], _ kind: String) -> [String] {
                    (workout(state)["samples"] as? [String: Any])?[kind] as? [String] ?? []
                }

                _ = try await poll("connect", until: { ($0["answers"] as? Int ?? 0) > 0 })
                _ = try await devtools.evaluate("document.querySelector('input[name=view][value=pose]').click(), ''")
                var posed = false
                for _ in 0..<120 where !posed {
                    posed = try await devtools.evaluate(Self.phase) != "none"
                    try await Task.sleep(for: .milliseconds(250))
                }
                XCTAssertTrue(posed, "the Pose tab shows poses")

                // Record each position while the camera shows it: start once the page's pose is
                // in it, stop after 12 samples or when it leaves (the clip moves on).
                func record(_ kind: String) async throws -> Int {
                    var phases: [String: Int] = [:]
                    for _ in 0..<3 {
                        var seen = 0
                        for _ in 0..<300 where seen < 2 {
                            let phase = try await devtools.evaluate(Self.phase)
                            phases[phase, default: 0] += 1
                            seen = phase == kind ? seen + 1 : 0
                            try await Task.sleep(for: .milliseconds(100))
                        }
                        _ = try await devtools.evaluate("document.getElementById('record-\(kind)').click(), ''")
                        for _ in 0..<100 {
                            try await Task.sleep(for: .milliseconds(100))
                            let count = samples(try ServerFixture.json(try await devtools.evaluate(Self.state)), kind).count
                            let phase = try await devtools.evaluate(Self.phase)
                            if count >= 12 || phase != kind { break }
                        }
                        let state = try ServerFixture.json(try await devtools.evaluate(Self.state))
                        if workout(state)["recording"] as? String == kind {
                            _ = try await devtools.evaluate("document.getElementById('record-\(kind)').click(), ''")
                        }
                        let count = samples(try ServerFixture.json(try await devtools.evaluate(Self.state)), kind).count
                        if count >= 8 { return count }
                    }
                    let state = try await devtools.evaluate(Self.state)
                    throw ServerFixture.TestFailure(
                        "fewer than 8 \(kind) samples recorded in 3 tries; the page's poses were \(phases); the page: \(state.prefix(3000))")
                }
                _ = try await record("up")
                _ = try await record("down")
                let before = try ServerFixture.json(try await devtools.evaluate(Self.state))
                let csv = (samples(before, "up") + samples(before, "down")).map { $0 + "\n" }.joined()

                _ = try await devtools.evaluate("document.getElementById('count-start').click(), ''")
                _ = try await poll("start counting", until: { workout($0)["active"] as? Bool == true })
                _ = try await poll("count two squats", tries: 180, until: { (workout($0)["count"] as? Int ?? 0) >= 2 })
                try await Task.sleep(for: .milliseconds(300))
                let counted = try await devtools.evaluate(Self.state)
                let png = try await devtools.screenshot()
                try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
                try png.write(to: artifacts.appendingPathComponent("browser-workout.png"))

                // The samples again, from a CSV file under other class names.
                let renamed = csv.replacingOccurrences(of: ",squats_", with: ",deep_")
                let literal = String(decoding: try JSONEncoder().encode(renamed), as: UTF8.self)
                _ = try await devtools.evaluate(
                    "document.getElementById('count-stop').click(), window.visionTasksDemo.workout.samples = { up: [], down: [] }, "
                        + "loadSamples(new File([\(literal)], 'deep.csv')), ''")
                _ = try await poll("load the CSV", until: { (workout($0)["loaded"] as? [Any])?.count ?? 0 > 0 && workout($0)["active"] as? Bool == false })
                _ = try await devtools.evaluate("document.getElementById('count-start').click(), ''")
                _ = try await poll("count with the loaded samples", tries: 180, until: {
                    (workout($0)["countedClasses"] as? [String]) == ["deep_down"] && (workout($0)["count"] as? Int ?? 0) >= 1
                })
                return (csv, counted, try await devtools.evaluate(Self.state))
            }

            // The page's samples are ML Kit's CSV, of the two classes.
            let parsed = try PoseSample.samples(csv: Data(recorded.utf8))
            XCTAssertEqual(Set(parsed.map(\.className)), ["squats_up", "squats_down"])
            XCTAssertGreaterThanOrEqual(parsed.filter { $0.className == "squats_down" }.count, 8)
            XCTAssertGreaterThanOrEqual(parsed.filter { $0.className == "squats_up" }.count, 8)

            let counted = try ServerFixture.json(countedText), loaded = try ServerFixture.json(loadedText)
            let workout = counted["workout"] as? [String: Any] ?? [:]
            XCTAssertEqual(workout["countedClasses"] as? [String], ["squats_down"])
            let count = workout["count"] as? Int ?? 0
            XCTAssertGreaterThanOrEqual(count, 2)
            XCTAssertEqual(counted["shown"] as? String, String(count), "the count shown is the session's")
            let history = (workout["history"] as? [[String: Any]] ?? []).compactMap { $0["count"] as? Int }
            XCTAssertEqual(history, Array(1...max(1, history.count)), "one repetition at a time: \(history)")
            XCTAssertEqual((counted["errors"] as? [Any])?.count, 0, "no error answers: \(counted["errors"] ?? [])")
            XCTAssertEqual(((loaded["workout"] as? [String: Any])?["loaded"] as? [Any])?.count, parsed.count)
        }
    }
}
