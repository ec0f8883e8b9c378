import Foundation
import MatterPlatform
import Synchronization
import Testing

/// The Glibc helpers that replace FileHandle and Thread: real descriptors, a real thread, the real /proc.
@Suite struct SystemTests {
    /// 1 MiB through a pipe (16 times its buffer): written whole by one thread, read to the end by another.
    @Test func writeAllAndReadToEndMoveEveryByteThroughAPipe() async throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let (readFD, writeFD) = (fds[0], fds[1])
        let wrote = Mutex<Bool?>(nil)
        #expect(DetachedThread.start(name: "test.writer") {
            let ok = FileDescriptorIO.writeAll(writeFD, payload)
            close(writeFD)
            wrote.withLock { $0 = ok }
        })
        let received = FileDescriptorIO.readToEnd(readFD)
        close(readFD)
        #expect(received == payload)
        #expect(wrote.withLock { $0 } == true)
    }

    @Test func readingAClosedDescriptorFails() {
        #expect(FileDescriptorIO.readToEnd(-1) == nil)
        #expect(!FileDescriptorIO.writeAll(-1, [1]))
    }

    /// The body runs on a thread of its own that carries the (cut) name.
    @Test func aDetachedThreadRunsItsBodyUnderItsName() async {
        let caller = pthread_self()
        let seen: (name: String, otherThread: Bool) = await withCheckedContinuation { k in
            let started = DetachedThread.start(name: "matterhub.a-long-thread-name") {
                let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                k.resume(returning: (name, pthread_equal(pthread_self(), caller) == 0))
            }
            #expect(started)
        }
        #expect(seen.name == "matterhub.a-lon\n")
        #expect(seen.otherThread)
    }

    @Test func errorTextIsTheSystemsMessage() throws {
        do {
            _ = try Data(contentsOf: URL(fileURLWithPath: "/nonexistent/matterhub"))
            Issue.record("read a file that does not exist")
        } catch {
            #expect(errorText(error) == "No such file or directory")
        }
        #expect(errorText(fileError(.fileWriteNoPermission, path: "/x", errno: EACCES)) == "Permission denied")
        struct Other: Error, CustomStringConvertible { var description: String { "other" } }
        #expect(errorText(Other()) == "other")
    }
}
