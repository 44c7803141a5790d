import Crypto
import Foundation
import SwiftASN1
import VisionTasksServer
import X509

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ServerTLS {
    /// The file names of the kept self-signed certificate and its key in their folder.
    static let selfSignedFiles = (certificate: "self-signed-certificate.pem", key: "self-signed-key.pem")

    /// Where `vision-tasks serve --tls-self-signed` keeps its certificate:
    /// `$XDG_CONFIG_HOME/vision-tasks/tls`, or `~/.config/vision-tasks/tls`.
    public static func defaultSelfSignedFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
        return config.appendingPathComponent("vision-tasks/tls")
    }

    /// The names a certificate for this machine is for: its host name (and `NAME.local`), the
    /// addresses of its network interfaces, and `localhost`, `127.0.0.1`, `::1`.
    public static func machineNames() -> [String] {
        var names: [String] = []
        if let host = OriginPolicy.hostName() { names += [host, host + ".local"] }
        let addresses = OriginPolicy.interfaceAddresses().map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) }
        names += addresses.sorted()
        for loopback in ["localhost", "127.0.0.1", "::1"] where !names.contains(loopback) { names.append(loopback) }
        return names
    }

    /// The self-signed certificate kept in `folder` when it is for every one of `names` and valid
    /// for another day at least; otherwise a new one (an EC P-256 key, valid for a year from
    /// `now`), kept there with its key (the folder 0700, the key 0600) for the next run.
    /// `created` says whether it is new.
    public static func selfSigned(folder: URL, names: [String], now: Date = Date()) throws(ServerTLSError) -> (tls: ServerTLS, created: Bool) {
        let certificateFile = folder.appendingPathComponent(selfSignedFiles.certificate).path
        let keyFile = folder.appendingPathComponent(selfSignedFiles.key).path
        if FileManager.default.fileExists(atPath: certificateFile),
            let kept = try? load(certificateFile: certificateFile, keyFile: keyFile, now: now),
            Set(names).isSubset(of: Set(kept.names)), kept.notValidAfter > now.addingTimeInterval(86_400)
        {
            return (kept, false)
        }
        let (certificatePEM, keyPEM) = try makeSelfSigned(names: names, now: now)
        try keep(certificatePEM: certificatePEM, keyPEM: keyPEM, folder: folder)
        return (try load(certificateFile: certificateFile, keyFile: keyFile, now: now), true)
    }

    /// A new self-signed certificate for `names` (DNS names and IP addresses) and its key, as PEM.
    static func makeSelfSigned(names: [String], now: Date, days: Int = 365) throws(ServerTLSError) -> (certificate: String, key: String) {
        guard !names.isEmpty else { throw ServerTLSError("a certificate needs at least one name") }
        let key = P256.Signing.PrivateKey()
        let issuerKey = Certificate.PrivateKey(key)
        do {
            let subject = try DistinguishedName {
                CommonName(names[0])
                OrganizationName("VisionTasks (self-signed)")
            }
            let alternatives: [GeneralName] = names.map { name in
                if let bytes = addressBytes(name) { return .ipAddress(ASN1OctetString(contentBytes: ArraySlice(bytes))) }
                return .dnsName(name)
            }
            let extensions = try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(alternatives)
            }
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: issuerKey.publicKey,
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(Double(days) * 86_400),
                issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
                issuerPrivateKey: issuerKey)
            return (try certificate.serializeAsPEM().pemString, key.pemRepresentation)
        } catch {
            throw ServerTLSError("a self-signed certificate could not be made: \(error)")
        }
    }

    /// An IPv4 or IPv6 address's bytes; nil for a DNS name.
    static func addressBytes(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    /// Writes the certificate and key into `folder` (made 0700), each through a temporary file
    /// renamed into place; the key is created 0600.
    static func keep(certificatePEM: String, keyPEM: String, folder: URL) throws(ServerTLSError) {
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ServerTLSError("the folder \(folder.path) cannot be made: \(error.localizedDescription)")
        }
        try write(keyPEM, to: folder.appendingPathComponent(selfSignedFiles.key).path, mode: 0o600)
        try write(certificatePEM, to: folder.appendingPathComponent(selfSignedFiles.certificate).path, mode: 0o644)
    }

    /// `text` into `path` with `mode`, through `path.new` renamed into place.
    static func write(_ text: String, to path: String, mode: mode_t) throws(ServerTLSError) {
        let temporary = path + ".new"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw ServerTLSError("\(temporary) cannot be created: \(String(cString: strerror(errno)))") }
        do {
            try FileHandle(fileDescriptor: descriptor, closeOnDealloc: false).write(contentsOf: Data(text.utf8))
        } catch {
            close(descriptor)
            unlink(temporary)
            throw ServerTLSError("\(temporary) cannot be written: \(error.localizedDescription)")
        }
        // The mode asked for, whatever the umask took away.
        _ = fchmod(descriptor, mode)
        _ = fsync(descriptor)
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ServerTLSError("\(path) cannot be replaced: \(String(cString: strerror(errno)))")
        }
    }
}
