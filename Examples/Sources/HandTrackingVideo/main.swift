// Hand landmarks over a video's frames, as in MediaPipe's HandLandmarker guide for iOS (video
// mode): after the first detection the hands are tracked from frame to frame, and the palm
// detector runs again only when a hand is lost.
//
//   hand-tracking-video VIDEO [MODEL.task]
//
// MODEL.task defaults to the installed hand_landmarker.task (`vision-tasks models install`).
import Foundation
import MediaIO       // VideoReader: decodes videos with FFmpeg
import VisionTasks

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: hand-tracking-video VIDEO [MODEL.task]")
    exit(2)
}
let modelPath = arguments.count > 2 ? arguments[2] : ModelStore().path(for: .handLandmarkerBundle).path

do {
    let options = HandLandmarkerOptions()
    options.baseOptions.modelAssetPath = modelPath
    options.runningMode = .video
    options.numHands = 2
    let landmarker = try HandLandmarker(options: options)

    let video = try VideoReader(path: arguments[1])
    while let frame = try video.nextFrame() {
        // A frame's pixels are already in memory: wrap them, no copy of the file involved.
        let image = MPImage(pixelBuffer: frame.image)
        let result = try landmarker.detect(videoFrame: image, timestampInMilliseconds: frame.timestampInMilliseconds)
        let hands = zip(result.landmarks, result.handedness).map { landmarks, handedness in
            let tip = landmarks[HandLandmark.indexFingerTIP.rawValue]
            return "\(handedness[0].categoryName ?? "?") index tip at "
                + String(format: "(%.3f, %.3f)", tip.x, tip.y)
        }
        print("\(frame.timestampInMilliseconds) ms: \(hands.isEmpty ? "no hands" : hands.joined(separator: ", "))")
    }
} catch {
    print("error: \(error)")
    exit(1)
}
