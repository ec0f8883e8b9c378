/// The server-info message (`ServerInfoMessage`): the bare first frame on every connection, the
/// result of `server_info` and the data of `server_info_updated`.
public struct ServerInfo: Hashable, Sendable {
    /// The schema this server speaks: 15, the highest matter-python-client 1.6.1 gates at
    /// (python-matter-server 8.1.2 and its client speak 11, matterjs-server 13); every command up
    /// to 15 is served, the camera's refused by name.
    public static let schemaVersion = 15
    /// The oldest client schema this server accepts (python-matter-server: 9).
    public static let minSupportedSchemaVersion = 9

    public var fabricID: UInt64
    /// Must be stable across restarts: Home Assistant builds every device identifier from it.
    public var compressedFabricID: UInt64
    public var schemaVersion: Int
    public var minSupportedSchemaVersion: Int
    public var sdkVersion: String
    public var wifiCredentialsSet: Bool
    public var threadCredentialsSet: Bool
    public var bluetoothEnabled: Bool

    public init(fabricID: UInt64, compressedFabricID: UInt64, sdkVersion: String,
                schemaVersion: Int = ServerInfo.schemaVersion,
                minSupportedSchemaVersion: Int = ServerInfo.minSupportedSchemaVersion,
                wifiCredentialsSet: Bool = false, threadCredentialsSet: Bool = false, bluetoothEnabled: Bool = false) {
        self.fabricID = fabricID
        self.compressedFabricID = compressedFabricID
        self.schemaVersion = schemaVersion
        self.minSupportedSchemaVersion = minSupportedSchemaVersion
        self.sdkVersion = sdkVersion
        self.wifiCredentialsSet = wifiCredentialsSet
        self.threadCredentialsSet = threadCredentialsSet
        self.bluetoothEnabled = bluetoothEnabled
    }

    public var json: JSONValue {
        .object([
            "fabric_id": .integer(fabricID),
            "compressed_fabric_id": .integer(compressedFabricID),
            "schema_version": .integer(schemaVersion),
            "min_supported_schema_version": .integer(minSupportedSchemaVersion),
            "sdk_version": .string(sdkVersion),
            "wifi_credentials_set": .bool(wifiCredentialsSet),
            "thread_credentials_set": .bool(threadCredentialsSet),
            "bluetooth_enabled": .bool(bluetoothEnabled),
        ])
    }

    /// Reads a server-info object (as a client does). Unknown keys are ignored.
    public init(json: JSONValue) throws(APIError) {
        let r = try ObjectReader(json, context: "server info")
        self.init(fabricID: try r.required("fabric_id", UInt64.self),
                  compressedFabricID: try r.required("compressed_fabric_id", UInt64.self),
                  sdkVersion: try r.required("sdk_version", String.self),
                  schemaVersion: try r.required("schema_version", Int.self),
                  minSupportedSchemaVersion: try r.required("min_supported_schema_version", Int.self),
                  wifiCredentialsSet: try r.optional("wifi_credentials_set", Bool.self) ?? false,
                  threadCredentialsSet: try r.optional("thread_credentials_set", Bool.self) ?? false,
                  bluetoothEnabled: try r.optional("bluetooth_enabled", Bool.self) ?? false)
    }
}
