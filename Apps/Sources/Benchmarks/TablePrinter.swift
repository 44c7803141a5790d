import Foundation

/// Prints rows as an aligned text table (Markdown-compatible).
struct TablePrinter {
    let headers: [String]
    private(set) var rows: [[String]] = []

    init(headers: [String]) { self.headers = headers }

    mutating func add(_ row: [String]) { rows.append(row) }

    func render() -> String {
        let widths = headers.indices.map { column in
            ([headers] + rows).map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            "| " + headers.indices.map { i in
                let cell = i < cells.count ? cells[i] : ""
                return cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: " | ") + " |"
        }
        let separator = "|" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "|") + "|"
        return ([line(headers), separator] + rows.map(line)).joined(separator: "\n")
    }
}

/// Milliseconds with three significant digits (two decimals at least): 2.73, 0.771, 0.0152.
/// (The tiny models' times, around 0.01 ms, need the third digit for a ratio to mean anything.)
func formatMilliseconds(_ value: Double?) -> String {
    guard let value else { return "n/a" }
    guard value > 0, value.isFinite else { return String(format: "%.2f", value) }
    let decimals = max(2, 2 - Int(log10(value).rounded(.down)))
    return String(format: "%.\(decimals)f", value)
}
