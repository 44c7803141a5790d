import Foundation
@_spi(Apps) import VisionTasks

/// The server's one `GestureEmbedder`, on its gesture recognizer bundle, made when a session
/// first records a gesture to teach (building it reads the bundle's hand and embedder models)
/// and shared by every session after that. Sessions embed hands their recognizer already found
/// (`GestureEmbedder.embedding(landmarks:...)`), so its hand landmarker is not run.
final class TeachEmbedder: @unchecked Sendable {
    private let bundle: Data
    private let lock = NSLock()
    private var made: GestureEmbedder?
    private var opened: ModelAsset?

    /// An embedder on `bundle` (a gesture recognizer `.task`), made on first use.
    init(bundle: Data) {
        self.bundle = bundle
    }

    /// The embedder; errors are `GestureEmbedder`'s (`TasksError`) and come again on the next
    /// call.
    func embedder() throws -> GestureEmbedder {
        lock.lock()
        defer { lock.unlock() }
        if let made { return made }
        var options = GestureEmbedderOptions()
        options.baseOptions = baseOptions
        let embedder = try GestureEmbedder(options: options)
        made = embedder
        return embedder
    }

    /// The server's gesture recognizer bundle, as options.
    private var baseOptions: BaseOptions { BaseOptions(modelAssetBuffer: bundle) }

    /// The base bundle, opened on first use (taught and uploaded classifiers are assembled onto
    /// it); errors are `TasksError`s and come again on the next call.
    func asset() throws -> ModelAsset {
        lock.lock()
        defer { lock.unlock() }
        if let opened { return opened }
        let asset = try ModelAsset(baseOptions: baseOptions)
        opened = asset
        return asset
    }
}
