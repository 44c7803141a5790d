import VisionTasks

/// Stick figures for the pose classification tests: 33 landmarks in pixels of a person facing
/// the camera, from standing (`depth` 0) to the bottom of a squat (`depth` 1), with seeded
/// jitter. Not real poses: enough to tell two classes apart and to check the arithmetic.
struct SyntheticPose {
    private var state: UInt64

    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 | 1 }

    /// A value in -1...1 (xorshift).
    private mutating func noise() -> Float {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return Float(state % 2_000_001) / 1_000_000 - 1
    }

    /// The figure at `depth`, moved by `offset`, scaled by `scale`, each coordinate jittered by
    /// up to `jitter` pixels.
    mutating func landmarks(
        depth: Float, jitter: Float = 2, scale: Float = 1, offset: SIMD2<Float> = SIMD2(320, 240)
    ) -> [SIMD3<Float>] {
        func mix(_ standing: SIMD3<Float>, _ squatting: SIMD3<Float>) -> SIMD3<Float> {
            standing + (squatting - standing) * depth
        }
        var points = [SIMD3<Float>](repeating: .zero, count: PoseLandmark.count)
        func set(_ landmark: PoseLandmark, _ standing: SIMD3<Float>, _ squatting: SIMD3<Float>) {
            points[landmark.rawValue] = mix(standing, squatting)
        }
        func pair(_ left: PoseLandmark, _ right: PoseLandmark, _ standing: SIMD3<Float>, _ squatting: SIMD3<Float>) {
            // The person's left is on the image's right.
            set(left, standing, squatting)
            set(right, SIMD3(-standing.x, standing.y, standing.z), SIMD3(-squatting.x, squatting.y, squatting.z))
        }
        set(.nose, SIMD3(0, -160, -40), SIMD3(0, -150, -60))
        pair(.leftEyeInner, .rightEyeInner, SIMD3(5, -170, -35), SIMD3(5, -160, -55))
        pair(.leftEye, .rightEye, SIMD3(10, -170, -35), SIMD3(10, -160, -55))
        pair(.leftEyeOuter, .rightEyeOuter, SIMD3(15, -170, -35), SIMD3(15, -160, -55))
        pair(.leftEar, .rightEar, SIMD3(22, -165, 0), SIMD3(22, -155, -20))
        pair(.mouthLeft, .mouthRight, SIMD3(8, -150, -35), SIMD3(8, -140, -55))
        pair(.leftShoulder, .rightShoulder, SIMD3(40, -110, 0), SIMD3(40, -100, -20))
        pair(.leftElbow, .rightElbow, SIMD3(45, -55, 0), SIMD3(40, -100, -80))
        pair(.leftWrist, .rightWrist, SIMD3(45, -5, 0), SIMD3(35, -100, -150))
        pair(.leftPinky, .rightPinky, SIMD3(47, 5, 0), SIMD3(35, -100, -165))
        pair(.leftIndex, .rightIndex, SIMD3(44, 8, 0), SIMD3(33, -100, -168))
        pair(.leftThumb, .rightThumb, SIMD3(40, 3, 0), SIMD3(30, -98, -160))
        pair(.leftHip, .rightHip, SIMD3(25, 0, 0), SIMD3(25, 0, 0))
        pair(.leftKnee, .rightKnee, SIMD3(25, 100, 0), SIMD3(50, 35, -90))
        pair(.leftAnkle, .rightAnkle, SIMD3(25, 200, 10), SIMD3(35, 110, 10))
        pair(.leftHeel, .rightHeel, SIMD3(25, 210, 20), SIMD3(35, 120, 20))
        pair(.leftFootIndex, .rightFootIndex, SIMD3(30, 215, -30), SIMD3(40, 125, -30))
        return points.map { point in
            let jittered = point + SIMD3(noise(), noise(), noise()) * jitter
            return SIMD3(jittered.x * scale + offset.x, jittered.y * scale + offset.y, jittered.z * scale)
        }
    }

    /// `count` samples of `className` at depths around `depth`.
    mutating func samples(_ className: String, depth: Float, count: Int) throws -> [PoseSample] {
        try (0..<count).map { index in
            try PoseSample(
                name: "\(className)-\(index)", className: className,
                landmarks: landmarks(depth: depth + noise() * 0.1, jitter: 3))
        }
    }
}
