import Crypto
import Foundation
import NIOCore
import NIOSSL
import SwiftASN1
import VisionTasksServer
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A certificate and its private key for serving HTTPS and WSS on the server's own port
/// (`vision-tasks serve --tls-cert FILE --tls-key FILE`, or `--tls-self-signed`), checked
/// before the server starts: both PEM, the key the certificate's, the certificate valid now, the
/// key file readable by its owner only.
public struct ServerTLS: ServerTransportSecurity {
    /// What every connection's handshake uses: the certificate chain and key, TLS 1.2 and 1.3,
    /// HTTP/1.1 by ALPN.
    let context: NIOSSLContext
    /// The SHA-256 fingerprint of the server's certificate (its DER bytes), as 32 hexadecimal
    /// pairs separated by colons, as browsers and `openssl x509 -fingerprint -sha256` show it.
    public let fingerprint: String
    /// The names and addresses the certificate is for (its subject alternative names).
    public let names: [String]
    /// When the certificate stops being valid.
    public let notValidAfter: Date

    /// The most bytes a certificate or key file may have.
    static let largestFileBytes = 1 << 20

    /// Reads and checks a PEM certificate (chain) and its PEM private key. Throws
    /// `ServerTLSError` naming the file and what is wrong: missing or unreadable, not PEM, a key
    /// that is not the certificate's, a certificate not valid at `now`, a key file that other
    /// users may read.
    public static func load(certificateFile: String, keyFile: String, now: Date = Date()) throws(ServerTLSError) -> ServerTLS {
        let certificateText = try read(certificateFile, what: "certificate")
        let keyText = try read(keyFile, what: "private key")
        try checkOwnerOnly(keyFile)
        return try make(certificatePEM: certificateText, keyPEM: keyText, certificateFile: certificateFile, keyFile: keyFile, now: now)
    }

    /// Checks PEM text as `load` checks files (`certificateFile` and `keyFile` name them in errors).
    static func make(
        certificatePEM: String, keyPEM: String, certificateFile: String, keyFile: String, now: Date
    ) throws(ServerTLSError) -> ServerTLS {
        let documents: [PEMDocument]
        do {
            documents = try PEMDocument.parseMultiple(pemString: certificatePEM)
        } catch {
            throw ServerTLSError("\(certificateFile) is not a PEM certificate (-----BEGIN CERTIFICATE----- ...)")
        }
        var chain: [Certificate] = []
        for document in documents where document.discriminator == "CERTIFICATE" {
            do {
                chain.append(try Certificate(pemDocument: document))
            } catch {
                throw ServerTLSError("\(certificateFile) holds a certificate that cannot be read: \(error)")
            }
        }
        guard let leaf = chain.first else {
            throw ServerTLSError("\(certificateFile) holds no certificate (-----BEGIN CERTIFICATE----- ...)")
        }
        let key: Certificate.PrivateKey
        do {
            key = try Certificate.PrivateKey(pemEncoded: keyPEM)
        } catch {
            throw ServerTLSError("\(keyFile) is not a PEM private key (RSA, EC P-256/P-384/P-521 or Ed25519, unencrypted)")
        }
        guard key.publicKey == leaf.publicKey else {
            throw ServerTLSError("the private key in \(keyFile) is not the key of the certificate in \(certificateFile)")
        }
        guard now >= leaf.notValidBefore else {
            throw ServerTLSError("the certificate in \(certificateFile) is not valid before \(leaf.notValidBefore)")
        }
        guard now <= leaf.notValidAfter else {
            throw ServerTLSError("the certificate in \(certificateFile) expired on \(leaf.notValidAfter)")
        }
        // What NIOSSL (BoringSSL) serves must read too.
        let context: NIOSSLContext
        do {
            let chain = try NIOSSLCertificate.fromPEMBytes(Array(certificatePEM.utf8)).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
            configuration.minimumTLSVersion = .tlsv12
            configuration.applicationProtocols = ["http/1.1"]
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw ServerTLSError("\(certificateFile) and \(keyFile) cannot be served: \(error)")
        }
        return ServerTLS(context: context, fingerprint: try fingerprint(of: leaf), names: names(of: leaf), notValidAfter: leaf.notValidAfter)
    }

    /// Puts NIOSSL's server handler first in a new connection's pipeline.
    public func addHandlers(to pipeline: ChannelPipeline.SynchronousOperations) throws {
        try pipeline.addHandler(NIOSSLServerHandler(context: context), position: .first)
    }

    /// "AB:CD:..." of the certificate's DER bytes.
    static func fingerprint(of certificate: Certificate) throws(ServerTLSError) -> String {
        var serializer = DER.Serializer()
        do {
            try serializer.serialize(certificate)
        } catch {
            throw ServerTLSError("the certificate cannot be serialised: \(error)")
        }
        return SHA256.hash(data: serializer.serializedBytes).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// The DNS names and IP addresses of a certificate's subject alternative names.
    static func names(of certificate: Certificate) -> [String] {
        guard let alternatives = try? certificate.extensions.subjectAlternativeNames else { return [] }
        return alternatives.compactMap { name in
            switch name {
            case .dnsName(let dns): return dns
            case .ipAddress(let octets): return address(Array(octets.bytes))
            default: return nil
            }
        }
    }

    /// An IPv4 or IPv6 address's text from its bytes.
    static func address(_ bytes: [UInt8]) -> String? {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        guard bytes.count == 16 else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written = bytes.withUnsafeBufferPointer { inet_ntop(AF_INET6, $0.baseAddress, &text, socklen_t(text.count)) }
        guard written != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A file's text, at most `largestFileBytes`.
    static func read(_ path: String, what: String) throws(ServerTLSError) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read (permissions?)" : "does not exist"
            throw ServerTLSError("the \(what) file \(path) \(reason)")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: largestFileBytes + 1) ?? Data()
        } catch {
            throw ServerTLSError("the \(what) file \(path) cannot be read: \(error.localizedDescription)")
        }
        guard data.count <= largestFileBytes else {
            throw ServerTLSError("the \(what) file \(path) is over \(largestFileBytes) bytes: not a PEM \(what)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ServerTLSError("the \(what) file \(path) is not PEM text")
        }
        return text
    }

    /// `ServerTLSError` when users other than the key file's owner may read or write it.
    static func checkOwnerOnly(_ path: String) throws(ServerTLSError) {
        guard let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int else {
            throw ServerTLSError("the private key file \(path) cannot be examined")
        }
        guard mode & 0o077 == 0 else {
            throw ServerTLSError(
                "the private key file \(path) may be read by other users (mode \(String(mode & 0o777, radix: 8))): chmod 600 \(path)")
        }
    }
}

/// A certificate or key that cannot be served, and why.
public struct ServerTLSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the file.
    public let description: String

    init(_ description: String) { self.description = description }
}
