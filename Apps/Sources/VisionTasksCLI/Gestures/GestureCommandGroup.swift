import ArgumentParser

/// `vision-tasks gesture`: recognise gestures in images and videos (the default,
/// `GestureCommand`), or train and evaluate a custom gesture classifier.
struct GestureCommandGroup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gesture",
        abstract: "Recognise hand gestures in images and videos; train and evaluate your own gestures.",
        usage: """
            vision-tasks gesture [<options>] <inputs> ...
              vision-tasks gesture train <folder> -o <bundle.task> [<options>]
              vision-tasks gesture evaluate <bundle.task> <folder> [<options>]
            """,
        discussion: """
            Without a subcommand, `vision-tasks gesture FILE...` recognises gestures \
            (`vision-tasks gesture recognize --help` lists its options). `train` trains a \
            classifier of your own gestures on a folder with one subfolder of images or videos \
            per gesture (and one named none) and writes a gesture recognizer bundle that \
            VisionTasks and MediaPipe load; `evaluate` measures any bundle on such a folder.
            """,
        subcommands: [GestureCommand.self, GestureTrainCommand.self, GestureEvaluateCommand.self],
        defaultSubcommand: GestureCommand.self)
}
