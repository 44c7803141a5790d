import Foundation

/// A TensorFlow Lite model, read, validated and prepared for running: weights are dequantised,
/// densified and packed once here, and the memory plan is made. A `Model` is immutable, so
/// several `Interpreter`s (on different threads) can share it and its prepared weights.
///
/// ```swift
/// import Foundation   // URL
///
/// let model = try Model(contentsOf: URL(fileURLWithPath: "hand_landmark_full.tflite"))
/// let interpreter = try Interpreter(model: model)
/// ```
public final class Model: Sendable {
    /// The graph's inputs, in order.
    public let inputs: [TensorDescription]
    /// The graph's outputs, in order.
    public let outputs: [TensorDescription]
    /// How many operators of each kind the model file holds, in order of first appearance
    /// (counted before load-time folding of DEQUANTIZE and DENSIFY).
    public let operatorCounts: [(name: String, count: Int)]
    /// The model's `TFLITE_METADATA`, or nil when the model has none.
    public let metadata: ModelMetadata?
    /// The model's description string from the flatbuffer, if any.
    public let modelDescription: String?

    let program: Program
    private let archive: AssociatedFilesArchive

    /// Reads a `.tflite` file (a regular file: a directory, device, FIFO or socket is refused).
    /// - Throws: `ModelError`.
    public convenience init(contentsOf url: URL) throws {
        try Self.checkRegularFile(url.path)
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw ModelError.unreadableFile(path: url.path, reason: error.localizedDescription)
        }
        try self.init(bytes: [UInt8](data))
    }

    /// Throws `ModelError.unreadableFile` unless `path` is a regular file (after symlinks).
    /// Before, a directory was "NSCocoaErrorDomain error 256", `/dev/zero` "You don't have
    /// permission", and a FIFO waited for a writer forever.
    static func checkRegularFile(_ path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw ModelError.unreadableFile(path: path, reason: String(cString: strerror(errno)))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw ModelError.unreadableFile(path: path, reason: "is a directory, not a model file")
        default: throw ModelError.unreadableFile(path: path, reason: "is not a regular file (a device, FIFO or socket)")
        }
    }

    /// Reads a model from the bytes of a `.tflite` file.
    /// - Throws: `ModelError`.
    public convenience init(bytes: [UInt8]) throws {
        try self.init(bytes: bytes, pruneChannels: true)
    }

    /// `pruneChannels: false` keeps the dead channels of pruned blocks (`ChannelPruning`), to
    /// compare with the model as stored.
    init(bytes: [UInt8], pruneChannels: Bool) throws {
        let parsed = try bytes.withUnsafeBytes { raw -> (Program, ModelFile, ModelMetadata?) in
            let file = try ModelFile(reader: FlatBufferReader(raw))
            let program = try GraphBuilder(file: file, bytes: raw, pruneChannels: pruneChannels).build()
            return (program, file, try Model.readMetadata(file, raw))
        }
        let (program, file, metadata) = parsed
        self.program = program
        self.metadata = metadata
        modelDescription = file.description
        inputs = program.inputs.map { TensorDescription(name: $0.name, shape: $0.shape, dataType: $0.dataType) }
        outputs = program.outputs.map { TensorDescription(name: $0.name, shape: $0.shape, dataType: $0.dataType) }
        var counts: [(name: String, count: Int)] = []
        for op in file.operators {
            let code = op.opcodeIndex < file.operatorCodes.count ? file.operatorCodes[op.opcodeIndex].builtinCode : -1
            let name = BuiltinOperator.name(of: code)
            if let i = counts.firstIndex(where: { $0.name == name }) { counts[i].count += 1 } else { counts.append((name, 1)) }
        }
        operatorCounts = counts
        archive = try AssociatedFilesArchive(modelBytes: bytes)
    }

    private static func readMetadata(_ file: ModelFile, _ raw: UnsafeRawBufferPointer) throws -> ModelMetadata? {
        guard let entry = file.metadata.first(where: { $0.name == MetadataParser.entryName }) else { return nil }
        guard entry.buffer >= 0, entry.buffer < file.buffers.count else {
            throw ModelError.malformedMetadata("\(MetadataParser.entryName) refers to buffer \(entry.buffer) out of range (file has \(file.buffers.count) buffers)")
        }
        let range = file.buffers[entry.buffer].range
        guard !range.isEmpty else {
            throw ModelError.malformedMetadata("\(MetadataParser.entryName) buffer \(entry.buffer) is empty")
        }
        return try MetadataParser.parse(UnsafeRawBufferPointer(rebasing: raw[range]))
    }

    /// The names of the files in the zip archive appended to the model (sorted).
    public var associatedFileNames: [String] { archive.files.keys.sorted() }

    /// The content of a file packed with the model (e.g. "labels.txt"), or nil when the model
    /// carries no such file.
    public func associatedFile(named name: String) throws -> [UInt8]? {
        archive.files[name]
    }
}
