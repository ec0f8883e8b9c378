#if canImport(Glibc)
import Glibc
#endif
import MatterClusters
import MatterHome
import MatterServerAPI
import MatterTLV

/// Clusters, attributes and commands on the command line: a number (decimal or 0x hex) or a
/// name of the generated cluster model, in any case ("onoff", "OnOff", "0x6").
enum ModelArguments {
    /// Short names users type for long cluster names.
    static let aliases = ["basic": "BasicInformation"]

    /// Clusters that live on the root node (endpoint 0) rather than on an application endpoint.
    static let rootNodeClusters: Set<UInt32> = [0x1D, 0x1F, 0x28, 0x2A, 0x2B, 0x2C, 0x2D, 0x2E, 0x30, 0x31, 0x32, 0x33, 0x34, 0x35,
                                                0x36, 0x37, 0x38, 0x3C, 0x3E, 0x3F, 0x46]

    static func cluster(_ text: String) throws -> (id: UInt32, definition: ClusterDefinition?) {
        if let id = parseInteger(text, as: UInt32.self) { return (id, Clusters.cluster(id: id)) }
        if let definition = Clusters.cluster(named: aliases[text.lowercased()] ?? text) { return (definition.id.rawValue, definition) }
        throw UsageError("unknown cluster '\(text)': give its number or a name that 'matterctl clusters' lists")
    }

    static func attribute(_ text: String, in cluster: (id: UInt32, definition: ClusterDefinition?)) throws
        -> (id: UInt32, definition: AttributeDefinition?) {
        if let id = parseInteger(text, as: UInt32.self) { return (id, cluster.definition?.attribute(id: id)) }
        if let definition = cluster.definition?.attribute(named: text, ignoringCase: true) { return (definition.id.rawValue, definition) }
        throw UsageError("unknown attribute '\(text)' of cluster \(name(cluster)): see 'matterctl clusters \(name(cluster))'")
    }

    static func command(_ text: String, in cluster: (id: UInt32, definition: ClusterDefinition?)) throws -> ClusterCommand {
        let found = parseInteger(text, as: UInt32.self).map { cluster.definition?.command(id: $0) }
            ?? cluster.definition?.command(named: text, ignoringCase: true)
        guard let found else {
            throw UsageError("unknown command '\(text)' of cluster \(name(cluster)): see 'matterctl clusters \(name(cluster))'")
        }
        return found
    }

    static func name(_ cluster: (id: UInt32, definition: ClusterDefinition?)) -> String {
        cluster.definition?.name ?? hex(cluster.id)
    }

    static func endpoint(_ args: ParsedArguments, cluster: UInt32) throws -> UInt16 {
        try args.integer("--endpoint", as: UInt16.self) ?? (rootNodeClusters.contains(cluster) ? 0 : 1)
    }

    static func hex(_ v: UInt32, digits: Int = 4) -> String { "0x" + String(printf: "%0\(digits)X", v) }

    /// A value as the user typed it: JSON, or, for a string attribute, the bare text.
    static func json(_ text: String, for type: MatterDataType?) throws -> JSONValue {
        if let value = try? JSONParser.parse(text) { return value }
        if case .string? = type { return .string(text) }
        if case .nullable(.string)? = type { return .string(text) }
        throw UsageError("'\(text)' is not a JSON value (quote strings, e.g. '\"Kitchen\"')")
    }

    static let endpointOption = OptionDeclaration.value(
        "--endpoint", "E", help: "the endpoint (default 0 for the root node's clusters such as BasicInformation, else 1)")
    static let timedOption = OptionDeclaration.value(
        "--timed", "MS",
        help: "a timed interaction that must complete within MS milliseconds (default: 10000 where the spec requires one; 0: not timed)")

    /// `--timed MS`: 0 sends it untimed (as chip-tool's --timedInteractionTimeoutMs 0 does, to see
    /// how a device answers that); absent, timed where the model says the spec requires it.
    static func timedTimeout(_ args: ParsedArguments, required: Bool) throws -> UInt16? {
        guard let ms = try args.integer("--timed", as: UInt16.self) else { return required ? Device.defaultTimedTimeoutMs : nil }
        return ms == 0 ? nil : ms
    }
}

