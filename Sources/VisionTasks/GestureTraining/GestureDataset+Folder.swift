import Foundation

/// How a dataset folder is read into a `GestureDataset`.
public struct GestureDatasetOptions: Sendable, Equatable {
    /// How many frames per second of video time are taken from each video (default 5; every
    /// frame of a 30 fps video would be near repeats of its neighbours).
    public var videoFramesPerSecond: Double
    /// A dataset file to reuse and update: files already embedded there with the same models,
    /// settings and video rate, and unchanged since (same size and modification time), are not
    /// embedded again; the dataset is written there when done. nil (the default): no file.
    public var cache: URL?

    /// Options with the defaults.
    public init(videoFramesPerSecond: Double = 5, cache: URL? = nil) {
        self.videoFramesPerSecond = videoFramesPerSecond
        self.cache = cache
    }
}

/// How far reading a dataset folder has come, passed to the progress callback after each image
/// or video frame.
public struct GestureDatasetProgress: Sendable, Equatable {
    /// The media files in the folder.
    public var fileCount: Int
    /// The files done (embedded, taken from the cache, or found unreadable).
    public var filesDone: Int
    /// The file being read, its path in the folder.
    public var currentFile: String?
    /// Samples so far.
    public var samples: Int
    /// Images and frames without a hand, and unreadable files, so far.
    public var skipped: Int
    /// Files taken from the cache so far.
    public var filesFromCache: Int
}

extension GestureDataset {
    /// Reads a scanned dataset folder: decodes each image and samples each video with
    /// `decoder`, finds and embeds one hand in each with `embedder`. Images and frames without
    /// a hand and files that cannot be decoded are recorded in `skipped`; labels keep their
    /// place even when none of their images has a hand (training then says so).
    ///
    /// `progress` is called after each image or frame; throwing from it stops the reading (with
    /// that error), and nothing is written to the cache.
    /// - Throws: `GestureTrainingError.invalidOption` for a video rate that is not a positive
    ///   number, `.invalidDatasetFile` for a cache file that is not a dataset file, the
    ///   embedder's errors, `.fileSystem` when the cache cannot be written.
    public init(
        folder: GestureDatasetFolder, embedder: GestureEmbedder, decoder: any GestureMediaDecoder,
        options: GestureDatasetOptions = GestureDatasetOptions(),
        progress: ((GestureDatasetProgress) throws -> Void)? = nil
    ) throws {
        let rate = options.videoFramesPerSecond
        guard rate.isFinite, rate > 0, rate <= 1000 else {
            throw GestureTrainingError.invalidOption(
                name: "videoFramesPerSecond", value: "\(rate)", requirement: "a number of frames per second above 0 (at most 1000), such as 5")
        }
        let cached = try options.cache.flatMap { try Self.reusable(from: $0, identity: embedder.identity, rate: rate) }
        self.init()
        embedderIdentity = embedder.identity
        videoFramesPerSecond = rate
        for label in folder.labels { try insert(label: label) }

        var state = GestureDatasetProgress(
            fileCount: folder.files.count, filesDone: 0, currentFile: nil, samples: 0, skipped: 0, filesFromCache: 0)
        for file in folder.files {
            state.currentFile = file.relativePath
            let stamp = FileStamp(size: file.size, modified: file.modified)
            if let entry = cached?[file.relativePath], entry.stamp == stamp, entry.samples.allSatisfy({ $0.label == file.label }),
                entry.skipped.allSatisfy({ $0.label == file.label })
            {
                record(entry)
                state.filesFromCache += 1
            } else {
                record(try Self.read(file, in: folder, embedder: embedder, decoder: decoder, rate: rate, stamp: stamp) { samples, skipped in
                    try progress?(GestureDatasetProgress(
                        fileCount: state.fileCount, filesDone: state.filesDone, currentFile: state.currentFile,
                        samples: state.samples + samples, skipped: state.skipped + skipped, filesFromCache: state.filesFromCache))
                })
            }
            state.filesDone += 1
            state.samples = samples.count
            state.skipped = skipped.count
            try progress?(state)
        }
        if let cache = options.cache { try write(to: cache) }
    }

    /// One file's samples and skipped inputs. `report` is called after each image or frame with
    /// the counts so far in this file.
    private static func read(
        _ file: GestureDatasetFolder.File, in folder: GestureDatasetFolder, embedder: GestureEmbedder,
        decoder: any GestureMediaDecoder, rate: Double, stamp: FileStamp, report: (Int, Int) throws -> Void
    ) throws -> FolderEntry {
        var entry = FolderEntry(path: file.relativePath, stamp: stamp, samples: [], skipped: [])
        func take(_ image: MPImage, timestamp: Int?) throws {
            if let embedding = try embedder.embedding(of: image) {
                entry.samples.append(GestureSample(
                    label: file.label, embedding: embedding, source: file.relativePath, timestampInMilliseconds: timestamp))
            } else {
                entry.skipped.append(SkippedInput(
                    source: file.relativePath, label: file.label, timestampInMilliseconds: timestamp, reason: .noHand))
            }
            try report(entry.samples.count, entry.skipped.count)
        }
        let url = folder.url(of: file)
        do {
            switch file.kind {
            case .image:
                let image: MPImage
                do {
                    image = try decoder.image(at: url)
                } catch {
                    throw UnreadableFile(message: "\(error)")
                }
                try take(image, timestamp: nil)
            case .video:
                // Errors of the embedder and the progress callback pass through the decoder's
                // callback marked, so that they are not taken for decoding errors.
                do {
                    try decoder.sampleFrames(ofVideoAt: url, framesPerSecond: rate) { frame, timestamp in
                        do {
                            try take(frame, timestamp: timestamp)
                        } catch {
                            throw PassedThrough(error: error)
                        }
                    }
                } catch let passed as PassedThrough {
                    throw passed.error
                } catch {
                    throw UnreadableFile(message: "\(error)")
                }
            }
        } catch let unreadable as UnreadableFile {
            entry.skipped.append(SkippedInput(
                source: file.relativePath, label: file.label, timestampInMilliseconds: nil, reason: .unreadable(unreadable.message)))
        }
        return entry
    }

    private struct UnreadableFile: Error {
        var message: String
    }

    private struct PassedThrough: Error {
        var error: any Error
    }

    /// The entries of a cache file that can be reused: nil when it does not exist or was made
    /// with other models, settings or video rate.
    private static func reusable(from url: URL, identity: GestureEmbedderIdentity, rate: Double) throws -> [String: FolderEntry]? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let dataset = try GestureDataset(contentsOf: url)
        guard dataset.embedderIdentity == identity, dataset.videoFramesPerSecond == rate else { return nil }
        var entries: [String: FolderEntry] = [:]
        for (path, stamp) in dataset.files {
            entries[path] = FolderEntry(path: path, stamp: stamp, samples: [], skipped: [])
        }
        for sample in dataset.samples {
            if let source = sample.source { entries[source]?.samples.append(sample) }
        }
        for input in dataset.skipped {
            if let source = input.source { entries[source]?.skipped.append(input) }
        }
        return entries
    }
}
