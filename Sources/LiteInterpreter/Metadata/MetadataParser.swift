/// Reads a `TFLITE_METADATA` buffer (a flatbuffer with identifier "M001"). Field slots follow
/// TFLite Support's `metadata_schema.fbs`.
enum MetadataParser {
    static let identifier = "M001"
    /// The name of the model metadata entry that holds it.
    static let entryName = "TFLITE_METADATA"

    static func parse(_ bytes: UnsafeRawBufferPointer) throws -> ModelMetadata {
        let reader = FlatBufferReader(bytes, makeError: { .malformedMetadata($0) })
        let root = try reader.rootTable(identifier: identifier, context: "model metadata")
        var metadata = ModelMetadata(
            name: try root.string(0, "name"),
            description: try root.string(1, "description"),
            version: try root.string(2, "version"),
            author: try root.string(4, "author"),
            license: try root.string(5, "license"),
            minParserVersion: try root.string(7, "min_parser_version"))
        metadata.associatedFiles = try files(root, slot: 6)
        let subgraphs = try root.tables(3, "subgraph_metadata", childContext: { "subgraph metadata \($0)" })
        if let subgraph = subgraphs.first {
            metadata.inputTensors = try subgraph.tables(2, "input_tensor_metadata", childContext: { "input tensor metadata \($0)" }).map(tensor)
            metadata.outputTensors = try subgraph.tables(3, "output_tensor_metadata", childContext: { "output tensor metadata \($0)" }).map(tensor)
            metadata.associatedFiles += try files(subgraph, slot: 4)
        }
        return metadata
    }

    private static func tensor(_ table: FlatBufferTable) throws -> TensorMetadata {
        var result = TensorMetadata(name: try table.string(0, "name"), description: try table.string(1, "description"))
        result.associatedFiles = try files(table, slot: 6)
        if let content = try table.table(3, "content") {
            let type = Int(try content.scalar(0, "content_properties_type", default: UInt8(0)))
            if type != 0 { result.content = TensorContent(code: type) }
        }
        if let stats = try table.table(5, "stats") {
            result.stats = TensorStats(max: try stats.floats(0, "max") ?? [], min: try stats.floats(1, "min") ?? [])
        }
        let units = try table.tables(4, "process_units", childContext: { "\(table.context), process unit \($0)" })
        for unit in units {
            // ProcessUnitOptions union: 1 = NormalizationOptions { mean: [float], std: [float] },
            // 3 = ScoreThresholdingOptions { global_score_threshold: float }.
            let type = try unit.scalar(0, "options_type", default: UInt8(0))
            if type == 3, let options = try unit.table(1, "options") {
                // The first thresholding unit counts, as MediaPipe's FindFirstProcessUnit.
                if result.scoreThreshold == nil {
                    result.scoreThreshold = try options.float(0, "global_score_threshold", default: 0)
                }
                continue
            }
            guard type == 1, let options = try unit.table(1, "options") else { continue }
            let mean = try options.floats(0, "mean") ?? []
            let std = try options.floats(1, "std") ?? []
            guard !mean.isEmpty, !std.isEmpty else {
                throw ModelError.malformedMetadata("\(table.context): normalization options without mean or std")
            }
            guard !std.contains(0) else {
                throw ModelError.malformedMetadata("\(table.context): normalization std contains 0")
            }
            result.normalization = NormalizationParameters(mean: mean, std: std)
        }
        return result
    }

    private static func files(_ table: FlatBufferTable, slot: Int) throws -> [AssociatedFile] {
        try table.tables(slot, "associated_files", childContext: { "\(table.context), associated file \($0)" }).map {
            AssociatedFile(name: try $0.string(0, "name") ?? "",
                           description: try $0.string(1, "description"),
                           kind: AssociatedFile.Kind(code: Int(try $0.scalar(2, "type", default: Int8(0)))),
                           locale: try $0.string(3, "locale"))
        }
    }
}
