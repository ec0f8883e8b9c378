import FoundationEssentials
import MatterCertificates

/// `matterctl cert verify <cert> [--chain ICAC] [--root RCAC] [--as rcac|icac|noc] [--at TIME]`:
/// validates a Matter operational certificate, or a chain, as the SDK's ValidateChipRCAC and
/// chain validation do (`MatterCertificateValidator`).
struct CertVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "verify",
        abstract: "Validate an operational certificate or chain (RCAC, ICAC, NOC)",
        discussion: """
            Validates the certificate as the role given by --as (default: the role its subject names): an \
            RCAC on its own (self-issued, CA, key usage, path length, its own signature); an ICAC against \
            --root; a NOC against --root, through --chain when it was issued by an ICAC (names, key \
            identifiers, CA and usage rules, signatures, fabric IDs). Validity periods are checked at --at, \
            else now. Exit 0 when valid; exit 1 naming the rule that failed; 64 for usage errors. Either \
            encoding, as cert decode.
            """,
        arguments: [CertCommand.input],
        options: [
            .value("--chain", "ICAC", help: "the ICAC that issued the NOC (file or hex)"),
            .value("--root", "RCAC", help: "the trusted root (file or hex); required for an ICAC or NOC"),
            .value("--as", "ROLE", help: "rcac, icac or noc (default: from the certificate's subject)"),
            .value("--at", "TIME", help: "check validity at this time (ISO 8601) instead of now"),
            .flag("--json", help: "machine-readable result on stdout"),
        ],
        examples: ["matterctl cert verify noc.der --chain icac.der --root rcac.der",
                   "matterctl cert verify rcac.chip-b64 --as rcac"])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let json = args.flag("--json")
        let role: MatterCertificateType?
        switch args.value("--as") {
        case nil: role = nil
        case "rcac": role = .root
        case "icac": role = .intermediate
        case "noc": role = .node
        case let other?: throw UsageError("--as must be rcac, icac or noc, not '\(other)'")
        }
        let time = try AttestationCommand.time(args.value("--at"))
        guard let now = MatterEpochTime(unixSeconds: time.unixSeconds) else { throw UsageError("--at is out of range") }
        let bytes = try CertificateInput.load(args.positional[0])
        let chainBytes = try args.value("--chain").map(CertificateInput.load)
        let rootBytes = try args.value("--root").map(CertificateInput.load)

        var checked = "certificate"
        do throws(CertificateError) {
            let cert = try MatterCertificate(anyEncoding: bytes)
            let effective: MatterCertificateType
            if let role { effective = role } else { effective = try cert.certificateType() }
            checked = effective.description
            let root = try rootBytes.map { b throws(CertificateError) in try MatterCertificate(anyEncoding: b) }
            let icac = try chainBytes.map { b throws(CertificateError) in try MatterCertificate(anyEncoding: b) }
            var facts: [(String, String)] = [("role", effective.rawValue)]
            switch effective {
            case .root:
                guard icac == nil, root == nil else { throw UsageErrorBox.error("an RCAC is verified on its own: drop --chain/--root") }
                try MatterCertificateValidator.validateRoot(cert)
                try MatterCertificateValidator.checkValidity(cert, now: now, "RCAC")
            case .intermediate:
                guard let root else { throw UsageErrorBox.error("an ICAC is verified against its root: add --root RCAC") }
                guard icac == nil else { throw UsageErrorBox.error("--chain is the NOC's ICAC; an ICAC takes only --root") }
                try MatterCertificateValidator.validateIntermediate(cert, rcac: root, now: now)
            case .node:
                guard let root else { throw UsageErrorBox.error("a NOC is verified against its root: add --root RCAC (and --chain ICAC)") }
                let identity = try MatterCertificateValidator.validateChain(noc: cert, icac: icac, rcac: root, now: now)
                facts += [("fabricId", String(identity.fabricID.rawValue, radix: 16, uppercase: true)),
                          ("nodeId", String(identity.nodeID.rawValue, radix: 16, uppercase: true))]
            case .firmwareSigning, .networkIdentity:
                throw UsageErrorBox.error("cert verify checks RCACs, ICACs and NOCs; this is a \(effective) certificate")
            }
            if json {
                Output.out(JSON.object([("valid", .bool(true))] + facts.map { ($0.0, JSON.string($0.1)) }).text)
            } else {
                let detail = facts.dropFirst().map { "\($0.0) \($0.1)" }.joined(separator: ", ")
                Output.out("valid \(effective)" + (detail.isEmpty ? "" : " (\(detail))"))
            }
            return 0
        } catch {
            if case .invalidArgument(let message) = error, message.hasPrefix(UsageErrorBox.prefix) {
                throw UsageError(String(message.dropFirst(UsageErrorBox.prefix.count)))
            }
            if json {
                Output.out(JSON.object([("valid", .bool(false)), ("rule", .string(error.code)),
                                        ("message", .string(error.description))]).text)
            }
            Output.err("error: invalid \(checked): \(error.code): \(error.description)")
            return 1
        }
    }

    /// Carries a usage mistake out of the typed-throws block (as `CertificateError.invalidArgument`).
    enum UsageErrorBox {
        static let prefix = "usage: "
        static func error(_ message: String) -> CertificateError { .invalidArgument(prefix + message) }
    }
}
