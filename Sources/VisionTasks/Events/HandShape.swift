/// What `GestureEventDetector` reads from one hand's 21 landmarks, in pixels of the upright
/// image (x right, y down).
struct HandShape: Sendable {
    /// The hand size: wrist (0) to middle finger knuckle (9).
    var size: Float
    /// The palm's centre: the mean of the wrist and the four knuckles (0, 5, 9, 13, 17).
    var centerX: Float
    var centerY: Float
    /// Thumb tip above the wrist, in hand sizes (negative: below).
    var thumbHeight: Float
    /// How far the thumb tip is above every landmark of the four fingers (5...20), in hand
    /// sizes (negative when some finger landmark is higher).
    var thumbClearanceAbove: Float
    /// How far the thumb tip is below every landmark of the four fingers, in hand sizes.
    var thumbClearanceBelow: Float
    /// How many of the four fingers are stretched (tip farther from the wrist than the
    /// middle joint).
    var stretchedFingers: Int

    /// Nil unless there are 21 finite landmarks spanning a hand of at least one pixel.
    init?(landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) {
        guard landmarks.count == 21 else { return nil }
        let w = Float(imageWidth), h = Float(imageHeight)
        let xs = landmarks.map { $0.x * w }, ys = landmarks.map { $0.y * h }
        guard xs.allSatisfy(\.isFinite), ys.allSatisfy(\.isFinite) else { return nil }
        func distance(_ a: Int, _ b: Int) -> Float {
            let dx = xs[a] - xs[b], dy = ys[a] - ys[b]
            return (dx * dx + dy * dy).squareRoot()
        }
        size = distance(0, 9)
        guard size >= 1 else { return nil }
        let palm = [0, 5, 9, 13, 17]
        centerX = palm.map { xs[$0] }.reduce(0, +) / Float(palm.count)
        centerY = palm.map { ys[$0] }.reduce(0, +) / Float(palm.count)
        thumbHeight = (ys[0] - ys[4]) / size
        let fingers = ys[5...20]
        thumbClearanceAbove = ((fingers.min() ?? ys[4]) - ys[4]) / size
        thumbClearanceBelow = (ys[4] - (fingers.max() ?? ys[4])) / size
        stretchedFingers = [(8, 6), (12, 10), (16, 14), (20, 18)].filter { tip, joint in
            distance(0, tip) > distance(0, joint)
        }.count
    }

    /// An open hand, which swipes: at least 3 of the 4 fingers stretched.
    var isOpen: Bool { stretchedFingers >= 3 }

    /// The landmark rule for thumbs up and down (see `GestureEventOptions.thumbRuleHeight`).
    func thumbGesture(height: Float, margin: Float) -> GestureEvent.Kind? {
        if thumbHeight >= height && thumbClearanceAbove >= margin { return .thumbsUp }
        if thumbHeight <= -height && thumbClearanceBelow >= margin { return .thumbsDown }
        return nil
    }
}
