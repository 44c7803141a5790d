import Foundation
import VisionTasks

extension GestureDataset {
    /// Reads a dataset folder in Model Maker's layout (`DIR/<label>/*.jpg|png`, one label
    /// `none`) and, beyond Model Maker, the videos in its label folders, sampled at
    /// `options.videoFramesPerSecond`: Model Maker's `Dataset.from_folder`. Decodes files with
    /// `MediaFileDecoder`; see `GestureDatasetFolder` for the checks made before any hand is
    /// looked for, and `init(folder:embedder:decoder:options:progress:)` for the rest.
    public init(
        folder url: URL, embedder: GestureEmbedder, options: GestureDatasetOptions = GestureDatasetOptions(),
        progress: ((GestureDatasetProgress) throws -> Void)? = nil
    ) throws {
        let decoder = MediaFileDecoder()
        try self.init(
            folder: try GestureDatasetFolder(url: url, decoder: decoder), embedder: embedder, decoder: decoder,
            options: options, progress: progress)
    }
}
