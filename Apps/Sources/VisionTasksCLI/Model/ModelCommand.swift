import ArgumentParser

/// `vision-tasks model`: look inside and run TensorFlow Lite model files.
struct ModelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Inspect and run TensorFlow Lite model files with the built-in interpreter.",
        subcommands: [ModelInfoCommand.self, ModelInvokeCommand.self]
    )
}

/// A failure of a `model` subcommand, printed as is.
struct ModelCommandError: Error, CustomStringConvertible {
    let description: String
}
