import LiteInterpreter

/// The class names of a classification output and their display names, as MediaPipe reads
/// them from the model's metadata (`GetLabelItemsIfAny`, `BuildLabelMapFromFiles`).
struct ClassificationLabels: Sendable, Equatable {
    /// The label of each class, in output order.
    var names: [String]
    /// The display name of each class in the requested locale, when the model has them.
    var displayNames: [String]?

    init(names: [String], displayNames: [String]? = nil) {
        self.names = names
        self.displayNames = displayNames
    }

    /// The labels of output `outputIndex` of `model`: its first `TENSOR_AXIS_LABELS` file,
    /// and the display names from the first such file of `locale`. Nil when the output has no
    /// labels file. Throws when a named file is missing from the model or the display names do
    /// not match the labels.
    init?(model: Model, outputIndex: Int, locale: String) throws {
        guard let metadata = model.metadata, outputIndex < metadata.outputTensors.count else { return nil }
        let files = metadata.outputTensors[outputIndex].associatedFiles.filter {
            $0.kind == .tensorAxisLabels && !$0.name.isEmpty
        }
        guard let labelsFile = files.first else { return nil }
        let names = try Self.lines(ofFile: labelsFile.name, in: model)
        guard !names.isEmpty else {
            throw TasksError.invalidArgument("Expected non-empty labels file \(labelsFile.name).")
        }
        var displayNames: [String]?
        if let localized = files.first(where: { locale.isEmpty || $0.locale == locale }) {
            let lines = try Self.lines(ofFile: localized.name, in: model)
            // MediaPipe ignores an empty display names file.
            if !lines.isEmpty {
                guard lines.count == names.count else {
                    throw TasksError.invalidArgument(
                        "Mismatch between number of labels (\(names.count)) and display names (\(lines.count)) in \(localized.name).")
                }
                displayNames = lines
            }
        }
        self.init(names: names, displayNames: displayNames)
    }

    /// The lines of a packed file, split as MediaPipe's `ForEachLine` ("\r\n", "\r" or "\n"),
    /// without a trailing empty line.
    static func lines(ofFile name: String, in model: Model) throws -> [String] {
        guard let bytes = try model.associatedFile(named: name) else {
            throw TasksError.notFound("The model's metadata names \(name), but the model does not pack that file.")
        }
        return lines(of: bytes)
    }

    static func lines(of bytes: [UInt8]) -> [String] {
        var lines: [String] = []
        var start = 0
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            if byte == 0x0D || byte == 0x0A {
                lines.append(String(decoding: bytes[start..<i], as: UTF8.self))
                i += (byte == 0x0D && i + 1 < bytes.count && bytes[i + 1] == 0x0A) ? 2 : 1
                start = i
            } else {
                i += 1
            }
        }
        if start < bytes.count {
            lines.append(String(decoding: bytes[start...], as: UTF8.self))
        }
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// The display name of class `index`, if any.
    func displayName(_ index: Int) -> String? {
        guard let displayNames, index < displayNames.count else { return nil }
        return displayNames[index]
    }
}
