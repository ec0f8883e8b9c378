// matterhub-exit-probe: exits while other threads are still inside OpenSSL, for
// ProcessExitTests. Usage: matterhub-exit-probe [threads] [milliseconds before exit]
// Exit status 0 is the only success: a crash in OpenSSL's exit-time cleanup ends it with SIGSEGV
// (or hangs it, which the test's timeout catches).
import Glibc
import MatterCrypto
import MatterPlatform

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let threads = arguments.first ?? 3
let delay = arguments.dropFirst().first ?? 20

for index in 0..<threads {
    DetachedThread.start(name: "probe-\(index)") {
        while true {
            let bytes = SecureRandom.bytes(32)
            _ = SHA256.hash(bytes)
            _ = P256PrivateKey()
        }
    }
}
usleep(useconds_t(delay * 1000))
exit(0)
