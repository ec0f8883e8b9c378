import MatterCertificates
import MatterCrypto
import MatterInteraction
import MatterInteractionMessaging
import MatterMessaging
import MatterSecureChannel
import MatterTLV
@testable import MatterVirtualDevice
import Testing
import TestSupport

/// A fabric of our own, as a commissioner holds it.
struct TestFabric {
    let ca: FabricCertificateAuthority
    let epochKey = SecretBytes(Array(0xA0...0xAF))

    init(fabricID: UInt64 = 0xFAB1) throws {
        ca = try FabricCertificateAuthority.create(fabricID: FabricID(fabricID), rcacID: 1, icacID: 2,
                                                   validity: .noExpiry(from: MatterEpochTime(0)))
    }

    /// Credentials for one of the fabric's nodes (a controller).
    func node(_ nodeID: UInt64) throws -> FabricCredentials {
        let key = P256PrivateKey()
        let noc = try ca.issueNOC(publicKey: key.publicKey.x962Representation, nodeID: NodeID(nodeID),
                                  validity: .noExpiry(from: MatterEpochTime(0)))
        return try FabricCredentials(fabricIndex: 1, rcac: ca.root.tlv, icac: ca.intermediate?.tlv, noc: noc.tlv,
                                     operationalKey: key, ipkEpochKey: epochKey)
    }
}

/// A virtual device and a controller on an in-memory network.
struct DeviceHarness {
    static let passcode: UInt32 = 20_202_021
    let device: VirtualDevice
    let controller: ExchangeManager
    let address: PeerAddress

    /// A device and controller on `clock` (both); tests of timers pass a `ManualClock`.
    static func make(faults: Set<VirtualDeviceFault> = [], network: VirtualDeviceConfiguration.Network? = nil,
                     kind: VirtualDeviceConfiguration.Kind = .light, stateDirectory: String? = nil,
                     clock: any MatterClock = SystemClock()) async throws -> DeviceHarness {
        let net = MemoryNetwork()
        let a = net.makeEndpoint(), b = net.makeEndpoint()
        let config = VirtualDeviceConfiguration(passcode: passcode, discriminator: 3840, stateDirectory: stateDirectory, kind: kind,
                                                faults: faults, advertises: false, network: network)
        let device = try await VirtualDevice(configuration: config, transport: b, clock: clock)
        await device.start()
        let controller = ExchangeManager(transport: a, clock: clock)
        await controller.start()
        return DeviceHarness(device: device, controller: controller, address: b.address)
    }

    func shutdown() async {
        await controller.shutdown()
        await device.shutdown()
    }

    func pase(passcode: UInt32 = DeviceHarness.passcode) async throws -> SessionHandle {
        try await PASEInitiator.establish(manager: controller, peer: address, passcode: passcode, timeout: .seconds(10))
    }

    func client(_ session: SessionHandle) -> InteractionClient {
        let manager = controller
        return InteractionClient.over(manager, session: session, timeout: .seconds(10))
    }

    func caseSession(_ credentials: FabricCredentials, deviceNode: UInt64) async throws -> SessionHandle {
        try await CASEInitiator.establish(manager: controller, peer: address, fabric: credentials, peerNodeID: deviceNode,
                                          timeout: .seconds(10)).session
    }

    /// Steps of commissioning over PASE up to AddNOC (arms the fail-safe for `failSafe` seconds).
    @discardableResult
    func addNOC(over pase: InteractionClient, fabric: TestFabric, deviceNode: UInt64, admin: UInt64,
                failSafe: UInt16 = 60) async throws -> OC.NOCResponse {
        let armed = try await pase.invoke(GC.ArmFailSafe(expiryLengthSeconds: failSafe, breadcrumb: 1), endpoint: 0)
        #expect(armed.errorCode == .ok)
        let csrResponse = try await pase.invoke(OC.CSRRequest(csrNonce: SecureRandom.bytes(32)), endpoint: 0)
        let elements = try NOCSRElements(tlvEncoded: csrResponse.nocsrElements)
        let csr = try CertificateSigningRequest(verifying: elements.csr)
        _ = try await pase.invoke(OC.AddTrustedRootCertificate(rootCACertificate: fabric.ca.root.tlv), endpoint: 0)
        let noc = try fabric.ca.issueNOC(csr: csr, nodeID: NodeID(deviceNode), validity: .noExpiry(from: MatterEpochTime(0)))
        return try await pase.invoke(OC.AddNOC(nocValue: noc.tlv, icacValue: fabric.ca.intermediate?.tlv,
                                                ipkValue: fabric.epochKey.bytes, caseAdminSubject: admin, adminVendorID: 0xFFF1),
                                      endpoint: 0)
    }
}

/// Runs `body` while `clock` moves 100 ms forward every real millisecond, so the timeouts and
/// retransmissions of the code under test pass quickly.
@discardableResult
func fastForward<T>(_ clock: ManualClock, _ body: () async throws -> T) async rethrows -> T {
    let driver = Task {
        while !Task.isCancelled {
            clock.advance(by: .milliseconds(100))
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
    defer { driver.cancel() }
    return try await body()
}

