/// The time one operator took in `Interpreter.invokeProfiled()`.
public struct OperatorTiming: Sendable, Equatable {
    /// The operator's index in the model file.
    public let operatorIndex: Int
    /// What ran, e.g. "CONV_2D 3x3/2 (igemm)" or "ADD+PRELU".
    public let kind: String
    public let seconds: Double
}
