import Foundation

/// The pixel size an encoded JPEG or PNG declares, read from its header without decoding: lets
/// a caller with its own limits (a server) refuse a huge image before any pixel memory is
/// allocated. Every offset is checked; a header that cannot be read gives nil.
public enum ImageHeader {
    /// The declared width and height, or nil when the bytes are not a JPEG or PNG whose header
    /// can be read (the decoder then says what is wrong).
    public static func dimensions(of data: Data) -> (width: Int, height: Int)? {
        data.withUnsafeBytes { bytes in
            switch ImageDecoder.container(of: bytes) {
            case .jpeg: return jpegDimensions(bytes)
            case .png: return pngDimensions(bytes)
            case nil: return nil
            }
        }
    }

    /// PNG: the IHDR chunk comes first, after the 8-byte signature (length, "IHDR", width, height).
    static func pngDimensions(_ bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        guard bytes.count >= 24, bytes[12] == 0x49, bytes[13] == 0x48, bytes[14] == 0x44, bytes[15] == 0x52 else {
            return nil
        }
        return (bigEndian32(bytes, 16), bigEndian32(bytes, 20))
    }

    /// JPEG: walks the marker segments up to the first start-of-frame (SOFn: precision,
    /// height, width) and stops at the start of scan. It reads the segments as libjpeg does,
    /// so that it finds the size libjpeg will decode: between segments it skips what libjpeg
    /// skips (with a warning, decoding on): bytes that are not 0xFF, fill bytes, and 0xFF 0x00;
    /// a length under 2 is an empty segment.
    static func jpegDimensions(_ bytes: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        var offset = 2
        while offset + 1 < bytes.count {
            guard bytes[offset] == 0xFF else {  // a stray byte
                offset += 1
                continue
            }
            let marker = bytes[offset + 1]
            if marker == 0xFF || marker == 0x00 {  // a fill byte, or a stuffed zero (not a marker)
                offset += marker == 0xFF ? 1 : 2
                continue
            }
            offset += 2
            // Markers without a length: TEM, RST0-7.
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { continue }
            guard marker != 0xD9, marker != 0xDA, offset + 2 <= bytes.count else { return nil }
            let length = bigEndian16(bytes, offset)
            let isStartOfFrame = (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
            if isStartOfFrame {
                guard length >= 7, offset + 7 <= bytes.count else { return nil }
                return (bigEndian16(bytes, offset + 5), bigEndian16(bytes, offset + 3))
            }
            // A length under 2 (it counts its own two bytes) is a segment without data to libjpeg,
            // which goes on right after it (APPn, COM; it refuses such tables and frames).
            offset += max(length, 2)
        }
        return nil
    }

    private static func bigEndian16(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int {
        Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
    }

    private static func bigEndian32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> Int {
        Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    }
}
