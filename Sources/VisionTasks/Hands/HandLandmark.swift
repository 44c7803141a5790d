/// The 21 hand landmarks of MediaPipe's hand landmark model, by their index in
/// `HandLandmarkerResult.landmarks[i]` and `.worldLandmarks[i]` (MediaPipe's `HandLandmark`).
///
/// ```swift
/// let tip = result.landmarks[0][HandLandmark.indexFingerTIP.rawValue]
/// ```
public enum HandLandmark: Int, Sendable, CaseIterable, Codable {
    case wrist = 0
    case thumbCMC = 1
    case thumbMCP = 2
    case thumbIP = 3
    case thumbTIP = 4
    case indexFingerMCP = 5
    case indexFingerPIP = 6
    case indexFingerDIP = 7
    case indexFingerTIP = 8
    case middleFingerMCP = 9
    case middleFingerPIP = 10
    case middleFingerDIP = 11
    case middleFingerTIP = 12
    case ringFingerMCP = 13
    case ringFingerPIP = 14
    case ringFingerDIP = 15
    case ringFingerTIP = 16
    case pinkyMCP = 17
    case pinkyPIP = 18
    case pinkyDIP = 19
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
