import ArgumentParser

/// `vision-tasks`: hand landmarks, gestures and body pose from images and videos.
@main
struct VisionTasksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vision-tasks",
        abstract: "MediaPipe hand landmarks, gestures and body pose on images and videos.",
        subcommands: [
            MediaCommand.self,
            ModelsCommand.self,
            ModelCommand.self,
            GestureCommand.self,
            HandsCommand.self,
            PoseCommand.self,
            SwipeCommand.self,
            ServeCommand.self,
        ]
    )
}
