import Foundation
import VisionTasks

/// The text `gesture train` and `gesture evaluate` print: one line per epoch, and an
/// evaluation's accuracy, per-label precision and recall, and confusion matrix.
enum GestureReport {
    /// "epoch  3/10  loss 0.4127  accuracy 0.812  val_loss 0.3311  val_accuracy 0.875  lr 0.000980"
    static func line(for epoch: GestureTrainingEpoch) -> String {
        let width = String(epoch.epochs).count
        var line = "epoch \(pad(String(epoch.epoch), width))/\(epoch.epochs)"
        line += String(format: "  loss %.4f  accuracy %.3f", epoch.loss, epoch.accuracy)
        if let loss = epoch.validationLoss, let accuracy = epoch.validationAccuracy {
            line += String(format: "  val_loss %.4f  val_accuracy %.3f", loss, accuracy)
        }
        return line + String(format: "  lr %.6f", epoch.learningRate)
    }

    /// The evaluation as text: accuracy, a table of precision and recall per label, and the
    /// confusion matrix (rows: the true label, columns: the label given).
    static func text(for evaluation: GestureEvaluation, title: String) -> String {
        var lines = ["\(title) accuracy \(String(format: "%.3f", evaluation.accuracy)) (\(evaluation.correctCount) of \(evaluation.sampleCount) samples)"]
        let labels = evaluation.labels
        let nameWidth = max(5, labels.map(\.count).max() ?? 0)
        lines.append("\(pad("label", nameWidth, left: true))  precision  recall  samples")
        for (index, label) in labels.enumerated() {
            let samples = evaluation.confusionMatrix[index].reduce(0, +)
            let precision = evaluation.precision(of: label).map { String(format: "%.3f", $0) } ?? "-"
            let recall = evaluation.recall(of: label).map { String(format: "%.3f", $0) } ?? "-"
            lines.append("\(pad(label, nameWidth, left: true))  \(pad(precision, 9))  \(pad(recall, 6))  \(pad(String(samples), 7))")
        }
        lines.append("confusion matrix (rows: true label, columns: label given)")
        let cellWidth = max(4, labels.map(\.count).max() ?? 0, String(evaluation.sampleCount).count)
        lines.append(pad("", nameWidth) + labels.map { "  " + pad($0, cellWidth) }.joined())
        for (index, label) in labels.enumerated() {
            lines.append(pad(label, nameWidth, left: true) + evaluation.confusionMatrix[index].map { "  " + pad(String($0), cellWidth) }.joined())
        }
        return lines.joined(separator: "\n")
    }

    private static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? text + padding : padding + text
    }
}
