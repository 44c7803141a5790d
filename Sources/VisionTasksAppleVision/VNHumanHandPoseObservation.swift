import Foundation
import VisionTasks

/// One hand, as Vision's `VNHumanHandPoseObservation`: 21 joints in five groups, which hand
/// it is (`chirality`), and how sure the model is that it is a hand (`confidence`).
///
/// <!-- snippet-prelude: import VisionTasks
/// let frame = try PixelBuffer(width: 640, height: 480, format: .rgb8, bytes: [UInt8](repeating: 0, count: 640 * 480 * 3))
/// let request = VNDetectHumanHandPoseRequest()
/// try VNImageRequestHandler(cvPixelBuffer: frame, orientation: .up, options: [:]).perform([request])
/// guard let observation = request.results?.first else { return } -->
/// ```swift
/// import Foundation   // CGPoint
///
/// let thumbPoints = try observation.recognizedPoints(.thumb)
/// guard let tip = thumbPoints[.thumbTip], tip.confidence > 0.3 else { return }
/// let topLeft = CGPoint(x: tip.location.x, y: 1 - tip.location.y)
/// ```
public final class VNHumanHandPoseObservation: VNRecognizedPointsObservation, @unchecked Sendable {
    /// The person's hand: left or right (docs/apple-vision.md, "Chirality", gives the
    /// evidence for reading MediaPipe's handedness this way).
    public let chirality: VNChirality

    init(points: [VNRecognizedPoint], chirality: VNChirality, confidence: Float) {
        self.chirality = chirality
        super.init(points: points, groups: JointsGroupName.layout, confidence: confidence)
    }

    /// The names of the joints in this observation (all 21).
    public var availableJointNames: [JointName] { availableNames(JointName.self) }

    /// The names of the groups in this observation (the five fingers and `all`).
    public var availableJointsGroupNames: [JointsGroupName] { availableGroupNames(JointsGroupName.self) }

    /// The joint `jointName`; `VNError(.invalidArgument)` for a name that is not a hand joint.
    public func recognizedPoint(_ jointName: JointName) throws -> VNRecognizedPoint {
        try recognizedPoint(forKey: jointName.rawValue)
    }

    /// The joints of `jointsGroupName`, by name; `VNError(.invalidArgument)` for a name that is
    /// not a hand group.
    public func recognizedPoints(_ jointsGroupName: JointsGroupName) throws -> [JointName: VNRecognizedPoint] {
        try points(in: jointsGroupName.rawValue, as: JointName.self)
    }

    /// A hand joint's name, as Vision's `VNHumanHandPoseObservation.JointName`.
    public struct JointName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The joint's key in the observation.
        public let rawValue: VNRecognizedPointKey
        /// A name from its key (an unknown key makes the accessors throw).
        public init(rawValue: VNRecognizedPointKey) { self.rawValue = rawValue }
        private init(_ key: String) { rawValue = VNRecognizedPointKey(rawValue: key) }

        /// The wrist.
        public static let wrist = JointName("VNHLKWRI")
        /// The thumb's carpometacarpal joint, at its base.
        public static let thumbCMC = JointName("VNHLKTCMC")
        /// The thumb's metacarpophalangeal joint.
        public static let thumbMP = JointName("VNHLKTMP")
        /// The thumb's interphalangeal joint.
        public static let thumbIP = JointName("VNHLKTIP")
        /// The thumb's tip.
        public static let thumbTip = JointName("VNHLKTTIP")
        /// The index finger's metacarpophalangeal joint (knuckle).
        public static let indexMCP = JointName("VNHLKIMCP")
        /// The index finger's proximal interphalangeal joint.
        public static let indexPIP = JointName("VNHLKIPIP")
        /// The index finger's distal interphalangeal joint.
        public static let indexDIP = JointName("VNHLKIDIP")
        /// The index finger's tip.
        public static let indexTip = JointName("VNHLKITIP")
        /// The middle finger's metacarpophalangeal joint (knuckle).
        public static let middleMCP = JointName("VNHLKMMCP")
        /// The middle finger's proximal interphalangeal joint.
        public static let middlePIP = JointName("VNHLKMPIP")
        /// The middle finger's distal interphalangeal joint.
        public static let middleDIP = JointName("VNHLKMDIP")
        /// The middle finger's tip.
        public static let middleTip = JointName("VNHLKMTIP")
        /// The ring finger's metacarpophalangeal joint (knuckle).
        public static let ringMCP = JointName("VNHLKRMCP")
        /// The ring finger's proximal interphalangeal joint.
        public static let ringPIP = JointName("VNHLKRPIP")
        /// The ring finger's distal interphalangeal joint.
        public static let ringDIP = JointName("VNHLKRDIP")
        /// The ring finger's tip.
        public static let ringTip = JointName("VNHLKRTIP")
        /// The little finger's metacarpophalangeal joint (knuckle).
        public static let littleMCP = JointName("VNHLKPMCP")
        /// The little finger's proximal interphalangeal joint.
        public static let littlePIP = JointName("VNHLKPPIP")
        /// The little finger's distal interphalangeal joint.
        public static let littleDIP = JointName("VNHLKPDIP")
        /// The little finger's tip.
        public static let littleTip = JointName("VNHLKPTIP")

