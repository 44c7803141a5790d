import Foundation

/// The warning a debug build of the library prints once, when the first task is created: the
/// models run about 100 times slower without optimisation (a consumer's plain `swift build` or
/// `swift run` builds its dependencies in debug too), and nothing else would say why.
package enum DebugBuildWarning {
    /// What is printed.
    package static let message = """
        VisionTasks: this is a debug build; the models run about 100 times slower than in release. \
        Build with -c release (swift build -c release, swift run -c release).

        """

    /// Whether this module was compiled without optimisation (`DEBUG` defined).
    package static var isDebugBuild: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    private static let printOnce: Void = {
        FileHandle.standardError.write(Data(message.utf8))
    }()

    /// Prints the warning on stderr the first time it is called in a debug build; nothing in
    /// release.
    package static func warnIfDebugBuild() {
        if isDebugBuild { _ = printOnce }
    }
}
