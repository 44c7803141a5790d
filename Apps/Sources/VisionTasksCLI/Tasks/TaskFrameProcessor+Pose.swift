import Foundation
import MediaIO
import TaskRunner
import VisionTasks

extension TaskFrameProcessor where Task == PoseLandmarker {
    /// `vision-tasks pose`: a `PoseLandmarker` with the command's settings; records hold the
    /// result under `pose` in the reference files' form (`PoseRecord`), and masks go to
    /// `--masks` as 8-bit images (`writesMasks`). With `classification` (`--classify`) every
    /// result is also classified and counted (`ClassifiedPoseRecord`).
    static func poses(
        modelPath: String, settings: PoseTaskOptions, writesMasks: Bool, classification: PoseRepetitionSession? = nil
    ) -> Self {
        let options = { (mode: RunningMode) -> PoseLandmarkerOptions in
            let options = PoseLandmarkerOptions()
            settings.apply(to: options, modelPath: modelPath, mode: mode, writesMasks: writesMasks)
            return options
        }
        return Self(
            resultKey: Task.resultKey,
            makeTask: { mode in try PoseLandmarker(options: options(mode)) },
            process: { landmarker, image, mode, timestamp in
                let result = try landmarker.run(image, mode: mode, timestampInMilliseconds: timestamp)
                return try poseOutput(result, image: image, classification: classification)
            },
            live: LiveHooks(
                make: { deliver in
                    let delegate = liveRelay(deliver, present: { (result: PoseLandmarkerResult, image) in
                        try poseOutput(result, image: image, classification: classification)
                    })
                    let liveOptions = options(.liveStream)
                    liveOptions.poseLandmarkerLiveStreamDelegate = delegate
                    return (try PoseLandmarker(options: liveOptions), delegate)
                },
                submit: { landmarker, image, timestamp in try landmarker.detectAsync(image: image, timestampInMilliseconds: timestamp) },
                droppedFrameCount: { $0.droppedFrameCount },
                waitUntilIdle: { $0.waitUntilIdle() }),
            inputState: classification?.inputState())
    }

    /// A result as a record (`PoseRecord`, or `ClassifiedPoseRecord` with `classification`), a
    /// summary line, the drawn poses (with each one's class, and the counts drawn large) and the
    /// masks.
    static func poseOutput(
        _ result: PoseLandmarkerResult, image: MPImage, classification: PoseRepetitionSession? = nil
    ) throws -> FrameOutput {
        let classified = classification?.tracker.process(result, imageWidth: image.width, imageHeight: image.height)
        let range = classification?.tracker.classifier.confidenceRange ?? 0
        var overlay = Overlay()
        for (i, pose) in result.landmarks.enumerated() {
            var label: String? = result.landmarks.count > 1 ? "Pose \(i + 1)" : nil
            if let classified, i < classified.count {
                label = (label.map { $0 + ": " } ?? "") + classified[i].topClass(confidenceRange: range)
            }
            overlay.append(
                Overlay.skeleton(
                    normalizedPoints: pose.map { (x: $0.x, y: $0.y) }, connections: LandmarkConnections.pose,
                    imageWidth: image.width, imageHeight: image.height, label: label))
        }
        if let classification {
            overlay.labels.append(Overlay.Label(text: classification.countsLine(), x: 8, y: 8, size: 3))
        }
        let masks = try result.segmentationMasks.map { mask in
            try PixelBuffer(width: mask.width, height: mask.height, format: .gray8, bytes: mask.uint8Data)
        }
        guard let classified else {
            return FrameOutput(record: PoseRecord(result), summary: poseSummary(result), overlay: overlay, masks: masks)
        }
        let classes = classified.map { $0.summary(confidenceRange: range) }.joined(separator: "; ")
        return FrameOutput(
            record: ClassifiedPoseRecord(pose: PoseRecord(result), classifications: classified),
            summary: poseSummary(result) + (classified.isEmpty ? "" : " | " + classes), overlay: overlay, masks: masks)
    }

    /// "no pose", or per pose where it is and how much of it is visible:
    /// "1 pose: x 0.21-0.78 y 0.05-0.98, 31/33 landmarks visible".
    static func poseSummary(_ result: PoseLandmarkerResult) -> String {
        let count = result.landmarks.count
        guard count > 0 else { return "no pose" }
        let poses = result.landmarks.map { pose -> String in
            let xs = pose.map(\.x), ys = pose.map(\.y)
            let visible = pose.filter { ($0.visibility ?? 0) >= 0.5 }.count
            return String(
                format: "x %.2f-%.2f y %.2f-%.2f, %d/%d landmarks visible", xs.min() ?? 0, xs.max() ?? 0, ys.min() ?? 0,
                ys.max() ?? 0, visible, pose.count)
        }
        return "\(count) pose\(count == 1 ? "" : "s"): " + poses.joined(separator: "; ")
    }
}
