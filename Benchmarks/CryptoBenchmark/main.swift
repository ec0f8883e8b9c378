// crypto-bench: operations per second of MatterCrypto next to OpenSSL's own figures, measured
// in the same run on the same machine.
//
//   swift build -c release --product crypto-bench && .build/release/crypto-bench [--seconds N]
//
// References: `openssl speed -seconds N ecdsap256` for ECDSA sign/verify; `openssl speed
// ecdhp256` divided by 4 for a SPAKE2+ prover round (the round is one x·G + w0·M and three
// variable-base multiplications w0·N, x·T, w1·T: about four ECDH-sized scalar multiplications);
// Python's hashlib.pbkdf2_hmac (which calls OpenSSL's PKCS5_PBKDF2_HMAC) for PBKDF2, because
// `openssl speed` has no PBKDF2 timing and timing `openssl kdf` would mostly time process start.
import Foundation
import MatterCertificates
import MatterCrypto
import MatterTLV

let seconds = CommandLine.arguments.firstIndex(of: "--seconds")
    .flatMap { CommandLine.arguments.indices.contains($0 + 1) ? Double(CommandLine.arguments[$0 + 1]) : nil } ?? 2

/// Runs `body` repeatedly for at least `seconds` and returns operations per second.
func opsPerSecond(_ body: () throws -> Void) rethrows -> Double {
    try body()  // warm-up: algorithm fetches, lazy constants
    let clock = ContinuousClock()
    let start = clock.now
    var count = 0
    while true {
        try body()
        count += 1
        let elapsed = start.duration(to: clock.now)
        let total = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        if total >= seconds { return Double(count) / total }
    }
}

