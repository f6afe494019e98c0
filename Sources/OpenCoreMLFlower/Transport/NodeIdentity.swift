import Crypto
import Foundation

/// A SuperNode's identity: an ECDSA P-256 key. Every Fleet request carries the public key (PEM,
/// base64), the time (ISO 8601) and a signature of that time, even on an insecure SuperLink; the
/// SuperLink accepts a signature made within five minutes.
struct NodeIdentity {
    /// Header names, as flwr 1.41's SuperLink reads them.
    static let publicKeyHeader = "flwr-public-key"
    static let signatureHeader = "flwr-signature"
    static let timestampHeader = "flwr-timestamp"

    let privateKey: P256.Signing.PrivateKey

    /// A new random identity.
    init() { privateKey = P256.Signing.PrivateKey() }

    /// The identity in a PEM file (PKCS #8 or SEC 1).
    init(pem: String) throws { privateKey = try P256.Signing.PrivateKey(pemRepresentation: pem) }

    /// The public key as the SuperLink stores it: PEM (SubjectPublicKeyInfo) with a final newline,
    /// as Python's `cryptography` writes it.
    var publicKeyPEM: Data { Data((privateKey.publicKey.pemRepresentation + "\n").utf8) }

    /// The three authentication headers for a request made at `date`.
    func headers(at date: Date = Date()) throws -> [String: String] {
        let timestamp = Self.timestamp(date)
        let signature = try privateKey.signature(for: Data(timestamp.utf8))
        return [
            Self.publicKeyHeader: publicKeyPEM.base64EncodedString(),
            Self.timestampHeader: timestamp,
            Self.signatureHeader: signature.derRepresentation.base64EncodedString(),
        ]
    }

    /// `date` as Python's `datetime.isoformat()` prints a UTC time: `2026-11-24T06:40:12.123456+00:00`.
    static func timestamp(_ date: Date) -> String {
        let microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let seconds = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        var whole = seconds.quotient, fraction = seconds.remainder
        if fraction < 0 { whole -= 1; fraction += 1_000_000 }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: TimeInterval(whole)))
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.%06d+00:00", parts.year!, parts.month!, parts.day!,
                      parts.hour!, parts.minute!, parts.second!, Int(fraction))
    }

    /// Whether `signature` (DER, base64) signs `timestamp` with the key in `publicKeyPEM` (base64 of
    /// PEM), as the SuperLink checks it.
    static func verify(publicKeyHeader: String, timestamp: String, signatureHeader: String) -> Bool {
        guard let pemData = Data(base64Encoded: publicKeyHeader), let pem = String(data: pemData, encoding: .utf8),
              let key = try? P256.Signing.PublicKey(pemRepresentation: pem),
              let der = Data(base64Encoded: signatureHeader),
              let signature = try? P256.Signing.ECDSASignature(derRepresentation: der) else { return false }
        return key.isValidSignature(signature, for: Data(timestamp.utf8))
    }
}
