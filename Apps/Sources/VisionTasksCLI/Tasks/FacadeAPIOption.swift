import ArgumentParser

/// `--api` of `vision-tasks pose`: whose API's results to print.
enum PoseAPIOption: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// MediaPipe's `PoseLandmarker` (the default).
    case mediapipe
    /// ML Kit's `PoseDetector` (module VisionTasksMLKit): one person, pixels, inFrameLikelihood.
    case mlkit
    /// Apple Vision's `VNDetectHumanBodyPoseRequest` (module VisionTasksAppleVision): 19 joints.
    case vision
}

/// `--api` of `vision-tasks hands`: whose API's results to print.
enum HandsAPIOption: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// MediaPipe's `HandLandmarker` (the default).
    case mediapipe
    /// Apple Vision's `VNDetectHumanHandPoseRequest` (module VisionTasksAppleVision).
    case vision
}
