import VisionTasks
@_spi(Apps) import VisionTasksAppleVision
import VisionTasksMLKit

/// An ML Kit `Pose` as `--api mlkit` prints it: each landmark's type (ML Kit's name), position
/// (pixels, z in the same scale) and inFrameLikelihood.
struct MLKitPoseRecord: Encodable {
    struct Landmark: Encodable {
        var type: String
        var position: Position
        var inFrameLikelihood: Float
    }

    struct Position: Encodable {
        var x: Double
        var y: Double
        var z: Double
    }

    var landmarks: [Landmark]

    init(_ pose: Pose) {
        landmarks = pose.landmarks.map {
            Landmark(
                type: $0.type.rawValue,
                position: Position(x: Double($0.position.x), y: Double($0.position.y), z: Double($0.position.z)),
                inFrameLikelihood: $0.inFrameLikelihood)
        }
    }
}

/// A Vision observation as `--api vision` prints it: chirality (hands), confidence and each
/// joint by its Swift name with Vision's normalised location (origin at the lower left).
struct VisionObservationRecord: Encodable {
    struct Point: Encodable {
        var joint: String
        var x: Double
        var y: Double
        var confidence: Float
    }

    var chirality: String?
    var confidence: Float
    var points: [Point]

    init(_ observation: VNHumanHandPoseObservation) {
        chirality = observation.chirality.description
        confidence = observation.confidence
        points = VNHumanHandPoseObservation.JointName.named.compactMap { name, joint in
            (try? observation.recognizedPoint(joint)).map { Point(joint: name, x: $0.x, y: $0.y, confidence: $0.confidence) }
        }
    }

    init(_ observation: VNHumanBodyPoseObservation) {
        chirality = nil
        confidence = observation.confidence
        points = VNHumanBodyPoseObservation.JointName.named.compactMap { name, joint in
            (try? observation.recognizedPoint(joint)).map { Point(joint: name, x: $0.x, y: $0.y, confidence: $0.confidence) }
        }
    }

    /// The points with a top-left origin, for drawing.
    var topLeftPoints: [(x: Float, y: Float)] { points.map { (x: Float($0.x), y: Float(1 - $0.y)) } }

    /// What `--api vision` writes for one image: the records, a summary, and each
    /// observation's skeleton (labelled with `labels[i]` when given) for `--annotate`.
    static func output(
        _ records: [VisionObservationRecord], labels: [String], summary: String, connections: [(Int, Int)], image: MPImage
    ) -> FrameOutput {
        var overlay = Overlay()
        for (i, record) in records.enumerated() {
            overlay.append(
                Overlay.skeleton(
                    normalizedPoints: record.topLeftPoints, connections: connections, imageWidth: image.width,
                    imageHeight: image.height, label: i < labels.count ? labels[i] : nil))
        }
        return FrameOutput(record: records, summary: summary, overlay: overlay)
    }
}
