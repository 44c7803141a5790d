@testable import LiteInterpreter
import Foundation
import XCTest

final class ProfileScratch: XCTestCase {
    func testProfile() throws {
        let env = ProcessInfo.processInfo.environment
        guard let models = env["PROFILE_MODELS"] else { throw XCTSkip("no profile requested") }
        let threads = Int(env["PROFILE_THREADS"] ?? "1") ?? 1
        for path in models.split(separator: ",") {
            let m = try Model(contentsOf: URL(fileURLWithPath: String(path)))
            let it = try Interpreter(model: m, options: .init(threadCount: threads))
            for _ in 0..<5 { try it.invoke() }
            var total: [String: Double] = [:]
            var count: [String: Int] = [:]
            var perOp = [Double](repeating: 0, count: m.program.operations.count)
            let runs = 30
            for _ in 0..<runs {
                for (i, (name, s)) in it.invokeTimingOperators().enumerated() {
                    var key = name
                    if let c = m.program.operations[i] as? Conv2DOperation { key += c.isPointwise ? " 1x1" : " \(c.kernelHeight)x\(c.kernelWidth)s\(c.strideH)" }
                    if let d = m.program.operations[i] as? DepthwiseConv2DOperation { key += " \(d.parameters.kernel_h)x\(d.parameters.kernel_w)s\(d.parameters.stride_h)" }
                    total[key, default: 0] += s / Double(runs)
                    perOp[i] += s / Double(runs)
                    if count[key] == nil || count[key]! < m.program.operations.count { }
                }
            }
            for (i, op) in m.program.operations.enumerated() {
                var key = String(describing: type(of: op))
                if let c = op as? Conv2DOperation { key += c.isPointwise ? " 1x1" : " \(c.kernelHeight)x\(c.kernelWidth)s\(c.strideH)" }
                if let d = op as? DepthwiseConv2DOperation { key += " \(d.parameters.kernel_h)x\(d.parameters.kernel_w)s\(d.parameters.stride_h)" }
                count[key, default: 0] += 1
            }
            let sum = total.values.reduce(0, +)
            print("== \(path): \(String(format: "%.2f", sum * 1000)) ms")
            for (k, v) in total.sorted(by: { $0.value > $1.value }) {
                print(String(format: "  %-40@ %3d ops %7.3f ms %5.1f%%", k as NSString, count[k] ?? 0, v * 1000, v / sum * 100))
            }
            if env["PROFILE_DETAIL"] != nil {
                for (i, op) in m.program.operations.enumerated() where perOp[i] > sum * 0.01 {
                    var desc = ""
                    if let c = op as? Conv2DOperation { desc = "conv \(c.inputHeight)x\(c.inputWidth)x\(c.inputChannels) -> \(c.outputHeight)x\(c.outputWidth)x\(c.outputChannels) k\(c.kernelHeight) s\(c.strideH)" }
                    if let d = op as? DepthwiseConv2DOperation { let p = d.parameters; desc = "dw \(p.in_h)x\(p.in_w)x\(p.channels) -> \(p.out_h)x\(p.out_w) k\(p.kernel_h) s\(p.stride_h)" }
                    if desc.isEmpty { desc = String(describing: type(of: op)) }
                    print(String(format: "    op %3d %-50@ %7.3f ms", i, desc as NSString, perOp[i] * 1000))
                }
            }
        }
    }
}
