import Foundation
import MediaIO
import VisionTasks

/// Writes a YUV4MPEG2 clip (what Chromium's fake camera reads) from still images: each still
/// letterboxed into the frame (nearest pixel) and held for a number of frames.
enum Y4MClip {
    static func write(_ stills: [(path: String, frames: Int)], to url: URL, width: Int = 640, height: Int = 480, fps: Int = 15) throws {
        try write(
            images: stills.map { (try ImageDecoder.decode(contentsOfFile: $0.path).pixels, $0.frames) },
            to: url, width: width, height: height, fps: fps)
    }

    /// The same from decoded images (video frames, say), each held for a number of frames.
    static func write(images: [(image: PixelBuffer, frames: Int)], to url: URL, width: Int, height: Int, fps: Int) throws {
        var data = Data("YUV4MPEG2 W\(width) H\(height) F\(fps):1 Ip A1:1\n".utf8)
        for still in images {
            let frame = yuv420(still.image.convertedToRGB8(), width: width, height: height)
            for _ in 0..<still.frames {
                data.append(contentsOf: Array("FRAME\n".utf8))
                data.append(contentsOf: frame)
            }
        }
        try data.write(to: url)
    }

    /// The image scaled to fit `width` × `height` on black, as planar YUV 4:2:0 (BT.601, full range).
    static func yuv420(_ rgb: PixelBuffer, width: Int, height: Int) -> [UInt8] {
        let scale = min(Double(width) / Double(rgb.width), Double(height) / Double(rgb.height))
        let shownWidth = Int(Double(rgb.width) * scale), shownHeight = Int(Double(rgb.height) * scale)
        let left = (width - shownWidth) / 2, top = (height - shownHeight) / 2
        var r = [Double](repeating: 0, count: width * height), g = r, b = r
        for y in 0..<shownHeight {
            let sourceY = min(rgb.height - 1, Int(Double(y) / scale))
            for x in 0..<shownWidth {
                let sourceX = min(rgb.width - 1, Int(Double(x) / scale))
                let offset = sourceY * rgb.bytesPerRow + sourceX * 3
                let i = (top + y) * width + left + x
                r[i] = Double(rgb.bytes[offset])
                g[i] = Double(rgb.bytes[offset + 1])
                b[i] = Double(rgb.bytes[offset + 2])
            }
        }
        func clamp(_ v: Double) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }
        var planes = [UInt8](repeating: 0, count: width * height * 3 / 2)
        for i in 0..<(width * height) {
            planes[i] = clamp(0.299 * r[i] + 0.587 * g[i] + 0.114 * b[i])
        }
        let chromaWidth = width / 2, chromaHeight = height / 2
        for cy in 0..<chromaHeight {
            for cx in 0..<chromaWidth {
                var sr = 0.0, sg = 0.0, sb = 0.0
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let i = (cy * 2 + dy) * width + cx * 2 + dx
                    sr += r[i] / 4
                    sg += g[i] / 4
                    sb += b[i] / 4
                }
                let c = cy * chromaWidth + cx
                planes[width * height + c] = clamp(128 - 0.168736 * sr - 0.331264 * sg + 0.5 * sb)
                planes[width * height + chromaWidth * chromaHeight + c] = clamp(128 + 0.5 * sr - 0.418688 * sg - 0.081312 * sb)
            }
        }
        return planes
    }
}
