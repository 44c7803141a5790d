import Dispatch
import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

/// Collects live-stream deliveries and checks that they never overlap.
final class GestureCollector: GestureRecognizerLiveStreamDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var inside = false
    private(set) var overlapped = false
    private var items: [(Int, GestureRecognizerResult?, (any Error)?)] = []

    func gestureRecognizer(
        _ gestureRecognizer: GestureRecognizer, didFinishGestureRecognition result: GestureRecognizerResult?,
        timestampInMilliseconds: Int, error: (any Error)?
    ) {
        lock.withLock {
            if inside { overlapped = true }
            inside = true
        }
        Thread.sleep(forTimeInterval: 0.002)
        lock.withLock {
            items.append((timestampInMilliseconds, result, error))
            inside = false
        }
    }

    var deliveries: [(timestamp: Int, result: GestureRecognizerResult?, error: (any Error)?)] {
        lock.withLock { items.map { ($0.0, $0.1, $0.2) } }
    }
}

/// GestureRecognizer's API: options and their defaults, validation, running modes,
/// timestamps, live stream, Swift concurrency, classifier options and custom bundles.
final class GestureRecognizerTests: XCTestCase {
    private func referenceBundle() throws -> String {
        try SharedTestData.referenceModels().appendingPathComponent("gesture_recognizer.task").path
    }

    private func image(_ name: String) throws -> MPImage {
        try MPImage(contentsOf: SharedTestData.file("reference/\(name).pixels.png"))
    }

    private func options(_ mode: RunningMode = .image) throws -> GestureRecognizerOptions {
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = try referenceBundle()
        options.runningMode = mode
        options.numHands = 2
        return options
    }

