import MatterClusters
import MatterTLV

extension Clusters.OperationalCredentials {
    /// CertificateChainTypeEnum.
    public enum CertificateChainType: UInt8, Sendable, Hashable {
        case dac = 1
        case pai = 2
    }

    /// NodeOperationalCertStatusEnum: the verdict in NOCResponse.
    public typealias NodeOperationalCertStatus = NodeOperationalCertStatusEnum

    /// AttestationRequest (0x00).
    public struct AttestationRequest: CommandRequest {
        public typealias Response = AttestationResponse
        public typealias Tag = Clusters.OperationalCredentials.AttestationRequestTag
        public static var cluster: ClusterID { Clusters.OperationalCredentials.id }
        public static var command: CommandID { Command.attestationRequest }
        /// 32 random bytes.
        public var attestationNonce: [UInt8]
        public init(attestationNonce: [UInt8]) { self.attestationNonce = attestationNonce }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "AttestationRequest")
            attestationNonce = try f.requiredBytes(Tag.attestationNonce)
        }
        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.bytes(.context(Tag.attestationNonce), attestationNonce)])
        }
    }

    /// AttestationResponse (0x01).
    public struct AttestationResponse: CommandFields {
        public typealias Tag = Clusters.OperationalCredentials.AttestationResponseTag
        public static var cluster: ClusterID { Clusters.OperationalCredentials.id }
        public static var command: CommandID { Command.attestationResponse }
        public var attestationElements: [UInt8]
        public var attestationSignature: [UInt8]
        public init(attestationElements: [UInt8], attestationSignature: [UInt8]) {
            self.attestationElements = attestationElements
            self.attestationSignature = attestationSignature
        }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "AttestationResponse")
            attestationElements = try f.requiredBytes(Tag.attestationElements)
            attestationSignature = try f.requiredBytes(Tag.attestationSignature)
        }
        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.bytes(.context(Tag.attestationElements), attestationElements),
                             .bytes(.context(Tag.attestationSignature), attestationSignature)])
        }
    }

    /// CertificateChainRequest (0x02).
    public struct CertificateChainRequest: CommandRequest {
        public typealias Response = CertificateChainResponse
        public typealias Tag = Clusters.OperationalCredentials.CertificateChainRequestTag
        public static var cluster: ClusterID { Clusters.OperationalCredentials.id }
        public static var command: CommandID { Command.certificateChainRequest }
        public var certificateType: CertificateChainType
        public init(certificateType: CertificateChainType) { self.certificateType = certificateType }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "CertificateChainRequest")
            let raw: UInt8 = try f.requiredUInt(Tag.certificateType)
            guard let t = CertificateChainType(rawValue: raw) else {
                throw .invalidValue(what: "CertificateChainRequest.CertificateType", reason: "\(raw) is neither DAC (1) nor PAI (2)")
            }
            certificateType = t
        }
        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.unsigned(.context(Tag.certificateType), certificateType.rawValue)])
        }
    }

    /// CertificateChainResponse (0x03): one DER certificate.
    public struct CertificateChainResponse: CommandFields {
        public typealias Tag = Clusters.OperationalCredentials.CertificateChainResponseTag
        public static var cluster: ClusterID { Clusters.OperationalCredentials.id }
        public static var command: CommandID { Command.certificateChainResponse }
        public var certificate: [UInt8]
        public init(certificate: [UInt8]) { self.certificate = certificate }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "CertificateChainResponse")
            certificate = try f.requiredBytes(Tag.certificate)
        }
        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.bytes(.context(Tag.certificate), certificate)])
        }
    }

    /// CSRRequest (0x04).
    public struct CSRRequest: CommandRequest {
        public typealias Response = CSRResponse
        public typealias Tag = Clusters.OperationalCredentials.CSRRequestTag
        public static var cluster: ClusterID { Clusters.OperationalCredentials.id }
        public static var command: CommandID { Command.csrRequest }
        public var csrNonce: [UInt8]
        public var isForUpdateNOC: Bool?
        public init(csrNonce: [UInt8], isForUpdateNOC: Bool? = nil) {
            self.csrNonce = csrNonce
            self.isForUpdateNOC = isForUpdateNOC
        }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "CSRRequest")
            csrNonce = try f.requiredBytes(Tag.csrNonce)
            isForUpdateNOC = try f.bool(Tag.isForUpdateNOC)
        }
        public func element(tag: TLVTag) -> TLVElement {
            var w = FieldWriter()
            w.bytes(Tag.csrNonce, csrNonce)
            w.bool(Tag.isForUpdateNOC, isForUpdateNOC)
            return w.structure(tag)
        }
    }

    /// CSRResponse (0x05).
    public struct CSRResponse: CommandFields {
        public typealias Tag = Clusters.OperationalCredentials.CSRResponseTag
        public static var cluster: ClusterID { Clusters.OperationalCredentials.id }
        public static var command: CommandID { Command.csrResponse }
        public var nocsrElements: [UInt8]
        public var attestationSignature: [UInt8]
        public init(nocsrElements: [UInt8], attestationSignature: [UInt8]) {
            self.nocsrElements = nocsrElements
            self.attestationSignature = attestationSignature
        }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "CSRResponse")
            nocsrElements = try f.requiredBytes(Tag.nocsrElements)
            attestationSignature = try f.requiredBytes(Tag.attestationSignature)
        }
        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.bytes(.context(Tag.nocsrElements), nocsrElements),
                             .bytes(.context(Tag.attestationSignature), attestationSignature)])
        }
    }

    /// AddTrustedRootCertificate (0x0B): answered by a status only.
    public struct AddTrustedRootCertificate: CommandRequest {
        public typealias Response = StatusOnlyResponse
        public typealias Tag = Clusters.OperationalCredentials.AddTrustedRootCertificateTag
        public static var cluster: ClusterID { Clusters.OperationalCredentials.id }
        public static var command: CommandID { Command.addTrustedRootCertificate }
        /// The root certificate in Matter TLV form.
        public var rootCACertificate: [UInt8]
        public init(rootCACertificate: [UInt8]) { self.rootCACertificate = rootCACertificate }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "AddTrustedRootCertificate")
            rootCACertificate = try f.requiredBytes(Tag.rootCACertificate)
        }
        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.bytes(.context(Tag.rootCACertificate), rootCACertificate)])
        }
    }

    /// AddNOC (0x06).
    public struct AddNOC: CommandRequest {
        public typealias Response = NOCResponse
        public typealias Tag = Clusters.OperationalCredentials.AddNOCTag
        public static var cluster: ClusterID { Clusters.OperationalCredentials.id }
        public static var command: CommandID { Command.addNOC }
        public var nocValue: [UInt8]
        public var icacValue: [UInt8]?
        /// The 16-byte identity protection key epoch key. A secret: never printed.
        public var ipkValue: [UInt8]
        public var caseAdminSubject: UInt64
        public var adminVendorID: UInt16

        public init(nocValue: [UInt8], icacValue: [UInt8]?, ipkValue: [UInt8], caseAdminSubject: UInt64,
                    adminVendorID: UInt16) {
            self.nocValue = nocValue
            self.icacValue = icacValue
            self.ipkValue = ipkValue
            self.caseAdminSubject = caseAdminSubject
            self.adminVendorID = adminVendorID
        }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "AddNOC")
            nocValue = try f.requiredBytes(Tag.nocValue)
            icacValue = try f.bytes(Tag.icacValue)
            ipkValue = try f.requiredBytes(Tag.ipkValue)
            caseAdminSubject = try f.requiredUInt(Tag.caseAdminSubject)
            adminVendorID = try f.requiredUInt(Tag.adminVendorId)
        }
        public func element(tag: TLVTag) -> TLVElement {
            var w = FieldWriter()
            w.bytes(Tag.nocValue, nocValue)
            w.bytes(Tag.icacValue, icacValue)
            w.bytes(Tag.ipkValue, ipkValue)
            w.uint(Tag.caseAdminSubject, caseAdminSubject)
            w.uint(Tag.adminVendorId, adminVendorID)
            return w.structure(tag)
        }
    }

    /// UpdateNOC (0x07).
    public struct UpdateNOC: CommandRequest {
        public typealias Response = NOCResponse
        public typealias Tag = Clusters.OperationalCredentials.UpdateNOCTag
        public static var cluster: ClusterID { Clusters.OperationalCredentials.id }
        public static var command: CommandID { Command.updateNOC }
        public var nocValue: [UInt8]
        public var icacValue: [UInt8]?
        public init(nocValue: [UInt8], icacValue: [UInt8]?) {
            self.nocValue = nocValue
            self.icacValue = icacValue
        }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "UpdateNOC")
            nocValue = try f.requiredBytes(Tag.nocValue)
            icacValue = try f.bytes(Tag.icacValue)
        }
        public func element(tag: TLVTag) -> TLVElement {
            var w = FieldWriter()
            w.bytes(Tag.nocValue, nocValue)
            w.bytes(Tag.icacValue, icacValue)
            return w.structure(tag)
        }
    }

    /// NOCResponse (0x08): the answer to AddNOC, UpdateNOC, UpdateFabricLabel and RemoveFabric.
    public struct NOCResponse: CommandFields {
        public typealias Tag = Clusters.OperationalCredentials.NOCResponseTag
        public static var cluster: ClusterID { Clusters.OperationalCredentials.id }
        public static var command: CommandID { Command.nocResponse }
        public var statusCode: NodeOperationalCertStatus
        public var fabricIndex: UInt8?
        public var debugText: String?
        public init(statusCode: NodeOperationalCertStatus, fabricIndex: UInt8? = nil, debugText: String? = nil) {
            self.statusCode = statusCode
            self.fabricIndex = fabricIndex
            self.debugText = debugText
        }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "NOCResponse")
            statusCode = NodeOperationalCertStatus(rawValue: try f.requiredUInt(Tag.statusCode))
            fabricIndex = try f.uint(Tag.fabricIndex)
            debugText = try f.string(Tag.debugText)
        }
        public func element(tag: TLVTag) -> TLVElement {
            var w = FieldWriter()
            w.uint(Tag.statusCode, statusCode.rawValue)
            w.uint(Tag.fabricIndex, fabricIndex)
            w.string(Tag.debugText, debugText)
            return w.structure(tag)
        }
    }

    /// UpdateFabricLabel (0x09).
    public struct UpdateFabricLabel: CommandRequest {
        public typealias Response = NOCResponse
        public typealias Tag = Clusters.OperationalCredentials.UpdateFabricLabelTag
        public static var cluster: ClusterID { Clusters.OperationalCredentials.id }
        public static var command: CommandID { Command.updateFabricLabel }
        public var label: String
        public init(label: String) { self.label = label }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "UpdateFabricLabel")
            guard let l = try f.string(Tag.label) else {
                throw .malformed(what: "UpdateFabricLabel", .missingField(.context(Tag.label)))
            }
            label = l
        }
        public func element(tag: TLVTag) -> TLVElement { .structure(tag, [.utf8(.context(Tag.label), label)]) }
    }

    /// RemoveFabric (0x0A).
    public struct RemoveFabric: CommandRequest {
        public typealias Response = NOCResponse
        public typealias Tag = Clusters.OperationalCredentials.RemoveFabricTag
        public static var cluster: ClusterID { Clusters.OperationalCredentials.id }
        public static var command: CommandID { Command.removeFabric }
        public var fabricIndex: UInt8
        public init(fabricIndex: UInt8) { self.fabricIndex = fabricIndex }
        public init(element: TLVElement) throws(InteractionError) {
            let f = try FieldReader(element, .structure, "RemoveFabric")
            fabricIndex = try f.requiredUInt(Tag.fabricIndex)
        }
        public func element(tag: TLVTag) -> TLVElement {
            .structure(tag, [.unsigned(.context(Tag.fabricIndex), fabricIndex)])
        }
    }
}

extension Clusters.OperationalCredentials.AddNOC: CustomStringConvertible {
    /// Keeps the IPK out of logs.
    public var description: String {
        "AddNOC(noc: \(nocValue.count) bytes, icac: \(icacValue.map { "\($0.count) bytes" } ?? "none"), ipk: <redacted>, caseAdminSubject: 0x\(String(caseAdminSubject, radix: 16)), adminVendorID: \(adminVendorID))"
    }
}
