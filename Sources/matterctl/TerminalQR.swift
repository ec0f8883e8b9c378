import MatterQRCode

/// Draws a QR code in the terminal (``QRCode/terminalText``).
enum TerminalQR {
    static func render(_ text: String) throws -> String {
        do { return try QRCode(text).terminalText } catch { throw CommandFailure(error.description) }
    }
}
