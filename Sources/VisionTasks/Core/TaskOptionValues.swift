/// What every task's options class holds, in one `Locked` value: the model and where it runs, the
/// running mode, the task's own settings, and the live-stream delegate (held weakly, as MediaPipe
/// holds it; the class's typed property casts it back).
package struct TaskOptionValues<Settings> {
    package var baseOptions = BaseOptions()
    package var runningMode = RunningMode.image
    package var settings: Settings
    package weak var delegate: AnyObject?

    /// Values with MediaPipe's defaults (no model yet, image mode, no delegate).
    package init(_ settings: Settings) {
        self.settings = settings
    }

    /// The values for an independent copy of the options (MediaPipe's options are `NSCopying`):
    /// the base options copied too, the delegate shared.
    package func copied() -> Self {
        var copy = self
        copy.baseOptions = baseOptions.copy()
        return copy
    }
}
