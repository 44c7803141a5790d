import Foundation
@testable import LiteInterpreter
import TestSupport
import XCTest

/// The TFLite writer: models it builds load, run and carry their metadata and associated files
/// through our reader; bad descriptions are errors. (That TensorFlow Lite's own reader loads
/// them too is checked by `MediaPipeBundleCompatibilityTests` with LiteRT.)
final class ModelBuilderTests: XCTestCase {
    /// x [1, 3] → MUL by [3] → ADD [3] with ReLU → FULLY_CONNECTED [2, 3] + [2] → SOFTMAX.
    private func classifier() throws -> (ModelBuilder, scale: [Float], shift: [Float], weights: [Float], bias: [Float]) {
        let scale: [Float] = [2, -1, 0.5], shift: [Float] = [0.25, 1, -3]
        let weights: [Float] = [1, 2, 3, -1, 0.5, 4], bias: [Float] = [0.1, -0.2]
        var builder = ModelBuilder(description: "a test classifier")
        let input = builder.addTensor(name: "embedding", shape: [1, 3])
        let scaleTensor = try builder.addConstant(name: "scale", shape: [3], values: scale)
        let shiftTensor = try builder.addConstant(name: "shift", shape: [3], values: shift)
        let scaled = builder.addTensor(name: "scaled", shape: [1, 3])
        let shifted = builder.addTensor(name: "shifted", shape: [1, 3])
        let weightTensor = try builder.addConstant(name: "weights", shape: [2, 3], values: weights)
        let biasTensor = try builder.addConstant(name: "bias", shape: [2], values: bias)
        let logits = builder.addTensor(name: "logits", shape: [1, 2])
        let scores = builder.addTensor(name: "scores", shape: [1, 2])
        builder.addOperator(.mul(), inputs: [input, scaleTensor], outputs: [scaled])
        builder.addOperator(.add(activation: .relu), inputs: [scaled, shiftTensor], outputs: [shifted])
        builder.addOperator(.fullyConnected(), inputs: [shifted, weightTensor, biasTensor], outputs: [logits])
        builder.addOperator(.softmax(), inputs: [logits], outputs: [scores])
        builder.inputs = [input]
        builder.outputs = [scores]
        return (builder, scale, shift, weights, bias)
    }

    func testABuiltClassifierLoadsAndComputesWhatItDescribes() throws {
        let (builder, scale, shift, weights, bias) = try classifier()
        let bytes = try builder.serialized()
        XCTAssertEqual(Array(bytes[4..<8]), Array("TFL3".utf8))
        let model = try Model(bytes: bytes)
        XCTAssertEqual(model.inputs.map(\.shape), [[1, 3]])
        XCTAssertEqual(model.outputs.map(\.name), ["scores"])
        XCTAssertEqual(model.operatorCounts.map(\.name), ["MUL", "ADD", "FULLY_CONNECTED", "SOFTMAX"])
        XCTAssertEqual(model.modelDescription, "a test classifier")
        let interpreter = try Interpreter(model: model, options: .init(threadCount: 1))
        let x: [Float] = [0.5, 3, 4]
        try interpreter.copy(x, toInputAt: 0)
        try interpreter.invoke()
        let scores = try interpreter.withUnsafeOutputBuffer(at: 0) { Array($0) }
        let hidden = (0..<3).map { max(0, x[$0] * scale[$0] + shift[$0]) }
        let logits = (0..<2).map { o in (0..<3).reduce(bias[o]) { $0 + weights[o * 3 + $1] * hidden[$1] } }
        let exps = logits.map { expf($0 - logits.max()!) }
        for (score, expected) in zip(scores, exps.map { $0 / exps.reduce(0, +) }) {
            XCTAssertEqual(score, expected, accuracy: 1e-6)
        }
    }

    func testMetadataAndAssociatedFilesRoundTrip() throws {
        var (builder, _, _, _, _) = try classifier()
        let metadata = ModelMetadata(
            name: "Test", description: "What it does.", version: "v2", author: "us", license: "Apache-2.0", minParserVersion: "1.0.0",
            inputTensors: [TensorMetadata(
                name: "embedding", description: "in", normalization: NormalizationParameters(mean: [127.5], std: [127.5]),
                content: .features)],
            outputTensors: [TensorMetadata(
                name: "scores", description: "out",
                associatedFiles: [AssociatedFile(name: "labels.txt", description: "the labels", kind: .tensorAxisLabels, locale: "en")],
                scoreThreshold: 0.5, content: .features, stats: TensorStats(max: [1], min: [0]))],
            associatedFiles: [AssociatedFile(name: "notes.txt", kind: .descriptions)])
        builder.metadata = metadata
        builder.addAssociatedFile(name: "labels.txt", contents: Array("none\nwave".utf8))
        builder.addAssociatedFile(name: "notes.txt", contents: Array("é".utf8))
        let bytes = try builder.serialized()
        let model = try Model(bytes: bytes)
        XCTAssertEqual(model.metadata, metadata)
        XCTAssertEqual(model.associatedFileNames, ["labels.txt", "notes.txt"])
        XCTAssertEqual(try model.associatedFile(named: "labels.txt"), Array("none\nwave".utf8))
        XCTAssertEqual(try model.associatedFile(named: "notes.txt"), Array("é".utf8))
        // Written twice, the same bytes.
        XCTAssertEqual(try builder.serialized(), bytes)
    }

