/// What `GestureRecognizer` found in one image or frame, as MediaPipe's
/// `GestureRecognizerResult`: one entry per detected hand in each list, in the same order.
///
/// `Codable` in the form of MediaPipe's reference files (`handedness`, `gestures`,
/// `landmarks`, `worldLandmarks`); the timestamp is not encoded.
public struct GestureRecognizerResult: Sendable, Hashable, Codable {
    /// Per hand, the recognised gesture: one category with the gesture's name (e.g.
    /// "Thumb_Up", or a custom classifier's label) and score; `index` is -1 and
    /// `displayName` nil, as in MediaPipe. When classifier options filter out every class
    /// of a hand, that hand has no entry here (as in MediaPipe), so this list can be shorter
    /// than `landmarks`.
    public var gestures: [[ResultCategory]]
    /// Per hand, one category: "Left" or "Right" with its score. As in MediaPipe, the model
    /// assumes a mirrored (selfie) image: in a normal photo a right hand is often "Left".
    public var handedness: [[ResultCategory]]
    /// Per hand, the 21 landmarks (`HandLandmark`) in normalised coordinates of the upright
    /// image.
    public var landmarks: [[NormalizedLandmark]]
    /// Per hand, the 21 landmarks in metres, origin at the hand's approximate geometric centre.
    public var worldLandmarks: [[Landmark]]
    /// The timestamp of the frame (0 in image mode).
    public var timestampInMilliseconds: Int

    /// A result from its parts (for tests and for code that builds results itself).
    public init(
        gestures: [[ResultCategory]], handedness: [[ResultCategory]],
        landmarks: [[NormalizedLandmark]], worldLandmarks: [[Landmark]],
        timestampInMilliseconds: Int = 0
    ) {
        self.gestures = gestures
        self.handedness = handedness
        self.landmarks = landmarks
        self.worldLandmarks = worldLandmarks
        self.timestampInMilliseconds = timestampInMilliseconds
    }

    private enum CodingKeys: String, CodingKey { case handedness, gestures, landmarks, worldLandmarks }

    /// Decodes the reference files' form (the timestamp becomes 0).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        handedness = try c.decode([[ResultCategory]].self, forKey: .handedness)
        gestures = try c.decode([[ResultCategory]].self, forKey: .gestures)
        landmarks = try c.decode([[NormalizedLandmark]].self, forKey: .landmarks)
        worldLandmarks = try c.decode([[Landmark]].self, forKey: .worldLandmarks)
        timestampInMilliseconds = 0
    }

    /// Encodes the reference files' form (without the timestamp).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(handedness, forKey: .handedness)
        try c.encode(gestures, forKey: .gestures)
        try c.encode(landmarks, forKey: .landmarks)
        try c.encode(worldLandmarks, forKey: .worldLandmarks)
    }
}
