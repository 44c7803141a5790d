import VisionTasks

/// Finds the EXIF orientation tag in a JPEG's APP1 segment.
///
/// Walks the marker segments from the start of the file up to the first scan, looks for an APP1
/// segment starting with `Exif\0\0`, and reads tag 0x0112 from the TIFF structure's first IFD
/// (either byte order). Every offset is bounds-checked; anything malformed means "no
/// orientation" (`.up`), as viewers do.
enum EXIFReader {
    static func orientation(inJPEG data: UnsafeRawBufferPointer) -> EXIFOrientation {
        guard data.count >= 4, data[0] == 0xFF, data[1] == 0xD8 else { return .up }
        var offset = 2
        while offset + 4 <= data.count {
            guard data[offset] == 0xFF else { return .up }
            let marker = data[offset + 1]
            if marker == 0xFF { offset += 1; continue } // fill byte
            if marker == 0xD8 || (0xD0...0xD7).contains(marker) || marker == 0x01 { offset += 2; continue }
            if marker == 0xDA || marker == 0xD9 { return .up } // start of scan / end of image
            let length = Int(data[offset + 2]) << 8 | Int(data[offset + 3])
            guard length >= 2, offset + 2 + length <= data.count else { return .up }
            let payload = (offset + 4)..<(offset + 2 + length)
            if marker == 0xE1, let value = orientation(inAPP1: data, payload), let o = EXIFOrientation(rawValue: value) {
                return o
            }
            offset += 2 + length
        }
        return .up
    }

    private static func orientation(inAPP1 data: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
        let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0] // "Exif\0\0"
        guard range.count >= 6 + 8 else { return nil }
        for i in 0..<6 where data[range.lowerBound + i] != header[i] { return nil }
        let tiff = range.lowerBound + 6
        let end = range.upperBound
        let little: Bool
        switch (data[tiff], data[tiff + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= tiff, at + 2 <= end else { return nil }
            let a = Int(data[at]), b = Int(data[at + 1])
            return little ? a | b << 8 : a << 8 | b
        }
        func u32(_ at: Int) -> Int? {
            guard let lo = u16(little ? at : at + 2), let hi = u16(little ? at + 2 : at) else { return nil }
            return hi << 16 | lo
        }
        guard u16(tiff + 2) == 42, let ifd = u32(tiff + 4), let count = u16(tiff + ifd) else { return nil }
        for entry in 0..<count {
            let at = tiff + ifd + 2 + entry * 12
            guard let tag = u16(at) else { return nil }
            if tag == 0x0112 {
                guard let type = u16(at + 2), type == 3 else { return nil } // SHORT
                return u16(at + 8)
            }
        }
        return nil
    }
}
