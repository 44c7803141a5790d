import Foundation

/// The hand sides `media/SOURCES.md` names: its "what it shows" column says, for some photos,
/// "subject's LEFT hand" (or "RIGHT", or "arm"), judged by eye on the unmirrored photo, or
/// "likely LEFT hand" where the person who wrote it was less sure. The chirality and body-side
/// evidence tests (docs/apple-vision.md, docs/mlkit.md) read it from the file itself, so that
/// their tables follow the data, not a list copied into the tests.
public struct NamedHandSide: Sendable, CustomStringConvertible {
    /// A person's own side.
    public enum Side: String, Sendable {
        case left = "LEFT"
        case right = "RIGHT"

        /// The other side.
        public var opposite: Side { self == .left ? .right : .left }
    }

    /// The file name without its extension (the reference's `NAME`).
    public let name: String
    /// The side SOURCES.md names.
    public let side: Side
    /// True for "subject's ...", false for "likely ...".
    public let isFirm: Bool
    /// The words SOURCES.md uses, e.g. "subject's LEFT hand".
    public let words: String

    public var description: String { "\(name): \(words)" }

    /// Every photo or video whose line in `media/SOURCES.md` names a hand's side, in file order.
    public static func all() throws -> [NamedHandSide] {
        let text = try String(contentsOf: try SharedTestData.file("media/SOURCES.md"), encoding: .utf8)
        return parse(text)
    }

    /// The named sides in SOURCES.md's table text: a row's first column is the file, its last
    /// column what it shows. A row naming no side, or two different sides, is left out.
    public static func parse(_ text: String) -> [NamedHandSide] {
        let pattern = #"(subject's|likely) (LEFT|RIGHT) (hand|arm)"#
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        var result: [NamedHandSide] = []
        for line in text.split(separator: "\n") {
            let columns = line.split(separator: "|", omittingEmptySubsequences: false)
            guard columns.count >= 6, let file = columns.first, let shows = columns.last else { continue }
            let fileName = file.trimmingCharacters(in: .whitespaces)
            let what = String(shows)
            let matches = regex.matches(in: what, range: NSRange(what.startIndex..., in: what))
            let found = matches.compactMap { match -> (Side, Bool, String)? in
                guard let all = Range(match.range, in: what), let kind = Range(match.range(at: 1), in: what),
                    let side = Range(match.range(at: 2), in: what), let named = Side(rawValue: String(what[side]))
                else { return nil }
                return (named, what[kind] == "subject's", String(what[all]))
            }
            guard let first = found.first, found.allSatisfy({ $0.0 == first.0 }) else { continue }
            let name = (fileName as NSString).deletingPathExtension
            result.append(NamedHandSide(name: name, side: first.0, isFirm: first.1, words: first.2))
        }
        return result
    }
}
