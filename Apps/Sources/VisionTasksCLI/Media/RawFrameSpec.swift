import Foundation
import MediaIO
@_spi(Apps) import VisionTasks

/// `--raw WIDTHxHEIGHT:FORMAT`: inputs are raw frames of this size and layout, one after
/// another, without headers (as `ffmpeg -f rawvideo -pix_fmt FORMAT` writes them).
struct RawFrameSpec: Sendable, Equatable {
    var width: Int
    var height: Int
    var format: PixelFormat
    /// The format's name as given (`rgb24`), for messages.
    var formatName: String

    /// FFmpeg's pixel format names, and ours.
    static let formatNames: [String: PixelFormat] = [
        "rgb24": .rgb8, "rgb8": .rgb8, "rgba": .rgba8, "rgba8": .rgba8, "bgra": .bgra8, "bgra8": .bgra8,
        "gray": .gray8, "gray8": .gray8, "nv12": .nv12VideoRange, "nv12video": .nv12VideoRange,
        "nv12full": .nv12FullRange,
    ]

    /// Parses `640x480:rgb24`. `nv12` is video range (what cameras and FFmpeg produce);
    /// `nv12full` is full range.
    init(parsing text: String) throws {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        // Exactly two plain decimal numbers around one "x": before, sides that were not numbers
        // were dropped, so "640xabcx480" and "640xx480" read as 640x480.
        let sides = parts.first?.lowercased().split(separator: "x", omittingEmptySubsequences: false) ?? []
        let size = sides.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
            ? sides.compactMap { Int($0) } : []
        guard parts.count == 2, sides.count == 2, size.count == 2, let format = Self.formatNames[parts[1].lowercased()] else {
            throw MediaError(source: "--raw", reason: .invalidArgument(
                "'\(text)' is not WIDTHxHEIGHT:FORMAT with FORMAT one of rgb24, rgba, bgra, gray, nv12, nv12full"))
        }
        try ImageLimits.validate(width: size[0], height: size[1], source: "--raw")
        width = size[0]
        height = size[1]
        self.format = format
        formatName = parts[1].lowercased()
    }

    /// Bytes in one frame.
    var frameByteCount: Int {
        if format.isBiPlanar { return width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2) }
        return width * height * format.bytesPerPixel
    }
}

/// Reads raw frames one after another from a file or standard input.
final class RawFrameReader {
    let spec: RawFrameSpec
    let source: String
    private let handle: FileHandle
    private var index = 0

    init(path: String, spec: RawFrameSpec) throws {
        self.spec = spec
        source = path == "-" ? "<stdin>" : path
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            guard FileManager.default.fileExists(atPath: path) else { throw MediaIOError(source: path, reason: .fileNotFound) }
            guard let h = FileHandle(forReadingAtPath: path) else {
                throw MediaIOError(source: path, reason: .unreadable("permission denied or I/O error"))
            }
            handle = h
            // A file that is not a whole number of frames is the wrong size or format: say so
            // before processing garbage frames, not after the last one.
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            if attributes?[.type] as? FileAttributeType == .typeRegular, let size = (attributes?[.size] as? NSNumber)?.intValue,
               size % spec.frameByteCount != 0 {
                throw MediaIOError(source: path, reason: .truncated(
                    "\(size) bytes is not a whole number of \(spec.width)x\(spec.height) \(spec.formatName) frames"
                        + " (\(spec.frameByteCount) bytes each): check --raw"))
            }
        }
    }

    deinit { if source != "<stdin>" { try? handle.close() } }

    /// The next frame, nil at the end; a partial last frame is a truncation error.
    func next() throws -> PixelBuffer? {
        let size = spec.frameByteCount
        var data = Data()
        while data.count < size {
            let chunk: Data?
            do {
                chunk = try handle.read(upToCount: size - data.count)
            } catch {
                // The POSIX reason ("Bad file descriptor" for a closed stdin), not Foundation's wrapper.
                let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
                let reason = posix.map { String(cString: strerror(Int32($0.code))) } ?? String(describing: error)
                throw MediaIOError(source: source, reason: .unreadable(reason))
            }
            guard let chunk, !chunk.isEmpty else { break }
            data.append(chunk)
        }
        if data.isEmpty {
            if index == 0 { throw MediaIOError(source: source, reason: .empty) }
            return nil
        }
        guard data.count == size else {
            throw MediaIOError(source: source, reason: .truncated(
                "frame \(index) has \(data.count) of \(size) bytes (\(spec.width)x\(spec.height) \(spec.formatName))"))
        }
        index += 1
        return try PixelBuffer(width: spec.width, height: spec.height, format: spec.format, bytes: [UInt8](data), source: source)
    }
}
