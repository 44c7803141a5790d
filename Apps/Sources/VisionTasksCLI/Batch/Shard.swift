import Foundation

/// One part of a batch split over several processes or machines: `--shard INDEX/COUNT`, or
/// `--shard-count COUNT` with the index in `JOB_COMPLETION_INDEX` (as a Kubernetes Indexed Job
/// sets it).
///
/// The split: every process lists the same inputs, sorts them by their name (the path relative
/// to the folder or list file they came from, compared byte by byte as UTF-8), and takes those
/// whose position in that order, modulo `count`, is `index`. The order the filesystem lists
/// files in plays no part, nor does where the folder is mounted; shards differ in size by at
/// most one input.
struct Shard: Equatable, Sendable, CustomStringConvertible {
    /// This process's part, 0 to `count - 1`.
    let index: Int
    /// How many parts the inputs are split into, at least 1.
    let count: Int

    /// The environment variable a Kubernetes Indexed Job sets to each pod's completion index.
    static let indexVariable = "JOB_COMPLETION_INDEX"

    /// A shard from `index` and `count`; throws unless `count >= 1` and `0 <= index < count`.
    init(index: Int, count: Int) throws(ShardError) {
        guard count >= 1 else { throw ShardError.countBelowOne(count) }
        guard index >= 0, index < count else { throw ShardError.indexOutOfRange(index: index, count: count) }
        self.index = index
        self.count = count
    }

    /// Parses `INDEX/COUNT` (`0/4`, ..., `3/4`).
    init(parsing text: String) throws(ShardError) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Self.number(parts[0]), let count = Self.number(parts[1]) else {
            throw ShardError.malformed(text)
        }
        try self.init(index: index, count: count)
    }

    /// The shard the options ask for, or nil when they ask for none: `--shard INDEX/COUNT`, or
    /// `--shard-count COUNT` with the index from `JOB_COMPLETION_INDEX` in `environment`.
    /// `JOB_COMPLETION_INDEX` alone does not shard (a Job that runs every input may run in an
    /// Indexed Job too).
    static func resolve(shard: String?, shardCount: Int?, environment: [String: String]) throws(ShardError) -> Shard? {
        switch (shard, shardCount) {
        case (nil, nil):
            return nil
        case (let text?, nil):
            return try Shard(parsing: text)
        case (nil, let count?):
            guard count >= 1 else { throw ShardError.countBelowOne(count) }
            guard let value = environment[indexVariable] else { throw ShardError.indexVariableMissing(count: count) }
            guard let index = number(Substring(value)) else { throw ShardError.indexVariableMalformed(value) }
            return try Shard(index: index, count: count)
        case (_?, _?):
            throw ShardError.bothForms
        }
    }

    /// The inputs of this shard: the positions `index`, `index + count`, ... of `items` sorted by
    /// `key` (UTF-8 bytes; equal keys by `tieBreak`), in that order.
    func select<Item>(_ items: [Item], key: (Item) -> String, tieBreak: (Item) -> String) -> [Item] {
        Self.sorted(items, key: key, tieBreak: tieBreak).enumerated().filter { $0.offset % count == index }.map(\.element)
    }

    /// `items` in the order the shards split them.
    static func sorted<Item>(_ items: [Item], key: (Item) -> String, tieBreak: (Item) -> String) -> [Item] {
        items.map { (key: Array(key($0).utf8), tie: Array(tieBreak($0).utf8), item: $0) }
            .sorted { $0.key != $1.key ? $0.key.lexicographicallyPrecedes($1.key) : $0.tie.lexicographicallyPrecedes($1.tie) }
            .map(\.item)
    }

    var description: String { "\(index)/\(count)" }

    /// A decimal number of ASCII digits only (no sign, no spaces), nil otherwise or when too large.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }
}

/// Why `--shard` or `--shard-count` (with `JOB_COMPLETION_INDEX`) names no shard.
enum ShardError: Error, Equatable, CustomStringConvertible {
    /// `--shard` not of the form INDEX/COUNT.
    case malformed(String)
    /// COUNT is 0.
    case countBelowOne(Int)
    /// INDEX is COUNT or more.
    case indexOutOfRange(index: Int, count: Int)
    /// `--shard-count` without `JOB_COMPLETION_INDEX` in the environment.
    case indexVariableMissing(count: Int)
    /// `JOB_COMPLETION_INDEX` is not a number.
    case indexVariableMalformed(String)
    /// `--shard` and `--shard-count` together.
    case bothForms

    var description: String {
        switch self {
        case .malformed(let text):
            return "--shard '\(text)': give INDEX/COUNT with whole numbers, e.g. --shard 0/4 for the first of 4 shards"
        case .countBelowOne(let count):
            return "shard count \(count): the inputs are split into at least 1 shard"
        case .indexOutOfRange(let index, let count):
            return "shard \(index)/\(count): the index must be from 0 to \(count - 1) (shards are numbered from 0)"
        case .indexVariableMissing(let count):
            return "--shard-count \(count) takes this shard's index from \(Shard.indexVariable) (set by a Kubernetes Indexed Job), which is not set; give --shard INDEX/\(count) instead"
        case .indexVariableMalformed(let value):
            return "\(Shard.indexVariable)='\(value)': the shard index must be a whole number from 0"
        case .bothForms:
            return "give either --shard INDEX/COUNT or --shard-count COUNT (index from \(Shard.indexVariable)), not both"
        }
    }
}