/// Runs a command and returns its stdout (and stderr), or nil if it could not run.
func run(_ executable: String, _ arguments: [String]) -> String? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    do { try process.run() } catch { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

/// The trailing numbers of the first line of `text` containing `marker`.
func trailingNumbers(in text: String?, lineContaining marker: String) -> [Double] {
    guard let line = text?.split(separator: "\n").first(where: { $0.contains(marker) }) else { return [] }
    return line.split(separator: " ").compactMap { Double($0) }
}

func pythonPBKDF2(iterations: Int) -> Double? {
    let script = """
    import hashlib, time
    n, start = 0, time.perf_counter()
    while True:
        hashlib.pbkdf2_hmac('sha256', b'\\x25\\x42\\x34\\x01', b'SPAKE2P Key Salt', \(iterations), 80)
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= \(seconds): break
    print('pbkdf2', n / elapsed)
    """
    return trailingNumbers(in: run("/usr/bin/env", ["python3", "-c", script]), lineContaining: "pbkdf2").last
}

/// One table line: a left-aligned name, three right-aligned figures, then the reference's name.
func columns(_ name: String, _ ours: String, _ reference: String, _ ratio: String, _ source: String) -> String {
    func right(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
    return name.padding(toLength: 26, withPad: " ", startingAt: 0) + right(ours, 11) + right(reference, 11)
        + right(ratio, 7) + "   " + source
}

struct Row {
    let operation: String
    let ours: Double
    let reference: Double?
    let referenceName: String
}

func report(_ row: Row) {
    let ratio = row.reference.map { String(format: "%.2f", row.ours / $0) } ?? "n/a"
    let reference = row.reference.map { String(format: "%.1f", $0) } ?? "-"
    print(columns(row.operation, String(format: "%.1f", row.ours), reference, ratio, row.referenceName))
    fflush(nil)
}

print("MatterCrypto vs OpenSSL \(run("/usr/bin/env", ["openssl", "version"])?.trimmingCharacters(in: .whitespacesAndNewlines) ?? "(openssl not found)"), \(seconds) s per figure")
print(columns("operation", "ours op/s", "ref op/s", "ratio", "reference"))

// SPAKE2+ prover round: a fresh prover, computeX, finish(Y) (no PBKDF2: w0/w1 are precomputed).
let salt = Array("SPAKE2P Key Salt".utf8)
let (w0, w1, L) = try PASEVerifier.derive(passcode: 20202021, salt: salt, iterations: 1000)
var verifier = try Spake2pVerifier(context: SHA256.hash([1, 2, 3]), w0: w0, L: L)
let Y = try verifier.computeY()
let spake = try opsPerSecond {
    var prover = try Spake2pProver(context: SHA256.hash([1, 2, 3]), w0: w0, w1: w1)
    _ = try prover.computeX()
    _ = try prover.finish(Y: Y)
}
let ecdh = trailingNumbers(in: run("/usr/bin/env", ["openssl", "speed", "-seconds", "\(Int(seconds))", "ecdhp256"]),
                           lineContaining: "ecdh (nistp256)").last
report(Row(operation: "SPAKE2+ prover round", ours: spake, reference: ecdh.map { $0 / 4 },
           referenceName: "openssl speed ecdhp256 / 4"))
// ECDH through our API calibrates the estimate above: same scalar multiplication, same reference.
let me = P256PrivateKey(), peer = P256PrivateKey().publicKey
let sharedSecret = try opsPerSecond { _ = try me.sharedSecret(with: peer) }
report(Row(operation: "ECDH P-256", ours: sharedSecret, reference: ecdh, referenceName: "openssl speed ecdhp256"))
// The SPAKE2+ building block: one variable-base multiplication on 65-byte points.
let point = try P256Point(x962: peer.x962Representation)
let scalar = try P256Scalar(reducing: SecureRandom.bytes(32))
let pointMul = try opsPerSecond { _ = try point.multiplied(by: scalar) }
report(Row(operation: "P-256 k·P (SPAKE2+ step)", ours: pointMul, reference: ecdh, referenceName: "openssl speed ecdhp256"))

// PBKDF2-HMAC-SHA256, 80-byte output as PASE uses.
for iterations in [1000, 10_000, 100_000] {
    let ours = try opsPerSecond {
        _ = try PBKDF2.deriveKey(password: [0x25, 0x42, 0x34, 0x01], salt: salt, iterations: iterations, outputByteCount: 80)
    }
    report(Row(operation: "PBKDF2 \(iterations) iter, 80 B", ours: ours, reference: pythonPBKDF2(iterations: iterations),
               referenceName: "python3 hashlib.pbkdf2_hmac (OpenSSL)"))
}

// ECDSA P-256 with SHA-256 over a 32-byte message.
let key = P256PrivateKey()
let message = SecureRandom.bytes(32)
let signature = try key.signature(for: message)
let sign = try opsPerSecond { _ = try key.signature(for: message) }
let verify = opsPerSecond { precondition(key.publicKey.isValidSignature(signature, for: message)) }
let ecdsa = trailingNumbers(in: run("/usr/bin/env", ["openssl", "speed", "-seconds", "\(Int(seconds))", "ecdsap256"]),
                            lineContaining: "ecdsa (nistp256)")
report(Row(operation: "ECDSA P-256 sign", ours: sign, reference: ecdsa.count >= 2 ? ecdsa[ecdsa.count - 2] : nil,
           referenceName: "openssl speed ecdsap256 sign/s"))
report(Row(operation: "ECDSA P-256 verify", ours: verify, reference: ecdsa.last,
           referenceName: "openssl speed ecdsap256 verify/s"))

// NOC issuance: build the tbsCertificate, sign it (one ECDSA signature), convert to Matter TLV
// and check the TLV -> DER round trip. The primitive underneath is one ECDSA sign, so the
// reference is openssl's sign rate: the ratio shows what the certificate work costs on top.
let authority = try FabricCertificateAuthority.create(fabricID: FabricID(1), rcacID: 1, validity: .noExpiry(from: MatterEpochTime(0)))
let deviceKey = P256PrivateKey().publicKey.x962Representation
var nextNode: UInt64 = 1
let issuance = try opsPerSecond {
    nextNode += 1
    _ = try authority.issueNOC(publicKey: deviceKey, nodeID: NodeID(nextNode), validity: .noExpiry(from: MatterEpochTime(0)))
}
report(Row(operation: "NOC issuance (DER+TLV)", ours: issuance, reference: ecdsa.count >= 2 ? ecdsa[ecdsa.count - 2] : nil,
           referenceName: "openssl speed ecdsap256 sign/s"))
