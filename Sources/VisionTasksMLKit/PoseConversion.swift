import Foundation
import VisionTasks

/// MediaPipe's pose landmarks → ML Kit's `Pose`.
enum PoseConversion {
    /// `landmarks` (MediaPipe: normalised to the upright image, z in the scale of x) as ML Kit
    /// gives them: pixels, z × image width, `inFrameLikelihood` = presence. With `mirrored`
    /// (the upright picture is a mirror image of the camera's view) each landmark takes the
    /// position of its opposite-side twin, so that "left" stays the person's real left.
    static func pose(from landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int, mirrored: Bool) -> Pose {
        let width = CGFloat(imageWidth), height = CGFloat(imageHeight)
        let points = PoseLandmarkType.allCases.map { type -> PoseLandmark in
            let source = mirrored ? (VisionTasks.PoseLandmark(rawValue: type.index)?.oppositeSide.rawValue ?? type.index) : type.index
            guard source < landmarks.count else {
                return PoseLandmark(type: type, position: Vision3DPoint(x: 0, y: 0, z: 0), inFrameLikelihood: 0)
            }
            let l = landmarks[source]
            return PoseLandmark(
                type: type,
                position: Vision3DPoint(x: CGFloat(l.x) * width, y: CGFloat(l.y) * height, z: CGFloat(l.z) * width),
                inFrameLikelihood: l.presence ?? 0)
        }
        return Pose(landmarks: points)
    }
}
