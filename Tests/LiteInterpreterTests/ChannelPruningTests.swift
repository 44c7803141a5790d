import Foundation
@testable import LiteInterpreter
import TestSupport
import XCTest

/// Inverted-residual blocks (1x1 expansion, depthwise, 1x1 projection) whose expansion has
/// all-zero weights for some channels: the interpreter removes those channels at load time and
/// adds their contribution as a per-pixel bias of the projection (`ChannelPruning`). Checked
/// against a double-precision reference of the block as stored, with and without pruning.
final class ChannelPruningTests: XCTestCase {
    struct Block {
        var height = 7, width = 7, inputs = 24, channels = 64, outputs = 24
        var kernel = 5, stride = 1
        var dead: [Int] = []
        /// Dead channels' expansion and depthwise biases at most 0 (they then add nothing).
        var deadAddNothing = false
        var projectionActivation: Int8 = 0
        var residual = true
        var expandedIsOutput = false
        /// Weights reach the operators through DEQUANTIZE operators placed just before each.
        var dequantized = false
        /// Output sizes of fully connected heads that read a MEAN over height and width of the
        /// depthwise result, instead of a projection (empty: a projection).
        var meanHeads: [Int] = []
        var seed: UInt64 = 5

        var outHeight: Int { (height + stride - 1) / stride }
        var outWidth: Int { (width + stride - 1) / stride }
    }

    struct Weights {
        var input: [Float] = [], expansion: [Float] = [], expansionBias: [Float] = []
        var depthwise: [Float] = [], depthwiseBias: [Float] = [], projection: [Float] = [], projectionBias: [Float] = []
        var heads: [(weights: [Float], bias: [Float])] = []
    }

    static func weights(_ b: Block) -> Weights {
        var r = TestRandom(state: b.seed)
        var w = Weights()
        w.input = r.floats(b.height * b.width * b.inputs).map { $0 * 3 }
        w.expansion = r.floats(b.channels * b.inputs)
        // Biases from -8 to 8: some dead channels clamp to 0, some to 6, most are in between.
        w.expansionBias = r.floats(b.channels).map { $0 * 8 }
        w.depthwise = r.floats(b.kernel * b.kernel * b.channels)
        w.depthwiseBias = r.floats(b.channels)
        w.projection = r.floats(b.outputs * b.channels)
        w.projectionBias = r.floats(b.outputs)
        w.heads = b.meanHeads.map { (r.floats($0 * b.channels), r.floats($0)) }
        for k in b.dead {
            for i in 0..<b.inputs { w.expansion[k * b.inputs + i] = 0 }
            if b.deadAddNothing {
                w.expansionBias[k] = -abs(w.expansionBias[k])
                w.depthwiseBias[k] = -abs(w.depthwiseBias[k])
            }
        }
        return w
    }

