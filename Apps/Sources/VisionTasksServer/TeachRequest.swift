import Foundation

/// A live session's teach message: the text message `{"teach": {...}}`, whose object holds
/// exactly one request. It sits beside the options message (a flat object of options), told
/// apart by its one top-level key `teach`.
///
///     {"teach": {"record": "wave"}}       record the hand of each frame as "wave" (gesture sessions)
///     {"teach": {"stop": true}}           stop recording
///     {"teach": {"clear": "wave"}}        forget the samples of "wave" ({"clear": true}: all labels)
///     {"teach": {"train": {"name": "mine", "epochs": 10, "batchSize": 2}}}
///                                          train on the samples and run the new classifier
///     {"teach": {"use": "mine"}}          run a classifier trained earlier ({"use": null}: the server's own)
///     {"teach": {"download": "mine"}}     send the bundle of a classifier trained earlier (a
///                                          `bundle` answer, then the bundle as a binary message)
///     {"teach": {"upload": {"name": "theirs", "bytes": 8454831}}}
///                                          after the `receiving` answer, the next binary messages
///                                          carry a gesture recognizer bundle of that many bytes
///                                          (no frames until it is whole): keep its custom
///                                          classifier as `name` and run it
///
/// The values are checked here (`badMessage` for a malformed request, `badOption` for a value
/// out of range); whether the session can do it now (samples, limits) is the session's
/// `teachFailed`.
enum TeachRequest: Sendable, Equatable {
    /// Record under `label` from the next frame on.
    case record(label: String)
    /// Stop recording.
    case stop
    /// Forget the samples of one label, or of all (nil).
    case clear(label: String?)
    /// Train a classifier on the samples, keep it as `name` and run it.
    case train(Training)
    /// Run the classifier kept as `name`, or the server's own bundle (nil).
    case use(name: String?)
    /// Send the gesture recognizer bundle of the classifier kept as `name`.
    case download(name: String)
    /// Take the next binary messages, `bytes` bytes in all, as a gesture recognizer bundle: keep
    /// its custom classifier as `name` and run it.
    case upload(name: String, bytes: Int)

    /// What a train request asks for; the rest is Model Maker's defaults.
    struct Training: Sendable, Equatable {
        /// The name the classifier is kept under (default `taught`).
        var name = "taught"
        /// Passes over the samples, 1...`maxEpochs` (default 10, Model Maker's).
        var epochs = 10
        /// Samples per training step, 1...`maxBatchSize` (default 2, Model Maker's).
        var batchSize = 2
    }

    /// The most epochs a train request may ask for (bounds the work one message can cause).
    static let maxEpochs = 100
    /// The largest batch size a train request may ask for.
    static let maxBatchSize = 64
    /// The longest label or name, in characters.
    static let maxNameLength = 64

    /// The message's key.
    static let key = "teach"

    /// Reads a teach message: `badMessage` when it is not `{"teach": {one request}}` or a value
    /// has the wrong JSON type, `badOption` for a label, name or number out of range.
    init(json text: String) throws(ServerError) {
        let message: Envelope
        do {
            message = try JSONDecoder().decode(Envelope.self, from: Data(text.utf8))
        } catch let error as ServerError {
            throw error
        } catch let DecodingError.typeMismatch(_, context) {
            throw Self.malformed("\(Self.path(context.codingPath)) has the wrong type")
        } catch let DecodingError.keyNotFound(key, _) {
            throw Self.malformed("\(key.stringValue) is missing")
        } catch {
            throw Self.malformed("it is not JSON of that form")
        }
        self = try message.request.checked()
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map(\.stringValue).joined(separator: ".")
    }

    static func malformed(_ detail: String) -> ServerError {
        ServerError(
            code: .badMessage,
            message: "a teach message is {\"teach\": {R}} with one request R of record (a label), stop, clear (a label or true), train ({\"name\", \"epochs\", \"batchSize\"}), use (a name or null), download (a name) or upload ({\"name\", \"bytes\"}): \(detail)")
    }

