import Foundation

/// How an image is stored: PNG (lossless) or JPEG with a quality.
///
/// A single image's format follows its file name, as `Disk` chooses it: `.png` or no extension
/// is PNG, `.jpg` or `.jpeg` (any case) is JPEG; any other extension is refused, so an image is
/// never written under a name that promises another format. A folder of images (`0.png`,
/// `1.png`, ...) takes the format as an argument.
///
/// ```swift
/// try store.save(photo, to: "Album/cover.jpg", in: .documents, jpegQuality: 0.8)  // JPEG
/// try store.save(pages, to: "Scans/receipt", in: .documents, format: .png)         // 0.png, 1.png
/// ```
public enum ImageFormat: Sendable, Hashable {
    /// PNG.
    case png
    /// JPEG with a compression quality from 0 (smallest) to 1 (best), as UIKit's
    /// `jpegData(compressionQuality:)` takes it.
    case jpeg(quality: Double)

    /// The extension its files get in a numbered folder: `png` or `jpg`.
    public var fileExtension: String {
        switch self {
        case .png: "png"
        case .jpeg: "jpg"
        }
    }

    /// The format the name `name` asks for (`nil` for an extension that is neither PNG nor JPEG).
    ///
    /// - Parameters:
    ///   - name: A file name or a path; only its last extension counts.
    ///   - jpegQuality: The quality when the name asks for JPEG.
    public static func forName(_ name: String, jpegQuality: Double) -> ImageFormat? {
        let last = name.split(separator: "/").last.map(String.init) ?? name
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return .png }
        switch last[last.index(after: dot)...].lowercased() {
        case "png": return .png
        case "jpg", "jpeg": return .jpeg(quality: jpegQuality)
        default: return nil
        }
    }
}

/// An image type the store can save as PNG or JPEG and read back: `UIImage` (UIKit) and
/// `NSImage` (AppKit) conform, and so can your own (a `CGImage` wrapper, say).
///
/// Every image call of ``Store`` is written once, on the `Data` API, for any conforming type:
/// the conformance only turns an image into bytes and back.
public protocol StorableImage {
    /// The image's bytes in `format`, or `nil` when it cannot be encoded (an image with no bitmap).
    func encodedImage(as format: ImageFormat) -> Data?

    /// The image in `data`, or `nil` when the bytes are not an image this type reads.
    ///
    /// A static function rather than an initializer: a class such as `UIImage` can satisfy it
    /// in an extension (a protocol's initializer would have to be `required`, in the class).
    static func decodedImage(from data: Data) -> Self?
}

extension Store {
    /// Saves `image` as the file at `path` in `location`: PNG, or JPEG when the name ends in
    /// `.jpg` or `.jpeg` (any case); see ``ImageFormat``. Atomic and durable as every save.
    ///
    /// ```swift
    /// try store.save(photo, to: "Album/cover.jpg", in: .documents, jpegQuality: 0.8)
    /// ```
    ///
    /// - Parameters:
    ///   - image: The image (a `UIImage`, an `NSImage`, any ``StorableImage``).
    ///   - path: The file, relative to the location; its extension chooses the format.
    ///   - location: Where the file lives.
    ///   - jpegQuality: The JPEG compression quality, from 0 to 1 (1, as `Disk` saves, by default).
    ///   - options: Durability, protection, backup exclusion.
    /// - Throws: ``StowageError/Code/invalidArgument`` for a name that is neither PNG nor JPEG or a
    ///   quality outside 0...1, ``StowageError/Code/encodingFailed`` for an image that cannot be
    ///   encoded (one with no bitmap), and the errors of ``save(_:to:in:options:)-(Data,_,_,_)``.
    public func save<Image: StorableImage>(_ image: Image, to path: String, in location: Location, jpegQuality: Double = 1,
                                           options: WriteOptions = .default) throws {
        let format = try imageFormat(forName: path, jpegQuality: jpegQuality, operation: .save, location: location)
        let data = try encoded(image, as: format, path: path, location: location, operation: .save)
        try save(data, to: path, in: location, options: options)
    }

    /// Retrieves the image in the file at `path` in `location`, whatever format the image type reads.
    ///
    /// ```swift
    /// let cover = try store.retrieve(UIImage.self, from: "Album/cover.jpg", in: .documents)
    /// ```
    ///
    /// - Throws: ``StowageError/Code/decodingFailed`` naming the path when the file is not an
    ///   image, and the errors of ``retrieve(_:from:in:)->Data``.
    public func retrieve<Image: StorableImage>(_ type: Image.Type, from path: String, in location: Location) throws -> Image {
        let data = try retrieve(Data.self, from: path, in: location)
        guard let image = Image.decodedImage(from: data) else {
            throw StowageError(.decodingFailed, operation: .retrieve, location: location, path: path,
                               reason: "the file is not an image (\(Noun.byte.counted(data.count)))")
        }
        return image
    }

