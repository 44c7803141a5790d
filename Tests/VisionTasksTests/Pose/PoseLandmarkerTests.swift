import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

/// Collects live-stream callbacks (called on the landmarker's serial queue).
private final class Collector: PoseLandmarkerLiveStreamDelegate, @unchecked Sendable {
    /// How long each callback takes (a deliberately slow delegate).
    private let delay: TimeInterval
    private let lock = NSLock()
    private var items: [(timestamp: Int, result: PoseLandmarkerResult?, error: (any Error)?)] = []
    private var senders: Set<ObjectIdentifier> = []

    init(delay: TimeInterval = 0) { self.delay = delay }

    func poseLandmarker(
        _ poseLandmarker: PoseLandmarker, didFinishDetection result: PoseLandmarkerResult?,
        timestampInMilliseconds: Int, error: (any Error)?
    ) {
        if delay > 0 { Thread.sleep(forTimeInterval: delay) }
        lock.withLock {
            items.append((timestampInMilliseconds, result, error))
            senders.insert(ObjectIdentifier(poseLandmarker))
        }
    }

    var all: [(timestamp: Int, result: PoseLandmarkerResult?, error: (any Error)?)] { lock.withLock { items } }
    var senderIDs: Set<ObjectIdentifier> { lock.withLock { senders } }
}

/// The PoseLandmarker API: options, validation, running modes, timestamps, live stream, async
/// forms, masks, model sources, orientation.
final class PoseLandmarkerTests: XCTestCase {
    private func bundlePath() throws -> String {
        try SharedTestData.installedModel("pose_landmarker_full.task").path
    }

    private func options(_ mode: RunningMode = .image, numPoses: Int = 1, masks: Bool = false) throws
        -> PoseLandmarkerOptions
    {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath = try bundlePath()
        options.runningMode = mode
        options.numPoses = numPoses
        options.outputSegmentationMasks = masks
        return options
    }

    private func image(_ name: String) throws -> MPImage {
        try MPImage(contentsOf: SharedTestData.file("media/\(name)"))
    }

