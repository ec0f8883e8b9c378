/// Everything that can go wrong while discovering or advertising Matter services.
public struct DiscoveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable code for each kind of failure.
    public enum Code: String, Sendable, Hashable {
        /// No D-Bus system bus, or no avahi-daemon on it.
        case daemonUnavailable
        /// The daemon refused or failed a browse.
        case browseFailed
        /// The daemon refused or failed an advert.
        case publishFailed
        /// A name, subtype or filter value outside what Matter allows.
        case invalidArgument
        /// An operational instance name that is not `<CFID hex16>-<NodeID hex16>`.
        case invalidInstanceName
    }

    public let code: Code
    /// A sentence for the user, saying what to do where possible.
    public let message: String
    /// The Avahi error code, when Avahi gave one.
    public let avahiError: Int32?

    public init(_ code: Code, _ message: String, avahiError: Int32? = nil) {
        self.code = code
        self.message = message
        self.avahiError = avahiError
    }

    public var description: String { message }

    /// The error for "cannot reach avahi-daemon", with the way to start it.
    static func daemonUnavailable(avahiError: Int32, reason: String) -> DiscoveryError {
        DiscoveryError(.daemonUnavailable, """
            cannot reach avahi-daemon over D-Bus (\(reason)). Matter discovery uses the system's \
            Avahi: start it with 'systemctl start avahi-daemon' (or 'service avahi-daemon start'; \
            it needs the D-Bus system bus: 'systemctl start dbus'), or point \
            DBUS_SYSTEM_BUS_ADDRESS at the bus where avahi-daemon runs.
            """, avahiError: avahiError)
    }
}
