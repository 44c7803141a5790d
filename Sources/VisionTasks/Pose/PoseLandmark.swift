/// The 33 body landmarks of MediaPipe's pose landmarker, by their index in
/// `PoseLandmarkerResult.landmarks[i]` and `.worldLandmarks[i]` (MediaPipe's `PoseLandmark`).
///
/// "Left" and "right" are the person's own sides (a person facing the camera has their left
/// side on the right of the image).
///
/// ```swift
/// let nose = result.landmarks[0][PoseLandmark.nose.rawValue]
/// ```
public enum PoseLandmark: Int, Sendable, CaseIterable, Codable {
    case nose = 0
    case leftEyeInner = 1
    case leftEye = 2
    case leftEyeOuter = 3
    case rightEyeInner = 4
    case rightEye = 5
    case rightEyeOuter = 6
    case leftEar = 7
    case rightEar = 8
    case mouthLeft = 9
    case mouthRight = 10
    case leftShoulder = 11
    case rightShoulder = 12
    case leftElbow = 13
    case rightElbow = 14
    case leftWrist = 15
    case rightWrist = 16
    case leftPinky = 17
    case rightPinky = 18
    case leftIndex = 19
    case rightIndex = 20
    case leftThumb = 21
    case rightThumb = 22
    case leftHip = 23
    case rightHip = 24
    case leftKnee = 25
    case rightKnee = 26
    case leftAnkle = 27
    case rightAnkle = 28
    case leftHeel = 29
    case rightHeel = 30
    case leftFootIndex = 31
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