    private func assertInvalidArgument(
        _ body: @autoclosure () throws -> Any, containing text: String, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard case .invalidArgument(let message) = error as? TasksError else {
                return XCTFail("expected invalidArgument, got \(error)", file: file, line: line)
            }
            XCTAssertTrue(message.contains(text), "\(message) lacks \(text)", file: file, line: line)
        }
    }

    func testDefaultsAreMediaPipes() {
        let options = GestureRecognizerOptions()
        XCTAssertEqual(options.runningMode, .image)
        XCTAssertEqual(options.numHands, 1)
        XCTAssertEqual(options.minHandDetectionConfidence, 0.5)
        XCTAssertEqual(options.minHandPresenceConfidence, 0.5)
        XCTAssertEqual(options.minTrackingConfidence, 0.5)
        XCTAssertNil(options.cannedGesturesClassifierOptions)
        XCTAssertNil(options.customGesturesClassifierOptions)
        XCTAssertNil(options.gestureRecognizerLiveStreamDelegate)
        XCTAssertEqual(options.baseOptions.modelAssetPath, "")
        let classifier = ClassifierOptions()
        XCTAssertNil(classifier.displayNamesLocale)
        XCTAssertEqual(classifier.maxResults, -1)
        XCTAssertEqual(classifier.scoreThreshold, 0)
        XCTAssertNil(classifier.categoryAllowlist)
        XCTAssertNil(classifier.categoryDenylist)
        XCTAssertEqual(CannedGesture.allCases.map(\.rawValue), [
            "None", "Closed_Fist", "Open_Palm", "Pointing_Up", "Thumb_Down", "Thumb_Up", "Victory", "ILoveYou",
        ])
    }

    func testOptionsAreCopied() throws {
        let options = try self.options()
        let copy = options.copy()
        options.numHands = 5
        options.baseOptions.modelAssetPath = "elsewhere"
        XCTAssertEqual(copy.numHands, 2)
        XCTAssertEqual(copy.baseOptions.modelAssetPath, try referenceBundle())
        let classifier = ClassifierOptions()
        classifier.maxResults = 3
        options.cannedGesturesClassifierOptions = classifier
        classifier.maxResults = 4
        XCTAssertEqual(options.cannedGesturesClassifierOptions?.maxResults, 3)
        options.cannedGesturesClassifierOptions?.maxResults = 2
        XCTAssertEqual(options.cannedGesturesClassifierOptions?.maxResults, 2)
    }

    func testInvalidOptionsAreTypedErrors() throws {
        let options = try self.options()
        options.numHands = 0
        assertInvalidArgument(try GestureRecognizer(options: options), containing: "numHands")
        let threads = try self.options()
        threads.baseOptions.numThreads = -1
        assertInvalidArgument(try GestureRecognizer(options: threads), containing: "numThreads")
        for value: Float in [-0.1, 1.1, .nan] {
            let options = try self.options()
            options.minHandDetectionConfidence = value
            assertInvalidArgument(try GestureRecognizer(options: options), containing: "minHandDetectionConfidence")
            options.minHandDetectionConfidence = 0.5
            options.minHandPresenceConfidence = value
            assertInvalidArgument(try GestureRecognizer(options: options), containing: "minHandPresenceConfidence")
            options.minHandPresenceConfidence = 0.5
            options.minTrackingConfidence = value
            assertInvalidArgument(try GestureRecognizer(options: options), containing: "minTrackingConfidence")
        }
        let both = try self.options()
        both.cannedGesturesClassifierOptions = ClassifierOptions(
            categoryAllowlist: ["Thumb_Up"], categoryDenylist: ["None"])
        assertInvalidArgument(try GestureRecognizer(options: both), containing: "mutually exclusive")
        let zero = try self.options()
        zero.customGesturesClassifierOptions = ClassifierOptions(maxResults: 0)
        assertInvalidArgument(try GestureRecognizer(options: zero), containing: "maxResults")
        let nan = try self.options()
        nan.cannedGesturesClassifierOptions = ClassifierOptions(scoreThreshold: .nan)
        assertInvalidArgument(try GestureRecognizer(options: nan), containing: "scoreThreshold")
        let missing = GestureRecognizerOptions()
        missing.baseOptions.modelAssetPath = "/nonexistent/gesture_recognizer.task"
        XCTAssertThrowsError(try GestureRecognizer(options: missing)) { error in
            XCTAssertEqual((error as? TasksError)?.code, .notFoundError)
        }
        let handsOnly = GestureRecognizerOptions()
        handsOnly.baseOptions.modelAssetPath = try SharedTestData.installedModel("hand_landmarker.task").path
        XCTAssertThrowsError(try GestureRecognizer(options: handsOnly)) { error in
            XCTAssertEqual((error as? TasksError)?.code, .notFoundError, "\(error)")
        }
        let notABundle = GestureRecognizerOptions()
        notABundle.baseOptions.modelAssetBuffer = Data("not a zip".utf8)
        XCTAssertThrowsError(try GestureRecognizer(options: notABundle)) { error in
            XCTAssertEqual((error as? TasksError)?.code, .invalidArgumentError, "\(error)")
        }
    }

    func testDelegateRulesAndWrongModes() throws {
        let collector = GestureCollector()
        let image = try options(.image)
        image.gestureRecognizerLiveStreamDelegate = collector
        assertInvalidArgument(try GestureRecognizer(options: image), containing: "must not be set")
        let video = try options(.video)
        video.gestureRecognizerLiveStreamDelegate = collector
        assertInvalidArgument(try GestureRecognizer(options: video), containing: "must not be set")
        assertInvalidArgument(try GestureRecognizer(options: try options(.liveStream)), containing: "delegate")

        let picture = try self.image("hand_victory_right_01")
        let imageMode = try GestureRecognizer(options: try options(.image))
        assertInvalidArgument(
            try imageMode.recognize(videoFrame: picture, timestampInMilliseconds: 0),
            containing: "not initialized with video mode. Current Running Mode: Image")
        assertInvalidArgument(
            try imageMode.recognizeAsync(image: picture, timestampInMilliseconds: 0),
            containing: "not initialized with live stream mode")
        let videoMode = try GestureRecognizer(options: try options(.video))
        assertInvalidArgument(
            try videoMode.recognize(image: picture), containing: "not initialized with image mode. Current Running Mode: Video")
    }

    func testTimestampsMustIncreaseAndTheRecognizerStaysUsable() throws {
        let recognizer = try GestureRecognizer(options: try options(.video))
        let picture = try image("hand_victory_right_01")
        let first = try recognizer.recognize(videoFrame: picture, timestampInMilliseconds: 100)
        XCTAssertEqual(first.gestures.first?.first?.categoryName, "Victory")
        XCTAssertEqual(first.timestampInMilliseconds, 100)
        for stale in [100, 50] {
            XCTAssertThrowsError(try recognizer.recognize(videoFrame: picture, timestampInMilliseconds: stale)) { error in
                XCTAssertEqual(
                    error as? TasksError,
                    .nonMonotonicTimestamp(previousMilliseconds: 100, receivedMilliseconds: stale))
                XCTAssertEqual((error as? TasksError)?.code, .invalidArgumentError)
                XCTAssertTrue("\(error)".contains("monotonically increasing"))
            }
        }
        let next = try recognizer.recognize(videoFrame: picture, timestampInMilliseconds: 133)
        XCTAssertEqual(next.gestures.first?.first?.categoryName, "Victory")
        XCTAssertEqual(next.landmarks.count, 1)
    }

    func testLiveStreamDeliversInOrderAndCountsDrops() throws {
        let collector = GestureCollector()
        let options = try self.options(.liveStream)
        options.gestureRecognizerLiveStreamDelegate = collector
        let recognizer = try GestureRecognizer(options: options)
        let picture = try image("hand_thumb_up_left_01")
        let sent = 12
        for i in 0..<sent {
            try recognizer.recognizeAsync(image: picture, timestampInMilliseconds: i * 33)
        }
        XCTAssertThrowsError(try recognizer.recognizeAsync(image: picture, timestampInMilliseconds: 0)) { error in
            XCTAssertEqual(error as? TasksError, .nonMonotonicTimestamp(previousMilliseconds: (sent - 1) * 33, receivedMilliseconds: 0))
        }
        recognizer.waitUntilIdle()
        try recognizer.recognizeAsync(image: picture, timestampInMilliseconds: 1000)
        recognizer.waitUntilIdle()
        let deliveries = collector.deliveries
        XCTAssertEqual(deliveries.count + recognizer.droppedFrameCount, sent + 1)
        XCTAssertGreaterThan(recognizer.droppedFrameCount, 0, "frames sent while one is processed are dropped")
        XCTAssertEqual(deliveries.first?.timestamp, 0)
        XCTAssertEqual(deliveries.last?.timestamp, 1000)
        XCTAssertEqual(deliveries.map(\.timestamp), deliveries.map(\.timestamp).sorted())
        XCTAssertFalse(collector.overlapped, "delegate calls overlapped")
        for delivery in deliveries {
            XCTAssertNil(delivery.error)
            XCTAssertEqual(delivery.result?.gestures.first?.first?.categoryName, "Thumb_Up")
            XCTAssertEqual(delivery.result?.timestampInMilliseconds, delivery.timestamp)
        }
    }

    func testLiveStreamResultsAsAsyncSequence() async throws {
        let collector = GestureCollector()
        let options = try self.options(.liveStream)
        options.gestureRecognizerLiveStreamDelegate = collector
        let recognizer = try GestureRecognizer(options: options)
        let stream = recognizer.liveStreamResults()
        let picture = try image("hand_pointing_up_left_01")
        for i in 0..<3 {
            try recognizer.recognizeAsync(image: picture, timestampInMilliseconds: i * 1000)
            recognizer.waitUntilIdle()
        }
        var received: [LiveStreamResult<GestureRecognizerResult>] = []
        for await result in stream {
            received.append(result)
            if received.count == 3 { break }
        }
        XCTAssertEqual(received.map(\.timestampInMilliseconds), [0, 1000, 2000])
        XCTAssertEqual(received.compactMap { $0.value?.gestures.first?.first?.categoryName }, Array(repeating: "Pointing_Up", count: 3))
        XCTAssertEqual(collector.deliveries.count, 3)
    }

    func testAsyncFormsGiveTheSynchronousResults() async throws {
        let picture = try image("hands_two_open_palm_and_hanging")
        let imageMode = try GestureRecognizer(options: try options(.image))
        let synchronous = try imageMode.recognize(image: picture)
        let asynchronous = try await imageMode.recognize(picture)
        XCTAssertEqual(synchronous, asynchronous)
        XCTAssertEqual(asynchronous.landmarks.count, 2)
        let videoMode = try GestureRecognizer(options: try options(.video))
        let frame = try await videoMode.recognize(picture, timestampInMilliseconds: 0)
        XCTAssertEqual(frame.landmarks.count, 2)
        do {
            _ = try await videoMode.recognize(picture, timestampInMilliseconds: 0)
            XCTFail("a repeated timestamp must be refused")
        } catch let error as TasksError {
            XCTAssertEqual(error.code, .invalidArgumentError)
        }
        do {
            _ = try await imageMode.recognize(picture, timestampInMilliseconds: 1)
            XCTFail("the video form needs video mode")
        } catch let error as TasksError {
            XCTAssertEqual(error.code, .invalidArgumentError)
        }
    }

    func testCannedClassifierOptions() throws {
        // hands_two_open_palm_and_hanging: MediaPipe's canned scores for the first hand are
        // None 0.651, Thumb_Up 0.331; the second hand is Open_Palm 0.684 (None 0.315).
        let picture = try image("hands_two_open_palm_and_hanging")
        func recognize(_ classifier: ClassifierOptions) throws -> GestureRecognizerResult {
            let options = try self.options()
            options.cannedGesturesClassifierOptions = classifier
            return try GestureRecognizer(options: options).recognize(image: picture)
        }
        let plain = try GestureRecognizer(options: try options()).recognize(image: picture)
        XCTAssertEqual(plain.gestures.map { $0.first?.categoryName }, ["None", "Open_Palm"])
        XCTAssertEqual(try recognize(ClassifierOptions(maxResults: 1)), plain)

        let denied = try recognize(ClassifierOptions(categoryDenylist: ["None"]))
        XCTAssertEqual(denied.gestures.map { $0.first?.categoryName }, ["Thumb_Up", "Open_Palm"])
        XCTAssertEqual(denied.gestures[0][0].score, 0.331, accuracy: 0.01)
        XCTAssertEqual(denied.gestures[0][0].index, -1)
        XCTAssertNil(denied.gestures[0][0].displayName)

        let allowed = try recognize(ClassifierOptions(categoryAllowlist: ["Victory", "Open_Palm"]))
        XCTAssertEqual(allowed.gestures.map { $0.first?.categoryName }, ["Open_Palm", "Open_Palm"])

        // Every class of the first hand below the threshold: no gesture for it, as in MediaPipe.
        let strict = try recognize(ClassifierOptions(scoreThreshold: 0.66))
        XCTAssertEqual(strict.landmarks.count, 2)
        XCTAssertEqual(strict.gestures.map { $0.first?.categoryName }, ["Open_Palm"])

        // Unknown names are ignored (an allow list of only unknown names filters nothing).
        XCTAssertEqual(try recognize(ClassifierOptions(categoryDenylist: ["Waving"])), plain)
    }

    /// `operations.task` (Model Maker export: canned classifier without labels, custom one
    /// with labels and a 0.5 score threshold in its metadata). MediaPipe 1.2.2 (Python, the same
    /// bundle, numHands 2) gives: hand_victory_right_01 → the canned Victory 0.8844 (the custom
    /// classifier's best, "none" 0.379, is below its threshold); hand_thumb_up_left_01 →
    /// "divide" 0.5596; hands_two_open_palm_and_hanging → "equal" 0.5687, "divide" 0.9295;
    /// hand_pointing_up_left_01 → canned Pointing_Up 0.9625. (MediaPipe reports the canned
    /// names as empty strings because that classifier has no labels; we use the canned names.)
    func testCustomBundleRunsCannedAndCustomTogether() throws {
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath = try SharedTestData.installedModel("operations.task").path
        options.numHands = 2
        let recognizer = try GestureRecognizer(options: options)
        let expected: [(String, [(String, Float)])] = [
            ("hand_victory_right_01", [("Victory", 0.8844)]),
            ("hand_thumb_up_left_01", [("divide", 0.5596)]),
            ("hands_two_open_palm_and_hanging", [("equal", 0.5687), ("divide", 0.9295)]),
            ("hand_pointing_up_left_01", [("Pointing_Up", 0.9625)]),
        ]
        for (name, gestures) in expected {
            let result = try recognizer.recognize(image: try image(name))
            XCTAssertEqual(result.gestures.map { $0.first?.categoryName ?? "" }, gestures.map(\.0), name)
            for (ours, theirs) in zip(result.gestures, gestures) {
                XCTAssertEqual(ours.first?.score ?? 0, theirs.1, accuracy: 0.001, name)
            }
        }
        // With custom classifier options, the metadata's threshold no longer applies (as in
        // MediaPipe): the custom classifier's "none" wins for the victory sign.
        options.customGesturesClassifierOptions = ClassifierOptions()
        let overridden = try GestureRecognizer(options: options).recognize(image: try image("hand_victory_right_01"))
        XCTAssertEqual(overridden.gestures.first?.first?.categoryName, "none")
        XCTAssertEqual(overridden.gestures.first?.first?.score ?? 0, 0.379, accuracy: 0.001)
        // Denying the custom background lets the custom classifier's next best through.
        options.customGesturesClassifierOptions = ClassifierOptions(categoryDenylist: ["none"])
        let denied = try GestureRecognizer(options: options).recognize(image: try image("hand_victory_right_01"))
        XCTAssertEqual(denied.gestures.first?.first?.categoryName, "multiply")
    }

    func testModelFromMemoryAndModelPathInitialiser() throws {
        let path = try referenceBundle()
        let picture = try image("hand_thumb_up_left_01")
        let fromPath = try GestureRecognizer(modelPath: path).recognize(image: picture)
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetBuffer = try Data(contentsOf: URL(fileURLWithPath: path))
        let fromMemory = try GestureRecognizer(options: options).recognize(image: picture)
        XCTAssertEqual(fromPath, fromMemory)
        XCTAssertEqual(fromPath.gestures.first?.first?.categoryName, "Thumb_Up")
    }

    func testOrientation() throws {
        let recognizer = try GestureRecognizer(options: try options())
        let upright = try ImageDecoder.decode(
            contentsOfFile: SharedTestData.file("reference/hands_two_open_palm_and_hanging.pixels.png").path
        ).pixels
        let expected = try recognizer.recognize(image: MPImage(pixelBuffer: upright))
        XCTAssertEqual(expected.landmarks.count, 2)
        let turns: [EXIFOrientation] = [.left, .right, .down]
        for orientation in [ImageOrientation.right, .left, .down] {
            // The stored pixels that this orientation turns upright.
            let stored = try XCTUnwrap(
                turns.map { upright.reoriented($0) }.first { $0.reoriented(orientation.exifOrientation).bytes == upright.bytes })
            let result = try recognizer.recognize(image: MPImage(pixelBuffer: stored, orientation: orientation))
            XCTAssertEqual(result, expected, "\(orientation)")
        }
        for mirrored in [ImageOrientation.upMirrored, .leftMirrored] {
            assertInvalidArgument(
                try recognizer.recognize(image: MPImage(pixelBuffer: upright, orientation: mirrored)),
                containing: "mirrored")
        }
    }

    func testResultEncodesInTheReferenceFormat() throws {
        let result = try GestureRecognizer(options: try options()).recognize(image: try image("hand_victory_right_01"))
        let json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(result)) as? [String: Any]
        XCTAssertEqual(Set(json?.keys ?? [:].keys), ["handedness", "gestures", "landmarks", "worldLandmarks"])
        let gesture = ((json?["gestures"] as? [[[String: Any]]])?.first?.first) ?? [:]
        XCTAssertEqual(gesture["categoryName"] as? String, "Victory")
        XCTAssertEqual(gesture["displayName"] as? String, "")
        XCTAssertEqual(gesture["index"] as? Int, -1)
        let decoded = try JSONDecoder().decode(GestureRecognizerResult.self, from: JSONEncoder().encode(result))
        XCTAssertEqual(decoded.landmarks, result.landmarks)
        XCTAssertEqual(decoded.gestures, result.gestures)
    }

    func testEmptyResultWithoutHands() throws {
        let result = try GestureRecognizer(options: try options()).recognize(image: try image("neg_banana"))
        XCTAssertEqual(result, GestureRecognizerResult(gestures: [], handedness: [], landmarks: [], worldLandmarks: []))
    }
}
