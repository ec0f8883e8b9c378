#if canImport(Glibc)
import Glibc
#endif
import MatterDiscovery
import MatterPlatform
import MatterTLV

/// Formats discovery results: a readable line per result, or one JSON object per line.
struct DiscoveryPrinter {
    enum Row: Sendable {
        case commissionable(DiscoveryEvent<CommissionableNode>)
        case operational(DiscoveryEvent<OperationalNode>)
        case commissioner(DiscoveryEvent<CommissionerNode>)
        case borderRouter(DiscoveryEvent<BorderRouter>)
    }

    let json: Bool
    let watch: Bool

    /// Watch mode: prints one event as it happens.
    func print(_ row: Row) {
        let d = describe(row)
        Output.out(json ? jsonLine(d, event: d.event) : d.event.padding(to: 8) + tableCells(d).joined(separator: "  "))
        fflush(nil)
    }

    /// One-shot mode: prints the final state of everything found, as a table or JSON lines.
    func printAll(_ rows: [Row]) {
        let described = rows.map(describe)
        if json {
            for d in described { Output.out(jsonLine(d, event: nil)) }
            return
        }
        guard !described.isEmpty else { return }
        let header = ["TYPE", "INSTANCE", "HOST:PORT", "ADDRESSES", "DETAILS"]
        let cells = described.map(tableCells)
        var widths = header.map(\.count)
        for row in cells { for (i, c) in row.enumerated() where i < widths.count - 1 { widths[i] = max(widths[i], c.count) } }
        func line(_ row: [String]) -> String {
            row.enumerated().map { i, c in i < row.count - 1 ? c.padding(to: widths[i] + 1) : c }.joined(separator: " ")
        }
        Output.out(line(header))
        for row in cells { Output.out(line(row)) }
    }

    /// The key a row is tracked by in one-shot mode.
    static func key(_ row: Row) -> String {
        switch row {
        case .commissionable(let e): "c/" + e.node.service.name
        case .operational(let e): "o/" + e.node.service.name
        case .commissioner(let e): "d/" + e.node.service.name
        case .borderRouter(let e): "b/" + e.node.service.name
        }
    }

    static func isRemoval(_ row: Row) -> Bool {
        switch row {
        case .commissionable(.removed), .operational(.removed), .commissioner(.removed), .borderRouter(.removed): true
        default: false
        }
    }

    private struct Described {
        let event: String
        let service: ServiceInstance
        let type: String
        let fields: [(String, JSON)]
        let issues: [TXTIssue]
    }

    private func tableCells(_ d: Described) -> [String] {
        var details = d.fields.map { "\($0.0)=\($0.1.plain)" }.joined(separator: " ")
        if !d.issues.isEmpty { details += "  (malformed TXT: " + d.issues.map(\.description).joined(separator: "; ") + ")" }
        return [d.type, d.service.name, "\(d.service.host):\(d.service.port)",
                d.service.addresses.map(\.description).joined(separator: ","), details]
    }

    private func jsonLine(_ d: Described, event: String?) -> String {
        let service = d.service
        var object: [(String, JSON)] = [("type", .string(d.type))]
        if let event { object.append(("event", .string(event))) }
        object.append(("instance", .string(service.name)))
        object.append(("host", .string(service.host)))
        object.append(("port", .int(Int64(service.port))))
        object.append(("addresses", .array(service.addresses.map { a in
            .object([("ip", .string(a.ip)),
                     ("interface", a.interfaceName.map(JSON.string) ?? .null),
                     ("interfaceIndex", .int(Int64(a.interfaceIndex)))])
        })))
        object.append(contentsOf: d.fields)
        object.append(("ttl", service.ttl.map { .int(Int64($0)) } ?? .null))
        object.append(("txt", .object(service.txt.entries.map { e in (e.key, Self.txtValue(e)) })))
        if !d.issues.isEmpty { object.append(("issues", .array(d.issues.map { .string($0.description) }))) }
        return JSON.object(object).text
    }

    private func describe(_ row: Row) -> Described {
        let (event, service, type, fields, issues) = describeParts(row)
        return Described(event: event, service: service, type: type, fields: fields, issues: issues)
    }