        /// The 21 joints with their Swift names, in MediaPipe's hand landmark order
        /// (`HandLandmark` raw values 0...20).
        @_spi(Apps) public static let named: [(name: String, joint: JointName)] = [
            ("wrist", .wrist), ("thumbCMC", .thumbCMC), ("thumbMP", .thumbMP), ("thumbIP", .thumbIP),
            ("thumbTip", .thumbTip), ("indexMCP", .indexMCP), ("indexPIP", .indexPIP), ("indexDIP", .indexDIP),
            ("indexTip", .indexTip), ("middleMCP", .middleMCP), ("middlePIP", .middlePIP),
            ("middleDIP", .middleDIP), ("middleTip", .middleTip), ("ringMCP", .ringMCP), ("ringPIP", .ringPIP),
            ("ringDIP", .ringDIP), ("ringTip", .ringTip), ("littleMCP", .littleMCP), ("littlePIP", .littlePIP),
            ("littleDIP", .littleDIP), ("littleTip", .littleTip),
        ]

        /// The 21 joints in MediaPipe's hand landmark order.
        static let mediaPipeOrder: [JointName] = named.map(\.joint)

        /// The key.
        public var description: String { rawValue.rawValue }
    }

    /// A group of hand joints, as Vision's `VNHumanHandPoseObservation.JointsGroupName`.
    public struct JointsGroupName: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The group's key in the observation.
        public let rawValue: VNRecognizedPointGroupKey
        /// A name from its key (an unknown key makes the accessors throw).
        public init(rawValue: VNRecognizedPointGroupKey) { self.rawValue = rawValue }
        private init(_ key: String) { rawValue = VNRecognizedPointGroupKey(rawValue: key) }

        /// The thumb: CMC, MP, IP, tip.
        public static let thumb = JointsGroupName("VNHLRKT")
        /// The index finger: MCP, PIP, DIP, tip.
        public static let indexFinger = JointsGroupName("VNHLRKI")
        /// The middle finger.
        public static let middleFinger = JointsGroupName("VNHLRKM")
        /// The ring finger.
        public static let ringFinger = JointsGroupName("VNHLRKR")
        /// The little finger.
        public static let littleFinger = JointsGroupName("VNHLRKP")
        /// All 21 joints, the wrist included.
        public static let all = JointsGroupName(rawValue: .all)

        /// The groups and their joints (the wrist is only in `all`, as in Vision).
        static let layout: [(VNRecognizedPointGroupKey, [VNRecognizedPointKey])] = {
            let order = JointName.mediaPipeOrder.map(\.rawValue)
            return [
                (thumb.rawValue, Array(order[1...4])),
                (indexFinger.rawValue, Array(order[5...8])),
                (middleFinger.rawValue, Array(order[9...12])),
                (ringFinger.rawValue, Array(order[13...16])),
                (littleFinger.rawValue, Array(order[17...20])),
                (all.rawValue, order),
            ]
        }()

        /// The key.
        public var description: String { rawValue.rawValue }
    }
}
