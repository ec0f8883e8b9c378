import MatterClusters
import MatterServerAPI
import Testing

@Suite struct ServerCommandTests {
    func decode(_ text: String) throws -> ServerCommand {
        let message = try CommandMessage.parse(Array(text.utf8))
        return try ServerCommand.decode(message)
    }

    func error(_ text: String) -> APIError? {
        do {
            _ = try decode(text)
            return nil
        } catch let e as APIError {
            return e
        } catch {
            return nil
        }
    }

    @Test func deviceCommandAsTheClientSendsIt() throws {
        // The 8.1.2 client's frame for Clusters.LevelControl.Commands.MoveToLevelWithOnOff(level=128).
        let text = """
        {
          "message_id": "c9648fd9e9bd4f1ba5ffd809b9377a39",
          "command": "device_command",
          "args": {
            "node_id": 30, "endpoint_id": 1, "cluster_id": 8, "command_name": "MoveToLevelWithOnOff",
            "payload": {"level": 128, "transitionTime": null, "optionsMask": 0, "optionsOverride": 0},
            "response_type": null, "timed_request_timeout_ms": null, "interaction_timeout_ms": null
          }
        }
        """
        guard case .deviceCommand(let a) = try decode(text) else { Issue.record("not device_command"); return }
        #expect(a.nodeID == 30 && a.endpointID == 1 && a.clusterID == 8 && a.commandName == "MoveToLevelWithOnOff")
        #expect(a.payload["level"] == .int(128))
        #expect(a.timedRequestTimeoutMs == nil)
    }

