#if canImport(AppKit) && !targetEnvironment(macCatalyst)
import AppKit

/// `NSImage` in the store: `save(_:to:in:jpegQuality:options:)`, `retrieve(NSImage.self, ...)`,
/// folders of images and appends. AppKit has no `pngData()`: the image's bitmap representation
/// encodes it (`NSBitmapImageRep.representation(using:properties:)`).
extension NSImage: StorableImage {
    /// The PNG or JPEG representation of the image's bitmap.
    public func encodedImage(as format: ImageFormat) -> Data? {
        guard let tiff = tiffRepresentation, let bitmap = NSBitmapImageRep(data: tiff) else { return nil }
        switch format {
        case .png: return bitmap.representation(using: .png, properties: [:])
        case .jpeg(let quality): return bitmap.representation(using: .jpeg, properties: [.compressionFactor: NSNumber(value: quality)])
        }
    }

    /// `NSImage(data:)` (`nil` for a subclass: what it decodes is a plain `NSImage`).
    public static func decodedImage(from data: Data) -> Self? {
        NSImage(data: data) as? Self
    }
}
#endif
