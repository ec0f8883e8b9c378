/// The names of the state bitmap's fields, as OpenThread's border agent (ot-br-posix
/// `border_agent.cpp`) and the Thread 1.3 specification define them.
extension MeshcopStateBitmap {
    /// `disabled` (no DTLS), `pskc`, `pskd`, `vendor`, `x509`, or `reserved(N)`.
    public var connectionModeName: String {
        switch connectionMode {
        case 0: "disabled"
        case 1: "pskc"
        case 2: "pskd"
        case 3: "vendor"
        case 4: "x509"
        default: "reserved(\(connectionMode))"
        }
    }

    /// `not-initialized`, `initialized` (but not active), `active`, or `reserved(3)`.
    public var threadInterfaceStatusName: String {
        switch threadInterfaceStatus {
        case 0: "not-initialized"
        case 1: "initialized"
        case 2: "active"
        default: "reserved(\(threadInterfaceStatus))"
        }
    }

    /// `infrequent`, `high`, or `reserved(N)`.
    public var availabilityName: String {
        switch availability {
        case 0: "infrequent"
        case 1: "high"
        default: "reserved(\(availability))"
        }
    }

    /// `disabled` (or detached), `child`, `router`, `leader`.
    public var threadRoleName: String {
        switch threadRole {
        case 0: "disabled"
        case 1: "child"
        case 2: "router"
        default: "leader"
        }
    }
}
