// Finds hands in a frame that is already in memory, as a camera SDK, a robotics pipeline or a
// server that decoded the image itself would hand it over: raw RGB bytes, no image file, no
// media libraries. Only `import VisionTasks`.
//
//   raw-hand-landmarks MODEL.task FRAME.rgb WIDTH HEIGHT
//
// FRAME.rgb holds WIDTH x HEIGHT pixels of 8-bit R, G, B, row after row (what
// `ffmpeg -i photo.jpg -f rawvideo -pix_fmt rgb24 frame.rgb` writes). Prints the
// HandLandmarkerResult as JSON (MediaPipe's field names).
import Foundation
import VisionTasks

let arguments = CommandLine.arguments
guard arguments.count == 5, let width = Int(arguments[3]), let height = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: raw-hand-landmarks MODEL.task FRAME.rgb WIDTH HEIGHT\n".utf8))
    exit(2)
}

do {
    let options = HandLandmarkerOptions()
    options.baseOptions.modelAssetPath = arguments[1]
    options.runningMode = .image
    options.numHands = 2
    let landmarker = try HandLandmarker(options: options)

    let frame = try Data(contentsOf: URL(fileURLWithPath: arguments[2]))
    let image = try MPImage(pixels: frame, width: width, height: height, format: .rgb8)
    let result = try landmarker.detect(image: image)

    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    FileHandle.standardOutput.write(try encoder.encode(result) + Data("\n".utf8))
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
