import FoundationEssentials
import MatterCertificates
import MatterTLV
import MatterPlatform

/// The database identifier of a structure (a home).
public struct StructureID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }
}

/// The database identifier of a room.
public struct RoomID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }
}

/// A stored structure (a home that contains rooms).
public struct StructureRecord: Hashable, Sendable {
    public let id: StructureID
    public var name: String
    public let createdAt: Date
}

/// A stored room.
public struct RoomRecord: Hashable, Sendable {
    public let id: RoomID
    public let structureID: StructureID
    public var name: String
    public let createdAt: Date
}

/// A last known network address of a node.
public struct NodeAddress: Hashable, Sendable {
    /// An IPv4 or IPv6 literal (an `fe80::` address should carry `interfaceIndex`).
    public var host: String
    public var port: UInt16
    public var interfaceIndex: UInt32?
    /// When the hub last reached the node there (nil: not known, as for imported addresses).
    public var reachedAt: Date?

    public init(host: String, port: UInt16, interfaceIndex: UInt32? = nil, reachedAt: Date? = nil) {
        self.host = host
        self.port = port
        self.interfaceIndex = interfaceIndex
        self.reachedAt = reachedAt
    }

    /// The same place to send to, whenever it was reached.
    public func isSameEndpoint(as other: NodeAddress) -> Bool {
        host == other.host && port == other.port && interfaceIndex == other.interfaceIndex
    }
}

/// A commissioned device as stored.
public struct NodeRecord: Hashable, Sendable {
    public let nodeID: NodeID
    public var vendorID: UInt16
    public var productID: UInt16
    public var name: String
    public var roomID: RoomID?
    /// Last known addresses, most preferred first.
    public var addresses: [NodeAddress]
    public let commissionedAt: Date
    /// The serial number of the NOC the hub issued to the device.
    public let nocSerial: [UInt8]
    /// The commissioning session that added the node (nil once that session row is gone).
    public let sessionID: Int64?
}

/// What `recordCommissionedNode` stores about a device that just joined the fabric.
public struct CommissionedNode: Hashable, Sendable {
    public var nodeID: NodeID
    public var vendorID: UInt16
    public var productID: UInt16
    public var name: String
    public var roomID: RoomID?
    public var addresses: [NodeAddress]
    public var nocSerial: [UInt8]

    public init(nodeID: NodeID, vendorID: UInt16, productID: UInt16, name: String, roomID: RoomID? = nil,
                addresses: [NodeAddress] = [], nocSerial: [UInt8]) {
        self.nodeID = nodeID
        self.vendorID = vendorID
        self.productID = productID
        self.name = name
        self.roomID = roomID
        self.addresses = addresses
        self.nocSerial = nocSerial
    }
}

/// The life cycle of a commissioning session.
public enum CommissioningSessionState: String, Hashable, Sendable, CaseIterable {
    case preparing, performing, completed, cancelled

    /// Preparing or performing: the session holds the commissioning lock.
    public var isActive: Bool { self == .preparing || self == .performing }
}

/// A stored commissioning session.
public struct CommissioningSessionRecord: Hashable, Sendable {
    public let id: Int64
    public let structureID: StructureID
    public let ownerPID: Int32
    public let startedAt: Date
    public let state: CommissioningSessionState
    public let endedAt: Date?
    /// The node IDs this session commissioned, in ascending order.
    public let commissionedNodeIDs: [NodeID]
}

// MARK: - Column conversions

extension SQLiteValue {
    static func id(_ v: UInt64) -> SQLiteValue { .integer(Int64(bitPattern: v)) }
    static func date(_ d: Date) -> SQLiteValue { .integer(Int64(d.timeIntervalSince1970.rounded(.down))) }
}

extension SQLiteStatement {
    func uint64(_ column: Int32) -> UInt64 { UInt64(bitPattern: int64(column)) }
    func date(_ column: Int32) -> Date { Date(timeIntervalSince1970: TimeInterval(int64(column))) }
    func uint16(_ column: Int32) -> UInt16 { UInt16(truncatingIfNeeded: int64(column)) }
}

/// Names of rooms and structures: trimmed, 1...128 characters; compared by a case-folded key.
enum StoreNames {
    static func validated(_ name: String, kind: String) throws(StoreError) -> (name: String, key: String) {
        let trimmed = name.trimmingWhitespaceAndNewlines()
        guard !trimmed.isEmpty, trimmed.count <= 128, !trimmed.contains(where: { $0.isNewline }) else {
            throw .invalidName(kind: kind, name: String(name.prefix(64)))
        }
        // NFC (what Foundation's precomposedStringWithCanonicalMapping gives), from the standard library.
        let normalised = String(decoding: trimmed._nfcCodeUnits, as: UTF8.self)
        return (normalised, caseFolded(normalised))
    }

    /// Unicode full case folding without Foundation's tables: each scalar lowercased, uppercased and
    /// lowercased again (ß, ẞ -> ss; ς -> σ; µ -> μ; ﬀ -> ff), dotless ı kept as itself. It equals
    /// Foundation's `folding(options: .caseInsensitive, locale: nil)` (the key of earlier stores)
    /// for every scalar up to U+2FFFF except 64 that Unicode 9-16 added or re-folded.
    static func caseFolded(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\u{131}" {
                out.append(scalar)
            } else {
                out.append(contentsOf: String(scalar).lowercased().uppercased().lowercased().unicodeScalars)
            }
        }
        return String(out)
    }
}
