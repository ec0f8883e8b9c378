import Foundation

/// Runs the `openssl` command-line tool, so that what we produce is also checked by an
/// independent X.509 implementation.
enum OpenSSL {
    struct Result {
        let status: Int32
        let output: String
    }

    /// Runs `openssl <arguments>` with `input` written to a temporary file appended as `-in`.
    static func run(_ arguments: [String], input: [UInt8]? = nil, extraFiles: [String: [UInt8]] = [:]) throws -> Result {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("matterhub-openssl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var args = arguments.map { $0.replacingOccurrences(of: "$DIR", with: dir.path) }
        if let input {
            let file = dir.appendingPathComponent("input.der")
            try Data(input).write(to: file)
            args += ["-in", file.path]
        }
        for (name, bytes) in extraFiles { try Data(bytes).write(to: dir.appendingPathComponent(name)) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + args
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }
}
