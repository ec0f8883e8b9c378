import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// A short human text for an error from FoundationEssentials' file APIs (`FileManager`,
/// `Data(contentsOf:)`, `Data.write(to:)`) and ``fileError(_:path:errno:)``, where
/// `localizedDescription` (Foundation proper) is not available and `String(describing:)` prints
/// the raw `CocoaError` struct: the system's message for the underlying POSIX error ("No such
/// file or directory"); other errors as they describe themselves.
package func errorText(_ error: any Error) -> String {
    if let posix = error as? POSIXError { return errnoText(posix.code.rawValue) }
    if let cocoa = error as? CocoaError {
        if let posix = cocoa.underlying as? POSIXError { return errnoText(posix.code.rawValue) }
        return "file error \(cocoa.code.rawValue)" + (cocoa.filePath.map { " on \($0)" } ?? "")
    }
    return String(describing: error)
}

/// The system's message for an `errno` value ("No such file or directory").
package func errnoText(_ code: Int32) -> String { String(cString: strerror(code)) }

/// A `CocoaError` for a failed system call on `path`, with the POSIX error as its underlying one
/// (what FoundationEssentials' own file APIs throw).
package func fileError(_ code: CocoaError.Code, path: String, errno: Int32) -> CocoaError {
    CocoaError(code, userInfo: ["NSFilePath": path, "NSUnderlyingError": POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)])
}
