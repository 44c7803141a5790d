import Foundation
import FuzzServerInput
import FuzzSupport
import HummingbirdCore
import VisionTasks
@testable import VisionTasksServer

/// One input: a live session (`LiveSessionInput`: the query of its `/v1/live?...` URL, then up
/// to 16 WebSocket messages), run through the server's own steps in order:
///
/// - the URL's options (`TaskSettings.applying(query:)` on Hummingbird's `URI`), refused with an
///   error answer as `VisionServer.runSession` does;
/// - each message through `LiveMessage` (binary: `LiveFrame`; text: the text limit and the JSON
///   options on top of the session's settings, or a teach request, whose bounds are checked:
///   `checkTeach`), as the session's WebSocket loop reads it;
/// - a frame through `FrameDecoder` (byte limit, pixel limit from the header, JPEG/PNG decoding),
///   the first step of `LiveSession.run`, or all of `LiveSession.run` with a real task when
///   `FUZZ_SERVER_TASKS=1` (a video-mode instance per session and per options message, as the
///   server makes them; slow);
/// - a workout message through `WorkoutRequest` (ML Kit's samples CSV read within the limit)
///   and the tracker it makes, as `LiveSession.startWorkout` does;
/// - every answer (ready, result, workout, error) encoded by `LiveSession.text(of:)`, as sent.
///
/// Checked beyond "no crash": every message gets exactly one answer, every answer encodes to a
/// JSON object of its type, errors carry a code this path can give and a message, and a frame
/// that decodes is within the byte and pixel limits the server promises and of the size
/// `ImageHeader` reads from it (`checkDecoded`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLive(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = LiveSessionInput(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let limits = input.limits
    var settings: TaskSettings
    do throws(ServerError) {
        settings = try TaskSettings(task: .gesture).applying(query: URI("/v1/live?" + input.query))
    } catch {
        // The session is refused: an error answer, then close 1008.
        checkError(error, timestamp: nil, allowed: [.badOption])
        return 0
    }
    var session = Session(settings: settings, limits: limits)
    for message in input.messages {
        do throws(ServerError) {
            let read: LiveMessage
            switch message {
            case .binary(let bytes): read = try LiveMessage(binary: bytes)
            case .text(let text): read = try LiveMessage(text: text, settings: session.settings, limits: limits)
            }
            switch read {
            case .options(let new): session.reconfigure(new)
            case .frame(let frame): session.process(frame)
            case .workout(let request): try session.startWorkout(request)
            case .teach(let request): checkTeach(request)
            }
        } catch {
            checkError(error, timestamp: nil, allowed: [.badMessage, .badOption, .badSamples])
        }
    }
    return 0
}

/// The state of one fuzzed session: its settings, and its task instance when tasks run.
struct Session {
    private(set) var settings: TaskSettings
    let limits: ServerLimits
    private var engine: TaskEngine?
    private var workout: PoseClassificationTracker?
    private var processed = 0

    init(settings: TaskSettings, limits: ServerLimits) {
        self.settings = settings
        self.limits = limits
        reconfigure(settings)
    }

    /// A new task instance (when tasks run) and the ready answer, as `LiveSession` sends it.
    mutating func reconfigure(_ new: TaskSettings) {
        if let library = taskLibrary {
            do {
                engine = try library.makeEngine(new, mode: .video)
            } catch {
                checkError(
                    ServerError(code: .taskFailed, message: "the task cannot be created with these options: \(error)"),
                    timestamp: nil, allowed: [.taskFailed])
                return
            }
        }
        settings = new
        let ready = checkAnswer(
            LiveSession.text(of: LiveReadyAnswer(settings: new, maxImageBytes: limits.maxImageBytes, maxImagePixels: limits.maxImagePixels)),
            type: "ready")
        fuzzCheck(ready["task"] as? String == new.task.rawValue, "the ready answer names another task: \(ready)")
    }

    /// A workout message: a tracker from its samples, counts reset or no tracker, then the
    /// workout answer, as `LiveSession.startWorkout` sends it.
    mutating func startWorkout(_ request: WorkoutRequest) throws(ServerError) {
        fuzzCheck(settings.task == .pose, "a workout was read on a \(settings.task.rawValue) session")
        switch request {
        case .start(let samples, let count):
            workout = try WorkoutRequest.makeTracker(samples: samples, count: count)
        case .reset:
            workout?.reset()
        case .stop:
            workout = nil
        }
        let answer = checkAnswer(LiveSession.text(of: LiveWorkoutAnswer(tracker: workout)), type: "workout")
        fuzzCheck(answer["active"] as? Bool == (workout != nil), "the workout answer's active is wrong: \(answer)")
    }

