import Foundation
import LiteInterpreter

/// MediaPipe's HandLandmarkerGraph (docs/pipelines.md §3, §7): palm detection, the landmark
/// model on each hand region, duplicate removal and, in video and live-stream mode, region
/// tracking from frame to frame. `HandLandmarker` and `GestureRecognizer` both run it.
///
/// Keeps per-stream state (tracked regions); `VisionTaskRunner` never runs it concurrently
/// with itself.
final class HandLandmarkerGraph {
    /// The hand options `HandLandmarkerOptions` and `GestureRecognizerOptions` share, with
    /// MediaPipe's defaults; the options hold one of these and the graph runs with it.
    struct Configuration: Sendable, Equatable {
        var numHands = 1
        var minHandDetectionConfidence: Float = 0.5
        var minHandPresenceConfidence: Float = 0.5
        var minTrackingConfidence: Float = 0.5
        /// VisionTasks' addition: smoothing of the reported landmarks (nil: off).
        var landmarkSmoothing: HandLandmarkSmoothing? = nil
        /// VisionTasks' addition: the frames are mirror images; reported handedness is flipped.
        var inputIsMirrored = false

        /// MediaPipe's checks: `numHands` ≥ 1, every confidence in 0...1; valid smoothing.
        func validate() throws {
            try landmarkSmoothing?.validate()
            try TaskOptionChecks.checkCount(numHands, option: "numHands")
            try TaskOptionChecks.checkConfidences([
                "minHandDetectionConfidence": minHandDetectionConfidence,
                "minHandPresenceConfidence": minHandPresenceConfidence,
                "minTrackingConfidence": minTrackingConfidence,
            ])
        }
    }

    /// One hand of a frame, in the order MediaPipe reports them (tracked regions first).
    typealias Hand = HandLandmarksDetector.Hand

    /// Member names in a hand landmarker `.task` bundle (as in Google's bundles; found in a
    /// nested `hand_landmarker.task` too, as in `gesture_recognizer.task`).
    static let detectorMember = "hand_detector.tflite"
    static let landmarksMember = "hand_landmarks_detector.tflite"

    let configuration: Configuration
    /// The threads both models run on.
    let pool: WorkerPool
    private let palmDetector: SSDDetector
    private let landmarksDetector: HandLandmarksDetector
    private var tracker: RegionTracker
    private var smoother: TrackedHandsSmoother?

    /// The graph on the bundle's models, `threadCount` threads per model (`VisionTaskSetup`).
    /// The two models run one after another on one pool of threads.
    init(asset: ModelAsset, configuration: Configuration, threadCount: Int) throws {
        let detectorModel = try asset.model(named: Self.detectorMember)
        let landmarksModel = try asset.model(named: Self.landmarksMember)
        self.configuration = configuration
        let pool = try WorkerPool.forTask(threadCount: threadCount)
        self.pool = pool
        palmDetector = try SSDDetector(
            model: detectorModel,
            configuration: .palmDetection(minScore: configuration.minHandDetectionConfidence),
            pool: pool)
        landmarksDetector = try HandLandmarksDetector(
            model: landmarksModel, minPresence: configuration.minHandPresenceConfidence,
            pool: pool)
        tracker = .hands(
            maxHands: configuration.numHands, minTrackingConfidence: configuration.minTrackingConfidence)
        smoother = try configuration.landmarkSmoothing.map { try TrackedHandsSmoother(settings: $0) }
    }

    /// Processes one image or frame. `tracksAcrossFrames` (video, live stream) enables region
    /// tracking. After an error the tracked regions are forgotten, so that the next frame
    /// starts from palm detection instead of failing on the same regions again.
    func process(_ image: ImagePixels, tracksAcrossFrames: Bool) throws -> [Hand] {
        do {
            return try run(image, tracksAcrossFrames: tracksAcrossFrames)
        } catch {
            if tracksAcrossFrames {
                tracker.reset()
                smoother?.reset()
            }
            throw error
        }
    }

    /// The hands as the result reports them, after `process` (and after gesture
    /// classification, which needs the model's own landmarks and handedness): smoothed when
    /// `landmarkSmoothing` is set (video and live stream only), handedness flipped for
    /// mirrored input.
    func reported(
        _ hands: [Hand], imageWidth: Int, imageHeight: Int, tracksAcrossFrames: Bool, timestampInMilliseconds: Int
    ) -> [Hand] {
        var hands = hands
        if tracksAcrossFrames, var smoother {
            hands = smoother.apply(
                hands, imageWidth: imageWidth, imageHeight: imageHeight,
                timestampInMilliseconds: timestampInMilliseconds)
            self.smoother = smoother
        }
        if configuration.inputIsMirrored {
            for index in hands.indices {
                hands[index].handedness = Self.mirrored(hands[index].handedness)
            }
        }
        return hands
    }

    /// The other side with the same score: a mirror image shows a right hand as a left one.
    static func mirrored(_ handedness: ResultCategory) -> ResultCategory {
        handedness.categoryName == "Left"
            ? ResultCategory(index: 0, score: handedness.score, categoryName: "Right", displayName: "Right")
            : ResultCategory(index: 1, score: handedness.score, categoryName: "Left", displayName: "Left")
    }

    private func run(_ image: ImagePixels, tracksAcrossFrames: Bool) throws -> [Hand] {
        let regions: [NormalizedRect]
        if tracksAcrossFrames {
            let detected = tracker.needsDetection ? try detectRegions(image) : nil
            regions = tracker.regions(detected: detected)
        } else {
            regions = try detectRegions(image)
        }
        var hands: [Hand] = []
        for region in regions {
            if var hand = try landmarksDetector.detect(image, region: region) {
                // The identifier follows the hand into the region tracked in the next frame.
                hand.trackingID = region.rectID
                hand.nextFrameRegion?.rectID = region.rectID
                hands.append(hand)
            }
        }
        let duplicates = LandmarksDeduplication.handDuplicates(
            hands.map(\.landmarks), imageWidth: image.width, imageHeight: image.height)
        if !duplicates.isEmpty {
            hands = hands.indices.filter { !duplicates.contains($0) }.map { hands[$0] }
        }
        if tracksAcrossFrames {
            tracker.update(nextFrameRegions: hands.compactMap(\.nextFrameRegion))
        }
        return hands
    }

    /// The hand detector graph's hand regions: palm detections → palm rects → enlarged hand
    /// rects, clipped to `numHands` (in non-max-suppression order).
    private func detectRegions(_ image: ImagePixels) throws -> [NormalizedRect] {
        let detections = try palmDetector.detect(image, region: nil)
        var regions: [NormalizedRect] = []
        for detection in detections {
            guard regions.count < configuration.numHands else { break }
            guard
                let palm = DetectionToRect.palm.rect(
                    for: detection, imageWidth: image.width, imageHeight: image.height)
            else { continue }
            regions.append(
                RectTransformation.palmToHand.apply(
                    to: palm, imageWidth: image.width, imageHeight: image.height))
        }
        return regions
    }
}
