import Foundation

extension GestureDataset {
    /// The format name and version written into dataset files.
    static let fileFormat = "vision-tasks gesture dataset"
    static let fileVersion = 1
    /// Dataset files larger than this are refused (a million samples take about 800 MB).
    static let maximumFileSize = 1 << 30

    /// Writes the dataset (labels, embeddings, skipped inputs, which models made them) to
    /// `url` as JSON, under a temporary name first, so that an interrupted write never leaves
    /// a damaged file. Embeddings are stored exactly (little-endian float32, base64).
    /// - Throws: `GestureTrainingError.fileSystem`.
    public func write(to url: URL) throws {
        let file = DatasetFile(
            format: Self.fileFormat, version: Self.fileVersion, embedder: embedderIdentity,
            videoFramesPerSecond: videoFramesPerSecond, labels: labels,
            files: files.keys.sorted().compactMap { path in files[path].map { DatasetFile.FileEntry(path: path, stamp: $0) } },
            samples: samples.map {
                DatasetFile.Sample(label: $0.label, embedding: Self.encode($0.embedding), source: $0.source, timestampInMilliseconds: $0.timestampInMilliseconds)
            },
            skipped: skipped.map {
                var reason = "noHand", message: String?
                if case .unreadable(let text) = $0.reason { reason = "unreadable"; message = text }
                return DatasetFile.Skipped(
                    label: $0.label, source: $0.source, timestampInMilliseconds: $0.timestampInMilliseconds, reason: reason, message: message)
            })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try encoder.encode(file))
        } catch {
            throw GestureTrainingError.fileSystem(path: url.path, reason: "cannot encode the dataset: \(error)")
        }
        try GestureFileWriter.write(bytes, to: url)
    }

    /// Reads a dataset file written by `write(to:)`. The file is untrusted: every embedding is
    /// checked (same size for all, finite values), every sample's label must be one of the
    /// dataset's, and the file may hold at most 1 GiB.
    /// - Throws: `GestureTrainingError.invalidDatasetFile` saying what is wrong.
    public init(contentsOf url: URL) throws {
        func invalid(_ reason: String) -> GestureTrainingError {
            .invalidDatasetFile(path: url.path, reason: reason)
        }
        let data: Data
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            guard (attributes[.type] as? FileAttributeType) == .typeRegular else { throw invalid("not a regular file") }
            let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
            guard size <= Self.maximumFileSize else { throw invalid("\(size) bytes, more than the \(Self.maximumFileSize) allowed") }
            data = try Data(contentsOf: url)
        } catch let error as GestureTrainingError {
            throw error
        } catch {
            throw invalid(FileManager.default.fileExists(atPath: url.path) ? error.localizedDescription : "no such file")
        }
        let file: DatasetFile
        do {
            file = try JSONDecoder().decode(DatasetFile.self, from: data)
        } catch {
            throw invalid("not a dataset file written by GestureDataset.write(to:) (\(error))")
        }
        guard file.format == Self.fileFormat else { throw invalid("its format is \"\(file.format)\", not \"\(Self.fileFormat)\"") }
        guard file.version == Self.fileVersion else {
            throw invalid("version \(file.version), but this library reads version \(Self.fileVersion)")
        }
        var dataset = GestureDataset()
        do {
            for label in file.labels { try dataset.insert(label: label) }
        } catch {
            throw invalid("\(error)")
        }
        guard dataset.labels.count == file.labels.count else { throw invalid("a label is listed twice") }
        let known = Set(dataset.labels)
        var size: Int?
        for (index, sample) in file.samples.enumerated() {
            guard known.contains(sample.label) else { throw invalid("sample \(index) has the unknown label \(sample.label.debugDescription)") }
            guard let embedding = Self.decode(sample.embedding) else {
                throw invalid("sample \(index): the embedding is not base64 of float32 values")
            }
            guard embedding.allSatisfy(\.isFinite), !embedding.isEmpty else {
                throw invalid("sample \(index): the embedding is empty or holds values that are not finite")
            }
            guard size == nil || size == embedding.count else {
                throw invalid("sample \(index) has \(embedding.count) embedding values, the ones before \(size ?? 0)")
            }
            size = embedding.count
            dataset.samples.append(GestureSample(
                label: sample.label, embedding: embedding, source: sample.source, timestampInMilliseconds: sample.timestampInMilliseconds))
        }
        for (index, input) in file.skipped.enumerated() {
            guard known.contains(input.label) else { throw invalid("skipped input \(index) has the unknown label \(input.label.debugDescription)") }
            let reason: SkippedInput.Reason = input.reason == "unreadable" ? .unreadable(input.message ?? "") : .noHand
            dataset.skipped.append(SkippedInput(
                source: input.source, label: input.label, timestampInMilliseconds: input.timestampInMilliseconds, reason: reason))
        }
        if let rate = file.videoFramesPerSecond, !(rate.isFinite && rate > 0) { throw invalid("the video rate \(rate) is not a positive number") }
        dataset.embedderIdentity = file.embedder
        dataset.videoFramesPerSecond = file.videoFramesPerSecond
        for entry in file.files ?? [] { dataset.files[entry.path] = entry.stamp }
        self = dataset
    }

    static func encode(_ values: [Float]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(values.count * 4)
        for value in values {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        }
        return Data(bytes).base64EncodedString()
    }

    static func decode(_ text: String) -> [Float]? {
        guard let data = Data(base64Encoded: text), data.count % 4 == 0 else { return nil }
        return stride(from: 0, to: data.count, by: 4).map { offset in
            let bits = UInt32(data[data.startIndex + offset]) | UInt32(data[data.startIndex + offset + 1]) << 8
                | UInt32(data[data.startIndex + offset + 2]) << 16 | UInt32(data[data.startIndex + offset + 3]) << 24
            return Float(bitPattern: bits)
        }
    }
}

/// The JSON form of a dataset file.
private struct DatasetFile: Codable {
    struct FileEntry: Codable {
        var path: String
        var stamp: GestureDataset.FileStamp
    }

    struct Sample: Codable {
        var label: String
        var embedding: String
        var source: String?
        var timestampInMilliseconds: Int?
    }

    struct Skipped: Codable {
        var label: String
        var source: String?
        var timestampInMilliseconds: Int?
        var reason: String
        var message: String?
    }

    var format: String
    var version: Int
    var embedder: GestureEmbedderIdentity?
    var videoFramesPerSecond: Double?
    var labels: [String]
    var files: [FileEntry]?
    var samples: [Sample]
    var skipped: [Skipped]
}
