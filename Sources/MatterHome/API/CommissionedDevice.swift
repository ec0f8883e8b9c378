import MatterCommissioning
import MatterTLV

/// A device a commissioning request added to the home: the same in embedded and remote mode (the
/// CASE session itself stays in the process that commissioned it).
public struct CommissionedDevice: Sendable, Hashable {
    public var nodeID: NodeID
    public var vendorID: UInt16
    public var productID: UInt16
    /// Where the device answered on its operational network (`[addr%if]:port`).
    public var address: String
    /// Each step's time, in order.
    public var timings: [StepTiming]
    /// Things the user should know (e.g. a test device accepted on request).
    public var warnings: [String]

    public init(nodeID: NodeID, vendorID: UInt16, productID: UInt16, address: String, timings: [StepTiming], warnings: [String]) {
        self.nodeID = nodeID
        self.vendorID = vendorID
        self.productID = productID
        self.address = address
        self.timings = timings
        self.warnings = warnings
    }

    public init(_ result: CommissioningResult) {
        self.init(nodeID: result.nodeID, vendorID: result.vendorID, productID: result.productID,
                  address: result.operationalAddress.description, timings: result.timings, warnings: result.warnings)
    }
}
