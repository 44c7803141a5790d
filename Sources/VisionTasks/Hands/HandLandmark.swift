/// The 21 hand landmarks of MediaPipe's hand landmark model, by their index in
/// `HandLandmarkerResult.landmarks[i]` and `.worldLandmarks[i]` (MediaPipe's `HandLandmark`).
///
/// <!-- snippet-prelude: let result = try HandLandmarker(modelPath: "hand_landmarker.task").detect(
///     image: try MPImage(pixels: [UInt8](repeating: 0, count: 12), width: 2, height: 2, format: .rgb8)) -->
/// ```swift
/// let tip = result.landmarks[0][HandLandmark.indexFingerTIP.rawValue]
/// ```
public enum HandLandmark: Int, Sendable, CaseIterable, Codable {
    /// The wrist.
    case wrist = 0
    /// The thumb's carpometacarpal joint, at its base.
    case thumbCMC = 1
    /// The thumb's metacarpophalangeal joint (its knuckle).
    case thumbMCP = 2
    /// The thumb's interphalangeal joint.
    case thumbIP = 3
    /// The thumb's tip.
    case thumbTIP = 4
    /// The index finger's metacarpophalangeal joint (its knuckle).
    case indexFingerMCP = 5
    /// The index finger's proximal interphalangeal joint.
    case indexFingerPIP = 6
    /// The index finger's distal interphalangeal joint.
    case indexFingerDIP = 7
    /// The index finger's tip.
    case indexFingerTIP = 8
    /// The middle finger's metacarpophalangeal joint (its knuckle).
    case middleFingerMCP = 9
    /// The middle finger's proximal interphalangeal joint.
    case middleFingerPIP = 10
    /// The middle finger's distal interphalangeal joint.
    case middleFingerDIP = 11
    /// The middle finger's tip.
    case middleFingerTIP = 12
    /// The ring finger's metacarpophalangeal joint (its knuckle).
    case ringFingerMCP = 13
    /// The ring finger's proximal interphalangeal joint.
    case ringFingerPIP = 14
    /// The ring finger's distal interphalangeal joint.
    case ringFingerDIP = 15
    /// The ring finger's tip.
    case ringFingerTIP = 16
    /// The pinky's metacarpophalangeal joint (its knuckle).
    case pinkyMCP = 17
    /// The pinky's proximal interphalangeal joint.
    case pinkyPIP = 18
    /// The pinky's distal interphalangeal joint.
    case pinkyDIP = 19
    /// The pinky's tip.
    case pinkyTIP = 20

    /// The number of hand landmarks (21).
    public static let count = 21
}

/// The lines of MediaPipe's hand skeleton (`MPPHandLandmarksConnections`), by part. Also
/// available as `HandLandmarker.handConnections` and friends, MediaPipe's names.
enum HandConnections {
    static let palm = connections([(0, 1), (0, 5), (9, 13), (13, 17), (5, 9), (0, 17)])
    static let thumb = connections([(1, 2), (2, 3), (3, 4)])
    static let indexFinger = connections([(5, 6), (6, 7), (7, 8)])
    static let middleFinger = connections([(9, 10), (10, 11), (11, 12)])
    static let ringFinger = connections([(13, 14), (14, 15), (15, 16)])
    static let pinky = connections([(17, 18), (18, 19), (19, 20)])
    /// All 21 lines: palm, thumb, index, middle, ring, pinky (MediaPipe's order).
    static let all = palm + thumb + indexFinger + middleFinger + ringFinger + pinky

    private static func connections(_ pairs: [(Int, Int)]) -> [Connection] {
        pairs.map { Connection(start: $0.0, end: $0.1) }
    }
}