    /// A frame: decoded within the limits (and run on the task when tasks run), then its answer.
    mutating func process(_ frame: LiveFrame) {
        fuzzCheck(frame.timestampInMilliseconds >= 0, "a negative timestamp was accepted")
        let timestamp = frame.timestampInMilliseconds
        do throws(ServerError) {
            let image: MPImage
            if let engine {
                let output: TaskOutput
                (image, output) = try LiveSession.run(frame, on: engine, limits: limits)
                processed += 1
                let classifications = output.pose.flatMap { workout?.process($0, imageWidth: image.width, imageHeight: image.height) }
                let result = checkAnswer(
                    LiveSession.text(of: LiveAnswer(
                        task: engine.settings.task, frame: processed, width: image.width, height: image.height,
                        timestampInMilliseconds: timestamp, output: output, processingMilliseconds: 0, droppedFrames: 0,
                        classifications: classifications)),
                    type: "result")
                fuzzCheck(result["timestampInMilliseconds"] as? Int == timestamp, "the result has another timestamp")
            } else {
                image = try FrameDecoder.decode(frame.image, limits: limits)
            }
            checkDecoded(width: image.width, height: image.height, bytes: frame.image, limits: limits)
        } catch {
            checkError(error, timestamp: timestamp, allowed: [.badImage, .imageTooLarge, .taskFailed])
        }
    }
}

/// A teach request as `TeachRequest` promises it: labels and names of 1 to 64 characters without
/// control characters, epochs and batch size within their ranges, an upload's size at least 1; and a teach answer that carries
/// its label encodes to a JSON object of type `teach` with that label.
func checkTeach(_ request: TeachRequest) {
    func checkName(_ name: String) {
        fuzzCheck((1...TeachRequest.maxNameLength).contains(name.count), "a teach name of \(name.count) characters passed")
        fuzzCheck(
            !name.unicodeScalars.contains { $0.properties.generalCategory == .control },
            "a teach name with a control character passed: \(name.debugDescription)")
    }
    var label: String?
    switch request {
    case .record(let name), .clear(let name?), .use(let name?), .download(let name):
        checkName(name)
        label = name
    case .train(let training):
        checkName(training.name)
        fuzzCheck((1...TeachRequest.maxEpochs).contains(training.epochs), "epochs \(training.epochs) passed")
        fuzzCheck((1...TeachRequest.maxBatchSize).contains(training.batchSize), "batch size \(training.batchSize) passed")
        label = training.name
    case .upload(let name, let bytes):
        checkName(name)
        fuzzCheck(bytes >= 1, "an upload of \(bytes) bytes passed")
        label = name
    case .stop, .clear(nil), .use(nil):
        break
    }
    let answer = checkAnswer(
        LiveSession.text(of: TeachAnswer(event: "recording", label: label, reason: nil, samples: [:], models: [], using: nil, training: nil)),
        type: "teach")
    fuzzCheck(answer["label"] as? String == label, "the teach answer's label differs: \(answer)")
}

/// The error answer a session sends, checked: it encodes, and says `error`'s code and message.
func checkError(_ error: ServerError, timestamp: Int?, allowed: Set<ServerError.Code>) {
    fuzzCheck(allowed.contains(error.code), "unexpected error code \(error.code) here: \(error.message)")
    fuzzCheck(!error.message.isEmpty, "an error without a message")
    let answer = checkAnswer(LiveSession.text(of: LiveErrorAnswer(error: error, timestampInMilliseconds: timestamp)), type: "error")
    let body = answer["error"] as? [String: Any]
    fuzzCheck(body?["code"] as? String == error.code.rawValue, "the error answer's code is not \(error.code): \(answer)")
    fuzzCheck(body?["message"] as? String == error.message, "the error answer's message differs: \(answer)")
    fuzzCheck(answer["timestampInMilliseconds"] as? Int == timestamp, "the error answer's timestamp differs: \(answer)")
}

/// The three model bundles of the model store (`$VISION_TASKS_MODELS` or the default folder)
/// when `FUZZ_SERVER_TASKS=1`; nil otherwise.
let taskLibrary: ModelLibrary? = {
    guard ProcessInfo.processInfo.environment["FUZZ_SERVER_TASKS"] == "1" else { return nil }
    do {
        return try ModelLibrary(models: ServerModels(store: ModelStore()), threadsPerTask: 1)
    } catch {
        FileHandle.standardError.write(Data("FUZZ_SERVER_TASKS=1 but the models cannot be read: \(error)\n".utf8))
        exit(2)
    }
}()

@_cdecl("FuzzLive_main")
public func fuzzLiveMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    // The models live as long as the process: read before the first input, so that libFuzzer's
    // per-input leak check does not take them for that input's leak.
    _ = taskLibrary
    return vt_fuzz_main(argc, argv)
}
