import Foundation
import VisionTasks

/// One person's body pose, as Vision's `VNHumanBodyPoseObservation`: Vision's 19 joints in six
/// groups, computed from BlazePose's 33 landmarks (`neck` and `root` are the midpoints of the
/// shoulders and of the hips).
public final class VNHumanBodyPoseObservation: VNRecognizedPointsObservation, @unchecked Sendable {
    init(points: [VNRecognizedPoint], confidence: Float) {
        super.init(points: points, groups: JointsGroupName.layout, confidence: confidence)
    }

    /// The names of the joints in this observation (all 19).
    public var availableJointNames: [JointName] { availableNames(JointName.self) }

    /// The names of the groups in this observation.
    public var availableJointsGroupNames: [JointsGroupName] { availableGroupNames(JointsGroupName.self) }

    /// The joint `jointName`; `VNError(.invalidArgument)` for a name that is not a body joint.
    public func recognizedPoint(_ jointName: JointName) throws -> VNRecognizedPoint {
        try recognizedPoint(forKey: jointName.rawValue)
    }

    /// The joints of `jointsGroupName`, by name; `VNError(.invalidArgument)` for a name that is
    /// not a body group.
    public func recognizedPoints(_ jointsGroupName: JointsGroupName) throws -> [JointName: VNRecognizedPoint] {
        try points(in: jointsGroupName.rawValue, as: JointName.self)
    }

    /// A body joint's name, as Vision's `VNHumanBodyPoseObservation.JointName`. "Left" and
    /// "right" are the person's own sides.
    public struct JointName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The joint's key in the observation.
        public let rawValue: VNRecognizedPointKey
        /// A name from its key (an unknown key makes the accessors throw).
        public init(rawValue: VNRecognizedPointKey) { self.rawValue = rawValue }
        private init(_ key: String) { rawValue = VNRecognizedPointKey(rawValue: key) }

        /// The nose.
        public static let nose = JointName("head_joint")
        /// The person's left eye.
        public static let leftEye = JointName("left_eye_joint")
        /// The person's right eye.
        public static let rightEye = JointName("right_eye_joint")
        /// The person's left ear.
        public static let leftEar = JointName("left_ear_joint")
        /// The person's right ear.
        public static let rightEar = JointName("right_ear_joint")
        /// The neck: midpoint of the shoulders (BlazePose 11, 12).
        public static let neck = JointName("neck_1_joint")
        /// The person's left shoulder.
        public static let leftShoulder = JointName("left_shoulder_1_joint")
        /// The person's right shoulder.
        public static let rightShoulder = JointName("right_shoulder_1_joint")
        /// The person's left elbow.
        public static let leftElbow = JointName("left_forearm_joint")
        /// The person's right elbow.
        public static let rightElbow = JointName("right_forearm_joint")
        /// The person's left wrist.
        public static let leftWrist = JointName("left_hand_joint")
        /// The person's right wrist.
        public static let rightWrist = JointName("right_hand_joint")
        /// The person's left hip.
        public static let leftHip = JointName("left_upLeg_joint")
        /// The person's right hip.
        public static let rightHip = JointName("right_upLeg_joint")
        /// The root: midpoint of the hips (BlazePose 23, 24).
        public static let root = JointName("root")
        /// The person's left knee.
        public static let leftKnee = JointName("left_leg_joint")
        /// The person's right knee.
        public static let rightKnee = JointName("right_leg_joint")
        /// The person's left ankle.
        public static let leftAnkle = JointName("left_foot_joint")
        /// The person's right ankle.
        public static let rightAnkle = JointName("right_foot_joint")

