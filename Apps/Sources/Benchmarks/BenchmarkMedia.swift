import Foundation

/// The shared test media the task sections run on: `$VISION_TASKS_TESTDATA/media` or
/// `../shared/testdata/media` beside the project root (or the current directory).
enum BenchmarkMedia {
    static let imageExtensions: Set<String> = ["jpg", "jpeg", "png"]
    static let videoExtensions: Set<String> = ["mp4", "gif", "webm", "mov", "avi", "mkv"]

    /// The media folder.
    static func directory() throws -> URL {
        if let data = ProcessInfo.processInfo.environment["VISION_TASKS_TESTDATA"], !data.isEmpty {
            return URL(fileURLWithPath: data).appendingPathComponent("media")
        }
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidates = [root, URL(fileURLWithPath: FileManager.default.currentDirectoryPath)].map {
            $0.deletingLastPathComponent().appendingPathComponent("shared/testdata/media")
        }
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
            throw BenchmarkOptions.UsageError(
                description: "test media not found (set VISION_TASKS_TESTDATA or place it at ../shared/testdata)")
        }
        return found
    }

    /// Images and videos in the media folder, in name order.
    static func files() throws -> (images: [URL], videos: [URL]) {
        let folder = try directory()
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        let urls = names.map { folder.appendingPathComponent($0) }
        return (
            urls.filter { imageExtensions.contains($0.pathExtension.lowercased()) },
            urls.filter { videoExtensions.contains($0.pathExtension.lowercased()) }
        )
    }
}
