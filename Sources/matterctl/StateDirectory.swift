import FoundationEssentials

/// Where the hub keeps its state: `--state DIR`, else $MATTERHUB_STATE, else
/// $XDG_DATA_HOME/matterhub, else ~/.local/share/matterhub.
enum StateDirectory {
    static func resolve(_ explicit: String?) -> String {
        if let explicit { return explicit }
        let env = ProcessInfo.processInfo.environment
        if let s = env["MATTERHUB_STATE"], !s.isEmpty { return s }
        if let x = env["XDG_DATA_HOME"], !x.isEmpty { return x + "/matterhub" }
        return (env["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/share/matterhub"
    }
}
