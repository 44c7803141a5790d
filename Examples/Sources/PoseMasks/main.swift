// Pose landmarks with segmentation masks, as in MediaPipe's PoseLandmarker guide for iOS:
// prints a few landmarks of each person and writes each person's mask as a grey PNG.
//
//   pose-masks PHOTO OUTPUT_DIR [MODEL.task]
//
// MODEL.task defaults to the installed pose_landmarker_full.task (`vision-tasks models install`).
import Foundation
import MediaIO       // MPImage(contentsOfFile:), ImageEncoder
import VisionTasks

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: pose-masks PHOTO OUTPUT_DIR [MODEL.task]")
    exit(2)
}
let modelPath = arguments.count > 3 ? arguments[3] : ModelStore().path(for: .poseLandmarkerFullBundle).path

do {
    let options = PoseLandmarkerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .image
    options.numPoses = 2
    options.outputSegmentationMasks = true
    let landmarker = try PoseLandmarker(options: options)

    let result = try landmarker.detect(image: try MPImage(contentsOfFile: arguments[1]))
    if result.landmarks.isEmpty { print("no people") }
    try FileManager.default.createDirectory(atPath: arguments[2], withIntermediateDirectories: true)
    for (person, landmarks) in result.landmarks.enumerated() {
        let nose = landmarks[PoseLandmark.nose.rawValue]
        let hip = result.worldLandmarks[person][PoseLandmark.leftHip.rawValue]
        print(String(format: "person %d: nose at (%.3f, %.3f), left hip %.2f m from the hips' centre", person, nose.x, nose.y,
                     (hip.x * hip.x + hip.y * hip.y + hip.z * hip.z).squareRoot()))

        // The mask: one float per pixel of the input image, the probability of this person.
        let mask = result.segmentationMasks[person]
        let grey = mask.float32Data.map { UInt8(max(0, min(1, $0)) * 255) }
        let png = try PixelBuffer(width: mask.width, height: mask.height, format: .gray8, bytes: grey)
        let path = "\(arguments[2])/person\(person)_mask.png"
        try ImageEncoder.write(png, to: path)
        print("  mask \(mask.width)x\(mask.height) written to \(path)")
    }
} catch {
    print("error: \(error)")
    exit(1)
}
