import MatterClusters
import MatterInteraction
import MatterTLV
@testable import MatterVirtualDevice
import Testing

/// The virtual device's cluster servers judged by the generated model (the CHIP SDK's cluster
/// objects, `MatterClusters`): every declared attribute, command and event exists in its
/// cluster, the writable ones are the spec's, the mandatory attributes are all there, timed
/// commands are the spec's, and every value a full wildcard read returns has the model's type.
@Suite struct ClusterModelConformanceTests {
    static func configuration(_ name: String) -> VirtualDeviceConfiguration {
        var c = VirtualDeviceConfiguration(advertises: false)
        switch name {
        case "plug": c.kind = .plug
        case "thermostat": c.kind = .thermostat
        case "bridge": c.kind = .bridge; c.bridgedLights = 3
        case "wifi": c.network = .wifi
        case "thread": c.network = .thread
        case "ota": c.softwareVersion = 1
        case "icd-lit": c.icd = ICDConfiguration(mode: .lit)
        case "icd-sit": c.icd = ICDConfiguration(mode: .sit)
        default: break
        }
        return c
    }
    static let shapes = ["light", "plug", "thermostat", "bridge", "wifi", "thread", "ota", "icd-lit", "icd-sit"]

    @Test(arguments: shapes) func declarationsAreTheModels(_ name: String) throws {
        let shape = DeviceShape(Self.configuration(name))
        var problems: [String] = []
        for endpoint in shape.endpoints {
            for server in DeviceDataModel.clusters(endpoint: endpoint, shape: shape) {
                problems += server.disagreementsWithModel().map { "\(name) endpoint \(endpoint.rawValue) cluster \(server.id): \($0)" }
            }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    @Test(arguments: ["light", "plug", "thermostat", "wifi", "thread"]) func everyValueHasTheModelsType(_ name: String) async throws {
        let c = Self.configuration(name)
        let h = try await DeviceHarness.make(network: c.network, kind: c.kind)
        defer { Task { await h.shutdown() } }
        let reports = try await h.client(try await h.pase()).read(paths: [AttributePathIB()])
        #expect(reports.count > 50)
        var problems: [String] = []
        for r in reports {
            guard let cluster = r.path.cluster, let attribute = r.path.attribute else { continue }
            guard case .value(let v) = r.outcome else { problems.append("\(r.path): \(r.outcome)"); continue }
            guard let model = Clusters.attribute(cluster: cluster.rawValue, id: attribute.rawValue) else { continue }  // globals
            if let why = Self.mismatch(v, model.type) { problems.append("\(cluster) \(model.name): \(why)") }
        }
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// Why `e` is not a value of `type` (nil: it is).
    static func mismatch(_ e: TLVElement, _ type: MatterDataType) -> String? {
        switch (type, e.value) {
        case (.any, _): return nil
        case (.nullable, .null): return nil
        case (.nullable(let t), _): return mismatch(e, t)
        case (.bool, .bool): return nil
        case (.unsigned(let bits), .unsigned(let v)): return bits >= 64 || v < UInt64(1) << UInt64(bits) ? nil : "\(v) is past uint\(bits)"
        case (.signed(let bits), .signed(let v)):
            return bits >= 64 || (v >= -(Int64(1) << Int64(bits - 1)) && v < Int64(1) << Int64(bits - 1)) ? nil : "\(v) is past int\(bits)"
        case (.float, .float), (.double, .double), (.string, .utf8), (.bytes, .bytes): return nil
        case (.list(let t), .container(.array, let items)):
            return items.lazy.compactMap { mismatch($0, t) }.first
        case (.structure(let fields), .container(.structure, let members)):
            for f in fields {
                guard let m = members.first(where: { $0.tag == .context(f.tag) }) else {
                    if f.isOptional { continue }
                    return "field \(f.name) (\(f.tag)) missing"
                }
                if let why = mismatch(m, f.type) { return "field \(f.name): \(why)" }
            }
            return nil
        default: return "\(e.value) is not \(type)"
        }
    }
}
