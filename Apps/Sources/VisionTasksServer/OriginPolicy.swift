import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which `Host` and `Origin` values the server answers, against DNS rebinding (a page of another
/// site whose name was pointed at this machine: its requests carry that site's name as `Host`)
/// and cross-site requests (a page of another site opening live sessions or posting images:
/// the browser names that site in `Origin`).
///
/// - `Host`: a name the server is reached by, with the server's port or without one: for
///   127.0.0.1 (or `localhost`, `::1`) the loopback names `localhost`, `127.0.0.1`, `[::1]`;
///   for 0.0.0.0 or `::` those and every address of the machine's interfaces, its host name
///   and `NAME.local`; for another address, that address (and what `--host` said); and the
///   host of every allowed origin.
/// - `Origin`, when a request has one: `http://NAME:PORT` for those names with the server's
///   port (`https://` when the server serves TLS), and every allowed origin (`--allowed-origin`, e.g. `https://vision.example.com`
///   for a page behind a reverse proxy). `Origin: null` is refused.
///
/// A request without `Host` or `Origin` is not refused for it (programs such as `curl` send no
/// `Origin`; browsers always send `Host`). Others are answered 403 `forbidden`.
package final class OriginPolicy: @unchecked Sendable {
    /// Lower-case names the server is reached by (IPv6 addresses in brackets).
    let names: Set<String>
    /// The scheme of the server's own origins: `https` when it serves TLS, else `http`.
    let scheme: String
    /// Lower-case allowed origins, as given (`scheme://host[:port]`), default ports dropped.
    let allowedOrigins: Set<String>
    /// `host:port` of every allowed origin, its port spelled out.
    private let allowedAuthorities: Set<String>
    private let lock = NSLock()
    private var boundPort: Int

    /// The policy for a server listening on `host`, port `port` (0 until the real port is
    /// known: `bind(port:)`), with these extra allowed origins (already checked by
    /// `ServerConfiguration.validate`).
    init(host: String, port: Int, allowedOrigins: [String], scheme: String = "http") {
        var names = Set<String>()
        let loopback = ["localhost", "127.0.0.1", "[::1]"]
        let host = host.lowercased()
        switch host {
        case "127.0.0.1", "localhost", "::1", "[::1]":
            names.formUnion(loopback)
        case "0.0.0.0", "::", "[::]", "":
            names.formUnion(loopback)
            names.formUnion(Self.interfaceAddresses())
            if let name = Self.hostName() {
                names.insert(name)
                names.insert(name + ".local")
            }
        default:
            names.insert(host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host)
        }
        var origins = Set<String>(), authorities = Set<String>()
        for origin in allowedOrigins {
            guard let parsed = Self.parseOrigin(origin) else { continue }
            origins.insert(parsed.normalized)
            authorities.insert("\(parsed.host):\(parsed.port)")
            names.insert(parsed.host)
        }
        self.names = names
        self.scheme = scheme
        self.allowedOrigins = origins
        allowedAuthorities = authorities
        boundPort = port
    }

    /// The port the server listens on, once bound (with port 0, the one the system chose).
    func bind(port: Int) { lock.withLock { boundPort = port } }

    private var port: Int { lock.withLock { boundPort } }

    /// `forbidden` unless `host` and `origin` (header values, when present) are allowed.
    func check(host: String?, origin: String?) throws(ServerError) {
        if let host, !allows(host: host) {
            throw ServerError(
                code: .forbidden,
                message: "this server does not answer to the name '\(host)'; use the address it printed, or start it with --allowed-origin")
        }
        if let origin, !allows(origin: origin) {
            throw ServerError(
                code: .forbidden,
                message: "requests from pages of '\(origin)' are refused; start the server with --allowed-origin \(origin) to allow them")
        }
    }

    func allows(host value: String) -> Bool {
        guard let (name, port) = Self.splitAuthority(value.lowercased()) else { return false }
        guard names.contains(name) else { return false }
        guard let port else { return true }
        return port == self.port || allowedAuthorities.contains("\(name):\(port)")
    }

    func allows(origin value: String) -> Bool {
        guard let parsed = Self.parseOrigin(value) else { return false }
        if allowedOrigins.contains(parsed.normalized) { return true }
        return parsed.scheme == scheme && parsed.port == port && names.contains(parsed.host)
    }

    /// An origin's parts: `scheme://host[:port]` with an http or https scheme, no path; the
    /// port is the scheme's default when absent. Nil when `value` is not such an origin.
    static func parseOrigin(_ value: String) -> (scheme: String, host: String, port: Int, normalized: String)? {
        let lower = value.lowercased()
        guard let range = lower.range(of: "://") else { return nil }
        let scheme = String(lower[..<range.lowerBound])
        guard scheme == "http" || scheme == "https" else { return nil }
        let rest = String(lower[range.upperBound...])
        guard !rest.isEmpty, !rest.contains("/"), !rest.contains("@"), let (host, port) = splitAuthority(rest) else { return nil }
        let defaultPort = scheme == "http" ? 80 : 443
        let effectivePort = port ?? defaultPort
        let authority = effectivePort == defaultPort ? host : "\(host):\(effectivePort)"
        return (scheme, host, effectivePort, "\(scheme)://\(authority)")
    }

    /// `host[:port]` (IPv6 in brackets) split; nil when the port is not a number from 1 to 65535.
    static func splitAuthority(_ value: String) -> (host: String, port: Int?)? {
        let host: Substring, portText: Substring?
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            host = value[...close]
            let after = value[value.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return nil }
            portText = after.isEmpty ? nil : after.dropFirst()
        } else if let colon = value.lastIndex(of: ":") {
            host = value[..<colon]
            portText = value[value.index(after: colon)...]
        } else {
            host = value[...]
            portText = nil
        }
        guard !host.isEmpty else { return nil }
        guard let portText else { return (String(host), nil) }
        guard let port = Int(portText), (1...65535).contains(port) else { return nil }
        return (String(host), port)
    }

    /// The addresses of the machine's network interfaces (IPv6 in brackets, without zones).
    package static func interfaceAddresses() -> Set<String> {
        var result = Set<String>()
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return result }
        defer { freeifaddrs(list) }
        var current: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = current {
            defer { current = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr else { continue }
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            var name = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
            if let zone = name.firstIndex(of: "%") { name = String(name[..<zone]) }
            result.insert(family == AF_INET6 ? "[\(name)]" : name)
        }
        return result
    }

    /// The machine's host name, lower-case; nil when it has none.
    package static func hostName() -> String? {
        var text = [CChar](repeating: 0, count: 256)
        guard gethostname(&text, text.count) == 0 else { return nil }
        let name = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self).lowercased()
        return name.isEmpty ? nil : name
    }
}
