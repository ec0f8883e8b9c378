import FoundationEssentials
import MatterCertificates
import MatterTrustStore

/// `matterctl attestation trust-store list|add|remove|update`: the default PAA trust store
/// (production roots built in, plus the state directory's trust-store/ folder).
struct TrustStoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "trust-store",
        abstract: "List, add, remove or update the PAAs (and CRLs) commissioning trusts",
        discussion: """
            The default trust store is the production PAA roots built into matterctl (the CSA's DCL mirror \
            in the SDK) plus the trust-store/ folder of the hub's state directory: its store.json (kept by \
            add, remove and update) and any *.pem/*.der file put there by hand. commission uses it unless \
            --paa-store is given. Test PAAs are refused at commissioning unless --allow-test-devices.
            """,
        subcommands: [List.self, Add.self, Remove.self, Update.self])

    static func editor(_ args: ParsedArguments) -> TrustStoreEditor {
        TrustStoreEditor(stateDirectory: args.stateDirectory)
    }

    static func load(_ args: ParsedArguments) throws -> TrustStore {
        do { return try TrustStore.load(stateDirectory: args.stateDirectory) } catch { throw CommandFailure(error.message) }
    }

    /// `matterctl attestation trust-store list [--json]`
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "list",
            abstract: "Show every trusted PAA, the CSA CD signing certificates and the stored CRLs",
            usesHubState: true,
            options: [.flag("--json", help: "machine-readable output on stdout")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let store = try TrustStoreCommand.load(args)
            for w in store.warnings { Output.err("warning: \(w)") }
            let cd = CDSigningKeyStore.csaSigningCertificates
            let now = Int64(Date().timeIntervalSince1970)
            if args.flag("--json") {
                Output.out(JSON.object([
                    ("paas", .array(store.paas.map { p in .object([
                        ("subject", .from(p.commonName)), ("vendorId", .from(p.vendorID)),
                        ("subjectKeyId", .string(p.subjectKeyIdentifierHex)), ("origin", .string(p.origin)),
                        ("file", .from(p.file)), ("notAfter", .string(p.notAfter.iso8601)), ("test", .bool(p.isTestPAA)),
                    ]) })),
                    ("cdSigningCertificates", .array(cd.map { c in .object([
                        ("subject", .from(c.certificate.subject.first(AttestationVendorProduct.commonNameAttribute)?.stringValue)),
                        ("subjectKeyId", .string(TrustStoreHex.encode(c.certificate.subjectKeyIdentifier ?? []))),
                        ("origin", .string("built in")), ("notAfter", .string(c.certificate.notAfter.iso8601)),
                        ("test", .bool(c.isTestKey)),
                    ]) })),
                    ("crls", .array(store.crls.map { c in .object([
                        ("label", .string(c.label)), ("url", .from(c.url)),
                        ("issuerSubjectKeyId", .string(TrustStoreHex.encode(c.issuerSubjectKeyIdentifier))),
                        ("revoked", .from(c.crl.entries.count)),
                        ("nextUpdate", .from(c.crl.nextUpdate.flatMap { try? ASN1Time(unixSeconds: $0) }?.iso8601)),
                        ("stale", .bool(c.secondsPastNextUpdate(at: now) > 7 * 86_400)),
                    ]) })),
                    ("lastUpdate", store.lastUpdate.map { .object([("source", .string($0.source)), ("at", .from(Int($0.at)))]) } ?? .null),
                ]).text)
                return 0
            }
            var lines = ["\(store.count) PAAs (\(args.stateDirectory)/\(TrustStore.folderName)):",
                         "  " + "SUBJECT".padding(to: 44) + " " + "VID".padding(to: 6) + " " + "SUBJECT KEY ID".padding(to: 40)
                            + " " + "VALID UNTIL".padding(to: 10) + "  ORIGIN"]
            for p in store.paas {
                let vid = p.vendorID.map { AttestationCommand.hex16($0) } ?? "-"
                lines.append("  " + String((p.commonName ?? "(no common name)").prefix(44)).padding(to: 44) + " " + vid.padding(to: 6) + " "
                             + p.subjectKeyIdentifierHex.padding(to: 40) + " " + String(p.notAfter.iso8601.prefix(10)) + "  "
                             + p.origin + (p.isTestPAA ? " (test PAA)" : ""))
            }
            lines.append("")
            lines.append("\(cd.count) CSA CD signing certificates (built in):")
            for c in cd {
                let name = c.certificate.subject.first(AttestationVendorProduct.commonNameAttribute)?.stringValue ?? "(no common name)"
                lines.append("  " + String(name.prefix(44)).padding(to: 44) + " " + "-".padding(to: 6) + " "
                             + TrustStoreHex.encode(c.certificate.subjectKeyIdentifier ?? []).padding(to: 40) + " "
                             + String(c.certificate.notAfter.iso8601.prefix(10)) + (c.isTestKey ? "  (test key)" : ""))
            }
            lines.append("")
            lines.append("\(store.crls.count) CRLs" + (store.lastUpdate.map { " (last update \(Self.date($0.at)) from \($0.source))" } ?? ""))
            for c in store.crls {
                let next = c.crl.nextUpdate.map(Self.date) ?? "-"
                let stale = c.secondsPastNextUpdate(at: now) > 7 * 86_400 ? "  STALE: run 'matterctl attestation trust-store update'" : ""
                lines.append("  \(c.label): \(c.crl.entries.count) revoked, next update \(next), \(c.url ?? "")\(stale)")
            }
            Output.out(lines.joined(separator: "\n"))
            return 0
        }

        static func date(_ unix: Int64) -> String {
            (try? ASN1Time(unixSeconds: unix))?.iso8601 ?? "\(unix)"
        }
    }

    /// `matterctl attestation trust-store add FILE`
    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "add",
            abstract: "Trust the PAA(s) in a PEM or DER file",
            discussion: "Each certificate must be a self-signed PAA (Matter PAA profile) valid now. Exit 1 naming why not.",
            usesHubState: true,
            arguments: [.init("file", help: "a PAA certificate, PEM or DER")],
            options: [.flag("--json", help: "machine-readable report on stdout")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let path = args.positional[0]
            guard let data = FileManager.default.contents(atPath: path) else { throw CommandFailure("cannot read \(path)") }
            let report: TrustStoreReport
            do {
                report = try TrustStoreCommand.editor(args).add(fileContents: [UInt8](data), origin: "file \(path)")
            } catch { throw CommandFailure(error.message) }
            TrustStoreCommand.print(report, json: args.flag("--json"))
            return 0
        }
    }

    /// `matterctl attestation trust-store remove SKID`
    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "remove",
            abstract: "Stop trusting the PAA with this subject key ID",
            discussion: "A stored PAA is deleted; a built-in one is marked distrusted (until added again).",
            usesHubState: true,
            arguments: [.init("skid", help: "subject key identifier, hex (colons allowed), as list shows it")])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let removed: [TrustedPAA]
            do { removed = try TrustStoreCommand.editor(args).remove(subjectKeyID: args.positional[0]) } catch {
                throw CommandFailure(error.message)
            }
            for p in removed { Output.out("removed \(p.commonName ?? "(no common name)") \(p.subjectKeyIdentifierHex) (\(p.origin))") }
            return 0
        }
    }

    /// `matterctl attestation trust-store update [--dcl URL] [--test-net] | --from-dir DIR`
    struct Update: ParsableCommand {
        static let configuration = CommandConfiguration(
            name: "update",
            abstract: "Fetch the approved PAAs and their CRLs from the DCL (or import a folder)",
            discussion: """
                Reads the DCL's list of approved root certificates, then each certificate, and keeps those that \
                are self-signed PAAs valid now; then fetches the CRL of every revocation distribution point \
                whose issuer chains to a trusted PAA and keeps those whose signature verifies. The store is \
                written once, at the end: when the DCL is unreachable or answers something malformed, exit 1 \
                and the store is unchanged. With --from-dir, imports the *.pem/*.der files of a folder (e.g. the \
                SDK's credentials/production/paa-root-certs) instead, offline.
                """,
            usesHubState: true,
            options: [
                .value("--dcl", "URL", help: "the DCL REST endpoint (default: https://on.dcl.csa-iot.org)"),
                .flag("--test-net", help: "use the DCL test net (https://on.test-net.dcl.csa-iot.org): test PAAs"),
                .value("--from-dir", "DIR", help: "import a folder of PAA files instead of using the DCL"),
                .flag("--json", help: "machine-readable report on stdout"),
            ])

        static func run(_ args: ParsedArguments) async throws -> Int32 {
            let editor = TrustStoreCommand.editor(args)
            let json = args.flag("--json")
            if let dir = args.value("--from-dir") {
                guard args.value("--dcl") == nil, !args.flag("--test-net") else {
                    throw UsageError("--from-dir imports a folder; it does not go with --dcl or --test-net")
                }
                do { TrustStoreCommand.print(try editor.importDirectory(dir), json: json) } catch { throw CommandFailure(error.message) }
                return 0
            }
            if args.value("--dcl") != nil && args.flag("--test-net") { throw UsageError("give --dcl or --test-net, not both") }
            var base = args.flag("--test-net") ? DCLClient.testNet : DCLClient.production
            if let text = args.value("--dcl") {
                guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
                      url.host != nil else { throw UsageError("--dcl expects an http(s) URL, got '\(text)'") }
                base = url
            }
            if !json { Output.err("fetching the approved PAAs and CRLs from \(base.absoluteString) ...") }
            do {
                TrustStoreCommand.print(try await editor.update(from: DCLClient(base: base)), json: json)
            } catch {
                throw CommandFailure("\(error.message); the trust store is unchanged")
            }
            return 0
        }
    }

    static func print(_ r: TrustStoreReport, json: Bool) {
        func items(_ list: [TrustStoreReport.Item]) -> JSON {
            .array(list.map { .object([("name", .string($0.name)), ("subjectKeyId", .string($0.subjectKeyID)), ("reason", .from($0.reason))]) })
        }
        if json {
            Output.out(JSON.object([("added", items(r.added)), ("unchanged", items(r.unchanged)), ("skipped", items(r.skipped)),
                                    ("crlsStored", items(r.crlsStored)), ("crlsSkipped", items(r.crlsSkipped))]).text)
            return
        }
        var lines = ["added \(r.added.count), unchanged \(r.unchanged.count), skipped \(r.skipped.count)"
                     + (r.crlsStored.isEmpty && r.crlsSkipped.isEmpty ? "" : "; CRLs stored \(r.crlsStored.count), skipped \(r.crlsSkipped.count)")]
        for i in r.added { lines.append("  added    \(i.name) \(i.subjectKeyID)") }
        for i in r.skipped { lines.append("  skipped  \(i.name) \(i.subjectKeyID): \(i.reason ?? "")") }
        for i in r.crlsStored { lines.append("  CRL      \(i.name)") }
        for i in r.crlsSkipped { lines.append("  CRL skipped \(i.name): \(i.reason ?? "")") }
        Output.out(lines.joined(separator: "\n"))
    }
}
