import VisionTasks

/// The positions of an ML Kit `Pose` in the form pose classification takes.
extension Pose {
    /// The 33 positions in the form `PoseClassifier` and `PoseSample` take: x, y, z in pixels,
    /// in `PoseLandmarkType` order (ML Kit's `PoseLandmark` constants' order).
    public var classificationLandmarks: [SIMD3<Float>] {
        landmarks.map { SIMD3(Float($0.position.x), Float($0.position.y), Float($0.position.z)) }
    }
}

/// ML Kit's `PoseClassifier.classify(Pose)`: classifying the façade's `Pose`.
extension PoseClassifier {
    /// The classification of an ML Kit `Pose` (ML Kit's `classify(Pose)`).
    public func classify(_ pose: Pose) -> PoseClassification {
        classify(pose.classificationLandmarks)
    }
}

/// Pose samples from the façade's `Pose`s (ML Kit's coordinates already).
extension PoseSample {
    /// A sample of class `className` from an ML Kit `Pose` (its pixel positions, as ML Kit's
    /// samples CSV holds them).
    public init(name: String, className: String, pose: Pose) throws {
        try self.init(name: name, className: className, landmarks: pose.classificationLandmarks)
    }
}
