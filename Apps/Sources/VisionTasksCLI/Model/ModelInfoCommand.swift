import ArgumentParser
import Foundation
import LiteInterpreter

/// `vision-tasks model info FILE`: inputs, outputs, operator counts and metadata.
struct ModelInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Print a model's inputs, outputs, operators and metadata (normalisation, labels)."
    )

    @Argument(help: "A .tflite model file: a path, or a file name in the model folder (as --model).")
    var file: String

    func run() throws {
        let file = try TaskModelOption.locate(self.file)
        let model: Model
        do {
            model = try Model(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw ModelCommandError(description: "\(file): \(error)")
        }
        print(ModelInfoCommand.report(model, file: file))
    }

    static func report(_ model: Model, file: String) -> String {
        var lines = ["model: \(file)"]
        if let description = model.modelDescription, !description.isEmpty { lines.append("description: \(description)") }
        lines.append("inputs:")
        for (i, tensor) in model.inputs.enumerated() { lines.append("  \(i): \(tensor)") }
        lines.append("outputs:")
        for (i, tensor) in model.outputs.enumerated() { lines.append("  \(i): \(tensor)") }
        let total = model.operatorCounts.reduce(0) { $0 + $1.count }
        lines.append("operators (\(total)):")
        for entry in model.operatorCounts { lines.append("  \(entry.name): \(entry.count)") }
        guard let metadata = model.metadata else {
            lines.append("metadata: none")
            lines += associatedFiles(model, described: [])
            return lines.joined(separator: "\n")
        }
        lines.append("metadata:")
        if let name = metadata.name { lines.append("  name: \(name)") }
        if let description = metadata.description { lines.append("  description: \(description)") }
        if let version = metadata.version { lines.append("  version: \(version)") }
        if let author = metadata.author { lines.append("  author: \(author)") }
        if let license = metadata.license { lines.append("  license: \(license)") }
        for (role, tensors) in [("input", metadata.inputTensors), ("output", metadata.outputTensors)] {
            for (i, tensor) in tensors.enumerated() {
                lines.append("  \(role) \(i): \(tensor.name ?? "(unnamed)")" + (tensor.description.map { " - \($0)" } ?? ""))
                if let normalization = tensor.normalization {
                    lines.append("    normalization: mean \(normalization.mean), std \(normalization.std)")
                }
                if let threshold = tensor.scoreThreshold { lines.append("    score threshold: \(threshold)") }
                for file in tensor.associatedFiles { lines.append("    file: \(file.name) (\(file.kind))") }
            }
        }
        for file in metadata.associatedFiles { lines.append("  file: \(file.name) (\(file.kind))") }
        let described = metadata.associatedFiles + (metadata.inputTensors + metadata.outputTensors).flatMap(\.associatedFiles)
        lines += associatedFiles(model, described: described)
        return lines.joined(separator: "\n")
    }

    /// The packed files; labels files are listed line by line.
    private static func associatedFiles(_ model: Model, described: [AssociatedFile]) -> [String] {
        let names = model.associatedFileNames
        guard !names.isEmpty else { return [] }
        var lines = ["associated files:"]
        for name in names {
            let content = (try? model.associatedFile(named: name)) ?? nil
            let bytes = content?.count ?? 0
            lines.append("  \(name) (\(bytes) bytes)")
            let kind = described.first { $0.name == name }?.kind
            if let content, kind == .tensorAxisLabels || kind == .tensorValueLabels || name.hasSuffix(".txt") {
                let labels = String(decoding: content, as: UTF8.self)
                    .split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
                lines.append("    labels (\(labels.count)): " + labels.joined(separator: ", "))
            }
        }
        return lines
    }
}
