/// The 33 body landmarks, as ML Kit's `PoseLandmarkType`, in BlazePose's order (the raw
/// value is ML Kit's name string). "Left" and "right" are the person's own sides.
public enum PoseLandmarkType: String, Sendable, CaseIterable, Codable {
    case nose = "Nose"
    case leftEyeInner = "LeftEyeInner"
    case leftEye = "LeftEye"
    case leftEyeOuter = "LeftEyeOuter"
    case rightEyeInner = "RightEyeInner"
    case rightEye = "RightEye"
    case rightEyeOuter = "RightEyeOuter"
    case leftEar = "LeftEar"
    case rightEar = "RightEar"
    case mouthLeft = "MouthLeft"
    case mouthRight = "MouthRight"
    case leftShoulder = "LeftShoulder"
    case rightShoulder = "RightShoulder"
    case leftElbow = "LeftElbow"
    case rightElbow = "RightElbow"
    case leftWrist = "LeftWrist"
    case rightWrist = "RightWrist"
    case leftPinkyFinger = "LeftPinkyFinger"
    case rightPinkyFinger = "RightPinkyFinger"
    case leftIndexFinger = "LeftIndexFinger"
    case rightIndexFinger = "RightIndexFinger"
    case leftThumb = "LeftThumb"
    case rightThumb = "RightThumb"
    case leftHip = "LeftHip"
    case rightHip = "RightHip"
    case leftKnee = "LeftKnee"
    case rightKnee = "RightKnee"
    case leftAnkle = "LeftAnkle"
    case rightAnkle = "RightAnkle"
    case leftHeel = "LeftHeel"
    case rightHeel = "RightHeel"
    case leftToe = "LeftToe"
    case rightToe = "RightToe"

    /// The landmark's index in BlazePose's (and MediaPipe's `PoseLandmark`) order, 0...32.
    public var index: Int { Self.indices[self] ?? 0 }

    private static let indices: [PoseLandmarkType: Int] = Dictionary(
        uniqueKeysWithValues: allCases.enumerated().map { ($0.element, $0.offset) })
}