    @Test func defaultsAreFilledIn() throws {
        #expect(try decode(#"{"message_id":"1","command":"start_listening","args":null}"#) == .startListening)
        #expect(try decode(#"{"message_id":"1","command":"start_listening"}"#) == .startListening)
        #expect(try decode(#"{"message_id":"1","command":"open_commissioning_window","args":{"node_id":5}}"#)
            == .openCommissioningWindow(nodeID: 5, timeout: 300, iteration: 1000, option: 1, discriminator: nil))
        #expect(try decode(#"{"message_id":"1","command":"commission_with_code","args":{"code":"MT:Y.K9042C00KA0648G00"}}"#)
            == .commissionWithCode(code: "MT:Y.K9042C00KA0648G00", networkOnly: false))
        #expect(try decode(#"{"message_id":"1","command":"ping_node","args":{"node_id":5}}"#) == .pingNode(nodeID: 5, attempts: 1))
        #expect(try decode(#"{"message_id":"1","command":"get_nodes","args":{}}"#) == .getNodes(onlyAvailable: false))
        // Unknown arguments are ignored.
        #expect(try decode(#"{"message_id":"1","command":"interview_node","args":{"node_id":5,"extra":[1]}}"#)
            == .interviewNode(nodeID: 5))
    }

    /// Schema 12's named credential entries: `id` absent or null is the reserved `default`
    /// (matter-python-client 1.6 sends `"default"` on every set and remove).
    @Test func credentialEntries() throws {
        #expect(try decode(#"{"message_id":"1","command":"set_wifi_credentials","args":{"ssid":"Home","credentials":"pw"}}"#)
            == .setWifiCredentials(ssid: "Home", credentials: "pw", id: "default"))
        #expect(try decode(#"{"message_id":"1","command":"set_wifi_credentials","args":{"ssid":"Guest","credentials":"","id":"Guest"}}"#)
            == .setWifiCredentials(ssid: "Guest", credentials: "", id: "Guest"))
        #expect(try decode(#"{"message_id":"1","command":"set_thread_dataset","args":{"dataset":"0e08","id":null}}"#)
            == .setThreadDataset(dataset: "0e08", id: "default"))
        #expect(try decode(#"{"message_id":"1","command":"remove_wifi_credentials","args":{"id":"default"}}"#) == .removeWifiCredentials(id: "default"))
        #expect(try decode(#"{"message_id":"1","command":"remove_thread_dataset"}"#) == .removeThreadDataset(id: "default"))
        #expect(try decode(#"{"message_id":"1","command":"remove_thread_dataset","args":{"id":"Lab"}}"#) == .removeThreadDataset(id: "Lab"))
        #expect(try decode(#"{"message_id":"1","command":"get_all_credentials"}"#) == .getAllCredentials)
        #expect(try decode(#"{"message_id":"1","command":"commission_with_code","args":{"code":"34970112332","wifi_credentials_id":"Guest","thread_dataset_id":"Lab"}}"#)
            == .commissionWithCode(code: "34970112332", networkOnly: false, wifiCredentialsID: "Guest", threadDatasetID: "Lab"))
        for text in [#"{"message_id":"1","command":"set_wifi_credentials","args":{"ssid":"Home","credentials":"pw","id":""}}"#,
                     #"{"message_id":"1","command":"set_thread_dataset","args":{"dataset":"","id":"Lab"}}"#,
                     #"{"message_id":"1","command":"remove_wifi_credentials","args":{"id":7}}"#] {
            let e = error(text)
            #expect(e?.code == .invalidArguments, "\(text): \(String(describing: e))")
            #expect(e?.details.contains("pw") == false, "a secret in an error: \(String(describing: e))")
        }
    }

    @Test func cameraStreamingIsRefusedByName() {
        let e = error(#"{"message_id":"1","command":"send_webrtc_provider_command","args":{"node_id":1,"endpoint_id":1}}"#)
        #expect(e?.code == .invalidCommand && e?.details.contains("no camera support") == true, "\(String(describing: e))")
    }

    @Test func fabricLabelIsCutTo32Characters() throws {
        let long = String(repeating: "x", count: 40)
        #expect(try decode(#"{"message_id":"1","command":"set_default_fabric_label","args":{"label":"\#(long)"}}"#)
            == .setDefaultFabricLabel(label: String(repeating: "x", count: 32)))
        #expect(try decode(#"{"message_id":"1","command":"set_default_fabric_label","args":{"label":null}}"#)
            == .setDefaultFabricLabel(label: nil))
    }

    @Test func nodeIDsUpTo64Bits() throws {
        #expect(try decode(#"{"message_id":"1","command":"get_node","args":{"node_id":18446744073709551615}}"#)
            == .getNode(nodeID: UInt64.max))
    }

    @Test func readAttributePaths() throws {
        #expect(try decode(#"{"message_id":"1","command":"read_attribute","args":{"node_id":1,"attribute_path":["1/6/0","0/*/1"]}}"#)
            == .readAttribute(nodeID: 1, paths: [AttributePathPattern(endpoint: 1, cluster: 6, attribute: 0),
                                                 AttributePathPattern(endpoint: 0, cluster: nil, attribute: 1)],
                              fabricFiltered: false))
        #expect(error(#"{"message_id":"1","command":"read_attribute","args":{"node_id":1,"attribute_path":"1/6"}}"#)?.code
            == .invalidArguments)
        // Schema 14: `*` as the endpoint writes every endpoint with the attribute; elsewhere no wildcard.
        #expect(error(#"{"message_id":"1","command":"write_attribute","args":{"node_id":1,"attribute_path":"1/*/0","value":1}}"#)?.code
            == .invalidArguments)
    }

    @Test func unknownCommandIsError9() {
        let e = error(#"{"message_id":"1","command":"no_such_command","args":{}}"#)
        #expect(e == APIError(.invalidCommand, "Invalid command: no_such_command"))
    }

    static let badArguments: [String] = [
        #"{"message_id":"1","command":"get_node","args":{}}"#,                          // missing
        #"{"message_id":"1","command":"get_node","args":{"node_id":null}}"#,            // null for required
        #"{"message_id":"1","command":"get_node","args":{"node_id":"30"}}"#,            // string for int
        #"{"message_id":"1","command":"get_node","args":{"node_id":30.0}}"#,            // float for int
        #"{"message_id":"1","command":"get_node","args":{"node_id":-1}}"#,              // negative node id
        #"{"message_id":"1","command":"get_node","args":{"node_id":1e30}}"#,                // exponent for int
        #"{"message_id":"1","command":"commission_with_code","args":{"code":"x","network_only":1}}"#,  // int for bool
        #"{"message_id":"1","command":"device_command","args":{"node_id":1,"endpoint_id":70000,"cluster_id":6,"command_name":"On"}}"#,
        #"{"message_id":"1","command":"device_command","args":{"node_id":1,"endpoint_id":1,"cluster_id":6,"command_name":"On","payload":[]}}"#,
        #"{"message_id":"1","command":"get_vendor_names","args":{"filter_vendors":[1,"x"]}}"#,
        #"{"message_id":"1","command":"update_node","args":{"node_id":1,"software_version":true}}"#,
        #"{"message_id":"1","command":"get_nodes","args":[1]}"#,
    ]

    @Test(arguments: badArguments)
    func badArgumentsAreError8(_ text: String) throws {
        do {
            let message = try CommandMessage.parse(Array(text.utf8))
            _ = try ServerCommand.decode(message)
            Issue.record("accepted \(text)")
        } catch let e as APIError {
            #expect(e.code == .invalidArguments)
            #expect(!e.details.isEmpty)
        } catch let e as CommandMessage.ParseError {
            guard case .invalid(let id, let apiError) = e else { Issue.record("\(e)"); return }
            #expect(id == "1" && apiError.code == .invalidArguments)
        }
    }

    @Test func envelopeErrors() {
        #expect(throws: CommandMessage.ParseError.self) { try CommandMessage.parse(Array("not json".utf8)) }
        #expect(throws: CommandMessage.ParseError.notACommand("the message is array, not an object")) {
            try CommandMessage.parse(Array("[1]".utf8))
        }
        #expect(throws: CommandMessage.ParseError.notACommand("'message_id' is missing or not a string")) {
            try CommandMessage.parse(Array(#"{"message_id":5,"command":"x"}"#.utf8))
        }
    }

    @Test func everyNameDecodes() throws {
        // Each command name is known (never error 9) and its required arguments are checked.
        for name in CommandName.allCases {
            do {
                _ = try ServerCommand.decode(CommandMessage(messageID: "1", command: name.rawValue, args: .object(JSONObject())))
            } catch {
                #expect(error.code == .invalidArguments, "\(name)")
            }
        }
    }

    @Test func errorCodesAreTheClientsTable() {
        // 0-11 as python-matter-server's; 100 and 101 as matterjs-server's (schema 12-13).
        #expect(ErrorCode.allCases.map(\.rawValue) == Array(0...11) + [100, 101])
    }

    /// matterjs-server's ICD commands and log levels, with their defaults.
    @Test func icdAndLogLevelCommands() throws {
        func decode(_ command: String, _ args: JSONValue) throws -> ServerCommand {
            try ServerCommand.decode(CommandMessage(messageID: "1", command: command, args: args))
        }
        #expect(try decode("register_icd", .object(["node_id": .int(5)])) == .registerICD(nodeID: 5, allowMultiAdmin: false, ignoredVendors: nil))
        #expect(try decode("register_icd", .object(["node_id": .int(5), "allow_multi_admin": .bool(true),
                                                    "ignored_vendors": .array([.int(0x1384)])]))
                == .registerICD(nodeID: 5, allowMultiAdmin: true, ignoredVendors: [0x1384]))
        #expect(try decode("unregister_icd", .object(["node_id": .int(5)])) == .unregisterICD(nodeID: 5, force: false))
        #expect(try decode("unregister_icd", .object(["node_id": .int(5), "force": .bool(true)])) == .unregisterICD(nodeID: 5, force: true))
        #expect(try decode("resync_icd", .object(["node_id": .int(5)])) == .resyncICD(nodeID: 5))
        #expect(throws: APIError.self) { try decode("get_icd_state", .object([:])) }
        #expect(throws: APIError.self) { try decode("register_icd", .object(["node_id": .int(5), "ignored_vendors": .array([.int(70000)])])) }
        #expect(try decode("set_loglevel", .object(["console_loglevel": .string("warn")])) == .setLogLevel(console: "warn", file: nil))

        let levels = LogLevels()
        #expect(levels.json == .object(["console_loglevel": .string("info"), "file_loglevel": .null]))
        #expect(levels.set(console: "warn", file: "debug") == .object(["console_loglevel": .string("warning"), "file_loglevel": .null]))
        #expect(!levels.console.writes(.info) && levels.console.writes(.error))
        #expect(LogLevel(clientName: "fatal") == .critical && LogLevel(clientName: "DEBUG") == .debug)
        #expect(LogLevel(clientName: "verbose") == .info)
    }

    /// Schema 14's and 15's commands as matter-python-client 1.6.1 sends them, with the
    /// arguments it leaves out filled in, and what each refuses.
    @Test func schema14And15Commands() throws {
        func decode(_ command: String, _ args: JSONValue) throws -> ServerCommand {
            try ServerCommand.decode(CommandMessage(messageID: "1", command: command, args: args))
        }
        func refused(_ command: String, _ args: JSONValue) -> APIError? {
            do { _ = try decode(command, args); return nil } catch let e as APIError { return e } catch { return nil }
        }
        guard case .read(let node, let paths) = try decode("read", .object([
            "node_id": .int(7), "attribute_paths": .array([.string("1/6/*")]),
            "event_paths": .array([.object(["path": .string("*/40/0")])]),
            "data_version_filters": .array([.object(["path": .string("1/6"), "data_version": .int(12)])]),
        ])) else { Issue.record("not read"); return }
        #expect(node == 7 && paths.fabricFiltered && paths.eventMin == nil)
        #expect(paths.attributes == [AttributePathPattern(endpoint: 1, cluster: 6, attribute: nil)])
        #expect(paths.events == [EventPathPattern(endpoint: nil, cluster: 40, event: 0)])
        #expect(paths.dataVersionFilters == [DataVersionFilter(endpoint: 1, cluster: 6, dataVersion: 12)])
        #expect(refused("read", .object(["node_id": .int(7)]))?.code == .invalidArguments, "no path at all")
        #expect(refused("read", .object(["node_id": .int(7), "attribute_paths": .array([.string("1/6")])]))?.code == .invalidArguments)
        #expect(refused("read", .object(["node_id": .int(7), "attribute_paths": .array([.string("1/6/0")]),
                                         "data_version_filters": .array([.object(["path": .string("*/6"), "data_version": .int(1)])])]))?.code
                == .invalidArguments, "a filter's path is concrete")

        guard case .subscribe(let s) = try decode("subscribe", .object([
            "node_id": .int(7), "min_interval": .int(1), "max_interval": .int(60),
            "event_paths": .array([.object(["path": .string("1/59/*"), "is_urgent": .bool(true)])]),
        ])) else { Issue.record("not subscribe"); return }
        #expect(s.minInterval == 1 && s.maxInterval == 60 && !s.keepSubscriptions)
        #expect(s.paths.events.first?.isUrgent == true)
        #expect(refused("subscribe", .object(["node_id": .int(7), "min_interval": .int(9), "max_interval": .int(2),
                                              "attribute_paths": .array([.string("1/6/0")])]))?.code == .invalidArguments)
        #expect(try decode("unsubscribe", .object(["node_id": .int(7), "subscription_id": .int(99)])) == .unsubscribe(nodeID: 7, subscriptionID: 99))
        #expect(try decode("enable_auto_subscription", .object(["node_id": .int(7)])) == .enableAutoSubscription(nodeID: 7))

        guard case .batchedDeviceCommands(let b) = try decode("batched_device_commands", .object([
            "node_id": .int(7), "commands": .array([
                .object(["endpoint_id": .int(1), "cluster_id": .int(6), "command_name": .string("On"), "payload": .object([:])]),
                .object(["endpoint_id": .int(1), "cluster_id": .int(6), "command_name": .string("Off"), "payload": .null]),
            ]), "timed_request_timeout_ms": .null, "interaction_timeout_ms": .int(5000),
        ])) else { Issue.record("not batched_device_commands"); return }
        #expect(b.commands.map(\.commandName) == ["On", "Off"] && b.interactionTimeoutMs == 5000)
        #expect(refused("batched_device_commands", .object(["node_id": .int(7), "commands": .array([])]))?.code == .invalidArguments)

        #expect(try decode("write_attribute", .object(["node_id": .int(7), "attribute_path": .string("*/8/17"), "value": .int(3),
                                                       "timed_request_timeout_ms": .int(500)]))
                == .writeAttribute(nodeID: 7, path: AttributePathPattern(endpoint: nil, cluster: 8, attribute: 17), value: .int(3),
                                   timedRequestTimeoutMs: 500))
        #expect(refused("write_attribute", .object(["node_id": .int(7), "attribute_path": .string("1/*/17"), "value": .int(3)]))?.code
                == .invalidArguments, "only the endpoint may be a wildcard")

        guard case .commissionWithCode(_, _, _, _, let seconds) = try decode("commission_with_code", .object([
            "code": .string("MT:Y.K9042C00KA0648G00"), "discovery_timeout_s": .double(90.5)])) else { Issue.record("not commissioning"); return }
        #expect(seconds == 90.5)
        #expect(refused("commission_with_code", .object(["code": .string("x"), "discovery_timeout_s": .int(172_801)]))?.code == .invalidArguments)
        #expect(refused("commission_on_network", .object(["setup_pin_code": .int(20202021), "discovery_timeout_s": .int(0)]))?.code
                == .invalidArguments)

        guard case .writeAtomicAttribute(let w) = try decode("write_atomic_attribute", .object([
            "node_id": .int(7), "attribute_path": .string("1/513/80"), "value": .array([]), "data_version": .int(4),
        ])) else { Issue.record("not write_atomic_attribute"); return }
        #expect(w.dataVersion == 4 && w.atomicTimeoutMs == 30_000 && !w.skipDataVersionCheck && !w.ignoreDataVersionMismatch)
        #expect(refused("write_atomic_attribute", .object(["node_id": .int(7), "attribute_path": .string("1/513/80"), "value": .array([])]))?.code
                == .invalidArguments, "a data version or skip_data_version_check")
        #expect(refused("write_atomic_attribute", .object(["node_id": .int(7), "attribute_path": .string("1/513/80"), "value": .array([]),
                                                           "data_version": .int(4), "timed_request_timeout_ms": .int(100)]))?.code
                == .invalidArguments, "a timed write needs skip_data_version_check")
        #expect(refused("write_atomic_attribute", .object(["node_id": .int(7), "attribute_path": .string("*/513/80"), "value": .array([]),
                                                           "skip_data_version_check": .bool(true)]))?.code == .invalidArguments)

        for camera in ["camera_get_capabilities", "camera_start_stream", "camera_snapshot", "send_webrtc_provider_command"] {
            #expect(refused(camera, .object(["node_id": .int(7)]))?.code == .invalidCommand, "\(camera)")
        }
    }
}
