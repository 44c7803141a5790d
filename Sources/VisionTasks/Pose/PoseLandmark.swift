/// The 33 body landmarks of MediaPipe's pose landmarker, by their index in
/// `PoseLandmarkerResult.landmarks[i]` and `.worldLandmarks[i]` (MediaPipe's `PoseLandmark`).
///
/// "Left" and "right" are the person's own sides (a person facing the camera has their left
/// side on the right of the image).
///
/// <!-- snippet-prelude: let result = try PoseLandmarker(modelPath: "pose_landmarker_full.task").detect(
///     image: try MPImage(pixels: [UInt8](repeating: 0, count: 12), width: 2, height: 2, format: .rgb8)) -->
/// ```swift
/// let nose = result.landmarks[0][PoseLandmark.nose.rawValue]
/// ```
public enum PoseLandmark: Int, Sendable, CaseIterable, Codable {
    /// The tip of the nose.
    case nose = 0
    /// The inner corner of the left eye.
    case leftEyeInner = 1
    /// The centre of the left eye.
    case leftEye = 2
    /// The outer corner of the left eye.
    case leftEyeOuter = 3
    /// The inner corner of the right eye.
    case rightEyeInner = 4
    /// The centre of the right eye.
    case rightEye = 5
    /// The outer corner of the right eye.
    case rightEyeOuter = 6
    /// The left ear.
    case leftEar = 7
    /// The right ear.
    case rightEar = 8
    /// The left corner of the mouth.
    case mouthLeft = 9
    /// The right corner of the mouth.
    case mouthRight = 10
    /// The left shoulder.
    case leftShoulder = 11
    /// The right shoulder.
    case rightShoulder = 12
    /// The left elbow.
    case leftElbow = 13
    /// The right elbow.
    case rightElbow = 14
    /// The left wrist.
    case leftWrist = 15
    /// The right wrist.
    case rightWrist = 16
    /// The left hand's pinky knuckle.
    case leftPinky = 17
    /// The right hand's pinky knuckle.
    case rightPinky = 18
    /// The left hand's index finger knuckle.
    case leftIndex = 19
    /// The right hand's index finger knuckle.
    case rightIndex = 20
    /// The left hand's thumb knuckle.
    case leftThumb = 21
    /// The right hand's thumb knuckle.
    case rightThumb = 22
    /// The left hip.
    case leftHip = 23
    /// The right hip.
    case rightHip = 24
    /// The left knee.
    case leftKnee = 25
    /// The right knee.
    case rightKnee = 26
    /// The left ankle.
    case leftAnkle = 27
    /// The right ankle.
    case rightAnkle = 28
    /// The left heel.
    case leftHeel = 29
    /// The right heel.
    case rightHeel = 30
    /// The tip of the left foot (the big toe).
    case leftFootIndex = 31
    /// The tip of the right foot (the big toe).
    case rightFootIndex = 32

    /// The number of pose landmarks (33).
    public static let count = 33

    /// The lines of MediaPipe's pose skeleton (`MPPPoseLandmarksConnections`, 35 connections):
    /// face, shoulders, arms and hands, torso, legs and feet. Also available as
    /// `PoseLandmarker.poseLandmarks`, MediaPipe's name.
    public static let connections: [Connection] = [
        (0, 1), (1, 2), (2, 3), (3, 7), (0, 4), (4, 5), (5, 6), (6, 8), (9, 10),
        (11, 12), (11, 13), (13, 15), (15, 17), (15, 19), (15, 21), (17, 19),
        (12, 14), (14, 16), (16, 18), (16, 20), (16, 22), (18, 20),
        (11, 23), (12, 24), (23, 24), (23, 25), (24, 26), (25, 27), (26, 28),
        (27, 29), (28, 30), (29, 31), (30, 32), (27, 31), (28, 32),
    ].map { Connection(start: $0.0, end: $0.1) }
}
