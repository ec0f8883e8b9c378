import FoundationEssentials
import MatterCertificates
import MatterPlatform
import MatterTLV

/// `matterctl attestation verify`: device attestation of certificate files, as a commissioner
/// performs it (DAC -> PAI -> PAA against a trust-store folder, optional CD and revocation set).
struct AttestationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "attestation",
        abstract: "Verify device attestation credentials (DAC, PAI, CD) against a PAA trust store",
        subcommands: [Verify.self, TrustStoreCommand.self])

    /// `matterctl attestation verify --dac F --pai F --paa-store DIR ...`
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "verify",
            abstract: "Check a DAC, its PAI and a CD as a commissioner does",
            discussion: """
                Checks the DAC and PAI against their Matter profiles, their VID/PID rules, the chain to a PAA \
                in the trust store (signatures, names, validity), and, with --cd, the certification \
                declaration's CSA signature and content. Exit 0 when attestation holds; exit 1 naming the \
                rule that failed and what to do.
                """,
            options: [
                .value("--dac", "F", help: "DAC certificate file (DER or PEM)", required: true),
                .value("--pai", "F", help: "PAI certificate file (DER or PEM)", required: true),
                .value("--cd", "F", help: "certification declaration (CMS, DER)"),
                .value("--paa-store", "DIR", help: """
                    trust-store folder: every *.der and *.pem file is a PAA (the format of chip-tool's \
                    --paa-trust-store-path)
                    """, required: true),
                .value("--vendor-id", "V", help: "the device's VendorID (Basic Information); default: the DAC's"),
                .value("--product-id", "P", help: "the device's ProductID; default: the DAC's"),
                .value("--revocation-set", "F", help: "revocation set JSON (the SDK's format); revoked DACs/PAIs fail"),
                .value("--at", "TIME", help: """
                    check validity at this time (ISO 8601, e.g. 2024-07-01T00:00:00Z) instead of now
                    """),
                .flag("--allow-test-devices", help: "accept test PAAs, the CSA test CD key and development CDs"),
                .flag("--json", help: "machine-readable result on stdout"),
            ])

        static func run(_ arguments: ParsedArguments) async throws -> Int32 {
            try AttestationCommand.verify(arguments)
        }
    }

    static func verify(_ args: ParsedArguments) throws -> Int32 {
        let json = args.flag("--json")
        let allowTest = args.flag("--allow-test-devices")
        guard let dacPath = args.value("--dac") else { throw UsageError("--dac is required") }
        guard let paiPath = args.value("--pai") else { throw UsageError("--pai is required") }
        guard let storePath = args.value("--paa-store") else { throw UsageError("--paa-store is required") }
        let cdPath = args.value("--cd")
        let vendorID = try args.integer("--vendor-id", as: UInt16.self)
        let productID = try args.integer("--product-id", as: UInt16.self)
        let revocationPath = args.value("--revocation-set")
        let now = try time(args.value("--at"))

        let dac = try certificateFile(dacPath, "DAC")
        let pai = try certificateFile(paiPath, "PAI")
        let cd = try cdPath.map { try read($0, "certification declaration") }
        let store = try trustStore(storePath)
        let revocationSet = try revocationPath.map { path -> RevocationSet in
            do {
                return try JSONDecoder().decode(RevocationSet.self, from: Data(try read(path, "revocation set")))
            } catch let e as CommandFailure {
                throw e
            } catch {
                throw CommandFailure("cannot read the revocation set \(path): \(errorText(error))")
            }
        }

        let verifier = DeviceAttestationVerifier(trustStore: store, revocationSet: revocationSet,
                                                 allowTestDevices: allowTest)
        let outcome = verifier.verifyCredentials(dac: dac, pai: pai, certificationDeclaration: cd,
                                                 vendorID: vendorID, productID: productID, at: now)
        if json {
            Output.out(jsonView(outcome, trustStoreSize: store.count).text)
        } else if outcome.isSuccess {
            Output.out(summary(outcome, trustStoreSize: store.count, checkedCD: cd != nil))
        }
        guard outcome.isSuccess else {
            var line = "error: attestation failed: \(outcome.result.rawValue): \(outcome.result.message)"
            if let d = outcome.detail { line += " (\(d))" }
            Output.err(line + "\n" + outcome.result.remedy)
            return 1
        }
        return 0
    }

    // MARK: - Inputs

    static func read(_ path: String, _ what: String) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CommandFailure("cannot read the \(what) file \(path)")
        }
        return [UInt8](data)
    }

    /// A certificate file in DER or PEM form.
    static func certificateFile(_ path: String, _ what: String) throws -> [UInt8] {
        let bytes = try read(path, what)
        guard let der = AttestationPEM.certificates(fromFileContents: bytes).first else {
            throw CommandFailure("the \(what) file \(path) holds no PEM CERTIFICATE block")
        }
        return der
    }

    /// Every *.der and *.pem file of the folder (not its subfolders).
    static func trustStore(_ path: String) throws -> PAATrustStore {
        let names: [String]
        do { names = try FileManager.default.contentsOfDirectory(atPath: path) } catch {
            throw CommandFailure("cannot list the PAA trust store folder \(path)")
        }
        var files: [(name: String, contents: [UInt8])] = []
        for name in names where name.lowercased().hasSuffix(".der") || name.lowercased().hasSuffix(".pem") {
            if let data = FileManager.default.contents(atPath: path.hasSuffix("/") ? path + name : path + "/" + name) {
                files.append((name, [UInt8](data)))
            }
        }
        let store = PAATrustStore(files: files)
        for s in store.skipped { Output.err("warning: skipped \(s.file) in the PAA store: \(s.reason)") }
        guard store.count > 0 else { throw CommandFailure("no PAA certificate (*.der, *.pem) in \(path)") }
        return store
    }

    static func time(_ text: String?) throws -> ASN1Time {
        let date: Date
        if let text {
            guard let d = try? Date.ISO8601FormatStyle().parse(text) else {
                throw UsageError("--at expects an ISO 8601 time such as 2024-07-01T00:00:00Z, got '\(text)'")
            }
            date = d
        } else {
            date = Date()
        }
        do { return try ASN1Time(unixSeconds: Int64(date.timeIntervalSince1970)) } catch {
            throw UsageError("--at is out of range")
        }
    }

    // MARK: - Output

    static func hex16(_ v: UInt16?) -> String {
        guard let v else { return "none" }
        let s = String(v, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: 4 - s.count) + s
    }

    static func summary(_ o: AttestationVerification, trustStoreSize: Int, checkedCD: Bool) -> String {
        var lines = ["Attestation:   OK"]
        lines.append("Vendor ID:     \(hex16(o.vendorID))")
        lines.append("Product ID:    \(hex16(o.productID))")
        lines.append("PAA:           \(o.paaName ?? "(no common name)") (trust store of \(trustStoreSize))")
        if let cd = o.certificationDeclaration {
            lines.append("CD:            \(cd.certificateID), certification type \(cd.certificationType), "
                         + "products \(cd.productIDs.map { hex16($0) }.joined(separator: " "))")
        } else if !checkedCD {
            lines.append("CD:            not checked (no --cd)")
        }
        if o.usesTestCredentials { lines.append("Note:          development/test credentials (allowed by --allow-test-devices)") }
        return lines.joined(separator: "\n")
    }

    /// The `--json` shape (other tools rely on it): result code, message, remedy, and what was attested.
    static func jsonView(_ o: AttestationVerification, trustStoreSize: Int) -> JSON {
        var fields: [(String, JSON)] = [
            ("ok", .bool(o.isSuccess)),
            ("result", .string(o.result.rawValue)),
            ("message", .string(o.result.message)),
            ("remedy", .string(o.result.remedy)),
            ("detail", .from(o.detail)),
            ("vendorId", .from(o.vendorID)),
            ("productId", .from(o.productID)),
            ("paa", o.paaSubjectKeyIdentifier == nil ? .null : .object([
                ("name", .from(o.paaName)),
                ("subjectKeyId", .string(Base16.encode(o.paaSubjectKeyIdentifier ?? []))),
            ])),
            ("trustStoreSize", .from(trustStoreSize)),
            ("usesTestCredentials", .bool(o.usesTestCredentials)),
        ]
        if let cd = o.certificationDeclaration {
            fields.append(("certificationDeclaration", .object([
                ("vendorId", .from(cd.vendorID)),
                ("productIds", .array(cd.productIDs.map { .from($0) })),
                ("deviceTypeId", .from(cd.deviceTypeID)),
                ("certificateId", .string(cd.certificateID)),
                ("certificationType", .from(cd.certificationType)),
            ])))
        } else {
            fields.append(("certificationDeclaration", .null))
        }
        return .object(fields)
    }
}