/// `matterctl clusters [<cluster>]`: what the generated model knows.
struct ClustersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "clusters",
        abstract: "List the clusters this tool knows, or one cluster's attributes, commands and events",
        arguments: [.init("cluster", help: "a cluster name or number", arity: .optional)],
        options: [.flag("--json", help: "JSON on stdout")],
        examples: ["matterctl clusters", "matterctl clusters doorlock"])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let json = args.flag("--json")
        guard let text = args.positional.first else {
            if json {
                Output.out(JSONWriter.string(.array(Clusters.all.map { c in
                    .object(["id": .integer(c.id.rawValue), "name": .string(c.name), "attributes": .integer(c.attributes.count),
                             "commands": .integer(c.commands.count), "events": .integer(c.events.count)])
                })))
            } else {
                for c in Clusters.all {
                    Output.out("\(ModelArguments.hex(c.id.rawValue, digits: c.id.rawValue > 0xFFFF ? 8 : 4))  \(c.name)")
                }
            }
            return 0
        }
        let cluster = try ModelArguments.cluster(text)
        guard let definition = cluster.definition else { throw CommandFailure("cluster \(ModelArguments.hex(cluster.id)) is not in the model") }
        if json {
            Output.out(JSONWriter.string(describe(definition)))
            return 0
        }
        Output.out("\(definition.name) (\(ModelArguments.hex(definition.id.rawValue)))")
        Output.out("attributes:")
        for a in definition.attributes {
            let flags = [a.isWritable ? "writable" : nil, a.requiresTimedWrite ? "timed write" : nil, a.isOptional ? "optional" : nil,
                         a.isFabricScoped ? "fabric-scoped" : nil].compactMap { $0 }
            Output.out("  \(ModelArguments.hex(a.id.rawValue))  \(a.name): \(a.type.shortName)"
                       + (flags.isEmpty ? "" : "  [\(flags.joined(separator: ", "))]"))
        }
        if !definition.commands.isEmpty { Output.out("commands:") }
        for c in definition.commands {
            let fields = c.fields.map { "\($0.name)\($0.isOptional ? "?" : ""): \($0.type.shortName)" }.joined(separator: ", ")
            Output.out("  \(ModelArguments.hex(c.id, digits: 2))  \(c.name)(\(fields))" + (c.response.map { " -> \($0.name)" } ?? "")
                       + (c.requiresTimedInvoke ? "  [timed]" : ""))
        }
        if !definition.events.isEmpty { Output.out("events:") }
        for e in definition.events {
            Output.out("  \(ModelArguments.hex(e.id, digits: 2))  \(e.name)(\(e.fields.map { "\($0.name): \($0.type.shortName)" }.joined(separator: ", ")))")
        }
        return 0
    }

    static func describe(_ c: ClusterDefinition) -> JSONValue {
        func fields(_ f: [MatterField]) -> JSONValue {
            .array(f.map { .object(["name": .string($0.name), "tag": .integer($0.tag), "type": .string($0.type.shortName),
                                    "optional": .bool($0.isOptional)]) })
        }
        return .object([
            "id": .integer(c.id.rawValue), "name": .string(c.name),
            "attributes": .array(c.attributes.map { a in
                .object(["id": .integer(a.id.rawValue), "name": .string(a.name), "type": .string(a.type.shortName),
                         "writable": .bool(a.isWritable), "timed_write": .bool(a.requiresTimedWrite), "optional": .bool(a.isOptional),
                         "fabric_scoped": .bool(a.isFabricScoped)])
            }),
            "commands": .array(c.commands.map { cmd in
                .object(["id": .integer(cmd.id), "name": .string(cmd.name), "fields": fields(cmd.fields),
                         "response": cmd.response.map { .string($0.name) } ?? .null, "timed": .bool(cmd.requiresTimedInvoke)])
            }),
            "events": .array(c.events.map { e in .object(["id": .integer(e.id), "name": .string(e.name), "fields": fields(e.fields)]) }),
        ])
    }
}

