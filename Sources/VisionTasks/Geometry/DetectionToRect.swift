import Foundation

/// Turns a detection into a rotated region, as MediaPipe's DetectionsToRectsCalculator
/// (bounding-box mode with a rotation from two keypoints) or AlignmentPointsRectsCalculator
/// (centre and size from two keypoints).
package struct DetectionToRect: Sendable, Hashable {
    /// How centre and size are obtained.
    package enum Mode: Sendable, Hashable {
        /// Centre and size of the detection's bounding box.
        case boundingBox
        /// Centre at the start keypoint; a square of side 2 × the keypoints' distance in pixels.
        case alignmentPoints
    }

    package var mode: Mode
    /// Index of the keypoint the rotation vector starts at (and the centre, for alignment).
    package var startKeypoint: Int
    /// Index of the keypoint the rotation vector ends at.
    package var endKeypoint: Int
    /// The direction, in radians, the start→end vector is rotated to.
    package var targetAngle: Float

    package init(mode: Mode, startKeypoint: Int, endKeypoint: Int, targetAngle: Float) {
        self.mode = mode
        self.startKeypoint = startKeypoint
        self.endKeypoint = endKeypoint
        self.targetAngle = targetAngle
    }

    /// Palm detection → palm rect (hand_detector_graph.cc): bounding box, rotation from the
    /// wrist centre (keypoint 0) to the middle finger MCP (keypoint 2).
    ///
    /// MediaPipe sets `rotation_vector_target_angle(90)`, a field in radians, so the target
    /// is 90 rad (≡ 2.0354 rad after wrapping), not 90°. Reproducing this is required to
    /// match MediaPipe's landmarks (checked against its reference outputs, see
    /// docs/pipelines.md).
    package static let palm = DetectionToRect(
        mode: .boundingBox, startKeypoint: 0, endKeypoint: 2, targetAngle: 90)

    /// Pose detection → pose rect (pose_detector_graph.cc, AlignmentPointsRectsCalculator):
    /// centre at the hip midpoint (keypoint 0), size from keypoint 1 (the point above the
    /// head), rotation to 90°.
    package static let poseAlignment = DetectionToRect(
        mode: .alignmentPoints, startKeypoint: 0, endKeypoint: 1,
        targetAngle: Float(Double.pi * 90 / 180))

    /// The region of one detection in an image of the given size, or nil when the detection
    /// lacks the keypoints this conversion needs.
    package func rect(for detection: Detection, imageWidth: Int, imageHeight: Int) -> NormalizedRect? {
        let kps = detection.keypoints
        guard startKeypoint >= 0, endKeypoint >= 0, startKeypoint < kps.count,
            endKeypoint < kps.count
        else { return nil }
        let w = Float(imageWidth), h = Float(imageHeight)
        let x0 = kps[startKeypoint].x * w
        let y0 = kps[startKeypoint].y * h
        let x1 = kps[endKeypoint].x * w
        let y1 = kps[endKeypoint].y * h
        let rotation = Angle.rotation(from: x0, y0, to: x1, y1, targetAngle: targetAngle)
        switch mode {
        case .boundingBox:
            return NormalizedRect(
                xCenter: detection.xmin + detection.width / 2,
                yCenter: detection.ymin + detection.height / 2,
                width: detection.width, height: detection.height, rotation: rotation)
        case .alignmentPoints:
            let boxSize = Float(
                Double(sqrtf((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0))) * 2.0)
            return NormalizedRect(
                xCenter: x0 / w, yCenter: y0 / h, width: boxSize / w, height: boxSize / h,
                rotation: rotation)
        }
    }
}
