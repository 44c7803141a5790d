@testable import LiteInterpreter
import Foundation
import XCTest

final class DumpScratch: XCTestCase {
    func testDump() throws {
        let env = ProcessInfo.processInfo.environment
        guard let model = env["DUMP_MODEL"], let input = env["DUMP_INPUT"] else { throw XCTSkip("no dump requested") }
        let m = try Model(contentsOf: URL(fileURLWithPath: model))
        let it = try Interpreter(model: m, options: .init(threadCount: 1), preservingAllTensors: true)
        try it.copy(Data(contentsOf: URL(fileURLWithPath: input)), toInputAt: 0)
        try it.invoke()
        for t in m.program.plan.bytes.keys {
            if let v = it.tensorValues(t) {
                try v.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: "/tmp/interp_ref/dump/\(t).f32")) }
            }
        }
    }
}
