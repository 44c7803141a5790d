import Foundation
import TestSupport
import VisionTasks
import XCTest

/// The embedding and the k-NN classifier on stick figures: what they are invariant to, the
/// errors for samples no classifier can use, and agreement with the independent reference.
final class PoseClassifierTests: XCTestCase {
    private var poses = SyntheticPose(seed: 11)

    private func twoClasses(_ count: Int = 12) throws -> [PoseSample] {
        try poses.samples("squats_up", depth: 0, count: count) + poses.samples("squats_down", depth: 1, count: count)
    }

    func testEmbeddingIgnoresPlaceAndSizeAndMirrorsByNegatingX() throws {
        let points = poses.landmarks(depth: 0.5, jitter: 0)
        let embedding = try XCTUnwrap(PoseEmbedding(landmarks: points))
        XCTAssertEqual(embedding.vectors.count, 23)
        XCTAssertEqual(PoseEmbedding.vectorPairs.count, 23)
        // Moved by a whole number of pixels and scaled by a power of two: the same vectors up to
        // rounding.
        let moved = try XCTUnwrap(PoseEmbedding(landmarks: points.map { $0 * 2 + SIMD3(100, -50, 0) }))
        for (a, b) in zip(embedding.vectors, moved.vectors) {
            XCTAssertEqual(a.x, b.x, accuracy: 1e-3)
            XCTAssertEqual(a.y, b.y, accuracy: 1e-3)
            XCTAssertEqual(a.z, b.z, accuracy: 1e-3)
        }
        // Mirroring the landmarks (x × −1) gives exactly the embedding with x negated.
        let flipped = try XCTUnwrap(PoseEmbedding(landmarks: points.map { SIMD3($0.x * -1, $0.y, $0.z) }))
        XCTAssertEqual(flipped, embedding.mirrored)
        // The torso vector points from the hips to the shoulders (up: negative y), scaled to 100
        // per pose size; the pose size here is 2.5 torso sizes or the farthest landmark.
        XCTAssertLessThan(embedding.vectors[0].y, 0)
        XCTAssertNil(PoseEmbedding(landmarks: Array(points.prefix(32))))
        XCTAssertNil(PoseEmbedding(landmarks: Array(repeating: SIMD3(3, 4, 5), count: 33)))
    }

    func testClassifiesUpAndDownAndTheirMirrorImages() throws {
        let classifier = try PoseClassifier(samples: try twoClasses())
        XCTAssertEqual(classifier.classNames, ["squats_down", "squats_up"])
        XCTAssertEqual(classifier.sampleCounts, ["squats_down": 12, "squats_up": 12])
        XCTAssertEqual(classifier.confidenceRange, 10)
        let up = classifier.classify(poses.landmarks(depth: 0.05))
        XCTAssertEqual(up.confidences, ["squats_up": 10])
        XCTAssertEqual(up.maxConfidenceClass, "squats_up")
        let down = poses.landmarks(depth: 0.95)
        XCTAssertEqual(classifier.classify(down).confidences, ["squats_down": 10])
        // Mirrored left to right, and seen larger elsewhere in the frame: the same class.
        let mirrored = down.map { SIMD3(1280 - $0.x, $0.y * 1.5, $0.z * 1.5) }
        XCTAssertEqual(classifier.classify(mirrored).confidences, ["squats_down": 10])
        // Half way: some of each, 10 in all.
        let half = classifier.classify(poses.landmarks(depth: 0.5, jitter: 0))
        XCTAssertEqual(half.confidences.values.reduce(0, +), 10)
        // From normalised landmarks of a 640x480 frame.
        let normalised = down.map { NormalizedLandmark(x: $0.x / 640, y: $0.y / 480, z: $0.z / 640) }
        XCTAssertEqual(classifier.classify(landmarks: normalised, imageWidth: 640, imageHeight: 480).confidences,
                       ["squats_down": 10])
        // No usable pose: an empty classification, as ML Kit's for a pose without landmarks.
        XCTAssertTrue(classifier.classify([]).isEmpty)
        XCTAssertNil(classifier.classify([]).maxConfidenceClass)
    }

    /// The library against the reference written in TestSupport (no shared code), on poses all
    /// the way from standing to squatting and mirrored, with three classes: the same
    /// confidences exactly.
    func testConfidencesMatchTheIndependentReferenceExactly() throws {
        let samples = try twoClasses(20) + poses.samples("lunge", depth: 0.5, count: 15)
        let classifier = try PoseClassifier(samples: samples)
        let reference = ReferencePoseClassifier(
            samples: samples.map { $0.landmarks.map { (x: $0.x, y: $0.y, z: $0.z) } }, classes: samples.map(\.className))
        var mixed = 0
        for step in 0...200 {
            var points = poses.landmarks(depth: Float(step % 101) / 100, jitter: 6)
            if step > 100 { points = points.map { SIMD3(-$0.x, $0.y, $0.z) } }
            let ours = classifier.classify(points).confidences
            XCTAssertEqual(ours, reference.classify(points.map { (x: $0.x, y: $0.y, z: $0.z) }), "pose \(step)")
            if ours.count > 1 { mixed += 1 }
        }
        XCTAssertGreaterThan(mixed, 20, "the poses in between must test the vote, not only unanimous classes")
    }

    func testSamplesNoClassifierCanUseAreRefusedNamingWhy() throws {
        XCTAssertThrowsError(try PoseClassifier(samples: [])) { error in
            XCTAssertEqual(error as? PoseClassificationError, .noSamples)
        }
        XCTAssertThrowsError(try PoseClassifier(samples: try poses.samples("squats_up", depth: 0, count: 20))) { error in
            XCTAssertEqual(error as? PoseClassificationError, .oneClassOnly("squats_up"))
            XCTAssertEqual(String(describing: error),
                           "every pose sample is of class \"squats_up\"; a classifier needs samples of at least two classes")
        }
        let few = try poses.samples("squats_up", depth: 0, count: 5) + poses.samples("squats_down", depth: 1, count: 4)
        XCTAssertThrowsError(try PoseClassifier(samples: few)) { error in
            XCTAssertEqual(error as? PoseClassificationError, .fewerSamplesThanK(count: 9, k: 10))
            XCTAssertEqual(String(describing: error), "9 pose samples, fewer than the 10 nearest neighbours the classifier votes with")
        }
        var options = PoseClassifierOptions()
        options.meanDistanceTopK = 5
        XCTAssertEqual(try PoseClassifier(samples: few, options: options).confidenceRange, 5)
        for change in [{ (o: inout PoseClassifierOptions) in o.maxDistanceTopK = 0 },
                       { $0.axisWeights = SIMD3(1, .nan, 1) }, { $0.torsoMultiplier = 0 }] {
            var bad = PoseClassifierOptions()
            change(&bad)
            XCTAssertThrowsError(try PoseClassifier(samples: few, options: bad)) { error in
                guard case .invalidOptions = error as? PoseClassificationError else { return XCTFail("\(error)") }
            }
        }
    }
}
