import Foundation
@_spi(Apps) import VisionTasks

/// Teaching a live gesture session new gestures (`TeachRequest`): recording and clearing act
/// at once; training, switching classifiers, sending a bundle and taking an uploaded one run on
/// the session's worker before its next frame, and a new recognizer replaces the old one there
/// (tracking starts over, as after an options message). Every request is answered with a
/// `TeachAnswer`, or an error answer after which the session goes on unchanged.
extension LiveSession {
    /// Acts on a teach request.
    func teach(_ request: TeachRequest) {
        do throws(ServerError) {
            switch request {
            case .record(let label):
                guard settings.task == .gesture else {
                    throw ServerError(
                        code: .teachFailed,
                        message: "gestures are recorded in a gesture session; this one runs \(settings.task.rawValue) (send {\"task\": \"gesture\"} first)")
                }
                try teacher.startRecording(label)
                answerTeach("recording", label: label)
            case .stop:
                teacher.stopRecording()
                answerTeach("stopped")
            case .clear(let label):
                try teacher.clear(label)
                answerTeach("cleared", label: label)
            case .train, .use, .download:
                lock.withLock { pendingTeach = request }
                startWorker()
            case .upload(let name, let bytes):
                guard bytes <= limits.maxUploadedBundleBytes else {
                    throw ServerError(
                        code: .teachFailed,
                        message: "a bundle of \(bytes) bytes is more than the \(limits.maxUploadedBundleBytes) this server takes")
                }
                lock.withLock { expectedUpload = (name, bytes, Data()) }
                answerTeach("receiving", label: name, bytes: bytes)
            }
        } catch {
            fail(error, timestamp: nil)
        }
    }

    /// Starts the worker when it is idle, for a pending request or upload.
    private func startWorker() {
        let start: Bool = lock.withLock {
            if busy || closed { return false }
            busy = true
            return true
        }
        if start { queue.async { self.work(nil) } }
    }

    /// Takes a binary message as the next part of the bundle an accepted upload request
    /// announced, when one did (true): once all its bytes came, the bundle waits for the
    /// worker; more bytes than announced are answered `teachFailed` and the upload is dropped.
    /// False when no upload is under way: the message is a frame.
    func receiveUpload(_ part: some Collection<UInt8>) -> Bool {
        let progress: UploadProgress = lock.withLock {
            guard var upload = expectedUpload else { return .frame }
            expectedUpload = nil  // one copy of the bytes while appending
            upload.received.append(contentsOf: part)
            if upload.received.count > upload.bytes { return .tooLong(upload.received.count, upload.bytes) }
            if upload.received.count < upload.bytes {
                expectedUpload = upload
                return .partial
            }
            pendingUpload = (upload.name, upload.received)
            return .whole
        }
        switch progress {
        case .frame: return false
        case .partial: return true
        case .whole: startWorker()
        case .tooLong(let received, let announced):
            fail(
                ServerError(
                    code: .teachFailed,
                    message: "the uploaded bundle came with \(received) bytes or more, not the \(announced) its upload request announced; nothing was kept"),
                timestamp: nil)
        }
        return true
    }

    /// Ends an upload whose bytes have not all come, when a text message arrives instead: the
    /// client gave up on it (or never sent it), so the session stops taking binary messages as
    /// the bundle's. Answered `teachFailed`, nothing is kept; the text message is then read as
    /// usual. Without an upload under way, nothing happens.
    func abandonUpload() {
        guard let upload = lock.withLock({ defer { expectedUpload = nil }; return expectedUpload }) else { return }
        fail(
            ServerError(
                code: .teachFailed,
                message: "the upload of \(upload.name) ended after \(upload.received.count) of its \(upload.bytes) bytes: a text message came before the rest; nothing was kept"),
            timestamp: nil)
    }

    /// What one binary message did to an upload.
    private enum UploadProgress { case frame, partial, whole, tooLong(Int, Int) }

