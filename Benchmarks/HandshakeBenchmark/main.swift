import Foundation
import MatterCertificates
import MatterCrypto
import MatterMessaging
import MatterSecureChannel
import MatterTLV

/// PASE and CASE handshakes over real UDP on loopback ([::1]), both sides in this process:
/// wall time per handshake (median, p90) and CPU time per handshake (both sides together).
/// Run: swift run -c release handshake-bench [count]

let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 50

func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func report(_ name: String, _ times: [Double], cpu: Double) {
    let sorted = times.sorted()
    let median = sorted[sorted.count / 2] * 1000
    let p90 = sorted[Int(Double(sorted.count) * 0.9)] * 1000
    let label = name.padding(toLength: 34, withPad: " ", startingAt: 0)
    print("\(label) median \(String(format: "%7.2f", median)) ms   p90 \(String(format: "%7.2f", p90)) ms   "
          + "CPU \(String(format: "%6.2f", cpu / Double(times.count) * 1000)) ms/handshake (n=\(times.count))")
}

let loopback = PeerAddress("::1", port: 0)!
let deviceTransport = try UDPTransport(port: 0)
let controllerTransport = try UDPTransport(port: 0)
let device = ExchangeManager(transport: deviceTransport)
let controller = ExchangeManager(transport: controllerTransport)
var deviceAddress = loopback
deviceAddress.port = deviceTransport.localPort

// The device side: a PASE responder (1000 PBKDF iterations, as CircuitMatter and most devices
// with a factory verifier) and a CASE responder for a fabric from our CA.
let salt = SecureRandom.bytes(32)
let passcode: UInt32 = 20_202_021
let paseResponder = await PASEResponder(
    manager: device,
    configuration: .init(verifier: try PASEVerifier(passcode: passcode, salt: salt, iterations: 1000), salt: salt, iterations: 1000),
    onOutcome: { _ in })
let ca = try FabricCertificateAuthority.create(fabricID: FabricID(1), rcacID: 1, validity: .noExpiry(from: MatterEpochTime(0)))
let epoch = SecretBytes(SecureRandom.bytes(16))
func credentials(_ node: UInt64) throws -> FabricCredentials {
    let key = P256PrivateKey()
    let noc = try ca.issueNOC(publicKey: key.publicKey.x962Representation, nodeID: NodeID(node), validity: .noExpiry(from: MatterEpochTime(0)))
    return try FabricCredentials(fabricIndex: 1, rcac: ca.root.tlv, icac: nil, noc: noc.tlv, operationalKey: key, ipkEpochKey: epoch)
}
let caseResponder = CASEResponder(manager: device, fabrics: [try credentials(0x22)])
let admin = try credentials(0x11)
await device.setHandler(for: .secureChannel) { e, m in
    if m.opcode == SecureChannelOpcode.sigma1.rawValue {
        await caseResponder.handle(e, first: m)
    } else {
        await paseResponder.handle(e, first: m)
    }
}
await device.start()
await controller.start()

print("Handshakes over UDP loopback, both sides in one process (\(count) each, after 3 warm-up runs)")
for _ in 0..<3 {
    _ = try await PASEInitiator.establish(manager: controller, peer: deviceAddress, passcode: passcode)
    _ = try await CASEInitiator.establish(manager: controller, peer: deviceAddress, fabric: admin, peerNodeID: 0x22)
}

var times: [Double] = []
var cpu0 = cpuSeconds()
for _ in 0..<count {
    let t0 = Date()
    let s = try await PASEInitiator.establish(manager: controller, peer: deviceAddress, passcode: passcode)
    times.append(Date().timeIntervalSince(t0))
    await controller.removeSession(s)
}
report("PASE (SPAKE2+, 1000 iterations)", times, cpu: cpuSeconds() - cpu0)

times = []
cpu0 = cpuSeconds()
var record: CASEResumptionRecord?
for _ in 0..<count {
    let t0 = Date()
    let r = try await CASEInitiator.establish(manager: controller, peer: deviceAddress, fabric: admin, peerNodeID: 0x22)
    times.append(Date().timeIntervalSince(t0))
    record = r.resumption
    await controller.removeSession(r.session)
}
report("CASE (full Sigma1-3)", times, cpu: cpuSeconds() - cpu0)

times = []
cpu0 = cpuSeconds()
for _ in 0..<count {
    let t0 = Date()
    let r = try await CASEInitiator.establish(manager: controller, peer: deviceAddress, fabric: admin, peerNodeID: 0x22,
                                              resumption: record)
    times.append(Date().timeIntervalSince(t0))
    precondition(r.resumed, "resumption was not accepted")
    record = r.resumption
    await controller.removeSession(r.session)
}
report("CASE resumption (Sigma2_Resume)", times, cpu: cpuSeconds() - cpu0)
await controller.shutdown()
await device.shutdown()
