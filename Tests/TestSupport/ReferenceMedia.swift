import Foundation

/// The media MediaPipe's references were made for (`testdata/reference/`): images with
/// `NAME.json` + `NAME.pixels.png`, videos with `NAME.jsonl`.
public enum ReferenceMedia {
    /// An image case: the original file in `media/`, MediaPipe's exact pixels and its answers.
    public struct Image: Sendable {
        public let name: String
        public let mediaFile: URL
        public let pixelsFile: URL
        public let referenceFile: URL
    }

    /// A video case: the file in `media/` and MediaPipe's answers, one JSON line per frame.
    public struct Video: Sendable {
        public let name: String
        public let mediaFile: URL
        public let referenceFile: URL

        /// The reference lines, decoded one by one.
        public func frames<T: Decodable>(as type: T.Type) throws -> [T] {
            let text = try String(contentsOf: referenceFile, encoding: .utf8)
            let decoder = JSONDecoder()
            return try text.split(separator: "\n").map {
                try decoder.decode(T.self, from: Data($0.utf8))
            }
        }
    }

    /// Every image case, in name order.
    public static func images() throws -> [Image] {
        let data = try SharedTestData.testdata()
        let reference = data.appendingPathComponent("reference")
        let media = try mediaFiles(in: data.appendingPathComponent("media"))
        let names = try FileManager.default.contentsOfDirectory(atPath: reference.path)
            .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted()
        return names.compactMap { name in
            guard let file = media[name] else { return nil }
            return Image(
                name: name, mediaFile: file,
                pixelsFile: reference.appendingPathComponent("\(name).pixels.png"),
                referenceFile: reference.appendingPathComponent("\(name).json"))
        }
    }

    /// Every video case, in name order.
    public static func videos() throws -> [Video] {
        let data = try SharedTestData.testdata()
        let reference = data.appendingPathComponent("reference")
        let media = try mediaFiles(in: data.appendingPathComponent("media"))
        let names = try FileManager.default.contentsOfDirectory(atPath: reference.path)
            .filter { $0.hasSuffix(".jsonl") }.map { String($0.dropLast(6)) }.sorted()
        return names.compactMap { name in
            guard let file = media[name] else { return nil }
            return Video(
                name: name, mediaFile: file,
                referenceFile: reference.appendingPathComponent("\(name).jsonl"))
        }
    }

    /// Decodes an image case's `NAME.json`.
    public static func reference<T: Decodable>(_ image: Image, as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(contentsOf: image.referenceFile))
    }

    private static func mediaFiles(in folder: URL) throws -> [String: URL] {
        var files: [String: URL] = [:]
        for entry in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let url = folder.appendingPathComponent(entry)
            files[url.deletingPathExtension().lastPathComponent] = url
        }
        return files
    }
}
