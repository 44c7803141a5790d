/// The time one operator took in `Interpreter.invokeProfiled()`.
public struct OperatorTiming: Sendable, Equatable {
    /// The operator's index in the model file.
    public let operatorIndex: Int
    /// What ran, e.g. "CONV_2D 3x3/2 (igemm)" or "ADD+PRELU".
    public let kind: String
    /// Shapes, e.g. "56x56x24 -> 56x56x144" (empty for operators where they say little).
    public let detail: String
    /// Multiply-adds the operator performs (0 for operators that do none).
    public let multiplyAdds: Int
    /// Wall-clock time the operator took, in seconds.
    public let seconds: Double
    /// Each thread's time at work in the operator's pieces, in seconds, the calling thread first,
    /// while the interpreter adds up busy times (`Interpreter.measureBusyTime(_:)`); zeros when it
    /// does not, or when the operator ran on the calling thread alone, and empty at one thread.
    @_spi(Apps) public internal(set) var threadSeconds: [Double] = []
}
