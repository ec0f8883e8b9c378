import MatterCertificates
import MatterCrypto
import MatterNetworkCredentials
import MatterSecureChannel

/// What the commissioner brings to a commissioning: its fabric's CA (to issue NOCs), the IPK
/// epoch key it installs on devices, its admin vendor ID, and its own operational credentials
/// (for the CASE session with each new node).
public struct CommissionerIdentity: Sendable {
    public var authority: FabricCertificateAuthority
    public var ipkEpochKey: SecretBytes
    public var adminVendorID: UInt16
    public var controller: FabricCredentials

    public init(authority: FabricCertificateAuthority, ipkEpochKey: SecretBytes, adminVendorID: UInt16,
                controller: FabricCredentials) {
        self.authority = authority
        self.ipkEpochKey = ipkEpochKey
        self.adminVendorID = adminVendorID
        self.controller = controller
    }

    /// The subject the device's Administer ACL entry names: the controller's node ID.
    public var caseAdminSubject: UInt64 { controller.nodeID }
    public var fabricID: FabricID { controller.identity.fabricID }

    /// The compressed fabric ID (operational discovery, `_I<CFID>`).
    public func compressedFabricID() throws -> CompressedFabricID {
        try CompressedFabricID(rootPublicKey: controller.rootPublicKey, fabricID: fabricID)
    }
}

/// How strictly and how patiently to commission.
public struct CommissioningOptions: Sendable {
    /// PAAs to trust (chip-tool's --paa-trust-store-path).
    public var trustStore: PAATrustStore
    /// Accept devices attested with test/development credentials (never by default).
    public var allowTestDevices: Bool
    public var revocationSet: RevocationSet?
    /// CRLs of PAAs and PAIs (the trust store's, from the DCL).
    public var crls: [AttestationCRL] = []
    public var discoveryTimeout: Duration
    public var operationalDiscoveryTimeout: Duration
    public var failSafeSeconds: UInt16
    /// How long each Interaction Model request of the flow waits for the device's answer.
    public var responseTimeout: Duration = .seconds(30)
    /// ISO 3166 country code for SetRegulatoryConfig ("XX": unknown).
    public var countryCode: String
    /// Unix seconds now (injected for tests).
    public var clock: @Sendable () -> Int64
    /// The Wi-Fi network a Wi-Fi device that is not on the operational network yet joins
    /// (Matter Core 5.5 steps 16-17; chip-tool's `pairing code-wifi`).
    public var wifiCredentials: WiFiCredentials?
    /// The Thread network (its active operational dataset) a Thread device joins.
    public var threadDataset: ThreadDataset?
    /// Whether the hub fills in the credentials it stores (its Wi-Fi credentials, its preferred
    /// Thread dataset) where the two above are nil. Off when the caller chose a network.
    public var usesStoredNetworkCredentials = true
    /// Whether to run ScanNetworks before handing over the credentials (directed at the SSID
    /// for Wi-Fi), so a network out of range is named before the device tries to join it.
    public var scanNetworks = false

    public init(trustStore: PAATrustStore, allowTestDevices: Bool = false, revocationSet: RevocationSet? = nil,
                discoveryTimeout: Duration = .seconds(15), operationalDiscoveryTimeout: Duration = .seconds(15),
                failSafeSeconds: UInt16 = 60, countryCode: String = "XX",
                clock: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }) {
        self.trustStore = trustStore
        self.allowTestDevices = allowTestDevices
        self.revocationSet = revocationSet
        self.discoveryTimeout = discoveryTimeout
        self.operationalDiscoveryTimeout = operationalDiscoveryTimeout
        self.failSafeSeconds = failSafeSeconds
        self.countryCode = countryCode
        self.clock = clock
    }
}

#if canImport(Glibc)
import Glibc
import MatterTLV
#endif
