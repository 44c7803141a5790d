import LiteInterpreter

/// One class of a classifier's output after post-processing (MediaPipe's `Classification`).
struct Classification: Sendable, Equatable {
    var index: Int
    var score: Float
    /// The label (nil when the model has no labels).
    var label: String?
    var displayName: String?
}

/// Turns a classifier's scores into categories as MediaPipe's TensorsToClassificationCalculator
/// does when the Tasks configure it from the model's metadata and the task's `ClassifierOptions`
/// (`ConfigureTensorsToClassificationCalculator`, docs/pipelines.md §4 step 4):
/// allow or deny list, score threshold, top-k, sorted by descending score.
struct ClassificationPostprocessor: Sendable, Equatable {
    /// The values of `ClassifierOptions`.
    struct Settings: Sendable, Equatable {
        var displayNamesLocale: String?
        var maxResults: Int
        var scoreThreshold: Float
        var categoryAllowlist: [String]
        var categoryDenylist: [String]

        init(
            displayNamesLocale: String? = nil, maxResults: Int = -1, scoreThreshold: Float = 0,
            categoryAllowlist: [String] = [], categoryDenylist: [String] = []
        ) {
            self.displayNamesLocale = displayNamesLocale
            self.maxResults = maxResults
            self.scoreThreshold = scoreThreshold
            self.categoryAllowlist = categoryAllowlist
            self.categoryDenylist = categoryDenylist
        }

        /// MediaPipe's checks of classifier options (`SanityCheckClassifierOptions`), and a NaN
        /// score threshold (which MediaPipe does not check: every category would be dropped).
        func validate(_ name: String) throws {
            guard !scoreThreshold.isNaN else {
                throw TasksError.invalidArgument("Invalid `scoreThreshold` option of \(name): NaN.")
            }
            guard maxResults != 0 else {
                throw TasksError.invalidArgument("Invalid `maxResults` option of \(name): value must be != 0.")
            }
            guard categoryAllowlist.isEmpty || categoryDenylist.isEmpty else {
                throw TasksError.invalidArgument(
                    "`categoryAllowlist` and `categoryDenylist` are mutually exclusive options (\(name)).")
            }
        }
    }

    let labels: ClassificationLabels?
    /// Class indices of the allow list (`isAllowlist`) or the deny list; empty: no filter.
    let classFilter: Set<Int>
    let isAllowlist: Bool
    let scoreThreshold: Float
    /// Keep the best `topK` (nil: all).
    let topK: Int?

    /// Configures the step for output `outputIndex` of `model`.
    ///
    /// - Parameters:
    ///   - settings: the task's classifier options, or nil when the task has none: then the
    ///     score threshold is the metadata's (`ScoreThresholdingOptions`), else none, and the
    ///     display names are the "en" ones, as in MediaPipe.
    ///   - fallbackLabels: labels to use when the model carries none (e.g. the canned gesture
    ///     names for a classifier without metadata).
    init(
        model: Model, outputIndex: Int, settings: Settings?, fallbackLabels: [String]? = nil,
        name: String
    ) throws {
        let options = settings ?? Settings()
        try options.validate(name)
        let classCount = outputIndex < model.outputs.count ? model.outputs[outputIndex].elementCount : 0
        var labels = try ClassificationLabels(
            model: model, outputIndex: outputIndex, locale: options.displayNamesLocale ?? "en")
        if labels == nil, let fallbackLabels, fallbackLabels.count == classCount {
            labels = ClassificationLabels(names: fallbackLabels)
        }
        if let labels, labels.names.count != classCount {
            throw TasksError.invalidArgument(
                "\(name): the model has \(classCount) classes but \(labels.names.count) labels.")
        }
        let list = options.categoryAllowlist.isEmpty ? options.categoryDenylist : options.categoryAllowlist
        var filter: Set<Int> = []
        if !list.isEmpty {
            guard let labels else {
                throw TasksError.invalidArgument(
                    "Using `categoryAllowlist` or `categoryDenylist` requires labels to be present in the TFLite Model Metadata but none was found (\(name)).")
            }
            for category in list {
                // Unknown names are ignored; the first class of a name counts.
                if let index = labels.names.firstIndex(of: category) { filter.insert(index) }
            }
        }
        self.labels = labels
        self.classFilter = filter
        self.isAllowlist = !options.categoryAllowlist.isEmpty
        if settings != nil {
            scoreThreshold = options.scoreThreshold
        } else {
            scoreThreshold =
                model.metadata.flatMap { outputIndex < $0.outputTensors.count ? $0.outputTensors[outputIndex].scoreThreshold : nil }
                ?? -Float.greatestFiniteMagnitude
        }
        topK = options.maxResults > 0 ? options.maxResults : nil
    }

    /// The categories for one output's scores, best first.
    func classify(_ scores: UnsafeBufferPointer<Float>) -> [Classification] {
        var result: [Classification] = []
        for i in scores.indices {
            if !classFilter.isEmpty && classFilter.contains(i) != isAllowlist { continue }
            let score = scores[i]
            if score < scoreThreshold { continue }
            result.append(
                Classification(
                    index: i, score: score,
                    label: labels.map { $0.names[i] }, displayName: labels?.displayName(i)))
        }
        // MediaPipe sorts with std::sort / std::partial_sort (not stable); we keep equal
        // scores in class order.
        result = result.enumerated().sorted { a, b in
            a.element.score > b.element.score || (a.element.score == b.element.score && a.offset < b.offset)
        }.map(\.element)
        if let topK, result.count > topK { result.removeLast(result.count - topK) }
        return result
    }
}
