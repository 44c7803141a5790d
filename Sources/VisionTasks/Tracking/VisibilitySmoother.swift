/// Low-pass smoothing of landmark visibility, as MediaPipe's VisibilitySmoothingCalculator
/// (the pose landmarker uses α = 0.1). Only `visibility` is filtered; a missing visibility
/// reads as 0, as a protobuf default would.
package struct VisibilitySmoother: Sendable {
    package let alpha: Float
    private var filters: [LowPassFilter] = []

    package init(alpha: Float = 0.1) {
        self.alpha = alpha
    }

    /// The pose landmarker's visibility filter.
    package static let pose = VisibilitySmoother(alpha: 0.1)

    package mutating func reset() { filters = [] }

    package mutating func smooth(_ landmarks: [NormalizedLandmark]) -> [NormalizedLandmark] {
        let values = smoothValues(landmarks.map { $0.visibility ?? 0 })
        return zip(landmarks, values).map { lm, v in
            var out = lm
            out.visibility = v
            return out
        }
    }

    package mutating func smooth(_ landmarks: [Landmark]) -> [Landmark] {
        let values = smoothValues(landmarks.map { $0.visibility ?? 0 })
        return zip(landmarks, values).map { lm, v in
            var out = lm
            out.visibility = v
            return out
        }
    }

    private mutating func smoothValues(_ values: [Float]) -> [Float] {
        if values.isEmpty {
            reset()
            return []
        }
        if filters.count != values.count {
            filters = Array(repeating: LowPassFilter(alpha: alpha), count: values.count)
        }
        return values.indices.map { filters[$0].apply(values[$0]) }
    }
}
