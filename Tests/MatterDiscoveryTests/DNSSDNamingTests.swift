import Testing
import TestSupport
@testable import MatterDiscovery

/// DNS-SD naming against the SDK's TestServiceNaming vectors.
@Suite struct DNSSDNamingTests {
    static let vectors = TestVectors.vectors("dnssd_naming.json")

    @Test(arguments: vectors)
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        switch v.string("kind") {
        case "make_host_name":
            let mac = try #require(v.hex("mac") ?? v.hex("eui64") ?? v.hex("input"))
            #expect(OperationalInstanceName.hostName(macOrEUI64: mac) == (v.string("host_name") ?? v.string("expected")))
        case "make_operational_instance_name":
            let cfid = try #require(Self.id(v, "compressed_fabric_id"))
            let node = try #require(Self.id(v, "node_id"))
            #expect(OperationalInstanceName(compressedFabricID: cfid, nodeID: node).description == v.string("instance_name"))
        case "parse_operational_instance_name":
            let input = try #require(v.string("input") ?? v.string("instance_name"))
            if v.valid {
                let parsed = try OperationalInstanceName(parsing: input)
                if let cfid = Self.id(v, "compressed_fabric_id") { #expect(parsed.compressedFabricID == cfid) }
                if let node = Self.id(v, "node_id") { #expect(parsed.nodeID == node) }
            } else {
                #expect(throws: DiscoveryError.self) { try OperationalInstanceName(parsing: input) }
            }
        case "make_subtype":
            let filter = try Self.filter(v)
            if v.valid {
                #expect(try filter.subtype() == v.string("subtype"))
            } else {
                #expect(throws: DiscoveryError.self) { try filter.subtype() }
            }
        case "make_service_type_name":
            let filter = try Self.filter(v)
            let type = try #require(Self.discoveryType(v.string("discovery_type")))
            if v.valid {
                #expect(try filter.serviceTypeName(for: type) == v.string("service_type"))
            } else {
                #expect(throws: DiscoveryError.self) { try filter.serviceTypeName(for: type) }
            }
        default:
            Issue.record("unknown vector kind \(v.string("kind") ?? "nil") in \(v.id)")
        }
    }

    /// A 64-bit ID given as 16 hex digits or as a JSON number.
    static func id(_ v: Vector, _ key: String) -> UInt64? {
        v.string(key).flatMap { UInt64($0, radix: 16) } ?? v.uint64(key)
    }

    static func discoveryType(_ s: String?) -> MatterServiceType? {
        switch s {
        case "commissionable": .commissionable
        case "operational": .operational
        case "commissioner": .commissioner
        default: nil
        }
    }

    /// The filter a vector names; codes beyond UInt32 are clamped to UInt32.max so they still
    /// test the range checks.
    static func filter(_ v: Vector) throws -> DiscoveryFilter {
        let number = v.uint64("code").map { UInt32(clamping: $0) }
        switch v.string("filter_type") {
        case "none": return .none
        case "long_discriminator": return .longDiscriminator(try #require(number))
        case "short_discriminator": return .shortDiscriminator(try #require(number))
        case "vendor_id": return .vendorID(try #require(number))
        case "device_type": return .deviceType(try #require(number))
        case "commissioning_mode": return .commissioningMode
        case "commissioner": return .commissioner(try #require(number))
        case "compressed_fabric_id":
            return .compressedFabricID(try #require(v.string("code").flatMap { UInt64($0, radix: 16) } ?? v.uint64("code")))
        case "instance_name": return .instanceName(try #require(v.string("code")))
        default:
            throw LabError("unknown filter_type \(v.string("filter_type") ?? "nil")")
        }
    }

    @Test func browseTypes() {
        #expect(MatterServiceType.commissionable.browseType(subtype: "_L3840") == "_L3840._sub._matterc._udp")
        #expect(MatterServiceType.operational.browseType(subtype: nil) == "_matter._tcp")
        #expect(MatterServiceType.borderRouter.serviceName == "_meshcop")
    }
}
