/// Temporal smoothing of hand landmarks in video and live-stream mode (a VisionTasks
/// addition: MediaPipe's hand landmarker does not smooth): each tracked hand's landmarks go
/// through a 1€ filter per coordinate (Casiez et al., the filter MediaPipe's pose landmarker
/// uses), scaled by the hand's size so that the same settings suit near and far hands.
///
/// Off by default (`HandLandmarkerOptions.landmarkSmoothing` is nil) so that results stay
/// equal to MediaPipe's. Set it to `HandLandmarkSmoothing()` for the defaults below, which
/// were chosen from jitter and lag measured on our clips (docs/hands-over-time.md).
///
/// Only the reported `landmarks` and `worldLandmarks` are smoothed; tracking and gesture
/// classification use the model's raw landmarks, so smoothing never delays a gesture.
/// A hand's filter starts with its identifier and ends when the hand is lost.
public struct HandLandmarkSmoothing: Sendable, Hashable {
    /// The cutoff frequency (Hz) at rest, applied to motion measured in hand sizes: lower
    /// removes more jitter from a still hand and lags more. Must be above 0. Default 0.05
    /// (MediaPipe's pose value; measured: jitter −78 %, lag 0.035 frames).
    public var minCutoff: Double
    /// How fast the cutoff grows with speed: higher follows a moving hand more closely.
    /// Default 80 (MediaPipe's pose value).
    public var beta: Double
    /// The cutoff frequency (Hz) for the speed estimate. Must be above 0. Default 1.
    public var derivativeCutoff: Double

    /// Smoothing with the given parameters (defaults: see the properties).
    public init(minCutoff: Double = 0.05, beta: Double = 80, derivativeCutoff: Double = 1) {
        self.minCutoff = minCutoff
        self.beta = beta
        self.derivativeCutoff = derivativeCutoff
    }

    /// `TasksError.invalidArgument` when a cutoff is not above 1e-6 or a value is not finite.
    func validate() throws {
        guard minCutoff.isFinite, beta.isFinite, derivativeCutoff.isFinite, minCutoff > 1e-6,
            derivativeCutoff > 1e-6
        else {
            throw TasksError.invalidArgument(
                "landmarkSmoothing: minCutoff and derivativeCutoff must be above 0 and every value finite, got minCutoff \(minCutoff), beta \(beta), derivativeCutoff \(derivativeCutoff).")
        }
    }

    /// The image landmarks' filter.
    var landmarksFilter: LandmarksSmoother.Filter {
        .oneEuro(frequency: 30, minCutoff: minCutoff, beta: beta, derivateCutoff: derivativeCutoff)
    }

    /// The world landmarks' filter (metres, no size scaling; cutoffs doubled as in MediaPipe's
    /// pose world filter, which follows faster than the image one).
    var worldLandmarksFilter: LandmarksSmoother.Filter {
        .oneEuro(
            frequency: 30, minCutoff: minCutoff * 2, beta: beta / 2, derivateCutoff: derivativeCutoff,
            disableValueScaling: true)
    }
}
