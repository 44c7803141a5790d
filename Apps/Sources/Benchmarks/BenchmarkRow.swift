import Foundation

/// One line of the benchmark's summary table: our time for one thing at one thread count
/// beside the reference's (LiteRT for a model, MediaPipe for a task) measured in the same run.
struct BenchmarkRow {
    /// "models", "gesture", "hands" or "pose".
    var section: String
    /// What is timed, e.g. "hand_landmark_full.tflite" or "image mode, per image (26 images)".
    var item: String
    var threads: Int
    var ours: Double?
    /// Who the reference is, e.g. "LiteRT 2.3.0, 1 thread" or "MediaPipe 1.2.2 (default)".
    var reference: String
    var theirs: Double?
    /// Peak resident memory of our process in this section, and of the reference's process.
    var oursPeakMegabytes: Double?
    var theirPeakMegabytes: Double?

    var ratio: Double? {
        guard let ours, let theirs, theirs > 0 else { return nil }
        return ours / theirs
    }

    static let headers = [
        "section", "what (median)", "threads", "ours (ms)", "reference", "reference (ms)", "ours / reference",
        "peak MB, ours / reference",
    ]

    var cells: [String] {
        [
            section, item, "\(threads)", formatMilliseconds(ours), reference, formatMilliseconds(theirs),
            // Two significant digits below 0.1 (the classification section's ratios are ~0.001).
            ratio.map { String(format: $0 < 0.1 ? "%.2g" : "%.2f", $0) } ?? "n/a",
            "\(formatMegabytes(oursPeakMegabytes)) / \(formatMegabytes(theirPeakMegabytes))",
        ]
    }

    /// Renders rows as one table.
    static func table(_ rows: [BenchmarkRow]) -> String {
        var table = TablePrinter(headers: headers)
        for row in rows { table.add(row.cells) }
        return table.render()
    }
}

/// What a section returns: summary rows, notes under the table, and optional per-file details.
struct SectionResult {
    var rows: [BenchmarkRow] = []
    var notes: [String] = []
    var details: [String] = []
}

func formatMegabytes(_ value: Double?) -> String {
    value.map { String(format: "%.0f", $0) } ?? "n/a"
}

/// Median of `values` (nil when empty).
func median(_ values: [Double]) -> Double? {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/// Milliseconds that `body` took.
func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let elapsed = try ContinuousClock().measure(body)
    return Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
}
