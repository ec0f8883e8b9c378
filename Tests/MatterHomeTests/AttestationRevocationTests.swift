import Foundation
import MatterCertificates
import MatterCommissioning
import MatterCrypto
import MatterDiscovery
import MatterHome
import MatterVirtualDevice
import Testing
import TestSupport

/// Commissioning a virtual device that attests with a generated, production-like chain
/// (PAA -> PAI -> DAC, VID 0x1234): refused when its PAI's CRL lists the DAC, naming the CRL;
/// accepted with a warning when the CRL is only stale.
@Suite(.serialized) struct AttestationRevocationTests {
    typealias Builder = AttestationChainBuilder
    static let vid: UInt16 = 0x1234, pid: UInt16 = 0x0042

    struct Setup {
        let chain: (paa: Builder.Issued, pai: Builder.Issued, dac: Builder.Issued)
        let device: VirtualDevice
        let discriminator: UInt16
    }

    static func setup(discriminator: UInt16) async throws -> Setup {
        let chain = try Builder.chain(vid: vid, pid: pid)
        var configuration = VirtualDeviceConfiguration(passcode: 20_202_021, discriminator: discriminator, vendorID: vid,
                                                       productID: pid, port: 0, advertises: false)
        configuration.attestation = AttestationCredentials(dac: chain.dac.der, pai: chain.pai.der, dacKey: chain.dac.key)
        let device = try await VirtualDevice(configuration: configuration)
        await device.start()
        return Setup(chain: chain, device: device, discriminator: discriminator)
    }

    /// Commissions with the generated PAA trusted and `crls`; returns the one result.
    static func commission(_ s: Setup, crls: (PAATrustStore) throws -> [AttestationCRL]) async throws
        -> Result<CommissionedDevice, CommissioningError> {
        let port = await s.device.port
        let dir = NSTemporaryDirectory() + "matterhub-revocation-\(UInt32.random(in: 0...UInt32.max))"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let hub = try Hub(stateDirectory: dir, discovery: MatterDiscovery(browser: VendorLoopbackBrowser(discriminator: s.discriminator, port: port,
                                                                                         vendorID: vid, productID: pid)))
        let home = Home(hub: hub)
        let structure = try #require(try await home.structures().first)
        try await structure.prepareForMatterCommissioning()
        let trust = PAATrustStore(certificates: [try X509Certificate(derEncoded: s.chain.paa.der)])
        var options = CommissioningOptions(trustStore: trust, allowTestDevices: true)  // the CD uses the CSA test key
        options.crls = try crls(trust)
        let request = structure.matterCommissioningRequest(
            topology: CommissioningTopology(ecosystemName: "MatterHub tests", homes: [.init(id: structure.id, name: structure.name)]),
            onboardingPayload: s.device.qrCode, options: options)
        let results = try await request.perform()
        try? await structure.cancelMatterCommissioning()
        await home.close()
        return try #require(results.first)
    }

    static func crl(_ s: Setup, serials: [[UInt8]], nextUpdate: Int64, trust: PAATrustStore) throws -> AttestationCRL {
        let der = try CertificateRevocationList.issue(signedBy: s.chain.pai.key, issuerName: s.chain.pai.subject,
                                                      thisUpdate: nextUpdate - 30 * 86_400, nextUpdate: nextUpdate,
                                                      revokedSerialNumbers: serials, authorityKeyIdentifier: s.chain.pai.keyID)
        return try AttestationCRL(crlDER: der, signerCertificate: s.chain.pai.der, issuerSubjectKeyIdentifier: s.chain.pai.keyID,
                                  label: "Acme PAI CRL", url: "http://crl.acme.example/pai.crl", trustStore: trust)
    }

    @Test func aDACOnItsPAIsCRLIsRefusedNamingTheCRL() async throws {
        let s = try await Self.setup(discriminator: 301)
        defer { Task { await s.device.shutdown() } }
        let now = Int64(Date().timeIntervalSince1970)
        let result = try await Self.commission(s) { trust in [try Self.crl(s, serials: [[3]], nextUpdate: now + 86_400, trust: trust)] }
        guard case .failure(let error) = result else {
            Issue.record("a revoked DAC was commissioned")
            return
        }
        #expect(error.step == .deviceAttestation)
        #expect(error.reason.contains("revoked"), "\(error.reason)")
        #expect(error.reason.contains("'Acme PAI CRL' (http://crl.acme.example/pai.crl)"), "\(error.reason)")
    }

    @Test func aStaleCRLThatDoesNotListTheDACWarns() async throws {
        let s = try await Self.setup(discriminator: 302)
        defer { Task { await s.device.shutdown() } }
        let tenDaysAgo = Int64(Date().timeIntervalSince1970) - 10 * 86_400
        let result = try await Self.commission(s) { trust in [try Self.crl(s, serials: [[9]], nextUpdate: tenDaysAgo, trust: trust)] }
        let commissioned = try result.get()
        #expect(commissioned.warnings.contains { $0.contains("'Acme PAI CRL'") && $0.contains("days past its nextUpdate") },
                "\(commissioned.warnings)")
    }
}

/// LoopbackBrowser's answer with this device's vendor and product ID in its VP key.
struct VendorLoopbackBrowser: ServiceBrowsing {
    let discriminator: UInt16, port: UInt16, vendorID: UInt16, productID: UInt16

    func browse(type: String) -> AsyncThrowingStream<ServiceEvent, any Error> {
        let service = ServiceInstance(name: String(format: "%016X", UInt64(port)), type: "_matterc._udp", domain: "local",
                                      host: "loopback.local", port: port,
                                      addresses: [ServiceAddress(ip: "::1", family: .ipv6, interfaceIndex: 0, interfaceName: "lo")],
                                      txt: TXTRecord(["D": String(discriminator), "VP": "\(vendorID)+\(productID)", "CM": "1"]))
        return AsyncThrowingStream { c in
            if type.contains("_matterc") { c.yield(.found(service)) }
            c.yield(.allForNow)
        }
    }
}