        /// The key.
        public var description: String { rawValue.rawValue }
    }

    /// A group of body joints, as Vision's `VNHumanBodyPoseObservation.JointsGroupName`.
    public struct JointsGroupName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The group's key in the observation.
        public let rawValue: VNRecognizedPointGroupKey
        /// A name from its key (an unknown key makes the accessors throw).
        public init(rawValue: VNRecognizedPointGroupKey) { self.rawValue = rawValue }
        private init(_ key: String) { rawValue = VNRecognizedPointGroupKey(rawValue: key) }

        /// Nose, eyes and ears.
        public static let face = JointsGroupName("VNBLKFACE")
        /// Neck, shoulders, hips and root.
        public static let torso = JointsGroupName("VNBLKTORSO")
        /// Left shoulder, elbow and wrist.
        public static let leftArm = JointsGroupName("VNBLKLARM")
        /// Right shoulder, elbow and wrist.
        public static let rightArm = JointsGroupName("VNBLKRARM")
        /// Left hip, knee and ankle.
        public static let leftLeg = JointsGroupName("VNBLKLLEG")
        /// Right hip, knee and ankle.
        public static let rightLeg = JointsGroupName("VNBLKRLEG")
        /// All 19 joints.
        public static let all = JointsGroupName(rawValue: .all)

        static let layout: [(VNRecognizedPointGroupKey, [VNRecognizedPointKey])] = [
            (face, [JointName.nose, .leftEye, .rightEye, .leftEar, .rightEar]),
            (torso, [.neck, .leftShoulder, .rightShoulder, .leftHip, .rightHip, .root]),
            (leftArm, [.leftShoulder, .leftElbow, .leftWrist]),
            (rightArm, [.rightShoulder, .rightElbow, .rightWrist]),
            (leftLeg, [.leftHip, .leftKnee, .leftAnkle]),
            (rightLeg, [.rightHip, .rightKnee, .rightAnkle]),
            (all, BodyJointMapping.joints.map(\.name)),
        ].map { ($0.0.rawValue, $0.1.map(\.rawValue)) }

        /// The key.
        public var description: String { rawValue.rawValue }
    }
}

/// How Vision's 19 body joints come from BlazePose's 33 landmarks.
enum BodyJointMapping {
    /// A joint, its Swift name and the BlazePose landmarks it is made of (two for a midpoint).
    struct Joint {
        var label: String
        var name: VNHumanBodyPoseObservation.JointName
        var landmarks: [PoseLandmark]
    }

    /// Vision's joints in Vision's order, each from one landmark or the midpoint of two.
    static let joints: [Joint] = [
        Joint(label: "nose", name: .nose, landmarks: [.nose]),
        Joint(label: "leftEye", name: .leftEye, landmarks: [.leftEye]),
        Joint(label: "rightEye", name: .rightEye, landmarks: [.rightEye]),
        Joint(label: "leftEar", name: .leftEar, landmarks: [.leftEar]),
        Joint(label: "rightEar", name: .rightEar, landmarks: [.rightEar]),
        Joint(label: "neck", name: .neck, landmarks: [.leftShoulder, .rightShoulder]),
        Joint(label: "leftShoulder", name: .leftShoulder, landmarks: [.leftShoulder]),
        Joint(label: "rightShoulder", name: .rightShoulder, landmarks: [.rightShoulder]),
        Joint(label: "leftElbow", name: .leftElbow, landmarks: [.leftElbow]),
        Joint(label: "rightElbow", name: .rightElbow, landmarks: [.rightElbow]),
        Joint(label: "leftWrist", name: .leftWrist, landmarks: [.leftWrist]),
        Joint(label: "rightWrist", name: .rightWrist, landmarks: [.rightWrist]),
        Joint(label: "leftHip", name: .leftHip, landmarks: [.leftHip]),
        Joint(label: "rightHip", name: .rightHip, landmarks: [.rightHip]),
        Joint(label: "root", name: .root, landmarks: [.leftHip, .rightHip]),
        Joint(label: "leftKnee", name: .leftKnee, landmarks: [.leftKnee]),
        Joint(label: "rightKnee", name: .rightKnee, landmarks: [.rightKnee]),
        Joint(label: "leftAnkle", name: .leftAnkle, landmarks: [.leftAnkle]),
        Joint(label: "rightAnkle", name: .rightAnkle, landmarks: [.rightAnkle]),
    ]
}

extension VNHumanBodyPoseObservation.JointName {
    /// Vision's 19 body joints with their Swift names, in Vision's order.
    @_spi(Apps) public static let named: [(name: String, joint: Self)] = BodyJointMapping.joints.map { ($0.label, $0.name) }
}
