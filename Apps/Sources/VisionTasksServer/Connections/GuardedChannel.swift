import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Hummingbird's HTTP/1 + WebSocket child channel with the server's connection rules around
/// it: `ConnectionGuard` first in the pipeline (raw bytes; behind the TLS handler when the
/// server serves TLS), `FirstRequestHandler` right behind the HTTP decoder. Everything else is
/// the wrapped channel's.
struct GuardedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let registry: ConnectionRegistry
    let origins: OriginPolicy
    let metrics: ServerMetrics
    let headerTimeout: Duration
    /// The replica's name (`X-Vision-Tasks-Instance`) on the answers `ConnectionGuard` writes.
    let instance: String
    /// With TLS, each connection's handshake and decryption come first, so that everything
    /// after sees plain HTTP.
    let tls: (any ServerTransportSecurity)?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let connectionGuard = ConnectionGuard(registry: registry, metrics: metrics, headerTimeout: headerTimeout, instance: instance)
        do {
            try channel.pipeline.syncOperations.addHandler(connectionGuard, position: .first)
            try tls?.addHandlers(to: channel.pipeline.syncOperations)
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        // Called on the connection's event loop (Hummingbird's child channel initializer).
        return base.setup(channel: channel, logger: logger).assumeIsolated().flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let decoder = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(
                FirstRequestHandler(connectionGuard: connectionGuard, registry: registry, origins: origins, metrics: metrics),
                position: .after(decoder))
            return value
        }.nonisolated()
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
