extension UInt8 {
    /// An ASCII hexadecimal digit, either case: what commit ids and their prefixes are written in.
    package var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x61...0x66).contains(self) || (0x41...0x46).contains(self)
    }
}
