import Foundation
import VisionTasks
import VisionTasksAppleVision
import VisionTasksMLKit

extension TaskFrameProcessor where Task == PoseDetector {
    /// `vision-tasks pose --api mlkit`: ML Kit's `PoseDetector` (`.singleImage` for images,
    /// `.stream` for videos, with the frames' timestamps); records hold the poses under `mlkit`.
    static func mlkitPoses(modelPath: String) -> Self {
        Self(
            resultKey: "mlkit",
            makeTask: { mode in
                let options = PoseDetectorOptions()
                options.detectorMode = mode == .image ? .singleImage : .stream
                options.modelAssetPath = modelPath
                return PoseDetector.poseDetector(options: options)
            },
            process: { detector, image, mode, timestamp in
                let visionImage = VisionImage(image: image)
                if mode != .image { visionImage.timestampInMilliseconds = timestamp }
                let poses = try detector.results(in: visionImage)
                var overlay = Overlay()
                for pose in poses {
                    overlay.append(
                        Overlay.skeleton(
                            normalizedPoints: pose.landmarks.map {
                                (x: Float($0.position.x) / Float(image.width), y: Float($0.position.y) / Float(image.height))
                            },
                            connections: LandmarkConnections.pose, imageWidth: image.width, imageHeight: image.height))
                }
                return FrameOutput(
                    record: poses.map(MLKitPoseRecord.init), summary: poses.isEmpty ? "no pose" : "1 pose", overlay: overlay)
            })
    }
}

/// A Vision request with the sequence handler that tracks it through one video.
final class VisionRequestRunner<Request: VNRequest> {
    let request: Request
    let sequence: VNSequenceRequestHandler?

    init(_ request: Request, tracking: Bool) {
        self.request = request
        sequence = tracking ? VNSequenceRequestHandler() : nil
    }

    /// Performs the request on one image (image mode) or the next frame (video mode).
    func perform(_ image: MPImage, timestampInMilliseconds: Int) throws {
        if let sequence {
            try sequence.perform(
                [request], on: image.pixelBuffer, orientation: CGImagePropertyOrientation(image.orientation),
                timestampInMilliseconds: timestampInMilliseconds)
        } else {
            try VNImageRequestHandler(image: image).perform([request])
        }
    }
}

extension TaskFrameProcessor where Task == VisionRequestRunner<VNDetectHumanHandPoseRequest> {
    /// `vision-tasks hands --api vision`: `VNDetectHumanHandPoseRequest` with
    /// `maximumHandCount` = `--num-hands`, through `VNImageRequestHandler` for images and a
    /// `VNSequenceRequestHandler` for videos; records hold the observations under `vision`.
    static func visionHands(modelPath: String, maximumHandCount: Int) -> Self {
        Self(
            resultKey: "vision",
            makeTask: { mode in
                let request = VNDetectHumanHandPoseRequest()
                request.modelAssetPath = modelPath
                request.maximumHandCount = maximumHandCount
                return VisionRequestRunner(request, tracking: mode != .image)
            },
            process: { runner, image, _, timestamp in
                try runner.perform(image, timestampInMilliseconds: timestamp)
                let records = (runner.request.results ?? []).map(VisionObservationRecord.init)
                let labels = records.map { "\($0.chirality ?? "?") \(String(format: "%.2f", $0.confidence))" }
                return VisionObservationRecord.output(
                    records, labels: labels, summary: HandsOverlay.summary(labels), connections: LandmarkConnections.hand,
                    image: image)
            })
    }
}

extension TaskFrameProcessor where Task == VisionRequestRunner<VNDetectHumanBodyPoseRequest> {
    /// `vision-tasks pose --api vision`: `VNDetectHumanBodyPoseRequest` (Vision's 19 joints),
    /// at most `--num-poses` people; records hold the observations under `vision`.
    static func visionBodies(modelPath: String, maximumBodyCount: Int) -> Self {
        Self(
            resultKey: "vision",
            makeTask: { mode in
                let request = VNDetectHumanBodyPoseRequest()
                request.modelAssetPath = modelPath
                request.maximumBodyCount = maximumBodyCount
                return VisionRequestRunner(request, tracking: mode != .image)
            },
            process: { runner, image, _, timestamp in
                try runner.perform(image, timestampInMilliseconds: timestamp)
                let records = (runner.request.results ?? []).map(VisionObservationRecord.init)
                let summary = records.isEmpty ? "no body" : records.count == 1 ? "1 body" : "\(records.count) bodies"
                return VisionObservationRecord.output(
                    records, labels: [], summary: summary, connections: Self.bodyConnections, image: image)
            })
    }

    /// Lines between Vision's 19 joints (indices in `VNHumanBodyPoseObservation.JointName.named`).
    static let bodyConnections: [(Int, Int)] = [
        (0, 1), (0, 2), (1, 3), (2, 4), (0, 5), (5, 6), (5, 7), (6, 8), (8, 10), (7, 9), (9, 11),
        (5, 14), (14, 12), (14, 13), (12, 15), (15, 17), (13, 16), (16, 18),
    ]
}
