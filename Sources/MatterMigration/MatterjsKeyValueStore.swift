import FoundationEssentials
import MatterServerAPI
import MatterTLV

/// One matter.js storage namespace (a folder such as matterjs-server's `server-1-fff1/`) read as
/// its key-value contents, context by context (docs/design/matterjs-storage.md section 3): the
/// `wal` driver's snapshot (`snapshot.json[.gz]`) with the commits of `wal/<segment>.jsonl[.gz]`
/// after it replayed, or the legacy `file` driver's one file per key. Values stay as stored (see
/// ``MatterjsValue`` for the special ones).
struct MatterjsKeyValueStore {
    /// Context path (`nodes.peer1.endpoints.0.commissioning`) -> key -> value.
    var contexts: [String: [String: JSONValue]] = [:]
    /// The driver the namespace uses.
    var driver = "file"
    /// WAL lines that were not a commit (skipped, as matter.js skips them).
    var skippedLines = 0

    static func read(_ directory: String) throws(MigrationError) -> MatterjsKeyValueStore {
        var store = MatterjsKeyValueStore()
        if let descriptor = FileManager.default.contents(atPath: directory + "/driver.json") {
            guard let kind = (try? JSONParser.parse([UInt8](descriptor)))?["kind"]?.string else {
                throw MigrationError(.notAStorage, "\(directory)/driver.json does not name a driver",
                                     hint: "Stop matterjs-server cleanly and try again; the file is written when it opens its storage.")
            }
            store.driver = kind
        }
        switch store.driver {
        case "wal": try store.readWAL(directory)
        case "file": try store.readFiles(directory)
        default:
            throw MigrationError(.unknownVersion, "\(directory) uses matter.js's '\(store.driver)' storage driver, which MatterHub does not read",
                                 hint: "matterjs-server's default is 'wal'; start it once with MATTER_STORAGE_DRIVER=wal to convert the storage, stop it, and import again.")
        }
        return store
    }

    // MARK: wal

