/// What `PoseLandmarker` found in one image or frame, as MediaPipe's `PoseLandmarkerResult`:
/// one entry per detected pose in each list, in the same order.
///
/// `Codable` with the property names as keys; masks are encoded in full (see `MPMask`).
public struct PoseLandmarkerResult: Sendable, Hashable, Codable {
    /// Per pose, the 33 landmarks (`PoseLandmark`) in normalised coordinates of the upright
    /// image, with `visibility` and `presence`.
    public var landmarks: [[NormalizedLandmark]]
    /// Per pose, the 33 landmarks in metres, origin between the hips, with the same
    /// `visibility` and `presence` as `landmarks`.
    public var worldLandmarks: [[Landmark]]
    /// Per pose, a float confidence mask the size of the upright input image (1: the person),
    /// when `outputSegmentationMasks` is on; empty otherwise.
    public var segmentationMasks: [MPMask]
    /// The timestamp of the frame (0 in image mode).
    public var timestampInMilliseconds: Int
    /// Per pose, the landmark model's pose presence score (not in MediaPipe's result, nor
    /// encoded; the Vision façade's observation confidence; ignored by equality).
    package var presenceScores = PresenceScores()

    private enum CodingKeys: String, CodingKey {
        case landmarks, worldLandmarks, segmentationMasks, timestampInMilliseconds
    }

    /// A result from its parts (for tests and for code that builds results itself).
    public init(
        landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]], segmentationMasks: [MPMask] = [],
        timestampInMilliseconds: Int = 0
    ) {
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.segmentationMasks = segmentationMasks
        self.timestampInMilliseconds = timestampInMilliseconds
    }
}
