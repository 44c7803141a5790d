import Foundation
@testable import LiteInterpreter  // Model(bytes:pruneChannels:)
import TestSupport
@testable import VisionTasksModelInstaller  // SHA256, the installer's checksum
import XCTest

/// Runs every case of `testdata/tensors/manifest.json` (inputs and reference outputs made with
/// TFLite's reference kernels) on the installed model files and checks, for every output,
/// max|out - ref| <= 5e-4 * max(1, max|ref|). Each model runs as loaded (dead channels pruned,
/// `ChannelPruning`) and as stored, and both must pass; the report prints both.
final class ConformanceTests: XCTestCase {
    struct Case: Decodable {
        struct TensorFile: Decodable {
            let name: String
            let shape: [Int]
            let file: String
        }
        let model: String
        let sha256: String
        let `case`: String
        let inputs: [TensorFile]
        let outputs: [TensorFile]
    }

    static let tolerance: Float = 5e-4

    func testEveryManifestCaseMatchesTheReference() throws {
        let tensors = try SharedTestData.file("tensors")
        let manifest = try JSONDecoder().decode([Case].self, from: Data(contentsOf: tensors.appendingPathComponent("manifest.json")))
        XCTAssertFalse(manifest.isEmpty)
        var worstAsStored: [String: Float] = [:]
        for pruneChannels in [false, true] {
            let worst = try runManifest(manifest, in: tensors, pruneChannels: pruneChannels)
            if !pruneChannels {
                worstAsStored = worst
                continue
            }
            print("worst error / allowed per model (as stored -> as loaded, dead channels pruned):")
            for (model, ratio) in worst.sorted(by: { $0.key < $1.key }) {
                print(String(format: "  %@: %.4f -> %.4f", model, worstAsStored[model] ?? .nan, ratio))
            }
        }
    }

    /// Runs every case; returns each model's worst error / allowed.
    private func runManifest(_ manifest: [Case], in tensors: URL, pruneChannels: Bool) throws -> [String: Float] {
        var models: [String: Model] = [:]
        var worst: [String: Float] = [:]
        var report: [String] = []
        let variant = pruneChannels ? "" : " (as stored)"
        for item in manifest {
            let model: Model
            if let cached = models[item.model] {
                model = cached
            } else {
                let url = try SharedTestData.installedModel(item.model)
                let bytes = [UInt8](try Data(contentsOf: url))
                let digest = SHA256.hexDigest(of: bytes)
                guard digest == item.sha256 else {
                    XCTFail("\(item.model): sha256 \(digest) differs from the manifest's \(item.sha256); the installed file is not the one the references were made with")
                    continue
                }
                model = try Model(bytes: bytes, pruneChannels: pruneChannels)
                models[item.model] = model
            }
            let interpreter = try Interpreter(model: model, options: .init(threadCount: 2))
            XCTAssertEqual(interpreter.inputTensorCount, item.inputs.count, "\(item.model)")
            XCTAssertEqual(interpreter.outputTensorCount, item.outputs.count, "\(item.model)")
            for (i, input) in item.inputs.enumerated() {
                XCTAssertEqual(model.inputs[i].shape, input.shape, "\(item.model) input \(i)")
                try interpreter.copy(try Data(contentsOf: tensors.appendingPathComponent(input.file)), toInputAt: i)
            }
            try interpreter.invoke()
            for (i, output) in item.outputs.enumerated() {
                let reference = try Self.floats(tensors.appendingPathComponent(output.file))
                let result = try interpreter.output(at: i)
                XCTAssertEqual(result.shape, output.shape, "\(item.model) output \(i)")
                let values = result.floats
                guard values.count == reference.count else {
                    XCTFail("\(item.model) \(item.case) output \(i): \(values.count) values, reference has \(reference.count)")
                    continue
                }
                var maxError: Float = 0, maxReference: Float = 0
                for (v, r) in zip(values, reference) {
                    let error = abs(v - r)
                    maxError = error.isNaN ? .infinity : max(maxError, error)
                    maxReference = max(maxReference, abs(r))
                }
                let allowed = Self.tolerance * max(1, maxReference)
                let ratio = maxError / allowed
                worst[item.model] = max(worst[item.model] ?? 0, ratio)
                report.append("\(item.model)\(variant) \(item.case) output \(i) (\(output.name)): max error \(maxError), allowed \(allowed), ratio \(ratio)")
                XCTAssertLessThanOrEqual(maxError, allowed, "\(item.model)\(variant) \(item.case) output \(i) (\(output.name))")
            }
        }
        print(report.joined(separator: "\n"))
        return worst
    }

    static func floats(_ url: URL) throws -> [Float] {
        let data = try Data(contentsOf: url)
        return data.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
    }
}
