import Foundation
@testable import LiteInterpreter
import TestSupport
import XCTest

/// Broken model files give a typed error that says what is wrong: never a crash, a hang or a
/// huge allocation.
final class MalformedModelTests: XCTestCase {
    func installed(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: try SharedTestData.installedModel(name)))
    }

    /// A valid small model: y = x + c.
    func smallModel() -> TestModel {
        var m = TestModel()
        let x = m.addTensor([1, 4], name: "x"), c = m.addConstant([4], [1, 2, 3, 4]), y = m.addTensor([1, 4], name: "y")
        m.addOperator(code: Op.add, inputs: [x, c], outputs: [y], optionsType: Options.add, options: [(0, .int8(0))])
        m.inputs = [x]
        m.outputs = [y]
        return m
    }

    func testTheSmallModelIsValid() throws {
        XCTAssertEqual(try runModel(smallModel().serialize(), [[1, 1, 1, 1]])[0], [2, 3, 4, 5])
    }

    /// Found by `scripts/fuzz model`: a model whose appended archive's zip64 record put the central
    /// directory beyond 2^63 killed the process (ZIPFoundation trapped); now a typed error.
    func testAppendedZip64ArchiveWithOffsetsBeyondTheFileIsAnError() throws {
        let bytes = smallModel().serialize(appending: FuzzReproducers.zip64DirectoryBeyond2To63)
        XCTAssertThrowsError(try Model(bytes: bytes)) { error in
            guard case .malformedMetadata = error as? ModelError else { return XCTFail("\(error)") }
        }
    }

    /// A directory, a device and a FIFO are refused as models with a message that says so (not
    /// Foundation's "NSCocoaErrorDomain error 256" or "You don't have permission", and never
    /// waiting forever for a FIFO's writer).
    func testOnlyRegularFilesAreReadAsModels() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("model-paths-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cases: [(URL, String)] = [
            (folder, "is a directory"),
            (URL(fileURLWithPath: "/dev/zero"), "not a regular file"),
            (folder.appendingPathComponent("missing.tflite"), "No such file"),
        ]
        for (url, reason) in cases {
            XCTAssertThrowsError(try Model(contentsOf: url)) { error in
                guard case .unreadableFile(let path, let said)? = error as? ModelError else { return XCTFail("\(error)") }
                XCTAssertEqual(path, url.path)
                XCTAssertTrue(said.contains(reason), said)
            }
        }
    }

    func testTruncatedRealModel() throws {
        let bytes = try installed("palm_detection_lite.tflite")
        for length in [0, 3, 7, 8, 12, 64, 1000, 100_000, bytes.count / 2, bytes.count - 4096] {
            assertModelError(Array(bytes.prefix(length))) { error in
                if case .malformed = error { return true }
                if case .invalid = error { return true }
                return false
            }
        }
    }

    func testWrongIdentifier() throws {
        var bytes = smallModel().serialize()
        bytes.replaceSubrange(4..<8, with: Array("TFL2".utf8))
        assertModelError(bytes) { "\($0)".contains("wrong file identifier \"TFL2\", expected \"TFL3\"") }
        assertModelError(smallModel().serialize(identifier: "ABCD")) { "\($0)".contains("identifier") }
        // A zip archive (a .task bundle) is named as such.
        assertModelError([0x50, 0x4b, 0x03, 0x04] + [UInt8](repeating: 0, count: 60)) { "\($0)".contains(".task bundle") }
    }

    func testOffsetsOutOfRangeAndSelfReference() throws {
        var bytes = smallModel().serialize()
        // Root offset past the end.
        bytes.replaceSubrange(0..<4, with: le(UInt32(bytes.count + 100)))
        assertModelError(bytes) { error in if case .malformed = error { return true } else { return false } }
        // Root offset pointing at itself: the "table" at 0 has a vtable at 0 of length 0.
        bytes.replaceSubrange(0..<4, with: le(UInt32(0)))
        assertModelError(bytes) { error in if case .malformed = error { return true } else { return false } }
        // A vector length far beyond the file (no allocation is made for it).
        var model = smallModel()
        model.tensors[0].shape = [1, 4]
        var data = model.serialize()
        let pattern = le(UInt32(2)) + le(Int32(1)) + le(Int32(4)) // the shape vector [1, 4]
        guard let at = data.indices.first(where: { data[$0..<min($0 + 12, data.count)].elementsEqual(pattern) }) else {
            return XCTFail("shape vector not found")
        }
        data.replaceSubrange(at..<(at + 4), with: le(UInt32(0xffff_fff0)))
        assertModelError(data) { "\($0)".contains("runs past the end") }
    }

    func testBufferIndexOutOfRange() {
        var m = smallModel()
        m.tensors[1].buffer = 40
        assertModelError(m.serialize()) { "\($0)" == "invalid model: tensor 1: buffer 40 out of range (file has 2 buffers)" }
    }

    func testAbsurdShapeIsRejectedWithoutAllocating() {
        var m = smallModel()
        m.tensors[0].shape = [1 << 20, 1 << 20] // 2^40 elements
        assertModelError(m.serialize()) { "\($0)".contains("more than the") }
        var negative = smallModel()
        negative.tensors[2].shape = [1, -1]
        assertModelError(negative.serialize()) { "\($0)".contains("dynamic") }
        var deep = smallModel()
        deep.tensors[0].shape = [Int32](repeating: 1, count: 9)
        assertModelError(deep.serialize()) { "\($0)".contains("rank 9") }
    }

    func testHugeConvolutionAndEntryCountsAreRefused() {
        // A 64x64 kernel over a 2048x2048 output would need 2^34 indirection pointers.
        var m = TestModel()
        let x = m.addTensor([1, 2048, 2048, 1])
        let f = m.addConstant([1, 64, 64, 1], [Float](repeating: 0, count: 64 * 64))
        let y = m.addTensor([1, 2048, 2048, 1])
        m.addOperator(code: Op.conv2D, inputs: [x, f, -1], outputs: [y], optionsType: Options.conv2D,
                      options: [(0, .int8(0)), (1, .int32(1)), (2, .int32(1))])
        m.inputs = [x]
        m.outputs = [y]
        assertModelError(m.serialize()) { "\($0)".contains("indirection limit") }
        // 200k tensors that all point at the same table.
        var many = smallModel()
        for _ in 0..<200_000 { many.tensors.append(many.tensors[0]) }
        assertModelError(many.serialize()) { "\($0)".contains("exceed the maximum") }
    }

    func testCycleInTheGraph() {
        // op 0 reads t2, which op 1 writes from op 0's output: a cycle.
        var m = TestModel()
        let x = m.addTensor([4]), t1 = m.addTensor([4]), t2 = m.addTensor([4])
        m.addOperator(code: Op.add, inputs: [x, t2], outputs: [t1], optionsType: Options.add, options: [(0, .int8(0))])
        m.addOperator(code: Op.relu, inputs: [t1], outputs: [t2])
        m.inputs = [x]
        m.outputs = [t2]
        assertModelError(m.serialize()) { "\($0)".contains("operator 0 (ADD): input tensor 2 is read before any operator writes it") }
        // An operator writing its own input.
        var selfLoop = TestModel()
        let a = selfLoop.addTensor([4])
        selfLoop.addOperator(code: Op.relu, inputs: [a], outputs: [a])
        selfLoop.inputs = [a]
        selfLoop.outputs = [a]
        assertModelError(selfLoop.serialize()) { "\($0)".contains("already defined") }
    }

    func testUnsupportedOperatorsAndTypesNameWhatAndWhere() {
        var m = TestModel()
        let x = m.addTensor([4]), y = m.addTensor([4]), z = m.addTensor([4])
        m.addOperator(code: Op.relu, inputs: [x], outputs: [y])
        m.addOperator(code: Op.hardSwish, inputs: [y], outputs: [z])
        m.inputs = [x]
        m.outputs = [z]
        assertModelError(m.serialize()) { $0 == .unsupportedOperator(index: 1, name: "HARD_SWISH", code: 117) }
        XCTAssertEqual(ModelError.unsupportedOperator(index: 57, name: "HARD_SWISH", code: 117).description,
                       "operator 57: unsupported builtin operator HARD_SWISH (code 117)")
        // A code only in the 32-bit field (the 8-bit one holds 127).
        var extended = m
        extended.operatorCodes[1] = 150
        assertModelError(extended.serialize()) { error in
            if case let .unsupportedOperator(1, _, code) = error { return code == 150 } else { return false }
        }
        // A float16 activation.
        var typed = smallModel()
        typed.tensors[0].type = 1
        assertModelError(typed.serialize()) { "\($0)".contains("float16") }
    }

    func testExternalBuffersByOffsetAndSize() throws {
        // The constant's bytes live after the flatbuffer, found by offset and size.
        var m = smallModel()
        let constant: [Float] = [10, 20, 30, 40]
        let tail = constant.flatMap { le($0.bitPattern) }
        let base = m.serialize().count + 64 // room for the larger buffer table
        m.buffers[1] = .table([(1, .uint64(UInt64(base))), (2, .uint64(16))])
        var bytes = m.serialize()
        XCTAssertLessThanOrEqual(bytes.count, base)
        bytes += [UInt8](repeating: 0, count: base - bytes.count) + tail
        XCTAssertEqual(try runModel(bytes, [[1, 2, 3, 4]])[0], [11, 22, 33, 44])
        // Out of range.
        m.buffers[1] = .table([(1, .uint64(UInt64(base))), (2, .uint64(1 << 40))])
        assertModelError(m.serialize() + [UInt8](repeating: 0, count: 100)) { "\($0)".contains("lie outside") }
    }

    func testRandomByteFlipsNeverCrash() throws {
        for (name, trials) in [("canned_gesture_classifier.tflite", 400), ("gesture_embedder.tflite", 60)] {
            let original = try installed(name)
            var random = TestRandom(state: 42)
            var loaded = 0, rejected = 0
            for _ in 0..<trials {
                var bytes = original
                let flips = 1 + Int((random.next() + 1) * 2)
                for _ in 0..<flips {
                    // Bias towards the structure (the first and last 4 KiB), where weights are not.
                    let u = (random.next() + 1) / 2
                    let region = u < 0.5 ? min(4096, bytes.count) : bytes.count
                    let at = min(Int(u * 2 * Float(region)) % region, bytes.count - 1)
                    bytes[u < 0.5 ? at : bytes.count - 1 - at] ^= UInt8(1 + Int((random.next() + 1) * 127) % 255)
                }
                do {
                    let model = try Model(bytes: bytes)
                    let interpreter = try Interpreter(model: model, options: .init(threadCount: 1))
                    try interpreter.invoke()
                    loaded += 1
                } catch is ModelError {
                    rejected += 1
                } catch is InterpreterError {
                    rejected += 1
                }
            }
            print("\(name): \(trials) mutated files, \(loaded) loaded and ran, \(rejected) rejected with a typed error")
            XCTAssertEqual(loaded + rejected, trials)
            XCTAssertGreaterThan(rejected, 0, "\(name): some flips must be detected")
        }
    }

    func testMalformedMetadataIsReported() {
        var m = smallModel()
        let buffer = m.addBuffer([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
        m.metadata = [("TFLITE_METADATA", buffer)]
        assertModelError(m.serialize()) { error in
            if case .malformedMetadata = error { return "\(error)".contains("M001") } else { return false }
        }
        var missing = smallModel()
        missing.metadata = [("TFLITE_METADATA", 99)]
        assertModelError(missing.serialize()) { "\($0)".contains("out of range") }
    }
}
