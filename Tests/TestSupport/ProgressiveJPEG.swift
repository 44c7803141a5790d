import Foundation

/// Progressive JPEGs written byte by byte, whose scans a test chooses: the decompression bombs
/// of many tiny scans (each scan is a pass over a component's blocks for the decoder, while its
/// data, one end-of-band run per 16 384 blocks, is a few bytes), and well-formed files with many
/// scans. Every coefficient is zero: each component is uniform (128).
public struct ProgressiveJPEG {
    /// One scan of one component: coefficients `first...last`, successive approximation bits
    /// `high` (Ah) and `low` (Al).
    public struct Scan: Sendable {
        public var component: Int
        public var first: Int
        public var last: Int
        public var high: Int
        public var low: Int

        public init(component: Int = 0, first: Int, last: Int, high: Int = 0, low: Int = 0) {
            self.component = component
            self.first = first
            self.last = last
            self.high = high
            self.low = low
        }
    }

    public let width: Int
    public let height: Int
    /// Each component's sampling factor (the same horizontally and vertically).
    public let sampling: [Int]

    /// A `width` x `height` image whose components are sampled by `sampling` (1: grey). Every
    /// component must have a multiple of 16 384 blocks (e.g. 1024 x 1024 grey, 4096 x 4096), so
    /// that each AC scan is whole end-of-band runs.
    public init(width: Int, height: Int, sampling: [Int] = [1]) {
        self.width = width
        self.height = height
        self.sampling = sampling
        precondition((0..<sampling.count).allSatisfy { blocks($0) % 16_384 == 0 })
    }

    /// The 8x8 blocks of component `c` (the image's size in whole MCUs).
    private func blocks(_ c: Int) -> Int {
        let largest = sampling.max() ?? 1
        let mcuWide = (width + 8 * largest - 1) / (8 * largest), mcuHigh = (height + 8 * largest - 1) / (8 * largest)
        return mcuWide * sampling[c] * mcuHigh * sampling[c]
    }

    /// The DC scans of every component, one each.
    public var dcScans: [Scan] { sampling.indices.map { Scan(component: $0, first: 0, last: 0) } }

    /// The file: SOI, tables, SOF2, then `scans` in order, then EOI.
    public func bytes(scans: [Scan]) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        // Quantisation table 0: every step 1.
        out += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        // Progressive frame: 8-bit samples; component i has id i + 1, its sampling, table 0.
        out += [0xFF, 0xC2] + Self.bigEndian16(8 + 3 * sampling.count) + [0x08] + Self.bigEndian16(height) + Self.bigEndian16(width)
        out.append(UInt8(sampling.count))
        for (i, factor) in sampling.enumerated() { out += [UInt8(i + 1), UInt8(factor << 4 | factor), 0x00] }
        // DC table 0: one 1-bit code, for "difference 0". AC table 0: a 1-bit code for EOB14
        // (an end-of-band run of 2^14 blocks plus 14 extra bits) and a 2-bit code for EOB0.
        out += [0xFF, 0xC4, 0x00, 0x14, 0x00, 1] + [UInt8](repeating: 0, count: 15) + [0x00]
        out += [0xFF, 0xC4, 0x00, 0x15, 0x10, 1, 1] + [UInt8](repeating: 0, count: 14) + [0xE0, 0x00]
        for scan in scans {
            out += [0xFF, 0xDA, 0x00, 0x08, 0x01, UInt8(scan.component + 1), 0x00, UInt8(scan.first), UInt8(scan.last), UInt8(scan.high << 4 | scan.low)]
            out += scan.first == 0 ? dcData(scan.component) : acData(scan.component)
        }
        return out + [0xFF, 0xD9]
    }

    /// A DC scan: one bit per block (the 1-bit code "0" of a first scan, or a refinement bit).
    private func dcData(_ component: Int) -> [UInt8] {
        [UInt8](repeating: 0, count: blocks(component) / 8)
    }

    /// An AC scan (first or refinement) of zero coefficients: EOB14 runs with zero extra bits,
    /// each 15 bits, 16 384 blocks each; padded with 1 bits to a whole byte.
    private func acData(_ component: Int) -> [UInt8] {
        var bits: [Bool] = []
        for _ in 0..<(blocks(component) / 16_384) { bits += [Bool](repeating: false, count: 15) }
        while bits.count % 8 != 0 { bits.append(true) }
        return stride(from: 0, to: bits.count, by: 8).map { start in
            bits[start..<start + 8].reduce(0) { $0 << 1 | ($1 ? 1 : 0) }
        }
    }

    private static func bigEndian16(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// The bomb: the DC scans, then the same one-coefficient AC scan of the first component
    /// `repeats` times. With `low` above 0, libjpeg warns ("bogus progression") from the second
    /// copy on; with 0 it does not, and would decode every copy over the last.
    public func repeatedScanBomb(repeats: Int, low: Int) -> [UInt8] {
        bytes(scans: dcScans + [Scan](repeating: Scan(first: 1, last: 1, low: low), count: repeats))
    }

    /// A well-formed file: the DC scans, then for each component in `components`, a first scan
    /// of each AC coefficient with `refinements` low bits left, then that many refinement
    /// passes over each coefficient: `63 * (refinements + 1)` AC scans a component.
    public func manyScans(refinements: Int, components: [Int] = [0]) -> [UInt8] {
        var scans = dcScans
        for c in components {
            for k in 1...63 { scans.append(Scan(component: c, first: k, last: k, low: refinements)) }
            for bit in stride(from: refinements, to: 0, by: -1) {
                for k in 1...63 { scans.append(Scan(component: c, first: k, last: k, high: bit, low: bit - 1)) }
            }
        }
        return bytes(scans: scans)
    }
}
