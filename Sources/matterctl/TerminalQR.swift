import CQREncode

/// Draws a QR code in the terminal with libqrencode: two modules per character row (Unicode
/// half blocks), dark on light with the 4-module quiet zone phones need to scan it.
enum TerminalQR {
    static func render(_ text: String) throws -> String {
        // The Matter QR alphabet lies inside QR alphanumeric mode, which libqrencode picks by itself.
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else {
            throw CommandFailure("libqrencode could not encode the QR code")
        }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        let quiet = 4
        let size = width + 2 * quiet
        func dark(_ x: Int, _ y: Int) -> Bool {
            let (mx, my) = (x - quiet, y - quiet)
            guard mx >= 0, my >= 0, mx < width, my < width else { return false }
            return code.pointee.data[my * width + mx] & 1 != 0
        }
        var lines: [String] = []
        var y = 0
        while y < size {
            var line = ""
            for x in 0..<size {
                // Light background: print the light parts as blocks so dark modules stay dark on
                // terminals with either color scheme (inverted rendering, as qrencode -t UTF8 does).
                switch (dark(x, y), dark(x, y + 1)) {
                case (false, false): line += "\u{2588}"
                case (false, true): line += "\u{2580}"
                case (true, false): line += "\u{2584}"
                case (true, true): line += " "
                }
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n")
    }
}
