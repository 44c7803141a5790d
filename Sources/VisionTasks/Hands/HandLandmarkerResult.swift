/// What `HandLandmarker` found in one image or frame, as MediaPipe's `HandLandmarkerResult`:
/// one entry per detected hand in each list, in the same order.
///
/// `Codable` in the form of MediaPipe's reference files (`landmarks`, `worldLandmarks`,
/// `handedness`); the timestamp and hand identifiers are not encoded.
public struct HandLandmarkerResult: Sendable, Hashable, Codable {
    /// Per hand, the 21 landmarks (`HandLandmark`) in normalised coordinates of the upright
    /// image; `z` is depth relative to the wrist, in about the scale of `x`.
    public var landmarks: [[NormalizedLandmark]]
    /// Per hand, the 21 landmarks in metres, origin at the hand's approximate geometric centre.
    public var worldLandmarks: [[Landmark]]
    /// Per hand, one category: "Left" or "Right" with its score, as MediaPipe reports it.
    /// MediaPipe's older docs say the model assumes a mirrored (selfie) image, but on
    /// unmirrored photos it mostly reports the hand's real side (8 of the 9 shared photos
    /// whose side is named and where a hand is found; docs/apple-vision.md, "Chirality: the
    /// evidence"); for mirrored frames set the options' `inputIsMirrored`.
    public var handedness: [[ResultCategory]]
    /// The timestamp of the frame (0 in image mode).
    public var timestampInMilliseconds: Int
    /// VisionTasks' addition: per hand, in the same order as `landmarks`, an identifier that
    /// stays the same while the hand is tracked from frame to frame (video and live-stream
    /// mode) and is new when a hand is detected anew (after it was lost, or a second hand).
    /// Identifiers are positive, increase, and are never reused by one landmarker. Empty in
    /// image mode, where images are independent. Not part of the reference-file JSON form.
    public var handIdentifiers: [Int]
    /// Per hand, the landmark model's hand presence score (not in MediaPipe's result; the
    /// Vision façade's per-joint confidence; ignored by equality and coding).
    package var presenceScores = PresenceScores()

    /// A result from its parts (for tests and for code that builds results itself).
    public init(
        landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]],
        handedness: [[ResultCategory]], timestampInMilliseconds: Int = 0, handIdentifiers: [Int] = []
    ) {
        self.handIdentifiers = handIdentifiers
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.handedness = handedness
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    private enum CodingKeys: String, CodingKey { case handedness, landmarks, worldLandmarks }

    /// Decodes the reference files' form (the timestamp becomes 0, no identifiers).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        handedness = try c.decode([[ResultCategory]].self, forKey: .handedness)
        landmarks = try c.decode([[NormalizedLandmark]].self, forKey: .landmarks)
        worldLandmarks = try c.decode([[Landmark]].self, forKey: .worldLandmarks)
        timestampInMilliseconds = 0
        handIdentifiers = []
    }

    /// Encodes the reference files' form (without the timestamp and identifiers).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(handedness, forKey: .handedness)
        try c.encode(landmarks, forKey: .landmarks)
        try c.encode(worldLandmarks, forKey: .worldLandmarks)
    }
}
