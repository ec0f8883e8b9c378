import FoundationEssentials
import MatterCrypto
import MatterPlatform
import MatterServerAPI
import MatterTLV
import MatterWebSocket
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Schema 13's local firmware upload, as matterjs-server has it: `initiate_ota_upload` issues a
/// random single-use id bound to the asking client's address and holds one of a few slots;
/// `POST /ota-upload/<id>` streams the raw `.ota` bytes into a staging file named after the id
/// (no client string reaches a path), which is then checked and added to the hub's images.
///
/// The id stands for the token on that one POST (Home Assistant's client drops the query when it
/// builds the upload URL): 128 random bits, spendable once, within a minute, from the address that
/// asked over an authorized WebSocket.
final class OTAUploads: Sendable {
    static let lifetime: Duration = .seconds(60)
    static let maxInFlight = 5
    /// Shipping images run 1-8 MB (tens for camera-class devices); 64 MB as matterjs-server.
    static let maxBytes = 64 << 20

    private struct Reservation {
        var expires: ContinuousClock.Instant
        var peer: String
        var consumed = false
    }

    private let reservations = Mutex<[String: Reservation]>([:])
    /// Where bodies are staged (owner-only), nil when the hub takes no images.
    let directory: String?
    /// Checks a staged image and adds it: python-matter-server's MatterSoftwareVersion.
    let importer: @Sendable (String) async throws(APIError) -> JSONValue

    init(directory: String?, importer: @escaping @Sendable (String) async throws(APIError) -> JSONValue) {
        self.directory = directory
        self.importer = importer
        if let directory { Self.removeOrphans(in: directory) }
    }

    /// `initiate_ota_upload`: `{upload_id, expires_in, max_size}`, or error 101.
    func reserve(peer: String) throws(APIError) -> JSONValue {
        guard let directory else { throw APIError(.otaUploadError, "initiate_ota_upload: this hub takes no firmware images") }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw APIError(.otaUploadError, "initiate_ota_upload: the hub cannot stage uploads (\(error)); check its state directory")
        }
        let id = Base16.encode(SecureRandom.bytes(16))
        let now = ContinuousClock.now
        try reservations.withLock { (r: inout [String: Reservation]) throws(APIError) in
            r = r.filter { $0.value.consumed || $0.value.expires > now }
            guard r.count < Self.maxInFlight else {
                throw APIError(.otaUploadError, "initiate_ota_upload: \(Self.maxInFlight) uploads are already under way; retry once one completes")
            }
            r[id] = Reservation(expires: now + Self.lifetime, peer: PeerIdentity.of(peer))
        }
        return .object(["upload_id": .string(id), "expires_in": .integer(Int(Self.lifetime.components.seconds)),
                        "max_size": .integer(Self.maxBytes)])
    }

    /// What `POST <path>` from `peer` gets: a sink for a valid id, a refusal otherwise, nil for
    /// a path that is not an upload's.
    func decision(path: String, peer: String, log: @escaping @Sendable (String) -> Void) -> HTTPBodyDecision? {
        guard path == "/ota-upload" || path.hasPrefix("/ota-upload/") else { return nil }
        let id = String(path.dropFirst("/ota-upload/".count))
        guard path.hasPrefix("/ota-upload/"), id.count == 32, id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return .refuse(Self.json(404, "Not Found", .object(["error": .string("Upload id missing; request one with the initiate_ota_upload command")])))
        }
        switch claim(id, peer: PeerIdentity.of(peer)) {
        case .failure(let error):
            return .refuse(Self.json(400, "Bad Request", .object(["error_code": .integer(error.code.rawValue), "message": .string(error.details)])))
        case .success(let path):
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                let why = errnoText(errno)
                release(id)
                log("api: cannot stage an OTA upload: \(why)")
                return .refuse(Self.json(500, "Internal Server Error", .object(["error": .string("Failed to stage the OTA image: \(why)")])))
            }
            return .accept(OTAUploadSink(id: id, fd: fd, path: path, uploads: self, log: log), maxBytes: Self.maxBytes)
        }
    }

    /// Marks the id spent (a replayed or concurrent POST cannot join) and gives its staging path.
    private func claim(_ id: String, peer: String) -> Result<String, APIError> {
        guard let directory else { return .failure(APIError(.otaUploadError, "This hub takes no firmware images")) }
        return reservations.withLock { r in
            guard var reservation = r[id] else { return .failure(APIError(.otaUploadError, "Unknown OTA upload id")) }
            guard !reservation.consumed else { return .failure(APIError(.otaUploadError, "OTA upload id has already been used")) }
            guard reservation.expires > .now else {
                r[id] = nil
                return .failure(APIError(.otaUploadError, "OTA upload id expired before the upload started; ask for a new one"))
            }
            guard reservation.peer == peer else { return .failure(APIError(.otaUploadError, "OTA upload id was issued to a different client")) }
            reservation.consumed = true
            r[id] = reservation
            return .success(directory + "/" + id + ".ota")
        }
    }

    /// Frees the id's slot.
    func release(_ id: String) {
        _ = reservations.withLock { $0.removeValue(forKey: id) }
    }

    /// Staged files a previous run left (it stopped mid-upload).
    private static func removeOrphans(in directory: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasSuffix(".ota") {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }

    static func json(_ status: Int, _ reason: String, _ body: JSONValue) -> HTTPResponse {
        HTTPResponse(status: status, reason: reason, headers: ["Content-Type": "application/json"], body: JSONWriter.encode(body))
    }
}

/// One upload's staging file: bytes appended on the I/O thread; when complete, checked and added
/// off it. The file and the slot go in every case before the client hears the outcome.
final class OTAUploadSink: HTTPBodySink {
    let id: String
    let fd: Int32
    let path: String
    let uploads: OTAUploads
    let log: @Sendable (String) -> Void

    init(id: String, fd: Int32, path: String, uploads: OTAUploads, log: @escaping @Sendable (String) -> Void) {
        self.id = id
        self.fd = fd
        self.path = path
        self.uploads = uploads
        self.log = log
    }

    func write(_ bytes: ArraySlice<UInt8>) -> HTTPResponse? {
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let n = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                let why = errnoText(errno)
                log("api: OTA upload: cannot write the staged image: \(why)")
                return OTAUploads.json(500, "Internal Server Error", .object(["error": .string("Failed to store OTA image: \(why)")]))
            }
            offset += n
        }
        return nil
    }

    func finish(respond: @escaping @Sendable (HTTPResponse) -> Void) {
        close(fd)
        Task { [self] in
            let response: HTTPResponse
            do throws(APIError) {
                let version = try await uploads.importer(path)
                response = OTAUploads.json(200, "OK", version)
            } catch {
                log("api: OTA upload refused: \(error.details)")
                response = OTAUploads.json(400, "Bad Request", .object(["error_code": .integer(error.code.rawValue), "message": .string(error.details)]))
            }
            discard()
            respond(response)
        }
    }

    func abandon() {
        close(fd)
        discard()
    }

    private func discard() {
        unlink(path)
        uploads.release(id)
    }
}
