import Foundation

/// A value behind a lock, read and written through key paths: the state of the options classes.
///
/// MediaPipe's options are classes with settable properties, so that code written for them ports
/// unchanged; ours are also safe to share between threads. Each options class keeps all its values
/// in one struct (`TaskOptionValues` for the tasks' options) in a `Locked`: a property reads or
/// writes its key path under the one lock, and `value` reads or replaces them all at once (a task
/// copies its options in one step).
///
/// Write a nested part through its whole key path, `state[\.settings.numHands] = n`: that is one
/// locked step, where `state[\.settings].numHands = n` would be a read and a write, two.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    /// A lock around `value`.
    package init(_ value: Value) {
        stored = value
    }

    /// One part of the value.
    package subscript<Part>(_ keyPath: WritableKeyPath<Value, Part>) -> Part {
        get { lock.withLock { stored[keyPath: keyPath] } }
        set { lock.withLock { stored[keyPath: keyPath] = newValue } }
    }

    /// The whole value.
    package var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
