import MatterCrypto

/// What a virtual device is: its identity, its setup code and how it misbehaves on purpose.
public struct VirtualDeviceConfiguration: Sendable {
    /// What endpoint 1 is.
    public enum Kind: String, Sendable, CaseIterable {
        /// A Dimmable Light (device type 0x0101): On/Off and Level Control on endpoint 1.
        case light
        /// An On/Off Plug-in Unit (device type 0x010A).
        case plug
        /// A bridge: an Aggregator (0x000E) on endpoint 1 and `bridgedLights` bridged On/Off
        /// lights (0x0100 with Bridged Node, BridgedDeviceBasicInformation) from endpoint 2.
        case bridge
        /// A Thermostat (0x0301) with Heating, Cooling and Presets, whose Presets are written
        /// atomically (AtomicRequest).
        case thermostat

        var deviceType: UInt32 {
            switch self {
            case .light: 0x0101
            case .plug: 0x010A
            case .bridge: 0x000E
            case .thermostat: 0x0301
            }
        }

        var productName: String {
            switch self {
            case .light: "MatterHub Virtual Light"
            case .plug: "MatterHub Virtual Plug"
            case .bridge: "MatterHub Virtual Bridge"
            case .thermostat: "MatterHub Virtual Thermostat"
            }
        }
    }

    /// The interface the device's NetworkCommissioning cluster manages.
    public enum Network: String, Sendable, CaseIterable {
        /// A simulated Wi-Fi interface: off the operational network until ConnectNetwork.
        case wifi
        /// A simulated Thread interface: off the operational network until ConnectNetwork.
        case thread
    }

    /// The setup passcode. Used once at start to compute the PASE verifier; never stored.
    public var passcode: UInt32
    /// The 12-bit long discriminator.
    public var discriminator: UInt16
    public var vendorID: UInt16
    public var productID: UInt16
    /// UDP port (5540 by default; 0 picks a free one).
    public var port: UInt16
    /// Folder of the persistent state (nil: nothing survives a restart).
    public var stateDirectory: String?
    public var kind: Kind
    /// Deliberate faults, for testing commissioners.
    public var faults: Set<VirtualDeviceFault>
    /// PBKDF2 iterations of the verifier (Matter allows 1000...100000).
    public var pbkdfIterations: Int
    /// Whether to publish DNS-SD adverts through avahi (off for in-process tests).
    public var advertises: Bool
    /// Opens the UDP socket inside this network namespace (e.g. /run/netns/NAME), if set.
    public var netnsPath: String?
    /// A DAC/PAI chain to attest with instead of the SDK's development DAC (e.g. a generated,
    /// production-like chain); the CD is still signed with the CSA test key.
    public var attestation: AttestationCredentials?
    /// A simulated Wi-Fi or Thread interface (nil: Ethernet, on the network from the start).
    /// Until ConnectNetwork the device is reachable only over its PASE session, as a real one
    /// is over its soft-AP or BLE: CASE does not answer and `_matter._tcp` is not published.
    public var network: Network?
    /// What the simulated radio reports in Thread or Wi-Fi Network Diagnostics (nil: the
    /// defaults for the discriminator, with no Thread neighbours).
    public var radioDiagnostics: RadioDiagnostics?
    /// The software version it runs (nil: 1, without OTA); set, the device is an OTA Software
    /// Update Requestor: told of a provider (AnnounceOTAProvider), it queries it, downloads the
    /// image over BDX, checks it, "reboots" into the new version and says so.
    public var softwareVersion: UInt32?
    /// With `softwareVersion`: every this many seconds, ask the provider in DefaultOTAProviders
    /// (nil: only when an AnnounceOTAProvider says so).
    public var otaQueryInterval: UInt32?
    /// With `softwareVersion`: a download takes at least this long, as over a slow radio (so that
    /// a client sees its progress even for a small image); nil, as fast as the network goes.
    public var otaMinimumDownload: Duration?
    /// An intermittently connected device (ICD Management on the root node): nil, an always-on one.
    public var icd: ICDConfiguration?
    /// A bridge's bridged lights (`--kind bridge --endpoints N`), at most ``maxBridgedLights``.
    public var bridgedLights = 0
    public static let maxBridgedLights = 1000
    /// The most commands one InvokeRequest may carry (BasicInformation.MaxPathsPerInvoke; the
    /// SDK's default is 1, devices built for batching say more).
    public var maxPathsPerInvoke: UInt16 = 1

