import Foundation
@testable import VisionTasks
@testable import VisionTasksCLI

/// A model-free processor: records each image's size and gives one small mask.
struct SizeProcessor: FrameProcessor {
    struct Result: Encodable {
        var size: [Int]
    }

    var resultKey: String { "size" }
    var processed: [String] = []
    private var current = ""

    mutating func begin(input: MediaInput, mode: RunningMode) throws { current = input.path }

    mutating func process(image: MPImage, timestampInMilliseconds: Int, frameIndex: Int) throws -> FrameOutput {
        processed.append(current)
        let mask = try PixelBuffer(width: 2, height: 2, format: .gray8, bytes: [1, 2, 3, 4])
        return FrameOutput(record: Result(size: [image.width, image.height]), summary: "ok", overlay: Overlay(), masks: [mask])
    }
}
