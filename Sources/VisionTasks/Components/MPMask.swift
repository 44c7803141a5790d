import Foundation

/// The element type of an `MPMask` (MediaPipe's `MaskDataType` / `MPPMaskDataType`).
public enum MaskDataType: Int, Sendable, Hashable, Codable, CustomStringConvertible {
    /// One byte per pixel, 0...255.
    case uInt8
    /// One float per pixel, normally 0...1.
    case float32

    /// "uint8" or "float32", the names the JSON form uses.
    public var description: String { self == .uInt8 ? "uint8" : "float32" }
}

/// A single-channel image of per-pixel values, as MediaPipe's `MPMask` (`Mask` / `MPPMask` in
/// the iOS API): the pose landmarker's segmentation masks are float32 confidence masks, one per
/// detected person, the size of the (upright) input image, with 1 for the person and 0 for
/// the background.
///
/// A value type here: MediaPipe's object with pointers becomes a struct with arrays. Values
/// are stored row by row, `width` values per row. Reading the other representation converts,
/// as MediaPipe's accessors do: `uint8Data` of a float mask is `value × 255` truncated (clamped
/// to 0...255), `float32Data` of a byte mask is `value / 255`.
///
/// `Codable`: the full mask, as `{"width", "height", "dataType": "float32" | "uint8",
/// "data": base64}` where `data` holds the values in row order (float32 little-endian, or
/// bytes). The `vision-tasks` command writes a summary instead (width, height, mean and a
/// 16×16 grid of cell means, the form of the MediaPipe reference files).
public struct MPMask: Sendable, Hashable, Codable, CustomStringConvertible {
    private enum Storage: Sendable, Hashable {
        case uInt8([UInt8])
        case float32([Float])
    }

    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    private let storage: Storage

    /// A float mask of `width × height` values in row order. Throws
    /// `TasksError.invalidArgument` when the sizes are not positive or the value count does
    /// not match.
    public init(float32Data: [Float], width: Int, height: Int) throws {
        try Self.check(count: float32Data.count, width: width, height: height)
        self.width = width
        self.height = height
        self.storage = .float32(float32Data)
    }

    /// A byte mask of `width × height` values in row order.
    public init(uint8Data: [UInt8], width: Int, height: Int) throws {
        try Self.check(count: uint8Data.count, width: width, height: height)
        self.width = width
        self.height = height
        self.storage = .uInt8(uint8Data)
    }

    /// How the values are stored.
    public var dataType: MaskDataType {
        switch storage {
        case .uInt8: return .uInt8
        case .float32: return .float32
        }
    }

    /// The values as floats (a byte mask is divided by 255).
    public var float32Data: [Float] {
        switch storage {
        case .float32(let values): return values
        case .uInt8(let bytes): return bytes.map { Float($0) / 255 }
        }
    }

    /// The values as bytes (a float mask is multiplied by 255 and truncated, clamped to 0...255).
    public var uint8Data: [UInt8] {
        switch storage {
        case .uInt8(let bytes): return bytes
        case .float32(let values):
            return values.map { value in
                let scaled = value * 255
                guard scaled >= 0 else { return 0 }  // also NaN
                return scaled >= 255 ? 255 : UInt8(scaled)
            }
        }
    }

    /// The value at column `x`, row `y` as a float, or nil outside the mask.
    public func value(x: Int, y: Int) -> Float? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        switch storage {
        case .float32(let values): return values[y * width + x]
        case .uInt8(let bytes): return Float(bytes[y * width + x]) / 255
        }
    }

    public var description: String { "MPMask(\(width)×\(height) \(dataType))" }

    /// The mean of all values and the mean of each cell of a `grid`×`grid` division, cell
    /// (gx, gy) holding rows gy·h/grid ..< (gy+1)·h/grid and columns gx·w/grid ..< (gx+1)·w/grid
    /// (integer division; an empty cell is 0): how MediaPipe's reference files summarise a mask
    /// (`shared/tools/mediapipe_reference.py`, unrounded).
    @_spi(Apps) public func summary(grid: Int) -> (mean: Double, cells: [[Double]]) {
        let values = float32Data
        let w = width, h = height, n = max(1, grid)
        let mean = values.reduce(0.0) { $0 + Double($1) } / Double(max(1, values.count))
        let cells = (0..<n).map { gy in
            (0..<n).map { gx in
                let rows = (gy * h / n)..<((gy + 1) * h / n)
                let columns = (gx * w / n)..<((gx + 1) * w / n)
                guard !rows.isEmpty, !columns.isEmpty else { return 0.0 }
                var sum = 0.0
                for y in rows {
                    for x in columns { sum += Double(values[y * w + x]) }
                }
                return sum / Double(rows.count * columns.count)
            }
        }
        return (mean, cells)
    }

    private static func check(count: Int, width: Int, height: Int) throws {
        guard width > 0, height > 0 else {
            throw TasksError.invalidArgument("Mask size must be positive, got \(width)×\(height).")
        }
        let (expected, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, count == expected else {
            throw TasksError.invalidArgument(
                "Mask of \(width)×\(height) needs \(overflow ? "more than Int.max" : "\(expected)") values, got \(count).")
        }
    }

    // MARK: - Codable

    private enum CodingKeys: String, CodingKey { case width, height, dataType, data }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let width = try c.decode(Int.self, forKey: .width)
        let height = try c.decode(Int.self, forKey: .height)
        let typeName = try c.decode(String.self, forKey: .dataType)
        let base64 = try c.decode(String.self, forKey: .data)
        guard let data = Data(base64Encoded: base64) else {
            throw DecodingError.dataCorruptedError(
                forKey: .data, in: c, debugDescription: "mask data is not valid base64")
        }
        do {
            switch typeName {
            case MaskDataType.float32.description:
                guard data.count % 4 == 0 else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .data, in: c, debugDescription: "float32 mask data of \(data.count) bytes")
                }
                var values = [Float](repeating: 0, count: data.count / 4)
                data.withUnsafeBytes { raw in
                    for i in values.indices {
                        values[i] = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self)))
                    }
                }
                try self.init(float32Data: values, width: width, height: height)
            case MaskDataType.uInt8.description:
                try self.init(uint8Data: [UInt8](data), width: width, height: height)
            default:
                throw DecodingError.dataCorruptedError(
                    forKey: .dataType, in: c, debugDescription: "unknown mask data type \(typeName)")
            }
        } catch let error as TasksError {
            throw DecodingError.dataCorruptedError(forKey: .data, in: c, debugDescription: error.message)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(dataType.description, forKey: .dataType)
        let data: Data
        switch storage {
        case .uInt8(let bytes):
            data = Data(bytes)
        case .float32(let values):
            var out = Data(capacity: values.count * 4)
            for value in values {
                withUnsafeBytes(of: value.bitPattern.littleEndian) { out.append(contentsOf: $0) }
            }
            data = out
        }
        try c.encode(data.base64EncodedString(), forKey: .data)
    }
}

/// MediaPipe iOS's Swift name for `MPMask` (`MPPMask` is `Mask` in Swift), so that code written
/// against it, e.g. `let mask: Mask = result.segmentationMasks[0]`, ports unchanged.
public typealias Mask = MPMask
