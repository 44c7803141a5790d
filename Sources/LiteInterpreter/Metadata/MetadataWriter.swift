/// Writes `ModelMetadata` as a `TFLITE_METADATA` flatbuffer (identifier "M001"), the inverse of
/// `MetadataParser`. Field slots follow TFLite Support's `metadata_schema.fbs`; the tensors'
/// metadata goes into one subgraph, the model's associated files onto the model.
enum MetadataWriter {
    static func serialize(_ metadata: ModelMetadata) -> [UInt8] {
        var builder = FlatBufferBuilder()
        let inputs = metadata.inputTensors.map { tensor($0, &builder) }
        let outputs = metadata.outputTensors.map { tensor($0, &builder) }
        let inputVector = builder.vector(inputs)
        let outputVector = builder.vector(outputs)
        builder.startTable()
        builder.add(inputVector, slot: 2)
        builder.add(outputVector, slot: 3)
        let subgraph = builder.endTable()
        let subgraphs = builder.vector([subgraph])

        let strings: [(slot: Int, value: String?)] = [
            (0, metadata.name), (1, metadata.description), (2, metadata.version),
            (4, metadata.author), (5, metadata.license), (7, metadata.minParserVersion),
        ]
        let written = strings.compactMap { entry in entry.value.map { (entry.slot, builder.string($0)) } }
        let files = metadata.associatedFiles.isEmpty ? nil : associatedFiles(metadata.associatedFiles, &builder)
        builder.startTable()
        for (slot, offset) in written { builder.add(offset, slot: slot) }
        builder.add(subgraphs, slot: 3)
        if let files { builder.add(files, slot: 6) }
        let root = builder.endTable()
        return builder.finish(root: root, identifier: MetadataParser.identifier)
    }

    private static func tensor(_ tensor: TensorMetadata, _ builder: inout FlatBufferBuilder) -> FlatBufferBuilder.Offset {
        let name = tensor.name.map { builder.string($0) }
        let description = tensor.description.map { builder.string($0) }
        var content: FlatBufferBuilder.Offset?
        if let kind = tensor.content {
            builder.startTable()  // the properties table itself: these kinds' fields are all optional
            let properties = builder.endTable()
            builder.startTable()
            builder.add(UInt8(truncatingIfNeeded: kind.code), slot: 0)
            builder.add(properties, slot: 1)
            content = builder.endTable()
        }
        // ProcessUnitOptions: 1 = NormalizationOptions, 3 = ScoreThresholdingOptions.
        var units: [FlatBufferBuilder.Offset] = []
        if let normalization = tensor.normalization {
            let mean = builder.vector(normalization.mean)
            let std = builder.vector(normalization.std)
            builder.startTable()
            builder.add(mean, slot: 0)
            builder.add(std, slot: 1)
            units.append(processUnit(type: 1, options: builder.endTable(), &builder))
        }
        if let threshold = tensor.scoreThreshold {
            builder.startTable()
            builder.add(threshold, slot: 0)
            units.append(processUnit(type: 3, options: builder.endTable(), &builder))
        }
        let unitVector = units.isEmpty ? nil : builder.vector(units)
        var stats: FlatBufferBuilder.Offset?
        if let values = tensor.stats {
            let max = builder.vector(values.max)
            let min = builder.vector(values.min)
            builder.startTable()
            builder.add(max, slot: 0)
            builder.add(min, slot: 1)
            stats = builder.endTable()
        }
        let files = tensor.associatedFiles.isEmpty ? nil : associatedFiles(tensor.associatedFiles, &builder)
        builder.startTable()
        if let name { builder.add(name, slot: 0) }
        if let description { builder.add(description, slot: 1) }
        if let content { builder.add(content, slot: 3) }
        if let unitVector { builder.add(unitVector, slot: 4) }
        if let stats { builder.add(stats, slot: 5) }
        if let files { builder.add(files, slot: 6) }
        return builder.endTable()
    }

    private static func processUnit(
        type: UInt8, options: FlatBufferBuilder.Offset, _ builder: inout FlatBufferBuilder
    ) -> FlatBufferBuilder.Offset {
        builder.startTable()
        builder.add(type, slot: 0)
        builder.add(options, slot: 1)
        return builder.endTable()
    }

    private static func associatedFiles(_ files: [AssociatedFile], _ builder: inout FlatBufferBuilder) -> FlatBufferBuilder.Offset {
        let tables = files.map { file -> FlatBufferBuilder.Offset in
            let name = builder.string(file.name)
            let description = file.description.map { builder.string($0) }
            let locale = file.locale.map { builder.string($0) }
            builder.startTable()
            builder.add(name, slot: 0)
            if let description { builder.add(description, slot: 1) }
            builder.add(Int8(truncatingIfNeeded: file.kind.code), slot: 2)
            if let locale { builder.add(locale, slot: 3) }
            return builder.endTable()
        }
        return builder.vector(tables)
    }
}
