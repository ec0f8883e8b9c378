import MatterServerAPI

/// Vendor names for `get_vendor_names`. python-matter-server reads them from the DCL; offline,
/// this hub knows the CSA's test vendor IDs and answers only the vendors it knows (the client
/// shows the ID for the others).
enum VendorNames {
    static let known: [UInt16: String] = [
        0xFFF1: "Test Vendor", 0xFFF2: "Test Vendor", 0xFFF3: "Test Vendor", 0xFFF4: "Test Vendor",
    ]

    static func json(_ filter: [UInt16]?) -> JSONValue {
        var object = JSONObject()
        for (id, name) in known.sorted(by: { $0.key < $1.key }) where filter?.contains(id) ?? true {
            object.append(String(id), .string(name))
        }
        return .object(object)
    }
}
