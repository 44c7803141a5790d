import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

/// Collects HandLandmarker live-stream deliveries.
final class HandCollector: HandLandmarkerLiveStreamDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Int, HandLandmarkerResult?, (any Error)?)] = []

    func handLandmarker(
        _ handLandmarker: HandLandmarker, didFinishDetection result: HandLandmarkerResult?,
        timestampInMilliseconds: Int, error: (any Error)?
    ) {
        lock.withLock { items.append((timestampInMilliseconds, result, error)) }
    }

    var timestamps: [Int] { lock.withLock { items.map(\.0) } }
    var results: [HandLandmarkerResult?] { lock.withLock { items.map(\.1) } }
}

/// HandLandmarker's API and its agreement with MediaPipe on the installed bundle.
final class HandLandmarkerTests: XCTestCase {
    private struct ReferenceImage: Decodable {
        var gesture: GestureRecognizerResult
    }

    private func bundle() throws -> String {
        try SharedTestData.installedModel("hand_landmarker.task").path
    }

    private func image(_ name: String) throws -> MPImage {
        try MPImage(contentsOf: SharedTestData.file("reference/\(name).pixels.png"))
    }

    func testDefaultsLandmarksAndConnections() {
        let options = HandLandmarkerOptions()
        XCTAssertEqual(options.runningMode, .image)
        XCTAssertEqual(options.numHands, 1)
        XCTAssertEqual(options.minHandDetectionConfidence, 0.5)
        XCTAssertEqual(options.minHandPresenceConfidence, 0.5)
        XCTAssertEqual(options.minTrackingConfidence, 0.5)
        XCTAssertNil(options.handLandmarkerLiveStreamDelegate)
        XCTAssertEqual(HandLandmark.allCases.count, HandLandmark.count)
        XCTAssertEqual(HandLandmark.pinkyTIP.rawValue, 20)
        XCTAssertEqual(HandLandmarker.handConnections.count, 21)
        XCTAssertEqual(
            HandLandmarker.handConnections,
            HandLandmarker.handPalmConnections + HandLandmarker.handThumbConnections
                + HandLandmarker.handIndexFingerConnections + HandLandmarker.handMiddleFingerConnections
                + HandLandmarker.handRingFingerConnections + HandLandmarker.handPinkyConnections)
        // Every landmark is on the skeleton, and every line joins two landmarks.
        let ends = Set(HandLandmarker.handConnections.flatMap { [$0.start, $0.end] })
        XCTAssertEqual(ends, Set(0..<21))
        XCTAssertEqual(HandLandmarker.handPalmConnections.first, Connection(start: 0, end: 1))
    }

    func testInvalidOptions() throws {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = try bundle()
        options.numHands = -1
        XCTAssertThrowsError(try HandLandmarker(options: options)) { error in
            XCTAssertEqual((error as? TasksError)?.code, .invalidArgumentError)
        }
        options.numHands = 1
        options.minHandPresenceConfidence = 2
        XCTAssertThrowsError(try HandLandmarker(options: options)) { error in
            XCTAssertTrue("\(error)".contains("minHandPresenceConfidence"))
        }
        options.minHandPresenceConfidence = 0.5
        options.baseOptions.numThreads = 0
        XCTAssertThrowsError(try HandLandmarker(options: options)) { error in
            XCTAssertTrue("\(error)".contains("numThreads"))
        }
        options.baseOptions.numThreads = 1
        XCTAssertNoThrow(try HandLandmarker(options: options))
        options.runningMode = .liveStream
        XCTAssertThrowsError(try HandLandmarker(options: options)) { error in
            XCTAssertTrue("\(error)".contains("delegate"))
        }
        let empty = HandLandmarkerOptions()
        XCTAssertThrowsError(try HandLandmarker(options: empty)) { error in
            XCTAssertEqual((error as? TasksError)?.code, .invalidArgumentError)
        }
    }

