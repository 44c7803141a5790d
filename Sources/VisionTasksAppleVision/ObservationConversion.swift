import Foundation
import VisionTasks

/// MediaPipe's landmarks → Vision's observations: normalised coordinates flipped to a
/// lower-left origin, Vision's joint names, and the confidences docs/apple-vision.md explains.
enum ObservationConversion {
    /// A joint's confidence as reported: `confidence` when its location lies inside the image,
    /// 0 when the model put it outside (Vision sees no joint there; a program gating on
    /// `confidence > 0.3` then skips it).
    static func reported(_ confidence: Float, x: Float, y: Float) -> Float {
        (0...1).contains(x) && (0...1).contains(y) ? confidence : 0
    }

    /// One hand. Every joint's confidence is the hand's presence score (MediaPipe's hand model
    /// has one score per hand, not per joint), 0 outside the image. `label` is MediaPipe's
    /// handedness ("Left"/"Right"), the person's real side on unmirrored images; `mirrored`
    /// swaps it back for a mirrored upright picture.
    static func hand(
        landmarks: [NormalizedLandmark], label: String?, presence: Float, mirrored: Bool
    ) -> VNHumanHandPoseObservation {
        let names = VNHumanHandPoseObservation.JointName.mediaPipeOrder
        let points = zip(names, landmarks).map { name, l in
            VNRecognizedPoint(
                identifier: name.rawValue, location: CGPoint(x: CGFloat(l.x), y: 1 - CGFloat(l.y)),
                confidence: reported(presence, x: l.x, y: l.y))
        }
        var chirality: VNChirality
        switch label {
        case "Left": chirality = .left
        case "Right": chirality = .right
        default: chirality = .unknown
        }
        if mirrored { chirality = chirality == .left ? .right : chirality == .right ? .left : .unknown }
        return VNHumanHandPoseObservation(points: points, chirality: chirality, confidence: presence)
    }

    /// One body. A joint's confidence is min(visibility, presence) of its BlazePose landmark
    /// (in frame and not hidden), 0 outside the image; `neck` and `root` are midpoints whose
    /// confidence is the smaller of their two landmarks'. With `mirrored` each landmark takes
    /// its opposite-side twin, so that "left" stays the person's real left.
    static func body(landmarks: [NormalizedLandmark], presence: Float, mirrored: Bool) -> VNHumanBodyPoseObservation {
        func landmark(_ l: PoseLandmark) -> NormalizedLandmark? {
            let index = mirrored ? l.oppositeSide.rawValue : l.rawValue
            return index < landmarks.count ? landmarks[index] : nil
        }
        let points = BodyJointMapping.joints.map { joint -> VNRecognizedPoint in
            let parts = joint.landmarks.compactMap(landmark)
            guard !parts.isEmpty, parts.count == joint.landmarks.count else {
                return VNRecognizedPoint(identifier: joint.name.rawValue, location: .zero, confidence: 0)
            }
            let x = parts.map(\.x).reduce(0, +) / Float(parts.count)
            let y = parts.map(\.y).reduce(0, +) / Float(parts.count)
            let confidence = parts.map { min($0.visibility ?? 0, $0.presence ?? 0) }.min() ?? 0
            return VNRecognizedPoint(
                identifier: joint.name.rawValue, location: CGPoint(x: CGFloat(x), y: 1 - CGFloat(y)),
                confidence: reported(confidence, x: x, y: y))
        }
        return VNHumanBodyPoseObservation(points: points, confidence: presence)
    }

    /// Hands in Vision's order: largest first (area of the landmarks' bounding box in pixels).
    static func largestFirst(_ hands: [(observation: VNHumanHandPoseObservation, area: Double)]) -> [VNHumanHandPoseObservation] {
        hands.enumerated().sorted { a, b in
            a.element.area != b.element.area ? a.element.area > b.element.area : a.offset < b.offset
        }.map(\.element.observation)
    }

    /// The pixel area of the bounding box of `landmarks` in an image of `width` × `height`.
    static func boxArea(_ landmarks: [NormalizedLandmark], width: Int, height: Int) -> Double {
        guard let minX = landmarks.map(\.x).min(), let maxX = landmarks.map(\.x).max(),
            let minY = landmarks.map(\.y).min(), let maxY = landmarks.map(\.y).max()
        else { return 0 }
        return Double(maxX - minX) * Double(width) * Double(maxY - minY) * Double(height)
    }
}

extension VNError {
    /// A task's error as Vision reports errors: model problems are `.invalidModel`, bad
    /// arguments `.invalidArgument`, anything else `.internalError`, with the task's message.
    static func from(_ error: any Error) -> VNError {
        if let error = error as? VNError { return error }
        if let error = error as? TasksError {
            switch error {
            case .notFound: return VNError(.invalidModel, error.message)
            case .invalidArgument, .nonMonotonicTimestamp: return VNError(.invalidArgument, error.message)
            default: return VNError(.internalError, error.message)
            }
        }
        return VNError(.internalError, String(describing: error))
    }
}
