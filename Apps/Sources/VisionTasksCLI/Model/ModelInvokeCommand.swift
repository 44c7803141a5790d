import ArgumentParser
import Foundation
import LiteInterpreter

/// `vision-tasks model invoke FILE --input A.f32 ... --output-dir DIR`: runs a model on raw
/// little-endian float32 inputs and writes each output as `DIR/output<i>.f32`.
struct ModelInvokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invoke",
        abstract: "Run a model on raw float32 inputs and write its outputs as raw float32 files.",
        discussion: """
            Inputs are raw little-endian float32 files, one --input per model input, in input \
            order; each must hold exactly the input's number of values. Output i is written to \
            DIR/output<i>.f32 (raw little-endian float32).
            """
    )

    @Argument(help: "A .tflite model file: a path, or a file name in the model folder (as --model).")
    var file: String

    @Option(name: .customLong("input"), help: "A raw float32 input file (repeat for each input, in order).")
    var inputs: [String] = []

    @Option(name: .customLong("output-dir"), help: "Folder for output<i>.f32 (created if missing).")
    var outputDirectory: String

    @Option(name: .customLong("threads"), parsing: .unconditional, help: "Threads to run with (default: all cores).")
    var threads: Int?

    func run() throws {
        let file = try TaskModelOption.locate(self.file)
        let model: Model
        do {
            model = try Model(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw ModelCommandError(description: "\(file): \(error)")
        }
        guard inputs.count == model.inputs.count else {
            throw ModelCommandError(description: "the model has \(model.inputs.count) input(s) but \(inputs.count) --input file(s) were given")
        }
        let options = threads.map { Interpreter.Options(threadCount: $0) } ?? Interpreter.Options()
        let interpreter = try Interpreter(model: model, options: options)
        for (i, path) in inputs.enumerated() {
            let expected = model.inputs[i]
            let data = try Self.read(path, index: i, expected: expected)
            guard data.count == expected.byteCount else {
                let has = data.count > expected.byteCount ? "more than that" : "\(data.count) bytes"
                throw ModelCommandError(description: "input \(i) (\(expected)) needs \(expected.elementCount) float32 values (\(expected.byteCount) bytes) but \(path) has \(has)")
            }
            try interpreter.copy(data, toInputAt: i)
        }
        try interpreter.invoke()
        let directory = URL(fileURLWithPath: outputDirectory)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw ModelCommandError(description: "cannot create \(outputDirectory): \(error.localizedDescription)")
        }
        // No output may replace an input (`--input out/output0.f32 --output-dir out`, chaining
        // two models, replaced the input file) or the model: all are checked before any is written.
        let outputPaths = (0..<interpreter.outputTensorCount).map { directory.appendingPathComponent("output\($0).f32").path }
        let protected = InputFiles(paths: inputs + [file])
        do {
            for path in outputPaths { try protected.checkNotAnInput(path) }
        } catch {
            throw ModelCommandError(description: "\(error)")
        }
        for (i, path) in outputPaths.enumerated() {
            let tensor = try interpreter.output(at: i)
            do {
                // Opened as a normal program opens a file (written in place, symlinks followed),
                // every write checked (a full disk is an error).
                let output = try OutputFile(path: path, inputs: protected)
                try output.write(tensor.data)
                try output.close()
            } catch {
                throw ModelCommandError(description: "cannot write \(path): \(error)")
            }
            print("output \(i): \(tensor.name) \(tensor.shape) -> \(path)")
        }
    }

    /// Reads at most one byte more than the input needs, so that `/dev/zero` or an endless pipe
    /// is "more than that" instead of memory without bound, and a FIFO or `/dev/stdin` works as
    /// in any shell tool. Errors name the POSIX reason (before: "You don't have permission"
    /// for a device or a FIFO).
    static func read(_ path: String, index: Int, expected: TensorDescription) throws -> Data {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw ModelCommandError(description: "cannot read input \(index) from \(path): \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            return try handle.read(upToCount: expected.byteCount + 1) ?? Data()
        } catch {
            let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            let reason = posix.map { String(cString: strerror(Int32($0.code))) } ?? "\(error)"
            throw ModelCommandError(description: "cannot read input \(index) from \(path): \(reason)")
        }
    }
}