/// `matterctl read <node> <cluster> <attribute> [--endpoint E]`, with `*` for any endpoint,
/// cluster or attribute.
struct ReadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "read",
        abstract: "Read attributes from a commissioned device",
        usesHubState: true,
        arguments: [
            .nodeID,
            .init("cluster", help: "a cluster number or name (see 'matterctl clusters'), or * for every cluster"),
            .init("attribute", help: "an attribute number or name (see 'matterctl clusters CLUSTER'), or * for every attribute"),
        ],
        options: [OptionDeclaration.value("--endpoint", "E", help: "the endpoint, or * for every one (default 0 for the root node's "
                                          + "clusters such as BasicInformation, 1 for others, every endpoint for cluster *)"),
                  .flag("--json", help: "one JSON object on stdout")],
        examples: ["matterctl read 0x1234 basicinformation vendorname", "matterctl read 0x1234 levelcontrol currentlevel --endpoint 1",
                   "matterctl read 0x1234 onoff '*' --endpoint '*'"])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let node = try parseNodeID(args.positional[0])
        let cluster = args.positional[1] == "*" ? nil : try ModelArguments.cluster(args.positional[1])
        var attribute: (id: UInt32, definition: AttributeDefinition?)?
        if args.positional[2] != "*" {
            guard let cluster else {
                guard let id = parseInteger(args.positional[2], as: UInt32.self) else {
                    throw UsageError("with cluster *, the attribute is a number (a global one, e.g. 0xFFFD) or *")
                }
                attribute = (id, nil)
                return try await read(args, node: node, cluster: nil, attribute: attribute)
            }
            attribute = try ModelArguments.attribute(args.positional[2], in: cluster)
        }
        return try await read(args, node: node, cluster: cluster, attribute: attribute)
    }

    static func read(_ args: ParsedArguments, node: NodeID, cluster: (id: UInt32, definition: ClusterDefinition?)?,
                     attribute: (id: UInt32, definition: AttributeDefinition?)?) async throws -> Int32 {
        let endpoint: UInt16?
        if args.value("--endpoint") == "*" {
            endpoint = nil
        } else if let cluster {
            endpoint = try ModelArguments.endpoint(args, cluster: cluster.id)
        } else {
            endpoint = try args.integer("--endpoint", as: UInt16.self)
        }
        let home = try await HomeCommands.open(args.stateDirectory)
        defer { Task { await home.close() } }
        let json = args.flag("--json")
        do {
            let device = try await home.device(node)
            if let endpoint, let cluster, let attribute {
                let value = try await device.read(endpoint: endpoint, cluster: cluster.id, attribute: attribute.id)
                Output.out(json ? JSON.object([("value", jsonValue(value))]).text : textValue(value))
                return 0
            }
            let values = try await device.read(endpoint: endpoint, cluster: cluster?.id, attribute: attribute?.id)
            if json {
                Output.out(JSON.object([("attributes", .array(values.map { v in
                    .object([("endpoint", .uint(UInt64(v.endpoint))), ("cluster", .uint(UInt64(v.cluster))),
                             ("attribute", .uint(UInt64(v.attribute))), ("name", .string(name(of: v))), ("value", jsonValue(v.value))])
                }))]).text)
            } else {
                for v in values { Output.out("\(v.endpoint)/\(name(of: v)) = \(jsonValue(v.value).text)") }
            }
        } catch {
            throw CommandFailure(error.description)
        }
        return 0
    }

    /// "OnOff/OnOff", or the numbers the model does not name ("0xFFF1FC00/0x0001").
    static func name(of v: AttributeValue) -> String {
        let cluster = Clusters.cluster(id: v.cluster)
        return "\(cluster?.name ?? ModelArguments.hex(v.cluster))/\(cluster?.attribute(id: v.attribute)?.name ?? ModelArguments.hex(v.attribute))"
    }

    static func jsonValue(_ e: TLVElement) -> JSON {
        switch e.value {
        case .utf8(let s): return .string(s)
        case .unsigned(let n): return .uint(n)
        case .signed(let n): return .int(n)
        case .bool(let b): return .bool(b)
        case .null: return .null
        case .float(let f): return .double(Double(f))
        case .double(let d): return .double(d)
        case .bytes(let b): return .string(Base16.encode(b))
        case .container(_, let members): return .array(members.map(jsonValue))
        }
    }

    static func textValue(_ e: TLVElement) -> String {
        if case .utf8(let s) = e.value { return s }
        return jsonValue(e).text
    }
}