    /// On the worker: keeps the custom classifier of the pending upload and runs it, when a
    /// recognizer can be made from it with the server's models.
    private func applyPendingUpload() {
        guard let upload = lock.withLock({ defer { pendingUpload = nil }; return pendingUpload }) else { return }
        do throws(ServerError) {
            let (model, bundle) = try teacher.classifier(fromUpload: upload.bundle, named: upload.name)
            // A recognizer made with the classifier is the check that it runs; in a gesture
            // session it is the one the session runs next.
            let current = settings
            var gesture = current
            gesture.task = .gesture
            let labels: [String], fresh: TaskEngine
            do {
                fresh = try library.makeEngine(gesture, mode: .video, gestureModel: bundle)
                labels = try GestureClassifierNames.labels(ofClassifier: model)
            } catch {
                throw ServerError(code: .teachFailed, message: "\(upload.name) cannot run: \(error)")
            }
            let dropped = teacher.keep(model, named: upload.name)
            lock.withLock { gestureModel = (upload.name, bundle) }
            answerTeach("uploaded", bytes: model.count, uploaded: (upload.name, labels, dropped))
            if current.task == .gesture { install(fresh, for: current) }
        } catch {
            fail(error, timestamp: nil)
        }
    }

    /// On the worker: trains, switches classifiers, sends a bundle or takes an uploaded one as
    /// the pending request asks.
    func applyPendingTeach() {
        applyPendingUpload()
        let pending: TeachRequest? = lock.withLock {
            defer { pendingTeach = nil }
            return pendingTeach
        }
        guard let pending else { return }
        do throws(ServerError) {
            switch pending {
            case .train(let request):
                let trained = try teacher.train(request)
                switchGestureModel(to: (trained.name, trained.bundle))
                answerTeach("trained", training: trained)
            case .use(let name?):
                let bundle = try teacher.bundle(named: name)
                switchGestureModel(to: (name, bundle))
                answerTeach("using")
            case .use(nil):
                switchGestureModel(to: nil)
                answerTeach("using")
            case .download(let name):
                let bundle = try teacher.bundle(named: name)
                answerTeach("bundle", label: name, bytes: bundle.count)
                sendBinary(bundle)
            case .record, .stop, .clear, .upload:
                break
            }
        } catch {
            fail(error, timestamp: nil)
        }
    }

    /// After a frame was processed: while recording, its hand becomes a sample, answered with
    /// the counts so far.
    func recordForTeaching(_ output: TaskOutput, width: Int, height: Int, settings: TaskSettings) {
        guard settings.task == .gesture, let result = output.result as? GestureRecognizerResult else { return }
        switch teacher.record(result, imageWidth: width, imageHeight: height, mirrored: settings.mirrored) {
        case nil:
            return
        case .sample(let label, let full):
            answerTeach("sample", label: label)
            if full {
                answerTeach(
                    "stopped", label: label,
                    reason: "\(label) has its maximum of \(limits.maxTeachSamplesPerLabel) samples")
            }
        case .failed(let error):
            fail(error, timestamp: nil)
        }
    }

    /// Runs `model` (nil: the server's bundle) from the next frame on: a gesture session gets a
    /// new recognizer before it.
    private func switchGestureModel(to model: (name: String, bundle: Data)?) {
        let current = settings
        lock.withLock {
            gestureModel = model
            if current.task == .gesture { pendingSettings = current }
        }
    }

    private func answerTeach(
        _ event: String, label: String? = nil, reason: String? = nil, training: GestureTeacher.Trained? = nil, bytes: Int? = nil,
        uploaded: (name: String, labels: [String], dropped: [String])? = nil
    ) {
        answer(
            TeachAnswer(
                event: event, label: label, reason: reason, samples: teacher.sampleCounts, models: teacher.taughtNames,
                using: lock.withLock { gestureModel?.name }, training: training, bytes: bytes, uploaded: uploaded))
    }
}
