/// A read-only view of 8-bit interleaved pixels (RGB, or RGBA whose alpha is ignored), rows
/// top to bottom. The caller keeps the memory alive while the view is used.
package struct ImagePixels {
    package let bytes: UnsafeRawBufferPointer
    package let width: Int
    package let height: Int
    package let bytesPerRow: Int
    /// 3 (RGB) or 4 (RGBA).
    package let channels: Int

    /// Checks that the dimensions are positive, the row stride holds a row, and the buffer
    /// holds every row.
    package init(
        bytes: UnsafeRawBufferPointer, width: Int, height: Int, bytesPerRow: Int, channels: Int = 3
    ) throws {
        guard channels == 3 || channels == 4 else {
            throw TasksError.invalidArgument(
                "Image pixels must have 3 (RGB) or 4 (RGBA) channels, got \(channels).")
        }
        guard width > 0, height > 0 else {
            throw TasksError.invalidArgument(
                "Image size must be positive, got \(width)×\(height).")
        }
        guard width <= 32767, height <= 32767 else {
            throw TasksError.invalidArgument(
                "Image size \(width)×\(height) is too large: at most 32767 pixels per side are supported.")
        }
        let (rowBytes, overflow) = width.multipliedReportingOverflow(by: channels)
        guard !overflow, bytesPerRow >= rowBytes else {
            throw TasksError.invalidArgument(
                "Image row stride \(bytesPerRow) is smaller than a row of \(width) pixels × \(channels) bytes.")
        }
        let (lastRow, o1) = (height - 1).multipliedReportingOverflow(by: bytesPerRow)
        let (needed, o2) = lastRow.addingReportingOverflow(rowBytes)
        guard !o1, !o2, bytes.baseAddress != nil, bytes.count >= needed else {
            throw TasksError.invalidArgument(
                "Image buffer holds \(bytes.count) bytes; \(width)×\(height) pixels with a stride of \(bytesPerRow) need \(needed).")
        }
        self.bytes = bytes
        self.width = width
        self.height = height
        self.bytesPerRow = bytesPerRow
        self.channels = channels
    }
}