    mutating func readWAL(_ directory: String) throws(MigrationError) {
        var after = (segment: UInt64(0), line: -1)
        if let snapshot = try Self.snapshot(directory) {
            guard let data = snapshot["data"]?.objectValue else {
                throw MigrationError(.notAStorage, "\(directory)'s snapshot has no 'data'", hint: "The snapshot is damaged.")
            }
            for context in data {
                var values: [String: JSONValue] = [:]
                for member in context.value.objectValue ?? JSONObject() { values[member.key] = member.value }
                contexts[context.key] = values
            }
            if let id = snapshot["commitId"], let segment = id["segment"]?.uint64, let offset = id["offset"]?.int64 {
                after = (segment, Int(offset))
            }
        }
        for (segment, path) in try Self.segments(directory + "/wal") where segment >= after.segment {
            let text = try Self.contents(path)
            for (line, commit) in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
                if segment == after.segment && line <= after.line { continue }
                guard !commit.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) else { continue }
                guard let parsed = try? JSONParser.parse(Array(commit), maxDepth: 128),
                      let ops = parsed.array ?? parsed["ops"]?.array else {
                    skippedLines += 1
                    continue
                }
                for op in ops { apply(op) }
            }
        }
    }

    /// One WAL operation: `upd` merges values into a context, `del` deletes keys (with `values`)
    /// or the context and every context below it (without).
    mutating func apply(_ op: JSONValue) {
        guard let kind = op["op"]?.string, let key = op["key"]?.string else { return }
        switch kind {
        case "upd":
            var values = contexts[key] ?? [:]
            for member in op["values"]?.objectValue ?? JSONObject() { values[member.key] = member.value }
            contexts[key] = values
        case "del":
            if let keys = op["values"]?.array {
                for k in keys.compactMap(\.string) { contexts[key]?[k] = nil }
            } else if key.isEmpty {
                contexts = [:]
            } else {
                for name in contexts.keys where name == key || name.hasPrefix(key + ".") { contexts[name] = nil }
            }
        default:
            return
        }
    }

    /// `snapshot.json.gz` or `snapshot.json`: the newer, the compressed one on a tie.
    static func snapshot(_ directory: String) throws(MigrationError) -> JSONValue? {
        let candidates = [directory + "/snapshot.json.gz", directory + "/snapshot.json"].compactMap { path -> (String, Date)? in
            guard let date = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date else { return nil }
            return (path, date)
        }
        guard let newest = candidates.max(by: { $0.1 < $1.1 }) else { return nil }
        let bytes = try contents(newest.0)
        do { return try JSONParser.parse(bytes, maxDepth: 256) } catch {
            throw MigrationError(.notAStorage, "\(newest.0) is not JSON (\(error))",
                                 hint: "Stop matterjs-server cleanly (it writes the snapshot while running) and try again.")
        }
    }

    /// The WAL's segments in order, each `.jsonl.gz` in place of its `.jsonl` when both exist.
    static func segments(_ directory: String) throws(MigrationError) -> [(UInt64, String)] {
        var found: [UInt64: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            let stem = name.hasSuffix(".jsonl.gz") ? String(name.dropLast(9)) : name.hasSuffix(".jsonl") ? String(name.dropLast(6)) : nil
            guard let stem, stem.count == 8, let segment = UInt64(stem, radix: 16) else { continue }
            if found[segment] == nil || name.hasSuffix(".gz") { found[segment] = directory + "/" + name }
        }
        return found.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// A file's bytes, inflated when it is gzip.
    static func contents(_ path: String) throws(MigrationError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw MigrationError(.notAStorage, "cannot read \(path)", hint: "Check that you may read matterjs-server's storage (stop it first).")
        }
        guard path.hasSuffix(".gz") else { return [UInt8](data) }
        do { return try Gzip.inflate([UInt8](data)) } catch {
            throw MigrationError(.notAStorage, "\(path) cannot be inflated: \(error.description)",
                                 hint: "The file is damaged; matterjs-server's own copy (or a backup) is needed.")
        }
    }

    // MARK: file

    /// One file per key, named `encodeURIComponent("<context>.<key>")`.
    mutating func readFiles(_ directory: String) throws(MigrationError) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw MigrationError(.notAStorage, "cannot list \(directory)", hint: "Check that you may read matterjs-server's storage.")
        }
        for name in names where !["driver.json", "matter.lock", "matter.pid"].contains(name) && !name.hasSuffix(".tmp") {
            guard let decoded = Self.percentDecoded(name), let dot = decoded.lastIndex(of: ".") else { continue }
            let bytes = try Self.contents(directory + "/" + name)
            guard let value = try? JSONParser.parse(bytes, maxDepth: 256) else { continue }
            contexts[String(decoded[..<dot]), default: [:]][String(decoded[decoded.index(after: dot)...])] = value
        }
    }

    static func percentDecoded(_ name: String) -> String? {
        var bytes: [UInt8] = []
        var utf8 = name.utf8.makeIterator()
        while let b = utf8.next() {
            guard b == UInt8(ascii: "%") else { bytes.append(b); continue }
            guard let h = utf8.next(), let l = utf8.next(), let v = Base16.decode(utf8: [h, l]), v.count == 1 else { return nil }
            bytes.append(v[0])
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// matter.js's stored values (`StringifyTools.toJson`): plain JSON, except bigint, bytes,
/// undefined and Map, which are JSON *strings* holding `{"__object__": kind, "__value__": ...}`.
enum MatterjsValue {
    /// The kind and value of a special value, or nil for a plain one.
    static func special(_ value: JSONValue) -> (kind: String, value: JSONValue?)? {
        guard let text = value.string, text.hasPrefix("{\"__object__\":"), text.hasSuffix("}"),
              let object = try? JSONParser.parse(text), let kind = object["__object__"]?.string else { return nil }
        return (kind, object["__value__"])
    }

    /// An integer stored as a number or a BigInt (or an ID wrapper of older stores).
    static func integer(_ value: JSONValue?) -> UInt64? {
        guard let value else { return nil }
        if let n = value.uint64 { return n }
        guard let special = special(value), let inner = special.value else { return nil }
        return inner.string.flatMap { UInt64($0) } ?? inner.uint64
    }

    static func bytes(_ value: JSONValue?) -> [UInt8]? {
        guard let value, let special = special(value), special.kind == "Uint8Array", let hex = special.value?.string else { return nil }
        return Base16.decode(hex)
    }

    static func isUndefined(_ value: JSONValue?) -> Bool {
        value.map { special($0)?.kind == "Undefined" } ?? true
    }
}
