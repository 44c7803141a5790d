import Foundation

/// Hands a task's live-stream results to the delegate in its options, as MediaPipe's delegate
/// protocols expect them: with the task itself as the sender.
///
/// Both the delegate and the task are held weakly: the delegate as MediaPipe holds it, the
/// task because it owns the runner that owns this relay. A result that arrives after either
/// is gone is not delivered. Every task uses this one relay; only the call into its own
/// delegate protocol (`notify`) differs.
package final class LiveStreamDelegateRelay<Task: AnyObject, Output: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    // `AnyObject`, because a delegate protocol's existential (`any XLiveStreamDelegate`) is
    // not a class type a generic parameter could be constrained to; `notify` casts it back.
    private weak var delegate: AnyObject?
    private weak var task: Task?
    private let notify: (AnyObject, Task, LiveStreamResult<Output>) -> Void
    private let hasDelegate: Bool

    /// - Parameters:
    ///   - delegate: the options' live-stream delegate (a class instance), or nil.
    ///   - notify: calls the delegate's method with the task and one result.
    package init<Delegate>(
        delegate: Delegate?, notify: @escaping (Delegate, Task, LiveStreamResult<Output>) -> Void
    ) {
        self.delegate = delegate.map { $0 as AnyObject }
        self.hasDelegate = delegate != nil
        self.notify = { object, task, result in
            guard let delegate = object as? Delegate else { return }
            notify(delegate, task, result)
        }
    }

    /// The sender of the results; set once the task is initialised.
    package func attach(_ task: Task) {
        lock.withLock { self.task = task }
    }

    /// The runner's result handler: nil when there is no delegate (image and video mode, where
    /// the runner refuses one), so that the runner's delegate rule sees what the options say.
    package var resultHandler: (@Sendable (LiveStreamResult<Output>) -> Void)? {
        guard hasDelegate else { return nil }
        return { [self] result in deliver(result) }
    }

    private func deliver(_ result: LiveStreamResult<Output>) {
        let (task, delegate) = lock.withLock { (self.task, self.delegate) }
        guard let task, let delegate else { return }
        notify(delegate, task, result)
    }
}
