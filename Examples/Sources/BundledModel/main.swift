// A model shipped with the program, as MediaPipe's iOS guides ship `.task` files in the app
// bundle (`Bundle.main.path(forResource: "hand_landmarker", ofType: "task")`). With SwiftPM the
// file is a resource of the target (`resources: [.copy("Models")]` in Package.swift) and is
// found through `Bundle.module`. Nothing is installed or downloaded at run time: no pip, no
// Python, no network.
//
//   bundled-model PHOTO
//
// Put hand_landmarker.task in Sources/BundledModel/Models/ before building (from
// `vision-tasks models install`'s folder or Google's model page).
import Foundation
import MediaIO
import VisionTasks

let arguments = CommandLine.arguments
guard arguments.count == 2 else {
    print("usage: bundled-model PHOTO")
    exit(2)
}
guard let modelPath = Bundle.module.path(forResource: "hand_landmarker", ofType: "task", inDirectory: "Models") else {
    print("error: hand_landmarker.task is not in Sources/BundledModel/Models/: copy it there and build again")
    exit(1)
}

do {
    let landmarker = try HandLandmarker(modelPath: modelPath)
    let result = try landmarker.detect(image: try MPImage(contentsOfFile: arguments[1]))
    print("\(result.landmarks.count) hand(s), model from the program's resources: \(modelPath)")
    for (landmarks, handedness) in zip(result.landmarks, result.handedness) {
        let wrist = landmarks[HandLandmark.wrist.rawValue]
        print("\(handedness[0].categoryName ?? "?") hand, wrist at " + String(format: "(%.3f, %.3f)", wrist.x, wrist.y))
    }
} catch {
    print("error: \(error)")
    exit(1)
}
