/// A 64-byte aligned, zero-initialised heap buffer with a little slack at the end (so SIMD
/// kernels may over-read a tail without leaving the allocation).
///
/// Shared buffers (a `Model`'s packed weights and constants) are written only while the model
/// is being prepared and are read-only afterwards, which is what makes them `Sendable`.
final class AlignedBuffer: @unchecked Sendable {
    static let alignment = 64
    static let slack = 64

    let raw: UnsafeMutableRawPointer
    let byteCount: Int

    init(byteCount: Int) {
        self.byteCount = byteCount
        let total = byteCount + AlignedBuffer.slack
        raw = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: AlignedBuffer.alignment)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: total)
    }

    convenience init(floatCount: Int) {
        self.init(byteCount: floatCount * MemoryLayout<Float>.stride)
    }

    convenience init(floats: [Float]) {
        self.init(floatCount: floats.count)
        floats.withUnsafeBufferPointer { source in
            if let base = source.baseAddress { floatPointer.update(from: base, count: source.count) }
        }
    }

    deinit { raw.deallocate() }

    var floatPointer: UnsafeMutablePointer<Float> { raw.assumingMemoryBound(to: Float.self) }
    var floatCount: Int { byteCount / MemoryLayout<Float>.stride }

    /// A copy of the contents as floats.
    var floats: [Float] { Array(UnsafeBufferPointer(start: floatPointer, count: floatCount)) }
}