    private func assertInvalidArgument(
        _ body: @autoclosure () throws -> some Any, contains text: String, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard case TasksError.invalidArgument(let message) = error else {
                return XCTFail("expected invalidArgument, got \(error)", file: file, line: line)
            }
            XCTAssertTrue(message.contains(text), "\(message) lacks \(text)", file: file, line: line)
        }
    }

    // MARK: - Options

    func testDefaultsFollowMediaPipe() {
        let options = PoseLandmarkerOptions()
        XCTAssertEqual(options.runningMode, .image)
        XCTAssertEqual(options.numPoses, 1)
        XCTAssertEqual(options.minPoseDetectionConfidence, 0.5)
        XCTAssertEqual(options.minPosePresenceConfidence, 0.5)
        XCTAssertEqual(options.minTrackingConfidence, 0.5)
        XCTAssertFalse(options.outputSegmentationMasks)
        XCTAssertFalse(options.shouldOutputSegmentationMasks)
        XCTAssertNil(options.poseLandmarkerLiveStreamDelegate)
        XCTAssertEqual(options.baseOptions.delegate, .cpu)

        options.shouldOutputSegmentationMasks = true
        XCTAssertTrue(options.outputSegmentationMasks)
        let copy = options.copy()
        options.numPoses = 3
        XCTAssertEqual(copy.numPoses, 1, "a copy is independent")
        XCTAssertTrue(copy.outputSegmentationMasks)
    }

    func testLandmarkIndicesAndConnections() {
        XCTAssertEqual(PoseLandmark.allCases.count, 33)
        XCTAssertEqual(PoseLandmark.count, 33)
        XCTAssertEqual(PoseLandmark.nose.rawValue, 0)
        XCTAssertEqual(PoseLandmark.leftShoulder.rawValue, 11)
        XCTAssertEqual(PoseLandmark.rightHip.rawValue, 24)
        XCTAssertEqual(PoseLandmark.rightFootIndex.rawValue, 32)
        XCTAssertEqual(PoseLandmarker.poseLandmarks.count, 35)
        XCTAssertEqual(PoseLandmarker.poseLandmarks, PoseLandmark.connections)
        XCTAssertTrue(PoseLandmarker.poseLandmarks.contains(Connection(start: 11, end: 12)))
        XCTAssertTrue(PoseLandmarker.poseLandmarks.contains(Connection(start: 28, end: 32)))
        for connection in PoseLandmarker.poseLandmarks {
            XCTAssertTrue((0..<33).contains(connection.start) && (0..<33).contains(connection.end))
        }
    }

    func testInvalidOptionsAreRefused() throws {
        let threads = try options()
        threads.baseOptions.numThreads = 0
        assertInvalidArgument(try PoseLandmarker(options: threads), contains: "numThreads")
        for numPoses in [0, -1] {
            let options = try options()
            options.numPoses = numPoses
            assertInvalidArgument(try PoseLandmarker(options: options), contains: "numPoses")
        }
        let names: [(String, ReferenceWritableKeyPath<PoseLandmarkerOptions, Float>)] = [
            ("minPoseDetectionConfidence", \.minPoseDetectionConfidence),
            ("minPosePresenceConfidence", \.minPosePresenceConfidence),
            ("minTrackingConfidence", \.minTrackingConfidence),
        ]
        for (name, keyPath) in names {
            for value: Float in [-0.01, 1.01, .nan, .infinity] {
                let options = try options()
                options[keyPath: keyPath] = value
                assertInvalidArgument(try PoseLandmarker(options: options), contains: name)
            }
            let options = try options()
            options[keyPath: keyPath] = 1
            XCTAssertNoThrow(try PoseLandmarker(options: options), "\(name) = 1 is valid")
        }
    }

    func testDelegateRulesOfTheRunningModes() throws {
        let collector = Collector()
        for mode in [RunningMode.image, .video] {
            let options = try options(mode)
            options.poseLandmarkerLiveStreamDelegate = collector
            assertInvalidArgument(try PoseLandmarker(options: options), contains: "must not be set")
        }
        assertInvalidArgument(try PoseLandmarker(options: try options(.liveStream)), contains: "delegate")
    }

    func testBadModelsGiveTypedErrors() throws {
        XCTAssertThrowsError(try PoseLandmarker(modelPath: "/nonexistent/pose.task")) { error in
            guard case TasksError.notFound = error else { return XCTFail("\(error)") }
        }
        // A bundle without the pose members names the missing one.
        XCTAssertThrowsError(
            try PoseLandmarker(modelPath: try SharedTestData.installedModel("hand_landmarker.task").path)
        ) { error in
            guard case TasksError.notFound(let message) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(message.contains("pose_detector.tflite"), message)
        }
        // Not a bundle at all.
        let garbage = FileManager.default.temporaryDirectory.appendingPathComponent("garbage-\(UUID()).task")
        try Data("not a zip".utf8).write(to: garbage)
        defer { try? FileManager.default.removeItem(at: garbage) }
        XCTAssertThrowsError(try PoseLandmarker(modelPath: garbage.path)) { error in
            guard case TasksError.invalidArgument = error else { return XCTFail("\(error)") }
        }
        let gpu = try options()
        gpu.baseOptions.delegate = .gpu
        XCTAssertThrowsError(try PoseLandmarker(options: gpu)) { error in
            guard case TasksError.unimplemented = error else { return XCTFail("\(error)") }
        }
    }

    // MARK: - Image mode and model sources

    func testModelPathAndModelBufferGiveTheSameResult() throws {
        let fromPath = try PoseLandmarker(modelPath: try bundlePath())
        XCTAssertEqual(fromPath.runningMode, .image)
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetBuffer = try Data(contentsOf: URL(fileURLWithPath: try bundlePath()))
        let fromMemory = try PoseLandmarker(options: options)
        let photo = try image("pose_fullbody_yoga_warrior.jpg")
        let a = try fromPath.detect(image: photo)
        let b = try fromMemory.detect(image: photo)
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.landmarks.count, 1)
        XCTAssertEqual(a.landmarks[0].count, 33)
        XCTAssertEqual(a.worldLandmarks[0].count, 33)
        XCTAssertTrue(a.segmentationMasks.isEmpty, "masks are off by default")
        for (lm, world) in zip(a.landmarks[0], a.worldLandmarks[0]) {
            let visibility = try XCTUnwrap(lm.visibility)
            let presence = try XCTUnwrap(lm.presence)
            XCTAssertTrue((0...1).contains(visibility) && (0...1).contains(presence))
            XCTAssertEqual(world.visibility, lm.visibility)
            XCTAssertEqual(world.presence, lm.presence)
        }
        // The hips' midpoint is the world origin.
        let hips = (a.worldLandmarks[0][23].x + a.worldLandmarks[0][24].x) / 2
        XCTAssertLessThan(abs(hips), 0.05)
        // Images of nobody give empty lists.
        let empty = try fromPath.detect(image: try image("neg_banana.jpg"))
        XCTAssertEqual(empty, PoseLandmarkerResult(landmarks: [], worldLandmarks: []))
    }

    func testNumPosesLimitsTheResult() throws {
        let group = try image("pose_three_people_upperbody.jpg")
        XCTAssertEqual(try PoseLandmarker(options: options(numPoses: 1)).detect(image: group).landmarks.count, 1)
        let two = try PoseLandmarker(options: options(numPoses: 2, masks: true)).detect(image: group)
        XCTAssertEqual(two.landmarks.count, 2)
        XCTAssertEqual(two.segmentationMasks.count, 2)
    }

    func testSegmentationMasksCoverThePersonAtTheImageSize() throws {
        let landmarker = try PoseLandmarker(options: options(masks: true))
        let photo = try image("pose_upperbody_portrait_arms_crossed.jpg")
        let result = try landmarker.detect(image: photo)
        XCTAssertEqual(result.segmentationMasks.count, 1)
        let mask = try XCTUnwrap(result.segmentationMasks.first)
        XCTAssertEqual(mask.width, photo.width)
        XCTAssertEqual(mask.height, photo.height)
        XCTAssertEqual(mask.dataType, .float32)
        let values = mask.float32Data
        XCTAssertTrue(values.allSatisfy { $0 >= 0 && $0 <= 1 })
        // Inside the person (between the shoulders, below the nose) versus a corner.
        let pose = result.landmarks[0]
        let chestX = (pose[11].x + pose[12].x) / 2, chestY = (pose[11].y + pose[12].y) / 2 + 0.05
        let inside = try XCTUnwrap(mask.value(x: Int(chestX * Float(mask.width)), y: Int(chestY * Float(mask.height))))
        XCTAssertGreaterThan(inside, 0.9)
        XCTAssertLessThan(try XCTUnwrap(mask.value(x: 0, y: 0)), 0.1)
        // Landmarks are the same with and without masks.
        let without = try PoseLandmarker(options: options()).detect(image: photo)
        XCTAssertEqual(without.landmarks, result.landmarks)
        XCTAssertTrue(without.segmentationMasks.isEmpty)
    }

    func testRotatedImagesGiveUprightCoordinates() throws {
        let upright = try image("pose_fullbody_yoga_warrior.jpg")
        let pixels = upright.pixelBuffer.convertedToRGB8()
        let landmarker = try PoseLandmarker(options: options())
        let expected = try landmarker.detect(image: upright)
        // Stored pixels turned a quarter, with the orientation that turns them back.
        for (stored, orientation) in [(EXIFOrientation.left, ImageOrientation.right), (.right, .left), (.down, .down)] {
            let rotated = MPImage(pixelBuffer: pixels.reoriented(stored), orientation: orientation)
            XCTAssertEqual(rotated.width, upright.width)
            XCTAssertEqual(rotated.height, upright.height)
            XCTAssertEqual(try landmarker.detect(image: rotated), expected, "\(orientation)")
        }
        let mirrored = MPImage(pixelBuffer: pixels, orientation: .upMirrored)
        assertInvalidArgument(try landmarker.detect(image: mirrored), contains: "upMirrored")
    }

    // MARK: - Modes and timestamps

    func testMethodsOfTheWrongModeAreRefused() throws {
        let photo = try image("neg_banana.jpg")
        let imageMode = try PoseLandmarker(options: options(.image))
        assertInvalidArgument(
            try imageMode.detect(videoFrame: photo, timestampInMilliseconds: 0),
            contains: "not initialized with video mode. Current Running Mode: Image")
        assertInvalidArgument(
            try imageMode.detectAsync(image: photo, timestampInMilliseconds: 0),
            contains: "not initialized with live stream mode")
        let videoMode = try PoseLandmarker(options: options(.video))
        assertInvalidArgument(
            try videoMode.detect(image: photo), contains: "not initialized with image mode. Current Running Mode: Video")
    }

    func testVideoTimestampsMustIncreaseAndTheTaskStaysUsable() throws {
        let landmarker = try PoseLandmarker(options: options(.video))
        let photo = try image("pose_fullbody_yoga_warrior.jpg")
        let first = try landmarker.detect(videoFrame: photo, timestampInMilliseconds: 100)
        XCTAssertEqual(first.timestampInMilliseconds, 100)
        XCTAssertEqual(first.landmarks.count, 1)
        for bad in [100, 50] {
            XCTAssertThrowsError(try landmarker.detect(videoFrame: photo, timestampInMilliseconds: bad)) { error in
                XCTAssertEqual(error as? TasksError, .nonMonotonicTimestamp(previousMilliseconds: 100, receivedMilliseconds: bad))
                XCTAssertEqual((error as? TasksError)?.code, .invalidArgumentError)
            }
        }
        XCTAssertEqual(try landmarker.detect(videoFrame: photo, timestampInMilliseconds: 133).landmarks.count, 1)
    }

    /// With one pose in video mode the landmarks are smoothed (the first frame passes the
    /// filters unchanged); with two poses, or in image mode, they are not.
    func testVideoModeSmoothsASinglePose() throws {
        let reader = try VideoReader(path: try SharedTestData.file("media/video_pose_squats.mp4").path)
        let smoothed = try PoseLandmarker(options: options(.video, numPoses: 1))
        let unsmoothed = try PoseLandmarker(options: options(.video, numPoses: 2))
        let independent = try PoseLandmarker(options: options(.image, numPoses: 1))
        var differing = 0
        for index in 0..<6 {
            let frame = try XCTUnwrap(try reader.nextFrame())
            let image = MPImage(pixelBuffer: frame.image)
            let a = try smoothed.detect(videoFrame: image, timestampInMilliseconds: frame.timestampInMilliseconds)
            let b = try unsmoothed.detect(videoFrame: image, timestampInMilliseconds: frame.timestampInMilliseconds)
            XCTAssertEqual(a.landmarks.count, 1)
            XCTAssertEqual(b.landmarks.count, 1)
            if index == 0 {
                // The first frame passes the filters (up to the rounding of x·W/W).
                for (p, q) in zip(a.landmarks[0], b.landmarks[0]) {
                    XCTAssertEqual(p.x, q.x, accuracy: 1e-6)
                    XCTAssertEqual(p.y, q.y, accuracy: 1e-6)
                    XCTAssertEqual(p.visibility, q.visibility)
                }
                // Video mode adds the tracked person's identifier (the first one is 1).
                var expected = try independent.detect(image: image).withTimestamp(frame.timestampInMilliseconds)
                expected.poseIdentifiers = [1]
                XCTAssertEqual(b, expected)
            } else if a.landmarks != b.landmarks {
                differing += 1
                // Smoothing moves landmarks a little, not far.
                let shift = zip(a.landmarks[0], b.landmarks[0]).map { hypotf($0.x - $1.x, $0.y - $1.y) }.max() ?? 0
                XCTAssertLessThan(shift, 0.05)
            }
        }
        XCTAssertGreaterThanOrEqual(differing, 4, "later frames are smoothed")
    }

    // MARK: - Live stream and async

    func testLiveStreamDeliversInOrderAndCountsDrops() async throws {
        let collector = Collector()
        let options = try options(.liveStream)
        options.poseLandmarkerLiveStreamDelegate = collector
        let landmarker = try PoseLandmarker(options: options)
        let stream = landmarker.liveStreamResults()
        let photo = try image("pose_fullbody_yoga_warrior.jpg")
        let sent = 12
        for i in 0..<sent {
            try landmarker.detectAsync(image: photo, timestampInMilliseconds: i * 10)
        }
        XCTAssertThrowsError(try landmarker.detectAsync(image: photo, timestampInMilliseconds: 0)) { error in
            XCTAssertEqual(error as? TasksError, .nonMonotonicTimestamp(previousMilliseconds: 110, receivedMilliseconds: 0))
        }
        landmarker.waitUntilIdle()
        let delivered = collector.all
        XCTAssertGreaterThanOrEqual(delivered.count, 1)
        XCTAssertGreaterThanOrEqual(landmarker.droppedFrameCount, 1, "frames sent while one is in work are dropped")
        XCTAssertEqual(delivered.count + landmarker.droppedFrameCount, sent)
        XCTAssertEqual(delivered.map(\.timestamp), delivered.map(\.timestamp).sorted())
        XCTAssertEqual(delivered.first?.timestamp, 0, "the first frame is always processed")
        XCTAssertEqual(collector.senderIDs, [ObjectIdentifier(landmarker)])
        for item in delivered {
            XCTAssertNil(item.error)
            XCTAssertEqual(item.result?.landmarks.count, 1)
            XCTAssertEqual(item.result?.timestampInMilliseconds, item.timestamp)
        }
        // The async sequence saw the same results.
        var streamed: [Int] = []
        for await result in stream {
            streamed.append(result.timestampInMilliseconds)
            XCTAssertNotNil(result.value)
            if streamed.count == delivered.count { break }
        }
        XCTAssertEqual(streamed, delivered.map(\.timestamp))
    }

    /// With a delegate slower than the frames, results must not queue without limit (pose with
    /// masks on 1920x1280 and a 1 s delegate would take gigabytes within a minute). With a
    /// deliberately slow delegate, a frame is taken only once its predecessor's result was
    /// delivered: at most one result waits, and the rest are dropped and counted.
    func testSlowDelegateDropsFramesInsteadOfQueueingResults() throws {
        let collector = Collector(delay: 0.2)
        let options = try options(.liveStream, masks: true)
        options.poseLandmarkerLiveStreamDelegate = collector
        let landmarker = try PoseLandmarker(options: options)
        let photo = try image("pose_fullbody_yoga_warrior.jpg")
        let sent = 40
        var mostWaiting = 0
        for i in 0..<sent {
            try landmarker.detectAsync(image: photo, timestampInMilliseconds: i * 10)
            // Accepted frames whose result the delegate has not received yet.
            mostWaiting = max(mostWaiting, (i + 1 - landmarker.droppedFrameCount) - collector.all.count)
            Thread.sleep(forTimeInterval: 0.01)
        }
        landmarker.waitUntilIdle()
        XCTAssertLessThanOrEqual(mostWaiting, 2, "results queued for the slow delegate")
        XCTAssertEqual(collector.all.count + landmarker.droppedFrameCount, sent)
        XCTAssertGreaterThanOrEqual(landmarker.droppedFrameCount, sent / 2, "a delegate 20 times slower than the frames drops most")
        XCTAssertTrue(collector.all.allSatisfy { $0.result?.segmentationMasks.count == 1 })
    }

    func testLiveStreamReportsErrorsThroughTheDelegate() throws {
        let collector = Collector()
        let options = try options(.liveStream)
        options.poseLandmarkerLiveStreamDelegate = collector
        let landmarker = try PoseLandmarker(options: options)
        let pixels = try PixelBuffer(width: 4, height: 4, format: .rgb8, bytes: [UInt8](repeating: 9, count: 48))
        try landmarker.detectAsync(image: MPImage(pixelBuffer: pixels, orientation: .leftMirrored), timestampInMilliseconds: 5)
        landmarker.waitUntilIdle()
        let delivered = collector.all
        XCTAssertEqual(delivered.count, 1)
        XCTAssertEqual(delivered.first?.timestamp, 5)
        XCTAssertNil(delivered.first?.result)
        guard case TasksError.invalidArgument = try XCTUnwrap(delivered.first?.error) else {
            return XCTFail("expected invalidArgument")
        }
    }

    func testAsyncFormsGiveTheSameResults() async throws {
        let photo = try image("pose_fullbody_frisbee.jpg")
        let imageMode = try PoseLandmarker(options: options(numPoses: 2))
        let sync = try imageMode.detect(image: photo)
        let async = try await imageMode.detect(photo)
        XCTAssertEqual(sync, async)
        // Two poses: no smoothing, so the first video frame equals the image result exactly.
        let videoMode = try PoseLandmarker(options: options(.video, numPoses: 2))
        let frame = try await videoMode.detect(photo, timestampInMilliseconds: 7)
        var expected = sync.withTimestamp(7)
        expected.poseIdentifiers = Array(1...sync.landmarks.count)
        XCTAssertEqual(frame, expected)
        do {
            _ = try await videoMode.detect(photo, timestampInMilliseconds: 7)
            XCTFail("a repeated timestamp is refused")
        } catch {
            XCTAssertEqual(error as? TasksError, .nonMonotonicTimestamp(previousMilliseconds: 7, receivedMilliseconds: 7))
        }
    }

    // MARK: - Results

    func testResultsAreCodable() throws {
        let landmarker = try PoseLandmarker(options: options(masks: true))
        let result = try landmarker.detect(image: try image("pose_two_people_walking_dog.jpg"))
        XCTAssertFalse(result.landmarks.isEmpty)
        let data = try JSONEncoder().encode(result)
        XCTAssertEqual(try JSONDecoder().decode(PoseLandmarkerResult.self, from: data), result)
    }
}

extension PoseLandmarkerResult {
    fileprivate func withTimestamp(_ timestamp: Int) -> PoseLandmarkerResult {
        var copy = self
        copy.timestampInMilliseconds = timestamp
        return copy
    }
}