    /// A label or a name: 1 to `maxNameLength` characters, no control characters.
    static func checkName(_ value: String, _ what: String) throws(ServerError) -> String {
        guard !value.isEmpty, value.count <= maxNameLength else {
            throw ServerError(code: .badOption, message: "\(what) must have 1 to \(maxNameLength) characters, not \(value.count)")
        }
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ServerError(code: .badOption, message: "\(what) must not hold control characters (line breaks, tabs): \(value.debugDescription.prefix(100))")
        }
        return value
    }

    private func checked() throws(ServerError) -> TeachRequest {
        switch self {
        case .record(let label): return .record(label: try Self.checkName(label, "the label to record"))
        case .clear(let label?): return .clear(label: try Self.checkName(label, "the label to clear"))
        case .use(let name?): return .use(name: try Self.checkName(name, "the classifier's name"))
        case .download(let name): return .download(name: try Self.checkName(name, "the classifier's name"))
        case .upload(let name, let bytes):
            guard bytes >= 1 else {
                throw ServerError(code: .badOption, message: "an uploaded bundle's bytes must be at least 1, not \(bytes)")
            }
            return .upload(name: try Self.checkName(name, "the classifier's name"), bytes: bytes)
        case .train(let training):
            _ = try Self.checkName(training.name, "the classifier's name")
            guard (1...Self.maxEpochs).contains(training.epochs) else {
                throw ServerError(code: .badOption, message: "epochs must be a whole number from 1 to \(Self.maxEpochs), not \(training.epochs)")
            }
            guard (1...Self.maxBatchSize).contains(training.batchSize) else {
                throw ServerError(code: .badOption, message: "batchSize must be a whole number from 1 to \(Self.maxBatchSize), not \(training.batchSize)")
            }
            return self
        case .stop, .clear(nil), .use(nil): return self
        }
    }

    /// `{"teach": {...}}` and nothing else.
    private struct Envelope: Decodable {
        var request: TeachRequest

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: JSONKey.self)
            guard c.allKeys.map(\.stringValue) == ["teach"], let key = c.allKeys.first else {
                throw TeachRequest.malformed("a teach message holds the key teach alone, not \(c.allKeys.map(\.stringValue).sorted())")
            }
            request = try c.decode(RequestObject.self, forKey: key).request
        }
    }

    /// The object under `teach`: exactly one of its keys.
    private struct RequestObject: Decodable {
        var request: TeachRequest

        private enum Keys: String, CodingKey, CaseIterable { case record, stop, clear, train, use, download, upload }

        init(from decoder: any Decoder) throws {
            let all = try decoder.container(keyedBy: JSONKey.self)
            let names = all.allKeys.map(\.stringValue).sorted()
            guard names.count == 1, let key = Keys(rawValue: names[0]) else {
                throw TeachRequest.malformed(
                    names.count == 1 ? "unknown request \(names[0].prefix(64))" : "it holds \(names.count) requests (\(names.joined(separator: ", ").prefix(200)))")
            }
            let c = try decoder.container(keyedBy: Keys.self)
            switch key {
            case .record: request = .record(label: try c.decode(String.self, forKey: .record))
            case .stop:
                guard try c.decode(Bool.self, forKey: .stop) else { throw TeachRequest.malformed("stop must be true") }
                request = .stop
            case .clear:
                if let label = try? c.decode(String.self, forKey: .clear) {
                    request = .clear(label: label)
                } else {
                    guard try c.decode(Bool.self, forKey: .clear) else { throw TeachRequest.malformed("clear must be a label or true") }
                    request = .clear(label: nil)
                }
            case .train: request = .train(try c.decode(TrainingObject.self, forKey: .train).training)
            case .use: request = .use(name: try c.decodeNil(forKey: .use) ? nil : try c.decode(String.self, forKey: .use))
            case .download: request = .download(name: try c.decode(String.self, forKey: .download))
            case .upload:
                let upload = try c.decode(UploadObject.self, forKey: .upload)
                request = .upload(name: upload.name, bytes: upload.bytes)
            }
        }
    }

    /// The object under `upload`: `name` and `bytes`, both required.
    private struct UploadObject: Decodable {
        var name: String
        var bytes: Int

        private enum Keys: String, CodingKey { case name, bytes }

        init(from decoder: any Decoder) throws {
            let all = try decoder.container(keyedBy: JSONKey.self)
            if let unknown = all.allKeys.map(\.stringValue).first(where: { Keys(rawValue: $0) == nil }) {
                throw TeachRequest.malformed("upload has no setting \(unknown.prefix(64)); it has name and bytes")
            }
            let c = try decoder.container(keyedBy: Keys.self)
            name = try c.decode(String.self, forKey: .name)
            bytes = try TrainingObject.whole(try c.decode(Double.self, forKey: .bytes), "bytes")
        }
    }

    /// The object under `train`: `name`, `epochs`, `batchSize`, each optional.
    private struct TrainingObject: Decodable {
        var training = Training()

        private enum Keys: String, CodingKey { case name, epochs, batchSize }

        init(from decoder: any Decoder) throws {
            let all = try decoder.container(keyedBy: JSONKey.self)
            if let unknown = all.allKeys.map(\.stringValue).first(where: { Keys(rawValue: $0) == nil }) {
                throw TeachRequest.malformed("train has no setting \(unknown.prefix(64)); its settings are name, epochs and batchSize")
            }
            let c = try decoder.container(keyedBy: Keys.self)
            if let name = try c.decodeIfPresent(String.self, forKey: .name) { training.name = name }
            if let epochs = try c.decodeIfPresent(Double.self, forKey: .epochs) { training.epochs = try Self.whole(epochs, "epochs") }
            if let size = try c.decodeIfPresent(Double.self, forKey: .batchSize) { training.batchSize = try Self.whole(size, "batchSize") }
        }

        /// A JSON number that must be a whole number within `Int` (range checks come later).
        static func whole(_ value: Double, _ name: String) throws(ServerError) -> Int {
            guard value.isFinite, value == value.rounded(), abs(value) < 1e9 else {
                throw ServerError(code: .badOption, message: "\(name) must be a whole number, not \(value)")
            }
            return Int(value)
        }
    }
}
