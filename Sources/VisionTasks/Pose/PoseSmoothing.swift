/// The pose landmarker's temporal smoothing (pose_landmarks_detector_graph.cc with
/// `smooth_landmarks`, docs/pipelines.md §5.3 and §6): with one pose in video and live-stream
/// mode, pose 0's landmarks get a visibility low-pass (α 0.1) and then a 1€ filter scaled by
/// its next-frame region; its world landmarks get the same visibility low-pass and their own
/// 1€ filter. A frame without a pose resets every filter. Segmentation masks are not smoothed
/// (MediaPipe's Tasks graph has no mask smoothing).
struct PoseSmoothing {
    private var landmarkVisibility = VisibilitySmoother.pose
    private var landmarks: LandmarksSmoother
    private var worldVisibility = VisibilitySmoother.pose
    private var worldLandmarks: LandmarksSmoother

    init() throws {
        landmarks = try LandmarksSmoother(filter: LandmarksSmoother.poseLandmarks)
        worldLandmarks = try LandmarksSmoother(filter: LandmarksSmoother.poseWorldLandmarks)
    }

    mutating func reset() {
        landmarkVisibility.reset()
        landmarks.reset()
        worldVisibility.reset()
        worldLandmarks.reset()
    }

    /// Smooths the first pose (the only one MediaPipe smooths) and returns the poses.
    mutating func apply(
        _ poses: [PoseLandmarksDetector.Pose], imageWidth: Int, imageHeight: Int, timestampMicroseconds: Int64
    ) -> [PoseLandmarksDetector.Pose] {
        guard var pose = poses.first else {
            reset()
            return poses
        }
        pose.landmarks = landmarks.smooth(
            landmarkVisibility.smooth(pose.landmarks), imageWidth: imageWidth, imageHeight: imageHeight,
            scaleRegion: pose.nextFrameRegion, timestampMicroseconds: timestampMicroseconds)
        pose.worldLandmarks = worldLandmarks.smooth(
            worldVisibility.smooth(pose.worldLandmarks), timestampMicroseconds: timestampMicroseconds)
        var out = poses
        out[0] = pose
        return out
    }
}
