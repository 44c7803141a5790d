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

/// Milliseconds with two decimals (more below 1 ms).
func formatMilliseconds(_ value: Double?) -> String {
    guard let value else { return "n/a" }
    return String(format: value < 0.01 ? "%.4f" : value < 1 ? "%.3f" : "%.2f", value)
}
