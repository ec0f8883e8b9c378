/// One finding of `NetworkDoctor`: a check's verdict, what it means and what to do.
public struct DoctorFinding: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable, Comparable {
        case ok, warn, fail
        public static func < (a: Status, b: Status) -> Bool { a.rank < b.rank }
        private var rank: Int { self == .ok ? 0 : self == .warn ? 1 : 2 }
    }

    /// A stable name: `avahi`, `ipv6`, `multicast`, `firewall`, `mdns-responders`,
    /// `default-route`, `thread`, `clock`.
    public let check: String
    public let status: Status
    /// What was found.
    public let summary: String
    /// What it means for commissioning and control (empty when ok).
    public let meaning: String
    /// What to do about it (empty when ok).
    public let action: String

    public init(_ check: String, _ status: Status, _ summary: String, meaning: String = "", action: String = "") {
        self.check = check
        self.status = status
        self.summary = summary
        self.meaning = meaning
        self.action = action
    }
}
