import Foundation
import VisionTasks

/// Teaching a live gesture session new gestures (`TeachRequest`): recording and clearing act
/// at once; training, switching classifiers and sending a bundle run on the session's worker
/// before its next frame, and a new recognizer replaces the old one there (tracking starts
/// over, as after an options message). Every request is answered with a `TeachAnswer`, or an error answer after
/// which the session goes on unchanged.
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
                let start: Bool = lock.withLock {
                    pendingTeach = request
                    if busy || closed { return false }
                    busy = true
                    return true
                }
                if start { queue.async { self.work(nil) } }
            }
        } catch {
            fail(error, timestamp: nil)
        }
    }

    /// On the worker: trains, switches classifiers or sends a bundle as the pending request asks.
    func applyPendingTeach() {
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
                let (_, bundle) = try teacher.bundle(named: name)
                switchGestureModel(to: (name, bundle))
                answerTeach("using")
            case .use(nil):
                switchGestureModel(to: nil)
                answerTeach("using")
            case .download(let name):
                let (_, bundle) = try teacher.bundle(named: name)
                answerTeach("bundle", label: name, bytes: bundle.count)
                sendBinary(bundle)
            case .record, .stop, .clear:
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
        _ event: String, label: String? = nil, reason: String? = nil, training: GestureTeacher.Trained? = nil, bytes: Int? = nil
    ) {
        answer(
            TeachAnswer(
                event: event, label: label, reason: reason, samples: teacher.sampleCounts, models: teacher.taughtNames,
                using: lock.withLock { gestureModel?.name }, training: training, bytes: bytes))
    }
}