    public init(passcode: UInt32 = 20_202_021, discriminator: UInt16 = 3840, vendorID: UInt16 = 0xFFF1,
                productID: UInt16 = 0x8000, port: UInt16 = 5540, stateDirectory: String? = nil, kind: Kind = .light,
                faults: Set<VirtualDeviceFault> = [], pbkdfIterations: Int = 1000, advertises: Bool = true,
                netnsPath: String? = nil, network: Network? = nil) {
        self.passcode = passcode
        self.discriminator = discriminator
        self.vendorID = vendorID
        self.productID = productID
        self.port = port
        self.stateDirectory = stateDirectory
        self.kind = kind
        self.faults = faults
        self.pbkdfIterations = pbkdfIterations
        self.advertises = advertises
        self.netnsPath = netnsPath
        self.network = network
    }
}

/// The DAC, its PAI and the DAC's private key a virtual device attests with.
public struct AttestationCredentials: Sendable {
    public var dac: [UInt8]
    public var pai: [UInt8]
    public var dacKey: P256PrivateKey

    public init(dac: [UInt8], pai: [UInt8], dacKey: P256PrivateKey) {
        self.dac = dac
        self.pai = pai
        self.dacKey = dacKey
    }
}

/// Misbehaviour a virtual device can be told to show, so commissioners can prove they notice.
public enum VirtualDeviceFault: String, Sendable, CaseIterable {
    /// The attestation signature covers the wrong bytes.
    case invalidAttestation = "invalid-attestation"
    /// The certification declaration names another vendor.
    case cdVendorMismatch = "cd-vendor-mismatch"
    /// Interaction Model requests get no response.
    case dropResponses = "drop-responses"
    /// Every Interaction Model response is delayed by two seconds.
    case slowResponses = "slow-responses"
    /// Interaction Model requests are answered by ending the secure session (CloseSession), as a
    /// device does that is reset or whose commissioning window closes mid-way.
    case closeSession = "close-session"
    /// The CASE responder signs the wrong bytes in Sigma2.
    case badSigma2Signature = "bad-sigma2-signature"
    /// The process exits (status 3) after AddNOC, when the commissioner first opens CASE to the
    /// new identity (before CommissioningComplete): the staged fabric is never committed.
    case rebootMidCommissioning = "reboot-mid-commissioning"
    /// With `network`: ConnectNetwork fails with AuthFailure (the credentials are wrong).
    case wrongNetworkCredentials = "wrong-network-credentials"
    /// With `network`: scans see nothing and ConnectNetwork fails with NetworkNotFound.
    case networkNotFound = "network-not-found"
    /// Subscriptions die silently: the device accepts them and sends the priming report, then
    /// forgets each one when its first report is due (no report, no keep-alive, no error), while
    /// it keeps answering reads, writes and commands. The subscriber must notice on its own.
    case silentSubscriptions = "silent-subscriptions"
    /// With `softwareVersion`, the first update only (a retry succeeds): the downloaded image is
    /// refused (as one whose digest or header is wrong): back to Idle, no ApplyUpdateRequest.
    case otaRefuseImage = "ota-refuse-image"
    /// The first update only: the download stops half-way without a word (no BlockQuery, no
    /// StatusReport), as a device that lost its link; it is back to Idle 5 s later.
    case otaAbandonTransfer = "ota-abandon-transfer"
    /// The first update only: the image is downloaded and ApplyUpdateRequest answered Proceed,
    /// but the device never restarts into it; back to Idle, on the old version.
    case otaNeverApply = "ota-never-apply"

    /// The faults that act on a firmware update.
    static let otaFaults: [VirtualDeviceFault] = [.otaRefuseImage, .otaAbandonTransfer, .otaNeverApply]
}

/// A sleepy device's ICD Management cluster (Matter Core 9.16) and schedule.
public struct ICDConfiguration: Sendable, Hashable {
    public enum Mode: String, Sendable, CaseIterable {
        /// Short idle time: Check-In Protocol support, always reachable (a slow poll).
        case sit
        /// Long idle time: once a client registers, it sleeps IdleModeDuration between wakes
        /// (answering nothing), sends each registered client a Check-In when it wakes, and stays
        /// awake ActiveModeDuration (extended by ActiveModeThreshold on each message).
        case lit
    }
    public var mode: Mode
    /// IdleModeDuration, seconds.
    public var idleSeconds: UInt32
    /// ActiveModeDuration, milliseconds.
    public var activeMilliseconds: UInt32
    /// ActiveModeThreshold, milliseconds (a LIT device's is at least 5000, Matter Core 9.16.5).
    public var thresholdMilliseconds: UInt16

    public init(mode: Mode, idleSeconds: UInt32 = 30, activeMilliseconds: UInt32 = 3000, thresholdMilliseconds: UInt16? = nil) {
        self.mode = mode
        self.idleSeconds = idleSeconds
        self.activeMilliseconds = activeMilliseconds
        self.thresholdMilliseconds = thresholdMilliseconds ?? (mode == .lit ? 5000 : 300)
    }
}
