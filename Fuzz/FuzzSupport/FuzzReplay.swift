import Foundation

/// Runs a fuzz target's body once per file named on the command line (to replay a crash or a
/// corpus without libFuzzer).
public enum FuzzReplay {
    public static func run(_ body: ([UInt8]) -> Void) {
        let paths = CommandLine.arguments.dropFirst()
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                print("cannot read \(path)")
                continue
            }
            body([UInt8](data))
        }
        print("replayed \(paths.count) input(s)")
    }
}
