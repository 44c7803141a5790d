import Foundation

/// Progress on stderr for videos and directories: a redrawn bar with counts, rate and ETA when
/// stderr is a terminal, plain lines every few seconds otherwise (logs, CI).
final class ProgressReporter {
    private let enabled: Bool
    private let isTerminal: Bool
    private let totalFiles: Int
    private var filesDone = 0
    private var currentName = ""
    private var framesDone = 0
    private var framesTotal: Int?
    private var frameStart = Date()
    private var lastDraw = Date.distantPast
    private let started = Date()
    private var drewBar = false

    init(enabled: Bool, totalFiles: Int, isTerminal: Bool = isatty(STDERR_FILENO) != 0) {
        self.enabled = enabled
        self.totalFiles = totalFiles
        self.isTerminal = isTerminal
    }

    func beginFile(_ name: String, frames: Int?) {
        currentName = (name as NSString).lastPathComponent
        framesDone = 0
        framesTotal = frames
        frameStart = Date()
    }

    func frameDone() {
        framesDone += 1
        draw(force: false)
    }

    func fileDone() {
        filesDone += 1
        draw(force: totalFiles > 1 && !isTerminal ? false : true)
    }

    /// Clears the bar (terminal) before other stderr messages or at the end.
    func clear() {
        guard enabled, isTerminal, drewBar else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        drewBar = false
    }

    func finish() {
        guard enabled else { return }
        if isTerminal { clear() } else if totalFiles > 1 || framesDone > 0 { emitLine() }
    }

    private func draw(force: Bool) {
        guard enabled, totalFiles > 1 || framesTotal != nil || framesDone > 0 else { return }
        let now = Date()
        let interval: TimeInterval = isTerminal ? 0.1 : 5
        guard force || now.timeIntervalSince(lastDraw) >= interval else { return }
        lastDraw = now
        if isTerminal {
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + status(bar: true)).utf8))
            drewBar = true
        } else if !force {
            emitLine()
        }
    }

    private func emitLine() {
        FileHandle.standardError.write(Data((status(bar: false) + "\n").utf8))
    }

    static func clock(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0 else { return "--:--" }
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }

    func status(bar: Bool) -> String {
        var parts: [String] = []
        var fraction: Double?
        if totalFiles > 1 {
            parts.append("files \(filesDone)/\(totalFiles)")
            fraction = Double(filesDone) / Double(totalFiles)
        }
        let elapsedFrames = Date().timeIntervalSince(frameStart)
        if framesDone > 0 || framesTotal != nil {
            let rate = elapsedFrames > 0 ? Double(framesDone) / elapsedFrames : 0
            if let total = framesTotal, total > 0 {
                parts.append("\(currentName) frames \(framesDone)/\(total)")
                parts.append(String(format: "%.1f fps", rate))
                if rate > 0 { parts.append("ETA " + Self.clock(Double(max(total - framesDone, 0)) / rate)) }
                if totalFiles <= 1 { fraction = min(1, Double(framesDone) / Double(total)) }
            } else {
                parts.append("\(currentName) frames \(framesDone)")
                parts.append(String(format: "%.1f fps", rate))
            }
        } else if totalFiles > 1, filesDone > 0 {
            let elapsed = Date().timeIntervalSince(started)
            parts.append(String(format: "%.1f files/s", Double(filesDone) / max(elapsed, 1e-6)))
            parts.append("ETA " + Self.clock(elapsed / Double(filesDone) * Double(totalFiles - filesDone)))
        }
        var line = parts.joined(separator: "  ")
        if bar, let fraction {
            let width = 24
            let filled = Int((fraction * Double(width)).rounded(.down))
            line = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] " + line
        }
        return line
    }
}
