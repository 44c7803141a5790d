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
    /// VisionTasks' addition: per pose, in the same order as `landmarks`, an identifier that
    /// stays the same while the person is tracked from frame to frame (video and live-stream
    /// mode; a new detection of a tracked person keeps the person's identifier) and is new for
    /// a person detected anew. Positive, increasing, never reused by one landmarker. Empty in
    /// image mode, where images are independent. Encoded only when not empty.
    public var poseIdentifiers: [Int]
    /// Per pose, the landmark model's pose presence score (not in MediaPipe's result, nor
    /// encoded; the Vision façade's observation confidence; ignored by equality).
    package var presenceScores = PresenceScores()

    /// A result from its parts (for tests and for code that builds results itself).
    public init(
        landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]], segmentationMasks: [MPMask] = [],
        timestampInMilliseconds: Int = 0, poseIdentifiers: [Int] = []
    ) {
        self.poseIdentifiers = poseIdentifiers
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.segmentationMasks = segmentationMasks
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    private enum CodingKeys: String, CodingKey {
        case landmarks, worldLandmarks, segmentationMasks, timestampInMilliseconds, poseIdentifiers
    }

    /// Decodes the property names as keys; `poseIdentifiers` may be absent (empty).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        landmarks = try c.decode([[NormalizedLandmark]].self, forKey: .landmarks)
        worldLandmarks = try c.decode([[Landmark]].self, forKey: .worldLandmarks)
        segmentationMasks = try c.decode([MPMask].self, forKey: .segmentationMasks)
        timestampInMilliseconds = try c.decode(Int.self, forKey: .timestampInMilliseconds)
        poseIdentifiers = try c.decodeIfPresent([Int].self, forKey: .poseIdentifiers) ?? []
    }

    /// Encodes the property names as keys; `poseIdentifiers` only when not empty, so image-mode
    /// results keep their earlier form.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(landmarks, forKey: .landmarks)
        try c.encode(worldLandmarks, forKey: .worldLandmarks)
        try c.encode(segmentationMasks, forKey: .segmentationMasks)
        try c.encode(timestampInMilliseconds, forKey: .timestampInMilliseconds)
        if !poseIdentifiers.isEmpty { try c.encode(poseIdentifiers, forKey: .poseIdentifiers) }
    }
}