    private func describeParts(_ row: Row) -> (String, ServiceInstance, String, [(String, JSON)], [TXTIssue]) {
        switch row {
        case .commissionable(let e):
            let n = e.node
            return (Self.name(e), n.service, "commissionable", Self.matterFields(n.txt), n.txt.issues)
        case .operational(let e):
            let n = e.node
            var f: [(String, JSON)] = []
            if let name = n.name {
                f.append(("compressedFabricId", .string(String(printf: "%016llX", name.compressedFabricID))))
                f.append(("nodeId", .string(String(printf: "%016llX", name.nodeID))))
            }
            return (Self.name(e), n.service, "operational", f + Self.matterFields(n.txt), n.txt.issues)
        case .commissioner(let e):
            let n = e.node
            return (Self.name(e), n.service, "commissioner", Self.matterFields(n.txt), n.txt.issues)
        case .borderRouter(let e):
            let t = e.node.txt
            var f: [(String, JSON)] = []
            if let v = t.networkName { f.append(("networkName", .string(v))) }
            if let v = t.extendedPANID { f.append(("extendedPanId", .string(Self.hex(v)))) }
            if let v = t.threadVersion { f.append(("threadVersion", .string(v))) }
            if let v = t.vendorName { f.append(("vendorName", .string(v))) }
            if let v = t.modelName { f.append(("modelName", .string(v))) }
            if let v = t.domainName { f.append(("domainName", .string(v))) }
            if let v = t.borderAgentID { f.append(("borderAgentId", .string(Self.hex(v)))) }
            if let sb = t.stateBitmap {
                f.append(("stateBitmap", .object([
                    ("raw", .int(Int64(sb.rawValue))), ("connectionMode", .int(Int64(sb.connectionMode))),
                    ("threadInterfaceStatus", .int(Int64(sb.threadInterfaceStatus))),
                    ("availability", .int(Int64(sb.availability))),
                    ("backboneRouterActive", .bool(sb.isBackboneRouterActive)),
                    ("backboneRouterPrimary", .bool(sb.isBackboneRouterPrimary)),
                    ("threadRole", .int(Int64(sb.threadRole))), ("epskcSupported", .bool(sb.isEPSKcSupported)),
                ])))
            }
            return (Self.name(e), e.node.service, "border-router", f, t.issues)
        }
    }

    private static func name<N>(_ e: DiscoveryEvent<N>) -> String {
        switch e {
        case .found: "found"
        case .updated: "updated"
        case .removed: "removed"
        }
    }

    private static func matterFields(_ t: MatterTXT) -> [(String, JSON)] {
        var f: [(String, JSON)] = []
        func add<T: FixedWidthInteger>(_ k: String, _ v: T?) { if let v { f.append((k, .int(Int64(v)))) } }
        add("discriminator", t.discriminator)
        add("vendorId", t.vendorID)
        add("productId", t.productID)
        add("commissioningMode", t.commissioningMode)
        add("deviceType", t.deviceType)
        if let v = t.deviceName { f.append(("deviceName", .string(v))) }
        if let v = t.rotatingID { f.append(("rotatingId", .string(hex(v)))) }
        add("pairingHint", t.pairingHint)
        if let v = t.pairingInstruction { f.append(("pairingInstruction", .string(v))) }
        add("sessionIdleInterval", t.sessionIdleInterval)
        add("sessionActiveInterval", t.sessionActiveInterval)
        add("sessionActiveThreshold", t.sessionActiveThreshold)
        add("tcp", t.tcpSupport)
        add("icd", t.icdOperatingMode)
        add("jointFabric", t.jointFabric)
        return f
    }

    /// A TXT value: text when it is printable UTF-8, `hex:...` otherwise, `true` without a value.
    private static func txtValue(_ e: TXTRecord.Entry) -> JSON {
        guard let v = e.value else { return .bool(true) }
        if let s = String(validating: v, as: UTF8.self), !s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return .string(s)
        }
        return .string("hex:" + hex(v))
    }

    private static func hex(_ b: [UInt8]) -> String { Base16.encode(b) }
}

extension JSON {
    /// The value as it reads in the table.
    var plain: String {
        if case .string(let s) = self { return s }
        return text
    }
}
