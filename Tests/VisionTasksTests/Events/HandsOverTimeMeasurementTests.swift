import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

/// Identifier stability, smoothing jitter and lag, and the events fired on every shared video
/// (docs/hands-over-time.md quotes the figures these print). Each test asserts what must hold
/// (no identifier swaps; smoothing lowers jitter; no events where nobody gestures).
final class HandsOverTimeMeasurementTests: XCTestCase {
    private struct ReferenceLine: Decodable {
        var frame: Int
        var gesture: GestureRecognizerResult
        var pose: ReferencePose
    }

    private struct ReferencePose: Decodable {
        var landmarks: [[NormalizedLandmark]]
    }

    private func recognizer(numHands: Int = 2, smoothing: HandLandmarkSmoothing? = nil) throws -> GestureRecognizer {
        let o = GestureRecognizerOptions()
        o.baseOptions.modelAssetPath = try SharedTestData.installedModel("gesture_recognizer.task").path
        o.runningMode = .video
        o.numHands = numHands
        o.landmarkSmoothing = smoothing
        return try GestureRecognizer(options: o)
    }

    /// For each pair of consecutive frames, the nearest-neighbour matching of `points` (each
    /// object in the earlier frame to the closest in the later one; only when both frames have
    /// two or more objects and the matching is one-to-one).
    private static func nearestMatches(_ a: [(Float, Float)], _ b: [(Float, Float)]) -> [Int: Int]? {
        var match: [Int: Int] = [:]
        for (i, p) in a.enumerated() {
            guard let j = b.indices.min(by: { hypotf(b[$0].0 - p.0, b[$0].1 - p.1) < hypotf(b[$1].0 - p.0, b[$1].1 - p.1) })
            else { return nil }
            match[i] = j
        }
        return Set(match.values).count == match.count ? match : nil
    }

    /// Counts, over consecutive frames with two or more objects in both: identifier swaps
    /// against nearest-point association, order changes of the lists, and identifier changes.
    private static func stability(points: [[(Float, Float)]], ids: [[Int]]) -> (pairs: Int, swaps: Int, orderChanges: Int, newIDs: Int) {
        var pairs = 0, swaps = 0, orderChanges = 0, newIDs = 0
        for t in 1..<points.count where points[t - 1].count >= 2 && points[t].count >= 2 {
            guard let match = nearestMatches(points[t - 1], points[t]) else { continue }
            pairs += 1
            if match.contains(where: { $0.key != $0.value }) { orderChanges += 1 }
            guard ids.count == points.count, ids[t - 1].count == points[t - 1].count, ids[t].count == points[t].count
            else { continue }
            for (i, j) in match {
                let before = ids[t - 1][i], after = ids[t][j]
                if before == after { continue }
                if ids[t - 1].contains(after) { swaps += 1 } else { newIDs += 1 }
            }
        }
        return (pairs, swaps, orderChanges, newIDs)
    }

    private func handLandmarker(_ mode: RunningMode = .video) throws -> HandLandmarker {
        let o = HandLandmarkerOptions()
        o.baseOptions.modelAssetPath = try SharedTestData.installedModel("hand_landmarker.task").path
        o.runningMode = mode
        o.numHands = 2
        return try HandLandmarker(options: o)
    }

