/// Inputs that crashed a fuzz target (`scripts/fuzz`), kept as regression cases: the bytes are
/// written out here rather than stored as binary files.
public enum FuzzReproducers {
    /// 117 bytes found by `scripts/fuzz taskbundle` (and, appended to a model, by `scripts/fuzz model`):
    /// zip64 records that put the central directory beyond 2^63, on which ZIPFoundation trapped.
    public static let zip64DirectoryBeyond2To63 = bytes(
        "504b03041460e0606038565700000075af8c9d504b0606b980b8253755afa4000027b52c3547c130"
            + "0045f9d417a02cc2a0c020c320c1c8806a718037481b2b8811082da1742658192d50ad504b060701"
            + "02150314000008000052" + "7b785d126b504b0506000000000200020071000000cb0000000000")

    /// Bytes from hexadecimal digits.
    public static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count - 1, by: 2).map { i in
            UInt8(String(decoding: digits[i...(i + 1)], as: UTF8.self), radix: 16) ?? 0
        }
    }
}
