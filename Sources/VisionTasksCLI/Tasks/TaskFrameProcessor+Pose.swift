import MediaIO
import VisionTasks

extension TaskFrameProcessor where Task == PoseLandmarker {
    /// `vision-tasks pose`: a `PoseLandmarker` with the command's settings; records hold the
    /// result under `pose` in the reference files' form (`PoseRecord`), and masks go to
    /// `--masks` as 8-bit images (`writesMasks`).
    static func poses(modelPath: String, settings: PoseTaskOptions, writesMasks: Bool) -> Self {
        Self(
            resultKey: "pose",
            makeTask: { mode in
                let options = PoseLandmarkerOptions()
                settings.apply(to: options, modelPath: modelPath, mode: mode, writesMasks: writesMasks)
                return try PoseLandmarker(options: options)
            },
            process: { landmarker, image, mode, timestamp in
                let result =
                    mode == .image
                    ? try landmarker.detect(image: image)
                    : try landmarker.detect(videoFrame: image, timestampInMilliseconds: timestamp)
                var overlay = Overlay()
                for (i, pose) in result.landmarks.enumerated() {
                    overlay.append(
                        Overlay.skeleton(
                            normalizedPoints: pose.map { (x: $0.x, y: $0.y) }, connections: LandmarkConnections.pose,
                            imageWidth: image.width, imageHeight: image.height,
                            label: result.landmarks.count > 1 ? "Pose \(i + 1)" : nil))
                }
                let masks = try result.segmentationMasks.map { mask in
                    try PixelBuffer(width: mask.width, height: mask.height, format: .gray8, bytes: mask.uint8Data)
                }
                return FrameOutput(
                    record: PoseRecord(result), summary: poseSummary(result), overlay: overlay, masks: masks)
            })
    }

    /// "no pose", "1 pose", "2 poses".
    static func poseSummary(_ result: PoseLandmarkerResult) -> String {
        switch result.landmarks.count {
        case 0: return "no pose"
        case 1: return "1 pose"
        case let n: return "\(n) poses"
        }
    }
}
