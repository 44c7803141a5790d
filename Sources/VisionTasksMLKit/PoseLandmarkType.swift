/// The 33 body landmarks, as ML Kit's `PoseLandmarkType`, in BlazePose's order (the raw
/// value is ML Kit's name string). "Left" and "right" are the person's own sides.
public enum PoseLandmarkType: String, Sendable, CaseIterable, Codable {
    /// The nose (BlazePose landmark 0).
    case nose = "Nose"
    /// The left eye inner (BlazePose landmark 1).
    case leftEyeInner = "LeftEyeInner"
    /// The left eye (BlazePose landmark 2).
    case leftEye = "LeftEye"
    /// The left eye outer (BlazePose landmark 3).
    case leftEyeOuter = "LeftEyeOuter"
    /// The right eye inner (BlazePose landmark 4).
    case rightEyeInner = "RightEyeInner"
    /// The right eye (BlazePose landmark 5).
    case rightEye = "RightEye"
    /// The right eye outer (BlazePose landmark 6).
    case rightEyeOuter = "RightEyeOuter"
    /// The left ear (BlazePose landmark 7).
    case leftEar = "LeftEar"
    /// The right ear (BlazePose landmark 8).
    case rightEar = "RightEar"
    /// The mouth left (BlazePose landmark 9).
    case mouthLeft = "MouthLeft"
    /// The mouth right (BlazePose landmark 10).
    case mouthRight = "MouthRight"
    /// The left shoulder (BlazePose landmark 11).
    case leftShoulder = "LeftShoulder"
    /// The right shoulder (BlazePose landmark 12).
    case rightShoulder = "RightShoulder"
    /// The left elbow (BlazePose landmark 13).
    case leftElbow = "LeftElbow"
    /// The right elbow (BlazePose landmark 14).
    case rightElbow = "RightElbow"
    /// The left wrist (BlazePose landmark 15).
    case leftWrist = "LeftWrist"
    /// The right wrist (BlazePose landmark 16).
    case rightWrist = "RightWrist"
    /// The left pinky finger (BlazePose landmark 17).
    case leftPinkyFinger = "LeftPinkyFinger"
    /// The right pinky finger (BlazePose landmark 18).
    case rightPinkyFinger = "RightPinkyFinger"
    /// The left index finger (BlazePose landmark 19).
    case leftIndexFinger = "LeftIndexFinger"
    /// The right index finger (BlazePose landmark 20).
    case rightIndexFinger = "RightIndexFinger"
    /// The left thumb (BlazePose landmark 21).
    case leftThumb = "LeftThumb"
    /// The right thumb (BlazePose landmark 22).
    case rightThumb = "RightThumb"
    /// The left hip (BlazePose landmark 23).
    case leftHip = "LeftHip"
    /// The right hip (BlazePose landmark 24).
    case rightHip = "RightHip"
    /// The left knee (BlazePose landmark 25).
    case leftKnee = "LeftKnee"
    /// The right knee (BlazePose landmark 26).
    case rightKnee = "RightKnee"
    /// The left ankle (BlazePose landmark 27).
    case leftAnkle = "LeftAnkle"
    /// The right ankle (BlazePose landmark 28).
    case rightAnkle = "RightAnkle"
    /// The left heel (BlazePose landmark 29).
    case leftHeel = "LeftHeel"
    /// The right heel (BlazePose landmark 30).
    case rightHeel = "RightHeel"
    /// The left toe (BlazePose landmark 31).
    case leftToe = "LeftToe"
    /// The right toe (BlazePose landmark 32).
    case rightToe = "RightToe"

    /// The landmark's index in BlazePose's (and MediaPipe's `PoseLandmark`) order, 0...32.
    public var index: Int { Self.indices[self] ?? 0 }

    private static let indices: [PoseLandmarkType: Int] = Dictionary(
        uniqueKeysWithValues: allCases.enumerated().map { ($0.element, $0.offset) })
}