    static func model(_ b: Block, _ w: Weights) -> [UInt8] {
        var m = TestModel()
        func constant(_ shape: [Int], _ values: [Float]) -> Int32 {
            let stored = m.addConstant(shape, values)
            guard b.dequantized else { return stored }
            let converted = m.addTensor(shape)
            m.addOperator(code: Op.dequantize, inputs: [stored], outputs: [converted])
            return converted
        }
        let x = m.addTensor([1, b.height, b.width, b.inputs])
        let expanded = m.addTensor([1, b.height, b.width, b.channels])
        let filtered = m.addTensor([1, b.outHeight, b.outWidth, b.channels])
        let projected = m.addTensor([1, b.outHeight, b.outWidth, b.outputs])
        let ef = constant([b.channels, 1, 1, b.inputs], w.expansion), eb = constant([b.channels], w.expansionBias)
        m.addOperator(code: Op.conv2D, inputs: [x, ef, eb], outputs: [expanded], optionsType: Options.conv2D,
                      options: [(0, .int8(0)), (1, .int32(1)), (2, .int32(1)), (3, .int8(3))])
        let df = constant([1, b.kernel, b.kernel, b.channels], w.depthwise), db = constant([b.channels], w.depthwiseBias)
        m.addOperator(code: Op.depthwiseConv2D, inputs: [expanded, df, db], outputs: [filtered], optionsType: Options.depthwiseConv2D,
                      options: [(0, .int8(0)), (1, .int32(Int32(b.stride))), (2, .int32(Int32(b.stride))), (3, .int32(1)),
                                (4, .int8(3)), (5, .int32(1)), (6, .int32(1))])
        if !b.meanHeads.isEmpty {
            let axes = m.addInts([2], [1, 2]), mean = m.addTensor([1, b.channels])
            m.addOperator(code: Op.mean, inputs: [filtered, axes], outputs: [mean], optionsType: Options.reducer, options: [(0, .bool(false))])
            m.inputs = [x]
            m.outputs = zip(b.meanHeads, w.heads).map { size, head in
                let f = constant([size, b.channels], head.weights), bias = constant([size], head.bias), y = m.addTensor([1, size])
                m.addOperator(code: Op.fullyConnected, inputs: [mean, f, bias], outputs: [y], optionsType: Options.fullyConnected,
                              options: [(0, .int8(0))])
                return y
            } + (b.expandedIsOutput ? [expanded] : [])
            return m.serialize()
        }
        let pf = constant([b.outputs, 1, 1, b.channels], w.projection), pb = constant([b.outputs], w.projectionBias)
        m.addOperator(code: Op.conv2D, inputs: [filtered, pf, pb], outputs: [projected], optionsType: Options.conv2D,
                      options: [(0, .int8(0)), (1, .int32(1)), (2, .int32(1)), (3, .int8(b.projectionActivation))])
        var result = projected
        if b.residual {
            result = m.addTensor([1, b.outHeight, b.outWidth, b.outputs])
            m.addOperator(code: Op.add, inputs: [projected, x], outputs: [result], optionsType: Options.add, options: [(0, .int8(0))])
        }
        m.inputs = [x]
        m.outputs = b.expandedIsOutput ? [result, expanded] : [result]
        return m.serialize()
    }

    /// The block as stored, in double precision (the first output: the first head's, for a MEAN tail).
    static func reference(_ b: Block, _ w: Weights) -> [Float] { references(b, w)[0] }

    /// Every output of the block as stored, in double precision.
    static func references(_ b: Block, _ w: Weights) -> [[Float]] {
        typealias Case = ConvCase
        let expand = Case(h: b.height, w: b.width, c: b.inputs, oc: b.channels, kh: 1, kw: 1, stride: 1, dilation: 1, same: true, activation: 3)
        let e = referenceConv(expand, w.input, w.expansion, w.expansionBias, depthwise: false).out
        let dw = Case(h: b.height, w: b.width, c: b.channels, oc: b.channels, kh: b.kernel, kw: b.kernel, stride: b.stride, dilation: 1,
                      same: true, activation: 3)
        let d = referenceConv(dw, e, w.depthwise, w.depthwiseBias, depthwise: true).out
        if !b.meanHeads.isEmpty {
            let pixels = b.outHeight * b.outWidth
            let mean = (0..<b.channels).map { k in (0..<pixels).reduce(0.0) { $0 + Double(d[$1 * b.channels + k]) } / Double(pixels) }
            return zip(b.meanHeads, w.heads).map { size, head in
                (0..<size).map { o in Float((0..<b.channels).reduce(Double(head.bias[o])) { $0 + Double(head.weights[o * b.channels + $1]) * mean[$1] }) }
            }
        }
        let project = Case(h: b.outHeight, w: b.outWidth, c: b.channels, oc: b.outputs, kh: 1, kw: 1, stride: 1, dilation: 1, same: true,
                           activation: b.projectionActivation)
        let p = referenceConv(project, d, w.projection, w.projectionBias, depthwise: false).out
        return [b.residual ? zip(p, w.input).map { $0 + $1 } : p]
    }

