/// Temporal smoothing of one object's landmarks, as MediaPipe's LandmarksSmoothingCalculator:
/// normalised landmarks are taken to pixels, each coordinate goes through its own filter, and
/// the result is normalised again. World landmarks are filtered as they are.
package struct LandmarksSmoother: Sendable {
    /// The filter and its parameters (MediaPipe's `LandmarksSmoothingCalculatorOptions`).
    package enum Filter: Sendable, Hashable {
        /// Pass-through.
        case none
        /// Relative velocity filter per coordinate.
        case velocity(
            windowSize: Int = 5, velocityScale: Float = 10, minAllowedObjectScale: Float = 1e-6,
            disableValueScaling: Bool = false)
        /// 1€ filter per coordinate (parameters in double, as MediaPipe passes them).
        case oneEuro(
            frequency: Double = 30, minCutoff: Double = 1, beta: Double = 0,
            derivateCutoff: Double = 1, minAllowedObjectScale: Float = 1e-6,
            disableValueScaling: Bool = false)
    }

    /// The pose landmarker's image landmarks filter (pose_landmarks_detector_graph.cc, one
    /// pose in video/live stream): 1€ with min cutoff 0.05, β 80, derivative cutoff 1; the
    /// float option values are widened to double as in MediaPipe.
    package static let poseLandmarks = Filter.oneEuro(
        frequency: 30, minCutoff: Double(Float(0.05)), beta: 80, derivateCutoff: 1)
    /// The pose landmarker's world landmarks filter: 1€ with min cutoff 0.1, β 40, derivative
    /// cutoff 1, no value scaling.
    package static let poseWorldLandmarks = Filter.oneEuro(
        frequency: 30, minCutoff: Double(Float(0.1)), beta: 40, derivateCutoff: 1,
        disableValueScaling: true)

    package let filter: Filter
    private var xs: [Coordinate] = []
    private var ys: [Coordinate] = []
    private var zs: [Coordinate] = []

    private enum Coordinate: Sendable {
        case velocity(RelativeVelocityFilter)
        case oneEuro(OneEuroFilter)

        mutating func apply(_ t: Int64, _ value: Float, _ scale: Float) -> Float {
            switch self {
            case .velocity(var f):
                let out = f.apply(timestampNanoseconds: t, value: value, valueScale: scale)
                self = .velocity(f)
                return out
            case .oneEuro(var f):
                let out = Float(
                    f.apply(timestampNanoseconds: t, value: Double(value), valueScale: Double(scale)))
                self = .oneEuro(f)
                return out
            }
        }
    }

    /// Throws for invalid 1€ parameters (cutoffs or frequency not above 1e-6).
    package init(filter: Filter) throws {
        if case .oneEuro(let frequency, let minCutoff, let beta, let derivateCutoff, _, _) = filter {
            _ = try OneEuroFilter(
                frequency: frequency, minCutoff: minCutoff, beta: beta, derivateCutoff: derivateCutoff)
        }
        self.filter = filter
    }

    /// Forgets the history (MediaPipe resets when a frame has no landmarks).
    package mutating func reset() {
        xs = []
        ys = []
        zs = []
    }

    /// Smooths normalised landmarks of an image of the given size. The object scale comes
    /// from `scaleRegion` ((width·W + height·H)/2) or, without one, from the landmarks'
    /// bounds in pixels ((width + height)/2). An empty list resets the filter.
    package mutating func smooth(
        _ landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int,
        scaleRegion: NormalizedRect?, timestampMicroseconds: Int64
    ) -> [NormalizedLandmark] {
        if landmarks.isEmpty {
            reset()
            return []
        }
        let w = Float(imageWidth), h = Float(imageHeight)
        let pixels = landmarks.map { lm in
            Landmark(x: lm.x * w, y: lm.y * h, z: lm.z * w, visibility: lm.visibility, presence: lm.presence)
        }
        var objectScale: Float?
        if let region = scaleRegion {
            objectScale = (region.width * w + region.height * h) / 2.0
        }
        let filtered = apply(pixels, objectScale: objectScale, timestampMicroseconds: timestampMicroseconds)
        return filtered.map { lm in
            NormalizedLandmark(x: lm.x / w, y: lm.y / h, z: lm.z / w, visibility: lm.visibility, presence: lm.presence)
        }
    }

    /// Smooths world landmarks; `objectScale` is an explicit scale (nil: from the landmarks'
    /// x/y bounds). An empty list resets the filter.
    package mutating func smooth(
        _ landmarks: [Landmark], objectScale: Float? = nil, timestampMicroseconds: Int64
    ) -> [Landmark] {
        if landmarks.isEmpty {
            reset()
            return []
        }
        return apply(landmarks, objectScale: objectScale, timestampMicroseconds: timestampMicroseconds)
    }

    private static func objectScale(_ landmarks: [Landmark]) -> Float {
        var minX = landmarks[0].x, maxX = landmarks[0].x
        var minY = landmarks[0].y, maxY = landmarks[0].y
        for lm in landmarks {
            minX = min(minX, lm.x)
            maxX = max(maxX, lm.x)
            minY = min(minY, lm.y)
            maxY = max(maxY, lm.y)
        }
        return ((maxX - minX) + (maxY - minY)) / 2.0
    }

    private mutating func apply(_ landmarks: [Landmark], objectScale: Float?, timestampMicroseconds: Int64)
        -> [Landmark]
    {
        let t = timestampMicroseconds &* 1000
        let minScale: Float, disableScaling: Bool
        switch filter {
        case .none:
            return landmarks
        case .velocity(_, _, let m, let d):
            minScale = m
            disableScaling = d
        case .oneEuro(_, _, _, _, let m, let d):
            minScale = m
            disableScaling = d
            // MediaPipe's 1€ implementation creates its filters before the scale check.
            ensureFilters(count: landmarks.count)
        }
        var valueScale: Float = 1
        if !disableScaling {
            let scale = objectScale ?? Self.objectScale(landmarks)
            if scale < minScale { return landmarks }
            valueScale = 1.0 / scale
        }
        ensureFilters(count: landmarks.count)
        var out = landmarks
        for i in landmarks.indices {
            out[i].x = xs[i].apply(t, landmarks[i].x, valueScale)
            out[i].y = ys[i].apply(t, landmarks[i].y, valueScale)
            out[i].z = zs[i].apply(t, landmarks[i].z, valueScale)
        }
        return out
    }

    private mutating func ensureFilters(count: Int) {
        if xs.count == count { return }
        // A different landmark count (MediaPipe fails the graph here) starts over.
        xs = []
        ys = []
        zs = []
        for _ in 0..<count {
            switch filter {
            case .none:
                return
            case .velocity(let window, let velocityScale, _, _):
                let f = RelativeVelocityFilter(windowSize: window, velocityScale: velocityScale)
                xs.append(.velocity(f))
                ys.append(.velocity(f))
                zs.append(.velocity(f))
            case .oneEuro(let frequency, let minCutoff, let beta, let derivateCutoff, _, _):
                // Validated in init.
                guard
                    let f = try? OneEuroFilter(
                        frequency: frequency, minCutoff: minCutoff, beta: beta,
                        derivateCutoff: derivateCutoff)
                else { return }
                xs.append(.oneEuro(f))
                ys.append(.oneEuro(f))
                zs.append(.oneEuro(f))
            }
        }
    }
}
