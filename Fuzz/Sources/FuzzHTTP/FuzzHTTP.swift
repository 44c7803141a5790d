import Dispatch
import Foundation
import FuzzServerInput
import FuzzSupport
import Hummingbird
import HummingbirdCore
import VisionTasks
@testable import VisionTasksServer

/// One input: a request to the HTTP API (`HTTPRequestInput`: the request target, the
/// `Content-Length` header, the body), through the steps of `VisionServer.handle`:
///
/// - the target parsed by Hummingbird's `URI`; a path `/v1/{name}` is routed to the handler
///   with `name` as its task parameter (others never reach it);
/// - `VisionServer.requestSettings` (the task named in the path, the query's options);
/// - `VisionServer.checkDeclaredLength` and `requestBody` (the declared length, then the body
///   collected up to the limit);
/// - `FrameDecoder` (byte limit, pixel limit from the header, JPEG/PNG decoding), the first step
///   of `VisionServer.runRequest`, or all of `runRequest` with the image-mode task instances of a
///   `VisionServer` when `FUZZ_SERVER_TASKS=1` (slow);
/// - the answer: an error's status and JSON body, or the result record's JSON.
///
/// Checked beyond "no crash": every request gets a 4xx error with a JSON body naming its code
/// and a message, or a result; a decoded image is within the byte and pixel limits and of the
/// size `ImageHeader` reads from it (`checkDecoded`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = HTTPRequestInput(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let uri = URI(input.target)
    let segments = uri.path.split(separator: "/", omittingEmptySubsequences: true)
    guard segments.count == 2, segments[0] == "v1" else { return 0 }
    let limits = input.limits
    do throws(ServerError) {
        let settings = try VisionServer.requestSettings(task: String(segments[1]), uri: uri)
        try VisionServer.checkDeclaredLength(input.contentLength, limit: limits.maxImageBytes)
        // (Here `handle` admits the request or answers serverBusy: a count, not the input's doing.)
        let body = RequestBody(buffer: ByteBuffer(bytes: input.body))
        let bytes = try wait { () async throws(ServerError) -> Data in
            try await VisionServer.requestBody(body, limit: limits.maxImageBytes, timeout: limits.maxBodyDuration)
        }.get()
        if let server = server(limits) {
            // The record's size and its JSON, as the server answers it.
            let answered: (width: Int, height: Int, json: String?)
            do {
                let record = try server.runRequest(bytes, settings: settings)
                answered = (record.width ?? 0, record.height ?? 0, LiveSession.text(of: record))
            } catch let error as ServerError {
                throw error
            } catch {
                fuzzCheck(false, "runRequest threw something other than a ServerError: \(error)")
                return 0
            }
            checkDecoded(width: answered.width, height: answered.height, bytes: bytes, limits: limits)
            let object = answered.json.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]
            fuzzCheck(object?[settings.task.rawValue] != nil, "the result does not encode under its task's key")
        } else {
            let image = try FrameDecoder.decode(bytes, limits: limits)
            checkDecoded(width: image.width, height: image.height, bytes: bytes, limits: limits)
        }
    } catch {
        check(error)
    }
    return 0
}

/// The error answer `handle` sends, checked: a 4xx status, a JSON body with the code and message.
func check(_ error: ServerError) {
    let allowed: Set<ServerError.Code> = [.notFound, .badOption, .imageTooLarge, .badImage, .taskFailed]
    fuzzCheck(allowed.contains(error.code), "unexpected error code \(error.code) here: \(error.message)")
    fuzzCheck((400..<500).contains(error.status.code), "status \(error.status) for \(error.code)")
    let object = try? JSONSerialization.jsonObject(with: error.body)
    let body = (object as? [String: Any])?["error"] as? [String: Any]
    fuzzCheck(body?["code"] as? String == error.code.rawValue, "the error body's code is not \(error.code)")
    fuzzCheck(body?["message"] as? String == error.message && !error.message.isEmpty, "the error body's message differs or is empty")
}

/// The result of an operation that runs on another thread.
final class ResultBox<T: Sendable, E: Error>: @unchecked Sendable {
    var result: Result<T, E>?
}

/// Runs an async operation to completion from libFuzzer's synchronous callback, and returns only
/// once the task that ran it is gone: libFuzzer's leak check may run as soon as the input returns,
/// and a task still finishing on another thread (its captures and frames not yet released) made
/// LeakSanitizer report the request body's `Data` as leaked in CI runs, never on replay.
func wait<T: Sendable, E: Error>(_ operation: @escaping @Sendable () async throws(E) -> T) -> Result<T, E> {
    let box = ResultBox<T, E>()
    let released = DispatchSemaphore(value: 0)
    // The witness's only reference is the task's closure, released when the task has ended.
    Task { [witness = ReleaseWitness(released)] in
        // The result is stored by a function of its own, whose frame (and its copy of the value)
        // is gone before the task ends.
        await store(operation, into: box)
        withExtendedLifetime(witness) {}
    }
    released.wait()
    guard let result = box.result else { fatalError("the operation did not finish") }
    return result
}

/// Signals its semaphore when it is deinitialised: here, when the task that captured it has ended
/// and released its closure.
final class ReleaseWitness: Sendable {
    let semaphore: DispatchSemaphore
    init(_ semaphore: DispatchSemaphore) { self.semaphore = semaphore }
    deinit { semaphore.signal() }
}

/// Runs `operation` and stores what it returned or threw in `box`.
func store<T: Sendable, E: Error>(_ operation: @Sendable () async throws(E) -> T, into box: ResultBox<T, E>) async {
    do throws(E) {
        box.result = Result<T, E>.success(try await operation())
    } catch {
        box.result = Result<T, E>.failure(error)
    }
}

/// Servers (models read once, an image-mode instance of each task) for the two sets of limits,
/// when `FUZZ_SERVER_TASKS=1`; nil otherwise.
func server(_ limits: ServerLimits) -> VisionServer? {
    guard let servers else { return nil }
    return limits == ServerFuzzInput.tightLimits ? servers.tight : servers.standard
}

let servers: (standard: VisionServer, tight: VisionServer)? = {
    guard ProcessInfo.processInfo.environment["FUZZ_SERVER_TASKS"] == "1" else { return nil }
    func make(_ limits: ServerLimits) -> VisionServer {
        var configuration = ServerConfiguration(models: ServerModels(store: ModelStore()))
        configuration.limits = limits
        configuration.threadsPerTask = 1
        do {
            return try VisionServer(configuration: configuration)
        } catch {
            FileHandle.standardError.write(Data("FUZZ_SERVER_TASKS=1 but the server cannot start: \(error)\n".utf8))
            exit(2)
        }
    }
    return (make(ServerLimits()), make(ServerFuzzInput.tightLimits))
}()

@_cdecl("FuzzHTTP_main")
public func fuzzHTTPMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    // The servers live as long as the process: made before the first input, so that libFuzzer's
    // per-input leak check does not take them for that input's leak.
    _ = servers
    return vt_fuzz_main(argc, argv)
}