    /// The channel counts the expansion and the projection run with (the expansion's alone where
    /// it runs fused with the depthwise layer).
    static func channels(_ model: Model) -> [String] {
        model.program.operations.compactMap { op in
            if let fused = op as? ExpansionDepthwiseOperation { return fused.expansion.detail }
            return op.summary.hasPrefix("CONV_2D") ? op.detail : nil
        }
    }

    func testDeadChannelsAreRemovedAndTheirContributionKept() throws {
        let cases: [(Block, kept: Int, String)] = [
            // 45 of 64 dead: 19 live, rounded up to 32 (13 dead ones kept); weights through DEQUANTIZE.
            (Block(dead: Array(stride(from: 0, to: 64, by: 1)).filter { $0 % 3 != 0 || $0 > 56 }, dequantized: true), 32, "5x5, residual"),
            // Stride 2 and a 3x3 kernel, exactly 16 live.
            (Block(height: 9, width: 8, inputs: 20, channels: 48, outputs: 20, kernel: 3, stride: 2,
                   dead: Array(16..<48), residual: false, seed: 9), 16, "3x3 stride 2"),
            // Dead channels that add nothing: no per-pixel bias at all.
            (Block(dead: Array(8..<64), deadAddNothing: true, seed: 11), 16, "dead channels add nothing"),
        ]
        for (block, kept, what) in cases {
            let w = Self.weights(block)
            let expected = Self.reference(block, w)
            let bytes = Self.model(block, w)
            let pruned = try Model(bytes: bytes), stored = try Model(bytes: bytes, pruneChannels: false)
            let (h, wd, oh, ow) = (block.height, block.width, block.outHeight, block.outWidth)
            XCTAssertEqual(Self.channels(pruned), ["\(h)x\(wd)x\(block.inputs) -> \(h)x\(wd)x\(kept)",
                                                   "\(oh)x\(ow)x\(kept) -> \(oh)x\(ow)x\(block.outputs)"], what)
            XCTAssertEqual(Self.channels(stored), ["\(h)x\(wd)x\(block.inputs) -> \(h)x\(wd)x\(block.channels)",
                                                   "\(oh)x\(ow)x\(block.channels) -> \(oh)x\(ow)x\(block.outputs)"], what)
            // The per-pixel bias is the projection's fused residual; the block's own ADD then runs
            // alone. Without a per-pixel bias the block's ADD is fused as usual.
            let operations = pruned.program.operations
            let projection = operations.first { $0.summary.hasPrefix("CONV_2D") && $0.detail.hasPrefix("\(oh)x\(ow)x\(kept) ->") }
            XCTAssertEqual(projection?.summary.hasSuffix("+ADD"), !block.deadAddNothing || block.residual, what)
            XCTAssertEqual(operations.filter { $0.summary == "ADD" }.count, block.residual && !block.deadAddNothing ? 1 : 0, what)
            for threads in [1, 2] {
                assertClose(try runModel(bytes, [w.input], threads: threads)[0], expected, 1e-5, "\(what), \(threads) threads")
                assertClose(try runModel(bytes, [w.input], threads: threads, pruneChannels: false)[0], expected, 1e-5,
                            "\(what) as stored, \(threads) threads")
            }
        }
    }