/// `matterctl write <node> <cluster> <attribute> <value>`: the value is JSON, converted to the
/// attribute's type in the model (a mismatch is refused before anything is sent).
struct WriteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "write",
        abstract: "Write an attribute of a commissioned device",
        usesHubState: true,
        arguments: [
            .nodeID,
            .init("cluster", help: "a cluster number or name (see 'matterctl clusters')"),
            .init("attribute", help: "an attribute number or name (see 'matterctl clusters CLUSTER')"),
            .init("value", help: "the new value as JSON (a bare word for a string attribute); structures tag-keyed, {\"0\": 1}"),
        ],
        options: [ModelArguments.endpointOption, ModelArguments.timedOption],
        examples: ["matterctl write 0x1234 basicinformation nodelabel Kitchen", "matterctl write 0x1234 onoff ontime 30"])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let node = try parseNodeID(args.positional[0])
        let cluster = try ModelArguments.cluster(args.positional[1])
        let attribute = try ModelArguments.attribute(args.positional[2], in: cluster)
        let endpoint = try ModelArguments.endpoint(args, cluster: cluster.id)
        let type = attribute.definition?.type
        let value: TLVElement
        do {
            value = try AttributeValueCoding.tlv(from: try ModelArguments.json(args.positional[3], for: type), as: type ?? .any)
        } catch let error as ValueCodingError {
            throw UsageError("\(attribute.definition?.name ?? ModelArguments.hex(attribute.id)) is \(type?.shortName ?? "untyped"): \(error)")
        }
        let timed = try ModelArguments.timedTimeout(args, required: attribute.definition?.requiresTimedWrite == true)
        let home = try await HomeCommands.open(args.stateDirectory)
        defer { Task { await home.close() } }
        do {
            try await home.device(node).write(endpoint: endpoint, cluster: cluster.id, attribute: attribute.id, value: value,
                                              timedTimeoutMs: timed)
            Output.out("OK")
        } catch {
            throw CommandFailure(error.description)
        }
        return 0
    }
}

/// `matterctl invoke <node> <cluster> <command> [<fields>]`: the fields are a JSON object keyed
/// by the command's field names, as `device_command` takes them; the response is printed the
/// same way.
struct InvokeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "invoke",
        abstract: "Send a command to a commissioned device and print its response",
        usesHubState: true,
        arguments: [
            .nodeID,
            .init("cluster", help: "a cluster number or name (see 'matterctl clusters')"),
            .init("command", help: "a command number or name (see 'matterctl clusters CLUSTER')"),
            .init("fields", help: "the command's fields as a JSON object keyed by field name", arity: .optional),
        ],
        options: [ModelArguments.endpointOption, ModelArguments.timedOption, .flag("--json", help: "the response as JSON on stdout")],
        examples: ["matterctl invoke 0x1234 onoff toggle",
                   "matterctl invoke 0x1234 levelcontrol movetolevelwithonoff '{\"level\": 128}'"])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let node = try parseNodeID(args.positional[0])
        let cluster = try ModelArguments.cluster(args.positional[1])
        let command = try ModelArguments.command(args.positional[2], in: cluster)
        let endpoint = try ModelArguments.endpoint(args, cluster: cluster.id)
        let fields: TLVElement
        do {
            let text = args.positional.count > 3 ? args.positional[3] : "{}"
            guard let object = try JSONParser.parse(text).objectValue else {
                throw UsageError("the fields of \(command.name) are a JSON object, e.g. '{\"level\": 128}'")
            }
            fields = try command.encodePayload(object)
        } catch let error as JSONError {
            throw UsageError("the fields of \(command.name) are not JSON: \(error)")
        } catch let error as ValueCodingError {
            let expected = command.fields.map { "\($0.name)\($0.isOptional ? "?" : ""): \($0.type.shortName)" }.joined(separator: ", ")
            throw UsageError("\(command.name)(\(expected)): \(error)")
        }
        let timed = try ModelArguments.timedTimeout(args, required: command.requiresTimedInvoke)
        let home = try await HomeCommands.open(args.stateDirectory)
        defer { Task { await home.close() } }
        let response: TLVElement?
        do {
            response = try await home.device(node).invoke(endpoint: endpoint, cluster: cluster.id, command: command.id, fields: fields,
                                                          timedTimeoutMs: timed)
        } catch {
            throw CommandFailure(error.description)
        }
        guard let response else {
            Output.out(args.flag("--json") ? "{}" : "OK")
            return 0
        }
        let decoded: JSONValue
        if let spec = command.response, let named = try? spec.decode(response) {
            decoded = named
        } else {
            decoded = (try? AttributeValueCoding.json(from: response)) ?? .null
        }
        Output.out(JSONWriter.string(decoded))
        return 0
    }
}

