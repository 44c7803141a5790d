/// The options `HandLandmarkerOptions` and `GestureRecognizerOptions` both have (MediaPipe
/// gives the two classes the same hand settings).
@_spi(Apps) public protocol CommonHandOptions: AnyObject {
    var baseOptions: BaseOptions { get set }
    var runningMode: RunningMode { get set }
    var numHands: Int { get set }
    var minHandDetectionConfidence: Float { get set }
    var minHandPresenceConfidence: Float { get set }
    var minTrackingConfidence: Float { get set }
    var landmarkSmoothing: HandLandmarkSmoothing? { get set }
    var inputIsMirrored: Bool { get set }
}

@_spi(Apps) extension HandLandmarkerOptions: CommonHandOptions {}
@_spi(Apps) extension GestureRecognizerOptions: CommonHandOptions {}
