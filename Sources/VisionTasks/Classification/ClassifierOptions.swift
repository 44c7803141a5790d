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
    private let lock = NSLock()
    private var _displayNamesLocale: String?
    private var _maxResults = -1
    private var _scoreThreshold: Float = 0
    private var _categoryAllowlist: [String]?
    private var _categoryDenylist: [String]?

    /// The locale of the display names to report (the model's label file for that locale);
    /// nil means "en", as in MediaPipe.
    public var displayNamesLocale: String? {
        get { lock.withLock { _displayNamesLocale } }
        set { lock.withLock { _displayNamesLocale = newValue } }
    }

    /// The most categories to keep, best first; a negative value keeps all (default -1).
    /// 0 is invalid.
    public var maxResults: Int {
        get { lock.withLock { _maxResults } }
        set { lock.withLock { _maxResults = newValue } }
    }

    /// Categories scoring below this are dropped (default 0). Setting classifier options at
    /// all overrides the threshold the model's metadata recommends (MediaPipe's rule): leave
    /// the task's classifier options nil to use the model's.
    public var scoreThreshold: Float {
        get { lock.withLock { _scoreThreshold } }
        set { lock.withLock { _scoreThreshold = newValue } }
    }

    /// Only these category names are kept. Needs labels in the model's metadata; cannot be
    /// combined with `categoryDenylist`. As in MediaPipe, names the model does not have are
    /// ignored without an error (names are case-sensitive: `thumb_up` is not `Thumb_Up`), so a
    /// list of only unknown names filters nothing. The CLI's `--allow`, `--deny`, `--custom-allow`
    /// and `--custom-deny` warn about them.
    public var categoryAllowlist: [String]? {
        get { lock.withLock { _categoryAllowlist } }
        set { lock.withLock { _categoryAllowlist = newValue } }
    }

    /// These category names are dropped (unknown names are ignored). Needs labels in the
    /// model's metadata; cannot be combined with `categoryAllowlist`.
    public var categoryDenylist: [String]? {
        get { lock.withLock { _categoryDenylist } }
        set { lock.withLock { _categoryDenylist = newValue } }
    }

    /// MediaPipe's defaults: every class, no threshold, no lists.
    public init() {}

    /// Options with the given values.
    public convenience init(
        displayNamesLocale: String? = nil, maxResults: Int = -1, scoreThreshold: Float = 0,
        categoryAllowlist: [String]? = nil, categoryDenylist: [String]? = nil
    ) {
        self.init()
        _displayNamesLocale = displayNamesLocale
        _maxResults = maxResults
        _scoreThreshold = scoreThreshold
        _categoryAllowlist = categoryAllowlist
        _categoryDenylist = categoryDenylist
    }

    /// An independent copy (MediaPipe's options are `NSCopying`).
    public func copy() -> ClassifierOptions {
        lock.withLock {
            ClassifierOptions(
                displayNamesLocale: _displayNamesLocale, maxResults: _maxResults,
                scoreThreshold: _scoreThreshold, categoryAllowlist: _categoryAllowlist,
                categoryDenylist: _categoryDenylist)
        }
    }

    /// A snapshot of the values.
    var settings: ClassificationPostprocessor.Settings {
        lock.withLock {
            ClassificationPostprocessor.Settings(
                displayNamesLocale: _displayNamesLocale, maxResults: _maxResults,
                scoreThreshold: _scoreThreshold, categoryAllowlist: _categoryAllowlist ?? [],
                categoryDenylist: _categoryDenylist ?? [])
        }
    }
}
