import Foundation
import MediaIO
import VisionTasks

/// Test clips for the gesture events, made from the shared stills at test time (the shared
/// media hold gestures but no sequences of them). Frames are 640×480 at 30 fps,
/// the stills scaled onto a grey background, written with our `VideoWriter` (H.264 or MPEG-4)
/// so that the tests read them back through the same decoder as any user video.
public enum GestureClips {
    public static let width = 640, height = 480, framesPerSecond = 30

    /// One still placed in a frame: its centre and height in pixels.
    public struct Shot {
        public var still: String
        public var centerX: Int
        public var centerY: Int
        public var height: Int
        public init(_ still: String, centerX: Int = 320, centerY: Int = 240, height: Int = 480) {
            self.still = still
            self.centerX = centerX
            self.centerY = centerY
            self.height = height
        }
    }

    /// Stills used: MediaPipe says Thumb_Up / Thumb_Down / Open_Palm on each.
    public static let thumbUp = "hand_thumb_up_02_samples"
    public static let thumbDown = "hand_thumb_down_right_02_selfie"
    public static let openPalm = "hand_open_palm_01_crop"

    /// Thumbs up held 1 s, an open palm 1 s (neutral), thumbs down 1 s, neutral 1 s, then
    /// blips that must not fire: one thumbs-up frame and two thumbs-down frames between
    /// neutral frames. The events expected: thumbsUp (frame 0 on), thumbsDown (frame 60 on).
    public static func thumbsSequence() -> [Shot] {
        let up = Shot(thumbUp), down = Shot(thumbDown), neutral = Shot(openPalm, height: 300)
        return Array(repeating: up, count: 30) + Array(repeating: neutral, count: 30)
            + Array(repeating: down, count: 30) + Array(repeating: neutral, count: 30) + [up]
            + Array(repeating: neutral, count: 10) + [down, down] + Array(repeating: neutral, count: 10)
    }

    /// An open hand (240 px high) resting at the left for 0.5 s, panned to the right over 0.6 s
    /// (about 5 hand sizes), resting 0.5 s, panned back, resting 0.5 s.
    public static func swipeSequence() -> [Shot] {
        let left = 140, right = 500, steps = 18, size = 240
        func at(_ x: Int) -> Shot { Shot(openPalm, centerX: x, height: size) }
        let rightward = (1...steps).map { at(left + (right - left) * $0 / steps) }
        let leftward = (1...steps).map { at(right - (right - left) * $0 / steps) }
        return Array(repeating: at(left), count: 15) + rightward + Array(repeating: at(right), count: 15)
            + leftward + Array(repeating: at(left), count: 15)
    }

    /// Writes `shots` as an MP4 at `path` (stills read from `testdata`'s reference pixels).
    public static func write(_ shots: [Shot], to path: String, testdata: URL) throws {
        var stills: [String: PixelBuffer] = [:]
        var frames: [String: PixelBuffer] = [:]
        let writer = try VideoWriter(path: path, width: width, height: height, framesPerSecond: Double(framesPerSecond))
        for (index, shot) in shots.enumerated() {
            let key = "\(shot.still)@\(shot.centerX),\(shot.centerY),\(shot.height)"
            if frames[key] == nil {
                if stills[shot.still] == nil {
                    let file = testdata.appendingPathComponent("reference/\(shot.still).pixels.png").path
                    stills[shot.still] = try ImageDecoder.decode(contentsOfFile: file).pixels.convertedToRGB8()
                }
                guard let still = stills[shot.still] else { continue }
                frames[key] = try compose(still, shot)
            }
            guard let frame = frames[key] else { continue }
            try writer.append(frame, timestampInMilliseconds: index * 1000 / framesPerSecond)
        }
        try writer.finish()
    }

    /// The still scaled (bilinear) to `shot.height`, centred at the shot's point on grey.
    static func compose(_ still: PixelBuffer, _ shot: Shot) throws -> PixelBuffer {
        var out = [UInt8](repeating: 128, count: width * height * 3)
        let scale = Float(shot.height) / Float(still.height)
        let w = Int((Float(still.width) * scale).rounded())
        let x0 = shot.centerX - w / 2, y0 = shot.centerY - shot.height / 2
        let src = still.bytes, row = still.bytesPerRow
        for y in max(0, y0)..<min(height, y0 + shot.height) {
            let sy = min(Float(still.height - 1), max(0, (Float(y - y0) + 0.5) / scale - 0.5))
            let iy = Int(sy), fy = sy - Float(iy), iy1 = min(iy + 1, still.height - 1)
            for x in max(0, x0)..<min(width, x0 + w) {
                let sx = min(Float(still.width - 1), max(0, (Float(x - x0) + 0.5) / scale - 0.5))
                let ix = Int(sx), fx = sx - Float(ix), ix1 = min(ix + 1, still.width - 1)
                for c in 0..<3 {
                    let a = Float(src[iy * row + ix * 3 + c]), b = Float(src[iy * row + ix1 * 3 + c])
                    let d = Float(src[iy1 * row + ix * 3 + c]), e = Float(src[iy1 * row + ix1 * 3 + c])
                    let v = (a * (1 - fx) + b * fx) * (1 - fy) + (d * (1 - fx) + e * fx) * fy
                    out[(y * width + x) * 3 + c] = UInt8(max(0, min(255, v.rounded())))
                }
            }
        }
        return try PixelBuffer(width: width, height: height, format: .rgb8, bytes: out)
    }
}
