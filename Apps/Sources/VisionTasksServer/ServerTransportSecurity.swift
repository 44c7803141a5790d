import NIOCore

/// What every connection of a server that serves HTTPS starts with: the TLS handshake and
/// decryption, first in the connection's pipeline, so that the server's own handlers behind it
/// see plain HTTP. `VisionTasksServerTLS`'s `ServerTLS` conforms (`ServerConfiguration.tls`).
public protocol ServerTransportSecurity: Sendable {
    /// Adds the TLS handler(s) at the front of a new connection's pipeline.
    func addHandlers(to pipeline: ChannelPipeline.SynchronousOperations) throws
}
