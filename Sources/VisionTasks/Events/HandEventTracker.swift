/// One hand's event rules over time (`GestureEventDetector` keeps one per hand identifier):
/// evidence over consecutive frames, re-arming after the hand leaves a gesture, the cooldown
/// between events, and the swipe's motion window.
struct HandEventTracker {
    private struct Sample {
        var time: Int
        var x: Float
        var y: Float
        var size: Float
    }

    // Thumbs: the current run of one static gesture, and the gesture that fired and has not
    // been left yet.
    private var runKind: GestureEvent.Kind?
    private var runFrames = 0
    private var heldKind: GestureEvent.Kind?
    private var heldReleaseFrames = 0
    private var heldSince = 0

    // Swipes: the open hand's recent positions, and whether a swipe waits for the hand to rest.
    private var samples: [Sample] = []
    private var swipeDisarmed = false
    private var restFrames = 0

    private var lastEventTime: Int?

    /// The hand moves less than this many hand sizes per frame when it rests.
    private static let restSpeed: Float = 0.1
    /// A frame of a swipe moves the hand at least this many hand sizes in its direction.
    private static let stepSpeed: Float = 0.05

    /// Milliseconds from `start` to `end`, saturated at `Int.min` and `Int.max`: timestamps come
    /// from results the caller may have built, and a plain subtraction of far-apart ones
    /// (`Int.max` after `Int.min`) trapped on the overflow.
    static func elapsed(from start: Int, to end: Int) -> Int {
        let (difference, overflow) = end.subtractingReportingOverflow(start)
        return overflow ? (end > start ? .max : .min) : difference
    }

    /// Feeds one frame of the hand: `thumb` is the thumbs gesture seen on it (if any).
    /// Returns the event this frame completes, if any.
    mutating func update(
        thumb: GestureEvent.Kind?, shape: HandShape, time: Int, options: GestureEventOptions
    ) -> GestureEvent.Kind? {
        let coolingDown = lastEventTime.map { Self.elapsed(from: $0, to: time) < options.cooldownMilliseconds } ?? false
        var event = updateThumbs(thumb, time: time, options: options, coolingDown: coolingDown)
        let swipe = updateSwipe(
            open: thumb == nil && shape.isOpen, shape: shape, time: time, options: options,
            coolingDown: coolingDown || event != nil)
        event = event ?? swipe
        if event != nil { lastEventTime = time }
        return event
    }

    private mutating func updateThumbs(
        _ thumb: GestureEvent.Kind?, time: Int, options: GestureEventOptions, coolingDown: Bool
    ) -> GestureEvent.Kind? {
        if let thumb, thumb == runKind {
            runFrames += 1
        } else {
            runKind = thumb
            runFrames = thumb == nil ? 0 : 1
        }
        if let held = heldKind {
            if thumb == held {
                heldReleaseFrames = 0
            } else {
                heldReleaseFrames += 1
                if heldReleaseFrames >= options.releaseFrames { heldKind = nil }
            }
        }
        guard let kind = runKind, runFrames >= options.minimumFrames, !coolingDown,
            options.enabledKinds.contains(kind)
        else { return nil }
        if heldKind == kind {
            // Held since it fired: only a repeat interval fires it again.
            guard let interval = options.repeatIntervalMilliseconds, Self.elapsed(from: heldSince, to: time) >= interval else {
                return nil
            }
        }
        heldKind = kind
        heldReleaseFrames = 0
        heldSince = time
        return kind
    }

    private mutating func updateSwipe(
        open: Bool, shape: HandShape, time: Int, options: GestureEventOptions, coolingDown: Bool
    ) -> GestureEvent.Kind? {
        let previous = samples.last
        if open {
            samples.append(Sample(time: time, x: shape.centerX, y: shape.centerY, size: shape.size))
        } else {
            samples = []
        }
        samples.removeAll { Self.elapsed(from: $0.time, to: time) > options.swipeWindowMilliseconds }

        if swipeDisarmed {
            // Re-arms once the hand has rested (or was not an open hand) for releaseFrames.
            let resting = !open || previous.map { abs(shape.centerX - $0.x) < Self.restSpeed * shape.size } ?? true
            restFrames = resting ? restFrames + 1 : 0
            if restFrames >= options.releaseFrames {
                swipeDisarmed = false
                // The motion that follows starts from here.
                samples = samples.suffix(1)
            }
            return nil
        }
        guard !coolingDown, samples.count >= options.minimumFrames, let first = samples.first,
            let last = samples.last
        else { return nil }
        let dx = last.x - first.x, dy = last.y - first.y
        let sizes = samples.map(\.size).sorted()
        let scale = sizes[sizes.count / 2]
        guard abs(dx) >= options.swipeDistance * scale, abs(dx) >= 2 * abs(dy) else { return nil }
        // Evidence: the last minimumFrames frames all moved in the swipe's direction.
        let recent = samples.suffix(options.minimumFrames)
        let steps = zip(recent.dropLast(), recent.dropFirst()).map { $1.x - $0.x }
        guard steps.allSatisfy({ $0 * (dx > 0 ? 1 : -1) >= Self.stepSpeed * scale }) else { return nil }
        // Towards the image's right is the user's left in unmirrored frames.
        let towardsImageRight = dx > 0
        let kind: GestureEvent.Kind = towardsImageRight != options.inputIsMirrored ? .swipeLeft : .swipeRight
        guard options.enabledKinds.contains(kind) else { return nil }
        samples = []
        swipeDisarmed = true
        restFrames = 0
        return kind
    }
}
