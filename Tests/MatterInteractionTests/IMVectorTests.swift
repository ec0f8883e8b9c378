import MatterInteraction
import MatterTLV
import Testing
import TestSupport

/// Captured IM payloads (matter.js, chip-tool): decode, re-encode byte for byte, and check the
/// fields the vector states; invalid vectors must throw a typed error.
@Suite struct IMVectorTests {
    static let vectors = TestVectors.vectors("interaction_model.json")

    @Test(arguments: vectors)
    func vector(_ v: Vector) throws {
        #expect(v.loadError == nil)
        let payload = try #require(v.hex("payload"))
        let opcode = IMOpcode(UInt8(try #require(v.int("opcode"))))
        guard v.valid else {
            #expect(throws: InteractionError.self) { try AnyIMMessage(opcode: opcode, payload: payload) }
            return
        }
        let message = try AnyIMMessage(opcode: opcode, payload: payload)
        #expect(message.opcode.name == v.string("message"))
        if v.bool("reencode_exact") == true {
            #expect(Hex.encode(message.payload) == Hex.encode(payload))
        }
        if let expected = v.object("expected") { try check(message, expected) }
    }

    private func check(_ message: AnyIMMessage, _ expected: [String: Any]) throws {
        if let rev = expected["interaction_model_revision"] as? Int {
            switch message {
            case .readRequest(let m): #expect(Int(m.interactionModelRevision) == rev)
            case .reportData(let m): #expect(Int(m.interactionModelRevision) == rev)
            default: Issue.record("revision check not supported for \(message.opcode)")
            }
        }
        switch message {
        case .readRequest(let m):
            if let paths = expected["attribute_paths"] as? [[Any]] {
                let got = (m.attributeRequests ?? []).map { p in [p.endpoint.map { Int($0.rawValue) }, p.cluster.map { Int($0.rawValue) }, p.attribute.map { Int($0.rawValue) }] }
                let want = paths.map { $0.map { $0 as? Int } }
                #expect(got == want)
            }
            if let f = expected["is_fabric_filtered"] as? Bool { #expect(m.isFabricFiltered == f) }
        case .reportData(let m):
            if let n = expected["attribute_report_count"] as? Int { #expect(m.attributeReports?.count == n) }
            if let s = expected["suppress_response"] as? Bool { #expect((m.suppressResponse ?? false) == s) }
            if let more = expected["more_chunked_messages"] as? Bool { #expect(m.hasMoreChunks == more) }
            var assembler = ReportAssembler()
            var step = try assembler.receive(m)
            if m.hasMoreChunks {
                // A non-final chunk asks for StatusResponse(Success); an empty last chunk ends it.
                #expect(step == .sendStatusAndContinue(StatusResponseMessage(status: .success,
                                                                                interactionModelRevision: interactionModelRevision)))
                step = try assembler.receive(ReportDataMessage(subscriptionID: m.subscriptionID, suppressResponse: true))
            }
            guard case .complete(let report, _) = step else {
                Issue.record("the final chunk must complete the report")
                return
            }
            if let attrs = expected["attributes"] as? [[String: Any]] {
                #expect(report.attributes.count == attrs.count)
                for (want, got) in zip(attrs, report.attributes) { try checkAttribute(got, want) }
            }
            for want in expected["attributes_include"] as? [[String: Any]] ?? [] {
                let path = want["path"] as? [Int] ?? []
                let got = try #require(report.attributes.first { r in
                    [r.path.endpoint.map { Int($0.rawValue) }, r.path.cluster.map { Int($0.rawValue) }, r.path.attribute.map { Int($0.rawValue) }] == path.map { Optional($0) }
                })
                try checkAttribute(got, want)
            }
        case .invokeResponse(let m):
            if let s = expected["suppress_response"] as? Bool { #expect(m.suppressResponse == s) }
            if let statuses = expected["command_statuses"] as? [[Int]] {
                let got: [[Int]] = m.invokeResponses.compactMap {
                    guard case .status(let s) = $0 else { return nil }
                    return [Int(s.path.endpoint?.rawValue ?? 0xFFFF), Int(s.path.cluster.rawValue), Int(s.path.command.rawValue), Int(s.status.status.rawValue)]
                }
                #expect(got == statuses)
            }
        default:
            break
        }
    }

    private func checkAttribute(_ got: AttributeReport, _ want: [String: Any]) throws {
        if let path = want["path"] as? [Int] {
            #expect(got.path.endpoint?.rawValue == UInt16(path[0]))
            #expect(got.path.cluster?.rawValue == UInt32(path[1]))
            #expect(got.path.attribute?.rawValue == UInt32(path[2]))
        }
        if let dv = want["data_version"] as? Int { #expect(got.dataVersion == UInt32(dv)) }
        let value = try got.value()
        if let u = want["value_uint"] as? Int { #expect(try value.unsigned(as: UInt64.self) == UInt64(u)) }
        if let s = want["value_utf8"] as? String { #expect(try value.utf8() == s) }
        if let list = want["value_uint_list"] as? [Int] {
            let items = try value.members(of: .array).map { try $0.unsigned(as: UInt64.self) }
            #expect(items == list.map(UInt64.init))
        }
    }
}

/// Seeded mutations of every vector payload: each decodes or throws, never traps; whatever
/// decodes re-encodes to something that decodes to the same message.
@Suite struct IMMutationTests {
    @Test func mutatedVectorsDecodeOrThrow() throws {
        var rng = SeededRandom(seed: 0x1A7E_2024)
        var decoded = 0, rejected = 0
        for v in IMVectorTests.vectors {
            guard let payload = v.hex("payload"), let op = v.int("opcode") else { continue }
            for _ in 0..<400 {
                let input = Mutation.mutate(payload, using: &rng)
                let opcode = IMOpcode(UInt8(op))
                // Typed throws: the only error a decoder can raise is InteractionError.
                guard let m = try? AnyIMMessage(opcode: opcode, payload: input) else {
                    rejected += 1
                    continue
                }
                let again = try AnyIMMessage(opcode: opcode, payload: m.payload)
                #expect(again == m)
                decoded += 1
            }
        }
        #expect(decoded + rejected == IMVectorTests.vectors.count * 400)
        #expect(rejected > 0)
    }
}