    /// Both hand tasks (`GestureRecognizer` and `HandLandmarker` track hands the same way):
    /// no swaps on the videos with two hands; in image mode no identifiers.
    func testHandIdentifiersNeverSwapOnTheTwoHandVideos() throws {
        var videosWithTwoHands = 0
        for video in try ReferenceMedia.videos() {
            let reference = try video.frames(as: ReferenceLine.self)
            let wrists = reference.map { $0.gesture.landmarks.map { ($0[0].x, $0[0].y) } }
            guard wrists.contains(where: { $0.count >= 2 }) else { continue }
            videosWithTwoHands += 1
            let mediapipe = Self.stability(points: wrists, ids: [])
            let recognizer = try recognizer()
            let landmarker = try handLandmarker()
            let reader = try VideoReader(path: video.mediaFile.path)
            var ours: [[(Float, Float)]] = [], ids: [[Int]] = []
            var landmarkerWrists: [[(Float, Float)]] = [], landmarkerIDs: [[Int]] = []
            while let frame = try reader.nextFrame() {
                let image = MPImage(pixelBuffer: frame.image)
                let r = try recognizer.recognize(videoFrame: image, timestampInMilliseconds: frame.timestampInMilliseconds)
                XCTAssertEqual(r.handIdentifiers.count, r.landmarks.count)
                ours.append(r.landmarks.map { ($0[0].x, $0[0].y) })
                ids.append(r.handIdentifiers)
                let h = try landmarker.detect(videoFrame: image, timestampInMilliseconds: frame.timestampInMilliseconds)
                XCTAssertEqual(h.handIdentifiers.count, h.landmarks.count)
                landmarkerWrists.append(h.landmarks.map { ($0[0].x, $0[0].y) })
                landmarkerIDs.append(h.handIdentifiers)
            }
            let s = Self.stability(points: ours, ids: ids)
            let l = Self.stability(points: landmarkerWrists, ids: landmarkerIDs)
            print(
                "hand ids \(video.name): \(ours.count) frames, \(s.pairs) consecutive two-hand pairs; swaps \(s.swaps), new ids on a matched hand \(s.newIDs), distinct ids \(Set(ids.joined()).count); list order changes: ours \(s.orderChanges), MediaPipe \(mediapipe.orderChanges) of \(mediapipe.pairs); HandLandmarker: \(l.pairs) pairs, swaps \(l.swaps), new ids on a matched hand \(l.newIDs), distinct ids \(Set(landmarkerIDs.joined()).count)")
            XCTAssertEqual(s.swaps, 0, video.name)
            XCTAssertEqual(l.swaps, 0, "HandLandmarker \(video.name)")
            XCTAssertEqual(l.pairs, s.pairs, "HandLandmarker \(video.name): the same two-hand frames")
        }
        XCTAssertGreaterThan(videosWithTwoHands, 0, "a shared video with two hands")
        // Image mode has no identifiers: images are independent.
        let still = try MPImage(contentsOf: SharedTestData.file("reference/hands_two_open_palm_and_hanging.pixels.png"))
        let imageRecognizer: GestureRecognizer = try {
            let o = GestureRecognizerOptions()
            o.baseOptions.modelAssetPath = try SharedTestData.installedModel("gesture_recognizer.task").path
            o.numHands = 2
            return try GestureRecognizer(options: o)
        }()
        let gestures = try imageRecognizer.recognize(image: still)
        XCTAssertEqual(gestures.landmarks.count, 2)
        XCTAssertEqual(gestures.handIdentifiers, [])
        let hands = try handLandmarker(.image).detect(image: still)
        XCTAssertEqual(hands.landmarks.count, 2)
        XCTAssertEqual(hands.handIdentifiers, [])
    }

