import Foundation
import MediaIO
import TestSupport
import VisionTasks
import XCTest

/// The gesture events on clips made from the shared stills (`GestureClips`): the exact event
/// sequence, with the models in the loop.
final class GestureClipTests: XCTestCase {
    private func clip(_ shots: [GestureClips.Shot], name: String) throws -> String {
        let testdata = try SharedTestData.testdata()
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("vision-tasks-\(name)-\(ProcessInfo.processInfo.processIdentifier).mp4").path
        try GestureClips.write(shots, to: path, testdata: testdata)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    /// (event kind, frame index) for every event the clip fires.
    private func events(
        _ path: String, landmarksOnly: Bool = false, options: GestureEventOptions = GestureEventOptions()
    ) throws -> [(kind: GestureEvent.Kind, frame: Int, hand: Int)] {
        let detector = try GestureEventDetector(options: options)
        let reader = try VideoReader(path: path)
        let model = try SharedTestData.installedModel(landmarksOnly ? "hand_landmarker.task" : "gesture_recognizer.task").path
        // One frame in, the events it completes out.
        let step: (VideoFrame) throws -> [GestureEvent]
        if landmarksOnly {
            let o = HandLandmarkerOptions()
            o.baseOptions.modelAssetPath = model
            o.runningMode = .video
            let landmarker = try HandLandmarker(options: o)
            step = { frame in
                detector.process(
                    try landmarker.detect(videoFrame: MPImage(pixelBuffer: frame.image), timestampInMilliseconds: frame.timestampInMilliseconds),
                    imageWidth: frame.image.width, imageHeight: frame.image.height)
            }
        } else {
            let o = GestureRecognizerOptions()
            o.baseOptions.modelAssetPath = model
            o.runningMode = .video
            let recognizer = try GestureRecognizer(options: o)
            step = { frame in
                detector.process(
                    try recognizer.recognize(videoFrame: MPImage(pixelBuffer: frame.image), timestampInMilliseconds: frame.timestampInMilliseconds),
                    imageWidth: frame.image.width, imageHeight: frame.image.height)
            }
        }
        var out: [(GestureEvent.Kind, Int, Int)] = []
        while let frame = try reader.nextFrame() {
            out += try step(frame).map { ($0.kind, frame.index, $0.handIdentifier) }
        }
        return out
    }

    func testThumbsClipFiresThumbsUpThenThumbsDownAndNoBlips() throws {
        let path = try clip(GestureClips.thumbsSequence(), name: "thumbs")
        for landmarksOnly in [false, true] {
            let fired = try events(path, landmarksOnly: landmarksOnly)
            print("thumbs clip, \(landmarksOnly ? "landmark rule" : "recognizer"):", fired)
            XCTAssertEqual(fired.map(\.kind), [.thumbsUp, .thumbsDown], "landmarksOnly \(landmarksOnly)")
            // Completed on the third frame of each gesture (frames 0 and 60 start them), one
            // frame later when the tracked region of the previous still misses the new hand
            // and the palm detector finds it on the next frame.
            XCTAssertEqual(fired.count, 2)
            for (event, start) in zip(fired, [0, 60]) {
                XCTAssert((start + 2...start + 3).contains(event.frame), "\(event.frame), landmarksOnly \(landmarksOnly)")
            }
        }
    }

    func testSwipeClipFiresOneSwipeEachWay() throws {
        let path = try clip(GestureClips.swipeSequence(), name: "swipe")
        let fired = try events(path)
        print("swipe clip:", fired)
        // Unmirrored: the hand moving towards the image's right is the user's left.
        XCTAssertEqual(fired.map(\.kind), [.swipeLeft, .swipeRight])
        // The pans start at frames 15 and 48.
        XCTAssertEqual(fired.count, 2)
        if fired.count == 2 {
            XCTAssert((16...24).contains(fired[0].frame), "\(fired[0].frame)")
            XCTAssert((49...57).contains(fired[1].frame), "\(fired[1].frame)")
        }
        var mirrored = GestureEventOptions()
        mirrored.inputIsMirrored = true
        XCTAssertEqual(try events(path, options: mirrored).map(\.kind), [.swipeRight, .swipeLeft])
    }
}