    /// The installed bundle (PyPI weights, same as the reference bundle's) on MediaPipe's
    /// exact pixels: MediaPipe's hands, in image mode with two hands.
    func testInstalledBundleMatchesMediaPipe() throws {
        let options = HandLandmarkerOptions()
        options.baseOptions.modelAssetPath = try bundle()
        options.numHands = 2
        let landmarker = try HandLandmarker(options: options)
        for name in ["hands_two_open_palm_and_hanging", "hand_thumb_down_03_across_body", "neg_giraffes"] {
            let reference = try JSONDecoder().decode(
                ReferenceImage.self, from: Data(contentsOf: SharedTestData.file("reference/\(name).json"))
            ).gesture
            let result = try landmarker.detect(image: try image(name))
            XCTAssertEqual(result.landmarks.count, reference.landmarks.count, name)
            XCTAssertEqual(result.handedness, result.handedness.map { [$0[0]] })
            let ours = GestureRecognizerResult(
                gestures: [], handedness: result.handedness, landmarks: result.landmarks,
                worldLandmarks: result.worldLandmarks)
            let comparison = HandsComparison.compare(ours, reference)
            XCTAssertEqual(comparison.pairs.count, reference.landmarks.count, name)
            for pair in comparison.pairs {
                XCTAssertLessThan(pair.landmarkMean, 0.001, name)
                XCTAssertLessThan(pair.worldMax, 0.001, name)
                XCTAssertTrue(pair.sameHandedness, name)
                XCTAssertLessThan(pair.handednessScoreDifference, 0.01, name)
            }
            for hand in result.handedness {
                let category = hand[0]
                XCTAssertEqual(category.index, category.categoryName == "Right" ? 0 : 1)
                XCTAssertEqual(category.displayName, category.categoryName)
            }
        }
    }

    func testNumHandsLimitsTheResult() throws {
        let landmarker = try HandLandmarker(modelPath: try bundle())
        let result = try landmarker.detect(image: try image("hands_two_open_palm_and_hanging"))
        XCTAssertEqual(result.landmarks.count, 1)
        XCTAssertEqual(result.worldLandmarks.count, 1)
        XCTAssertEqual(result.handedness.count, 1)
        XCTAssertEqual(result.landmarks[0].count, 21)
        XCTAssertNil(result.landmarks[0][0].visibility)
    }

    func testVideoTracksAndLiveStreamDelivers() throws {
        let picture = try image("hand_victory_right_01")
        let video = HandLandmarkerOptions()
        video.baseOptions.modelAssetBuffer = try Data(contentsOf: URL(fileURLWithPath: try bundle()))
        video.runningMode = .video
        let tracker = try HandLandmarker(options: video)
        let first = try tracker.detect(videoFrame: picture, timestampInMilliseconds: 0)
        let second = try tracker.detect(videoFrame: picture, timestampInMilliseconds: 33)
        XCTAssertEqual(first.landmarks.count, 1)
        XCTAssertEqual(second.landmarks.count, 1)
        // The second frame crops the region tracked from the first: close, not identical.
        let drift = zip(first.landmarks[0], second.landmarks[0]).map { hypotf($0.x - $1.x, $0.y - $1.y) }
        XCTAssertLessThan(drift.reduce(0, +) / Float(drift.count), 0.02)
        XCTAssertNotEqual(first.landmarks, second.landmarks)
        XCTAssertThrowsError(try tracker.detect(videoFrame: picture, timestampInMilliseconds: 33))
        XCTAssertThrowsError(try tracker.detect(image: picture))

        let collector = HandCollector()
        let live = HandLandmarkerOptions()
        live.baseOptions.modelAssetPath = try bundle()
        live.runningMode = .liveStream
        live.handLandmarkerLiveStreamDelegate = collector
        let landmarker = try HandLandmarker(options: live)
        for t in [5, 10, 15] {
            try landmarker.detectAsync(image: picture, timestampInMilliseconds: t)
            landmarker.waitUntilIdle()
        }
        try landmarker.detectAsync(image: try image("neg_banana"), timestampInMilliseconds: 20)
        landmarker.waitUntilIdle()
        XCTAssertEqual(collector.timestamps, [5, 10, 15, 20])
        XCTAssertEqual(landmarker.droppedFrameCount, 0)
        XCTAssertEqual(collector.results.map { $0?.landmarks.count }, [1, 1, 1, 0])
        XCTAssertThrowsError(try landmarker.detectAsync(image: picture, timestampInMilliseconds: 20))
    }

    func testResultEncodesInTheReferenceFormat() throws {
        let result = try HandLandmarker(modelPath: try bundle()).detect(image: try image("hand_victory_right_01"))
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(result)) as? [String: Any]
        XCTAssertEqual(Set(json?.keys ?? [:].keys), ["handedness", "landmarks", "worldLandmarks"])
        XCTAssertEqual(try JSONDecoder().decode(HandLandmarkerResult.self, from: JSONEncoder().encode(result)).landmarks, result.landmarks)
    }
}
