#if canImport(Glibc)
import Glibc
#endif

/// File-system primitives for secrets: private modes, durable atomic writes, directory fsync.
enum SecureFiles {
    /// Mode of the state directory and the key directory.
    static let directoryMode: mode_t = 0o700
    /// Mode of the database (and its -wal/-shm), the lock file and every key file.
    static let fileMode: mode_t = 0o600

    /// Serialises umask changes: umask is per process, so two threads changing it at once could
    /// leave a permissive one in place.
    private static let umaskLock = RecursiveLock()  // nested uses (a key file written inside a transaction)

    /// Runs `body` with umask 077 so whatever it creates is private to the owner from the start.
    static func withPrivateUmask<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        umaskLock.lock()
        let old = umask(0o077)
        defer {
            umask(old)
            umaskLock.unlock()
        }
        return try body()
    }

    /// A lock the thread holding it may take again (a pthread recursive mutex): what
    /// `NSRecursiveLock` was, without Foundation.
    private final class RecursiveLock: @unchecked Sendable {
        // @unchecked: the mutex is the synchronisation; it lives at a stable address until deinit.
        private let mutex: UnsafeMutablePointer<pthread_mutex_t>

        init() {
            mutex = .allocate(capacity: 1)
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
            pthread_mutex_init(mutex, &attributes)
            pthread_mutexattr_destroy(&attributes)
        }

        deinit {
            pthread_mutex_destroy(mutex)
            mutex.deallocate()
        }

        func lock() { pthread_mutex_lock(mutex) }
        func unlock() { pthread_mutex_unlock(mutex) }
    }

    /// Creates `path` (mode 0700) when missing; an existing directory is tightened to 0700.
    static func ensureDirectory(_ path: String) throws(StoreError) {
        var info = stat()
        if lstat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFDIR else { throw .io(operation: "using as a directory", path: path, errno: ENOTDIR) }
        } else if errno == ENOENT {
            let rc = withPrivateUmask { mkdir(path, directoryMode) }
            if rc != 0 && errno != EEXIST { throw .io(operation: "creating directory", path: path, errno: errno) }
        } else {
            throw .io(operation: "inspecting", path: path, errno: errno)
        }
        try setMode(path, directoryMode)
    }

    /// chmod, ignoring a file that does not exist (e.g. a -shm SQLite has not created yet).
    static func setMode(_ path: String, _ mode: mode_t, ignoreMissing: Bool = false) throws(StoreError) {
        if chmod(path, mode) != 0 {
            if ignoreMissing && errno == ENOENT { return }
            throw .io(operation: "setting permissions of", path: path, errno: errno)
        }
    }

    /// Writes `bytes` to `directory/name` atomically and durably: a temporary file (created
    /// exclusively, mode 0600) is written and fsynced, renamed over `name`, then the directory is
    /// fsynced. A crash leaves either no `name` (perhaps a stray `.tmp`) or the complete file.
    static func writeAtomically(_ bytes: [UInt8], directory: String, name: String,
                                afterTemporaryWrite: () -> Void = {}) throws(StoreError) {
        let final = directory + "/" + name
        let temporary = directory + "/" + temporaryPrefix + name + temporarySuffix
        unlink(temporary)
        let fd = withPrivateUmask { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fileMode) }
        guard fd >= 0 else { throw .io(operation: "creating", path: temporary, errno: errno) }
        var failure: StoreError?
        if fchmod(fd, fileMode) != 0 { failure = .io(operation: "setting permissions of", path: temporary, errno: errno) }
        if failure == nil, !writeAll(fd, bytes) { failure = .io(operation: "writing", path: temporary, errno: errno) }
        if failure == nil, fsync(fd) != 0 { failure = .io(operation: "syncing", path: temporary, errno: errno) }
        close(fd)
        if let failure {
            unlink(temporary)
            throw failure
        }
        afterTemporaryWrite()
        guard rename(temporary, final) == 0 else {
            let err = errno
            unlink(temporary)
            throw .io(operation: "renaming into place", path: final, errno: err)
        }
        try syncDirectory(directory)
    }

    /// Temporary files are hidden and end in `.tmp`, so cleanup can recognise its own.
    static let temporaryPrefix = "."
    static let temporarySuffix = ".tmp"

    /// Reads a whole file (key files are small).
    static func read(_ path: String) throws(StoreError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw .io(operation: "opening", path: path, errno: errno) }
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                result.append(contentsOf: buffer[0..<n])
                if result.count > 1 << 20 { throw .io(operation: "reading (file too large)", path: path, errno: EFBIG) }
            } else if n == 0 {
                return result
            } else if errno != EINTR {
                throw .io(operation: "reading", path: path, errno: errno)
            }
        }
    }

    /// Makes a rename or unlink in `directory` durable.
    static func syncDirectory(_ directory: String) throws(StoreError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .io(operation: "opening directory", path: directory, errno: errno) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw .io(operation: "syncing directory", path: directory, errno: errno) }
    }

    /// Names of the entries of a directory (not "." or "..").
    static func entries(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n > 0 { offset += n } else if n < 0 && errno == EINTR { continue } else { return false }
        }
        return true
    }
}