    func testEveryOperatorTheBuilderOffersRuns() throws {
        var builder = ModelBuilder()
        let a = builder.addTensor(name: "a", shape: [1, 4])
        let b = try builder.addConstant(name: "b", shape: [4], values: [1, 2, -4, 0.5])
        var current = a
        var expected: [Float] = [0.5, -1, 2, 8]
        func step(_ operation: ModelBuilder.Operator, with constant: Bool, shape: [Int] = [1, 4], _ f: (Float, Float) -> Float) {
            let out = builder.addTensor(name: operation.name, shape: shape)
            builder.addOperator(operation, inputs: constant ? [current, b] : [current], outputs: [out])
            let bv: [Float] = [1, 2, -4, 0.5]
            expected = expected.indices.map { f(expected[$0], bv[$0]) }
            current = out
        }
        step(.add(), with: true) { $0 + $1 }
        step(.sub(activation: .relu6), with: true) { min(max($0 - $1, 0), 6) }
        step(.mul(activation: .reluN1To1), with: true) { min(max($0 * $1, -1), 1) }
        step(.div(activation: .tanh), with: true) { tanhf($0 / $1) }
        step(.logistic, with: false) { x, _ in 1 / (1 + expf(-x)) }
        step(.tanh, with: false) { x, _ in tanhf(x) }
        step(.relu, with: false) { x, _ in max(0, x) }
        step(.relu6, with: false) { x, _ in min(max(0, x), 6) }
        let reshaped = builder.addTensor(name: "reshaped", shape: [2, 2])
        builder.addOperator(.reshape(newShape: [2, 2]), inputs: [current], outputs: [reshaped])
        let joined = builder.addTensor(name: "joined", shape: [2, 4])
        builder.addOperator(.concatenation(axis: 1), inputs: [reshaped, reshaped], outputs: [joined])
        builder.inputs = [a]
        builder.outputs = [joined]
        let interpreter = try Interpreter(model: try Model(bytes: try builder.serialized()), options: .init(threadCount: 1))
        try interpreter.copy([0.5, -1, 2, 8], toInputAt: 0)
        try interpreter.invoke()
        let output = try interpreter.withUnsafeOutputBuffer(at: 0) { Array($0) }
        let rows = [Array(expected[0..<2]), Array(expected[2..<4])]
        for (got, want) in zip(output, rows[0] + rows[0] + rows[1] + rows[1]) {
            XCTAssertEqual(got, want, accuracy: 1e-6)
        }
    }

    func testInvalidDescriptionsAreErrors() throws {
        var builder = ModelBuilder()
        XCTAssertThrowsError(try builder.addConstant(name: "short", shape: [2, 3], values: [1, 2])) { error in
            XCTAssertTrue("\(error)".contains("short"), "\(error)")
        }
        XCTAssertThrowsError(try builder.addConstant(name: "negative", shape: [-1], values: []))
        let input = builder.addTensor(name: "x", shape: [1, 2])
        let constant = try builder.addConstant(name: "c", shape: [2], values: [1, 2])
        XCTAssertThrowsError(try builder.serialized()) { XCTAssertTrue("\($0)".contains("no outputs"), "\($0)") }
        builder.outputs = [constant]
        XCTAssertThrowsError(try builder.serialized()) { XCTAssertTrue("\($0)".contains("constant"), "\($0)") }
        let output = builder.addTensor(name: "y", shape: [1, 2])
        builder.outputs = [output]
        builder.addOperator(.add(), inputs: [input, ModelBuilder.TensorIndex(rawValue: 99)], outputs: [output])
        XCTAssertThrowsError(try builder.serialized()) { XCTAssertTrue("\($0)".contains("tensor 99"), "\($0)") }
        var archived = ModelBuilder()
        archived.outputs = [archived.addTensor(name: "y", shape: [1])]
        archived.addAssociatedFile(name: "../escape.txt", contents: [1])
        XCTAssertThrowsError(try archived.serialized()) { XCTAssertTrue("\($0)".contains("unsafe"), "\($0)") }
    }

    /// Stored members with their data 4-byte aligned from the start of the file, which the
    /// checked reader reads back, appended after other bytes too (as a model's associated files).
    func testZipWriterAlignsStoredMembersAndOurReaderReadsThem() throws {
        let members = [
            ZipArchiveWriter.Member(name: "a.tflite", bytes: Array(repeating: 7, count: 13)),
            ZipArchiveWriter.Member(name: "nested/b.txt", bytes: Array("bé".utf8)),
            ZipArchiveWriter.Member(name: "c", bytes: []),
        ]
        for prefix in [0, 1, 2, 3, 5] {
            let head = [UInt8](repeating: 0xAB, count: prefix)
            let file = head + (try ZipArchiveWriter.archive(members, startOffset: prefix))
            let reader = try ZipArchiveReader(bytes: file, limits: .init(maximumMemberSize: 1 << 20, maximumTotalSize: 1 << 20, maximumMemberCount: 10))
            XCTAssertEqual(reader.members.map(\.name), members.map(\.name))
            for (member, expected) in zip(reader.members, members) {
                XCTAssertEqual(try reader.extract(member), expected.bytes)
                // The data starts where the local header says, at a multiple of 4.
                let header = try XCTUnwrap((0...(file.count - 4)).first {
                    Array(file[$0..<$0 + 4]) == [0x50, 0x4B, 0x03, 0x04]
                        && Array(file[($0 + 30)..<min(file.count, $0 + 30 + expected.name.utf8.count)]) == Array(expected.name.utf8)
                })
                let nameLength = Int(file[header + 26]) | Int(file[header + 27]) << 8
                let extraLength = Int(file[header + 28]) | Int(file[header + 29]) << 8
                XCTAssertEqual((header + 30 + nameLength + extraLength) % 4, 0, "\(expected.name) after \(prefix) bytes")
            }
        }
        XCTAssertThrowsError(try ZipArchiveWriter.archive(members + [members[0]]))
    }
}
