import MatterClusters
import MatterInteraction
import MatterTLV
import Synchronization
import Testing
import TestSupport

/// A small node: endpoint 0 (Descriptor, BasicInformation, GeneralCommissioning,
/// AdministratorCommissioning) and endpoint 1 (Descriptor, OnOff).
enum Fixtures {
    /// Encodes `value`, checks it decodes back to itself, and returns the bytes as hex.
    static func roundTrip<T: TLVCodable>(_ value: T) throws -> String {
        let bytes = TLVWriter.encode(value.element(tag: .anonymous))
        #expect(try T(element: TLVDecoder.decode(bytes)) == value)
        return Hex.encode(bytes)
    }

    static let dataModel = DataModel(endpoints: [
        .init(id: 0, clusters: [
            .init(id: .descriptor, attributes: [0, 1, 2, 3, .clusterRevision]),
            .init(id: .basicInformation, attributes: [0, 1, 2, 3, 4, 5, 0x0F, .clusterRevision], writableAttributes: [5]),
            .init(id: .generalCommissioning, attributes: [0, 1, 2, 3], writableAttributes: [0],
                  acceptedCommands: [0, 2, 4]),
            .init(id: .administratorCommissioning, attributes: [0, 1, 2],
                  acceptedCommands: [0, 1, 2], timedCommands: [0, 1, 2]),
        ]),
        .init(id: 1, clusters: [
            .init(id: .descriptor, attributes: [0, 1, 2, 3, .clusterRevision]),
            .init(id: .onOff, attributes: [0, .clusterRevision], writableAttributes: [0], timedWriteAttributes: [0],
                  acceptedCommands: [0, 1, 2]),
        ]),
    ])
}

/// A device with in-memory attribute values, for client <-> server tests.
actor TestDevice: InteractionDevice {
    var values: [ConcreteAttributePath: TLVElement] = [:]
    var versions: [ClusterPathIB: UInt32] = [:]
    var invoked: [CommandPathIB] = []

    init() {
        let basic = ClusterID.basicInformation
        values[ConcreteAttributePath(0, basic, 1)] = .utf8("Acme")
        values[ConcreteAttributePath(0, basic, 2)] = .unsigned(UInt16(0xFFF1))
        values[ConcreteAttributePath(0, basic, 3)] = .utf8("Lamp")
        values[ConcreteAttributePath(0, basic, 4)] = .unsigned(UInt16(0x8000))
        values[ConcreteAttributePath(0, basic, 5)] = .utf8("")
        values[ConcreteAttributePath(0, basic, 0x0F)] = .utf8("SN-1")
        values[ConcreteAttributePath(1, .onOff, 0)] = .bool(false)
    }

    func set(_ path: ConcreteAttributePath, _ value: TLVElement) { values[path] = value }
    func value(_ path: ConcreteAttributePath) -> TLVElement? { values[path] }

    func readAttribute(_ path: ConcreteAttributePath, fabricFiltered: Bool, context: IMSessionContext) async throws(IMStatus) -> TLVElement {
        if let v = values[path] { return v }
        if path.attribute == .clusterRevision { return .unsigned(UInt16(1)) }
        if path.cluster == .descriptor { return .array([]) }
        throw .unsupportedRead
    }

    func writeAttribute(_ path: ConcreteAttributePath, value: TLVElement, listIndex: ListIndex?, context: IMSessionContext) async throws(IMStatus) {
        if path == ConcreteAttributePath(0, .basicInformation, 5) {
            guard case .utf8(let s) = value.value, s.utf8.count <= 32 else { throw .constraintError }
        }
        values[path] = value
        let key = ClusterPathIB(endpoint: path.endpoint, cluster: path.cluster)
        versions[key, default: 1] &+= 1
    }

    func invokeCommand(_ path: CommandPathIB, fields: TLVElement?, context: IMSessionContext) async -> CommandOutcome {
        invoked.append(path)
        switch (path.cluster, path.command) {
        case (.onOff, Clusters.OnOff.Command.toggle):
            let p = ConcreteAttributePath(path.endpoint ?? 0, .onOff, 0)
            let on = (try? values[p]?.bool()) ?? false
            values[p] = .bool(!on)
            return .status(.success)
        case (.generalCommissioning, Clusters.GeneralCommissioning.Command.armFailSafe):
            guard let f = fields, let req = try? Clusters.GeneralCommissioning.ArmFailSafe(element: f) else {
                return .status(StatusIB(.invalidCommand))
            }
            values[ConcreteAttributePath(0, .generalCommissioning, 0)] = .unsigned(req.breadcrumb)
            return .response(Clusters.GeneralCommissioning.Command.armFailSafeResponse,
                             Clusters.GeneralCommissioning.ArmFailSafeResponse(errorCode: .ok).fields)
        case (.administratorCommissioning, _):
            return .status(.success)
        default:
            return .status(StatusIB(.failure, clusterStatus: 9))
        }
    }

    func dataVersion(_ endpoint: EndpointID, _ cluster: ClusterID) async -> UInt32? {
        versions[ClusterPathIB(endpoint: endpoint, cluster: cluster), default: 1]
    }
}

/// Monotonic milliseconds that tests advance by hand.
final class ManualClock: Sendable {
    private let now = Atomic<UInt64>(1_000)
    var value: UInt64 { now.load(ordering: .relaxed) }
    func advance(_ ms: UInt64) { now.add(ms, ordering: .relaxed) }
    var reader: @Sendable () -> UInt64 { { [self] in self.value } }
}
