import FoundationEssentials
import MatterCertificates
import MatterCrypto

/// The device's attestation identity: the SDK's development DAC (FFF1/8000) and its PAI, the DAC
/// key, and a certification declaration signed with the CSA test CD key (all published by the
/// SDK for development; see DeviceCredentials+Embedded.swift).
struct DeviceCredentials: Sendable {
    let dac: [UInt8]
    let pai: [UInt8]
    let dacKey: P256PrivateKey
    /// The CMS certification declaration.
    let certificationDeclaration: [UInt8]

    /// `cdVendorID` is normally the device's vendor ID; the `cd-vendor-mismatch` fault passes another.
    init(vendorID: UInt16, productID: UInt16, deviceType: UInt32, cdVendorID: UInt16,
         chain: AttestationCredentials? = nil) throws(VirtualDeviceError) {
        guard let dac = Data(base64Encoded: Self.developmentDACBase64), let pai = Data(base64Encoded: Self.developmentPAIBase64),
              let key = Data(base64Encoded: Self.developmentDACKeyBase64),
              let cdCert = Data(base64Encoded: Self.testCDSigningCertBase64) else {
            throw .credentials("the embedded attestation credentials are not valid base64")
        }
        self.dac = chain?.dac ?? Array(dac)
        self.pai = chain?.pai ?? Array(pai)
        do {
            dacKey = try chain?.dacKey ?? P256PrivateKey(derRepresentation: Array(key))
            let signer = try P256PrivateKey(pemRepresentation: Self.testCDSigningKeyPEM)
            let signerCert = try X509Certificate(derEncoded: Array(cdCert))
            guard let skid = signerCert.subjectKeyIdentifier else {
                throw VirtualDeviceError.credentials("the CD signing certificate has no subject key identifier")
            }
            let content = CertificationElements(vendorID: cdVendorID, productIDs: [productID], deviceTypeID: deviceType,
                                                certificateID: "ZIG20142ZB330003-24", securityLevel: 0, securityInformation: 0,
                                                versionNumber: 1, certificationType: 0)
            certificationDeclaration = try CertificationDeclaration(signing: content, signerKeyIdentifier: skid,
                                                                    privateKey: signer).cmsBytes
        } catch let e as VirtualDeviceError {
            throw e
        } catch {
            throw .credentials("cannot load the attestation credentials: \(error)")
        }
    }
}
