import Foundation
import MatterMessaging
import Testing
import TestSupport

/// The SDK's message header vectors: packet headers and messages with MX/SX extension blocks.
@Suite struct MessageHeaderTests {
    @Test(arguments: TestVectors.vectors("message_header.json"))
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        switch v.string("kind") {
        case "packet_header":
            let bytes = try #require(v.hex("encoded"))
            let (header, length) = try MessageHeader.decode(bytes)
            #expect(length == v.int("header_size"))
            #expect(String(format: "%04X", header.sessionID) == v.string("session_id")?.uppercased())
            #expect(String(format: "%08x", header.messageCounter) == v.string("message_counter")?.lowercased())
            #expect(Int(header.sessionType.rawValue) == v.int("session_type"))
            #expect(String(format: "%02x", header.securityFlags) == v.string("security_flags")?.lowercased())
            if let group = v.string("destination_group_id") {
                #expect(header.destination == .group(UInt16(group, radix: 16)!))
            }
            #expect(header.isUnsecured == !(v.bool("is_secure") ?? true))
            #expect(header.encoded() == bytes)
        case "message_with_extensions":
            let bytes = try #require(v.hex("message"))
            let (header, headerLength) = try MessageHeader.decode(bytes)
            #expect(headerLength == v.int("packet_header_length"))
            let payload = Array(bytes[headerLength...])
            let (proto, protoLength) = try ProtocolHeader.decode(payload)
            #expect(protoLength == v.int("payload_header_length"))
            #expect(payload.count - protoLength == v.int("app_payload_length"))
            #expect(header.encoded() + proto.encoded() + payload[protoLength...] == bytes)
        default:
            Issue.record("unknown kind in \(v.id)")
        }
    }

    @Test func protocolHeaderFlagsRoundTrip() throws {
        let h = ProtocolHeader(isInitiator: true, needsAck: true, ackCounter: 0x01020304, opcode: 0x20,
                               exchangeID: 0xBEEF, protocolID: ProtocolID(vendorID: 0xFFF1, 0x0042))
        let bytes = h.encoded()
        #expect(bytes == [0x17, 0x20, 0xEF, 0xBE, 0xF1, 0xFF, 0x42, 0x00, 0x04, 0x03, 0x02, 0x01])
        #expect(try ProtocolHeader.decode(bytes).0 == h)
    }

    @Test(arguments: [
        ("", MessagingError.truncated(offset: 0)),
        ("10000000000000", .unsupportedVersion(1)),
        ("0300000000000000", .reservedDestinationSize),
        ("0000000200000000", .reservedSessionType(2)),
        ("04000000000000000102", .truncated(offset: 8)),
        ("0000002000000000ff00aa", .truncated(offset: 10)),
    ])
    func malformedHeaders(_ hex: String, _ error: MessagingError) throws {
        #expect(throws: error) { try MessageHeader.decode(Hex.decode(hex)!) }
    }

    @Test func statusReportRoundTrip() throws {
        let s = StatusReport(generalCode: .failure, protocolID: .secureChannel, protocolCode: 2)
        #expect(s.encoded() == [0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00])
        #expect(try StatusReport.decode(s.encoded()) == s)
        #expect(s.summary == "FAILURE (SecureChannel code 2: invalid parameter)")
        #expect(throws: MessagingError.self) { try StatusReport.decode([0x01, 0x00, 0x00]) }
    }

    /// Mutated headers decode or throw, never trap.
    @Test func seededMutationNeverTraps() throws {
        let seeds = TestVectors.vectors("message_header.json").compactMap { $0.hex("message") ?? $0.hex("encoded") }
        try #require(!seeds.isEmpty)
        var rng = SeededRandom(seed: 0xC0DE)
        for i in 0..<20_000 {
            let input = Mutation.mutate(seeds[i % seeds.count], using: &rng)
            if let (_, n) = try? MessageHeader.decode(input) {
                _ = try? ProtocolHeader.decode(Array(input[n...]))
            }
            _ = try? StatusReport.decode(input)
        }
    }
}
