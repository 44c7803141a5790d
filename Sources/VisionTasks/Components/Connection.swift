/// A line between two landmarks, by index, for drawing a skeleton (MediaPipe's `Connection`,
/// as returned by `HandLandmarker.handConnections` and `PoseLandmarker.poseLandmarks`).
public struct Connection: Sendable, Hashable, Codable {
    /// Index of the first landmark.
    public let start: Int
    /// Index of the second landmark.
    public let end: Int

    /// A connection from `start` to `end`.
    public init(start: Int, end: Int) {
        self.start = start
        self.end = end
    }
}
