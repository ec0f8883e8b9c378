/// The command names the server understands: the 19 the 8.1.2 client sends, plus the server
/// commands python-matter-server also answers (`server_info`, `get_nodes`, `get_node`,
/// `import_test_node`, `set_acl_entry`, `set_node_binding`), plus schema 12's named credential
/// lists (`remove_wifi_credentials` and `remove_thread_dataset`, which matter-python-client 1.6
/// sends to any server for the `default` entry, and `get_all_credentials`), `get_fabric_label`, `get_thread_border_routers` and `get_thread_diagnostics`, and schema 13's `get_network_topology`
/// and `initiate_ota_upload`, matterjs-server's ICD commands (`get_icd_state`, `register_icd`,
/// `unregister_icd`, `resync_icd`) and its `get_loglevel`/`set_loglevel`; schema 14's
/// (`parse_onboarding_payload`, `batched_device_commands`, `read`, `subscribe`, `unsubscribe`,
/// `enable_auto_subscription`, `disable_auto_subscription`; its camera commands are refused by
/// name) and schema 15's `write_atomic_attribute`, as matter-python-client 1.6.1 sends them.
public enum CommandName: String, Hashable, Sendable, CaseIterable {
    case startListening = "start_listening"
    case setDefaultFabricLabel = "set_default_fabric_label"
    case commissionWithCode = "commission_with_code"
    case commissionOnNetwork = "commission_on_network"
    case setWifiCredentials = "set_wifi_credentials"
    case setThreadDataset = "set_thread_dataset"
    case removeWifiCredentials = "remove_wifi_credentials"
    case removeThreadDataset = "remove_thread_dataset"
    case getAllCredentials = "get_all_credentials"
    case getFabricLabel = "get_fabric_label"
    case getThreadBorderRouters = "get_thread_border_routers"
    case getNetworkTopology = "get_network_topology"
    case getThreadDiagnostics = "get_thread_diagnostics"
    case initiateOtaUpload = "initiate_ota_upload"
    case getICDState = "get_icd_state"
    case registerICD = "register_icd"
    case unregisterICD = "unregister_icd"
    case resyncICD = "resync_icd"
    case getLogLevel = "get_loglevel"
    case setLogLevel = "set_loglevel"
    case parseOnboardingPayload = "parse_onboarding_payload"
    case openCommissioningWindow = "open_commissioning_window"
    case discover = "discover"
    case getVendorNames = "get_vendor_names"
    case pingNode = "ping_node"
    case getNodeIPAddresses = "get_node_ip_addresses"
    case deviceCommand = "device_command"
    case readAttribute = "read_attribute"
    case writeAttribute = "write_attribute"
    case batchedDeviceCommands = "batched_device_commands"
    case read = "read"
    case subscribe = "subscribe"
    case unsubscribe = "unsubscribe"
    case enableAutoSubscription = "enable_auto_subscription"
    case disableAutoSubscription = "disable_auto_subscription"
    case writeAtomicAttribute = "write_atomic_attribute"
    case removeNode = "remove_node"
    case interviewNode = "interview_node"
    case checkNodeUpdate = "check_node_update"
    case updateNode = "update_node"
    case diagnostics = "diagnostics"
    case serverInfo = "server_info"
    case getNodes = "get_nodes"
    case getNode = "get_node"
    case importTestNode = "import_test_node"
    case setACLEntry = "set_acl_entry"
    case setNodeBinding = "set_node_binding"
}
