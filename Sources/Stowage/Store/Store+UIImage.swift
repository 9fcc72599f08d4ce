#if canImport(UIKit)
import UIKit

/// `UIImage` in the store: `save(_:to:in:jpegQuality:options:)`, `retrieve(UIImage.self, ...)`,
/// folders of images and appends, through UIKit's own encoders.
extension UIImage: StorableImage {
    /// `pngData()` or `jpegData(compressionQuality:)`.
    public func encodedImage(as format: ImageFormat) -> Data? {
        switch format {
        case .png: pngData()
        case .jpeg(let quality): jpegData(compressionQuality: CGFloat(quality))
        }
    }

    /// `UIImage(data:)` (`nil` for a subclass: what it decodes is a plain `UIImage`).
    public static func decodedImage(from data: Data) -> Self? {
        UIImage(data: data) as? Self
    }
}
#endif