    func testDeadChannelsBeforeAMeanFoldIntoTheHeadsBiases() throws {
        let cases: [(Block, kept: Int, String)] = [
            (Block(dead: Array(0..<64).filter { $0 % 4 != 1 }, dequantized: true, meanHeads: [5, 3]), 16, "5x5, two heads"),
            (Block(kernel: 3, stride: 2, dead: Array(20..<64), meanHeads: [63], seed: 13), 32, "3x3 stride 2, one head"),
            (Block(dead: Array(0..<48), expandedIsOutput: true, meanHeads: [5]), 64, "left as stored: the expanded tensor is an output"),
        ]
        for (block, kept, what) in cases {
            let w = Self.weights(block)
            let expected = Self.references(block, w)
            let bytes = Self.model(block, w)
            let (h, wd) = (block.height, block.width)
            let model = try Model(bytes: bytes)
            XCTAssertEqual(Self.channels(model), ["\(h)x\(wd)x\(block.inputs) -> \(h)x\(wd)x\(kept)"], what)
            let heads = model.program.operations.filter { $0.summary == "FULLY_CONNECTED" }.map(\.detail)
            XCTAssertEqual(heads, block.meanHeads.map { "1x\(kept) -> 1x\($0)" }, what)
            for threads in [1, 2] {
                let outputs = try runModel(bytes, [w.input], threads: threads)
                for (i, reference) in expected.enumerated() {
                    assertClose(outputs[i], reference, 1e-5, "\(what), head \(i), \(threads) threads")
                }
            }
        }
    }

    func testBlocksThatCannotBePrunedAreLeftAsStored() throws {
        let dead = Array(0..<48)
        let cases: [(Block, String)] = [
            (Block(dead: dead, projectionActivation: 3), "the projection has an activation"),
            (Block(dead: dead, expandedIsOutput: true), "the expanded tensor is also a graph output"),
            (Block(dead: Array(0..<7)), "fewer than one in eight channels dead"),
            (Block(outputs: 4, dead: dead, residual: false), "a projection to 4 channels (not a GEMM)"),
        ]
        for (block, what) in cases {
            let w = Self.weights(block)
            let bytes = Self.model(block, w)
            let model = try Model(bytes: bytes)
            XCTAssertEqual(Self.channels(model).first, "7x7x\(block.inputs) -> 7x7x64", what)
            assertClose(try runModel(bytes, [w.input])[0], Self.reference(block, w), 1e-5, what)
        }
    }

    /// Which installed models have pruned blocks, and what they become (printed for
    /// docs/benchmarks.md's weights survey). Their results are checked by ConformanceTests.
    func testInstalledModelsArePrunedWhereTheirWeightsAreDead() throws {
        let names = ["canned_gesture_classifier", "custom_gesture_classifier", "gesture_embedder", "hand_landmark_full",
                     "hand_landmark_lite", "palm_detection_full", "palm_detection_lite", "pose_detection", "pose_landmark_full"]
        var pruned: [String: Int] = [:]
        for name in names {
            let bytes = [UInt8](try Data(contentsOf: try SharedTestData.installedModel("\(name).tflite")))
            let loaded = try Model(bytes: bytes), stored = try Model(bytes: bytes, pruneChannels: false)
            let before = Self.channels(stored), after = Self.channels(loaded)
            XCTAssertEqual(before.count, after.count, name)
            let changes = zip(before, after).filter { $0 != $1 }.map { "\($0) => \($1)" }
            let multiplyAdds = { (model: Model) in model.program.operations.reduce(0) { $0 + $1.multiplyAdds } }
            let (macsBefore, macsAfter) = (multiplyAdds(stored), multiplyAdds(loaded))
            pruned[name] = changes.count
            print("\(name): \(changes.count) convolutions changed; multiply-adds \(macsBefore) -> \(macsAfter) "
                  + String(format: "(%.1f %% fewer)", 100 * Double(macsBefore - macsAfter) / Double(max(macsBefore, 1))))
            for change in changes { print("  \(change)") }
        }
        // hand_landmark_full: its three 7x7 blocks that end in a projection (expansion and
        // projection each) and the last one, which ends in the MEAN before the heads (its
        // expansion); hand_landmark_lite: the same but for its first 7x7 block, which has fewer
        // than one in eight channels dead.
        XCTAssertEqual(pruned["hand_landmark_full"], 7)
        XCTAssertEqual(pruned["hand_landmark_lite"], 5)
        for name in names where !name.hasPrefix("hand_landmark") { XCTAssertEqual(pruned[name], 0, name) }
    }
}
