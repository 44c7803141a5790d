import Foundation

/// What every vision task's initialiser does with its options before it builds its graph:
/// checks the running mode against the live-stream delegate (MediaPipe's rule), opens the
/// model bundle `baseOptions` names, and decides how many threads the models run on.
///
/// This is the one place a task's thread count is decided; the graphs take it from here.
package struct VisionTaskSetup: Sendable {
    /// The model bundle.
    package let asset: ModelAsset
    /// Threads each model's interpreter runs on (at least 1).
    package let threadCount: Int

    /// Errors: `.invalidArgument` for a live-stream delegate that does not match the running
    /// mode or `baseOptions.numThreads` below 1; the model bundle's errors (`ModelAsset`).
    package init(baseOptions: BaseOptions, runningMode: RunningMode, hasLiveStreamDelegate: Bool) throws {
        DebugBuildWarning.warnIfDebugBuild()
        try runningMode.checkLiveStreamDelegate(isSet: hasLiveStreamDelegate)
        threadCount = try baseOptions.threadCount()
        asset = try ModelAsset(baseOptions: baseOptions)
    }
}
