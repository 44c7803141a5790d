import Foundation

/// How a classifier's scores become categories, as MediaPipe's `ClassifierOptions`
/// (`MPPClassifierOptions`): used by `GestureRecognizerOptions` for the canned and the custom
/// gesture classifiers.
///
/// <!-- snippet-prelude: let options = GestureRecognizerOptions() -->
/// ```swift
/// let classifier = ClassifierOptions()
/// classifier.scoreThreshold = 0.6
/// classifier.categoryAllowlist = ["Thumb_Up", "Thumb_Down"]
/// options.cannedGesturesClassifierOptions = classifier
/// ```
///
/// A class, like MediaPipe's; tasks copy the values when they are created. Safe to share
/// between threads.
public final class ClassifierOptions: @unchecked Sendable {
    private struct Values {
        var displayNamesLocale: String?
        var maxResults = -1
        var scoreThreshold: Float = 0
        var categoryAllowlist: [String]?
        var categoryDenylist: [String]?
    }

    private let state = Locked(Values())

    /// The locale of the display names to report (the model's label file for that locale);
    /// nil means "en", as in MediaPipe.
    public var displayNamesLocale: String? {
        get { state[\.displayNamesLocale] }
        set { state[\.displayNamesLocale] = newValue }
    }

    /// The most categories to keep, best first; a negative value keeps all (default -1).
    /// 0 is invalid.
    public var maxResults: Int {
        get { state[\.maxResults] }
        set { state[\.maxResults] = newValue }
    }

    /// Categories scoring below this are dropped (default 0). Setting classifier options at
    /// all overrides the threshold the model's metadata recommends (MediaPipe's rule): leave
    /// the task's classifier options nil to use the model's.
    public var scoreThreshold: Float {
        get { state[\.scoreThreshold] }
        set { state[\.scoreThreshold] = newValue }
    }

    /// Only these category names are kept. Needs labels in the model's metadata; cannot be
    /// combined with `categoryDenylist`. As in MediaPipe, names the model does not have are
    /// ignored without an error (names are case-sensitive: `thumb_up` is not `Thumb_Up`), so a
    /// list of only unknown names filters nothing. The CLI's `--allow`, `--deny`, `--custom-allow`
    /// and `--custom-deny` warn about them.
    public var categoryAllowlist: [String]? {
        get { state[\.categoryAllowlist] }
        set { state[\.categoryAllowlist] = newValue }
    }

    /// These category names are dropped (unknown names are ignored). Needs labels in the
    /// model's metadata; cannot be combined with `categoryAllowlist`.
    public var categoryDenylist: [String]? {
        get { state[\.categoryDenylist] }
        set { state[\.categoryDenylist] = newValue }
    }

    /// MediaPipe's defaults: every class, no threshold, no lists.
    public init() {}

    /// Options with the given values.
    public convenience init(
        displayNamesLocale: String? = nil, maxResults: Int = -1, scoreThreshold: Float = 0,
        categoryAllowlist: [String]? = nil, categoryDenylist: [String]? = nil
    ) {
        self.init()
        state.value = Values(
            displayNamesLocale: displayNamesLocale, maxResults: maxResults, scoreThreshold: scoreThreshold,
            categoryAllowlist: categoryAllowlist, categoryDenylist: categoryDenylist)
    }

    /// An independent copy (MediaPipe's options are `NSCopying`).
    public func copy() -> ClassifierOptions {
        let copy = ClassifierOptions()
        copy.state.value = state.value
        return copy
    }

    /// A snapshot of the values.
    var settings: ClassificationPostprocessor.Settings {
        let values = state.value
        return ClassificationPostprocessor.Settings(
            displayNamesLocale: values.displayNamesLocale, maxResults: values.maxResults,
            scoreThreshold: values.scoreThreshold, categoryAllowlist: values.categoryAllowlist ?? [],
            categoryDenylist: values.categoryDenylist ?? [])
    }
}
