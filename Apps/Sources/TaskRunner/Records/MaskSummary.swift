@_spi(Apps) import VisionTasks

/// A mask's size, mean and 16×16 grid of cell means (`MPMask.summary(grid:)`), rounded as the
/// reference files round them.
public struct MaskSummary: Encodable, Equatable, Sendable {
    /// Cells per side of `grid16`.
    public static let gridSize = 16

    /// The mask's width in pixels.
    public var width: Int
    /// The mask's height in pixels.
    public var height: Int
    /// The mean of all values (5 decimals).
    public var mean: Double
    /// Means of a 16×16 grid of cells, rows top to bottom (4 decimals).
    public var grid16: [[Double]]

    /// The summary of `mask`.
    public init(_ mask: MPMask) {
        let summary = mask.summary(grid: Self.gridSize)
        width = mask.width
        height = mask.height
        mean = Self.rounded(summary.mean, places: 5)
        grid16 = summary.cells.map { row in row.map { Self.rounded($0, places: 4) } }
    }

    static func rounded(_ value: Double, places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (value * scale).rounded() / scale
    }
}
