import Foundation
import VisionTasks

/// Revision 1 of `VNDetectHumanHandPoseRequest`.
public let VNDetectHumanHandPoseRequestRevision1 = 1

/// Finds hands and their 21 joints, as Vision's `VNDetectHumanHandPoseRequest`, running
/// MediaPipe's hand landmarker (palm detector + hand landmark model) underneath.
///
/// <!-- snippet-prelude: import VisionTasks
/// let frame = try PixelBuffer(width: 640, height: 480, format: .rgb8, bytes: [UInt8](repeating: 0, count: 640 * 480 * 3)) -->
/// ```swift
/// let handPoseRequest = VNDetectHumanHandPoseRequest()
/// handPoseRequest.maximumHandCount = 1
/// let handler = VNImageRequestHandler(cvPixelBuffer: frame, orientation: .up, options: [:])
/// try handler.perform([handPoseRequest])
/// guard let observation = handPoseRequest.results?.first else { return }
/// ```
///
/// Results are ordered largest hand first (the area of the joints' bounding box), as Vision
/// orders them. The model is `hand_landmarker.task` in the model folder
/// (`ModelStore.defaultDirectory`) unless `modelAssetPath` names another bundle; a missing
/// model makes `perform` throw `VNError(.invalidModel)`.
public final class VNDetectHumanHandPoseRequest: VNRequest, @unchecked Sendable {
    /// The most hands to report (default 2, at least 1), the largest ones, as in Vision.
    ///
    /// Underneath, the hand landmarker looks for `max(2, maximumHandCount)` hands (the palm
    /// detector's best-scored ones, as MediaPipe's `numHands`); of those the largest
    /// `maximumHandCount` are reported. So with 1, the larger of two visible hands is the
    /// one reported, whichever the palm detector scored higher; with 2 or more and more hands
    /// visible than that, the palm detector's scores decide which hands are looked at.
    public var maximumHandCount = 2

    /// VisionTasks' addition: a hand landmarker `.task` bundle to use instead of
    /// `hand_landmarker.task` in the model folder.
    public var modelAssetPath: String?

    /// The hands found by the last perform, largest first; nil before a perform or after an error.
    public private(set) var results: [VNHumanHandPoseObservation]?

    /// The model bundle a perform would use.
    public var resolvedModelAssetPath: String {
        modelAssetPath ?? ModelStore().path(for: .handLandmarkerBundle).path
    }

    override func clearResults() { results = nil }

    override func perform(on frame: RequestFrame, slot: TaskSlot) throws {
        guard maximumHandCount >= 1 else {
            throw VNError(.invalidOption, "maximumHandCount must be at least 1, got \(maximumHandCount)")
        }
        let path = resolvedModelAssetPath, count = Self.landmarkerHandCount(maximumHandCount)
        let result = try slot.detect(frame, settings: [path, count]) { mode in
            let options = HandLandmarkerOptions()
            options.baseOptions.modelAssetPath = path
            options.runningMode = mode
            options.numHands = count
            return try HandLandmarker(options: options)
        }
        var hands: [(observation: VNHumanHandPoseObservation, area: Double)] = []
        for (i, landmarks) in result.landmarks.enumerated() {
            let presence = result.presenceScores[i] ?? 0
            let observation = ObservationConversion.hand(
                landmarks: landmarks, label: result.handedness.indices.contains(i) ? result.handedness[i].first?.categoryName : nil,
                presence: presence,
                mirrored: frame.mirrored)
            hands.append((observation, ObservationConversion.boxArea(landmarks, width: frame.image.width, height: frame.image.height)))
        }
        results = Array(ObservationConversion.largestFirst(hands).prefix(maximumHandCount))
    }

    /// How many hands the hand landmarker looks for so that the largest `maximumHandCount`
    /// can be reported: at least 2 (MediaPipe's default `numHands`), so that a request for one
    /// hand still sees a second, larger one. The price, with `maximumHandCount` 1: a second
    /// visible hand costs one more run of the hand landmark model, and in a sequence the palm
    /// detector keeps running while fewer than two hands are tracked (as with the default 2).
    static func landmarkerHandCount(_ maximumHandCount: Int) -> Int { max(2, maximumHandCount) }
}
