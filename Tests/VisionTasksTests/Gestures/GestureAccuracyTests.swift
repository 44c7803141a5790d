import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

/// The gesture tasks' acceptance bars, measured against MediaPipe's references
/// (`../shared/testdata/reference`, made with `../shared/models/gesture_recognizer.task`,
/// numHands 2, every threshold 0.5): image mode on the images, video mode on every frame of
/// each video, hands paired by nearest wrist. Per-file figures are printed.
final class GestureAccuracyTests: XCTestCase {
    struct ReferenceImage: Decodable {
        var width: Int
        var height: Int
        var gesture: GestureRecognizerResult
    }

    struct ReferenceFrame: Decodable {
        var frame: Int
        var timestampInMilliseconds: Int
        var gesture: GestureRecognizerResult
    }

    static func recognizer(_ mode: RunningMode, bundle: URL? = nil) throws -> GestureRecognizer {
        let options = GestureRecognizerOptions()
        options.baseOptions.modelAssetPath =
            try (bundle ?? SharedTestData.referenceModels().appendingPathComponent("gesture_recognizer.task")).path
        options.runningMode = mode
        options.numHands = 2
        return try GestureRecognizer(options: options)
    }

    /// Bar 1: on MediaPipe's exact pixels, the same hands, handedness and gestures on every
    /// image, landmarks within 0.001 (mean, normalised), world landmarks within 0.001 m,
    /// scores within 0.01.
    func testSamePixelsMatchMediaPipe() throws {
        let recognizer = try Self.recognizer(.image)
        var all = HandsFigures()
        for image in try ReferenceMedia.images() {
            let reference = try ReferenceMedia.reference(image, as: ReferenceImage.self).gesture
            let ours = try recognizer.recognize(image: try MPImage(contentsOf: image.pixelsFile))
            let frame = HandsComparison.compare(ours, reference)
            var figures = HandsFigures()
            figures.add(frame)
            all.add(frame)
            print("same pixels \(figures.summary(image.name))")
            XCTAssertEqual(ours.landmarks.count, reference.landmarks.count, "\(image.name): hand count")
            XCTAssertEqual(ours.gestures.count, reference.gestures.count, "\(image.name): gesture count")
            for pair in frame.pairs {
                XCTAssertTrue(pair.sameHandedness, "\(image.name): handedness")
                XCTAssertEqual(pair.sameGesture, true, "\(image.name): top gesture")
                XCTAssertLessThanOrEqual(pair.landmarkMean, 0.001, "\(image.name): landmarks")
                XCTAssertLessThanOrEqual(pair.worldMax, 0.001, "\(image.name): world landmarks")
                XCTAssertLessThanOrEqual(pair.handednessScoreDifference, 0.01, "\(image.name): handedness score")
                XCTAssertLessThanOrEqual(pair.gestureScoreDifference ?? 0, 0.01, "\(image.name): gesture score")
            }
        }
        print("same pixels \(all.summary("all images"))")
    }

    /// Bar 2, images: decoded by us from the files.
    func testOwnDecodingOfImages() throws {
        let recognizer = try Self.recognizer(.image)
        var all = HandsFigures()
        for image in try ReferenceMedia.images() {
            let reference = try ReferenceMedia.reference(image, as: ReferenceImage.self).gesture
            let ours = try recognizer.recognize(image: try MPImage(contentsOf: image.mediaFile))
            var figures = HandsFigures()
            let frame = HandsComparison.compare(ours, reference)
            figures.add(frame)
            all.add(frame)
            print("own decoding \(figures.summary(image.name))")
        }
        print("own decoding \(all.summary("all images"))")
        Self.assertSecondBar(all, "images")
    }

    /// Bar 2, videos: every frame of each video in video mode, decoded by us.
    func testOwnDecodingOfVideos() throws {
        var all = HandsFigures()
        for video in try ReferenceMedia.videos() {
            let references = try video.frames(as: ReferenceFrame.self)
            let recognizer = try Self.recognizer(.video)
            let reader = try VideoReader(path: video.mediaFile.path)
            var figures = HandsFigures()
            var index = 0
            while let frame = try reader.nextFrame() {
                defer { index += 1 }
                guard index < references.count else { break }
                let reference = references[index]
                let ours = try recognizer.recognize(
                    videoFrame: MPImage(pixelBuffer: frame.image),
                    timestampInMilliseconds: reference.timestampInMilliseconds)
                let comparison = HandsComparison.compare(ours, reference.gesture)
                figures.add(comparison)
                all.add(comparison)
            }
            XCTAssertEqual(index, references.count, "\(video.name): frames decoded")
            print("video \(figures.summary(video.name))")
            Self.assertSecondBar(figures, video.name)
        }
        print("video \(all.summary("all videos"))")
    }

    /// The installed bundle (canned classifier without labels, same weights) gives the same
    /// hands and gestures as the reference bundle.
    func testInstalledBundleMatchesReferenceBundle() throws {
        let installed = try Self.recognizer(.image, bundle: SharedTestData.installedModel("gesture_recognizer.task"))
        let reference = try Self.recognizer(.image)
        for name in ["hand_thumb_up_left_01", "hands_two_open_palm_and_hanging", "hand_victory_right_01"] {
            let image = try MPImage(contentsOf: SharedTestData.file("reference/\(name).pixels.png"))
            let a = try installed.recognize(image: image)
            let b = try reference.recognize(image: image)
            XCTAssertEqual(a, b, name)
            XCTAssertFalse(a.gestures.isEmpty, name)
        }
    }

    static func assertSecondBar(_ figures: HandsFigures, _ name: String) {
        XCTAssertGreaterThanOrEqual(figures.sameCountFraction, 0.98, "\(name): same hand count")
        XCTAssertLessThanOrEqual(figures.landmarkMean, 0.01, "\(name): mean landmark distance")
        XCTAssertLessThanOrEqual(figures.worldMean, 0.01, "\(name): mean world landmark distance")
        XCTAssertGreaterThanOrEqual(figures.sameHandednessFraction, 0.97, "\(name): handedness")
        XCTAssertGreaterThanOrEqual(figures.sameGestureFraction, 0.97, "\(name): top gesture")
    }
}
