import MatterClusters
import MatterInteraction
import MatterTLV

/// What the commissioner reads over PASE before arming the fail-safe (Matter Core 5.5 step 6,
/// after the commissioning channel is up): who the device says it is, its fail-safe limits
/// and where it may be installed.
struct DeviceInfo: Sendable {
    var vendorID: UInt16
    var productID: UInt16
    /// BasicCommissioningInfo.FailSafeExpiryLengthSeconds.
    var failSafeExpiryLengthSeconds: UInt16?
    /// BasicCommissioningInfo.MaxCumulativeFailsafeSeconds.
    var maxCumulativeFailsafeSeconds: UInt16?
    var locationCapability: UInt8?

    static func read(_ client: InteractionClient) async throws -> DeviceInfo {
        typealias B = Clusters.BasicInformation
        typealias G = Clusters.GeneralCommissioning
        let paths = [ConcreteAttributePath(0, B.id, B.Attribute.vendorID), ConcreteAttributePath(0, B.id, B.Attribute.productID),
                     ConcreteAttributePath(0, G.id, G.Attribute.basicCommissioningInfo),
                     ConcreteAttributePath(0, G.id, G.Attribute.locationCapability)]
        let reports = try await client.read(paths: paths.map(\.ib))
        func value(_ p: ConcreteAttributePath) -> TLVElement? {
            for r in reports where r.path == p.ib {
                if case .value(let v) = r.outcome { return v }
            }
            return nil
        }
        guard let vid = try value(paths[0])?.unsigned(as: UInt16.self), let pid = try value(paths[1])?.unsigned(as: UInt16.self) else {
            throw InteractionError.invalidValue(what: "BasicInformation", reason: "the device did not report its vendor and product IDs")
        }
        let basic = value(paths[2])
        return DeviceInfo(vendorID: vid, productID: pid,
                          failSafeExpiryLengthSeconds: try basic?[context: 0]?.unsigned(as: UInt16.self),
                          maxCumulativeFailsafeSeconds: try basic?[context: 1]?.unsigned(as: UInt16.self),
                          locationCapability: try value(paths[3])?.unsigned(as: UInt8.self))
    }
}
