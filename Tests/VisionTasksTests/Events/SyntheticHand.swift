@testable import VisionTasks

/// Hand landmarks drawn by hand for the event rules' unit tests: an open hand and a thumbs up
/// in hand units (wrist to middle knuckle = 1, y down), placed in a 640×480 frame.
enum SyntheticHand {
    static let width = 640, height = 480

    static let openPalm: [(Float, Float)] = [
        (0, 0),
        (-0.3, -0.2), (-0.5, -0.4), (-0.6, -0.6), (-0.7, -0.8),
        (-0.3, -0.9), (-0.3, -1.3), (-0.3, -1.6), (-0.3, -1.8),
        (0, -1.0), (0, -1.4), (0, -1.7), (0, -1.9),
        (0.25, -0.95), (0.25, -1.3), (0.25, -1.6), (0.25, -1.8),
        (0.45, -0.85), (0.45, -1.1), (0.45, -1.3), (0.45, -1.45),
    ]

    /// Four folded fingers, the thumb straight up.
    static let thumbUp: [(Float, Float)] = [
        (0, 0),
        (-0.35, -0.4), (-0.45, -0.8), (-0.5, -1.2), (-0.5, -1.6),
        (-0.3, -0.9), (-0.35, -1.2), (-0.2, -1.0), (-0.15, -0.8),
        (0, -1.0), (-0.05, -1.2), (0.05, -1.0), (0.1, -0.8),
        (0.25, -0.95), (0.2, -1.1), (0.25, -0.95), (0.3, -0.8),
        (0.45, -0.85), (0.4, -1.0), (0.45, -0.85), (0.5, -0.7),
    ]

    /// The thumbs up upside down.
    static let thumbDown: [(Float, Float)] = thumbUp.map { (-$0.0, -$0.1) }

    /// `shape` with its wrist at pixel (x, y), `size` pixels from wrist to middle knuckle.
    static func landmarks(_ shape: [(Float, Float)], x: Float, y: Float, size: Float = 60) -> [NormalizedLandmark] {
        shape.map { NormalizedLandmark(x: (x + $0.0 * size) / Float(width), y: (y + $0.1 * size) / Float(height), z: 0) }
    }

    static func result(
        _ hands: [[NormalizedLandmark]], gestures: [String], ids: [Int], time: Int
    ) -> GestureRecognizerResult {
        GestureRecognizerResult(
            gestures: gestures.map { [ResultCategory(index: -1, score: 0.9, categoryName: $0, displayName: nil)] },
            handedness: hands.map { _ in [ResultCategory(index: 0, score: 0.9, categoryName: "Right", displayName: "Right")] },
            landmarks: hands, worldLandmarks: hands.map { _ in [] }, timestampInMilliseconds: time,
            handIdentifiers: ids)
    }
}
