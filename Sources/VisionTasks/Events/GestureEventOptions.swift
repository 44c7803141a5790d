/// The rules of `GestureEventDetector`, with defaults chosen from measurements on our clips
/// (docs/hands-over-time.md). Hand sizes are the distance from the wrist to the middle
/// finger's knuckle (landmarks 0 and 9) in pixels, about the width of the palm; using them
/// instead of screen points makes the rules independent of the distance to the camera.
public struct GestureEventOptions: Sendable, Hashable {
    /// Where thumbs up and down come from.
    public enum ThumbSource: Sendable, Hashable {
        /// `GestureRecognizerResult` input: the recognizer's "Thumb_Up" / "Thumb_Down" with at
        /// least `minGestureScore`. `HandLandmarkerResult` input, which has no gestures,
        /// always uses the landmark rule.
        case recognizer
        /// The landmark rule for every input (see `thumbRuleHeight`).
        case landmarks
    }

    /// Where thumbs up and down come from (default `.recognizer`).
    public var thumbSource = ThumbSource.recognizer
    /// The least score of a recognised "Thumb_Up" / "Thumb_Down" (default 0.5).
    public var minGestureScore: Float = 0.5
    /// The landmark rule (the tutorial's "thumb tip above or below the wrist", in hand sizes
    /// instead of 50 points): a thumbs up has the thumb tip at least this many hand sizes above
    /// the wrist, a thumbs down below it (default 1.0; measured on the shared photos: thumbs
    /// 1.18–1.61, a raised open palm 0.70–0.98).
    public var thumbRuleHeight: Float = 1.0
    /// The landmark rule also needs the thumb tip above (thumbs up) or below (thumbs down)
    /// every landmark of the four fingers by this many hand sizes, which a raised open hand or
    /// a fist does not have (default 0.25; shared photos: thumbs 0.53–0.75, a fist −0.24).
    public var thumbRuleMargin: Float = 0.25
    /// A swipe: the open hand (at least 3 of its 4 fingers stretched) moves sideways by at
    /// least this many hand sizes (default 1.5) ...
    public var swipeDistance: Float = 1.5
    /// ... within this time (default 700 ms), mostly sideways (horizontal motion at least
    /// twice the vertical).
    public var swipeWindowMilliseconds = 700
    /// Evidence: a thumbs event needs the gesture on this many consecutive frames of the
    /// hand; a swipe needs this many frames of motion in its direction (default 3: a
    /// one- or two-frame blip is no event).
    public var minimumFrames = 3
    /// Re-arming: after an event, the same event fires again only after the hand has left
    /// the gesture (another pose, or a hand at rest after a swipe) for this many frames
    /// (default 3), or the hand was lost.
    public var releaseFrames = 3
    /// After any event, the same hand fires nothing for this long (default 500 ms), so that
    /// the end of one gesture does not start another.
    public var cooldownMilliseconds = 500
    /// While a gesture is held, repeat its event this often (default nil: never; the hand has
    /// to leave the gesture first). A swipe never repeats.
    public var repeatIntervalMilliseconds: Int? = nil
    /// Whether the frames are mirror images (a selfie preview). Directions are the user's:
    /// for a user facing an unmirrored camera, their right is the image's left, so by default
    /// a hand moving towards the image's left is `swipeRight`; with mirrored frames a hand
    /// moving towards the image's right is. Set the landmarker's `inputIsMirrored` as well
    /// so that handedness reports the real side. Default false.
    public var inputIsMirrored = false
    /// The events to report (default all).
    public var enabledKinds = Set(GestureEvent.Kind.allCases)

    /// The defaults.
    public init() {}

    /// `TasksError.invalidArgument` for values no rule can use.
    func validate() throws {
        func check(_ ok: Bool, _ message: String) throws {
            if !ok { throw TasksError.invalidArgument("GestureEventOptions: \(message)") }
        }
        try check(minGestureScore.isFinite && (0...1).contains(minGestureScore), "minGestureScore must be in 0...1.")
        try check(thumbRuleHeight.isFinite && thumbRuleHeight >= 0, "thumbRuleHeight must be a finite value ≥ 0.")
        try check(thumbRuleMargin.isFinite, "thumbRuleMargin must be finite.")
        try check(swipeDistance.isFinite && swipeDistance > 0, "swipeDistance must be above 0.")
        try check(swipeWindowMilliseconds > 0, "swipeWindowMilliseconds must be above 0.")
        try check(minimumFrames >= 1, "minimumFrames must be at least 1.")
        try check(releaseFrames >= 1, "releaseFrames must be at least 1.")
        try check(cooldownMilliseconds >= 0, "cooldownMilliseconds must be ≥ 0.")
        try check((repeatIntervalMilliseconds ?? 1) > 0, "repeatIntervalMilliseconds must be above 0.")
    }
}