    func testPoseIdentifiersStayOnThePersonTheyTrack() throws {
        // The shared videos show one person each: two of them side by side make a two-person
        // clip (frames of the shorter video end the clip).
        let videos = try ReferenceMedia.videos()
        guard let a = videos.first(where: { $0.name == "video_pose_arms_raise_indoor" }),
            let b = videos.first(where: { $0.name == "video_pose_squats" })
        else { throw SharedTestData.missing("missing reference videos video_pose_arms_raise_indoor and video_pose_squats") }
        let left = try VideoReader(path: a.mediaFile.path), right = try VideoReader(path: b.mediaFile.path)
        let o = PoseLandmarkerOptions()
        o.baseOptions.modelAssetPath = try SharedTestData.installedModel("pose_landmarker_full.task").path
        o.runningMode = .video
        o.numPoses = 2
        let landmarker = try PoseLandmarker(options: o)
        var hips: [[(Float, Float)]] = [], ids: [[Int]] = []
        var index = 0
        while let l = try left.nextFrame(), let r = try right.nextFrame() {
            let frame = try Self.sideBySide(l.image, r.image, height: 360)
            let result = try landmarker.detect(videoFrame: MPImage(pixelBuffer: frame), timestampInMilliseconds: index * 40)
            XCTAssertEqual(result.poseIdentifiers.count, result.landmarks.count)
            hips.append(result.landmarks.map { (($0[23].x + $0[24].x) / 2, ($0[23].y + $0[24].y) / 2) })
            ids.append(result.poseIdentifiers)
            index += 1
        }
        let s = Self.stability(points: hips, ids: ids)
        print(
            "pose ids (two videos side by side): \(hips.count) frames, \(s.pairs) two-person pairs; swaps \(s.swaps), new ids on a matched person \(s.newIDs), distinct ids \(Set(ids.joined()).count), list order changes \(s.orderChanges)")
        XCTAssertGreaterThan(s.pairs, 0)
        XCTAssertEqual(s.swaps, 0)
        // Image mode has no identifiers.
        let image = PoseLandmarkerOptions()
        image.baseOptions.modelAssetPath = o.baseOptions.modelAssetPath
        let still = try PoseLandmarker(options: image).detect(
            image: MPImage(contentsOf: SharedTestData.file("media/pose_fullbody_frisbee.jpg")))
        XCTAssertEqual(still.poseIdentifiers, [])
    }

    /// Two RGB frames scaled (nearest) to `height` and placed side by side.
    private static func sideBySide(_ a: PixelBuffer, _ b: PixelBuffer, height: Int) throws -> PixelBuffer {
        let parts = [a.convertedToRGB8(), b.convertedToRGB8()]
        let widths = parts.map { $0.width * height / $0.height }
        let width = widths.reduce(0, +)
        var out = [UInt8](repeating: 0, count: width * height * 3)
        var x0 = 0
        for (part, w) in zip(parts, widths) {
            for y in 0..<height {
                let sy = y * part.height / height
                for x in 0..<w {
                    let sx = x * part.width / w
                    for c in 0..<3 { out[(y * width + x0 + x) * 3 + c] = part.bytes[sy * part.bytesPerRow + sx * 3 + c] }
                }
            }
            x0 += w
        }
        return try PixelBuffer(width: width, height: height, format: .rgb8, bytes: out)
    }

