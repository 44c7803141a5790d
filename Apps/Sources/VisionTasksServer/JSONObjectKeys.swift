import Foundation

/// Any key of a JSON object, for decoders that read or check keys by name.
struct JSONKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// The top-level keys of a JSON text message, whatever their values: how `LiveMessage` tells
/// options, workout and teach messages apart with one read of the text. Nil for text that is
/// not a JSON object.
enum JSONObjectKeys {
    static func of(_ text: String) -> Set<String>? {
        try? JSONDecoder().decode(Keys.self, from: Data(text.utf8)).names
    }

    private struct Keys: Decodable {
        var names: Set<String>
        init(from decoder: any Decoder) throws {
            names = Set(try decoder.container(keyedBy: JSONKey.self).allKeys.map(\.stringValue))
        }
    }
}
