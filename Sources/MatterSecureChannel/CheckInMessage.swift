import MatterCrypto

/// The payload of an ICD Check-In message (Secure Channel opcode 0x50, sent unsecured by a
/// sleepy device to each client registered with its ICD Management cluster, Matter Core 4.18):
/// `nonce(13) ‖ AES-CCM(counter u32 LE ‖ application data) ‖ MIC(16)`, no associated data. The
/// nonce is the first 13 bytes of HMAC-SHA256(key, counter LE); the same 16-byte key the client
/// registered serves both (no derivation), as the CHIP SDK's `CheckinMessage` and matter.js have it.
/// An ICD's application data is its ActiveModeThreshold (uint16 LE, in ms).
public enum CheckInMessage {
    public static let nonceLength = 13
    public static let micLength = 16
    /// Nonce, counter and MIC: a payload without application data.
    public static let minimumLength = nonceLength + 4 + micLength

    public struct Opened: Hashable, Sendable {
        public var counter: UInt32
        public var applicationData: [UInt8]

        public init(counter: UInt32, applicationData: [UInt8]) {
            self.counter = counter
            self.applicationData = applicationData
        }

        /// The ActiveModeThreshold an ICD sends, when the data is two bytes.
        public var activeModeThreshold: UInt16? {
            applicationData.count == 2 ? UInt16(applicationData[0]) | UInt16(applicationData[1]) << 8 : nil
        }
    }

    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        public enum Kind: Hashable, Sendable { case tooShort, wrongKeyLength, notAuthentic, nonceMismatch }
        public var kind: Kind
        public init(kind: Kind) { self.kind = kind }
        public var description: String {
            switch kind {
            case .tooShort: "a Check-In payload is at least \(CheckInMessage.minimumLength) bytes"
            case .wrongKeyLength: "a Check-In key is 16 bytes"
            case .notAuthentic: "the Check-In does not authenticate under this key"
            case .nonceMismatch: "the Check-In's nonce is not the one its counter gives (replayed or forged)"
            }
        }
    }

    public static func nonce(key: [UInt8], counter: UInt32) -> [UInt8] {
        Array(HMACSHA256.authenticate(key: key, message: littleEndian(counter)).prefix(nonceLength))
    }

    public static func seal(key: [UInt8], counter: UInt32, applicationData: [UInt8] = []) throws(Failure) -> [UInt8] {
        guard key.count == 16 else { throw Failure(kind: .wrongKeyLength) }
        let nonce = nonce(key: key, counter: counter)
        do {
            return nonce + (try AESCCM.seal(key: key, nonce: nonce, plaintext: littleEndian(counter) + applicationData, additionalData: []))
        } catch {
            throw Failure(kind: .wrongKeyLength)
        }
    }

    /// Decrypts and checks a payload: the MIC, then that the nonce is the one the counter inside gives.
    public static func open(key: [UInt8], payload: [UInt8]) throws(Failure) -> Opened {
        guard key.count == 16 else { throw Failure(kind: .wrongKeyLength) }
        guard payload.count >= minimumLength else { throw Failure(kind: .tooShort) }
        let received = Array(payload.prefix(nonceLength))
        let plaintext: [UInt8]
        do {
            plaintext = try AESCCM.open(key: key, nonce: received, ciphertextAndTag: Array(payload.dropFirst(nonceLength)), additionalData: [])
        } catch {
            throw Failure(kind: .notAuthentic)
        }
        let counter = plaintext.prefix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) }
        guard nonce(key: key, counter: counter) == received else { throw Failure(kind: .nonceMismatch) }
        return Opened(counter: counter, applicationData: Array(plaintext.dropFirst(4)))
    }

    /// How far `counter` is past the one the device reported at registration (wrapping): a client
    /// accepts a Check-In only when this grows, and registers a new key past 2^31 (CHIP's
    /// CheckInHandler: `offset > 2^31` refreshes).
    public static func offset(of counter: UInt32, from start: UInt32) -> UInt32 { counter &- start }
    public static let keyRefreshOffset: UInt32 = 1 << 31

    static func littleEndian(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
}
