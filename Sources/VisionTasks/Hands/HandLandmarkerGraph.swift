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

        /// MediaPipe's checks: `numHands` ≥ 1, every confidence in 0...1.
        func validate() throws {
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
    private let palmDetector: SSDDetector
    private let landmarksDetector: HandLandmarksDetector
    private var tracker: RegionTracker

    /// The graph on the bundle's models, `threadCount` threads per model (`VisionTaskSetup`).
    init(asset: ModelAsset, configuration: Configuration, threadCount: Int) throws {
        let detectorModel = try asset.model(named: Self.detectorMember)
        let landmarksModel = try asset.model(named: Self.landmarksMember)
        self.configuration = configuration
        palmDetector = try SSDDetector(
            model: detectorModel,
            configuration: .palmDetection(minScore: configuration.minHandDetectionConfidence),
            threadCount: threadCount)
        landmarksDetector = try HandLandmarksDetector(
            model: landmarksModel, minPresence: configuration.minHandPresenceConfidence,
            threadCount: threadCount)
        tracker = .hands(
            maxHands: configuration.numHands, minTrackingConfidence: configuration.minTrackingConfidence)
    }

    /// Processes one image or frame. `tracksAcrossFrames` (video, live stream) enables region
    /// tracking. After an error the tracked regions are forgotten, so that the next frame
    /// starts from palm detection instead of failing on the same regions again.
    func process(_ image: ImagePixels, tracksAcrossFrames: Bool) throws -> [Hand] {
        do {
            return try run(image, tracksAcrossFrames: tracksAcrossFrames)
        } catch {
            if tracksAcrossFrames { tracker.reset() }
            throw error
        }
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
            if let hand = try landmarksDetector.detect(image, region: region) {
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