    /// Saves `images` as the numbered folder at `path` (`0.png`, `1.png`, ... or `0.jpg`, ...),
    /// written completely under a temporary name and then renamed into place: all or nothing.
    ///
    /// ```swift
    /// try store.save(pages, to: "Scans/receipt", in: .documents, format: .jpeg(quality: 0.7))
    /// ```
    ///
    /// - Throws: ``StowageError/Code/encodingFailed`` naming the file of the first image that
    ///   cannot be encoded (nothing is written then), ``StowageError/Code/invalidArgument`` for a
    ///   quality outside 0...1, and the errors of ``saveFolder(_:to:in:fileExtension:options:)``.
    public func save<Image: StorableImage>(_ images: [Image], to path: String, in location: Location, format: ImageFormat = .png,
                                           options: WriteOptions = .default) throws {
        try checkQuality(of: format, path: path, location: location, operation: .save)
        let data = try images.enumerated().map { index, image in
            try encoded(image, as: format, path: "\(path)/\(index).\(format.fileExtension)", location: location, operation: .save)
        }
        try saveFolder(data, to: path, in: location, fileExtension: format.fileExtension, options: options)
    }

    /// Retrieves the images of the folder at `path`, in the order of
    /// ``retrieveFolder(from:in:)`` (numbered files by number).
    ///
    /// Unlike `Disk`, which leaves out a file that is not an image, a folder holding one is an error.
    ///
    /// ```swift
    /// let pages = try store.retrieve([UIImage].self, from: "Scans/receipt", in: .documents)
    /// ```
    ///
    /// - Throws: ``StowageError/Code/decodingFailed`` naming the first file that is not an image
    ///   and its index, and the errors of ``retrieveFolder(from:in:)``.
    public func retrieve<Image: StorableImage>(_ type: [Image].Type, from path: String, in location: Location) throws -> [Image] {
        try retrieveNamedFiles(from: path, in: location).enumerated().map { index, file in
            guard let image = Image.decodedImage(from: file.data) else {
                throw StowageError(.decodingFailed, operation: .retrieve, location: location, path: "\(path)/\(file.name)",
                                   reason: "file \(index) of the folder is not an image (\(Noun.byte.counted(file.data.count)))")
            }
            return image
        }
    }

    /// Appends `image` to the numbered folder at `path` as its next file (a missing folder is
    /// created).
    ///
    /// ```swift
    /// try store.append(photo, to: "Album", in: .documents)  // Album/3.png
    /// ```
    ///
    /// - Parameters:
    ///   - image: The image.
    ///   - path: The numbered folder, relative to the location.
    ///   - location: Where the folder lives.
    ///   - format: PNG or JPEG; `nil` keeps the format of the highest-numbered file (PNG for a
    ///     new or empty folder).
    ///   - jpegQuality: The quality when `format` is `nil` and the folder holds JPEG files.
    ///   - options: Durability and protection of the new file.
    /// - Throws: as ``appendToFolder(_:to:in:fileExtension:options:)``, and
    ///   ``StowageError/Code/encodingFailed``.
    public func append<Image: StorableImage>(_ image: Image, to path: String, in location: Location, format: ImageFormat? = nil,
                                             jpegQuality: Double = 1, options: WriteOptions = .default) throws {
        let chosen: ImageFormat
        if let format {
            try checkQuality(of: format, path: path, location: location, operation: .append)
            chosen = format
        } else {
            let last = try perform(.append, location, path) { () -> NumberedEntry? in
                let relative = try RelativePath(path)
                guard let folder = try openParent(of: relative, in: location, create: false, protection: nil, operation: .append),
                      try folder.statusIfPresent(of: relative.name)?.isFolder == true else { return nil }
                return try Self.numberedEntries(in: folder.openFolder(relative.name)).last
            }
            chosen = try last.map { try imageFormat(forName: path + "/" + $0.name, jpegQuality: jpegQuality, operation: .append, location: location) } ?? .png
        }
        let data = try encoded(image, as: chosen, path: path, location: location, operation: .append)
        try appendToFolder(data, to: path, in: location, fileExtension: chosen.fileExtension, options: options)
    }

    private func imageFormat(forName name: String, jpegQuality: Double, operation: StowageError.Operation,
                             location: Location) throws -> ImageFormat {
        try checkQuality(of: .jpeg(quality: jpegQuality), path: name, location: location, operation: operation)
        guard let format = ImageFormat.forName(name, jpegQuality: jpegQuality) else {
            throw StowageError(.invalidArgument, operation: operation, location: location, path: name,
                               reason: "an image is saved as PNG or JPEG: name it .png, .jpg or .jpeg (or give no extension, for PNG)")
        }
        return format
    }

    private func checkQuality(of format: ImageFormat, path: String, location: Location,
                              operation: StowageError.Operation) throws {
        if case .jpeg(let quality) = format, !(0...1).contains(quality) {
            throw StowageError(.invalidArgument, operation: operation, location: location, path: path,
                               reason: "the JPEG quality must be from 0 to 1, not \(quality)")
        }
    }

    private func encoded(_ image: some StorableImage, as format: ImageFormat, path: String, location: Location,
                         operation: StowageError.Operation) throws -> Data {
        guard let data = image.encodedImage(as: format) else {
            throw StowageError(.encodingFailed, operation: operation, location: location, path: path,
                               reason: "the image could not be encoded as \(format.fileExtension == "png" ? "PNG" : "JPEG") (it has no bitmap)")
        }
        return data
    }
}
