import Foundation
import MatterCertificates
import MatterCommissioning
import MatterCrypto
import MatterDiscovery
import MatterMessaging
import MatterSecureChannel
import MatterSetupPayload
import MatterVirtualDevice
import TestSupport
import MatterTLV

/// The whole commissioner, in process, against a strict virtual device on a `MemoryNetwork`
/// (as rs-matter's tests/commissioning.rs runs device and controller side by side):
/// no root, no lab, no sockets.
struct CommissioningHarness {
    static let passcode: UInt32 = 20_202_021
    static let discriminator: UInt16 = 3840
    let device: VirtualDevice
    let manager: ExchangeManager
    let commissioner: Commissioner
    let authority: FabricCertificateAuthority

    static func make(faults: Set<VirtualDeviceFault> = [], responseTimeout: Duration = .seconds(10),
                     network simulated: VirtualDeviceConfiguration.Network? = nil, stateDirectory: String? = nil,
                     configure: (inout CommissioningOptions) -> Void = { _ in }) async throws -> CommissioningHarness {
        let network = MemoryNetwork()
        let controllerEndpoint = network.makeEndpoint(), deviceEndpoint = network.makeEndpoint()
        let device = try await VirtualDevice(
            configuration: VirtualDeviceConfiguration(passcode: passcode, discriminator: discriminator, stateDirectory: stateDirectory,
                                                      faults: faults, advertises: false, network: simulated),
            transport: deviceEndpoint)
        await device.start()
        let manager = ExchangeManager(transport: controllerEndpoint)
        await manager.start()

        let authority = try FabricCertificateAuthority.create(fabricID: FabricID(0xFAB1), rcacID: 1, icacID: 2,
                                                              validity: .noExpiry(from: MatterEpochTime(0)))
        let key = P256PrivateKey()
        let noc = try authority.issueNOC(publicKey: key.publicKey.x962Representation, nodeID: NodeID(0x1_0000_0001),
                                         validity: .noExpiry(from: MatterEpochTime(0)))
        let epochKey = SecretBytes(Array(0xA0...0xAF))
        let controller = try FabricCredentials(fabricIndex: 1, rcac: authority.root.tlv, icac: authority.intermediate?.tlv,
                                               noc: noc.tlv, operationalKey: key, ipkEpochKey: epochKey)
        let identity = CommissionerIdentity(authority: authority, ipkEpochKey: epochKey, adminVendorID: 0xFFF1, controller: controller)
        var options = CommissioningOptions(trustStore: try paaStore(), allowTestDevices: true, discoveryTimeout: .seconds(5),
                                           operationalDiscoveryTimeout: .seconds(1))
        options.responseTimeout = responseTimeout
        configure(&options)
        // The device's address on the in-memory network is ::1 with its own port.
        let finder = DeviceFinder(discovery: MatterDiscovery(browser: FixedServiceBrowser(
            [FixedServiceBrowser.commissionable(discriminator: discriminator, port: deviceEndpoint.localPort)])))
        let commissioner = Commissioner(manager: manager, identity: identity, options: options, finder: finder)
        return CommissioningHarness(device: device, manager: manager, commissioner: commissioner, authority: authority)
    }

    static func paaStore() throws -> PAATrustStore {
        let url = TestVectors.directory.appendingPathComponent("attestation/test-attestation/Chip-Test-PAA-FFF1-Cert.der")
        return PAATrustStore(files: [("paa.der", [UInt8](try Data(contentsOf: url)))])
    }

    var payload: SetupPayload {
        SetupPayload(kind: .qrCode, vendorID: 0xFFF1, productID: 0x8000, commissioningFlow: .standard,
                     discoveryCapabilities: .onNetwork, discriminator: .long(Self.discriminator), passcode: Self.passcode)
    }

    func shutdown() async {
        await manager.shutdown()
        await device.shutdown()
    }
}
