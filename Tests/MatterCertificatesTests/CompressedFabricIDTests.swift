import Testing
import TestSupport
@testable import MatterCertificates
import MatterTLV

@Suite("CompressedFabricID")
struct CompressedFabricIDTests {
    @Test(arguments: TestVectors.vectors("compressed_fabric_id.json"))
    func derivation(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let key = try #require(v.hex("root_public_key"))
        let fabric = FabricID(try #require(hexUInt64(v, "fabric_id")))
        if v.valid {
            let cfid = try CompressedFabricID(rootPublicKey: key, fabricID: fabric)
            #expect(hexString(cfid.bytes) == v.string("compressed_fabric_id"))
            #expect(cfid.description == v.string("compressed_fabric_id_uint64"))
        } else if let length = v.int("output_buffer_len") {
            // API-level case: the result does not fit the caller's buffer.
            var buffer = [UInt8](repeating: 0, count: length)
            #expect(throws: CertificateError.self) {
                try CompressedFabricID(rootPublicKey: key, fabricID: fabric).write(into: &buffer)
            }
        } else {
            #expect(throws: CertificateError.self) { try CompressedFabricID(rootPublicKey: key, fabricID: fabric) }
        }
    }
}

/// The operational-identity vectors of dnssd_naming.json (instance names). The commissionable
/// subtype and service-type vectors belong to MatterDiscovery.
@Suite("OperationalPeerName")
struct OperationalPeerNameTests {
    static let vectors = TestVectors.vectors("dnssd_naming.json") {
        ($0.string("kind") ?? "").contains("operational_instance_name")
    }

    @Test func hasVectors() { #expect(Self.vectors.count >= 5) }

    @Test(arguments: vectors)
    func instanceName(_ v: Vector) throws {
        switch v.string("kind") {
        case "make_operational_instance_name":
            let cfid = try #require(hexUInt64(v, "compressed_fabric_id"))
            let node = try #require(hexUInt64(v, "node_id"))
            let name = OperationalPeerName(compressedFabricID: CompressedFabricID(rawValue: cfid), nodeID: NodeID(node))
            #expect(name.instanceName == v.string("instance_name"))
            #expect(try OperationalPeerName(instanceName: name.instanceName) == name)
        case "parse_operational_instance_name":
            let input = try #require(v.string("input"))
            if v.valid {
                let parsed = try OperationalPeerName(instanceName: input)
                if let expected = v.string("compressed_fabric_id") {
                    #expect(parsed.compressedFabricID.rawValue == UInt64(expected, radix: 16))
                }
                if let expected = v.string("node_id") { #expect(parsed.nodeID.rawValue == UInt64(expected, radix: 16)) }
            } else {
                #expect(throws: CertificateError.self) { try OperationalPeerName(instanceName: input) }
            }
        default:
            Issue.record("unexpected kind \(v.string("kind") ?? "nil")")
        }
    }

    @Test func parsesFirstLabelAndLowercase() throws {
        let n = try OperationalPeerName(instanceName: "87e1b004e235a130-00000000000000AB._matter._tcp.local")
        #expect(n.compressedFabricID.rawValue == 0x87E1_B004_E235_A130)
        #expect(n.nodeID == NodeID(0xAB))
        #expect(n.instanceName == "87E1B004E235A130-00000000000000AB")
    }
}

/// A 64-bit value given as hex text in a vector field.
func hexUInt64(_ v: Vector, _ key: String) -> UInt64? {
    v.string(key).flatMap { UInt64($0, radix: 16) }
}
