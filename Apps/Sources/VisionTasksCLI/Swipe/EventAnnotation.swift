import MediaIO
import VisionTasks

/// `vision-tasks swipe --annotate`: the video with each hand's skeleton and, for half a second
/// after an event, the event's name over the hand that made it.
struct EventAnnotation {
    static let showMilliseconds = 500
    let path: String
    let framesPerSecond: Double
    private var writer: VideoWriter?
    /// Events still shown: the event and where its hand was last seen (pixels).
    private var shown: [(event: GestureEvent, x: Int, y: Int)] = []

    init(path: String, framesPerSecond: Double) {
        self.path = path
        self.framesPerSecond = framesPerSecond > 0 ? framesPerSecond : 30
    }

    mutating func append(_ frame: VideoFrame, result: GestureRecognizerResult, events: [GestureEvent]) throws {
        let width = frame.image.width, height = frame.image.height
        if writer == nil {
            writer = try VideoWriter(path: path, width: width, height: height, framesPerSecond: framesPerSecond)
        }
        let labels = result.handIdentifiers.count == result.landmarks.count
            ? zip(result.handIdentifiers, result.handedness).map { "hand \($0) \($1.first?.categoryName ?? "")" }
            : []
        let overlay = HandsOverlay.hands(result.landmarks, labels: labels, imageWidth: width, imageHeight: height)
        // Positions: above the hand's highest landmark.
        func anchor(_ id: Int) -> (x: Int, y: Int)? {
            guard let i = result.handIdentifiers.firstIndex(of: id), i < result.landmarks.count else { return nil }
            let hand = result.landmarks[i]
            let x = hand.map(\.x).reduce(0, +) / Float(max(1, hand.count))
            let y = hand.map(\.y).min() ?? 0
            return (Int(x * Float(width)), max(0, Int(y * Float(height)) - 40))
        }
        for event in events {
            let at = anchor(event.handIdentifier) ?? (width / 2, 20)
            shown.append((event, at.x, at.y))
        }
        shown.removeAll { frame.timestampInMilliseconds - $0.event.timestampInMilliseconds >= Self.showMilliseconds }
        // Event names three times the size of the hand labels, centred above the hand.
        let scale = 3 * max(1, max(width, height) / 400)
        var canvas = Canvas(image: AnnotationRenderer.render(overlay, on: frame.image))
        for index in shown.indices {
            if let at = anchor(shown[index].event.handIdentifier) {
                shown[index].x = at.x
                shown[index].y = at.y
            }
            let text = shown[index].event.kind.rawValue
            let size = Canvas.textSize(text, scale: scale)
            canvas.drawText(
                text, x: max(0, min(width - size.width, shown[index].x - size.width / 2)),
                y: max(0, shown[index].y - size.height), scale: scale, color: .yellow)
        }
        try writer?.append(canvas.image, timestampInMilliseconds: frame.timestampInMilliseconds)
    }

    mutating func finish() throws {
        try writer?.finish()
    }
}
