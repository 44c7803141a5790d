/// One example pose of a class, for `PoseClassifier` (ML Kit's `PoseSample`): a name, a class
/// and 33 landmarks in ML Kit's coordinates.
///
/// Landmarks are in `PoseLandmark` order (BlazePose's, which is also ML Kit's
/// `PoseLandmark` constants' order), in pixels of the upright image (origin top left, y down),
/// `z` in the same pixel scale (MediaPipe's normalised z × the image width). That is what ML
/// Kit's pose detector returns, what its samples CSV holds, and what
/// `init(name:className:landmarks:imageWidth:imageHeight:)` makes from a `PoseLandmarker` result.
///
/// <!-- snippet-prelude: let landmarker = try PoseLandmarker(modelPath: "pose_landmarker_full.task")
/// let image = try MPImage(pixels: [UInt8](repeating: 0, count: 12), width: 2, height: 2, format: .rgb8) -->
/// ```swift
/// let result = try landmarker.detect(image: image)
/// if let pose = result.landmarks.first {
///     let sample = try PoseSample(name: "squat-bottom.jpg", className: "squats_down",
///                                 landmarks: pose, imageWidth: image.width, imageHeight: image.height)
///     print(sample.csvLine)
/// }
/// ```
public struct PoseSample: Sendable, Hashable {
    /// The sample's name (ML Kit's samples name the photo it came from). Any text; written to
    /// CSV with commas, line feeds, carriage returns and byte order marks replaced by `_`.
    public var name: String
    /// The class: the pose this sample shows, such as `squats_down`.
    public var className: String
    /// The 33 landmarks: x, y in pixels of the upright image, z in the scale of x.
    public var landmarks: [SIMD3<Float>]

    /// A sample from its 33 landmarks in pixels (ML Kit's coordinates). Throws
    /// `PoseClassificationError.invalidSample` for other than 33 landmarks or a coordinate
    /// that is not finite, or an empty class name.
    public init(name: String, className: String, landmarks: [SIMD3<Float>]) throws {
        guard !className.isEmpty else {
            throw PoseClassificationError.invalidSample(name: name, reason: "the class name is empty")
        }
        guard landmarks.count == PoseLandmark.count else {
            throw PoseClassificationError.invalidSample(
                name: name, reason: "\(landmarks.count) landmarks; a pose sample has \(PoseLandmark.count)")
        }
        if let index = landmarks.firstIndex(where: { !($0.x.isFinite && $0.y.isFinite && $0.z.isFinite) }) {
            throw PoseClassificationError.invalidSample(name: name, reason: "landmark \(index) is not finite")
        }
        self.name = name
        self.className = className
        self.landmarks = landmarks
    }

    /// A sample from a `PoseLandmarker` result's landmarks of one pose (normalised to the
    /// upright image) and that image's size in pixels: x × width, y × height, z × width, as ML
    /// Kit's detector and the ML Kit façade (`VisionTasksMLKit`) give them.
    public init(
        name: String, className: String, landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int
    ) throws {
        try self.init(
            name: name, className: className,
            landmarks: Self.pixels(landmarks, imageWidth: imageWidth, imageHeight: imageHeight))
    }

    /// Normalised landmarks in pixels: x × width, y × height, z × width.
    static func pixels(_ landmarks: [NormalizedLandmark], imageWidth: Int, imageHeight: Int) -> [SIMD3<Float>] {
        let width = Float(imageWidth), height = Float(imageHeight)
        return landmarks.map { SIMD3($0.x * width, $0.y * height, $0.z * width) }
    }
}