    /// Jitter (a still hand: mean frame-to-frame motion of the 21 landmarks) and lag (a hand
    /// panned at 20 px per frame: mean distance behind the unsmoothed landmarks along the
    /// motion), in pixels, without and with smoothing.
    func testSmoothingJitterAndLag() throws {
        let testdata = try SharedTestData.testdata()
        let dir = FileManager.default.temporaryDirectory
        let still = dir.appendingPathComponent("vision-tasks-still-\(getpid()).mp4").path
        let pan = dir.appendingPathComponent("vision-tasks-pan-\(getpid()).mp4").path
        addTeardownBlock {
            try? FileManager.default.removeItem(atPath: still)
            try? FileManager.default.removeItem(atPath: pan)
        }
        try GestureClips.write(Array(repeating: GestureClips.Shot(GestureClips.thumbUp), count: 60), to: still, testdata: testdata)
        try GestureClips.write(GestureClips.swipeSequence(), to: pan, testdata: testdata)

        func run(_ path: String, _ smoothing: HandLandmarkSmoothing?) throws -> [[NormalizedLandmark]] {
            let recognizer = try recognizer(numHands: 1, smoothing: smoothing)
            let reader = try VideoReader(path: path)
            var out: [[NormalizedLandmark]] = []
            while let frame = try reader.nextFrame() {
                let r = try recognizer.recognize(
                    videoFrame: MPImage(pixelBuffer: frame.image), timestampInMilliseconds: frame.timestampInMilliseconds)
                out.append(r.landmarks.first ?? [])
            }
            return out
        }
        let w = Float(GestureClips.width), h = Float(GestureClips.height)
        func jitter(_ frames: [[NormalizedLandmark]]) -> Float {
            var sum: Float = 0, n = 0
            for (a, b) in zip(frames.dropLast(), frames.dropFirst()) where a.count == 21 && b.count == 21 {
                for (p, q) in zip(a, b) { sum += hypotf((p.x - q.x) * w, (p.y - q.y) * h) }
                n += 21
            }
            return n > 0 ? sum / Float(n) : .nan
        }
        // Pan frames: 15..<33 (rightward) and 48..<66 (leftward); lag = how far the smoothed
        // palm trails the raw one along the motion.
        func lag(_ raw: [[NormalizedLandmark]], _ smoothed: [[NormalizedLandmark]]) -> Float {
            var sum: Float = 0, n = 0
            for t in Array(16..<34) + Array(49..<67) where raw[t].count == 21 && smoothed[t].count == 21 {
                let direction: Float = t < 40 ? 1 : -1
                for (p, q) in zip(raw[t], smoothed[t]) { sum += (p.x - q.x) * w * direction }
                n += 21
            }
            return n > 0 ? sum / Float(n) : .nan
        }
        let rawStill = try run(still, nil), rawPan = try run(pan, nil)
        let rawJitter = jitter(rawStill)
        print("smoothing off: jitter \(rawJitter) px/frame (still hand), lag 0")
        let candidates: [(String, HandLandmarkSmoothing)] = [
            ("minCutoff 0.05 beta 80 (pose)", HandLandmarkSmoothing(minCutoff: 0.05, beta: 80)),
            ("minCutoff 0.5 beta 20", HandLandmarkSmoothing(minCutoff: 0.5, beta: 20)),
            ("minCutoff 1 beta 10", HandLandmarkSmoothing(minCutoff: 1, beta: 10)),
            ("default", HandLandmarkSmoothing()),
        ]
        for (name, settings) in candidates {
            let s = try run(still, settings), p = try run(pan, settings)
            print("smoothing \(name): jitter \(jitter(s)) px/frame, lag \(lag(rawPan, p)) px at 20 px/frame")
            XCTAssertLessThan(jitter(s), rawJitter, name)
        }
    }

    /// Every event the detector fires on every shared video (two hands, recognizer thumbs).
    func testEventsOnTheSharedVideos() throws {
        // Nobody gestures in the pose videos: no event may fire there.
        let quietVideos = ["video_pose_squats", "video_pose_arms_raise_indoor"]
        let videos = try ReferenceMedia.videos()
        for name in quietVideos where !videos.contains(where: { $0.name == name }) {
            throw SharedTestData.missing("missing reference video \(name) (media/\(name).mp4 with reference/\(name).jsonl)")
        }
        var all: [String: [String]] = [:]
        for video in videos {
            let recognizer = try recognizer()
            let detector = try GestureEventDetector()
            let reader = try VideoReader(path: video.mediaFile.path)
            var fired: [String] = []
            while let frame = try reader.nextFrame() {
                let r = try recognizer.recognize(
                    videoFrame: MPImage(pixelBuffer: frame.image), timestampInMilliseconds: frame.timestampInMilliseconds)
                for e in detector.process(r, imageWidth: frame.image.width, imageHeight: frame.image.height) {
                    fired.append("\(e.kind.rawValue)@frame\(frame.index)(\(e.timestampInMilliseconds)ms,hand\(e.handIdentifier),\(e.handedness))")
                }
            }
            print("events \(video.name): \(fired.isEmpty ? "none" : fired.joined(separator: " "))")
            all[video.name] = fired
        }
        for name in quietVideos { XCTAssertEqual(all[name], [], name) }
    }
}
