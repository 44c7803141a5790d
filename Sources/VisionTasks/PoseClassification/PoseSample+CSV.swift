import Foundation

/// ML Kit's samples CSV: one sample a line, `name,class,x1,y1,z1,...,x33,y33,z33` (101 columns,
/// no header, no quoting), coordinates in pixels as `PoseSample.landmarks`. What ML Kit's pose
/// classification sample loads (`PoseSample.getPoseSample`) and what its Colab writes.
extension PoseSample {
    /// Bounds on a CSV read from an untrusted source.
    public struct CSVLimits: Sendable, Hashable {
        /// The largest CSV read, in bytes (default 64 MiB, about 40,000 samples as ML Kit's
        /// Colab writes them).
        public var maximumBytes = 64 << 20
        /// The most samples read (default 100,000).
        public var maximumSamples = 100_000

        /// The defaults.
        public init() {}
    }

    /// The samples of an ML Kit samples CSV. Lines may end in `\n` or `\r\n`; blank lines and a
    /// UTF-8 byte order mark are skipped. Every other line must be a sample: a wrong column
    /// count, a coordinate that is not a number or not finite, an empty class name, text that
    /// is not UTF-8, or landmarks that give no usable pose are errors naming the line (ML Kit's
    /// loader skips such lines silently). Over `limits`: `.tooLarge` / `.tooManySamples`.
    public static func samples(csv data: Data, limits: CSVLimits = CSVLimits()) throws -> [PoseSample] {
        guard data.count <= limits.maximumBytes else {
            throw PoseClassificationError.tooLarge(bytes: data.count, limit: limits.maximumBytes)
        }
        return try CSVReader(bytes: [UInt8](data), limits: limits).samples()
    }

    /// The samples of the ML Kit samples CSV at `path`, reading at most `limits.maximumBytes`
    /// (a larger file is `.tooLarge` without being read whole). A file that cannot be read is
    /// `.cannotRead`.
    public static func samples(contentsOfCSVFile path: String, limits: CSVLimits = CSVLimits()) throws -> [PoseSample] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw PoseClassificationError.cannotRead(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else {
            throw PoseClassificationError.cannotRead(path: path, reason: "a directory, not a CSV file")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw PoseClassificationError.cannotRead(path: path, reason: "cannot be opened (permissions?)")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: limits.maximumBytes + 1) ?? Data()
        } catch {
            throw PoseClassificationError.cannotRead(path: path, reason: "\(error.localizedDescription)")
        }
        guard data.count <= limits.maximumBytes else {
            // A device or a pipe has no size (0): then the bytes read are what is known.
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            throw PoseClassificationError.tooLarge(bytes: max(size, data.count), limit: limits.maximumBytes)
        }
        return try samples(csv: data, limits: limits)
    }

    /// The sample as one CSV line (no line break): name and class with commas, line feeds,
    /// carriage returns (the characters that end a field or a line, here and for Java's
    /// `readLine`) and byte order marks replaced by `_`, then each coordinate in its shortest
    /// exact decimal form, which reads back to the same `Float` here and in ML Kit's Java
    /// (`Float.parseFloat`).
    public var csvLine: String {
        var fields = [Self.csvField(name), Self.csvField(className)]
        fields.reserveCapacity(2 + 3 * landmarks.count)
        for point in landmarks {
            fields.append(point.x.description)
            fields.append(point.y.description)
            fields.append(point.z.description)
        }
        return fields.joined(separator: ",")
    }

    /// `samples` as an ML Kit samples CSV: one `csvLine` per sample, each ending in `\n`.
    public static func csv(_ samples: [PoseSample]) -> String {
        samples.map { $0.csvLine + "\n" }.joined()
    }

    /// `text` with the characters the CSV cannot hold (comma, line feed, carriage return, and the
    /// byte order mark, which a reader drops at the start of a file) replaced by `_`; every other
    /// character is kept, so a name without them reads back as it was.
    static func csvField(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let replaced = scalar == "," || scalar == "\n" || scalar == "\r" || scalar == "\u{FEFF}"
            scalars.append(replaced ? "_" : scalar)
        }
        return String(scalars)
    }
}

/// Reads the lines of an ML Kit samples CSV.
private struct CSVReader {
    let bytes: [UInt8]
    let limits: PoseSample.CSVLimits

    static let columns = 2 + 3 * PoseLandmark.count
    private static let newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
    private static let comma = UInt8(ascii: ","), space = UInt8(ascii: " "), tab = UInt8(ascii: "\t")

    func samples() throws -> [PoseSample] {
        var samples: [PoseSample] = []
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        var lineNumber = 0
        while start < bytes.count {
            let end = bytes[start...].firstIndex(of: Self.newline) ?? bytes.count
            lineNumber += 1
            var lineEnd = end
            if lineEnd > start, bytes[lineEnd - 1] == Self.carriageReturn { lineEnd -= 1 }
            let line = bytes[start..<lineEnd]
            start = end + 1
            if line.allSatisfy({ $0 == Self.space || $0 == Self.tab }) { continue }
            guard samples.count < limits.maximumSamples else {
                throw PoseClassificationError.tooManySamples(limit: limits.maximumSamples)
            }
            samples.append(try sample(line, lineNumber: lineNumber))
        }
        return samples
    }

    private func sample(_ line: ArraySlice<UInt8>, lineNumber: Int) throws -> PoseSample {
        let fields = line.split(separator: Self.comma, omittingEmptySubsequences: false)
        guard fields.count == Self.columns else {
            throw PoseClassificationError.wrongColumnCount(line: lineNumber, found: fields.count)
        }
        guard let name = String(bytes: fields[0], encoding: .utf8),
              let className = String(bytes: fields[1], encoding: .utf8) else {
            throw PoseClassificationError.notText(line: lineNumber)
        }
        guard !className.isEmpty else { throw PoseClassificationError.emptyClassName(line: lineNumber) }
        var values: [Float] = []
        values.reserveCapacity(Self.columns - 2)
        for column in 2..<Self.columns {
            let field = fields[column]
            guard let text = String(bytes: field, encoding: .utf8) else {
                throw PoseClassificationError.notText(line: lineNumber)
            }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let value = Float(trimmed) else {
                throw PoseClassificationError.notANumber(line: lineNumber, column: column + 1, text: text)
            }
            guard value.isFinite else {
                throw PoseClassificationError.notFinite(line: lineNumber, column: column + 1, text: text)
            }
            values.append(value)
        }
        let landmarks = stride(from: 0, to: values.count, by: 3).map { SIMD3(values[$0], values[$0 + 1], values[$0 + 2]) }
        guard PoseEmbedding(landmarks: landmarks) != nil else {
            throw PoseClassificationError.degeneratePose(line: lineNumber, name: name)
        }
        return try PoseSample(name: name, className: className, landmarks: landmarks)
    }
}
