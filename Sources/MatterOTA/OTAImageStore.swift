import FoundationEssentials
import MatterTLV

/// The OTA images a hub offers: a folder (owner-only) of checked images, one file per vendor,
/// product and version, named `<VID>-<PID>-<version>.ota` in hex and decimal. Only an image that
/// passed ``OTAImageFile/inspect(path:chunkSize:)`` gets in, and only the names it lists are ever
/// served (a file designator from the network never becomes a path).
public struct OTAImageStore: Sendable {
    public struct Image: Hashable, Sendable {
        /// The file name, which is also the BDX file designator.
        public var name: String
        public var header: OTAImageHeader
    }

    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    /// Checks `path` and copies it in; returns what was stored. The same vendor, product and
    /// version replaces the earlier file.
    @discardableResult
    public func add(path: String) throws(OTAImageError) -> Image {
        let header = try OTAImageFile.inspect(path: path)
        let name = Self.name(header)
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
            let target = directory + "/" + name, staging = target + ".part"
            try? FileManager.default.removeItem(atPath: staging)
            try FileManager.default.copyItem(atPath: path, toPath: staging)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: staging)
            // The copy is checked too: what is served is what was verified.
            let copied = try OTAImageFile.inspect(path: staging)
            guard copied == header else { throw OTAImageError(.unreadable, "the copy of \(path) differs from the original") }
            _ = try? FileManager.default.removeItem(atPath: target)
            try FileManager.default.moveItem(atPath: staging, toPath: target)
        } catch let error as OTAImageError {
            throw error
        } catch {
            throw OTAImageError(.unreadable, "cannot store the image in \(directory): \(error)")
        }
        return Image(name: name, header: header)
    }

    /// Every stored image whose header still reads, by name. Only the headers are read: each
    /// image's digest was checked on the way in, and the requestor checks it again (a device
    /// asks often, and images are megabytes).
    public func images() -> [Image] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter(Self.isImageName).sorted()
        return names.compactMap { name in
            (try? OTAImageFile.header(path: directory + "/" + name)).map { Image(name: name, header: $0) }
        }
    }

    /// The newest image that can update a node of this vendor and product running `version`.
    public func best(vendorID: UInt16, productID: UInt16, currentVersion version: UInt32) -> Image? {
        images().filter { $0.header.refusal(vendorID: vendorID, productID: productID, currentVersion: version) == nil }
            .max { $0.header.softwareVersion < $1.header.softwareVersion }
    }

    /// The path of a stored image by its name (nil for any other name).
    public func path(of name: String) -> String? {
        guard Self.isImageName(name), FileManager.default.fileExists(atPath: directory + "/" + name) else { return nil }
        return directory + "/" + name
    }

    public func remove(name: String) -> Bool {
        guard let path = path(of: name) else { return false }
        return (try? FileManager.default.removeItem(atPath: path)) != nil
    }

    static func name(_ h: OTAImageHeader) -> String {
        "\(VendorID(h.vendorID).paddedHex)-\(ProductID(h.productID).paddedHex)-\(h.softwareVersion).ota"
    }

    /// `XXXX-XXXX-N.ota` only: no separators, no dots but the extension's.
    static func isImageName(_ name: String) -> Bool {
        let parts = name.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, name.hasSuffix(".ota") else { return false }
        let hexDigits = Set("0123456789ABCDEF")
        return parts[0].count == 4 && parts[0].allSatisfy(hexDigits.contains) && parts[1].count == 4 && parts[1].allSatisfy(hexDigits.contains)
            && UInt32(parts[2].dropLast(4)) != nil
    }
}