/// `matterctl subscribe <node> <cluster> <attribute|event>`: prints each report until
/// interrupted (or `--count` reports).
struct SubscribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "subscribe",
        abstract: "Print a device's reports of an attribute or event until interrupted",
        usesHubState: true,
        arguments: [
            .nodeID,
            .init("cluster", help: "a cluster number or name (see 'matterctl clusters'), or *"),
            .init("path", help: "an attribute or event number or name (see 'matterctl clusters CLUSTER'), or *"),
        ],
        options: [
            OptionDeclaration.value("--endpoint", "E", help: "the endpoint, or * (default 0 for the root node's clusters, else 1)"),
            .flag("--event", help: "the path names an event (a name that is no attribute is taken as an event anyway)"),
            .value("--min", "S", help: "the shortest interval between reports, in seconds (default 0; embedded only: through a "
                   + "hub, its own subscription to the device reports)"),
            .value("--max", "S", help: "the longest interval without a report, in seconds (default 60; embedded only)"),
            .value("--count", "N", help: "stop after N reports (the first holds every current value)"),
            .flag("--json", help: "one JSON object per report"),
        ],
        examples: ["matterctl subscribe 0x1234 onoff onoff", "matterctl subscribe 0x1234 switch '*' --event --endpoint 1"])

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let node = try parseNodeID(args.positional[0])
        let cluster = args.positional[1] == "*" ? nil : try ModelArguments.cluster(args.positional[1])
        let text = args.positional[2]
        var kind: HubSubscriptionPath.Kind = args.flag("--event") ? .event : .attribute
        var id: UInt32?
        if text != "*" {
            if let number = parseInteger(text, as: UInt32.self) {
                id = number
            } else if kind == .attribute, let a = cluster?.definition?.attribute(named: text, ignoringCase: true) {
                id = a.id.rawValue
            } else if let e = cluster?.definition?.event(named: text, ignoringCase: true) {
                (kind, id) = (.event, e.id)
            } else {
                throw UsageError("'\(text)' is no attribute or event of \(cluster.map(ModelArguments.name) ?? "cluster *"): see "
                                 + "'matterctl clusters \(cluster.map(ModelArguments.name) ?? "")'")
            }
        }
        let endpoint: UInt16? = args.value("--endpoint") == "*" ? nil
            : try cluster.map { try ModelArguments.endpoint(args, cluster: $0.id) } ?? args.integer("--endpoint", as: UInt16.self)
        let count = try args.integer("--count", as: Int.self)
        let minInterval = try args.integer("--min", as: UInt16.self) ?? 0
        let maxInterval = try args.integer("--max", as: UInt16.self) ?? 60
        guard minInterval <= maxInterval else { throw UsageError("--min must not exceed --max") }
        let home = try await HomeCommands.open(args.stateDirectory)
        defer { Task { await home.close() } }
        let path = HubSubscriptionPath(kind, endpoint: endpoint, cluster: cluster?.id, id: id)
        var seen = 0
        do {
            let device = try await home.device(node)
            for try await report in device.subscribe(path, minInterval: minInterval, maxInterval: maxInterval) {
                print(report, json: args.flag("--json"))
                seen += 1
                if let count, seen >= count { break }
            }
        } catch {
            throw CommandFailure(String(describing: error))
        }
        return 0
    }

    static func print(_ report: SubscriptionReport, json: Bool) {
        if json {
            Output.out(JSONWriter.string(.object([
                "attributes": .array(report.attributes.map { v in
                    .object(["endpoint": .integer(v.endpoint), "cluster": .integer(v.cluster), "attribute": .integer(v.attribute),
                             "name": .string(ReadCommand.name(of: v)), "value": (try? AttributeValueCoding.json(from: v.value)) ?? .null])
                }),
                "events": .array(report.events.map { e in
                    .object(["endpoint": .integer(e.endpoint), "cluster": .integer(e.cluster), "event": .integer(e.event),
                             "number": .integer(e.number), "name": .string(name(of: e)), "data": data(of: e)])
                }),
            ])))
        } else {
            for v in report.attributes { Output.out("\(v.endpoint)/\(ReadCommand.name(of: v)) = \(ReadCommand.jsonValue(v.value).text)") }
            for e in report.events { Output.out("\(e.endpoint)/\(name(of: e)) #\(e.number) \(JSONWriter.string(data(of: e)))") }
        }
        fflush(nil)
    }

    static func name(of e: EventValue) -> String {
        let cluster = Clusters.cluster(id: e.cluster)
        return "\(cluster?.name ?? ModelArguments.hex(e.cluster))/\(cluster?.event(id: e.event)?.name ?? ModelArguments.hex(e.event))"
    }

    static func data(of e: EventValue) -> JSONValue {
        e.data.map { ClusterEventCatalog.json(cluster: e.cluster, event: e.event, data: $0) } ?? .null
    }
}
